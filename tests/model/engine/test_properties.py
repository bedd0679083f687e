"""Each invariant can fail: a short, hand-written behaviour that breaks it."""

from __future__ import annotations

from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.common.state import DELETED
from walks import run


def holds(model: Model, st, name: str) -> bool:
    prop = next(p for p in model.invariants if p.name == name)
    return prop.check(model.cfg, st)


def test_every_invariant_quotes_a_seed() -> None:
    model = Model(get_design("zk-lock"), STANDARD["std"])
    for prop in model.properties:
        assert "Seed 00" in prop.doc, prop.name


def test_no_lost_edit_breaks_when_a_queued_wal_is_deleted() -> None:
    model, st = run("zk-lock", "std", "put(0,0,0)", "roll(0,0)", "archive(0,0,0)")
    assert holds(model, st, "no_lost_edit")
    wal = st.wals[model.cfg.slot((0, 0, 0))]
    st = st._replace(wals=(wal._replace(place=DELETED), *st.wals[1:]))
    assert not holds(model, st, "no_lost_edit")
    assert not holds(model, st, "no_wal_deleted_while_queued")


def test_single_owner_and_single_source_break_on_a_double_claim() -> None:
    model, st = run(
        "zk-multi/HBASE-12241",
        "race",
        "crash(0)",
        "claim_read(1,0,0)",
        "claim_read(2,0,0)",
        "claim_commit(1)",
        "claim_commit(2)",
    )
    assert not holds(model, st, "single_owner")
    assert not holds(model, st, "single_source")


def test_loop_and_scope_invariants_break_on_their_mutants() -> None:
    model, st = run("zk-lock/ships-local-scope", "filtering", "put(0,0,1)", "ship(0,0,0)")
    assert not holds(model, st, "only_global_non_catalog")
    model, st = run(
        "zk-lock/no-loop-prevention",
        "master-master",
        "foreign_put(1)",
        "relay_home(1,0)",
        "ship(0,0,0)",
    )
    assert not holds(model, st, "no_edit_at_origin")


def test_sink_in_order_breaks_when_an_edit_is_skipped() -> None:
    model, st = run("zk-lock", "filtering", "put(0,0,0)", "put(0,0,0)")
    sink = st.sinks[1]
    later = st.wals[0].entries[1].uid
    st = st._replace(sinks=(st.sinks[0], sink._replace(applied=(later,))))
    assert not holds(model, st, "sink_in_order")


def test_positions_monotone_breaks_when_a_recovered_source_restarts() -> None:
    model, st = run(
        "zk-multi/recovered-restarts-at-zero",
        "std",
        "put(0,0,0)",
        "ship(0,0,0)",
        "persist(0,0)",
        "crash(0)",
        "claim_read(1,0,0)",
        "claim_commit(1)",
    )
    prop = model.step_properties[0]
    nxt = model.step(st, Action("persist", (1, 1)))
    assert not prop.check(model.cfg, st, nxt)
