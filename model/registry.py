"""The registry of designs and mutants, and loading a reviewer's own from a Python file."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

from replcheck.model.config import STANDARD, resolve_config
from replcheck.model.engine.catalogue import (
    DESIGNS,
    TEXTS,
    RegistryError,
    base_design,
    designs,
    get_design,
    mutants,
    text_class,
)
from replcheck.model.engine.design import Design
from replcheck.model.engine.overrides import text_points
from replcheck.model.engine.step import Gate, Step, kinds_of
from replcheck.model.engine.text import FlatError
from replcheck.model.features.migration_mutants import MIGRATE_MUTANTS
from replcheck.model.features.sync_mutants import SYNC_MUTANTS
from replcheck.model.features.syncup_mutants import SYNCUP_MUTANTS
from replcheck.model.table.compose import TABLE_TEXTS
from replcheck.model.table.designs import Table, TableDoc, TableNaive
from replcheck.model.table.mutants import TABLE_MUTANTS
from replcheck.model.zk.designs import ZK_TEXTS
from replcheck.model.zk.lock import ZkLock
from replcheck.model.zk.multi import ZkMulti
from replcheck.model.zk.mutants import ZK_MUTANTS

BUILTIN: frozenset[str] = frozenset()
"""The designs and mutants that ship with replcheck (a design file adds others); set below."""


def register(cls: type[Design]) -> type[Design]:
    """Add a design or mutant. A mutant must name its base design and override exactly the one
    step it says it overrides; one with a ``text`` may add the new steps it names in ``adds``
    (its action kinds are then its base's, with its own steps' in their place and the added
    ones after)."""
    if not isinstance(cls, type) or not issubclass(cls, Design):
        raise RegistryError(f"{cls!r} is not a Design subclass")
    if not cls.name or cls.name == "abstract":
        raise RegistryError(f"{cls.__name__} has no name")
    if cls.is_mutant():
        base = DESIGNS.get(cls.mutant_of or "")
        if base is None:
            raise RegistryError(f"mutant {cls.name!r}: unknown base design {cls.mutant_of!r}")
        if cls.text is not None and cls.text is not base.text:
            _check_text_override(cls, base)
            _set_kinds(cls, base)
        else:
            if cls.adds:
                raise RegistryError(
                    f"mutant {cls.name!r}: adds {', '.join(cls.adds)} without a text; define the "
                    "added steps in its text class (model/engine/step.py)"
                )
            if not cls.overrides or not callable(getattr(base, cls.overrides, None)):
                raise RegistryError(_not_in_design(cls, base))
            own = {n for n, v in vars(cls).items() if callable(v) and not n.startswith("__")}
            if own != {cls.overrides}:
                raise RegistryError(
                    f"mutant {cls.name!r} must override exactly {cls.overrides!r}, "
                    f"overrides {sorted(own)}"
                )
        if not cls.bug:
            raise RegistryError(f"mutant {cls.name!r} does not say which bug it reproduces")
        _check_configs(cls)
    existing = DESIGNS.get(cls.name)
    if existing is not None and existing is not cls and not _same_definition(existing, cls):
        where = "a built-in design" if cls.name in BUILTIN else f"{_origin(existing)}"
        raise RegistryError(
            f"{_origin(cls)}: {cls.__name__} is named {cls.name!r}, already the name of {where}; "
            "choose another name"
        )
    DESIGNS[cls.name] = cls
    return cls


def _check_configs(cls: type[Design]) -> None:
    """A mutant names the configurations where it must be caught: at least one, each a standard
    configuration or one derived from it (``NAME:key=value,...``). One with none would run
    ``std`` by default and could pass there unnoticed; a name that is no configuration would be
    refused only when it is run, naming neither the file nor the class."""
    configs = cls.configs
    where = f"{_origin(cls)}: {cls.__name__} ({cls.name!r})"
    if isinstance(configs, str) or not isinstance(configs, tuple | list):
        raise RegistryError(
            f"{where}: configs must be a tuple of configuration names, got {configs!r}"
        )
    if not configs:
        raise RegistryError(
            f"{where}: lists no configuration; a mutant names where it must be caught, e.g. "
            'configs = ("std",)'
        )
    for spec in configs:
        name = spec.partition(":")[0] if isinstance(spec, str) else None
        if name not in STANDARD:
            raise RegistryError(
                f"{where}: unknown configuration {spec!r} in configs; known: {', '.join(STANDARD)}"
            )


def _check_derived(cls: type[Design]) -> None:
    """Each of a design file's classes' configurations resolves, overrides included (by
    ``config.resolve_config``)."""
    for spec in cls.configs if isinstance(cls.configs, tuple | list) else ():
        try:
            resolve_config(spec)
        except (ValueError, KeyError) as exc:
            raise RegistryError(
                f"{_origin(cls)}: {cls.__name__} ({cls.name!r}): configuration {spec!r} in "
                f"configs: {' '.join(str(exc).split())}"
            ) from None


def _not_in_design(cls: type[Design], base: type[Design]) -> str:
    """Why a mutant with no ``text`` cannot override ``cls.overrides``: not a rule of the design
    class; and, where the name is a step, gate, rule or helper of the base design's protocol
    text under one of the mutant's configurations, where it is and how to override it there."""
    name = cls.overrides
    head = f"{_origin(cls)}: mutant {cls.name!r}: {name!r} is not a rule of the {base.name} class"
    for spec in cls.configs if isinstance(cls.configs, tuple | list) else ():
        try:
            text = text_class(base(), resolve_config(spec))
        except (FlatError, ValueError, KeyError):
            continue
        point = next((p for p in text_points(text) if p.name == name), None)
        if point is not None:
            return (
                f"{head}; it is a {point.kind} of its protocol text, defined in {point.owner} "
                f"({point.module}): override it in a class deriving from {point.owner}, given as "
                "the mutant's text = ... (docs/reviewers.md)"
            )
    return f"{head}, nor of its protocol text ('replcheck list --design {base.name} --steps')"


