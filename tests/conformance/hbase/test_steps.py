"""The reference cluster's names and decisions come from the model (one definition of each)."""

from __future__ import annotations

import pytest
from replcheck.conformance.hbase.names import SUPPORTED_MUTANTS, DesignError, Steps, kind_of
from replcheck.model.common.state import CATALOG, GLOBAL, LOCAL
from replcheck.model.table.state import BEGIN, NO_SOURCE, Row


def test_names_round_trip() -> None:
    zk, table = Steps("zk-multi"), Steps("table")
    assert zk.wal_name(1, 2) == "1.1.1.2,60020.1296"  # seed 000's address,port.timestamp
    assert zk.parse_wal(zk.wal_name(1, 2)) == (1, 0, 2)
    assert table.wal_name(1, 2) == "1.1.1.2%2C60020%2C123456790.1296"
    assert table.parse_wal(table.wal_name(1, 2)) == (1, 0, 2)
    q = zk.zk_queue_id(0, (1, 2))
    assert q == "2-1.1.1.2,60020,123456790-1.1.1.3,60020,123456800"
    assert zk.parse_zk_queue_id(q) == (0, (1, 2))
    key = table.row_key(0, 2, 1)
    assert key == "2-1.1.1.3,60020,123456800/1.1.1.2,60020,123456790"
    assert table.parse_row_key(key) == (0, 2, 1)
    assert table.parse_row_key(table.row_key(1, 0)) == (1, 0, NO_SOURCE)


def test_filter_and_kinds() -> None:
    steps = Steps("zk-lock")
    assert kind_of("t1", "g") == GLOBAL and kind_of("t1", "l") == LOCAL
    assert kind_of("hbase:meta", "info") == CATALOG
    assert steps.ships(GLOBAL, [0], 1) and not steps.ships(LOCAL, [0], 1)
    assert not steps.ships(GLOBAL, [1, 0], 1)  # it came from cluster 1
    mutant = Steps("zk-lock/ships-local-scope")
    assert mutant.ships(LOCAL, [0], 1) and mutant.ships(CATALOG, [0], 1)
    assert Steps("zk-lock/no-loop-prevention").ships(GLOBAL, [1, 0], 1)


def test_table_cleaner_rule_and_its_mutant() -> None:
    key = (0, 0, 3)  # server 0's WAL seq 3; server 0 is live
    reading = [Row(0, 0, NO_SOURCE, ((0, 3, 100),))]  # the source is inside that WAL
    assert not Steps("table").table_may_delete(reading, 0b1, [0], key)
    assert Steps("table/cleaner-offset-wal-done").table_may_delete(reading, 0b1, [0], key)
    done = [Row(0, 0, NO_SOURCE, ((0, 4, 0),))]
    assert Steps("table").table_may_delete(done, 0b1, [0], key)
    placeholder = [Row(0, 0, NO_SOURCE, ((-1, *BEGIN),))]
    assert not Steps("table").table_may_delete(placeholder, 0b0, [0], key)


def test_zk_cleaner_rule() -> None:
    assert not Steps("zk-lock").zk_may_delete((0, 0, 1), ((0, 0, 1),))
    assert Steps("zk-lock").zk_may_delete((0, 0, 1), ((0, 0, 2),))
    assert Steps("zk-lock/cleaner-skips-lookup").zk_may_delete((0, 0, 1), ((0, 0, 1),))


def test_unknown_design_and_unsupported_mutant() -> None:
    with pytest.raises(DesignError, match="unknown design"):
        Steps("zk-paxos")
    with pytest.raises(DesignError, match="no switch"):
        Steps("table/HBASE-27214")
    for name in SUPPORTED_MUTANTS:
        assert Steps(name).design.name == name
