"""The peer's configuration update and a peer added again in the ZooKeeper era
(``model/zk/peer_life.py``): zk-multi refreshes its sources from the positions in ZooKeeper,
zk-lock leaves them be, a re-added peer is owed nothing its predecessor was, and a refreshed
recovered source without its WALs (``zk-multi/HBASE-24871``) loses the dead server's edits."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.common.state import ENABLED, REMOVED
from replcheck.model.engine.action import Action
from replcheck.specs.explore import check, explore

pytestmark = pytest.mark.slow  # whole spaces of peer-life and peer-readd, about a minute

LIFE = STANDARD["peer-life"]
READD = STANDARD["peer-readd"]


def _pairs(model: Model, name: str) -> list:
    """(state, action, successor) for every instance of step ``name`` in the space."""
    ex = explore(model)
    return [
        (st, a, model.step(st, a)) for st in ex.states for a in model.enabled(st) if a.name == name
    ]


def test_without_peer_life_there_is_no_update_and_no_readd() -> None:
    cfg = READD.with_overrides(peer_life=False, name="no-peer-life")
    model = Model(get_design("zk-multi"), cfg)
    assert not _pairs(model, "update_peer")
    for st, _a, _nxt in _pairs(model, "add_peer"):
        assert st.peers[0] != REMOVED


@pytest.mark.parametrize("name", ["zk-lock", "zk-multi"])
def test_each_live_server_reacts_once_to_an_update(name: str) -> None:
    model = Model(get_design(name), LIFE)
    syncs = [(st, nxt) for st, a, nxt in _pairs(model, "peer_sync") if a.args[2:] == ("config",)]
    assert syncs
    moved = False
    for st, nxt in syncs:
        s = next(i for i, srv in enumerate(st.servers) if srv.updates != nxt.servers[i].updates)
        assert st.servers[s].alive and st.servers[s].updates == 1
        assert nxt.servers[s].updates == 0
        old = st.servers[s].shippers
        new = nxt.servers[s].shippers
        assert [(sh.peer, sh.chain, sh.wals) for sh in old] == [
            (sh.peer, sh.chain, sh.wals) for sh in new
        ]
        if name == "zk-lock":
            assert old == new  # the endpoint is told; the sources go on
            assert nxt.refreshed == st.refreshed
        else:
            assert nxt.refreshed == 1
            moved = moved or old != new
    if name == "zk-multi":
        assert moved  # some refreshed source starts again from the stored position


@pytest.mark.parametrize("name", ["zk-lock", "zk-multi"])
def test_a_readded_peer_is_owed_nothing_of_its_predecessor(name: str) -> None:
    model = Model(get_design(name), READD)
    readds = [(st, nxt) for st, _a, nxt in _pairs(model, "add_peer") if st.peers[0] == REMOVED]
    assert readds
    for st, nxt in readds:
        assert nxt.peers[0] == ENABLED
        assert all(not srv.known & 1 and not srv.shippers for srv in st.servers)
        assert all(srv.gone == 0 for srv in nxt.servers)
        assert all(e.owed & 1 == 0 for wal in nxt.wals if wal for e in wal.entries)
        assert nxt.refreshed == 1


def test_hbase_24871_loses_the_dead_servers_edits() -> None:
    result = check(Model(get_design("zk-multi/HBASE-24871"), LIFE))
    assert result.verdicts["no_lost_edit"] == "fail"
    actions = result.counterexamples["no_lost_edit"].actions()
    names = [a.name for a in actions]
    assert names.index("crash") < names.index("update_peer")
    assert actions[-1] == Action("peer_sync", (1, 0, "config"))
