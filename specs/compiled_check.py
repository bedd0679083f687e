"""Verdicts from a compiled search (``specs/compiled.py``), in the shape ``specs/explore.check``
gives them: a verdict per property and, for each property broken, a counterexample of the
explicit model's actions and states, drawn as today.

Invariants and step properties come from the search's first violations (breadth first, so
shortest). Liveness runs on the exported edge arrays: for each goal, the states where it does not
hold, their strongly connected components, and the same fairness as ``specs/explore.py`` (a fair
action kind enabled in every state of a component must be taken inside it; a state with no
successor is stuck). A counterexample's states are replayed from the initial state through the
plain interpreter of the flat text, decoded, and matched step by step to the explicit model's own
actions (``bmc.replay``); a behaviour the explicit model cannot take is an error, never a
verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model import Config, Model, get_design
from replcheck.specs.bmc import replay
from replcheck.specs.compiled import CompiledExploration, explore_compiled
from replcheck.specs.explore import (
    LIVENESS_STOPPED,
    MEMORY_EVERY,
    MemoryLimit,
    cycle,
    fair_lasso,
    liveness_fits,
    memory_budget,
    memory_mib,
)
from replcheck.specs.results import FAIL, PASS, UNKNOWN, CheckResult, Counterexample


class ReplayError(AssertionError):
    """The compiled search found a behaviour the explicit model does not take."""


def _explicit(model: Model, res: CompiledExploration, states: list[Any]) -> list[Any]:
    steps = replay(model, states)
    if steps is None:
        raise ReplayError(f"{res.design}@{res.config}: a compiled behaviour does not replay")
    return steps


def _budget(max_memory: int | None) -> Callable[[], None] | None:
    """``explore.memory_budget`` reading this module's ``memory_mib``."""
    return memory_budget(max_memory, lambda: memory_mib())


def _successors(
    res: CompiledExploration, budget: Callable[[], None] | None = None
) -> list[list[tuple[int, int]]]:
    assert res.edges is not None
    out: list[list[tuple[int, int]]] = [[] for _ in range(res.states)]
    for k, (u, v, i) in enumerate(zip(*res.edges, strict=True)):
        if budget is not None and k % MEMORY_EVERY == 0:
            budget()
        out[u].append((v, i))
    return out


def _depths(res: CompiledExploration) -> list[int]:
    depth = [0] * res.states
    for v in range(1, res.states):
        depth[v] = depth[res.parent[v]] + 1
    return depth


def liveness_counterexample(
    model: Model,
    res: CompiledExploration,
    goal: int,
    succ: list[list[tuple[int, int]]],
    depth: list[int],
    budget: Callable[[], None] | None = None,
) -> Counterexample | None:
    """A fair cycle or stuck state, reachable, where goal ``goal`` never holds
    (``explore.fair_lasso`` over the edge arrays; ``budget``: its)."""
    name = res.program.goals[goal][0]
    kind = res.program.names
    bit = 1 << goal
    bad = {v for v in range(res.states) if not res.goal_bits[v] & bit}
    kinds = []
    for k, out in enumerate(succ):
        if budget is not None and k % MEMORY_EVERY == 0:
            budget()
        kinds.append([(v, kind[i]) for v, i in out])
    found = fair_lasso(bad, kinds, depth, model.fair_kinds, budget) if bad else None
    if found is None:
        return None
    entry, comp, stuck = found
    path = res.instances_to(entry)
    if stuck:
        steps = _explicit(model, res, res.behaviour(entry))
        return Counterexample(name, "liveness", steps, stuck=True, note="no action is enabled")
    flat = res.flat_states(path)
    states = [res.fm.decode(st) for st in flat]
    for u, i in cycle(kinds, entry, comp):
        # each edge's instance from the state the behaviour is in (a member of its class)
        flat.append(res.flat_states_from(flat[-1], [succ[u][i][1]])[-1])
        states.append(res.fm.decode(flat[-1]))
    steps = _explicit(model, res, states)
    return Counterexample(
        name,
        "liveness",
        steps,
        loop_start=len(path),
        note="the behaviour repeats from the marked state (up to renaming of servers)",
    )


