"""Symmetry reduction without enumerating every ordering of the servers
(``model/engine/canonical.py``): the canonical form is the same from every renaming of a state (it
is canonical), and it costs little with many servers."""

from __future__ import annotations

import random

import pytest
from replcheck.model import Model, get_design
from replcheck.specs.explore import explore

from replcheck.matrix import resolve_config


@pytest.mark.parametrize(
    ("design", "config"),
    [("zk-multi", "race:servers=4"), ("zk-lock", "double-failure"), ("table", "t-double")],
)
def test_every_renaming_of_a_state_has_the_same_canonical_form(design: str, config: str) -> None:
    model = Model(get_design(design), resolve_config(config))
    cfg = model.cfg
    rng = random.Random(7)
    states = explore(model, symmetry=False, max_states=1500).states
    tied = 0
    for st in rng.sample(states, min(300, len(states))):
        canon = model.canonical(st)
        for _ in range(3):
            perm = list(range(cfg.servers))
            rng.shuffle(perm)
            assert model.canonical(model.rename(st, tuple(perm))) == canon
        tied += canon != st
    assert tied  # some states were not already in canonical order


def test_many_servers_cost_little(monkeypatch) -> None:
    """Nothing enumerates the 50! orderings of 50 servers: the model is built and a state
    reduced trying at most ``TIE_LIMIT`` orders per state."""
    from replcheck.model.engine import canonical as model_module

    tried: list[int] = []
    real_product = model_module.product

    def counting_product(*choices):  # type: ignore[no-untyped-def]
        tried.append(0)
        for order in real_product(*choices):
            tried[-1] += 1
            yield order

    monkeypatch.setattr(model_module, "product", counting_product)
    model = Model(get_design("zk-multi"), resolve_config("std:servers=50"))
    st = model.init()
    assert model.canonical(st) == st
    for action in model.enabled(st)[:20]:
        model.canonical(model.step(st, action))
    assert tried, "the reduction was not reached"
    assert max(tried) <= model_module.TIE_LIMIT, tried
