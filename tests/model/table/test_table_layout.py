"""The flat model of the table era (``model/table/layout.py``, ``table/text.py``,
``table/properties.py``) against the model (the text's generated program), on plain values: on
every state of a breadth-first prefix of the state space, the flat form round-trips, the flat
steps lead to exactly the model's successors, every invariant evaluated on plain values gives
the model's engine's verdict, and so does the step property on every transition."""

from __future__ import annotations

import pytest
from layout_agreement import agree
from replcheck.model import STANDARD, get_design, mutants
from replcheck.model.table.compose import table_flat_class, table_flat_model
from replcheck.model.zk.layout import FlatError

CONFIGS = (
    "t-std",
    "t-race",
    "t-double",
    "t-add-peer",
    "t-remove-peer",
    "t-multiwal",
    "t-master-restart",
)


def _supported(name: str) -> bool:
    try:
        table_flat_class(name)
    except FlatError:
        return False
    return True


TABLE_MUTANTS = [
    m
    for m in mutants()
    if type(get_design(m)).era == "table"
    and type(get_design(m)).configs[0] in CONFIGS
    and _supported(m)
]


def test_flat_table_steps_and_verdicts_match_the_model() -> None:
    agree("table", "t-std", 150)


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
def test_every_table_configuration_matches(config: str) -> None:
    agree("table", config, 400)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", TABLE_MUTANTS)
def test_every_supported_table_mutant_matches_on_its_configuration(mutant: str) -> None:
    config = type(get_design(mutant)).configs[0]
    agree(mutant, config, 400)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("table-doc", "t-remove-peer"),
        ("table", "t-remove-zombie"),
        ("table/remove-all-one-pass", "t-remove-zombie"),
        ("table/HBASE-27213-recollect", "t-remove-peer"),
    ],
)
def test_other_supported_designs_and_configurations_match(name: str, config: str) -> None:
    """``table-doc``, and the configurations and mutants outside the list above that the flat
    model also covers (``HBASE-27213-recollect``'s own configuration has restarts)."""
    agree(name, config, 400)


def test_unsupported_table_designs_and_configurations_are_refused() -> None:
    with pytest.raises(FlatError, match="not a table-era design"):
        table_flat_class("zk-multi")
    with pytest.raises(FlatError, match="ZooKeeper faults"):
        table_flat_model("table", STANDARD["zk-faults"])
