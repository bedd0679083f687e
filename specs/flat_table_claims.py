"""The claims of the table era (``model/table_common.py``) as flat steps over the layout of
``specs/flat_table.py``: one method per explicit step of the same name, its structural choices
(dead server, queue row, claimer) fixed by the instance's guard. The ServerCrashProcedure and its
AssignReplicationQueuesProcedure are in the protocol text (``model/scp.py``)."""

from __future__ import annotations

from typing import Any

from replcheck.model import table_rules
from replcheck.model.scp import AssignQueues
from replcheck.model.state import ARCHIVED
from replcheck.model.table_rules import NO_TIMESTAMP
from replcheck.model.table_state import (
    NO_SOURCE,
    SCP_SPLIT,
)
from replcheck.model.text import Instance, Tx

from .flat_table_base import StepBase


class ClaimSteps(AssignQueues, StepBase):
    """The SCP's stages and ARQP (the text's), and the claim steps."""

    def _claim_lost(self, d: int, p: int, src: int) -> Instance:
        """``claim_lost``: the child's target is dead; the child finishes."""

        def guard(ops: Any, get: Any) -> Any:
            t = get(("cht", d, p, src))
            dead = ops.or_(*(ops.and_(t == x, ops.not_(get(("alive", x)))) for x in self.S))
            return ops.and_(get(("ch", d, p, src)), dead)

        def apply(ops: Any, tx: Tx) -> None:
            self.clear(tx, True, [("ch", d, p, src), ("cht", d, p, src)])

        return Instance("claim_lost", (d, p, src), guard, apply)

    def _claim_read(self, t: int, d: int, p: int, src: int) -> Instance:
        """``claim_read``: the peer check, then ``getOffsets``; an unknown peer or no row ends
        the child."""
        rk = (p, d, src)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("ch", d, p, src)),
                get(("cht", d, p, src)) == t,
                get(("alive", t)),
                ops.not_(get(("cl", t, 0))),
            )

        def apply(ops: Any, tx: Tx) -> None:
            known = self.rule["rule_claim_peer_known"](ops, tx[("known", t, p)])
            read = ops.or_(*(tx[("rhas", *rk, og)] for og in self.OG))
            ok = ops.and_(known, read)
            self.clear(tx, ops.not_(ok), [("ch", d, p, src), ("cht", d, p, src)])
            tx.when(ok, ("cl", t, 0), True)
            tx.when(ok, ("clp", t, 0), p)
            tx.when(ok, ("cls", t, 0), src)
            tx.when(ok, ("cld", t, 0), d)
            for og in self.OG:
                for f in ("has", "seq", "pos"):
                    tx.when(ok, ("cl" + f, t, 0, og), tx[("r" + f, *rk, og)])

        return Instance("claim_read", (t, d, p, src), guard, apply)

    def claim_is(self, ops: Any, get: Any, t: int, m: int, d: int, p: int, src: int) -> Any:
        return ops.and_(
            get(("cl", t, m)),
            get(("clp", t, m)) == p,
            get(("cls", t, m)) == src,
            get(("cld", t, m)) == d,
        )

    def claim_queue(self, ops: Any, tx: Tx, t: int, d: int, p: int, src: int) -> tuple:
        """``claimQueue``'s conditional delete+put of row ``(p, d, src)`` to ``(p, t, source)``
        with the offsets of pending claim 0 of ``t``; returns (processed, source, read)."""
        rk = (p, d, src)
        read = [
            (og, tx[("clhas", t, 0, og)], tx[("clseq", t, 0, og)], tx[("clpos", t, 0, og)])
            for og in self.OG
        ]
        # The first column read (group 0 when nothing was read), and the row's value of it.
        col = ops.and_(tx[("rex", *rk)], tx[("rhas", *rk, 0)])
        cseq, cpos = tx[("rseq", *rk, 0)], tx[("rpos", *rk, 0)]
        rseq: Any = 0
        rpos: Any = 0
        for og, has, seq, pos in reversed(read):
            col = ops.ite(has, ops.and_(tx[("rex", *rk)], tx[("rhas", *rk, og)]), col)
            cseq = ops.ite(has, tx[("rseq", *rk, og)], cseq)
            cpos = ops.ite(has, tx[("rpos", *rk, og)], cpos)
            rseq = ops.ite(has, seq, rseq)
            rpos = ops.ite(has, pos, rpos)
        cseq = ops.ite(col, cseq, 0)
        cpos = ops.ite(col, cpos, 0)
        holds = table_rules.claim_guard_rule(
            ops,
            tx[("rex", *rk)],
            ops.or_(*(has for _og, has, _s, _p in read)),
            col,
            cseq,
            cpos,
            rseq,
            rpos,
        )
        applies = table_rules.claim_applies_rule(ops, self.rule["rule_claim_guarded"](ops), holds)
        source = src if src != NO_SOURCE else d
        self.pop_claim(tx, t)
        self.remove_row(tx, applies, rk)
        nk = (p, t, source)
        tx.when(applies, ("rex", *nk), True)
        for og, has, seq, pos in read:
            on = ops.and_(applies, has)
            tx.when(on, ("rhas", *nk, og), True)
            tx.when(on, ("rseq", *nk, og), seq)
            tx.when(on, ("rpos", *nk, og), pos)
        return applies, source, read

    def _claim_commit(self, t: int, d: int, p: int, src: int) -> Instance:
        """``claim_commit``: the child ends; the conditional mutation; then the peer check drops
        the claimed queue, or a recovered source starts over the archived WALs."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("alive", t)), self.claim_is(ops, get, t, 0, d, p, src))

        def apply(ops: Any, tx: Tx) -> None:
            mine = ops.and_(tx[("ch", d, p, src)], tx[("cht", d, p, src)] == t)
            self.clear(tx, mine, [("ch", d, p, src), ("cht", d, p, src)])
            applies, source, read = self.claim_queue(ops, tx, t, d, p, src)
            known = self.rule["rule_claim_peer_known"](ops, tx[("known", t, p)])
            drop = ops.or_(ops.not_(known), self.refuse[p])
            self.remove_row(tx, ops.and_(applies, drop), (p, t, source))
            self.start_recovered(ops, tx, ops.and_(applies, ops.not_(drop)), t, p, source, read)

        return Instance("claim_commit", (t, d, p, src), guard, apply)

    def rule_recovered_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        """``rule_recovered_wals``: WAL ``(x, g, q)`` is in oldWALs and ``shouldReplicate`` from
        the offset."""
        w = self.slot(x, g, q)
        return ops.and_(
            get(("wex", w)),
            get(("wplace", w)) == ARCHIVED,
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )

    def start_recovered(
        self, ops: Any, tx: Tx, cond: Any, t: int, p: int, x: int, read: list
    ) -> None:
        """``start_recovered``: per WAL group a recovered shipper over the listed WALs from the
        start position; none at all removes the queue."""
        cols = {og: (has, seq, pos) for og, has, seq, pos in read}
        started = []
        for g in self.G:
            has, seq, pos = cols[g]
            ts = ops.ite(has, seq, NO_TIMESTAMP)
            pos = ops.ite(has, pos, 0)
            bits = [
                self.rule_recovered_wals(ops, tx.__getitem__, x, g, q, has, ts, pos) for q in self.Q
            ]
            first: Any = 0
            for q in reversed(self.Q):
                at = table_rules.start_position_rule(ops, has, ts, pos, q)
                first = ops.ite(bits[q], at, first)
            any_wal = ops.or_(*bits)
            started.append(any_wal)
            self.add_shipper(ops, tx, ops.and_(cond, any_wal), (t, p, x, g), bits, first)
        self.remove_row(tx, ops.and_(cond, ops.not_(ops.or_(*started))), (p, t, x))

    def _zombie_claim_commit(self, t: int, d: int, p: int, src: int) -> Instance:
        """``zombie_claim_commit``: a dead claimer's mutation lands before its SCP splits."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                ops.not_(get(("alive", t))),
                get(("stage", t)) == SCP_SPLIT,
                self.claim_is(ops, get, t, 0, d, p, src),
            )

        def apply(ops: Any, tx: Tx) -> None:
            self.claim_queue(ops, tx, t, d, p, src)

        return Instance("zombie_claim_commit", (t, d, p, src), guard, apply)

    def _claim_redeliver(self, t: int, d: int, p: int, src: int) -> Instance:
        """``claim_redeliver``: a master restart re-sends the running claim; the second
        ``claimQueue`` reads the offsets now."""
        rk = (p, d, src)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "master_restarts")) > 0,
                get(("alive", t)),
                self.claim_is(ops, get, t, 0, d, p, src),
                ops.not_(get(("cl", t, 1))),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "master_restarts")] = tx[("b", "master_restarts")] - 1
            tx[("cl", t, 1)] = True
            tx[("clp", t, 1)] = p
            tx[("cls", t, 1)] = src
            tx[("cld", t, 1)] = d
            for og in self.OG:
                for f in ("has", "seq", "pos"):
                    tx[("cl" + f, t, 1, og)] = tx[("r" + f, *rk, og)]

        return Instance("claim_redeliver", (t, d, p, src), guard, apply)
