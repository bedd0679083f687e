"""Table-era mutants of sync (see ``table_sync.py``): each overrides exactly one named step of
``table`` and says which hazard of seed 004's "About sync replication" it reproduces."""

from __future__ import annotations

from . import sync_replication
from .table import Table
from .table_state import TServer


class SyncNoDrain(Table):
    name = "table/sync-no-drain"
    mutant_of = "table"
    overrides = "drain_sources"
    bug = (
        "the stage-1 refresh to STANDBY does not drainSources (HBASE-20426): the normal source "
        "keeps the DA-era WALs in memory, and once the peer is enabled again it replicates the "
        "data of the previous DA state"
    )
    configs = ("t-sync",)
    text = sync_replication.SyncNoDrain


class SyncNoRefusal(Table):
    name = "table/sync-no-refusal"
    mutant_of = "table"
    overrides = "rule_refuse_recovered"
    bug = (
        "addRecoveredSource does not refuse a sync peer that is (going) STANDBY: a crashed "
        "server's queue re-added by ADD_MISSING_QUEUES after REMOVE_ALL_REPLICATION_QUEUES is "
        "claimed after the drain and its recovered source replicates DA-era edits"
    )
    configs = ("t-sync",)

    def rule_refuse_recovered(self, srv: TServer, peer: int) -> bool:
        """``addRecoveredSource`` refuses no peer, whatever its sync-replication state."""
        return False


SYNC_MUTANTS: tuple[type, ...] = (SyncNoDrain, SyncNoRefusal)
