"""The table era: rules, storage operations, the bootstrap deadlock, and the designs' verdicts on
small configurations (every configuration's state counts are pinned in the manifest)."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.features.bootstrap import dependency_cycle
from replcheck.model.table import rules as table_rules
from replcheck.model.table import storage as table_storage
from replcheck.model.table.state import BEGIN, FULL, NO_SOURCE, Row
from replcheck.specs.explore import check


def test_should_replicate_follows_timestamps_and_full_offsets() -> None:
    key = (0, 0, 1)
    assert table_rules.should_replicate(None, key)
    assert table_rules.should_replicate(BEGIN, key)
    assert not table_rules.should_replicate((2, 0), key)  # an older WAL than the offset's
    assert table_rules.should_replicate((0, 5), key)  # a newer one
    assert table_rules.should_replicate((1, 3), key)  # the offset's own WAL, partly read
    assert not table_rules.should_replicate((1, FULL), key)  # fully replicated out


def test_queue_ids_parse_back_even_with_hyphenated_hosts() -> None:
    cfg = STANDARD["hyphen-hosts"]
    text = table_rules.queue_id(cfg, 0, 1, 0)
    assert text == "2-rs-2.example,60020,123456790/rs-1.example,60020,123456780"
    assert table_rules.parse_queue_id(text) == (
        "2",
        "rs-2.example,60020,123456790",
        "rs-1.example,60020,123456780",
    )
    assert table_rules.parse_queue_id(table_rules.queue_id(cfg, 0, 1))[2] is None


def test_wal_file_names_parse_to_group_server_and_timestamp() -> None:
    cfg = STANDARD["multiwal"]
    name = table_rules.wal_file_name(cfg, (1, 1, 2))
    group, server, ts = table_rules.parse_wal_file_name(name)
    assert group == table_rules.wal_group_id(cfg, (1, 1, 2))
    assert server == "1.1.1.2,60020,123456790"
    assert ts == table_rules.wal_timestamp((1, 1, 2))
    with pytest.raises(ValueError):
        table_rules.parse_wal_file_name("not-a-wal")


def test_claim_is_conditional_on_the_first_column() -> None:
    rows = table_storage.set_offset((), 0, 1, NO_SOURCE, 0, (0, 1))
    read = table_storage.get_offsets(rows, 0, 1, NO_SOURCE)
    moved, ok = table_storage.claim_queue(rows, 0, 1, NO_SOURCE, 2, read)
    assert ok and moved == (Row(0, 2, 1, ((0, 0, 1),)),)
    again, ok = table_storage.claim_queue(moved, 0, 1, NO_SOURCE, 0, read)
    assert not ok and again == moved


def test_cleaner_rules_keep_a_live_servers_wal_when_a_queue_is_missing() -> None:
    offsets = table_rules.cleaner_offsets([Row(0, 0, NO_SOURCE, ((0, 1, 0),))])
    key = (0, 0, 0)
    assert table_rules.cleaner_may_delete(offsets, live=1, peers=[0], key=key)
    assert not table_rules.cleaner_may_delete(offsets, live=1, peers=[0, 1], key=key)
    # a fully dead server: a missing queue was finished and removed
    assert table_rules.cleaner_may_delete(offsets, live=0, peers=[0, 1], key=key)
    assert table_rules.cleaner_may_delete({}, live=0, peers=[0], key=key)
    assert not table_rules.cleaner_may_delete({}, live=1, peers=[0], key=key)


def test_the_naive_design_deadlocks_and_the_offset_design_does_not() -> None:
    cfg = STANDARD["t-bootstrap"]
    naive = check(Model(get_design("table-naive"), cfg))
    assert naive.violated == ["system_table_served"]
    assert naive.counterexamples["system_table_served"].stuck
    assert dependency_cycle(Model(get_design("table-naive"), cfg))
    offset = check(Model(get_design("table"), cfg))
    assert offset.ok
    assert dependency_cycle(Model(get_design("table"), cfg)) == []


@pytest.mark.parametrize("config", ["t-race", "t-remove-peer", "t-remove-starve", "t-double"])
def test_table_designs_keep_every_property_on_small_configs(config: str) -> None:
    for name in ("table", "table-doc"):
        result = check(Model(get_design(name), STANDARD[config]))
        assert result.ok, (name, config, result.violated)
        assert result.stats["complete"]


def test_every_feature_step_is_a_kind_of_its_design() -> None:
    """A step a configuration feature writes is an action kind of the design that runs it (its
    fairness, the fuzzer's rules and ``replcheck list`` read the kinds): every step of the table
    era's feature modules is a kind of ``table``, and the bootstrap's of ``table-naive``."""
    import inspect

    from replcheck.model.engine.step import kinds_of
    from replcheck.model.table.compose import FEATURES

    for feature, module in FEATURES.items():
        design = get_design("table-naive" if feature == "bootstrap" else "table")
        kinds = {k.name for k in design.kinds}
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                missing = {k.name for k in kinds_of(cls)} - kinds
                assert not missing, f"{feature}: {cls.__name__} {missing} not in {design.name}"
