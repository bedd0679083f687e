from __future__ import annotations

import random

import pytest
from replcheck.model import STANDARD, Model, designs, get_design
from replcheck.model.engine.text_model import NotCovered


def random_states(model: Model, walks: int = 30, length: int = 25, seed: int = 7):
    rng = random.Random(seed)
    for _ in range(walks):
        st = model.init()
        for _ in range(length):
            acts = model.enabled(st)
            if not acts:
                break
            st = model.step(st, rng.choice(acts))
            yield st


@pytest.mark.parametrize("name", designs())
def test_canonical_form_is_the_same_for_every_renaming(name: str) -> None:
    design = get_design(name)
    table_era = design.era == "table"
    model = Model(design, STANDARD["t-remove-zombie" if table_era else "race"])
    perms = [(1, 0, 2), (2, 1, 0), (1, 2, 0)]
    for st in random_states(model):
        canon = model.canonical(st)
        for perm in perms:
            assert model.canonical(model.rename(st, perm)) == canon


@pytest.mark.parametrize("name", designs())
def test_states_are_hashable_values_and_steps_are_pure(name: str) -> None:
    model = Model(get_design(name), STANDARD["std"])
    for st in random_states(model, walks=10):
        assert hash(st) == hash(type(st)(*st))
        for action in model.enabled(st):
            assert model.step(st, action) == model.step(st, action)


def test_init_satisfies_every_invariant() -> None:
    for name in designs():
        for cfg in STANDARD.values():
            try:
                model = Model(get_design(name), cfg)
            except NotCovered:  # the table era's text has no ZooKeeper faults
                assert get_design(name).era == "table" and cfg.zk_faults, (name, cfg.name)
                continue
            s0 = model.init()
            assert all(p.check(cfg, s0) for p in model.invariants), (name, cfg.name)
