"""Sync replication (seed 004 "About sync replication"; reference section 7):
TransitPeerSyncReplicationStateProcedure, draining sources for STANDBY, the refusal of recovered
sources, the remote WAL directory.

The procedure's steps, as ``PeerProc.stage`` (reference section 7's order; the stage-0 and stage-1
``RefreshPeerProcedure`` children run while ``proc.refresh`` is non-zero, and the step that
dispatched them is the stage they run under):

* ``PRE``: the transition is allowed (checked when it is submitted); record whether the peer was
  enabled (``WAS_ENABLED`` added to the stage) and, in ``table-doc``, the servers that are live or
  dead with an unfinished SCP (``proc.recorded``);
* ``SET_NEW``: to STANDBY, disable the (enabled) peer; ``newState := to``; dispatch stage 0;
* ``REFRESH_BEGIN``: stage-0 children set each live server's view to the storage pair;
* ``REMOVE_ALL`` (to STANDBY): ``removeAllQueues`` twice, row by row, from a key snapshot;
* ``TRANSIT``: ``state := new, new := NONE``; to STANDBY, the edits owed to the peer and not yet
  applied become stale history (``TState.stale``); dispatch stage 1. ``table-doc`` first waits
  for every recorded server to have refreshed at stage 0 or to have its SCP finished;
* ``REFRESH_END``: stage-1 children set the view; to STANDBY they ``drainSources``;
* ``SET_ENABLED`` and its refresh (to STANDBY, when the peer was enabled);
* ``CREATE_DIR`` (to STANDBY) makes the remote WAL directory; ``POST`` ends the procedure.

REOPEN_ALL_REGIONS_IN_PEER and REPLAY_REMOTE_WAL_IN_PEER touch no replication queue, so they are
folded into the step that precedes them (no separate stage); the peers are not serial.

Bound: in a configuration with sync peers the last WAL slot of each server is kept for the roll
that follows ``drainSources``, since the code always rolls there. The steps are the protocol
text's (``features/sync_replication.py``); here are the stages' names, the refusal rule in dual form
and the initial views.
"""

from __future__ import annotations

from replcheck.model.config import Config
from replcheck.model.engine.logic import PY, B, I, Ops, dual
from replcheck.model.table.state import (
    ACTIVE,
    DOWNGRADE_ACTIVE,
    NONE,
    STANDBY,
    PeerProc,
    RemoteWals,
    TServer,
    TState,
)

# TransitPeerSyncReplicationStateProcedure's steps (``PeerProc.stage`` modulo ``WAS_ENABLED``).
TS_PRE, TS_SET_NEW, TS_REFRESH_BEGIN, TS_REMOVE_ALL, TS_TRANSIT = range(5)
TS_REFRESH_END, TS_SET_ENABLED, TS_ENABLE_REFRESH, TS_CREATE_DIR, TS_POST = range(5, 10)
TS_REPLAY = 10
"""REPLAY_REMOTE_WAL_IN_PEER: a stage of its own only where the remote side is modelled
(``model/features/sync_remote.py``); elsewhere it is folded into REFRESH_BEGIN, as it touches no
queue."""
TS_NAMES = (
    "PRE_PEER_SYNC_REPLICATION_STATE_TRANSITION",
    "SET_PEER_NEW_SYNC_REPLICATION_STATE",
    "REFRESH_PEER_SYNC_REPLICATION_STATE_ON_RS_BEGIN",
    "REMOVE_ALL_REPLICATION_QUEUES_IN_PEER",
    "TRANSIT_PEER_NEW_SYNC_REPLICATION_STATE",
    "REFRESH_PEER_SYNC_REPLICATION_STATE_ON_RS_END",
    "SYNC_REPLICATION_SET_PEER_ENABLED",
    "SYNC_REPLICATION_ENABLE_PEER_REFRESH_PEER_ON_RS",
    "CREATE_DIR_FOR_REMOTE_WAL",
    "POST_PEER_SYNC_REPLICATION_STATE_TRANSITION",
    "REPLAY_REMOTE_WAL_IN_PEER",
)
WAS_ENABLED = 16
"""Added to the stage: the peer was enabled when the procedure started (``enabled`` field)."""

ALLOWED: dict[int, tuple[int, ...]] = {
    ACTIVE: (DOWNGRADE_ACTIVE, STANDBY),
    STANDBY: (DOWNGRADE_ACTIVE,),
    DOWNGRADE_ACTIVE: (STANDBY, ACTIVE),
}
"""``ReplicationPeerManager.allowedTransition``: A→{DA,S}; S→{DA}; DA→{S,A}."""


# The remote side (``model/features/sync_remote.py``): where a remote WAL's file is.
NO_FILE, IN_DIR, IN_REPLAY, REPLAYED, IN_SNAPSHOT = range(5)
FILE_NAMES = (
    "none",
    "remoteWALs/<peerId>",
    "remoteWALs/<peerId>-replay",
    "remoteWALs/<peerId>-replay (truncated: replayed)",
    "remoteWALs/<peerId>-snapshot",
)
# RecoverStandbyProcedure's steps (REGISTER and UNREGISTER_PEER_..._WORKER_STORAGE touch no file:
# they are folded into the step before them).
RS_RENAME, RS_DISPATCH, RS_REPLAY, RS_SNAPSHOT = range(4)
RS_NAMES = (
    "RENAME_SYNC_REPLICATION_WALS_DIR",
    "DISPATCH_WALS",
    "SyncReplicationReplayWALProcedure children",
    "SNAPSHOT_SYNC_REPLICATION_WALS_DIR",
)


def refuse_recovered_rule(ops: Ops, state: I, new: I) -> B:
    """``addRecoveredSource`` refuses a sync peer whose (state, new state) the server knows as
    (STANDBY, NONE), or whose new state is STANDBY."""
    return ops.or_(ops.and_(state == STANDBY, new == NONE), new == STANDBY)


def step_of(proc: PeerProc) -> int:
    """The procedure's step, without the ``WAS_ENABLED`` flag."""
    return proc.stage % WAS_ENABLED


class SyncSteps:
    """What sync replication adds to the table-era designs outside the text (before
    ``TableCommon`` in the MRO): the servers' initial views and the refusal rule."""

    # --- initial state and new incarnations -----------------------------------------------------

    def init(self, cfg: Config) -> TState:
        """A started server read the peer storage at startup: its views are the storage pairs.
        With the remote side modelled (``remote_wals``), cluster 0 starts as the STANDBY of each
        sync peer (its remote WAL directory made), with no remote WAL written yet."""
        st = super().init(cfg)
        if not cfg.sync_peers:
            return st
        if cfg.remote_wals:
            sp = range(cfg.sync_peers)
            sync = tuple((STANDBY, NONE) if p in sp else pair for p, pair in enumerate(st.sync))
            empty = RemoteWals(0, (NO_FILE,) * cfg.remote_wals, 0, False, False, RS_RENAME, 0)
            st = st._replace(sync=sync, remote=(empty,) * cfg.sync_peers)
        servers = tuple(srv._replace(views=st.sync) if srv.started else srv for srv in st.servers)
        return st._replace(servers=servers)

    @dual(refuse_recovered_rule)
    def rule_refuse_recovered(self, srv: TServer, peer: int) -> bool:
        """``addRecoveredSource``'s refusal, from the sync-replication view this server holds of
        the peer."""
        state, new = srv.views[peer]
        return refuse_recovered_rule(PY, state, new)
