"""A trace event as a typed value, read once where a trace enters.

A line of a trace (``traces/schema/v1/event.schema.json``) is read into an ``Event``: every
field of the schema is an attribute of its type, and the line (or Parquet row) it came from is
``line``. The trace reader (``reader.read_trace``, JSON lines or Parquet) builds one after the
event has passed the schema, the ZooKeeper-log converter (``fromlog.zk``) builds its own, and
``validate_events`` builds one from any plain object it is handed (a test's, a hand-made edit's).
Validation and the mapping read only attributes: ``e.name``, ``e.args``, ``e.detail``.

The JSON form is kept as it is: ``to_dict()`` gives back the object of the line (with absent
optional fields absent), and an event reads as that object too (``e["name"]``, ``e.get("detail")``,
``{**e}``, with ``_line`` for its line), for the code that handles events as the file's objects:
the recorder and merger, the mining job, the replay front ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Arg = int | list[int] | None
"""An action's parameter value: a small integer, or a list of them (schema: ``args``); None
only in a step read from a ZooKeeper log that leaves it open (a dropped claim's ``child``)."""

KINDS = ("action", "meta")


class EventError(ValueError):
    """An object that is not a trace event: one line naming where it was and what is wrong."""


@dataclass(frozen=True, slots=True)
class Event(Mapping[str, Any]):
    """One trace event (``traces/schema/v1``)."""

    proc: str
    """The process that recorded it: ``master``, ``rs-<server name>``, ``sink-<cluster>``,
    ``driver``."""
    kind: str
    """``action`` (a step of the model) or ``meta`` (a record the model has no action for)."""
    name: str
    """The model's action name (``action``) or the meta record's name."""
    args: Mapping[str, Arg] = field(default_factory=dict)
    """The action's parameters by the model's parameter names."""
    zxid: int | None = None
    """The ZooKeeper transaction id of the storage mutation it records; None if none."""
    pid: int = 0
    """The OS process id (0 for a step read from a ZooKeeper log)."""
    seq: int | None = None
    """The per-process sequence number, from 1 (None for a step read from a ZooKeeper log)."""
    t: float = 0.0
    """Wall-clock seconds since the epoch (informational); a finite number."""
    v: int = 1
    """The schema version."""
    design: str | None = None
    """The design (or design/mutant) the process runs."""
    detail: Mapping[str, Any] = field(default_factory=dict)
    """Real names and values: server, queue, WAL, position, uid, row key, ... (the fields of
    ``DETAIL_TYPES`` typed)."""
    order: int | None = None
    """The position in the merged trace (merged traces only)."""
    line: int | None = None
    """The line (JSON lines) or row (Parquet) it was read from, from 1."""
    has_detail: bool = True
    """Whether the object had a ``detail`` (an absent one reads as empty)."""

    # --- building --------------------------------------------------------------------------------

    @classmethod
    def of(cls, obj: Any, where: str = "") -> Event:
        """The event of a JSON object (an event already is one). A missing or ill-typed field is
        an ``EventError`` of one line, starting with ``where`` (``FILE:LINE: ``)."""
        if isinstance(obj, Event):
            return obj
        if not isinstance(obj, Mapping):
            raise EventError(f"{where}not a JSON object")
        get = obj.get
        for key in ("proc", "kind", "name"):
            if key not in obj:
                raise EventError(f"{where}{key}: a required field is missing")
        proc, kind, name = obj["proc"], obj["kind"], obj["name"]
        if not isinstance(proc, str) or not proc:
            _wrong(where, "proc", proc, "a process name")
        if kind not in KINDS:
            _wrong(where, "kind", kind, "'action' or 'meta'")
        if not isinstance(name, str) or not name:
            _wrong(where, "name", name, "an event name")
        args = get("args")
        if args is None:
            args = {}
        elif not isinstance(args, Mapping) or not all(_is_arg(a) for a in args.values()):
            _wrong(where, "args", args, "an object of integers or lists of integers")
        elif not all(isinstance(k, str) for k in args):
            _wrong(where, "args", args, "an object")
        zxid = get("zxid")
        if zxid is not None and not _is_int(zxid):
            _wrong(where, "zxid", zxid, "an integer or null")
        pid = get("pid", 0)
        if not _is_int(pid):
            _wrong(where, "pid", pid, "an integer")
        seq = get("seq")
        if seq is not None and not _is_int(seq):
            _wrong(where, "seq", seq, "an integer")
        t = get("t", 0.0)
        if not isinstance(t, int | float) or isinstance(t, bool):
            _wrong(where, "t", t, "a number")
        if not math.isfinite(t):
            _wrong(where, "t", t, "a finite number")
        v = get("v", 1)
        if not _is_int(v):
            _wrong(where, "v", v, "an integer")
        design = get("design")
        if design is not None and not isinstance(design, str):
            _wrong(where, "design", design, "a design name")
        detail = get("detail")
        has_detail = detail is not None
        if detail is None:
            detail = {}
        elif not isinstance(detail, Mapping):
            _wrong(where, "detail", detail, "an object")
        else:
            for key, (ok, what) in DETAIL_TYPES.items():
                if key in detail and not ok(detail[key]):
                    _wrong(where, f"detail.{key}", detail[key], what)
        order = get("order")
        if order is not None and not _is_int(order):
            _wrong(where, "order", order, "an integer")
        line = get("_line")
        if line is not None and not _is_int(line):
            _wrong(where, "_line", line, "an integer")
        return cls(
            proc=proc,
            kind=kind,
            name=name,
            args=args,
            zxid=zxid,
            pid=pid,
            seq=seq,
            t=float(t),
            v=v,
            design=design,
            detail=detail,
            order=order,
            line=line,
            has_detail=has_detail,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the event, as a trace file holds it (keys in the order the
        recorder writes them; no ``_line``)."""
        out: dict[str, Any] = {"args": self.args}
        if self.design is not None:
            out["design"] = self.design
        if self.has_detail:
            out["detail"] = self.detail
        out["kind"] = self.kind
        out["name"] = self.name
        if self.order is not None:
            out["order"] = self.order
        out.update(pid=self.pid, proc=self.proc, seq=self.seq, t=self.t, v=self.v, zxid=self.zxid)
        return out

    # --- what a few steps ask of every event ----------------------------------------------------

    @property
    def action(self) -> bool:
        return self.kind == "action"

    @property
    def server_name(self) -> str | None:
        """A region server's own name (``rs-<server name>``), else None."""
        return self.proc[3:] if self.proc.startswith("rs-") else None

    def arg(self, name: str) -> int | None:
        """An integer argument, or None (absent, or a list)."""
        value = self.args.get(name)
        return value if isinstance(value, int) else None

    # --- the JSON object's view (``e["name"]``) -----------------------------------------------

    def __getitem__(self, key: str) -> Any:
        value = _VIEW.get(key, _absent)(self)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        for key, get in _VIEW.items():
            if get(self) is not _ABSENT:
                yield key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and _VIEW.get(key, _absent)(self) is not _ABSENT


_ABSENT = object()


def _absent(_e: Event) -> Any:
    return _ABSENT


def _optional(name: str) -> Any:
    def get(e: Event) -> Any:
        value = getattr(e, name)
        return _ABSENT if value is None else value

    return get


_VIEW: dict[str, Any] = {
    "args": lambda e: e.args,
    "design": _optional("design"),
    "detail": lambda e: e.detail if e.has_detail else _ABSENT,
    "kind": lambda e: e.kind,
    "name": lambda e: e.name,
    "order": _optional("order"),
    "pid": lambda e: e.pid,
    "proc": lambda e: e.proc,
    "seq": lambda e: e.seq,
    "t": lambda e: e.t,
    "v": lambda e: e.v,
    "zxid": lambda e: e.zxid,
    "_line": _optional("line"),
}
"""The JSON object's keys, in the recorder's order, and ``_line``."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_arg(value: Any) -> bool:
    if value is None or _is_int(value):
        return True
    return isinstance(value, list) and all(_is_int(x) for x in value)


MAX_OFFSET = 2**63 - 1
"""The largest byte offset in a file (a Java ``long``, as HBase keeps a WAL's position)."""


def _is_offset(value: Any) -> bool:
    return _is_int(value) and 0 <= value <= MAX_OFFSET


DETAIL_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "position": (_is_offset, f"a byte offset in its WAL (an integer from 0 to {MAX_OFFSET})"),
}
"""The ``detail`` fields whose type the trace fixes, whatever the event (schema README:
``detail.position`` is a byte position): a value of another type, or out of its range, is
not an event. A well-typed value the model disagrees with is the validator's to judge."""


def _wrong(where: str, key: str, value: Any, what: str) -> None:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    raise EventError(f"{where}{key}: {text} is not {' '.join(what.split())}")


def events_of(objs: list[Any]) -> list[Event]:
    """Every object as an event (events stay as they are); an object that is not one is an
    ``EventError`` naming its line (``_line``, else its place in the list)."""
    out = []
    for n, obj in enumerate(objs):
        if isinstance(obj, Event):
            out.append(obj)
            continue
        line = obj.get("_line") if isinstance(obj, Mapping) else None
        out.append(Event.of(obj, f"line {line if line is not None else n + 1}: "))
    return out
