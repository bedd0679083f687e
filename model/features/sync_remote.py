"""Sync replication's remote side (seed 004 "About sync replication"; reference section 7): the
remote WAL directory with its ``.syncrep`` files, their replay when the STANDBY becomes
DOWNGRADE_ACTIVE, and their clean-up, in the protocol text's form (``model/engine/step.py``).

Which side cluster 0 plays: the STANDBY. Each sync peer ``p``'s cluster (``p + 1``) is its
ACTIVE. While cluster 0 is STANDBY, the ACTIVE's region servers write each WAL both locally and,
as a ``.syncrep`` file, into cluster 0's ``remoteWALs/<peerId>`` (DualAsyncFSWAL), and a write
is acknowledged only once both are written (``remote_put``); the ACTIVE's source replicates the
edits to cluster 0 (``remote_ship``) and, in ``cleanOldLogs``, deletes a WAL's remote copy once
the WAL is replicated (``remote_clean``, ``removeRemoteWALs``), also once the peer's cluster went
ACTIVE -> DOWNGRADE_ACTIVE (``remote_downgrade``: it then writes no remote WAL; HBASE-20434).
When cluster 0 goes STANDBY ->
DOWNGRADE_ACTIVE, its TransitPeerSyncReplicationStateProcedure runs REPLAY_REMOTE_WAL_IN_PEER
after REFRESH_BEGIN (``after_refresh_begin``), the child RecoverStandbyProcedure:

* RENAME_SYNC_REPLICATION_WALS_DIR: ``remoteWALs/<peerId>`` becomes ``<peerId>-replay`` (an older
  ``-replay`` deleted first). The rename fences the ACTIVE: its next remote WAL has no directory
  to go to, so no write is acknowledged after it. REGISTER_PEER_TO_WORKER_STORAGE is folded in;
* DISPATCH_WALS: ``-replay`` is listed and one SyncReplicationReplayWALProcedure added per WAL;
* each child (``replay_wal``) has a worker region server replay the WAL into cluster 0, and the
  master truncates it, so a retry finds nothing to replay;
* UNREGISTER_PEER_FROM_WORKER_STORAGE and SNAPSHOT_SYNC_REPLICATION_WALS_DIR, once every child
  ended: ``-replay`` becomes ``<peerId>-snapshot`` (an older one deleted first); then TRANSIT.

RemovePeerProcedure's last step deletes ``remoteWALs/<peerId>``, ``-replay`` and ``-snapshot``
with their files (``removePeerRemoteWALs``, ``delete_remote_dirs``).

Abstractions: the ACTIVE acknowledges at most ``Config.remote_wals`` edits, each in its own
remote WAL (it rolls after each), which is what makes "a write to a renamed directory fails" a
single step; the ACTIVE's other state (its own sync state, its local WALs) is left out, and the
remote directory bit ``TState.remote_dir`` (``remote_wal_dir[p]``) is cluster 0's
``remoteWALs/<peerId>`` (the one DOWNGRADE_ACTIVE -> ACTIVE also requires, in the model as before).
What a replay writes into cluster 0's own WALs (which are replicated back to the old ACTIVE) is not
modelled, nor the workers' one-WAL-per-server limit.

The layout's slots, per sync peer ``p`` and remote WAL ``k``: ``remote_acked[p]`` edits
acknowledged; ``remote_wal_file[p, k]`` where WAL ``k``'s file is (``table_sync.FILE_NAMES``);
``remote_applied[p, k]`` its edit is applied at cluster 0; ``remote_replay_dir[p]`` /
``remote_snapshot_dir[p]`` the ``-replay`` and ``-snapshot`` directories exist; ``recover_step[p]``
RecoverStandbyProcedure's step; ``replay_child[p, k]`` WAL ``k``'s child procedure is still to run;
``remote_downgraded[p]`` the peer's cluster went ACTIVE -> DOWNGRADE_ACTIVE (``TState.remote``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.names import var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.features.sync_procedure import (
    IN_DIR,
    IN_REPLAY,
    IN_SNAPSHOT,
    NO_FILE,
    REPLAYED,
    RS_DISPATCH,
    RS_RENAME,
    RS_REPLAY,
    RS_SNAPSHOT,
    TS_REPLAY,
    TS_TRANSIT,
)
from replcheck.model.features.sync_replication import SyncReplication
from replcheck.model.table.state import DOWNGRADE_ACTIVE, STANDBY, TRANSIT, RemoteWals, TState
from replcheck.model.table.views import PeerProc, Server


def _remote_wals(text: Any) -> list[tuple[int, int]]:
    return [(p, k) for p in text.SP for k in range(text.cfg.remote_wals)]


class SyncRemote(SyncReplication):
    """The ``sync_remote`` feature: the remote WALs the sync peers' ACTIVE clusters write into
    cluster 0, their replay by RecoverStandbyProcedure and their clean-up."""

    handles = frozenset({"sync_remote"})
    encoded_fields = ("remote",)

    @property
    def RW(self) -> range:
        """The remote WALs of each sync peer."""
        return range(self.cfg.remote_wals)

    # --- slots ----------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for p in self.P:
            out[var.peer_proc_stage(p)] = ("i", 0, max(out[var.peer_proc_stage(p)][2], TS_REPLAY))
        for p in self.SP:
            out[var.remote_acked(p)] = ("i", 0, self.cfg.remote_wals)
            out[var.remote_replay_dir(p)] = "b"
            out[var.remote_snapshot_dir(p)] = "b"
            out[var.recover_step(p)] = ("i", 0, RS_SNAPSHOT)
            out[var.remote_downgraded(p)] = "b"
            for k in self.RW:
                out[var.remote_wal_file(p, k)] = ("i", 0, IN_SNAPSHOT)
                out[var.remote_applied(p, k)] = "b"
                out[var.replay_child(p, k)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        for p, rem in enumerate(st.remote):
            v[var.remote_acked(p)] = rem.acked
            v[var.remote_replay_dir(p)] = rem.replay_dir
            v[var.remote_snapshot_dir(p)] = rem.snapshot_dir
            v[var.recover_step(p)] = rem.recover
            v[var.remote_downgraded(p)] = rem.downgraded
            for k in self.RW:
                v[var.remote_wal_file(p, k)] = rem.files[k]
                v[var.remote_applied(p, k)] = bool(rem.applied >> k & 1)
                v[var.replay_child(p, k)] = bool(rem.children >> k & 1)
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        remote = tuple(
            RemoteWals(
                acked=v[var.remote_acked(p)],
                files=tuple(v[var.remote_wal_file(p, k)] for k in self.RW),
                applied=sum(1 << k for k in self.RW if v[var.remote_applied(p, k)]),
                replay_dir=v[var.remote_replay_dir(p)],
                snapshot_dir=v[var.remote_snapshot_dir(p)],
                recover=v[var.recover_step(p)],
                children=sum(1 << k for k in self.RW if v[var.replay_child(p, k)]),
                downgraded=v[var.remote_downgraded(p)],
            )
            for p in self.SP
        )
        return st._replace(remote=remote)

    # --- rules ----------------------------------------------------------------------------------

    def rule_remote_wal_removable(self, t: Any, p: int, k: int) -> Any:
        """May the peer's cluster's source delete remote WAL ``k``'s copy? Only in
        ``cleanOldLogs``, which runs once the WAL is replicated to its end (its edit applied at
        cluster 0), whether that cluster is still ACTIVE or went DOWNGRADE_ACTIVE since
        (HBASE-20434)."""
        return t.remote_applied[p, k]

    def rule_replays_remote_wals(self, ops: Any) -> Any:
        """Does the transition from STANDBY to DOWNGRADE_ACTIVE run REPLAY_REMOTE_WAL_IN_PEER
        (RecoverStandbyProcedure)? Yes, for a peer that is not serial."""
        return True

    # --- the ACTIVE cluster ---------------------------------------------------------------------

    @step(params=("peer", "wal"), fair=False, each=_remote_wals)
    def remote_put(self, t: Ctx, p: int, k: int) -> None:
        """the peer's ACTIVE cluster acknowledges an edit, written to its WAL and to a .syncrep
        file in cluster 0's remoteWALs/<peerId>"""
        ops = t.ops
        t.require(
            t.remote_acked[p] == k,
            ops.not_(t.remote_downgraded[p]),
            t.sync_state[p] == STANDBY,
            t.remote_wal_dir[p],
        )
        t.remote_wal_file[p, k] = IN_DIR
        t.remote_acked[p] = k + 1

    @step(params=("peer",), fair=False, each=lambda text: [(p,) for p in text.SP])
    def remote_downgrade(self, t: Ctx, p: int) -> None:
        """the peer's cluster goes ACTIVE -> DOWNGRADE_ACTIVE: it writes no remote WAL any
        more, and its source goes on replicating to cluster 0"""
        t.require(t.ops.not_(t.remote_downgraded[p]))
        t.remote_downgraded[p] = True

    @step(params=("peer", "wal"), fair=False, each=_remote_wals)
    def remote_ship(self, t: Ctx, p: int, k: int) -> None:
        """the ACTIVE's source replicates an edit to cluster 0 (in order)"""
        ops = t.ops
        t.require(
            k < t.remote_acked[p],
            ops.not_(t.remote_applied[p, k]),
            t.remote_applied[p, k - 1] if k else True,
        )
        t.remote_applied[p, k] = True

    @step(params=("peer", "wal"), fair=True, each=_remote_wals)
    def remote_clean(self, t: Ctx, p: int, k: int) -> None:
        """the ACTIVE's source deletes a WAL's remote copy (cleanOldLogs -> removeRemoteWALs)"""
        t.require(t.remote_wal_file[p, k] == IN_DIR, self.rule_remote_wal_removable(t, p, k))
        t.remote_wal_file[p, k] = NO_FILE

    # --- cluster 0's transition to DOWNGRADE_ACTIVE -----------------------------------------------

    def after_refresh_begin(self, t: Ctx, p: int, to: int) -> Any:
        """From STANDBY to DOWNGRADE_ACTIVE: REPLAY_REMOTE_WAL_IN_PEER, RecoverStandbyProcedure
        from its first step (``rule_replays_remote_wals``); else TRANSIT."""
        base = super().after_refresh_begin(t, p, to)
        if to != DOWNGRADE_ACTIVE or p not in self.SP:
            return base
        ops = t.ops
        replay = ops.and_(t.sync_state[p] == STANDBY, self.rule_replays_remote_wals(ops))
        return ops.ite(replay, TS_REPLAY, base)

    def proc_steps(self, p: int) -> dict[str, Any]:
        """RecoverStandbyProcedure's steps join the transition's, at REPLAY_REMOTE_WAL_IN_PEER."""
        out = super().proc_steps(p)
        if p not in self.SP:
            return out
        for name, body in (
            ("ts-replay-rename", self.rs_rename),
            ("ts-replay-dispatch", self.rs_dispatch),
            ("ts-replay-snapshot", self.rs_snapshot),
        ):
            out[name] = (TRANSIT, TS_REPLAY, lambda t, body=body: body(t, p))
        return out

    def rs_rename(self, t: Ctx, p: int) -> None:
        """RENAME_SYNC_REPLICATION_WALS_DIR (then REGISTER_PEER_TO_WORKER_STORAGE):
        ``remoteWALs/<peerId>`` becomes ``<peerId>-replay``, an older ``-replay`` deleted first.
        With neither there the rename fails the procedure; here it waits."""
        ops = t.ops
        src = t.remote_wal_dir[p]
        t.require(t.recover_step[p] == RS_RENAME, ops.or_(src, t.remote_replay_dir[p]))
        for k in self.RW:
            f = t.remote_wal_file[p, k]
            old = ops.or_(f == IN_REPLAY, f == REPLAYED)
            t.when(ops.and_(src, old)).remote_wal_file[p, k] = NO_FILE
            t.when(ops.and_(src, f == IN_DIR)).remote_wal_file[p, k] = IN_REPLAY
        t.remote_wal_dir[p] = False
        t.remote_replay_dir[p] = True
        t.recover_step[p] = RS_DISPATCH

    def rs_dispatch(self, t: Ctx, p: int) -> None:
        """DISPATCH_WALS: ``<peerId>-replay`` is listed and a SyncReplicationReplayWALProcedure
        added for each ``.syncrep`` WAL in it."""
        t.require(t.recover_step[p] == RS_DISPATCH)
        ops = t.ops
        for k in self.RW:
            f = t.remote_wal_file[p, k]
            t.replay_child[p, k] = ops.or_(f == IN_REPLAY, f == REPLAYED)
        t.recover_step[p] = RS_REPLAY

    @step(params=("peer", "wal"), fair=True, each=_remote_wals)
    def replay_wal(self, t: Ctx, p: int, k: int) -> None:
        """SyncReplicationReplayWALProcedure: a worker region server replays a remote WAL into
        cluster 0, and the master truncates the WAL (a truncated one has nothing to replay)"""
        ops = t.ops
        t.require(t.replay_child[p, k], ops.or_(*(Server(t, s).alive for s in self.S)))
        fresh = t.remote_wal_file[p, k] == IN_REPLAY
        t.when(fresh).remote_applied[p, k] = True
        t.when(fresh).remote_wal_file[p, k] = REPLAYED
        t.replay_child[p, k] = False

    def rs_snapshot(self, t: Ctx, p: int) -> None:
        """UNREGISTER_PEER_FROM_WORKER_STORAGE and SNAPSHOT_SYNC_REPLICATION_WALS_DIR, once every
        child ended: ``<peerId>-replay`` becomes ``<peerId>-snapshot``, an older one deleted
        first; the transition goes on to TRANSIT."""
        ops = t.ops
        src = t.remote_replay_dir[p]
        t.require(
            t.recover_step[p] == RS_REPLAY,
            *(ops.not_(t.replay_child[p, k]) for k in self.RW),
            ops.or_(src, t.remote_snapshot_dir[p]),
        )
        for k in self.RW:
            f = t.remote_wal_file[p, k]
            t.when(ops.and_(src, f == IN_SNAPSHOT)).remote_wal_file[p, k] = NO_FILE
            moved = ops.and_(src, ops.or_(f == IN_REPLAY, f == REPLAYED))
            t.when(moved).remote_wal_file[p, k] = IN_SNAPSHOT
        t.remote_replay_dir[p] = False
        t.remote_snapshot_dir[p] = True
        t.recover_step[p] = RS_RENAME
        PeerProc(t, p).stage = TS_TRANSIT

    # --- RemovePeerProcedure --------------------------------------------------------------------

    def removal_done(self, t: Ctx, p: int, done: Any) -> None:
        """RemovePeer's last step deletes the peer's remote WAL directories
        (``delete_remote_dirs``)."""
        super().removal_done(t, p, done)
        if p in self.SP:
            self.delete_remote_dirs(t, p, done)

    def delete_remote_dirs(self, t: Ctx, p: int, done: Any) -> None:
        """``removePeerRemoteWALs``, where ``done`` holds: ``remoteWALs/<peerId>``, its
        ``-replay`` and its ``-snapshot`` directories are deleted with every file in them."""
        t.when(done).remote_wal_dir[p] = False
        t.when(done).remote_replay_dir[p] = False
        t.when(done).remote_snapshot_dir[p] = False
        for k in self.RW:
            t.when(done).remote_wal_file[p, k] = NO_FILE


