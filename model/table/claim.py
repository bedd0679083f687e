"""The region server's side of a claim in the table era (seed 004 "Claim queue"; reference
section 4), in the protocol text's form (``model/engine/step.py``): the child procedure the SCP's
CLAIM round sent to a live server (``model/table/scp.py``) runs there.

* ``claim_read``: the claimer checks the peer (``rule_claim_peer_known``, dual-form), then
  ``getOffsets`` of the dead server's row; an unknown peer or no row ends the child;
* ``claim_commit``: the conditional multi-row mutation (``claimQueue``: delete the dead server's
  row and put it under the claimer, if the row still holds what was read;
  ``rule_claim_guarded``), then the peer check again: the claimed queue is dropped, or a
  recovered source starts over the WALs that ``shouldReplicate`` (``rule_recovered_wals``), or
  the queue is removed when there is none;
* ``claim_lost``: the child's target died; the child finishes (the next round re-sends what the
  dead server still owns);
* ``zombie_claim_commit``: a dead claimer's in-flight mutation lands before its own SCP splits
  its logs (trace validation's zombies);
* ``claim_redeliver``: a master restart re-sends a claim still running on its target, which runs
  ``claimQueue`` a second time (reading the offsets now).

A server's pending claims are ``claim_pending[claimer, slot]`` for slot 0 and 1 (a redelivered one
second), each with the child's peer, source and dead server and the offsets read.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ARCHIVED, LIVE_DIR
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table import rules as table_rules
from replcheck.model.table.rules import NO_TIMESTAMP
from replcheck.model.table.state import NO_SOURCE, SCP_SPLIT, TState
from replcheck.model.table.views import Crash, Server, TableText


def child_index(st: TState, d: int, p: int, src: int) -> int:
    """The index of the claim child of queue ``(p, src)`` in the SCP of ``d``."""
    return [(c.peer, c.source) for c in st.scps[d].children].index((p, src))


def _children(text: Any) -> list[tuple[int, int, int]]:
    return [(d, p, src) for d in text.S for p in text.P for src in text.SRC]


def _claims(text: Any) -> list[tuple[int, int, int, int]]:
    return [(t, d, p, src) for d, p, src in _children(text) for t in text.S]


def _redeliveries(text: Any) -> list[tuple[int, int, int, int]]:
    return _claims(text) if text.cfg.master_restarts else []


def _claimer(text: Any, st: TState, get: Any, a: tuple) -> tuple[int]:
    """(claimer,)"""
    return (a[0],)


class Claims(TableText):
    """The claim child's steps on its target (the layout's helpers are ``StepBase``'s)."""

    def claim_is(self, ops: Any, get: Any, t: int, m: int, d: int, p: int, src: int) -> Any:
        """Pending claim ``m`` of ``t`` is the child of queue ``(p, d, src)``."""
        now = named(get)
        return ops.and_(
            now.claim_pending[t, m],
            now.claim_peer[t, m] == p,
            now.claim_source[t, m] == src,
            now.claim_dead[t, m] == d,
        )

    def refuse_recovered(self, ops: Any, get: Any, t: int, p: int) -> Any:
        """``rule_refuse_recovered`` of the claimer ``t`` for peer ``p``: it reads only the
        server's sync-replication views, constant without sync peers (the verdict per peer)."""
        return self.refuse[p]

    def rule_recovered_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        """Does a recovered source list WAL ``(x, g, q)``: in oldWALs and ``shouldReplicate``
        from the offset?"""
        now = named(get)
        w = self.slot(x, g, q)
        return ops.and_(
            now.wal_exists[w],
            now.wal_place[w] == ARCHIVED,
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )

    def claim_queue(self, ops: Any, t: Any, c: int, d: int, p: int, src: int) -> tuple:
        """``claimQueue``'s conditional delete+put of row ``(p, d, src)`` to ``(p, c, source)``
        with the offsets of pending claim 0 of ``c``; returns (processed, source, read)."""
        rk = (p, d, src)
        read = [
            (og, t.claim_read_has[c, 0, og], t.claim_read_wal[c, 0, og], t.claim_read_pos[c, 0, og])
            for og in self.OG
        ]
        # The first column read (group 0 when nothing was read), and the row's value of it.
        col = ops.and_(t.queue_row[*rk], t.queue_has_offset[*rk, 0])
        cseq, cpos = t.queue_offset_wal[*rk, 0], t.queue_offset_pos[*rk, 0]
        rseq: Any = 0
        rpos: Any = 0
        for og, has, seq, pos in reversed(read):
            col = ops.ite(has, ops.and_(t.queue_row[*rk], t.queue_has_offset[*rk, og]), col)
            cseq = ops.ite(has, t.queue_offset_wal[*rk, og], cseq)
            cpos = ops.ite(has, t.queue_offset_pos[*rk, og], cpos)
            rseq = ops.ite(has, seq, rseq)
            rpos = ops.ite(has, pos, rpos)
        cseq = ops.ite(col, cseq, 0)
        cpos = ops.ite(col, cpos, 0)
        holds = table_rules.claim_guard_rule(
            ops,
            t.queue_row[*rk],
            ops.or_(*(has for _og, has, _s, _p in read)),
            col,
            cseq,
            cpos,
            rseq,
            rpos,
        )
        applies = table_rules.claim_applies_rule(ops, self.rule["rule_claim_guarded"](ops), holds)
        source = src if src != NO_SOURCE else d
        self.pop_claim(t, c)
        self.remove_row(t, applies, rk)
        nk = (p, c, source)
        t.when(applies).queue_row[*nk] = True
        for og, has, seq, pos in read:
            on = ops.and_(applies, has)
            t.when(on).queue_has_offset[*nk, og] = True
            t.when(on).queue_offset_wal[*nk, og] = seq
            t.when(on).queue_offset_pos[*nk, og] = pos
        return applies, source, read

    def start_recovered(
        self, ops: Any, t: Any, cond: Any, c: int, p: int, x: int, read: list
    ) -> None:
        """Per WAL group a recovered shipper over the listed WALs from the start position; none
        at all removes the queue."""
        cols = {og: (has, seq, pos) for og, has, seq, pos in read}
        started = []
        for g in self.G:
            has, seq, pos = cols[g]
            ts = ops.ite(has, seq, NO_TIMESTAMP)
            pos = ops.ite(has, pos, 0)
            bits = [self.rule_recovered_wals(ops, t.get, x, g, q, has, ts, pos) for q in self.Q]
            first = self.first_wal_start(ops, has, ts, pos, bits)
            any_wal = ops.or_(*bits)
            started.append(any_wal)
            self.add_shipper(ops, t, ops.and_(cond, any_wal), (c, p, x, g), bits, first)
        self.remove_row(t, ops.and_(cond, ops.not_(ops.or_(*started))), (p, c, x))

    @step(
        params=("server", "dead", "child"),
        fair=True,
        each=_claims,
        label=lambda text, st, get, a: (a[0], a[1], child_index(st, *a[1:])),
    )
    def claim_read(self, t: Ctx, c: int, d: int, p: int, src: int) -> None:
        """claim: sleep, check the peer, getOffsets"""
        ops = t.ops
        rk = (p, d, src)
        t.require(t.claim_child[d, p, src])
        t.require(
            t.claim_target[d, p, src] == c,
            Server(t, c).alive,
            ops.not_(t.claim_pending[c, 0]),
        )
        known = self.rule["rule_claim_peer_known"](ops, Server(t, c).knows[p])
        read = ops.or_(*(t.queue_has_offset[*rk, og] for og in self.OG))
        ok = ops.and_(known, read)
        self.clear(t, ops.not_(ok), [var.claim_child(d, p, src), var.claim_target(d, p, src)])
        t.when(ok).claim_pending[c, 0] = True
        t.when(ok).claim_peer[c, 0] = p
        t.when(ok).claim_source[c, 0] = src
        t.when(ok).claim_dead[c, 0] = d
        for og in self.OG:
            t.when(ok).claim_read_has[c, 0, og] = t.queue_has_offset[*rk, og]
            t.when(ok).claim_read_wal[c, 0, og] = t.queue_offset_wal[*rk, og]
            t.when(ok).claim_read_pos[c, 0, og] = t.queue_offset_pos[*rk, og]

    @step(params=("server",), fair=True, each=_claims, label=_claimer)
    def claim_commit(self, t: Ctx, c: int, d: int, p: int, src: int) -> None:
        """claim: conditional delete+put; start recovered source"""
        ops = t.ops
        t.require(t.claim_pending[c, 0])
        t.require(Server(t, c).alive, self.claim_is(ops, t.get, c, 0, d, p, src))
        mine = ops.and_(t.claim_child[d, p, src], t.claim_target[d, p, src] == c)
        self.clear(t, mine, [var.claim_child(d, p, src), var.claim_target(d, p, src)])
        applies, source, read = self.claim_queue(ops, t, c, d, p, src)
        known = self.rule["rule_claim_peer_known"](ops, Server(t, c).knows[p])
        drop = ops.or_(ops.not_(known), self.refuse_recovered(ops, t.get, c, p))
        self.remove_row(t, ops.and_(applies, drop), (p, c, source))
        self.start_recovered(ops, t, ops.and_(applies, ops.not_(drop)), c, p, source, read)

    @step(
        params=("dead", "child"),
        fair=True,
        each=_children,
        label=lambda text, st, get, a: (a[0], child_index(st, *a)),
    )
    def claim_lost(self, t: Ctx, d: int, p: int, src: int) -> None:
        """the claim's target is gone: the child finishes"""
        ops = t.ops
        t.require(t.claim_child[d, p, src])
        target = t.claim_target[d, p, src]
        dead = ops.or_(*(ops.and_(target == x, ops.not_(Server(t, x).alive)) for x in self.S))
        t.require(t.claim_child[d, p, src], dead)
        self.clear(t, True, [var.claim_child(d, p, src), var.claim_target(d, p, src)])

    @step(params=("server",), fair=True, each=_claims, label=_claimer)
    def zombie_claim_commit(self, t: Ctx, c: int, d: int, p: int, src: int) -> None:
        """a dead claimer's in-flight claim mutation lands before its own SCP splits its logs"""
        ops = t.ops
        t.require(t.claim_pending[c, 0])
        t.require(
            ops.not_(Server(t, c).alive),
            Crash(t, c).stage == SCP_SPLIT,
            self.claim_is(ops, t.get, c, 0, d, p, src),
        )
        self.claim_queue(ops, t, c, d, p, src)

    @step(params=("server",), fair=False, each=_redeliveries, label=_claimer)
    def claim_redeliver(self, t: Ctx, c: int, d: int, p: int, src: int) -> None:
        """master restart: a claim still running on its target is dispatched again"""
        ops = t.ops
        rk = (p, d, src)
        t.require(t.claim_pending[c, 0])
        t.require(
            t.budget["master_restarts"] > 0,
            Server(t, c).alive,
            self.claim_is(ops, t.get, c, 0, d, p, src),
            ops.not_(t.claim_pending[c, 1]),
        )
        t.budget["master_restarts"] = t.budget["master_restarts"] - 1
        t.claim_pending[c, 1] = True
        t.claim_peer[c, 1] = p
        t.claim_source[c, 1] = src
        t.claim_dead[c, 1] = d
        for og in self.OG:
            t.claim_read_has[c, 1, og] = t.queue_has_offset[*rk, og]
            t.claim_read_wal[c, 1, og] = t.queue_offset_wal[*rk, og]
            t.claim_read_pos[c, 1, og] = t.queue_offset_pos[*rk, og]


class RecoveredListsWalDir(Claims):
    """``table/recovered-lists-wal-dir``: the recovered queue lists ``WALs/``, every WAL
    there."""

    def rule_recovered_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        """The recovered queue lists every WAL of the group still in ``WALs/``, whatever its
        offset; none in oldWALs."""
        now = named(get)
        w = self.slot(x, g, q)
        return ops.and_(now.wal_exists[w], now.wal_place[w] == LIVE_DIR)
