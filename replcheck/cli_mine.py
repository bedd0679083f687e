"""``replcheck mine``: judge and measure many recorded runs with Spark (docs/mine.md).

    replcheck mine PATH... [--master URL] [--out DIR] [--partitions N] [--json]
    replcheck mine --package DIR

Each PATH is a run folder, a trace file, a raw ZooKeeper data directory, or a folder of them.
Every run gets exactly the verdict ``replcheck validate`` gives it alone; the job also writes
Parquet tables (``runs``, ``violations``, ``coverage``, ``races``, ``latencies``,
``quarantine``), ``summary.json`` and a self-contained ``index.html`` to ``--out``. A corrupt or
unreadable input is quarantined with its reason and file:line or file:offset; the other runs are
mined. ``--package DIR`` only writes what ``spark-submit`` needs (docs/mine.md): the zip of the
project's packages for ``--py-files`` and the entry script ``mine_submit.py``.

Exit status: ``replcheck.exits.COMMANDS["mine"]`` (``replcheck mine --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.cli_record import _positive
from replcheck.exits import Exit, epilog, for_signal
from replcheck.paths import fresh_folder, say, where

DEFAULT_OUT = "mine"
"""Without ``--out``: a new folder under this one in the cache folder."""


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "mine",
        help="mine many recorded runs with Spark: verdicts, coverage, races, latencies",
        description="Judge every run as `replcheck validate` does, in Spark's executors, and "
        "sum verdicts, violations, coverage of the model's actions, claim races and latencies "
        "into Parquet tables and an HTML summary (docs/mine.md).",
        epilog=epilog("mine"),
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="run folders, traces, or folders")
    p.add_argument(
        "--master",
        metavar="URL",
        help="Spark master (default: local[*], embedded); e.g. spark://127.0.0.1:7077",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="a new or empty folder for the tables and the summary (default: a new folder in "
        f"{where(DEFAULT_OUT)}, named on stderr)",
    )
    p.add_argument(
        "--partitions",
        type=_positive,
        metavar="N",
        help="Spark partitions (default: about four per core, at most one per run)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--package",
        metavar="DIR",
        help="write DIR/replcheck.zip (for spark-submit --py-files) and DIR/mine_submit.py "
        "(its entry point), and stop",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if args.package:
        from replcheck.conformance.mine.job import write_package

        dest = Path(args.package)
        if dest.exists() and not dest.is_dir():
            raise UsageError(f"--package {dest}: not a folder")
        try:
            for f in write_package(dest):
                sys.stdout.write(f"{f}\n")
        except OSError as exc:
            raise UsageError(f"--package {dest}: cannot write: {exc.strerror}") from None
        return Exit.OK
    if not args.paths:
        raise UsageError("mine: give at least one PATH (or --package DIR)")
    _check_paths(args.paths)
    if args.master:
        _check_master(args.master)
    out = Path(args.out) if args.out else fresh_folder(DEFAULT_OUT)
    from replcheck.conformance.cluster.lifeline import sigterm_as_interrupt
    from replcheck.conformance.cluster.outdir import OutDirError, claim

    try:
        with claim(out), sigterm_as_interrupt() as terminated:
            if not args.out:
                say("the tables and the summary are written", out, "--out")
            code = _mine(args, out)
    except OutDirError as exc:  # not writable, not empty, or taken by another run at once
        raise UsageError(str(exc)) from None
    if terminated and code == Exit.INTERRUPTED:
        return for_signal(terminated[0])
    return code


def _mine(args: argparse.Namespace, out: Path) -> int:
    """The job, in the folder ``_run`` took; returns the exit status."""
    from replcheck.conformance.mine.job import SPARK_LOG, MasterError, run_job

    def progress(r: dict[str, Any]) -> None:
        if not args.json:
            row = r["runs"]
            sys.stderr.write(f"  {row['run']}: {row['verdict']}\n")

    try:
        summary = run_job(
            args.paths, out, master=args.master, partitions=args.partitions, on_run=progress
        )
    except KeyboardInterrupt:
        sys.stderr.write("replcheck: mine interrupted before anything was mined\n")
        return Exit.INTERRUPTED
    except MasterError as exc:  # the master named by --master does not answer
        raise UsageError(str(exc)) from None
    except Exception as exc:  # Spark could not start
        if type(exc).__name__ in (
            "Py4JError",
            "Py4JJavaError",
            "PySparkRuntimeError",
            "Py4JNetworkError",
        ):
            why = " ".join(str(exc).split())[:200]
            log = out / SPARK_LOG
            raise UsageError(f"mine: Spark failed (its output: {log}): {why}") from None
        raise
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        sys.stdout.write(render_summary(summary, out) + "\n")
    code = exit_status(summary)
    sys.stderr.write(f"mine: {_word(code, summary)}\n")
    return code


def _check_paths(paths: list[str]) -> None:
    """Refuse, before Spark starts, a PATH that does not exist or a folder with nothing to
    mine in it (a run folder, a trace or a ZooKeeper data directory that cannot be read is
    mined: it is quarantined with its reason)."""
    from replcheck.conformance.mine.rows import discover

    for text in paths:
        path = Path(text)
        if not path.exists():
            raise UsageError(f"{text}: no such file or folder")
        alone = [{"path": str(path), "kind": "run"}]
        if path.is_dir() and not (path / "trace.jsonl").exists() and discover([text]) == alone:
            raise UsageError(
                f"{text or '.'}: no run folder, trace or ZooKeeper data directory in this folder"
            )


def _check_master(master: str) -> None:
    """Refuse, before Spark starts, a ``--master`` that names no master Spark knows, or a
    standalone master (``spark://HOST:PORT``) that does not answer on its port: Spark would
    otherwise print pages of Java stack traces and retry for a minute."""
    from replcheck.conformance.mine.job import MasterError, check_master

    try:
        check_master(master)
    except MasterError as exc:
        raise UsageError(str(exc)) from None


def exit_status(summary: dict[str, Any]) -> int:
    """0 all accepted; 1 some rejected, or nothing mined; 2 some input quarantined; 4 none
    rejected but some undecided; 130 when the job was interrupted (never a pass)."""
    st = summary["status"]
    if summary["interrupted"]:
        return Exit.INTERRUPTED
    if st["bad-input"] or summary["quarantine"]:
        return Exit.BAD_INPUT
    if st["rejected"] or not summary["mined"]:
        return Exit.FAIL
    if st["undecided"]:
        return Exit.UNDECIDED
    return Exit.OK


def _word(code: int, summary: dict[str, Any]) -> str:
    st = summary["status"]
    counts = ", ".join(f"{n} {s}" for s, n in st.items())
    word = {
        Exit.OK: "PASS",
        Exit.FAIL: "FAIL",
        Exit.BAD_INPUT: "BAD INPUT",
        Exit.UNDECIDED: "UNDECIDED",
        Exit.INTERRUPTED: "INTERRUPTED (not a pass)",
    }[code]
    if st["undecided"] and code in (Exit.FAIL, Exit.BAD_INPUT, Exit.UNDECIDED):
        word += " (undecided is not a pass)"
    return f"{word}: {summary['mined']} of {summary['planned']} runs: {counts}"


def render_summary(summary: dict[str, Any], out: Path) -> str:
    """The summary as text: verdicts, violations, never-exercised actions, races, latencies,
    the quarantine, and where the tables are."""
    lines = [
        f"mined {summary['mined']} of {summary['planned']} runs, {summary['events']} events "
        f"({summary['master']}, {summary['partitions']} partitions; Spark start-up "
        f"{summary['seconds']['startup']} s, mining {summary['seconds']['mining']} s)",
        "verdicts: " + ", ".join(f"{n} {s}" for s, n in summary["status"].items()),
    ]
    for design, counts in summary["designs"].items():
        lines.append(f"  {design}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    if summary["violations"]:
        lines.append(
            "violations: " + ", ".join(f"{p} {n}" for p, n in sorted(summary["violations"].items()))
        )
    for design, never in summary["never_exercised"].items():
        lines.append(f"never exercised in {design}: {', '.join(never) or 'none'}")
    lines.append("races: " + ", ".join(f"{k} {v}" for k, v in summary["races"].items()))
    for metric, q in summary["latencies"].items():
        lines.append(f"{metric}: " + ", ".join(f"{k} {v}" for k, v in q.items()))
    for q in summary["quarantine"]:
        lines.append(f"quarantined: {q['reason']}")
    lines.append(f"tables and summary: {out}/ (index.html)")
    return "\n".join(lines)


def submit_main(argv: list[str] | None = None) -> int:
    """The ``spark-submit`` entry point: the same job as ``replcheck mine``."""
    from replcheck.conformance.mine.job import run_job

    p = argparse.ArgumentParser(
        prog="mine_submit.py", description="The Spark job of replcheck mine (spark-submit)."
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--partitions", type=int, default=None, metavar="N")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = run_job(args.paths, out, partitions=args.partitions)
    sys.stdout.write(render_summary(summary, out) + "\n")
    return exit_status(summary)
