"""Replay throughput: validating the golden corpus against reading and parsing it (the floor).

    python bench/validate_speed.py parse      # read and check every golden trace, no replay
    python bench/validate_speed.py validate   # read, check and replay every golden trace
    python bench/validate_speed.py report     # per trace: events, hidden steps, frontier, time
    python bench/validate_speed.py ceiling    # validate, with no property checked (a measure)

Time the first two as whole processes, side by side, with a process timer (for example
``/usr/bin/time -v`` or hyperfine); the ratio validate/parse is the cost of the replay over the
floor. ``report`` prints, per trace, the events per second of the replay alone, the hidden steps
the behaviour found used, and the search nodes per event (how much the search backtracked).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "traces" / "golden"


def traces() -> list[Path]:
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    return [GOLDEN / f"{n}.jsonl" for n in sorted(manifest["traces"])]


def main(argv: list[str]) -> int:
    from replcheck.conformance.trace.reader import read_trace
    from replcheck.conformance.validate.core import validate_events

    mode = argv[0] if argv else "report"
    if mode == "parse":
        n = sum(len(read_trace(p).events) for p in traces())
        print(f"parsed {n} events")
        return 0
    if mode == "ceiling":
        # A measurement, not a mode of the validator: the replay with no invariant and no step
        # property checked, to see what the rest of it costs.
        from replcheck.conformance.validate import core as validating

        base = validating.Validator.__init__

        def without_properties(self, *args, **kwargs) -> None:
            base(self, *args, **kwargs)
            self.model.invariants = ()
            self.model.step_properties = ()

        validating.Validator.__init__ = without_properties
        mode = "validate"
    if mode == "validate":
        n = 0
        for p in traces():
            t = read_trace(p)
            validate_events(t.events, t.design or "?", path=str(p))
            n += len(t.events)
        print(f"validated {n} events")
        return 0
    rows = ["| trace | events | parse s | replay s | events/s (replay) | hidden | nodes/event |"]
    rows.append("|---|---|---|---|---|---|---|")
    tot_e = tot_p = tot_r = 0.0
    for p in traces():
        t0 = time.perf_counter()
        t = read_trace(p)
        t1 = time.perf_counter()
        v = validate_events(t.events, t.design or "?", path=str(p))
        t2 = time.perf_counter()
        e = len(t.events)
        tot_e, tot_p, tot_r = tot_e + e, tot_p + (t1 - t0), tot_r + (t2 - t1)
        rows.append(
            f"| {p.stem} | {e} | {t1 - t0:.2f} | {t2 - t1:.2f} | {e / (t2 - t1):,.0f} | "
            f"{v.hidden} | {v.nodes / max(e, 1):.2f} |"
        )
    rows.append(f"| all | {tot_e:.0f} | {tot_p:.2f} | {tot_r:.2f} | {tot_e / tot_r:,.0f} | | |")
    rows += ["", "| hand-made edit | verdict | frontier states | search nodes | seconds |"]
    rows.append("|---|---|---|---|---|")
    from replcheck.conformance.trace import mutate as tracemut

    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    for name, entry in sorted(manifest.get("edits", {}).items()):
        events = tracemut.load(GOLDEN / f"{entry['base']}.jsonl")
        edited = tracemut.apply_edit(events, tracemut.HAND_MADE[entry["edit"]](events))
        numbered = [{**e, "_line": i + 1} for i, e in enumerate(edited)]
        v = validate_events(numbered, events[0]["design"])
        rows.append(
            f"| {name} | {v.headline()} | {v.detail.get('frontier', '-')} | {v.nodes} | "
            f"{v.seconds:.2f} |"
        )
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
