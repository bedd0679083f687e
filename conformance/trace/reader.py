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
* a design that the model does not know;
* no event at all (an empty file, blank lines only, a Parquet file of no row).

Every line is read by ``jsontext.loads``, the one rule for JSON text: ``NaN`` and ``Infinity``
are not JSON, and a value nested deeper than ``jsontext.MAX_DEPTH`` is refused before it can
exhaust the stack. Every event is then read into an ``Event`` (``Event.of``), whose fields are
typed: a timestamp is a finite number, a persisted position a byte offset.

A trace whose every line is whole may still have been cut at a line boundary: ``cut_short``
says so when it holds no ``run_end`` (``END_EVENT``), the event the recorder's driver writes
once the run is over (``conformance/cluster/run.py``). That is not a fault (the events it holds
are read as they are); the validator holds it undecided, never accepted (docs/validate.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import jsontext, schema
from replcheck.conformance.trace import parquet as trace_parquet
from replcheck.conformance.trace.event import Event, EventError

TRACE_FILE = "trace.jsonl"
PARQUET_FILE = "trace.parquet"
END_EVENT = "run_end"
"""The driver's last word on a run (``replcheck record``): a trace without it may be cut."""


class TraceFault(Exception):
    """Bad input: the message is one line naming the file and line."""


@dataclass
class Trace:
    """The valid events of one trace file, each an ``Event`` read once here (its ``line`` the
    1-based line or row it came from), and the first fault, if the file had one."""

    path: Path
    events: list[Event] = field(default_factory=list)
    fault: str | None = None
    unit: str = "line"
    """What a trace of its format is made of: ``line`` (JSON lines) or ``row`` (Parquet)."""

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
    trace = _read(path, design)
    if not trace.events and trace.fault is None:
        where = f"{path}: row 1" if trace.unit == "row" else f"{path}:1"
        trace.fault = f"{where}: no event: an empty trace"
    return trace


def cut_short(trace: Trace) -> str | None:
    """Why a trace read without a fault may still not be whole (one line naming the file and its
    last line or row), or None: it holds no ``run_end``, the driver's end of run, so it may
    have been cut at a line boundary, or its run never finished."""
    if trace.fault is not None or not trace.events:
        return None
    if any(e.name == END_EVENT for e in trace.events):
        return None
    last = trace.events[-1].line
    where = f"{trace.path}: row {last}" if trace.unit == "row" else f"{trace.path}:{last}"
    return (
        f"{where}: the trace ends without the driver's {END_EVENT} event: it may have been cut "
        "at a line boundary, or its run did not finish"
    )


def _read(path: Path, design: str | None) -> Trace:
    trace = Trace(path)
    if path.suffix == trace_parquet.SUFFIX:
        trace.unit = "row"
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
            event = jsontext.loads(line)
        except jsontext.JsonTextError as exc:
            cut = torn and n == len(lines)
            why = "the last line is cut short (a torn tail)" if cut else str(exc)
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
