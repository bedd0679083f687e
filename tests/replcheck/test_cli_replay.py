"""``replcheck replay``: every kind of source, the report, the exported test, the ITF file, bad
input, and the step debugger driven through a real terminal (a pseudo-terminal)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import itf_py
import pytest
from replcheck.conformance.trace import mutate as tracemut
from replcheck.conformance.validate.core import validate_path

from replcheck.cli import main
from replcheck.cli_validate import render_text

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "traces" / "golden"
VALID = GOLDEN / "zk-multi-kill.jsonl"
MUTANT = "zk-lock/cleaner-skips-lookup"
ACTIONS = "put(0, 0, 0); roll(0, 0); archive(0, 0, 0); clean(0, 0, 0)"
STUCK = (
    "put(0, 0, 0); roll(1, 0); crash(0); archive(0, 0, 0); archive(1, 0, 0); "
    "lose_failover_event(0); cleaner_start(); cleaner_read(0); cleaner_read_queue(0, 0); "
    "cleaner_read(1); cleaner_read_queue(1, 0); advance(1, 0); "
    "cleaner_finish()"
)


def edited(tmp_path: Path, edit: str, base: Path = VALID) -> Path:
    events = tracemut.load(base)
    path = tmp_path / f"{edit}.jsonl"
    tracemut.dump(tracemut.apply_edit(events, tracemut.HAND_MADE[edit](events)), path)
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --- sources and the report ----------------------------------------------------------------------


def test_a_trace_prints_what_validate_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, "swap-across-zxid")
    code, out, _ = run([str(path)], capsys)
    assert code == 1
    # The same report, but for the time it took.
    timeless = re.compile(r"\d+\.\d s\)")
    assert timeless.sub("", out) == timeless.sub("", render_text(validate_path(path)) + "\n")
    assert "rejected: divergence at event" in out and "did not fit: line" in out
    code, out, _ = run([str(VALID)], capsys)
    assert code == 0 and out.startswith(f"{VALID}: accepted (")


def test_a_run_folder_is_its_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run-0"
    run_dir.mkdir()
    (run_dir / "trace.jsonl").write_text(VALID.read_text())
    code, out, _ = run([str(run_dir)], capsys)
    assert code == 0 and "accepted" in out


def test_explore_json_and_text_are_counterexamples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explore", "--design", MUTANT, "--no-liveness", "--json"]) == 1
    saved = tmp_path / "explore.json"
    saved.write_text(capsys.readouterr().out)
    code, out, _ = run([str(saved), "--property", "no_lost_edit"], capsys)
    assert code == 1
    assert "no_lost_edit breaks at step 4 of 4" in out
    assert "counterexample: no_lost_edit (invariant), 4 steps" in out
    assert f"actions: {ACTIONS}" in out

    assert main(["explore", "--design", MUTANT, "--no-liveness"]) == 1
    text = tmp_path / "explore.txt"
    text.write_text(capsys.readouterr().out)
    code, out, _ = run([str(text), "--property", "no_lost_edit"], capsys)
    assert code == 1 and "no_lost_edit breaks at step 4 of 4" in out


def test_show_json_and_an_action_string(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--design", MUTANT, "--actions", ACTIONS, "--json"]) == 0
    saved = tmp_path / "show.json"
    saved.write_text(capsys.readouterr().out)
    code, out, _ = run([str(saved)], capsys)
    assert code == 1 and "breaks at step 4 of 4" in out
    code, out, _ = run([ACTIONS, "--design", MUTANT, "--config", "std"], capsys)
    assert code == 1 and "breaks at step 4 of 4" in out
    code, out, _ = run(["crash(0)", "--design", "zk-lock"], capsys)
    assert code == 0 and "no property breaks in 1 steps" in out


@pytest.mark.parametrize(
    ("make", "extra", "message"),
    [
        (lambda d: "no/such/file", [], "no/such/file: no such file or folder"),
        (lambda d: d, [], "a folder without trace.jsonl"),
        (lambda d: _zk_data_dir(d), [], "a ZooKeeper data directory"),
        (lambda d: _write(d, "t.jsonl", VALID.read_text()[:-30]), [], ":422: the last line"),
        (lambda d: _write(d, "x.json", '{"schema": "other"}'), [], "x.json:1: JSON, but not"),
        (lambda d: _write(d, "x.txt", "hello\n"), [], "x.txt:1: not a trace"),
        (lambda d: _write(d, "e.txt", ""), [], "e.txt:1: empty"),
        (lambda d: "crash(0); crash(0)", ["--design", "zk-lock"], "step 2: crash(0) is not"),
        (lambda d: "crash(", ["--design", "zk-lock"], "malformed action"),
        (lambda d: "crash(0)", ["--design", "nope"], "unknown design"),
        (lambda d: "crash(0)", ["--config", "nope"], "unknown config"),
        (lambda d: "crash(0)", ["--at", "5"], "--at 5: out of range; the behaviour has steps 0..1"),
        (lambda d: "crash(0)", ["--html", "{tmp}"], "--html"),
        (lambda d: str(VALID), ["--config", "std"], "drop --config"),
        (lambda d: str(VALID), ["--export-test", "{tmp}/t.py"], "no failing prefix"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make, extra, message: str
) -> None:
    extra = [x.format(tmp=tmp_path) for x in extra]
    code, _out, err = run([str(make(tmp_path)), *extra], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("replcheck: error: ")
    assert message in err
    assert "Traceback" not in err


def test_a_counterexample_of_another_design_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", "--design", MUTANT, "--actions", ACTIONS, "--json"]) == 0
    saved = _write(tmp_path, "show.json", capsys.readouterr().out)
    code, _out, err = run([str(saved), "--design", "zk-multi"], capsys)
    assert code == 2
    assert f"a counterexample of {MUTANT}, not of zk-multi" in err


def _write(d: Path, name: str, text: str) -> Path:
    (d / name).write_text(text)
    return d / name


def _zk_data_dir(d: Path) -> Path:
    (d / "zk" / "version-2").mkdir(parents=True)
    return d / "zk"


# --- outputs -------------------------------------------------------------------------------------


def test_itf_file_reads_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    itf = tmp_path / "b.itf.json"
    code, _out, err = run([ACTIONS, "--design", MUTANT, "--itf", str(itf)], capsys)
    assert code == 1 and f"wrote {itf}" in err
    trace = itf_py.trace_from_json(json.loads(itf.read_text()))
    assert [s.values["action"] for s in trace.states] == ["init", "put", "roll", "archive", "clean"]
    assert trace.states[-1].meta["broken"] == "no_lost_edit"
    assert trace.states[1].values["args"] == (0, 0, 0)


def run_pytest(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_exported_trace_test_passes_and_pins_the_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, "drop-event")
    verdict = validate_path(path)
    out_file = tmp_path / "test_regression.py"
    code, _out, err = run([str(path), "--export-test", str(out_file)], capsys)
    assert code == 1 and f"wrote {out_file}" in err and "shrunk to" in err
    text = out_file.read_text()
    assert "validate_events(EVENTS, DESIGN)" in text
    assert f"Verdict: {verdict.headline()}" in text
    assert "The model's behaviour that matches them" in text and "does not fit" in text
    result = run_pytest(out_file)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    # It pins the failure: the same events accepted would fail the test.
    broken = text.replace("rejected: divergence at event", "accepted at event")
    out_file.write_text(broken)
    assert run_pytest(out_file).returncode == 1


def test_exported_counterexample_test_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    longer = "crash(1); " + ACTIONS
    out_file = tmp_path / "test_cex.py"
    code, _out, err = run([longer, "--design", MUTANT, "--export-test", str(out_file)], capsys)
    assert code == 1 and "5 actions shrunk to 4" in err
    text = out_file.read_text()
    assert 'Action("crash"' not in text and "Action('crash'" not in text
    assert "STANDARD['std']" in text
    result = run_pytest(out_file)
    assert result.returncode == 0, result.stdout + result.stderr


# --- the step debugger, through a pseudo-terminal -----------------------------------------------


class Terminal:
    """``replcheck replay ... --step`` on a pseudo-terminal: what a person at a terminal sees."""

    def __init__(self, args: list[str]) -> None:
        self.fd, child = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "replcheck", "replay", *args, "--step"],
            stdin=child,
            stdout=child,
            stderr=child,
            cwd=ROOT,
            env={**os.environ, "COLUMNS": "200", "TERM": "dumb"},
        )
        os.close(child)
        self.buffer = b""

    def read_until(self, token: bytes, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while token not in self.buffer:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.buffer += os.read(self.fd, 1 << 16)
                except OSError:  # the child closed the terminal
                    break
            if time.monotonic() > deadline:
                break
        if token not in self.buffer:
            raise AssertionError(f"no {token!r} in: {self.buffer[-3000:].decode(errors='replace')}")
        i = self.buffer.index(token) + len(token)
        out, self.buffer = self.buffer[:i], self.buffer[i:]
        return out.decode(errors="replace").replace("\r\n", "\n")

    def send(self, line: str) -> str:
        os.write(self.fd, line.encode() + b"\r")
        return self.read_until(b"(replay) ")

    def close(self) -> int:
        os.write(self.fd, b"quit\r")
        code = self.proc.wait(timeout=60)
        os.close(self.fd)
        return code


def test_the_step_debugger_in_a_terminal() -> None:
    path = GOLDEN / "zk-lock--no-loop-prevention.jsonl"
    term = Terminal([str(path)])
    try:
        intro = term.read_until(b"(replay) ")
        assert "rejected: no_edit_at_origin at event 27" in intro
        assert "step 47/47  event 27 (line 28)" in intro and "!! breaks no_edit_at_origin" in intro

        out = term.send("back")
        assert "step 46/47" in out
        assert "step 45/47" in term.send("")  # an empty line repeats the last command
        assert "step 47/47" in term.send("next 5")  # never past the end

        out = term.send("event 10")
        assert "event 10 (line 11) master  zxid 0x100000017: add_peer(peer=2)" in out
        assert "~ /hbase/replication/peers/2: ABSENT -> ENABLED" in out
        assert "step 21/47" in term.send("zxid 0x100000017")
        assert "was not matched" in term.send("event 40")

        assert "event 21 (line 22) rs-1.1.1.1,60020,123456780" in term.send("proc rs-1.1.1.1")
        assert "no process named so" in term.send("proc nobody")

        state = term.send("state")
        assert "/hbase/replication/rs/" in state and "1.1.1.1,60020,123456780/" in state
        assert "+ /hbase/replication/rs/1.1.1.1,60020,123456780: znode" in term.send("diff")
        assert "actions enabled:" in term.send("enabled")

        assert "breakpoint 1: action ship" in term.send("break action ship")
        out = term.send("continue")
        assert "stopped: action ship" in out and "step 47/47" in out
        term.send("goto 0")
        assert "breakpoint 2" in term.send("break prop no_edit_at_origin")
        term.send("delete 1")
        out = term.send("continue")
        assert "stopped: no_edit_at_origin breaks" in out and "step 47/47" in out
        assert "no property 'nope'" in term.send("break prop nope")
        assert "no step 99" in term.send("goto 99")
        assert "unknown command 'fly'" in term.send("fly")
    finally:
        code = term.close()
    assert code == 1


def test_a_liveness_counterexample_exports_its_stuck_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What explore --json prints of it (explore with liveness takes long: the result is kept).
    stuck = {
        "property": "dead_queues_claimed",
        "kind": "liveness",
        "actions": STUCK.split("; "),
        "loop_start": None,
        "stuck": True,
    }
    result = {"design": "zk-multi/HBASE-26029", "config": "std", "counterexamples": [stuck]}
    document = {"schema": "replcheck-results/1", "results": [result]}
    saved = _write(tmp_path, "live.json", json.dumps(document))
    out_file = tmp_path / "test_live.py"
    args = [str(saved), "--property", "dead_queues_claimed", "--export-test", str(out_file)]
    code, out, _err = run(args, capsys)
    assert code == 1 and "dead_queues_claimed never holds: the behaviour gets stuck" in out
    assert "!! stuck: no action is enabled in this state" in out
    assert "assert not MODEL.enabled(state)" in out_file.read_text()
    result = run_pytest(out_file)
    assert result.returncode == 0, result.stdout + result.stderr
