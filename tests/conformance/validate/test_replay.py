"""One behaviour from a trace or from actions (``conformance.replay``), its shortest failing
prefix (``conformance.shrink``) and its ITF form (``conformance.itf``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import itf_py
import pytest
from replcheck.conformance.trace import mutate as tracemut
from replcheck.conformance.trace.itf import to_itf, value
from replcheck.conformance.validate.core import validate_events, validate_path
from replcheck.conformance.validate.replay import (
    HIDDEN_LANE,
    Behaviour,
    ReplayError,
    from_actions,
    from_events,
    from_trace,
)
from replcheck.conformance.validate.shrink import NotFailing, shrink
from replcheck.model import STANDARD, Action

GOLDEN = Path(__file__).resolve().parents[3] / "traces" / "golden"
VALID = GOLDEN / "zk-multi-kill.jsonl"
CLEANER_BUG = [Action("put", (0, 0, 0)), Action("roll", (0, 0))]
CLEANER_BUG += [Action("archive", (0, 0, 0)), Action("clean", (0, 0, 0))]


def hand_made(edit: str, base: Path = VALID) -> list[dict[str, Any]]:
    events = tracemut.load(base)
    events = tracemut.apply_edit(events, tracemut.HAND_MADE[edit](events))
    for n, e in enumerate(events, 1):
        e["_line"] = n
    return events


def property_rejection() -> Path:
    """The golden trace the manifest pins as rejected with a property (not a divergence)
    soonest."""
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    found = [
        (entry["event"], name)
        for name, entry in manifest["traces"].items()
        if entry["status"] == "rejected" and entry["reason"] != "divergence"
    ]
    if not found:
        pytest.skip("no golden trace is rejected with a property")
    return GOLDEN / f"{min(found)[1]}.jsonl"


def assert_consistent(b: Behaviour) -> None:
    """Every step's state is the model's step from the one before; steps are numbered."""
    for n, step in enumerate(b.steps):
        assert step.index == n
        if n and step.action is not None:
            assert b.model.step(b.steps[n - 1].state, step.action) == step.state
        elif n:
            assert step.state == b.steps[n - 1].state


def test_an_accepted_trace_is_a_behaviour_of_every_event() -> None:
    b = from_trace(VALID)
    assert b.headline == "accepted" == validate_path(VALID).headline()
    assert b.failure is None
    assert b.matched_events() == set(range(len(b.events)))
    assert_consistent(b)
    for step in b.steps[1:]:
        lane = HIDDEN_LANE if step.hidden else b.events[step.event]["proc"]
        assert step.lane == lane
    assert any(step.action is not None and b.zxid(step.index) for step in b.steps)
    assert {"driver", "master"} <= set(b.lanes())


def test_a_property_rejection_ends_with_the_step_that_breaks_it() -> None:
    path = property_rejection()
    b = from_trace(path)
    v = validate_path(path)
    assert b.headline == v.headline()
    assert b.failure is not None and b.failure.kind == "property"
    assert b.failure.property == v.reason and b.failure.event == v.event
    last = len(b.steps) - 1
    assert b.failure.step == last and b.steps[last].event == v.event
    assert v.reason in b.broken(last)
    assert not any(b.broken(n) for n in range(last))
    assert_consistent(b)


def test_a_divergence_stops_before_the_event_that_does_not_fit() -> None:
    events = hand_made("swap-across-zxid")
    b = from_events(events, "zk-multi", source="edited")
    v = validate_events(events, "zk-multi")
    assert b.headline == v.headline() and v.reason == "divergence"
    assert b.failure is not None and b.failure.kind == "divergence"
    assert b.failure.event == v.event and b.failure.step is None
    assert v.event not in b.matched_events()
    assert_consistent(b)


def test_actions_break_the_property_where_they_break_it() -> None:
    b = from_actions("zk-lock/cleaner-skips-lookup", STANDARD["std"], CLEANER_BUG[:3])
    assert b.failure is None
    early = [Action("crash", (0,)), *CLEANER_BUG[2:], Action("roll", (1, 0))]
    b = from_actions("zk-lock/cleaner-skips-lookup", STANDARD["std"], early)
    assert b.failure is not None and b.failure.step == 3  # the first step that breaks one
    assert b.failure.property == "no_wal_deleted_while_queued"
    b = from_actions(
        "zk-lock/cleaner-skips-lookup", STANDARD["std"], CLEANER_BUG, prop="no_lost_edit"
    )
    assert b.failure is not None and (b.failure.property, b.failure.step) == ("no_lost_edit", 4)
    assert b.headline == "no_lost_edit breaks at step 4 of 4"
    assert [s.lane for s in b.steps[1:]] == ["rs-1.1.1.1,60020,123456780"] * 3 + ["master"]
    assert_consistent(b)


def test_actions_that_break_nothing_have_no_failure() -> None:
    b = from_actions("zk-lock", STANDARD["std"], [Action("crash", (0,))])
    assert b.failure is None and b.headline == "no property breaks in 1 steps"


@pytest.mark.parametrize(
    ("actions", "why"),
    [
        ([Action("fly", (0,))], "step 1: zk-lock has no action 'fly'"),
        ([Action("crash", (0,)), Action("crash", (0,))], "step 2: crash(0) is not enabled"),
    ],
)
def test_actions_the_model_cannot_take_are_refused(actions: list[Action], why: str) -> None:
    with pytest.raises(ReplayError, match=why.replace("(", r"\(").replace(")", r"\)")):
        from_actions("zk-lock", STANDARD["std"], actions)


# --- shrinking ---------------------------------------------------------------------------------


def test_shrinking_keeps_the_verdict_at_the_same_event() -> None:
    events = hand_made("drop-event")
    before = validate_events(events, "zk-multi")
    s = shrink(events, "zk-multi", seconds=120)
    assert len(s.events) < before.event + 1 < len(events)
    assert s.verdict.reason == before.reason == "divergence"
    assert s.original[s.verdict.event] == before.event
    assert events[before.event] in s.events
    again = validate_events(s.events, "zk-multi")
    assert again.headline() == s.verdict.headline()
    if s.minimal:  # 1-minimal: without any one event it fails otherwise, or not at all
        for k in range(len(s.events)):
            if k != s.verdict.event:
                fewer = s.events[:k] + s.events[k + 1 :]
                v = validate_events(fewer, "zk-multi")
                assert (v.status, v.reason, v.event) != ("rejected", "divergence", k_of(s, k))


def k_of(s: Any, k: int) -> int:
    """The failing event's index once event ``k`` is gone."""
    n = s.verdict.event
    return n - 1 if k < n else n


