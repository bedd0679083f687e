"""The failure modes of the commands that run something real (``record``, ``conform``, ``mine``):
two of them started at once into one ``--out`` folder, inputs refused in one line before
anything starts, and SIGTERM treated as Ctrl-C (a partial report, exit 143, no child left)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from replcheck.conformance.cluster.lifeline import leftovers
from replcheck.conformance.cluster.outdir import LOCK

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "test_data" / "validate" / "zk-lock-teardown-archive.jsonl"


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[-2000:]
    assert "Traceback" not in err
    return lines[0]


def _start(*argv: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "replcheck", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )


def _first_to_end(procs: list[subprocess.Popen[str]], timeout: float = 60) -> int:
    """The index of the first of ``procs`` to exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for i, p in enumerate(procs):
            if p.poll() is not None:
                return i
        time.sleep(0.05)
    raise AssertionError("neither command ended: both took the folder")


def _descendants(pid: int) -> list[int]:
    """Every live process under ``pid`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _until_mining(pid: int, timeout: float = 120) -> list[int]:
    """Wait until the mine driver ``pid`` runs a Spark job (a Python worker under its JVM);
    return its processes then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        children = _descendants(pid)
        for child in children:
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"pyspark.daemon" in cmdline or b"pyspark.worker" in cmdline:
                return children
        time.sleep(0.2)
    raise AssertionError("no Spark job started")


def _race(argv: list[str], out: Path, cwd: Path) -> tuple[subprocess.Popen[str], str]:
    """Start two commands ``argv`` into ``out`` at once: one is refused in one line naming the
    folder (exit 2), and returned with the other, still running."""
    procs = [_start(*argv, cwd=cwd), _start(*argv, cwd=cwd)]
    try:
        loser = _first_to_end(procs)
    except BaseException:
        for p in procs:
            p.kill()
            p.communicate()
        raise
    _out, err = procs[loser].communicate()
    assert procs[loser].returncode == 2, err[-2000:]
    line = _one_line(err)
    assert str(out) in line and ("taken by another run" in line or "not empty" in line), line
    return procs[1 - loser], line


# --- 1. one output folder, two runs ------------------------------------------------------------


