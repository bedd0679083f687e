"""A driver killed by SIGKILL mid-run takes every child it started with it: ``record`` and
``conform`` (ZooKeeper's JVM, the master, the sinks, the region servers: ``lifeline``) and
``mine`` (Spark's JVM and its Python workers). The children are found before the kill as the
driver's descendants, and must all be gone a few seconds after it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from replcheck.conformance.cluster.lifeline import leftovers

ROOT = Path(__file__).resolve().parents[3]
TRACE = ROOT / "test_data" / "validate" / "zk-lock-teardown-archive.jsonl"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent, start time) of ``pid``, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), fields[19]


def _descendants(pid: int) -> dict[int, str]:
    """Every live process under ``pid``, with its start time (so that a pid used again by
    another process later is not taken for a survivor)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        st = _stat(int(entry.name))
        if st is None or st[0] in ("Z", "X"):
            continue
        children.setdefault(st[1], []).append(int(entry.name))
        starts[int(entry.name)] = st[2]
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = starts[child]
            todo.append(child)
    return found


def _survivors(children: dict[int, str], timeout: float = 10.0) -> list[str]:
    """Those of ``children`` still running ``timeout`` seconds on (their command lines)."""
    deadline = time.monotonic() + timeout
    while True:
        left = []
        for pid, start in children.items():
            st = _stat(pid)
            if st is not None and st[0] not in ("Z", "X") and st[2] == start:
                try:
                    left.append(Path(f"/proc/{pid}/cmdline").read_bytes().decode()[:160])
                except OSError:
                    continue
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "replcheck", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
    )


def _kill_when(proc: subprocess.Popen[bytes], ready: object, timeout: float = 120) -> list[str]:
    """Wait until ``ready(children)`` holds, SIGKILL the driver, and return the children still
    running a few seconds later."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            children = _descendants(proc.pid)
            if ready(children):  # type: ignore[operator]
                break
            assert proc.poll() is None, f"the driver ended first ({proc.returncode})"
            assert time.monotonic() < deadline, "the run never got going"
            time.sleep(0.2)
        proc.kill()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return _survivors(children)


def _cmdlines(children: dict[int, str]) -> list[bytes]:
    out = []
    for pid in children:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:
            continue
    return out


def _cluster_up(children: dict[int, str]) -> bool:
    """ZooKeeper, the master and a region server are running."""
    lines = _cmdlines(children)
    return all(
        any(marker in line for line in lines)
        for marker in (b"org.apache.zookeeper.server", b".cluster.master", b".cluster.regionserver")
    )


@pytest.mark.zookeeper
def test_a_killed_record_takes_its_cluster_with_it(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    argv = ["record", "--out", str(out), "--servers", "1", "--edits", "40", "--rate", "5"]
    assert _kill_when(_start(argv, tmp_path), _cluster_up) == []
    assert leftovers(out, include_live=True) == []


@pytest.mark.zookeeper
def test_a_killed_conform_takes_its_cluster_with_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["conform", "--design", "zk-lock", "--out", str(out)]
    argv += ["--database", str(tmp_path / "db")]
    assert _kill_when(_start(argv, tmp_path), _cluster_up) == []
    assert leftovers(out, include_live=True) == []


@pytest.mark.spark
@pytest.mark.slow
def test_a_killed_mine_takes_spark_with_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(16):
        shutil.copy(TRACE, corpus / f"run-{i:03d}.jsonl")
    argv = ["mine", str(corpus), "--master", "local[1]", "--partitions", "1"]
    argv += ["--out", str(tmp_path / "out")]

    def mining(children: dict[int, str]) -> bool:  # Spark's JVM runs a Python worker
        return any(b"pyspark.daemon" in line for line in _cmdlines(children))

    assert _kill_when(_start(argv, tmp_path), mining) == []
