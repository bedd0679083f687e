"""A region server's replication sources in the table era (seed 004 "Replication queue storage";
reference section 5), in the protocol text's form (``model/engine/step.py``): the shipper of one WAL
group of one queue reads its head WAL from its position, ships, persists the offset, moves on,
and (a recovered source) ends.

* ``ship``: one batch from the head WAL's position to one sink server; only edits the peer's
  filter keeps are sent (``rule_ships``, dual-form); a batch with nothing to send needs no sink;
* ``persist``: ``setOffset`` of the shipped position (the last writer wins), and the ``sid`` row;
* ``advance``: the head WAL is done and a newer one is queued: offset ``-1`` (FULL) for it, and
  the head leaves memory (``wal_done_rule``);
* ``finish``: a recovered shipper read its last WAL to the end: it ends, and the queue's last
  shipper removes the row (``rule_recovered_done``; HBASE-28155 is the mutant).

A shipper is the slot ``(server, peer, source, group, copy)`` (``ShipperSlot``); its WAL list is
one flag per sequence of the WAL owner's group, its head the lowest. The action names the
shipper by its index on the server, as the readable state keeps them sorted (``label``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import Shipper
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table import rules as table_rules
from replcheck.model.table.state import FULL, NO_SOURCE, TState
from replcheck.model.table.views import TableText, WalFile


def slot_shipper(text: Any, get: Any, sk: tuple) -> Shipper:
    """The shipper in slot ``sk`` as the readable state holds it."""
    now = named(get)
    s, p, src, g, _m = sk
    owner = text.wal_owner(s, src)
    wals = tuple((owner, g, q) for q in text.Q if now.shipper_has_wal[*sk, q])
    return Shipper(p, () if src == NO_SOURCE else (src,), g, wals, now.shipper_pos[*sk])


def shipper_index(text: Any, st: TState, get: Any, sk: tuple) -> int:
    """The index on its server of the shipper in slot ``sk``: the readable state keeps a
    server's shippers sorted, equal copies in slot order."""
    mine = slot_shipper(text, get, sk)
    earlier = sum(
        1
        for m in range(sk[4])
        if named(get).shipper[*sk[:4], m] and slot_shipper(text, get, (*sk[:4], m)) == mine
    )
    return st.servers[sk[0]].shippers.index(mine) + earlier


def _by_index(text: Any, st: TState, get: Any, a: tuple) -> tuple[int, int]:
    """(server, shipper index)."""
    return (a[0], shipper_index(text, st, get, a[:5]))


def _ship_label(text: Any, st: TState, get: Any, a: tuple) -> tuple[int, int, int]:
    """(server, shipper index, sink server)."""
    return (a[0], shipper_index(text, st, get, a[:5]), a[6])


def _ships(text: Any) -> list[tuple]:
    return [(*sk, q, k) for sk in text.sh_keys for q in text.Q for k in text.K]


def head(text: Any, s: int, p: int, src: int, g: int, m: int, q: int, *_rest: int) -> list:
    """A shipper step's ``lead``: its shipper slot's WAL list holds sequence ``q``."""
    return [(var.shipper_has_wal(s, p, src, g, m, q), True)]


def _heads(text: Any) -> list[tuple]:
    return [(*sk, q) for sk in text.sh_keys for q in text.Q]


def _recovered_heads(text: Any) -> list[tuple]:
    return [(*sk, q) for sk in text.sh_keys if sk[2] != NO_SOURCE for q in text.Q]


