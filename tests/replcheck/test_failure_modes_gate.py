"""More of the gate's failure modes (``docs/gate.md``): a design's code that raises under
``prove``, signals to a running check, parallel workers, memory limits, output paths and the
``--help`` texts. Each is a command line, what it must exit with and what it must say; errors are
one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replcheck.cli import build_parser, main

RAISES = """\
from replcheck.model.engine.logic import dual
from replcheck.model.zk.multi import ZkMulti


def broken_rule(ops, kind, cluster_ids, target):
    raise RuntimeError("the rule is broken")


class Raises(ZkMulti):
    name = "zk-multi/raises"
    mutant_of = "zk-multi"
    overrides = "rule_ships"
    configs = ("std",)
    bug = "raises from inside a rule"

    @dual(broken_rule)
    def rule_ships(self, *args, **kwargs):
        raise RuntimeError("the rule is broken")
"""


NO_PINS = ("--jobs", "1", "--no-manifest")
ONE_JOB = ("--checkers", "explore", "--jobs", "1")


def _one_line_error(err: str, code: int, expected: int) -> None:
    assert "Traceback" not in err, err[-2000:]
    assert code == expected, err[-2000:]
    assert len(err.strip().splitlines()) == 1, err[-2000:]


# --- 1. prove --design-file with a rule that raises ------------------------------------------


@pytest.mark.parametrize("mode", [[], ["--induction"]], ids=["rule proofs", "induction"])
def test_prove_reports_a_raising_rule_in_one_line(
    mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``explore``, ``show`` and ``fuzz`` report a design's rule that raises in one line (exit 3);
    ``prove`` printed its traceback."""
    path = tmp_path / "raises.py"
    path.write_text(RAISES)
    code = main(["prove", "--design-file", str(path), *mode])
    _out, err = capsys.readouterr()
    _one_line_error(err, code, 3)
    assert err.startswith("replcheck: internal error: ") and "the rule is broken" in err, err


