"""Hostile traces, options and signals for the commands that read traces (``validate``,
``convert``, ``replay``, ``check --expected-failures``): bad input is refused in one line naming
the file and line, exit 2, never a traceback and never a verdict on what it damaged; a value the
model disagrees with is rejected (exit 1); a trace that may have been cut is undecided (exit 4);
Ctrl-C while a test is shrunk writes the smallest test found so far (exit 130).

Each case is a command line, what it must exit with and what its output must say (the pattern
of ``test_failure_modes.py``). The inputs are edits of one golden trace that validates in a
fraction of a second (``zk-multi-pause``): the first ``persist`` event is its line 34.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from replcheck.conformance.trace import mutate as tracemut
from replcheck.conformance.validate import shrink as shrink_module
from test_failure_modes import Case, run_case

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "traces" / "golden"
PAUSE = GOLDEN / "zk-multi-pause.jsonl"
PERSIST_LINE = 34
"""The line of the first ``persist`` event of ``PAUSE``."""
DEEP = "[" * 1100 + "]" * 1100


def _lines() -> list[str]:
    return PAUSE.read_text(encoding="utf-8").splitlines()


def _with_position(tmp: Path, name: str, position: object) -> str:
    lines = _lines()
    event = json.loads(lines[PERSIST_LINE - 1])
    assert event["name"] == "persist"
    event["detail"]["position"] = position
    lines[PERSIST_LINE - 1] = json.dumps(event, sort_keys=True, separators=(",", ":"))
    path = tmp / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def inputs(tmp: Path) -> dict[str, str]:
    """The hostile inputs the cases name, each written into ``tmp``."""
    lines = _lines()
    out: dict[str, str] = {"{golden}": str(PAUSE)}
    deep = list(lines)
    event = json.loads(deep[9])
    event.setdefault("detail", {})["nested"] = 0
    deep[9] = json.dumps(event).replace('"nested": 0', f'"nested": {DEEP}')
    (tmp / "deep.jsonl").write_text("\n".join(deep) + "\n", encoding="utf-8")
    out["{deep}"] = str(tmp / "deep.jsonl")
    (tmp / "deep.json").write_text('{\n  "zk-multi@std": ' + DEEP + "\n}\n", encoding="utf-8")
    out["{deep_json}"] = str(tmp / "deep.json")
    results = '{\n  "schema": "replcheck-results/1",\n  "results": ' + DEEP + "\n}\n"
    (tmp / "results.json").write_text(results, encoding="utf-8")
    out["{deep_results}"] = str(tmp / "results.json")
    (tmp / "inf.json").write_text('{\n  "zk-multi@std": [Infinity]\n}\n', encoding="utf-8")
    out["{inf_json}"] = str(tmp / "inf.json")
    old = json.loads(lines[PERSIST_LINE - 1])["detail"]["position"]
    for name, position in (("neg", -1), ("big", 10**15), ("next", old + 1), ("text", "12")):
        out[f"{{pos_{name}}}"] = _with_position(tmp, f"pos-{name}", position)
    for word, name in (
        ("Infinity", "inf"),
        ("NaN", "nan"),
        ("-Infinity", "neginf"),
        ("1e400", "big"),
    ):
        stamped = list(lines)
        t = json.loads(stamped[3])["t"]
        assert stamped[3].count(f'"t":{t!r}') == 1
        stamped[3] = stamped[3].replace(f'"t":{t!r}', f'"t":{word}')
        (tmp / f"t-{name}.jsonl").write_text("\n".join(stamped) + "\n", encoding="utf-8")
        out[f"{{t_{name}}}"] = str(tmp / f"t-{name}.jsonl")
    (tmp / "cut.jsonl").write_text("\n".join(lines[:200]) + "\n", encoding="utf-8")
    out["{cut}"] = str(tmp / "cut.jsonl")
    (tmp / "empty.jsonl").write_text("", encoding="utf-8")
    out["{empty}"] = str(tmp / "empty.jsonl")
    (tmp / "blank.jsonl").write_text("\n\n", encoding="utf-8")
    out["{blank}"] = str(tmp / "blank.jsonl")
    (tmp / "kdir.parquet").mkdir()
    out["{kdir}"] = str(tmp / "kdir.parquet")
    return out


NO_GATE = ["--junit", "{tmp}/no-such-folder/junit.xml"]
"""Refused right after ``--expected-failures`` is read: a file read as valid never runs the
whole gate (it stops at the unwritable JUnit file, and the case fails on its message)."""

CASES: dict[str, Case] = {
    # --- 1. a value nested 1,100 deep: bad input, never a RecursionError ---
    "deep nesting: validate": Case(
        ["validate", "{deep}"],
        2,
        stdout=["bad input: {deep}:10: a value nested deeper than 64 lists and objects"],
        stderr=["validate: BAD INPUT"],
        report=True,
    ),
    "deep nesting: convert": Case(
        ["convert", "{deep}", "{tmp}/out.parquet"],
        2,
        stderr=["{deep}:10: a value nested deeper than 64", "nothing written"],
        absent=["{tmp}/out.parquet", "{tmp}/.out.parquet.writing"],
    ),
    "deep nesting: replay": Case(
        ["replay", "{deep}"], 2, stderr=["{deep}:10: a value nested deeper than 64"]
    ),
    "deep nesting: replay --html": Case(
        ["replay", "{deep}", "--html", "{tmp}/page.html"],
        2,
        stderr=["{deep}:10: a value nested deeper than 64"],
        absent=["{tmp}/page.html"],
    ),
    "deep nesting: replay of a checker's JSON output": Case(
        ["replay", "{deep_results}"],
        2,
        stderr=["{deep_results}:3: a value nested deeper than 64"],
    ),
    "deep nesting: check --expected-failures": Case(
        ["check", "--expected-failures", "{deep_json}", *NO_GATE],
        2,
        stderr=["{deep_json}:2: a value nested deeper than 64"],
    ),
    "deep nesting: check --expected-failures of a trace": Case(
        ["check", "--expected-failures", "{deep}", *NO_GATE],
        2,
        stderr=["{deep}:10: a value nested deeper than 64"],
    ),
    "Infinity: check --expected-failures": Case(
        ["check", "--expected-failures", "{inf_json}", *NO_GATE],
        2,
        stderr=["{inf_json}:2: not JSON: Infinity is not a JSON number"],
    ),
    # --- 2. a persisted position: wrong type or range is bad input, a wrong value rejected ---
    "position -1: validate": Case(
        ["validate", "{pos_neg}"],
        2,
        stdout=[f"bad input: {{pos_neg}}:{PERSIST_LINE}: detail.position: -1 is not a byte offset"],
        report=True,
    ),
    "position '12': validate": Case(
        ["validate", "{pos_text}"],
        2,
        stdout=[f"bad input: {{pos_text}}:{PERSIST_LINE}: detail.position: '12' is not a byte"],
        report=True,
    ),
    "position 10**15: validate": Case(
        ["validate", "{pos_big}"],
        1,
        stdout=[
            f"rejected: divergence at event {PERSIST_LINE - 1}",
            f"did not fit: line {PERSIST_LINE}: action persist",
            "the event writes position 1000000000000000",
            "which no batch of the trace reached",
        ],
        stderr=["validate: FAIL"],
    ),
    "position one past its batch: validate": Case(
        ["validate", "{pos_next}"],
        1,
        stdout=[
            f"rejected: divergence at event {PERSIST_LINE - 1}",
            f"did not fit: line {PERSIST_LINE}: action persist",
            "which no batch of the trace reached",
        ],
        stderr=["validate: FAIL"],
    ),
    "position '12': convert": Case(
        ["convert", "{pos_text}", "{tmp}/out.jsonl"],
        2,
        stderr=[f"{{pos_text}}:{PERSIST_LINE}: detail.position"],
        absent=["{tmp}/out.jsonl"],
    ),
    # --- 3. a timestamp JSON has no value for ---
    "t Infinity: validate": Case(
        ["validate", "{t_inf}"],
        2,
        stdout=["bad input: {t_inf}:4: not JSON: Infinity is not a JSON number"],
        report=True,
    ),
    "t NaN: validate": Case(
        ["validate", "{t_nan}"],
        2,
        stdout=["bad input: {t_nan}:4: not JSON: NaN is not a JSON number"],
        report=True,
    ),
    "t -Infinity: replay": Case(
        ["replay", "{t_neginf}"], 2, stderr=["{t_neginf}:4: not JSON: -Infinity"]
    ),
    "t 1e400 (infinite as a float): validate": Case(
        ["validate", "{t_big}"],
        2,
        stdout=["bad input: {t_big}:4: not JSON: 1e400 is not a JSON number"],
        report=True,
    ),
    # --- 4. a trace cut at a line boundary: undecided, never accepted ---
    "cut at a line boundary: validate": Case(
        ["validate", "{cut}"],
        4,
        stdout=[
            "{cut}: undecided: incomplete: {cut}:200: the trace ends without the driver's "
            "run_end event",
            "the 200 events it holds: accepted",
        ],
        stderr=["validate: UNDECIDED"],
    ),
    "cut at a line boundary: replay": Case(
        ["replay", "{cut}"], 4, stdout=["undecided: incomplete: {cut}:200:"]
    ),
    # --- 5. a slack outside what it means ---
    "slack 1e300": Case(
        ["validate", "{golden}", "--slack", "1e300"],
        2,
        stderr=["--slack: 1e300: must be from 0 to 60 seconds"],
    ),
    "slack inf": Case(
        ["validate", "{golden}", "--slack", "inf"],
        2,
        stderr=["--slack: inf: must be from 0 to 60 seconds"],
    ),
    "slack nan": Case(
        ["validate", "{golden}", "--slack", "nan"],
        2,
        stderr=["--slack: nan: must be from 0 to 60 seconds"],
    ),
    # --- 6. convert: an empty trace, a folder to write ---
    "empty trace: convert": Case(
        ["convert", "{empty}", "{tmp}/out.parquet"],
        2,
        stderr=["{empty}:1: no event: an empty trace", "nothing written"],
        absent=["{tmp}/out.parquet", "{tmp}/.out.parquet.writing"],
    ),
    "blank lines only: convert": Case(
        ["convert", "{blank}", "{tmp}/out.jsonl"],
        2,
        stderr=["{blank}:1: no event: an empty trace"],
        absent=["{tmp}/out.jsonl"],
    ),
    "empty trace: validate, the same rule": Case(
        ["validate", "{empty}"],
        2,
        stdout=["bad input: {empty}:1: no event: an empty trace"],
        report=True,
    ),
    "empty trace with --design: validate, the same rule": Case(
        ["validate", "{empty}", "--design", "zk-multi"],
        2,
        stdout=["bad input: {empty}:1: no event: an empty trace"],
        report=True,
    ),
    "convert to a folder": Case(
        ["convert", "{golden}", "{kdir}"],
        2,
        stderr=["{kdir}: is a folder"],
        absent=["{kdir}/../.kdir.parquet.writing"],
    ),
    # --- 7. an unknown property ---
    "replay --property nope: a trace": Case(
        ["replay", "{golden}", "--property", "nope"],
        2,
        stderr=["--property nope: no such property of zk-multi; known: no_lost_edit,"],
    ),
    "replay --property nope: actions": Case(
        ["replay", "crash(0)", "--design", "zk-multi", "--property", "nope"],
        2,
        stderr=["--property nope: no such property of zk-multi; known: no_lost_edit,"],
    ),
    "replay --property of another design's": Case(
        ["replay", "crash(0)", "--design", "table", "--property", "single_owner"],
        2,
        stderr=["--property single_owner: no such property of table; known: no_lost_edit,"],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_failure_mode(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES[name]
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    values = {**inputs(tmp_path / "in"), "{tmp}": str(tmp_path / "out")}
    _out, err = run_case(case, values, tmp_path / "cwd", capsys, monkeypatch)
    if case.report:
        assert len(err.strip().splitlines()) == 1, err
    assert list((tmp_path / "out").iterdir()) == [], "something written"


def test_the_golden_trace_the_cases_edit_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    """Every case above is an edit of a trace that is accepted whole."""
    assert main(["validate", str(PAUSE)]) == 0
    assert "accepted" in capsys.readouterr().out


def test_a_bounded_slack_keeps_working(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(PAUSE), "--slack", "60"]) == 0
    capsys.readouterr()


# --- 6. convert: nothing left behind when the write fails ------------------------------------


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_convert_leaves_nothing_behind_when_the_write_fails(
    suffix: str,
    error: BaseException,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The write fails after the temporary file was made (a full disk, Ctrl-C): it is removed,
    and the output is not made."""
    import builtins

    import pyarrow.parquet as pq

    real_open, real_write = builtins.open, pq.write_table

    def failing_write(table, where, **kwargs):
        real_write(table, where, **kwargs)
        raise error

    def failing_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        if "w" in mode and str(file).endswith(".writing"):
            f.write("{}\n")
            f.close()
            raise error
        return f

    monkeypatch.setattr(pq, "write_table", failing_write)
    monkeypatch.setattr(builtins, "open", failing_open)
    out = tmp_path / f"out{suffix}"
    code = main(["convert", str(PAUSE), str(out)])
    _, err = capsys.readouterr()
    assert code == (130 if isinstance(error, KeyboardInterrupt) else 2), err
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())


