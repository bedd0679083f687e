"""The gate holds every mutant against its base design in the same configuration: a failure is
credited to the mutant only where the base row passed it (small configurations only)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from replcheck.model import STANDARD
from replcheck.specs import CheckResult

from replcheck.cli import main
from replcheck.matrix import run_matrix, with_references
from replcheck.report import matrix_dict, render_junit

MUTANT = "zk-lock/ships-local-scope"  # caught in `filtering` by only_global_non_catalog
DERIVED = "filtering:wals_per_server=1"
"""A configuration no built-in design lists."""

SHIPS_ALL = (
    "from replcheck.model.engine.logic import PY, dual\n"
    "from replcheck.model.zk.lock import ZkLock\n\n"
    "def ships_all(ops, kind, cluster_ids, target):\n"
    "    return True\n\n"
)

LEAKY_BASE_AND_MUTANT = SHIPS_ALL + (
    "class Leaky(ZkLock):\n"
    "    name = 'review/leaky'\n"
    "    configs = ('cyclic',)\n\n"
    "    @dual(ships_all)\n"
    "    def rule_ships(self, edit, target):\n"
    "        return ships_all(PY, edit.kind, edit.cluster_ids, target)\n\n"
    "class SameLeak(Leaky):\n"
    "    name = 'review/leaky/same-leak'\n"
    "    mutant_of = 'review/leaky'\n"
    "    overrides = 'rule_ships'\n"
    "    configs = ('filtering',)\n"
    "    bug = 'ships LOCAL edits, as its base already does'\n\n"
    "    @dual(ships_all)\n"
    "    def rule_ships(self, edit, target):\n"
    "        return ships_all(PY, edit.kind, edit.cluster_ids, target)\n"
)
"""A reviewer's base design that ships every edit (a broken 'correct' design), and a mutant of
it with the same leak: every failure of the mutant is one of its base's, in `filtering`, a
configuration the base does not list."""

MUTANT_IN_DERIVED = SHIPS_ALL + (
    "class Mine(ZkLock):\n"
    "    name = 'review/ships-everything'\n"
    "    mutant_of = 'zk-lock'\n"
    "    overrides = 'rule_ships'\n"
    f"    configs = ({DERIVED!r},)\n"
    "    bug = 'ships LOCAL edits'\n\n"
    "    @dual(ships_all)\n"
    "    def rule_ships(self, edit, target):\n"
    "        return ships_all(PY, edit.kind, edit.cluster_ids, target)\n"
)
"""A reviewer's mutant of zk-lock listing a derived configuration zk-lock never runs under."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def design_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "review.py"
    path.write_text(text)
    return str(path)


