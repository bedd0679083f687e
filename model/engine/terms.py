"""A flat model traced into one shared expression graph: the input of the compiled back ends.

The protocol text (``model/``, over each era's layout) is written against ``Ops``, so it runs on
plain values and on Z3 terms. ``TermOps`` is a third implementation: every operation builds a node
of one hash-consed directed acyclic graph (``Graph``), so equal subexpressions of different
instances, invariants and writes are one node. Tracing a ``FlatModel`` through it (``trace``) gives
a ``Program``:

* the slots of the packed state, in a fixed order, with each slot's range;
* per action instance, its guard as a list of conjuncts (evaluated in order, stopping at the first
  false one) and its writes, each a node over the state before the step (``Tx`` semantics: a read
  after a write in the same step sees the write, which the trace folds in);
* per invariant a node over the state, per step property a node over the states before
  (``var``) and after (``post``) the step.

A node is ``(op, args)``; the ops are listed in ``OPS``. Booleans are the integers 0 and 1. A flat
text that branches in Python on a value that depends on the state (``if get(k):``) cannot be
traced, and says so (``TraceError``): such a branch would be frozen at trace time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from replcheck.model.engine.text import FlatModel, Fold, Tx

OPS = (
    "const",  # (value,)
    "var",  # (slot,) the state (before the step)
    "post",  # (slot,) the state after the step (step properties)
    "not",  # (x,)
    "and",  # (x, y, ...) short-circuit
    "or",  # (x, y, ...) short-circuit
    "ite",  # (c, a, b) lazy
    "eq",
    "ne",
    "lt",
    "le",
    "add",
    "sub",
    "mul",
    "neg",  # (x,)
)
OPCODE = {name: i for i, name in enumerate(OPS)}


class TraceError(TypeError):
    """The flat text used a state-dependent value where only a constant can go."""


class Term:
    """A node of a ``Graph``, with Python's arithmetic and comparison operators."""

    __slots__ = ("g", "n")

    def __init__(self, g: Graph, n: int) -> None:
        self.g = g
        self.n = n

    def __hash__(self) -> int:
        return hash((id(self.g), self.n))

    def __bool__(self) -> bool:
        raise TraceError("a state-dependent value is used in Python control flow")

    def __index__(self) -> int:
        raise TraceError("a state-dependent value is used as an index")

    def _bin(self, op: str, other: Any, swap: bool = False) -> Any:
        a, b = (other, self) if swap else (self, other)
        return self.g.node(op, self.g.lift(a), self.g.lift(b))

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        return self._bin("eq", o)

    def __ne__(self, o: Any) -> Any:  # type: ignore[override]
        return self._bin("ne", o)

    def __lt__(self, o: Any) -> Any:
        return self._bin("lt", o)

    def __le__(self, o: Any) -> Any:
        return self._bin("le", o)

    def __gt__(self, o: Any) -> Any:
        return self._bin("lt", o, swap=True)

    def __ge__(self, o: Any) -> Any:
        return self._bin("le", o, swap=True)

    def __add__(self, o: Any) -> Any:
        return self._bin("add", o)

    def __radd__(self, o: Any) -> Any:
        return self._bin("add", o, swap=True)

    def __sub__(self, o: Any) -> Any:
        return self._bin("sub", o)

    def __rsub__(self, o: Any) -> Any:
        return self._bin("sub", o, swap=True)

    def __mul__(self, o: Any) -> Any:
        return self._bin("mul", o)

    def __rmul__(self, o: Any) -> Any:
        return self._bin("mul", o, swap=True)

    def __neg__(self) -> Any:
        return self.g.node("neg", self.n)

    def __repr__(self) -> str:
        return f"<term {self.g.show(self.n)}>"


_FOLD = {
    "eq": lambda a, b: int(a == b),
    "ne": lambda a, b: int(a != b),
    "lt": lambda a, b: int(a < b),
    "le": lambda a, b: int(a <= b),
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
}


