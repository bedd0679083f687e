"""How a dead server's queues move in each ZooKeeper-era design, in the protocol text's form
(``model/engine/step.py``):

* ``zk-multi`` (reference section 3a): a survivor chosen by the master's ServerCrashProcedure
  reads one queue of the dead server and its positions (``claim_read``), then one ``multi``
  creates the claimed queue under its own znode, deletes the old one and bumps the cversion of
  ``/rs`` (``claim_commit``); a ``multi`` that finds the queue changed claims nothing ("someone
  else took the log", ``claim_failed``). The procedure deletes the dead server's znode once it
  has no queue left (``scp_finish``); nothing loses it (``lose_failover_event`` has no instance).
* ``zk-lock`` (seed 000): survivors race to create the dead server's ``lock`` znode (``lock``);
  the winner copies its queues one at a time (``copy_queue``), then deletes them all and starts
  a source per copied queue (``finish_claim``); a lock whose holder died is removed
  (``lock_cleaner``, HBASE-16144).

A claimed queue starts its sources through the layout's ``start_recovered`` (whose peer is gone:
marked for the claimer's delete, ``model/zk/claim_drop.py``). The layout provides the claim slots
(``cl``, ``cld``, ``clp``, ``clc``, ``clin``, ``clpos``), ``new_chain`` (the claimed queue's
chain index, -1 past the layout) and the queue helpers.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import NO_LOCK
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step


def _queues(text: Any) -> list[tuple[int, int, int, int]]:
    return [(s, d, p, ci) for s in text.S for d in text.S for p in text.P for ci in text.CH]


def _pairs(text: Any) -> list[tuple[int, int]]:
    return [(s, d) for s in text.S for d in text.S if s != d]


def _queue_label(text: Any, st: Any, get: Any, a: tuple) -> tuple[int, int, int]:
    """(server, dead server, the queue's index among the dead server's queues)."""
    s, d, p, ci = a
    return (s, d, text.design.find_queue(st.rs[d], p, text.chains[ci]))


def _claimer(text: Any, st: Any, get: Any, a: tuple) -> tuple[int]:
    return (a[0],)


def _readable(text: Any, s: int, d: int, p: int, ci: int) -> list:
    """``claim_read``'s ``lead``: dead ``d``'s failover is pending and its queue ``(p, ci)``
    there; ``s`` is alive and not in a claim already."""
    return [
        (var.failover_pending(d), True),
        (var.rs_znode(d), True),
        (var.queue_znode(d, p, ci), True),
        (var.server_alive(s), True),
        (var.claiming(s), False),
    ]


def _read(text: Any, s: int, d: int, p: int, ci: int) -> list:
    """``claim_commit``'s ``lead``: live ``s`` read dead ``d``'s queue ``(p, ci)``."""
    return [
        (var.claiming(s), True),
        (var.claiming_dead(s), d),
        (var.claiming_peer(s), p),
        (var.claiming_chain(s), ci),
        (var.server_alive(s), True),
    ]


def _dead(text: Any) -> list[tuple[int]]:
    return [(d,) for d in text.S]


class MultiClaims:
    """zk-multi's failover (the layout provides ``S``, ``P``, ``CH``, ``W``, ``new_chain``,
    ``rule`` and the queue helpers)."""

    S: range
    P: range
    CH: range
    W: range
    new_chain: dict[tuple[int, int], int]
    rule: dict[str, Any]
    clear_claim: Any
    drop_queue: Any
    put_queue: Any
    start_recovered: Any
    bump_cversion: Any

    @step(
        params=("server", "dead", "queue"),
        fair=True,
        each=_queues,
        label=_queue_label,
        lead=_readable,
    )
    def claim_read(self, t: Ctx, s: int, d: int, p: int, ci: int) -> None:
        """read a dead server's queue positions"""
        t.claiming[s] = True
        t.claiming_dead[s] = d
        t.claiming_peer[s] = p
        t.claiming_chain[s] = ci
        for w in self.W:
            t.claiming_has_wal[s, w] = t.queue_has_wal[d, p, ci, w]
            t.claiming_wal_pos[s, w] = t.queue_wal_pos[d, p, ci, w]

    @step(params=("server",), fair=True, each=_queues, label=_claimer, lead=_read)
    def claim_commit(self, t: Ctx, s: int, d: int, p: int, ci: int) -> None:
        """the claim multi: move the queue, bump the cversion"""
        ops = t.ops
        nci = self.new_chain[(ci, d)]
        if nci < 0:
            t.overflow = True
            return
        snap = [(w, t.claiming_has_wal[s, w], t.claiming_wal_pos[s, w]) for w in self.W]
        self.clear_claim(t, s)
        same = ops.and_(*(ops.eq(t.queue_has_wal[d, p, ci, w], inn) for w, inn, _ in snap))
        applies = self.rule["claim_applies"](
            ops, t.queue_znode[d, p, ci], same, t.queue_znode[s, p, nci]
        )
        self.claim_failed(ops, t, ops.not_(applies), s, p, nci, snap)
        self.drop_queue(ops, t, applies, d, p, ci)
        self.put_queue(ops, t, applies, s, p, nci, snap)
        self.claim_bump(ops, t, applies)
        self.start_recovered(ops, t, applies, s, p, nci, snap)

    def claim_failed(
        self, ops: Any, tx: Any, cond: Any, s: int, p: int, nci: int, snap: list
    ) -> None:
        """A failed ``multi`` claims nothing (the fix of HBASE-8099)."""

    def claim_bump(self, ops: Any, tx: Any, cond: Any) -> None:
        """The claim's ``multi`` creates and deletes ``/rs/cversion_<newQueueId>``: it moves
        only grandchildren of ``/rs`` otherwise, which ZooKeeper's cversion of ``/rs`` ignores."""
        self.bump_cversion(ops, tx, cond)

    @step(params=("dead",), fair=True, each=_dead)
    def scp_finish(self, t: Ctx, d: int) -> None:
        """SCP: the dead server has no queue left; delete its znode"""
        ops = t.ops
        queues = ops.or_(*(t.queue_znode[d, p, ci] for p in self.P for ci in self.CH))
        t.require(t.failover_pending[d], ops.not_(ops.and_(t.rs_znode[d], queues)))
        t.failover_pending[d] = False
        gone = t.rs_znode[d]
        t.when(gone).rs_znode[d] = False
        t.when(gone).rs_lock[d] = NO_LOCK
        self.bump_cversion(ops, t, gone)

    @step(params=("dead",), fair=False, each=lambda text: [])
    def lose_failover_event(self, t: Ctx, d: int) -> None:
        """a failover trigger is lost"""
        t.require(t.failover_pending[d])
        t.failover_pending[d] = False


