"""Flat states and guarded updates: the one protocol text's form, which every engine reads.

A *flat state* maps a key, a tuple naming one variable (``("alive", 0)``, ``("qpos", 1, 0, 2, 3)``),
to a Boolean or an integer. A *flat model* (``FlatModel``) of a design under a configuration lists
its variables, their initial values, its *action instances* and its invariants:

* an action instance has every structural parameter fixed (which server, which queue slot, which
  WAL), so what it reads and writes is a fixed set of variables; its ``guard(ops, get)`` says when
  it is enabled and its ``apply(ops, tx)`` writes its updates into a ``Tx`` (later reads in the
  same step see earlier writes, as in the explicit step);
* an invariant is ``check(ops, get)``, a step property ``check(ops, before, after)``.

Steps are written with ``@step`` and ``require`` (``model/engine/step.py``), by HBase component
(``model/table/claim.py``, ``model/table/cleaner.py``, ...), over each era's layout
(``model/zk/layout.py``, ``model/table/layout.py``). Everything is written against
``Ops`` (``model/engine/logic.py``), so one text runs every way. On plain
Python values (``PY``) the test suite runs it side by side with the explicit model on every
reachable state of small configurations: the same successors, the same verdicts. Over Z3
(``specs/bmc.py``) it is the transition relation that bounded model checking unrolls and that
induction steps through. Decision rules are not written here: the flat model calls the design's
own dual-form rules (``generic_of``), so a rule-level mutant is encoded by what it overrides.

``Fold`` wraps a set of operations with constant folding, so that a guard over plain structure
(``True``/``False`` known while building) never reaches Z3 as a term.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from replcheck.model.engine.logic import PY, Ops
from replcheck.model.engine.names import Named, when

Key = tuple
Get = Callable[[Key], Any]


class Fold:
    """``Ops`` with constant folding of Boolean connectives and if-then-else; everything else is
    the wrapped operations'."""

    def __init__(self, inner: Ops) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def and_(self, *xs: Any) -> Any:
        rest = []
        for x in xs:
            if x is False:
                return False
            if x is not True:
                rest.append(x)
        if not rest:
            return True
        return rest[0] if len(rest) == 1 else self.inner.and_(*rest)

    def or_(self, *xs: Any) -> Any:
        rest = []
        for x in xs:
            if x is True:
                return True
            if x is not False:
                rest.append(x)
        if not rest:
            return False
        return rest[0] if len(rest) == 1 else self.inner.or_(*rest)

    def not_(self, x: Any) -> Any:
        if isinstance(x, bool):
            return not x
        return self.inner.not_(x)

    def implies(self, a: Any, b: Any) -> Any:
        return self.or_(self.not_(a), b)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(c, bool):
            return a if c else b
        if a is b or (type(a) is type(b) and isinstance(a, (bool, int)) and a == b):
            return a
        return self.inner.ite(c, a, b)

    def eq(self, a: Any, b: Any) -> Any:
        if isinstance(a, (bool, int)) and isinstance(b, (bool, int)):
            return a == b
        return self.inner.eq(a, b)


FPY = Fold(PY)


def is_true(x: Any) -> bool:
    """A guard or verdict computed on plain values."""
    return x is True or (isinstance(x, (bool, int)) and bool(x))


def off(x: Any) -> bool:
    """Is ``x`` a condition known false while building (a plain value)? On plain values a
    property then skips what the state does not hold, so it costs what the state holds, not
    what the layout could; on terms nothing is known and every position is written out."""
    return isinstance(x, (bool, int)) and not x


def recording(values: Mapping[Key, Any]) -> Get:
    """A reader of ``values`` that records the names of the slots it reads (its ``reads``):
    a property's evaluation on plain values read through one says what it depends on
    (``PlainModel`` keeps a verdict while a step writes none of them)."""
    reads: set[str] = set()
    add, look = reads.add, values.__getitem__

    def get(k: Key) -> Any:
        add(k[0])
        return look(k)

    get.reads = reads  # type: ignore[attr-defined]
    get.values = values  # type: ignore[attr-defined]
    return get


