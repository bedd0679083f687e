"""Property-based conformance, measured: per design and cluster mutant, was a failure found, after
how many real runs and how long, and how far did shrinking take it.

    python bench/conform.py [--profile thorough] [--examples N] [--runs N] [--cuts N] [--seed 0]
                            [--targets zk-multi,zk-multi/HBASE-12865,...] [--out bench-conform]
    python bench/conform.py --coverage --before DIR... --after DIR...

For each target, ``replcheck conform``'s search (``conformance.conform.search``) with the profile
(``--examples``, ``--runs`` and ``--cuts`` override its budget). Prints a Markdown table and writes
``OUT/conform.json``: found or not, runs to the first failure, seconds to it, the first failing
plan's size against the smallest one's (faults, peer operations, writes), whether the smallest
failed again when run once more; and, over every run, runs per minute and the share of a run's
time spent starting ZooKeeper and the cluster. Coverage of the model's actions is summed per
target (``coverage``). Not a test: nothing here asserts timing. Ctrl-C prints what was measured.

``--coverage`` compares, per design, the model actions and branches (``mine.branches``) that the
run folders under ``--before`` (seeded ``record`` or soak runs, say) and under ``--after``
(``conform`` runs) exercised: how many runs, how many of the design's branches each set reached,
and which ones only one of them did.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from replcheck.conformance.hbase.names import DESIGNS, SUPPORTED_MUTANTS
from replcheck.conformance.search.conform import search
from replcheck.conformance.search.plan import PROFILES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/conform.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", choices=sorted(PROFILES), default="thorough")
    ap.add_argument("--examples", type=int)
    ap.add_argument("--runs", type=int)
    ap.add_argument("--cuts", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--targets", default=",".join((*DESIGNS, *SUPPORTED_MUTANTS)))
    ap.add_argument("--out", default="bench-conform")
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--before", nargs="*", default=[])
    ap.add_argument("--after", nargs="*", default=[])
    args = ap.parse_args(argv)
    if args.coverage:
        print(compare_coverage([Path(d) for d in args.before], [Path(d) for d in args.after]))
        return 0
    profile = PROFILES[args.profile]
    if args.examples:
        profile = replace(profile, examples=args.examples)
    if args.runs:
        profile = replace(profile, runs=args.runs)
    if args.cuts is not None:
        profile = replace(profile, cuts=args.cuts)
    out = Path(args.out)
    rows: dict[str, dict] = {}
    try:
        for name in [t for t in args.targets.split(",") if t]:
            print(f"== {name}", file=sys.stderr, flush=True)
            t0 = time.monotonic()
            report = search(
                name,
                profile,
                out / name.replace("/", "_"),
                seed=args.seed,
                progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True),
            )
            data = report.to_json()
            failing = [i for i, o in enumerate(report.outcomes) if not o.passed and not o.error]
            data["runs_to_find"] = failing[0] + 1 if failing else None
            data["seconds_to_find"] = (
                round(sum(o.seconds for o in report.outcomes[: failing[0] + 1]), 1)
                if failing
                else None
            )
            data["wall"] = round(time.monotonic() - t0, 1)
            rows[name] = data
            if report.interrupted:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        print("interrupted: what was measured so far", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    (out / "conform.json").write_text(json.dumps(rows, indent=2) + "\n")
    print(table(rows, profile.name))
    return 0


def covered(dirs: list[Path]) -> dict[str, tuple[int, set[str]]]:
    """Per design (a mutant counts as its base): runs, and the branches they exercised."""
    from replcheck.conformance.mine.rows import coverage
    from replcheck.conformance.trace.reader import read_trace

    out: dict[str, tuple[int, set[str]]] = {}
    for d in dirs:
        for verdict in sorted(d.rglob("verdict.json")):
            design = json.loads(verdict.read_text())["design"].split("/")[0]
            events = read_trace(verdict.parent / "trace.jsonl").events
            runs, seen = out.get(design, (0, set()))
            out[design] = (runs + 1, seen | {k for k, n in coverage(design, events).items() if n})
    return out


def compare_coverage(before: list[Path], after: list[Path]) -> str:
    from replcheck.conformance.mine.rows import branches

    b, a = covered(before), covered(after)
    lines = [
        "| design | runs before | runs after | branches | reached before | reached after | "
        "only before | only after | reached by neither |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for design in sorted(set(a) | set(b)):
        every = set(branches(design))
        rb, sb = b.get(design, (0, set()))
        ra, sa = a.get(design, (0, set()))
        sb, sa = sb & every, sa & every
        lines.append(
            f"| {design} | {rb} | {ra} | {len(every)} | {len(sb)} | {len(sa)} | "
            f"{', '.join(sorted(sb - sa)) or '-'} | {', '.join(sorted(sa - sb)) or '-'} | "
            f"{', '.join(sorted(every - sa - sb)) or '-'} |"
        )
    return "\n".join(lines)


def _size(s: dict | None) -> str:
    if not s:
        return "-"
    return f"{s['faults']}f {s['peer_ops']}p {s['writes']}w"


def table(rows: dict[str, dict], profile: str) -> str:
    lines = [
        f"profile {profile}",
        "",
        "| target | runs (cuts) | found | runs to find | s to find | first failing | shrunk | "
        "failed again | runs/min | start-up share |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, d in rows.items():
        secs = d["run_seconds"]
        per_min = 60 * len(secs) / sum(secs) if secs else 0.0
        share = sum(d["startup_seconds"]) / sum(secs) if secs else 0.0
        first = d["first"]["size"] if d["first"] else None
        small = d["smallest"]["size"] if d["smallest"] else None
        again = {None: "-", True: "yes", False: "no"}[d["reproduced"]]
        undecided = f" ({len(d['runs_not_finished'])} unfinished)" if d["runs_not_finished"] else ""
        lines.append(
            f"| {name} | {d['runs']} ({d['cut_runs']}){undecided} | "
            f"{'yes' if d['found'] else 'no'} | "
            f"{d['runs_to_find'] or '-'} | {d['seconds_to_find'] or '-'} | {_size(first)} | "
            f"{_size(small)} | {again} | {per_min:.2f} | {share:.0%} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
