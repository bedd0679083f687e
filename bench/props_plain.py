"""The golden corpus's recorded runs validated with the properties of one of two texts:

    python bench/props_plain.py read [NAME]   # the readable predicates (model/properties.py)
    python bench/props_plain.py text [NAME]   # the flat text's, evaluated on plain values

``NAME`` keeps the golden traces whose name contains it. Each trace's verdict is printed, then
the process's CPU seconds and how many property checks the flat text answered. Time the two
side by side (``farm-bench --vs 'python bench/props_plain.py read zk-' -- python
bench/props_plain.py text zk-``): the ratio is what writing the properties once, in the flat
text, would cost the validator where the plain interpreter runs a recorded run. A layout whose
flat properties are refused (the table era's relay clusters) keeps the readable ones and is
counted as refused.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate_speed import traces


def main(argv: list[str]) -> int:
    from replcheck.conformance import validate as validating
    from replcheck.conformance.events import read_trace
    from replcheck.model.logic import PY
    from replcheck.model.properties import Property
    from replcheck.specs.flat_zk import FlatError

    if not argv or argv[0] not in ("read", "text"):
        print("usage: props_plain.py read|text [NAME]", file=sys.stderr)
        return 2
    mode, name = argv[0], (argv[1] if len(argv) > 1 else "")
    stats = {"checks": 0, "refused": 0}
    base = validating.Validator.__init__

    def with_text_properties(self: Any, *args: Any, **kwargs: Any) -> None:
        base(self, *args, **kwargs)
        m = self.model
        try:
            flat = {p.name: p for p in m.text.properties()}
        except FlatError:
            stats["refused"] += 1
            return

        def invariant(p: Any) -> Any:
            def check(cfg: Any, st: Any) -> bool:
                stats["checks"] += 1
                return bool(p.check(PY, m.reader_values(st).__getitem__))

            return check

        def step(p: Any) -> Any:
            def check(cfg: Any, a: Any, b: Any) -> bool:
                return bool(
                    p.check(PY, m.reader_values(a).__getitem__, m.reader_values(b).__getitem__)
                )

            return check

        m.invariants = tuple(
            Property(q.name, q.kind, invariant(flat[q.name]), q.doc) for q in m.invariants
        )
        m.step_properties = tuple(
            Property(q.name, q.kind, step(flat[q.name]), q.doc) for q in m.step_properties
        )

    if mode == "text":
        validating.Validator.__init__ = with_text_properties
    started = time.process_time()
    for path in traces():
        if name not in path.stem:
            continue
        t = read_trace(path)
        v = validating.validate_events(t.events, t.design or "?", path=str(path))
        print(f"{path.stem}: {v.headline()}")
    cpu = time.process_time() - started
    print(f"{mode}: {cpu:.2f} CPU s; flat checks {stats['checks']}, refused {stats['refused']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
