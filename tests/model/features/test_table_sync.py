"""Sync replication in the table era (``replcheck.model.features.sync_procedure``): the correct
designs on ``t-sync``, the mutants' counterexamples, and the DA→S→DA finding on ``t-sync-back``."""

from __future__ import annotations

import ast

import pytest
from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.config import SYNC_FINDING_CONFIGS
from replcheck.model.table.state import DOWNGRADE_ACTIVE, NONE, STANDBY
from replcheck.specs.explore import check

BACK = SYNC_FINDING_CONFIGS[0]


def act(text: str) -> Action:
    name, _, rest = text.partition("(")
    args = ast.literal_eval(f"({rest[:-1]},)") if rest[:-1].strip() else ()
    return Action(name, args)


def run(model: Model, actions: str):
    st = model.init()
    for text in actions.split():
        a = act(text)
        assert a in model.enabled(st), f"{a} is not enabled"
        st = model.step(st, a)
    return st


def broken(model: Model, st) -> list[str]:
    return [p.name for p in model.invariants if not p.check(model.cfg, st)]


@pytest.mark.parametrize(("design", "states"), [("table", 12365), ("table-doc", 10560)])
def test_correct_designs_pass_t_sync(design: str, states: int) -> None:
    r = check(Model(get_design(design), STANDARD["t-sync"]), max_states=100000)
    assert r.violated == []
    assert r.stats["states"] == states
    assert r.stats.get("complete")


DRAIN = (
    "put(0,0,0) crash(1) transit_peer(0,3) peer_proc(0) peer_proc(0) refresh(0,0) peer_proc(0) "
    "peer_proc(0) peer_proc(0) peer_proc(0) peer_proc(0) refresh(0,0) peer_proc(0) peer_proc(0) "
    "ship(0,0,0)"
)
REFUSAL = (
    "put(0,0,0) crash(0) scp_split(0) scp_claim_stage(0) arqp_read_missing(0) transit_peer(0,3) "
    "peer_proc(0) peer_proc(0) refresh(0,1) peer_proc(0) peer_proc(0) peer_proc(0) "
    "arqp_put_missing(0) arqp_claim(0,(1,)) claim_read(1,0,0) peer_proc(0) peer_proc(0) "
    "refresh(0,1) claim_commit(1) peer_proc(0) peer_proc(0) ship(1,1,0)"
)
BACK_DOC = (
    "put(0,0,0) transit_peer(0,3) peer_proc(0) peer_proc(0) refresh(0,0) crash(0) scp_split(0) "
    "scp_claim_stage(0) arqp_read_missing(0) refresh(0,1) peer_proc(0) peer_proc(0) peer_proc(0) "
    "arqp_put_missing(0) arqp_claim(0,(1,)) claim_read(1,0,0) peer_proc(0) peer_proc(0) "
    "refresh(0,1) peer_proc(0) peer_proc(0) refresh(0,1) peer_proc(0) peer_proc(0) peer_proc(0) "
    "transit_peer(0,2) peer_proc(0) peer_proc(0) refresh(0,1) claim_commit(1) ship(1,1,0)"
)


@pytest.mark.parametrize(
    ("mutant", "trace"), [("table/sync-no-drain", DRAIN), ("table/sync-no-refusal", REFUSAL)]
)
def test_mutant_counterexample(mutant: str, trace: str) -> None:
    cfg = STANDARD["t-sync"]
    st = run(Model(get_design(mutant), cfg), trace)
    assert broken(Model(get_design(mutant), cfg), st) == ["no_stale_edit_replicated"]
    # The same actions in the correct design do not replicate the stale edit.
    with pytest.raises(AssertionError, match="not enabled"):
        run(Model(get_design("table"), cfg), trace)


def test_transit_to_standby_and_back_states() -> None:
    model = Model(get_design("table"), STANDARD["t-sync"])
    st = run(model, "transit_peer(0,3) peer_proc(0) peer_proc(0)")
    assert st.sync[0] == (DOWNGRADE_ACTIVE, STANDBY)
    assert st.peers[0] == 2  # DISABLED
    st = run(
        model,
        "put(0,0,0) transit_peer(0,3) peer_proc(0) peer_proc(0) refresh(0,0) refresh(0,1) "
        "peer_proc(0) peer_proc(0) peer_proc(0) peer_proc(0) peer_proc(0) refresh(0,0) "
        "refresh(0,1)",
    )
    assert st.sync[0] == (STANDBY, NONE)
    assert st.stale == ((0, ((0, 0, 0, 0, 0),)),)
    assert all(srv.drained == 1 and srv.current == (1,) for srv in st.servers)
    assert all(srv.views[0] == (STANDBY, NONE) for srv in st.servers)


@pytest.mark.parametrize("design", ["table", "table-doc"])
def test_finding_da_s_da_replicates_stale_edit(design: str) -> None:
    """A claim read during DA→S commits after S→DA's stage-0 refresh: the view (S, DA) does
    not refuse it, and the BEGIN queue ADD_MISSING_QUEUES put after REMOVE_ALL replays the
    crashed server's DA-era WAL. ``table-doc``'s wait does not help: the server refreshed at
    stage 0 before it crashed."""
    model = Model(get_design(design), BACK)
    st = run(model, BACK_DOC)
    assert broken(model, st) == ["no_stale_edit_replicated"]
