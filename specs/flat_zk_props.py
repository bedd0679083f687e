"""The ZooKeeper-era invariants and step property over the flat state: the predicates of
``model/properties.py`` (each quotes its seed sentence there), read off the flat layout of
``specs/flat_zk.py``. The test suite checks on every reachable state of small configurations that
each gives the explicit predicate's verdict; ``encoding_capacity`` is the flat model's own check
that no slot array was too small for a state it reached.

On plain values a property costs what the state holds, not what the layout could hold: a
condition known false while building (``off``) skips its position, loops over a WAL's entries
or a source's queue stop at its length (``below``), and the queues and in-memory queues a
property counts over are listed once per state (``queues``, ``held``). On terms nothing is known
while building, and every position is written out. A recorded run's layout is thousands of
slots, so this is what lets the plain interpreter check these predicates on every replayed
state (``bench/props_plain.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replcheck.model import rules
from replcheck.model.state import DELETED, ENABLED, GLOBAL, REMOVED
from replcheck.model.step import below
from replcheck.model.text import FlatProperty, count, off

if TYPE_CHECKING:
    from .flat_zk_steps import ZkFlat


def zk_properties(z: ZkFlat) -> list[FlatProperty]:
    P, W, S, CH, U = z.P, z.W, z.S, z.CH, z.U

    def entries(ops: Any, get: Any) -> list[tuple[Any, int, int, Any]]:
        """(exists, WAL slot, index, uid) for every entry a WAL holds (on terms, every entry
        position of every WAL slot)."""
        out = []
        for w in W:
            ex = get(("wex", w))
            if off(ex):
                continue
            n = get(("wn", w))
            for j in below(z.E, 0, n):
                out.append((ops.and_(ex, j < n), w, j, get(("wu", w, j))))
        return out

    def no_lost_edit(ops: Any, get: Any) -> Any:
        ok = []
        for here, w, j, uid in entries(ops, get):
            for p in P:
                owed = ops.and_(here, get(("wowed", w, j, p)), get(("peer", p)) != REMOVED)
                if off(owed):
                    continue
                owed = ops.and_(owed, ops.not_(z.applied(ops, get, p + 1, uid)))
                if off(owed):
                    continue
                covered = ops.and_(
                    get(("wplace", w)) != DELETED,
                    ops.or_(
                        *(
                            ops.and_(get(("qin", o, p, ci, w)), get(("qpos", o, p, ci, w)) <= j)
                            for o in S
                            for ci in CH
                        )
                    ),
                )
                ok.append(ops.implies(owed, covered))
        return ops.and_(*ok)

    def held(ops: Any, get: Any, live_only: bool) -> list[tuple[int, Any, Any]]:
        """(peer, condition, WAL slot) for every position of a source's in-memory queue (of a
        live server's sources only, with ``live_only``)."""
        out = []
        for s in S:
            alive = get(("alive", s)) if live_only else True
            if off(alive):
                continue
            for sk in z.sh_keys:
                on = ops.and_(alive, get(("sh", s, *sk)))
                if off(on):
                    continue
                n = get(("shn", s, *sk))
                for j in below(z.LW, 0, n):
                    out.append((sk[0], ops.and_(on, j < n), get(("shw", s, *sk, j))))
        return out

    def queues(ops: Any, get: Any, p: int, live_only: bool = False) -> list[tuple[int, int, Any]]:
        """(owner, chain, condition) for each queue znode of peer ``p`` (of live servers only,
        with ``live_only``)."""
        out = []
        for o in S:
            alive = get(("alive", o)) if live_only else True
            if off(alive):
                continue
            for ci in CH:
                on = ops.and_(alive, get(("qex", o, p, ci)))
                if not off(on):
                    out.append((o, ci, on))
        return out

    def no_wal_deleted_while_queued(ops: Any, get: Any) -> Any:
        ok = []
        memory = None
        for w in W:
            deleted = ops.and_(get(("wex", w)), get(("wplace", w)) == DELETED)
            if off(deleted):
                continue
            if memory is None:
                memory = held(ops, get, False)
                znodes = [(p, q) for p in P for q in queues(ops, get, p)]
            in_queue = ops.or_(
                *(ops.and_(on, get(("qin", o, p, ci, w))) for p, (o, ci, on) in znodes)
            )
            in_memory = ops.or_(*(ops.and_(c, v == w) for _p, c, v in memory))
            ok.append(ops.implies(deleted, ops.not_(ops.or_(in_queue, in_memory))))
        return ops.and_(*ok)

    def single_owner(ops: Any, get: Any) -> Any:
        out = []
        for p in P:
            mine = queues(ops, get, p, live_only=True)
            if len(mine) < 2:
                continue
            for w in W:
                out.append(
                    count(ops, (ops.and_(on, get(("qin", o, p, ci, w))) for o, ci, on in mine)) <= 1
                )
        return ops.and_(*out)

    def single_source(ops: Any, get: Any) -> Any:
        live = held(ops, get, True)
        out = []
        for p in P:
            mine = [(c, v) for q, c, v in live if q == p]
            if len(mine) < 2:
                continue
            for w in W:
                out.append(count(ops, (ops.and_(c, v == w) for c, v in mine)) <= 1)
        return ops.and_(*out)

    def no_edit_at_origin(ops: Any, get: Any) -> Any:
        return ops.and_(
            *(
                ops.not_(get(("app", cl, u)))
                for cl in range(z.cfg.clusters)
                for u in U
                if z.origin[u] == cl
            )
        )

    def logged(ops: Any, get: Any) -> list[tuple[Any, Any, Any]]:
        """(here, uid, kind) for every entry of the WALs and of the relays' logs."""
        out = [(here, uid, get(("wkind", w, j))) for here, w, j, uid in entries(ops, get)]
        for cl in z.relay_clusters:
            n = get(("rlen", cl))
            for i in below(z.L, 0, n):
                out.append((i < n, get(("ru", cl, i)), get(("rkind", cl, i))))
        return out

    def only_global_non_catalog(ops: Any, get: Any) -> Any:
        ok = []
        for here, uid, kind in logged(ops, get):
            scoped = ops.and_(here, kind != GLOBAL)
            if off(scoped):
                continue
            for cl in range(1, z.cfg.clusters):
                ok.append(ops.implies(scoped, ops.not_(z.applied(ops, get, cl, uid))))
        return ops.and_(*ok)

    def twice(ops: Any, all_: list) -> Any:
        """Is the edit at an entry also written at another (a zombie's relayed edit, written
        home twice)? Per entry of ``all_``; only a zombie writes one twice, so all False
        without zombies. On plain values the identities are counted once."""
        if not z.cfg.zombies:
            return [False] * len(all_)
        if all(h is True and isinstance(u, int) for h, _w, _j, u in all_):
            seen: dict[int, int] = {}
            for _h, _w, _j, u in all_:
                seen[u] = seen.get(u, 0) + 1
            return [seen[u] > 1 for _h, _w, _j, u in all_]
        return [
            ops.or_(*(ops.and_(h2, u2 == u) for k2, (h2, _w, _j, u2) in enumerate(all_) if k2 != k))
            for k, (_h, _w, _j, u) in enumerate(all_)
        ]

    def sink_in_order(ops: Any, get: Any) -> Any:
        out = []
        all_ = entries(ops, get)
        by_wal: dict[int, list[tuple[Any, int, Any, Any]]] = {}
        for (here, w, j, uid), two in zip(all_, twice(ops, all_), strict=True):
            by_wal.setdefault(w, []).append((here, j, uid, two))
        for p in P:
            status = get(("peer", p)) != REMOVED
            if off(status):
                continue
            target = p + 1
            for w, held in by_wal.items():
                marks = []
                for here, j, uid, two in held:
                    wanted = ops.and_(
                        here,
                        ops.not_(two),
                        z.replicable(
                            ops,
                            rules.replicable_rule,
                            get(("wkind", w, j)),
                            get(("wids", w, j)),
                            target,
                        ),
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

    def positions_monotone(ops: Any, before: Any, after: Any) -> Any:
        out = []
        for p in P:
            for o, ci, on in queues(ops, before, p):
                kept = ops.and_(on, after(("qex", o, p, ci)))
                if off(kept):
                    continue
                for w in W:
                    both = ops.and_(kept, before(("qin", o, p, ci, w)), after(("qin", o, p, ci, w)))
                    if off(both):
                        continue
                    out.append(
                        ops.implies(
                            both, after(("qpos", o, p, ci, w)) >= before(("qpos", o, p, ci, w))
                        )
                    )
        return ops.and_(*out)

    def encoding_capacity(ops: Any, get: Any) -> Any:
        return ops.not_(get(("overflow",)))

    # --- liveness goals ---------------------------------------------------------------------

    def edits_delivered(ops: Any, get: Any) -> Any:
        owed = [
            ops.and_(
                here,
                get(("wowed", w, j, p)),
                get(("peer", p)) == ENABLED,
                ops.not_(z.applied(ops, get, p + 1, uid)),
            )
            for here, w, j, uid in entries(ops, get)
            for p in P
        ]
        return ops.or_(ops.not_(get(("repl",))), ops.not_(ops.or_(*owed)))

    def dead_queues_claimed(ops: Any, get: Any) -> Any:
        return ops.and_(
            *(
                ops.or_(
                    get(("alive", s)),
                    ops.not_(ops.or_(*(get(("qex", s, p, ci)) for p in P for ci in CH))),
                )
                for s in S
            )
        )

    def removed_peer_queues_deleted(ops: Any, get: Any) -> Any:
        return ops.and_(
            *(
                ops.not_(ops.and_(get(("qex", o, p, ci)), get(("peer", p)) == REMOVED))
                for o in S
                for p in P
                for ci in CH
            )
        )

    goals = {
        f.__name__: f for f in (edits_delivered, dead_queues_claimed, removed_peer_queues_deleted)
    }

    invariants = {
        f.__name__: f
        for f in (
            no_lost_edit,
            no_wal_deleted_while_queued,
            single_owner,
            single_source,
            no_edit_at_origin,
            only_global_non_catalog,
            sink_in_order,
        )
    }
    from replcheck.model.properties import INVARIANTS, STEP_PROPERTIES

    wanted = getattr(z.design, "invariants", INVARIANTS)
    out = [FlatProperty(p.name, "invariant", invariants[p.name]) for p in wanted]
    steps = getattr(z.design, "step_properties", STEP_PROPERTIES)
    out += [
        FlatProperty(p.name, "step", positions_monotone)
        for p in steps
        if p.name == "positions_monotone"
    ]
    out.append(FlatProperty("encoding_capacity", "invariant", encoding_capacity))
    from replcheck.model.properties import LIVENESS

    out += [
        FlatProperty(p.name, "liveness", goals[p.name])
        for p in getattr(z.design, "liveness", LIVENESS)
        if p.name not in z.cfg.skip_liveness
    ]
    return out