@dataclass
class Graph:
    """The hash-consed nodes: ``nodes[n] = (op, args)``; an argument of an operator is a node
    number, the argument of ``const``/``var``/``post`` a value or a slot."""

    nodes: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    index: dict[tuple[str, tuple[int, ...]], int] = field(default_factory=dict)

    def intern(self, op: str, args: tuple[int, ...]) -> int:
        key = (op, args)
        n = self.index.get(key)
        if n is None:
            n = self.index[key] = len(self.nodes)
            self.nodes.append(key)
        return n

    def const(self, v: int) -> int:
        return self.intern("const", (int(v),))

    def lift(self, x: Any) -> int:
        if isinstance(x, Term):
            return x.n
        if isinstance(x, (bool, int)):
            return self.const(x)
        raise TraceError(f"not an integer or Boolean: {x!r}")

    def value(self, n: int) -> int | None:
        op, args = self.nodes[n]
        return args[0] if op == "const" else None

    def out(self, n: int) -> Any:
        """A node as the flat text sees it: a plain value when it is a constant."""
        v = self.value(n)
        return Term(self, n) if v is None else v

    def node(self, op: str, *args: int) -> Any:
        vals = [self.value(a) for a in args]
        if op in _FOLD and None not in vals:
            return _FOLD[op](*vals)
        if op == "neg" and vals[0] is not None:
            return -vals[0]
        if op in ("eq", "le") and args[0] == args[1]:
            return 1
        if op in ("ne", "lt") and args[0] == args[1]:
            return 0
        return Term(self, self.intern(op, args))

    def show(self, n: int, depth: int = 3) -> str:
        op, args = self.nodes[n]
        if op in ("const", "var", "post") or depth == 0:
            return f"{op}{args}" if depth else "..."
        return f"{op}(" + ", ".join(self.show(a, depth - 1) for a in args) + ")"


class TermOps:
    """``Ops`` over a ``Graph`` (integers and Booleans only: the flat steps use no strings)."""

    def __init__(self, g: Graph) -> None:
        self.g = g

    def _bools(self, xs: tuple[Any, ...]) -> list[int]:
        return [self.g.lift(x) for x in xs]

    def and_(self, *xs: Any) -> Any:
        args: list[int] = []
        for n in self._bools(xs):
            v = self.g.value(n)
            if v is not None:
                if not v:
                    return False
                continue
            op, sub = self.g.nodes[n]
            for m in sub if op == "and" else (n,):
                if m not in args:
                    args.append(m)
        if not args:
            return True
        return (
            self.g.out(args[0])
            if len(args) == 1
            else Term(self.g, self.g.intern("and", tuple(args)))
        )

    def or_(self, *xs: Any) -> Any:
        args: list[int] = []
        for n in self._bools(xs):
            v = self.g.value(n)
            if v is not None:
                if v:
                    return True
                continue
            op, sub = self.g.nodes[n]
            for m in sub if op == "or" else (n,):
                if m not in args:
                    args.append(m)
        if not args:
            return False
        return (
            self.g.out(args[0])
            if len(args) == 1
            else Term(self.g, self.g.intern("or", tuple(args)))
        )

    def not_(self, x: Any) -> Any:
        n = self.g.lift(x)
        v = self.g.value(n)
        if v is not None:
            return not v
        op, sub = self.g.nodes[n]
        if op == "not":
            return self.g.out(sub[0])
        return Term(self.g, self.g.intern("not", (n,)))

    def implies(self, a: Any, b: Any) -> Any:
        return self.or_(self.not_(a), b)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        cn, an, bn = self.g.lift(c), self.g.lift(a), self.g.lift(b)
        v = self.g.value(cn)
        if v is not None:
            return self.g.out(an if v else bn)
        if an == bn:
            return self.g.out(an)
        return Term(self.g, self.g.intern("ite", (cn, an, bn)))

    def eq(self, a: Any, b: Any) -> Any:
        return self.g.node("eq", self.g.lift(a), self.g.lift(b))

    def __getattr__(self, name: str) -> Any:
        raise TraceError(f"the flat text uses {name!r}, which the compiled back ends lack")


