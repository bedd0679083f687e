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
from replcheck.model.state import ARCHIVED, DELETED
from replcheck.model.step import step
from replcheck.model.text import FlatModel, Tx
from replcheck.model.zk_claims import LockClaims, MultiClaims
from replcheck.model.zk_cleaners import LockCleaner, MultiCleaner
from replcheck.model.zk_lock import ZkLock
from replcheck.model.zk_multi import ZkMulti

from .flat_zk import FlatError
from .flat_zk_steps import ZkFlat


class ZkMultiFlat(MultiClaims, MultiCleaner, ZkFlat):
    """``zk-multi``: SCP-driven claims read then committed in one ``multi``; the cversion-checked
    cleaner snapshot (``model/zk_claims.py``, ``model/zk_cleaners.py``)."""


class ZkLockFlat(LockClaims, LockCleaner, ZkFlat):
    """``zk-lock``: survivors race for the lock znode and copy queues one by one; the cleaner
    looks every queue up, with a cache (``model/zk_claims.py``, ``model/zk_cleaners.py``)."""


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
    lose_failover_event = step(
        params=("dead",), fair=False, each=lambda text: [(d,) for d in text.S]
    )(MultiClaims.lose_failover_event.body)


class FlatHbase16144(ZkLockFlat):
    lock_cleaner = step(params=("dead",), fair=True, each=lambda text: [])(
        LockClaims.lock_cleaner.body
    )


class FlatHbase3515(ZkLockFlat):
    def roll_fails(self, ops: Any, tx: Tx, s: int, g: int, q: int) -> None:
        tx[("b", "zk_faults")] = tx[("b", "zk_faults")] - 1
        self.switch_wal(ops, tx, s, g, q)


class FlatAppendBeforeRegister(ZkLockFlat):
    def roll_wal(self, ops: Any, tx: Tx, s: int, g: int, q: int) -> None:
        self.switch_wal(ops, tx, s, g, q)
        tx[("unreg", s, self.cfg.slot((s, g, q + 1)))] = True


class FlatCleanerSkipsLookup(ZkLockFlat):
    def clean_wal(self, ops: Any, tx: Tx, w: int) -> None:
        tx[("wplace", w)] = DELETED


class FlatCleanerStaleCache(ZkLockFlat):
    def clean_wal(self, ops: Any, tx: Tx, w: int) -> None:
        cached = ops.or_(*(tx[("cache", x)] for x in self.W))
        if cached is True:
            tx[("wplace", w)] = DELETED
            return
        if cached is False:
            super().clean_wal(ops, tx, w)
            return
        normal = Tx(ops, tx.base)
        normal.new = dict(tx.new)
        super().clean_wal(ops, normal, w)
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
