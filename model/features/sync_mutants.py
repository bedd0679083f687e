"""Table-era mutants of sync (see ``features/sync_procedure.py``): each overrides exactly one named
step of ``table`` and says which hazard of seed 004's "About sync replication" it reproduces."""

from __future__ import annotations

from replcheck.model.features import sync_remote, sync_replication
from replcheck.model.table.designs import Table


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
    overrides = "refuse_recovered"
    bug = (
        "addRecoveredSource does not refuse a sync peer that is (going) STANDBY: a crashed "
        "server's queue re-added by ADD_MISSING_QUEUES after REMOVE_ALL_REPLICATION_QUEUES is "
        "claimed after the drain and its recovered source replicates DA-era edits"
    )
    configs = ("t-sync",)
    text = sync_replication.SyncNoRefusal


class SyncReplaySkipped(Table):
    name = "table/sync-replay-skipped"
    mutant_of = "table"
    overrides = "rule_replays_remote_wals"
    bug = (
        "STANDBY -> DOWNGRADE_ACTIVE skips REPLAY_REMOTE_WAL_IN_PEER (no RecoverStandbyProcedure): "
        "an edit the ACTIVE acknowledged, whose remote WAL is in remoteWALs/<peerId> but which "
        "its source had not replicated yet, is missing from the new DOWNGRADE_ACTIVE cluster"
    )
    configs = ("t-sync-remote",)
    text = sync_remote.ReplaySkipped


class SyncRemoteRemovedEarly(Table):
    name = "table/sync-remote-removed-early"
    mutant_of = "table"
    overrides = "rule_remote_wal_removable"
    bug = (
        "the ACTIVE's source deletes a remote WAL (removeRemoteWALs) before the WAL is "
        "replicated: when the STANDBY is promoted, the replay no longer has the edit, which the "
        "ACTIVE acknowledged and never shipped"
    )
    configs = ("t-sync-remote",)
    text = sync_remote.RemoteRemovedEarly


class SyncRemoteKeptInDowngrade(Table):
    name = "table/HBASE-20434"
    mutant_of = "table"
    overrides = "rule_remote_wal_removable"
    bug = (
        "remote WALs are deleted only while the peer's cluster is ACTIVE: once it went "
        "DOWNGRADE_ACTIVE, the copies of WALs it has replicated stay in the STANDBY's "
        "remoteWALs/<peerId> for ever (HBASE-20434: also remove remote WALs in DA)"
    )
    configs = ("t-sync-remote-cycle",)
    text = sync_remote.RemoteKeptInDowngrade


class SyncRemoveKeepsSnapshot(Table):
    name = "table/sync-remove-keeps-snapshot"
    mutant_of = "table"
    overrides = "delete_remote_dirs"
    bug = (
        "RemovePeerProcedure deletes remoteWALs/<peerId> but not the <peerId>-replay and "
        "<peerId>-snapshot directories RecoverStandbyProcedure made: the replayed WALs of a "
        "removed peer stay for ever (removePeerRemoteWALs deletes all three)"
    )
    configs = ("t-sync-remote-cycle",)
    text = sync_remote.RemovePeerKeepsReplayDirs


SYNC_MUTANTS: tuple[type, ...] = (
    SyncNoDrain,
    SyncNoRefusal,
    SyncReplaySkipped,
    SyncRemoteRemovedEarly,
    SyncRemoteKeptInDowngrade,
    SyncRemoveKeepsSnapshot,
)