class LockClaims:
    """zk-lock's failover (the layout provides ``S``, ``P``, ``CH``, ``W``, ``chains``,
    ``new_chain`` and the queue helpers)."""

    S: range
    P: range
    CH: range
    W: range
    chains: list[tuple[int, ...]]
    new_chain: dict[tuple[int, int], int]
    drop_queue: Any
    put_queue: Any
    start_recovered: Any

    def copied(self, ops: Any, get: Any, s: int, d: int, p: int, ci: int) -> Any:
        """Does ``s`` hold a copy of dead ``d``'s queue ``(p, ci)`` with every WAL of it?"""
        now = named(get)
        nci = self.new_chain[(ci, d)]
        if nci < 0:
            return False
        return ops.and_(
            now.queue_znode[s, p, nci],
            *(
                ops.implies(now.queue_has_wal[d, p, ci, w], now.queue_has_wal[s, p, nci, w])
                for w in self.W
            ),
        )

    def holder(self, ops: Any, get: Any, s: int, d: int) -> Any:
        """Live server ``s`` holds the lock znode of dead server ``d``."""
        now = named(get)
        return ops.and_(now.rs_znode[d], now.rs_lock[d] == s, now.server_alive[s])

    @step(params=("server", "dead"), fair=True, each=_pairs)
    def lock(self, t: Ctx, s: int, d: int) -> None:
        """create /rs/<dead>/lock (the race of seed 000)"""
        t.require(
            t.rs_znode[d],
            t.rs_lock[d] == NO_LOCK,
            t.ops.not_(t.server_alive[d]),
            t.server_alive[s],
        )
        t.rs_lock[d] = s

    @step(
        params=("server", "dead", "queue"),
        fair=True,
        each=lambda text: [x for x in _queues(text) if x[0] != x[1]],
        label=_queue_label,
    )
    def copy_queue(self, t: Ctx, s: int, d: int, p: int, ci: int) -> None:
        """copy one queue of the locked server"""
        ops = t.ops
        t.require(
            self.holder(ops, t.get, s, d),
            t.queue_znode[d, p, ci],
            ops.not_(self.copied(ops, t.get, s, d, p, ci)),
        )
        nci = self.new_chain[(ci, d)]
        if nci < 0:
            t.overflow = True
            return
        wals = [(w, t.queue_has_wal[d, p, ci, w], t.queue_wal_pos[d, p, ci, w]) for w in self.W]
        self.put_queue(ops, t, True, s, p, nci, wals)

    @step(params=("server", "dead"), fair=True, each=_pairs)
    def finish_claim(self, t: Ctx, s: int, d: int) -> None:
        """delete the dead server's queues, start sources"""
        ops = t.ops
        slots = sorted(
            ((p, ci) for p in self.P for ci in self.CH), key=lambda pc: (pc[0], self.chains[pc[1]])
        )
        t.require(
            self.holder(ops, t.get, s, d),
            *(
                ops.implies(t.queue_znode[d, p, ci], self.copied(ops, t.get, s, d, p, ci))
                for p, ci in slots
            ),
        )
        had = {(p, ci): t.queue_znode[d, p, ci] for p, ci in slots}
        for p, ci in slots:
            self.drop_queue(ops, t, True, d, p, ci)
        t.rs_znode[d] = False
        t.rs_lock[d] = NO_LOCK
        for p, ci in slots:
            nci = self.new_chain[(ci, d)]
            if nci < 0 or had[(p, ci)] is False:
                continue
            cond = ops.and_(had[(p, ci)], t.queue_znode[s, p, nci])
            wals = [
                (w, t.queue_has_wal[s, p, nci, w], t.queue_wal_pos[s, p, nci, w]) for w in self.W
            ]
            self.start_recovered(ops, t, cond, s, p, nci, wals)

    @step(params=("dead",), fair=True, each=_dead)
    def lock_cleaner(self, t: Ctx, d: int) -> None:
        """remove a lock whose holder has died (HBASE-16144)"""
        ops = t.ops
        dead_holder = ops.or_(
            *(ops.and_(t.rs_lock[d] == s, ops.not_(t.server_alive[s])) for s in self.S)
        )
        t.require(t.rs_znode[d], dead_holder)
        t.rs_lock[d] = NO_LOCK
