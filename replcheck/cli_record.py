"""``replcheck record``: run the reference cluster on a real ZooKeeper, with faults, and record
traces (``replcheck.conformance``).

    replcheck record [--design NAME] [--runs N] [--faults kill,pause,...] [--seed S] [--out DIR]
                     [--servers N] [--edits N] [--rate R] [--no-master-master] [--json]

``--out`` must be a new or empty folder: a recording never reads, merges or overwrites an earlier
one's files (reusing a folder is refused before anything starts). Every process a run starts is
tethered to the command: killed with it even by SIGKILL
(``replcheck.conformance.cluster.lifeline``); ``replcheck zk stop --dir OUT`` clears whatever a dead
recording left where that is not available.

Each run's trace is also replayed through the model (``replcheck validate``): its verdict is
``conformance`` in ``verdict.json`` and summed in ``summary.json``.

Exit status: ``replcheck.exits.COMMANDS["record"]`` (``replcheck record --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog, for_signal
from replcheck.paths import fresh_folder, say, where

DEFAULT_OUT = "record"
"""Where ``record`` writes without ``--out``: a new folder under this one in the cache folder."""


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {n}")
    return n


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _rate(text: str) -> float:
    try:
        r = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < r <= 1000:
        raise argparse.ArgumentTypeError(f"must be in (0, 1000]: {r}")
    return r


def add_commands(sub: Any) -> None:
    """Add the ``record`` subcommand to the ``replcheck`` subparsers ``sub``."""
    from replcheck.conformance.cluster.limits import HELP as SERVERS_HELP
    from replcheck.conformance.cluster.run import FAULT_KINDS
    from replcheck.conformance.hbase.names import DESIGNS, SUPPORTED_MUTANTS

    p = sub.add_parser(
        "record",
        help="run the reference cluster on a real ZooKeeper with faults and record traces",
        description="Run a master, region servers and sink clusters as real processes on an "
        "embedded ZooKeeper, drive a workload, inject faults, and write one folder per run: "
        "the merged trace, the end-state verdict, the ZooKeeper transaction logs and the "
        "processes' logs.",
        epilog=f"Designs: {', '.join(DESIGNS)}; mutants: {', '.join(SUPPORTED_MUTANTS)}. "
        f"Faults: {', '.join(FAULT_KINDS)}. The reference cluster implements only these "
        "built-in designs, so record takes no --design-file. " + epilog("record"),
    )
    p.add_argument("--design", default="zk-multi", metavar="NAME", help="default: zk-multi")
    p.add_argument("--runs", type=_positive, default=1, metavar="N", help="default: 1")
    p.add_argument(
        "--faults",
        default="",
        metavar="LIST",
        help=f"comma-separated, each once per run (named once): {','.join(FAULT_KINDS)} "
        "(default: none)",
    )
    p.add_argument("--seed", type=_seed, default=0, metavar="S", help="first run's seed")
    p.add_argument(
        "--out",
        metavar="DIR",
        help=f"a new or empty folder; a used one is refused (default: a new folder in "
        f"{where(DEFAULT_OUT)}, named on stderr)",
    )
    p.add_argument("--servers", type=_positive, default=3, metavar="N", help=SERVERS_HELP)
    p.add_argument(
        "--edits", type=_positive, default=40, metavar="N", help="edits per region server"
    )
    p.add_argument("--rate", type=_rate, default=10.0, metavar="R", help="edits/s per server")
    p.add_argument(
        "--no-master-master",
        action="store_true",
        help="cluster 1 does not replicate back into cluster 0",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.add_argument(
        "--design-file",
        action="append",
        metavar="PATH",
        help="does not apply: the reference cluster implements only the built-in designs and "
        "mutants listed below (a design file is for check, explore, fuzz, show, dump, list and "
        "prove)",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from replcheck.conformance.cluster.limits import max_servers
    from replcheck.conformance.cluster.outdir import OutDirError
    from replcheck.conformance.cluster.record import (
        Terminated,
        check_design,
        check_out,
        parse_faults,
        record,
    )
    from replcheck.conformance.cluster.run import RunSpec
    from replcheck.conformance.hbase.names import DesignError

    if args.design_file:
        raise UsageError(
            "--design-file does not apply to record: the reference cluster implements only its "
            "built-in designs and mutants (see replcheck record --help); check, explore, fuzz, "
            "show, dump, list and prove take design files"
        )
    try:
        check_design(args.design)
        faults = parse_faults(args.faults)
    except (DesignError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.servers < 2 and any(f in faults for f in ("kill", "pause", "expire")):
        raise UsageError("--servers: a region-server fault needs at least 2 servers")
    limit = max_servers()
    if args.servers > limit.servers:
        raise UsageError(
            f"--servers {args.servers}: this machine holds at most {limit.servers} region "
            f"servers ({limit.why})"
        )
    out = Path(args.out) if args.out else fresh_folder(DEFAULT_OUT)
    if not args.out:
        say("the runs are recorded", out, "--out")
    try:
        check_out(out)  # before anything starts: never merge into an earlier recording
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    spec = RunSpec(
        design=args.design,
        seed=args.seed,
        servers=args.servers,
        edits=args.edits,
        rate=args.rate,
        faults=faults,
        master_master=not args.no_master_master,
    )
    try:
        results = record(spec, args.runs, out)
    except OutDirError as exc:  # not writable, or taken by another run started at once
        raise UsageError(str(exc)) from None
    except (KeyboardInterrupt, Terminated) as exc:
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        name = signal.Signals(signum).name
        print(
            f"replcheck: interrupted by {name}: a partial recording, not a verdict; the runs "
            f"that finished are summed up in {out / 'summary.json'}",
            file=sys.stderr,
        )
        return for_signal(signum)
    except Exception as exc:  # ZooKeeper or a process could not start: one line
        print(f"replcheck: error: cluster failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return Exit.INTERNAL
    summary = json.loads((out / "summary.json").read_text())
    t = summary["totals"]
    incomplete = summary.get("incomplete_traces", 0)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(
            f"{args.design}: {len(results)} run(s), {summary['failed_runs']} with violations, "
            f"{incomplete} with an incomplete trace; "
            f"{t.get('edits_written', 0)} edits, {t.get('delivered', 0)}/"
            f"{t.get('owed_deliveries', 0)} owed deliveries, {t.get('lost', 0)} lost, "
            f"{t.get('duplicates', 0)} duplicates, {t.get('shipped_local', 0)} LOCAL/catalog "
            f"shipped, {t.get('returned_to_origin', 0)} looped back, "
            f"{t.get('premature_deletions', 0)} premature deletions; faults "
            f"{summary['faults']}; conformance {summary.get('conformance', {})}; output in {out}"
        )
    conformance = summary.get("conformance", {})
    if summary["failed_runs"]:
        return Exit.FAIL
    if conformance.get("rejected"):
        print(
            f"replcheck: FAIL: the model rejects {conformance['rejected']} run(s) "
            "(conformance in verdict.json; replcheck validate RUN shows why)",
            file=sys.stderr,
        )
        return Exit.FAIL
    if incomplete:
        print(
            f"replcheck: PARTIAL: {incomplete} run(s) with a torn trace line: their verdict is "
            "not a clean one (see torn_lines in verdict.json)",
            file=sys.stderr,
        )
        return Exit.UNDECIDED
    undecided = sum(n for k, n in conformance.items() if k not in ("accepted", "rejected"))
    if undecided:
        print(
            f"replcheck: PARTIAL: {undecided} run(s) the model could not judge (conformance "
            "undecided: see verdict.json; replcheck validate RUN shows why): not a pass",
            file=sys.stderr,
        )
        return Exit.UNDECIDED
    return Exit.OK