# --- 8. Ctrl-C while --export-test shrinks -------------------------------------------------------


def _rejected_trace(tmp_path: Path) -> Path:
    """A hand-made invalid trace that shrinks in a second or two (docs/replay.md)."""
    base = GOLDEN / "zk-multi-kill.jsonl"
    events = tracemut.load(base)
    path = tmp_path / "drop-event.jsonl"
    tracemut.dump(tracemut.apply_edit(events, tracemut.HAND_MADE["drop-event"](events)), path)
    return path


def test_ctrl_c_while_shrinking_writes_the_smallest_test_so_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C on the 12th validation of the shrinking: the test is written with the smallest
    failing events found by then, its docstring and stderr say it is not minimal, exit 130;
    and the test it wrote passes."""
    real = shrink_module.validate_events
    calls = [0]

    def interrupted(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 12:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(shrink_module, "validate_events", interrupted)
    out_file = tmp_path / "test_regression.py"
    code = main(["replay", str(_rejected_trace(tmp_path)), "--export-test", str(out_file)])
    _, err = capsys.readouterr()
    assert code == 130, err
    assert "interrupted while shrinking" in err and "NOT minimal" in err, err
    text = out_file.read_text(encoding="utf-8")
    docstring = text.split('"""')[1]
    assert "interrupted (Ctrl-C): NOT minimal, the smallest found so far" in docstring
    namespace: dict[str, object] = {}
    exec(compile(text, str(out_file), "exec"), namespace)
    tests = [f for name, f in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    tests[0]()  # type: ignore[operator]
    kept = len(namespace["EVENTS"])  # type: ignore[arg-type]
    assert 0 < kept < 421, kept  # smaller than the source, not shrunk to the end


def test_a_real_ctrl_c_while_shrinking_exits_130_with_the_test_written(tmp_path: Path) -> None:
    """SIGINT to ``replay --export-test`` once it reports shrinking (on a terminal), on a trace
    that takes minutes to shrink: the test is written at once, not minimal, exit 130."""
    trace = GOLDEN / "zk-lock--cleaner-skips-lookup.jsonl"
    out_file = tmp_path / "test_regression.py"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "replcheck", "replay", str(trace), "--export-test", str(out_file)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=tmp_path,
    )
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while b"validations" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 1.0)[0]:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break
        assert b"validations" in seen, seen.decode(errors="replace")[-2000:]
        proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break
        assert proc.wait(timeout=5) == 130, seen.decode(errors="replace")[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    text = seen.decode(errors="replace")
    assert "Traceback" not in text
    assert "interrupted while shrinking" in text and "NOT minimal" in text, text[-2000:]
    assert "NOT minimal" in out_file.read_text(encoding="utf-8").split('"""')[1]
