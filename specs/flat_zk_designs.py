"""Failover and log cleaning of ``zk-multi`` and ``zk-lock`` as flat steps, and the flat form of
each ZooKeeper-era mutant that overrides a step outside a dual-form rule.

``flat_model(design, cfg)`` is the entry point for every checker: the flat model of any design or
mutant (table-era ones from ``specs/flat_table.py``), or ``FlatError`` when a mutant overrides a
step, or the configuration uses a feature, that has no flat form yet.
"""

from __future__ import annotations

from typing import Any

from replcheck.model import get_design
from replcheck.model.config import Config
from replcheck.model.logic import generic_of
from replcheck.model.state import ARCHIVED, DELETED, DELETING, IDLE, NO_LOCK, READING
from replcheck.model.text import FlatModel, Instance, Tx
from replcheck.model.zk_lock import ZkLock
from replcheck.model.zk_multi import ZkMulti

from .flat_zk import FlatError
from .flat_zk_steps import ZkFlat


class ZkMultiFlat(ZkFlat):
    """``zk-multi``: SCP-driven claims read then committed in one ``multi``; the cversion-checked
    cleaner snapshot."""

    def failover_instances(self) -> list[Instance]:
        out = []
        for s in self.S:
            for d in self.S:
                for p in self.P:
                    for ci in self.CH:
                        out.append(self._claim_read(s, d, p, ci))
                        out.append(self._claim_commit(s, d, p, ci))
        for d in self.S:
            out.append(self._scp_finish(d))
            out.extend(self.lose_failover_event(d))
        out.append(self._cleaner_start())
        for s in self.S:
            out.append(self._cleaner_read(s))
            for p in self.P:
                for ci in self.CH:
                    out.append(self._cleaner_read_queue(s, p, ci))
        out.append(self._cleaner_finish())
        for w in self.W:
            out.append(self._cleaner_delete_wal(w))
        return out

    def lose_failover_event(self, d: int) -> list[Instance]:
        """A ServerCrashProcedure is persisted: nothing loses it."""
        return []

    def has_queues(self, ops: Any, get: Any, d: int) -> Any:
        return ops.or_(*(get(("qex", d, p, ci)) for p in self.P for ci in self.CH))

    def _claim_read(self, s: int, d: int, p: int, ci: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("rex", d)),
                get(("fail", d)),
                get(("alive", s)),
                ops.not_(get(("cl", s))),
                get(("qex", d, p, ci)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("cl", s)] = True
            tx[("cld", s)] = d
            tx[("clp", s)] = p
            tx[("clc", s)] = ci
            for w in self.W:
                tx[("clin", s, w)] = tx[("qin", d, p, ci, w)]
                tx[("clpos", s, w)] = tx[("qpos", d, p, ci, w)]

        return Instance("claim_read", (s, d, p, ci), guard, apply)

    def _claim_commit(self, s: int, d: int, p: int, ci: int) -> Instance:
        nci = self.new_chain[(ci, d)]

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("alive", s)),
                get(("cl", s)),
                get(("cld", s)) == d,
                get(("clp", s)) == p,
                get(("clc", s)) == ci,
            )

        def apply(ops: Any, tx: Tx) -> None:
            if nci < 0:
                tx[("overflow",)] = True
                return
            snap = [(w, tx[("clin", s, w)], tx[("clpos", s, w)]) for w in self.W]
            self.clear_claim(tx, s)
            same = ops.and_(*(ops.eq(tx[("qin", d, p, ci, w)], inn) for w, inn, _ in snap))
            applies = self.rule["claim_applies"](
                ops, tx[("qex", d, p, ci)], same, tx[("qex", s, p, nci)]
            )
            self.claim_failed(ops, tx, ops.not_(applies), s, p, nci, snap)
            self.drop_queue(ops, tx, applies, d, p, ci)
            self.put_queue(ops, tx, applies, s, p, nci, snap)
            self.claim_bump(ops, tx, applies)
            self.start_recovered(ops, tx, applies, s, p, nci, snap)

        return Instance("claim_commit", (s, d, p, ci), guard, apply)

    def claim_failed(
        self, ops: Any, tx: Tx, cond: Any, s: int, p: int, nci: int, snap: list
    ) -> None:
        """A failed ``multi`` claims nothing (the fix of HBASE-8099)."""

    def claim_bump(self, ops: Any, tx: Tx, cond: Any) -> None:
        """The claim's ``cversion_`` node (``ZkMulti.claim_bump``)."""
        self.bump_cversion(ops, tx, cond)

    def scp_finish(self, ops: Any, tx: Tx, cond: Any, d: int) -> None:
        tx.when(cond, ("fail", d), False)
        gone = ops.and_(cond, tx[("rex", d)])
        tx.when(gone, ("rex", d), False)
        tx.when(gone, ("lock", d), NO_LOCK)
        self.bump_cversion(ops, tx, gone)

    def _scp_finish(self, d: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("fail", d)), ops.not_(ops.and_(get(("rex", d)), self.has_queues(ops, get, d)))
            )

        return Instance(
            "scp_finish", (d,), guard, lambda ops, tx: self.scp_finish(ops, tx, True, d)
        )

    def _cleaner_start(self) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            archived = ops.or_(
                *(ops.and_(get(("wex", w)), get(("wplace", w)) == ARCHIVED) for w in self.W)
            )
            return ops.and_(get(("b", "cleaner_runs")) > 0, get(("phase",)) == IDLE, archived)

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "cleaner_runs")] = tx[("b", "cleaner_runs")] - 1
            tx[("phase",)] = READING
            tx[("changed",)] = False
            for w in self.W:
                tx[("cand", w)] = ops.and_(tx[("wex", w)], tx[("wplace", w)] == ARCHIVED)
                tx[("seen", w)] = False
                tx[("cache", w)] = False
            for s in self.S:
                tx[("read", s)] = False

        return Instance("cleaner_start", (), guard, apply)

    def listing(self, ops: Any, get: Any) -> Any:
        """Some server's queues are listed and not all read yet."""
        return ops.or_(*(get(("lst", s, p, ci)) for s in self.S for p in self.P for ci in self.CH))

    def _cleaner_read(self, s: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("phase",)) == READING,
                ops.not_(get(("read", s))),
                ops.not_(self.listing(ops, get)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("read", s)] = True
            for p in self.P:
                for ci in self.CH:
                    tx[("lst", s, p, ci)] = tx[("qex", s, p, ci)]

        return Instance("cleaner_read", (s,), guard, apply)

    def _cleaner_read_queue(self, s: int, p: int, ci: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return get(("lst", s, p, ci))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("lst", s, p, ci)] = False
            for w in self.W:
                found = ops.and_(tx[("cand", w)], tx[("qex", s, p, ci)], tx[("qin", s, p, ci, w)])
                tx[("seen", w)] = ops.or_(tx[("seen", w)], found)

        return Instance("cleaner_read_queue", (s, p, ci), guard, apply)

    def _cleaner_finish(self) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("phase",)) == READING,
                *(get(("read", s)) for s in self.S),
                ops.not_(self.listing(ops, get)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            changed = tx[("changed",)]
            keep = ops.not_(changed)
            seen = {w: tx[("seen", w)] for w in self.W}
            doomed = {
                w: ops.and_(
                    keep,
                    tx[("cand", w)],
                    tx[("wplace", w)] == ARCHIVED,
                    self.may_delete(ops, w, seen),
                )
                for w in self.W
            }
            for s in self.S:
                tx[("read", s)] = False
            for w in self.W:
                tx[("seen", w)] = False
                tx.when(keep, ("cand", w), doomed[w])
            tx[("changed",)] = False
            deleting = ops.ite(ops.or_(*doomed.values()), DELETING, IDLE)
            tx[("phase",)] = ops.ite(changed, READING, deleting)

        return Instance("cleaner_finish", (), guard, apply)

    def _cleaner_delete_wal(self, w: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("phase",)) == DELETING, get(("cand", w)))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("wplace", w)] = DELETED
            tx[("cand", w)] = False
            rest = ops.or_(*(tx[("cand", v)] for v in self.W if v != w))
            tx[("phase",)] = ops.ite(rest, DELETING, IDLE)

        return Instance("cleaner_delete_wal", self.key[w], guard, apply)


