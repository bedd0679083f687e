"""A streaming reader of ZooKeeper 3.9 snapshots (``snapshot.<zxid>[.gz|.snappy]`` files).

The format, as ZooKeeper's ``FileSnap`` and ``SnapStream`` write it (big-endian, jute):

* compression by file name suffix (``SnapStream.getStreamMode``): none, ``.gz`` (a gzip stream)
  or ``.snappy`` (snappy-java's ``SnappyOutputStream`` framing: a 16-byte header, the magic
  ``\\x82SNAPPY\\0`` and two ints, then blocks, each an int length and a raw snappy block);
* inside: a ``FileHeader`` (magic ``ZKSN``, version 2, dbid); the sessions (a count, then session
  id and timeout pairs); the ACL cache (a count, then an id and a vector of ACLs each); the data
  nodes in pre-order, each a path then a ``DataNode`` (data, ACL id, ``StatPersisted``), ending at
  the path ``/``; then seals: the Adler32 checksum of every uncompressed byte so far (a long) and
  the string ``/``, after the tree, after the ``ZxidDigest`` (zxid, digest version, tree digest)
  and after the last processed zxid (a long), the last two present in 3.9's snapshots.

``read_snapshot(path)`` returns a :class:`Snapshot` whose header, sessions and ACLs are read;
:meth:`Snapshot.nodes` then streams the nodes and, at their end, reads and checks the seals.
Bad input raises :class:`~replcheck.conformance.zookeeper.txnlog.ZkLogError` naming the file and the
byte offset (in a compressed snapshot, the offset in its uncompressed stream).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from replcheck.conformance.zookeeper.txnlog import (
    ACL,
    ZkLogError,
    not_regular,
    numbered_files,
    open_regular,
)

__all__ = [
    "SNAP_MAGIC",
    "SnapDigest",
    "SnapNode",
    "Snapshot",
    "StatPersisted",
    "is_valid_snapshot",
    "read_snapshot",
    "snapshot_dir",
    "snapshot_files",
    "valid_snapshot_files",
]

SNAP_MAGIC = int.from_bytes(b"ZKSN", "big")
SNAPPY_MAGIC = b"\x82SNAPPY\x00"
_CHUNK = 1 << 20
_STAT = struct.Struct(">qqqqiiiqq")
_I = struct.Struct(">i")
_Q = struct.Struct(">q")


@dataclass(slots=True)
class StatPersisted:
    """A node's stat as the server stores it (``StatPersisted``)."""

    czxid: int
    mzxid: int
    ctime: int
    mtime: int
    version: int
    cversion: int
    aversion: int
    ephemeral_owner: int
    pzxid: int


@dataclass(slots=True)
class SnapNode:
    """One data node: its path (``""`` for the root), data, ACL id (a key of
    :attr:`Snapshot.acls`; -1 is the open ACL) and stat."""

    path: str
    data: bytes | None
    acl: int
    stat: StatPersisted


@dataclass(slots=True)
class SnapDigest:
    """The snapshot's ``ZxidDigest``: the tree digest at ``zxid`` (0: none recorded)."""

    zxid: int
    version: int
    digest: int


