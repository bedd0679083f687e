"""Hook points: a real process held at a point while the driver acts, then let go."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from replcheck.conformance.cluster.hooks import Arms

VISITOR = """
import sys, time
from pathlib import Path
from replcheck.conformance.cluster.hooks import Hooks
h = Hooks(Path(sys.argv[1]), "rs-x")
t0 = time.monotonic()
held = h.point("cleaner_read", i=int(sys.argv[2]))
print(held, round(time.monotonic() - t0, 2))
"""


def visit(run_dir: Path, i: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", VISITOR, str(run_dir), str(i)], stdout=subprocess.PIPE, text=True
    )


def visited(run_dir: Path, i: int) -> bool:
    """Was a process visiting ``cleaner_read`` (read ``i``) held there?"""
    out = subprocess.run(
        [sys.executable, "-c", VISITOR, str(run_dir), str(i)],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return out.split()[0] == "True"


def test_a_process_is_held_until_released(tmp_path: Path) -> None:
    arms = Arms(tmp_path)
    arms.arm("cleaner_read", i=2)
    proc = visit(tmp_path, 2)
    try:
        got = arms.wait_held("cleaner_read", timeout=30)
        assert got == ("rs-x", {"i": 2})
        time.sleep(0.5)
        assert proc.poll() is None  # still held
        arms.release("cleaner_read")
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    held, seconds = out.split()
    assert held == "True" and float(seconds) >= 0.5
    assert arms.held("cleaner_read") is None


def test_a_visit_that_does_not_match_goes_on(tmp_path: Path) -> None:
    arms = Arms(tmp_path)
    arms.arm("cleaner_read", i=2)
    assert not visited(tmp_path, 1)
    assert (tmp_path / "hooks" / "cleaner_read.armed").exists()  # still armed for read 2


def test_one_arm_holds_one_process(tmp_path: Path) -> None:
    arms = Arms(tmp_path)
    arms.arm("cleaner_read")
    first = visit(tmp_path, 1)
    try:
        assert arms.wait_held("cleaner_read", timeout=30) is not None
        assert not visited(tmp_path, 1)  # the arm was taken
    finally:
        arms.release("cleaner_read")
        first.communicate(timeout=30)


def test_unknown_point_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown hook point"):
        Arms(tmp_path).arm("nowhere")


def test_a_callable_detail_is_asked_only_when_the_point_is_armed(tmp_path: Path) -> None:
    """zk-multi's cleaner tells ``rest_dead`` by reading ZooKeeper: not on every visit."""
    from replcheck.conformance.cluster.hooks import Hooks

    asked: list[int] = []

    def rest_dead() -> bool:
        asked.append(1)
        return False

    hooks = Hooks(tmp_path, "master")
    assert hooks.point("cleaner_read", i=1, rest_dead=rest_dead) is False
    assert asked == []  # nothing armed: not asked
    Arms(tmp_path).arm("cleaner_read", rest_dead=True)
    assert hooks.point("cleaner_read", i=1, rest_dead=rest_dead) is False
    assert asked == [1]  # armed: asked, and the visit did not match
    assert Arms(tmp_path).held("cleaner_read") is None