def test_a_failure_the_base_has_too_is_not_credited(capsys, tmp_path) -> None:
    """Only the mutant is asked; its base runs as a reference row in the mutant's configuration,
    fails there too, unpinned: nothing is credited and the gate fails saying why in one line."""
    path = design_file(tmp_path, LEAKY_BASE_AND_MUTANT)
    argv = ["check", "--design-file", path, "--design", "review/leaky/same-leak"]
    code, out, _err = run(capsys, *argv, "--checkers", "explore", "--jobs", "1")
    assert code == 1
    lines = out.strip().splitlines()
    assert lines[-1].startswith("FAIL: "), out
    assert "mutants caught: 0/1" in lines[-1] and "base reference rows: 1 (1 failing)" in lines[-1]
    assert "correct designs green" not in lines[-1]  # the reference was not asked for
    # the report: both rows in full, the mutant's with the base row it was held against
    at = lines.index(next(x for x in lines if x.startswith("review/leaky/same-leak@filtering")))
    assert "MISSED" in lines[at]
    assert lines[at + 1 : at + 4] == [
        "    FAIL(e)~: only_global_non_catalog",
        "    not credited: only_global_non_catalog, its base fails it too",
        "    held against review/leaky@filtering",
    ]
    ref = next(line for line in lines if line.startswith("review/leaky@filtering "))
    assert "RED" in ref
    assert max(len(line) for line in lines[:-1]) <= 100
    problems = [line for line in lines if line.startswith("error: base reference row")]
    assert len(problems) == 1
    assert "review/leaky@filtering fails only_global_non_catalog" in problems[0]

    # the whole matrix: one line per row, every cell
    code, out, _err = run(capsys, *argv, "--checkers", "explore", "--jobs", "1", "--matrix")
    assert code == 1
    lines = out.strip().splitlines()
    row = next(line for line in lines if line.startswith("review/leaky/same-leak@filtering"))
    assert "FAIL(e)~" in row and "MISSED" in row and row.endswith("review/leaky@filtering")
    assert "not credited: review/leaky/same-leak@filtering (MISSED, held against" in out
    assert "review/leaky@filtering): only_global_non_catalog, its base fails it too" in out

    # Pinned on the base, the base row is as expected; the mutant is still not credited.
    pins = tmp_path / "pins.json"
    pins.write_text(json.dumps({"review/leaky@filtering": ["only_global_non_catalog"]}))
    argv += ["--expected-failures", str(pins), "--checkers", "explore", "--jobs", "1", "--json"]
    code, out, _err = run(capsys, *argv)
    assert code == 1
    data = json.loads(out)["matrix"]
    base, mutant = data["rows"]
    assert (base["design"], base["reference"], base["status"]) == (
        "review/leaky",
        True,
        "reference",
    )
    assert base["cells"]["only_global_non_catalog"] == "FAIL(e)*"
    assert mutant["status"] == "MISSED" and mutant["credited"] == []
    assert mutant["not_credited"] == {"only_global_non_catalog": "its base fails it too"}
    assert mutant["held_against"]["label"] == "review/leaky@filtering"
    assert data["base_problems"] == [] and data["references"] == ["review/leaky@filtering"]


def test_a_mutant_in_a_configuration_its_base_does_not_list_gets_a_reference_row(
    capsys, tmp_path
) -> None:
    path = design_file(tmp_path, MUTANT_IN_DERIVED)
    junit = tmp_path / "gate.xml"
    argv = ["check", "--design-file", path, "--checkers", "explore", "--junit", str(junit)]
    code, out, _err = run(capsys, *argv, "--jobs", "1", "--matrix")
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[-1] == "PASS: mutants caught: 1/1; base reference rows: 1"
    ref = next(line for line in lines if line.startswith(f"zk-lock@{DERIVED} "))
    assert ref.split()[-1] == "reference"
    mutant = next(line for line in lines if line.startswith(f"review/ships-everything@{DERIVED}"))
    assert "caught" in mutant and mutant.endswith(f"zk-lock@{DERIVED}")
    assert "FAIL(e)" in mutant and "FAIL(e)~" not in mutant

    root = ET.parse(junit).getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"zk-lock", "review/ships-everything"}
    ref_cases = suites["zk-lock"].findall("testcase")
    assert ref_cases and all(tc.get("name").endswith(" (base reference)") for tc in ref_cases)
    assert all(tc.find("failure") is None for tc in root.iter("testcase"))
    caught = next(tc for tc in suites["review/ships-everything"] if tc.get("name") == "caught")
    held = caught.find("system-out").text
    assert f"held against zk-lock@{DERIVED} (base reference row)" in held
    assert "credited: only_global_non_catalog" in held

    # In parallel, the same rows: the reference once, before the mutant.
    code, out, _err = run(capsys, *argv, "--jobs", "2", "--json")
    assert code == 0
    data = json.loads(out)["matrix"]
    assert [(r["design"], r["config"], r["status"]) for r in data["rows"]] == [
        ("zk-lock", DERIVED, "reference"),
        ("review/ships-everything", DERIVED, "caught"),
    ]
    assert data["rows"][1]["held_against"] == {
        "design": "zk-lock",
        "config": DERIVED,
        "label": f"zk-lock@{DERIVED}",
        "reference": True,
        "status": "reference",
    }
    assert len(json.loads(out)["results"]) == 2  # no row computed twice


