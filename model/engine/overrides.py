"""The override points of a design: what a mutant or a reviewer's design may redefine.

A design's steps are its protocol text's (``model/engine/step.py``): the text class that
``Model(design, cfg)`` composes for a configuration (``catalogue.text_class``: the design's
components, each feature's mixin the configuration uses, a mutant's own ``text`` first). Its
override points are

* ``step``: each ``@step`` (an action kind: its params, whether it is fair, its docstring);
* ``gate``: each ``@gate`` (a guard every instance of its kinds waits for);
* ``rule``: each ``rule_*`` decision method of the text, and each decision rule of the design
  class itself (``rule_*``, or a method marked ``model.logic.dual``), which the text reads;
* ``helper``: every other method of the text that a step, gate or rule calls, directly or
  through another helper (``roll_fails``, ``claim_bump``, ``clean_wal``, ``drain_sources``...).

Helpers are found by reading the source: a reference ``self.NAME`` (or ``super().NAME``) in the
body of a step, gate, rule or helper, where ``NAME`` is a method of the composed text. Private
methods (``_name``) and the layout's own methods (how slots are declared, encoded and decoded:
``LAYOUT``) are not override points: redefining them changes the layout, not a decision.

``replcheck list --design D --steps`` prints them; every one has a docstring
(``tests/model/engine/test_overrides.py``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.composition import module_file
from replcheck.model.engine.copies import CopySlots
from replcheck.model.engine.step import Gate, Step
from replcheck.model.engine.text import ByParts, FlatError

KINDS = ("step", "gate", "rule", "helper")
"""The kinds of override point, in the order they are listed."""


def _layout_names() -> frozenset[str]:
    from replcheck.model.table.layout import TableFlat
    from replcheck.model.zk.layout import ZkLayout

    names = {n for c in (ByParts, CopySlots, ZkLayout, TableFlat) for n in vars(c)}
    # the edits' layout (``model/common/edit_space.py``): slots, encoding and decoding
    names |= {
        "edit_space",
        "wal_entries",
        "wal_sorts",
        "relay_sorts",
        "encode_wal",
        "decode_wal",
        "encode_relays",
        "sink_edits",
    }
    return frozenset(n for n in names if not n.startswith("__"))


LAYOUT: frozenset[str] = frozenset()
"""Method names of the layout (set on first use): not override points."""


@dataclass
class Point:
    """One override point: a step, gate, rule or helper, where it is defined and what it does."""

    name: str
    kind: str
    owner: str
    """The class that defines it in the composed text (or the design class, for its rules)."""
    module: str
    doc: str
    """The docstring's first paragraph on one line ("" when it has none: a defect)."""
    params: tuple[str, ...] = ()
    fair: bool | None = None
    """A step's fairness (weak fairness per action kind), None for the others."""
    dual: bool | None = None
    """A design's rule: written in dual form (``model.logic.dual``), so Z3 can read it."""
    in_design: bool = False
    """A rule of the design class (overridden in the mutant's class), not of its text."""
    configs: list[str] = field(default_factory=list)
    """The configurations whose text has it (of those listed)."""

    def signature(self) -> str:
        if self.kind == "step":
            return f"{self.name}({', '.join(self.params)})"
        return self.name

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "class": self.owner,
            "module": self.module,
            "doc": self.doc,
            "configs": list(self.configs),
        }
        if self.kind == "step":
            out["params"] = list(self.params)
            out["fair"] = self.fair
        if self.in_design:
            out["in_design"] = True
            out["dual"] = self.dual
        return out


def first_paragraph(doc: str | None) -> str:
    """A docstring's first paragraph, on one line."""
    text = inspect.cleandoc(doc or "")
    return " ".join(text.split("\n\n")[0].split())


def _function(v: Any) -> Callable[..., Any] | None:
    if isinstance(v, (staticmethod, classmethod)):
        v = v.__func__
    return v if inspect.isfunction(v) else None


