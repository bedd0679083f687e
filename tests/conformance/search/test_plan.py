"""Plans as data: JSON and Python round trips, the peer-operation rule, and the strategies."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from replcheck.conformance.search.conform import DISABLE_LANDS, as_pytest, plans, windows, writes
from replcheck.conformance.search.plan import (
    HELD,
    PROFILES,
    REST_DEAD,
    SERVER_FAULTS,
    Plan,
    Step,
    Write,
    peer_ops_in_order,
)

PLAN = Plan(
    servers=3,
    writes=((Write("global", "put"), Write("local", "delete")), (), (Write("catalog", "put"),)),
    master_master=False,
    steps=(
        Step(after=1, op="disable_peer", peer=0),
        Step(after=2, fault="stall", at="cleaner_read", i=2),
        Step(after=2, fault="kill", victim=1),
        Step(after=3, fault="pause", victim=HELD, at="claim_read"),
        Step(after=4, op="enable_peer", peer=0),
    ),
)


def test_json_round_trip() -> None:
    again = Plan.from_json(json.loads(PLAN.dumps()))
    assert again == PLAN
    assert again.size() == {"servers": 3, "writes": 3, "peer_ops": 2, "faults": 3}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"servers": 0}, "servers must be 1-8"),
        ({"steps": [{"after": 0, "fault": "explode"}]}, "unknown fault 'explode'"),
        ({"steps": [{"after": 0, "fault": "stall"}]}, "a stall needs a point"),
        ({"steps": [{"after": 0, "fault": "kill", "at": "nowhere"}]}, "unknown hook point"),
        ({"steps": [{"after": 0, "op": "add_peer", "fault": "kill"}]}, "a peer operation or"),
        ({"writes": [[{"kind": "meta", "op": "put"}]]}, "unknown write"),
        ({"steps": [{"when": 3}]}, "not a plan: TypeError"),
    ],
)
def test_bad_plans_are_refused_in_one_line(edit: dict, message: str) -> None:
    data = {**PLAN.to_json(), **edit}
    with pytest.raises(ValueError, match=message) as info:
        Plan.from_json(data)
    assert "\n" not in str(info.value)


def test_peer_operations_that_do_not_apply_are_skipped() -> None:
    steps = tuple(
        Step(op=op, peer=p)
        for op, p in [
            ("enable_peer", 0),  # already enabled
            ("disable_peer", 0),
            ("disable_peer", 0),  # already disabled
            ("remove_peer", 1),  # not there
            ("add_peer", 1),
            ("add_peer", 1),  # there
            ("remove_peer", 1),
            ("add_peer", 1),  # added once only
            ("remove_peer", 0),  # peer 0 is never removed
            ("enable_peer", 0),
        ]
    )
    assert peer_ops_in_order(steps) == [
        False, True, False, False, True, False, True, False, False, True,
    ]  # fmt: skip


def test_python_source_builds_the_same_plan() -> None:
    source = PLAN.python()
    assert eval(source, {"Plan": Plan, "Step": Step, "Write": Write}) == PLAN


def test_printed_test_replays_the_same_plan() -> None:
    text = as_pytest("zk-multi/HBASE-12865", PLAN, "conformance: rejected")
    assert text.startswith("# replcheck conform: zk-multi/HBASE-12865 failed: conformance")
    namespace: dict = {}
    exec(compile(text, "test_conform.py", "exec"), namespace)
    calls = []
    namespace["check_plan"] = lambda design, plan, run_dir: calls.append((design, plan))
    namespace["test_conform_zk_multi_HBASE_12865"](tmp_path=__import__("pathlib").Path("x"))
    assert calls == [("zk-multi/HBASE-12865", PLAN)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PROFILES)).flatmap(lambda p: plans(PROFILES[p])))
def test_drawn_plans_are_valid_and_ordered(plan: Plan) -> None:
    plan.check()
    afters = [s.after for s in plan.steps]
    assert afters == sorted(afters)
    assert all(plan.writes[: plan.servers])  # every first incarnation writes
    assert (
        plan.servers
        <= len(plan.writes)
        <= plan.servers + sum(1 for s in plan.steps if s.fault in SERVER_FAULTS)
    )
    assert Plan.from_json(json.loads(plan.dumps())) == plan


FIRST_WRITES = st.lists(st.lists(writes(), min_size=1, max_size=10), min_size=2, max_size=4)


@settings(max_examples=60, deadline=None)
@given(FIRST_WRITES.flatmap(lambda ws: st.tuples(st.just(ws), windows(ws, rate=10.0))))
def test_windows_arm_a_point_then_open_it_with_a_death(
    drawn: tuple[list[list[Write]], list[Step]],
) -> None:
    ws, steps = drawn
    faults = [s for s in steps if s.fault]
    *aimed, death = faults
    assert len(aimed) in (1, 2) and not death.at and death.fault in SERVER_FAULTS
    assert all(s.at for s in aimed)
    if len(aimed) == 2:  # HBASE-12865's window: the claimer held until the cleaner is
        assert [(s.at, s.fault) for s in aimed] == [
            ("claim_read", "stall"),
            ("cleaner_read", "stall"),
        ]
        assert aimed[1].i == REST_DEAD and death.victim == len(ws) - 1
    elif aimed[0].at == "cleaner_read":
        assert aimed[0].fault == "stall" and aimed[0].i >= 1
    elif aimed[0].at == "claim_read":
        assert aimed[0].victim == HELD
    ops = [s.op for s in steps if s.op]
    if any(s.at == "cleaner_read" for s in aimed):  # a backlog across the cleaner's pass
        assert ops == ["disable_peer"] and steps[0].after == 0
        # the death comes once each server has written t edits, t past the disable's landing,
        # and the victim owes the peer an edit it wrote in between
        lands = math.ceil(DISABLE_LANDS * 10.0)
        ts = [
            t for t in range(lands + 1, lands + 4) if death.after == sum(min(len(w), t) for w in ws)
        ]
        mine = ws[death.victim % len(ws)]
        assert any(len(mine) >= t and any(w.kind == "global" for w in mine[lands:t]) for t in ts)
    else:
        assert ops in ([], ["disable_peer", "enable_peer"])
        assert death.after <= sum(len(w) for w in ws)


def test_the_structural_shrink_keeps_a_cut_only_while_the_plan_still_fails() -> None:
    from replcheck.conformance.search.shrink import shrink

    def fails(plan: Plan) -> bool:  # the bug: a LOCAL write shipped
        return any(w.kind == "local" for ws in plan.writes for w in ws)

    plan, runs, out_of_runs = shrink(PLAN, fails, runs=100)
    assert not out_of_runs and runs < 40
    assert plan.steps == () and not plan.master_master
    assert plan.servers == 1 and [w for ws in plan.writes for w in ws] == [Write("local", "delete")]


def test_the_structural_shrink_stops_at_its_budget() -> None:
    from replcheck.conformance.search.shrink import shrink

    plan, runs, out_of_runs = shrink(PLAN, lambda p: True, runs=3)
    assert (runs, out_of_runs) == (3, True)
    assert plan.steps == ()  # the first cut, kept
