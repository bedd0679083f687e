"""The protocol text of ``zk-multi`` and ``zk-lock`` (their failover and log cleaning over the
shared layout and steps), and of each ZooKeeper-era mutant: its base's, with the mutant's one
override (its ``text``) placed first, or with a dual-form rule it overrides read from the design.

``flat_model(design, cfg)`` is the entry point for every checker: the flat model of any design or
mutant (table-era ones from ``model/table/layout.py``), or ``FlatError`` when a mutant overrides a
step, or the configuration uses a feature, that has no flat form yet.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.logic import generic_of
from replcheck.model.zk.claims import LockClaims, MultiClaims
from replcheck.model.zk.cleaners import LockCleaner, MultiCleaner
from replcheck.model.zk.layout import RULES, FlatError
from replcheck.model.zk.lock import ZkLock
from replcheck.model.zk.multi import ZkMulti
from replcheck.model.zk.text import ZkFlat


class ZkMultiFlat(MultiClaims, MultiCleaner, ZkFlat):
    """``zk-multi``: SCP-driven claims read then committed in one ``multi``; the cversion-checked
    cleaner snapshot (``model/zk/claims.py``, ``model/zk/cleaners.py``)."""


class ZkLockFlat(LockClaims, LockCleaner, ZkFlat):
    """``zk-lock``: survivors race for the lock znode and copy queues one by one; the cleaner
    looks every queue up, with a cache (``model/zk/claims.py``, ``model/zk/cleaners.py``)."""


FLAT_CLASSES: dict[str, type[ZkFlat]] = {"zk-multi": ZkMultiFlat, "zk-lock": ZkLockFlat}
"""The text of each ZooKeeper-era design; a mutant's is its base's, with its own override."""

_TEXTS: dict[type, type] = {}


def zk_text_class(cls: type) -> type:
    """The text of ZooKeeper-era design class ``cls`` (registered or not): its base design's,
    with every ``text`` override of its class hierarchy placed first, most derived first. Its
    rules are read from the design (``generic_of``): a rule overridden by a plain method, or a
    step overridden as an explicit ``do_``/``en_`` method, has no meaning on the text and is
    refused (``FlatError``), in one line."""
    got = _TEXTS.get(cls)
    if got is not None:
        return got
    if issubclass(cls, ZkMulti):
        base: type = ZkMultiFlat
    elif issubclass(cls, ZkLock):
        base = ZkLockFlat
    else:
        raise FlatError(f"{cls.name}: no protocol text for this design")
    for name in RULES:
        if hasattr(cls, name) and generic_of(cls, name) is None:
            raise FlatError(
                f"{cls.name}: {name} is overridden by a plain method; the ZooKeeper era's steps "
                "are the protocol text's, which reads a rule only in dual form "
                "(model.logic.dual; docs/examples/my_mutant.py)"
            )
    steps = sorted(n for n in dir(cls) if n.startswith(("do_", "en_")))
    if steps:
        raise FlatError(
            f"{cls.name}: defines {steps[0]}, an explicit step; the ZooKeeper era's steps are "
            "the protocol text's: override one in the design's text (model/zk/mutants.py shows "
            "how)"
        )
    texts = [vars(c)["text"] for c in cls.__mro__ if vars(c).get("text") is not None]
    got = type(f"Text{cls.__name__}", (*texts, base), {}) if texts else base
    _TEXTS[cls] = got
    return got


def ZK_TEXTS(design: Any, cfg: Config | None = None) -> type[Any]:
    """The text of a ZooKeeper-era design object (``model/engine/catalogue.py``'s ``TEXTS``):
    every configuration composes the same one."""
    return zk_text_class(type(design))
