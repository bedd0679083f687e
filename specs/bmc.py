"""Bounded model checking and induction with Z3, over a flat model (``model/engine/text.py``).

Bounded model checking unrolls the transition relation: one copy of the flat variables per step,
an action selector per step, and for each variable the value the chosen instance gives it. At
each depth ``k`` (from 0) it asks, for every property not yet broken, whether some behaviour of
exactly ``k`` steps ends in a state that breaks it; the first such ``k`` is the property's first
violation depth (behaviours of ``k`` steps reach exactly the states of breadth-first depth ``<=
k`` reachable in ``k`` steps, and every shorter violation was asked about before). The solver's
behaviour is decoded into the explicit model's states and replayed through the explicit model
step by step (``replayed``), so a reported counterexample is one the model itself can take.

Induction asks whether a property together with named strengthening lemmas holds after any step
from any state (within the variables' declared ranges) where they all hold, and in the initial
state. When the step case fails, the solver's state pair is the counterexample to induction (CTI):
a state where everything assumed holds and the step that leaves it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3
from replcheck.model import Action, Model, State
from replcheck.model.engine.text import FPY, FlatModel, FlatProperty, Fold, Instance, Tx, is_true
from replcheck.specs.results import Counterexample
from replcheck.specs.z3ops import Z3Ops
from replcheck.specs.z3ops import check as z3_check

Progress = Callable[[int, float], None]
"""Called after each depth with (depth done, seconds so far)."""


WIDTH = 8
"""Bits of every integer variable (two's complement): the flat models' ranges are small, and over
bit-vectors Z3 decides each query by bit-blasting to SAT."""
SELECTOR_WIDTH = 16


class BvOps(Z3Ops):
    """``Z3Ops`` whose integer constants in an if-then-else are bit-vectors."""

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if type(a) is int:
            a = z3.BitVecVal(a, WIDTH)
        if type(b) is int:
            b = z3.BitVecVal(b, WIDTH)
        return z3.If(c, a, b)


def _width_ok(fm: FlatModel) -> None:
    top = max((max(-s[1], s[2]) for s in fm.sorts.values() if s != "b"), default=0)
    if top * 4 >= 1 << (WIDTH - 1):
        raise ValueError(f"{fm.design}@{fm.config}: values up to {top} need more than {WIDTH} bits")


def _term(x: Any, sort: Any) -> Any:
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        return z3.BitVecVal(x, WIDTH)
    return x


def _var(key: tuple, sort: Any, tag: str) -> Any:
    name = "/".join(map(str, key)) + tag
    return z3.Bool(name) if sort == "b" else z3.BitVec(name, WIDTH)


def _value(model: z3.ModelRef, term: Any, sort: Any) -> Any:
    if isinstance(term, (bool, int)):
        return term
    val = model.eval(term, model_completion=True)
    return z3.is_true(val) if sort == "b" else val.as_signed_long()


@dataclass
class Step:
    """One unrolled transition: its action selector and the instances that may fire."""

    selector: Any
    fired: list[tuple[int, Instance]]


class Unrolling:
    """Copies of the flat variables, step by step, with the transition between each two."""

    def __init__(self, fm: FlatModel, solver: z3.Solver, free_start: bool = False) -> None:
        _width_ok(fm)
        self.fm = fm
        self.ops = Fold(BvOps())
        self.solver = solver
        self.frames: list[dict[tuple, Any]] = []
        self.steps: list[Step] = []
        self.free_start = free_start
        self._tmpl: tuple | None = None
        self._props: dict[str, tuple] = {}
        if free_start:
            self.frames.append({k: _var(k, s, "@0") for k, s in fm.sorts.items()})
        else:
            self.frames.append(dict(fm.init))

    def ranges(self, i: int) -> list[Any]:
        """Each variable of frame ``i`` within its declared range."""
        out = []
        for k, sort in self.fm.sorts.items():
            if sort != "b":
                x = self.frames[i][k]
                out.append(z3.And(x >= sort[1], x <= sort[2]))
        return out

    def _transition(self, cur: dict[tuple, Any], sel: Any, tag: str) -> tuple[Any, dict, list]:
        """The step from frame ``cur``: its constraint, the next frame's terms (a key no enabled
        instance writes keeps ``cur``'s term), and the instances that may fire."""
        get = cur.__getitem__
        enabled = []
        writes: dict[tuple, list[tuple[int, Any]]] = {}
        fired = []
        for j, inst in enumerate(self.fm.instances):
            g = inst.guard(self.ops, get)
            if g is False:
                continue
            tx = Tx(self.ops, cur)
            inst.apply(self.ops, tx)
            fired.append((j, inst))
            enabled.append(z3.And(sel == j, g) if g is not True else sel == j)
            for k, v in tx.new.items():
                writes.setdefault(k, []).append((j, v))
        cons = [z3.Or(enabled) if enabled else z3.BoolVal(False)]
        nxt: dict[tuple, Any] = {}
        picks = {j: sel == j for j, _inst in fired}
        for k, sort in self.fm.sorts.items():
            if k not in writes:
                nxt[k] = cur[k]
                continue
            x = nxt[k] = _var(k, sort, tag)
            expr = _term(cur[k], sort)
            for j, v in writes[k]:
                expr = z3.If(picks[j], _term(v, sort), expr)
            cons.append(x == expr)
        return z3.And(cons), nxt, fired

    def extend(self) -> None:
        """Add the next frame. The first step is built from the initial values (most guards fold
        away); later ones instantiate one symbolic step, built once, by substitution (in Z3, not
        in Python, which is where building terms costs)."""
        i = len(self.frames) - 1
        cur = self.frames[i]
        sel = z3.BitVec(f"action@{i}", SELECTOR_WIDTH)
        if i == 0 and not self.free_start:
            cons, nxt, fired = self._transition(cur, sel, f"@{i + 1}")
            self.solver.add(cons)
            self.frames.append(nxt)
            self.steps.append(Step(sel, fired))
            return
        x, x_sel, cons, nxt_t, fired = self._template()
        nxt: dict[tuple, Any] = {}
        pairs = [(x_sel, sel)]
        for k, sort in self.fm.sorts.items():
            pairs.append((x[k], _term(cur[k], sort)))
            if nxt_t[k] is x[k]:
                nxt[k] = cur[k]
            else:
                nxt[k] = _var(k, sort, f"@{i + 1}")
                pairs.append((nxt_t[k], nxt[k]))
        self.solver.add(z3.substitute(cons, *pairs))
        self.frames.append(nxt)
        self.steps.append(Step(sel, fired))

    def _template(self) -> tuple[dict, Any, Any, dict, list]:
        if self._tmpl is None:
            x = {k: _var(k, s, "@T") for k, s in self.fm.sorts.items()}
            x_sel = z3.BitVec("action@T", SELECTOR_WIDTH)
            cons, nxt, fired = self._transition(x, x_sel, "@T+1")
            self._tmpl = (x, x_sel, cons, nxt, fired)
        return self._tmpl

    def holds(self, prop: FlatProperty, i: int) -> Any:
        """``prop`` of frame ``i`` (a step property: of frames ``i-1`` and ``i``), built once
        over symbolic frames and instantiated by substitution."""
        if prop.name not in self._props:
            a = {k: _var(k, s, "@P") for k, s in self.fm.sorts.items()}
            b = {k: _var(k, s, "@P+1") for k, s in self.fm.sorts.items()}
            if prop.kind == "step":
                term = prop.check(self.ops, a.__getitem__, b.__getitem__)
            else:
                term = prop.check(self.ops, a.__getitem__)
            self._props[prop.name] = (a, b, _z(term))
        a, b, term = self._props[prop.name]
        pairs = []
        if prop.kind == "step":
            before, after = self.frames[i - 1], self.frames[i]
            for k, sort in self.fm.sorts.items():
                pairs.append((a[k], _term(before[k], sort)))
                pairs.append((b[k], _term(after[k], sort)))
        else:
            for k, sort in self.fm.sorts.items():
                pairs.append((a[k], _term(self.frames[i][k], sort)))
        return z3.simplify(z3.substitute(term, *pairs))

    def read(self, model: z3.ModelRef, upto: int) -> tuple[list[dict[tuple, Any]], list[Instance]]:
        """The solver's behaviour: plain flat states and the instances taken."""
        frames = [
            {k: _value(model, f[k], self.fm.sorts[k]) for k in self.fm.sorts}
            for f in self.frames[: upto + 1]
        ]
        by_index = {j: inst for j, inst in enumerate(self.fm.instances)}
        taken = [
            by_index[model.eval(st.selector, model_completion=True).as_long()]
            for st in self.steps[:upto]
        ]
        return frames, taken


def normalize(st: Any) -> Any:
    """Shippers (and, in the ZooKeeper era, unregistered WALs) as sets: their order in the
    tuple means nothing, and some steps replace one in place without re-sorting."""

    def server(s: Any) -> Any:
        changes = {"shippers": tuple(sorted(s.shippers))}
        if hasattr(s, "unregistered"):
            changes["unregistered"] = tuple(sorted(s.unregistered))
        return s._replace(**changes)

    return st._replace(servers=tuple(server(s) for s in st.servers))


def replay(model: Model, states: Sequence[State]) -> list[tuple[Action | None, State]] | None:
    """The explicit model's own behaviour through ``states`` (one enabled action per step), or
    None when some step is not one the explicit model can take."""
    out: list[tuple[Action | None, State]] = [(None, states[0])]
    cur = states[0]
    if normalize(cur) != normalize(model.init()):
        return None
    for want in states[1:]:
        found = step_to(model, cur, want)
        if found is None:
            return None
        out.append(found)
        cur = found[1]
    return out


def step_to(model: Model, cur: State, want: State) -> tuple[Action, State] | None:
    """The explicit model's action from ``cur`` to ``want`` (up to ``normalize``) and the state it
    leads to, or None when no enabled action leads there (``Model.successors``)."""
    target = normalize(want)
    for action, nxt in model.successors_from_any(cur):
        if normalize(nxt) == target:
            return action, nxt
    return None


@dataclass
class BmcResult:
    design: str
    config: str
    depth: int
    """The depth asked for."""
    reached: int
    """The deepest depth fully checked (every property asked)."""
    first: dict[str, int] = field(default_factory=dict)
    """Property -> the first depth at which some behaviour breaks it."""
    counterexamples: dict[str, Counterexample] = field(default_factory=dict)
    replayed: dict[str, bool] = field(default_factory=dict)
    seconds_per_depth: list[float] = field(default_factory=list)
    seconds: float = 0.0
    timed_out: bool = False
    capacity: int | None = None
    """Set when the flat encoding overflowed at that depth: the results past it mean nothing."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "config": self.config,
            "depth": self.depth,
            "reached": self.reached,
            "first_violation_depth": dict(sorted(self.first.items())),
            "replayed": dict(sorted(self.replayed.items())),
            "seconds": round(self.seconds, 3),
            "seconds_per_depth": [round(x, 3) for x in self.seconds_per_depth],
            "timed_out": self.timed_out,
            "capacity_exceeded_at": self.capacity,
        }


def bmc(
    fm: FlatModel,
    depth: int,
    *,
    model: Model | None = None,
    deadline: float | None = None,
    progress: Progress | None = None,
) -> BmcResult:
    """Check every property of ``fm`` at depths 0..``depth``; stop early when ``deadline``
    (seconds) has passed. ``model``, the explicit model, is used to replay counterexamples."""
    started = time.perf_counter()
    res = BmcResult(fm.design, fm.config, depth, -1)
    solver = z3.SolverFor("QF_BV")
    un = Unrolling(fm, solver)
    props = fm.invariants + fm.step_properties  # liveness goals are not safety properties
    for k in range(depth + 1):
        t0 = time.perf_counter()
        if k:
            un.extend()
        while True:
            todo = [p for p in props if p.name not in res.first and (p.kind != "step" or k)]
            if not todo:
                break
            left = None if deadline is None else deadline - (time.perf_counter() - started)
            if left is not None and left <= 0:
                res.timed_out = True
                break
            if left is not None:
                solver.set("timeout", max(1, int(left * 1000)))
            held = [(p, _z(un.holds(p, k))) for p in todo]
            solver.push()
            solver.add(z3.Or([z3.Not(h) for _p, h in held]))
            verdict = z3_check(solver)
            if verdict == z3.sat:
                zm = solver.model()
                frames, taken = un.read(zm, k)
                for p, h in held:
                    if z3.is_true(zm.eval(h, model_completion=True)):
                        continue
                    if p.name == "encoding_capacity":
                        res.capacity = k
                    res.first[p.name] = k
                    res.counterexamples[p.name] = _counterexample(fm, p, frames, taken, model, res)
            solver.pop()
            if verdict == z3.unknown:
                res.timed_out = True
            if verdict != z3.sat:
                break
        res.seconds_per_depth.append(time.perf_counter() - t0)
        if res.timed_out:
            break
        res.reached = k
        if progress is not None:
            progress(k, time.perf_counter() - started)
        if res.capacity is not None:
            break
    res.seconds = time.perf_counter() - started
    return res


def _counterexample(
    fm: FlatModel,
    prop: FlatProperty,
    frames: list[dict],
    taken: list[Instance],
    model: Model | None,
    res: BmcResult,
) -> Counterexample:
    states = [fm.decode(f) for f in frames]
    steps = replay(model, states) if model is not None else None
    res.replayed[prop.name] = steps is not None
    note = "found by bounded model checking"
    if steps is None:
        steps = [(None, states[0])] + [
            (Action(inst.name, tuple(a for a in inst.args if isinstance(a, int))), st)
            for inst, st in zip(taken, states[1:], strict=True)
        ]
        note += "; NOT replayable through the explicit model"
    kind = "step" if prop.kind == "step" else "invariant"
    return Counterexample(prop.name, kind, steps, note=note)


# --- induction ---------------------------------------------------------------------------


@dataclass
class InductionResult:
    design: str
    config: str
    property: str
    lemmas: list[str]
    verdict: str
    """``inductive``, ``not inductive`` (a CTI), ``fails initially``, or ``unknown``."""
    seconds: float = 0.0
    cti: dict[str, Any] | None = None
    states: tuple[State, State | None] | None = None
    """With a CTI: its two states decoded into the explicit model's (None where one cannot be:
    the step may leave the flat encoding's bounds)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "config": self.config,
            "property": self.property,
            "lemmas": self.lemmas,
            "verdict": self.verdict,
            "seconds": round(self.seconds, 3),
            "cti": self.cti,
        }


