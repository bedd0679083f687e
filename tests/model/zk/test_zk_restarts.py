"""A ZooKeeper-era region server's restart (``model/zk/restarts.py``): it waits for its old
name's failover, writes to a new WAL after its old ones, and a server that takes its old znode
for its own (``zk-lock/restart-adopts-queues``) leaves the old WALs unread."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.action import Action
from replcheck.specs.explore import check, explore

CFG = STANDARD["restarts"]
pytestmark = pytest.mark.slow  # whole spaces without symmetry, about a minute


def _restarted(model: Model) -> list:
    """(state, successor) for every restart of server 0 in the space."""
    ex = explore(model, symmetry=False)
    out = []
    for st in ex.states:
        for a in model.enabled(st):
            if a == Action("restart", (0,)):
                out.append((st, model.step(st, a)))
    return out


@pytest.mark.parametrize("name", ["zk-lock", "zk-multi"])
def test_a_restart_waits_for_the_old_znode_and_writes_a_new_wal(name: str) -> None:
    model = Model(get_design(name), CFG)
    pairs = _restarted(model)
    assert pairs
    for st, nxt in pairs:
        assert not st.servers[0].alive
        assert st.rs[0] == ()  # the old name's znode was failed over
        assert nxt.servers[0].alive and nxt.rs[0] != ()
        assert nxt.rs[0].queues == ()  # the new name finds no queue
        assert nxt.servers[0].current == (st.servers[0].current[0] + 1,)
        assert nxt.wals[1].entries == ()  # the new WAL (server 0, sequence 1) is empty
        assert st.wals[0] == nxt.wals[0]  # the old WAL is left as it was


def test_without_restarts_the_step_has_no_instance() -> None:
    model = Model(get_design("zk-lock"), CFG.with_overrides(restarts=0, name="no-restarts"))
    assert not _restarted(model)


def test_adopting_the_old_queues_leaves_edits_undelivered() -> None:
    model = Model(get_design("zk-lock/restart-adopts-queues"), CFG)
    result = check(model)
    assert result.verdicts["edits_delivered"] == "fail"
    assert result.verdicts["no_lost_edit"] == "pass"
    actions = [a.name for a in result.counterexamples["edits_delivered"].actions()]
    assert actions.index("crash") < actions.index("restart")
    assert "lock" not in actions  # nobody fails over a live server's znode