@dataclass
class Program:
    """A flat model traced into a ``Graph`` (module docstring)."""

    design: str
    config: str
    graph: Graph
    keys: list[tuple]
    """Slot ``i`` holds flat variable ``keys[i]``."""
    lo: list[int]
    hi: list[int]
    init: list[int]
    names: list[str]
    """Per instance, its action's name."""
    args: list[tuple]
    guards: list[list[int]]
    """Per instance, its conjuncts (nodes), in order."""
    writes: list[list[tuple[int, int]]]
    """Per instance, (slot, node) pairs: the slot's value after the step."""
    invariants: list[tuple[str, int]]
    step_properties: list[tuple[str, int]]
    goals: list[tuple[str, int]]
    """Per liveness property, its goal: a node over the state."""

    @property
    def slot(self) -> dict[tuple, int]:
        return {k: i for i, k in enumerate(self.keys)}

    def pack(self, values: Mapping[tuple, Any]) -> tuple[int, ...]:
        get = self.__dict__.get("_getter")
        if get is None:
            get = self.__dict__["_getter"] = itemgetter(*self.keys) if len(self.keys) > 1 else None
        if get is None:
            return tuple(int(values[k]) for k in self.keys)
        return tuple(map(int, get(values)))

    def unpack(self, state: tuple[int, ...]) -> dict[tuple, Any]:
        out = dict(zip(self.keys, state, strict=True))
        bool_keys, pick = self._bool_slots()
        out.update(zip(bool_keys, map(bool, pick(state)), strict=True))
        return out

    def _bool_slots(self) -> tuple[list[tuple], Callable[[tuple[int, ...]], tuple[int, ...]]]:
        """The keys of the Boolean slots and a getter of their values, built at first use."""
        got = self.__dict__.get("_bools")
        if got is None:
            at = [i for i, b in enumerate(self.bools) if b]
            keys = [self.keys[i] for i in at]
            if len(at) == 1:
                pick: Callable = lambda s: (s[at[0]],)  # noqa: E731
            else:
                pick = (lambda s: ()) if not at else itemgetter(*at)
            got = self.__dict__["_bools"] = (keys, pick)
        return got

    bools: list[bool] = field(default_factory=list)


def conjuncts(g: Graph, n: int) -> list[int]:
    """A Boolean node as the list of its top-level conjuncts."""
    op, sub = g.nodes[n]
    return list(sub) if op == "and" else [n]


def supports(g: Graph) -> tuple[list[int], list[int]]:
    """Per node, the slots it reads before the step and after it, as bit sets."""
    pre: list[int] = []
    post: list[int] = []
    for op, args in g.nodes:
        if op == "const":
            pre.append(0), post.append(0)
        elif op == "var":
            pre.append(1 << args[0]), post.append(0)
        elif op == "post":
            pre.append(0), post.append(1 << args[0])
        else:
            a = b = 0
            for x in args:
                a |= pre[x]
                b |= post[x]
            pre.append(a), post.append(b)
    return pre, post


def without_post(g: Graph, n: int, memo: dict[int, Any] | None = None) -> Any:
    """Node ``n`` with every slot after the step read as the slot before it (the step that
    changes nothing), folded: ``1`` when a step property's conjunct holds of every stutter."""
    memo = {} if memo is None else memo
    if n in memo:
        return memo[n]
    op, args = g.nodes[n]
    ops = TermOps(g)
    if op == "const":
        out: Any = args[0]
    elif op in ("var", "post"):
        out = Term(g, g.intern("var", args))
    else:
        xs = [without_post(g, x, memo) for x in args]
        if op == "and":
            out = ops.and_(*xs)
        elif op == "or":
            out = ops.or_(*xs)
        elif op == "not":
            out = ops.not_(xs[0])
        elif op == "ite":
            out = ops.ite(*xs)
        elif op == "neg":
            out = g.node("neg", g.lift(xs[0]))
        else:
            out = g.node(op, g.lift(xs[0]), g.lift(xs[1]))
    memo[n] = out
    return out


