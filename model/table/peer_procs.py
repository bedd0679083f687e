"""The master's peer procedures in the table era (seed 004; reference sections 7 and 10), in the
protocol text's form (``model/engine/step.py``): AddPeerProcedure and RemovePeerProcedure stage by
stage, and the RefreshPeerProcedure child each sends to every online region server, with what the
server does on it (``ReplicationSourceManager.addPeer`` and ``removePeer``).

* AddPeerProcedure: PRE disables the log cleaner (``rule_fence_add``: it waits while a cleaner
  run holds the barrier) and fails if a queue of the peer is left (``checkQueuesDeleted``);
  UPDATE_PEER_STORAGE stores the peer; REFRESH_PEER_ON_RS sends the refreshes (each writes the
  server's initial offsets: the fence); POST enables the cleaner again.
* RemovePeerProcedure: UPDATE_PEER_STORAGE removes the peer and records, once, the claim
  procedures still running (``rule_removal_waits_for``); REFRESH stops the peer's sources; POST
  waits for the recorded procedures (``rule_removal_pending``), then ``removeAllQueues`` row by
  row, in passes (``cursor_steps``), then the peer's ``sid`` and ``hfileref`` rows.

A procedure moves on only once every refresh it sent has ended. Sync replication adds its own
procedure's steps to the same kinds (``model/features/sync_replication.py``) and changes these
through ``after_add_storage`` and ``removal_done``.
"""

from __future__ import annotations

from ast import literal_eval
from collections.abc import Callable
from typing import Any

from replcheck.model.common.state import ENABLED, REMOVED
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table import rules as table_rules
from replcheck.model.table.seams import ROW_DELETE
from replcheck.model.table.state import (
    ADD,
    AP_POST,
    AP_PRE,
    AP_REFRESH,
    AP_STORAGE,
    BARRIER_DISABLED,
    NO_SOURCE,
    NOT_RUNNING,
    REMOVE,
    RP_POST,
    RP_PRE,
    RP_REFRESH,
    RP_REMOVE_ALL,
    RP_STORAGE,
)
from replcheck.model.table.views import PeerProc, Row, Server, ShipperSlot, TableText

STAGES: dict[str, tuple[int, int]] = {
    "add-pre": (ADD, AP_PRE),
    "add-storage": (ADD, AP_STORAGE),
    "add-refresh": (ADD, AP_REFRESH),
    "add-post": (ADD, AP_POST),
    "rm-pre": (REMOVE, RP_PRE),
    "rm-storage": (REMOVE, RP_STORAGE),
    "rm-refresh": (REMOVE, RP_REFRESH),
    "rm-post": (REMOVE, RP_POST),
}
"""Each step of the two procedures by name: the procedure's kind and the stage it runs at. The
steps of ``removeAllQueues`` (``rm-read``, ``rm-delete(owner, source)``, ``rm-next``) run at
``RP_REMOVE_ALL``."""


def _proc_steps(text: Any) -> list[tuple[int, str]]:
    return [(p, name) for p in text.P for name in text.proc_steps(p)]


def _refreshes(text: Any) -> list[tuple]:
    return [(p, s, *v) for p in text.P for s in text.S for v in text.refresh_variants(p)]


def _proc_label(text: Any, st: Any, get: Any, a: tuple) -> tuple:
    """A peer procedure's step is known by its peer, and a row ``removeAllQueues`` deletes by
    the row's owner and source too: several rows may be the next to go (as a serial peer's
    reopen by the server the region goes to, ``add-reopen(s)``)."""
    p, name = a
    at = name.find(ROW_DELETE)
    if at >= 0:
        return (p, literal_eval(name[at + len(ROW_DELETE) :]))
    if name.endswith(")"):
        return (p, literal_eval(name[name.index("(") :]))
    return (p,)


ProcStep = tuple[int, int, Callable[[Ctx], None]]
"""A step of a peer procedure: the procedure's kind, the stage it runs at, and its body (which
states any guard of its own first)."""


