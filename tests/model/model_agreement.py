"""Two ``Model``s of one design held against each other on whole state spaces (the test
suite's helper): from every reachable state, the same actions, by the same names, leading to
the same states."""

from __future__ import annotations

from collections import Counter

from replcheck.model import STANDARD, Config, get_design
from replcheck.model.plain import PlainModel
from replcheck.model.text_model import TextModel
from replcheck.specs.bmc import normalize


def agree(
    name: str,
    config: str | Config,
    depth: int | None = None,
    taken: Counter | None = None,
    *,
    ref: type = TextModel,
    other: type = PlainModel,
) -> int:
    """How many states both models reach, agreeing on each one's successors: every state, or
    every state within ``depth`` steps (breadth first) where the space has no end. ``taken``
    counts the actions taken, by name. The reference's successors are compared with their
    shippers sorted (``normalize``), as the text's readable state keeps them."""
    cfg = STANDARD[config] if isinstance(config, str) else config
    want_model = ref(get_design(name), cfg)
    got_model = other(get_design(name), cfg)
    s0 = want_model.init()
    assert got_model.init() == s0
    seen, frontier = {s0}, [s0]
    level = 0
    while frontier and (depth is None or level < depth):
        level += 1
        later = []
        for st in frontier:
            want = Counter((a, normalize(want_model.step(st, a))) for a in want_model.enabled(st))
            assert Counter(got_model.successors(st)) == want, st
            for a, nxt in want:
                if taken is not None:
                    taken[a.name] += 1
                if nxt not in seen:
                    seen.add(nxt)
                    later.append(nxt)
        frontier = later
    return len(seen)
