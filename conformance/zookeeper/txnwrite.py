"""Writing ZooKeeper 3.9 transaction logs: the inverse of :mod:`txnlog`'s reader.

``encode_record(txn)`` gives the bytes of one record (``TxnHeader``, the body of its type, the
``TxnDigest`` trailer when the txn has one), as ``SerializeUtils`` and jute write them;
``encode_log(txns)`` a whole log file (the ``ZKLG`` header, then per transaction its Adler32
checksum, length, record and the end-of-record byte ``B``); ``write_log(path, txns)`` writes one.
The tests build logs with them (hostile znode names, every record type) without a ZooKeeper;
``read_log`` of what they write gives the same transactions back.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

from replcheck.conformance.zookeeper.records import (
    ACL,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateContainerTxn,
    CreateSessionTxn,
    CreateTTLTxn,
    CreateTxn,
    DeleteTxn,
    ErrorTxn,
    MultiTxn,
    Record,
    SetACLTxn,
    SetDataTxn,
    Txn,
)

__all__ = ["encode_body", "encode_log", "encode_record", "write_log"]

LOG_MAGIC = b"ZKLG"
LOG_VERSION = 2


def _int(v: int) -> bytes:
    return struct.pack(">i", v)


def _long(v: int) -> bytes:
    return struct.pack(">q", v)


def _buffer(b: bytes | None) -> bytes:
    return _int(-1) if b is None else _int(len(b)) + b


def _string(s: str | None) -> bytes:
    return _buffer(None if s is None else s.encode("utf-8"))


def _acl(acl: tuple[ACL, ...] | None) -> bytes:
    if acl is None:
        return _int(-1)
    return _int(len(acl)) + b"".join(_int(a.perms) + _string(a.scheme) + _string(a.id) for a in acl)


def encode_body(op: int, rec: Record | None) -> bytes:
    """The body of a transaction of type ``op`` (``SerializeUtils.deserializeTxn``'s record)."""
    if rec is None:
        return b""
    if isinstance(rec, CreateTxn):
        return (
            _string(rec.path)
            + _buffer(rec.data)
            + _acl(rec.acl)
            + struct.pack(">?i", rec.ephemeral, rec.parent_cversion)
        )
    if isinstance(rec, CreateTTLTxn):
        head = _string(rec.path) + _buffer(rec.data) + _acl(rec.acl)
        return head + struct.pack(">iq", rec.parent_cversion, rec.ttl)
    if isinstance(rec, CreateContainerTxn):
        return _string(rec.path) + _buffer(rec.data) + _acl(rec.acl) + _int(rec.parent_cversion)
    if isinstance(rec, DeleteTxn):
        return _string(rec.path)
    if isinstance(rec, SetDataTxn):
        return _string(rec.path) + _buffer(rec.data) + _int(rec.version)
    if isinstance(rec, CheckVersionTxn):
        return _string(rec.path) + _int(rec.version)
    if isinstance(rec, SetACLTxn):
        return _string(rec.path) + _acl(rec.acl) + _int(rec.version)
    if isinstance(rec, CreateSessionTxn):
        return _int(rec.timeout)
    if isinstance(rec, CloseSessionTxn):
        if rec.paths is None:
            return _int(-1)
        return _int(len(rec.paths)) + b"".join(_string(p) for p in rec.paths)
    if isinstance(rec, ErrorTxn):
        return _int(rec.err)
    if isinstance(rec, MultiTxn):
        ops = []
        for sub in rec.txns:
            data = sub.data if sub.data is not None else encode_body(sub.type, sub.record)
            ops.append(_int(sub.type) + _buffer(data))
        return _int(len(ops)) + b"".join(ops)
    raise TypeError(f"no encoder for {type(rec).__name__} (op {op})")


def encode_record(t: Txn) -> bytes:
    """One record: the ``TxnHeader``, the body, and the digest trailer if ``t`` has one."""
    head = struct.pack(">qiqqi", t.session, t.cxid, t.zxid, t.time, t.type)
    tail = b"" if t.digest is None else struct.pack(">iq", t.digest.version, t.digest.tree_digest)
    return head + encode_body(t.type, t.record) + tail


def encode_log(txns: Iterable[Txn], *, dbid: int = 0, preallocate: int = 0) -> bytes:
    """A whole log file: the file header, one entry per transaction, then ``preallocate`` zero
    bytes (the zero-filled tail ZooKeeper leaves in a log it preallocated)."""
    parts = [LOG_MAGIC + _int(LOG_VERSION) + _long(dbid)]
    for t in txns:
        rec = encode_record(t)
        parts.append(_long(zlib.adler32(rec)) + _int(len(rec)) + rec + b"B")
    parts.append(bytes(preallocate))
    return b"".join(parts)


def write_log(
    path: str | os.PathLike[str], txns: Iterable[Txn], *, dbid: int = 0, preallocate: int = 0
) -> Path:
    """Write ``encode_log(txns)`` to ``path`` (its folder created) and return the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(encode_log(txns, dbid=dbid, preallocate=preallocate))
    return out
