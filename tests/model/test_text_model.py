"""``TextModel`` (``model/text_model.py``) against the explicit model on whole state spaces:
from every reachable state, the same actions, by the same names, leading to the same states."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from replcheck.model import STANDARD, Config, Model, get_design
from replcheck.model.text_model import TextModel


def _agree(name: str, config: str | Config) -> int:
    cfg = STANDARD[config] if isinstance(config, str) else config
    explicit = Model(get_design(name), cfg)
    text = TextModel(get_design(name), cfg)
    s0 = explicit.init()
    assert text.init() == s0
    seen, todo = {s0}, [s0]
    while todo:
        st = todo.pop()
        want = Counter((a, explicit.step(st, a)) for a in explicit.enabled(st))
        assert Counter(text.successors(st)) == want, st
        for _a, nxt in want:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen)


def test_every_step_agrees_on_a_race() -> None:
    assert _agree("table", "t-race") == 1400


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "config", "states"),
    [
        ("table", "t-remove-peer", 6550),
        ("table", "t-master-restart", 17552),
        ("table", "t-add-peer", 5800),
    ],
)
def test_every_step_agrees(name: str, config: str, states: int) -> None:
    assert _agree(name, config) == states


@pytest.mark.slow
def test_peer_toggles_agree() -> None:
    """The admin's disable_peer and enable_peer (``model/peers.py``), with an admin budget that
    lets a peer be disabled and enabled again (both are taken: 514 times each)."""
    cfg = dataclasses.replace(
        STANDARD["t-remove-peer"], name="t-remove-peer+toggles", peer_toggles=True, admin_ops=2
    )
    assert _agree("table", cfg) == 13614


def test_a_joining_server_agrees() -> None:
    """``join`` (``model/joins.py``): a third server slot of ``t-race`` that joins the running
    cluster (456 of the transitions are its join)."""
    cfg = dataclasses.replace(STANDARD["t-race"], name="t-race+join", servers=3, joins=1)
    assert _agree("table", cfg) == 1856


@pytest.mark.slow
def test_a_joining_server_agrees_during_an_add_peer() -> None:
    cfg = dataclasses.replace(STANDARD["t-add-peer"], name="t-add-peer+join", servers=3, joins=1)
    assert _agree("table", cfg) == 44208
