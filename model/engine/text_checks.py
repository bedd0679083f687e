"""The protocol text's properties as ``Model``'s ``Property`` values: one definition of each
invariant, step property and liveness goal (the layout's ``properties()``, each quoting the seed
sentence it protects), checked by whichever engine runs the text.

* ``TextModel`` checks a state's invariants in one call of the generated program
  (``code.invariants``), a step's in one (``code.step_violations``), a state's goals in one
  (``code.goals``); a property's ``check`` reads that state's verdicts, computed once.
* ``PlainModel`` evaluates them on the state's slot values (``Ops`` on plain Python values).
  A successor's verdict is its parent's when the step wrote no slot of a name the parent's
  evaluation read (``text.recording``); a step property is evaluated only on a step that wrote a
  slot of a name it can read (``footprint``: the names it reads on a value of no known content,
  so on any state). A step writes a handful of names: this is what lets a recorded run's
  thousands of slots be checked on every replayed state.

A property's ``check`` takes the model's configuration and readable states, as every checker
calls it: ``check(cfg, st)`` for an invariant or a goal, ``check(cfg, before, after)`` for a
step property.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model.engine.properties import Property

OWN = ("encoding_capacity",)
"""The layout's own checks, not the protocol's properties (a slot array too small for a state
is refused as ``NotCovered`` where a successor is read)."""


def wanted(flat: list[Any]) -> list[Any]:
    return [p for p in flat if p.name not in OWN]


# --- on terms: which slot names a property reads -------------------------------------------------


class _Branch(Exception):
    """The text branched on a state's value outside ``Ops`` (a footprint cannot be known)."""


class _Any:
    """A value of no known content: what every slot reads while a footprint is taken, and what
    every operation on one gives."""

    __slots__ = ()

    def _same(self, *_a: Any) -> _Any:
        return ANY

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = _same
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __and__ = __or__ = __invert__ = _same
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _same  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise _Branch

    def __index__(self) -> int:
        raise _Branch

    __int__ = __index__


ANY = _Any()


class _AnyOps:
    """``Ops`` whose every operation gives ``ANY`` (a constant Boolean passes through the
    connectives, as ``Fold``'s do)."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return lambda *a, **k: ANY


def footprint(fp: Any) -> frozenset[str] | None:
    """The slot names (a key's first element) property ``fp`` reads on some state: the names it
    reads on terms, where nothing is known while building, so every position is read. None
    where that cannot be taken (the text branched on a value): the property is then evaluated on
    every state."""
    names: set[str] = set()

    def get(k: tuple) -> Any:
        names.add(k[0])
        return ANY

    try:
        if fp.kind == "step":
            fp.check(_AnyOps(), get, get)
        else:
            fp.check(_AnyOps(), get)
    except (_Branch, TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None
    return frozenset(names)


# --- the Model's Property values ------------------------------------------------------------------


def state_property(name: str, kind: str, doc: str, verdict: Callable[[Any, str], bool]) -> Property:
    """An invariant or a goal whose verdict on a state is ``verdict(st, name)``."""

    def check(cfg: Any, st: Any) -> bool:
        return verdict(st, name)

    check.__name__ = name
    return Property(name, kind, check, doc)


def step_property(name: str, doc: str, verdict: Callable[[Any, Any, str], bool]) -> Property:
    def check(cfg: Any, before: Any, after: Any) -> bool:
        return verdict(before, after, name)

    check.__name__ = name
    return Property(name, "step", check, doc)


def properties_of(
    flat: list[Any],
    on_state: Callable[[Any, str], bool],
    on_step: Callable[[Any, Any, str], bool],
) -> tuple[tuple[Property, ...], tuple[Property, ...], tuple[Property, ...]]:
    """(invariants, step properties, liveness goals) of the text's ``flat`` properties, in the
    text's order, checked by the engine's ``on_state`` and ``on_step``."""
    inv, step, live = [], [], []
    for p in wanted(flat):
        doc = p.doc
        if p.kind == "step":
            step.append(step_property(p.name, doc, on_step))
        else:
            (inv if p.kind == "invariant" else live).append(
                state_property(p.name, p.kind, doc, on_state)
            )
    return tuple(inv), tuple(step), tuple(live)