class Sources(TableText):
    """The shipper steps (the layout's helpers are ``StepBase``'s)."""

    def stored_is(self, ops: Any, get: Any, rk: tuple, g: int, seq: Any, pos: Any) -> Any:
        """``stored(...) == (seq, pos)``: the row has that column with that value."""
        now = named(get)
        return ops.and_(
            now.queue_row[*rk],
            now.queue_has_offset[*rk, g],
            now.queue_offset_wal[*rk, g] == seq,
            now.queue_offset_pos[*rk, g] == pos,
        )

    def rule_recovered_done(self, ops: Any, get: Any, sk: tuple) -> Any:
        """Is a finishing recovered shipper its queue's last? No other shipper of the same queue
        (HBASE-28155's fix)."""
        s, p, src, _g, _m = sk
        return ops.not_(
            ops.or_(
                *(named(get).shipper[*x] for x in self.sh_keys if x[:3] == (s, p, src) and x != sk)
            )
        )

    def batch_can_push(self, ops: Any, get: Any, sk: tuple, q: int) -> Any:
        """What else a batch of shipper ``sk``'s head WAL ``q`` waits for before it is shipped:
        nothing (a serial peer's ``SerialReplicationChecker``, ``model/features/serial.py``, waits
        for the region's previous range)."""
        return True

    def after_ship(self, ops: Any, t: Ctx, sk: tuple, q: int, pos: Any, end: Any) -> None:
        """What else shipping the entries ``pos`` to ``end`` of shipper ``sk``'s head WAL ``q``
        writes once the peer took them: nothing (bulk loads' hfile references are cleaned up,
        ``model/features/hfile_refs.py``)."""

    def push_seq_ids(self, ops: Any, t: Ctx, sk: tuple, q: int, upto: Any) -> None:
        """What else a shipper's offset write carries, in the same atomic mutation, for the
        entries of its head WAL ``q`` below ``upto``: nothing (a serial peer's last pushed
        sequence ids, ``model/features/serial.py``)."""

    def rule_position_after_ship(self, ops: Any, pos: Any, end: Any) -> Any:
        """The reader's position once a batch read from ``pos`` to ``end`` is shipped: ``end``
        (the next batch starts after it, whether or not its offset is persisted yet)."""
        return end

    def rule_position_after_switch(self, ops: Any, pos: Any) -> Any:
        """The reader's position in the next WAL once it moves past a finished one: its start
        (``WALEntryStream`` resets the position on a file switch, HBASE-29987)."""
        return 0

    @step(
        params=("server", "shipper", "sink"), fair=True, each=_ships, label=_ship_label, lead=head
    )
    def ship(self, t: Ctx, s: int, p: int, src: int, g: int, m: int, q: int, k: int) -> None:
        """read a batch, filter it, ship it to a sink"""
        ops = t.ops
        sk = (s, p, src, g, m)
        target = p + 1
        w = self.head_slot(sk, q)
        batch = self.cfg.batch
        pos, n = t.shipper_pos[*sk], WalFile(t, w).entries
        # ``batch_keeps``: the batch holds an edit the filter keeps (else no sink is needed).
        # the batch's entries: on plain values only those from ``pos`` (``below``)
        batch_of = []
        for j in t.below(self.E, pos, pos + batch, n):
            uid, kind, ids = self.entry(t.get, w, j)
            inb = ops.and_(pos <= j, j < pos + batch, j < n)
            batch_of.append(
                (ops.and_(inb, self.shipper_ok(ops, kind, target, ids)), uid, kind, ids)
            )
        keeps = ops.or_(*(ok for ok, _uid, _kind, _ids in batch_of))
        t.require(
            self.head_is(ops, t.get, sk, q),
            table_rules.source_ships_rule(ops, t.peer_state[p]),
            self.readable(ops, t.get, w),
            pos < n,
            ops.or_(ops.not_(t.sink_down[target, k]), ops.not_(keeps)),
            self.batch_can_push(ops, t.get, sk, q),
        )
        self.deliver(ops, t, target, batch_of)
        end = ops.ite(n < pos + batch, n, pos + batch)
        self.after_ship(ops, t, sk, q, pos, end)
        t.shipper_pos[*sk] = self.rule_position_after_ship(ops, pos, end)

    @step(params=("server", "shipper"), fair=True, each=_heads, label=_by_index, lead=head)
    def persist(self, t: Ctx, s: int, p: int, src: int, g: int, m: int, q: int) -> None:
        """setOffset: the shipped position, last writer wins"""
        ops = t.ops
        sk = (s, p, src, g, m)
        rk = (p, s, src)
        pos = t.shipper_pos[*sk]
        t.require(
            self.head_is(ops, t.get, sk, q),
            pos > 0,
            ops.not_(self.stored_is(ops, t.get, rk, g, q, pos)),
        )
        self.set_offset(ops, t, True, rk, g, q, pos)
        self.push_seq_ids(ops, t, sk, q, pos)
        t.last_pushed_row[p] = True

    @step(params=("server", "shipper"), fair=True, each=_heads, label=_by_index, lead=head)
    def advance(self, t: Ctx, s: int, p: int, src: int, g: int, m: int, q: int) -> None:
        """end of a WAL with a newer one queued: offset -1"""
        ops = t.ops
        sk = (s, p, src, g, m)
        w = self.head_slot(sk, q)
        done = rules.wal_done_rule(
            ops,
            self.more_after(ops, t.get, sk, q),
            WalFile(t, w).closed,
            t.shipper_pos[*sk],
            WalFile(t, w).entries,
        )
        pos = t.shipper_pos[*sk]
        t.require(self.head_is(ops, t.get, sk, q), self.readable(ops, t.get, w), done)
        self.set_offset(ops, t, True, (p, s, src), g, q, FULL)
        self.push_seq_ids(ops, t, sk, q, WalFile(t, w).entries)
        t.shipper_has_wal[*sk, q] = False
        t.shipper_pos[*sk] = self.rule_position_after_switch(ops, pos)

    @step(
        params=("server", "shipper"), fair=True, each=_recovered_heads, label=_by_index, lead=head
    )
    def finish(self, t: Ctx, s: int, p: int, src: int, g: int, m: int, q: int) -> None:
        """a recovered WAL group is done; the last removes it"""
        ops = t.ops
        sk = (s, p, src, g, m)
        w = self.head_slot(sk, q)
        t.require(
            self.head_is(ops, t.get, sk, q),
            ops.not_(self.more_after(ops, t.get, sk, q)),
            self.readable(ops, t.get, w),
            WalFile(t, w).closed,
            t.shipper_pos[*sk] >= WalFile(t, w).entries,
        )
        done = self.rule_recovered_done(ops, t.get, sk)
        self.push_seq_ids(ops, t, sk, q, WalFile(t, w).entries)
        self.clear(t, True, self.shipper_keys(sk))
        self.remove_row(t, done, (p, s, src))


class ShipKeepsPosition(Sources):
    """``table/ship-keeps-position``: the position moves only with a persisted offset."""

    def rule_position_after_ship(self, ops: Any, pos: Any, end: Any) -> Any:
        """The reader stays at ``pos`` after shipping the batch (it moves with the persisted
        offset only)."""
        return pos


class PositionNotReset(Sources):
    """``table/position-not-reset``: the reader keeps the finished WAL's position in the next."""

    def rule_position_after_switch(self, ops: Any, pos: Any) -> Any:
        """The reader starts the next WAL at the finished WAL's offset."""
        return pos


class RecoveredEndsEarly(Sources):
    """``table/HBASE-28155``: the first group to finish removes the recovered queue."""

    def rule_recovered_done(self, ops: Any, get: Any, sk: tuple) -> Any:
        """A recovered queue is done as soon as one WAL group's shipper is."""
        return True
