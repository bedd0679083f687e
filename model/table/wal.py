"""A region server's WALs in the table era (reference section 5), in the protocol text's form
(``model/engine/step.py``): a client write appends to the current WAL of its group, a roll closes it
and opens the next, and a closed WAL of a live server moves to ``oldWALs``.

* ``put``: one client edit, owed to each peer the server has a source for whose filter keeps it
  (``rule_owed``);
* ``roll``: the old WAL closes; the new one joins every normal source of the group, in memory
  ("we do not need to touch the replication queue system table every time when creating a WAL
  file");
* ``archive``: a closed WAL of a live server moves to ``oldWALs``.

Components that add to these steps do it through ``after_put`` and ``after_roll`` (sync
replication's STANDBY-era edits, a version-2 server's ZooKeeper queues).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import ARCHIVED, LIVE_DIR
from replcheck.model.engine.names import named
from replcheck.model.engine.step import Ctx, Reader, step
from replcheck.model.table.state import NO_SOURCE
from replcheck.model.table.views import Budget, Server, TableText, WalFile


def each_wal(text: Any) -> list[tuple[int, int, int]]:
    """One instance per WAL slot, by its key (server, group, sequence)."""
    return [text.key[w] for w in text.W]


def each_put(text: Any) -> list[tuple[int, int, int, int, int]]:
    """One instance per server, WAL group, edit kind and WAL entry the edit would be (a
    client's edit is one of a WAL's first ``edits_per_wal``; a layout may hold more entries,
    for edits relayed in)."""
    cfg = text.cfg
    return [
        (s, g, kind, q, j)
        for s in text.S
        for g in text.G
        for q in text.Q
        for kind in cfg.edit_kinds
        for j in range(cfg.edits_per_wal)
    ]


def each_roll(text: Any) -> list[tuple[int, int, int]]:
    """One instance per server, WAL group and sequence that has a next one."""
    wps = text.cfg.wals_per_server
    return [(s, g, q) for s in text.S for g in text.G for q in text.Q if q + 1 < wps]


KEYS = Reader(lambda k: k)
"""A view read through it gives its slots' keys (what a ``lead`` names)."""


def appends_at(text: Any, s: int, g: int, _kind: int, q: int, j: int) -> list:
    """A write's ``lead``, in either era: ``q`` is server ``s``'s current WAL of group ``g``,
    and ``j`` that WAL's next entry."""
    w = text.cfg.slot((s, g, q))
    return [(Server(KEYS, s).current[g], q), (WalFile(KEYS, w).entries, j)]


def take_put(t: Ctx, s: int) -> None:
    """A client write's guard after its ``lead`` (``appends_at``) and its budget, in either era:
    a put is left and the server is alive."""
    t.require(Budget(t, "puts").left > 0, Server(t, s).alive)
    Budget(t, "puts").left = Budget(t, "puts").left - 1


class Wals(TableText):
    """The WAL steps (the layout's helpers are ``StepBase``'s)."""

    def rule_owed(self, ops: Any, get: Any, s: int, kind: Any, p: int, ids: Any = 0) -> Any:
        """To which peers is a new edit of server ``s`` owed? Each one the server has a source
        for whose filter accepts the edit (of ``kind`` and cluster-id list ``ids``, an index in
        the layout's ``ids``: by default our client's)."""
        return ops.and_(
            named(get).knows_peer[s, p],
            self.replicable(ops, rules.replicable_rule, kind, ids, p + 1),
        )

    @step(
        params=("server", "group", "kind"),
        fair=False,
        each=each_put,
        label=lambda text, st, get, a: a[:3],
        lead=appends_at,
    )
    def put(self, t: Ctx, s: int, g: int, kind: int, q: int, j: int) -> None:
        """a client Put/Delete appended to the current WAL"""
        w = self.slot(s, g, q)
        t.require(self.region_open_on(t.ops, t.get, s, g))
        take_put(t, s)
        owed = [self.rule_owed(t.ops, t.get, s, kind, p) for p in self.P]
        self.write_entry(t, True, w, j, self.uid(w, j), kind, 0, owed)
        self.after_put(t.ops, t, s, g, q, j)

    def region_open_on(self, ops: Any, get: Any, s: int, g: int) -> Any:
        """May a client write to server ``s``'s WAL group ``g``? Yes: every server hosts regions
        of every group (with serial peers, ``model/features/serial.py``, the one region is open on
        one server at a time)."""
        return True

    def after_put(self, ops: Any, t: Any, s: int, g: int, q: int, j: int) -> None:
        """What else a client write of entry ``j`` of ``s``'s WAL ``(g, q)`` writes."""

    @step(
        params=("server", "group"), fair=False, each=each_roll, label=lambda text, st, get, a: a[:2]
    )
    def roll(self, t: Ctx, s: int, g: int, q: int) -> None:
        """log roll: the new WAL goes to every source, in memory"""
        t.require(Server(t, s).alive, Server(t, s).current[g] == q)
        self.open_next_wal(t.ops, t, True, s, g, q)
        self.after_roll(t.ops, t, s, g, q)

    def open_next_wal(self, ops: Any, t: Any, cond: Any, s: int, g: int, q: int) -> None:
        """Where ``cond`` holds, ``s``'s WAL ``(g, q)`` closes and the next one opens empty, joins
        every normal source of the group (in memory) and becomes the group's current WAL: the
        roll itself, also taken inside other steps (sync replication's ``drainSources``)."""
        old, new = self.slot(s, g, q), self.slot(s, g, q + 1)
        t.when(cond).wal_closed[old] = True
        t.when(cond).wal_exists[new] = True
        t.when(cond).wal_length[new] = 0
        t.when(cond).wal_closed[new] = False
        t.when(cond).wal_place[new] = LIVE_DIR
        for sk in self.sh_keys:
            if sk[0] == s and sk[2] == NO_SOURCE and sk[3] == g:
                t.when(ops.and_(cond, t.shipper[*sk])).shipper_has_wal[*sk, q + 1] = True
        t.when(cond).current_wal[s, g] = q + 1

    def after_roll(self, ops: Any, t: Any, s: int, g: int, q: int) -> None:
        """What else a roll of ``s``'s group ``g`` from sequence ``q`` writes."""

    @step(
        params=("server", "group", "seq"),
        fair=False,
        each=each_wal,
    )
    def archive(self, t: Ctx, s: int, g: int, q: int) -> None:
        """a closed WAL is moved to oldWALs"""
        w = self.slot(s, g, q)
        t.require(
            WalFile(t, w).exists,
            WalFile(t, w).closed,
            WalFile(t, w).place == LIVE_DIR,
            Server(t, s).alive,
        )
        WalFile(t, w).place = ARCHIVED
