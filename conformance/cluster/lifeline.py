"""Children that do not outlive their driver, and clearing the leftovers of a driver that died.

``tethered(command)`` is the command line to start ``command`` with instead: a tiny launcher that
asks the kernel to SIGKILL the process when its parent dies (Linux ``PR_SET_PDEATHSIG``, which
survives ``exec``) and then becomes the command. A SIGKILLed ``replcheck record`` so takes its
region servers (paused ones too: SIGKILL ends a stopped process), sinks, master and ZooKeeper with
it. The launcher is this file run as a script, with Python's ``-I -S`` so that it starts quickly
and imports nothing of replcheck.

The kernel sends that signal when the *thread* that started the child ends, not the process
(prctl(2)): a child started from a thread that returns (a plan's aimed step, which starts the
replacement of the server it killed) would be killed with it. ``popen`` starts every tethered
child from one thread that lives as long as the process (``_spawner``).

``leftovers(folder)`` finds processes a dead run left behind: live processes of the reference
cluster or ZooKeeper whose command line names a path under ``folder`` (every child is started
with its run folder on its command line) and whose parent is not a live ``replcheck record``;
``clear(folder)`` kills them by pid (SIGCONT, then SIGKILL). ``replcheck zk stop --dir FOLDER``
calls it, so it works where the parent-death signal is not available.

``sigterm_as_interrupt()`` makes SIGTERM stop a driver as Ctrl-C does (``KeyboardInterrupt``):
every ``finally`` on the way out runs and stops the children it started, and the command
reports what it did by then (``conform`` and ``mine``; ``record`` has its own ``Terminated``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1

MARKERS = ("replcheck.conformance.", "org.apache.zookeeper.server")
"""What the command line of a process of the reference cluster or of its ZooKeeper contains."""


def tethered(command: list[str]) -> list[str]:
    """``command`` started so that it dies with this process (where the platform allows)."""
    if not sys.platform.startswith("linux"):
        return command
    return [sys.executable, "-I", "-S", __file__, str(os.getpid()), "--", *command]


@cache
def _spawner() -> ThreadPoolExecutor:
    """The thread every tethered child is started from (its one worker lives as long as the
    process)."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="replcheck-spawner")


def popen(command: list[str], **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen`` of ``tethered(command)``, started from ``_spawner``'s thread, so
    that the child dies with this process and not with the thread that asked for it."""
    return _spawner().submit(subprocess.Popen, tethered(command), **kwargs).result()


def leftovers(folder: Path, *, include_live: bool = False) -> list[int]:
    """Pids of live processes of the reference cluster or ZooKeeper whose command line names a
    path under ``folder``, not those of a recording still running unless ``include_live``
    (empty where there is no ``/proc``)."""
    root = str(Path(folder).resolve())
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    me = os.getpid()
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            args = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            state, parent = fields[0], int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
        if state in ("Z", "X"):
            continue
        line = " ".join(args)
        if not any(m in line for m in MARKERS):
            continue
        if not any(a == root or a.startswith(root + os.sep) for a in args):
            continue
        if not include_live and _live_recording(parent):
            continue  # its driver is alive: not a leftover
        found.append(int(entry.name))
    return sorted(found)


def _live_recording(pid: int) -> bool:
    """Is ``pid`` a live ``replcheck record`` driver?"""
    try:
        args = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"record" in args and any(b"replcheck" in a for a in args)


def clear(folder: Path, wait: float = 5.0) -> list[int]:
    """Kill every leftover under ``folder`` (a paused one is continued first); return their
    pids."""
    pids = leftovers(folder)
    for pid in pids:
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and set(pids) & set(leftovers(folder)):
        time.sleep(0.1)
    return pids


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[list[int]]:
    """While the block runs, SIGTERM raises ``KeyboardInterrupt`` (in the main thread, as
    Ctrl-C does); the list yielded holds ``signal.SIGTERM`` once it arrived, so that the command
    can exit with SIGTERM's status. Outside the main thread, signals are left alone."""
    got: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        got.append(signum)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield got
        return
    try:
        yield got
    finally:
        signal.signal(signal.SIGTERM, previous)


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; elsewhere nothing).
    For a process of our own, say a forked worker, from its initializer; ``parent`` is the pid
    the parent had, to catch a parent that died before the signal was armed."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def _launch(argv: list[str]) -> None:  # pragma: no cover - runs in the child, then execs
    die_with_parent(int(argv[0]))
    command = argv[2:]
    os.execvp(command[0], command)


if __name__ == "__main__":  # pragma: no cover
    _launch(sys.argv[1:])