def test_a_base_row_the_run_has_is_reused_not_run_again() -> None:
    asked = [("zk-lock", STANDARD["filtering"]), (MUTANT, STANDARD["filtering"])]
    assert with_references(asked) == (asked, set())
    twice = [*asked, (MUTANT, STANDARD["std"]), ("zk-lock/no-loop-prevention", STANDARD["std"])]
    plan, refs = with_references(twice)
    assert refs == {("zk-lock", "std")}
    assert [(n, c.name) for n, c in plan] == [
        ("zk-lock", "filtering"),
        (MUTANT, "filtering"),
        ("zk-lock", "std"),  # once, for both mutants, before the first that needs it
        (MUTANT, "std"),
        ("zk-lock/no-loop-prevention", "std"),
    ]

    seen: list[str] = []

    def counting(model, _progress) -> CheckResult:
        seen.append(f"{model.design.name}@{model.cfg.name}")
        return CheckResult("counting", model.design.name, model.cfg.name, {})

    matrix = run_matrix(
        ["zk-lock", MUTANT],
        configs=["filtering", "filtering"],
        checkers=("explore", "counting"),
        extra_checkers={"counting": counting},
    )
    assert seen == ["zk-lock@filtering", f"{MUTANT}@filtering"]
    base, mutant = matrix.rows
    assert mutant.base is base and not base.reference
    assert mutant.status == "caught" and matrix.summary() == (
        "PASS: correct designs green: 1/1; mutants caught: 1/1"
    )


def test_an_undecided_base_leaves_the_mutant_undecided(capsys) -> None:
    """Within 300 states the mutant's failure is found, but the base's verdicts are all open:
    nothing is credited, the mutant is UNDECIDED (not caught, not missed), exit 4."""
    matrix = run_matrix([MUTANT], checkers=("explore",), max_states=300)
    base, mutant = matrix.rows
    assert base.reference and base.verdict("only_global_non_catalog") == "unknown"
    assert mutant.failures == ["only_global_non_catalog"]
    assert mutant.status == "UNDECIDED" and not mutant.caught
    assert mutant.not_credited == {"only_global_non_catalog": "its base left it undecided"}
    assert matrix.exit_code == 4
    text = matrix.render()
    assert text.splitlines()[-1].startswith("PARTIAL (not a pass): mutants caught: 0/1")
    assert "only_global_non_catalog, its base left it undecided" in text
    caught = next(
        tc
        for tc in ET.fromstring(render_junit(matrix)).iter("testcase")
        if tc.get("name") == "caught"
    )
    failure = caught.find("failure")
    assert failure.get("type") == "undecided" and "held against zk-lock@filtering" in failure.get(
        "message"
    )
    assert matrix_dict(matrix)["matrix"]["rows"][1]["status"] == "UNDECIDED"

    code, out, _err = run(
        capsys, "check", "--design", MUTANT, "--checkers", "explore", "--max-states", "300"
    )
    assert code == 4 and out.strip().splitlines()[-1].startswith("PARTIAL (not a pass)")


def test_a_base_whose_checker_raises_fails_the_gate_in_one_line() -> None:
    def base_only_boom(model, _progress) -> CheckResult:
        if not type(model.design).is_mutant():
            raise RuntimeError("base checker exploded")
        return CheckResult("boom", model.design.name, model.cfg.name, {})

    matrix = run_matrix(
        [MUTANT],
        configs=[DERIVED],
        checkers=("explore", "boom"),
        extra_checkers={"boom": base_only_boom},
    )
    base, mutant = matrix.rows
    assert base.status == "ERROR" and mutant.status == "caught"
    assert matrix.exit_code == 1
    text = matrix.render()
    problems = [line for line in text.splitlines() if line.startswith("error: base ")]
    assert problems == [
        f"error: base reference row zk-lock@{DERIVED} could not be checked (boom raised): the "
        f"mutant(s) held against it ({MUTANT}) rest on a broken base; the gate fails"
    ]
    assert text.splitlines()[-1].startswith("FAIL: mutants caught: 1/1; base reference rows: 1")
