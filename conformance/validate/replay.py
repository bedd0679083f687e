"""One behaviour of the model, whatever it came from: a recorded trace or a sequence of actions.

``from_trace(path)`` validates a trace (``validate.validate_events``, whose verdict it keeps) and
takes the behaviour the validator matched: the whole trace when it was accepted, its longest
matched prefix otherwise, ending with the step that breaks a property when one does.
``from_actions(design, cfg, actions)`` takes a counterexample of a checker, or any sequence of
actions (``show --actions``), step by step from the initial state.

A ``Behaviour`` is a list of ``Step``: the initial state first, then for every step the trace
event it matches (or None: a hidden step, or a counterexample's step), the model action (or None:
an event the model consumes without a step, such as a context event or an observation) and the
state after it. An event the model matches by several actions (its entry in ``mapping.RULES``
is ``composed``, or a ``path``) is several steps naming the same event. Every step's process is
its ``lane``: the trace's process that wrote its event, or for a step no event records, who
takes it in the model (``action_lane``).

Other sources (a ZooKeeper data directory, once its events can be read) become a behaviour
through ``from_events``: anything that yields trace events is replayed like a trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.trace.event import Event
from replcheck.conformance.trace.reader import TraceFault, read_trace
from replcheck.conformance.validate.core import (
    Bounds,
    Validator,
    Verdict,
    _event_text,
    hold_whole,
    path_of,
    validate_events,
)
from replcheck.model import STANDARD, Action, Config, Model, get_design
from replcheck.model.common import rules
from replcheck.model.render.draw import describe_action

DEFAULT_BOUNDS = Bounds()

HIDDEN_LANE = "hidden steps"
"""The lane of the model's steps that no event records."""


class ReplayError(Exception):
    """The source cannot be replayed as it is (bad input); the message is one line."""


@dataclass(frozen=True)
class Step:
    index: int
    event: int | None
    """The index (0-based, file order) of the trace event this step matches, if any."""
    action: Action | None
    state: Any
    lane: str
    hidden: bool = False
    """A model step between two events that no event records."""


@dataclass(frozen=True)
class Failure:
    """Where a behaviour stops being one the design allows: a broken property (at ``step``), or a
    divergence (the trace's ``event`` did not fit after the last step)."""

    kind: str
    """``property`` or ``divergence`` (``liveness`` for a lasso or a stuck state)."""
    property: str = ""
    step: int | None = None
    event: int | None = None


@dataclass
class Behaviour:
    source: str
    kind: str
    """``trace``, ``counterexample`` or ``actions``."""
    design: str
    model: Model
    steps: list[Step]
    headline: str
    failure: Failure | None = None
    events: list[Event] = field(default_factory=list)
    """The trace's events (empty for a sequence of actions)."""
    verdict: Verdict | None = None
    loop_start: int | None = None
    stuck: bool = False

    @property
    def cfg(self) -> Config:
        return self.model.cfg

    def broken(self, n: int) -> list[str]:
        """The invariants broken in step ``n``'s state and the step properties its step breaks."""
        step = self.steps[n]
        cfg, st = self.cfg, step.state
        out = [p.name for p in self.model.invariants if not p.check(cfg, st)]
        if n and step.action is not None:
            before = self.steps[n - 1].state
            out += [p.name for p in self.model.step_properties if not p.check(cfg, before, st)]
        return out

    def described(self, n: int) -> str:
        """Step ``n``'s action with its parameters named, or what its event is."""
        step = self.steps[n]
        if step.action is not None:
            before = self.steps[n - 1].state
            return describe_action(self.model.design, step.action, self.cfg, before)
        if step.event is not None:
            return f"{event_text(self.events[step.event])} (no model step)"
        return "the initial state"

    def zxid(self, n: int) -> int | None:
        step = self.steps[n]
        return None if step.event is None else self.events[step.event].zxid

    def matched_events(self) -> set[int]:
        return {s.event for s in self.steps if s.event is not None}

    def lanes(self) -> list[str]:
        """Every process, in the order it first appears (trace events first), then hidden
        steps."""
        seen: dict[str, None] = {}
        for e in self.events:
            seen.setdefault(e.proc, None)
        for s in self.steps[1:]:
            seen.setdefault(s.lane, None)
        if HIDDEN_LANE in seen:
            del seen[HIDDEN_LANE]
            seen[HIDDEN_LANE] = None
        return list(seen)


