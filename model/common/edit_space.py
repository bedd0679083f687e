"""The edits of both eras' layouts (``model/zk/layout.py``, ``model/table/layout.py``) and how a
sink cluster applies them, in the protocol text's form (``model/engine/step.py``): seed 002's edits
"have not originated from the target slave cluster" nor "already been consumed by" it, so an
edit keeps the ids of the clusters that applied it, and a cluster that replicates onward (a
relay cluster of a master-master or cyclic topology) writes what it applied to its log.

An edit is an index in the layout's ``uids`` (our client puts, one per WAL slot and entry, then
each relay cluster's own edits); its cluster-id list an index in ``ids``; ``ext[i][cl]`` is the
index of list ``i`` with cluster ``cl`` appended (-1: none). Per relay cluster the layout holds
its log, ``relay_length[cl]`` entries of ``relay_edit[cl, n]``, ``relay_kind[cl, n]`` and
``relay_cluster_ids[cl, n]``, and per outbound edge the next entry to send, ``relay_shipped[cl,
j]``; per cluster that applies edits ``sink_applied[cl, u]`` and ``sink_duplicate[cl, u]``. A log
that would need more entries than the layout holds sets ``overflow``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import Edit, Relay, Wal
from replcheck.model.engine.plain_index import Slots
from replcheck.model.engine.step import below
from replcheck.model.engine.text import Tx, case, lookup


class EditSpace:
    """The edits, cluster-id lists and relay logs of a layout under ``cfg``
    (``edit_space``), and ``replicable`` and ``deliver`` over them."""

    cfg: Any
    relay_clusters: list[int]
    home_edges: list[int]
    uids: list[tuple]
    uid_index: dict[tuple, int]
    U: range
    origin: list[int]
    ids: list[tuple[int, ...]]
    ids_index: dict[tuple[int, ...], int]
    ext: list[list[int]]
    L: int
    sink_clusters: list[int]

    def edit_space(self, local: list[tuple]) -> None:
        """Our client puts are ``local`` (uids, in layout order); each relay cluster's own
        edits follow."""
        c = self.cfg
        self.relay_clusters = [cl for cl in range(1, c.clusters) if c.outbound(cl)]
        self.home_edges = [cl for cl, d in c.topology if d == 0]
        self.uids = [
            *local,
            *((cl, n) for cl in self.relay_clusters for n in range(c.foreign_edits)),
        ]
        self.uid_index = {u: i for i, u in enumerate(self.uids)}
        self.U = range(len(self.uids))
        self.origin = [u[0] for u in self.uids]
        self.ids = self._cluster_id_lists()
        self.ids_index = {t: i for i, t in enumerate(self.ids)}
        self.ext = [
            [self.ids_index.get((*t, cl), -1) for cl in range(c.clusters)] for t in self.ids
        ]
        self.L = len(self.uids)
        """Entries a relay's log can hold: each edit is applied once per cluster."""
        self.sink_clusters = list(range(c.clusters))
        """The clusters whose sinks the layout holds (a layout may hold fewer)."""

    def wal_entries(self) -> int:
        """Entries a WAL can hold: client puts plus edits replicated into it (or a recorded
        run's, ``wal_entries``)."""
        c = self.cfg
        return c.wal_entries or c.edits_per_wal + len(self.home_edges) * len(self.uids)

    def _cluster_id_lists(self) -> list[tuple[int, ...]]:
        """Every cluster-id list an edit can carry: its origin, then each cluster that applied
        it (a cluster applies an edit at most once), then 0 when it came home."""
        c = self.cfg
        todo = [(0,)] + [(cl,) for cl in self.relay_clusters]
        seen: set[tuple[int, ...]] = set()
        out = []
        while todo:
            t = todo.pop(0)
            if t in seen:
                continue
            seen.add(t)
            out.append(t)
            nxt = [cl for cl in self.relay_clusters if cl not in t[1:]]
            if self.home_edges and 0 not in t[1:]:
                nxt.append(0)
            todo.extend((*t, cl) for cl in nxt if len(t) <= c.clusters + 1)
        return out

    # --- the text's pieces ------------------------------------------------------------------------

    def replicable(self, ops: Any, rule: Any, kind: Any, ids: Any, target: int) -> Any:
        """A dual-form edit filter on an edit whose cluster-id list is the slot ``ids``."""
        return case(ops, ids, len(self.ids), lambda i: rule(ops, kind, self.ids[i], target))

    def applied(self, ops: Any, get: Any, cl: int, uid: Any) -> Any:
        return case(ops, uid, len(self.uids), lambda u: get(("app", cl, u)))

    def deliver(self, ops: Any, tx: Tx, cl: int, edits: list[tuple[Any, Any, Any, Any]]) -> None:
        """``deliver``: the sink cluster applies a batch in order (a repeat counts as a duplicate);
        a cluster that replicates onward writes what it applied to its log, its id appended."""
        relay = cl in self.relay_clusters
        for cond, uid, kind, ids in edits:
            if cond is False:
                continue
            newly = []
            for u in below(len(self.U), uid, uid + 1):
                hit = (
                    ops.and_(cond, uid == u)
                    if not isinstance(uid, int)
                    else (cond if uid == u else False)
                )
                if hit is False:
                    continue
                was = tx[("app", cl, u)]
                tx.when(ops.and_(hit, was), ("dup", cl, u), True)
                tx.when(hit, ("app", cl, u), True)
                newly.append(ops.and_(hit, ops.not_(was)))
            if not relay:
                continue
            new = ops.or_(*newly)
            n = tx[("rlen", cl)]
            for pos in below(self.L, n, n + 1):
                at = ops.and_(new, n == pos)
                tx.when(at, ("ru", cl, pos), uid)
                tx.when(at, ("rkind", cl, pos), kind)
                tx.when(at, ("rids", cl, pos), lookup(ops, ids, [e[cl] for e in self.ext]))
            tx.when(ops.and_(new, n >= self.L), ("overflow",), True)
            tx.when(new, ("rlen", cl), n + 1)

    def sink_edits(self, v: Any, cl: int) -> tuple[tuple, tuple]:
        """The edits cluster ``cl`` applied and those it applied twice, each sorted. Where
        ``v`` holds only the slots written (``Slots``: a slot not written is False), only those
        are looked at."""
        uids = self.uids
        if isinstance(v, Slots):
            app, dup = [], []
            for k, x in v.items():
                if x and k[0] in ("app", "dup") and k[1] == cl:
                    (app if k[0] == "app" else dup).append(uids[k[2]])
        else:
            app = [uids[u] for u in self.U if v[("app", cl, u)]]
            dup = [uids[u] for u in self.U if v[("dup", cl, u)]]
        return tuple(sorted(app)), tuple(sorted(dup))

    # --- the relay logs' slots --------------------------------------------------------------------

    def wal_sorts(self, out: dict[tuple, Any], w: int) -> None:
        """WAL slot ``w``'s own slots, both eras': whether it exists, its length, closed, and
        where it lies (``Wal.place``); each era adds its entries' slots after them."""
        out[("wex", w)] = "b"
        out[("wn", w)] = ("i", 0, self.E)  # type: ignore[attr-defined]
        out[("wclosed", w)] = "b"
        out[("wplace", w)] = ("i", 0, 2)

    def encode_wal(self, v: dict[tuple, Any], w: int, wal: Any) -> None:
        """``wal_sorts``' slots of readable WAL ``wal`` in slot ``w``."""
        v[("wex", w)] = True
        v[("wn", w)] = len(wal.entries)
        v[("wclosed", w)] = wal.closed
        v[("wplace", w)] = wal.place

    def decode_wal(self, v: Any, w: int, entries: tuple) -> Wal:
        """The readable WAL in slot ``w`` (which exists), with ``entries``."""
        return Wal(self.key[w], entries, v[("wclosed", w)], v[("wplace", w)])  # type: ignore[attr-defined]

    def relay_sorts(self, out: dict[tuple, Any]) -> None:
        c, L = self.cfg, self.L
        for cl in self.relay_clusters:
            out[("rlen", cl)] = ("i", 0, L)
            for j in range(len(c.outbound(cl))):
                out[("rship", cl, j)] = ("i", 0, L)
            for n in range(L):
                out[("ru", cl, n)] = ("i", -1, len(self.uids) - 1)
                out[("rkind", cl, n)] = ("i", -1, 2)
                out[("rids", cl, n)] = ("i", -1, len(self.ids) - 1)

    def encode_relays(self, v: dict[tuple, Any], relays: tuple[Any, ...]) -> None:
        for cl in self.relay_clusters:
            relay = relays[cl]
            v[("rlen", cl)] = len(relay.log)
            for j, n in enumerate(relay.shipped):
                v[("rship", cl, j)] = n
            for n, e in enumerate(relay.log):
                v[("ru", cl, n)] = self.uid_index[e.uid]
                v[("rkind", cl, n)] = e.kind
                v[("rids", cl, n)] = self.ids_index[e.cluster_ids]

    def _relays(self, v: Any) -> tuple[Any, ...]:
        c = self.cfg
        relays: list[Any] = [()] * c.clusters
        for cl in self.relay_clusters:
            log = tuple(
                Edit(
                    self.uids[v[("ru", cl, n)]],
                    v[("rkind", cl, n)],
                    self.ids[v[("rids", cl, n)]],
                    0,
                )
                for n in range(v[("rlen", cl)])
            )
            shipped = tuple(v[("rship", cl, j)] for j in range(len(c.outbound(cl))))
            relays[cl] = Relay(log, shipped)
        return tuple(relays)
