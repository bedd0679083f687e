"""The end-state checker flags hand-made violations and passes a clean run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replcheck.conformance.trace import schema
from replcheck.conformance.validate import endstate
from replcheck.model.common.state import CATALOG, GLOBAL, LOCAL


def put(uid: str, kind: int = GLOBAL, owed: list[int] | None = None) -> dict:
    return {
        "kind": "action",
        "name": "put",
        "args": {"server": 0, "group": 0, "kind": kind},
        "detail": {"uid": uid, "owed": [0] if owed is None else owed},
    }


def applied(uid: str, cluster: int, kind: int = GLOBAL, ids=(0,)) -> dict:
    return {"uid": uid, "kind": kind, "ids": [*ids, cluster], "at": cluster}


def test_clean_run_passes_and_counts_duplicates() -> None:
    events = [put("a"), put("b"), put("l", LOCAL, owed=[])]
    stores = {0: [], 1: [applied("a", 1), applied("b", 1), applied("b", 1)]}
    v = endstate.check(events, stores)
    assert v.ok and v.delivered == 2 and v.duplicates == 1 and not v.lost


def test_lost_edit() -> None:
    v = endstate.check([put("a"), put("b")], {0: [], 1: [applied("a", 1)]})
    assert not v.ok and v.lost == [{"uid": "b", "cluster": 1}]


def test_lost_edit_names_its_wal_and_whether_it_was_deleted() -> None:
    def put_in(uid: str, wal: str) -> dict:
        e = put(uid)
        e["detail"]["wal"] = wal
        return e

    deleted = {"kind": "meta", "name": "wal_deleted", "detail": {"wal": "w1", "queued": []}}
    events = [put_in("a", "w1"), put_in("b", "w2"), deleted]
    v = endstate.check(events, {0: [], 1: []})
    assert v.lost == [
        {"uid": "a", "cluster": 1, "wal": "w1", "wal_deleted": True},
        {"uid": "b", "cluster": 1, "wal": "w2", "wal_deleted": False},
    ]
    assert v.summary()["lost"] == 2 and v.summary()["lost_wal_deleted"] == 1
    # w1 held an owed edit that never arrived: its deletion was premature, though the fresh read
    # after it named no queue (seed 7991's cleaner ran while the dead server had no queue yet)
    assert v.premature_deletions == [{"wal": "w1", "queued": [], "undelivered": 1}]


def test_deleted_wal_of_delivered_edits_is_not_premature() -> None:
    e = put("a")
    e["detail"]["wal"] = "w1"
    deleted = {"kind": "meta", "name": "wal_deleted", "detail": {"wal": "w1", "queued": []}}
    v = endstate.check([e, deleted], {0: [], 1: [applied("a", 1)]})
    assert v.ok and v.wals_deleted == 1 and not v.premature_deletions


def test_removed_peer_excuses_its_edits() -> None:
    events = [put("a", owed=[0, 1]), {"kind": "action", "name": "remove_peer", "args": {"peer": 1}}]
    v = endstate.check(events, {0: [], 1: [applied("a", 1)], 2: []})
    assert v.ok and v.removed_peers == [1]


def test_shipped_local_and_catalog_edits() -> None:
    events = [put("l", LOCAL, owed=[]), put("m", CATALOG, owed=[])]
    stores = {0: [], 1: [applied("l", 1, LOCAL), applied("m", 1, CATALOG)]}
    v = endstate.check(events, stores)
    assert not v.ok and {x["uid"] for x in v.shipped_local} == {"l", "m"}


def test_edit_returned_to_origin() -> None:
    events = [put("a")]
    # cluster 1 applies a, and it comes back to cluster 0 with ids (0, 1, 0)
    stores = {0: [applied("a", 0, ids=(0, 1))], 1: [applied("a", 1)]}
    v = endstate.check(events, stores)
    assert not v.ok and v.returned_to_origin == [{"uid": "a", "cluster": 0}]


def test_premature_deletion() -> None:
    deleted = {
        "kind": "meta",
        "name": "wal_deleted",
        "args": {},
        "detail": {"wal": "1.1.1.1,60020.1234", "queued": ["1.1.1.1,60020,123456780/2"]},
    }
    fine = {**deleted, "detail": {"wal": "1.1.1.1,60020.1265", "queued": []}}
    v = endstate.check([put("a"), deleted, fine], {0: [], 1: [applied("a", 1)]})
    assert not v.ok and v.wals_deleted == 2
    assert v.premature_deletions == [
        {"wal": "1.1.1.1,60020.1234", "queued": ["1.1.1.1,60020,123456780/2"]}
    ]


def test_foreign_edits_are_owed_to_cluster_0() -> None:
    fp = {
        "kind": "meta",
        "name": "unmodelled",
        "args": {},
        "detail": {"action": "foreign_put", "action_args": {"cluster": 1}, "uid": "1.0"},
    }
    v = endstate.check([fp], {0: [], 1: []})
    assert v.lost == [{"uid": "1.0", "cluster": 0}] and v.foreign_edits == 1
    v = endstate.check([fp], {0: [applied("1.0", 0, ids=(1,))], 1: []})
    assert v.ok


CORPUS = Path(__file__).resolve().parents[3] / "test_data" / "soak"

JUDGED = {
    # run folder: (lost, lost with their WAL deleted, premature deletions)
    "table-run-002-seed7802": (28, 0, 0),
    "zk-lock-run-007-seed7607": (9, 9, 4),
    "table-run-157-seed7991": (10, 10, 3),
}
"""The flagged soak runs whose sink stores were kept, with the verdict the check gives now."""


def events_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines() if line]


def test_every_corpus_run_with_stores_is_pinned() -> None:
    with_stores = {p.parent.parent.name for p in CORPUS.glob("*/cluster1/store")}
    assert with_stores == set(JUDGED)


@pytest.mark.parametrize("run", sorted(JUDGED))
def test_corpus_run_keeps_its_verdict(run: str) -> None:
    v = endstate.check_run(CORPUS / run, events_of(CORPUS / run), 3)
    assert not v.ok
    assert (len(v.lost), v.lost_wal_deleted(), len(v.premature_deletions)) == JUDGED[run]
    deleted = {e["wal"] for e in v.lost if e.get("wal_deleted")}
    assert {p["wal"] for p in v.premature_deletions} == deleted


@pytest.mark.parametrize("run", sorted(p.name for p in CORPUS.iterdir() if p.is_dir()))
def test_corpus_trace_matches_the_schema(run: str) -> None:
    assert schema.validate_file(CORPUS / run / "trace.jsonl") == []
