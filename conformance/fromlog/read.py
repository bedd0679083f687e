"""What a ZooKeeper transaction of a run is, in the reference cluster's terms.

The run folder keeps every ZooKeeper server's transaction logs (``zk-txnlog/``). ``committed``
reads the transactions a majority of them hold, in zxid order; the other functions each
recognise one kind of write the cluster's processes make, and give its facts (the server, the
peer, the queue, the WAL, the position), or None. One definition of each, used to read back the
steps a killed process did not live to record (``txnfill``) and to check that every step a
trace records is the transaction its zxid names (``txnagree``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from replcheck.conformance.cluster.common import (
    ADMIN,
    DISABLED,
    ENABLED,
    LIVE,
    MASTER,
    PEERS,
    QUEUES,
    TABLE,
)
from replcheck.conformance.hbase.names import peer_index
from replcheck.conformance.hbase.values import decode_peer_state, decode_position
from replcheck.conformance.zookeeper.escape import printable
from replcheck.conformance.zookeeper.txnlog import OpCode, ZkLogError, open_regular, read_logs


class TxnLogDamaged(ZkLogError):
    """A run folder's record of its ZooKeeper cannot be read as it is: a transaction log with a
    bad checksum, an entry cut in the middle, a wrong magic number or format version (a
    zero-filled tail is a preallocated log's end, not damage); a ``zk-txnlog`` folder with no
    log in it; a ``zk-chroot`` that is no znode path, or under which no committed transaction
    writes. Bad input, never a verdict on the run: the message is one line naming the file and
    the byte offset (``file``, ``offset``)."""

    @classmethod
    def of(cls, exc: ZkLogError, where: Path) -> TxnLogDamaged:
        """The reader's fault ``exc``, met reading the logs of ``where``."""
        return cls(str(exc), exc.file or str(where), exc.offset)


def applied_ops(txn: Any) -> Iterator[tuple[int, Any]]:
    """(type, record) of each op of a transaction that applied (a multi's ops, or itself)."""
    if txn.type == OpCode.multi:
        if not txn.record.failed:
            yield from ((sub.type, sub.record) for sub in txn.record.txns if sub.record)
    else:
        yield txn.type, txn.record


def queue_created(txn: Any) -> tuple[str, int] | None:
    """(server, peer) when the transaction creates a server's queue for a peer (a queue znode
    named by the peer id alone: a claimed queue's name carries its dead servers)."""
    marker = QUEUES + "/"
    for op, record in applied_ops(txn):
        if op not in (OpCode.create, OpCode.create2) or marker not in record.path:
            continue
        parts = record.path.split(marker, 1)[1].split("/")
        if len(parts) == 2 and parts[1].isdigit():
            return parts[0], peer_index(parts[1])
    return None


def rolled(txn: Any) -> tuple[str, str] | None:
    """(server, new WAL) when the transaction is a ZooKeeper-era roll: it creates a WAL znode of
    the server's own in its normal queues (``/rs/<server>/<peer id>/<WAL>``)."""
    marker = QUEUES + "/"
    for op, record in applied_ops(txn):
        if op not in (OpCode.create, OpCode.create2) or marker not in record.path:
            continue
        parts = record.path.split(marker, 1)[1].split("/")
        if (
            len(parts) == 3
            and parts[1].isdigit()
            and parts[2].startswith(parts[0].split(",")[0] + ",")
        ):
            return parts[0], parts[2]
    return None


def claimed(txn: Any) -> tuple[str, str, str] | None:
    """(claimer, new queue id, the dead server's queue path) when the transaction is a
    ZooKeeper-era claim's one multi (zk-multi, HBase 2.x's ``claimQueue``): it creates a claimed
    queue (an id naming dead servers) under the claimer and deletes the dead server's queue."""
    marker = QUEUES + "/"
    created, deleted = [], []
    for op, record in applied_ops(txn):
        path = getattr(record, "path", None) or ""
        if marker not in path:
            continue
        parts = path.split(marker, 1)[1].split("/")
        if len(parts) == 2 and op in (OpCode.create, OpCode.create2) and "-" in parts[1]:
            created.append(parts)
        elif len(parts) == 2 and op == OpCode.delete and parts[1] != "lock":
            deleted.append(f"{QUEUES}/{parts[0]}/{parts[1]}")
    if created and deleted:
        return created[0][0], created[0][1], deleted[0]
    return None


def claim_finished(txn: Any) -> str | None:
    """The dead server whose znode the transaction deletes with its ``lock``: zk-lock's claimer
    removing the queues it copied (``finish_claim``)."""
    marker = QUEUES + "/"
    deleted = [
        r.path.split(marker, 1)[1]
        for op, r in applied_ops(txn)
        if op == OpCode.delete and marker in r.path
    ]
    for path in deleted:
        if "/" not in path and f"{path}/lock" in deleted:
            return path
    return None


def joined(txn: Any, era: str) -> str | None:
    """The server whose join the transaction is, if it is one (see the module docstring)."""
    parent = LIVE if era == "table" else QUEUES
    for op, record in applied_ops(txn):
        if op not in (OpCode.create, OpCode.create2):
            continue
        head, _, name = record.path.rpartition("/")
        if (head == parent or head.endswith(parent)) and name:  # under the run's chroot
            return name
    return None


def admin_op(txn: Any) -> tuple[str, int] | None:
    """(operation, peer) when the transaction is the master's answer to an admin request."""
    ops = list(applied_ops(txn))
    if not any(op == OpCode.delete and f"{ADMIN}/" in (r.path or "") for op, r in ops):
        return None
    for op, record in ops:
        head, _, name = (record.path or "").rpartition("/")
        if head.endswith(PEERS) and name.isdigit():
            if op in (OpCode.create, OpCode.create2):
                return "add_peer", peer_index(name)
            if op == OpCode.delete:
                return "remove_peer", peer_index(name)
        if name == "peer-state" and op == OpCode.setData:
            state = {ENABLED: "enable_peer", DISABLED: "disable_peer"}
            try:
                decoded = decode_peer_state(record.data)
            except ValueError:
                continue
            return state[decoded], peer_index(head.rpartition("/")[2])
    return None


def writes(txn: Any, era: str) -> Iterator[Any]:
    """The records of a transaction (a multi's ops, or the transaction itself) that may write a
    position: setData, and in the table era also create (a queue row's first offset creates the
    row; in the ZooKeeper era a created WAL znode is a roll's, not a position)."""
    ops = (OpCode.setData, OpCode.create, OpCode.create2) if era == "table" else (OpCode.setData,)
    return (record for op, record in applied_ops(txn) if op in ops)


def positions(txn: Any, era: str) -> list[tuple[str, str, str, int]]:
    """Every position the transaction writes, as (server, queue or row key, WAL, position):
    a WAL znode's position (ZooKeeper era, ``position``) or a group's offset in a queue row
    (table era, ``row_offset``)."""
    read = position if era == "zk" else row_offset
    found = (read(w.path, w.data) for w in writes(txn, era))
    return [f for f in found if f is not None]


def position(path: str, data: bytes) -> tuple[str, str, str, int] | None:
    """(server, queue, WAL, position) of a write to a queue's WAL znode, else None."""
    marker = QUEUES + "/"
    if marker not in path:
        return None
    parts = path.split(marker, 1)[1].split("/")
    if len(parts) != 3:
        return None
    if not data:
        return None  # a WAL znode created empty: queued, no position written
    try:
        return parts[0], parts[1], parts[2], decode_position(data)
    except ValueError:
        return None


def wal_done(txn: Any) -> tuple[str, str, str, bool] | None:
    """ZooKeeper era: (server, queue, WAL, whether the queue went too) of a source done with a
    WAL: its writer deletes that one WAL znode of its own queue (``advance``) and, with a
    recovered queue's last WAL, the queue's znode (``finish``); else None."""
    got = [(k, p) for k, p, _ in ops(txn) if not (k == "set" and p.startswith(LIVE + "/"))]
    marker = QUEUES + "/"
    parts = [p.split(marker, 1)[1].split("/") if marker in p else [] for _k, p in got]
    wals = [x for (k, _p), x in zip(got, parts, strict=True) if k == "delete" and len(x) == 3]
    queues = [x for (k, _p), x in zip(got, parts, strict=True) if k == "delete" and len(x) == 2]
    if len(wals) != 1 or len(got) != 1 + len(queues) or len(queues) > 1:
        return None
    server, queue, wal = wals[0]
    if queues and queues[0] != [server, queue]:
        return None
    if writer(txn) != f"rs-{server}":
        return None
    return server, queue, wal, bool(queues)


def row_offset(path: str, data: bytes) -> tuple[str, str, str, int] | None:
    """(owner, row key, WAL, offset) of a write of one group's offset to a table-era queue row
    (``-1``: the WAL was fully replicated, the source's ``advance``), else None. A group with no
    WAL is ADD_MISSING_QUEUES' BEGIN placeholder, the master's write, not a position: a row that
    holds one beside the group written is read by the group that names a WAL."""
    marker = TABLE + "/"
    if marker not in path:
        return None
    key = unquote(path.split(marker, 1)[1])
    try:
        groups = json.loads(data)["queue"]
        named = [v.rpartition(":") for v in groups.values() if v.rpartition(":")[0]]
        if len(named) != 1:
            return None
        ((wal, _, pos),) = named
        owner = key.split("-", 1)[1].split("/")[0]
        return owner, key, wal, int(pos)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def json_object(data: bytes | None) -> dict[str, Any]:
    """A znode's JSON object value (the reference cluster's requests, stages, rows), or ``{}``."""
    try:
        got = json.loads(data or b"")
    except ValueError:
        return {}
    return got if isinstance(got, dict) else {}


def paths(txn: Any) -> list[str]:
    """The znodes the transaction writes: its ops' paths, or the ephemeral znodes a
    ``closeSession`` deletes (which say whose session it was: another run's, in a shared
    ensemble)."""
    if txn.type == OpCode.closeSession:
        return list(getattr(txn.record, "paths", None) or [])
    return [r.path for _op, r in applied_ops(txn) if getattr(r, "path", None)]


class Chroot(str):
    """A run's chroot, as its ``zk-chroot`` file (``file``) names it."""

    file: str = "zk-chroot"


_BAD_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\uf8ff\ufff0-\uffff]")
"""What ZooKeeper's ``PathUtils.validatePath`` refuses in a path."""