def event_text(e: Event | dict[str, Any]) -> str:
    """One event (or its JSON object) as the validator's report writes it: kind, name,
    arguments, process, zxid."""
    return _event_text(Event.of(e))


# --- lanes of model steps ---------------------------------------------------------------------

CLEANER = frozenset(
    {
        "clean",
        "lock_cleaner",
        "cleaner_start",
        "cleaner_read",
        "cleaner_read_queue",
        "cleaner_finish",
        "cleaner_delete",
    }
)
"""The master's log cleaner: a ``server`` these name is whose WAL or znode it looks at."""

ADMIN = frozenset(
    {"add_peer", "remove_peer", "enable_peer", "disable_peer", "toggle_replication", "transit_peer"}
)


def action_lane(model: Model, action: Action) -> str:
    """Who takes a model step no event records: the other cluster it names (``sink-<n>``), the
    region server it names (``rs-<name>``, as the reference cluster names its processes), the
    admin, or the master (its log cleaner among them)."""
    try:
        params = model.design.kind(action.name).params
    except KeyError:
        params = ()
    named = dict(zip(params, action.args, strict=False))
    if action.name in CLEANER:
        return "master"
    if isinstance(named.get("cluster"), int):
        return f"sink-{named['cluster']}"
    if isinstance(named.get("server"), int):
        return "rs-" + rules.server_name(model.cfg, named["server"])
    if action.name in ADMIN:
        return "admin"
    return "master"


# --- a sequence of actions --------------------------------------------------------------------


def from_actions(
    design: str,
    cfg: Config,
    actions: Sequence[Action],
    *,
    source: str = "actions",
    kind: str = "actions",
    prop: str | None = None,
    loop_start: int | None = None,
    stuck: bool = False,
) -> Behaviour:
    """Take ``actions`` from the initial state; ``ReplayError`` names the first one that is not
    an action of the design or not enabled. The failure is ``prop`` where it first breaks (a
    liveness property: the lasso or the stuck end), or else the first property any step breaks."""
    model = Model(get_design(design), cfg)
    state = model.init()
    steps = [Step(0, None, None, state, "init")]
    names = {k.name for k in model.design.kinds}
    for n, action in enumerate(actions, start=1):
        if action.name not in names:
            raise ReplayError(f"step {n}: {design} has no action {action.name!r}")
        if action not in model.enabled(state):
            raise ReplayError(f"step {n}: {action} is not enabled in {design}@{cfg.name}")
        state = model.step(state, action)
        steps.append(Step(n, None, action, state, action_lane(model, action)))
    b = Behaviour(source, kind, design, model, steps, "", loop_start=loop_start, stuck=stuck)
    liveness = {p.name for p in model.liveness}
    if prop in liveness:
        b.failure = Failure("liveness", prop, len(steps) - 1)
        how = "gets stuck" if stuck else f"loops back to step {loop_start}"
        b.headline = f"{prop} never holds: the behaviour {how} ({len(steps) - 1} steps)"
        return b
    for n in range(len(steps)):
        broken = b.broken(n)
        if broken and (prop is None or prop in broken):
            name = prop or broken[0]
            b.failure = Failure("property", name, n)
            b.headline = f"{name} breaks at step {n} of {len(steps) - 1}"
            return b
    b.headline = f"no property breaks in {len(steps) - 1} steps"
    if prop:
        b.headline += f" ({prop} holds throughout)"
    return b


# --- a trace ------------------------------------------------------------------------------------


def from_trace(
    path: Path,
    design: str | None = None,
    bounds: Bounds = DEFAULT_BOUNDS,
    *,
    prop: str | None = None,
) -> Behaviour:
    """Validate a trace file or run folder and take the behaviour it matched. Bad input (a
    malformed line, an unknown design, a ``prop`` that is no property of the design) is a
    ``TraceFault`` naming the file and line. A trace that may have been cut at a line boundary
    is undecided, as ``validate`` holds it (``core.hold_whole``)."""
    trace = read_trace(path, design)
    if trace.fault is not None:
        raise TraceFault(trace.fault)
    name = design or trace.design
    if name is None:
        raise TraceFault(f"{trace.path}: no event names its design; give --design")
    if prop is not None:
        unknown = unknown_property(prop, [name])
        if unknown:
            raise TraceFault(f"{trace.path}: {unknown}")
    b = from_events(trace.events, name, source=str(trace.path), bounds=bounds)
    if b.verdict is not None:
        hold_whole(b.verdict, trace)
        b.headline = b.verdict.headline()
    return b


