"""A ZooKeeper-era region server's replication sources, in the protocol text's form
(``model/engine/step.py``): the shipper of one WAL group of one queue reads its head WAL from its
position, ships, writes the position to the WAL's znode, and drops the head when it is done.

* ``ship``: one batch from the head WAL's position to one of the sinks the server chose, while
  replication is on and the peer is enabled (or removed, before the server reacted); only the
  edits the peer's filter keeps are sent (``rule_ships``), and a batch with none needs no sink;
* ``persist``: the shipped position is written to the head WAL's znode in the queue (seed 003:
  "the latest position that has been replicated");
* ``advance``: the head WAL is done and a newer one is queued (``rule_wal_done``): it leaves the
  queue znode and the shipper;
* ``finish``: a recovered shipper read its last WAL to the end; the queue's last shipper deletes
  the queue;
* ``skip_missing``: the head WAL cannot be found where the reader looks (``locate``): it is
  skipped (a normal source only while a newer WAL is queued).

A shipper is the layout's slot ``(server, peer, queue, group, copy)``, its WAL list ``shn``
entries of WAL slots ``shw``, its head the first (``head_guard``); the layout provides
``deliver``, ``replicable`` and ``drop_head``; a mutant overrides ``locate``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ARCHIVED, DELETED, ENABLED, REMOVED, Shipper
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step


def slot_shipper(text: Any, get: Any, s: int, sk: tuple) -> Shipper:
    """The readable shipper held in server ``s``'s slot ``sk``."""
    now = named(get)
    p, ci, g, _m = sk
    wals = tuple(text.key[now.shipper_wal[s, *sk, j]] for j in range(now.shipper_length[s, *sk]))
    return Shipper(p, text.chains[ci], g, wals, now.shipper_pos[s, *sk])


def shipper_index(text: Any, st: Any, get: Any, s: int, sk: tuple) -> int:
    """The index on server ``s`` of the shipper in slot ``sk``: the readable state keeps a
    server's shippers sorted, equal copies in slot order."""
    mine = slot_shipper(text, get, s, sk)
    earlier = sum(
        1
        for m in range(sk[3])
        if named(get).shipper[s, *sk[:3], m] and slot_shipper(text, get, s, (*sk[:3], m)) == mine
    )
    return st.servers[s].shippers.index(mine) + earlier


def _by_index(text: Any, st: Any, get: Any, a: tuple) -> tuple[int, int]:
    """(server, shipper index)."""
    return (a[0], shipper_index(text, st, get, a[0], a[1:5]))


def _ship_label(text: Any, st: Any, get: Any, a: tuple) -> tuple[int, int, int]:
    """(server, shipper index, sink server)."""
    return (a[0], shipper_index(text, st, get, a[0], a[1:5]), a[6])


def _ships(text: Any) -> list[tuple]:
    k = range(text.cfg.sink_servers)
    return [(s, *sk, hw, x) for s in text.S for sk in text.sh_keys for hw in text.W for x in k]


def _heads(text: Any) -> list[tuple]:
    return [(s, *sk, hw) for s in text.S for sk in text.sh_keys for hw in text.W]


def _recovered_heads(text: Any) -> list[tuple]:
    return [(s, *sk, hw) for s in text.S for sk in text.sh_keys if sk[1] for hw in text.W]


def head(text: Any, s: int, p: int, ci: int, g: int, m: int, hw: int, *_rest: int) -> list:
    """A shipper step's ``lead``: its shipper slot holds a shipper whose head is WAL ``hw``."""
    sk = (s, p, ci, g, m)
    return [(var.shipper(*sk), True), (var.shipper_wal(*sk, 0), hw)]


