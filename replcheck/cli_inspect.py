"""``replcheck inspect``: read a cluster's replication znodes, draw them, judge them; never write.

    replcheck inspect --zk HOST:PORT [--chroot /hbase] [--layout L] [--format F] [--json]
    replcheck inspect --snapshot FILE [--logs DIR] [...]
    replcheck inspect --data-dir DIR [...]

``--zk`` reads a live ZooKeeper (``get`` and ``get_children`` only, repeated until two reads
agree: one consistent state); ``--snapshot`` reads a snapshot file, with the transactions of the
logs in ``--logs`` after it applied; ``--data-dir`` a ZooKeeper data directory (its newest
snapshot and the logs after it). ``--chroot`` is the znode parent (HBase's
``zookeeper.znode.parent``). The drawing: ``tree`` (seed 000's znode tree), ``znodes``
(DumpReplicationQueues), ``distributed`` (DumpReplicationQueues ``--distributed``) or ``all``;
then the checks (``docs/inspect.md``). Every text printed is escaped by one function
(``conformance.zookeeper.escape.printable``): a control or bidirectional character in a znode
name or value reaches the terminal as its escape.

Exit status: ``replcheck.exits.COMMANDS["inspect"]`` (``replcheck inspect --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog

CONNECT_TIMEOUT = 10.0


def add_commands(sub: Any) -> None:
    from replcheck.conformance.inspect.view import LAYOUTS

    p = sub.add_parser(
        "inspect",
        help="draw and check a cluster's replication znodes (live or offline), read-only",
        description="Read a cluster's replication znodes from a live ZooKeeper or from a "
        "snapshot and logs, draw them as seed 000 and DumpReplicationQueues do, and check what "
        "one consistent snapshot can judge. Never writes (docs/inspect.md).",
        epilog=epilog("inspect"),
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--zk", metavar="HOST:PORT", help="a live ZooKeeper (connect string)")
    src.add_argument("--snapshot", metavar="FILE", help="a ZooKeeper snapshot file")
    src.add_argument("--data-dir", metavar="DIR", help="a ZooKeeper data directory")
    p.add_argument("--logs", metavar="DIR", help="with --snapshot: transaction logs to apply")
    p.add_argument(
        "--chroot", default="/hbase", metavar="PATH", help="the znode parent (default /hbase)"
    )
    p.add_argument("--layout", choices=LAYOUTS, default="auto", help="default: told by the tree")
    p.add_argument(
        "--format", choices=("tree", "znodes", "distributed", "all"), default="tree",
        help="the drawing (default: tree)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true", help="the view and findings as one JSON object")
    p.set_defaults(func=_run)


def read_view(args: argparse.Namespace) -> Any:
    """The :class:`ReplicationView` the arguments name, and (live) the session id used."""
    from replcheck.conformance.inspect.view import (
        InspectError,
        build_view,
        read_data_dir,
        read_snapshot_logs,
    )

    base = "/" + args.chroot.strip("/")
    if base == "/":
        raise UsageError("--chroot: give the znode parent, such as /hbase")
    if args.logs is not None and args.snapshot is None:
        raise UsageError("--logs: only with --snapshot")
    if args.zk is not None and not args.zk.strip():
        raise UsageError("--zk: give HOST:PORT")
    try:
        if args.zk is not None:
            nodes, consistent, session = _read_zk(args.zk, base)
            view = build_view(nodes, base, args.layout)
            view.consistent, view.source = consistent, f"ZooKeeper {args.zk}"
            view.session = session
            return view
        if args.snapshot is not None:
            nodes, zxid = read_snapshot_logs(args.snapshot, args.logs, base)
            where = args.snapshot + (f" + {args.logs}" if args.logs else "")
        else:
            nodes, zxid = read_data_dir(args.data_dir, base)
            where = args.data_dir
        view = build_view(nodes, base, args.layout)
        view.zxid, view.source = zxid, where
        return view
    except InspectError as exc:
        from replcheck.conformance.zookeeper.escape import printable

        raise UsageError(printable(str(exc))) from None


def _read_zk(hosts: str, base: str) -> tuple[Any, bool, int]:
    from kazoo.client import KazooClient
    from kazoo.exceptions import KazooException
    from kazoo.handlers.threading import KazooTimeoutError

    from replcheck.conformance.inspect.view import read_live

    try:
        zk = KazooClient(hosts=hosts, timeout=CONNECT_TIMEOUT, connection_retry={"max_tries": 2})
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--zk {hosts}: {exc}") from None
    try:
        zk.start(timeout=CONNECT_TIMEOUT)
    except KazooTimeoutError:
        zk.stop()
        zk.close()
        raise UsageError(f"--zk {hosts}: cannot reach ZooKeeper") from None
    try:
        nodes, consistent = read_live(zk, base)
        return nodes, consistent, zk.client_id[0]
    except KazooException as exc:
        raise UsageError(f"--zk {hosts}: reading failed: {type(exc).__name__}: {exc}") from None
    finally:
        zk.stop()
        zk.close()


def _run(args: argparse.Namespace) -> int:
    from replcheck.conformance.inspect.checks import VIOLATION, check
    from replcheck.conformance.inspect.render import (
        dumps,
        render_distributed,
        render_findings,
        render_tree,
        render_znodes,
    )
    from replcheck.conformance.zookeeper.escape import printable

    view = read_view(args)
    findings = check(view)
    out = sys.stdout
    if args.json:
        out.write(dumps(view, findings) + "\n")
    else:
        parts = []
        if args.format in ("tree", "all"):
            parts.append(render_tree(view))
        if args.format in ("znodes", "all"):
            parts.append(render_znodes(view))
        if args.format in ("distributed", "all"):
            parts.append(render_distributed(view))
        parts.append(render_findings(findings))
        out.write("\n\n".join(parts) + "\n")
    bad = sum(f.severity == VIOLATION for f in findings)
    warn = len(findings) - bad
    at = f" at zxid {view.zxid:#x}" if view.zxid is not None else ""
    note = "" if view.consistent else " (the tree kept changing: the last read is shown)"
    sys.stderr.write(
        printable(
            f"inspect: {'FAIL' if bad else 'PASS'}: {bad} violation(s), {warn} warning(s); "
            f"layout {view.layout}; {view.source}{at}{note}"
        )
        + "\n"
    )
    return Exit.FAIL if bad else Exit.OK