def _references(fn: Callable[..., Any]) -> set[str]:
    """The names ``fn`` reads from its first parameter (``self.NAME``) or ``super().NAME``."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return set()
    node = tree.body[0] if tree.body else None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Lambda):
        node = node.value  # pragma: no cover - a lambda's source is its line
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.args.args:
        return set()
    me = node.args.args[0].arg
    out: set[str] = set()
    for n in ast.walk(node):
        if not isinstance(n, ast.Attribute):
            continue
        v = n.value
        mine = isinstance(v, ast.Name) and v.id == me
        up = isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super"
        if mine or up:
            out.add(n.attr)
    return out


def _owner(cls: type, name: str) -> type:
    return next(c for c in cls.__mro__ if name in vars(c))


def _name(c: type) -> str:
    return c.__qualname__.replace(".<locals>", "")


def text_points(cls: type) -> list[Point]:
    """The override points of composed text class ``cls``: its steps, gates, ``rule_*`` methods
    and the helpers they call."""
    global LAYOUT
    if not LAYOUT:
        LAYOUT = _layout_names()
    out: list[Point] = []
    todo: list[tuple[str, Callable[..., Any]]] = []
    listed: set[str] = set()
    for name in dir(cls):
        if name.startswith("_"):
            continue
        v = inspect.getattr_static(cls, name)
        owner = _owner(cls, name)
        if isinstance(v, Step):
            doc = first_paragraph(v.body.__doc__)
            out.append(Point(name, "step", _name(owner), module_file(owner), doc, v.params, v.fair))
            todo.append((name, v.body))
        elif isinstance(v, Gate):
            doc = first_paragraph(v.body.__doc__)
            out.append(Point(name, "gate", _name(owner), module_file(owner), doc))
            todo.append((name, v.body))
        elif name.startswith("rule_") and _function(v) is not None:
            fn = _function(v)
            assert fn is not None
            doc = first_paragraph(fn.__doc__)
            out.append(Point(name, "rule", _name(owner), module_file(owner), doc))
            todo.append((name, fn))
        else:
            continue
        listed.add(name)
    while todo:
        _n, fn = todo.pop()
        for ref in sorted(_references(fn)):
            if ref in listed or ref.startswith("_") or ref in LAYOUT:
                continue
            helper = _function(inspect.getattr_static(cls, ref, None))
            if helper is None:
                continue
            listed.add(ref)
            owner = _owner(cls, ref)
            out.append(
                Point(
                    ref, "helper", _name(owner), module_file(owner), first_paragraph(helper.__doc__)
                )
            )
            todo.append((ref, helper))
    return out


def design_rules(design_cls: type) -> list[Point]:
    """The decision rules of a design class the text reads: each ``rule_*`` method and each
    method marked ``model.logic.dual``."""
    out = []
    for name in dir(design_cls):
        if name.startswith("_"):
            continue
        fn = _function(inspect.getattr_static(design_cls, name))
        if fn is None:
            continue
        dual = getattr(fn, "generic", None) is not None
        if not (name.startswith("rule_") or dual):
            continue
        owner = _owner(design_cls, name)
        # a dual-form rule's method may leave its docstring to the rule it is the face of
        generic = getattr(fn, "generic", None)
        doc = first_paragraph(fn.__doc__ or (generic.__doc__ if generic is not None else ""))
        out.append(
            Point(name, "rule", _name(owner), module_file(owner), doc, dual=dual, in_design=True)
        )
    return out


@dataclass
class Listing:
    """The override points of one design over the configurations asked."""

    design: str
    configs: list[str]
    """The configurations whose text was read."""
    uncovered: list[tuple[str, str]]
    """(configuration, why) where the design has no text."""
    points: list[Point]

    def counts(self) -> dict[str, int]:
        return {k: sum(p.kind == k for p in self.points) for k in KINDS}

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "configs": list(self.configs),
            "uncovered": [{"config": c, "why": w} for c, w in self.uncovered],
            "counts": self.counts(),
            "points": [p.to_dict() for p in self.points],
        }


def list_points(design: Any, cfgs: Iterable[Config]) -> Listing:
    """Every override point of ``design`` (a registered design object) in the text each of
    ``cfgs`` composes; one entry per (name, defining class), with the configurations it is in."""
    from replcheck.model.engine.catalogue import RegistryError, text_class

    seen: dict[tuple[str, str, str], Point] = {}
    names: list[str] = []
    uncovered: list[tuple[str, str]] = []
    for cfg in cfgs:
        try:
            cls = text_class(design, cfg)
        except (FlatError, RegistryError) as e:
            uncovered.append((cfg.name, str(e).removeprefix(f"{design.name}: ")))
            continue
        names.append(cfg.name)
        for p in text_points(cls):
            got = seen.setdefault((p.kind, p.name, p.owner), p)
            got.configs.append(cfg.name)
    points = list(seen.values())
    for p in design_rules(type(design)):
        p.configs = list(names)
        points.append(p)
    points.sort(key=lambda p: (p.in_design, p.module, p.owner, KINDS.index(p.kind), p.name))
    return Listing(design.name, names, uncovered, points)