def _members(cls: type) -> set[str]:
    """The steps, gates and methods a class defines itself."""
    return {
        n
        for n, v in vars(cls).items()
        if not n.startswith("__") and (callable(v) or isinstance(v, (Step, Gate)))
    }


def _check_text_override(cls: type[Design], base: type[Design]) -> None:
    """A mutant whose override is in the text: its ``text`` class defines exactly the step, gate
    or rule ``overrides`` names and the names ``adds`` lists; a class it derives from (the base
    design's text) has the overridden one, and no added name is in the base design's text (or
    its class) already."""
    text = cls.text
    assert text is not None
    adds = cls.adds
    if isinstance(adds, str) or not all(isinstance(n, str) and n for n in adds):
        raise RegistryError(f"mutant {cls.name!r}: adds must be a tuple of names, got {adds!r}")
    if not cls.overrides and not adds:
        raise RegistryError(f"mutant {cls.name!r}: names nothing it overrides or adds")
    if cls.overrides in adds:
        raise RegistryError(f"mutant {cls.name!r}: {cls.overrides!r} is both overridden and added")
    own = _members(text)
    declared = {n for n in (cls.overrides, *adds) if n}
    if own != declared:
        undeclared = sorted(own - declared)
        what = (
            f"defines {', '.join(undeclared)}, which it does not declare (overrides or adds)"
            if undeclared
            else f"does not define {', '.join(sorted(declared - own))}"
        )
        want = [f"override exactly {cls.overrides!r}"] if cls.overrides else []
        want += [f"add exactly {', '.join(map(repr, adds))}"] if adds else []
        raise RegistryError(f"mutant {cls.name!r} must {' and '.join(want)}: its text {what}")
    if cls.overrides and not any(cls.overrides in vars(c) for c in text.__mro__[1:]):
        raise RegistryError(
            f"mutant {cls.name!r}: {cls.overrides!r} is not a step or rule of the text "
            f"{text.__name__} derives from"
        )
    for name in adds:
        where = _existing(name, text, base)
        if where:
            raise RegistryError(
                f"mutant {cls.name!r}: adds {name!r}, which {where} already has; override it "
                "(overrides) or choose a new name"
            )


