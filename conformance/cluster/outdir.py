"""An output folder taken by one run at a time: ``record``, ``conform`` and ``mine`` each write
into a new or empty ``--out`` folder, and two of them started at once into the same folder must
not both pass that check.

``claim(out)`` creates the folder if need be and then a lock file inside it with ``O_EXCL``:
the kernel lets exactly one process create it, so of two commands started into one folder one
takes it and the other is refused (``OutDirError``, one line naming the folder). The folder must
hold nothing but that lock once it is taken (a used folder is refused as before). The lock goes
when the run ends; a driver killed by SIGKILL leaves it, and the folder stays refused, as a used
folder is.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from replcheck.conformance.zookeeper.server import pid_alive

LOCK = ".replcheck.lock"
"""The lock file's name, in the folder it guards."""


class OutDirError(ValueError):
    """The output folder cannot be taken: not a folder, not writable, not empty, or taken by
    another run. The message is one line naming the folder."""


def check(out: Path, flag: str = "--out") -> None:
    """Raise ``OutDirError`` unless ``out`` is new or an empty folder (an early check, without
    side effects: only ``claim`` decides, atomically)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise OutDirError(f"{flag} {out}: exists and is not a folder")
    _check_empty(out, flag)


def _check_empty(out: Path, flag: str) -> None:
    lock = out / LOCK
    if lock.exists():
        raise OutDirError(f"{flag} {out}: {_holder(lock)}; give another folder")
    _check_empty_but_lock(out, flag)


def _holder(lock: Path) -> str:
    """Who holds the lock ``lock``, in words."""
    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return "taken by another run"
    if pid_alive(pid):
        return f"taken by another run (pid {pid}) writing into it"
    return f"taken by a run (pid {pid}) that died without finishing"


def take(out: Path, flag: str = "--out") -> Path:
    """Take ``out`` for this process: create it (and its parents) if need be, then its lock file
    with ``O_EXCL``; return the lock's path. ``OutDirError`` when the folder cannot be created
    or written, when another run holds it, or when it holds anything else."""
    if out.exists() and not out.is_dir():
        raise OutDirError(f"{flag} {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutDirError(f"{flag} {out}: exists and is not a folder") from None
    except OSError as exc:
        raise OutDirError(f"{flag} {out}: cannot create: {exc.strerror or exc}") from None
    lock = out / LOCK
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise OutDirError(f"{flag} {out}: {_holder(lock)}; give another folder") from None
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.EISDIR):
            raise OutDirError(f"{flag} {out}: exists and is not a folder") from None
        raise OutDirError(f"{flag} {out}: cannot write: {exc.strerror or exc}") from None
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
    finally:
        os.close(fd)
    try:
        _check_empty_but_lock(out, flag)
    except BaseException:
        release(lock)
        raise
    return lock


def _check_empty_but_lock(out: Path, flag: str) -> None:
    try:
        used = any(p.name != LOCK for p in out.iterdir())
    except OSError as exc:
        raise OutDirError(f"{flag} {out}: cannot read: {exc.strerror or exc}") from None
    if used:
        raise OutDirError(
            f"{flag} {out}: is not empty (an earlier run?); a run never reads, merges or "
            "overwrites another's files: give a new or empty folder"
        )


def release(lock: Path) -> None:
    """Remove the lock ``take`` created (the folder stays, with what the run wrote)."""
    with contextlib.suppress(FileNotFoundError):
        lock.unlink()


@contextlib.contextmanager
def claim(out: Path, flag: str = "--out") -> Iterator[Path]:
    """``take(out)`` for the ``with`` block; the lock goes when it ends, however it ends."""
    lock = take(out, flag)
    try:
        yield out
    finally:
        release(lock)
