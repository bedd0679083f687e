"""The table era's text of a design under a configuration: the design's (or mutant's) text
class, with the mixin of each configuration feature it uses (``FEATURES``, one module of
``model/features/`` each) placed before it. ``table_flat_class`` is the entry point, and
``TABLE_TEXTS`` the era's entry in ``model/engine/catalogue.py``'s ``TEXTS``."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from replcheck.model.config import STANDARD, Config
from replcheck.model.engine.catalogue import get_design
from replcheck.model.engine.logic import generic_of
from replcheck.model.engine.text import FlatError, FlatModel
from replcheck.model.features import (
    bootstrap,
    cleaner_input,
    hfile_refs,
    joins,
    legacy_peer,
    migrate_hfile,
    migration,
    peer_life,
    relays,
    restarts,
    serial,
    serial_life,
    storage_faults,
    sync_layout,
    sync_remote,
    syncup,
    zombies,
)
from replcheck.model.table.designs import Table
from replcheck.model.table.layout import TableFlat, config_features

FEATURES: dict[str, ModuleType] = {
    "sync": sync_layout,
    "syncup": syncup,
    "zk_hfile_refs": migrate_hfile,
    "legacy_peer": legacy_peer,
    "migration": migration,
    "bootstrap": bootstrap,
    "restarts": restarts,
    "joins": joins,
    "zombies": zombies,
    "relays": relays,
    "cleaner_input": cleaner_input,
    "peer_life": peer_life,
    "storage_faults": storage_faults,
    "serial_life": serial_life,
    "serial": serial,
    "bulk_load": hfile_refs,
    "sync_remote": sync_remote,
}
"""Configuration features the base leaves out, and the module of ``model/features/`` whose mixin
adds each. The module defines ``FEATURE`` (the mixin, with ``handles``); a mutant of a feature
gives its text class as any mutant does (``Design.text``)."""


# --- designs and mutants whose form is the base text's --------------------------------------------


TABLE_FLAT_CLASSES: dict[str, type[TableFlat]] = {
    "table": TableFlat,
    "table-doc": TableFlat,
    "table/remove-all-one-pass": TableFlat,
}
"""The designs and mutants whose form is the base text's as it is: ``table-doc``'s differences
are read from the design (``doc_waits_for_scps``), and ``remove-all-one-pass``'s number of passes
too. Every other mutant brings its text (``Design.text``) or a dual-form rule."""


_COMPOSED: dict[tuple[type, ...], type[TableFlat]] = {}


def _compose(mixins: list[type], base: type[TableFlat]) -> type[TableFlat]:
    if not mixins:
        return base
    key = (*mixins, base)
    if key not in _COMPOSED:
        handles = frozenset().union(*(getattr(m, "handles", frozenset()) for m in key))
        name = "+".join(m.__name__ for m in key)
        _COMPOSED[key] = type(name, key, {"__doc__": base.__doc__, "handles": handles})
    return _COMPOSED[key]


def table_flat_class(name: str, cfg: Config | None = None) -> type[TableFlat]:
    """The flat class of table-era design or mutant ``name`` under ``cfg`` (by default the
    design's first configuration), or ``FlatError``: the design's (or mutant's) class, with the
    mixin of each feature ``cfg`` uses before it."""
    design = get_design(name)
    cls = type(design)
    if getattr(cls, "era", "") != "table" or not isinstance(design, Table):
        raise FlatError(f"{name}: not a table-era design")
    cfg = cfg or STANDARD[cls.configs[0]]
    mixins: list[type] = []
    last: list[type] = []
    """A design's text that overrides the base text comes after the features' texts, which
    build on what it overrides (the migration's ``afterReplay`` on the master restart's)."""
    if cls.text is not None:
        base = TABLE_FLAT_CLASSES.get(cls.mutant_of or "", TableFlat)
        # A text of a feature the configuration does not use changes nothing there.
        handles = getattr(cls.text, "handles", frozenset())
        if not handles:
            last.append(cls.text)
        elif handles & {feature for feature, _what in config_features(cfg)}:
            mixins.append(cls.text)
    elif name in TABLE_FLAT_CLASSES:
        base = TABLE_FLAT_CLASSES[name]
    elif cls.mutant_of in TABLE_FLAT_CLASSES and generic_of(cls, cls.overrides or "") is not None:
        base = TABLE_FLAT_CLASSES[cls.mutant_of]
    elif cls.mutant_of is None:
        raise FlatError(f"{name}: a design of its own, with no flat form")
    else:
        raise FlatError(f"{name}: overrides {cls.overrides}, which has no flat form")
    # A mutant's mixin that encodes features of the configuration (a subclass of the migration's
    # mixin, say) takes the place of the first of them, so that the features the correct design
    # puts before it (the 2.x hfile references, which extend the migration) stay before it.
    used = {feature for feature, _what in config_features(cfg)}
    chosen = [m for m in mixins if getattr(m, "handles", frozenset()) & used]
    ordered = [m for m in mixins if m not in chosen]
    for feature, what in config_features(cfg):
        mixin = next((m for m in chosen if feature in m.handles), None)
        if mixin is None:
            if any(feature in getattr(m, "handles", ()) for m in ordered):
                continue  # a mixin already chosen encodes it (spare servers, with their feature)
            module = FEATURES.get(feature)
            if module is None:
                raise FlatError(f"config {cfg.name!r}: {what} not in the flat table model")
            mixin = module.FEATURE
        if mixin not in ordered:
            ordered.append(mixin)
    return _compose(ordered + last, base)


def table_flat_model(name: str, cfg: Config) -> FlatModel:
    """The flat model of table-era design (or mutant) ``name`` under ``cfg``."""
    return table_flat_class(name, cfg)(get_design(name), cfg).model()


def TABLE_TEXTS(design: Any, cfg: Config | None = None) -> type[Any]:
    """The text of a table-era design object (``model/engine/catalogue.py``'s ``TEXTS``): it is
    composed from the registered design of its name, so the object must be that design's."""
    if type(get_design(design.name)) is not type(design):
        raise FlatError(
            f"{design.name}: a table-era design object the registry does not know; its text "
            "is composed from the registered design (replcheck --design-file registers one)"
        )
    return table_flat_class(design.name, cfg)
