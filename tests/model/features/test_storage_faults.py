"""A region server's failed write to ``hbase:replication`` (``model/features/storage_faults.py``):
the server aborts (a crash, then its SCP); one that carries on after AddPeer's refresh failed
(``table/refresh-write-failure-ignored``) never replicates to the new peer."""

from __future__ import annotations

from replcheck.model import STANDARD, Model, get_design
from replcheck.specs.explore import check, explore

CFG = STANDARD["t-storage-faults"]


def _failures(name: str) -> dict[str, list]:
    """(state, successor) per failing-write kind over the whole space."""
    model = Model(get_design(name), CFG)
    ex = explore(model, symmetry=False)
    out: dict[str, list] = {"refresh_write_fail": [], "persist_write_fail": []}
    for st in ex.states:
        for a in model.enabled(st):
            if a.name in out:
                out[a.name].append((a, st, model.step(st, a)))
    return out


def test_a_failed_write_aborts_the_server_and_schedules_its_scp() -> None:
    got = _failures("table")
    assert got["refresh_write_fail"] and got["persist_write_fail"]
    for pairs in got.values():
        for a, st, nxt in pairs:
            s = a.args[1] if a.name == "refresh_write_fail" else a.args[0]
            assert st.servers[s].alive and not nxt.servers[s].alive
            assert nxt.scps[s] != st.scps[s]
            assert nxt.budget.storage_faults == st.budget.storage_faults - 1
            assert nxt.rows == st.rows  # the failed write wrote nothing


def test_the_base_design_holds_every_property() -> None:
    result = check(Model(get_design("table"), CFG))
    assert set(result.verdicts.values()) == {"pass"}


def test_a_server_that_carries_on_never_replicates_to_the_new_peer() -> None:
    for _a, _st, nxt in _failures("table/refresh-write-failure-ignored")["refresh_write_fail"]:
        assert any(srv.alive for srv in nxt.servers)
    result = check(Model(get_design("table/refresh-write-failure-ignored"), CFG))
    assert result.verdicts["edits_delivered"] == "fail"
    actions = [a.name for a in result.counterexamples["edits_delivered"].actions()]
    assert "refresh_write_fail" in actions