class ZkLockFlat(ZkFlat):
    """``zk-lock``: survivors race for the lock znode and copy queues one by one; the cleaner
    looks every queue up, with a cache."""

    def failover_instances(self) -> list[Instance]:
        out = []
        for s in self.S:
            for d in self.S:
                if s == d:
                    continue
                out.append(self._lock(s, d))
                for p in self.P:
                    for ci in self.CH:
                        out.append(self._copy_queue(s, d, p, ci))
                out.append(self._finish_claim(s, d))
        for d in self.S:
            out.extend(self.lock_cleaner(d))
        for w in self.W:
            out.append(self._clean(w))
        return out

    def copied(self, ops: Any, get: Any, s: int, d: int, p: int, ci: int) -> Any:
        nci = self.new_chain[(ci, d)]
        if nci < 0:
            return False
        return ops.and_(
            get(("qex", s, p, nci)),
            *(ops.implies(get(("qin", d, p, ci, w)), get(("qin", s, p, nci, w))) for w in self.W),
        )

    def _lock(self, s: int, d: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("rex", d)),
                get(("lock", d)) == NO_LOCK,
                ops.not_(get(("alive", d))),
                get(("alive", s)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("lock", d)] = s

        return Instance("lock", (s, d), guard, apply)

    def holder(self, ops: Any, get: Any, s: int, d: int) -> Any:
        return ops.and_(get(("rex", d)), get(("lock", d)) == s, get(("alive", s)))

    def _copy_queue(self, s: int, d: int, p: int, ci: int) -> Instance:
        nci = self.new_chain[(ci, d)]

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                self.holder(ops, get, s, d),
                get(("qex", d, p, ci)),
                ops.not_(self.copied(ops, get, s, d, p, ci)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            if nci < 0:
                tx[("overflow",)] = True
                return
            wals = [(w, tx[("qin", d, p, ci, w)], tx[("qpos", d, p, ci, w)]) for w in self.W]
            self.put_queue(ops, tx, True, s, p, nci, wals)

        return Instance("copy_queue", (s, d, p, ci), guard, apply)

    def _finish_claim(self, s: int, d: int) -> Instance:
        slots = sorted(
            ((p, ci) for p in self.P for ci in self.CH), key=lambda pc: (pc[0], self.chains[pc[1]])
        )

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                self.holder(ops, get, s, d),
                *(
                    ops.implies(get(("qex", d, p, ci)), self.copied(ops, get, s, d, p, ci))
                    for p, ci in slots
                ),
            )

        def apply(ops: Any, tx: Tx) -> None:
            had = {(p, ci): tx[("qex", d, p, ci)] for p, ci in slots}
            for p, ci in slots:
                self.drop_queue(ops, tx, True, d, p, ci)
            tx[("rex", d)] = False
            tx[("lock", d)] = NO_LOCK
            for p, ci in slots:
                nci = self.new_chain[(ci, d)]
                if nci < 0 or had[(p, ci)] is False:
                    continue
                cond = ops.and_(had[(p, ci)], tx[("qex", s, p, nci)])
                wals = [(w, tx[("qin", s, p, nci, w)], tx[("qpos", s, p, nci, w)]) for w in self.W]
                self.start_recovered(ops, tx, cond, s, p, nci, wals)

        return Instance("finish_claim", (s, d), guard, apply)

    def lock_cleaner(self, d: int) -> list[Instance]:
        """HBASE-16144's fix: a lock whose holder died is removed."""

        def guard(ops: Any, get: Any) -> Any:
            dead_holder = ops.or_(
                *(ops.and_(get(("lock", d)) == s, ops.not_(get(("alive", s)))) for s in self.S)
            )
            return ops.and_(get(("rex", d)), dead_holder)

        def apply(ops: Any, tx: Tx) -> None:
            tx[("lock", d)] = NO_LOCK

        return [Instance("lock_cleaner", (d,), guard, apply)]

    def _clean(self, w: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("wex", w)), get(("wplace", w)) == ARCHIVED, ops.not_(get(("cache", w)))
            )

        return Instance("clean", (w,), guard, lambda ops, tx: self.clean(ops, tx, w))

    def clean(self, ops: Any, tx: Tx, w: int) -> None:
        """Seed 003: look every queue up (caching what was found); delete if not found."""
        queued = {x: self.queued_anywhere(ops, tx.__getitem__, x) for x in self.W}
        for x in self.W:
            tx[("cache", x)] = queued[x]
        tx.when(self.may_delete(ops, w, queued), ("wplace", w), DELETED)