@pytest.mark.zookeeper
def test_two_recordings_into_one_folder_one_is_refused(tmp_path: Path) -> None:
    """Both used to pass the "new or empty" check and write two runs under one summary."""
    out = tmp_path / "runs"
    argv = ["record", "--out", str(out), "--servers", "1", "--edits", "2"]
    winner, _line = _race(argv, out, tmp_path)
    _out, err = winner.communicate(timeout=120)
    assert winner.returncode == 0, err[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == 1 and summary["complete"] is True
    assert [p.name for p in out.glob("run-*")] == ["run-000-seed0"]
    assert not (out / LOCK).exists()  # the lock goes with the run
    assert leftovers(out, include_live=True) == []


@pytest.mark.spark
@pytest.mark.slow
def test_two_mines_into_one_folder_one_is_refused_and_sigterm_stops_the_other(
    tmp_path: Path,
) -> None:
    """One used to print PASS over the other's results; the winner, sent SIGTERM while it mines,
    stops as Ctrl-C stops it: what it mined by then is written and summed (the summary says
    interrupted), exit 143, and no child is left (it used to end silently)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(16):
        shutil.copy(TRACE, corpus / f"run-{i:03d}.jsonl")
    out = tmp_path / "out"
    argv = ["mine", str(corpus), "--master", "local[1]", "--partitions", "1", "--out", str(out)]
    winner, _line = _race(argv, out, tmp_path)
    try:
        children = _until_mining(winner.pid)
        winner.send_signal(signal.SIGTERM)  # a supervisor's stop: the driver alone
        _out, err = winner.communicate(timeout=120)
    finally:
        if winner.poll() is None:
            winner.kill()
            winner.communicate()
    assert winner.returncode == 143, err[-2000:]
    assert err.rstrip().splitlines()[-1].startswith("mine: INTERRUPTED"), err[-2000:]
    assert "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())  # the partial report
    assert summary["interrupted"] is True and summary["mined"] < summary["planned"] == 16
    deadline = time.monotonic() + 10
    while [p for p in children if Path(f"/proc/{p}").exists()] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [p for p in children if _alive(p)] == []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.zookeeper
@pytest.mark.slow
def test_two_conforms_into_one_folder_one_is_refused_and_sigterm_stops_the_other(
    tmp_path: Path,
) -> None:
    """Two searches in one folder used to share run folders (their ZooKeepers "already
    running"); the winner, sent SIGTERM in its first run, reports the runs so far, exit 143,
    and no process of its cluster is left."""
    out = tmp_path / "out"
    argv = ["conform", "--design", "zk-multi", "--out", str(out)]
    argv += ["--database", str(tmp_path / "db")]
    winner, _line = _race(argv, out, tmp_path)
    try:
        deadline = time.monotonic() + 120
        while not leftovers(out, include_live=True) and time.monotonic() < deadline:
            time.sleep(0.2)  # the first run's cluster is starting
        assert leftovers(out, include_live=True), "no run started"
        time.sleep(1.0)
        winner.send_signal(signal.SIGTERM)
        stdout, err = winner.communicate(timeout=120)
    finally:
        if winner.poll() is None:
            winner.kill()
            winner.communicate()
    assert winner.returncode == 143, stdout + err[-2000:]
    assert stdout.strip().splitlines()[-1].startswith("conform: INTERRUPTED after ")
    assert "Traceback" not in err
    report = json.loads((out / "report.json").read_text())
    assert report["interrupted"] is True
    deadline = time.monotonic() + 15
    while leftovers(out, include_live=True) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftovers(out, include_live=True) == []


# --- 2-5, 7. refused in one line before anything starts ------------------------------------------


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    return _one_line(capsys.readouterr().err)


def test_conform_refuses_a_database_that_is_a_file_or_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from replcheck.conformance.search import conform

    def started(*_a: object, **_k: object) -> None:
        raise AssertionError("the search started")

    monkeypatch.setattr(conform, "search", started)
    a_file = tmp_path / "db-file"
    a_file.write_text("x")
    for db, why in ((a_file, "is not a folder"), (a_file / "db", "cannot create")):
        line = _refused(
            [
                "conform",
                "--design",
                "zk-multi",
                "--out",
                str(tmp_path / "o"),
                "--database",
                str(db),
            ],
            capsys,
        )
        assert f"--database {db}" in line and why in line, line


def _no_recording(monkeypatch: pytest.MonkeyPatch) -> None:
    def started(*_a: object, **_k: object) -> None:
        raise AssertionError("a recording started")

    monkeypatch.setattr("replcheck.conformance.cluster.record.record", started)


@pytest.mark.parametrize(
    ("faults", "why"),
    [("kill,kill", "kill named more than once"), ("kill,nope", "unknown fault 'nope'")],
)
def test_record_refuses_repeated_or_unknown_faults(
    faults: str,
    why: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_recording(monkeypatch)
    line = _refused(["record", "--faults", faults, "--out", str(tmp_path / "o")], capsys)
    assert why in line and "--faults" in line, line


def test_record_into_an_unwritable_folder_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It exited 3 ("the cluster could not run"), as if the machine had failed."""
    a_file = tmp_path / "f"
    a_file.write_text("x")
    for out in (Path("/proc/replcheck-no-such/out"), a_file / "out"):
        line = _refused(["record", "--out", str(out), "--servers", "1"], capsys)
        assert f"--out {out}" in line and "cannot create" in line, line


def test_record_refuses_more_servers_than_the_machine_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from replcheck.conformance.cluster.limits import max_servers

    _no_recording(monkeypatch)
    limit = max_servers()
    assert 1 <= limit.servers < 100000
    line = _refused(["record", "--servers", "100000", "--out", str(tmp_path / "o")], capsys)
    assert "this machine holds at most " in line and "region servers (" in line, line
    assert limit.why.split()[-3:] == line.rstrip(")").split()[-3:]  # what says so: "per server"
    assert not (tmp_path / "o").exists()
    assert main(["record", "--help"]) == 0
    assert "at most what this machine holds" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("master", ["spark://nohost:1", "spark://127.0.0.1:1", "nonsense"])
def test_mine_names_a_bad_master_in_one_line(
    master: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed 12 to 129 lines of Java stack traces."""
    line = _refused(["mine", str(TRACE), "--master", master, "--out", str(tmp_path / "o")], capsys)
    assert f"--master {master}" in line, line
    assert not (tmp_path / "o").exists()


def test_a_killed_drivers_lock_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder whose lock a dead run left is refused, and says so."""
    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], text=True,
                          capture_output=True, check=True).stdout.strip()  # fmt: skip
    (out / LOCK).write_text(f"{dead}\n")
    line = _refused(["mine", str(TRACE), "--out", str(out)], capsys)
    assert f"pid {dead}" in line and "died" in line, line
    assert os.listdir(out) == [LOCK]


@pytest.mark.spark
def test_mine_names_a_master_that_is_no_spark_master_in_one_line(tmp_path: Path) -> None:
    """A host that accepts the connection but is no Spark master: Spark gives up after its
    registration retries (about a minute), and the command says so in one line; the JVM's
    stack traces are in OUT/spark.log."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        master = f"spark://127.0.0.1:{listener.getsockname()[1]}"
        out = tmp_path / "o"
        cmd = [sys.executable, "-m", "replcheck.cli", "mine", str(TRACE), "--master", master]
        done = subprocess.run(
            [*cmd, "--out", str(out)], capture_output=True, text=True, timeout=300
        )
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("replcheck: error: mine: Spark failed") and "spark.log" in line, line
    assert (out / "spark.log").stat().st_size > 0
