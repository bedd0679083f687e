"""The command line: exit codes, one-line errors, and output (small configs only).

Exit codes: 0 ok; 1 a property failed (explore/fuzz) or the gate is red (check); 2 bad input.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
MUTANT = "zk-lock/ships-local-scope"  # caught in `filtering`
SMALL = "std:wals_per_server=1"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *needles: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("replcheck: error: ")
    for n in needles:
        assert n in lines[0]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["check", "--design", "no-such-design"], "unknown design 'no-such-design'"),
        (["explore", "--design", "nope"], "unknown design"),
        (["show", "--config", "no-such-config"], "unknown config 'no-such-config'"),
        (["explore", "--config", "std:servers=x"], "expected an integer"),
        (["explore", "--config", "std:bogus=1"], "unknown key 'bogus'"),
        (["show", "--config", "std:servers=0"], "servers must be at least 1"),
        (["show", "--no-such-flag"], "unrecognized arguments"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
        (["show", "--actions", "crash(1"], "malformed action"),
        (["show", "--actions", "crash(9)"], "not enabled"),
        (["show", "--actions", "frob(1)"], "no action 'frob'"),
        (["show", "--actions", "crash(1, 2)"], "takes 1 arguments"),
        (["show", "--design-file", "/no/such/file.py"], "no such design file"),
        (["check", "--checkers", "explore,z3"], "unknown checker 'z3'"),
        (["explore", "--max-states", "0"], "at least 1"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, needle) -> None:
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert_one_line_error(err, needle)


def test_broken_design_file(capsys, tmp_path) -> None:
    bad = tmp_path / "broken.py"
    bad.write_text("x = 1\nraise RuntimeError('boom')\n")
    code, _out, err = run(capsys, "show", "--design-file", str(bad))
    assert code == 2
    assert_one_line_error(err, f"{bad}:2", "boom")


def test_show_draws_the_seed_tree(capsys) -> None:
    code, out, err = run(capsys, "show")
    assert code == 0 and err == ""
    assert "/hbase/replication/rs/" in out
    assert "\n  1.1.1.1,60020,123456780/\n    2/\n" in out


def test_show_actions_draws_each_step(capsys) -> None:
    code, out, _err = run(
        capsys, "show", "--design", "zk-lock", "--actions", "crash(1); lock(0, 1)"
    )
    assert code == 0
    assert "== step 1: crash(1)  ->  crash(server=1.1.1.2,60020,123456790) ==" in out
    assert "== step 2: lock(0, 1)" in out
    assert "  1.1.1.2,60020,123456790/   [dead]\n    lock  (held by 1.1.1.1,60020,123456780)" in out


def test_show_json(capsys) -> None:
    code, out, _err = run(capsys, "show", "--json", "--actions", "crash(1); lock(0, 1)")
    assert code == 0
    data = json.loads(out)
    assert data["design"] == "zk-lock"
    assert [s["action"] for s in data["steps"]] == [None, "crash(1)", "lock(0, 1)"]
    assert data["steps"][-1]["state"]["rs"]["1.1.1.2,60020,123456790"]["lock"] == (
        "1.1.1.1,60020,123456780"
    )


def test_explore_json_parses_and_passes(capsys) -> None:
    code, out, _err = run(capsys, "explore", "--design", "zk-lock", "--config", SMALL, "--json")
    assert code == 0
    data = json.loads(out)
    (result,) = data["results"]
    assert result["config"] == SMALL
    assert result["stats"]["complete"] is True
    assert set(result["verdicts"].values()) == {"pass"}


def test_explore_mutant_exits_1_with_a_drawn_counterexample(capsys) -> None:
    code, out, _err = run(capsys, "explore", "--design", MUTANT, "--config", "filtering")
    assert code == 1
    assert "FAIL  only_global_non_catalog" in out
    assert "counterexample: only_global_non_catalog (invariant)" in out
    assert "== initial state ==" in out and "/hbase/replication/rs/" in out


def test_explore_max_states_leaves_verdicts_unknown(capsys) -> None:
    code, out, err = run(capsys, "explore", "--config", "filtering", "--max-states", "20", "--json")
    assert code == 4  # partial: undecided is not a pass
    assert "PARTIAL" in err
    (result,) = json.loads(out)["results"]
    assert result["stats"]["complete"] is False
    assert "unknown" in result["verdicts"].values()


def test_check_gate_with_junit(capsys, tmp_path) -> None:
    junit = tmp_path / "gate.xml"
    code, out, _err = run(
        capsys, "check", "--design", MUTANT, "--checkers", "explore", "--junit", str(junit)
    )
    assert code == 0
    lines = out.strip().splitlines()
    assert "mutants of zk-lock: 1/1 caught" in lines
    mutant = next(x for x in lines if x.startswith("  ships-local-scope "))
    assert mutant.split()[1:4] == ["caught", "only_global_non_catalog", "(e)"]
    assert lines[-1].startswith("PASS: ")
    root = ET.parse(junit).getroot()
    cases = list(root.iter("testcase"))
    assert cases and all(tc.find("failure") is None for tc in cases)


def test_check_missed_mutant_exits_1(capsys) -> None:
    code, out, _err = run(
        capsys,
        "check",
        "--design",
        MUTANT,
        "--config",
        "master-master",
        "--checkers",
        "explore",
        "--json",
    )
    assert code == 1
    data = json.loads(out)
    assert data["matrix"]["ok"] is False
    base, mutant = data["matrix"]["rows"]  # only the mutant was asked: its base, a reference
    assert (base["status"], mutant["status"]) == ("reference", "MISSED")
    assert mutant["held_against"]["label"] == "zk-lock@master-master"


def test_check_show_counterexamples(capsys) -> None:
    code, out, _err = run(
        capsys, "check", "--design", MUTANT, "--checkers", "explore", "--show-counterexamples"
    )
    assert code == 0
    assert f"### {MUTANT}@filtering (explore)" in out
    assert "counterexample: only_global_non_catalog" in out


MINE = (
    "class Mine(ZkLock):\n"
    "    name = 'review/ships-everything'\n"
    "    mutant_of = 'zk-lock'\n"
    "    overrides = 'rule_ships'\n"
    "    configs = ('filtering',)\n"
    "    bug = 'ships LOCAL edits'\n\n"
)
"""A reviewer's mutant of zk-lock that ships every edit (its ``rule_ships`` follows)."""


