"""Region servers that start while the ZooKeeper-era cluster runs, in the protocol text's form
(``model/engine/step.py``): a server slot among the configuration's last ``joins`` that has not
started (not alive, no first WAL) starts.

* ``join``: it opens its first WAL of each group and creates its znode under
  ``/hbase/replication/rs`` (whose cversion moves: a child of ``/rs`` was created); it learns the
  peers afterwards (``peer_sync``);
* ``died_starting``: only with the configuration's ``zombies`` (trace validation: a recorded
  run's server can go live, be chosen as a fault's victim and die before it creates its znode,
  which HBase creates with the server's first queue): its first WALs are left, closed, for the
  master's split, and the master learns of its death (``on_death``); it had no queue, and nothing
  moved the cversion of ``/rs``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import LIVE_DIR, NO_LOCK
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Server, WalFile


def _joining(text: Any) -> list[tuple[int]]:
    cfg = text.cfg
    return [(s,) for s in range(cfg.servers - cfg.joins, cfg.servers)]


def _dying(text: Any) -> list[tuple[int]]:
    return _joining(text) if text.cfg.zombies else []


class ZkJoins:
    """The starting server's steps (the layout provides ``G``, ``slot``, ``on_death`` and
    ``rs_child_created``)."""

    cfg: Any
    G: range
    on_death: Any
    rs_child_created: Any

    def not_started(self, t: Ctx, s: int) -> None:
        """Server ``s`` has not started: it is not alive and has no first WAL."""
        first = self.cfg.slot((s, 0, 0))
        t.require(t.ops.not_(Server(t, s).alive), t.ops.not_(WalFile(t, first).exists))

    def first_wals(self, t: Ctx, s: int, closed: bool) -> None:
        """A joining server's first WAL of every WAL group: created empty in ``WALs/``."""
        for g in self.G:
            self.new_wal(t, self.cfg.slot((s, g, 0)), closed, True)

    def new_wal(self, t: Ctx, w: int, closed: bool, cond: Any) -> None:
        """Where ``cond`` holds, WAL slot ``w`` is a new, empty file in ``WALs/``."""
        t.when(cond).wal_exists[w] = True
        t.when(cond).wal_length[w] = 0
        t.when(cond).wal_closed[w] = closed
        t.when(cond).wal_place[w] = LIVE_DIR

    def comes_up(self, t: Ctx, s: int) -> None:
        """Server ``s`` (its first WALs open) creates its znode under ``/hbase/replication/rs``
        and goes live; it learns the peers afterwards (``peer_sync``)."""
        t.rs_znode[s] = True
        t.rs_lock[s] = NO_LOCK
        self.rs_child_created(t.ops, t)
        Server(t, s).alive = True

    @step(params=("server",), fair=False, each=_joining)
    def join(self, t: Ctx, s: int) -> None:
        """a region server that was not running starts"""
        self.not_started(t, s)
        self.first_wals(t, s, False)
        self.comes_up(t, s)

    @step(params=("server",), fair=False, each=_dying)
    def died_starting(self, t: Ctx, s: int) -> None:
        """a starting region server dies before it creates its znode"""
        self.not_started(t, s)
        self.first_wals(t, s, True)
        self.on_death(t.ops, t, s)
