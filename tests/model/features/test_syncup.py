"""ReplicationSyncUp and the master's clean-up (``model/features/syncup.py``), written only in the
protocol text: the counts of the explicit steps it replaced, verdicts of the correct designs and of
the syncup mutants, the tool step by step, the one finding about the tool's promise, and bounded
model checking (Z3, from the same text) against exploration."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.engine.properties import Property
from replcheck.model.engine.text_model import TextModel
from replcheck.model.features.syncup import (
    FEATURE,
    NoAddMissing,
    SkipsOldWals,
    syncup_replicated_all,
)
from replcheck.model.table.compose import table_flat_class
from replcheck.specs.crosscheck import cross_check
from replcheck.specs.explore import check, explore

CFG = STANDARD["t-syncup"]


@pytest.mark.parametrize(
    ("name", "states", "transitions"),
    [
        ("table", 5400, 9352),
        ("table-doc", 5400, 9352),
        ("table/syncup-no-add-missing", 4961, 8676),
        ("table/syncup-skips-oldwals", 5156, 8870),
    ],
)
def test_the_whole_space_is_the_one_the_explicit_steps_had(
    name: str, states: int, transitions: int
) -> None:
    """Without symmetry, the counts the explicit steps gave (measured on them before they were
    deleted); with symmetry ``specs/manifest.json`` pins them."""
    model = Model(get_design(name), CFG)
    assert isinstance(model, TextModel)
    ex = explore(model, symmetry=False)
    assert (len(ex.states), ex.transitions) == (states, transitions)


def test_the_feature_and_the_mutants_texts_compose() -> None:
    """A syncup mutant's text comes before the tool's; under a configuration without the tool
    it is left out, and the mutant is the base design there."""
    assert FEATURE in table_flat_class("table", CFG).__mro__
    for name, text in [
        ("table/syncup-no-add-missing", NoAddMissing),
        ("table/syncup-skips-oldwals", SkipsOldWals),
    ]:
        mro = table_flat_class(name, CFG).__mro__
        assert mro.index(text) < mro.index(FEATURE)
        assert text not in table_flat_class(name, STANDARD["t-race"]).__mro__


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
    """One edit, the cluster stops, the tool ships both servers' WALs (the edit's, then the
    other's, each then first in the work list), the master removes the queues."""
    model = Model(get_design("table"), CFG)
    st = model.init()
    for name, args in [
        ("put", (0, 0, 0)),
        ("cluster_down", ()),
        ("syncup_start", (0,)),
        ("syncup_ship", (0,)),
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
    doc = syncup_replicated_all.__doc__ or ""
    model.invariants = (Property("syncup_replicated_all", "invariant", syncup_replicated_all, doc),)
    r = check(model, liveness=False)
    actions = " ".join(map(str, r.counterexamples["syncup_replicated_all"].actions()))
    assert actions == (
        "put(0, 0, 0) crash(0) scp_split(0) cluster_down() syncup_start(0) syncup_ship(0) "
        "syncup_finish()"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "depth"),
    [
        # No violation in the correct design: a small depth (about a minute) that reaches the
        # cluster stop, the tool's start and its first shipped work items.
        ("table", 6),
        # Exploration first breaks no_lost_edit at depth 8 (no BEGIN queue for the server that
        # never persisted an offset: its WAL is not replicated and its queue is dropped).
        ("table/syncup-no-add-missing", 8),
    ],
)
def test_bounded_model_checking_agrees_with_exploration(name: str, depth: int) -> None:
    cc = cross_check(name, CFG, depth)
    assert cc.agree, cc.to_dict()
