"""``replcheck validate``: replay recorded traces through the model (``conformance.validate``).

    replcheck validate PATH... [--design NAME] [--design-file PATH] [--hidden-depth N]
                       [--slack S] [--reorder N] [--lookahead N] [--max-nodes N]
                       [--engine default|plain] [--json] [--junit FILE] [--full]
    replcheck validate --zk-logs DIR... [--design NAME] ...

Each PATH is a trace file (``trace.jsonl``), a run folder holding one, or a folder of them, read
the way ``mine`` reads one (``conformance.mine.rows.discover``): every run folder and ZooKeeper
data directory under it, and the loose traces (``*.jsonl``, ``*.parquet``) directly in it, each
validated on its own (a data directory without a trace from its logs, as ``--zk-logs`` does); a
folder with none of them is bad input. With ``--zk-logs``, each
DIR is a run folder or a ZooKeeper data directory, validated from its transaction logs alone
(``conformance.txntrace``, docs/zklog.md): the ZooKeeper-era designs, ``zk-multi`` (HBase 2.x)
unless ``--design`` says otherwise. Every trace gets one
verdict: ``accepted``; ``rejected: divergence at event N``; ``rejected: <property> at event N``;
``undecided: ...`` (the search's node budget ran out, the trace has no action event, or some of
its events have no model counterpart); or ``bad input: <file>:<line>: ...``.

Exit status: ``replcheck.exits.COMMANDS["validate"]`` (``replcheck validate --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog


def _not_negative(kind: type) -> Any:
    """An argparse type: a number of ``kind`` (int or float), 0 or more."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value >= 0:
            raise argparse.ArgumentTypeError(f"must not be negative: {text}")
        return value

    return parse


_count = _not_negative(int)


def _slack(text: str) -> float:
    """An argparse type: a slack in seconds, from 0 to ``core.MAX_SLACK``."""
    from replcheck.conformance.validate.core import slack_problem

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    problem = slack_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(f"{text}: {problem.split(': ', 1)[1]}") from None
    return value


def add_commands(sub: Any) -> None:
    from replcheck.conformance.validate.core import MAX_SLACK, Bounds

    d = Bounds()
    p = sub.add_parser(
        "validate",
        help="replay recorded traces through the model: accepted, rejected, or undecided",
        description="Search, for each trace, a behaviour of the model that matches every event "
        "(docs/validate.md): storage events in zxid order, other events in the order of their "
        "process's thread, hidden model steps between events, every invariant and step property "
        "checked on the way.",
        epilog=epilog("validate"),
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="trace files, run folders, or folders of them (searched as mine searches them)",
    )
    p.add_argument(
        "--design",
        metavar="NAME",
        help="read the traces as this design (default: the design the events name)",
    )
    p.add_argument(
        "--design-file",
        action="append",
        metavar="PATH",
        help="load designs/mutants from a Python file first (repeatable); --design names the "
        "one to read the traces as, a design or mutant of the family that recorded them",
    )
    p.add_argument(
        "--hidden-depth",
        type=_count,
        default=d.hidden_depth,
        metavar="N",
        help=f"model steps no event records, at most this many between two events "
        f"(default: {d.hidden_depth})",
    )
    p.add_argument(
        "--slack",
        type=_slack,
        default=d.slack,
        metavar="S",
        help="an event may be matched before another process's event written up to S seconds "
        f"earlier, from 0 to {MAX_SLACK:g} (default: {d.slack})",
    )
    p.add_argument(
        "--reorder",
        type=_count,
        default=d.reorder,
        metavar="N",
        help=f"events matched ahead of an earlier one that fits, at most this many between two "
        f"advances (default: {d.reorder})",
    )
    p.add_argument(
        "--lookahead",
        type=_count,
        default=d.lookahead,
        metavar="N",
        help=f"later events matched while the earliest waits, at most (default: {d.lookahead})",
    )
    p.add_argument(
        "--max-nodes",
        type=_count,
        default=d.max_nodes,
        metavar="N",
        help=f"the search's budget per trace; past it the trace is undecided "
        f"(default: {d.max_nodes})",
    )
    p.add_argument(
        "--zk-logs",
        action="store_true",
        help="each PATH is a run folder or a ZooKeeper data directory: validate it from its "
        "transaction logs alone (design: --design, default zk-multi, HBase 2.x's)",
    )
    p.add_argument(
        "--engine",
        choices=("default", "plain"),
        default="default",
        help="the model's steps: the design's default (the protocol text on plain values, "
        "model/engine/plain.py, for a recorded run's configuration of either era), or the text on "
        "plain values whatever the configuration (docs/text.md)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per trace, as a list")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML, one case per trace")
    p.add_argument("--full", action="store_true", help="draw the states of a rejection in full")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from replcheck.conformance.validate.core import Bounds, validate_log, validate_path
    from replcheck.model import DESIGNS, load_design_file

    for path in args.design_file or []:
        load_design_file(path)
    if args.design and args.design not in DESIGNS:
        raise UsageError(f"unknown design {args.design!r} (replcheck list names them)")
    if args.junit:
        _check_writable(Path(args.junit))
    verdicts = []
    bounds = Bounds(
        hidden_depth=args.hidden_depth,
        max_nodes=args.max_nodes,
        slack=args.slack,
        reorder=args.reorder,
        lookahead=args.lookahead,
    )
    engine = None
    if args.engine == "plain":
        from replcheck.model.engine.plain import PlainModel

        engine = PlainModel
    units = [(Path(t), "zkdata") for t in args.paths] if args.zk_logs else expand(args.paths)
    for path, kind in units:
        if kind == "zkdata":
            v = validate_log(path, args.design or "zk-multi", bounds=bounds, engine=engine)
        else:
            v = validate_path(path, design=args.design, bounds=bounds, engine=engine)
        verdicts.append(v)
        if not args.json:
            sys.stdout.write(render_text(v, full=args.full) + "\n")
            sys.stdout.flush()
    if args.json:
        sys.stdout.write(json.dumps([as_json(v) for v in verdicts], indent=2) + "\n")
    if args.junit:
        Path(args.junit).write_text(render_junit(verdicts), encoding="utf-8")
    counts = {s: sum(1 for v in verdicts if v.status == s) for s in STATUSES}
    summary = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts[s] or s == "accepted")
    if counts["bad-input"]:
        status = Exit.BAD_INPUT
    elif counts["rejected"]:
        status = Exit.FAIL
    elif counts["undecided"]:
        status = Exit.UNDECIDED
    else:
        status = Exit.OK
    word = {
        Exit.OK: "PASS",
        Exit.FAIL: "FAIL",
        Exit.BAD_INPUT: "BAD INPUT",
        Exit.UNDECIDED: "UNDECIDED",
    }[status]
    if counts["undecided"] and status != Exit.BAD_INPUT:
        word += " (undecided is not a pass)"
    sys.stderr.write(f"validate: {word}: {len(verdicts)} traces: {summary}\n")
    return status