def chroot(run: Path) -> Chroot | None:
    """The run's own subtree of the ensemble (``zk-chroot``), when the run folder names one
    (None: no such file, a run recorded on an ensemble of its own). A file that does not hold
    one znode path, as ZooKeeper's ``PathUtils.validatePath`` has it, is ``TxnLogDamaged``
    naming the byte at fault."""
    file = run / "zk-chroot"
    if not os.path.lexists(file):
        return None
    try:
        with open_regular(file) as f:
            raw = f.read(1 << 16)
    except ZkLogError as exc:
        raise TxnLogDamaged(str(exc), str(file), None) from None

    def bad(offset: int, what: str) -> TxnLogDamaged:
        return TxnLogDamaged(f"{file}: byte {offset}: {what}: not a znode path", str(file), offset)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad(exc.start, "not UTF-8") from None
    if len(raw) == 1 << 16:
        raise bad(len(raw), "more than 64 KiB")
    lead = len(text) - len(text.lstrip())
    path = text.strip()
    at = len(text[:lead].encode())  # byte offset of the path in the file

    def byte(i: int) -> int:
        return at + len(path[:i].encode())

    if not path:
        raise bad(len(raw), "empty")
    shown = printable(path if len(path) <= 200 else path[:200] + "...")
    if not path.startswith("/"):
        raise bad(at, f"'{shown}' does not start with '/'")
    m = _BAD_CHARS.search(path)
    if m is not None:
        raise bad(byte(m.start()), f"'{shown}' holds the character {ord(m.group()):#06x}")
    if len(path) > 1:
        if path.endswith("/"):
            raise bad(byte(len(path) - 1), f"'{shown}' ends with '/'")
        i = 1
        for part in path[1:].split("/"):
            if part in ("", ".", ".."):
                raise bad(byte(i), f"'{shown}' has the component {part!r}")
            i += len(part) + 1
    out = Chroot(path)
    out.file = str(file)
    return out


