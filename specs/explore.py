"""Exhaustive exploration: breadth-first search over every reachable state, with state hashing and
symmetry reduction over region servers.

* safety: invariants are checked on every new state and step properties on every transition;
  breadth-first order makes the first counterexample of each property a shortest one;
* liveness: over the explored graph, a strongly connected set of states (or a stuck state) where
  the goal never holds and which a weakly fair behaviour can stay in forever is a counterexample.
  Fairness is per action kind: a fair kind enabled in every state of the set must be taken inside
  it. Environment budgets are finite, so every infinite behaviour ends with crashes stopped.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import networkx as nx
from replcheck.model import Action, Model, Property, State
from replcheck.model.engine.memory import memory_mib
from replcheck.specs.results import FAIL, PASS, UNKNOWN, CheckResult, Counterexample

MEMORY_EVERY = 1 << 15
"""The liveness phase reads the process's memory once per this many edges or components."""

LIVENESS_BYTES_PER_EDGE = 320
"""What the liveness phase holds per transition of the explored graph, at most (measured: 260 to
330 bytes on the standard configurations: the successor lists, the goal's graph, its strongly
connected components). A phase that the memory limit cannot hold at this does not start."""


class MemoryLimit(Exception):
    """The process's memory passed ``--max-memory`` in a phase after the search."""


def memory_budget(
    max_memory: int | None, read: Callable[[], int] | None = None
) -> Callable[[], None] | None:
    """A check to call now and then in a phase that grows: it raises ``MemoryLimit`` once the
    process's resident memory (``read()``, by default ``memory_mib()``) passes ``max_memory``
    MiB (None: no limit, no check)."""
    if max_memory is None:
        return None

    def check() -> None:
        held = read() if read is not None else memory_mib()
        if held > max_memory:
            raise MemoryLimit(f"{held:,} MiB held, the limit {max_memory:,} MiB")

    return check


def liveness_fits(
    max_memory: int | None, transitions: int, per_edge: int = LIVENESS_BYTES_PER_EDGE
) -> bool:
    """Can the liveness phase over ``transitions`` edges start under ``max_memory`` MiB: the
    memory held now and what the phase will hold (``per_edge`` bytes a transition) within
    it?"""
    if max_memory is None:
        return True
    return memory_mib() + transitions * per_edge // 2**20 <= max_memory


LIVENESS_STOPPED = "memory limit, in the liveness phase"
"""``stopped`` of a search that ran to its end whose liveness phase the memory limit stopped, or
did not let start: the safety verdicts stand, the liveness ones are undecided."""


Progress = Callable[[int, int, int], None]
"""Called now and then with (distinct states, queued states, depth)."""


@dataclass
class Exploration:
    model: Model
    symmetry: bool
    states: list[State] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    via: list[Action | None] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    succ: list[list[tuple[int, str]]] = field(default_factory=list)
    """Per state: (successor, action kind) for every enabled action."""
    first_violation: dict[str, int] = field(default_factory=dict)
    step_violation: dict[str, tuple[int, Action, State]] = field(default_factory=dict)
    complete: bool = False
    stopped: str = ""
    """Why the search stopped before it was complete: ``state limit``, ``memory limit``,
    ``depth limit`` or ``interrupted`` (empty when it ran to the end)."""
    transitions: int = 0
    seconds: float = 0.0

    @property
    def max_depth(self) -> int:
        return max(self.depth, default=0)

    def path(self, v: int) -> list[tuple[Action | None, State]]:
        """The shortest behaviour found from the initial state to state ``v``."""
        out: list[tuple[Action | None, State]] = []
        while v >= 0:
            out.append((self.via[v], self.states[v]))
            v = self.parent[v]
        out.reverse()
        return out


