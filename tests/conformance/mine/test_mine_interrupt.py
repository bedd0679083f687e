"""A Ctrl-C during ``replcheck mine`` on a real local Spark: the job stops, what the finished
waves mined is written and summed (the summary says interrupted, the exit is 130, never a pass),
and no process of the job is left."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[3]
TRACE = ROOT / "test_data" / "validate" / "zk-lock-teardown-archive.jsonl"
RUNS = 40
"""Runs in the corpus: five waves of eight on one partition."""


def group_alive(pgid: int) -> list[str]:
    """The processes still running in the process group (command lines); one that has exited
    and waits only to be reaped (a zombie, which a container's first process may never reap)
    runs nothing."""
    left = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if os.getpgid(int(proc.name)) != pgid:
                continue
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            if state != "Z":
                left.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120])
        except (ProcessLookupError, PermissionError, FileNotFoundError, IndexError):
            continue
    return left


def test_ctrl_c_keeps_the_finished_waves_and_leaves_nothing_behind(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(RUNS):
        shutil.copy(TRACE, corpus / f"run-{i:03d}.jsonl")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "replcheck.cli", "mine", str(corpus), "--master", "local[1]"]
    cmd += ["--partitions", "1", "--out", str(out)]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    mined = 0
    seen: list[str] = []
    deadline = time.monotonic() + 300
    try:
        assert proc.stderr is not None
        while mined < 8 and time.monotonic() < deadline:  # the first wave is done
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            mined += line.startswith("  ") and "run-" in line
        assert mined >= 8, "the first wave never finished"
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    assert err.rstrip().splitlines()[-1].startswith("mine: INTERRUPTED"), err[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True
    assert 8 <= summary["mined"] < summary["planned"] == RUNS, summary
    assert "Interrupted: not every run was mined." in (out / "index.html").read_text()
    # the Spark JVM's own lines (its log, Java's warnings) go to OUT/spark.log, not the terminal
    noise = [x for x in seen + err.splitlines() if "WARN" in x or "log4j" in x or "\tat " in x]
    assert noise == [], noise[:5]
    assert "log4j" in (out / "spark.log").read_text()
    deadline = time.monotonic() + 15
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert group_alive(proc.pid) == []
