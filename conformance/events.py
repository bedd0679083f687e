"""Reading a recorded trace for validation: strictly, one event per line, every fault named.

``read_trace(path)`` takes a merged ``trace.jsonl`` or a run folder holding one, and returns a
``Trace``: the events that were valid, in file order, and the first fault, if any, as one line
naming the file and line (``TraceFault``). A trace with a fault is never judged as if it were
whole: the validator reports what it can of the valid prefix and the fault, and exits 2.

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

from . import schema

TRACE_FILE = "trace.jsonl"


class TraceFault(Exception):
    """Bad input: the message is one line naming the file and line."""


@dataclass
class Trace:
    """The valid events of one trace file (each given ``_line``, its 1-based line number) and the
    first fault, if the file had one."""

    path: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    fault: str | None = None

    @property
    def design(self) -> str | None:
        for e in self.events:
            if e.get("design"):
                return e["design"]
        return None


def trace_path(path: Path) -> Path:
    """The trace file of ``path``: itself, or a run folder's ``trace.jsonl``."""
    if path.is_dir():
        inner = path / TRACE_FILE
        if not inner.is_file():
            raise TraceFault(f"{path}: a folder without {TRACE_FILE}: not a recorded run")
        return inner
    if not path.is_file():
        raise TraceFault(f"{path}: no such file or folder")
    return path


def read_trace(path: Path, design: str | None = None) -> Trace:
    """Read ``path`` (a trace file or a run folder) up to its first fault. ``design`` overrides
    the design the events name (every event must then name it or none)."""
    path = trace_path(path)
    trace = Trace(path)
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
    last_zxid = -1
    last_zxid_line = 0
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
        if not isinstance(event, dict):
            trace.fault = where + "not a JSON object"
            return trace
        own = event.get("design")
        if own is not None and not isinstance(own, str):
            trace.fault = where + f"design: {own!r} is not a design name"
            return trace
        name = design or own
        if design and own and own != design:
            trace.fault = where + f"design {own!r}, but the trace is read as {design!r}"
            return trace
        if name:
            event["design"] = name
        problem = event_problem(event, where)
        if problem:
            trace.fault = problem
            return trace
        first = trace.design
        if own and first and own != first:
            trace.fault = where + f"design {own!r}, but the trace's events before it are {first!r}"
            return trace
        z = event["zxid"]
        if z is not None:
            if z <= last_zxid:
                trace.fault = where + (
                    f"zxid {z:#x} does not follow zxid {last_zxid:#x} of line {last_zxid_line}"
                )
                return trace
            last_zxid, last_zxid_line = z, n
        event["_line"] = n
        trace.events.append(event)
    if torn and trace.fault is None:
        trace.fault = f"{path}:{len(lines)}: the last line has no newline (a torn tail)"
    return trace


def event_problem(event: dict[str, Any], where: str) -> str | None:
    """The first thing wrong with one event, as one line, or None."""
    from replcheck.model import DESIGNS

    design = event.get("design")
    if design is not None and design not in DESIGNS:
        return where + f"unknown design {design!r} (replcheck list names them)"
    found = schema.problems(event, where)
    if found:
        return found[0]
    return None