def committed(
    logs: list[Path], chroot: str | None = None, damaged: list[str] | None = None
) -> list[Any]:
    """The transactions a majority of the servers' logs hold, in zxid order. A committed
    transaction was logged by a quorum before it was committed; one a leader logged and then
    lost with its leadership (never committed) is in fewer logs, and did not happen. With
    ``chroot``, a transaction on paths outside it is another run's (a session's, by the
    ephemeral znodes its ``closeSession`` deletes).

    A log that cannot be read (a bad checksum, an entry cut in the middle, a wrong magic
    number: the reader's faults; a zero-filled tail is only a preallocated log's end) is
    ``TxnLogDamaged``, and so is a chroot under which no committed transaction writes while
    others do: a damaged record is bad input, never a verdict. ``damaged`` is kept for callers
    that still pass a list; nothing is added to it, since the first fault is raised."""
    count: dict[int, int] = {}
    first: dict[int, Any] = {}
    for log_dir in logs:
        try:
            txns = list(read_logs(log_dir))
        except ZkLogError as exc:
            raise TxnLogDamaged.of(exc, log_dir) from None
        for txn in txns:
            count[txn.zxid] = count.get(txn.zxid, 0) + 1
            first.setdefault(txn.zxid, txn)
    out = [first[z] for z in sorted(first) if count[z] * 2 > len(logs)]
    if chroot is None:
        return out
    inside = chroot.rstrip("/") + "/"
    kept = [t for t in out if not paths(t) or any(p.startswith(inside) for p in paths(t))]
    writes = sum(1 for t in out if paths(t))
    if writes and not any(paths(t) for t in kept):
        file = getattr(chroot, "file", "zk-chroot")
        raise TxnLogDamaged(
            f"{file}: byte 0: '{printable(chroot)}': no committed transaction of the txn logs "
            f"writes under it ({writes} write elsewhere): not this run's chroot",
            file,
            0,
        )
    return kept


