"""A mutant's text put together with its design's: overrides placed by name, steps wrapped,
families added, and names that two composed classes define refused unless declared.

A mutant (or a reviewer's design) writes what it changes in a text class (``Design.text``),
deriving from the component that defines it (``model/engine/step.py``). ``place`` puts it on top
of the text its design composes under a configuration (the components, each feature's mixin):
every name the mutant's text defines replaces that name as the composed text resolves it,
whatever class it derives from and wherever that class would land among the features. The
text's class never enters the composition's class order, so it can neither shadow a feature's
helper it does not name nor be shadowed by a feature's override of a name it does.
``super().name(...)`` in an override reaches what the composed text has under that name.

Two more forms a mutant's text may use:

* ``wrap(...)``: a step of the composed text with an extra guard, writes before or after its
  body, or one rule (or helper) replaced while it runs; its ``@step`` arguments (params,
  fairness, ``each``, ``label``) are the wrapped step's::

      rs_add_peer_step = ...
      cleaner_delete = wrap(guard=lambda self, t: t.cleaner_live[0])
      roll = wrap(after=lambda self, t, s, g: ...)
      cleaner_delete = wrap(rule={"rule_cleaner_may_delete": keeps_everything})

* ``added(...)``: a new variable family with a default, which every engine carries (the
  layout's slots, the readable state's ``extra`` field, symmetry)::

      claimed_once = added(("server",), BOOL, False, "the server claimed a queue once")

* ``components = (MultiCleaner,)``: whole components of the protocol text the mutant brings
  into a design that lacks them (``zk-lock/HBASE-12865`` runs zk-multi's cleaner in zk-lock),
  placed before the design's own, declared rather than implied by the text's base classes.

``check_clashes`` holds a composition to one rule: a name two composed classes define (a
component, a feature's mixin) resolves to one of them only if that one derives from the other,
reaches the other through ``super()``, or declares the name in ``replaces``.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from replcheck.model.engine.names import BOOL, FAMILIES, Family, Sort, family
from replcheck.model.engine.step import Gate, Step
from replcheck.model.engine.text import FlatError

Body = Callable[..., Any]


# --- wrapping a step ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wrap:
    """A step of the composed text of the same name, changed around its body (``wrap``)."""

    guard: Body | None = None
    before: Body | None = None
    after: Body | None = None
    rule: dict[str, Body] = field(default_factory=dict)
    doc: str = ""
    name: str = ""

    def __set_name__(self, owner: type, name: str) -> None:
        if not self.name:
            object.__setattr__(self, "name", name)

    def over(self, inner: Step) -> Step:
        """The wrapped step: ``inner``'s arguments, this wrap's body around ``inner``'s."""
        guard, before, after, body = self.guard, self.before, self.after, inner.body
        replaced = _replacing(self.rule, self.name) if self.rule else None

        def wrapped(text: Any, t: Any, *args: Any) -> None:
            if guard is not None:
                t.require(guard(text, t, *args))
            if before is not None and t.tx is not None:
                # a guard is the state before the step: the writes come after every conjunct
                before(text, t, *args)
                t.wrote = False
            body(text if replaced is None else replaced(text), t, *args)
            if after is not None:
                after(text, t, *args)

        wrapped.__doc__ = self.doc or body.__doc__
        wrapped.__name__ = self.name
        wrapped.__qualname__ = f"wrap.{self.name}"
        return dataclasses.replace(inner, body=wrapped, name=self.name)


def wrap(
    *,
    guard: Body | None = None,
    before: Body | None = None,
    after: Body | None = None,
    rule: dict[str, Body] | None = None,
    doc: str = "",
) -> Wrap:
    """A step wrapped: the composed text's step of the attribute's name, with its arguments.

    * ``guard(self, t, *args)``: one more conjunct, required before the step's own;
    * ``before(self, t, *args)``: writes made before the step's body (its body reads them);
      the guard is the step's own, on the state before the step;
    * ``after(self, t, *args)``: writes made after the step's body;
    * ``rule``: ``{name: function}``, a rule or helper of the text replaced while this step runs
      (``function(self, ...)`` takes what the method it replaces takes);
    * ``doc``: the action kind's description (the wrapped step's by default).
    """
    return Wrap(guard, before, after, dict(rule or {}), doc)


