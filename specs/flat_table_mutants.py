"""The flat form of each table-era mutant that overrides a step outside a dual-form rule, as a
mixin placed before ``TableFlat`` (``specs/flat_table.py``)."""

from __future__ import annotations

from typing import Any

from replcheck.model.state import LIVE_DIR
from replcheck.model.table_state import (
    ARQP_CLAIM,
    BEGIN_SEQ,
    NO_SOURCE,
    NOT_RUNNING,
    SCP_DONE,
)
from replcheck.model.text import Instance, Tx, count, lookup

from .flat_table_base import StepBase


class FlatTableDoc(StepBase):
    """``table-doc``: RemovePeerProcedure records and waits for the unfinished SCPs."""

    def rule_removal_waits_for(self, ops: Any, get: Any, d: int) -> Any:
        return self.scp_unfinished(ops, get, d)

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return ops.or_(
            *(ops.and_(get(("pprec", p, d)), self.scp_unfinished(ops, get, d)) for d in self.S)
        )


class FlatRemoveWithoutWaiting(StepBase):
    """``table/HBASE-27213``: RemovePeerProcedure does not wait."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return False


class FlatRemoveRecollects(StepBase):
    """``table/HBASE-27213-recollect``: the running claim procedures are collected again."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return ops.or_(*(self.rule_removal_waits_for(ops, get, d) for d in self.S))


class FlatRecoveredEndsEarly(StepBase):
    """``table/HBASE-28155``: the first group to finish removes the recovered queue."""

    def rule_recovered_done(self, ops: Any, get: Any, sk: tuple) -> Any:
        return True


class FlatRecoveredListsWalDir(StepBase):
    """``table/recovered-lists-wal-dir``: the recovered queue lists ``WALs/``, every WAL
    there."""

    def rule_recovered_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        w = self.slot(x, g, q)
        return ops.and_(get(("wex", w)), get(("wplace", w)) == LIVE_DIR)


class FlatRemovePeerKeepsRecovered(StepBase):
    """``table/remove-peer-keeps-recovered``: only the normal source stops."""

    def rs_remove_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        self.remove_row(tx, cond, (p, s, NO_SOURCE))
        for sk in self.sh_keys:
            if sk[:3] == (s, p, NO_SOURCE):
                self.clear(tx, cond, self.shipper_keys(sk))
        tx.when(cond, ("known", s, p), False)


class FlatRestartForgetsBarrier(StepBase):
    """``table/restart-forgets-barrier``: the replayed AddPeerProcedure leaves the barrier."""

    def master_restart_barrier(self, ops: Any, tx: Tx) -> None:
        tx[("bar",)] = NOT_RUNNING
        tx[("barn",)] = 0


class FlatAddMissingRerun(StepBase):
    """``table/add-missing-rerun``: every CLAIM round of the deprecated procedure first adds the
    missing queues again (a BEGIN column under the placeholder group for each peer in storage the
    crashed server has no normal queue for). The re-run is modelled once per round that follows a
    round without it: the SCP's peer mask is 1 (peer 0's bit) after a round that re-ran it, and
    every round clears it otherwise."""

    def _arqp_claim(self, d: int, tup: tuple[int, ...]) -> Instance:
        """``AddMissingRerun.do_arqp_claim``: the re-run of ADD_MISSING_QUEUES, then the CLAIM
        round over the queues now present. The instance's guard is the design's (``en_arqp_claim``
        is not overridden): ``tup`` was chosen on the queues before the re-run. With no queue
        then (``tup == ()``) and queues after it, the targets are the online servers in order,
        as many as there are queues."""
        n = len(tup)
        keys = self.claim_queue_keys(d)
        base: Instance = super()._arqp_claim(d, tup)  # type: ignore[misc]

        def apply(ops: Any, tx: Tx) -> None:
            reran = ops.or_(*(tx[("scpp", d, p)] for p in self.P))
            again = [
                ops.and_(ops.not_(reran), self.rule_add_missing(ops, tx.__getitem__, d, p))
                for p in self.P
            ]
            for p in self.P:
                self.set_offset(ops, tx, again[p], (p, d, NO_SOURCE), -1, BEGIN_SEQ, 0)
            here = [
                ops.and_(tx[("rex", p, d, src)], self.storage(ops, tx.__getitem__, p))
                for p, src in keys
            ]
            alive = [tx[("alive", t)] for t in self.S]
            limit = n if tup else count(ops, alive)
            for i, (p, src) in enumerate(keys):
                rank = count(ops, here[:i])
                on = ops.and_(here[i], rank < limit)
                if tup:
                    target: Any = lookup(ops, rank, list(tup), 0)
                else:
                    # The rank-th online server, in server order.
                    target = 0
                    for t in self.S:
                        nth = ops.and_(alive[t], count(ops, alive[:t]) == rank)
                        target = ops.ite(nth, t, target)
                tx[("ch", d, p, src)] = on
                tx[("cht", d, p, src)] = ops.ite(on, target, 0)
            tx[("stage", d)] = ops.ite(ops.or_(*here), ARQP_CLAIM, SCP_DONE)
            for p in self.P:
                tx[("scpp", d, p)] = ops.or_(*again) if p == 0 else False

        return Instance(base.name, base.args, base.guard, apply)
