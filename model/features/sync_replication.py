"""Synchronous replication (seed 004 "About sync replication"; reference section 7) in the
protocol text's form (``model/engine/step.py``): TransitPeerSyncReplicationStateProcedure, its
refreshes on the region servers with ``drainSources``, and what sync peers change in the base steps
(the owed peers of a put and the STANDBY-era history, the spare WAL slot that stops ordinary rolls,
RemovePeer's state check and remote WAL directory, the views AddPeer's refresh writes, the
refusal of recovered sources, the drained flags a crash forgets).
``model/features/sync_procedure.py`` says what each stage does; the layout's slots are
``model/features/sync_layout.py``'s.

The transition is a peer procedure of kind ``TRANSIT``: its steps join ``peer_proc``
(``proc_steps``) and its refreshes ``refresh`` (``refresh_variants``, ``refresh_on``), so it
shares the peer's procedure slot, the wait for every refresh it sent and ``removeAllQueues``
with AddPeerProcedure and RemovePeerProcedure (``model/table/peer_procs.py``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import DISABLED, ENABLED
from replcheck.model.engine.composition import replaces
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, gate, step
from replcheck.model.features.sync_procedure import (
    ALLOWED,
    TS_CREATE_DIR,
    TS_ENABLE_REFRESH,
    TS_POST,
    TS_PRE,
    TS_REFRESH_BEGIN,
    TS_REFRESH_END,
    TS_REMOVE_ALL,
    TS_SET_ENABLED,
    TS_SET_NEW,
    TS_TRANSIT,
)
from replcheck.model.table.claim import Claims
from replcheck.model.table.peer_procs import PeerProcedures, ProcStep
from replcheck.model.table.state import (
    ACTIVE,
    DOWNGRADE_ACTIVE,
    FULL,
    NO_SOURCE,
    NONE,
    SCP_DONE,
    STANDBY,
    TRANSIT,
)
from replcheck.model.table.views import Budget, PeerProc

TARGETS = (ACTIVE, DOWNGRADE_ACTIVE, STANDBY)


def _transitions(text: Any) -> list[tuple[int, int]]:
    return [(p, to) for p in text.SP for to in TARGETS]


class SyncReplication(PeerProcedures):
    """Sync replication peers, mixed in before the base steps (``SP``: the sync peers)."""

    SP: range
    U: range
    uid: Any
    open_next_wal: Any

    # --- helpers ------------------------------------------------------------------------------

    def proc_keys(self, p: int) -> list[tuple]:
        """The peer procedure's variables, with the transition's ``WAS_ENABLED`` flag and target."""
        return [*super().proc_keys(p), var.transit_was_enabled(p), var.transit_target(p)]

    def cursor_keys(self, p: int) -> list[tuple]:
        """``removeAllQueues``' cursor: ``()`` is every one of these at its default."""
        return [var.peer_proc_cursor(p), var.peer_proc_pass(p)] + [
            var.peer_proc_row_left(p, o, src) for o in self.S for src in self.SRC
        ]

    def roll_where(self, ops: Any, t: Any, cond: Any, s: int, g: int) -> None:
        """``do_roll`` where ``cond`` holds and a next WAL slot is left (``open_next_wal`` from
        whichever WAL is current when the step starts)."""
        wps = self.cfg.wals_per_server
        cur = t.current_wal[s, g]
        at = {q: ops.and_(cond, cur == q) for q in self.Q if q + 1 < wps}
        for q, c in at.items():
            self.open_next_wal(ops, t, c, s, g, q)

    def record_stale(self, ops: Any, t: Any, p: int) -> None:
        """``record_stale``: every entry owed to ``p`` that its cluster has not applied."""
        for w in self.W:
            for j in range(self.E):
                u = self.uid(w, j)
                cond = ops.and_(
                    t.wal_exists[w],
                    j < t.wal_length[w],
                    t.entry_owed[w, j, p],
                    ops.not_(t.sink_applied[p + 1, u]),
                )
                t.when(cond).standby_stale[p, u] = True

    # --- what sync peers change in the base steps ---------------------------------------------

    def rule_owed(self, ops: Any, get: Any, s: int, kind: Any, p: int, ids: Any = 0) -> Any:
        """``rule_owed``: not to a peer this server knows to be (going) STANDBY."""
        now = named(get)
        return ops.and_(
            super().rule_owed(ops, get, s, kind, p, ids),
            now.view_state[s, p] != STANDBY,
            now.view_new_state[s, p] != STANDBY,
        )

    def after_put(self, ops: Any, t: Any, s: int, g: int, q: int, j: int) -> None:
        """``put`` (``SyncSteps.do_put``): an edit owed to a peer whose new state STANDBY is
        already stored becomes STANDBY-era history."""
        super().after_put(ops, t, s, g, q, j)
        w = self.slot(s, g, q)
        u = self.uid(w, j)
        for p in self.SP:
            stale = ops.and_(t.sync_new_state[p] == STANDBY, t.entry_owed[w, j, p])
            t.when(stale).standby_stale[p, u] = True

    @gate("roll")
    def keeps_last_wal_slot(self, t: Any, s: int, g: int, q: int) -> None:
        """``roll`` (``SyncSteps.en_roll``): the last WAL slot is kept for the roll that follows
        ``drainSources``."""
        t.require(q + 2 < self.cfg.wals_per_server)

    def start_server(self, ops: Any, t: Any, s: int) -> None:
        """A new incarnation reads the peer storage, sync states included: its views are the
        stored pairs."""
        super().start_server(ops, t, s)
        for p in self.P:
            t.view_state[s, p] = t.sync_state[p]
            t.view_new_state[s, p] = t.sync_new_state[p]

    def kill(self, ops: Any, t: Any, s: int) -> None:
        """``kill``: the drained flags are memory too (the views stay)."""
        super().kill(ops, t, s)
        for p in self.P:
            t.drained[s, p] = False

    @gate("remove_peer")
    def removable_sync_state(self, t: Any, p: int) -> None:
        """``remove_peer``: only a peer whose sync state is NONE or DOWNGRADE_ACTIVE."""
        state = t.sync_state[p]
        t.require(t.ops.or_(state == NONE, state == DOWNGRADE_ACTIVE))

    def after_add_storage(self, t: Ctx, p: int) -> None:
        """AddPeer's storage step stores a sync peer as (DOWNGRADE_ACTIVE, NONE)."""
        if p in self.SP:
            t.sync_state[p] = DOWNGRADE_ACTIVE
            t.sync_new_state[p] = NONE

    def removal_done(self, t: Ctx, p: int, done: Any) -> None:
        """RemovePeer's last step also deletes the remote WAL directory."""
        t.when(done).remote_wal_dir[p] = False

    def rs_add_peer(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """``RSM.addPeer``: the new source's server also reads the peer's sync states."""
        on = ops.and_(cond, ops.not_(t.knows_peer[s, p]))
        super().rs_add_peer(ops, t, cond, p, s)
        t.when(on).view_state[s, p] = t.sync_state[p]
        t.when(on).view_new_state[s, p] = t.sync_new_state[p]

    @replaces(Claims)
    def refuse_recovered(self, ops: Any, get: Any, t: int, p: int) -> Any:
        """``rule_refuse_recovered`` of the claimer ``t``, the design's dual-form rule over its
        view of the peer."""
        now = named(get)
        return self.rule["rule_refuse_recovered"](
            ops, now.view_state[t, p], now.view_new_state[t, p]
        )

    # --- the admin command --------------------------------------------------------------------

    @step(params=("peer", "to_state"), fair=False, each=_transitions)
    def transit_peer(self, t: Ctx, p: int, to: int) -> None:
        """admin: TransitPeerSyncReplicationStateProcedure is submitted"""
        ops = t.ops
        state = t.sync_state[p]
        froms = [f for f, tos in ALLOWED.items() if to in tos]
        t.require(
            Budget(t, "admin").left > 0,
            self.storage(ops, t.get, p),
            ops.not_(PeerProc(t, p).present),
            t.sync_new_state[p] == NONE,
            ops.or_(*(state == f for f in froms)),
            t.remote_wal_dir[p] if to == ACTIVE else True,
        )
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        PeerProc(t, p).present = True
        PeerProc(t, p).kind = TRANSIT
        PeerProc(t, p).stage = TS_PRE
        t.transit_target[p] = to

    # --- the master's procedure ---------------------------------------------------------------

    def rule_transit_waits_for(self, ops: Any, get: Any, s: int) -> Any:
        """``rule_transit_waits_for``: ``table-doc`` records the live servers and those whose SCP
        is unfinished; the code records none."""
        if not getattr(self.design, "doc_waits_for_scps", False):
            return False
        return ops.or_(named(get).server_alive[s], self.scp_unfinished(ops, get, s))

    def rule_transit_pending(self, ops: Any, get: Any, p: int) -> Any:
        """``rule_transit_pending``: a recorded server whose SCP has not finished."""
        now = named(get)
        return ops.or_(
            *(ops.and_(now.peer_proc_recorded[p, s], now.scp_stage[s] != SCP_DONE) for s in self.S)
        )

    def refresh_all(self, t: Ctx, p: int) -> None:
        """A refresh sent to every online server."""
        for s in self.S:
            PeerProc(t, p).refresh[s] = t.server_alive[s]

    def proc_steps(self, p: int) -> dict[str, ProcStep]:
        """The transition's steps join the peer's procedure steps (``transit_step``): one per
        step, per target state where the step depends on it, and per row ``removeAllQueues``
        deletes next."""
        out = super().proc_steps(p)
        if p not in self.SP:
            return out
        out["ts-pre"] = (TRANSIT, TS_PRE, lambda t: self.ts_pre(t, p))
        for to in TARGETS:
            for name, stage in (
                ("set-new", TS_SET_NEW),
                ("refresh-begin", TS_REFRESH_BEGIN),
                ("transit", TS_TRANSIT),
                ("refresh-end", TS_REFRESH_END),
            ):
                body = getattr(self, "ts_" + name.replace("-", "_"))

                def run(t: Ctx, body: Any = body, to: int = to) -> None:
                    t.require(t.transit_target[p] == to)
                    body(t, p, to)

                out[f"ts-{name}-{to}"] = (TRANSIT, stage, run)

        def finish(ops: Any, t: Any, done: Any) -> None:
            t.when(done).peer_proc_stage[p] = TS_TRANSIT
            self.clear(t, done, self.cursor_keys(p))

        out.update(self.cursor_proc_steps(p, finish, TRANSIT, TS_REMOVE_ALL, prefix="ts-"))
        for name, stage in (
            ("set-enabled", TS_SET_ENABLED),
            ("enable-refresh", TS_ENABLE_REFRESH),
            ("create-dir", TS_CREATE_DIR),
            ("post", TS_POST),
        ):
            body = getattr(self, "ts_" + name.replace("-", "_"))
            out[f"ts-{name}"] = (TRANSIT, stage, lambda t, body=body: body(t, p))
        return out

    def ts_pre(self, t: Ctx, p: int) -> None:
        """PRE: whether the peer was enabled, and (``table-doc``) the servers to wait for."""
        t.transit_was_enabled[p] = t.peer_state[p] == ENABLED
        for s in self.S:
            PeerProc(t, p).recorded[s] = self.rule_transit_waits_for(t.ops, t.get, s)
        PeerProc(t, p).stage = TS_SET_NEW

    def ts_set_new(self, t: Ctx, p: int, to: int) -> None:
        """SET_PEER_NEW_SYNC_REPLICATION_STATE: to STANDBY the enabled peer is disabled; the new
        state stored; the stage-0 refreshes sent."""
        if to == STANDBY:
            t.when(t.transit_was_enabled[p]).peer_state[p] = DISABLED
        t.sync_new_state[p] = to
        if to == STANDBY:
            self.record_stale(t.ops, t, p)
        PeerProc(t, p).stage = TS_REFRESH_BEGIN
        self.refresh_all(t, p)

    def ts_refresh_begin(self, t: Ctx, p: int, to: int) -> None:
        """The stage-0 refreshes ended: to STANDBY ``removeAllQueues``, else the step
        ``after_refresh_begin`` names."""
        if to == STANDBY:
            PeerProc(t, p).stage = TS_REMOVE_ALL
            self.clear(t, True, self.cursor_keys(p))
        else:
            PeerProc(t, p).stage = self.after_refresh_begin(t, p, to)

    def after_refresh_begin(self, t: Ctx, p: int, to: int) -> Any:
        """The step after REFRESH_BEGIN to ACTIVE or DOWNGRADE_ACTIVE: TRANSIT. (From STANDBY,
        REPLAY_REMOTE_WAL_IN_PEER comes first; it touches no queue, so it is folded here unless
        the remote side is modelled: ``model/features/sync_remote.py``.)"""
        return TS_TRANSIT

    def ts_transit(self, t: Ctx, p: int, to: int) -> None:
        """TRANSIT_PEER_NEW_SYNC_REPLICATION_STATE, once no recorded server is pending: the new
        state becomes the state; the stage-1 refreshes sent."""
        t.require(t.ops.not_(self.rule_transit_pending(t.ops, t.get, p)))
        t.sync_state[p] = t.sync_new_state[p]
        t.sync_new_state[p] = NONE
        if to == STANDBY:
            self.record_stale(t.ops, t, p)
        PeerProc(t, p).stage = TS_REFRESH_END
        self.refresh_all(t, p)
        for s in self.S:
            PeerProc(t, p).recorded[s] = False

    def ts_refresh_end(self, t: Ctx, p: int, to: int) -> None:
        """The stage-1 refreshes ended: to STANDBY the peer is enabled again if it was, or the
        remote WAL directory made; else POST."""
        if to == STANDBY:
            PeerProc(t, p).stage = t.ops.ite(
                t.transit_was_enabled[p], TS_SET_ENABLED, TS_CREATE_DIR
            )
        else:
            PeerProc(t, p).stage = TS_POST

    def ts_set_enabled(self, t: Ctx, p: int) -> None:
        """SYNC_REPLICATION_SET_PEER_ENABLED, and its refresh sent."""
        t.peer_state[p] = ENABLED
        PeerProc(t, p).stage = TS_ENABLE_REFRESH
        self.refresh_all(t, p)

    def ts_enable_refresh(self, t: Ctx, p: int) -> None:
        """The enabling refreshes ended."""
        PeerProc(t, p).stage = TS_CREATE_DIR

    def ts_create_dir(self, t: Ctx, p: int) -> None:
        """CREATE_DIR_FOR_REMOTE_WAL."""
        t.remote_wal_dir[p] = True
        PeerProc(t, p).stage = TS_POST

    def ts_post(self, t: Ctx, p: int) -> None:
        """POST: the procedure ends."""
        self.clear(t, True, self.proc_keys(p))

    # --- the region server's side -------------------------------------------------------------

    def refresh_variants(self, p: int) -> list[tuple]:
        """A transition's refreshes: stage 0 (``REFRESH_BEGIN``), stage 1 (``REFRESH_END``), and
        the enabling refresh (``None``)."""
        out = super().refresh_variants(p)
        if p in self.SP:
            out += [(TRANSIT, TS_REFRESH_BEGIN), (TRANSIT, TS_REFRESH_END), (TRANSIT, None)]
        return out

    def refresh_on(self, t: Ctx, p: int, s: int, kind: int, *variant: Any) -> None:
        """``rs_transit``, dispatched at ``stage``: stage 0 and stage 1 set the server's view to
        the peer storage; stage 0 takes the server off the recorded ones; stage 1 to STANDBY
        ``drainSources``. ``stage`` None: the enabling refresh, which changes nothing kept per
        server. A dead server's child just ends."""
        if kind != TRANSIT:
            super().refresh_on(t, p, s, kind, *variant)
            return
        ops = t.ops
        (stage,) = variant
        now = PeerProc(t, p).stage
        t.require(
            now == stage
            if stage is not None
            else ops.and_(now != TS_REFRESH_BEGIN, now != TS_REFRESH_END)
        )
        PeerProc(t, p).refresh[s] = False
        if stage is None:
            return
        alive = t.server_alive[s]
        t.when(alive).view_state[s, p] = t.sync_state[p]
        t.when(alive).view_new_state[s, p] = t.sync_new_state[p]
        if stage == TS_REFRESH_BEGIN:
            t.when(alive).peer_proc_recorded[p, s] = False
        else:
            self.drain_sources(ops, t, ops.and_(alive, t.sync_state[p] == STANDBY), p, s)

    def drain_sources(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """``drain_sources`` where ``cond`` holds: the normal source's offset of each group is set
        to its last WAL, fully replicated, and its WALs leave memory; the peer's recovered sources
        end and their queues are removed; the peer is drained; each drained group rolls."""
        for src in self.SRC:
            if src == NO_SOURCE:
                continue
            slots = [sk for sk in self.sh_keys if sk[:3] == (s, p, src)]
            has = ops.or_(*(t.shipper[*sk] for sk in slots))
            self.remove_row(t, ops.and_(cond, has), (p, s, src))
            for sk in slots:
                self.clear(t, cond, self.shipper_keys(sk))
        rolls = []
        for sk in self.sh_keys:
            if sk[:3] != (s, p, NO_SOURCE):
                continue
            g = sk[3]
            on = ops.and_(cond, t.shipper[*sk])
            bits = [t.shipper_has_wal[*sk, q] for q in self.Q]
            last: Any = 0
            for q in self.Q:
                last = ops.ite(bits[q], q, last)
            self.set_offset(ops, t, ops.and_(on, ops.or_(*bits)), (p, s, NO_SOURCE), g, last, FULL)
            for q in self.Q:
                t.when(on).shipper_has_wal[*sk, q] = False
            t.when(on).shipper_pos[*sk] = 0
            rolls.append((g, on))
        t.when(cond).drained[s, p] = True
        for g, on in rolls:
            self.roll_where(ops, t, on, s, g)


# --- mutants --------------------------------------------------------------------------------------


class SyncNoDrain(SyncReplication):
    """``table/sync-no-drain``: the stage-1 refresh to STANDBY does not ``drainSources``."""

    def drain_sources(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """The refresh to STANDBY drains nothing: the peer's queues and sources stay."""
        return None


class SyncNoRefusal(SyncReplication):
    """``table/sync-no-refusal``: ``addRecoveredSource`` refuses no sync peer."""

    def refuse_recovered(self, ops: Any, get: Any, t: int, p: int) -> Any:
        """No claimed queue of a sync peer is refused a recovered source."""
        return False
