"""``TextModel``'s generated program (``model/engine/text_model.py``) against the plain interpreter
(``model/engine/plain.py``), both eras, on whole state spaces: from every reachable state, the same
actions, by the same names, leading to the same states. The state counts pinned here are the
ones the table era's explicit steps gave, while they existed, against the same program. The
largest spaces (minutes each) are ``bench/agreement.py``'s."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from model_agreement import agree
from replcheck.model import STANDARD, Config, Model, get_design
from replcheck.model.engine.choice import TEXT_SLOTS
from replcheck.model.engine.plain import PlainModel
from replcheck.model.engine.text_model import TextModel


def _agree(name: str, config: str | Config, **kw: object) -> int:
    """``agree``: the generated program against the plain interpreter."""
    return agree(name, config, **kw)  # type: ignore[arg-type]


def test_the_zookeeper_era_runs_on_the_text_where_it_covers_the_configuration() -> None:
    """Every ZooKeeper-era design and mutant with a flat form runs on the text; a recorded
    run's configuration (servers joining, zombies) and a layout past ``TEXT_SLOTS`` run on the
    plain interpreter; so does a design object of its own that the registry does not know (its
    steps are the text's too)."""
    from replcheck.matrix import resolve_config

    for name in ("zk-multi", "zk-lock", "zk-lock/HBASE-3515", "zk-multi/HBASE-12241"):
        assert type(Model(get_design(name), STANDARD["std"])) is TextModel, name
    traced = dataclasses.replace(STANDARD["std"], name="std+zombies", zombies=True)
    assert type(Model(get_design("zk-multi"), traced)) is PlainModel
    from replcheck.model.zk.multi import ZkMulti

    class Own(ZkMulti):
        """Not the registry's zk-multi, though it bears its name."""

    assert type(Model(Own(), traced)) is PlainModel
    assert type(Model(Own(), STANDARD["std"])) is TextModel
    big = resolve_config("std:servers=8")
    assert type(Model(get_design("zk-multi"), big)) is PlainModel
    from replcheck.model.engine.catalogue import flat_class

    z = flat_class("zk-multi", big)(get_design("zk-multi"), big)
    assert len(z.sorts()) > TEXT_SLOTS


def test_every_table_era_design_runs_on_the_text() -> None:
    """The table era's steps are only in the text: every built-in table-era design and mutant
    runs there under each of its configurations; a design object the registry does not know is
    refused in one line (its text is composed from the registered design of its name)."""
    from replcheck.model.engine.text_model import NotCovered
    from replcheck.model.registry import DESIGNS
    from replcheck.model.table.designs import Table

    for name, cls in DESIGNS.items():
        if cls.era == "table":
            for config in cls.configs:
                engine = type(Model(get_design(name), STANDARD[config]))
                assert engine in (TextModel, PlainModel), (name, config)

    class Own(Table):
        """Not the registry's table, though it bears its name."""

    with pytest.raises(NotCovered, match="the registry does not know"):
        Model(Own(), STANDARD["t-std"])


FAST_ZK = [("zk-multi", "race", 1246), ("zk-lock", "race", 802), ("zk-lock", "master-master", 398)]
SLOW_ZK = [
    ("zk-multi", "cleaner-race", 2467),
    ("zk-lock", "zk-faults", 3096),
    ("zk-multi", "multiwal", 6771),
    ("zk-lock", "sink-outage", 2492),
    ("zk-multi", "filtering", 5254),
    ("zk-lock", "cyclic", 97),
    ("zk-lock/claim-without-chain", "race", 841),
    ("zk-lock", "chore", 21452),
]


def _traced(config: str, **bounds: int | bool) -> Config:
    """A standard configuration with a recorded run's features (``zombies``, servers joining)."""
    name = "+".join([config, *bounds])
    return dataclasses.replace(STANDARD[config], name=name, **bounds)  # type: ignore[arg-type]


ZK_TRACED = [
    # (design, configuration, depth, states, steps each taken at least once)
    (
        "zk-lock",
        _traced("race", servers=3, joins=1, zombies=True),
        8,
        3075,
        ("join", "died_starting"),
    ),
    (
        "zk-multi",
        _traced("race", servers=3, joins=1, zombies=True),
        8,
        3330,
        ("join", "died_starting"),
    ),
    (
        "zk-lock",
        _traced("std", zombies=True),
        8,
        9788,
        ("zombie_put", "zombie_roll", "zombie_archive", "zombie_ship"),
    ),
    (
        "zk-lock",
        _traced("master-master", zombies=True, crashes=1),
        5,
        407,
        ("relay_apply", "zombie_relay_apply"),
    ),
]


@pytest.mark.parametrize(("name", "cfg", "depth", "states", "steps"), ZK_TRACED)
def test_the_zookeeper_eras_recorded_run_steps_agree(
    name: str, cfg: Config, depth: int, states: int, steps: tuple[str, ...]
) -> None:
    """The steps only a recorded run's configuration has (``model/zk/joins.py``,
    ``model/zk/zombies.py``, ``relay_apply``), generated and on plain values, every state within
    ``depth`` steps (a zombie's relayed edit can be applied again and again, for ever; the
    layout holds a few)."""
    taken: Counter = Counter()
    assert _agree(name, cfg, depth=depth, taken=taken) == states
    for step in steps:
        assert taken[step], step


@pytest.mark.slow
def test_zk_multis_zombies_agree() -> None:
    taken: Counter = Counter()
    assert _agree("zk-multi", _traced("std", zombies=True), depth=8, taken=taken) == 14529
    assert taken["zombie_roll"] and taken["zombie_archive"]


@pytest.mark.parametrize(
    ("name", "config", "states"),
    FAST_ZK + [pytest.param(*p, marks=pytest.mark.slow) for p in SLOW_ZK],
)
def test_every_zookeeper_step_agrees(name: str, config: str, states: int) -> None:
    """Every ZooKeeper-era step of the text, generated and on plain values, by action name and
    arguments (the shipper's index on its server, the queue's among the dead server's)."""
    assert _agree(name, config) == states


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "config", "states"),
    [
        ("table", "t-remove-peer", 6550),
        ("table", "t-master-restart", 17552),
    ],
)
def test_every_step_agrees(name: str, config: str, states: int) -> None:
    assert _agree(name, config) == states


