"""Throughput of ``replcheck mine``: single-process validation, Spark ``local[N]``, and a
two-worker standalone cluster, on the same corpus (results: bench/results/mine.md).

    python bench/mine.py CORPUS... [--replicate N] [--modes validate,local,cluster]
                         [--local 2] [--json]

CORPUS: run folders (``replcheck record`` output) or folders of them. ``--replicate N`` mines N
units made by repeating the corpus's runs (symbolic links, each its own unit) when fewer runs
were recorded than N: the throughput figures hold per run replayed, the verdict counts then
repeat the same runs. Each mode reports runs/s and events/s over its mining time, and Spark's
fixed start-up cost (session and executors up, before the first run) separately. Not a test:
nothing here asserts timing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from replcheck.conformance.mine.cluster import StandaloneCluster
from replcheck.conformance.mine.job import run_job, write_package
from replcheck.conformance.mine.rows import discover
from replcheck.conformance.validate.core import validate_log, validate_path


def replicate(paths: list[str], n: int, folder: Path) -> list[str]:
    """``n`` units in ``folder``, each a link to one of the corpus's runs, round robin."""
    units = [u["path"] for u in discover(paths) if u["kind"] == "run"]
    if not units:
        raise SystemExit("bench/mine.py: no runs in the corpus")
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        src = Path(units[i % len(units)]).resolve()
        (folder / f"unit-{i:05d}{src.suffix if src.is_file() else ''}").symlink_to(src)
    return [str(folder)]


def bench_validate(paths: list[str]) -> dict[str, Any]:
    """Every run validated one after another in this process (``replcheck validate``'s work; a
    raw ZooKeeper data directory, ``replcheck validate --zk-logs``'s)."""
    units = discover(paths)
    t0 = time.monotonic()
    events = 0
    status: dict[str, int] = {}
    for u in units:
        path = Path(u["path"])
        v = validate_log(path) if u["kind"] == "zkdata" else validate_path(path)
        events += v.events
        status[v.status] = status.get(v.status, 0) + 1
    seconds = time.monotonic() - t0
    return _rates("validate (one process)", len(units), events, seconds, 0.0, status)


def bench_local(paths: list[str], cores: int, out: Path) -> dict[str, Any]:
    summary = run_job(paths, out, master=f"local[{cores}]")
    return _from_summary(f"mine local[{cores}]", summary)


def bench_cluster(paths: list[str], out: Path, tmp: Path) -> dict[str, Any]:
    zipped, script = write_package(tmp / "package")
    with StandaloneCluster(workers=2, cores=1) as cluster:
        t0 = time.monotonic()
        done = cluster.submit(
            ["--py-files", str(zipped), str(script), *paths, "--out", str(out)],
            env={"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable},
            timeout=7200,
        )
        wall = time.monotonic() - t0
    if not (out / "summary.json").exists():
        raise SystemExit(f"spark-submit failed ({done.returncode}): {done.stderr[-2000:]}")
    summary = json.loads((out / "summary.json").read_text())
    row = _from_summary("mine standalone (2 workers x 1 core)", summary)
    row["submit_wall_s"] = round(wall, 1)
    return row


def _from_summary(mode: str, s: dict[str, Any]) -> dict[str, Any]:
    sec = s["seconds"]
    row = _rates(mode, s["mined"], s["events"], sec["mining"], sec["startup"], s["status"])
    row["write_s"] = round(sec["total"] - sec["startup"] - sec["mining"], 2)
    row["partitions"] = s["partitions"]
    return row


def _rates(
    mode: str, runs: int, events: int, seconds: float, startup: float, status: dict[str, int]
) -> dict[str, Any]:
    return {
        "mode": mode,
        "runs": runs,
        "events": events,
        "startup_s": round(startup, 2),
        "mining_s": round(seconds, 2),
        "runs_per_s": round(runs / seconds, 2) if seconds else None,
        "events_per_s": round(events / seconds) if seconds else None,
        "status": {k: v for k, v in status.items() if v},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("corpus", nargs="+")
    p.add_argument("--replicate", type=int, default=0, metavar="N")
    p.add_argument("--modes", default="validate,local,cluster")
    p.add_argument("--local", type=int, default=2, metavar="CORES")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--keep", metavar="DIR", help="copy the local job's tables and summary here (a new folder)"
    )
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-mine-") as tmp_text:
        tmp = Path(tmp_text)
        paths = args.corpus
        if args.replicate:
            paths = replicate(paths, args.replicate, tmp / "units")
        for mode in args.modes.split(","):
            if mode == "validate":
                rows.append(bench_validate(paths))
            elif mode == "local":
                rows.append(bench_local(paths, args.local, tmp / "out-local"))
            elif mode == "cluster":
                rows.append(bench_cluster(paths, tmp / "out-cluster", tmp))
            else:
                raise SystemExit(f"bench/mine.py: unknown mode {mode!r}")
            sys.stderr.write(json.dumps(rows[-1]) + "\n")
        if args.keep and (tmp / "out-local").is_dir():
            shutil.copytree(tmp / "out-local", args.keep)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("| mode | runs | events | start-up s | mining s | runs/s | events/s | statuses |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            st = ", ".join(f"{v} {k}" for k, v in sorted(r["status"].items()))
            print(
                f"| {r['mode']} | {r['runs']} | {r['events']} | {r['startup_s']} | "
                f"{r['mining_s']} | {r['runs_per_s']} | {r['events_per_s']} | {st} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