def explore(
    model: Model,
    *,
    symmetry: bool = True,
    max_states: int | None = None,
    progress: Progress | None = None,
    max_depth: int | None = None,
    max_memory: int | None = None,
    partial_on_interrupt: bool = False,
) -> Exploration:
    """Breadth-first search from the initial state; ``max_depth`` stops expanding states at that
    depth (the exploration is then complete only if none of them had a successor);
    ``max_memory`` (MiB of resident memory: ``memory_mib``) and ``max_states`` stop it early.
    With ``partial_on_interrupt``, Ctrl-C stops it too: what was explored is returned and
    ``stopped`` says why (otherwise ``KeyboardInterrupt`` goes to the caller)."""
    cfg = model.cfg
    invariants = model.invariants
    step_props = model.step_properties
    symmetry = symmetry and not model.design.names_ordered
    canon = model.canonical if symmetry and cfg.servers > 1 else (lambda s: s)
    ex = Exploration(model, symmetry)
    started = time.perf_counter()

    index: dict[State, int] = {}
    raw: dict[State, int] = {}

    def add(st: State, parent: int, action: Action | None, depth: int) -> int:
        v = len(ex.states)
        ex.states.append(st)
        ex.parent.append(parent)
        ex.via.append(action)
        ex.depth.append(depth)
        ex.succ.append([])
        for prop in invariants:
            if prop.name not in ex.first_violation and not prop.check(cfg, st):
                ex.first_violation[prop.name] = v
        return v

    s0 = model.init()
    index[canon(s0)] = raw[s0] = add(s0, -1, None, 0)
    frontier = deque([0])
    ticks = 0
    cut = False
    try:
        while frontier:
            if max_states is not None and len(ex.states) >= max_states:
                ex.stopped = "state limit"
                break
            u = frontier.popleft()
            st = ex.states[u]
            out = ex.succ[u]
            if max_depth is not None and ex.depth[u] >= max_depth:
                if model.enabled(st):
                    cut = True
                continue
            for action in model.enabled(st):
                nxt = model.step(st, action)
                ex.transitions += 1
                for prop in step_props:
                    if prop.name not in ex.step_violation and not prop.check(cfg, st, nxt):
                        ex.step_violation[prop.name] = (u, action, nxt)
                v = raw.get(nxt)
                if v is None:
                    key = canon(nxt)
                    v = index.get(key)
                    if v is None:
                        v = add(nxt, u, action, ex.depth[u] + 1)
                        index[key] = v
                        frontier.append(v)
                    raw[nxt] = v
                out.append((v, action.name))
            ticks += 1
            if ticks % 256 == 0:
                if progress is not None:
                    progress(len(ex.states), len(frontier), ex.depth[u])
                if max_memory is not None and memory_mib() > max_memory:
                    ex.stopped = "memory limit"
                    frontier.appendleft(u)  # not finished with: the search is incomplete
                    break
    except KeyboardInterrupt:
        if not partial_on_interrupt:
            raise
        ex.stopped = "interrupted"
    if cut and not ex.stopped:
        ex.stopped = "depth limit"
    ex.complete = not frontier and not cut and not ex.stopped
    ex.seconds = time.perf_counter() - started
    if progress is not None and ex.stopped != "interrupted":
        progress(len(ex.states), len(frontier), ex.max_depth)
    return ex


Succ = Sequence[Sequence[tuple[int, str]]]
"""Per state: (successor, action kind) for every enabled action."""


def fair_lasso(
    bad: set[int],
    succ: Succ,
    depth: Sequence[int],
    fair: frozenset[str],
    budget: Callable[[], None] | None = None,
) -> tuple[int, set[int], bool] | None:
    """Where a liveness goal can fail for ever: among the states ``bad`` (the goal does not
    hold), a strongly connected set that a weakly fair behaviour can stay in (every fair kind
    enabled in all its states is taken inside it), or a stuck state (no successor). The one
    whose entry is shallowest (then lowest numbered): (entry, the set, stuck), or None.
    ``budget`` (``memory_budget``) is called once per ``MEMORY_EVERY`` states and components."""
    graph = nx.DiGraph()
    graph.add_nodes_from(bad)
    for k, u in enumerate(bad):
        if budget is not None and k % MEMORY_EVERY == 0:
            budget()
        for v, _kind in succ[u]:
            if v in bad:
                graph.add_edge(u, v)
    candidates = []
    for k, comp in enumerate(nx.strongly_connected_components(graph)):
        if budget is not None and k % MEMORY_EVERY == 0:
            budget()
        if len(comp) == 1:
            (v,) = comp
            if not succ[v]:
                candidates.append((depth[v], v, comp, True))
                continue
            if not graph.has_edge(v, v):
                continue
        if _fair(succ, comp, fair):
            entry = min(comp, key=lambda n: depth[n])
            candidates.append((depth[entry], entry, comp, False))
    if not candidates:
        return None
    _d, entry, comp, stuck = min(candidates, key=lambda c: (c[0], c[1]))
    return entry, comp, stuck


def _fair(succ: Succ, comp: set[int], fair: frozenset[str]) -> bool:
    taken: set[str] = set()
    always: set[str] | None = None
    for u in comp:
        kinds = {k for _v, k in succ[u]} & fair
        always = kinds if always is None else always & kinds
        taken.update(k for v, k in succ[u] if v in comp)
    return not ((always or set()) - taken)


