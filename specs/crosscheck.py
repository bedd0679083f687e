"""Two engines, one answer: exhaustive exploration and bounded model checking must report the same
violated properties, each first broken at the same depth, up to a given depth.

Exploration is breadth-first, so a state's depth is the length of a shortest behaviour reaching
it, and a property's first violation depth is the least depth of a state breaking it (of a
transition's target, for a step property). Bounded model checking asks the same question of the
flat model depth by depth. They share nothing but the design's decision rules: a disagreement is a
bug in the explicit model, its symmetry reduction, the flat encoding or the solver's use.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from replcheck.model import Model, get_design
from replcheck.model.config import STANDARD, Config
from replcheck.model.engine.catalogue import flat_model
from replcheck.specs.bmc import BmcResult, bmc
from replcheck.specs.explore import explore


def explored_depths(model: Model) -> tuple[dict[str, int], int, float]:
    """Property -> first violation depth by exploration; the depth that exhausts the
    configuration; seconds."""
    ex = explore(model)
    first = {p: ex.depth[v] for p, v in ex.first_violation.items()}
    for p, (u, _a, _n) in ex.step_violation.items():
        first[p] = ex.depth[u] + 1
    return first, ex.max_depth, ex.seconds


def default_config(name: str) -> Config:
    """The small configuration bounded model checking uses for a design: its first standard
    configuration (for a mutant, where its bug shows; ``std``, or ``t-std`` in the table era, for
    the designs that run every configuration)."""
    cls = type(get_design(name))
    if cls.configs:
        return STANDARD[cls.configs[0]]
    return STANDARD["t-std" if cls.era == "table" else "std"]


@dataclass
class CrossCheck:
    design: str
    config: str
    depth: int
    explored: dict[str, int]
    """First violation depths by exploration, within ``depth``."""
    bounded: dict[str, int]
    exhausted_at: int
    """The depth at which exploration exhausted the configuration."""
    explore_seconds: float
    bmc: BmcResult
    notes: list[str] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return (
            self.explored == self.bounded
            and self.bmc.reached == self.depth
            and all(self.bmc.replayed.values())
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "config": self.config,
            "depth": self.depth,
            "agree": self.agree,
            "explore": dict(sorted(self.explored.items())),
            "bmc": dict(sorted(self.bounded.items())),
            "exhausted_at": self.exhausted_at,
            "explore_seconds": round(self.explore_seconds, 3),
            "bmc_seconds": round(self.bmc.seconds, 3),
            "bmc_replayed": self.bmc.replayed,
        }


def cross_check(
    name: str,
    cfg: Config | None = None,
    depth: int | None = None,
    deadline: float | None = None,
    progress: Any = None,
) -> CrossCheck:
    """Compare the two engines on ``name`` under ``cfg`` (default ``default_config``) up to
    ``depth`` (default: the deepest first violation exploration finds, at least 4)."""
    cfg = cfg or default_config(name)
    model = Model(get_design(name), cfg)
    first, exhausted, secs = explored_depths(model)
    if depth is None:
        depth = max([4, *first.values()])
    t0 = time.perf_counter()
    result = bmc(flat_model(name, cfg), depth, model=model, deadline=deadline, progress=progress)
    result.seconds = time.perf_counter() - t0
    within = {p: d for p, d in first.items() if d <= depth}
    bounded = {p: d for p, d in result.first.items() if p != "encoding_capacity"}
    out = CrossCheck(name, cfg.name, depth, within, bounded, exhausted, secs, result)
    if result.capacity is not None:
        out.notes.append(f"the flat encoding overflowed at depth {result.capacity}")
    return out


@dataclass
class DeepCheck:
    """Bounded model checking started on exploration's shortest path to a deep violation."""

    design: str
    config: str
    prop: str
    violation_depth: int
    """Exploration's first violation depth of ``prop``."""
    steps: int
    """BMC starts ``steps`` before the violation on its shortest path and unrolls ``steps``."""
    bounded: dict[str, int]
    """BMC's first violation depths, counted from the start state."""
    earliest: dict[str, int]
    """Per property exploration breaks, the least number of steps from the start state at which
    it could break (its first violation depth minus the start's depth)."""
    replayed: bool
    seconds: float
    timed_out: bool

    @property
    def agree(self) -> bool:
        """BMC breaks ``prop`` exactly ``steps`` later, breaks nothing exploration does not break
        and nothing sooner than exploration allows, and its behaviours are the explicit model's."""
        return (
            not self.timed_out
            and self.replayed
            and self.bounded.get(self.prop) == self.steps
            and all(p in self.earliest and d >= self.earliest[p] for p, d in self.bounded.items())
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design,
            "config": self.config,
            "property": self.prop,
            "violation_depth": self.violation_depth,
            "steps": self.steps,
            "agree": self.agree,
            "bmc": dict(sorted(self.bounded.items())),
            "earliest": dict(sorted(self.earliest.items())),
            "replayed": self.replayed,
            "seconds": round(self.seconds, 3),
        }


