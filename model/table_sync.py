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
that follows ``drainSources`` (``en_roll``), since the code always rolls there.
"""

from __future__ import annotations

from collections.abc import Iterator

from .config import Config
from .logic import PY, B, I, Ops, dual
from .state import DISABLED, ENABLED, bits, set_at
from .table_state import (
    ACTIVE,
    DOWNGRADE_ACTIVE,
    FULL,
    NO_SOURCE,
    NONE,
    SCP_DONE,
    STANDBY,
    TRANSIT,
    PeerProc,
    TServer,
    TState,
)

# TransitPeerSyncReplicationStateProcedure's steps (``PeerProc.stage`` modulo ``WAS_ENABLED``).
TS_PRE, TS_SET_NEW, TS_REFRESH_BEGIN, TS_REMOVE_ALL, TS_TRANSIT = range(5)
TS_REFRESH_END, TS_SET_ENABLED, TS_ENABLE_REFRESH, TS_CREATE_DIR, TS_POST = range(5, 10)
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
)
WAS_ENABLED = 16
"""Added to the stage: the peer was enabled when the procedure started (``enabled`` field)."""

ALLOWED: dict[int, tuple[int, ...]] = {
    ACTIVE: (DOWNGRADE_ACTIVE, STANDBY),
    STANDBY: (DOWNGRADE_ACTIVE,),
    DOWNGRADE_ACTIVE: (STANDBY, ACTIVE),
}
"""``ReplicationPeerManager.allowedTransition``: A→{DA,S}; S→{DA}; DA→{S,A}."""


def refuse_recovered_rule(ops: Ops, state: I, new: I) -> B:
    """``addRecoveredSource`` refuses a sync peer whose (state, new state) the server knows as
    (STANDBY, NONE), or whose new state is STANDBY."""
    return ops.or_(ops.and_(state == STANDBY, new == NONE), new == STANDBY)


def step_of(proc: PeerProc) -> int:
    """The procedure's step, without the ``WAS_ENABLED`` flag."""
    return proc.stage % WAS_ENABLED


