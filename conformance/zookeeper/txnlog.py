"""A streaming reader of ZooKeeper 3.9 transaction logs (``log.<zxid>`` files), in constant memory.

The format, as ZooKeeper's ``FileTxnLog`` writes it (every number big-endian, as jute writes it):

* a 16-byte file header (``FileHeader``): magic ``ZKLG``, format version 2, dbid (a long);
* then one entry per transaction: the Adler32 checksum of the record bytes (written as a long),
  the record's length (an int), the record, and the end-of-record byte ``B``. The record is a
  ``TxnHeader`` (clientId, cxid, zxid, time, type), the body for that type (``CreateTxn``,
  ``SetDataTxn``, ``MultiTxn``, ... as ``SerializeUtils.deserializeTxn`` picks it), and, when the
  server had digests enabled, a ``TxnDigest`` trailer (digest version, tree digest);
* ZooKeeper preallocates log files, so a log ends where an entry of length 0 begins: a
  zero-filled tail is the end of the log, not an error.

``read_log(path)`` yields one :class:`Txn` per entry. Anything else is bad input: a
:class:`ZkLogError` whose message is one line naming the file and the byte offset of the fault,
raised only after every complete transaction before it was yielded (a bad checksum, a torn tail,
a file that is not a transaction log, an unknown format version, an undecodable record).
``read_logs(folder)`` reads every ``log.*`` file of a data directory in zxid order.
"""

from __future__ import annotations

import os
import stat
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from replcheck.conformance.zookeeper.records import (
    ACL,
    OP_NAMES,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateContainerTxn,
    CreateSessionTxn,
    CreateTTLTxn,
    CreateTxn,
    DeleteTxn,
    ErrorTxn,
    MultiTxn,
    OpCode,
    Record,
    SetACLTxn,
    SetDataTxn,
    SubTxn,
    Txn,
    TxnDigest,
    op_name,
)

__all__ = [
    "ACL",
    "LOG_MAGIC",
    "LOG_VERSION",
    "OP_NAMES",
    "CheckVersionTxn",
    "CloseSessionTxn",
    "CreateContainerTxn",
    "CreateSessionTxn",
    "CreateTTLTxn",
    "CreateTxn",
    "DeleteTxn",
    "ErrorTxn",
    "MultiTxn",
    "OpCode",
    "Record",
    "SetACLTxn",
    "SetDataTxn",
    "SubTxn",
    "Txn",
    "TxnDigest",
    "ZkLogError",
    "log_dir",
    "log_files",
    "op_name",
    "open_regular",
    "read_log",
    "read_logs",
]

LOG_MAGIC = int.from_bytes(b"ZKLG", "big")
LOG_VERSION = 2
_CHUNK = 1 << 20
"""Bytes read from the file at a time: the reader's memory, whatever the file's size."""


