"""Parquet traces: ``replcheck convert`` writes the same events, ``validate`` gives the same
verdict, and a Parquet file that is not a whole trace is one line naming the file and its row or
byte offset."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from replcheck.conformance.trace import parquet as trace_parquet
from replcheck.conformance.trace.reader import TraceFault, read_trace
from replcheck.conformance.validate.core import validate_path

DATA = Path(__file__).resolve().parents[3] / "test_data" / "validate"


def convert(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replcheck", "convert", str(src), str(out)],
        capture_output=True,
        text=True,
    )


def same(a: object, b: object) -> bool:
    return tuple(getattr(a, k) for k in ("status", "event", "matched", "events", "actions")) == (
        tuple(getattr(b, k) for k in ("status", "event", "matched", "events", "actions"))
    )


def test_a_converted_trace_holds_the_same_events_and_gets_the_same_verdict(tmp_path: Path) -> None:
    src = DATA / "table-joined-during-add-peer.jsonl"
    out = tmp_path / "t.parquet"
    done = convert(src, out)
    assert done.returncode == 0, done.stderr
    assert [_plain(e) for e in read_trace(out).events] == [
        _plain(e) for e in read_trace(src).events
    ]
    back = tmp_path / "back.jsonl"
    assert convert(out, back).returncode == 0
    assert [json.loads(x) for x in back.read_text().splitlines()] == [
        json.loads(x) for x in src.read_text().splitlines()
    ]
    a, b = validate_path(src), validate_path(out)
    assert a.status == "accepted" and same(a, b), (a.headline(), b.headline())


def test_a_run_folder_with_a_parquet_trace_is_judged_as_with_its_json_lines(
    tmp_path: Path,
) -> None:
    """The rejected run keeps its verdict, and its ZooKeeper log still fills in its lost line."""
    run = tmp_path / "run"
    shutil.copytree(DATA / "zk-multi-mutant-all-servers-down", run)
    assert convert(run, run / "trace.parquet").returncode == 0
    (run / "trace.jsonl").unlink()
    v = validate_path(run)
    assert (v.status, v.reason, v.event) == ("rejected", "positions_monotone", 159), v.headline()
    assert v.detail["from_txn_log"] == 1
    assert v.path.endswith("trace.parquet")


def _plain(e: dict) -> dict:
    return {k: v for k, v in e.items() if not k.startswith("_")}


def good_events() -> list[dict]:
    return [_plain(e) for e in read_trace(DATA / "table-joined-during-add-peer.jsonl").events]


def test_a_file_that_is_not_parquet_names_the_byte_offset(tmp_path: Path) -> None:
    bad = tmp_path / "t.parquet"
    bad.write_text("not parquet at all\n")
    with pytest.raises(TraceFault, match=r"t\.parquet: byte offset 0: no Parquet magic"):
        read_trace(bad)
    v = validate_path(bad)
    assert v.status == "bad-input" and "byte offset 0" in v.reason


def test_a_cut_parquet_file_names_where_its_footer_should_be(tmp_path: Path) -> None:
    whole = tmp_path / "whole.parquet"
    trace_parquet.write(good_events(), whole)
    cut = tmp_path / "cut.parquet"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    v = validate_path(cut)
    assert v.status == "bad-input", v.headline()
    assert f"cut.parquet: byte offset {len(data) // 2 - 4}: no Parquet footer" in v.reason


def test_parquet_that_is_not_a_trace_is_refused(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), other)
    v = validate_path(other)
    assert v.status == "bad-input"
    assert "without replcheck.format=replcheck-trace/1 metadata: not a trace" in v.reason


def test_a_bad_row_is_named_and_the_rows_before_it_are_kept(tmp_path: Path) -> None:
    events = good_events()
    events[6]["args"] = {"nonsense": 1}
    events[9]["zxid"] = 1  # never reached: the first fault stops the read
    path = tmp_path / "t.parquet"
    trace_parquet.write(events, path)
    trace = read_trace(path)
    assert len(trace.events) == 6
    assert trace.fault is not None and trace.fault.startswith(f"{path}: row 7: args: ")
    v = validate_path(path)
    assert v.status == "bad-input" and "row 7" in v.reason


def test_zxids_going_back_are_named_by_row(tmp_path: Path) -> None:
    events = good_events()
    with_zxid = [i for i, e in enumerate(events) if e["zxid"] is not None]
    first, second = with_zxid[0], with_zxid[1]
    events[second]["zxid"] = events[first]["zxid"]
    path = tmp_path / "t.parquet"
    trace_parquet.write(events, path)
    fault = read_trace(path).fault
    assert fault == (
        f"{path}: row {second + 1}: zxid {events[first]['zxid']:#x} does not follow zxid "
        f"{events[first]['zxid']:#x} of row {first + 1}"
    )


def test_convert_refuses_a_torn_trace_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "torn.jsonl"
    text = (DATA / "table-joined-during-add-peer.jsonl").read_text()
    src.write_text(text[: len(text) - 40])
    out = tmp_path / "t.parquet"
    done = convert(src, out)
    assert done.returncode == 2
    assert "torn tail" in done.stderr and "nothing written" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists() and not list(tmp_path.glob(".*"))


def test_convert_refuses_an_unknown_suffix(tmp_path: Path) -> None:
    done = convert(DATA / "table-joined-during-add-peer.jsonl", tmp_path / "t.csv")
    assert done.returncode == 2 and "suffix must be one of .jsonl, .parquet" in done.stderr
