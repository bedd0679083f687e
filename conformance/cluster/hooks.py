"""Holding a process at a protocol step, so that a fault lands exactly there.

A seeded fault hits at a random moment and almost never inside a narrow window: a claim between
its read and its ``multi``, a cleaner pass between two of its reads, a dead server between its
expiry and its ServerCrashProcedure. The cluster's processes expose named *points* at those
steps. The driver *arms* a point (a file ``hooks/<point>.armed`` in the run folder, holding the
conditions a visit must meet, ``meets``); the first process whose visit meets them takes the arm
(an atomic rename to ``hooks/<point>.held.<process>``) and waits there until the driver removes
that file,
or ``HOLD_LIMIT`` seconds have passed, so that a driver that went away cannot hang the cluster.
A point nobody armed costs one ``stat``.

Points (``POINTS``), and what a visit tells the driver:

* ``claim_read``: a region server has read a claim's positions and not yet written its
  ``multi`` (the claim's ``dead`` server and ``queue``);
* ``cleaner_read``: the master's cleaner has read the queues of one server in a pass (``i``,
  the read's place in the pass, from 1) and not yet decided what to delete; zk-multi's, which
  reads server by server, also tells ``read`` and ``unread`` (the servers of the pass read so
  far and still to read), ``candidates`` (the servers whose archived WALs the pass may delete),
  ``unchanged`` (the cversion of ``/rs`` has not moved since the pass began, so the pass will
  not be read again for another reason, a server joining) and ``rest_dead``: unchanged, some
  servers are still to be read, none of them is live, and the pass may delete their WALs (a
  claim now may move a dead server's queue to a server already read, and its WALs be deleted:
  HBASE-12865's window);
* ``scp_start``: the master has seen a server dead and not yet started its SCP (``dead``);
* ``scp_split``: the dead server's SCP has split its WALs (they are in oldWALs) and not yet
  claimed its queues, nor (table era) added the queues missing for a peer (``dead``);
* ``scp_finish``: zk-multi's SCP has seen every queue of the dead server claimed and not yet
  deleted its node under ``/rs`` (``dead``): that deletion moves the cversion of ``/rs``, so the
  driver holds it while a cleaner let go in HBASE-12865's window ends its pass;
* ``cleaner_pass``: the master's cleaner chore has ended a pass, its deletions included (with
  nothing to consider, too): the driver counts passes by it while it holds a crash procedure.

A strategy aims faults at ``AIMED`` points; ``scp_finish`` and ``cleaner_pass`` are held only by
the driver.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

AIMED = ("claim_read", "cleaner_read", "scp_start", "scp_split")
POINTS = (*AIMED, "scp_finish", "cleaner_pass")
HOLD_LIMIT = 60.0
"""Seconds a process waits at a point before it goes on by itself."""


def hooks_dir(run_dir: Path) -> Path:
    return run_dir / "hooks"


def meets(got: Any, want: Any) -> bool:
    """A visit's detail meets an arm's condition: equal, or for ``{"has": [...]}`` a list that
    holds each of those."""
    if isinstance(want, dict) and set(want) == {"has"}:
        return isinstance(got, list) and all(x in got for x in want["has"])
    return got == want


class Hooks:
    """A process's side: ``point(name, **detail)`` at each point."""

    def __init__(self, run_dir: Path, proc: str) -> None:
        self.dir = hooks_dir(run_dir)
        self.proc = proc

    def point(self, name: str, **detail: Any) -> bool:
        """Hold here if the driver armed ``name`` for a visit like this one; True if it held. A
        callable detail is called only when the point is armed (it may read ZooKeeper)."""
        armed = self.dir / f"{name}.armed"
        try:
            want = json.loads(armed.read_text())
        except (FileNotFoundError, ValueError):
            return False
        detail = {k: v() if callable(v) else v for k, v in detail.items()}
        if not all(meets(detail.get(k), v) for k, v in want.items()):
            return False
        held = self.dir / f"{name}.held.{self.proc}"
        visit = self.dir / f"{name}.visit.{self.proc}"
        visit.write_text(json.dumps(detail))  # before the arm is taken: the driver reads it then
        try:
            os.rename(armed, held)
        except FileNotFoundError:
            visit.unlink(missing_ok=True)
            return False  # another process took it
        until = time.monotonic() + HOLD_LIMIT
        while held.exists() and time.monotonic() < until:
            time.sleep(0.02)
        return True


class Arms:
    """The driver's side: arm a point, wait for a process to be held there, release it."""

    def __init__(self, run_dir: Path) -> None:
        self.dir = hooks_dir(run_dir)
        self.dir.mkdir(parents=True, exist_ok=True)

    def arm(self, name: str, **want: Any) -> int:
        """Arm ``name`` for a visit that meets ``want``; returns the arm's identity (the file's
        inode, which the rename to ``held`` keeps), for ``held`` and ``disarm``."""
        if name not in POINTS:
            raise ValueError(f"unknown hook point {name!r}; known: {', '.join(POINTS)}")
        tmp = self.dir / f".{name}.arming"
        tmp.write_text(json.dumps(want))
        ident = tmp.stat().st_ino
        os.replace(tmp, self.dir / f"{name}.armed")
        return ident

    def armed(self, name: str) -> dict[str, Any] | None:
        """The conditions ``name`` is armed with now, if it is."""
        try:
            return json.loads((self.dir / f"{name}.armed").read_text())
        except (FileNotFoundError, ValueError):
            return None

    def disarm(self, name: str, arm: int | None = None) -> None:
        """Take the arm back (only the arm ``arm``, when given: not one armed since)."""
        path = self.dir / f"{name}.armed"
        try:
            if arm is None or path.stat().st_ino == arm:
                path.unlink()
        except FileNotFoundError:
            pass

    def give_up(self, name: str, arm: int) -> None:
        """Take the arm ``arm`` back, and let go a process that took it just now (between a
        wait that gave up and this call)."""
        self.disarm(name, arm)
        late = self.held(name, arm)
        if late is not None:
            self.release(name, late[0])

    def held(self, name: str, arm: int | None = None) -> tuple[str, dict[str, Any]] | None:
        """(process, what its visit told) of the process held at ``name`` (having taken the
        arm ``arm``, when given), if one is."""
        for path in self.dir.glob(f"{name}.held.*"):
            try:
                if arm is not None and path.stat().st_ino != arm:
                    continue
            except FileNotFoundError:
                continue
            proc = path.name.split(".held.", 1)[1]
            visit = self.dir / f"{name}.visit.{proc}"
            try:
                return proc, json.loads(visit.read_text())
            except (FileNotFoundError, ValueError):
                return proc, {}
        return None

    def wait_held(
        self, name: str, timeout: float, arm: int | Callable[[], int] | None = None
    ) -> tuple[str, dict[str, Any]] | None:
        """Wait for a process to be held at ``name`` (having taken the arm ``arm``, or the one
        ``arm()`` names now, when given)."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            got = self.held(name, arm() if callable(arm) else arm)
            if got is not None:
                return got
            time.sleep(0.02)
        return None

    def release(self, name: str, proc: str | None = None) -> None:
        """Let go the process ``proc`` held at ``name``; without ``proc``, take the arm back
        and let go every process held there."""
        if proc is not None:
            (self.dir / f"{name}.held.{proc}").unlink(missing_ok=True)
            return
        self.disarm(name)
        for path in self.dir.glob(f"{name}.held.*"):
            path.unlink(missing_ok=True)
