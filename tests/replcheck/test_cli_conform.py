"""``replcheck conform``: bad input in one line; the CI profile on the real cluster passes for every
correct design and finds a cluster mutant, printing its shrunk plan as a pytest test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from replcheck.conformance.hbase.names import DESIGNS
from replcheck.conformance.search.plan import Plan


def conform(*args: str, cwd: Path, timeout: float = 1500) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "replcheck", "conform", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--design", "nope"], "unknown design 'nope'"),
        (["--design", "zk-multi", "--mutant", "no-such"], "has no switch in the reference cluster"),
        (["--design", "table", "--out", "full"], "is not empty"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    proc = conform(*args, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.zookeeper
@pytest.mark.parametrize("design", DESIGNS)
def test_ci_profile_passes_a_correct_design(tmp_path: Path, design: str) -> None:
    proc = conform("--design", design, "--profile", "ci", "--out", "out", cwd=tmp_path)
    last = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert last.startswith("conform: PASS: no failure in ") and design in last
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["runs"] >= 2 and report["failing_runs"] == 0
    # every run is a run folder that validate opens and accepts
    runs = sorted((tmp_path / "out").glob("run-*"))
    assert len(runs) == report["runs"]
    check = subprocess.run(
        [sys.executable, "-m", "replcheck", "validate", *map(str, runs)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert check.returncode == 0, check.stdout[-3000:]


@pytest.mark.slow
@pytest.mark.zookeeper
def test_ci_profile_finds_a_cluster_mutant_and_prints_a_test(tmp_path: Path) -> None:
    proc = conform(
        "--design", "zk-lock", "--mutant", "ships-local-scope", "--profile", "ci", "--out", "out",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1].startswith("conform: FAIL: zk-lock/ships-local")
    assert "def test_conform_zk_lock_ships_local_scope(tmp_path):" in proc.stdout
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    first, smallest = report["first"]["size"], report["smallest"]["size"]
    assert sum(smallest.values()) <= sum(first.values())
    assert "only_global_non_catalog" in report["smallest"]["why"]
    # the printed test is a test: it compiles and names the shrunk plan
    text = (tmp_path / "out" / "test_conform.py").read_text()
    namespace: dict = {}
    exec(compile(text, "test_conform.py", "exec"), namespace)
    plans = []
    namespace["check_plan"] = lambda design, plan, run_dir: plans.append(plan)
    namespace["test_conform_zk_lock_ships_local_scope"](tmp_path=tmp_path)
    assert plans == [Plan.from_json(report["smallest_plan"])]


@pytest.mark.slow
@pytest.mark.zookeeper
def test_an_interrupted_search_reports_what_it_ran_and_says_so(tmp_path: Path) -> None:
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "replcheck", "conform", "--design", "table", "--out", "out"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    log = tmp_path / "out" / "run-001"  # the second run has started
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, out + err[-2000:]
    assert out.strip().splitlines()[-1].startswith("conform: INTERRUPTED after ")
    assert "the search is not complete" in out
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["interrupted"] and report["runs"] >= 1
    assert "Traceback" not in err
    from replcheck.conformance.cluster.lifeline import leftovers

    until = time.monotonic() + 30  # no process of the cluster outlives the search
    while leftovers(tmp_path / "out", include_live=True) and time.monotonic() < until:
        time.sleep(0.2)
    assert leftovers(tmp_path / "out", include_live=True) == []
