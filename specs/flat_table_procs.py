"""The peer procedures and the master restart of the table era (``model/table_common.py``) as
flat steps over the layout of ``specs/flat_table.py``: one method per explicit step of the same
name, its structural choices (peer, procedure stage, next row of ``removeAllQueues``, server)
fixed by the instance's guard. The log cleaner is in the protocol text (``model/cleaner.py``)."""

from __future__ import annotations

from typing import Any

from replcheck.model import table_rules
from replcheck.model.cleaner import LogCleaner
from replcheck.model.state import ENABLED, REMOVED
from replcheck.model.table_state import (
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
from replcheck.model.text import Instance, Tx

from .flat_table_base import StepBase


class ProcSteps(LogCleaner, StepBase):
    """Peer procedures, refreshes, the log cleaner, the master restart."""

    def rule_removal_waits_for(self, ops: Any, get: Any, d: int) -> Any:
        """``rule_removal_waits_for``: the AssignReplicationQueuesProcedures still running."""
        return self.arqp_unfinished(ops, get, d)

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        """``rule_removal_pending``: a recorded procedure is unfinished."""
        return ops.or_(
            *(ops.and_(get(("pprec", p, d)), self.arqp_unfinished(ops, get, d)) for d in self.S)
        )

    def barrier_enable(self, ops: Any, tx: Tx, cond: Any) -> None:
        """``barrier_enable``: DISABLED with n <= 1 -> NOT_RUNNING, else n - 1."""
        bar, n = tx[("bar",)], tx[("barn",)]
        on = ops.and_(cond, bar == BARRIER_DISABLED)
        last = n <= 1
        tx.when(on, ("bar",), ops.ite(last, NOT_RUNNING, BARRIER_DISABLED))
        tx.when(on, ("barn",), ops.ite(last, 0, n - 1))

    def _proc(self, name: str, p: int, kind: int, stage: int, extra: Any, apply: Any) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("pp", p)),
                get(("ppk", p)) == kind,
                get(("pps", p)) == stage,
                *(ops.not_(get(("ppref", p, s))) for s in self.S),
                extra(ops, get),
            )

        return Instance("peer_proc", (p, name), guard, apply)

    def _peer_proc(self, p: int) -> list[Instance]:
        """``peer_proc``: AddPeerProcedure's and RemovePeerProcedure's steps, one instance per
        step (and per row ``removeAllQueues`` deletes next)."""
        fence = self.rule["rule_fence_add"]
        rows = [(p, o, src) for o in self.S for src in self.SRC]
        yes = lambda ops, get: True  # noqa: E731

        def set_stage(tx: Tx, stage: int, refresh: bool = False) -> None:
            tx[("pps", p)] = stage
            if refresh:
                for s in self.S:
                    tx[("ppref", p, s)] = tx[("alive", s)]

        def add_pre(ops: Any, tx: Tx) -> None:
            fail = ops.or_(*(tx[("rex", *rk)] for rk in rows))
            ok = ops.not_(fail)
            on = ops.and_(ok, fence(ops))
            bar, n = table_rules.barrier_disable_rule(ops, tx[("bar",)], tx[("barn",)])
            tx.when(on, ("bar",), bar)
            tx.when(on, ("barn",), n)
            tx.when(ok, ("pps", p), AP_STORAGE)
            self.clear(tx, fail, self.proc_keys(p))

        def add_storage(ops: Any, tx: Tx) -> None:
            tx[("peer", p)] = ENABLED
            set_stage(tx, AP_REFRESH, True)

        def add_post(ops: Any, tx: Tx) -> None:
            self.barrier_enable(ops, tx, fence(ops))
            self.clear(tx, True, self.proc_keys(p))

        def rm_storage(ops: Any, tx: Tx) -> None:
            tx[("peer", p)] = REMOVED
            for d in self.S:
                tx[("pprec", p, d)] = self.rule_removal_waits_for(ops, tx.__getitem__, d)
            set_stage(tx, RP_REFRESH, True)

        def rm_post(ops: Any, tx: Tx) -> None:
            set_stage(tx, RP_REMOVE_ALL)
            self.clear(tx, True, [("ppc", p), ("ppn", p)])

        def rm_finish(ops: Any, tx: Tx, done: Any) -> None:
            tx.when(done, ("sid", p), False)
            tx.when(done, ("rdone", p), True)
            self.clear(tx, done, self.proc_keys(p))

        def removal_free(ops: Any, get: Any) -> Any:
            return ops.not_(self.rule_removal_pending(ops, get, p))

        def may_leave_pre(ops: Any, get: Any) -> Any:
            return table_rules.add_peer_may_leave_pre(ops, fence(ops), get(("bar",)))

        out = [
            self._proc("add-pre", p, ADD, AP_PRE, may_leave_pre, add_pre),
            self._proc("add-storage", p, ADD, AP_STORAGE, yes, add_storage),
            self._proc(
                "add-refresh", p, ADD, AP_REFRESH, yes, lambda o, tx: set_stage(tx, AP_POST)
            ),
            self._proc("add-post", p, ADD, AP_POST, yes, add_post),
            self._proc("rm-pre", p, REMOVE, RP_PRE, yes, lambda o, tx: set_stage(tx, RP_STORAGE)),
            self._proc("rm-storage", p, REMOVE, RP_STORAGE, yes, rm_storage),
            self._proc(
                "rm-refresh", p, REMOVE, RP_REFRESH, yes, lambda o, tx: set_stage(tx, RP_POST)
            ),
            self._proc("rm-post", p, REMOVE, RP_POST, removal_free, rm_post),
        ]
        for name, guard, apply in self.cursor_steps(p, rm_finish):
            out.append(self._proc(name, p, REMOVE, RP_REMOVE_ALL, guard, apply))
        return out

    def rs_add_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        """``RSM.addPeer``: an offset per group at the current WAL, a normal source on it."""
        on = ops.and_(cond, ops.not_(tx[("known", s, p)]))
        for g in self.G:
            cur = tx[("cur", s, g)]
            self.set_offset(ops, tx, on, (p, s, NO_SOURCE), g, cur, 0)
            self.add_shipper(ops, tx, on, (s, p, NO_SOURCE, g), [cur == q for q in self.Q], 0)
        tx.when(on, ("known", s, p), True)

    def rs_remove_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        """``RSM.removePeer``: every source of the peer stops and its queue is removed."""
        for src in self.SRC:
            has = ops.or_(*(tx[("sh", *x)] for x in self.sh_keys if x[:3] == (s, p, src)))
            self.remove_row(tx, ops.and_(cond, ops.or_(has, src == NO_SOURCE)), (p, s, src))
        for sk in self.sh_keys:
            if sk[:2] == (s, p):
                self.clear(tx, cond, self.shipper_keys(sk))
        tx.when(cond, ("known", s, p), False)

    def _refresh(self, p: int, s: int, kind: int) -> Instance:
        """``refresh``: the RefreshPeerProcedure child on ``s`` (nothing if ``s`` died)."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("pp", p)), get(("ppk", p)) == kind, get(("ppref", p, s)))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("ppref", p, s)] = False
            alive = tx[("alive", s)]
            if kind == ADD:
                self.rs_add_peer(ops, tx, alive, p, s)
            else:
                self.rs_remove_peer(ops, tx, alive, p, s)

        return Instance("refresh", (p, s, kind), guard, apply)
