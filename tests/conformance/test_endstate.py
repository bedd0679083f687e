"""The end-state checker flags hand-made violations and passes a clean run."""

from __future__ import annotations

from replcheck.conformance import endstate
from replcheck.model.state import CATALOG, GLOBAL, LOCAL


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
