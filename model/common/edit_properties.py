"""The properties of the edits themselves, one definition for both eras' layouts (each an
``EditSpace``, ``model/common/edit_space.py``): where an edit may be applied, which edits may be
shipped at all, and the order a sink applies a WAL's edits in.

A layout provides its WAL slots ``W`` with ``wal_exists[w]``, ``wal_length[w]`` and ``entry(get, w,
j)`` (an entry's edit, kind and cluster-id list, as indexes of the edit space), its peers ``P``
with ``peer_state[p]`` (peer ``p`` replicates to cluster ``p + 1``) and ``E`` entries per WAL.

On plain values a property costs what the state holds: loops stop at a WAL's length
(``below``) and conditions known false while building skip their positions (``off``); on terms
every position is written out.

``duplicates_only_explained`` is a step property both eras' lists hold (each saying from its own
layout whether a peer was removed); it also reads ``server_alive[s]`` and ``sink_duplicate[cl,
u]``, and takes the server that wrote our client's edit from its identity in ``uids``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import ARCHIVED, ENABLED, GLOBAL, REMOVED
from replcheck.model.engine.names import named
from replcheck.model.engine.step import below
from replcheck.model.engine.text import FlatProperty, listing, off


def entries(z: Any, ops: Any, get: Any) -> list[tuple[Any, int, int, Any, Any, Any]]:
    """(held, WAL slot, index, edit, kind, cluster ids) for every entry a WAL holds (on terms,
    every entry position of every WAL slot); listed once per state on plain values
    (``listing``)."""
    return listing(get, ("entries", id(z)), lambda g: _entries(z, ops, g))


def _entries(z: Any, ops: Any, get: Any) -> list[tuple[Any, int, int, Any, Any, Any]]:
    now = named(get)
    out = []
    for w in z.W:
        ex = now.wal_exists[w]
        if off(ex):
            continue
        n = now.wal_length[w]
        known = isinstance(n, int)  # then only the entries below it are visited
        for j in below(z.E, 0, n):
            out.append((ex if known else ops.and_(ex, j < n), w, j, *z.entry(get, w, j)))
    return out


def unapplied(z: Any, ops: Any, get: Any) -> list[tuple[Any, int, int, int]]:
    """(condition, WAL slot, index, peer) for every entry owed to a peer that still exists and
    not yet applied at its cluster (what ``no_lost_edit`` needs kept)."""
    now = named(get)
    out = []
    for here, w, j, uid, _kind, _ids in entries(z, ops, get):
        for p in z.P:
            owed = ops.and_(here, now.entry_owed[w, j, p], now.peer_state[p] != REMOVED)
            if off(owed):
                continue
            owed = ops.and_(owed, ops.not_(z.applied(ops, get, p + 1, uid)))
            if not off(owed):
                out.append((owed, w, j, p))
    return out


def undelivered(z: Any, ops: Any, get: Any) -> list[Any]:
    """For every entry and peer: the entry is owed to the peer, the peer is enabled, and the
    edit is not applied at its cluster (what ``edits_delivered`` waits to see none of)."""
    now = named(get)
    return [
        ops.and_(
            here,
            now.entry_owed[w, j, p],
            now.peer_state[p] == ENABLED,
            ops.not_(z.applied(ops, get, p + 1, uid)),
        )
        for here, w, j, uid, _kind, _ids in entries(z, ops, get)
        for p in z.P
    ]


def logged(z: Any, ops: Any, get: Any, listed: list) -> list[tuple[Any, Any, Any]]:
    """(held, edit, kind) for every entry of the WALs (``listed``, ``entries``) and of the
    relay clusters' logs."""
    now = named(get)
    out = [(here, uid, kind) for here, _w, _j, uid, kind, _ids in listed]
    for cl in z.relay_clusters:
        n = now.relay_length[cl]
        for i in below(z.L, 0, n):
            out.append((i < n, now.relay_edit[cl, i], now.relay_kind[cl, i]))
    return out