def cross_check_from_path(
    name: str, cfg: Config | None = None, prop: str | None = None, steps: int = 8
) -> DeepCheck:
    """The second engine on a violation deeper than it reaches from the initial state: explore
    (no symmetry reduction), take the shortest path to the first state breaking ``prop`` (by
    default the invariant exploration breaks deepest), start bounded model checking ``steps``
    before it and unroll ``steps``. On a shortest path nothing breaks sooner than exploration
    says, so BMC must find ``prop`` broken exactly ``steps`` later and nothing earlier than
    exploration allows; each counterexample is replayed through the explicit model from the
    start state."""
    from dataclasses import replace

    from replcheck.specs.bmc import normalize

    cfg = cfg or default_config(name)
    model = Model(get_design(name), cfg)
    ex = explore(model, symmetry=False)
    first = {p: ex.depth[v] for p, v in ex.first_violation.items()}
    for p, (u, _a, _n) in ex.step_violation.items():
        first[p] = ex.depth[u] + 1
    if prop is None:
        if not ex.first_violation:
            raise ValueError(f"{name}@{cfg.name}: exploration breaks no invariant")
        prop = max(ex.first_violation, key=lambda p: (first[p], p))
    if prop not in ex.first_violation:
        raise ValueError(f"{name}@{cfg.name}: exploration does not break invariant {prop!r}")
    path = ex.path(ex.first_violation[prop])
    depth = len(path) - 1
    steps = min(steps, depth)
    start = path[depth - steps][1]
    fm = flat_model(name, cfg)
    t0 = time.perf_counter()
    res = bmc(replace(fm, init=fm.encode(start)), steps)
    seconds = time.perf_counter() - t0
    bounded = {p: d for p, d in res.first.items() if p != "encoding_capacity"}
    if res.capacity is not None:
        bounded["encoding_capacity"] = res.capacity
    replayed = True
    for cex in res.counterexamples.values():
        states = [st for _a, st in cex.steps]
        if normalize(states[0]) != normalize(start):
            replayed = False
        for before, after in pairwise(states):
            nexts = {normalize(model.step(before, a)) for a in model.enabled(before)}
            if normalize(after) not in nexts:
                replayed = False
    earliest = {p: d - (depth - steps) for p, d in first.items()}
    return DeepCheck(
        name, cfg.name, prop, depth, steps, bounded, earliest, replayed, seconds, res.timed_out
    )


def bmc_check(model: Model) -> Any:
    """The ``bmc`` checker of the ``replcheck check`` matrix: bounded model checking of the row's
    design and configuration to the depth of exploration's deepest first violation (at least 4).
    Every property it finds broken is a ``FAIL(b)`` cell; the column ``bmc_agrees`` says whether
    both engines found the same properties first broken at the same depths. Designs without a
    flat model (the table era) get no verdicts and a note."""
    from replcheck.model.zk.layout import FlatError
    from replcheck.specs.results import FAIL, PASS, CheckResult

    name = type(model.design).name
    result = CheckResult("bmc", name, model.cfg.name)
    try:
        flat_model(name, model.cfg)
    except FlatError as exc:
        result.stats = {"note": str(exc)}
        return result
    cc = cross_check(name, model.cfg)
    for prop in cc.bounded:
        result.verdicts[prop] = FAIL
    result.verdicts["bmc_agrees"] = PASS if cc.agree else FAIL
    result.stats = cc.to_dict()
    return result
