"""The compiled back ends against today's explorer, side by side in one run (never run by the
tests).

    python bench/compiled.py                      # speed, memory, compile time
    python bench/compiled.py --largest 300        # plus: the largest configurations in 300 s
    python bench/compiled.py --out bench/results/compiled.md

For each standard configuration measured, each engine explores the same state space in this
process, one after the other: the C search over the step table (``specs/cvm.c``), generated Python
(``specs/pygen.py``) and the explicit explorer (``specs/explore.py``), with symmetry on and off.
Distinct states per CPU second of the search (``time.process_time``; the C and Python figures
include tracing the flat text and lowering it). Memory per state is what the C search's tables
held at the end over the states stored (fingerprint table, parent and instance per state, the
frontier). Compile time is the C library's build into an empty cache, then a cache hit.
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
        "| design@config | symmetry | states | C states/s | generated Python states/s "
        "| explicit states/s | C / explicit | C bytes/state |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, config in SPEED:
        cfg = STANDARD[config]
        for sym in (True, False):
            c = explore_compiled(name, cfg, backend="c", symmetry=sym)
            py = explore_compiled(name, cfg, backend="python", symmetry=sym)
            t0 = time.process_time()
            ex = explore(Model(get_design(name), cfg), symmetry=sym)
            t_ex = time.process_time() - t0
            assert c.states == py.states == len(ex.states), (name, config, sym)
            n = c.states
            rows.append(
                f"| {name}@{config} | {'on' if sym else 'off'} | {n:,} | {n / c.seconds:,.0f} | "
                f"{n / py.seconds:,.0f} | {n / t_ex:,.0f} | {t_ex / c.seconds:.1f}x | "
                f"{c.bytes / n:,.0f} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def compile_rows() -> list[str]:
    from replcheck.specs import cvm
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
        finally:
            if old is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = old
    for name, config in SPEED:
        t0 = time.perf_counter()
        _layout, _fm, prog = _program(name, STANDARD[config])
        cvm.lower(prog)
        rows.append(
            f"| trace and lower {name}@{config} ({len(prog.keys)} slots, {len(prog.names)} "
            f"instances, {len(prog.graph.nodes):,} nodes) | {time.perf_counter() - t0:.2f} |"
        )
    return rows


def largest_rows(budget: float) -> list[str]:
    rows = [
        f"| design@config | states in {budget:.0f} s | complete | depth | states/s | bytes/state |",
        "|---|---:|---|---:|---:|---:|",
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
            f"{r.states / r.seconds:,.0f} | {r.bytes / r.states:,.0f} |"
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
