"""The active master restarting in the table era (reference section 6), in the protocol text's
form (``model/engine/step.py``): procedures are persisted and replayed; the cleaner's barrier and a
cleaner run live only in memory, so ``afterReplay`` rebuilds the barrier (disabled once for each
AddPeerProcedure past PRE, and for a migration that holds it: ``model/features/migration.py``) and
the run is forgotten. A claim still running on its target is dispatched again (``claim_redeliver``,
``model/table/claim.py``)."""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import count
from replcheck.model.table.state import ADD, AP_PRE, BARRIER_DISABLED, NOT_RUNNING
from replcheck.model.table.views import Budget, TableText


class MasterRestart(TableText):
    """The master restart (the layout's helpers are ``StepBase``'s)."""

    def master_restart_barrier(self, ops: Any, t: Any) -> None:
        """``afterReplay``: the barrier disabled once per AddPeerProcedure past PRE."""
        fence = self.rule["rule_fence_add"](ops)
        n = count(
            ops,
            (
                ops.and_(
                    t.peer_proc[p], t.peer_proc_kind[p] == ADD, t.peer_proc_stage[p] > AP_PRE, fence
                )
                for p in self.P
            ),
        )
        t.cleaner_barrier = ops.ite(n > 0, BARRIER_DISABLED, NOT_RUNNING)
        t.cleaner_barrier_holders = n

    @step(params=(), fair=False, each=lambda text: [()] if text.cfg.master_restarts else [])
    def master_restart(self, t: Ctx) -> None:
        """the active master restarts; procedures are replayed"""
        t.require(Budget(t, "master_restarts").left > 0)
        Budget(t, "master_restarts").left = Budget(t, "master_restarts").left - 1
        self.master_restart_barrier(t.ops, t)
        self.cleaner_reset(t)


class RestartForgetsBarrier(MasterRestart):
    """``table/restart-forgets-barrier``: the replayed AddPeerProcedures leave the barrier (the
    migration's own ``afterReplay`` still holds it: separate code in HBase)."""

    def master_restart_barrier(self, ops: Any, t: Any) -> None:
        """The restarted master leaves the cleaner barrier down: no replayed AddPeerProcedure
        disables the log cleaner again."""
        t.cleaner_barrier = NOT_RUNNING
        t.cleaner_barrier_holders = 0
