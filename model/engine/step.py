"""Steps written once: ``@step``, ``require``, ``@gate``, and typed views of the slot layout.

A step of the protocol text is a method of a text class (a design's layout and steps)::

    @step(params=("server",), fair=True, each=lambda text: ((s,) for s in text.S))
    def open_table(self, t: Ctx, s: int) -> None:
        \"\"\"assign hbase:replication: write its open marker to a WAL\"\"\"
        t.require(t.ops.not_(Region(t).online), Server(t, s).alive)
        Region(t).online = True

* ``each(text)`` lists the structural arguments of the step's instances (which server, which
  WAL group): each instance reads and writes a fixed set of slots (``model/engine/text.py``).
* ``t.require(...)`` states the guard, one conjunct per argument, before any write. The body is
  the guard and the update at once: as a guard it runs until its first write (on plain values it
  stops at the first false conjunct), as an update it runs to the end. A ``require`` after a
  write is refused (``TextError``) the first time the step is taken.
* Reads and writes go through typed views (``View`` and ``slot``: a server's ``alive``, a queue
  row's column), or ``t[key]`` for a slot by its key. Reads after a write see the write.
* ``params``, ``fair`` and the docstring are the action kind's (``kinds_of`` gives the
  ``ActionKind`` table); ``label(text, st, get, args)`` gives the arguments the action is known
  by to traces and drawings when they are not the instance's own (an index into the readable
  state ``st``; ``get`` reads its slots).

``@gate(kind, ...)`` adds a guard that every instance of those kinds waits for (the region of
``hbase:replication`` being open, say), to steps in either form. A variable of the readable view
held in one slot is declared with ``Var``.

A mutant or a reviewer's design overrides one step, gate or rule by defining a method of the same
name in a subclass; every engine (plain values, Z3, generated Python, C) reads the same body.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from replcheck.model.engine.action import ActionKind
from replcheck.model.engine.logic import PY
from replcheck.model.engine.names import Family, Named, when
from replcheck.model.engine.text import Instance, Tx, lookup


class TextError(Exception):
    """A step that breaks the form: a ``require`` after a write."""


class _Stop(Exception):
    """The guard is decided: a write came (every conjunct was stated) or a plain conjunct was
    false."""

    def __init__(self, holds: bool) -> None:
        self.holds = holds


class Ctx(Named):
    """What a step body reads and writes through. As a guard it has no transaction: the first
    write ends the run. As an update it writes into ``tx`` and ``require`` checks the order.
    Every declared family is read and written by its name (``model/engine/names.py``):
    ``t.claim_target[d, p, src]``."""

    __slots__ = ("conds", "get", "ops", "tx", "wrote")

    def __init__(self, ops: Any, get: Callable[[tuple], Any], tx: Tx | None = None) -> None:
        self.ops = ops
        self.get = get
        self.tx = tx
        self.conds: list[Any] = []
        self.wrote = False

    def __getitem__(self, k: tuple) -> Any:
        return self.get(k)

    def _read(self) -> Callable[[tuple], Any]:
        return self.get

    def __setitem__(self, k: tuple, v: Any) -> None:
        if self.tx is None:
            raise _Stop(True)
        self.wrote = True
        self.tx[k] = v

    def when(self, cond: Any, k: tuple | None = None, v: Any = None) -> Any:
        """Write ``v`` to ``k`` if ``cond`` holds (``Tx.when``). With ``cond`` alone, what a
        write by family name lands under: ``t.when(ok).claim_target[d, p, src] = c``."""
        if k is None:
            return when(self, cond)
        if self.tx is None:
            raise _Stop(True)
        self.wrote = True
        self.tx.when(cond, k, v)

    def writes(self) -> Tx:
        """The step's transaction itself, for a helper that builds its writes with ``Tx``'s own
        methods; a guard stops here, as at a first write."""
        if self.tx is None:
            raise _Stop(True)
        self.wrote = True
        return self.tx

    def below(self, bound: int, lo: Any = 0, *limits: Any) -> range:
        """``below(bound, lo, *limits)``."""
        return below(bound, lo, *limits)

    def at(self, i: Any, n: int, key: Callable[[int], tuple], default: Any = -1) -> Any:
        """Slot ``key(i)`` for an index ``i`` the state holds: on plain values the one it names
        (``default`` outside ``0..n-1``), on terms a choice among ``key(0)`` .. ``key(n - 1)``."""
        if isinstance(i, int):
            return self.get(key(i)) if 0 <= i < n else default
        return lookup(self.ops, i, [self.get(key(x)) for x in range(n)], default)

    def require(self, *conds: Any) -> None:
        """Guard conjuncts: the step is enabled only where every one holds."""
        if self.tx is not None:
            if self.wrote:
                raise TextError("require after a write: state every guard first")
            return
        for c in conds:
            if isinstance(c, (bool, int)):
                if not c:
                    raise _Stop(False)
            else:
                self.conds.append(c)

    def guard(self) -> Any:
        if len(self.conds) < 2:
            return self.conds[0] if self.conds else True
        return self.ops.and_(*self.conds)


def below(bound: int, lo: Any = 0, *limits: Any) -> range:
    """The indexes of ``range(bound)`` a loop must visit when those outside ``lo <= i <
    min(limits)`` contribute nothing (each one's conjuncts say so): on plain values only those,
    on terms every one (which ones is not known while building). The plain interpreter's loops
    then cost what the state holds, not what the layout could."""
    if isinstance(lo, int) and all(isinstance(x, int) for x in limits):
        return range(max(lo, 0), min(bound, *limits) if limits else bound)
    return range(bound)


Body = Callable[..., None]


@dataclass(frozen=True)
class Step:
    """What ``@step`` makes of a method: the action kind and how to list its instances."""

    params: tuple[str, ...]
    fair: bool
    each: Callable[[Any], Iterable[tuple]]
    body: Body
    label: Callable[[Any, Any, Callable, tuple], tuple] | None = None
    name: str = ""
    lead: Callable[..., list[tuple[tuple, Any]]] | None = None
    """``lead(text, *args)``: the slots an instance requires first and the value each must hold
    (see ``step``)."""

    def __set_name__(self, owner: type, name: str) -> None:
        if not self.name:
            object.__setattr__(self, "name", name)

    @property
    def doc(self) -> str:
        return " ".join((self.body.__doc__ or "").split())

    def kind(self) -> ActionKind:
        return ActionKind(self.name, self.params, self.fair, self.doc)


def step(
    *,
    params: tuple[str, ...],
    fair: bool,
    each: Callable[[Any], Iterable[tuple]],
    label: Callable[[Any, Any, Callable, tuple], tuple] | None = None,
    lead: Callable[..., list[tuple[tuple, Any]]] | None = None,
) -> Callable[[Body], Step]:
    """Make a method a step of the text (see the module's docstring). ``lead(text, *args)``
    lists the slots an instance requires before its body's own ``require``s, each with the one
    value it must hold (a Boolean slot ``True`` or ``False``): every engine reads them as the
    guard's first conjuncts, and the plain interpreter files the instance under them
    (``model/engine/plain_index.py``) without running it, which for a step of tens of thousands of
    instances (a shipper's, one per slot and head WAL) is most of what indexing costs."""

    def make(body: Body) -> Step:
        return Step(params, fair, each, body, label, "", lead)

    return make


def before(base: Step) -> Callable[[Body], Step]:
    """A mutant's step: ``base`` with the decorated body run first, same arguments, parameters,
    instances, label and fairness. Its ``require``s guard the step too, so an added guard is a
    ``before`` that only requires::

        class text(Claims):
            @before(Claims.claim_commit)
            def claim_commit(self, t, c, m):
                t.require(t.claim_pending[c, m])
    """

    def make(body: Body) -> Step:
        def both(text: Any, t: Any, *args: Any) -> None:
            body(text, t, *args)
            base.body(text, t, *args)

        both.__doc__ = base.body.__doc__
        return replace(base, body=both, name="")

    return make


def after(base: Step) -> Callable[[Body], Step]:
    """A mutant's step: ``base`` with the decorated body run after it, same arguments,
    parameters, instances, label and fairness (one more write, say)."""

    def make(body: Body) -> Step:
        def both(text: Any, t: Any, *args: Any) -> None:
            base.body(text, t, *args)
            body(text, t, *args)

        both.__doc__ = base.body.__doc__
        return replace(base, body=both, name="")

    return make


@dataclass(frozen=True)
class Gate:
    """A guard every instance of ``kinds`` waits for: ``body(text, t, *args)`` requires it."""

    kinds: frozenset[str]
    body: Body


def gate(*kinds: str) -> Callable[[Body], Gate]:
    def make(body: Body) -> Gate:
        return Gate(frozenset(kinds), body)

    return make


def _members(cls: type, kind: type) -> dict[str, Any]:
    """The ``kind`` members of ``cls`` by name, a subclass's definition winning."""
    out: dict[str, Any] = {}
    for c in reversed(cls.__mro__):
        for name, v in vars(c).items():
            if isinstance(v, kind):
                out[name] = v
            elif name in out:
                del out[name]
    return out


def steps_of(cls: type) -> list[Step]:
    return list(_members(cls, Step).values())


def gates_of(cls: type) -> list[Gate]:
    return list(_members(cls, Gate).values())


def kinds_of(cls: type) -> tuple[ActionKind, ...]:
    """The action kinds of the ``@step`` methods of ``cls``."""
    return tuple(s.kind() for s in steps_of(cls))


def holds(ops: Any, x: Any, v: Any) -> Any:
    """Slot value ``x`` is ``v`` (a Boolean slot read as itself or negated)."""
    if v is True:
        return x
    if v is False:
        return ops.not_(x)
    return x == v


def guard_of(
    text: Any, body: Body, args: tuple, leads: list[tuple[tuple, Any]] = ()
) -> Callable[[Any, Callable], Any]:
    def guard(ops: Any, get: Callable) -> Any:
        t = Ctx(ops, get)
        try:
            for k, v in leads:
                t.require(holds(ops, get(k), v))
            body(text, t, *args)
        except _Stop as stop:
            if not stop.holds:
                return False
        return t.guard()

    return guard


def instance(text: Any, st: Step, args: tuple) -> Instance:
    """The instance of step ``st`` with structural arguments ``args``."""

    normal = getattr(text, "normal_form", None)

    def apply(ops: Any, tx: Tx) -> None:
        st.body(text, Ctx(ops, tx.__getitem__, tx), *args)
        if normal is not None:
            normal(
                ops, tx
            )  # the copies it wrote back in their one order (``model/engine/copies.py``)

    leads = st.lead(text, *args) if st.lead is not None else ()
    return Instance(st.name, args, guard_of(text, st.body, args, leads), apply)


def gated(text: Any, gates: list[Gate], inst: Instance) -> Instance:
    """``inst`` waiting for every gate of its kind (the gates' conjuncts first)."""
    mine = [g for g in gates if inst.name in g.kinds]
    if not mine:
        return inst
    checks = [guard_of(text, g.body, inst.args) for g in mine]
    inner = inst.guard

    def guard(ops: Any, get: Callable) -> Any:
        return ops.and_(*(c(ops, get) for c in checks), inner(ops, get))

    return Instance(inst.name, inst.args, guard, inst.apply)


def instances_of(text: Any, others: Iterable[Instance] = ()) -> list[Instance]:
    """Every instance of the text: ``others`` (steps not yet in ``@step`` form, the ZooKeeper
    era's) and each ``@step``'s, each waiting for its gates."""
    cls = type(text)
    out = list(others)
    for st in steps_of(cls):
        out.extend(instance(text, st, tuple(args)) for args in st.each(text))
    gates = gates_of(cls)
    return [gated(text, gates, i) for i in out]


def labels_of(cls: type) -> dict[str, Callable[[Any, Any, Callable, tuple], tuple]]:
    """The ``label`` of each ``@step`` of ``cls`` that has one."""
    return {s.name: s.label for s in steps_of(cls) if s.label is not None}


# --- the layout ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    """A field of the readable state held in one slot: ``key``, of sort ``"b"`` or ``("i", lo,
    hi)``."""

    key: tuple
    sort: Any
    field: str


def variables_of(cls: type) -> list[Var]:
    """The ``variables`` every class of ``cls``'s hierarchy declares."""
    out: list[Var] = []
    for c in reversed(cls.__mro__):
        for v in vars(c).get("variables", ()):
            if v not in out:
                out.append(v)
    return out


class Reader(Named):
    """A plain ``get`` function as the ``t[key]`` a view reads through (and its families by
    name, ``model/engine/names.py``) (properties and rules
    are given ``get``), with the operations ``t.ops`` a rule computes with (plain values unless
    given others)."""

    __slots__ = ("get", "ops")

    def __init__(self, get: Callable[[tuple], Any], ops: Any = PY) -> None:
        self.get = get
        self.ops = ops

    def __getitem__(self, k: tuple) -> Any:
        return self.get(k)

    def _read(self) -> Callable[[tuple], Any]:
        return self.get


class View:
    """A typed view of part of the layout: ``key`` is what names it (a server, a row key)."""

    __slots__ = ("key", "t")

    def __init__(self, t: Any, *key: Any) -> None:
        self.t = t if hasattr(t, "__getitem__") else Reader(t)
        self.key = key


class Column:
    """A slot family indexed once more (a row's column per WAL group)."""

    __slots__ = ("key", "t")

    def __init__(self, t: Any, key: tuple) -> None:
        self.t = t
        self.key = key

    def __getitem__(self, i: Any) -> Any:
        return self.t[(*self.key, i)]

    def __setitem__(self, i: Any, v: Any) -> None:
        self.t[(*self.key, i)] = v


class slot:
    """The slot ``(family, *view.key)`` of a view, or with ``by`` the column of slots
    ``(family, *view.key, i)``; ``family`` a declared ``Family`` (``model/engine/names.py``) or
    its key."""

    def __init__(self, family: Family | str, *, by: str = "") -> None:
        self.family = family.key if isinstance(family, Family) else family
        self.by = by

    def __get__(self, view: View | None, owner: type | None = None) -> Any:
        if view is None:
            return self
        if self.by:
            return Column(view.t, (self.family, *view.key))
        return view.t[(self.family, *view.key)]

    def __set__(self, view: View, value: Any) -> None:
        if self.by:
            raise TextError(f"{self.family}: write one column, not the whole {self.by}")
        view.t[(self.family, *view.key)] = value