def _existing(name: str, text: type, base: type[Design]) -> str:
    """What already has ``name``: a class the mutant's text derives from, the base design's
    class, or the base design's text under one of its configurations ("" if nothing)."""
    for c in text.__mro__[1:]:
        if name in vars(c):
            return f"{c.__name__} (its text's base)"
    if hasattr(base, name):
        return f"the design {base.name}"
    design = base()
    for config in base.configs or ("std",):
        try:
            have = text_class(design, STANDARD.get(config))
        except (FlatError, RegistryError, KeyError):
            continue
        if hasattr(have, name):
            return f"the text of {base.name} under {config}"
    return ""


def _set_kinds(cls: type[Design], base: type[Design]) -> None:
    """A mutant with a text and no ``kinds`` of its own: its base's action kinds, each of its
    text's steps (an override with other params or fairness, an added one) in its place or
    after them."""
    if "kinds" in vars(cls):
        return
    mine = {k.name: k for k in kinds_of(cls.text)} if cls.text is not None else {}
    mine = {n: k for n, k in mine.items() if n in (cls.overrides, *cls.adds)}
    if not mine:
        return
    kinds = [mine.pop(k.name, k) for k in base.kinds]
    cls.kinds = (*kinds, *mine.values())


def _origin(cls: type[Design]) -> str:
    """Where a design class was defined: its file, or its module."""
    try:
        return inspect.getsourcefile(cls) or cls.__module__
    except TypeError:
        return cls.__module__


def _same_definition(a: type[Design], b: type[Design]) -> bool:
    """The same class from the same file, loaded again (one design file named twice)."""
    return a.__module__ == b.__module__ and a.__qualname__ == b.__qualname__


for _cls in (
    ZkLock,
    ZkMulti,
    Table,
    TableDoc,
    TableNaive,
    *ZK_MUTANTS,
    *TABLE_MUTANTS,
    *SYNC_MUTANTS,
    *SYNCUP_MUTANTS,
    *MIGRATE_MUTANTS,
):
    register(_cls)

BUILTIN = frozenset(DESIGNS)
TEXTS.update(zk=ZK_TEXTS, table=TABLE_TEXTS)

__all__ = [
    "BUILTIN",
    "DESIGNS",
    "RegistryError",
    "base_design",
    "designs",
    "get_design",
    "load_design_file",
    "mutants",
    "register",
]


def load_design_file(path: str | Path) -> list[str]:
    """Import a reviewer's Python file and register every Design subclass it defines; return
    their names. The file may import from ``replcheck.model``."""
    path = Path(path)
    if not path.is_file():
        raise RegistryError(f"{path}: no such design file")
    mod_name = f"replcheck_user_design_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise RegistryError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:  # exiting would end the command with nothing checked
        raise RegistryError(
            f"{path}: the design file exits (SystemExit({exc.code!r})) while it is loaded; "
            "a design file may only define designs"
        ) from None
    except Exception as exc:  # a reviewer's file: report it in one line
        line = ""
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(path):
                line = f":{tb.tb_lineno}"
            tb = tb.tb_next
        raise RegistryError(f"{path}{line}: {type(exc).__name__}: {exc}") from None
    found = [
        obj
        for _n, obj in inspect.getmembers(module, inspect.isclass)
        if issubclass(obj, Design) and obj.__module__ == mod_name
    ]
    if not found:
        raise RegistryError(f"{path}: defines no Design subclass")
    # Base designs first, so a mutant of a design in the same file finds it.
    found.sort(key=lambda c: c.is_mutant())
    for cls in found:
        if cls.is_mutant():
            _check_configs(cls)
        _check_derived(cls)
    for cls in found:
        register(cls)
    return [c.name for c in found]