def twice(z: Any, ops: Any, listed: list) -> list[Any]:
    """Is the edit at an entry also written at another (a zombie's relayed edit, written home
    twice)? Per entry of ``listed``; only a zombie writes one twice, so all False without
    zombies. On plain values the edits are counted once."""
    if not z.cfg.zombies:
        return [False] * len(listed)
    if all(e[0] is True and isinstance(e[3], int) for e in listed):
        seen: dict[int, int] = {}
        for e in listed:
            seen[e[3]] = seen.get(e[3], 0) + 1
        return [seen[e[3]] > 1 for e in listed]
    return [
        ops.or_(*(ops.and_(o[0], o[3] == e[3]) for k2, o in enumerate(listed) if k2 != k))
        for k, e in enumerate(listed)
    ]


def replicable(z: Any, ops: Any, kind: Any, ids: Any, target: int) -> Any:
    """Seed 002's filter (``rules.replicable_rule``, not a design's) on an entry's kind and
    cluster-id list; on plain values worked out once per layout for each kind, list and target
    (a property is not a step: nothing here is counted as a step's branch)."""
    if type(kind) is not int or type(ids) is not int:
        return z.replicable(ops, rules.replicable_rule, kind, ids, target)
    memo = z.__dict__.setdefault("_replicable", {})
    got = memo.get((kind, ids, target))
    if got is None:
        got = memo[kind, ids, target] = z.replicable(ops, rules.replicable_rule, kind, ids, target)
    return got


def no_edit_at_origin(z: Any, ops: Any, get: Any) -> Any:
    """Seed 002: "The UUID of the master RegionServer and the UUIDs of the slaves, which have
    already consumed the data, are preserved in the edits when they are applied. This prevents
    replication loops." No cluster applies an edit it originated."""
    at = z.__dict__.get("_at_origin")
    if at is None:  # (cluster, edit) for each edit and the cluster it originated at
        at = z.__dict__["_at_origin"] = [
            (cl, u) for cl in z.sink_clusters for u in z.U if z.origin[u] == cl
        ]
    return ops.and_(*(ops.not_(named(get).sink_applied[cl, u]) for cl, u in at))


def only_global_non_catalog(z: Any, ops: Any, get: Any) -> Any:
    """Seed 002: edits "eligible for replication are those KeyValues that are: Part of a column
    family whose schema is scoped GLOBAL; Not part of a catalog such as hbase:meta". No peer has
    applied a LOCAL or catalog edit."""
    ok = []
    for here, uid, kind in logged(z, ops, get, entries(z, ops, get)):
        scoped = ops.and_(here, kind != GLOBAL)
        if off(scoped):
            continue
        for cl in range(1, z.cfg.clusters):
            ok.append(ops.implies(scoped, ops.not_(z.applied(ops, get, cl, uid))))
    return ops.and_(*ok)


def sink_in_order(z: Any, ops: Any, get: Any) -> Any:
    """Seed 002: "The RegionServer reads the edits sequentially" and the source reads each WAL
    from its position on: per WAL, what a peer has applied of the edits meant for it is a prefix
    (it never sees a later edit of a WAL before an earlier one). An edit written to two WALs (one
    coming home that a server applied and died before answering, so that the other cluster sent
    it again) may reach the peer from either: it says nothing of either WAL's order."""
    out = []
    listed = entries(z, ops, get)
    by_wal: dict[int, list[tuple[Any, Any, Any, Any, Any]]] = {}
    for (here, w, _j, uid, kind, ids), two in zip(listed, twice(z, ops, listed), strict=True):
        by_wal.setdefault(w, []).append((here, uid, kind, ids, two))
    for p in z.P:
        status = named(get).peer_state[p] != REMOVED
        if off(status):
            continue
        target = p + 1
        for held in by_wal.values():
            marks = []
            for here, uid, kind, ids, two in held:
                wanted = ops.and_(
                    here,
                    ops.not_(two),
                    replicable(z, ops, kind, ids, target),
                )
                if off(wanted):
                    continue
                marks.append((wanted, z.applied(ops, get, target, uid)))
            gap: Any = False
            for wanted, applied in marks:
                # an applied edit after one wanted and not applied breaks the order
                out.append(ops.not_(ops.and_(status, gap, wanted, applied)))
                gap = ops.or_(gap, ops.and_(wanted, ops.not_(applied)))
    return ops.and_(*out)


