"""Trace events: every process of the reference cluster writes JSON lines, one event per line,
to its own file; ``merge`` turns a run's files into one ordered trace.

An event (schema ``traces/schema/v1/event.schema.json``)::

    {"v": 1, "proc": "rs-1.1.1.1,60020,123456780", "pid": 4242, "seq": 17, "t": 1700000000.5,
     "kind": "action", "name": "persist", "args": {"server": 0, "shipper": 0},
     "detail": {"queue": "2", "wal": "1.1.1.1,60020.1265", "position": 512}, "zxid": 4294967391}

``kind`` is ``action`` for a step of the model (``name`` and ``args`` are the model's action name
and parameters, ``replcheck list``), ``meta`` for what the model has no action for (process start
and exit, a fenced zombie, a truncated torn tail, the log cleaner's deletion record). ``zxid`` is
the ZooKeeper transaction id of the storage mutation the event records (from the stat or the
``multi`` results kazoo returns), null for an event that changed no storage.

``merge`` orders storage events by zxid and keeps the order of each lane of a process (a thread
of its, ``lane``); within those two constraints events go in timestamp order. A thread writes a
storage event and then its trace line, so zxids grow along a lane's sequence and both orders can
be kept; two threads of one process may write their lines in the other order than their zxids.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import jsontext

VERSION = 1


# --- lanes: a process's threads ---------------------------------------------------------

WRITER = frozenset({"put", "roll", "archive"})
"""A region server's events written by its WAL writer (client writes and rolls); edits coming
home are written by the thread that serves the other cluster's replication (``sink_apply``)."""


SINK_LANES = {"sink_apply": "apply", "foreign_put": "writer", "relay_home": "relay"}


CLEANER = frozenset(
    (
        "clean",
        "cleaner_start",
        "cleaner_read",
        "cleaner_read_queue",
        "cleaner_finish",
        "cleaner_delete",
        "wal_deleted",
    )
)
"""The master's log-cleaner events: its chore runs on a thread of its own."""


def lane(e: dict[str, Any]) -> tuple[str, ...]:
    """The thread of its process that wrote an event. A region server runs its WAL writer, one
    thread per source, and a control thread (peers, claims) side by side; each writes events in
    its own order, but the order of two threads' lines in the process's file says nothing. Events
    keep the order of their lane only (a source is named by its number in the process). A sink
    cluster's threads are lanes too, and so is the master's log cleaner."""
    proc = e["proc"]
    if proc.startswith("sink-"):
        # A sink cluster serves our sources, writes its own client edits and relays them to
        # us, each on a thread of its own.
        return (proc, SINK_LANES.get(e["name"], "main"))
    if proc.startswith("master") and e["name"] in CLEANER:
        return (proc, "cleaner")
    if not proc.startswith("rs-"):
        return (proc,)
    shipper = (e.get("args") or {}).get("shipper")
    if isinstance(shipper, int) and shipper >= 0:
        return (proc, "source", str(e["pid"]), str(shipper))
    if e["name"] in WRITER:
        return (proc, "writer")
    if e["name"] == "sink_apply":
        return (proc, "relay")
    return (proc, "control")


class TraceWriter:
    """Appends events to ``<dir>/<file>.jsonl``; thread-safe; one flushed line per event, so a
    process killed with -9 loses at most the line it was writing."""

    def __init__(self, trace_dir: Path, proc: str, design: str | None = None) -> None:
        trace_dir.mkdir(parents=True, exist_ok=True)
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in proc)
        self.path = trace_dir / f"{safe}.{os.getpid()}.jsonl"
        self.proc = proc
        self.design = design
        self._seq = 0
        self._lock = threading.Lock()
        self._f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as we do
        self._actions: frozenset[str] | None = None
        if design:
            from replcheck.model import get_design

            self._actions = frozenset(k.name for k in get_design(design).kinds)

    def emit(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        kind: str = "action",
        zxid: int | None = None,
        **detail: Any,
    ) -> dict[str, Any]:
        """Write one event and return it. A step the design has no action for (say a
        master-master relay under the ``table`` design) is written as the meta event
        ``unmodelled`` naming the action."""
        if kind == "action" and self._actions is not None and name not in self._actions:
            detail = {**detail, "action": name, "action_args": args or {}}
            name, args, kind = "unmodelled", {}, "meta"
        with self._lock:
            self._seq += 1
            event: dict[str, Any] = {
                "v": VERSION,
                "proc": self.proc,
                "pid": os.getpid(),
                "seq": self._seq,
                "t": round(time.time(), 6),
                "kind": kind,
                "name": name,
                "args": args or {},
                "zxid": zxid,
            }
            if detail:
                event["detail"] = detail
            if self.design:
                event["design"] = self.design
            self._f.write(json.dumps(event, sort_keys=True, separators=(",", ":")) + "\n")
            self._f.flush()
            return event

    def meta(self, name: str, **detail: Any) -> dict[str, Any]:
        return self.emit(name, kind="meta", **detail)

    def close(self) -> None:
        with self._lock:
            self._f.close()