def cycle(succ: Succ, entry: int, comp: set[int]) -> list[tuple[int, int]]:
    """A shortest way round the set from ``entry`` back to it, as (state, index of the edge in
    its ``succ`` list) pairs."""
    prev: dict[int, tuple[int, int]] = {}
    queue = deque([entry])
    seen = {entry}
    while queue:
        u = queue.popleft()
        for i, (v, _k) in enumerate(succ[u]):
            if v not in comp:
                continue
            if v == entry:
                path = [(u, i)]
                while u != entry:
                    u, j = prev[u]
                    path.append((u, j))
                path.reverse()
                return path
            if v not in seen:
                seen.add(v)
                prev[v] = (u, i)
                queue.append(v)
    return []


def liveness_counterexample(
    ex: Exploration, prop: Property, budget: Callable[[], None] | None = None
) -> Counterexample | None:
    """A fair cycle or stuck state, reachable, in which ``prop``'s goal never holds
    (``budget``: ``fair_lasso``'s)."""
    model = ex.model
    cfg = model.cfg
    bad = {v for v, st in enumerate(ex.states) if not prop.check(cfg, st)}
    found = fair_lasso(bad, ex.succ, ex.depth, model.fair_kinds, budget) if bad else None
    if found is None:
        return None
    entry, comp, stuck = found
    steps = ex.path(entry)
    if stuck:
        return Counterexample(prop.name, "liveness", steps, stuck=True, note="no action is enabled")
    loop_start = len(steps) - 1
    steps.extend(_replay(ex, u, i) for u, i in cycle(ex.succ, entry, comp))
    return Counterexample(
        prop.name,
        "liveness",
        steps,
        loop_start=loop_start,
        note="the behaviour repeats from the marked state (up to renaming of servers)",
    )


def _replay(ex: Exploration, u: int, i: int) -> tuple[Action | None, State]:
    """The i-th enabled action of state ``u`` and where it leads."""
    st = ex.states[u]
    action = ex.model.enabled(st)[i]
    return action, ex.model.step(st, action)


def check(
    model: Model,
    *,
    symmetry: bool = True,
    max_states: int | None = None,
    progress: Progress | None = None,
    liveness: bool = True,
    max_memory: int | None = None,
    partial_on_interrupt: bool = False,
) -> CheckResult:
    """Explore, then give a verdict for every property of the model. A search stopped early
    (a limit; Ctrl-C with ``partial_on_interrupt``) leaves what it did not reach ``unknown``;
    ``stats["stopped"]`` says why."""
    ex = explore(
        model,
        symmetry=symmetry,
        max_states=max_states,
        progress=progress,
        max_memory=max_memory,
        partial_on_interrupt=partial_on_interrupt,
    )
    result = CheckResult("explore", model.design.name, model.cfg.name)
    for prop in model.invariants:
        v = ex.first_violation.get(prop.name)
        if v is not None:
            result.verdicts[prop.name] = FAIL
            result.counterexamples[prop.name] = Counterexample(prop.name, "invariant", ex.path(v))
        else:
            result.verdicts[prop.name] = PASS if ex.complete else UNKNOWN
    for prop in model.step_properties:
        hit = ex.step_violation.get(prop.name)
        if hit is not None:
            u, action, nxt = hit
            steps = [*ex.path(u), (action, nxt)]
            result.verdicts[prop.name] = FAIL
            result.counterexamples[prop.name] = Counterexample(prop.name, "step", steps)
        else:
            result.verdicts[prop.name] = PASS if ex.complete else UNKNOWN
    budget = memory_budget(max_memory)
    for prop in model.liveness:
        if not liveness or not ex.complete or ex.stopped:
            result.verdicts[prop.name] = UNKNOWN
            continue
        try:
            # the phase holds a graph of its own: past the limit it does not start, or stops
            if not liveness_fits(max_memory, ex.transitions):
                raise MemoryLimit("no room for the liveness phase")
            cex = liveness_counterexample(ex, prop, budget)
        except KeyboardInterrupt:
            if not partial_on_interrupt:
                raise
            ex.stopped = "interrupted"
            result.verdicts[prop.name] = UNKNOWN
            continue
        except (MemoryLimit, MemoryError):
            ex.stopped = LIVENESS_STOPPED
            result.verdicts[prop.name] = UNKNOWN
            continue
        result.verdicts[prop.name] = FAIL if cex else PASS
        if cex:
            result.counterexamples[prop.name] = cex
    result.stats = {
        "states": len(ex.states),
        "transitions": ex.transitions,
        "depth": ex.max_depth,
        "complete": ex.complete,
        "stopped": ex.stopped or None,
        "symmetry": symmetry,
        "seconds": round(ex.seconds, 3),
    }
    return result
