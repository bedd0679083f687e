"""Which of a text's instances to try in a state: steps indexed by what they first read.

The plain interpreter (``model/engine/plain.py``) must not run every instance's guard in every
state: a recorded run's layout has tens of thousands of instances (a shipper step's, per shipper
slot and head WAL), of which a state enables a handful. Two indexes, derived from what a step
declares it requires first (``lead``, ``model/engine/step.py``: the instance is filed under it
without being run) or from the text by running each instance's body on plain values (``probe``):

* **The leading requires.** A step that declares a ``lead``, or begins with ``require``s each
  over one slot (the server's current WAL is ``q``; that WAL holds ``j`` entries), is filed in
  a tree under the values of those slots that let it past them: the first require's slot and
  each value that passes it, then the second's, and so on while each level passes one value.
  For a body's requires the values are found by running the require with the slot given a
  value that records the constants it is compared with (``_Probe``): a require that only tests
  the slot for equality holds on those constants or everywhere else, so trying each of them
  and one other value decides it. A require that reads anything else, or does anything else
  with the slot (orders it, indexes with it, hashes it), ends the levels there. In a state only
  the branches the state's values take are walked.
* **The reads on the defaults**, for an instance with no leading require over one slot: its
  guard run once with every slot at its default, which reads a set of slots. If it is false
  there, it can hold only in a state where one of those slots holds another value (a guard
  reads the same slots in the same order, and decides the same, as long as what it reads is
  the same), so the instance is tried only in a state that wrote one of them.

Both are sound by construction (a declared lead is the guard's first conjuncts in every
engine), and ``tests/model/engine/test_plain.py`` holds the interpreter to the generated program on
whole state spaces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model.engine.step import Ctx, _Stop, steps_of
from replcheck.model.engine.text import FPY, is_true

DEPTH = 4
"""Leading requires looked at, at most."""


def written(v: Any, default: Any) -> bool:
    """Does a slot hold something other than its default (a bool and an int of equal value
    count as different: the index must not miss a slot a step wrote)?"""
    return v != default or type(v) is not type(default)


class Slots(dict):
    """A state's slot values held sparsely: the slots a step or the encoding wrote; every other
    slot reads its default. A successor copies its parent's written slots, not the layout."""

    __slots__ = ("defaults", "kept")

    def __init__(self, defaults: dict[tuple, Any], items: Any = ()) -> None:
        super().__init__(items)
        self.defaults = defaults
        self.kept: dict[Any, Any] = {}
        """What properties listed of this state (``text.listing``): a state's slots are not
        written once its properties are asked."""

    def __missing__(self, k: tuple) -> Any:
        return self.defaults[k]


class _Other(Exception):
    """The probed slot was used otherwise than compared for equality."""


class _Probe(int):
    """A slot's value that records the constants it is compared with for equality, and refuses
    every other use (ordering, arithmetic, indexing, hashing)."""

    seen: set[Any]

    def __eq__(self, o: object) -> bool:  # type: ignore[override]
        self.seen.add(o)
        return int(self) == o

    def __ne__(self, o: object) -> bool:  # type: ignore[override]
        self.seen.add(o)
        return int(self) != o

    def _other(self, *_a: Any) -> Any:
        raise _Other

    __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __index__ = __bool__ = _other
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = _other
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _other
    __lshift__ = __rshift__ = __mod__ = __floordiv__ = __truediv__ = _other


class _Done(Exception):
    """The require probed for was reached: ``holds`` says whether it passed."""

    def __init__(self, holds: bool) -> None:
        self.holds = holds


class _Upto(Ctx):
    """A guard run up to its ``n``-th require (counting from 0), which it reports."""

    __slots__ = ("left",)

    def __init__(self, get: Callable[[tuple], Any], n: int) -> None:
        super().__init__(FPY, get)
        self.left = n

    def require(self, *conds: Any) -> None:
        if self.left == 0:
            raise _Done(all(is_true(c) for c in conds))
        self.left -= 1
        super().require(*conds)


def probe(
    text: Any, body: Callable, args: tuple, sorts: dict[tuple, Any], defaults: dict[tuple, Any]
) -> list[tuple[tuple, frozenset]] | None:
    """The leading requires of one instance, as (slot, the values that pass it) per level;
    None if some level passes no value (the instance can never be enabled)."""
    fixed: dict[tuple, Any] = {}
    levels: list[tuple[tuple, frozenset]] = []

    def run(n: int, k: tuple | None, x: Any) -> tuple[bool | None, list[tuple], Any]:
        """Run to require ``n`` with slot ``k`` at ``x`` (``k`` None: the first integer slot
        read gets a ``_Probe`` of its default): (whether it passed, None if the run stopped
        before it; the slots read other than the levels'; the probe given, if any)."""
        reads: list[tuple] = []
        given: list[_Probe] = []

        def get(key: tuple) -> Any:
            if key in fixed:
                return fixed[key]
            reads.append(key)
            if key == k:
                return x
            if k is None and not given and sorts[key] != "b":
                p = _Probe(defaults[key])
                p.seen = set()
                given.append(p)
                return p
            return defaults[key]

        try:
            body(text, _Upto(get, n), *args)
        except _Done as done:
            return done.holds, reads, given[0] if given else None
        except (_Stop, _Other, TypeError):
            pass
        return None, reads, None

    while len(levels) < DEPTH:
        n = len(levels)
        held, reads, p = run(n, None, None)
        if held is None or len(set(reads)) != 1:
            break
        k = reads[0]
        sort, d = sorts[k], defaults[k]
        results = {d: held}
        if sort == "b":
            tries = [not d]
            off = None
        else:
            dom = range(sort[1], sort[2] + 1)
            consts = {c for c in p.seen if type(c) is int and c in dom}
            tries = [c for c in consts if c != d]
            off = d if d not in consts else next((v for v in dom if v not in consts), None)
            if off is not None and off != d:
                tries.append(off)
        for x in tries:
            got, r, _p = run(n, k, x)
            if got is None or set(r) != {k}:
                return levels  # it reads more than the slot for some value: stop here
            results[x] = got
        if off is not None and results[off]:
            break  # it holds off the compared constants too: not selective
        passing = [x for x, ok in results.items() if ok]
        if not passing:
            return None
        levels.append((k, frozenset(passing)))
        if len(passing) != 1:
            break
        fixed[k] = passing[0]
    return levels


