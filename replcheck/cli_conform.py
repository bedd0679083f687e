"""``replcheck conform``: Hypothesis draws runs of the real cluster, the model judges each one.

    replcheck conform --design D [--mutant M] [--profile ci|thorough] [--seed S] [--out DIR]

Each run is kept as a run folder under ``--out`` (``validate`` and ``replay`` open it); a failure
is shrunk, every shrink step a real run, and the smallest failing plan is printed as a pytest
test (also written to ``DIR/test_conform.py``); ``DIR/report.json`` has the numbers. Failures are
kept in Hypothesis's example database (``--database``, by default ``conform-db`` in the user's
cache folder, ``replcheck.paths``) and tried first the next time. Without ``--out`` the runs go to
a new folder in the cache folder, named on stderr: nothing is written in the current folder.

Exit status: ``replcheck.exits.COMMANDS["conform"]`` (``replcheck conform --help``, docs/gate.md).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog, for_signal
from replcheck.paths import cache_home, fresh_folder, where
from replcheck.paths import say as tell

DEFAULT_DB = "conform-db"
"""The example database without ``--database``: this folder in the cache folder."""
DEFAULT_OUT = "conform"
"""Without ``--out``: a new folder under this one in the cache folder."""


def add_commands(sub: Any) -> None:
    from replcheck.conformance.search.plan import PROFILES

    p = sub.add_parser(
        "conform",
        help="property-based conformance: Hypothesis drives the real cluster, the model judges",
        description="Draw runs of the reference cluster (writes, peer operations, faults aimed "
        "at protocol steps) with Hypothesis, judge each with the model and the end-state check, "
        "and shrink a failure to the smallest plan that still fails (docs/conform.md).",
        epilog=epilog("conform"),
    )
    p.add_argument("--design", required=True, help="zk-lock, zk-multi or table")
    p.add_argument("--mutant", help="a cluster mutant of the design, e.g. HBASE-12865")
    p.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    p.add_argument("--seed", type=int, default=0, help="Hypothesis's seed (default 0)")
    p.add_argument(
        "--out",
        help=f"a new or empty folder for the runs (default: a new folder in {where(DEFAULT_OUT)}, "
        "named on stderr)",
    )
    p.add_argument(
        "--database",
        help=f"Hypothesis's example database (default: {where(DEFAULT_DB)})",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_conform)


def check_database(path: Path) -> None:
    """Refuse (one line) a ``--database`` that is not a folder or cannot be written: Hypothesis
    would otherwise drop every failure it should keep for the next search without a word."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"--database {path}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--database {path}: cannot create: {exc.strerror or exc}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"--database {path}: cannot write: permission denied")


def cmd_conform(args: Any) -> int:
    from replcheck.conformance.cluster.lifeline import sigterm_as_interrupt
    from replcheck.conformance.cluster.outdir import OutDirError, check, claim
    from replcheck.conformance.hbase.names import DesignError, Steps

    name = args.design if not args.mutant else f"{args.design}/{args.mutant}"
    if args.mutant and "/" in args.mutant:
        name = args.mutant
    out = Path(args.out) if args.out else fresh_folder(DEFAULT_OUT)
    database = Path(args.database) if args.database else cache_home() / DEFAULT_DB
    try:
        Steps(name)
        check(out)
    except (DesignError, OutDirError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    check_database(database)
    try:
        with claim(out), sigterm_as_interrupt() as terminated:
            code = _search(args, name, out, database)
    except OutDirError as exc:  # taken by another run started at once, or not writable
        raise UsageError(str(exc)) from None
    if terminated and code == Exit.INTERRUPTED:
        return for_signal(terminated[0])
    return code


def _search(args: Any, name: str, out: Path, database: Path) -> int:
    """The search, in the folder ``cmd_conform`` took; returns the exit status."""
    from replcheck.conformance.search.conform import as_pytest, describe, search
    from replcheck.conformance.search.plan import PROFILES

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    profile = PROFILES[args.profile]
    if not args.out:
        tell("the runs are kept", out, "--out")
    say(
        f"conform: {name}, profile {profile.name} ({profile.examples} plans, "
        f"{profile.runs} runs at most), seed {args.seed}"
    )
    report = search(name, profile, out, seed=args.seed, database=database, progress=say)
    data = report.to_json()
    (out / "report.json").write_text(json.dumps(data, indent=2) + "\n")
    test = None
    if report.smallest is not None:
        test = as_pytest(name, report.smallest.plan, report.smallest.why)
        (out / "test_conform.py").write_text(test)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        n = len(report.outcomes)
        print(f"{name}: {n} runs, {data['failing_runs']} failing, {report.seconds:.0f}s")
        if report.first is not None and report.smallest is not None:
            print(f"first failing run: {report.first.run_dir} ({report.first.why})")
            print(f"  plan: {describe(report.first.plan)}")
            print(f"  size: {report.first.plan.size()}")
            print(f"smallest failing run: {report.smallest.run_dir} ({report.smallest.why})")
            print(f"  plan: {describe(report.smallest.plan)}")
            print(f"  size: {report.smallest.plan.size()}")
            if report.again is not None:
                again = "failed again" if not report.again.passed else "passed this time"
                print(f"  run again: {again} ({report.again.why})")
            print()
            print(test)
    if report.interrupted:
        print(f"conform: INTERRUPTED after {len(report.outcomes)} runs: the search is not complete")
        return Exit.INTERRUPTED
    if report.found:
        shrunk = " (shrinking stopped at the run budget)" if report.budget_hit else ""
        print(f"conform: FAIL: {name} left the model or lost data; shrunk plan above{shrunk}")
        return Exit.FAIL
    if report.errors:
        print(
            f"conform: UNDECIDED: {len(report.errors)} of {len(report.outcomes)} runs could not "
            "finish, so not every plan drawn was judged"
        )
        return Exit.UNDECIDED
    print(f"conform: PASS: no failure in {len(report.outcomes)} runs of {name}")
    return Exit.OK