def test_a_property_rejection_shrinks_to_its_failing_prefix() -> None:
    path = property_rejection()
    b = from_trace(path)
    s = shrink(b.events, b.design, seconds=300)
    assert s.verdict.status == "rejected" and s.verdict.reason == b.failure.property
    assert s.original[s.verdict.event] == b.failure.event
    assert len(s.events) < b.failure.event + 1


def test_nothing_to_shrink_in_an_accepted_trace() -> None:
    with pytest.raises(NotFailing, match="accepted"):
        shrink(from_trace(VALID).events[:50], "zk-multi")


# --- ITF --------------------------------------------------------------------------------------


def test_itf_values() -> None:
    assert value(7) == {"#bigint": "7"}
    assert value(True) is True and value("a") == "a"
    assert value((1, 2)) == {"#tup": [{"#bigint": "1"}, {"#bigint": "2"}]}
    assert value(["x"], "applied") == {"#set": ["x"]}
    assert value(["x"], "entries") == ["x"]
    assert value({"2": "ENABLED"}) == {"#map": [["2", "ENABLED"]]}
    assert value({"alive": False}) == {"alive": False}
    assert value({"pass": 1}) == {"#map": [["pass", {"#bigint": "1"}]]}  # a keyword: a map
    assert value(None, "lock") == {"#set": []}
    assert value("rs", "lock") == {"#set": ["rs"]}


def test_itf_of_a_trace_reads_back_with_itf_py() -> None:
    path = property_rejection()
    b = from_trace(path)
    data = to_itf(b)
    text = json.dumps(data)
    for tag in ("#bigint", "#set", "#map", "#tup", "#meta"):
        assert f'"{tag}"' in text
    trace = itf_py.trace_from_json(json.loads(text))
    model_steps = [s for s in b.steps if s.index == 0 or s.action is not None]
    assert len(trace.states) == len(model_steps)
    assert trace.vars[:2] == ["action", "args"]
    assert trace.meta["format"] == "ITF" and trace.meta["verdict"] == b.headline
    first, last = trace.states[0], trace.states[-1]
    assert first.values["action"] == "init" and first.meta["index"] == 0
    step = model_steps[-1]
    assert last.meta["action"] == str(step.action)
    assert last.meta["event"] == step.event and last.meta["broken"] == b.failure.property
    assert last.meta["zxid"] == b.events[step.event]["zxid"]
    assert last.values["args"] == tuple(step.action.args)
    assert last.values["budget"].puts == step.state.budget.puts
    storage = [s for s in trace.states if s.meta["zxid"] is not None]
    assert storage and all(isinstance(s.meta["zxid"], int) for s in storage)


def test_itf_of_a_lasso_sets_its_loop() -> None:
    actions = [Action("crash", (0,))]
    b = from_actions("zk-lock", STANDARD["std"], actions, prop="edits_delivered", loop_start=1)
    data = to_itf(b)
    assert data["loop"] == 1
    assert itf_py.trace_from_json(data).loop == 1
