"""ReplicationSyncUp and the master's clean-up (``model/table_syncup.py``): state counts, verdicts
of the correct designs and of the syncup mutants, and the one finding about the tool's promise."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.properties import _prop
from replcheck.model.table_syncup import syncup_replicated_all
from replcheck.specs.explore import check

CFG = STANDARD["t-syncup"]


@pytest.mark.parametrize("design", ["table", "table-doc"])
def test_correct_designs_pass(design: str) -> None:
    r = check(Model(get_design(design), CFG))
    assert r.stats["complete"]
    assert r.stats["states"] == 2738
    assert r.violated == []


@pytest.mark.parametrize(
    ("mutant", "violated"),
    [
        ("table/syncup-no-add-missing", ["no_lost_edit", "edits_delivered"]),
        ("table/syncup-skips-oldwals", ["no_lost_edit", "edits_delivered"]),
    ],
)
def test_mutants_caught(mutant: str, violated: list[str]) -> None:
    r = check(Model(get_design(mutant), CFG))
    assert r.violated == violated


def test_no_add_missing_counterexample() -> None:
    r = check(Model(get_design("table/syncup-no-add-missing"), CFG), liveness=False)
    actions = " ".join(map(str, r.counterexamples["no_lost_edit"].actions()))
    assert actions == (
        "put(0, 0, 0) cluster_down() syncup_start(0) syncup_finish() cluster_up() "
        "scp_split(0) scp_claim_stage(0) arqp_read_missing(0)"
    )


def test_tool_run_and_cleanup() -> None:
    """One edit, the cluster stops, the tool ships it, the master removes the queues."""
    model = Model(get_design("table"), CFG)
    st = model.init()
    for name, args in [
        ("put", (0, 0, 0)),
        ("cluster_down", ()),
        ("syncup_start", (0,)),
        ("syncup_ship", (0,)),
        ("syncup_finish", ()),
    ]:
        st = model.step(st, Action(name, args))
    assert st.info and st.markers == 0b11 and not st.master_up
    assert st.sinks[1].applied
    st = model.step(st, Action("cluster_up", ()))
    assert st.master_up and not st.info and st.servers[2].alive
    for d in (0, 1):
        for name in ("scp_split", "scp_claim_stage", "arqp_read_missing", "arqp_remove"):
            st = model.step(st, Action(name, (d,)))
    assert st.rows == () and st.markers == 0


def test_finding_tool_misses_split_server_without_row() -> None:
    """Finding (not a registered invariant): a server that crashed, whose SCP already split its
    logs (no WALs/ directory) and which never persisted an offset (no row) is invisible to the
    tool; its edits are replicated only after the master is back (its SCP adds and claims the
    queue), against seed 004's "After ReplicationSyncUp is executed, the data ... has been
    replicated"."""
    model = Model(get_design("table"), CFG)
    model.invariants = (_prop("invariant", syncup_replicated_all),)
    r = check(model, liveness=False)
    actions = " ".join(map(str, r.counterexamples["syncup_replicated_all"].actions()))
    assert actions == (
        "put(0, 0, 0) crash(0) scp_split(0) cluster_down() syncup_start(0) syncup_ship(0) "
        "syncup_finish()"
    )