def test_design_file(capsys, tmp_path) -> None:
    path = tmp_path / "my_mutant.py"
    path.write_text(
        "from replcheck.model.engine.logic import PY, dual\n"
        "from replcheck.model.zk.lock import ZkLock\n\n"
        "def ships_all(ops, kind, cluster_ids, target):\n"
        "    return True\n\n" + MINE + "    @dual(ships_all)\n"
        "    def rule_ships(self, edit, target):\n"
        "        return ships_all(PY, edit.kind, edit.cluster_ids, target)\n"
    )
    code, out, _err = run(capsys, "explore", "--design-file", str(path))
    assert code == 1
    assert "explore review/ships-everything@filtering" in out


def test_a_rule_the_text_cannot_read_is_refused(capsys, tmp_path) -> None:
    """The ZooKeeper era's steps are the protocol text's: a rule it reads, overridden by a
    plain method, would be silently ignored; it is refused in one line instead."""
    path = tmp_path / "my_mutant.py"
    path.write_text(
        "from replcheck.model.zk.lock import ZkLock\n\n"
        + MINE
        + "    def rule_ships(self, edit, target):\n"
        "        return True\n"
    )
    code, out, err = run(capsys, "explore", "--design-file", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "rule_ships is overridden by a plain method" in err and "dual form" in err


def test_list(capsys) -> None:
    code, out, _err = run(capsys, "list", "--json")
    assert code == 0
    names = [d["name"] for d in json.loads(out)["designs"]]
    assert "zk-lock" in names and MUTANT in names


def test_fuzz_mutant(capsys) -> None:
    pytest.importorskip("replcheck.specs.fuzz")
    code, out, _err = run(capsys, "fuzz", "--design", MUTANT, "--config", "filtering")
    assert code == 1
    assert "minimal program breaking only_global_non_catalog" in out


@pytest.mark.parametrize(("argv", "code"), [(["show"], 0), (["show", "--design", "nope"], 2)])
def test_python_dash_m(argv, code) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "replcheck", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    if code:
        assert_one_line_error(proc.stderr, "unknown design")
    else:
        assert "/hbase/replication/rs/" in proc.stdout


@pytest.mark.parametrize("engine", ["c", "python"])
def test_explore_on_a_compiled_engine_gives_the_explicit_verdicts(capsys, engine: str) -> None:
    args = ("explore", "--design", MUTANT, "--config", "filtering", "--json")
    code, out, _err = run(capsys, *args)
    want = json.loads(out)["results"][0]
    code_c, out_c, _err = run(capsys, *args, "--engine", engine)
    (got,) = json.loads(out_c)["results"]
    assert (code_c, got["verdicts"]) == (code, want["verdicts"]) and code == 1
    for key in ("states", "transitions", "depth"):
        assert got["stats"][key] == want["stats"][key]
    assert got["stats"]["backend"] == engine


def test_explore_on_the_plain_interpreter_gives_the_default_engines_counts(capsys) -> None:
    """``--engine plain`` runs the text on plain values: the same states, transitions, depth,
    verdicts and counterexample lengths as the default engine (a caught mutant)."""
    args = ("explore", "--design", MUTANT, "--config", "filtering", "--json")
    code, out, _err = run(capsys, *args)
    want = json.loads(out)["results"][0]
    code_p, out_p, _err = run(capsys, *args, "--engine", "plain")
    (got,) = json.loads(out_p)["results"]
    assert (code_p, got["verdicts"]) == (code, want["verdicts"]) and code == 1
    for key in ("states", "transitions", "depth"):
        assert got["stats"][key] == want["stats"][key]
    assert got["counterexamples"] and got["counterexamples"] == want["counterexamples"]


def test_explore_on_a_compiled_engine_refuses_a_configuration_without_a_flat_form(capsys) -> None:
    code, _out, err = run(
        capsys, "explore", "--design", "zk-multi", "--config", "std:joins=1", "--engine", "c"
    )
    assert code == 2
    assert "no flat form for --engine c" in err and len(err.strip().splitlines()) == 1


def test_a_reviewers_mutant_file_runs_on_the_compiled_engine(capsys) -> None:
    args = ("explore", "--design-file", "docs/examples/my_mutant.py", "--json")
    code, out, _err = run(capsys, *args)
    code_c, out_c, _err = run(capsys, *args, "--engine", "c")
    want, got = json.loads(out)["results"][0], json.loads(out_c)["results"][0]
    assert code == code_c == 1
    assert got["verdicts"] == want["verdicts"] and want["verdicts"]["no_lost_edit"] == "fail"
    assert (got["stats"]["states"], got["stats"]["transitions"]) == (
        want["stats"]["states"],
        want["stats"]["transitions"],
    )


TEXT_MUTANT = '''
from replcheck.model.features.bootstrap import NaiveRegistration
from replcheck.model.table.designs import TableNaive


class WritesUnregistered(NaiveRegistration):
    def rule_wal_ready(self, t, s, g):
        """Every WAL is writable at once: nothing waits for queue storage."""
        return True


class Mine(TableNaive):
    name = "review/naive-writes-unregistered"
    mutant_of = "table-naive"
    overrides = "rule_wal_ready"
    text = WritesUnregistered
    configs = ("t-bootstrap",)
    bug = "the naive design writes a WAL before queue storage records it"
'''


@pytest.mark.parametrize("engine", ["explicit", "c", "python"])
def test_a_reviewers_override_of_a_text_rule_reaches_every_engine(
    capsys, tmp_path, engine: str
) -> None:
    """``table-naive`` deadlocks; overriding its text rule in a file of one's own removes the
    deadlock on every engine, with the same counts (the base design's: 7 states)."""
    path = tmp_path / "mine.py"
    path.write_text(TEXT_MUTANT)
    code, out, _err = run(
        capsys, "explore", "--design-file", str(path), "--json", "--engine", engine
    )
    (got,) = json.loads(out)["results"]
    assert code == 0 and got["verdicts"]["system_table_served"] == "pass"
    assert (got["stats"]["states"], got["stats"]["transitions"]) == (7, 13)
    code, out, _err = run(
        capsys, "explore", "--design", "table-naive", "--json", "--engine", engine
    )
    assert code == 1 and json.loads(out)["results"][0]["verdicts"]["system_table_served"] == "fail"


def test_a_text_override_must_be_the_one_it_names(capsys, tmp_path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(TEXT_MUTANT.replace('overrides = "rule_wal_ready"', 'overrides = "open_table"'))
    code, _out, err = run(capsys, "explore", "--design-file", str(path))
    assert code == 2 and "must override exactly 'open_table'" in err
