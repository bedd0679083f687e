"""The dual-form rules (``model/engine/logic.py``): the plain operations follow SMT-LIB's total
semantics, and the plain wrappers the model calls give what the rules did before they were
written in dual form."""

from __future__ import annotations

import itertools
from urllib.parse import quote

import pytest
from replcheck.model import STANDARD, get_design
from replcheck.model.common import rules
from replcheck.model.engine.logic import PY, generic_of
from replcheck.model.table import rules as table_rules
from replcheck.model.table.rules import NO_TIMESTAMP
from replcheck.model.table.state import BEGIN, FULL


def test_plain_string_operations_are_total() -> None:
    assert PY.substring("abc", 1, 5) == "bc"
    assert PY.substring("abc", 3, 1) == "" and PY.substring("abc", -1, 2) == ""
    assert PY.substring("abc", 0, -1) == ""
    assert PY.index_of("a-b-c", "-", 2) == 3
    assert PY.index_of("abc", "-", 0) == -1 and PY.index_of("abc", "a", 4) == -1
    assert PY.last_index_of("a.b.c", ".") == 3
    assert PY.is_digits("0123") and not PY.is_digits("") and not PY.is_digits("1a")
    assert PY.str_to_int("42") == 42 and PY.str_to_int("x") == -1
    assert PY.int_to_str(7) == "7" and PY.int_to_str(-1) == ""
    assert PY.chars_in("rs-1.example", "a-z0-9.-") and not PY.chars_in("a,b", "a-z")
    assert PY.ite(True, 1, 2) == 1 and PY.implies(False, False)


def _should_replicate_before(offset, key) -> bool:
    """The rule as the model wrote it before it was in dual form."""
    if offset is None:
        return True
    start = table_rules.offset_timestamp(offset)
    if start == NO_TIMESTAMP:
        return True
    ts = table_rules.wal_timestamp(key)
    if ts < start:
        return False
    if ts > start:
        return True
    return offset[1] >= 0


def test_should_replicate_matches_the_former_rule() -> None:
    offsets = [None, BEGIN, *((s, p) for s in range(4) for p in (FULL, 0, 3))]
    for offset, seq in itertools.product(offsets, range(4)):
        key = (0, 0, seq)
        assert table_rules.should_replicate(offset, key) == _should_replicate_before(offset, key)


def _parse_before(text: str) -> tuple[str, list[str]]:
    """``ReplicationQueueInfo`` as the model wrote it before: a character loop."""
    peer, _, rest = text.partition("-")
    dead: list[str] = []
    current, commas = "", 0
    for ch in rest:
        if ch == "-" and commas >= 2:
            dead.append(current)
            current, commas = "", 0
            continue
        if ch == ",":
            commas += 1
        current += ch
    if current:
        dead.append(current)
    return peer, dead


@pytest.mark.parametrize(
    "text",
    [
        "2",
        "2-",
        "2-1.1.1.2,60020,123",
        "2-rs-2.example,60020,123-rs-3.example,60020,456",
        "2-a,b-c,d-e",
        "2-a,b,c-",
        "2--x",
        "-a,b,c-d",
        "2-h,1,2-h2,3,4-h3,5,6",
    ],
)
def test_zk_queue_id_parser_matches_the_former_loop(text: str) -> None:
    cfg = STANDARD["hyphen-hosts"]
    assert rules.parse_queue_id(cfg, text) == _parse_before(text)


def test_hbase_8207_parser_is_split() -> None:
    buggy = get_design("zk-lock/HBASE-8207")
    for text in ("2", "2-", "2-rs-2.example,60020,1-x", "a-b--c"):
        peer, *dead = text.split("-")
        assert buggy.rule_parse_queue_id(STANDARD["std"], text) == (peer, dead)


def test_wal_group_ids_are_the_url_encoded_server_names() -> None:
    for name in ("std", "hyphen-hosts", "multiwal"):
        cfg = STANDARD[name]
        for s, g in itertools.product(range(cfg.servers), range(cfg.wal_groups)):
            provider = f".regiongroup-{g}" if cfg.wal_groups > 1 else ""
            expected = quote(rules.server_name(cfg, s), safe="") + provider
            assert table_rules.wal_group_id(cfg, (s, g, 0)) == expected


def test_queue_id_formats_are_the_seeds() -> None:
    cfg = STANDARD["hyphen-hosts"]
    assert rules.queue_id(cfg, 0, (1, 0)) == "-".join(
        ["2", rules.server_name(cfg, 1), rules.server_name(cfg, 0)]
    )
    assert table_rules.queue_id(cfg, 0, 1, 0) == (
        f"2-{rules.server_name(cfg, 1)}/{rules.server_name(cfg, 0)}"
    )
    with pytest.raises(ValueError):
        table_rules.parse_queue_id("-x")
    with pytest.raises(ValueError):
        table_rules.parse_queue_id("nohyphen")


def test_claim_guard_and_fence_rules() -> None:
    from replcheck.model.table.state import BARRIER_DISABLED, NOT_RUNNING, RUNNING, Row

    row = Row(0, 1, -1, ((0, 2, 5),))
    assert table_rules.claim_guard_holds(row, ((0, 2, 5),))
    assert not table_rules.claim_guard_holds(row, ((0, 2, 6),))
    assert not table_rules.claim_guard_holds(None, ((0, 2, 5),))
    assert not table_rules.claim_guard_holds(row, ())
    assert table_rules.claim_applies(False, None, ())
    assert table_rules.barrier_disable_rule(PY, NOT_RUNNING, 0) == (BARRIER_DISABLED, 1)
    assert table_rules.barrier_disable_rule(PY, BARRIER_DISABLED, 2) == (BARRIER_DISABLED, 3)
    assert table_rules.barrier_disable_rule(PY, RUNNING, 0) == (RUNNING, 0)
    assert not table_rules.add_peer_may_leave_pre(PY, True, RUNNING)
    assert table_rules.add_peer_may_leave_pre(PY, False, RUNNING)


def test_every_decision_rule_of_the_designs_names_its_dual_form() -> None:
    for design in ("zk-lock", "zk-multi"):
        cls = type(get_design(design))
        for rule in ("rule_ships", "rule_parse_queue_id", "rule_claimed_chain", "rule_wal_done"):
            assert generic_of(cls, rule) is not None, (design, rule)
    cls = type(get_design("table"))
    for rule in ("rule_cleaner_may_delete", "rule_cleaner_live", "rule_fence_add"):
        assert generic_of(cls, rule) is not None, rule
    assert generic_of(cls, "rule_recovered_wals") is None
