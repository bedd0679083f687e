"""A region server's WALs in the ZooKeeper era, in the protocol text's form
(``model/engine/step.py``): seed 001's "a new log is created and registered in the queue of every
peer" on a roll.

* ``put``: one client edit appended to the current WAL of its group, owed to the peers the
  server replicates to (while replication is on) whose filter keeps it (the layout's ``append``);
* ``roll``: the new WAL is queued in ZooKeeper for every peer, then used (``roll_wal``);
* ``roll_zk_fail``: the ZooKeeper write of a roll fails and the server aborts (``roll_fails``);
* ``register_wal``: a WAL already in use is queued (``enqueue_wal``; only a design that uses a
  WAL before queueing it has one to queue);
* ``archive``: a closed WAL moves to ``oldWALs``.

A design or a mutant changes what a roll does by overriding ``roll_wal`` or ``roll_fails``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ARCHIVED, LIVE_DIR
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Budget, Server, WalFile
from replcheck.model.table.wal import appends_at, each_put, each_roll, take_put


def _failed_rolls(text: Any) -> list[tuple[int, int, int]]:
    return each_roll(text) if text.cfg.zk_faults else []


def _own_wals(text: Any) -> list[tuple[int, int]]:
    return [(s, w) for s in text.S for w in text.W if text.key[w][0] == s]


class ZkWals:
    """The WAL steps (the layout provides ``append`` and ``enqueue_wal``)."""

    cfg: Any
    S: range
    G: range
    Q: range
    W: range
    key: list[tuple[int, int, int]]
    uid_index: dict[tuple, int]
    ids_index: dict[tuple, int]
    append: Any
    enqueue_wal: Any
    kill: Any

    @step(
        params=("server", "group", "kind"),
        fair=False,
        each=each_put,
        label=lambda text, st, get, a: a[:3],
        lead=appends_at,
    )
    def put(self, t: Ctx, s: int, g: int, kind: int, q: int, j: int) -> None:
        """a client Put/Delete appended to the current WAL"""
        w = self.cfg.slot((s, g, q))
        take_put(t, s)
        uid, ids = self.uid_index[(0, s, g, q, j)], self.ids_index[(0,)]
        self.append(t.ops, t, s, w, j, uid, kind, ids)

    @step(
        params=("server", "group"), fair=False, each=each_roll, label=lambda text, st, get, a: a[:2]
    )
    def roll(self, t: Ctx, s: int, g: int, q: int) -> None:
        """log roll: the new WAL is queued for every peer, then used"""
        t.require(Server(t, s).alive, Server(t, s).current[g] == q)
        self.roll_wal(t.ops, t, s, g, q)

    @step(
        params=("server", "group"),
        fair=False,
        each=_failed_rolls,
        label=lambda text, st, get, a: a[:2],
    )
    def roll_zk_fail(self, t: Ctx, s: int, g: int, q: int) -> None:
        """the ZooKeeper write of a roll fails"""
        t.require(Budget(t, "zk_faults").left > 0, Server(t, s).alive, Server(t, s).current[g] == q)
        self.roll_fails(t.ops, t, s, g, q)

    @step(
        params=("server", "group", "seq"),
        fair=True,
        each=_own_wals,
        label=lambda text, st, get, a: text.key[a[1]],
    )
    def register_wal(self, t: Ctx, s: int, w: int) -> None:
        """queue a WAL that is already in use"""
        t.require(Server(t, s).alive, t.wal_unregistered[s, w])
        self.enqueue_wal(t.ops, t, s, w)

    @step(
        params=("server", "group", "seq"),
        fair=False,
        each=lambda text: [(w,) for w in text.W],
        label=lambda text, st, get, a: text.key[a[0]],
    )
    def archive(self, t: Ctx, w: int) -> None:
        """a closed WAL is moved to oldWALs"""
        t.require(WalFile(t, w).exists, WalFile(t, w).closed, WalFile(t, w).place == LIVE_DIR)
        WalFile(t, w).place = ARCHIVED

    # --- what a roll does (a mutant overrides one) ----------------------------------------

    def switch_wal(self, ops: Any, tx: Any, s: int, g: int, q: int) -> None:
        """Close WAL ``q`` of server ``s``'s group ``g`` and write to the next, a new file."""
        old, new = self.cfg.slot((s, g, q)), self.cfg.slot((s, g, q + 1))
        tx.wal_closed[old] = True
        tx.wal_exists[new] = True
        tx.wal_length[new] = 0
        tx.wal_closed[new] = False
        tx.wal_place[new] = LIVE_DIR
        tx.current_wal[s, g] = q + 1

    def roll_wal(self, ops: Any, tx: Any, s: int, g: int, q: int) -> None:
        """Queue the new WAL for every peer, then use it."""
        self.enqueue_wal(ops, tx, s, self.cfg.slot((s, g, q + 1)))
        self.switch_wal(ops, tx, s, g, q)

    def roll_fails(self, ops: Any, tx: Any, s: int, g: int, q: int) -> None:
        """The ZooKeeper write failed: the server aborts."""
        tx.budget["zk_faults"] = tx.budget["zk_faults"] - 1
        self.kill(ops, tx, s)