class TraceError(Exception):
    """A trace file that cannot be read; the message names the file and line."""


def load(
    path: Path, *, tolerate_torn_tail: bool = True, torn: list[str] | None = None
) -> list[dict[str, Any]]:
    """The events of one process file. A last line cut short (no newline at its end, or not
    JSON) is dropped when ``tolerate_torn_tail``, and said in ``torn`` (``file:line: ...``) when
    a list is given, so that a caller can flag the trace incomplete; otherwise, and for any
    other bad line, ``TraceError`` naming the file and line."""
    events: list[dict[str, Any]] = []
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        last = all(not rest.strip() for rest in lines[i:])
        unfinished = last and i == len(lines)  # no newline after it: the write was cut
        try:
            event = jsontext.loads(line)
        except jsontext.JsonTextError as exc:
            if last and tolerate_torn_tail:
                if torn is not None:
                    torn.append(f"{path}:{i}: torn last line ({len(line)} bytes): {exc}")
                break
            raise TraceError(f"{path}:{i}: not a JSON event: {exc}") from None
        if unfinished:
            if not tolerate_torn_tail:
                raise TraceError(f"{path}:{i}: the last line has no newline: the trace was cut")
            if torn is not None:
                torn.append(f"{path}:{i}: the last line has no newline: the trace was cut")
        events.append(event)
    return events


def merge_streams(streams: Iterable[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Merge per-process event lists into one order (see the module docstring): each process's
    list is split into its lanes (``lane``), each kept in its own order; the next event is the
    earliest (by timestamp) of the lanes' next events that may go now; a storage event may go
    only when no lane still holds a storage event with a smaller zxid."""
    lanes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for stream in streams:
        for e in stream:
            lanes.setdefault((*lane(e), str(e.get("pid"))), []).append(e)
    queues = list(lanes.values())
    heads = [0] * len(queues)
    pending: list[list[int]] = []  # per process: zxids still to emit, smallest first
    for q in queues:
        pending.append(sorted(e["zxid"] for e in q if e.get("zxid") is not None))
    out: list[dict[str, Any]] = []
    while True:
        live = [i for i in range(len(queues)) if heads[i] < len(queues[i])]
        if not live:
            break
        floor = min((p[0] for p in pending if p), default=None)
        ready = []
        for i in live:
            z = queues[i][heads[i]].get("zxid")
            if z is None or z == floor:
                ready.append(i)
        if not ready:  # a process's own zxids are out of order: take the smallest head
            ready = [min(live, key=lambda i: queues[i][heads[i]].get("zxid") or 0)]
        pick = min(ready, key=lambda i: _when(queues[i][heads[i]]))
        event = queues[pick][heads[pick]]
        if event.get("zxid") is not None:
            pending[pick].remove(event["zxid"])
        out.append(event)
        heads[pick] += 1
    return out


def _when(e: dict[str, Any]) -> tuple[float, str, int]:
    return (e["t"], e["proc"], e["seq"])


def merge(trace_dir: Path, out: Path, torn: list[str] | None = None) -> list[dict[str, Any]]:
    """Merge every ``*.jsonl`` under ``trace_dir`` into ``out`` (one event per line, each given its
    position ``order``); returns the merged events. Torn last lines of the process files are
    dropped and said in ``torn`` (see ``load``)."""
    streams = []
    for path in sorted(trace_dir.glob("*.jsonl")):
        events = load(path, torn=torn)
        events.sort(key=lambda e: e["seq"])
        streams.append(events)
    merged = merge_streams(streams)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for n, event in enumerate(merged):
            event = {**event, "order": n}
            merged[n] = event
            f.write(json.dumps(event, sort_keys=True, separators=(",", ":")) + "\n")
    return merged


def check_order(events: list[dict[str, Any]]) -> list[str]:
    """Problems with a merged trace's order: zxids of storage events not increasing, or the
    sequence numbers of a process's lane out of order. Empty when the order is right."""
    problems = []
    last_zxid = -1
    last_seq: dict[tuple[Any, ...], int] = {}
    for n, e in enumerate(events):
        z = e.get("zxid")
        if z is not None:
            if z < last_zxid:
                problems.append(f"event {n}: zxid {z} after {last_zxid}")
            last_zxid = z
        key = (*lane(e), e["pid"])
        if last_seq.get(key, 0) >= e["seq"]:
            problems.append(f"event {n}: seq {e['seq']} of {e['proc']} out of order")
        last_seq[key] = e["seq"]
    return problems
