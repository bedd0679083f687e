"""The ZooKeeper-era invariants and step property over the flat state: the predicates of
``model/properties.py`` (each quotes its seed sentence there), read off the flat layout of
``specs/flat_zk.py``. The test suite checks on every reachable state of small configurations that
each gives the explicit predicate's verdict; ``encoding_capacity`` is the flat model's own check
that no slot array was too small for a state it reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replcheck.model import rules
from replcheck.model.state import DELETED, ENABLED, GLOBAL, REMOVED
from replcheck.model.text import FlatProperty, count

if TYPE_CHECKING:
    from .flat_zk_steps import ZkFlat


def zk_properties(z: ZkFlat) -> list[FlatProperty]:
    P, W, S, CH, U = z.P, z.W, z.S, z.CH, z.U

    def entries(ops: Any, get: Any) -> list[tuple[Any, int, int, Any]]:
        """(exists, WAL slot, index, uid) for every entry position of every WAL."""
        return [
            (ops.and_(get(("wex", w)), j < get(("wn", w))), w, j, get(("wu", w, j)))
            for w in W
            for j in range(z.E)
        ]

    def no_lost_edit(ops: Any, get: Any) -> Any:
        ok = []
        for w in W:
            for j in range(z.E):
                here = ops.and_(get(("wex", w)), j < get(("wn", w)))
                uid = get(("wu", w, j))
                for p in P:
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
                    ok.append(
                        ops.implies(
                            ops.and_(
                                here,
                                get(("wowed", w, j, p)),
                                get(("peer", p)) != REMOVED,
                                ops.not_(z.applied(ops, get, p + 1, uid)),
                            ),
                            covered,
                        )
                    )
        return ops.and_(*ok)

    def no_wal_deleted_while_queued(ops: Any, get: Any) -> Any:
        ok = []
        for w in W:
            deleted = ops.and_(get(("wex", w)), get(("wplace", w)) == DELETED)
            in_queue = z.queued_anywhere(ops, get, w)
            in_memory = ops.or_(
                *(
                    ops.and_(
                        get(("sh", s, *sk)), j < get(("shn", s, *sk)), get(("shw", s, *sk, j)) == w
                    )
                    for s in S
                    for sk in z.sh_keys
                    for j in range(z.LW)
                )
            )
            ok.append(ops.implies(deleted, ops.not_(ops.or_(in_queue, in_memory))))
        return ops.and_(*ok)

    def single_owner(ops: Any, get: Any) -> Any:
        return ops.and_(
            *(
                count(
                    ops,
                    (
                        ops.and_(get(("alive", o)), get(("qin", o, p, ci, w)))
                        for o in S
                        for ci in CH
                    ),
                )
                <= 1
                for p in P
                for w in W
            )
        )

    def single_source(ops: Any, get: Any) -> Any:
        out = []
        for p in P:
            for w in W:
                n = count(
                    ops,
                    (
                        ops.and_(
                            get(("alive", s)),
                            get(("sh", s, *sk)),
                            j < get(("shn", s, *sk)),
                            get(("shw", s, *sk, j)) == w,
                        )
                        for s in S
                        for sk in z.sh_keys
                        if sk[0] == p
                        for j in range(z.LW)
                    ),
                )
                out.append(n <= 1)
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

    def kind_of(ops: Any, get: Any, u: int) -> Any:
        """The kind of the first entry with identity ``u`` (WALs in slot order, then the relays'
        logs), GLOBAL if there is none: an edit's identity names one kind."""
        found: list[tuple[Any, Any]] = [
            (ops.and_(here, uid == u), get(("wkind", w, j)))
            for here, w, j, uid in entries(ops, get)
        ]
        for cl in z.relay_clusters:
            for i in range(z.L):
                found.append(
                    (
                        ops.and_(i < get(("rlen", cl)), get(("ru", cl, i)) == u),
                        get(("rkind", cl, i)),
                    )
                )
        kind: Any = GLOBAL
        for hit, k in reversed(found):
            kind = ops.ite(hit, k, kind)
        return kind

    def only_global_non_catalog(ops: Any, get: Any) -> Any:
        return ops.and_(
            *(
                ops.implies(get(("app", cl, u)), kind_of(ops, get, u) == GLOBAL)
                for cl in range(1, z.cfg.clusters)
                for u in U
            )
        )

    def sink_in_order(ops: Any, get: Any) -> Any:
        # (the model's clause for an edit written to two WALs is void here: only a zombie's
        # relay_apply writes one twice, and the flat form refuses the zombies configuration)
        out = []
        for p in P:
            target = p + 1
            for w in W:
                n = get(("wn", w))
                marks = []
                for j in range(z.E):
                    wanted = ops.and_(
                        j < n,
                        z.replicable(
                            ops,
                            rules.replicable_rule,
                            get(("wkind", w, j)),
                            get(("wids", w, j)),
                            target,
                        ),
                    )
                    marks.append((wanted, z.applied(ops, get, target, get(("wu", w, j)))))
                for a in range(z.E):
                    for b in range(a + 1, z.E):
                        gap = ops.and_(marks[a][0], ops.not_(marks[a][1]))
                        later = ops.and_(marks[b][0], marks[b][1])
                        out.append(
                            ops.not_(
                                ops.and_(get(("peer", p)) != REMOVED, get(("wex", w)), gap, later)
                            )
                        )
        return ops.and_(*out)

    def positions_monotone(ops: Any, before: Any, after: Any) -> Any:
        return ops.and_(
            *(
                ops.implies(
                    ops.and_(before(("qin", o, p, ci, w)), after(("qin", o, p, ci, w))),
                    after(("qpos", o, p, ci, w)) >= before(("qpos", o, p, ci, w)),
                )
                for o in S
                for p in P
                for ci in CH
                for w in W
            )
        )

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