def _replacing(rule: dict[str, Body], name: str) -> Callable[[Any], Any]:
    """``text`` seen with ``rule``'s methods in place of its own: one object per text, sharing
    its attributes, made at first use."""
    subs: dict[type, type] = {}
    key = f"_wrapped_{name}"

    def view(text: Any) -> Any:
        got = text.__dict__.get(key)
        if got is None:
            cls = type(text)
            sub = subs.get(cls)
            if sub is None:
                sub = subs[cls] = type(cls.__name__, (cls,), dict(rule))
            got = object.__new__(sub)
            got.__dict__ = text.__dict__
            text.__dict__[key] = got
        return got

    return view


# --- adding a variable family ---------------------------------------------------------------------


SERVER_DIMS = frozenset({"server", "dead", "owner", "claimer", "target", "source"})
"""Dimensions that name a region server: renamed with it under symmetry (a ``wal`` dimension
is renamed as its server's WAL slot)."""

RANGES: dict[str, str] = {
    "server": "S",
    "dead": "S",
    "owner": "S",
    "claimer": "S",
    "target": "S",
    "source": "S",
    "peer": "P",
    "group": "G",
    "wal": "W",
}
"""The layout's range each dimension runs over (a layout attribute)."""


@dataclass(frozen=True)
class Added:
    """A variable family a mutant's text adds (``added``), with the value every slot starts
    with."""

    dims: tuple[str, ...]
    sort: Any
    """``"b"`` (Boolean) or ``("i", lo, hi)``."""
    default: Any
    doc: str
    name: str = ""

    def __set_name__(self, owner: type, name: str) -> None:
        if not self.name:
            object.__setattr__(self, "name", name)

    def declare(self, era: str) -> Family:
        """The family, declared once (a design file loaded again finds it declared)."""
        have = FAMILIES.get(self.name)
        if have is not None:
            if have.dims != self.dims or have.key != self.name:
                raise FlatError(f"{self.name}: a variable family of that name is declared")
            return have
        sort = BOOL if self.sort == "b" else Sort(f"integer {self.sort[1]}..{self.sort[2]}")
        return family(self.name, self.name, self.dims, sort, self.doc, era=era)

    def keys(self, layout: Any) -> list[tuple]:
        """Every variable of the family in ``layout``."""
        out: list[tuple] = [(self.name,)]
        for d in self.dims:
            values = getattr(layout, RANGES.get(d, ""), None)
            if values is None:
                known = ", ".join(RANGES)
                raise FlatError(f"{self.name}: no range for dimension {d!r} ({known})")
            out = [(*k, i) for k in out for i in values]
        return out


def added(dims: Iterable[str], sort: Any, default: Any, doc: str) -> Added:
    """A new variable family of the mutant's text: ``dims`` name its indexes (``server``,
    ``dead``, ``owner``, ``peer``, ``group``, ``wal``...), ``sort`` is ``BOOL`` (or ``"b"``) or
    ``("i", lo, hi)``, every variable starts at ``default``. The text reads and writes it by its
    attribute's name (``t.claimed_once[s]``)."""
    if sort is BOOL:
        sort = "b"
    if sort != "b" and not (isinstance(sort, tuple) and len(sort) == 3 and sort[0] == "i"):
        raise FlatError(f"added family: sort {sort!r} is neither BOOL nor ('i', lo, hi)")
    return Added(tuple(dims), sort, default, " ".join(doc.split()))