STATUSES = ("accepted", "rejected", "undecided", "bad-input")


def expand(paths: list[str]) -> list[tuple[Path, str]]:
    """What to validate for ``paths``, in order: ``(path, "run")`` for a trace file or a run
    folder, ``(path, "zkdata")`` for a ZooKeeper data directory without a trace (validated from
    its logs). A trace file, a run folder, a data directory or a missing path named on the
    command line is itself; any other folder is searched as ``mine`` searches it (a folder with
    nothing in it to validate is itself, and ``validate_path`` says why it is not a run)."""
    from replcheck.conformance.mine.rows import discover

    out: list[tuple[Path, str]] = []
    for text in paths:
        path = Path(text)
        if path.is_dir() and not any(path.glob("trace.*")):
            out += [
                (Path(u["path"]), "zkdata" if u["kind"] == "zkdata" else "run")
                for u in discover([text])
            ]
        else:
            out.append((path, "run"))
    return out


def _check_writable(path: Path) -> None:
    if path.is_dir():
        raise UsageError(f"--junit {path}: is a folder")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"--junit {path}: no folder {parent}")
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"--junit {path}: cannot write: {exc.strerror}") from None


def as_json(v: Any) -> dict[str, Any]:
    return {
        "path": v.path,
        "design": v.design,
        "verdict": v.headline(),
        "status": v.status,
        "reason": v.reason,
        "event": v.event,
        "matched": v.matched,
        "events": v.events,
        "actions": v.actions,
        "hidden_steps": v.hidden,
        "search_nodes": v.nodes,
        "seconds": round(v.seconds, 3),
        "unmodelled": v.unmodelled,
        "detail": v.detail,
    }


