"""Fuzzing before/after: how often and how fast ``fuzz`` finds chosen mutants (never run by tests).

    python bench/fuzz_table.py --seeds 2 --out bench/results/fuzz-table.md
    python bench/fuzz_table.py --seeds 2 --shard 0/2 --out a.md & \\
        python bench/fuzz_table.py --seeds 2 --shard 1/2 --out b.md

"before" is ``specs/fuzz.py`` as committed in ``--before-rev`` (default ``HEAD``), loaded from git
as a sibling module; "after" is the working tree's. For each mutant and seed both run one after
the other in the same process (profile ``dev``, the same seed, no example database), so they see
the same machine load. A mutant counts as found when the run reports any safety violation; the
seconds are those of the whole ``fuzz`` call (shrinking and replaying included), and the median
is over the seeds that found it. ``steps/ex`` is actions taken per example (stutters excluded).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

from replcheck.model import DESIGNS, STANDARD, Model, get_design

ROOT = Path(__file__).resolve().parent.parent

# The table-era mutants the old fuzzer missed, then a sample of ZooKeeper-era ones and of
# table-era ones it already found.
MISSED = [
    "table/HBASE-27214",
    "table/HBASE-28155",
    "table/restart-forgets-barrier",
    "table/HBASE-27213",
    "table/remove-all-one-pass",
    "table/HBASE-17077",
    "table/remove-peer-keeps-recovered",
]
SAMPLE = [
    "zk-multi/HBASE-12865",
    "zk-multi/HBASE-8099",
    "zk-multi/HBASE-17077",
    "zk-lock/HBASE-16144",
    "zk-lock/append-before-register",
    "zk-lock/cleaner-stale-cache",
    "table/add-missing-rerun",
]


def load_before(rev: str):
    """``specs/fuzz.py`` at ``rev``, imported as ``replcheck.specs._fuzz_before``."""
    source = subprocess.run(
        ["git", "show", f"{rev}:specs/fuzz.py"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    path = Path("/tmp") / f"replcheck_fuzz_before_{rev.replace('/', '_')}.py"
    path.write_bytes(source)
    import replcheck.specs  # noqa: F401  (the parent package, for the relative imports)

    spec = importlib.util.spec_from_file_location("replcheck.specs._fuzz_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(fuzz, name: str, seed: int) -> tuple[bool, float, float]:
    config = DESIGNS[name].configs[0]
    model = Model(get_design(name), STANDARD[config])
    started = time.perf_counter()
    result = fuzz(model, profile="dev", seed=seed, database=None)
    seconds = time.perf_counter() - started
    per_example = result.stats["steps"] / max(1, result.stats["examples"])
    return bool(result.violated), seconds, per_example


def cell(found: list[float], seeds: int) -> str:
    median = f"{statistics.median(found):.1f}" if found else "-"
    return f"{len(found)}/{seeds} | {median}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--before-rev", default="HEAD")
    parser.add_argument("--only", nargs="*", help="mutants (default: MISSED + SAMPLE)")
    parser.add_argument("--shard", default="0/1", help="i/n: every n-th mutant from the i-th")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from replcheck.specs.fuzz import fuzz as after

    before = load_before(args.before_rev).fuzz
    i, n = (int(x) for x in args.shard.split("/"))
    names = (args.only or MISSED + SAMPLE)[i::n]
    rows = [
        "| mutant | config | before: found | before: median s | after: found | after: median s "
        "| steps/ex before | steps/ex after |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        times: dict[str, list[float]] = {"before": [], "after": []}
        lengths: dict[str, list[float]] = {"before": [], "after": []}
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for label, fuzz in (("before", before), ("after", after)):
                found, seconds, per_example = run(fuzz, name, seed)
                if found:
                    times[label].append(seconds)
                lengths[label].append(per_example)
                print(f"{name} seed {seed} {label}: found={found} {seconds:.1f}s", file=sys.stderr)
        rows.append(
            f"| {name} | {DESIGNS[name].configs[0]} | {cell(times['before'], args.seeds)} | "
            f"{cell(times['after'], args.seeds)} | {statistics.mean(lengths['before']):.1f} | "
            f"{statistics.mean(lengths['after']):.1f} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