# --- mutants --------------------------------------------------------------------------------------


class ReplaySkipped(SyncRemote):
    """``table/sync-replay-skipped``: STANDBY -> DOWNGRADE_ACTIVE goes from REFRESH_BEGIN
    straight to TRANSIT."""

    def rule_replays_remote_wals(self, ops: Any) -> Any:
        """REPLAY_REMOTE_WAL_IN_PEER is not run: the remote WALs are never replayed."""
        return False


class RemoteRemovedEarly(SyncRemote):
    """``table/sync-remote-removed-early``: a remote WAL's copy is deleted before its WAL is
    replicated."""

    def rule_remote_wal_removable(self, t: Any, p: int, k: int) -> Any:
        """Any remote WAL's copy may be deleted, replicated or not."""
        return True


class RemoteKeptInDowngrade(SyncRemote):
    """``table/HBASE-20434``: remote WALs are deleted only while the peer's cluster is
    ACTIVE."""

    def rule_remote_wal_removable(self, t: Any, p: int, k: int) -> Any:
        """A replicated WAL's remote copy is deleted only while its cluster is still ACTIVE:
        once it went DOWNGRADE_ACTIVE the copies stay in cluster 0's remote WAL directory."""
        return t.ops.and_(t.remote_applied[p, k], t.ops.not_(t.remote_downgraded[p]))


class RemovePeerKeepsReplayDirs(SyncRemote):
    """``table/sync-remove-keeps-snapshot``: RemovePeer deletes only ``remoteWALs/<peerId>``."""

    def delete_remote_dirs(self, t: Ctx, p: int, done: Any) -> None:
        """Only ``remoteWALs/<peerId>`` and its files are deleted; ``-replay`` and ``-snapshot``
        stay."""
        t.when(done).remote_wal_dir[p] = False
        for k in self.RW:
            t.when(t.ops.and_(done, t.remote_wal_file[p, k] == IN_DIR)).remote_wal_file[p, k] = (
                NO_FILE
            )


FEATURE = SyncRemote
"""The text of the ``sync_remote`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
"""No mutant's override is here (each brings its text as its ``Design.text``)."""
