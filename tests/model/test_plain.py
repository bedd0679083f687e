"""``PlainModel`` (``model/plain.py``), the text on plain values, against the generated program
(``TextModel``) on whole state spaces, and against the explicit steps where no program is
generated: from every reachable state, the same actions leading to the same states."""

from __future__ import annotations

import pytest
from model_agreement import agree
from replcheck.model import STANDARD, Config, Model, get_design
from replcheck.model.model import ExplicitModel
from replcheck.model.plain import PlainModel
from replcheck.model.plain_index import Index, probe
from replcheck.model.step import steps_of
from replcheck.model.text_model import TEXT_SLOTS, TextModel

from replcheck.matrix import resolve_config


def _agree(name: str, cfg: Config, other: type, depth: int | None = None) -> int:
    """How many states ``other`` and ``PlainModel`` both reach, agreeing on each one's
    successors (within ``depth`` steps, breadth first, if given)."""
    return agree(name, cfg, depth, ref=other, other=PlainModel)


FAST = [
    ("zk-multi", "race", 1246),
    ("zk-lock", "race", 802),
    ("zk-lock", "master-master", 398),
    ("table", "t-race", 1400),
]
SLOW = [
    ("zk-multi", "cleaner-race", 2467),
    ("zk-lock", "zk-faults", 3096),
    ("zk-multi", "multiwal", 6771),
    ("zk-multi", "filtering", 5254),
    ("table", "t-add-peer", 5800),
    ("table", "t-sync", 24666),
    ("table", "t-migrate", 5443),
]


@pytest.mark.parametrize(("name", "config", "states"), FAST)
def test_the_plain_interpreter_agrees_with_the_generated_program(
    name: str, config: str, states: int
) -> None:
    assert _agree(name, STANDARD[config], TextModel) == states


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config", "states"), SLOW)
def test_the_plain_interpreter_agrees_on_more_configurations(
    name: str, config: str, states: int
) -> None:
    assert _agree(name, STANDARD[config], TextModel) == states


def test_a_layout_too_large_to_generate_runs_on_the_plain_interpreter() -> None:
    """Past ``TEXT_SLOTS`` no program is generated: the text runs on plain values, and agrees
    with the explicit steps on every state within four steps."""
    big = resolve_config("std:servers=8")
    model = Model(get_design("zk-multi"), big)
    assert type(model) is PlainModel
    assert len(model.text.sorts()) > TEXT_SLOTS
    assert _agree("zk-multi", big, ExplicitModel, depth=4) > 1000


def test_a_step_is_filed_under_the_values_its_leading_requires_take() -> None:
    """Steps are indexed by what they first read: ``ship`` begins by requiring its shipper and
    its head WAL, so it is filed under that slot being set and that head; a state tries the
    ``ship`` instances of the shippers it has, at their heads, and no other. A relayed edit's
    step requires the relay's next entry, the server's current WAL and that WAL's length, each
    equal to one of its arguments: it is filed under those three values."""
    model = PlainModel(get_design("zk-multi"), STANDARD["std"])
    flat, text = model.flat, model.text
    sorts, defaults = text.sorts(), text.shared_defaults()
    body = {s.name: s.body for s in steps_of(type(text))}
    ships = [i for i, inst in enumerate(flat.instances) if inst.name == "ship"]
    assert ships
    for i in ships:
        args = flat.instances[i].args
        assert probe(text, body["ship"], args, sorts, defaults)[:2] == [
            (("sh", *args[:5]), frozenset({True})),
            (("shw", *args[:5], 0), frozenset({args[5]})),
        ]
    values = text.encode(model.init())
    tried = set(Index(text, flat.instances, defaults).candidates(values, defaults))
    present = {
        i
        for i in ships
        if values[("sh", *flat.instances[i].args[:5])]
        and values[("shw", *flat.instances[i].args[:5], 0)] == flat.instances[i].args[5]
    }
    assert present and len(present) < len(ships)
    assert tried & set(ships) == present

    relay = PlainModel(get_design("zk-lock"), STANDARD["master-master"])
    rtext = relay.text
    home = [x for x in relay.flat.instances if x.name == "relay_home" and x.args[3] >= 0]
    assert home
    rbody = {s.name: s.body for s in steps_of(type(rtext))}["relay_home"]
    for inst in home:
        cl, s, i, q, e = inst.args
        levels = probe(rtext, rbody, inst.args, rtext.sorts(), rtext.shared_defaults())
        w = rtext.cfg.slot((s, 0, q))
        assert [(k, set(v)) for k, v in levels] == [
            (("rship", cl, 0), {i}),
            (("cur", s, 0), {q}),
            (("wn", w), {e}),
        ]


@pytest.mark.parametrize("name", ["zk-multi", "zk-lock"])
def test_a_zookeeper_era_master_restart_is_the_explicit_one(name: str) -> None:
    """A recorded run's master restarts (the ZooKeeper era's cleaner loses its snapshot or its
    cache): the text's step agrees with the explicit one on every state within five steps of a
    configuration where a cleaner run is under way."""
    import dataclasses

    cfg = dataclasses.replace(STANDARD["std"], name="std+master-restarts", master_restarts=1)
    assert _agree(name, cfg, ExplicitModel, depth=5) > 100
