"""Drawing states as seed 000 draws znode layouts (``replcheck.model.render.draw``)."""

from __future__ import annotations

import json

import pytest
from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.render.draw import (
    describe_action,
    render_diff,
    render_rs_tree,
    render_state,
    rs_changed,
    state_dict,
)

S1 = "1.1.1.1,60020,123456780"
S2 = "1.1.1.2,60020,123456790"


def run(model: Model, *actions: Action):
    """Apply actions in order, each required to be enabled; return every state."""
    states = [model.init()]
    for a in actions:
        assert a in model.enabled(states[-1]), f"{a} is not enabled"
        states.append(model.step(states[-1], a))
    return states


@pytest.fixture
def zk_lock() -> Model:
    return Model(get_design("zk-lock"), STANDARD["std"])


def test_initial_state_is_drawn_like_seed_000(zk_lock: Model) -> None:
    text = render_state(zk_lock.cfg, zk_lock.init())
    lines = text.splitlines()
    assert lines[0] == "/hbase/replication/rs/"
    assert f"  {S1}/" in lines
    assert f"  {S2}/" in lines
    i = lines.index(f"  {S1}/")
    assert lines[i + 1] == "    2/"
    assert lines[i + 2] == "      1.1.1.1,60020.1234  (position 0)"
    assert "/hbase/replication/peers/2/peer-state: ENABLED" in lines
    assert "/hbase/replication/state: true" in lines
    for section in ("WAL files:", "sources (in memory):", "sinks:"):
        assert section in lines
    assert any(line.startswith("log cleaner:") for line in lines)
    assert any(line.startswith("budgets left:") for line in lines)


def test_crash_then_lock_draws_the_lock_child(zk_lock: Model) -> None:
    _s0, crashed, locked = run(zk_lock, Action("crash", (1,)), Action("lock", (0, 1)))
    tree = render_rs_tree(zk_lock.cfg, crashed).splitlines()
    assert f"  {S2}/   [dead]" in tree
    assert not any("lock" in line for line in tree)

    lines = render_state(zk_lock.cfg, locked).splitlines()
    i = lines.index(f"  {S2}/   [dead]")
    assert lines[i + 1] == f"    lock  (held by {S1})"
    assert lines[i + 2] == "    2/"


def test_claimed_queue_is_named_after_the_dead_server(zk_lock: Model) -> None:
    *_, copied = run(
        zk_lock,
        Action("crash", (1,)),
        Action("lock", (0, 1)),
        Action("copy_queue", (0, 1, 0)),
    )
    lines = render_rs_tree(zk_lock.cfg, copied).splitlines()
    i = lines.index(f"  {S1}/")
    assert f"    2-{S2}/" in lines[i:]
    j = lines.index(f"    2-{S2}/")
    assert lines[j + 1] == "      1.1.1.2,60020.1234  (position 0)"


def test_diff_names_what_changed(zk_lock: Model) -> None:
    s0, crashed, locked = run(zk_lock, Action("crash", (1,)), Action("lock", (0, 1)))
    diff = render_diff(zk_lock.cfg, crashed, locked)
    assert diff == f"+ /hbase/replication/rs/{S2}/lock: held by {S1}"
    assert render_diff(zk_lock.cfg, s0, s0) == "(no change)"
    assert "dead" in render_diff(zk_lock.cfg, s0, crashed)
    assert rs_changed(crashed, locked)
    assert not rs_changed(s0, s0)


def test_shipping_shows_applied_edits(zk_lock: Model) -> None:
    *_, shipped = run(zk_lock, Action("put", (0, 0, 0)), Action("ship", (0, 0, 0)))
    text = render_state(zk_lock.cfg, shipped)
    assert "e0:GLOBAL->2" in text
    assert "cluster 1 (peer 2): applied 1.1.1.1,60020.1234:e0" in text
    assert "[0] queue 2: reading 1.1.1.1,60020.1234 at 1" in text


def test_describe_action_names_parameters(zk_lock: Model) -> None:
    design, cfg = zk_lock.design, zk_lock.cfg
    assert (
        describe_action(design, Action("ship", (0, 0, 0)), cfg)
        == f"ship(server={S1}, shipper=0, sink=0)"
    )
    assert describe_action(design, Action("lock", (0, 1)), cfg) == f"lock(server={S1}, dead={S2})"
    assert (
        describe_action(design, Action("archive", (1, 0, 0)), cfg)
        == "archive(wal=1.1.1.2,60020.1234)"
    )
    assert "kind=LOCAL" in describe_action(design, Action("put", (0, 0, 1)), cfg)
    assert describe_action(design, Action("no_such_action", (1,)), cfg) == "no_such_action(1)"
    # With the state the action is taken in, indexes show what they point at.
    st = zk_lock.init()
    assert "shipper=0 (2)" in describe_action(design, Action("ship", (0, 0, 0)), cfg, st)


def test_hyphen_hosts_and_wal_groups_use_the_rules_names() -> None:
    model = Model(get_design("zk-lock"), STANDARD["hyphen-hosts"])
    text = render_state(model.cfg, model.init())
    assert "  rs-1.example,60020,123456780/" in text
    multi = Model(get_design("zk-multi"), STANDARD["multiwal"])
    assert ".regiongroup-1." in render_state(multi.cfg, multi.init())


def test_zk_multi_claim_is_drawn() -> None:
    model = Model(get_design("zk-multi"), STANDARD["std"])
    *_, read = run(model, Action("crash", (1,)), Action("claim_read", (0, 1, 0)))
    text = render_state(model.cfg, read)
    assert f"claim read: 2 of {S2}" in text


def test_state_dict_is_json(zk_lock: Model) -> None:
    *_, locked = run(zk_lock, Action("crash", (1,)), Action("lock", (0, 1)))
    data = json.loads(json.dumps(state_dict(zk_lock.cfg, locked)))
    assert data["rs"][S2]["lock"] == S1
    assert data["rs"][S2]["dead"] is True
    assert data["rs"][S1]["queues"] == {"2": {"1.1.1.1,60020.1234": 0}}
    assert data["peers"] == {"2": "ENABLED"}