class PeerProcedures(TableText):
    """AddPeerProcedure, RemovePeerProcedure and their refreshes (the layout's helpers are
    ``StepBase``'s)."""

    # --- rules a mutant or a design changes ---------------------------------------------------

    def waited_for(self, ops: Any, get: Any, d: int) -> Any:
        """Server ``d``'s crash is one RemovePeerProcedure waits for: its
        AssignReplicationQueuesProcedure is running (the code), or, as seed 004 says ("ongoing
        SCPs"), its SCP is unfinished (``table-doc``)."""
        if self.design.doc_waits_for_scps:
            return self.scp_unfinished(ops, get, d)
        return self.arqp_unfinished(ops, get, d)

    def rule_removal_waits_for(self, ops: Any, get: Any, d: int) -> Any:
        """RemovePeerProcedure records, once, the crashes it waits for."""
        return self.waited_for(ops, get, d)

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        """Is any recorded crash's procedure unfinished? Only the recorded ones count."""
        return ops.or_(
            *(
                ops.and_(named(get).peer_proc_recorded[p, d], self.waited_for(ops, get, d))
                for d in self.S
            )
        )

    def rule_peer_checked_under_lock(self, ops: Any) -> Any:
        """Is the peer checked (``preAddPeer``, ``preRemovePeer``, ...: it exists, or not, or is
        not already in the state asked for) in the procedure's PRE, under the peer's lock? Yes:
        a command that waited for the lock is checked against the peer as it is by then."""
        return True

    def barrier_enable(self, ops: Any, t: Any, cond: Any) -> None:
        """Where ``cond`` holds, the barrier's ``enable()``: DISABLED by one procedure becomes
        NOT_RUNNING, by more is disabled by one fewer."""
        bar, n = t.cleaner_barrier, t.cleaner_barrier_holders
        on = ops.and_(cond, bar == BARRIER_DISABLED)
        last = n <= 1
        t.when(on).cleaner_barrier = ops.ite(last, NOT_RUNNING, BARRIER_DISABLED)
        t.when(on).cleaner_barrier_holders = ops.ite(last, 0, n - 1)

    def after_add_storage(self, t: Ctx, p: int) -> None:
        """What else UPDATE_PEER_STORAGE stores with a new peer (sync replication's states)."""

    def added_state(self, p: int) -> int:
        """The state AddPeerProcedure's UPDATE_PEER_STORAGE stores peer ``p`` in: enabled (a
        serial peer's is stored disabled, ``model/features/serial_life.py``)."""
        return ENABLED

    def add_stage_after_refresh(self, p: int) -> int:
        """``nextStateAfterRefresh``: AddPeerProcedure's stage after REFRESH_PEER_ON_RS (POST;
        a serial peer's serial stages, ``model/features/serial_life.py``)."""
        return AP_POST

    def add_refused(self, ops: Any, get: Any, p: int) -> Any:
        """What else ``checkQueuesDeleted`` finds left of peer ``p`` that fails its AddPeer
        (its queues are checked here; its ``hfileref`` row, ``model/features/hfile_refs.py``)."""
        return False

    def removal_done(self, t: Ctx, p: int, done: Any) -> None:
        """What else RemovePeerProcedure deletes at its end, where ``done`` holds (sync
        replication's remote WAL directory)."""

    # --- the procedures -----------------------------------------------------------------------

    def cursor_proc_steps(
        self, p: int, finish: Any, kind: int, stage: int, prefix: str = ""
    ) -> dict[str, ProcStep]:
        """``removeAllQueues`` of peer ``p`` (``cursor_steps``, ending with ``finish``) as steps
        of the procedure of ``kind`` at ``stage``, by name (with ``prefix``)."""
        out: dict[str, ProcStep] = {}
        for name, guard, update in self.cursor_steps(p, finish):

            def run(t: Ctx, guard: Any = guard, update: Any = update) -> None:
                t.require(guard(t.ops, t.get))
                update(t.ops, t)

            out[prefix + name] = (kind, stage, run)
        return out

    def removal_finish(self, t: Any, p: int, done: Any) -> None:
        """Where ``done`` holds (the last pass of ``removeAllQueues`` is over): the peer's other
        rows go and the procedure ends."""
        t.when(done).last_pushed_row[p] = False
        t.when(done).peer_removed[p] = True
        self.clear(t, done, self.proc_keys(p))
        self.removal_done(t, p, done)

    def set_stage(self, t: Ctx, p: int, stage: int, refresh: bool = False) -> None:
        """The procedure moves to ``stage``; with ``refresh``, it sends a RefreshPeerProcedure
        to every online server and waits for them."""
        PeerProc(t, p).stage = stage
        if refresh:
            for s in self.S:
                PeerProc(t, p).refresh[s] = Server(t, s).alive

    def proc_steps(self, p: int) -> dict[str, ProcStep]:
        """Every step of peer ``p``'s procedures by name (``STAGES``, then ``removeAllQueues``'
        steps): a feature's procedure adds its own."""
        out: dict[str, ProcStep] = {}
        for name, (kind, stage) in STAGES.items():
            body = getattr(self, "proc_" + name.replace("-", "_"))
            out[name] = (kind, stage, lambda t, body=body: body(t, p))

        def finish(ops: Any, t: Any, done: Any) -> None:
            self.removal_finish(t, p, done)

        out.update(self.cursor_proc_steps(p, finish, REMOVE, RP_REMOVE_ALL))
        return out

    @step(
        params=("peer",),
        fair=True,
        each=_proc_steps,
        label=_proc_label,
    )
    def peer_proc(self, t: Ctx, p: int, name: str) -> None:
        """the peer procedure's next state"""
        kind, stage, run = self.proc_steps(p)[name]
        proc = PeerProc(t, p)
        t.require(
            proc.present,
            proc.kind == kind,
            proc.stage == stage,
            *(t.ops.not_(proc.refresh[s]) for s in self.S),
        )
        run(t)

    def proc_add_pre(self, t: Ctx, p: int) -> None:
        """AddPeerProcedure PRE: the barrier disabled (``rule_fence_add``); ``preAddPeer``
        fails the procedure if the peer exists or a queue of the peer is still in storage
        (``checkQueuesDeleted``, ``add_refused``)."""
        ops = t.ops
        fence = self.rule["rule_fence_add"](ops)
        t.require(table_rules.add_peer_may_leave_pre(ops, fence, t.cleaner_barrier))
        fail = ops.or_(
            ops.and_(self.rule_peer_checked_under_lock(ops), self.storage(ops, t.get, p)),
            *(Row(t, p, o, src).exists for o in self.S for src in self.SRC),
            self.add_refused(ops, t.get, p),
        )
        ok = ops.not_(fail)
        on = ops.and_(ok, fence)
        bar, n = table_rules.barrier_disable_rule(ops, t.cleaner_barrier, t.cleaner_barrier_holders)
        t.when(on).cleaner_barrier = bar
        t.when(on).cleaner_barrier_holders = n
        t.when(ok).peer_proc_stage[p] = AP_STORAGE
        self.clear(t, fail, self.proc_keys(p))

    def proc_add_storage(self, t: Ctx, p: int) -> None:
        """AddPeerProcedure UPDATE_PEER_STORAGE: the peer is stored (``added_state``)."""
        t.peer_state[p] = self.added_state(p)
        self.set_stage(t, p, AP_REFRESH, refresh=True)
        self.after_add_storage(t, p)

    def proc_add_refresh(self, t: Ctx, p: int) -> None:
        """AddPeerProcedure REFRESH_PEER_ON_RS: every refresh ended."""
        self.set_stage(t, p, self.add_stage_after_refresh(p))

    def proc_add_post(self, t: Ctx, p: int) -> None:
        """AddPeerProcedure POST: the barrier enabled again; the procedure ends."""
        self.barrier_enable(t.ops, t, self.rule["rule_fence_add"](t.ops))
        self.clear(t, True, self.proc_keys(p))

    def proc_rm_pre(self, t: Ctx, p: int) -> None:
        """RemovePeerProcedure PRE: ``preRemovePeer`` fails the procedure if the peer is not in
        storage (``checkPeerExists``)."""
        ops = t.ops
        exists = ops.or_(
            ops.not_(self.rule_peer_checked_under_lock(ops)), self.storage(ops, t.get, p)
        )
        t.when(exists).peer_proc_stage[p] = RP_STORAGE
        self.clear(t, ops.not_(exists), self.proc_keys(p))

    def proc_rm_storage(self, t: Ctx, p: int) -> None:
        """RemovePeerProcedure UPDATE_PEER_STORAGE: the peer removed; the claim procedures still
        running recorded."""
        t.peer_state[p] = REMOVED
        for d in self.S:
            PeerProc(t, p).recorded[d] = self.rule_removal_waits_for(t.ops, t.get, d)
        self.set_stage(t, p, RP_REFRESH, refresh=True)

    def proc_rm_refresh(self, t: Ctx, p: int) -> None:
        """RemovePeerProcedure REFRESH_PEER_ON_RS: every refresh ended."""
        self.set_stage(t, p, RP_POST)

    def proc_rm_post(self, t: Ctx, p: int) -> None:
        """RemovePeerProcedure POST: once no recorded procedure is unfinished,
        ``removeAllQueues`` begins."""
        t.require(t.ops.not_(self.rule_removal_pending(t.ops, t.get, p)))
        self.set_stage(t, p, RP_REMOVE_ALL)
        self.clear(t, True, [var.peer_proc_cursor(p), var.peer_proc_pass(p)])

    # --- the refreshes, on the region servers -------------------------------------------------

    def refresh_variants(self, p: int) -> list[tuple]:
        """The refreshes a procedure of peer ``p`` may send a server, each by the procedure's
        kind (and what else tells them apart): a feature's procedure adds its own."""
        return [(ADD,), (REMOVE,)]

    @step(
        params=("peer", "server"),
        fair=True,
        each=_refreshes,
        label=lambda text, st, get, a: a[:2],
    )
    def refresh(self, t: Ctx, p: int, s: int, kind: int, *variant: Any) -> None:
        """RefreshPeerProcedure on one region server"""
        proc = PeerProc(t, p)
        t.require(proc.present, proc.kind == kind, proc.refresh[s])
        self.refresh_on(t, p, s, kind, *variant)

    def refresh_on(self, t: Ctx, p: int, s: int, kind: int, *variant: Any) -> None:
        """Server ``s`` runs the refresh (a server that died since it was sent just ends it)."""
        PeerProc(t, p).refresh[s] = False
        alive = Server(t, s).alive
        if kind == ADD:
            self.rs_add_peer(t.ops, t, alive, p, s)
        else:
            self.rs_remove_peer(t.ops, t, alive, p, s)

    def rs_add_peer(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """``RSM.addPeer`` where ``cond`` holds, once: for each WAL group, ``setOffset`` at the
        current WAL, position 0, and a normal source holding only that WAL."""
        on = ops.and_(cond, ops.not_(Server(t, s).knows[p]))
        for g in self.G:
            cur = Server(t, s).current[g]
            self.set_offset(ops, t, on, (p, s, NO_SOURCE), g, cur, 0)
            self.add_shipper(ops, t, on, (s, p, NO_SOURCE, g), [cur == q for q in self.Q], 0)
        t.when(on).knows_peer[s, p] = True

    def rs_remove_peer(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """``RSM.removePeer`` where ``cond`` holds: every source of the peer, recovered ones
        too, stops and ``removeQueue`` deletes its row."""
        for src in self.SRC:
            has = ops.or_(
                *(ShipperSlot(t, *x).present for x in self.sh_keys if x[:3] == (s, p, src))
            )
            self.remove_row(t, ops.and_(cond, ops.or_(has, src == NO_SOURCE)), (p, s, src))
        for sk in self.sh_keys:
            if sk[:2] == (s, p):
                self.clear(t, cond, self.shipper_keys(sk))
        t.when(cond).knows_peer[s, p] = False


# --- mutants --------------------------------------------------------------------------------------


class RemoveWithoutWaiting(PeerProcedures):
    """``table/HBASE-27213``: RemovePeerProcedure does not wait."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        """The removal waits for no claim procedure."""
        return False


class RemoveRecollects(PeerProcedures):
    """``table/HBASE-27213-recollect``: the running claim procedures are collected again on every
    retry."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        """The removal waits while any claim procedure runs now, collected again on every
        retry (not only those recorded when the removal began)."""
        return ops.or_(*(self.rule_removal_waits_for(ops, get, d) for d in self.S))


class RemovePeerKeepsRecovered(PeerProcedures):
    """``table/remove-peer-keeps-recovered``: ``RSM.removePeer`` stops only the normal source."""

    def rs_remove_peer(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """Server ``s`` removes peer ``p``: its normal queue row and source only; its recovered
        sources of the peer keep running."""
        self.remove_row(t, cond, (p, s, NO_SOURCE))
        for sk in self.sh_keys:
            if sk[:3] == (s, p, NO_SOURCE):
                self.clear(t, cond, self.shipper_keys(sk))
        t.when(cond).knows_peer[s, p] = False


class CheckedAtSubmission(PeerProcedures):
    """``table/peer-checked-at-submission``: the peer is checked when the command is accepted,
    not in PRE under the lock."""

    def rule_peer_checked_under_lock(self, ops: Any) -> Any:
        """The peer is checked when the admin's command is accepted (as it is then), and the
        procedure, once it has the lock, runs without checking it again."""
        return False
