"""Transaction-log parse throughput: our reader against ZooKeeper's TxnLogToolkit, same file.

    python bench/zklog_speed.py generate [--dir DIR] [--txns N]   # a real ZooKeeper writes the log
    python bench/zklog_speed.py read LOG                          # our reader: decode + checksums
    python bench/zklog_speed.py print LOG                         # our CLI's text, to /dev/null
    python bench/zklog_speed.py toolkit-cmd LOG                   # the TxnLogToolkit command line
    python bench/zklog_speed.py compare [--dir DIR]               # generate if needed, time both

``generate`` starts a standalone ZooKeeper (from the pyspark jars) with a snapCount large enough
that every transaction lands in one log file, and drives it with kazoo, pipelined: creates (60%),
setData (25%), deletes (10%) and multis (5%), plus the session's createSession, until the log holds
N transactions (default 100,000). It reuses a log already in DIR. ``read`` decodes every
transaction (header, record, every op of every multi, digest) and checks every checksum, in
constant memory; ``compare`` times ``read`` and TxnLogToolkit in turn, in-process wall clock. Time
them as whole processes too, side by side (for example ``/usr/bin/time -v`` or hyperfine, with
the command ``toolkit-cmd`` prints); ``bench/results/zklog.md`` has the figures.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DIR = Path(tempfile.gettempdir()) / "replcheck-zklog-bench"


def _log_in(folder: Path) -> Path | None:
    from replcheck.conformance.zookeeper.txnlog import ZkLogError, log_files

    try:
        return log_files(folder)[-1]
    except ZkLogError:
        return None


def generate(folder: Path, txns: int) -> Path:
    """A log file of at least ``txns`` transactions written by a real ZooKeeper (reused if one
    is in ``folder`` already)."""
    from kazoo.client import KazooClient
    from replcheck.conformance.zookeeper.server import Ensemble
    from replcheck.conformance.zookeeper.txnlog import read_log

    found = _log_in(folder / "zk" / "1")
    if found is not None and sum(1 for _ in read_log(found)) >= txns:
        return found
    props = {"zookeeper.snapCount": str(10 * txns)}
    rng = random.Random(14)
    with Ensemble(folder, system_properties=props) as zk:
        c = KazooClient(hosts=zk.connect_string, timeout=30.0)
        c.start(timeout=60)
        live: list[str] = []
        pending = []
        written = 1  # createSession
        n = 0
        while written < txns:
            kind = rng.random()
            value = os.urandom(rng.randint(10, 100))
            if kind < 0.25 and live:
                pending.append(c.set_async(rng.choice(live), value))
            elif kind < 0.35 and live:
                pending.append(c.delete_async(live.pop(rng.randrange(len(live)))))
            elif kind < 0.40:
                t = c.transaction()
                t.create(f"/m{n}", value)
                t.create(f"/m{n}/child", value)
                t.delete(f"/m{n}/child")
                pending.append(t.commit_async())
            else:
                path = f"/n{n}"
                live.append(path)
                pending.append(c.create_async(path, value))
            n += 1
            written += 1
            if len(pending) >= 500:
                for p in pending:
                    p.get(timeout=60)
                pending.clear()
        for p in pending:
            p.get(timeout=60)
        c.stop()
        c.close()
    found = _log_in(folder / "zk" / "1")
    assert found is not None
    return found


def read(path: Path) -> int:
    from replcheck.conformance.zookeeper.txnlog import read_log

    n = 0
    for _ in read_log(path):
        n += 1
    return n


def toolkit_cmd(path: Path) -> list[str]:
    from replcheck.conformance.zookeeper.server import classpath, jars_dir, java_executable

    cli = [str(p) for p in jars_dir().glob("commons-cli-*.jar")]
    return [
        java_executable(),
        "-Duser.timezone=UTC",
        "-cp",
        os.pathsep.join([classpath(), *cli]),
        "org.apache.zookeeper.server.persistence.TxnLogToolkit",
        str(path),
    ]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["generate", "read", "print", "toolkit-cmd", "compare"])
    ap.add_argument("log", nargs="?", type=Path)
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--txns", type=int, default=100_000)
    args = ap.parse_args(argv)
    if args.mode == "generate":
        print(generate(args.dir, args.txns))
        return 0
    if args.mode == "compare":
        log = generate(args.dir, args.txns)
        t0 = time.perf_counter()
        n = read(log)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        subprocess.run(toolkit_cmd(log), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        theirs = time.perf_counter() - t0
        print(f"{log}: {n} transactions, {log.stat().st_size} bytes")
        print(f"reader (decode + checksums, in-process): {ours:.2f} s, {n / ours:,.0f} txn/s")
        print(f"TxnLogToolkit (whole process): {theirs:.2f} s, {n / theirs:,.0f} txn/s")
        return 0
    if args.log is None:
        ap.error(f"{args.mode}: give the log file")
    if args.mode == "read":
        t0 = time.perf_counter()
        n = read(args.log)
        s = time.perf_counter() - t0
        print(f"{n} transactions in {s:.2f} s: {n / s:,.0f} txn/s (in-process)")
    elif args.mode == "print":
        from replcheck.cli import main as cli

        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            try:
                return cli(["zklog", str(args.log)])
            finally:
                sys.stdout = saved
    else:
        print(" ".join(toolkit_cmd(args.log)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