@dataclass
class Frames:
    """Which property conjuncts a step can change. A state's successor by instance ``i`` differs
    from it only in the slots ``i`` writes, so an invariant conjunct that reads none of them
    holds of the successor when it held of the state; a step property's conjunct that reads
    none of them after the step holds when it holds of every stutter (``without_post``)."""

    inv: list[tuple[int, int]]
    """(invariant, node) per invariant conjunct."""
    step: list[tuple[int, int]]
    """(step property, node) per step property conjunct."""
    inv_of: list[list[int]]
    """Per instance, the invariant conjuncts (indexes into ``inv``) to evaluate after it."""
    step_of: list[list[int]]
    guards_of: list[list[int]]
    """Per instance, the instances whose guards read a slot it writes: the only ones whose
    enabledness it can change."""


def _holds(x: Any) -> bool:
    return isinstance(x, (bool, int)) and bool(x)


def frames(p: Program) -> Frames:
    """``p``'s frames, computed once per program (the C step table, its kernels and generated
    Python all read them)."""
    got = p.__dict__.get("_frames")
    if got is None:
        got = p.__dict__["_frames"] = _frames(p)
    return got


def _frames(p: Program) -> Frames:
    g = p.graph
    pre, post = supports(g)
    inv = [(j, c) for j, (_name, n) in enumerate(p.invariants) for c in conjuncts(g, n)]
    step = [(j, c) for j, (_name, n) in enumerate(p.step_properties) for c in conjuncts(g, n)]
    memo: dict[int, Any] = {}
    stutter = [_holds(without_post(g, c, memo)) for _j, c in step]
    reads = []
    for conj in p.guards:
        r = 0
        for c in conj:
            r |= pre[c]
        reads.append(r)
    inv_of, step_of, guards_of = [], [], []
    for ws in p.writes:
        written = 0
        for slot, _n in ws:
            written |= 1 << slot
        inv_of.append([k for k, (_j, c) in enumerate(inv) if pre[c] & written])
        guards_of.append([j for j, r in enumerate(reads) if r & written])
        step_of.append(
            [k for k, (_j, c) in enumerate(step) if not stutter[k] or (post[c] & written)]
        )
    return Frames(inv, step, inv_of, step_of, guards_of)


def bounds(sort: Any) -> tuple[int, int]:
    """The least and greatest value of a slot of ``sort`` (a Boolean is 0 or 1)."""
    return (0, 1) if sort == "b" else (sort[1], sort[2])


def trace(fm: FlatModel) -> Program:
    """Trace every instance, invariant and step property of ``fm`` into one graph."""
    g = Graph()
    ops = Fold(TermOps(g))
    keys = list(fm.sorts)
    slot = {k: i for i, k in enumerate(keys)}
    var = {k: g.out(g.intern("var", (i,))) for k, i in slot.items()}
    post = {k: g.out(g.intern("post", (i,))) for k, i in slot.items()}
    lo, hi, bools = [], [], []
    for k in keys:
        low, high = bounds(fm.sorts[k])
        lo.append(low), hi.append(high), bools.append(fm.sorts[k] == "b")
    guards, writes, names, args = [], [], [], []
    for inst in fm.instances:
        guard = g.lift(inst.guard(ops, var.__getitem__))
        op, sub = g.nodes[guard]
        guards.append(list(sub) if op == "and" else [guard])
        tx = Tx(ops, var)
        inst.apply(ops, tx)
        ws = []
        for k, v in tx.new.items():
            n = g.lift(v)
            if g.nodes[n] != ("var", (slot[k],)):
                ws.append((slot[k], n))
        writes.append(ws)
        names.append(inst.name)
        args.append(inst.args)
    invariants = [(p.name, g.lift(p.check(ops, var.__getitem__))) for p in fm.invariants]
    steps = [
        (p.name, g.lift(p.check(ops, var.__getitem__, post.__getitem__)))
        for p in fm.step_properties
    ]
    goals = [
        (p.name, g.lift(p.check(ops, var.__getitem__)))
        for p in fm.properties
        if p.kind == "liveness"
    ]
    init = [int(fm.init[k]) for k in keys]
    return Program(
        fm.design,
        fm.config,
        g,
        keys,
        lo,
        hi,
        init,
        names,
        args,
        guards,
        writes,
        invariants,
        steps,
        goals,
        bools,
    )