def render_text(v: Any, *, full: bool = False) -> str:
    """One line for an accepted trace; a rejection's report otherwise (docs/validate.md)."""
    stats = (
        f"{v.events} events, {v.actions} actions, {v.hidden} hidden steps, "
        f"{v.nodes} search nodes, {v.seconds:.1f} s"
    )
    if v.detail.get("from_txn_log"):
        stats += f"; {v.detail['from_txn_log']} from the ZooKeeper txn log"
    if v.detail.get("crashes_from_txn_log"):
        stats += f"; {v.detail['crashes_from_txn_log']} crashes timed by the ZooKeeper txn log"
    if v.detail.get("txn_log_checked"):
        full, checked = v.detail["txn_log_checked"]
        stats += f"; {checked} zxids found in the txn log, {full} of them as the very write"
    if v.detail.get("txn_log_unverified"):
        n = v.detail["txn_log_unverified"]
        stats += f"; {n} zxids not looked up (a damaged txn log)"
    if v.detail.get("writes_from_later_lines"):
        n = v.detail["writes_from_later_lines"]
        stats += f"; {n} unrecorded writes of killed servers read back from later lines"
    head = f"{v.path}: {v.headline()}"
    if v.status == "accepted":
        return f"{head} ({stats})"
    lines = [head]
    d = v.detail
    if v.status == "bad-input":
        if "prefix" in d:
            lines.append(f"  {d['prefix']}")
        return "\n".join(lines)
    lines.append(f"  ({stats})")
    if "prefix" in d:
        lines.append(f"  {d['prefix']}")
    if v.unmodelled:
        lines.append(f"  {len(v.unmodelled)} events have no model counterpart, e.g.:")
        for u in v.unmodelled[:5]:
            lines.append(f"    line {u['line']}: {u['why']}")
    last = d.get("last_matched")
    if last:
        z = f", zxid {last['zxid']:#x}" if last.get("zxid") is not None else ""
        at = f"line {last['line']}" if last.get("line") is not None else "an event read back"
        at += " from the ZooKeeper txn log" if last.get("line") is None else ""
        lines.append(f"  matched: every event up to {at} ({last['proc']}{z}): {last['text']}")
    if "event_text" in d:
        where = f"line {d['event_line']}" if d.get("event_line") is not None else f"event {v.event}"
        lines.append(f"  did not fit: {where}: {d['event_text']}")
    for line in d.get("storage_misfit") or ():
        lines.append(f"    {line}")
    if "txn_log" in d:
        lines.append(f"  {d['txn_log']}")
    if "action" in d:
        hidden = " (a hidden step)" if d.get("hidden") else ""
        broken = d.get("prefix_reason", v.reason)
        lines.append(f"  the step that breaks {broken}: {d['action']}{hidden}")
    if "frontier" in d:
        lines.append(f"  frontier: {d['frontier']} candidate states of the model")
        for i, s in enumerate(d.get("samples", []), 1):
            lines.append(f"  candidate {i}:")
            if s.get("observation"):
                lines.append(f"    the model disagrees: {s['observation']}")
            if s.get("wanted"):
                lines.append(f"    the event maps to: {'; or '.join(s['wanted'])}")
            if s.get("disagrees"):
                lines.append(f"    the model's step disagrees with the event: {s['disagrees']}")
            if s.get("not_enabled"):
                lines.append(f"    not enabled: {s['not_enabled']}; {s.get('guard', '')}")
            if s.get("closest"):
                lines.append(f"    closest enabled: {', '.join(s['closest'])}")
            shown = ", ".join(s.get("enabled", [])[:12])
            more = s.get("enabled_count", 0) - min(12, len(s.get("enabled", [])))
            lines.append(f"    the model allows: {shown}{f' (+{more} more)' if more > 0 else ''}")
    if "diff" in d:
        lines.append("  what the step changed:")
        lines.extend("    " + x for x in d["diff"].splitlines())
    if "before" in d:
        state = d["before"].splitlines()
        limit = None if full else 40
        lines.append("  the state before it:" if "diff" in d else "  the state reached:")
        lines.extend("    " + x for x in state[:limit])
        if limit is not None and len(state) > limit:
            lines.append(f"    ... ({len(state) - limit} more lines; --full draws them)")
    return "\n".join(lines)


def render_junit(verdicts: list[Any]) -> str:
    suite = ET.Element(
        "testsuite",
        name="replcheck validate",
        tests=str(len(verdicts)),
        failures=str(sum(1 for v in verdicts if v.status in ("rejected", "undecided"))),
        errors=str(sum(1 for v in verdicts if v.status == "bad-input")),
        time=f"{sum(v.seconds for v in verdicts):.3f}",
    )
    for v in verdicts:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"validate.{v.design}",
            name=v.path,
            time=f"{v.seconds:.3f}",
        )
        if v.status == "bad-input":
            ET.SubElement(case, "error", message=v.headline())
        elif v.status != "accepted":
            fail = ET.SubElement(case, "failure", message=v.headline())
            fail.text = render_text(v)
    return ET.tostring(suite, encoding="unicode") + "\n"