def duplicates_only_explained(
    z: Any, ops: Any, before: Any, after: Any, kept: Callable[[int], Any]
) -> Any:
    """Seed 003: "If the RPC threw an exception, the source will retry 10 times until trying
    to find a different sink", and seed 000's survivor replicates a dead server's queue again
    from the position it found (reference section 10: "replication is therefore
    at-least-once"). Duplicates happen only where a failover or a retry explains them: an edit
    of a WAL of a live server that never restarted (only its own normal sources read it) is
    never applied twice at a peer, unless the peer was removed (and added again) or the
    server's sources of the peer were created again (``refreshSources``, on a disable or a new
    key configuration: the new source ships again what the old one had not persisted). (Asked of a
    peer cluster that only sinks: one that replicates onward, or that another cluster
    replicates to, may apply a batch and die before it answers, and the batch is sent again.)"""
    # kept(p): peer p was never removed (each era says it from its own layout). Our client's
    # edit u is (0, server, group, seq, index): the WAL its server wrote it to.
    was = named(before)
    now = named(after)
    if z.cfg.restarts:
        return True
    relayed = {d for _c, d in z.cfg.topology} | set(z.relay_clusters)
    out = []
    for u in z.U:
        origin, *where = z.uids[u]
        if origin != 0:
            continue
        s = where[0]
        live = ops.and_(was.server_alive[s], now.server_alive[s])
        if off(live):
            continue
        for p in z.P:
            cl = p + 1
            if cl in relayed:
                continue
            newly = ops.and_(ops.not_(was.sink_duplicate[cl, u]), now.sink_duplicate[cl, u])
            if not off(newly):
                out.append(ops.not_(ops.and_(live, kept(p), newly)))
    return ops.and_(*out)


def unneeded_files_deleted(z: Any, ops: Any, get: Any, others: list[Any]) -> Any:
    """Seed 003: the WALs "must be kept in HDFS as long as they are needed to replicate data to
    any slave cluster", and the log cleaner is what deletes them once they are not. Goal (the
    cleaner running as a chore for ever): every archived WAL left holds, or comes after in its
    WAL group, an edit owed to a peer that still exists and not yet applied there; and no other
    file of oldWALs is left (a meta WAL, a file whose name is not a WAL's)."""
    # others: a condition per other file of oldWALs, true while it is there
    now = named(get)
    owed: dict[tuple[int, int], list[tuple[int, Any]]] = {}  # (server, group) -> (seq, owed)
    for c, v, _j, _p in unapplied(z, ops, get):
        x, g, q = z.key[v]
        owed.setdefault((x, g), []).append((q, c))
    out = [ops.not_(o) for o in others]
    for w in z.W:
        x, g, q = z.key[w]
        kept = ops.and_(now.wal_exists[w], now.wal_place[w] == ARCHIVED)
        if off(kept):
            continue
        needed = ops.or_(*(c for r, c in owed.get((x, g), ()) if r <= q))
        out.append(ops.implies(kept, needed))
    return ops.and_(*out)


def edit_properties(z: Any) -> dict[str, FlatProperty]:
    """The edits' invariants over layout ``z``, by name."""
    out = {}
    for f in (no_edit_at_origin, only_global_non_catalog, sink_in_order):

        def check(ops: Any, get: Any, f: Any = f) -> Any:
            return f(z, ops, get)

        out[f.__name__] = FlatProperty(f.__name__, "invariant", check, " ".join(f.__doc__.split()))
    return out