def test_an_exception_no_command_expected_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever a command raises that it did not turn into an error of its own is still one
    line and exit 3, not a traceback."""
    import replcheck.cli as cli

    def boom(args: argparse.Namespace) -> int:
        raise LookupError("nobody expected this")

    monkeypatch.setattr(cli, "cmd_list", boom)
    code = main(["list"])
    _out, err = capsys.readouterr()
    _one_line_error(err, code, 3)
    assert "LookupError: nobody expected this" in err


# --- 2 and 4. Ctrl-C and SIGTERM --------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            out.append(int(proc.name))
    return out


def _communicate(proc: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"did not stop\n{out[-1000:]}\n{err[-1000:]}") from None


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "replcheck", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        start_new_session=True,  # its own process group, as a terminal's job is
    )


def _wait_for_children(proc: subprocess.Popen[str], n: int) -> None:
    deadline = time.monotonic() + 30
    while len(_children(proc.pid)) < n and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    assert len(_children(proc.pid)) >= n, "the workers did not start"


def test_ctrl_c_to_a_parallel_check_kills_its_workers_quietly(tmp_path: Path) -> None:
    """Ctrl-C at a terminal signals the whole process group, the workers too: they die quietly
    (no traceback of theirs, even at a second Ctrl-C), the command prints the partial matrix and
    exits 130."""
    argv = ["check", "--design", "zk-multi", "--design", "zk-lock", "--checkers", "explore"]
    argv += ["--config", "std:servers=3", "--jobs", "2", "--no-manifest"]
    proc = _start(argv, tmp_path)
    _wait_for_children(proc, 2)
    time.sleep(1.0)  # into their rows
    workers = _children(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.3)
    if proc.poll() is None:  # Ctrl-C pressed again while the command stops its workers
        os.killpg(proc.pid, signal.SIGINT)
    out, err = _communicate(proc)
    assert proc.returncode == 130, (out[-1000:], err[-2000:])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert out.strip().splitlines()[-1].startswith("INTERRUPTED"), out[-1000:]
    assert "interrupted after" in out
    time.sleep(0.3)
    assert [w for w in workers if Path(f"/proc/{w}").exists()] == []


@pytest.mark.parametrize(
    "argv",
    [
        ["explore", "--config", "std:servers=6"],
        [
            "check",
            "--design",
            "zk-multi",
            "--checkers",
            "explore",
            "--config",
            "std:servers=3",
            *NO_PINS,
        ],
    ],
    ids=["explore", "check"],
)
def test_sigterm_is_taken_as_ctrl_c(argv: list[str], tmp_path: Path) -> None:
    """SIGTERM (a CI job's timeout, ``kill``) ended the command silently: it now stops as Ctrl-C
    does, with the partial report and exit 130."""
    proc = _start(argv, tmp_path)
    time.sleep(3.0)
    assert proc.poll() is None, "the command should still be running"
    proc.send_signal(signal.SIGTERM)
    out, err = _communicate(proc)
    assert proc.returncode == 130, (out[-1000:], err[-1000:])
    assert "Traceback" not in err
    assert out.strip().splitlines()[-1].startswith("INTERRUPTED"), out[-1000:]
    assert ("stopped interrupted" in out) if argv[0] == "explore" else ("interrupted after" in out)


# --- 3. --jobs past what the machine holds ---------------------------------------------------


@pytest.mark.parametrize("jobs", ["1000", "0", "-1"])
def test_jobs_past_the_machine_are_refused(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--design", "zk-lock", "--checkers", "explore", "--jobs", jobs])
    out, err = capsys.readouterr()
    _one_line_error(err, code, 2)
    assert out == ""
    if jobs == "1000":
        from replcheck.matrix import JOBS_PER_CPU, cpus

        said = re.search(r"--jobs 1000: at most (\d+) on this machine \(", err)
        assert said and 1 <= int(said.group(1)) <= JOBS_PER_CPU * cpus(), err


def test_the_default_jobs_fit_the_machine() -> None:
    from replcheck.matrix import JOBS_PER_CPU, cpus, default_jobs, max_jobs

    limit, _why = max_jobs()
    assert 1 <= default_jobs() <= min(cpus(), limit) <= JOBS_PER_CPU * cpus()


# --- 5. memory limits over every phase -------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["explore", "--engine", "c", "--design", "zk-lock", "--config", "filtering"],
        ["explore", "--engine", "python", "--design", "zk-lock", "--config", "filtering"],
        ["explore", "--design", "zk-lock", "--config", "std:wals_per_server=1"],
        ["check", "--design", "zk-lock", "--config", "std:wals_per_server=1", *ONE_JOB],
    ],
    ids=["c", "python", "explicit", "check"],
)
def test_max_memory_bounds_the_liveness_phase(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A search small enough to end before its first memory check went on into the liveness
    phase, which no limit bounded (5.3 GB under ``--max-memory 4000``, then ``MemoryError``,
    exit 3). The phase now refuses to start past the limit: safety decided, liveness
    undecided, exit 4 with a PARTIAL line naming the memory limit."""
    code = main([*argv, "--max-memory", "1"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert code == 4, (out[-2000:], err[-1000:])
    last = out.strip().splitlines()[-1]
    assert last.startswith("PARTIAL"), out[-2000:]
    if argv[0] == "explore":
        assert "memory limit" in last
        assert re.search(r"ok\s+no_lost_edit", out), out  # the safety verdicts are decided
        assert "state limit" not in out, out  # it says what stopped it
    else:
        assert "UNDECIDED" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["explore", "--max-memory", "0"],
        ["explore", "--max-memory", "-5"],
        ["explore", "--max-states", "0"],
        ["check", "--max-memory", "0"],
        ["check", "--max-states", "-1"],
        ["explore", "--max-memory", "lots"],
    ],
)
def test_limits_that_are_not_positive_are_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)
    out, err = capsys.readouterr()
    _one_line_error(err, code, 2)
    assert out == "" and err.startswith("replcheck: error: ")


