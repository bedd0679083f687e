"""The other clusters of a master-master or cyclic topology, in the protocol text's form
(``model/engine/step.py``): seed 002's edits "have not originated from the target slave cluster" nor
"already been consumed by" it, so an edit keeps the ids of the clusters that applied it.

* ``foreign_put``: a client edit written at another cluster, to the end of its log;
* ``relay_ship``: another cluster replicates its next logged edit onward to a cluster other than
  ours (one the filter refuses is passed over);
* ``relay_home``: another cluster replicates its next edit into ours: a live region server of
  ours applies it and writes it to its current WAL, cluster ids kept (or, filtered out, it is
  passed over);
* ``relay_apply``: only with the configuration's ``zombies``, the same, but the server dies
  before answering: the edit stays the next to send;
* ``zombie_relay_apply``: only with the configuration's ``zombies``, an edit another cluster sent
  us (in its log, sent or next to send) that a dead server's sink handler had received: it
  applies it and writes it to its current WAL while the split has not taken it, and answers no
  one.

The same steps in both eras. The relay logs and the edits are ``model/common/edit_space.py``'s
(which supplies ``deliver`` and ``replicable``); the era's layout supplies ``append`` (an edit
written to a WAL, owed to the peers its server replicates to), ``append_as_stored`` (the same, owed
as if the server knew every peer in storage: a zombie's) and ``unsplit``
(``model/common/zombie_wals.py``). A log or a WAL that would need more entries than the layout holds
sets ``overflow``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import GLOBAL
from replcheck.model.common.zombie_wals import zombies_only
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import case, count, lookup
from replcheck.model.table.views import Budget, Server


def _foreign_puts(text: Any) -> list[tuple[int, int]]:
    return [(cl, n) for cl in text.relay_clusters for n in range(text.cfg.foreign_edits)]


def _onward(text: Any) -> list[tuple[int, int, int]]:
    return [
        (cl, d, i)
        for cl in text.relay_clusters
        for d in text.cfg.outbound(cl)
        if d != 0
        for i in range(text.L)
    ]


def _home(text: Any) -> list[tuple[int, int]]:
    return [(cl, s) for cl in text.relay_clusters if 0 in text.cfg.outbound(cl) for s in text.S]


@zombies_only
def _received(text: Any) -> list[tuple[int, int, int]]:
    return [
        (cl, s, i)
        for cl in text.relay_clusters
        if 0 in text.cfg.outbound(cl)
        for s in text.S
        for i in range(text.L)
    ]


class RelaySteps:
    """The relay clusters' steps (the layout provides ``relay_clusters``, ``L``, ``U``,
    ``origin``, ``uid_index``, ``ids_index``, ``ext``, ``deliver``, ``append`` and
    ``replicable``)."""

    cfg: Any
    S: range
    Q: range
    E: int
    L: int
    U: range
    origin: list[int]
    uid_index: dict[tuple, int]
    ids_index: dict[tuple, int]
    ext: list[list[int]]
    relay_clusters: list[int]
    deliver: Any
    append: Any
    append_as_stored: Any
    unsplit: Any
    replicable: Any

    def relay_next(self, ops: Any, get: Any, cl: int, j: int, i: int) -> Any:
        """Entry ``i`` of cluster ``cl``'s log is the next to send on its outbound edge ``j``."""
        now = named(get)
        return ops.and_(now.relay_shipped[cl, j] == i, i < now.relay_length[cl])

    @step(params=("cluster",), fair=False, each=_foreign_puts, label=lambda text, st, get, a: a[:1])
    def foreign_put(self, t: Ctx, cl: int, n: int) -> None:
        """a client edit written at another cluster"""
        ops = t.ops
        mine = [u for u in self.U if self.origin[u] == cl]
        rlen = t.relay_length[cl]
        own = count(
            ops,
            (
                ops.and_(i < rlen, ops.or_(*(t.relay_edit[cl, i] == u for u in mine)))
                for i in t.below(self.L, 0, rlen)
            ),
        )
        t.require(Budget(t, "foreign").left > 0, own == n)
        Budget(t, "foreign").left = Budget(t, "foreign").left - 1
        for i in t.below(self.L, rlen, rlen + 1):
            at = rlen == i
            t.when(at).relay_edit[cl, i] = self.uid_index[(cl, n)]
            t.when(at).relay_kind[cl, i] = GLOBAL
            t.when(at).relay_cluster_ids[cl, i] = self.ids_index[(cl,)]
        t.when(rlen >= self.L).overflow = True
        t.relay_length[cl] = rlen + 1

    @step(
        params=("cluster", "target"), fair=True, each=_onward, label=lambda text, st, get, a: a[:2]
    )
    def relay_ship(self, t: Ctx, cl: int, d: int, i: int) -> None:
        """another cluster replicates its next edit onward"""
        ops = t.ops
        j = self.cfg.outbound(cl).index(d)
        down = ops.or_(*(t.sink_down[d, k] for k in range(self.cfg.sink_servers)))
        t.require(self.relay_next(ops, t.get, cl, j, i), ops.not_(down))
        kind, ids, uid = t.relay_kind[cl, i], t.relay_cluster_ids[cl, i], t.relay_edit[cl, i]
        ok = self.replicable(ops, rules.replicable_rule, kind, ids, d)
        self.deliver(ops, t, d, [(ok, uid, kind, ids)])
        t.relay_shipped[cl, j] = i + 1

    @step(params=("cluster", "server"), fair=True, each=_home, label=lambda text, st, get, a: a[:2])
    def relay_home(self, t: Ctx, cl: int, s: int) -> None:
        """another cluster replicates an edit into ours"""
        self.relay_in(t, cl, s, answered=True)

    @step(
        params=("cluster", "server"),
        fair=False,
        each=lambda text: _home(text) if text.cfg.zombies else [],
        label=lambda text, st, get, a: a[:2],
    )
    def relay_apply(self, t: Ctx, cl: int, s: int) -> None:
        """a server of ours applies a relayed edit and dies before answering: it is sent again"""
        self.relay_in(t, cl, s, answered=False)

    def relay_in(self, t: Ctx, cl: int, s: int, answered: bool) -> None:
        """The next entry of cluster ``cl``'s log to send us, applied by live server ``s`` and
        written to its current WAL (or, filtered out, passed over); only an ``answered`` one is
        the other cluster's to move past (only with the configuration's ``zombies`` is one not:
        work in flight when a server dies). Which entry, WAL and place in it are the state's:
        one instance per cluster and server."""
        ops = t.ops
        j = self.cfg.outbound(cl).index(0)
        i = t.relay_shipped[cl, j]
        t.require(i < t.relay_length[cl], Server(t, s).alive)
        kind = t.at(i, self.L, lambda n: var.relay_kind(cl, n))
        ids = t.at(i, self.L, lambda n: var.relay_cluster_ids(cl, n))
        uid = t.at(i, self.L, lambda n: var.relay_edit(cl, n))
        ok = self.replicable(ops, rules.replicable_rule, kind, ids, 0)
        self.deliver(ops, t, 0, [(ok, uid, kind, ids)])
        home = lookup(ops, ids, [row[0] for row in self.ext])
        self.append_current(t, s, ok, uid, kind, home, self.append)
        if answered:
            t.relay_shipped[cl, j] = i + 1

    def append_current(
        self, t: Ctx, s: int, cond: Any, uid: Any, kind: Any, ids: Any, append: Any
    ) -> None:
        """Where ``cond`` holds, ``append`` the edit to server ``s``'s current WAL (of group 0),
        after what it holds: both read from the state (on plain values only the WAL and entry it
        names are visited)."""
        ops = t.ops
        cur = Server(t, s).current[0]
        for q in t.below(len(self.Q), cur, cur + 1):
            w = self.cfg.slot((s, 0, q))
            n = t.wal_length[w]
            for e in t.below(self.E + 1, n, n + 1):
                append(ops, t, s, w, e, uid, kind, ids, ops.and_(cond, cur == q, n == e))

    @step(
        params=("cluster", "server", "entry"),
        fair=False,
        each=_received,
        label=lambda text, st, get, a: a[:3],
    )
    def zombie_relay_apply(self, t: Ctx, cl: int, s: int, i: int) -> None:
        """a dead server's sink handler writes an edit the other cluster had sent it"""
        ops = t.ops
        j = self.cfg.outbound(cl).index(0)
        t.require(ops.not_(Server(t, s).alive))
        cur = Server(t, s).current[0]
        kind, ids, uid = t.relay_kind[cl, i], t.relay_cluster_ids[cl, i], t.relay_edit[cl, i]
        t.require(
            case(ops, cur, len(self.Q), lambda q: self.unsplit(ops, t, self.cfg.slot((s, 0, q)))),
            i < t.relay_length[cl],
            i <= t.relay_shipped[cl, j],
            self.replicable(ops, rules.replicable_rule, kind, ids, 0),
        )
        self.deliver(ops, t, 0, [(True, uid, kind, ids)])
        home = lookup(ops, ids, [row[0] for row in self.ext])
        self.append_current(t, s, True, uid, kind, home, self.append_as_stored)