# --- mutants overriding a step outside a dual-form rule ------------------------------------


class FlatHbase12865(ZkMultiFlat):
    def claim_bump(self, ops: Any, tx: Tx, cond: Any) -> None:
        return None


class FlatHbase8099(ZkMultiFlat):
    def claim_failed(
        self, ops: Any, tx: Tx, cond: Any, s: int, p: int, nci: int, snap: list
    ) -> None:
        self.start_recovered(ops, tx, cond, s, p, nci, snap)


class FlatHbase26029(ZkMultiFlat):
    def lose_failover_event(self, d: int) -> list[Instance]:
        def apply(ops: Any, tx: Tx) -> None:
            tx[("fail", d)] = False

        return [Instance("lose_failover_event", (d,), lambda ops, get: get(("fail", d)), apply)]


class FlatHbase16144(ZkLockFlat):
    def lock_cleaner(self, d: int) -> list[Instance]:
        return []


class FlatHbase3515(ZkLockFlat):
    def roll_fails(self, ops: Any, tx: Tx, s: int, g: int, q: int) -> None:
        tx[("b", "zk_faults")] = tx[("b", "zk_faults")] - 1
        self.switch_wal(ops, tx, s, g, q)


class FlatAppendBeforeRegister(ZkLockFlat):
    def roll_wal(self, ops: Any, tx: Tx, s: int, g: int, q: int) -> None:
        self.switch_wal(ops, tx, s, g, q)
        tx[("unreg", s, self.cfg.slot((s, g, q + 1)))] = True


