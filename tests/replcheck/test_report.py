"""Reports: text, JSON round trip, JUnit XML, and the matrix they render (small configs only)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from replcheck.model import DESIGNS, STANDARD, Action, Model, get_design
from replcheck.model.common.state import GLOBAL, LOCAL
from replcheck.model.engine.logic import PY, dual
from replcheck.model.zk.lock import ZkLock
from replcheck.model.zk.mutants import replicable_ignoring_scope
from replcheck.specs import FAIL, Counterexample, check

from replcheck.matrix import Matrix, resolve_config, run_matrix
from replcheck.report import (
    SCHEMA,
    matrix_dict,
    parse_actions,
    render_counterexample,
    render_junit,
    render_result,
    result_dict,
    result_from_dict,
)

MUTANT = "zk-lock/ships-local-scope"  # caught in `filtering` by only_global_non_catalog


class LeakyDesign(ZkLock):
    """A 'correct' design (not a mutant) that ships LOCAL edits: the gate must go red."""

    name = "test/leaky"
    configs = ("filtering",)

    @dual(replicable_ignoring_scope)
    def rule_ships(self, edit, target):
        return replicable_ignoring_scope(PY, edit.kind, edit.cluster_ids, target)


@pytest.fixture(scope="module")
def mutant_result():
    model = Model(get_design(MUTANT), STANDARD["filtering"])
    return model, check(model)


@pytest.fixture
def leaky(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(DESIGNS, LeakyDesign.name, LeakyDesign)
    return LeakyDesign.name


def test_parse_actions() -> None:
    assert parse_actions("crash(1); lock(0, 1)") == [Action("crash", (1,)), Action("lock", (0, 1))]
    assert parse_actions("toggle_replication\ncleaner_stop()") == [
        Action("toggle_replication", ()),
        Action("cleaner_stop", ()),
    ]
    assert parse_actions(" ; ") == []
    for bad in ("crash(1", "crash(x)", "1crash(1)", "crash(1)(2)"):
        with pytest.raises(ValueError, match="malformed action"):
            parse_actions(bad)


def test_result_text(mutant_result) -> None:
    model, result = mutant_result
    text = render_result(result, model)
    assert text.startswith(f"explore {MUTANT}@filtering: ")
    assert "FAIL  only_global_non_catalog" in text
    assert "ok    no_lost_edit" in text
    assert "counterexample: only_global_non_catalog (invariant)" in text


def test_counterexample_is_drawn_step_by_step(mutant_result) -> None:
    model, result = mutant_result
    cex = result.counterexamples["only_global_non_catalog"]
    text = render_counterexample(model, cex)
    assert "== initial state ==" in text
    assert text.count("/hbase/replication/rs/") >= 2  # first and last state
    assert "actions: " + "; ".join(map(str, cex.actions())) in text
    for i, action in enumerate(cex.actions(), start=1):
        assert f"== step {i}: {action}  ->  {action.name}(" in text
    assert text.rstrip().endswith("!! only_global_non_catalog does not hold in this state")


def test_liveness_loop_and_stuck_are_marked() -> None:
    model = Model(get_design("zk-lock"), STANDARD["std"])
    s0 = model.init()
    a = Action("put", (0, 0, GLOBAL))
    s1 = model.step(s0, a)
    loop = Counterexample("edits_delivered", "liveness", [(None, s0), (a, s1), (a, s1)], 1)
    text = render_counterexample(model, loop)
    assert ">> loop start: from here (after step 1)" in text
    assert "<< loop end: back to the state after step 1" in text
    stuck = Counterexample("edits_delivered", "liveness", [(None, s0), (a, s1)], stuck=True)
    assert "!! stuck: no action is enabled" in render_counterexample(model, stuck)


def test_json_round_trip(mutant_result) -> None:
    model, result = mutant_result
    data = json.loads(json.dumps(result_dict(result, model)))
    assert data["checker"] == "explore"
    assert data["design"] == MUTANT and data["mutant_of"] == "zk-lock"
    assert data["config"] == "filtering"
    assert data["config_params"]["servers"] == 1
    assert data["verdicts"] == result.verdicts
    assert data["violated"] == ["only_global_non_catalog"]
    assert data["verdicts"]["only_global_non_catalog"] == FAIL
    (cex,) = data["counterexamples"]
    original = result.counterexamples["only_global_non_catalog"]
    assert cex["property"] == "only_global_non_catalog"
    assert cex["actions"] == [str(a) for a in original.actions()]
    assert len(cex["described"]) == len(cex["actions"]) == cex["length"]

    back = result_from_dict(data, model)
    assert back.verdicts == result.verdicts
    assert back.stats == result.stats
    again = back.counterexamples["only_global_non_catalog"]
    assert again.steps == original.steps  # replayed to the same states
    assert result_dict(back, model) == data

    bare = result_from_dict(data)
    assert bare.counterexamples["only_global_non_catalog"].actions() == original.actions()
    with pytest.raises(ValueError):
        result_from_dict({"checker": "explore"})


def test_matrix_junit_and_json() -> None:
    matrix = run_matrix(
        ["zk-lock", MUTANT, "zk-lock/no-loop-prevention"],
        configs=["filtering"],
        checkers=("explore",),
    )
    assert [r.status for r in matrix.rows] == ["green", "caught", "MISSED"]
    assert matrix.exit_code == 1
    table = matrix.render()
    assert "FAIL(e)" in table and "scope" in table
    assert "correct designs green: 1/1; mutants caught: 1/2" in table.splitlines()[-1]

    root = ET.fromstring(render_junit(matrix))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"zk-lock", MUTANT, "zk-lock/no-loop-prevention"}
    caught = suites[MUTANT].findall("testcase")
    assert [tc.get("name") for tc in caught] == ["caught by explore", "caught"]
    assert all(tc.find("failure") is None for tc in caught)
    assert "caught: only_global_non_catalog" in caught[0].find("system-out").text
    assert all(tc.get("classname") == f"{MUTANT}@filtering" for tc in caught)
    # one missed mutant is one failure, not one per property
    missed = suites["zk-lock/no-loop-prevention"].findall("testcase")
    failed = [tc for tc in missed if tc.find("failure") is not None]
    assert [tc.get("name") for tc in failed] == ["caught"]
    assert failed[0].find("failure").get("type") == "mutant-missed"
    assert all(tc.find("failure") is None for tc in suites["zk-lock"].findall("testcase"))
    # the times add up to the run's, not to one row's time per property
    for row in matrix.rows:
        suite = suites[row.design]
        total = sum(float(tc.get("time")) for tc in suite.findall("testcase"))
        assert total == pytest.approx(row.seconds, abs=0.01)

    data = json.loads(json.dumps(matrix_dict(matrix)))
    assert data["schema"] == SCHEMA
    assert len(data["results"]) == 3
    rows = data["matrix"]["rows"]
    assert [r["status"] for r in rows] == ["green", "caught", "MISSED"]
    assert rows[1]["cells"]["only_global_non_catalog"] == "FAIL(e)"
    assert rows[1]["failed_by"] == {"only_global_non_catalog": ["explore"]}


def test_correct_design_failure_and_known_findings(leaky: str) -> None:
    red = run_matrix([leaky], checkers=("explore",))
    assert isinstance(red, Matrix) and red.exit_code == 1
    assert red.rows[0].status == "RED"
    root = ET.fromstring(render_junit(red))
    failures = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
    assert [tc.get("name") for tc in failures] == ["only_global_non_catalog [explore]"]
    assert "/hbase/replication/rs/" in failures[0].find("failure").text

    pinned = {(leaky, "filtering"): {"only_global_non_catalog"}}
    green = run_matrix([leaky], checkers=("explore",), expected_failures=pinned)
    assert green.exit_code == 0
    assert green.rows[0].cell("only_global_non_catalog") == "FAIL(e)*"
    root = ET.fromstring(render_junit(green))
    assert all(tc.find("failure") is None for tc in root.iter("testcase"))


def test_unknown_verdicts_with_a_state_limit() -> None:
    matrix = run_matrix(["zk-lock"], configs=["filtering"], checkers=("explore",), max_states=50)
    row = matrix.rows[0]
    assert row.cell("edits_delivered") == "?"
    assert matrix.exit_code == 4  # undecided is not a failure, and not a pass either
    assert matrix.summary().startswith("PARTIAL")
    root = ET.fromstring(render_junit(matrix))
    undecided = [tc for tc in root.iter("testcase") if tc.get("name").endswith("[undecided]")]
    assert undecided and all(tc.find("failure").get("type") == "undecided" for tc in undecided)


def test_checker_error_is_an_error_not_a_crash() -> None:
    def boom(model, progress):
        raise RuntimeError("checker exploded")

    matrix = run_matrix(
        ["zk-lock"], configs=["cyclic"], checkers=("boom",), extra_checkers={"boom": boom}
    )
    assert matrix.rows[0].status == "ERROR" and matrix.exit_code == 1
    root = ET.fromstring(render_junit(matrix))
    assert any(tc.find("error") is not None for tc in root.iter("testcase"))
    assert "checker exploded" in matrix.render()


def test_resolve_config() -> None:
    assert resolve_config("std") is STANDARD["std"]
    cfg = resolve_config("std:servers=3,crashes=2")
    assert (cfg.servers, cfg.crashes, cfg.name) == (3, 2, "std:servers=3,crashes=2")
    assert resolve_config("wals_per_server=1").wals_per_server == 1
    kinds = resolve_config("filtering:edit_kinds=GLOBAL+LOCAL,hyphen_hosts=true")
    assert kinds.edit_kinds == (GLOBAL, LOCAL) and kinds.hyphen_hosts is True
    assert resolve_config("cyclic:topology=1>2+2>0").topology == ((1, 2), (2, 0))
    for bad in ("nope", "std:bogus=1", "std:servers=x", "std:servers", "std:servers=0", ""):
        with pytest.raises(ValueError):
            resolve_config(bad)
