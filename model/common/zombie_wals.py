"""A zombie's writer, the same in both eras, in the protocol text's form (``model/engine/step.py``):
HBase's zombie writer can still append to its current WAL, roll to a new one in its WAL
directory and move one it rolled away from to ``oldWALs`` until the split takes its WALs' leases.
Only under the configuration's ``zombies`` (trace validation sets it), so no checker's state
space changes. How an edit is written and what it is owed is the era's own
(``zombie_append``)."""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ARCHIVED, LIVE_DIR
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Budget, Server, WalFile
from replcheck.model.table.wal import KEYS, appends_at, each_put, each_roll, each_wal


def zombies_only(each: Any) -> Any:
    """``each`` where the configuration has ``zombies``, else no instance."""
    return lambda text: each(text) if text.cfg.zombies else []


class ZombieWals:
    """``zombie_put``, ``zombie_roll`` and ``zombie_archive`` (the layout provides ``cfg``)."""

    cfg: Any

    def unsplit(self, ops: Any, t: Any, w: int) -> Any:
        """WAL slot ``w`` exists and is still where its writer left it."""
        return ops.and_(WalFile(t, w).exists, WalFile(t, w).place == LIVE_DIR)

    def zombie_append(self, t: Ctx, s: int, w: int, j: int, kind: int) -> None:
        """The era's own: the zombie's edit of ``kind`` written as entry ``j`` of WAL slot
        ``w``, owed to every peer in storage (the sources it had would have shipped it)."""
        raise NotImplementedError

    @step(
        params=("server", "group", "kind"),
        fair=False,
        each=zombies_only(each_put),
        label=lambda text, st, get, a: a[:3],
        lead=lambda text, s, *a: [(Server(KEYS, s).alive, False), *appends_at(text, s, *a)],
    )
    def zombie_put(self, t: Ctx, s: int, g: int, kind: int, q: int, j: int) -> None:
        """a dead server's writer appends an edit before the split takes its WAL's lease"""
        ops = t.ops
        w = self.cfg.slot((s, g, q))
        t.require(Budget(t, "puts").left > 0, self.unsplit(ops, t, w))
        Budget(t, "puts").left = Budget(t, "puts").left - 1
        self.zombie_append(t, s, w, j, kind)

    @step(
        params=("server", "group"),
        fair=False,
        each=zombies_only(each_roll),
        label=lambda text, st, get, a: a[:2],
    )
    def zombie_roll(self, t: Ctx, s: int, g: int, q: int) -> None:
        """a dead server's writer rolls to a new WAL before the split takes its WALs' leases"""
        ops = t.ops
        t.require(
            ops.not_(Server(t, s).alive),
            Server(t, s).current[g] == q,
            self.unsplit(ops, t, self.cfg.slot((s, g, q))),
        )
        new = self.cfg.slot((s, g, q + 1))
        WalFile(t, new).exists = True
        WalFile(t, new).entries = 0
        WalFile(t, new).closed = True
        WalFile(t, new).place = LIVE_DIR
        t.current_wal[s, g] = q + 1

    @step(params=("server", "group", "seq"), fair=False, each=zombies_only(each_wal))
    def zombie_archive(self, t: Ctx, s: int, g: int, q: int) -> None:
        """a dead server moves a WAL it rolled away from to oldWALs before the split"""
        ops = t.ops
        w = self.cfg.slot((s, g, q))
        t.require(
            ops.not_(Server(t, s).alive), self.unsplit(ops, t, w), q < Server(t, s).current[g]
        )
        WalFile(t, w).place = ARCHIVED
