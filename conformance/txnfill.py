"""Steps a killed process took but did not live to record, read back from the run's ZooKeeper
transaction logs.

A region server writes a queue position to ZooKeeper and then its trace line; killed between the
two, it leaves a change no event records, and the validator would reject the run where a later
event needs it (a recovered source that starts past it). The run folder keeps every ZooKeeper
server's transaction logs (``zk-txnlog/``), which hold that write with its zxid. For the
ZooKeeper-era designs, this module turns each position write of a queue whose zxid no trace event
names into the ``persist`` event its process would have written, and puts it in the trace at its
zxid. Nothing else is filled in: every other missing zxid stays missing (the validator reports
what it cannot follow).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .common import QUEUES
from .steps import server_index
from .zklog import OpCode, ZkLogError, read_logs

Event = dict[str, Any]


def _writes(txn: Any) -> Iterator[Any]:
    """The setData records of a transaction (a multi's ops, or the transaction itself)."""
    if txn.type == OpCode.multi:
        if txn.record.failed:
            return
        for sub in txn.record.txns:
            if sub.type == OpCode.setData and sub.record is not None:
                yield sub.record
    elif txn.type == OpCode.setData:
        yield txn.record


def _position(path: str, data: bytes) -> tuple[str, str, str, int] | None:
    """(server, queue, WAL, position) of a write to a queue's WAL znode, else None."""
    marker = QUEUES + "/"
    if marker not in path:
        return None
    parts = path.split(marker, 1)[1].split("/")
    if len(parts) != 3:
        return None
    try:
        return parts[0], parts[1], parts[2], int(data.decode())
    except (UnicodeDecodeError, ValueError):
        return None


def lost_persists(events: list[Event], run: Path) -> list[Event]:
    """The ``persist`` events the run's transaction logs show and its trace lacks."""
    logs = sorted({p.parent for p in (run / "zk-txnlog").rglob("log.*")})
    if not logs:
        return []
    traced = {e["zxid"] for e in events if e.get("zxid") is not None}
    source: dict[tuple[str, str], Event] = {}
    """(process, queue) -> the process's last event naming the queue (its source number)."""
    for e in events:
        q = (e.get("detail") or {}).get("queue")
        if q and isinstance((e.get("args") or {}).get("shipper"), int):
            source[(e["proc"], q)] = e
    seen: set[int] = set()
    out = []
    for log_dir in logs:
        try:
            txns = list(read_logs(log_dir))
        except ZkLogError:
            continue  # a damaged log supplies nothing; the trace is validated as it is
        for txn in txns:
            if txn.zxid in traced or txn.zxid in seen:
                continue
            for write in _writes(txn):
                found = _position(write.path, write.data)
                if found is None:
                    continue
                server, queue, wal, position = found
                like = source.get((f"rs-{server}", queue))
                if like is None:
                    continue
                seen.add(txn.zxid)
                args = {"server": server_index(server), "shipper": like["args"]["shipper"]}
                detail = {"position": position, "wal": wal, "queue": queue, "from": "txn-log"}
                out.append(
                    {
                        "v": like.get("v", 1),
                        "proc": like["proc"],
                        "pid": like["pid"],
                        "seq": None,
                        "t": txn.time / 1000.0,
                        "kind": "action",
                        "name": "persist",
                        "args": args,
                        "zxid": txn.zxid,
                        "design": like.get("design"),
                        "detail": detail,
                    }
                )
    return out


def fill(events: list[Event], run: Path) -> tuple[list[Event], int]:
    """The trace with the lost ``persist`` events put in at their zxids, and how many."""
    lost = sorted(lost_persists(events, run), key=lambda e: e["zxid"])
    if not lost:
        return events, 0
    out: list[Event] = []
    i = 0
    for e in events:
        z = e.get("zxid")
        while i < len(lost) and z is not None and lost[i]["zxid"] < z:
            out.append(lost[i])
            i += 1
        out.append(e)
    out.extend(lost[i:])
    return out, len(lost)