class FlatCleanerSkipsLookup(ZkLockFlat):
    def clean(self, ops: Any, tx: Tx, w: int) -> None:
        tx[("wplace", w)] = DELETED


class FlatCleanerStaleCache(ZkLockFlat):
    def clean(self, ops: Any, tx: Tx, w: int) -> None:
        cached = ops.or_(*(tx[("cache", x)] for x in self.W))
        if cached is True:
            tx[("wplace", w)] = DELETED
            return
        if cached is False:
            super().clean(ops, tx, w)
            return
        normal = Tx(ops, tx.base)
        normal.new = dict(tx.new)
        super().clean(ops, normal, w)
        for k, v in normal.new.items():
            if tx.new.get(k) is not v:
                tx[k] = ops.ite(cached, tx[k], v)
        tx.when(cached, ("wplace", w), DELETED)


class FlatReaderIgnoresArchive(ZkLockFlat):
    def locate(self, ops: Any, get: Any, s: int, p: int, ci: int, w: int) -> Any:
        return ops.and_(get(("wplace", w)) != ARCHIVED, super().locate(ops, get, s, p, ci, w))


FLAT_CLASSES: dict[str, type[ZkFlat]] = {
    "zk-multi": ZkMultiFlat,
    "zk-lock": ZkLockFlat,
    "zk-multi/HBASE-12865": FlatHbase12865,
    "zk-multi/HBASE-8099": FlatHbase8099,
    "zk-multi/HBASE-26029": FlatHbase26029,
    "zk-lock/HBASE-16144": FlatHbase16144,
    "zk-lock/HBASE-3515": FlatHbase3515,
    "zk-lock/append-before-register": FlatAppendBeforeRegister,
    "zk-lock/cleaner-skips-lookup": FlatCleanerSkipsLookup,
    "zk-lock/cleaner-stale-cache": FlatCleanerStaleCache,
    "zk-lock/reader-ignores-archive": FlatReaderIgnoresArchive,
}
"""The flat form of each design, and of each mutant whose override is not a dual-form rule."""


def flat_class(name: str, cfg: Config | None = None) -> type[Any]:
    """The flat class of any design or mutant (under ``cfg``, by default the design's first
    configuration): this module's for the ZooKeeper era, ``specs/flat_table.py``'s for the table
    era; ``FlatError`` when there is none."""
    design = get_design(name)
    cls = type(design)
    if cls.era == "table":
        from .flat_table import table_flat_class

        return table_flat_class(name, cfg)
    if not isinstance(design, (ZkLock, ZkMulti)):
        raise FlatError(f"{name}: no flat form for this design")
    if name in FLAT_CLASSES:
        return FLAT_CLASSES[name]
    if cls.mutant_of in FLAT_CLASSES and generic_of(cls, cls.overrides or "") is not None:
        return FLAT_CLASSES[cls.mutant_of]
    raise FlatError(
        f"{name}: overrides {cls.overrides}, which has no flat form (add one to "
        "specs/flat_zk_designs.py)"
    )


def flat_layout(name: str, cfg: Config) -> Any:
    """The flat form of design (or mutant) ``name`` under ``cfg``: its layout and steps."""
    if cfg.joins or cfg.zombies:
        what = "servers joining" if cfg.joins else "zombie servers"
        raise FlatError(f"config {cfg.name!r}: {what} not in the flat model")
    return flat_class(name, cfg)(get_design(name), cfg)


def flat_model(name: str, cfg: Config) -> FlatModel:
    """The flat model of design (or mutant) ``name`` under ``cfg``."""
    return flat_layout(name, cfg).model()
