"""The flat table model's mutant ``table/add-missing-rerun`` (its text, ``model/table/scp.py``)
against the model (the text's generated program), on plain values, as ``test_table_layout.py``
does for the base: on every state of a breadth-first prefix, the flat form round-trips, the flat
steps lead to exactly the model's successors, and every flat invariant and the step property
give the model engine's verdicts. Then the independent engine: bounded model checking agrees with
exploration on first violation depths."""

from __future__ import annotations

from collections import deque

import pytest
from layout_agreement import agree, check_states
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.table.compose import table_flat_model
from replcheck.model.zk.layout import FlatError
from replcheck.specs.bmc import normalize
from replcheck.specs.crosscheck import cross_check
from replcheck.specs.explore import explore


def _agree_on(name: str, config: str, states) -> int:
    n, _broken = check_states(name, config, states)
    return n


def agree_where(name: str, config: str, action: str, most: int | None = None) -> int:
    """On the reachable states where ``action`` is enabled (the whole space is explored; only
    those states, the first ``most`` of them in breadth-first order, are compared)."""
    model = Model(get_design(name), STANDARD[config])
    ex = explore(model, symmetry=False)
    where = [st for st in ex.states if any(a.name == action for a in model.enabled(st))]
    assert where, (name, config, action)
    return _agree_on(name, config, where[:most])


def from_state(name: str, config: str, start, states: int) -> list:
    """A breadth-first prefix of the states the model reaches from ``start``."""
    model = Model(get_design(name), STANDARD[config])
    seen = {normalize(start)}
    out, todo = [], deque([start])
    while todo and len(out) < states:
        st = todo.popleft()
        out.append(st)
        for a in model.enabled(st):
            nxt = model.step(st, a)
            if normalize(nxt) not in seen:
                seen.add(normalize(nxt))
                todo.append(nxt)
    return out


# --- table/add-missing-rerun --------------------------------------------------------------------


def test_add_missing_rerun_prefix_matches() -> None:
    """The first CLAIM round is enabled about 180 states into the breadth-first order."""
    agree("table/add-missing-rerun", "t-race", 300)


@pytest.mark.slow
def test_add_missing_rerun_claim_rounds_match() -> None:
    """Every reachable state where a CLAIM round is enabled, each with all its successors, except
    those past the flat form's bounds: a third shipper of one recovered queue on one server
    (from depth 20) is refused."""
    name, config = "table/add-missing-rerun", "t-race"
    cfg = STANDARD[config]
    model = Model(get_design(name), cfg)
    fm = table_flat_model(name, cfg)
    ex = explore(model, symmetry=False)
    where = []
    for st in ex.states:
        if not any(a.name == "arqp_claim" for a in model.enabled(st)):
            continue
        try:
            for a in model.enabled(st):
                fm.encode(model.step(st, a))
        except FlatError:
            continue
        where.append(st)
    assert len(where) > 1000
    assert _agree_on(name, config, where) == len(where)


@pytest.mark.slow
def test_add_missing_rerun_larger_prefix_matches() -> None:
    agree("table/add-missing-rerun", "t-race", 1500)


# --- the independent engine ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "config", "depth"),
    [
        # t-bootstrap is exhausted at depth 4 (table) and 0 (table-naive): the whole space.
        ("table", "t-bootstrap", 4),
        ("table-naive", "t-bootstrap", 4),
        # No safety property breaks anywhere in t-remove-starve (exploration exhausts it at depth
        # 36); bounded model checking costs about two minutes to depth 6 (crashes, SCPs, claims
        # and the peer removal's first steps). A restart is first enabled at depth 13, out of
        # reach in minutes (depth 8 alone takes five).
        ("table", "t-remove-starve", 6),
        ("table/HBASE-27213-recollect", "t-remove-starve", 6),
        # one_queue_per_source first breaks at depth 9 by exploration (single_source at 11);
        # depth 9 takes about seven minutes, depth 11 more than twenty-five.
        ("table/add-missing-rerun", "t-race", 9),
    ],
)
def test_engines_agree(name: str, config: str, depth: int) -> None:
    cc = cross_check(name, STANDARD[config], depth)
    assert cc.agree, cc.to_dict()
    if name == "table/add-missing-rerun":
        assert cc.bounded == {"one_queue_per_source": 9}