def listing(get: Get, key: Any, make: Callable[[Get], Any]) -> Any:
    """``make(get)``: a listing of the state that several properties make (its WALs'
    entries). Read through a ``recording`` reader of a state that keeps listings (a ``kept``
    dict: ``Slots``), it is made once per state and kept with the names of the slots it read,
    which every property that asks for it then reads too."""
    values = getattr(get, "values", None)
    kept = getattr(values, "kept", None)
    if kept is None:
        return make(get)
    hit = kept.get(key)
    if hit is None:
        sub = recording(values)  # type: ignore[arg-type]
        hit = kept[key] = (make(sub), sub.reads)  # type: ignore[attr-defined]
    get.reads.update(hit[1])  # type: ignore[attr-defined]
    return hit[0]


class FlatError(ValueError):
    """The design or configuration has no flat form here."""


class ByParts:
    """A layout that reads its readable state in parts, each from its own slots: ``PARTS``
    names each part's slots by key name (one part per index, the key's second element, for the
    parts in ``INDEXED``), ``decode_parts`` gives each part's reader and ``assemble`` the state
    from the parts. ``TextModel`` reads only the parts whose slots changed; a feature that
    decodes more after them overrides ``decode``, and is then decoded whole."""

    PARTS: ClassVar[dict[str, tuple[str, ...]]] = {}
    INDEXED: ClassVar[tuple[str, ...]] = ()

    def part_of(self, k: tuple) -> tuple | None:
        """The part slot ``k`` is read into (``("server", s)``, ``("sinks",)``), or None."""
        for part, names in self.PARTS.items():
            if k[0] in names:
                return (part, k[1]) if part in self.INDEXED else (part,)
        return None

    def decode_parts(self) -> list[tuple[tuple, Any]]:
        raise NotImplementedError

    def assemble(self, got: dict[tuple, Any]) -> Any:
        raise NotImplementedError

    def decode(self, v: Any) -> Any:
        return self.assemble({part: read(v) for part, read in self.decode_parts()})

    def defaults(self) -> dict[tuple, Any]:
        """Every variable at its default (the value of an unused slot): a fresh dict."""
        return dict(self.shared_defaults())

    def shared_defaults(self) -> dict[tuple, Any]:
        """``defaults``, computed from ``sorts`` once per layout and shared: not to be
        written."""
        got = self.__dict__.get("_defaults")
        if got is None:
            got = self.__dict__["_defaults"] = {
                k: (False if sort == "b" else (-1 if sort[1] == -1 else 0))
                for k, sort in self.sorts().items()  # type: ignore[attr-defined]
            }
        return got


class Tx(Named):
    """One step's writes over a flat state: reads see earlier writes of the same step. A
    family is read and written by its name too (``model/engine/names.py``)."""

    __slots__ = ("base", "new", "ops")

    def __init__(self, ops: Any, base: Mapping[Key, Any]) -> None:
        self.ops = ops
        self.base = base
        self.new: dict[Key, Any] = {}

    def __getitem__(self, k: Key) -> Any:
        new = self.new
        return new[k] if k in new else self.base[k]

    def __setitem__(self, k: Key, v: Any) -> None:
        self.new[k] = v

    def when(self, cond: Any, k: Key | None = None, v: Any = None) -> Any:
        """Write ``v`` to ``k`` if ``cond`` holds (leave it as it is otherwise). With ``cond``
        alone, what a write by family name lands under: ``tx.when(cond).name[i] = v``."""
        if k is None:
            return when(self, cond)
        if cond is False:
            return
        if cond is True:
            self.new[k] = v
        else:
            self.new[k] = self.ops.ite(cond, v, self[k])


