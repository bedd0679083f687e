"""The flat models (``model/zk/layout.py``, ``zk/designs.py``, ``zk/properties.py``) on plain
values against the design's ``Model`` (the text's generated program): on every state of a
breadth-first prefix of the state space, the flat form round-trips, the flat steps lead to
exactly the program's successors, and every property of the text, evaluated on plain values,
gives the verdict the program's generated check gives."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from layout_agreement import agree, check_states
from replcheck.model import STANDARD, Model, get_design, mutants
from replcheck.model.engine.catalogue import flat_model
from replcheck.model.zk.common import ZK_CONFIGS
from replcheck.model.zk.layout import FlatError
from replcheck.specs.explore import explore

ZK_MUTANTS = [m for m in mutants() if type(get_design(m)).era == "zk"]


@pytest.mark.parametrize(
    ("name", "config"), [("zk-multi", "std"), ("zk-lock", "master-master"), ("zk-multi", "race")]
)
def test_flat_steps_and_verdicts_match_the_model(name: str, config: str) -> None:
    agree(name, config, 150)


@pytest.mark.slow
@pytest.mark.parametrize("design", ["zk-lock", "zk-multi"])
@pytest.mark.parametrize("config", ZK_CONFIGS)
def test_every_zk_configuration_matches(design: str, config: str) -> None:
    agree(design, config, 400)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", ZK_MUTANTS)
def test_every_zk_mutant_matches_on_its_configuration(mutant: str) -> None:
    config = type(get_design(mutant)).configs[0]
    agree(mutant, config, 400)


def test_the_table_eras_relay_clusters_have_the_texts_properties() -> None:
    """The properties read each WAL entry's edit and cluster ids (``entry``), so the table
    era's relay clusters have them on every engine: on plain values they give the generated
    program's verdicts on a prefix of master-master, where a relayed edit comes home."""
    fm = flat_model("table", STANDARD["master-master"])
    names = {p.name for p in fm.invariants}
    assert {"no_edit_at_origin", "only_global_non_catalog", "sink_in_order"} <= names
    assert agree("table", "master-master", 400) >= 400


def test_configurations_without_a_flat_form_are_refused() -> None:
    with pytest.raises(FlatError, match="ZooKeeper faults"):
        flat_model("table", STANDARD["zk-faults"])
    with pytest.raises(FlatError, match="relay clusters with sync replication peers"):
        flat_model("table", dataclasses.replace(STANDARD["t-sync"], topology=((1, 0),)))


@pytest.mark.parametrize(
    ("design", "config", "where"),
    [
        ("zk-multi", "peers", "drop"),
        ("zk-lock", "peers", "drop"),
        ("zk-multi", "cleaner-race", "listed"),
    ],
)
def test_the_steps_a_prefix_does_not_reach_match_too(design: str, config: str, where: str) -> None:
    """A claimed queue waiting for its claimer's delete (``drop``) and a cleaner between its
    listing of a server's queues and their reads (``listed``) lie past the breadth-first
    prefixes above: both models are compared on the first states that have one, and on the
    first states one step before one begins."""
    model = Model(get_design(design), STANDARD[config])
    ex = explore(model, symmetry=False, max_states=20000)

    def holds(st: Any) -> bool:
        if where == "drop":
            return any(srv.drops for srv in st.servers)
        return bool(st.cleaner.listed)

    inside = [st for st in ex.states if holds(st)][:20]
    before = [
        st
        for st in ex.states
        if not holds(st) and any(holds(model.step(st, a)) for a in model.enabled(st))
    ][:20]
    assert len(inside) == len(before) == 20
    n, _broken = check_states(design, config, inside + before)
    assert n == 40