def compression_of(name: str) -> str:
    """``gz``, ``snappy`` or ``""``, from the file name's last suffix, as ZooKeeper decides."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return suffix if suffix in ("gz", "snappy") else ""


# --- decompressed bytes -------------------------------------------------------------------------


class _Source:
    """The uncompressed bytes of a snapshot file, a piece at a time (b"" at the end)."""

    def __init__(self, f: BinaryIO, name: str, mode: str, size: int) -> None:
        self.f, self.name, self.mode, self.size = f, name, mode, size
        self.pos = 0  # offset in the file of what was read
        self._z: zlib._Decompress | None = None
        self._pending = b""
        if mode == "snappy":
            head = self._read(16)
            if len(head) < 16 or head[:8] != SNAPPY_MAGIC:
                raise ZkLogError(f"{name}: byte 0: not a snappy-java stream (no {SNAPPY_MAGIC!r})")
        elif mode == "gz":
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def _read(self, n: int) -> bytes:
        data = self.f.read(n)
        self.pos += len(data)
        return data

    def chunk(self) -> bytes:
        if self.mode == "snappy":
            return self._snappy()
        if self.mode == "gz":
            return self._gzip()
        return self._read(_CHUNK)

    def _gzip(self) -> bytes:
        while True:
            z = self._z
            assert z is not None
            if z.eof:  # the end of a gzip member: another may follow, as Java reads them
                rest = z.unused_data + self._pending or self._read(_CHUNK)
                if not rest:
                    return b""
                z = self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                self._pending = rest
            data = self._pending or self._read(_CHUNK)
            if not data:
                raise ZkLogError(f"{self.name}: byte {self.pos}: truncated gzip stream")
            try:
                out = z.decompress(data, _CHUNK)
            except zlib.error as exc:
                raise ZkLogError(
                    f"{self.name}: byte {self.pos}: corrupt gzip stream: {exc}"
                ) from None
            self._pending = z.unconsumed_tail
            if out:
                return out

    def _snappy(self) -> bytes:
        import cramjam

        while True:
            at = self.pos
            head = self._read(4)
            if not head:
                return b""
            if len(head) < 4:
                raise ZkLogError(f"{self.name}: byte {at}: truncated snappy block length")
            if head == SNAPPY_MAGIC[:4]:  # a concatenated stream: its header again
                rest = self._read(12)
                if rest[:4] != SNAPPY_MAGIC[4:] or len(rest) < 12:
                    raise ZkLogError(f"{self.name}: byte {at}: bad snappy-java stream header")
                continue
            (n,) = _I.unpack(head)
            if n < 0 or at + 4 + n > self.size:
                raise ZkLogError(
                    f"{self.name}: byte {at}: truncated snappy stream: a block of {n} bytes "
                    f"runs past the end of the file ({self.size} bytes)"
                )
            block = self._read(n)
            try:
                if cramjam.snappy.decompress_raw_len(block) > 24 * n + 64:
                    raise cramjam.DecompressionError("impossible uncompressed length")
                out = bytes(cramjam.snappy.decompress_raw(block))
            except cramjam.DecompressionError as exc:
                raise ZkLogError(f"{self.name}: byte {at}: corrupt snappy block: {exc}") from None
            if out:
                return out


class _Reader:
    """Jute reads over a :class:`_Source`, with the running Adler32 of the bytes consumed."""

    def __init__(self, source: _Source, label: str) -> None:
        self.src = source
        self.label = label  # how offsets are named: "byte" or "uncompressed byte"
        self.buf = b""
        self.pos = 0
        self.base = 0  # stream offset of buf[0]
        self.ck = 1  # Adler32 of the consumed bytes before buf[ck_from]
        self.ck_from = 0

    @property
    def offset(self) -> int:
        return self.base + self.pos

    def fail(self, what: str, at: int | None = None) -> ZkLogError:
        return ZkLogError(
            f"{self.src.name}: {self.label} {self.offset if at is None else at}: {what}"
        )

    def _need(self, n: int, what: str) -> None:
        while len(self.buf) - self.pos < n:
            self.ck = zlib.adler32(memoryview(self.buf)[self.ck_from : self.pos], self.ck)
            piece = self.src.chunk()
            if not piece:
                raise self.fail(
                    f"truncated snapshot: the file ends inside {what}", self.base + len(self.buf)
                )
            self.buf = self.buf[self.pos :] + piece
            self.base += self.pos
            self.pos = self.ck_from = 0

    def at_end(self) -> bool:
        if len(self.buf) > self.pos:
            return False
        self.ck = zlib.adler32(memoryview(self.buf)[self.ck_from : self.pos], self.ck)
        piece = self.src.chunk()
        self.buf, self.base, self.pos, self.ck_from = piece, self.base + self.pos, 0, 0
        return not piece

    def checksum(self) -> int:
        """Adler32 of every byte consumed so far."""
        self.ck = zlib.adler32(memoryview(self.buf)[self.ck_from : self.pos], self.ck)
        self.ck_from = self.pos
        return self.ck

    def int(self, what: str) -> int:
        self._need(4, what)
        (v,) = _I.unpack_from(self.buf, self.pos)
        self.pos += 4
        return v

    def long(self, what: str) -> int:
        self._need(8, what)
        (v,) = _Q.unpack_from(self.buf, self.pos)
        self.pos += 8
        return v

    def bytes(self, what: str) -> bytes | None:
        n = self.int(what)
        if n == -1:
            return None
        if n < 0:
            raise self.fail(f"negative length {n} of {what}", self.offset - 4)
        self._need(n, what)
        v = self.buf[self.pos : self.pos + n]
        self.pos += n
        return v

    def str(self, what: str) -> str | None:
        raw = self.bytes(what)
        return None if raw is None else raw.decode("utf-8", "replace")

    def stat(self) -> StatPersisted:
        self._need(60, "a node's stat")
        v = StatPersisted(*_STAT.unpack_from(self.buf, self.pos))
        self.pos += 60
        return v


# --- snapshots --------------------------------------------------------------------------------


@dataclass
class Snapshot:
    """An open snapshot: the header, sessions and ACL cache are read; :meth:`nodes` streams the
    data nodes once and then reads the seals, digest and last zxid."""

    path: Path
    zxid: int | None
    """The zxid in the file name (the last zxid the snapshot is known to include)."""
    compression: str
    dbid: int
    version: int
    sessions: dict[int, int] = field(default_factory=dict)
    """Session id → timeout (ms)."""
    acls: dict[int, tuple[ACL, ...]] = field(default_factory=dict)
    digest: SnapDigest | None = None
    """Set once :meth:`nodes` is exhausted, when the snapshot records one."""
    last_zxid: int | None = None
    """Set once :meth:`nodes` is exhausted, when the snapshot records it."""
    seals: int = 0
    """Checksum seals verified (1 to 3, once :meth:`nodes` is exhausted)."""
    _reader: _Reader | None = None
    _file: BinaryIO | None = None

    def nodes(self) -> Iterator[SnapNode]:
        """Every data node in the snapshot's order (parents before children), then the seals are
        checked: a ZkLogError if one is wrong or the file ends early."""
        r = self._reader
        if r is None:
            raise ZkLogError(f"{self.path}: the snapshot's nodes were already read")
        self._reader = None
        try:
            while True:
                at = r.offset
                path = r.str("a node's path")
                if path == "/":
                    break
                if path is None:
                    raise r.fail("a node with no path", at)
                data = r.bytes(f"the data of {path!r}")
                acl = r.long(f"the ACL id of {path!r}")
                yield SnapNode(path, data, acl, r.stat())
            self._seal(r)
            if r.at_end():
                return
            zxid, version = r.long("the digest's zxid"), r.int("the digest's version")
            if version < 2:
                text = r.str("the digest")
                digest = int(text, 16) if text else 0
            else:
                digest = r.long("the digest")
            self.digest = SnapDigest(zxid, version, digest)
            self._seal(r)
            if r.at_end():
                return
            self.last_zxid = r.long("the last processed zxid")
            self._seal(r)
            if not r.at_end():
                raise r.fail("unexpected bytes after the snapshot's last seal")
        except ValueError as exc:
            if isinstance(exc, ZkLogError):
                raise
            raise r.fail(f"undecodable snapshot: {exc}") from None
        finally:
            self.close()

    def _seal(self, r: _Reader) -> None:
        at = r.offset
        expect = r.checksum()
        found = r.long("a checksum seal") & 0xFFFFFFFFFFFFFFFF
        mark = r.str("a checksum seal")
        if found != expect:
            raise r.fail(
                f"bad checksum: the seal says {found:#x}, the bytes before it sum to "
                f"{expect:#x} (Adler32)",
                at,
            )
        if mark != "/":
            raise r.fail(f"a checksum seal ends with {mark!r}, not '/'", at + 8)
        self.seals += 1

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_snapshot(path: str | os.PathLike[str]) -> Snapshot:
    """Open a snapshot and read up to its first node (see :class:`Snapshot`)."""
    p = Path(path)
    name = str(p)
    f = open_regular(p)  # the Snapshot closes it; a pipe or a device is refused
    try:
        mode = compression_of(p.name)
        src = _Source(f, name, mode, os.fstat(f.fileno()).st_size)
        r = _Reader(src, "uncompressed byte" if mode else "byte")
        magic = r.int("the file header")
        if magic != SNAP_MAGIC:
            raise r.fail(
                f"not a ZooKeeper snapshot: magic {magic.to_bytes(4, 'big', signed=True)!r}, "
                "not b'ZKSN'",
                0,
            )
        version, dbid = r.int("the file header"), r.long("the file header")
        if version != 2:
            raise r.fail(f"unknown snapshot format version {version} (this reader knows 2)", 4)
        snap = Snapshot(p, _zxid_of(p.name), mode, dbid, version)
        count = r.int("the session count")
        for _ in range(max(count, 0)):
            sid = r.long("a session")
            snap.sessions[sid] = r.int("a session")
        count = r.int("the ACL count")
        for _ in range(max(count, 0)):
            key = r.long("an ACL id")
            n = r.int("an ACL list")
            if n < 0:
                raise r.fail(f"ACL list {key} has no entries vector")
            acl = []
            for _ in range(n):
                perms = r.int("an ACL")
                acl.append(ACL(perms, r.str("an ACL"), r.str("an ACL")))
            snap.acls[key] = tuple(acl)
    except BaseException:
        f.close()
        raise
    snap._reader, snap._file = r, f
    return snap


def _zxid_of(name: str) -> int | None:
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "snapshot":
        return None
    try:
        return int(parts[1], 16)
    except ValueError:
        return None


def snapshot_dir(path: str | os.PathLike[str]) -> Path:
    """The folder that holds the ``snapshot.*`` files: ``path``, its ``version-2``, or a server
    folder's ``data/version-2``, whichever has snapshots first."""
    root = Path(path)
    if not root.is_dir():
        raise ZkLogError(
            f"{root}: " + ("not a directory" if root.exists() else "no such directory")
        )
    for cand in (root, root / "version-2", root / "data" / "version-2"):
        if cand.is_dir() and _snaps_in(cand):
            return cand
    return root