@dataclass(frozen=True)
class Instance:
    """One action with every structural parameter fixed."""

    name: str
    args: tuple
    guard: Callable[[Any, Get], Any]
    apply: Callable[[Any, Tx], None]

    def label(self) -> str:
        return f"{self.name}{self.args}"


@dataclass(frozen=True)
class FlatProperty:
    name: str
    kind: str
    """``invariant``, ``step`` or ``liveness`` (a goal over the state that every fair behaviour
    must eventually reach and keep: ``check(ops, get)``)."""
    check: Callable[..., Any]
    doc: str = ""
    """The seed sentence it protects (its function's docstring, on one line)."""

    @classmethod
    def of(cls, kind: str, fn: Callable[..., Any], name: str = "") -> FlatProperty:
        """Function ``fn``'s property: its name and its docstring's seed quotation."""
        return cls(name or fn.__name__, kind, fn, " ".join((fn.__doc__ or "").split()))


@dataclass
class FlatModel:
    """A design under a configuration, flat. ``sorts`` gives each key ``"b"`` or ``("i", lo,
    hi)`` (the range every reachable value lies in); ``init`` the initial values."""

    design: str
    config: str
    sorts: dict[Key, Any]
    init: dict[Key, Any]
    instances: list[Instance]
    properties: list[FlatProperty]
    decode: Callable[[Mapping[Key, Any]], Any]
    """Plain flat state -> the explicit model's state."""
    encode: Callable[[Any], dict[Key, Any]]
    """The explicit model's state -> plain flat state."""
    notes: list[str] = field(default_factory=list)

    @property
    def invariants(self) -> list[FlatProperty]:
        return [p for p in self.properties if p.kind == "invariant"]

    @property
    def step_properties(self) -> list[FlatProperty]:
        return [p for p in self.properties if p.kind == "step"]

    def successors(self, values: Mapping[Key, Any]) -> Iterator[tuple[Instance, dict[Key, Any]]]:
        """On plain values: every enabled instance and the state it leads to."""
        get = values.__getitem__
        for inst in self.instances:
            if is_true(inst.guard(FPY, get)):
                tx = Tx(FPY, values)
                inst.apply(FPY, tx)
                nxt = dict(values)
                nxt.update(tx.new)
                yield inst, nxt

    def in_range(self, values: Mapping[Key, Any]) -> list[Key]:
        """Keys whose plain value lies outside its declared range (an encoding too small)."""
        bad = []
        for k, sort in self.sorts.items():
            v = values[k]
            if sort == "b":
                if not isinstance(v, bool):
                    bad.append(k)
            elif not (sort[1] <= v <= sort[2]):
                bad.append(k)
        return bad


def any_of(ops: Any, xs: Iterable[Any]) -> Any:
    """``ops.or_`` over ``xs``, taken one at a time: on plain values it stops at the first that
    holds (a guard over every queue of every server need not read them all)."""
    rest = []
    for x in xs:
        if x is True:
            return True
        rest.append(x)
    return ops.or_(*rest)


def count(ops: Any, conds: Iterable[Any]) -> Any:
    """How many of ``conds`` hold (an integer term)."""
    total: Any = 0
    for c in conds:
        if c is True:
            total = total + 1
        elif c is not False:
            total = total + ops.ite(c, 1, 0)
    return total


def lookup(ops: Any, x: Any, table: list[Any], default: Any = -1) -> Any:
    """``table[x]`` for an integer (term) ``x``; ``default`` outside the table."""
    if isinstance(x, int):
        return table[x] if 0 <= x < len(table) else default
    out = default
    for i, val in enumerate(table):
        out = ops.ite(x == i, val, out)
    return out


def case(ops: Any, x: Any, n: int, pred: Any) -> Any:
    """``pred(x)`` for an integer (term) ``x`` in ``0..n-1`` (False outside)."""
    if isinstance(x, int):
        return pred(x) if 0 <= x < n else False
    return ops.or_(*(ops.and_(x == i, pred(i)) for i in range(n)))
