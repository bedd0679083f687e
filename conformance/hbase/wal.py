"""WAL files on disk: records framed with their length and a CRC32 checksum.

A record is ``>I length`` + ``>I crc32(payload)`` + ``payload`` (UTF-8 JSON of one edit). A
region server appends one record per client edit and flushes it before the edit counts as written
(seed 002: "The RegionServer writes the request to the WAL in such a way that it can be replayed").
A crash can leave a torn tail: a partial header, a partial payload or a payload whose checksum does
not match. Readers stop at the last good record; ``recover`` (run by whoever splits a dead server's
logs) truncates the file there, so a torn tail is never read as data.

Positions are byte offsets just past a record, as HBase's WAL positions are.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HEADER = struct.Struct(">II")


def frame(payload: bytes) -> bytes:
    """One framed record."""
    return HEADER.pack(len(payload), zlib.crc32(payload)) + payload


def encode(edit: dict[str, Any]) -> bytes:
    return frame(json.dumps(edit, sort_keys=True, separators=(",", ":")).encode())


@dataclass(frozen=True)
class Record:
    """A good record: its payload and the byte offsets where it starts and ends."""

    start: int
    end: int
    edit: dict[str, Any]


@dataclass(frozen=True)
class Scan:
    """What reading a WAL from some offset found: the good records, the offset just past the last
    good one, and whether bytes after it are a torn (partial or corrupt) record."""

    records: tuple[Record, ...]
    end: int
    torn: bool


def scan(path: Path, start: int = 0, limit: int | None = None) -> Scan:
    """Read good records from byte ``start`` (at most ``limit`` of them). A partial or corrupt
    record ends the scan with ``torn`` set; on a file still being written that only means the
    writer has not finished the record."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    out: list[Record] = []
    pos = 0
    torn = False
    while pos < len(data) and (limit is None or len(out) < limit):
        if len(data) - pos < HEADER.size:
            torn = True
            break
        length, crc = HEADER.unpack_from(data, pos)
        body = data[pos + HEADER.size : pos + HEADER.size + length]
        if len(body) < length or zlib.crc32(body) != crc:
            torn = True
            break
        try:
            edit = json.loads(body)
        except ValueError:
            torn = True
            break
        end = pos + HEADER.size + length
        out.append(Record(start + pos, start + end, edit))
        pos = end
    return Scan(tuple(out), start + pos, torn)


def records(path: Path) -> Iterator[dict[str, Any]]:
    yield from (r.edit for r in scan(path).records)


def recover(path: Path) -> int | None:
    """Truncate a closed WAL at its last good record. Returns the number of bytes cut off, or None
    when the file was whole."""
    result = scan(path)
    size = path.stat().st_size
    if result.end == size:
        return None
    with open(path, "r+b") as f:
        f.truncate(result.end)
        f.flush()
        os.fsync(f.fileno())
    return size - result.end


class LeaseLost(Exception):
    """The WAL was split (moved to oldWALs) under its writer."""


@contextlib.contextmanager
def lease(fd: int) -> Iterator[None]:
    """Hold the file's lease: an exclusive ``flock``, taken by the writer around each append and
    by the splitter around taking the file."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def take(path: Path, dest: Path) -> int | None:
    """Split a WAL: take its lease, so no append is in progress, cut a torn tail off (``recover``,
    returned) and move the file to ``dest``; a writer that appends afterwards finds the file gone
    (``LeaseLost``)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        with lease(fd):
            cut = recover(path)
            os.replace(path, dest)
            return cut
    finally:
        os.close(fd)


class WalWriter:
    """Appends framed records to one WAL file, one ``write`` per record, flushed at once.

    The file is created in an existing folder only, as HBase creates a WAL with
    ``createNonRecursive``: once a split has renamed a dead server's WAL folder away, a zombie's
    roll cannot make a new WAL there (``FileNotFoundError``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.size = os.fstat(self._fd).st_size

    def append(self, edit: dict[str, Any]) -> int:
        """Append one edit; return the offset just past it. Raises ``LeaseLost`` when whoever
        split this server's logs has taken the file (HDFS's lease recovery fences a zombie's
        writer the same way): a zombie never appends to a split WAL."""
        data = encode(edit)
        with lease(self._fd):
            try:
                same = os.stat(self.path).st_ino == os.fstat(self._fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                raise LeaseLost(f"{self.path.name} was split")
            os.write(self._fd, data)
        self.size += len(data)
        return self.size

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def tear(path: Path, edit: dict[str, Any], keep: int) -> None:
    """Append only the first ``keep`` bytes of a record: the torn tail a crash mid-write leaves
    (the fault injector's way of making one on purpose)."""
    data = encode(edit)
    with open(path, "ab") as f:
        f.write(data[: max(1, min(keep, len(data) - 1))])
