"""Exploration and fuzzing benchmarks (never run by the tests).

    python bench/explore.py            # every design x config, with and without symmetry
    python bench/explore.py --fuzz 5   # plus: Hypothesis time-to-find per mutant (median)
    python bench/explore.py --out bench/results/explore.md

Reports distinct states per second, time to exhaust each configuration, the symmetry reduction
factor (states without / states with, measured side by side in the same run) and, for fuzzing,
the median seconds Hypothesis needs to find each mutant.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from replcheck.model import DESIGNS, STANDARD, Model, designs, get_design, mutants
from replcheck.specs import explore


def bench_explore(max_states: int, only: str = "") -> list[str]:
    rows = [
        "| design | config | states (sym) | s (sym) | states/s (sym) | states (no sym) "
        "| s (no sym) | states/s (no sym) | reduction |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in designs():
        if not name.startswith(only):
            continue
        for config in DESIGNS[name].configs:
            model = Model(get_design(name), STANDARD[config])
            a = explore(model, symmetry=True, max_states=max_states)
            b = explore(model, symmetry=False, max_states=max_states)
            full = "" if a.complete and b.complete else " (budget hit)"
            rows.append(
                f"| {name} | {config}{full} | {len(a.states):,} | {a.seconds:.2f} | "
                f"{len(a.states) / a.seconds:,.0f} | {len(b.states):,} | {b.seconds:.2f} | "
                f"{len(b.states) / b.seconds:,.0f} | {len(b.states) / len(a.states):.2f}x |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def bench_fuzz(seeds: int, only: str = "") -> list[str]:
    from replcheck.specs.fuzz import fuzz

    rows = [
        "| mutant | config | found (of seeds) | median s to find | property |",
        "|---|---|---:|---:|---|",
    ]
    for name in mutants():
        if not name.startswith(only):
            continue
        config = DESIGNS[name].configs[0]
        times, props = [], set()
        for seed in range(seeds):
            model = Model(get_design(name), STANDARD[config])
            started = time.perf_counter()
            result = fuzz(model, profile="dev", seed=seed, database=None)
            if result.violated:
                times.append(time.perf_counter() - started)
                props.update(result.violated)
        median = f"{statistics.median(times):.2f}" if times else "-"
        rows.append(
            f"| {name} | {config} | {len(times)}/{seeds} | {median} | {', '.join(sorted(props))} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-states", type=int, default=2_000_000)
    parser.add_argument("--fuzz", type=int, default=0, metavar="SEEDS")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--only", default="", help="only designs and mutants named NAME*")
    args = parser.parse_args()
    lines = [
        f"# Exploration benchmark\n\nPython {platform.python_version()}, {os.cpu_count()} cores, "
        f"one process.\n",
        *bench_explore(args.max_states, args.only),
    ]
    if args.fuzz:
        lines += [
            "",
            "## Hypothesis: time to find each mutant",
            "",
            *bench_fuzz(args.fuzz, args.only),
        ]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