def logs(run: Path) -> list[Path]:
    """The folders of ``run/zk-txnlog`` that hold transaction logs (``log.*``), one a server;
    [] when the run has no ``zk-txnlog``. A ``zk-txnlog`` with no log in it is
    ``TxnLogDamaged``: the record of the run's ZooKeeper is gone."""
    folder = run / "zk-txnlog"
    found = sorted({p.parent for p in folder.rglob("log.*")})
    if not found and folder.is_dir():
        raise TxnLogDamaged(
            f"{folder}: no ZooKeeper transaction log (log.<zxid>) in it", str(folder), None
        )
    return found


ROOTS = ("/hbase/", "/replcheck/")
"""Where the cluster's own znodes start, below a run's chroot."""


def relative(path: str) -> str:
    """``path`` without the run's chroot (``/hbase/...`` or ``/replcheck/...``)."""
    at = min((i for i in (path.find(r) for r in ROOTS) if i >= 0), default=0)
    return path[at:]


def ops(txn: Any) -> list[tuple[str, str, bytes | None]]:
    """Each op that applied, as (``create``, ``delete`` or ``set``, path without the chroot,
    data)."""
    kinds = {
        OpCode.create: "create",
        OpCode.create2: "create",
        OpCode.delete: "delete",
        OpCode.setData: "set",
    }
    out = []
    for op, record in applied_ops(txn):
        if op in kinds and getattr(record, "path", None):
            out.append((kinds[op], relative(record.path), getattr(record, "data", None)))
    return out


def apply(tree: dict[str, bytes | None], written: list[tuple[str, str, bytes | None]]) -> None:
    """``tree`` (path -> data) after the writes ``ops`` read from one transaction."""
    for kind, path, data in written:
        if kind == "delete":
            tree.pop(path, None)
        else:
            tree[path] = data


def writer(txn: Any) -> str | None:
    """The process that made the transaction, told by the fencing write every process of the
    reference cluster opens its writes with: ``set`` of its own znode (``/hbase/master``, or the
    region server's live znode ``/hbase/rs/<server>``): ``master`` or ``rs-<server>``."""
    got = ops(txn)
    if not got or got[0][0] != "set":
        return None
    path = got[0][1]
    if path == MASTER:
        return "master"
    head, _, name = path.rpartition("/")
    return f"rs-{name}" if head == LIVE and name else None
