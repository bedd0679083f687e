"""``PlainModel`` (``model/engine/plain.py``), the text on plain values, against the generated
program (``TextModel``) on whole state spaces: from every reachable state, the same actions leading
to the same states."""

from __future__ import annotations

import pytest
from model_agreement import agree
from replcheck.model import STANDARD, Config, Model, get_design
from replcheck.model.engine.choice import TEXT_SLOTS
from replcheck.model.engine.plain import PlainModel
from replcheck.model.engine.plain_index import Index, probe
from replcheck.model.engine.step import steps_of
from replcheck.model.engine.text_model import NotCovered, TextModel
from replcheck.model.table.state import ARQP_PUT_MISSING

from replcheck.matrix import resolve_config


def _agree(name: str, cfg: Config, other: type, depth: int | None = None) -> int:
    """How many states ``other`` and ``PlainModel`` both reach, agreeing on each one's
    successors (within ``depth`` steps, breadth first, if given)."""
    return agree(name, cfg, depth, ref=other, other=PlainModel)


BIG_STATES = 25203
"""States of ``std:servers=8`` within four steps (``zk-multi``)."""

# The ZooKeeper era's agreements of the same two interpreters are
# tests/model/engine/test_text_model.py's; the largest (table@t-sync, zk-multi@zk-faults) are
# bench/agreement.py's.
FAST = [("table", "t-race", 1400)]
SLOW = [
    ("table", "t-add-peer", 5800),
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
    """Past ``TEXT_SLOTS`` no program is generated: the text runs on plain values. Eight
    servers reach the pinned number of states within four steps (the same text, generated,
    reaches as many: a minute's generation, measured once, too long for the suite)."""
    big = resolve_config("std:servers=8")
    model = Model(get_design("zk-multi"), big)
    assert type(model) is PlainModel
    assert len(model.text.sorts()) > TEXT_SLOTS
    seen = frontier = {model.init()}
    for _ in range(4):
        frontier = {nxt for st in frontier for _a, nxt in model.successors(st)} - seen
        seen = seen | frontier
    assert len(seen) == BIG_STATES


def test_a_step_is_filed_under_the_values_its_leading_requires_take() -> None:
    """Steps are indexed by what they first read: ``ship`` declares that it requires its
    shipper and its head WAL first (``lead``), so it is filed under that slot being set and
    that head; a state tries the ``ship`` instances of the shippers it has, at their heads, and
    no other. A client write begins by requiring the server's current WAL and that WAL's
    length, each equal to one of its arguments (its ``lead``): it is filed under those two
    values. A step with no lead is probed: SCP's ADD_MISSING_QUEUES stage compares the stage
    slot with one constant, and is filed under that value."""
    model = PlainModel(get_design("zk-multi"), STANDARD["std"])
    flat, text = model.flat, model.text
    defaults = text.shared_defaults()
    ships = [i for i, inst in enumerate(flat.instances) if inst.name == "ship"]
    assert ships
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
    puts = [x for x in relay.flat.instances if x.name == "put"]
    assert puts
    at = rtext.encode(relay.init())
    tried = set(
        Index(rtext, relay.flat.instances, defaults=rtext.shared_defaults()).candidates(
            at, rtext.shared_defaults()
        )
    )
    want = set()
    for i, inst in enumerate(relay.flat.instances):
        if inst.name == "put":
            s, g, _kind, q, j = inst.args
            if at[("cur", s, g)] == q and at[("wn", rtext.cfg.slot((s, g, q)))] == j:
                want.add(i)
    assert want and len(want) < len(puts)
    assert {i for i in tried if relay.flat.instances[i].name == "put"} == want

    # A step with no lead is probed: the procedure's stage is compared with one constant.
    table = PlainModel(get_design("table"), resolve_config("t-std"))
    ttext = table.text
    body = {s.name: s.body for s in steps_of(type(ttext))}["arqp_put_missing"]
    for d in ttext.S:
        levels = probe(ttext, body, (d,), ttext.sorts(), ttext.shared_defaults())
        assert [(k, set(v)) for k, v in levels] == [(("stage", d), {ARQP_PUT_MISSING})]


MASTER_RESTART_STATES = {"zk-multi": 795, "zk-lock": 737}


@pytest.mark.parametrize("name", ["zk-multi", "zk-lock"])
def test_a_zookeeper_era_master_restart_agrees(name: str) -> None:
    """A recorded run's master restarts (the ZooKeeper era's cleaner loses its snapshot or its
    cache): on plain values as generated, on every state within five steps of a configuration
    where a cleaner run is under way."""
    import dataclasses

    cfg = dataclasses.replace(STANDARD["std"], name="std+master-restarts", master_restarts=1)
    assert _agree(name, cfg, TextModel, depth=5) == MASTER_RESTART_STATES[name]


def test_one_kinds_actions_are_those_of_every_kind() -> None:
    """What a trace's event asks of a state (``enabled_args`` for one kind, and ``step``) tries
    only that kind's instances: on every state within eleven steps of a cyclic topology with
    zombies and servers joining, each kind's actions, asked first, are those ``enabled`` gives."""
    cfg = STANDARD["cyclic"].with_overrides(zombies=True, joins=1)
    one, every = PlainModel(get_design("zk-lock"), cfg), PlainModel(get_design("zk-lock"), cfg)
    kinds = [k.name for k in one.design.kinds]
    frontier, seen, states = [one.init()], set(), 0
    for _ in range(11):
        nxt = []
        for st in frontier:
            if st in seen:
                continue
            seen.add(st)
            states += 1
            asked = {k: one.enabled_args(st, k) for k in kinds}
            whole = every.enabled(st)
            assert asked == {k: [a.args for a in whole if a.name == k] for k in kinds}
            for a in whole:
                try:
                    after = every.step(st, a)
                except NotCovered:  # past the standard layout's WALs
                    with pytest.raises(NotCovered):
                        one.step(st, a)
                    continue
                assert one.step(st, a) == after
                nxt.append(after)
        frontier = nxt
    assert states > 1000