def _carrying(fams: list[Added], era: str) -> dict[str, Any]:
    """The layout methods that carry ``fams``: their slots, their values in the readable
    state's ``extra`` field (only those off their default), their symmetry kinds."""
    from replcheck.model.engine import packsym

    types_ = packsym.types_for(era)
    for a in fams:
        a.declare(era)
        positions = tuple(
            packsym.S_ if d in SERVER_DIMS else packsym.W_ if d == "wal" else None for d in a.dims
        )
        types_.setdefault(a.name, (positions, None, None))

    def sorts(self: Any) -> dict[tuple, Any]:
        out = super(cls, self).sorts()
        for a in fams:
            for k in a.keys(self):
                out[k] = a.sort
        return out

    def encode(self: Any, st: Any) -> dict[tuple, Any]:
        v = super(cls, self).encode(st)
        have = dict(getattr(st, "extra", ()))
        for a in fams:
            for k in a.keys(self):
                v[k] = have.get(k, a.default)
        return v

    def decode(self: Any, v: Any) -> Any:
        st = super(cls, self).decode(v)
        extra = tuple((k, v[k]) for a in fams for k in a.keys(self) if v[k] != a.default)
        return st._replace(extra=extra)

    cls: Any = None

    def bind(c: type) -> None:
        nonlocal cls
        cls = c

    return {"sorts": sorts, "encode": encode, "decode": decode, "_bind": bind}


# --- placing by name ------------------------------------------------------------------------------


def own_members(texts: Iterable[type]) -> dict[str, Any]:
    """What the text classes define themselves (dunders and ``handles`` aside), the first
    class's winning."""
    out: dict[str, Any] = {}
    for text in reversed(list(texts)):
        for n, v in vars(text).items():
            if n.startswith("__") or n in ("handles", "replaces", "components"):
                continue
            out[n] = v
    return out


def _rebound(fn: Any, cls: type) -> Any:
    """``fn`` with its ``__class__`` cell (``super()``) naming ``cls``."""
    if isinstance(fn, (staticmethod, classmethod)):
        return type(fn)(_rebound(fn.__func__, cls))
    if isinstance(fn, (Step, Gate)):
        return dataclasses.replace(fn, body=_rebound(fn.body, cls))
    if not inspect.isfunction(fn) or "__class__" not in fn.__code__.co_freevars:
        return fn
    cells = tuple(
        types.CellType(cls) if n == "__class__" else c
        for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True)
    )
    out = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__doc__ = fn.__doc__
    out.__qualname__ = fn.__qualname__
    out.__module__ = fn.__module__
    out.__dict__.update(fn.__dict__)
    return out


def place(
    base: type,
    texts: list[type],
    adds: Iterable[str] = (),
    *,
    era: str,
    label: str,
) -> type:
    """``base`` (a composed text) with what ``texts`` (a mutant's text classes, most derived
    first) define placed on top by name: a step, gate, rule or helper replaces the composed
    text's of that name, a ``wrap`` wraps its step, an ``added`` family is carried. A step or
    gate the composed text does not have (a feature this configuration does not use) is left
    out unless the mutant adds it (``adds``)."""
    brings = [
        c for text in texts for c in vars(text).get("components", ()) if c not in base.__mro__
    ]
    if brings:
        # components the mutant's text declares it brings: before the design's, as declared
        base = type(base.__name__, (*dict.fromkeys(brings), base), {"__doc__": base.__doc__})
    mine = own_members(texts)
    adds = set(adds)
    ns: dict[str, Any] = {}
    fams: list[Added] = []
    for n, v in mine.items():
        have = inspect.getattr_static(base, n, None)
        if isinstance(v, Added):
            fams.append(v)
        elif isinstance(v, Wrap):
            if not isinstance(have, Step):
                if have is None:
                    continue
                raise FlatError(f"{label}: wraps {n}, which is not a step of its text")
            ns[n] = v.over(have)
        elif isinstance(v, (Step, Gate)) and have is None and n not in adds:
            continue
        else:
            ns[n] = v
    carry = _carrying(fams, era) if fams else {}
    bind = carry.pop("_bind", None)
    ns.update(carry)
    ns["__doc__"] = base.__doc__
    # named as the mutant's text: what it defines is listed as its (``replcheck list --steps``)
    ns["__module__"] = texts[0].__module__
    ns["__qualname__"] = texts[0].__qualname__
    cls = type(texts[0].__name__, (base,), ns)
    if bind is not None:
        bind(cls)
    for n, v in ns.items():
        if n.startswith("__") or n in carry:
            continue
        got = _rebound(v, cls)
        if got is not v:
            setattr(cls, n, got)
    return cls


