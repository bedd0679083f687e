"""``replcheck zk``: start, stop and query an embedded ZooKeeper
(``replcheck.conformance.zookeeper.server``).

    replcheck zk start  [--dir DIR] [--servers N] [--base-port PORT] [--timeout SECONDS]
    replcheck zk status [--dir DIR] [--json]
    replcheck zk stop   [--dir DIR]

``start`` launches the servers as processes of their own session, so they outlive the command,
waits until they serve and prints the connect string; ``stop`` stops every server of the run in
``DIR`` (default ``zk`` in the user's cache folder, ``replcheck.paths``) by its pid, and clears
whatever a dead ``replcheck record`` left under ``DIR`` (give its ``--out`` folder): ZooKeeper
servers and region servers (paused ones too), sinks and masters whose command line names a path
under ``DIR``; ``status`` prints one row per server.

Exit status: ``replcheck.exits.COMMANDS["zk"]`` (``replcheck zk --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog
from replcheck.paths import cache_home, say, where

DEFAULT_DIR = "zk"
"""The run folder without ``--dir``: this one in the cache folder, the same for every action."""


def _servers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 1 or n % 2 == 0:
        raise argparse.ArgumentTypeError(f"must be a positive odd number (1, 3, 5, ...), not {n}")
    return n


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1024 <= n <= 65000:
        raise argparse.ArgumentTypeError(f"must be between 1024 and 65000, not {n}")
    return n


def _seconds(text: str) -> float:
    try:
        n = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not n > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return n


def add_commands(sub: Any) -> None:
    """Add the ``zk`` subcommand to the ``replcheck`` subparsers ``sub``."""
    p = sub.add_parser(
        "zk",
        help="start, stop or query an embedded ZooKeeper (from the pyspark jars)",
        description="Start, stop or query an embedded ZooKeeper run from the jars that the "
        "pyspark wheel ships: standalone, or an ensemble on loopback.",
        epilog=epilog("zk"),
    )
    p.add_argument(
        "action",
        choices=("start", "stop", "status"),
        help="what to do; stop also clears every process a dead `replcheck record` left under "
        "--dir (its --out folder): ZooKeeper, region servers, paused ones too, sinks, master",
    )
    p.add_argument(
        "--dir",
        metavar="DIR",
        help=f"run folder; the servers' files go in DIR/zk (default: {where(DEFAULT_DIR)}, "
        "named on stderr)",
    )
    p.add_argument(
        "--servers",
        type=_servers,
        default=1,
        metavar="N",
        help="start: 1 for standalone, or an odd ensemble size (default: 1)",
    )
    p.add_argument(
        "--base-port",
        type=_port,
        metavar="PORT",
        help="start: server i uses PORT+3(i-1) (client) and the next two (quorum, election); "
        "default: free ports",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help="start: how long to wait for the servers to serve (default: 60)",
    )
    p.add_argument("--json", action="store_true", help="status: print JSON")
    p.add_argument(
        "--design-file",
        action="append",
        metavar="PATH",
        help="does not apply: zk runs ZooKeeper alone, no design",
    )
    p.set_defaults(func=cmd_zk)


def cmd_zk(args: argparse.Namespace) -> int:
    """Run ``replcheck zk ACTION``; returns the exit status."""
    from replcheck.conformance.zookeeper.server import Ensemble, ZkError

    if args.design_file:
        raise UsageError("--design-file does not apply to zk: it runs ZooKeeper alone, no design")
    run_dir = Path(args.dir) if args.dir else cache_home() / DEFAULT_DIR
    if not args.dir and args.action == "start":
        say("ZooKeeper's run folder", run_dir, "--dir")
    if args.action == "stop":
        return _stop(run_dir)
    try:
        if args.action == "start":
            return _start(run_dir, args)
        ensemble = Ensemble.attach(run_dir)
    except ZkError as exc:
        raise UsageError(str(exc)) from None
    return _status(ensemble, as_json=args.json)


def _stop(run_dir: Path) -> int:
    """Stop the ZooKeeper of ``run_dir``, then clear every process a dead run left under it (a
    ``replcheck record --out`` folder or one run's folder: its ZooKeeper, region servers, paused
    ones included, sinks and master), each by its pid."""
    from replcheck.conformance.cluster.lifeline import clear
    from replcheck.conformance.zookeeper.server import Ensemble, ZkError

    if not run_dir.is_dir():
        raise UsageError(f"no ZooKeeper run in {run_dir}: no such folder")
    stopped = False
    try:
        Ensemble.attach(run_dir).stop()
        stopped = True
    except ZkError as exc:
        if "no ZooKeeper run" not in str(exc):
            sys.stderr.write(f"replcheck: error: {exc}\n")
            return Exit.FAIL
    cleared = clear(run_dir)
    if stopped:
        print(f"stopped ZooKeeper in {run_dir}")
    if cleared:
        pids = ", ".join(map(str, cleared))
        print(f"cleared {len(cleared)} leftover process(es) of a dead run in {run_dir}: {pids}")
    if not stopped and not cleared:
        raise UsageError(f"no ZooKeeper run in {run_dir}, and no process left over under it")
    return Exit.OK


def _start(run_dir: Path, args: argparse.Namespace) -> int:
    from replcheck.conformance.zookeeper.server import Ensemble, ZkError

    with_state = (run_dir / "zk" / "ensemble.json").is_file()
    if with_state:
        previous = Ensemble.attach(run_dir)
        running = [s.id for s in previous.status() if s.alive]
        if running:
            raise UsageError(
                f"ZooKeeper already running in {run_dir} ({previous.connect_string}); stop it first"
            )
    try:
        ensemble = Ensemble(run_dir, servers=args.servers, base_port=args.base_port)
    except ZkError as exc:
        raise UsageError(str(exc)) from None
    try:
        ensemble.start(timeout=args.timeout, detach=True)
    except ZkError as exc:
        sys.stderr.write(f"replcheck: error: {exc}\n")
        return Exit.FAIL
    print(ensemble.connect_string)
    return Exit.OK


def _status(ensemble: Any, *, as_json: bool) -> int:
    statuses = ensemble.status()
    serving = ensemble.serving()
    if as_json:
        doc = {
            "connect_string": ensemble.connect_string,
            "serving": serving,
            "leader": ensemble.leader(),
            "servers": [
                {
                    "id": s.id,
                    "client_port": s.client_port,
                    "pid": s.pid,
                    "alive": s.alive,
                    "mode": s.mode,
                    "zxid": s.zxid,
                }
                for s in statuses
            ],
        }
        print(json.dumps(doc, indent=2))
    else:
        rows = [("id", "port", "pid", "mode", "zxid")]
        for s in statuses:
            mode = s.mode or ("not serving" if s.alive else "stopped")
            zxid = f"0x{s.zxid:x}" if s.zxid is not None else "-"
            rows.append((str(s.id), str(s.client_port), str(s.pid or "-"), mode, zxid))
        widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
        for row in rows:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        print(f"{'serving' if serving else 'not serving'}: {ensemble.connect_string}")
    return Exit.OK if serving else Exit.FAIL
