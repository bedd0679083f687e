"""Validating recorded runs from their ZooKeeper transaction logs alone, side by side with
validating their instrumented traces (results: bench/results/zklog.md).

    python bench/zklog_validate.py CORPUS... [--json]

CORPUS: run folders (``replcheck record`` output) or folders of them; a folder whose trace
names no design is counted apart. Each run is validated
both ways with the design its trace names. The two verdicts must agree where the log can say
anything: a run its trace accepts must be accepted from its log (the log shows a subset of the
steps), and a run its log rejects must be rejected by its trace. A run the trace rejects and the
log accepts was rejected at a step the log does not show (a batch, an apply, a file): the table
says at which event kinds. Not a test: timings are reported, not asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from replcheck.conformance.mine.rows import discover
from replcheck.conformance.trace.reader import read_trace
from replcheck.conformance.validate.core import validate_log, validate_path


def judge(paths: list[str]) -> dict[str, Any]:
    units = [u for u in discover(paths) if u["kind"] == "run"]
    rows = []
    t_trace = t_log = 0.0
    for i, u in enumerate(units):
        run = Path(u["path"])
        run = run if run.is_dir() else run.parent
        try:
            design = read_trace(run).design or ""
        except Exception:  # a run whose trace cannot be read is counted apart
            design = ""
        if not design:
            rows.append({"run": str(run), "design": design or "?", "skipped": True})
            continue
        t0 = time.monotonic()
        trace = validate_path(run)
        t1 = time.monotonic()
        log = validate_log(run, design)
        t2 = time.monotonic()
        t_trace += t1 - t0
        t_log += t2 - t1
        kind = ""
        if trace.status == "rejected" and trace.event is not None:
            text = trace.detail.get("event_text", "")
            kind = text.split("(", 1)[0].split()[-1] if text else "?"
        rows.append(
            {
                "run": str(run),
                "design": design,
                "trace": trace.headline(),
                "log": log.headline(),
                "trace_status": trace.status,
                "log_status": log.status,
                "trace_rejected_at": kind,
                "log_events": log.events,
                "trace_events": trace.events,
            }
        )
        sys.stderr.write(f"\r{i + 1}/{len(units)} runs judged")
    sys.stderr.write("\n")
    judged = [r for r in rows if not r.get("skipped")]
    pairs = Counter((r["design"], r["trace_status"], r["log_status"]) for r in judged)
    broken = [
        r
        for r in judged
        if (r["trace_status"] == "accepted" and r["log_status"] != "accepted")
        or (r["log_status"] == "rejected" and r["trace_status"] != "rejected")
    ]
    unseen = Counter(
        r["trace_rejected_at"]
        for r in judged
        if r["trace_status"] == "rejected" and r["log_status"] == "accepted"
    )
    return {
        "runs": len(judged),
        "skipped": len(rows) - len(judged),
        "pairs": {" / ".join(k): v for k, v in sorted(pairs.items())},
        "disagreements": broken,
        "trace_rejections_the_log_cannot_see": dict(unseen.most_common()),
        "seconds_trace": round(t_trace, 1),
        "seconds_log": round(t_log, 1),
        "events_trace": sum(r["trace_events"] for r in judged),
        "events_log": sum(r["log_events"] for r in judged),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = judge(args.corpus)
    if args.json:
        print(json.dumps(out, indent=2))
        return 1 if out["disagreements"] else 0
    print(f"{out['runs']} runs judged both ways ({out['skipped']} skipped: no design named)")
    print("| design / trace / log | runs |\n|---|---|")
    for k, v in out["pairs"].items():
        print(f"| {k} | {v} |")
    print(
        f"time: traces {out['seconds_trace']} s ({out['events_trace']} events), "
        f"logs {out['seconds_log']} s ({out['events_log']} events)"
    )
    unseen = out["trace_rejections_the_log_cannot_see"]
    print(f"trace rejections at steps the log does not show: {unseen}")
    for r in out["disagreements"]:
        print(f"DISAGREE {r['run']}: trace {r['trace']}; log {r['log']}")
    print(f"{len(out['disagreements'])} disagreements")
    return 1 if out["disagreements"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