# --- what a composed text reaches ---------------------------------------------------------------


def reached(cls: type) -> dict[str, str]:
    """Every step, gate, rule and helper composed text ``cls`` reaches, by name, with its kind
    (``step``, ``gate``, ``rule``, ``helper``): what ``overrides.text_points`` lists, and also
    the helpers only an overridden definition calls (a feature's ``removal_done`` that calls
    ``super().removal_done`` and a helper of its own: every definition along the class order
    is read)."""
    from replcheck.model.engine.overrides import _references

    out: dict[str, str] = {}
    todo: list[str] = []
    for n in dir(cls):
        if n.startswith("_"):
            continue
        v = inspect.getattr_static(cls, n)
        kind = (
            "step"
            if isinstance(v, Step)
            else "gate"
            if isinstance(v, Gate)
            else "rule"
            if n.startswith("rule_")
            else ""
        )
        if kind:
            out[n] = kind
            todo.append(n)
    while todo:
        n = todo.pop()
        for c in cls.__mro__:
            fn = _function(vars(c).get(n))
            if fn is None:
                continue
            for ref in _references(fn):
                if ref in out or ref.startswith("_"):
                    continue
                if _function(inspect.getattr_static(cls, ref, None)) is None:
                    continue
                out[ref] = "helper"
                todo.append(ref)
    return out


# --- names two composed classes define ------------------------------------------------------------


def _function(v: Any) -> Any:
    if isinstance(v, (Step, Gate)):
        return v.body
    if isinstance(v, (staticmethod, classmethod)):
        return v.__func__
    return v if inspect.isfunction(v) else None


def _calls_super(fn: Any, name: str) -> bool:
    """Does ``fn`` reach ``name`` through ``super()``?"""
    from replcheck.model.engine.overrides import _references

    return fn is not None and name in _references(fn) and "super" in fn.__code__.co_names


def clashes(cls: type) -> list[str]:
    """Each name of composed text ``cls`` that one class defines over another's (a step, gate
    or method) without deriving from it, reaching it through ``super()`` or declaring it in its
    own ``replaces``: one line each."""
    out = []
    for n in dir(cls):
        if n.startswith("_"):
            continue
        owners = [c for c in cls.__mro__ if n in vars(c)]
        if len(owners) < 2:
            continue
        win = owners[0]
        v = vars(win)[n]
        fn = _function(v)
        if fn is None and not isinstance(v, (Step, Gate)):
            continue  # a class attribute: a feature's constants add up through the hierarchy
        if n in vars(win).get("replaces", ()) or _calls_super(fn, n):
            continue
        for o in owners[1:]:
            other = vars(o)[n]
            if issubclass(win, o) or (_function(other) is None and not isinstance(other, Step)):
                continue
            what = "step" if isinstance(other, Step) else "gate" if isinstance(other, Gate) else ""
            mine = _short(win)
            out.append(
                f"{mine}.{n} replaces {_short(o)}'s {what or 'method'} {n} ({o.__module__}); "
                f"rename it, or declare replaces = ({n!r},) in {mine}"
            )
    return out


def _short(c: type) -> str:
    """A class's name as written where it is defined (``Hbase3515.text``)."""
    return c.__qualname__.split(".<locals>.")[-1]


def check_clashes(cls: type, label: str) -> None:
    """``FlatError`` naming the first silent replacement in composed text ``cls``."""
    got = clashes(cls)
    if got:
        raise FlatError(f"{label}: {got[0]}")