def property_names(design: str) -> list[str]:
    """Every property of ``design`` (its invariants, step properties and liveness), by name,
    as its model under its first standard configuration has them."""
    d = get_design(design)
    cfg = STANDARD[d.configs[0]] if d.configs and d.configs[0] in STANDARD else STANDARD["std"]
    return [p.name for p in Model(d, cfg).properties]


def unknown_property(prop: str, designs: Sequence[str]) -> str | None:
    """Why ``prop`` is no property of any of ``designs`` (one line listing theirs), or None."""
    known: dict[str, None] = {}
    for design in designs:
        known.update(dict.fromkeys(property_names(design)))
    if prop in known:
        return None
    return f"--property {prop}: no such property of {', '.join(designs)}; known: {', '.join(known)}"


def from_events(
    events: list[Event] | list[dict[str, Any]],
    design: str,
    *,
    source: str,
    bounds: Bounds = DEFAULT_BOUNDS,
) -> Behaviour:
    """The behaviour of already-read trace events, with their verdict."""
    verdict = validate_events(events, design, path=source, bounds=bounds)
    if verdict.status == "bad-input":
        raise TraceFault(verdict.reason)
    try:
        val = Validator(events, design, bounds=bounds)
    except ValueError as exc:  # the derived configuration is beyond the model's bounds
        raise ReplayError(f"{source}: the model cannot hold this trace: {exc}") from None
    outcome, final = val.run()
    model = val.model
    steps = [Step(0, None, None, model.init(), "init")]
    violation = None
    if outcome == "accepted":
        node = final
    elif verdict.status == "rejected" and verdict.reason != "divergence" and val.violations:
        violation = max(val.violations, key=lambda x: x[5].consumed)
        node = violation[5]
    else:
        node = val.best[0] if val.best else None
    for n, actions in path_of(node):
        _add(steps, model, val.events, n, actions)
    b = Behaviour(source, "trace", design, model, steps, verdict.headline(), verdict=verdict)
    b.events = val.events
    if violation is not None:
        n, prop, before, after, bad, _node = violation
        _add_breaking(steps, val, n, before, after, bad[0])
        b.failure = Failure("property", prop, len(steps) - 1, verdict.event)
    elif verdict.status != "accepted" and verdict.event is not None:
        b.failure = Failure("divergence", "", None, verdict.event)
    return b


def _lane(events: list[Event], n: int | None) -> str:
    return HIDDEN_LANE if n is None else str(events[n].proc)


def _add(
    steps: list[Step],
    model: Model,
    events: list[Event],
    n: int | None,
    actions: tuple[Action, ...],
) -> None:
    """Steps for one move of the validator's search: an event consumed without a step, an event
    matched by its actions, or a hidden step."""
    state = steps[-1].state
    if not actions:
        steps.append(Step(len(steps), n, None, state, _lane(events, n)))
        return
    for a in actions:
        state = model.step(state, a)
        steps.append(Step(len(steps), n, a, state, _lane(events, n), hidden=n is None))


def _add_breaking(
    steps: list[Step], val: Validator, n: int | None, before: Any, after: Any, bad: Action
) -> None:
    """The steps of the move that breaks a property: the actions of the event's composition up
    to the breaking one (found again from the mapping), then the breaking step."""
    state = steps[-1].state
    if n is not None and state != before:
        for cand in val.mapping.candidates(n, val.events[n], state):
            prefix = _prefix_to(val.model, state, cand.actions, before, bad)
            if prefix is not None:
                for a in prefix:
                    _add(steps, val.model, val.events, n, (a,))
                break
    lane = _lane(val.events, n)
    steps.append(Step(len(steps), n, bad, after, lane, hidden=n is None))


def _prefix_to(
    model: Model, state: Any, actions: tuple[Action, ...], before: Any, bad: Action
) -> list[Action] | None:
    """The actions of a composition taken before ``bad`` when they lead to ``before``."""
    for i, a in enumerate(actions):
        if a == bad and state == before:
            return list(actions[:i])
        if a.args not in set(model.enabled_args(state, a.name)):
            return None
        state = model.step(state, a)
    return None
