"""The table-era invariants and step property over the flat state: the predicates of
``model/table_properties.py`` (and the era-independent ones of ``model/properties.py`` it reuses;
each quotes its seed sentence there), read off the layout of ``specs/flat_table.py``. The test
suite checks on every state of a breadth-first prefix of each supported configuration that each
gives the explicit predicate's verdict; ``encoding_capacity`` is the flat model's own check that no
slot array was too small for a state it reached.

``no_stale_edit_replicated`` and ``no_claim_mid_migration`` hold trivially here: the history of
STANDBY-era edits and the migration are constant (empty) in every configuration the flat table
model supports, so each is the constant ``True``, as the explicit predicate is on such states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replcheck.model import rules, table_rules
from replcheck.model.state import DELETED, ENABLED, GLOBAL, REMOVED
from replcheck.model.table_rules import NO_TIMESTAMP
from replcheck.model.table_state import (
    ARQP_ADD_MISSING,
    ARQP_PUT_MISSING,
    BEGIN_SEQ,
    REMOVE,
    SCP_CLAIM_STAGE,
    SCP_SPLIT,
)
from replcheck.model.text import FlatProperty, count

if TYPE_CHECKING:
    from .flat_table import TableFlat


def table_properties(z: TableFlat) -> list[FlatProperty]:
    P, S, G, Q, W, E = z.P, z.S, z.G, z.Q, z.W, z.E

    def here(ops: Any, get: Any, w: int, j: int) -> Any:
        return ops.and_(get(("wex", w)), j < get(("wn", w)))

    def offset_covers(ops: Any, get: Any, rk: tuple, g: int, q: int, j: int) -> Any:
        """``should_replicate(offset, key) and start_position(offset, key) <= index`` for the
        row's column of group ``g`` (None when absent)."""
        has = get(("rhas", *rk, g))
        ts = ops.ite(has, get(("rseq", *rk, g)), NO_TIMESTAMP)
        pos = ops.ite(has, get(("rpos", *rk, g)), 0)
        return ops.and_(
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
            table_rules.start_position_rule(ops, has, ts, pos, q) <= j,
        )

    def covered(ops: Any, get: Any, p: int, w: int, j: int) -> Any:
        """``_covered``: a live source has the entry queued; a dead owner's row still needs it;
        ADD_MISSING_QUEUES will add a queue for the crashed server."""
        x, g, q = z.key[w]
        out = []
        for sk in z.sh_keys:
            o, sp, src, sg, _m = sk
            if sp != p or sg != g or z.wal_owner(o, src) != x:
                continue
            head = ops.and_(*(ops.not_(get(("shw", *sk, r))) for r in range(q)))
            out.append(
                ops.and_(
                    get(("alive", o)),
                    get(("sh", *sk)),
                    get(("shw", *sk, q)),
                    ops.or_(ops.not_(head), get(("shpos", *sk)) <= j),
                )
            )
        for rk in z.rkeys:
            rp, o, src = rk
            if rp != p or z.wal_owner(o, src) != x:
                continue
            out.append(
                ops.and_(
                    get(("rex", *rk)),
                    ops.not_(get(("alive", o))),
                    offset_covers(ops, get, rk, g, q, j),
                )
            )
        stage = get(("stage", x))
        dead = ops.not_(get(("alive", x)))
        out.append(
            ops.and_(
                dead,
                stage >= SCP_SPLIT,
                stage <= ARQP_ADD_MISSING,
                get(("peer", p)) != REMOVED,
            )
        )
        out.append(ops.and_(dead, stage == ARQP_PUT_MISSING, get(("scpp", x, p))))
        return ops.or_(*out)

    def no_lost_edit(ops: Any, get: Any) -> Any:
        ok = []
        for w in W:
            for j in range(E):
                u = z.uid(w, j)
                for p in P:
                    owed = ops.and_(
                        here(ops, get, w, j),
                        get(("wowed", w, j, p)),
                        get(("peer", p)) != REMOVED,
                        ops.not_(get(("app", p + 1, u))),
                    )
                    safe = ops.and_(get(("wplace", w)) != DELETED, covered(ops, get, p, w, j))
                    ok.append(ops.implies(owed, safe))
        return ops.and_(*ok)

    def deleted(ops: Any, get: Any, w: int) -> Any:
        return ops.and_(get(("wex", w)), get(("wplace", w)) == DELETED)

    def no_wal_deleted_while_needed(ops: Any, get: Any) -> Any:
        ok = []
        for sk in z.sh_keys:
            o, p, src, g, _m = sk
            for q in Q:
                w = z.slot(z.wal_owner(o, src), g, q)
                ok.append(
                    ops.not_(
                        ops.and_(
                            get(("alive", o)),
                            get(("peer", p)) != REMOVED,
                            get(("sh", *sk)),
                            get(("shw", *sk, q)),
                            deleted(ops, get, w),
                        )
                    )
                )
        for rk in z.rkeys:
            p, o, src = rk
            x = z.wal_owner(o, src)
            for g in G:
                seq, pos = get(("rseq", *rk, g)), get(("rpos", *rk, g))
                for q in Q:
                    needs = table_rules.should_replicate_rule(ops, True, seq, pos, q)
                    ok.append(
                        ops.not_(
                            ops.and_(
                                get(("rex", *rk)),
                                get(("peer", p)) != REMOVED,
                                get(("rhas", *rk, g)),
                                seq != BEGIN_SEQ,
                                deleted(ops, get, z.slot(x, g, q)),
                                needs,
                            )
                        )
                    )
        return ops.and_(*ok)

    def one_queue_per_source(ops: Any, get: Any) -> Any:
        out = []
        for p in P:
            for x in S:
                rows = [rk for rk in z.rkeys if rk[0] == p and z.wal_owner(rk[1], rk[2]) == x]
                out.append(count(ops, (get(("rex", *rk)) for rk in rows)) <= 1)
        return ops.and_(*out)

    def single_source(ops: Any, get: Any) -> Any:
        out = []
        for p in P:
            for w in W:
                x, g, q = z.key[w]
                n = count(
                    ops,
                    (
                        ops.and_(get(("alive", sk[0])), get(("sh", *sk)), get(("shw", *sk, q)))
                        for sk in z.sh_keys
                        if sk[1] == p and sk[3] == g and z.wal_owner(sk[0], sk[2]) == x
                    ),
                )
                out.append(n <= 1)
        return ops.and_(*out)

    def no_edit_at_origin(ops: Any, get: Any) -> Any:
        """Every edit originates at cluster 0, whose sink never applies anything here."""
        return True

    def only_global_non_catalog(ops: Any, get: Any) -> Any:
        return ops.and_(
            *(
                ops.implies(
                    ops.and_(get(("app", cl, z.uid(w, j))), here(ops, get, w, j)),
                    get(("wkind", w, j)) == GLOBAL,
                )
                for cl in z.CL
                for w in W
                for j in range(E)
            )
        )

    def sink_in_order(ops: Any, get: Any) -> Any:
        # (the model's clause for an edit written to two WALs is void here: only relay_apply
        # writes one twice, and the flat form refuses the relay clusters)
        out = []
        for p in P:
            target = p + 1
            for w in W:
                marks = []
                for j in range(E):
                    wanted = ops.and_(
                        here(ops, get, w, j),
                        rules.replicable_rule(ops, get(("wkind", w, j)), (0,), target),
                    )
                    marks.append((wanted, get(("app", target, z.uid(w, j)))))
                for a in range(E):
                    for b in range(a + 1, E):
                        gap = ops.and_(marks[a][0], ops.not_(marks[a][1]))
                        later = ops.and_(marks[b][0], marks[b][1])
                        out.append(ops.not_(ops.and_(get(("peer", p)) != REMOVED, gap, later)))
        return ops.and_(*out)

    def no_queue_after_removal(ops: Any, get: Any) -> Any:
        out = []
        for p in P:
            done = get(("rdone", p))
            rows = ops.or_(*(get(("rex", *rk)) for rk in z.rkeys if rk[0] == p))
            out.append(ops.not_(ops.and_(done, ops.or_(rows, get(("sid", p))))))
        return ops.and_(*out)

    def no_stale_edit_replicated(ops: Any, get: Any) -> Any:
        return True

    def no_claim_mid_migration(ops: Any, get: Any) -> Any:
        return True

    def offsets_monotone(ops: Any, before: Any, after: Any) -> Any:
        out = []
        for rk in z.rkeys:
            for og in z.OG:
                had = ops.and_(
                    before(("rex", *rk)),
                    before(("rhas", *rk, og)),
                    before(("rseq", *rk, og)) != BEGIN_SEQ,
                )
                has = ops.and_(after(("rex", *rk)), after(("rhas", *rk, og)))
                s0, p0 = before(("rseq", *rk, og)), before(("rpos", *rk, og))
                s1, p1 = after(("rseq", *rk, og)), after(("rpos", *rk, og))
                back = ops.or_(
                    s1 < s0,
                    ops.and_(s1 == s0, p0 >= 0, p1 >= 0, p1 < p0),
                    ops.and_(s1 == s0, p0 < 0, p1 >= 0),
                )
                out.append(ops.not_(ops.and_(had, has, back)))
        return ops.and_(*out)

    def encoding_capacity(ops: Any, get: Any) -> Any:
        return ops.not_(get(("overflow",)))

    # --- liveness goals (a feature mixin reads them through its own view) ---------------------

    def edits_delivered(ops: Any, get: Any) -> Any:
        owed = [
            ops.and_(
                here(ops, get, w, j),
                get(("wowed", w, j, p)),
                get(("peer", p)) == ENABLED,
                ops.not_(get(("app", p + 1, z.uid(w, j)))),
            )
            for w in W
            for j in range(E)
            for p in P
        ]
        return ops.not_(ops.or_(*owed))

    def dead_queues_claimed(ops: Any, get: Any) -> Any:
        rows = [
            ops.and_(
                get(("rex", *rk)), ops.not_(get(("alive", rk[1]))), get(("peer", rk[0])) != REMOVED
            )
            for rk in z.rkeys
        ]
        stuck = ops.or_(*(get(("stage", s)) == SCP_CLAIM_STAGE for s in S))
        return ops.and_(
            ops.not_(ops.or_(*rows)),
            ops.or_(ops.not_(stuck), ops.not_(field(get, "master_up", ("mup",)))),
        )

    def removal_finishes(ops: Any, get: Any) -> Any:
        return ops.not_(ops.or_(*(ops.and_(get(("pp", p)), get(("ppk", p)) == REMOVE) for p in P)))

    def removed_peer_queues_deleted(ops: Any, get: Any) -> Any:
        return ops.not_(
            ops.or_(
                *(ops.and_(get(("rex", *rk)), get(("peer", rk[0])) == REMOVED) for rk in z.rkeys)
            )
        )

    def field(get: Any, name: str, key: tuple) -> Any:
        """A state field that is a variable only where a feature encodes it."""
        if name in z.constant_fields:
            return getattr(z.init_state, name)
        return get(key)

    def system_table_served(ops: Any, get: Any) -> Any:
        return field(get, "table_online", ("online",))

    goals = {
        f.__name__: f
        for f in (
            edits_delivered,
            dead_queues_claimed,
            removal_finishes,
            removed_peer_queues_deleted,
            system_table_served,
        )
    }

    invariants = {
        f.__name__: f
        for f in (
            no_lost_edit,
            no_wal_deleted_while_needed,
            one_queue_per_source,
            single_source,
            no_edit_at_origin,
            only_global_non_catalog,
            sink_in_order,
            no_queue_after_removal,
            no_stale_edit_replicated,
            no_claim_mid_migration,
        )
    }
    out = [FlatProperty(p.name, "invariant", invariants[p.name]) for p in z.design.invariants]
    out += [
        FlatProperty(p.name, "step", offsets_monotone)
        for p in z.design.step_properties
        if p.name == "offsets_monotone"
    ]
    out.append(FlatProperty("encoding_capacity", "invariant", encoding_capacity))
    out += [
        FlatProperty(p.name, "liveness", goals[p.name])
        for p in z.design.liveness
        if p.name not in z.cfg.skip_liveness
    ]
    return out
