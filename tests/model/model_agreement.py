"""Two ``Model``s of one design held against each other on whole state spaces (the test
suite's helper): from every reachable state, the same actions, by the same names, leading to
the same states, and the same verdict of every property on every state and step (the text's
properties as each engine checks them: the generated program's, and the plain interpreter's,
which takes a successor's verdict from its parent's where the step wrote nothing it read)."""

from __future__ import annotations

from collections import Counter

from replcheck.model import STANDARD, Config, Model, get_design
from replcheck.model.engine.plain import PlainModel
from replcheck.model.engine.text_model import TextModel
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
            mine = list(got_model.successors(st))
            assert Counter(mine) == want, st
            verdicts(want_model, got_model, st, mine)
            for a, nxt in want:
                if taken is not None:
                    taken[a.name] += 1
                if nxt not in seen:
                    seen.add(nxt)
                    later.append(nxt)
        frontier = later
    return len(seen)


def verdicts(want_model: Model, got_model: Model, st: object, mine: list) -> None:
    """Both models' verdicts of every property agree on ``st``, its successors (``mine``, as
    ``got_model`` gave them) and the steps to them."""
    cfg = want_model.cfg
    assert [p.name for p in got_model.properties] == [p.name for p in want_model.properties]
    for want, got in zip(
        want_model.invariants + want_model.liveness,
        got_model.invariants + got_model.liveness,
        strict=True,
    ):
        assert got.check(cfg, st) == want.check(cfg, st), (want.name, st)
    for _a, nxt in mine:
        for want, got in zip(want_model.invariants, got_model.invariants, strict=True):
            assert got.check(cfg, nxt) == want.check(cfg, nxt), (want.name, nxt)
        for want, got in zip(want_model.step_properties, got_model.step_properties, strict=True):
            assert got.check(cfg, st, nxt) == want.check(cfg, st, nxt), (want.name, st, nxt)