class Tree:
    """Instances filed under the values of their leading requires' slots."""

    __slots__ = ("by", "dflt", "here")

    def __init__(self) -> None:
        self.here: list[int] = []
        self.by: dict[tuple, dict[Any, Tree]] = {}
        self.dflt: list[tuple[tuple, Tree]] = []
        """The branches a slot at its default value takes (``seal``)."""

    def add(self, i: int, levels: list[tuple[tuple, frozenset]]) -> None:
        if not levels:
            self.here.append(i)
            return
        (k, values), rest = levels[0], levels[1:]
        at = self.by.setdefault(k, {})
        for v in values:
            child = at.get(v)
            if child is None:
                child = at[v] = Tree()
            child.add(i, rest)

    def seal(self, defaults: dict[tuple, Any]) -> None:
        """Note, in every node, the branches of the slots at their defaults (once filed)."""
        self.dflt = []
        for k, at in self.by.items():
            for v, child in at.items():
                child.seal(defaults)
                if v == defaults[k] and type(v) is type(defaults[k]):
                    self.dflt.append((k, child))

    def walk(self, values: Any, out: set[int]) -> None:
        """Add the instances filed under the values of ``values`` (every slot, or a ``Slots``
        holding only those written: where a node branches on more slots than were written, the
        written ones are looked up, and every other slot takes its default's branch)."""
        out.update(self.here)
        by = self.by
        if isinstance(values, Slots) and len(values) < len(by):
            for k, child in self.dflt:
                if k not in values:
                    child.walk(values, out)
            for k, v in values.items():
                at = by.get(k)
                if at is not None:
                    child = at.get(v)
                    if child is not None:
                        child.walk(values, out)
            return
        for k, at in by.items():
            child = at.get(values[k])
            if child is not None:
                child.walk(values, out)


class Listed:
    """One kind's instances by their structural arguments, each instance built when first
    asked for (a state asks for a handful; building all of a shipper step's costs more than
    indexing them)."""

    def __init__(self, name: str, args: list[tuple], make: Callable[[tuple], Any]) -> None:
        self.name, self.args, self.make = name, args, make
        self.built: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self.args)

    def __getitem__(self, i: int) -> Any:
        got = self.built.get(i)
        if got is None:
            got = self.built[i] = self.make(self.args[i])
        return got


class Index:
    """The instances of a flat model to try in a state (see the module docstring)."""

    def __init__(
        self,
        text: Any,
        instances: Any,
        defaults: dict[tuple, Any],
        sorts: dict[tuple, Any] | None = None,
    ) -> None:
        """Index ``instances`` (a list, or one kind's ``Listed``); ``sorts``: the text's, if
        already known."""
        sorts = text.sorts() if sorts is None else sorts
        steps = steps_of(type(text))
        bodies = {s.name: s.body for s in steps}
        leads = {s.name: s.lead for s in steps if s.lead is not None}
        gated = {k for g in _gates(text) for k in g.kinds}
        self.tree = Tree()
        self.always: list[int] = []
        """Instances whose guard holds on the defaults and have no leading require."""
        self.under: dict[tuple, list[int]] = {}
        """Slot -> the instances with no leading require whose guard read it on the defaults
        and was false."""
        listed = isinstance(instances, Listed)
        for i in range(len(instances)):
            if listed:
                name, args = instances.name, instances.args[i]
            else:
                name, args = instances[i].name, instances[i].args
            lead = leads.get(name)
            if lead is not None:  # declared: filed under it, gates or not (it holds first)
                self.tree.add(i, [(k, frozenset({v})) for k, v in lead(text, *args)])
                continue
            inst = instances[i]
            body = bodies.get(inst.name)
            if body is not None and inst.name not in gated:
                levels = probe(text, body, inst.args, sorts, defaults)
                if levels is None:
                    continue  # never enabled
                if levels:
                    self.tree.add(i, levels)
                    continue
            reads: list[tuple] = []

            def get(k: tuple, reads: list[tuple] = reads) -> Any:
                reads.append(k)
                return defaults[k]

            if is_true(inst.guard(FPY, get)):
                self.always.append(i)
                continue
            for k in dict.fromkeys(reads):
                self.under.setdefault(k, []).append(i)
        self.tree.seal(defaults)

    def candidates(self, values: dict[tuple, Any], defaults: dict[tuple, Any]) -> list[int]:
        """The instances that may be enabled in ``values`` (every slot, or only those written,
        ``Slots``), in the flat model's order."""
        out = set(self.always)
        self.tree.walk(values, out)
        under = self.under
        if len(under) < len(values):  # one kind's index reads few slots: look those up
            for k, got in under.items():
                if k in values and written(values[k], defaults[k]):
                    out.update(got)
        else:
            for k, v in values.items():
                if written(v, defaults[k]):
                    got = under.get(k)
                    if got:
                        out.update(got)
        return sorted(out)


def _gates(text: Any) -> list[Any]:
    from replcheck.model.engine.step import gates_of

    return gates_of(type(text))