def test_memory_is_the_resident_memory_now() -> None:
    """The limit and the progress line read what the process holds now (its resident set), not
    its peak or an estimate."""
    from replcheck.specs.explore import memory_mib as explore_memory

    from replcheck.progress import memory_mib

    with open("/proc/self/statm") as f:
        resident = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20
    assert abs(memory_mib() - resident) <= 8
    assert explore_memory is memory_mib


# --- 8. output paths --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--junit", ""],
        ["check", "--html", ""],
        ["explore", "--html", ""],
        ["check", "--junit", "{tmp}/no/such/folder/gate.xml"],
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_first(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check --junit ''`` ran the whole gate (73 s), printed PASS and wrote no file."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code = main(argv)
    out, err = capsys.readouterr()
    _one_line_error(err, code, 2)
    assert out == "", out[-1000:]  # refused before anything ran
    assert not (tmp_path / "no").exists()


# --- 9. --help ----------------------------------------------------------------------------------


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _examples() -> list[tuple[str, list[str]]]:
    """Every example a ``--help`` prints: an option's ``e.g. "VALUE"`` (run as ``replcheck
    COMMAND OPTION VALUE``) and a whole command line in backquotes after ``Example:``."""
    found = []
    for name, sub in _subparsers().items():
        for action in sub._actions:
            for value in re.findall(r'e\.g\. "([^"]+)"', action.help or ""):
                found.append(
                    (f"{name} {action.option_strings[0]}", [name, action.option_strings[0], value])
                )
        for text in (sub.description or "", sub.epilog or ""):
            for line in re.findall(r"[Ee]xample: `replcheck ([^`]+)`", text):
                found.append((f"{name}: {line}", shlex.split(line)))
    return found


EXAMPLES = _examples()


def test_the_help_has_examples_to_run() -> None:
    names = {argv[0] for _i, argv in EXAMPLES}
    assert {"show", "dump"} <= names, EXAMPLES


@pytest.mark.parametrize("argv", [a for _i, a in EXAMPLES], ids=[i for i, _a in EXAMPLES])
def test_every_example_in_the_help_runs(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """``dump --help``'s own example was refused as printed."""
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out


SEVEN = ("check", "explore", "fuzz", "show", "dump", "list", "prove")


@pytest.mark.parametrize("name", SEVEN)
def test_each_command_says_what_it_does_writes_and_exits_with(name: str) -> None:
    sub = _subparsers()[name]
    assert sub.description and len(sub.description) > 80
    assert "stdout" in sub.description, sub.description
    assert (sub.epilog or "").startswith("Exit status: 0 ")


def test_prove_progress_is_lines_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``prove --depth`` redrew its progress with ``\\r`` into a log file: off a terminal it
    writes one line per depth."""
    import replcheck.specs.crosscheck as crosscheck

    def fake(name: str, cfg: object, depth: int, deadline: object, progress) -> None:
        for k in range(3):
            progress(k, 0.1 * k)
        raise KeyboardInterrupt

    monkeypatch.setattr(crosscheck, "cross_check", fake)
    code = main(["prove", "--depth", "2", "--design", "zk-multi"])
    out, err = capsys.readouterr()
    assert code == 130, out
    assert "\r" not in err, repr(err)
    assert len([line for line in err.splitlines() if line.startswith("bmc zk-multi")]) == 3, err


def test_explore_says_what_stopped_it(capsys: pytest.CaptureFixture[str]) -> None:
    """A search stopped at the memory limit said "INCOMPLETE (state limit reached)"."""
    from replcheck.specs.results import CheckResult

    from replcheck.report import render_result

    for stopped, said in [
        ("memory limit", "memory limit"),
        ("interrupted", "interrupted"),
        ("state limit", "state limit"),
    ]:
        result = CheckResult("explore", "zk-lock", "std")
        result.stats = {"states": 3, "complete": False, "stopped": stopped}
        line = render_result(result).splitlines()[0]
        assert f"INCOMPLETE ({said}" in line, line
