"""``replcheck convert``: a trace from JSON lines to Parquet and back (``trace_parquet``).

    replcheck convert IN OUT

IN is a trace file (``.jsonl`` or ``.parquet``) or a run folder holding one; OUT is the file to
write, its format named by its suffix. The trace is read with every check ``validate`` makes
(``reader.read_trace``, the one definition), and a trace with a fault (a torn tail, a bad line
or row, no event at all) is not converted: exit 2 with the fault's one line, and nothing
written, so that no converted trace silently lacks events. The output is written to a
temporary file beside OUT and put in its place at the end; on any error or interruption the
temporary file is removed and OUT is left as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog

SUFFIXES = (".jsonl", ".parquet")


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "convert",
        help="convert a trace between JSON lines and Parquet",
        description="Read a trace (a .jsonl or .parquet file, or a run folder) with validate's "
        "checks and write the same events to OUT, in the format its suffix names.",
        epilog=epilog("convert"),
    )
    p.add_argument("input", metavar="IN", help="a trace file or a run folder")
    p.add_argument("output", metavar="OUT", help="the file to write: *.jsonl or *.parquet")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from replcheck.conformance.trace import parquet as trace_parquet
    from replcheck.conformance.trace.reader import TraceFault, read_trace

    out = Path(args.output)
    if out.suffix not in SUFFIXES:
        raise UsageError(f"{out}: the output's suffix must be one of {', '.join(SUFFIXES)}")
    if not out.parent.is_dir():
        raise UsageError(f"{out}: no folder {out.parent} to write it in")
    if out.is_dir():
        raise UsageError(f"{out}: is a folder, not a file to write (nothing written)")
    try:
        trace = read_trace(Path(args.input))
    except TraceFault as exc:
        raise UsageError(str(exc)) from None
    if trace.fault is not None:
        raise UsageError(f"{trace.fault} (nothing written)")
    events = [{k: v for k, v in e.items() if not k.startswith("_")} for e in trace.events]
    try:
        if out.suffix == ".parquet":
            trace_parquet.write(events, out)
        else:
            with trace_parquet.writing(out) as tmp, open(tmp, "w", encoding="utf-8") as f:
                for e in events:
                    f.write(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n")
    except OSError as exc:
        raise UsageError(f"{out}: cannot write: {exc.strerror or exc} (nothing written)") from None
    sys.stdout.write(f"{out}: {len(events)} events from {trace.path}\n")
    return Exit.OK