def induct(
    fm: FlatModel,
    target: FlatProperty,
    lemmas: Iterable[FlatProperty],
    *,
    timeout: float = 60.0,
) -> InductionResult:
    """Is ``prop``, strengthened by ``lemmas``, inductive? Every conjunct must hold initially and
    after any step from a state (variables within their ranges) where all of them hold."""
    started = time.perf_counter()
    lemmas = list(lemmas)
    prop = target.name
    conj = [target, *lemmas]
    names = [p.name for p in lemmas]
    init_get = fm.init.__getitem__
    for p in conj:
        if not is_true(p.check(FPY, init_get)):
            return InductionResult(
                fm.design,
                fm.config,
                prop,
                names,
                "fails initially",
                time.perf_counter() - started,
                {"conjunct": p.name},
            )
    solver = z3.SolverFor("QF_BV")
    solver.set("timeout", int(timeout * 1000))
    un = Unrolling(fm, solver, free_start=True)
    solver.add(*un.ranges(0))
    for p in conj:
        solver.add(_z(un.holds(p, 0)))
    un.extend()
    after = [(p, _z(un.holds(p, 1))) for p in conj]
    solver.add(z3.Not(z3.And([h for _p, h in after])))
    verdict = z3_check(solver)
    elapsed = time.perf_counter() - started
    if verdict == z3.unsat:
        return InductionResult(fm.design, fm.config, prop, names, "inductive", elapsed)
    if verdict == z3.unknown:
        return InductionResult(fm.design, fm.config, prop, names, "unknown", elapsed)
    m = solver.model()
    frames, taken = un.read(m, 1)
    broken = [p.name for p, h in after if not z3.is_true(m.eval(h, model_completion=True))]
    changed = {
        "/".join(map(str, k)): [frames[0][k], frames[1][k]]
        for k in fm.sorts
        if frames[0][k] != frames[1][k]
    }
    cti = {
        "step": taken[0].label(),
        "broken_after_step": broken,
        "changed": changed,
        "before": frames[0],
    }
    states = None
    try:  # a state the explicit model cannot hold (the flat encoding's own) leaves them out
        start = fm.decode(frames[0])
    except Exception:
        pass
    else:
        try:
            states = (start, fm.decode(frames[1]))
        except Exception:
            states = (start, None)
    return InductionResult(fm.design, fm.config, prop, names, "not inductive", elapsed, cti, states)


def induct_invariants(
    fm: FlatModel,
    lemmas: Iterable[FlatProperty],
    *,
    timeout: float = 60.0,
    names: Iterable[str] | None = None,
) -> list[InductionResult]:
    """``induct`` each invariant of ``fm`` (or those ``names``), every lemma its strengthening.
    ``encoding_capacity`` (the flat state's own bound) is not a protocol invariant and is left
    out.

    An invariant is rarely inductive alone: from some unreachable state that satisfies it, a step
    breaks it; lemmas rule such states out. Every conjunct (the invariant and each lemma) is
    checked after the step, so the lemmas are proved together with it, not assumed. Where a proof
    fails, the counterexample to induction names the step and the conjuncts it breaks: the lemma
    that is missing."""
    lemmas = list(lemmas)
    wanted = set(names) if names is not None else None
    return [
        induct(fm, p, lemmas, timeout=timeout)
        for p in fm.invariants
        if p.name != "encoding_capacity" and (wanted is None or p.name in wanted)
    ]


def _z(x: Any) -> Any:
    return z3.BoolVal(x) if isinstance(x, bool) else x
