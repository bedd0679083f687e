"""Tethered children: they die with the driver (even a SIGKILLed one), and not with the thread
of the driver that started them (``conformance/cluster/lifeline.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import IO, cast

import pytest
from replcheck.conformance.cluster import lifeline

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")

DRIVER = """
import sys, threading, time
from replcheck.conformance.cluster import lifeline
got = []
t = threading.Thread(target=lambda: got.append(lifeline.popen(["sleep", "60"])))
t.start()
t.join()
print(got[0].pid, flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def test_a_child_outlives_the_thread_that_started_it() -> None:
    """A plan's aimed step starts the replacement of the server it killed on a thread of its own,
    which then returns: the replacement must go on running (it was killed with the thread)."""
    got: list[subprocess.Popen] = []

    def step() -> None:
        got.append(lifeline.popen(["sleep", "30"]))
        # the launcher arms the parent-death signal once it runs: the thread outlives that
        time.sleep(1.0)

    t = threading.Thread(target=step)
    t.start()
    t.join()
    child = got[0]
    try:
        assert not _gone(child.pid, timeout=1.0), "the child died with its thread"
        assert child.poll() is None
    finally:
        child.kill()
        child.wait(5)


def test_a_child_dies_with_its_driver_killed() -> None:
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    try:
        child = int(cast(IO[str], driver.stdout).readline())
        assert _alive(child)
        driver.send_signal(signal.SIGKILL)
        driver.wait(5)
        assert _gone(child), f"child {child} outlived its SIGKILLed driver"
    finally:
        if driver.poll() is None:
            driver.kill()
