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

from typing import Any

from replcheck.model import Config, Model, get_design
from replcheck.specs.bmc import replay
from replcheck.specs.compiled import CompiledExploration, explore_compiled
from replcheck.specs.explore import cycle, fair_lasso
from replcheck.specs.results import FAIL, PASS, UNKNOWN, CheckResult, Counterexample


class ReplayError(AssertionError):
    """The compiled search found a behaviour the explicit model does not take."""


def _explicit(model: Model, res: CompiledExploration, states: list[Any]) -> list[Any]:
    steps = replay(model, states)
    if steps is None:
        raise ReplayError(f"{res.design}@{res.config}: a compiled behaviour does not replay")
    return steps


def _successors(res: CompiledExploration) -> list[list[tuple[int, int]]]:
    assert res.edges is not None
    out: list[list[tuple[int, int]]] = [[] for _ in range(res.states)]
    for u, v, i in zip(*res.edges, strict=True):
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
) -> Counterexample | None:
    """A fair cycle or stuck state, reachable, where goal ``goal`` never holds
    (``explore.fair_lasso`` over the edge arrays)."""
    name = res.program.goals[goal][0]
    kind = res.program.names
    bit = 1 << goal
    bad = {v for v in range(res.states) if not res.goal_bits[v] & bit}
    kinds = [[(v, kind[i]) for v, i in out] for out in succ]
    found = fair_lasso(bad, kinds, depth, model.fair_kinds) if bad else None
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
    if liveness and res.complete:
        succ = _successors(res)
        depth = _depths(res)
    for j, (prop, _n) in enumerate(res.program.goals):
        if not liveness or not res.complete:
            out.verdicts[prop] = UNKNOWN
            continue
        cex = liveness_counterexample(model, res, j, succ, depth)
        out.verdicts[prop] = FAIL if cex else PASS
        if cex:
            out.counterexamples[prop] = cex
    overflow = res.first_violation.get("encoding_capacity")
    out.stats = {
        "states": res.states,
        "transitions": res.transitions,
        "depth": res.depth,
        "complete": res.complete,
        "stopped": res.stopped or None,
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
