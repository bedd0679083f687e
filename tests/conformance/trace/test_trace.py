"""Trace writing, merging (zxid order + per-process order) and schema validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replcheck.conformance.trace import events as trace
from replcheck.conformance.trace import schema


def ev(proc: str, seq: int, t: float, zxid: int | None, name: str = "persist") -> dict:
    return {
        "v": 1,
        "proc": proc,
        "pid": 100 + len(proc),
        "seq": seq,
        "t": t,
        "kind": "action",
        "name": name,
        "args": {"server": 0, "shipper": 0},
        "zxid": zxid,
        "design": "zk-multi",
    }


def test_merge_orders_storage_by_zxid_and_keeps_process_order() -> None:
    a = [ev("a", 1, 1.0, None, "ship"), ev("a", 2, 5.0, 30), ev("a", 3, 6.0, 40)]
    # b's clock runs ahead, but its zxid 20 must still come before a's 30
    b = [ev("b", 1, 9.0, 20), ev("b", 2, 9.5, None, "ship"), ev("b", 3, 9.9, 35)]
    merged = trace.merge_streams([a, b])
    zxids = [e["zxid"] for e in merged if e["zxid"] is not None]
    assert zxids == [20, 30, 35, 40]
    assert trace.check_order(merged) == []
    for proc in "ab":
        assert [e["seq"] for e in merged if e["proc"] == proc] == [1, 2, 3]


def test_check_order_reports_problems() -> None:
    bad = [ev("a", 1, 1.0, 9), ev("b", 1, 2.0, 3), ev("a", 1, 3.0, None, "ship")]
    problems = trace.check_order(bad)
    assert any("zxid 3 after 9" in p for p in problems)
    assert any("seq 1 of a" in p for p in problems)


def test_writer_merge_and_schema(tmp_path: Path) -> None:
    w1 = trace.TraceWriter(tmp_path / "t", "rs-x", "zk-multi")
    w2 = trace.TraceWriter(tmp_path / "t", "master", "zk-multi")
    w1.emit("put", {"server": 0, "group": 0, "kind": 0}, uid="0.0.0.0", owed=[0])
    w2.emit("scp_finish", {"dead": 1}, zxid=7)
    w1.emit("persist", {"server": 0, "shipper": 0}, zxid=9, wal="w", position=10)
    w1.emit("foreign_put", {"cluster": 1}, uid="1.0")  # a zk-multi action
    w2.meta("wal_deleted", wal="w", queued=[])
    w1.close()
    w2.close()
    # a torn last line (a process killed mid-write) is dropped on load
    with open(w1.path, "a") as f:
        f.write('{"v": 1, "proc"')
    merged = trace.merge(tmp_path / "t", tmp_path / "trace.jsonl")
    assert len(merged) == 5 and [e["order"] for e in merged] == list(range(5))
    assert schema.validate_file(tmp_path / "trace.jsonl") == []


def test_unmodelled_steps_become_meta(tmp_path: Path) -> None:
    w = trace.TraceWriter(tmp_path, "rs-1.1.1.1,60020,123456780", "table")
    e = w.emit("peer_sync", {"server": 0, "peer": 0})  # a ZooKeeper-era step
    assert e["kind"] == "meta" and e["name"] == "unmodelled"
    assert e["detail"]["action"] == "peer_sync"
    assert schema.problems(e) == []


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"name": "teleport"}, "not an action of zk-multi"),
        ({"args": {"server": 0}}, "parameters"),
        ({"zxid": "x"}, "zxid"),
        ({"kind": "other"}, "kind"),
        ({"kind": "meta", "name": "bogus"}, "name"),
        ({"extra": 1}, "Additional properties"),
    ],
)
def test_schema_rejects_bad_events(change: dict, needle: str) -> None:
    bad = {**ev("a", 1, 1.0, 5), **change}
    problems = schema.problems(bad, "x: ")
    assert problems and any(needle in p for p in problems), problems


def test_validate_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(ev("a", 1, 1.0, 5)) + "\nnot json\n")
    problems = schema.validate_file(path)
    assert problems == [f"{path}:2: not JSON: Expecting value: line 1 column 1 (char 0)"]


def test_merge_keeps_lanes_not_a_process_line_order() -> None:
    """Two threads of one process: the master's log cleaner wrote its start (zxid 105) after the
    main thread's peer procedure step (zxid 106) was written. The merge keeps each thread's
    order and the zxid order."""
    main = ev("master", 1, 1.0, 106, "peer_proc")
    start = ev("master", 2, 1.1, 105, "cleaner_start")
    read = {**ev("master", 3, 1.2, None, "cleaner_read"), "args": {}}
    merged = trace.merge_streams([[main, start, read]])
    assert [e["name"] for e in merged] == ["cleaner_start", "peer_proc", "cleaner_read"]
    assert trace.check_order(merged) == []
    assert trace.check_order([main, start, read]) == ["event 1: zxid 105 after 106"]