@pytest.mark.slow
def test_peer_toggles_agree() -> None:
    """The admin's disable_peer and enable_peer (``model/table/peers.py``), with an admin budget
    that lets a peer be disabled and enabled again (both are taken: 514 times each)."""
    cfg = dataclasses.replace(
        STANDARD["t-remove-peer"], name="t-remove-peer+toggles", peer_toggles=True, admin_ops=2
    )
    assert _agree("table", cfg) == 13614


def test_a_joining_server_agrees() -> None:
    """``join`` (``model/features/joins.py``): a third server slot of ``t-race`` that joins the
    running cluster (456 of the transitions are its join)."""
    cfg = dataclasses.replace(STANDARD["t-race"], name="t-race+join", servers=3, joins=1)
    assert _agree("table", cfg) == 1856


def test_a_zombie_agrees() -> None:
    """What a dead server does before its split (``model/features/zombies.py``), with the last
    server allowed to die (``crash``): ``t-race`` on two servers with ``zombies``. A zombie's
    ``zombie_persist`` can write back a row a claim already moved, and the next claim round moves
    it again, for ever, so the space has no end: every state within 20 steps."""
    cfg = dataclasses.replace(
        STANDARD["t-race"], name="t-race+zombies", servers=2, master_restarts=0, zombies=True
    )
    taken: Counter = Counter()
    assert _agree("table", cfg, depth=20, taken=taken) == 16257
    zombie = {k: v for k, v in taken.items() if k.startswith("zombie_")}
    assert zombie == {
        "zombie_persist": 42482,
        "zombie_refresh": 14410,
        "zombie_ship": 13662,
        "zombie_put": 14,
    }


TABLE_RELAYS = [
    # (configuration, depth, states, relay steps each taken at least once)
    (
        _traced("t-std", topology=((1, 0),), foreign_edits=1),
        7,
        8411,
        ("foreign_put", "relay_home"),
    ),
    (
        _traced("t-std", topology=((1, 2), (2, 0)), foreign_edits=1, crashes=0),
        7,
        5105,
        ("foreign_put", "relay_ship", "relay_home"),
    ),
    (
        _traced(
            "t-race",
            servers=2,
            master_restarts=0,
            zombies=True,
            topology=((1, 0),),
            foreign_edits=1,
            wal_entries=8,
        ),
        6,
        3156,
        ("relay_apply", "zombie_relay_apply"),
    ),
]


@pytest.mark.parametrize(("cfg", "depth", "states", "steps"), TABLE_RELAYS)
def test_the_table_eras_relay_clusters_agree(
    cfg: Config, depth: int, states: int, steps: tuple[str, ...]
) -> None:
    """The other clusters of a master-master and a cyclic topology in the table era's text
    (``model/features/relays.py``, both eras' ``model/common/relay_steps.py``): the generated
    program against the plain interpreter, every state within ``depth`` steps (a zombie's relayed
    edit can be applied again and again: the layout holds eight entries per WAL)."""
    taken: Counter = Counter()
    got = agree("table", cfg, depth, taken)
    assert got == states
    for step in steps:
        assert taken[step], step
