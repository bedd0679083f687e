"""``replcheck replay --export-test FILE``: the failing behaviour as a pytest regression test.

A rejected trace is shrunk first (``conformance.shrink``: the shortest failing prefix, then
delta debugging while the verdict stays the same, at the same recorded event). Shrinking stops
at the time limit, or at Ctrl-C: the test then holds the smallest failing events found so far,
and its docstring says it is not minimal. The test holds
the events that are left and asserts that ``validate_events`` rejects them just so; its
docstring tells the model's behaviour step by step, the way Hypothesis prints a falsifying
example.

A counterexample of a checker (or an action string that breaks a property) is shrunk by dropping
actions while the property still breaks (``specs.fuzz.minimize``); the test takes the actions
one by one, asserts each is enabled, and asserts the property breaks at the last one and not
before. A liveness counterexample is exported as it is: the test asserts its loop closes (up to
renaming of servers), or that nothing is enabled at its end.

Either test passes as written: it pins the failure, so it fails the day the failure goes away.
"""

from __future__ import annotations

import pprint
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from replcheck.conformance.validate.replay import Behaviour, event_text, from_actions, from_events
from replcheck.conformance.validate.shrink import Shrunk, shrink
from replcheck.model import STANDARD
from replcheck.specs.fuzz import minimize
from replcheck.specs.results import Counterexample


class NothingToExport(ValueError):
    """The behaviour does not fail: there is no failing prefix to pin."""


@dataclass
class Exported:
    text: str
    summary: str
    interrupted: bool = False
    """Ctrl-C stopped the shrinking: the test is the smallest found so far, not minimal."""


def export(
    b: Behaviour, *, seconds: float = 300.0, progress: Callable[[int, int], None] | None = None
) -> Exported:
    """The test file's text for a failing behaviour (``NothingToExport`` otherwise)."""
    if b.kind == "trace":
        return _trace_test(b, seconds, progress)
    return _actions_test(b)


def _name(*parts: str) -> str:
    return "test_" + re.sub(r"[^0-9a-z]+", "_", " ".join(parts).lower()).strip("_")


def _comment(text: str) -> str:
    """Text from outside, safe in a comment or docstring: one line, printable ASCII."""
    return text.encode("unicode_escape").decode("ascii").replace('"""', '\\"\\"\\"')


# --- traces -------------------------------------------------------------------------------------


def _trace_test(
    b: Behaviour, seconds: float, progress: Callable[[int, int], None] | None
) -> Exported:
    v = b.verdict
    if v is None or v.status != "rejected":
        raise NothingToExport(f"{b.source} is {b.headline}: there is no failing prefix to export")
    s: Shrunk = shrink(b.events, b.design, seconds=seconds, progress=progress, verdict=v)
    small = from_events(s.events, b.design, source="the events below")
    failing = b.events[v.event] if v.event is not None else {}
    if s.interrupted:
        how = "interrupted (Ctrl-C): NOT minimal, the smallest found so far"
    elif s.minimal:
        how = "1-minimal: no single event can be removed"
    else:
        how = "stopped at the time limit: not minimal"
    lines = [
        '"""A regression test exported by ``replcheck replay --export-test``.',
        "",
        f"Source: {_comment(b.source)} ({len(b.events)} events)",
        f"Design: {_comment(b.design)}",
        f"Verdict: {_comment(b.headline)}",
        f"  at line {failing.get('_line')}: {_comment(event_text(failing))}",
        "",
        f"Shrunk to {len(s.events)} events by delta debugging ({s.tries} validations, {how}).",
        f"They are rejected the same way: {_comment(s.verdict.headline())}.",
        "",
        "The model's behaviour that matches them (the failure last):",
        *_behaviour_lines(small),
        '"""',
        "",
        "from replcheck.conformance.validate.core import validate_events",
        "",
        f"DESIGN = {b.design!r}",
        "",
        "EVENTS = [",
    ]
    for k, (n, e) in enumerate(zip(s.original, s.events, strict=True)):
        lines.append(f"    # {k}: event {n} of the source: {_comment(event_text(e))}")
        lines.append(textwrap.indent(pprint.pformat(e, width=92, sort_dicts=False), "    ") + ",")
    lines += [
        "]",
        "",
        "",
        f"def {_name(b.design, v.reason)}() -> None:",
        "    verdict = validate_events(EVENTS, DESIGN)",
        f"    assert verdict.headline() == {s.verdict.headline()!r}, verdict.headline()",
        "",
    ]
    if s.interrupted:
        end = "interrupted: not minimal, the smallest found so far"
    else:
        end = "minimal" if s.minimal else "time limit reached: not minimal"
    summary = (
        f"{len(b.events)} events shrunk to {len(s.events)} in {s.tries} validations "
        f"({s.seconds:.1f} s, {end})"
    )
    return Exported("\n".join(lines), summary, interrupted=s.interrupted)


