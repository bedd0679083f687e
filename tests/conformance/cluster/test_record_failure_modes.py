"""``replcheck record``'s failure modes: a reused output folder, interrupted and killed drivers,
processes left behind, and traces cut in the middle of a line (docs/gate.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from replcheck.conformance.cluster.lifeline import leftovers
from replcheck.conformance.trace import events as trace

from replcheck.cli import main

SMALL = ["--servers", "2", "--edits", "12"]


def _record(out: Path, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "replcheck", "record", "--out", str(out), *SMALL, *extra]
    return subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _wait_for(proc: subprocess.Popen[str], needle: str, timeout: float = 120) -> None:
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    for line in proc.stderr:
        if needle in line:
            return
        seen.append(line)
        assert time.monotonic() < deadline, f"no {needle!r} within {timeout}s: {seen[-5:]}"
    raise AssertionError(f"the command ended before {needle!r}: {''.join(seen[-8:])}")


def _gone(folder: Path, timeout: float = 15) -> list[int]:
    deadline = time.monotonic() + timeout
    while leftovers(folder, include_live=True) and time.monotonic() < deadline:
        time.sleep(0.3)
    return leftovers(folder, include_live=True)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["record", "--design-file", "x.py"], "does not apply to record"),
        (["zk", "status", "--design-file", "x.py"], "does not apply to zk"),
    ],
)
def test_design_file_where_it_does_not_apply(argv, needle, capsys, tmp_path) -> None:
    assert main([*argv, "--out" if argv[0] == "record" else "--dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_a_used_output_folder_is_refused_before_anything_starts(
    capsys, tmp_path, monkeypatch
) -> None:
    """A second recording into a used folder would merge the old run into the new one."""
    out = tmp_path / "runs"
    (out / "run-000-seed0").mkdir(parents=True)
    (out / "run-000-seed0" / "trace.jsonl").write_text("{}\n")

    def started(*_args: object, **_kw: object) -> None:
        raise AssertionError("a recording started")

    monkeypatch.setattr("replcheck.conformance.cluster.record.record", started)
    assert main(["record", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is not empty" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in out.iterdir()) == ["run-000-seed0"]  # nothing touched


def test_a_torn_last_line_is_said_not_dropped_silently(tmp_path) -> None:
    good = {"v": 1, "proc": "p", "pid": 1, "seq": 0, "t": 1.0, "kind": "meta", "name": "x"}
    line = json.dumps(good)
    cut = tmp_path / "cut.jsonl"  # cut in the middle of a line
    cut.write_text(line + "\n" + line[:20])
    no_newline = tmp_path / "no-newline.jsonl"  # the last write never finished its line
    no_newline.write_text(line + "\n" + line)
    for path in (cut, no_newline):
        torn: list[str] = []
        events = trace.load(path, torn=torn)
        assert len(torn) == 1 and f"{path}:2" in torn[0], torn
        assert len(events) == (1 if path is cut else 2)
        with pytest.raises(trace.TraceError, match=":2:"):
            trace.load(path, tolerate_torn_tail=False)
    whole = tmp_path / "whole.jsonl"
    whole.write_text(line + "\n")
    torn = []
    assert len(trace.load(whole, torn=torn)) == 1 and torn == []


def test_a_torn_trace_is_no_clean_run() -> None:
    from replcheck.conformance.cluster.record import summarize
    from replcheck.conformance.cluster.run import RunResult, RunSpec
    from replcheck.conformance.validate.endstate import Verdict

    result = RunResult(Path("run-000-seed0"), Verdict(), torn_lines=["rs.jsonl:9: torn"])
    summary = summarize(RunSpec(), [result])
    assert summary["incomplete_traces"] == 1 and summary["per_run"][0]["torn_lines"] == 1


def test_zk_stop_clears_the_leftovers_of_a_dead_run(tmp_path, capsys) -> None:
    """What a dead driver left (a paused one too) is found by its run folder and killed."""
    run = tmp_path / "runs" / "run-000-seed0"
    run.mkdir(parents=True)
    code = "import time; time.sleep(120)"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, "replcheck.conformance.cluster.regionserver", str(run)],
            start_new_session=True,
        )
        for _ in range(2)
    ]
    bystander = subprocess.Popen(
        [
            sys.executable,
            "-c",
            code,
            "replcheck.conformance.cluster.regionserver",
            str(tmp_path / "x"),
        ],
        start_new_session=True,
    )
    try:
        time.sleep(0.5)
        os.kill(procs[0].pid, signal.SIGSTOP)
        assert sorted(leftovers(tmp_path / "runs")) == sorted(p.pid for p in procs)
        assert main(["zk", "stop", "--dir", str(tmp_path / "runs")]) == 0
        out = capsys.readouterr().out
        assert "cleared 2 leftover process(es)" in out
        for p in procs:
            assert p.wait(timeout=10) == -signal.SIGKILL
        assert bystander.poll() is None  # not under the folder: left alone
        assert main(["zk", "stop", "--dir", str(tmp_path / "runs")]) == 2  # nothing left
    finally:
        for p in [*procs, bystander]:
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.mark.zookeeper
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_recording_says_so(sig: signal.Signals, tmp_path) -> None:
    """Ctrl-C exits 130 (SIGTERM 143), and the summary is marked interrupted, not complete."""
    out = tmp_path / "runs"
    proc = _record(out, "--runs", "3")
    _wait_for(proc, "cluster up")
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=90)
    assert proc.returncode == 128 + sig, err
    assert f"interrupted by {sig.name}" in err and "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] == sig.name and summary["complete"] is False
    assert summary["runs_requested"] == 3
    assert _gone(out) == []


@pytest.mark.zookeeper
@pytest.mark.slow
def test_no_child_outlives_a_killed_driver(tmp_path) -> None:
    """SIGKILL the driver while a region server is paused: ZooKeeper, the paused server and every
    other process of the run go with it."""
    out = tmp_path / "runs"
    proc = _record(out, "--faults", "pause", "--servers", "3")
    _wait_for(proc, "fault: pause")
    time.sleep(0.5)
    running = leftovers(out, include_live=True)
    assert len(running) >= 5  # zookeeper, master, sinks, region servers
    assert leftovers(out) == []  # a live recording's processes are not leftovers
    proc.kill()
    proc.wait(timeout=10)
    assert _gone(out) == []


@pytest.mark.zookeeper
@pytest.mark.slow
def test_a_run_whose_trace_was_cut_is_not_a_clean_verdict(tmp_path, capsys, monkeypatch) -> None:
    """The driver's trace is cut in the middle of its last line (as a full disk or a kill in the
    middle of a write would): the run is flagged incomplete and the command exits 4, not 0."""
    original = trace.TraceWriter.close

    def close_then_cut(self: trace.TraceWriter) -> None:
        original(self)
        if self.proc == "driver":
            with open(self.path, "a", encoding="utf-8") as f:
                f.write('{"v": 1, "proc": "driver", "se')

    monkeypatch.setattr(trace.TraceWriter, "close", close_then_cut)
    out = tmp_path / "runs"
    code = main(["record", "--out", str(out), *SMALL, "--seed", "3"])
    captured = capsys.readouterr()
    assert code == 4, captured.err[-2000:]
    assert "PARTIAL" in captured.err and "torn trace line" in captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["incomplete_traces"] == 1
    (run,) = out.glob("run-*")
    verdict = json.loads((run / "verdict.json").read_text())
    assert verdict["torn_lines"] and "driver" in verdict["torn_lines"][0]