class ZkLogError(ValueError):
    """Bad input: a ZooKeeper log, snapshot or data directory that cannot be read. The message is
    one line that names the file and, when there is one, the byte offset of the fault; ``file``
    and ``offset`` carry them too, when the raiser knew them."""

    def __init__(self, message: str, file: str | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.offset = offset


# --- decoding ---------------------------------------------------------------------------------

_PREFIX = struct.Struct(">qi")
_HEADER = struct.Struct(">qiqqi")
_FILE_HEADER = struct.Struct(">iiq")
_I = struct.Struct(">i")
_Q = struct.Struct(">q")
_II = struct.Struct(">ii")
_IQ = struct.Struct(">iq")
_BI = struct.Struct(">?i")


class _Bad(Exception):
    """A record whose checksum matched but whose bytes do not decode; becomes a ZkLogError."""


def _bytes(b: bytes, o: int) -> tuple[bytes | None, int]:
    (n,) = _I.unpack_from(b, o)
    o += 4
    if n < 0:
        if n == -1:
            return None, o
        raise _Bad(f"negative length {n} at record byte {o - 4}")
    e = o + n
    if e > len(b):
        raise _Bad(f"length {n} at record byte {o - 4} runs past the record")
    return b[o:e], e


def _str(b: bytes, o: int) -> tuple[str | None, int]:
    raw, o = _bytes(b, o)
    return (None if raw is None else raw.decode("utf-8", "replace")), o


def _acl_list(b: bytes, o: int) -> tuple[tuple[ACL, ...] | None, int]:
    (n,) = _I.unpack_from(b, o)
    o += 4
    if n == -1:
        return None, o
    if n < 0 or n > len(b):
        raise _Bad(f"bad ACL count {n}")
    acl = []
    for _ in range(n):
        (perms,) = _I.unpack_from(b, o)
        scheme, o = _str(b, o + 4)
        ident, o = _str(b, o)
        acl.append(ACL(perms, scheme, ident))
    return tuple(acl), o


_ACLS: dict[bytes, tuple[ACL, ...] | None] = {}
"""Decoded ACL lists by their bytes: nearly every create carries one of a few lists."""


def _acl(b: bytes, o: int) -> tuple[tuple[ACL, ...] | None, int]:
    (n,) = _I.unpack_from(b, o)
    if n != 1 or len(b) < o + 12:
        return _acl_list(b, o)
    (scheme_len,) = _I.unpack_from(b, o + 8)  # after the count and the perms
    if scheme_len < 0 or len(b) < o + 16 + scheme_len:
        return _acl_list(b, o)
    (id_len,) = _I.unpack_from(b, o + 12 + scheme_len)
    end = o + 16 + scheme_len + id_len
    if id_len < 0 or end > len(b):
        return _acl_list(b, o)
    key = b[o:end]
    acl = _ACLS.get(key)
    if acl is None:
        if len(_ACLS) >= 1024:
            _ACLS.clear()
        acl = _ACLS[key] = _acl_list(b, o)[0]
    return acl, end


def _create(b: bytes, o: int) -> tuple[CreateTxn, int]:
    path, o = _str(b, o)
    data, o = _bytes(b, o)
    acl, o = _acl(b, o)
    if len(b) - o < 5:  # the format before 3.3: no parentCVersion (SerializeUtils's fallback)
        (eph,) = struct.unpack_from(">?", b, o)
        return CreateTxn(path, data, acl, eph, -1), o + 1
    eph, pcv = _BI.unpack_from(b, o)
    return CreateTxn(path, data, acl, eph, pcv), o + 5


def _create_ttl(b: bytes, o: int) -> tuple[CreateTTLTxn, int]:
    path, o = _str(b, o)
    data, o = _bytes(b, o)
    acl, o = _acl(b, o)
    pcv, ttl = _IQ.unpack_from(b, o)
    return CreateTTLTxn(path, data, acl, pcv, ttl), o + 12


def _create_container(b: bytes, o: int) -> tuple[CreateContainerTxn, int]:
    path, o = _str(b, o)
    data, o = _bytes(b, o)
    acl, o = _acl(b, o)
    (pcv,) = _I.unpack_from(b, o)
    return CreateContainerTxn(path, data, acl, pcv), o + 4


def _delete(b: bytes, o: int) -> tuple[DeleteTxn, int]:
    path, o = _str(b, o)
    return DeleteTxn(path), o


def _set_data(b: bytes, o: int) -> tuple[SetDataTxn, int]:
    path, o = _str(b, o)
    data, o = _bytes(b, o)
    (version,) = _I.unpack_from(b, o)
    return SetDataTxn(path, data, version), o + 4


def _check(b: bytes, o: int) -> tuple[CheckVersionTxn, int]:
    path, o = _str(b, o)
    (version,) = _I.unpack_from(b, o)
    return CheckVersionTxn(path, version), o + 4


def _set_acl(b: bytes, o: int) -> tuple[SetACLTxn, int]:
    path, o = _str(b, o)
    acl, o = _acl(b, o)
    (version,) = _I.unpack_from(b, o)
    return SetACLTxn(path, acl, version), o + 4


def _create_session(b: bytes, o: int) -> tuple[CreateSessionTxn, int]:
    (timeout,) = _I.unpack_from(b, o)
    return CreateSessionTxn(timeout), o + 4


def _close_session(b: bytes, o: int) -> tuple[CloseSessionTxn | None, int]:
    if o == len(b):  # before 3.6 a closeSession had no body
        return None, o
    (n,) = _I.unpack_from(b, o)
    o += 4
    if n == -1:
        return CloseSessionTxn(None), o
    if n < 0 or n > len(b):
        raise _Bad(f"bad path count {n}")
    paths = []
    for _ in range(n):
        p, o = _str(b, o)
        paths.append(p)
    return CloseSessionTxn(paths), o


def _error(b: bytes, o: int) -> tuple[ErrorTxn, int]:
    (err,) = _I.unpack_from(b, o)
    return ErrorTxn(err), o + 4


_SUB_DECODERS = {
    OpCode.create: _create,
    OpCode.create2: _create,
    OpCode.createTTL: _create_ttl,
    OpCode.createContainer: _create_container,
    OpCode.delete: _delete,
    OpCode.deleteContainer: _delete,
    OpCode.setData: _set_data,
    OpCode.error: _error,
    OpCode.check: _check,
}
"""The op types ``DataTree.processTxn`` accepts inside a multi, and their records."""


def _multi(b: bytes, o: int) -> tuple[MultiTxn, int]:
    (n,) = _I.unpack_from(b, o)
    o += 4
    if n < 0 or n > len(b):
        raise _Bad(f"bad op count {n}")
    txns = []
    for i in range(n):
        (op,) = _I.unpack_from(b, o)
        data, o = _bytes(b, o + 4)
        decode = _SUB_DECODERS.get(op)
        record = None
        if decode is not None and data is not None:
            try:
                record, end = decode(data, 0)
            except struct.error:
                raise _Bad(f"op {i} ({op_name(op)}) is truncated") from None
            if end != len(data) and op != OpCode.error:
                raise _Bad(f"op {i} ({op_name(op)}) has {len(data) - end} bytes left over")
            # An op of a failed multi can be typed ``error`` and still carry the bytes of the
            # record it was prepared as (a setData before the failing op, in logs ZooKeeper 3.9
            # wrote). ZooKeeper reads an ErrorTxn from its first four bytes and ignores the
            # rest, and so does this reader.
        txns.append(SubTxn(op, data, record))
    return MultiTxn(txns), o


_DECODERS = {
    **_SUB_DECODERS,
    OpCode.reconfig: _set_data,
    OpCode.setACL: _set_acl,
    OpCode.createSession: _create_session,
    OpCode.closeSession: _close_session,
    OpCode.multi: _multi,
}


def decode_record(rec: bytes, file: str = "", offset: int = 0) -> Txn:
    """One record (TxnHeader, body, optional digest) as a :class:`Txn`; ``_Bad`` if it does not
    decode."""
    try:
        session, cxid, zxid, time, op = _HEADER.unpack_from(rec, 0)
        decode = _DECODERS.get(op)
        if decode is None:
            raise _Bad(f"unknown transaction type {op}")
        record, o = decode(rec, 32)
        left = len(rec) - o
        if left == 0:
            digest = None
        elif left == 12:
            digest = TxnDigest(*_IQ.unpack_from(rec, o))
        else:
            raise _Bad(f"{left} bytes after the {op_name(op)} body, not a 12-byte digest")
    except struct.error:
        raise _Bad("the record ends inside a field") from None
    return Txn(file, offset, session, cxid, zxid, time, op, record, digest)


# --- files ------------------------------------------------------------------------------------


def _fail(file: str, offset: int, what: str) -> ZkLogError:
    return ZkLogError(f"{file}: byte {offset}: {what}", file, offset)


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def not_regular(mode: int) -> str | None:
    """What a file of this ``st_mode`` is when it is not a regular file (``a named pipe``), or
    None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file; else a ZkLogError, at once. The file
    is opened without blocking and then checked, so a named pipe (which would block until some
    writer opens it) or a device is refused without being read, and the file checked is the
    file read."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ZkLogError(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        what = not_regular(os.fstat(fd).st_mode)
        if what == "a directory":
            raise ZkLogError(f"{name}: cannot read: a directory, not a regular file")
        if what is not None:
            raise ZkLogError(f"{name}: not a regular file ({what})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_log(path: str | os.PathLike[str]) -> Iterator[Txn]:
    """Every transaction of one log file, in file order; see the module docstring. A path that
    is not a regular file is refused (``open_regular``)."""
    name = str(path)
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(16)
        if len(head) < 16:
            raise _fail(
                name,
                len(head),
                f"not a ZooKeeper transaction log: {len(head)} bytes, "
                "shorter than the 16-byte file header",
            )
        magic, version, _dbid = _FILE_HEADER.unpack(head)
        if magic != LOG_MAGIC:
            raise _fail(
                name, 0, f"not a ZooKeeper transaction log: magic {head[:4]!r}, not b'ZKLG'"
            )
        if version != LOG_VERSION:
            raise _fail(
                name,
                4,
                f"unknown transaction log format version {version} "
                f"(this reader knows {LOG_VERSION})",
            )
        yield from _entries(f, name, size)


def _entries(f: BinaryIO, name: str, size: int) -> Iterator[Txn]:
    read = f.read
    adler32 = zlib.adler32
    unpack_prefix = _PREFIX.unpack_from
    buf = b""
    pos = 0
    start = 16  # file offset of buf[0]
    while True:
        if len(buf) - pos < 12:
            buf = buf[pos:] + read(_CHUNK)
            start += pos
            pos = 0
            if len(buf) < 12:
                if buf.count(0) == len(buf):
                    return  # the end of the file, or the zero-filled end of a preallocated one
                raise _fail(
                    name,
                    start,
                    f"torn tail: {len(buf)} bytes at the end of the file are not a whole entry",
                )
        crc, n = unpack_prefix(buf, pos)
        at = start + pos
        if n <= 0:
            if n == 0 and crc == 0:
                return  # a zero-filled tail: the end of the log
            what = "length 0 after a non-zero checksum" if n == 0 else f"negative length {n}"
            raise _fail(name, at, f"torn tail or corrupt entry: {what}")
        need = 13 + n
        if len(buf) - pos < need:
            if at + need > size:
                raise _fail(
                    name,
                    at,
                    f"torn tail: an entry of {n} bytes runs past the end of "
                    f"the file ({size} bytes)",
                )
            buf = buf[pos:] + read(max(_CHUNK, need))
            start += pos
            pos = 0
            if len(buf) < need:
                raise _fail(name, at, "torn tail: the file ended while it was read")
        a = pos + 12
        e = a + n
        if buf[e] != 0x42:
            raise _fail(
                name,
                at,
                f"torn tail: the entry of {n} bytes does not end with the "
                f"end-of-record byte 'B' (found {buf[e]:#04x} at byte {start + e})",
            )
        rec = buf[a:e]
        if adler32(rec) != crc:
            raise _fail(
                name,
                at,
                f"bad checksum: the entry says {crc:#x}, its {n} bytes sum "
                f"to {adler32(rec):#x} (Adler32)",
            )
        pos = e + 1
        try:
            yield decode_record(rec, name, at)
        except _Bad as exc:
            raise _fail(name, at, f"undecodable record: {exc}") from None


def log_dir(path: str | os.PathLike[str]) -> Path:
    """The folder that holds the ``log.*`` files: ``path`` itself, its ``version-2``, or (for a
    server folder laid out as ZooKeeper's dataLogDir or dataDir) ``datalog/version-2`` or
    ``data/version-2``, whichever has log files first."""
    root = Path(path)
    if not root.exists():
        raise ZkLogError(f"{root}: no such file or directory")
    if not root.is_dir():
        raise ZkLogError(f"{root}: not a directory")
    for cand in (
        root,
        root / "version-2",
        root / "datalog" / "version-2",
        root / "data" / "version-2",
    ):
        if cand.is_dir() and _logs_in(cand):
            return cand
    return root


def numbered_files(folder: Path, zxid_of: Callable[[str], int | None]) -> list[tuple[int, Path]]:
    """(zxid, path) of the files in ``folder`` whose names ``zxid_of`` reads, in zxid order
    (logs here, snapshots in ``zksnap``)."""
    try:
        names = os.listdir(folder)
    except OSError as exc:
        raise ZkLogError(f"{folder}: cannot list: {exc.strerror or exc}") from None
    found = []
    for n in names:
        z = zxid_of(n)
        if z is not None:
            found.append((z, folder / n))
    return sorted(found)


def _log_zxid(name: str) -> int | None:
    if not name.startswith("log."):
        return None
    try:
        return int(name[4:], 16)
    except ValueError:
        return None


def _logs_in(folder: Path) -> list[tuple[int, Path]]:
    return numbered_files(folder, _log_zxid)


def log_files(path: str | os.PathLike[str]) -> list[Path]:
    """The ``log.<zxid>`` files of a data directory (see :func:`log_dir`), in zxid order."""
    folder = log_dir(path)
    files = [p for _, p in _logs_in(folder)]
    if not files:
        raise ZkLogError(f"{folder}: no ZooKeeper transaction logs (log.<zxid> files)")
    return files


def read_logs(path: str | os.PathLike[str]) -> Iterator[Txn]:
    """Every transaction of every log file of a data directory, in zxid order of the files."""
    for file in log_files(path):
        yield from read_log(file)
