"""The strict trace reader of ``replcheck validate``: every kind of bad input is one line naming
the file and line, the events before it are kept, and no input gives a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replcheck.conformance.trace.reader import TraceFault, read_trace
from replcheck.conformance.validate.core import Bounds, validate_path


def event(seq: int, name: str = "add_peer", zxid: int | None = None, **kw: object) -> dict:
    out = {
        "v": 1,
        "proc": "master",
        "pid": 7,
        "seq": seq,
        "t": 1000.0 + seq,
        "kind": "action",
        "name": name,
        "args": {"peer": 0},
        "zxid": zxid,
        "design": "zk-multi",
    }
    out.update(kw)
    return out


def lines(*events: dict) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


GOOD = [event(1, zxid=10), event(2, "disable_peer", zxid=11), event(3, "enable_peer", zxid=12)]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "trace.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_trace_reads_whole(tmp_path: Path) -> None:
    trace = read_trace(write(tmp_path, lines(*GOOD)))
    assert trace.fault is None
    assert [e["name"] for e in trace.events] == ["add_peer", "disable_peer", "enable_peer"]
    assert [e["_line"] for e in trace.events] == [1, 2, 3]


BAD = {
    "malformed JSON": (lines(GOOD[0]) + "{not json\n" + lines(GOOD[2]), 2, "not JSON"),
    "torn last line": (lines(*GOOD[:2]) + json.dumps(GOOD[2])[:30], 3, "torn tail"),
    "unknown meta event": (lines(GOOD[0], event(2, "teleport", kind="meta")), 2, "teleport"),
    "unknown action": (lines(GOOD[0], event(2, "teleport")), 2, "not an action of zk-multi"),
    "missing field": (
        lines(GOOD[0], {k: v for k, v in GOOD[1].items() if k != "zxid"}),
        2,
        "zxid",
    ),
    "ill-typed field": (lines(GOOD[0], {**GOOD[1], "seq": "two"}), 2, "seq"),
    "wrong parameters": (lines(GOOD[0], event(2, args={"server": 1})), 2, "parameters"),
    "zxids going backwards": (lines(GOOD[0], event(2, zxid=9)), 2, "does not follow zxid"),
    "unknown design": (lines(GOOD[0], event(2, design="zk-nope")), 2, "unknown design"),
    "not an object": (lines(GOOD[0]) + "[1, 2]\n", 2, "not a JSON object"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path, case: str) -> None:
    text, line, needle = BAD[case]
    path = write(tmp_path, text)
    trace = read_trace(path)
    assert trace.fault is not None
    assert trace.fault.startswith(f"{path}:{line}: "), trace.fault
    assert needle in trace.fault
    assert "\n" not in trace.fault
    assert len(trace.events) == line - 1
    verdict = validate_path(path)
    assert verdict.status == "bad-input"
    assert verdict.reason == trace.fault
    assert f"the {line - 1} events before it" in verdict.detail["prefix"]


def test_a_folder_without_a_trace_and_a_missing_path_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(TraceFault, match=r"without trace\.jsonl"):
        read_trace(tmp_path)
    assert validate_path(tmp_path / "nope").status == "bad-input"


def test_a_run_folder_is_read_through_its_trace(tmp_path: Path) -> None:
    write(tmp_path, lines(*GOOD))
    assert len(read_trace(tmp_path).events) == 3


def test_a_trace_with_no_action_event_is_never_accepted(tmp_path: Path) -> None:
    meta = [
        event(1, "process_start", kind="meta", args={}),
        event(2, "run_end", kind="meta", args={}),
    ]
    verdict = validate_path(write(tmp_path, lines(*meta)))
    assert verdict.status == "undecided"
    assert "no action event" in verdict.reason


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.builds(
                lambda e, k, v: json.dumps({**e, k: v}),
                st.sampled_from(GOOD),
                st.sampled_from(["seq", "zxid", "name", "kind", "args", "design", "t", "proc"]),
                st.one_of(
                    st.none(),
                    st.integers(-5, 20),
                    st.text(max_size=8),
                    st.sampled_from(["put", "meta", "action", "zk-lock", "table"]),
                    st.dictionaries(st.text(max_size=6), st.integers(0, 4), max_size=3),
                ),
            ),
            st.sampled_from([json.dumps(e) for e in GOOD]),
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_no_input_gives_a_traceback(tmp_path: Path, rows: list[str], newline: bool) -> None:
    """Any sequence of lines, valid or not, gets a verdict: never an exception."""
    text = "\n".join(rows) + ("\n" if newline and rows else "")
    path = write(tmp_path, text)
    verdict = validate_path(path, bounds=Bounds(max_nodes=2_000))
    assert verdict.status in ("accepted", "rejected", "undecided", "bad-input")
    if verdict.status == "bad-input":
        assert "\n" not in verdict.reason
