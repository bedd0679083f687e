"""Soak the reference cluster: many fault-injected runs per design (and per mutant), summed up.

    python bench/soak.py [--runs 20] [--designs zk-lock,zk-multi,table]
                         [--mutants zk-lock/ships-local-scope,...] [--faults kill,pause,...]
                         [--seed 1000] [--drain-timeout 120] [--out bench-soak] [--json]

For each design: runs, faults injected by kind, edits written, owed deliveries, duplicates, lost
edits, LOCAL/catalog edits shipped, edits looped back, premature WAL deletions, the runs with a
violation, and the conformance verdicts (each run replayed through the model: accepted, rejected
or undecided; ``--sum`` lists every run not accepted). For each mutant: the same, and how often
its bug showed (runs with a violation). Not a test: nothing here asserts timing. Each run starts
its own ZooKeeper (three servers when ``zk-leader`` is among the faults).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from replcheck.conformance.cluster.record import parse_faults, record, summarize
from replcheck.conformance.cluster.run import FAULT_KINDS, RunSpec
from replcheck.conformance.hbase.names import DESIGNS, SUPPORTED_MUTANTS, DesignError, Steps

COLUMNS = (
    "edits_written",
    "owed_deliveries",
    "delivered",
    "duplicates",
    "lost",
    "shipped_local",
    "returned_to_origin",
    "premature_deletions",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/soak.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--mutants", default="", help=f"comma-separated; any of {SUPPORTED_MUTANTS}")
    ap.add_argument("--faults", default="kill,pause,expire,sink-down,master-restart")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument(
        "--drain-timeout",
        type=float,
        default=120.0,
        help="seconds a run may take to deliver its backlog after the workload (a run that does "
        "not drain in time has its undelivered edits counted as lost)",
    )
    ap.add_argument("--out", default="bench-soak")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--sum",
        nargs="+",
        metavar="DIR",
        help="run nothing: sum up the finished runs (their verdict.json) found under DIRs, "
        "e.g. the folders of soaks that were interrupted",
    )
    args = ap.parse_args(argv)
    if args.sum:
        return print_sum([Path(d) for d in args.sum], args.json)
    try:
        faults = parse_faults(args.faults)
        names = [d for d in args.designs.split(",") if d] + [
            m for m in args.mutants.split(",") if m
        ]
        for n in names:
            Steps(n)
    except (ValueError, DesignError) as exc:
        print(f"soak: error: {exc}", file=sys.stderr)
        return 2
    if args.runs < 1:
        print("soak: error: --runs must be at least 1", file=sys.stderr)
        return 2
    out = Path(args.out)
    table = {}
    for name in names:
        spec = RunSpec(
            design=name,
            seed=args.seed,
            faults=faults,
            edits=args.edits,
            drain_timeout=args.drain_timeout,
        )
        t0 = time.monotonic()
        sub = out / name.replace("/", "_")
        results = record(spec, args.runs, sub, keep_going=True)
        summary = summarize(spec, results)
        summary["errors"] = json.loads((sub / "summary.json").read_text())["errors"]
        summary["seconds"] = round(time.monotonic() - t0, 1)
        table[name] = summary
    (out / "soak.json").write_text(json.dumps(table, indent=2) + "\n")
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    header = f"{'design':38} {'runs':>4} {'bad':>4} " + " ".join(f"{c[:9]:>9}" for c in COLUMNS)
    print(header)
    for name, s in table.items():
        t = s["totals"]
        cells = " ".join(f"{t.get(c, 0):>9}" for c in COLUMNS)
        print(f"{name:38} {s['runs']:>4} {s['failed_runs']:>4} {cells}")
    print()
    for name, s in table.items():
        known = {k: s["faults"].get(k, 0) for k in FAULT_KINDS if k in faults}
        print(
            f"{name}: faults {known}; skipped {s['faults_skipped']}; "
            f"{len(s['errors'])} runs could not finish; conformance "
            f"{s.get('conformance', {})}; {s['seconds']}s"
        )
    return 0


def sum_runs(dirs: list[Path]) -> dict[str, dict]:
    """Per design: the finished runs under ``dirs`` (each folder with a ``verdict.json``)."""
    table: dict[str, dict] = {}
    for d in dirs:
        for path in sorted(d.rglob("verdict.json")):
            data = json.loads(path.read_text())
            run = data["run"]
            s = table.setdefault(
                data["design"],
                {
                    "runs": 0,
                    "failed_runs": 0,
                    "faults": Counter(),
                    "totals": Counter(),
                    "flagged": [],
                    "conformance": Counter(),
                    "not_accepted": [],
                },
            )
            s["runs"] += 1
            status = data.get("conformance", {}).get("status", "not validated")
            s["conformance"][status] += 1
            if status != "accepted":
                s["not_accepted"].append(f"{path.parent.name}: {data['conformance']['verdict']}")
            s["faults"].update(run.get("faults", {}))
            if not run["ok"]:
                s["failed_runs"] += 1
                s["flagged"].append(path.parent.name)
            for k, v in run.items():
                if isinstance(v, bool):
                    s["totals"][k] += int(v)
                elif isinstance(v, int | float):
                    s["totals"][k] += v
    return table


def print_sum(dirs: list[Path], as_json: bool) -> int:
    for d in dirs:
        if not d.is_dir():
            print(f"soak: error: {d}: not a folder", file=sys.stderr)
            return 2
    table = sum_runs(dirs)
    if as_json:
        print(json.dumps(table, indent=2, default=dict))
        return 0
    print(f"{'design':38} {'runs':>4} {'bad':>4} " + " ".join(f"{c[:9]:>9}" for c in COLUMNS))
    for name, s in sorted(table.items()):
        cells = " ".join(f"{s['totals'].get(c, 0):>9}" for c in COLUMNS)
        print(f"{name:38} {s['runs']:>4} {s['failed_runs']:>4} {cells}")
    for name, s in sorted(table.items()):
        drained = s["totals"].get("drained", 0)
        print(
            f"{name}: faults {dict(s['faults'])}; drained {drained}/{s['runs']}; "
            f"flagged {s['flagged']}; conformance {dict(s['conformance'])}"
        )
        for line in s["not_accepted"]:
            print(f"  not accepted: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