def _behaviour_lines(b: Behaviour) -> list[str]:
    out = []
    for step in b.steps[1:]:
        if step.action is None:
            continue
        where = "a hidden step" if step.hidden else f"event {step.event}"
        mark = ""
        if b.failure is not None and b.failure.step == step.index:
            mark = f"   <- breaks {b.failure.property}"
        out.append(f"    {step.index}. {_comment(b.described(step.index))}  [{where}]{mark}")
    f = b.failure
    if f is not None and f.kind == "divergence" and f.event is not None:
        out.append(
            f"    then event {f.event} does not fit: {_comment(event_text(b.events[f.event]))}"
        )
    return out


# --- sequences of actions -----------------------------------------------------------------------


def _actions_test(b: Behaviour) -> Exported:
    f = b.failure
    if f is None:
        raise NothingToExport(f"{b.source}: {b.headline}: there is nothing failing to export")
    model = b.model
    actions = [s.action for s in b.steps[1:] if s.action is not None]
    before = len(actions)
    if f.kind == "property":
        prop = next(p for p in model.properties if p.name == f.property)
        steps = [(s.action, s.state) for s in b.steps]
        cex = minimize(model, Counterexample(prop.name, prop.kind, steps), prop)
        actions = cex.actions()
        b = from_actions(b.design, b.cfg, actions, prop=prop.name)
    cfg = b.cfg
    if STANDARD.get(cfg.name) == cfg:
        config, name = f"STANDARD[{cfg.name!r}]", "STANDARD"
    else:
        fields = "".join(f"        {k}={v!r},\n" for k, v in cfg.to_dict().items())
        config, name = f"Config(\n{fields}    )", "Config"
    lines = [
        '"""A regression test exported by ``replcheck replay --export-test``.',
        "",
        f"Source: {_comment(b.source)}",
        f"Design: {_comment(b.design)} under {_comment(cfg.name)}",
        f"Failure: {_comment(b.headline)}",
        f"Shrunk from {before} to {len(actions)} actions (dropping actions while it still fails).",
        '"""',
        "",
        f"from replcheck.model import Action, Model, {name}, get_design",
        "",
        f"MODEL = Model(get_design({b.design!r}), {config})",
        "",
        "ACTIONS = [",
    ]
    for n, a in enumerate(actions, 1):
        lines.append(
            f"    Action({a.name!r}, {tuple(a.args)!r}),  # {n}. {_comment(b.described(n))}"
        )
    lines += ["]", "", "", f"def {_name(b.design, f.property)}() -> None:"]
    lines += _actions_body(f.kind, f.property, b.loop_start, b.stuck)
    return Exported("\n".join(lines) + "\n", f"{before} actions shrunk to {len(actions)}")


def _actions_body(kind: str, prop: str, loop_start: int | None, stuck: bool) -> list[str]:
    body = [
        "    state = MODEL.init()",
        "    states = [state]",
        "    for n, action in enumerate(ACTIONS, 1):",
        "        assert action in MODEL.enabled(state), f'step {n}: {action} is not enabled'",
        "        before, state = state, MODEL.step(state, action)",
        "        states.append(state)",
    ]
    if kind == "property":
        body[2:2] = ["    broken: list[str] = []"]
        body += [
            "        broken = [p.name for p in MODEL.invariants if not p.check(MODEL.cfg, state)]",
            "        broken += [",
            "            p.name",
            "            for p in MODEL.step_properties",
            "            if not p.check(MODEL.cfg, before, state)",
            "        ]",
            "        if n < len(ACTIONS):",
            f"            assert {prop!r} not in broken, f'breaks already at step {{n}}'",
            f"    assert {prop!r} in broken",
        ]
    elif stuck:
        body += [
            "    # nothing more can happen, and the goal does not hold",
            "    assert not MODEL.enabled(state), 'something is still enabled at the end'",
            f"    goal = next(p for p in MODEL.liveness if p.name == {prop!r})",
            "    assert not goal.check(MODEL.cfg, state)",
        ]
    else:
        body += [
            "    # the behaviour loops back, up to renaming of servers, and repeats forever",
            f"    assert MODEL.canonical(states[{loop_start}]) == MODEL.canonical(state)",
        ]
    return body
