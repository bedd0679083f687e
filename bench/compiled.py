"""The compiled back ends against today's explorer, side by side in one run (never run by the
tests).

    python bench/compiled.py                      # speed, memory, compile time
    python bench/compiled.py --largest 300        # plus: the largest configurations in 300 s
    python bench/compiled.py --out bench/results/compiled.md

For each standard configuration measured, each engine explores the same state space in this
process, one after the other: the C search (``specs/cvm.c``) running the model's generated kernels
(``specs/ckern.py``, already in the cache) and interpreting its step table, generated Python
(``model/engine/pygen.py``) and the explicit explorer (``specs/explore.py``), with symmetry on and
off. Distinct states per CPU second (``time.process_time``): "search" is the C search alone;
"whole", generated Python and the explicit explorer include tracing the flat text, lowering it and
loading the kernels. Memory per state is what the C search's tables held at the end over the states
stored (fingerprint table, parent and instance per state, the frontier). Compile time is the C
library's and each configuration's kernels' build into an empty cache, then a cache hit.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from replcheck.model import STANDARD, Model, get_design
from replcheck.specs.compiled import explore_compiled
from replcheck.specs.explore import explore

from replcheck.matrix import resolve_config

SPEED = [("zk-multi", "std"), ("table", "t-std"), ("zk-lock", "std"), ("table", "t-sync-back")]


def speed_rows() -> list[str]:
    rows = [
        "| design@config | symmetry | states | C kernels, search | C kernels, whole | "
        "C step table, search | generated Python, search | generated Python, whole | explicit | "
        "C kernels / explicit | C bytes/state |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, config in SPEED:
        cfg = STANDARD[config]
        for sym in (True, False):
            explore_compiled(name, cfg, backend="c", symmetry=sym, kernels="always")  # cached
            k = explore_compiled(name, cfg, backend="c", symmetry=sym, kernels="always")
            vm = explore_compiled(name, cfg, backend="c", symmetry=sym, kernels="never")
            py = explore_compiled(name, cfg, backend="python", symmetry=sym)
            t0 = time.process_time()
            ex = explore(Model(get_design(name), cfg), symmetry=sym)
            t_ex = time.process_time() - t0
            assert k.states == vm.states, (name, config, sym)  # one search, two evaluators
            n = k.states
            # every engine finds the same count (tests/specs/test_compiled.py); a difference
            # is shown, and each rate is over its own count
            others = (
                "" if py.states == len(ex.states) == n else f" ({py.states:,}; {len(ex.states):,})"
            )
            rows.append(
                f"| {name}@{config} | {'on' if sym else 'off'} | {n:,}{others} | "
                f"{n / k.search_seconds:,.0f} | {n / k.seconds:,.0f} | "
                f"{n / vm.search_seconds:,.0f} | {py.states / py.search_seconds:,.0f} | "
                f"{py.states / py.seconds:,.0f} | "
                f"{len(ex.states) / t_ex:,.0f} | {t_ex / k.seconds:.1f}x | {k.bytes / n:,.0f} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def compile_rows() -> list[str]:
    from replcheck.specs import ckern, cvm
    from replcheck.specs.compiled import _program

    rows = ["| what | seconds |", "|---|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = tmp
        try:
            for label in ("C library, empty cache", "C library, cache hit"):
                cvm._LIB.clear()
                t0 = time.perf_counter()
                _lib, how = cvm.library()
                rows.append(f"| {label} ({how}) | {time.perf_counter() - t0:.2f} |")
            for name, config in SPEED:
                t0 = time.perf_counter()
                _layout, _fm, prog = _program(name, STANDARD[config])
                cvm.lower(prog)
                rows.append(
                    f"| trace and lower {name}@{config} ({len(prog.keys)} slots, "
                    f"{len(prog.names)} instances, {len(prog.graph.nodes):,} nodes) | "
                    f"{time.perf_counter() - t0:.2f} |"
                )
                size = len(ckern.kernel_source(prog)) // 1024
                for label in ("empty cache", "cache hit"):
                    ckern._LOADED.clear()
                    t0 = time.perf_counter()
                    build = ckern.Build(prog)
                    build.wait()
                    rows.append(
                        f"| kernels of {name}@{config} ({size:,} KiB of C), "
                        f"{label} ({build.how}) | {time.perf_counter() - t0:.2f} |"
                    )
        finally:
            if old is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = old
    return rows


def largest_rows(budget: float) -> list[str]:
    rows = [
        f"| design@config | states in {budget:.0f} s | complete | depth | states/s | bytes/state "
        "| kernels |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for name, spec in [
        ("zk-multi", "std:servers=3"),
        ("table", "t-std:servers=3"),
        ("zk-multi", "std:servers=3,crashes=2"),
        ("zk-multi", "std:servers=4"),
        ("table", "t-std:servers=4"),
    ]:
        started = time.process_time()

        def stop(n: int, _f: int, _d: int, started: float = started) -> None:
            if time.process_time() - started > budget:
                raise KeyboardInterrupt

        r = explore_compiled(
            name,
            resolve_config(spec),
            backend="c",
            symmetry=True,
            progress=stop,
            partial_on_interrupt=True,
        )
        rows.append(
            f"| {name}@{spec} | {r.states:,} | {'yes' if r.complete else 'no'} | {r.depth} | "
            f"{r.states / r.seconds:,.0f} | {r.bytes / r.states:,.0f} | {r.kernels} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--largest", type=float, metavar="SECONDS", help="also the largest runs")
    ap.add_argument("--out", metavar="FILE")
    args = ap.parse_args()
    out = [
        f"# Compiled back ends ({time.strftime('%Y-%m-%d')}, {platform.processor() or 'cpu'}, "
        f"{os.cpu_count()} cores)",
        "",
        "`python bench/compiled.py"
        + (f" --largest {args.largest:.0f}" if args.largest else "")
        + "`",
        "",
        "## Distinct states per CPU second",
        "",
        *speed_rows(),
        "",
        "## Compile time",
        "",
        *compile_rows(),
    ]
    if args.largest:
        out += ["", "## The largest configurations", "", *largest_rows(args.largest)]
    text = "\n".join(out) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