def _snaps_in(folder: Path) -> list[tuple[int, Path]]:
    return numbered_files(folder, _zxid_of)


def snapshot_files(path: str | os.PathLike[str]) -> list[Path]:
    """The snapshots of a data directory (see :func:`snapshot_dir`), in zxid order; may be []."""
    return [p for _, p in _snaps_in(snapshot_dir(path))]


def is_valid_snapshot(path: Path) -> bool:
    """ZooKeeper's quick test of a snapshot (``SnapStream.isValidSnapshot``), which it applies
    before reading one: a plain snapshot ends with its seal (the int 1 and ``/``, so one still
    being written, or cut short by a crash, is passed over); a compressed one starts with its
    format's magic. It says nothing of the checksums, which reading checks. A path that is not
    a regular file (a named pipe among the snapshots) is a ZkLogError, not passed over."""
    try:
        what = not_regular(os.stat(path).st_mode)
    except OSError:
        return False
    if what is not None:
        raise ZkLogError(f"{path}: not a regular file ({what})")
    try:
        with open(path, "rb") as f:
            if path.name.endswith(".gz"):
                return f.read(2) == b"\x1f\x8b"
            if path.name.endswith(".snappy"):
                return f.read(len(SNAPPY_MAGIC)) == SNAPPY_MAGIC
            f.seek(0, os.SEEK_END)
            if f.tell() < 10:
                return False
            f.seek(-5, os.SEEK_END)
            return f.read(5) == b"\x00\x00\x00\x01/"
    except OSError:
        return False


def valid_snapshot_files(path: str | os.PathLike[str]) -> list[Path]:
    """The snapshots of a data directory that pass :func:`is_valid_snapshot`, in zxid order:
    those ZooKeeper would try, newest first, when it loads the directory (``FileSnap``)."""
    return [p for p in snapshot_files(path) if is_valid_snapshot(p)]
