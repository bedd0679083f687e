"""The protocol text of ``zk-multi`` and ``zk-lock`` (their failover and log cleaning over the
shared layout and steps), and of each ZooKeeper-era mutant: its base's, with the mutant's one
override (its ``text``) placed first, or with a dual-form rule it overrides read from the design.

``flat_model(design, cfg)`` is the entry point for every checker: the flat model of any design or
mutant (table-era ones from ``specs/flat_table.py``), or ``FlatError`` when a mutant overrides a
step, or the configuration uses a feature, that has no flat form yet.
"""

from __future__ import annotations

from typing import Any

from replcheck.model import get_design
from replcheck.model.config import Config
from replcheck.model.logic import generic_of
from replcheck.model.text import FlatModel
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


FLAT_CLASSES: dict[str, type[ZkFlat]] = {"zk-multi": ZkMultiFlat, "zk-lock": ZkLockFlat}
"""The text of each ZooKeeper-era design; a mutant's is its base's, with its own override."""

_MUTANT_TEXTS: dict[type, type] = {}


def _with_override(cls: type, base: type) -> type:
    """The text of mutant ``cls``: its ``text`` (one override) placed before its base's."""
    got = _MUTANT_TEXTS.get(cls)
    if got is None:
        got = _MUTANT_TEXTS[cls] = type(f"Text{cls.__name__}", (cls.text, base), {})
    return got


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
    base = FLAT_CLASSES.get(cls.mutant_of or "")
    if base is not None and cls.text is not None:
        return _with_override(cls, base)
    if base is not None and generic_of(cls, cls.overrides or "") is not None:
        return base
    raise FlatError(
        f"{name}: overrides {cls.overrides}, which is neither a rule in dual form nor a step "
        "of the protocol text (a mutant's text overrides one: model/mutants_zk.py shows how)"
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
