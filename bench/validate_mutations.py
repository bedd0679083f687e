"""Anti-vacuity: does the validator reject a recorded trace that was changed by one event?

    python bench/validate_mutations.py [--per-trace 100] [--seed 1] [--traces NAME,...]
                                       [--out bench/results/validate-mutations.md]

For each accepted trace of the golden corpus, draw ``--per-trace`` single-event edits
(``tracemut.random_edits``: drop, duplicate, swap with a nearby event of another process, alter
one argument), validate each edited trace, and count the verdicts. A survivor (an edit still
accepted) is listed with the edit, so each can be explained: some edits do not change what the
trace says (swapping two events the partial order leaves unordered; dropping an event the model
has no state for), others are gaps. Ctrl-C stops early with the partial table.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "traces" / "golden"


def main() -> int:
    from replcheck.conformance.trace import mutate as tracemut
    from replcheck.conformance.validate.core import Bounds, validate_events

    ap = argparse.ArgumentParser()
    ap.add_argument("--per-trace", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--traces", default="")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "validate-mutations.md"))
    args = ap.parse_args()
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    names = [n for n, t in sorted(manifest["traces"].items()) if t["status"] == "accepted"]
    if args.traces:
        names = [n for n in names if n in args.traces.split(",")]
    rng = random.Random(args.seed)
    rows: list[tuple[str, Counter[str]]] = []
    survivors: list[str] = []
    t0 = time.monotonic()
    try:
        for name in names:
            events = tracemut.load(GOLDEN / f"{name}.jsonl")
            design = events[0]["design"]
            counts: Counter[str] = Counter()
            rows.append((name, counts))
            for edit in tracemut.random_edits(events, rng, args.per_trace):
                edited = tracemut.apply_edit(events, edit)
                numbered = [{**e, "_line": i + 1} for i, e in enumerate(edited)]
                v = validate_events(numbered, design, bounds=Bounds(max_nodes=200_000))
                op = edit["op"]
                counts[f"{op}:{v.status}"] += 1
                counts[v.status] += 1
                if v.status == "accepted":
                    e = events[edit["event"]]
                    what = f"{e['name']}({e['args']}) by {e['proc']}"
                    extra = {k: v for k, v in edit.items() if k not in ("op", "event")}
                    survivors.append(f"{name}: {op} event {edit['event']} {what} {extra}")
            print(f"{name}: {dict(counts)} ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted: the table below is partial", file=sys.stderr)
    lines = [
        "# Anti-vacuity: single-event edits of accepted golden traces",
        "",
        f"`python bench/validate_mutations.py --per-trace {args.per_trace} --seed {args.seed}`",
        "",
        "| trace | edits | rejected | accepted (survivors) | undecided | bad input |",
        "|---|---|---|---|---|---|",
    ]
    total: Counter[str] = Counter()
    for name, c in rows:
        n = sum(c[s] for s in ("rejected", "accepted", "undecided", "bad-input"))
        total.update({k: v for k, v in c.items() if ":" not in k})
        lines.append(
            f"| {name} | {n} | {c['rejected']} | {c['accepted']} | {c['undecided']} | "
            f"{c['bad-input']} |"
        )
    n = sum(total.values())
    share = 100.0 * (total["rejected"] + total["bad-input"]) / n if n else 0.0
    lines += [
        f"| all | {n} | {total['rejected']} | {total['accepted']} | {total['undecided']} | "
        f"{total['bad-input']} |",
        "",
        f"Rejected or refused as bad input: {share:.1f}% of {n} edits.",
        "",
        "By kind of edit:",
        "",
    ]
    ops: Counter[str] = Counter()
    for _, c in rows:
        ops.update({k: v for k, v in c.items() if ":" in k})
    for key in sorted(ops):
        lines.append(f"- {key}: {ops[key]}")
    lines += ["", "Survivors (edits still accepted):", ""]
    lines += [f"- {s}" for s in survivors] or ["- none"]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[: 12 + len(rows)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