class ZkSources:
    """The shipper steps (the layout provides ``cfg``, ``S``, ``E``, ``W``, ``sh_keys``,
    ``rule`` and the helpers named above)."""

    cfg: Any
    S: range
    E: int
    W: range
    sh_keys: list[tuple[int, int, int, int]]
    rule: dict[str, Any]
    deliver: Any
    replicable: Any
    drop_head: Any
    head_guard: Any

    @step(
        params=("server", "shipper", "sink"), fair=True, each=_ships, label=_ship_label, lead=head
    )
    def ship(self, t: Ctx, s: int, p: int, ci: int, g: int, m: int, hw: int, k: int) -> None:
        """read a batch, filter it, ship it to a sink"""
        ops = t.ops
        sk = (s, p, ci, g, m)
        t.require(self.head_guard(ops, t.get, sk, hw))
        target = p + 1
        batch = self.cfg.batch
        rule = self.rule["rule_ships"]
        pos, n = t.shipper_pos[*sk], t.wal_length[hw]
        edits = []
        for j in t.below(self.E, pos, pos + batch, n):
            inb = ops.and_(pos <= j, j < pos + batch, j < n)
            kind, ids = t.entry_kind[hw, j], t.entry_cluster_ids[hw, j]
            edits.append((inb, kind, ids, self.replicable(ops, rule, kind, ids, target), j))
        # ``batch_keeps``: the batch holds an edit the filter keeps (else no sink is needed)
        keeps = ops.or_(*(ops.and_(inb, ok) for inb, _k, _i, ok, _j in edits))
        status = t.peer_state[p]
        t.require(
            t.replication_on,
            ops.or_(
                status == ENABLED, ops.and_(status == REMOVED, ops.not_(t.removal_handled[s, p]))
            ),
            t.wal_exists[hw],
            pos < n,
            self.locate(ops, t.get, s, p, ci, hw),
            t.sink_chosen[s, p, k],
            ops.or_(ops.not_(t.sink_down[target, k]), ops.not_(keeps)),
        )
        sent = [
            (ops.and_(inb, ok), t.entry_edit[hw, j], kind, ids) for inb, kind, ids, ok, j in edits
        ]
        self.deliver(ops, t, target, sent)
        t.shipper_pos[*sk] = ops.ite(n < pos + batch, n, pos + batch)

    @step(params=("server", "shipper"), fair=True, each=_heads, label=_by_index, lead=head)
    def persist(self, t: Ctx, s: int, p: int, ci: int, g: int, m: int, hw: int) -> None:
        """write the shipped position to the WAL's znode"""
        ops = t.ops
        sk = (s, p, ci, g, m)
        t.require(
            self.head_guard(ops, t.get, sk, hw),
            t.queue_znode[s, p, ci],
            t.queue_has_wal[s, p, ci, hw],
            t.queue_wal_pos[s, p, ci, hw] != t.shipper_pos[*sk],
        )
        t.queue_wal_pos[s, p, ci, hw] = t.shipper_pos[*sk]

    @step(params=("server", "shipper"), fair=True, each=_heads, label=_by_index, lead=head)
    def advance(self, t: Ctx, s: int, p: int, ci: int, g: int, m: int, hw: int) -> None:
        """end of a WAL with a newer one queued: drop it"""
        ops = t.ops
        sk = (s, p, ci, g, m)
        t.require(self.head_guard(ops, t.get, sk, hw))
        done = self.rule["rule_wal_done"](
            ops, t.shipper_length[*sk] > 1, t.wal_closed[hw], t.shipper_pos[*sk], t.wal_length[hw]
        )
        t.require(
            t.wal_exists[hw],
            done,
            t.queue_znode[s, p, ci],
            t.queue_has_wal[s, p, ci, hw],
        )
        self.drop_head(ops, t, sk, hw)

    @step(
        params=("server", "shipper"), fair=True, each=_recovered_heads, label=_by_index, lead=head
    )
    def finish(self, t: Ctx, s: int, p: int, ci: int, g: int, m: int, hw: int) -> None:
        """a recovered shipper read its last WAL: drop it"""
        ops = t.ops
        sk = (s, p, ci, g, m)
        t.require(
            self.head_guard(ops, t.get, sk, hw),
            t.shipper_length[*sk] == 1,
            t.wal_exists[hw],
            t.wal_closed[hw],
            t.shipper_pos[*sk] >= t.wal_length[hw],
        )
        self.drop_head(ops, t, sk, hw)

    @step(params=("server", "shipper"), fair=True, each=_heads, label=_by_index, lead=head)
    def skip_missing(self, t: Ctx, s: int, p: int, ci: int, g: int, m: int, hw: int) -> None:
        """the WAL cannot be found: skip it"""
        ops = t.ops
        sk = (s, p, ci, g, m)
        t.require(
            self.head_guard(ops, t.get, sk, hw),
            True if ci else t.shipper_length[*sk] > 1,
            ops.not_(self.locate(ops, t.get, s, p, ci, hw)),
        )
        self.drop_head(ops, t, sk, hw)

    def locate(self, ops: Any, get: Any, s: int, p: int, ci: int, w: int) -> Any:
        """Where the reader looks for a WAL (a mutant overrides it): it opens one that exists and
        is not deleted, from oldWALs or from the directory of the server its queue id names."""
        now = named(get)
        place = now.wal_place[w]
        in_dir = self.owner[(s, p, ci)] == self.key[w][0]
        return ops.and_(now.wal_exists[w], place != DELETED, ops.or_(place == ARCHIVED, in_dir))
