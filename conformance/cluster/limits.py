"""How many region servers this machine can hold: ``record --servers`` is refused past it.

Each region server is a Python process of its own (kazoo, its sources, its WAL files): measured
at about 44 MB resident, 10 open files and 9 threads (3 region servers writing, zk-multi), and it
costs the ZooKeeper server, the sinks and the driver a connection or an open file each. The
limit is the least of

* the memory available (``MemAvailable`` in ``/proc/meminfo``), less ``FIXED_MEMORY`` for the
  processes every run has (ZooKeeper, master, sinks, driver), over ``SERVER_MEMORY`` each;
* the open-file limit (``RLIMIT_NOFILE``, which every child inherits) over ``SERVER_FILES``;
* the process and thread limit (``RLIMIT_NPROC``) over ``SERVER_THREADS``.

Where a figure cannot be read (no ``/proc``, an unlimited resource) it does not limit.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

MB = 1 << 20
SERVER_MEMORY = 64 * MB
"""Memory set aside per region server (44 MB resident measured, with room for its buffers)."""
FIXED_MEMORY = 512 * MB
"""Memory set aside for the processes of every run: ZooKeeper (a JVM, ``-Xmx256m``), the master,
two sinks and the driver."""
SERVER_FILES = 16
"""Open files set aside per region server: its own 10 and the sockets and log file it costs
the ZooKeeper server, the sinks and the driver (each of which has the same limit)."""
SERVER_THREADS = 16
"""Threads set aside per region server (9 measured)."""


@dataclass(frozen=True)
class Limit:
    """The most region servers the machine holds, and the resource that says so."""

    servers: int
    why: str


def _mem_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _soft(which: int) -> int | None:
    try:
        soft, _hard = resource.getrlimit(which)
    except (OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def max_servers() -> Limit:
    """The most region servers this machine can run at once (see the module docstring)."""
    found: list[Limit] = []
    mem = _mem_available()
    if mem is not None:
        n = max(1, (mem - FIXED_MEMORY) // SERVER_MEMORY)
        found.append(
            Limit(n, f"{mem // MB} MB of memory available, {SERVER_MEMORY // MB} MB per server")
        )
    files = _soft(resource.RLIMIT_NOFILE)
    if files is not None:
        found.append(
            Limit(max(1, files // SERVER_FILES), f"{files} open files, {SERVER_FILES} per server")
        )
    procs = _soft(resource.RLIMIT_NPROC)
    if procs is not None:
        found.append(
            Limit(
                max(1, procs // SERVER_THREADS),
                f"{procs} processes and threads, {SERVER_THREADS} per server",
            )
        )
    if not found:
        return Limit(1 << 30, "no limit known")
    return min(found, key=lambda lim: lim.servers)


HELP = (
    f"region servers (default: 3); at most what this machine holds: {SERVER_MEMORY // MB} MB of "
    f"available memory each (beside {FIXED_MEMORY // MB} MB for ZooKeeper, the master and the "
    f"sinks), {SERVER_FILES} open files and {SERVER_THREADS} processes or threads each "
    "(RLIMIT_NOFILE, RLIMIT_NPROC)"
)
"""``record --servers``'s help: the rule, not this machine's number."""
