"""Reading a recorded trace for validation: strictly, one event per line, every fault named.

``read_trace(path)`` takes a merged ``trace.jsonl`` (or a Parquet trace, ``trace_parquet``) or a
run folder holding one, and returns a ``Trace``: the events that were valid, in file order, and
the first fault, if any, as one line naming the file and line or row (``TraceFault``). A trace
with a fault is never judged as if it were whole: the validator reports what it can of the valid
prefix and the fault, and exits 2.

What counts as a fault (issue: bad input gets one line naming the file and line):

* a line that is not JSON, including a last line cut short by a kill (a torn tail);
* an event that breaks ``traces/schema/v1`` (a missing or ill-typed field);
* an unknown event name: an ``action`` not among its design's actions, or an unknown ``meta``;
* an ``action`` whose ``args`` are not exactly its action's parameters;
* zxids that go backwards (a merged trace orders storage events by zxid);
* a design that the model does not know.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import parquet as trace_parquet
from replcheck.conformance.trace import schema
from replcheck.conformance.trace.event import Event, EventError

TRACE_FILE = "trace.jsonl"
PARQUET_FILE = "trace.parquet"


class TraceFault(Exception):
    """Bad input: the message is one line naming the file and line."""


@dataclass
class Trace:
    """The valid events of one trace file, each an ``Event`` read once here (its ``line`` the
    1-based line or row it came from), and the first fault, if the file had one."""

    path: Path
    events: list[Event] = field(default_factory=list)
    fault: str | None = None

    @property
    def design(self) -> str | None:
        for e in self.events:
            if e.design:
                return e.design
        return None


def trace_path(path: Path) -> Path:
    """The trace file of ``path``: itself, or a run folder's ``trace.jsonl`` (or, without one,
    its ``trace.parquet``)."""
    if path.is_dir():
        for name in (TRACE_FILE, PARQUET_FILE):
            if (path / name).is_file():
                return path / name
        raise TraceFault(f"{path}: a folder without {TRACE_FILE}: not a recorded run")
    if not path.is_file():
        raise TraceFault(f"{path}: no such file or folder")
    return path


def read_trace(path: Path, design: str | None = None) -> Trace:
    """Read ``path`` (a trace file, JSON lines or Parquet, or a run folder) up to its first
    fault. ``design`` overrides the design the events name (every event must then name it or
    none)."""
    path = trace_path(path)
    trace = Trace(path)
    if path.suffix == trace_parquet.SUFFIX:
        reader = _Reader(trace, design, unit="row")
        try:
            for n, event in trace_parquet.rows(path):
                if isinstance(event, str):
                    trace.fault = event
                    return trace
                if not reader.take(event, n, f"{path}: row {n}: "):
                    return trace
        except trace_parquet.ParquetTraceError as exc:
            if not trace.events:
                raise TraceFault(str(exc)) from None
            trace.fault = str(exc)
        return trace
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceFault(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        trace.fault = f"{path}:{line}: not UTF-8 text (byte offset {exc.start})"
        return trace
    lines = text.split("\n")
    torn = bool(lines) and lines[-1] != ""
    reader = _Reader(trace, design)
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{n}: "
        try:
            event = json.loads(line)
        except ValueError as exc:
            cut = torn and n == len(lines)
            why = "the last line is cut short (a torn tail)" if cut else f"not JSON: {exc}"
            trace.fault = where + why
            return trace
        if not reader.take(event, n, where):
            return trace
    if torn and trace.fault is None:
        trace.fault = f"{path}:{len(lines)}: the last line has no newline (a torn tail)"
    return trace


class _Reader:
    """The checks every event of a trace passes, whatever the file's format."""

    def __init__(self, trace: Trace, design: str | None, unit: str = "line") -> None:
        self.trace = trace
        self.design = design
        self.first_own: str | None = None
        """The design the first event that names one names."""
        self.unit = unit
        self.last_zxid = -1
        self.last_zxid_at = 0

    def take(self, event: Any, n: int, where: str) -> bool:
        """Append event ``n`` (its line or row) to the trace, or set the trace's fault and
        return False."""
        trace, design = self.trace, self.design
        if not isinstance(event, dict):
            trace.fault = where + "not a JSON object"
            return False
        own = event.get("design")
        if own is not None and not isinstance(own, str):
            trace.fault = where + f"design: {own!r} is not a design name"
            return False
        name = design or own
        if design and own and own != design and not schema.same_family(own, design):
            trace.fault = where + (
                f"design {own!r}, but the trace is read as {design!r} (a design or mutant "
                f"of another family)"
            )
            return False
        if name:
            event["design"] = name
        problem = event_problem(event, where)
        if problem:
            trace.fault = problem
            return False
        first = self.first_own
        if own and first is None:
            self.first_own = own
        if own and first and own != first:
            trace.fault = where + f"design {own!r}, but the trace's events before it are {first!r}"
            return False
        z = event["zxid"]
        if z is not None:
            if z <= self.last_zxid:
                trace.fault = where + (
                    f"zxid {z:#x} does not follow zxid {self.last_zxid:#x} of {self.unit} "
                    f"{self.last_zxid_at}"
                )
                return False
            self.last_zxid, self.last_zxid_at = z, n
        event["_line"] = n
        try:
            trace.events.append(Event.of(event, where))
        except EventError as exc:
            trace.fault = str(exc)
            return False
        return True


def event_problem(event: dict[str, Any], where: str) -> str | None:
    """The first thing wrong with one event, as one line, or None."""
    found = schema.problems(event, where)
    if found:
        return found[0]
    return None
