"""A composed text that cannot lose a step: the rule every composition of classes is held to.

A design's text is joined from many classes by inheritance: the era's components, each
configuration feature's mixin, a mutant's text (``catalogue.text_class``). When two of them define
one name, the first in the method resolution order wins, and without a check a helper could
silently take a step's place: sync replication's ``roll(ops, t, cond, s, g)`` helper once hid the
WAL feature's ``roll`` step in every sync configuration, so no WAL could roll there.

``check_composition`` walks, for every name two classes of a composed text define, each class
that defines it and the next one below, and refuses the pair unless

* the upper definition extends the lower one: it calls ``super().NAME``;
* the lower one is a hook left to be filled: its body is empty, ``...``, ``pass``,
  ``raise NotImplementedError`` or ``return`` of a constant (``return True``, ``return []``);
* the upper one declares that it replaces the lower class's, with ``@replaces(Lower)``; or
* the upper class is a mutant's text, whose point is to replace what its ``overrides`` names
  (the registry holds it to that).

A mutant's text is never replaced from above, hook or not: its override would change nothing
(a reviewer's ``cleaner_run_ok`` under a configuration whose ``cleaner_input`` feature
replaces it explored exactly as the correct design).

A step is never hidden by something that is not a step, whatever is declared: that is how a
step would disappear. The error is one line naming both classes, their files and the name.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import Any, TypeVar

from replcheck.model.engine.step import Gate, Step
from replcheck.model.engine.text import FlatError

F = TypeVar("F")


class CompositionError(FlatError):
    """Two classes of a composed text define one name, and neither extends nor declares."""


def replaces(*lower: type) -> Callable[[F], F]:
    """Declare that the decorated method (a step, a gate or a helper) replaces the definition
    of the same name in ``lower``, on purpose and without calling it."""

    def mark(v: F) -> F:
        fn = _function(v)
        if fn is None:
            raise TypeError(f"@replaces applies to a method, a step or a gate, not {v!r}")
        fn.__replaces__ = lower  # type: ignore[attr-defined]
        return v

    return mark


def _function(v: Any) -> Callable[..., Any] | None:
    if isinstance(v, (Step, Gate)):
        return v.body
    if isinstance(v, (staticmethod, classmethod)):
        v = v.__func__
    if isinstance(v, property):
        v = v.fget
    return v if inspect.isfunction(v) else None


_TREES: dict[Callable[..., Any], ast.FunctionDef | None] = {}


def _tree(fn: Callable[..., Any]) -> ast.FunctionDef | None:
    if fn not in _TREES:
        try:
            node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
        except (OSError, TypeError, SyntaxError, IndexError):
            node = None
        _TREES[fn] = node if isinstance(node, ast.FunctionDef) else None
    return _TREES[fn]


def extends(fn: Callable[..., Any], name: str) -> bool:
    """Does ``fn`` call the definition it overrides (``super().NAME``)?"""
    node = _tree(fn)
    return node is not None and any(
        isinstance(n, ast.Attribute)
        and n.attr == name
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Name)
        and n.value.func.id == "super"
        for n in ast.walk(node)
    )


def is_hook(fn: Callable[..., Any]) -> bool:
    """Is ``fn`` a place left to be filled: nothing but a docstring, ``pass``, ``...``,
    ``raise NotImplementedError`` or ``return`` of a constant or an empty literal?"""
    node = _tree(fn)
    if node is None:
        return False
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if not body:
        return True
    if len(body) != 1:
        return False
    (only,) = body
    if isinstance(only, ast.Pass):
        return True
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant):
        return True
    if isinstance(only, ast.Raise):
        exc = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    if isinstance(only, ast.Return):
        v = only.value
        empty = isinstance(v, (ast.List, ast.Tuple, ast.Dict, ast.Set)) and not (
            getattr(v, "elts", None) or getattr(v, "keys", None)
        )
        return v is None or isinstance(v, ast.Constant) or empty
    return False


def module_file(c: type) -> str:
    """Where class ``c`` is written: ``model/zk/wal.py`` for the package's, else its file."""
    mod = c.__module__
    if mod.startswith("replcheck.model."):
        return "model/" + mod.removeprefix("replcheck.model.").replace(".", "/") + ".py"
    try:
        return inspect.getsourcefile(c) or mod
    except TypeError:
        return mod


def _label(c: type) -> str:
    return f"{c.__qualname__.replace('.<locals>', '')} ({module_file(c)})"


def _what(v: Any) -> str:
    return "step" if isinstance(v, Step) else "gate" if isinstance(v, Gate) else "method"


def problems(cls: type, mutant_texts: Iterable[type] = ()) -> list[str]:
    """Each pair of definitions of one name in ``cls``'s classes the rule above refuses."""
    exempt = set(mutant_texts)
    mro = [c for c in cls.__mro__ if c is not object]
    found: list[str] = []
    names = sorted({n for c in mro for n in vars(c) if not n.startswith("__")})
    for name in names:
        chain = [(c, vars(c)[name]) for c in mro if name in vars(c)]
        chain = [(c, v) for c, v in chain if _function(v) is not None]
        for (upper, hv), (lower, lv) in pairwise(chain):
            hf, lf = _function(hv), _function(lv)
            assert hf is not None and lf is not None
            if isinstance(lv, Step) and not isinstance(hv, Step):
                found.append(
                    f"{name}: the {_what(hv)} of {_label(upper)} hides the step of "
                    f"{_label(lower)}, which then disappears from the design; rename the "
                    f"{_what(hv)}"
                )
                continue
            declared = getattr(hf, "__replaces__", ())
            if lower in exempt and upper not in exempt and not extends(hf, name):
                found.append(
                    f"{name}: the mutant's override in {_label(lower)} never runs here: the "
                    f"{_what(hv)} of {_label(upper)} replaces it; derive the mutant's text "
                    f"from {upper.__name__} and override that"
                )
                continue
            if upper in exempt or lower in declared or extends(hf, name) or is_hook(lf):
                continue
            if declared:
                named = ", ".join(c.__name__ for c in declared)
                found.append(
                    f"{name}: {_label(upper)} declares it replaces {named}'s, but the "
                    f"{_what(lv)} it replaces is {_label(lower)}'s"
                )
                continue
            found.append(
                f"{name}: the {_what(hv)} of {_label(upper)} replaces the {_what(lv)} of "
                f"{_label(lower)} without calling it; call super().{name}(...) to extend it, or "
                f"declare @replaces({lower.__name__}) (model/engine/composition.py)"
            )
    return found


_CHECKED: set[tuple[type, frozenset[type]]] = set()


def check_composition(cls: type, mutant_texts: Iterable[type] = ()) -> None:
    """Refuse composed text ``cls`` (``CompositionError``, one line) when one of its classes
    hides or replaces another's definition unannounced; ``mutant_texts`` are the classes a
    mutant brings, which replace on purpose."""
    key = (cls, frozenset(mutant_texts))
    if key in _CHECKED:
        return
    found = problems(cls, key[1])
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise CompositionError(f"{cls.__name__}: {found[0]}{more}")
    _CHECKED.add(key)
