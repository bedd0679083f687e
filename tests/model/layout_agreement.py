"""The one check every flat-model test makes: a design's flat model (the text over
``model/zk/layout.py`` or ``model/table/layout.py``) against its ``Model`` (``reference``: the
text's generated program, or the plain interpreter), state by state, on plain values. On each
state: the flat form is within its declared ranges and round-trips; the flat steps lead to
exactly the model's successors; every invariant and liveness goal of the text, evaluated on plain
values, gives the verdict the model's engine gives (the generated program's check, or the plain
interpreter's with its verdicts taken over from a parent; the layout's own ``encoding_capacity``
always holds); so does every step property on every transition. Shippers (and unregistered WALs)
are compared as sets (``bmc.normalize``)."""

from __future__ import annotations

from collections.abc import Iterable

from replcheck.model import STANDARD, Model, State, get_design
from replcheck.model.config import Config
from replcheck.model.engine.catalogue import flat_model
from replcheck.model.engine.text import FPY, is_true
from replcheck.specs.bmc import normalize
from replcheck.specs.explore import explore


def reference(name: str, cfg: Config) -> Model:
    """What the flat model is held against: the design's ``Model`` (the text's generated
    program, or the plain interpreter): its steps are held as one interpreter against another,
    and so are its properties' verdicts."""
    return Model(get_design(name), cfg)


def check_states(name: str, config: str, states: Iterable[State]) -> tuple[int, set[str]]:
    """Compare both models of ``name`` under ``config`` on ``states``: (how many states, the
    invariants the model finds broken on them)."""
    cfg = STANDARD[config]
    model = reference(name, cfg)
    fm = flat_model(name, cfg)
    invariants = {p.name: p for p in model.invariants}
    steps = {p.name: p for p in model.step_properties}
    n = 0
    broken: set[str] = set()
    for st in states:
        n += 1
        flat = fm.encode(st)
        assert not fm.in_range(flat), (name, config, fm.in_range(flat))
        assert normalize(fm.decode(flat)) == normalize(st)
        want = {normalize(model.step(st, a)) for a in model.enabled(st)}
        got = {normalize(fm.decode(nxt)): nxt for _inst, nxt in fm.successors(flat)}
        assert set(got) == want, (name, config, st)
        for p in fm.invariants:
            verdict = is_true(p.check(FPY, flat.__getitem__))
            if p.name == "encoding_capacity":
                assert verdict
                continue
            expected = invariants[p.name].check(cfg, st)
            assert verdict == expected, (p.name, st)
            if not expected:
                broken.add(p.name)
        goals = {p.name: p for p in model.liveness}
        for p in fm.properties:
            if p.kind == "liveness":
                assert is_true(p.check(FPY, flat.__getitem__)) == goals[p.name].check(cfg, st)
        assert {p.name for p in fm.properties if p.kind == "liveness"} == set(goals)
        for p in fm.step_properties:
            for after, nxt in got.items():
                verdict = is_true(p.check(FPY, flat.__getitem__, nxt.__getitem__))
                assert verdict == steps[p.name].check(cfg, st, after), (p.name, st, after)
    return n, broken


def agree(name: str, config: str, states: int) -> int:
    """``check_states`` on a breadth-first prefix of at least ``states`` states (the whole
    space, where it is smaller); how many there were."""
    model = reference(name, STANDARD[config])
    ex = explore(model, symmetry=False, max_states=states)
    n, _broken = check_states(name, config, ex.states)
    assert n == len(ex.states) and (n >= states or ex.complete), (name, config, n, ex.stopped)
    return n
