"""TransitPeerSyncReplicationStateProcedure (``model/table_sync.py``) over the flat layout of
``specs/flat_table_sync.py``: the admin command that submits it and the master's steps, one
instance per step (and per target state where the step depends on it, and per row
``removeAllQueues`` deletes next). Its refreshes on the region servers are in
``flat_table_sync_steps.py``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.state import DISABLED, ENABLED
from replcheck.model.table_state import (
    ACTIVE,
    DOWNGRADE_ACTIVE,
    NONE,
    SCP_DONE,
    STANDBY,
    TRANSIT,
)
from replcheck.model.table_sync import (
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
from replcheck.model.text import Instance, Tx

from .flat_table_base import StepBase


class TransitSteps(StepBase):
    """The transition procedure's submission and steps."""

    # --- helpers ------------------------------------------------------------------------------

    def cursor_keys(self, p: int) -> list[tuple]:
        """``removeAllQueues``' cursor: ``()`` is every one of these at its default."""
        return [("ppc", p), ("ppn", p)] + [("ppkey", p, o, src) for o in self.S for src in self.SRC]

    def record_stale(self, ops: Any, tx: Tx, p: int) -> None:
        """``record_stale``: every entry owed to ``p`` that its cluster has not applied."""
        for w in self.W:
            for j in range(self.E):
                u = self.uid(w, j)
                cond = ops.and_(
                    tx[("wex", w)],
                    j < tx[("wn", w)],
                    tx[("wowed", w, j, p)],
                    ops.not_(tx[("app", p + 1, u)]),
                )
                tx.when(cond, ("stale", p, u), True)

    # --- the admin command --------------------------------------------------------------------

    def _transit_peer(self, p: int, to: int) -> Instance:
        """``transit_peer``: TransitPeerSyncReplicationStateProcedure submitted, for a transition
        ``allowedTransition`` permits (to ACTIVE only with the remote WAL directory)."""
        froms = [state for state, tos in ALLOWED.items() if to in tos]

        def guard(ops: Any, get: Any) -> Any:
            state = get(("sync", p))
            return ops.and_(
                get(("b", "admin")) > 0,
                self.storage(ops, get, p),
                ops.not_(get(("pp", p))),
                get(("syncn", p)) == NONE,
                ops.or_(*(state == f for f in froms)),
                get(("rdir", p)) if to == ACTIVE else True,
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "admin")] = tx[("b", "admin")] - 1
            tx[("pp", p)] = True
            tx[("ppk", p)] = TRANSIT
            tx[("pps", p)] = TS_PRE
            tx[("ppt", p)] = to

        return Instance("transit_peer", (p, to), guard, apply)

    # --- the master's procedure ---------------------------------------------------------------

    def rule_transit_waits_for(self, ops: Any, get: Any, s: int) -> Any:
        """``rule_transit_waits_for``: ``table-doc`` records the live servers and those whose SCP
        is unfinished; the code records none."""
        if not getattr(self.design, "doc_waits_for_scps", False):
            return False
        return ops.or_(get(("alive", s)), self.scp_unfinished(ops, get, s))

    def rule_transit_pending(self, ops: Any, get: Any, p: int) -> Any:
        """``rule_transit_pending``: a recorded server whose SCP has not finished."""
        return ops.or_(
            *(ops.and_(get(("pprec", p, s)), get(("stage", s)) != SCP_DONE) for s in self.S)
        )

    def _transit_proc(self, p: int) -> list[Instance]:
        """``peer_proc`` of a TransitPeerSyncReplicationStateProcedure (``transit_step``): one
        instance per step, per target state where the step depends on it, and per row
        ``removeAllQueues`` deletes next."""
        out: list[Instance] = []
        yes = lambda ops, get: True  # noqa: E731

        def add(name: str, stage: int, apply: Any, extra: Any = yes, to: int | None = None) -> None:
            if to is not None:
                name = f"{name}-{to}"
                cond = extra

                def extra(ops: Any, get: Any) -> Any:
                    return ops.and_(get(("ppt", p)) == to, cond(ops, get))

            out.append(self._proc(f"ts-{name}", p, TRANSIT, stage, extra, apply))

        def refresh_all(tx: Tx) -> None:
            for s in self.S:
                tx[("ppref", p, s)] = tx[("alive", s)]

        def pre(ops: Any, tx: Tx) -> None:
            tx[("ppwe", p)] = tx[("peer", p)] == ENABLED
            for s in self.S:
                tx[("pprec", p, s)] = self.rule_transit_waits_for(ops, tx.__getitem__, s)
            tx[("pps", p)] = TS_SET_NEW

        add("pre", TS_PRE, pre)
        for to in (ACTIVE, DOWNGRADE_ACTIVE, STANDBY):

            def set_new(ops: Any, tx: Tx, to: int = to) -> None:
                if to == STANDBY:
                    tx.when(tx[("ppwe", p)], ("peer", p), DISABLED)
                tx[("syncn", p)] = to
                if to == STANDBY:
                    self.record_stale(ops, tx, p)
                tx[("pps", p)] = TS_REFRESH_BEGIN
                refresh_all(tx)

            def refresh_begin(ops: Any, tx: Tx, to: int = to) -> None:
                if to == STANDBY:
                    tx[("pps", p)] = TS_REMOVE_ALL
                    self.clear(tx, True, self.cursor_keys(p))
                else:
                    tx[("pps", p)] = TS_TRANSIT

            def transit(ops: Any, tx: Tx, to: int = to) -> None:
                tx[("sync", p)] = tx[("syncn", p)]
                tx[("syncn", p)] = NONE
                if to == STANDBY:
                    self.record_stale(ops, tx, p)
                tx[("pps", p)] = TS_REFRESH_END
                refresh_all(tx)
                for s in self.S:
                    tx[("pprec", p, s)] = False

            def refresh_end(ops: Any, tx: Tx, to: int = to) -> None:
                if to == STANDBY:
                    tx[("pps", p)] = ops.ite(tx[("ppwe", p)], TS_SET_ENABLED, TS_CREATE_DIR)
                else:
                    tx[("pps", p)] = TS_POST

            def ready(ops: Any, get: Any) -> Any:
                return ops.not_(self.rule_transit_pending(ops, get, p))

            add("set-new", TS_SET_NEW, set_new, to=to)
            add("refresh-begin", TS_REFRESH_BEGIN, refresh_begin, to=to)
            add("transit", TS_TRANSIT, transit, ready, to=to)
            add("refresh-end", TS_REFRESH_END, refresh_end, to=to)

        # REMOVE_ALL_REPLICATION_QUEUES_IN_PEER: ``remove_all_queues_step``.
        def rm_finish(ops: Any, tx: Tx, done: Any) -> None:
            tx.when(done, ("pps", p), TS_TRANSIT)
            self.clear(tx, done, self.cursor_keys(p))

        for name, guard, apply in self.cursor_steps(p, rm_finish):
            add(name, TS_REMOVE_ALL, apply, guard)

        def set_enabled(ops: Any, tx: Tx) -> None:
            tx[("peer", p)] = ENABLED
            tx[("pps", p)] = TS_ENABLE_REFRESH
            refresh_all(tx)

        def create_dir(ops: Any, tx: Tx) -> None:
            tx[("rdir", p)] = True
            tx[("pps", p)] = TS_POST

        def enable_refresh(ops: Any, tx: Tx) -> None:
            tx[("pps", p)] = TS_CREATE_DIR

        def post(ops: Any, tx: Tx) -> None:
            self.clear(tx, True, self.proc_keys(p))

        add("set-enabled", TS_SET_ENABLED, set_enabled)
        add("enable-refresh", TS_ENABLE_REFRESH, enable_refresh)
        add("create-dir", TS_CREATE_DIR, create_dir)
        add("post", TS_POST, post)
        return out
