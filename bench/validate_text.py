"""Recorded runs held to the protocol text: the ZooKeeper era's golden traces and flagged soak
runs validated on the explicit steps (the default engine for a recorded run) and on the plain
interpreter of the text (``validate --engine plain``, ``model/plain.py``), side by side in one
process, trace by trace.

    python bench/validate_text.py [--out bench/results/validate-text.md]

Prints (and writes) a table: each trace's verdict on both engines, whether they agree, the CPU
seconds of each and their ratio (text / explicit), and the steps that did not fit the layout
sized from the run.
Exit status 1 if any verdict differs or the run was interrupted (Ctrl-C: the table so far is
written, and the last line says it is partial).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def runs() -> list[Path]:
    golden = sorted((ROOT / "traces" / "golden").glob("zk-*.jsonl"))
    soak = sorted((ROOT / "test_data" / "soak").glob("zk-*/trace.jsonl"))
    return golden + soak


def main(argv: list[str]) -> int:
    from replcheck.conformance import txnfill
    from replcheck.conformance.events import read_trace
    from replcheck.conformance.validate import validate_events
    from replcheck.model.model import ExplicitModel
    from replcheck.model.plain import PlainModel

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "validate-text.md")
    args = ap.parse_args(argv)
    rows = [
        "| trace | events | explicit | text | agree | explicit CPU s | text CPU s | ratio | "
        "did not fit |",
        "|---|---:|---|---|---|---:|---:|---:|---:|",
    ]
    differ = 0
    interrupted = False
    try:
        for path in runs():
            trace = read_trace(path, None)
            events, _edits = txnfill.lost_writes(trace.events)
            t0 = time.process_time()
            want = validate_events(events, trace.design, engine=ExplicitModel)
            t1 = time.process_time()
            got = validate_events(events, trace.design, engine=PlainModel)
            t2 = time.process_time()
            same = want.headline() == got.headline()
            differ += not same
            name = path.name if path.parent.name == "golden" else path.parent.name
            rows.append(
                f"| `{name}` | {len(events)} | {want.headline()} | {got.headline()} | "
                f"{'yes' if same else '**no**'} | {t1 - t0:.2f} | {t2 - t1:.2f} | "
                f"{(t2 - t1) / max(t1 - t0, 1e-3):.1f} | {got.detail.get('overflows', 0)} |"
            )
            print(rows[-1], flush=True)
    except KeyboardInterrupt:
        interrupted = True
        rows.append("\n(interrupted: the rows above are the traces validated so far)")
    text = "# Recorded runs on the protocol text\n\n`python bench/validate_text.py`\n\n"
    text += "\n".join(rows) + "\n"
    args.out.write_text(text, encoding="utf-8")
    verdict = f"{differ} verdicts differ" if differ else "every verdict agrees"
    if interrupted:
        verdict = f"INTERRUPTED after {len(rows) - 3} traces (partial): {verdict} so far"
    print(f"validate-text: {verdict}")
    return 1 if differ or interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