class SyncSteps:
    """Steps mixed into the table-era designs (before TableCommon in the MRO)."""

    # --- initial state and new incarnations -----------------------------------------------------

    def init(self, cfg: Config) -> TState:
        """A started server read the peer storage at startup: its views are the storage pairs."""
        st = super().init(cfg)
        if not cfg.sync_peers:
            return st
        servers = tuple(srv._replace(views=st.sync) if srv.started else srv for srv in st.servers)
        return st._replace(servers=servers)

    def do_put(self, cfg: Config, st: TState, s: int, g: int, kind: int) -> TState:
        """History: an edit owed to a peer whose new state STANDBY is already stored (the writer
        has not refreshed yet) belongs to the previous DA state too."""
        st = super().do_put(cfg, st, s, g, kind)
        edit = st.wals[cfg.slot((s, g, st.servers[s].current[g]))].entries[-1]
        for p in range(cfg.sync_peers):
            if st.sync[p][1] == STANDBY and edit.owed >> p & 1:
                st = self.add_stale(st, p, {edit.uid})
        return st

    def en_roll(self, cfg: Config, st: TState) -> Iterator[tuple]:
        """With sync peers, the last WAL slot is kept for the roll after ``drainSources``."""
        spare = 1 if cfg.sync_peers else 0
        for s, g in super().en_roll(cfg, st):
            if st.servers[s].current[g] + 1 + spare < cfg.wals_per_server:
                yield (s, g)

    # --- the admin command ----------------------------------------------------------------------

    def en_transit_peer(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if not st.budget.admin:
            return
        for p in range(cfg.sync_peers):
            if st.peers[p] not in (ENABLED, DISABLED) or st.pprocs[p]:
                continue
            state, new = st.sync[p]
            if new != NONE:
                continue
            for to in ALLOWED.get(state, ()):
                if to == ACTIVE and not st.remote_dir >> p & 1:
                    continue
                yield (p, to)

    def do_transit_peer(self, cfg: Config, st: TState, p: int, to: int) -> TState:
        st = self.spend(st, admin=1)
        return self.set_proc(st, p, PeerProc(TRANSIT, TS_PRE, 0, 0, (), to))

    # --- the master's procedure -----------------------------------------------------------------

    def rule_transit_waits_for(self, st: TState) -> int:
        """``table-doc`` (seed 004): "we first get all the region servers and also the 'dead'
        region servers where the associated SCPs are not finished yet". The code records
        nothing (reference section 7: no such wait on master)."""
        if not self.doc_waits_for_scps:
            return 0
        return sum(
            1 << s for s, srv in enumerate(st.servers) if srv.alive or self.scp_unfinished(st, s)
        )

    def rule_transit_pending(self, st: TState, proc: PeerProc) -> bool:
        """Seed 004: "we need make sure that, either the remote procedure is successfully done,
        or the SCPs for the region server is done" before committing. A recorded server leaves
        ``proc.recorded`` when its stage-0 refresh succeeds."""
        return any(st.scps[s].stage != SCP_DONE for s in bits(proc.recorded))

    def extra_proc_ready(self, st: TState, p: int, proc: PeerProc) -> bool:
        if proc.kind == TRANSIT and step_of(proc) == TS_TRANSIT:
            return not self.rule_transit_pending(st, proc)
        return super().extra_proc_ready(st, p, proc)

    def transit_step(self, cfg: Config, st: TState, p: int, proc: PeerProc) -> TState:
        """One step of TransitPeerSyncReplicationStateProcedure (see the module docstring)."""
        step, flag = step_of(proc), proc.stage - step_of(proc)
        to = proc.target

        def go(stage: int, st: TState = st, **changes: object) -> TState:
            return self.set_proc(st, p, proc._replace(stage=flag + stage, **changes))

        if step == TS_PRE:
            flag = WAS_ENABLED if st.peers[p] == ENABLED else 0
            return go(TS_SET_NEW, recorded=self.rule_transit_waits_for(st))
        if step == TS_SET_NEW:
            if to == STANDBY and flag:
                st = st._replace(peers=set_at(st.peers, p, DISABLED))
            st = st._replace(sync=set_at(st.sync, p, (st.sync[p][0], to)))
            if to == STANDBY:
                st = self.record_stale(st, p)
            return go(TS_REFRESH_BEGIN, st, refresh=self.online_mask(st))
        if step == TS_REFRESH_BEGIN:
            # to S: REMOVE_ALL; from S: REPLAY_REMOTE_WAL; else REOPEN_ALL_REGIONS (both no-ops).
            if to == STANDBY:
                return go(TS_REMOVE_ALL, cursor=())
            return go(TS_TRANSIT)
        if step == TS_REMOVE_ALL:
            st, nxt = self.remove_all_queues_step(st, p, proc)
            if nxt is not None:
                return self.set_proc(st, p, nxt)
            return go(TS_TRANSIT, st, cursor=())
        if step == TS_TRANSIT:
            st = st._replace(sync=set_at(st.sync, p, (st.sync[p][1], NONE)))
            if to == STANDBY:
                st = self.record_stale(st, p)
            return go(TS_REFRESH_END, st, refresh=self.online_mask(st), recorded=0)
        if step == TS_REFRESH_END:
            if to == STANDBY:
                return go(TS_SET_ENABLED if flag else TS_CREATE_DIR)
            return go(TS_POST)
        if step == TS_SET_ENABLED:
            st = st._replace(peers=set_at(st.peers, p, ENABLED))
            return go(TS_ENABLE_REFRESH, st, refresh=self.online_mask(st))
        if step == TS_ENABLE_REFRESH:
            return go(TS_CREATE_DIR)
        if step == TS_CREATE_DIR:
            st = st._replace(remote_dir=st.remote_dir | 1 << p)
            return go(TS_POST, st)
        return self.set_proc(st, p, ())

    @classmethod
    def record_stale(cls, st: TState, p: int) -> TState:
        """History for ``no_stale_edit_replicated``: every edit owed to the peer, in any WAL, that
        its cluster has not applied when the peer's new state STANDBY is stored (and again when
        it is committed): from then on it "belongs to the previous DA state"."""
        applied = set(st.sinks[p + 1].applied)
        uids = {
            e.uid
            for w in st.wals
            if w
            for e in w.entries
            if e.owed >> p & 1 and e.uid not in applied
        }
        return cls.add_stale(st, p, uids)

    @staticmethod
    def add_stale(st: TState, p: int, uids: set) -> TState:
        stale = dict(st.stale)
        merged = tuple(sorted(uids | set(stale.get(p, ()))))
        if not merged:
            return st
        stale[p] = merged
        return st._replace(stale=tuple(sorted(stale.items())))

    # --- the region server's side ---------------------------------------------------------------

    @dual(refuse_recovered_rule)
    def rule_refuse_recovered(self, srv: TServer, peer: int) -> bool:
        """``addRecoveredSource``'s refusal, from the sync-replication view this server holds of
        the peer."""
        state, new = srv.views[peer]
        return refuse_recovered_rule(PY, state, new)

    def rs_transit(self, cfg: Config, st: TState, p: int, s: int, proc: PeerProc) -> TState:
        """``PeerProcedureHandlerImpl.transitSyncReplicationPeerState``: stage 0 and stage 1 set
        the server's view to the peer storage; stage 1 to STANDBY also ``drainSources``. The
        enabling refresh changes nothing the model keeps per server."""
        step = step_of(proc)
        if step not in (TS_REFRESH_BEGIN, TS_REFRESH_END):
            return st
        srv = st.servers[s]
        st = self.with_server(st, s, srv._replace(views=set_at(srv.views, p, st.sync[p])))
        if step == TS_REFRESH_BEGIN:
            now = st.pprocs[p]
            if now.recorded >> s & 1:
                st = self.set_proc(st, p, now._replace(recorded=now.recorded & ~(1 << s)))
            return st
        if st.sync[p][0] == STANDBY:
            st = self.drain_sources(cfg, st, p, s)
        return st

    def drain_sources(self, cfg: Config, st: TState, p: int, s: int) -> TState:
        """``RSM.drainSources`` (HBASE-20426): for every WAL group of the normal source,
        ``setOffset((me, peer), group, (last WAL, -1))``; drop its WALs from memory; terminate the
        peer's recovered sources and ``removeQueue`` each; then roll the WAL writers."""
        srv = st.servers[s]
        shippers = []
        groups = []
        for sh in srv.shippers:
            if sh.peer != p:
                shippers.append(sh)
            elif sh.chain:
                st = self.remove_recovered_row(st, p, s, sh.chain[0])
            else:
                if sh.wals:
                    st = self.set_offset(st, p, s, NO_SOURCE, sh.group, (sh.wals[-1][2], FULL))
                shippers.append(sh._replace(wals=(), pos=0))
                groups.append(sh.group)
        srv = st.servers[s]._replace(shippers=tuple(sorted(shippers)), drained=srv.drained | 1 << p)
        st = self.with_server(st, s, srv)
        for g in groups:
            if st.servers[s].current[g] + 1 < cfg.wals_per_server:
                st = self.do_roll(cfg, st, s, g)
        return st

    @staticmethod
    def remove_recovered_row(st: TState, p: int, s: int, source: int) -> TState:
        from .table_storage import remove_queue

        return st._replace(rows=remove_queue(st.rows, p, s, source))
