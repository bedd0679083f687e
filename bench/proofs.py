"""Time every Z3 proof about the decision rules, for the correct designs and the rule-level
mutants, and write ``bench/results/proofs.md`` (goal: every unbounded proof under 10 s).

    python bench/proofs.py [--timeout S]
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import z3
from replcheck.model import DESIGNS, designs, mutants
from replcheck.specs import proofs

OUT = Path(__file__).resolve().parent / "results" / "proofs.md"
GOAL = 10.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--timeout", type=float, default=proofs.DEFAULT_TIMEOUT)
    args = parser.parse_args()
    names = [*designs(), *(m for m in mutants() if proofs.rule_level(DESIGNS[m]))]
    started = time.perf_counter()
    seen: dict[tuple, proofs.ProofResult] = {}
    rows = []
    for dp in proofs.prove(names, timeout=args.timeout):
        for r in dp.results:
            cls = DESIGNS[dp.design]
            key = proofs._key(proofs.BY_NAME[r.proof], cls, args.timeout)
            if key in seen:  # the same rules as a design already listed
                continue
            seen[key] = r
            rows.append((dp, r))
            print(f"{dp.design:40} {r.proof:26} {r.verdict:8} {r.seconds:7.2f}s", flush=True)
    total = time.perf_counter() - started
    slow = [r for _dp, r in rows if r.seconds >= GOAL]
    lines = [
        "# Proof times",
        "",
        "Written by `python bench/proofs.py` (Z3 "
        f"{z3.get_version_string()}, Python {platform.python_version()}, timeout "
        f"{args.timeout:g} s per query). Each distinct (proof, rules) pair once: designs "
        "that share a rule share the proof. Goal: every proof under 10 s.",
        "",
        "| design | proof | verdict | expected | seconds |",
        "|---|---|---|---|---|",
    ]
    for dp, r in rows:
        lines.append(
            f"| `{dp.design}` | `{r.proof}` | {r.verdict} | {r.expect} | {r.seconds:.2f} |"
        )
    lines += [
        "",
        f"Total: {total:.1f} s for {len(rows)} proofs; "
        + (f"over the goal: {', '.join(r.proof for r in slow)}." if slow else "all under 10 s."),
        "",
    ]
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
