"""Table-era mutants of syncup (see ``table_syncup.py``)."""

from __future__ import annotations

from .config import Config
from .state import LIVE_DIR, WalKey
from .table import Table
from .table_common import wals_to_replicate
from .table_state import Row, TState


class SyncUpNoAddMissing(Table):
    name = "table/syncup-no-add-missing"
    mutant_of = "table"
    overrides = "rule_syncup_add_missing"
    bug = (
        "ReplicationSyncUp does not add the missing queues: a server that never persisted an "
        "offset has no row, so the tool does not replicate its WALs, yet it leaves a marker and "
        "the master's REMOVE_QUEUES finishes the server's SCP with nothing claimed (lost edits)"
    )
    configs = ("t-syncup",)

    def rule_syncup_add_missing(
        self, st: TState, view: tuple[Row, ...], dirs: list[int]
    ) -> tuple[Row, ...]:
        return view


class SyncUpSkipsOldWals(Table):
    name = "table/syncup-skips-oldwals"
    mutant_of = "table"
    overrides = "rule_syncup_wals"
    bug = (
        "ReplicationSyncUp's claimed queues list only the source server's WALs/ directory, not "
        "oldWALs/: a WAL already split (or archived) is not replicated by the tool, and the "
        "master then drops the queue because of the marker (lost edits)"
    )
    configs = ("t-syncup",)

    def rule_syncup_wals(
        self, cfg: Config, st: TState, source: int, group: int, offset
    ) -> tuple[WalKey, ...]:
        return wals_to_replicate(st, source, group, offset, (LIVE_DIR,))


SYNCUP_MUTANTS: tuple[type, ...] = (
    SyncUpNoAddMissing,
    SyncUpSkipsOldWals,
)
