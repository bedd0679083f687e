"""The largest whole-space agreements between the protocol text's two interpreters: the
generated program (``TextModel``) against the plain interpreter (``PlainModel``), from every
reachable state the same actions leading to the same states (``tests/model/model_agreement.py``).
The suite runs the smaller ones (``tests/model/engine/test_text_model.py``,
``tests/model/engine/test_plain.py``); these take minutes each, so they run here. Each count is
pinned: the table era's were given by its explicit steps, while they existed, against the same
program.

    python bench/agreement.py            # every case; exit 1 if any disagrees or miscounts
    python bench/agreement.py zombies    # the cases whose name contains "zombies"

Each case prints its states, the time it took and its verdict as it finishes; an interrupt
(Ctrl-C) prints what was decided so far and exits 1 (undecided is not a pass).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "model"))

from model_agreement import agree  # noqa: E402
from replcheck.model import STANDARD  # noqa: E402


def _cfg(config: str, name: str, **bounds: int | bool) -> object:
    return dataclasses.replace(STANDARD[config], name=name, **bounds)


CASES = [
    # (name, design, configuration, depth or None, states, actions taken, by kind: pinned)
    ("zk-multi@peers", "zk-multi", STANDARD["peers"], None, 53972, {}),
    ("zk-lock@peers", "zk-lock", STANDARD["peers"], None, 48188, {}),
    ("zk-multi@zk-faults", "zk-multi", STANDARD["zk-faults"], None, 31648, {}),
    ("table@t-sync", "table", STANDARD["t-sync"], None, 24688, {}),
    (
        "table@t-add-peer+join",
        "table",
        _cfg("t-add-peer", "t-add-peer+join", servers=3, joins=1),
        None,
        44208,
        {},
    ),
    (
        "table@t-race+zombies+rolls (depth 9)",
        "table",
        _cfg(
            "t-race",
            "t-race+zombies+rolls",
            servers=2,
            master_restarts=0,
            wals_per_server=2,
            crashes=2,
            zombies=True,
        ),
        9,
        58820,
        {
            "zombie_persist": 191302,
            "zombie_refresh": 48124,
            "zombie_put": 4998,
            "zombie_roll": 10080,
            "zombie_ship": 24282,
            "zombie_archive": 13242,
            "zombie_claim_commit": 2,
        },
    ),
]


def main(argv: list[str]) -> int:
    chosen = [c for c in CASES if not argv or any(a in c[0] for a in argv)]
    if not chosen:
        print(f"bench/agreement.py: no case matches {' '.join(argv)}", file=sys.stderr)
        return 2
    bad = 0
    done = 0
    try:
        for name, design, cfg, depth, want, pinned in chosen:
            t0 = time.perf_counter()
            taken: Counter = Counter()
            try:
                got = agree(design, cfg, depth, taken)
                off = {k: taken[k] for k, n in pinned.items() if taken[k] != n}
                ok = got == want and not off
                why = (
                    "agrees" if ok else f"pinned {want} states; actions taken off their pins: {off}"
                )
            except AssertionError as e:
                ok, got, why = False, -1, f"disagrees: {str(e).splitlines()[0][:120]}"
            bad += not ok
            done += 1
            print(f"{name}: {got} states in {time.perf_counter() - t0:.0f} s: {why}", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted: {done} of {len(chosen)} cases decided, {bad} failed: UNDECIDED")
        return 1
    print(f"{done} cases, {bad} failed: {'PASS' if not bad else 'FAIL'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
