"""Bounded model checking against exhaustive exploration, side by side, on the same machine and
the same designs (ZooKeeper era):

    python bench/bmc.py [--budget 60] [--out bench/results/bmc.md]

Per design (``std``) and per mutant (its first configuration):

* the depth bounded model checking reaches within ``--budget`` seconds, against the depth at
  which exploration exhausts the configuration (the goal: at least that depth);
* for the deepest depth both finished, each engine's time to check every property up to it, and
  the ratio Z3 / exploration;
* the first violation depths each engine reports (they must agree).

Not a test: nothing here asserts timing. Exploration is run with symmetry reduction, as
``replcheck check`` runs it, and again bounded to the same depth.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from replcheck.model import Model, designs, get_design, mutants
from replcheck.model.engine.catalogue import flat_model
from replcheck.specs.bmc import bmc
from replcheck.specs.crosscheck import default_config, explored_depths
from replcheck.specs.explore import explore


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/bmc.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=60.0, help="seconds of BMC per design")
    ap.add_argument("--only", default="", help="comma-separated design names (default: all)")
    ap.add_argument("--out", default="", help="also write the table to this Markdown file")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or [
        n for n in (*designs(), *mutants()) if type(get_design(n)).era == "zk"
    ]
    rows = []
    for name in names:
        cfg = default_config(name)
        model = Model(get_design(name), cfg)
        first, exhausted, explore_all = explored_depths(model)
        fm = flat_model(name, cfg)
        res = bmc(fm, exhausted, model=model, deadline=args.budget)
        reached = res.reached
        bmc_time = sum(res.seconds_per_depth[: reached + 1])
        t0 = time.perf_counter()
        explore(model, max_depth=reached)
        explore_time = time.perf_counter() - t0
        agree = {p: d for p, d in first.items() if d <= reached} == {
            p: d for p, d in res.first.items() if p != "encoding_capacity" and d <= reached
        }
        rows.append(
            (
                name,
                cfg.name,
                exhausted,
                explore_all,
                reached,
                bmc_time,
                explore_time,
                agree,
                len(fm.instances),
                len(fm.sorts),
            )
        )
        sys.stderr.write(f"{name}@{cfg.name}: depth {reached}/{exhausted} in {bmc_time:.1f}s\n")
    lines = [
        f"Bounded model checking vs exploration (`python bench/bmc.py --budget {args.budget:g}`)",
        "",
        "| design@config | flat vars | instances | exploration exhausts at depth (s) "
        f"| BMC depth in {args.budget:g} s | BMC s to that depth | exploration s to that depth "
        "| Z3 / exploration | same first violations |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, cfg, exh, ex_all, reached, b, e, agree, inst, nvars in rows:
        ratio = b / e if e > 0 else float("inf")
        lines.append(
            f"| {name}@{cfg} | {nvars} | {inst} | {exh} ({ex_all:.2f}) | {reached} | {b:.1f} "
            f"| {e:.3f} | {ratio:,.0f}x | {'yes' if agree else 'NO'} |"
        )
    met = sum(r[4] >= r[2] for r in rows)
    lines += ["", f"BMC reached the exhaustion depth within the budget on {met}/{len(rows)}."]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
