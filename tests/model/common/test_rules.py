from __future__ import annotations

import itertools

from replcheck.model import STANDARD, get_design
from replcheck.model.common import rules


def test_seed_000_names() -> None:
    cfg = STANDARD["std"].with_overrides(servers=3)
    assert rules.server_name(cfg, 0) == "1.1.1.1,60020,123456780"
    assert rules.queue_id(cfg, 0, ()) == "2"
    assert rules.queue_id(cfg, 0, (1, 2)) == "2-1.1.1.2,60020,123456790-1.1.1.3,60020,123456800"


def test_queue_id_parse_inverts_format_even_with_hyphenated_hosts() -> None:
    for hyphen in (False, True):
        cfg = STANDARD["std"].with_overrides(servers=3, hyphen_hosts=hyphen)
        for n in range(4):
            for chain in itertools.product(range(3), repeat=n):
                text = rules.queue_id(cfg, 1, chain)
                peer, dead = rules.parse_queue_id(cfg, text)
                assert peer == rules.peer_id(1)
                assert [rules.parse_server_name(cfg, d) for d in dead] == list(chain)


def test_hbase_8207_parser_gets_hyphenated_hosts_wrong() -> None:
    cfg = STANDARD["hyphen-hosts"]
    buggy = get_design("zk-lock/HBASE-8207")
    text = rules.queue_id(cfg, 0, (1,))
    _peer, dead = buggy.rule_parse_queue_id(cfg, text)
    assert rules.parse_server_name(cfg, dead[0]) != 1


def test_replicable_filter() -> None:
    from replcheck.model.common.state import CATALOG, GLOBAL, LOCAL

    assert rules.replicable(GLOBAL, (0,), 1)
    assert not rules.replicable(LOCAL, (0,), 1)
    assert not rules.replicable(CATALOG, (0,), 1)
    assert not rules.replicable(GLOBAL, (1, 0), 1)