def _liveness(
    model: Model,
    res: CompiledExploration,
    out: CheckResult,
    liveness: bool,
    max_memory: int | None,
    partial_on_interrupt: bool,
) -> None:
    """The liveness verdicts of a search that ran to its end. The phase holds the explored
    graph again (successor lists, each goal's graph and its components): under ``max_memory``
    it does not start without room for that (``explore.liveness_fits``) and stops where the
    process's memory passes the limit, or Python runs out of it; its verdicts are then
    undecided and ``res.liveness_stopped`` says why (Ctrl-C, with ``partial_on_interrupt``,
    likewise leaves them undecided)."""
    goals = [prop for prop, _n in res.program.goals]
    if not liveness or not res.complete or res.liveness_stopped:
        for prop in goals:
            out.verdicts[prop] = UNKNOWN
        return
    budget = _budget(max_memory)
    done = 0
    try:
        if not liveness_fits(max_memory, len(res.edges[0]) if res.edges else 0):
            raise MemoryLimit("no room for the liveness phase")
        succ = _successors(res, budget)
        depth = _depths(res)
        for j, prop in enumerate(goals):
            cex = liveness_counterexample(model, res, j, succ, depth, budget)
            out.verdicts[prop] = FAIL if cex else PASS
            if cex:
                out.counterexamples[prop] = cex
            done += 1
    except (MemoryLimit, MemoryError):
        res.liveness_stopped = LIVENESS_STOPPED
    except KeyboardInterrupt:
        if not partial_on_interrupt:
            raise
        res.stopped = "interrupted"
    for prop in goals[done:]:
        out.verdicts[prop] = UNKNOWN


def check_compiled(
    name: str,
    cfg: Config,
    *,
    backend: str = "auto",
    symmetry: bool = True,
    liveness: bool = True,
    max_states: int | None = None,
    max_memory: int | None = None,
    progress: Any = None,
    partial_on_interrupt: bool = False,
    kernels: str = "auto",
) -> CheckResult:
    """``specs/explore.check`` on a compiled back end (``kernels``: ``explore_compiled``'s)."""
    model = Model(get_design(name), cfg)
    res = explore_compiled(
        name,
        cfg,
        backend=backend,
        symmetry=symmetry,
        liveness=liveness,
        max_states=max_states,
        max_memory=max_memory,
        progress=progress,
        partial_on_interrupt=partial_on_interrupt,
        kernels=kernels,
    )
    out = CheckResult(f"explore-{res.backend}", name, cfg.name)
    for prop, _n in res.program.invariants:
        if prop == "encoding_capacity":
            continue
        v = res.first_violation.get(prop)
        if v is not None:
            out.verdicts[prop] = FAIL
            steps = _explicit(model, res, res.behaviour(v))
            out.counterexamples[prop] = Counterexample(prop, "invariant", steps)
        else:
            out.verdicts[prop] = PASS if res.complete else UNKNOWN
    for prop, _n in res.program.step_properties:
        hit = res.step_violation.get(prop)
        if hit is not None:
            u, i = hit
            out.verdicts[prop] = FAIL
            steps = _explicit(model, res, res.behaviour(u, extra=i))
            out.counterexamples[prop] = Counterexample(prop, "step", steps)
        else:
            out.verdicts[prop] = PASS if res.complete else UNKNOWN
    _liveness(model, res, out, liveness, max_memory, partial_on_interrupt)
    overflow = res.first_violation.get("encoding_capacity")
    out.stats = {
        "states": res.states,
        "transitions": res.transitions,
        "depth": res.depth,
        "complete": res.complete,
        "stopped": res.stopped or res.liveness_stopped or None,
        "symmetry": res.symmetry,
        "renamings_built": res.renamings_built if res.symmetry else None,
        "seconds": round(res.seconds, 3),
        "backend": res.backend,
        "how": res.how,
        "kernels": res.kernels if res.backend == "c" else None,
        "bytes": res.bytes,
        "fingerprint_collision_probability": float(f"{res.collision_probability:.1e}"),
        "encoding_overflow": overflow is not None,
    }
    if overflow is not None:
        # a slot array too small for a state reached: nothing past it is decided
        for prop, verdict in out.verdicts.items():
            if verdict == PASS:
                out.verdicts[prop] = UNKNOWN
    return out
