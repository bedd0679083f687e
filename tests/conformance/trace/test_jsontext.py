"""The one rule for reading JSON text (``conformance/trace/jsontext.py``) and the typed fields of
an event, wherever a trace enters: JSON lines, Parquet, or objects handed to the validator."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from replcheck.conformance.trace import jsontext
from replcheck.conformance.trace import parquet as trace_parquet
from replcheck.conformance.trace.event import MAX_OFFSET, Event, EventError
from replcheck.conformance.trace.reader import cut_short, read_trace
from replcheck.conformance.validate.core import Bounds, validate_events

ROOT = Path(__file__).resolve().parents[3]
PAUSE = ROOT / "traces" / "golden" / "zk-multi-pause.jsonl"


def events() -> list[dict]:
    return [json.loads(line) for line in PAUSE.read_text(encoding="utf-8").splitlines()]


# --- jsontext.loads ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why", "line"),
    [
        ('{"t": NaN}', "not JSON: NaN is not a JSON number", 1),
        ('{"t":\n Infinity}', "not JSON: Infinity is not a JSON number", 2),
        ("[-Infinity]", "not JSON: -Infinity is not a JSON number", 1),
        ('{"t": 1e400}', "not JSON: 1e400 is not a JSON number", 1),
        ("[" + "9" * 5000 + "]", "an integer of 5000 digits (at most 4000)", 1),
        ("[" * 1100 + "]" * 1100, "a value nested deeper than 64 lists and objects", 1),
        ('{"a": 1}\n{"a": ' + "{" * 65 + "}" * 65, "a value nested deeper than 64", 2),
        ('{"a": }', "not JSON: Expecting value", 1),
    ],
)
def test_what_is_not_json_as_a_trace_holds_it(text: str, why: str, line: int) -> None:
    with pytest.raises(jsontext.JsonTextError) as caught:
        jsontext.loads(text)
    assert caught.value.why.startswith(why), caught.value.why
    assert caught.value.line == line
    kind = "syntax" if "Expecting" in why else "depth" if "nested" in why else "number"
    assert caught.value.kind == kind
    assert "\n" not in str(caught.value)


def test_what_is_json_reads_as_json_does() -> None:
    text = json.dumps({"a": [1, 2.5, -3e10, "NaN", "[[[" * 100], "b": {"c": None, "d": True}})
    assert jsontext.loads(text) == json.loads(text)
    at_the_limit = "[" * jsontext.MAX_DEPTH + "]" * jsontext.MAX_DEPTH
    assert jsontext.loads(at_the_limit) == json.loads(at_the_limit)
    for line in PAUSE.read_text(encoding="utf-8").splitlines():
        assert jsontext.loads(line) == json.loads(line)


def test_nesting_is_refused_before_the_stack_runs_out() -> None:
    """A value a million deep costs a scan, not a RecursionError."""
    with pytest.raises(jsontext.JsonTextError, match="nested deeper than 64"):
        jsontext.loads("[" * 1_000_000 + "]" * 1_000_000)


# --- the event's typed fields --------------------------------------------------------------------


def persist() -> dict:
    return next(e for e in events() if e["name"] == "persist")


@pytest.mark.parametrize("position", [-1, "12", 12.0, None, True, MAX_OFFSET + 1, [12]])
def test_a_persisted_position_is_a_byte_offset(position: object) -> None:
    e = persist()
    e["detail"]["position"] = position
    with pytest.raises(EventError, match=r"^line 34: detail\.position: .* is not a byte offset"):
        Event.of(e, "line 34: ")


@pytest.mark.parametrize("position", [0, 12, 10**15, MAX_OFFSET])
def test_a_well_typed_position_is_an_event(position: int) -> None:
    e = persist()
    e["detail"]["position"] = position
    assert Event.of(e).detail["position"] == position


@pytest.mark.parametrize("t", [math.nan, math.inf, -math.inf])
def test_a_timestamp_is_a_finite_number(t: float) -> None:
    e = persist()
    e["t"] = t
    with pytest.raises(EventError, match=r"t: .* is not a finite number"):
        Event.of(e)


def test_validate_events_refuses_a_nan_timestamp_as_bad_input() -> None:
    """Not a rejection (what it was): an event whose time is NaN is no event."""
    evs = events()
    evs[3]["t"] = math.nan
    numbered = [{**e, "_line": n} for n, e in enumerate(evs, 1)]
    v = validate_events(numbered, "zk-multi")
    assert v.status == "bad-input", v.headline()
    assert v.reason == ":4: t: nan is not a finite number", v.reason


def test_validate_events_rejects_a_position_no_batch_reached() -> None:
    evs = events()
    n = next(i for i, e in enumerate(evs) if e["name"] == "persist")
    evs[n]["detail"]["position"] += 1
    v = validate_events(evs, "zk-multi")
    assert (v.status, v.reason, v.event) == ("rejected", "divergence", n), v.headline()


# --- Parquet: the same rules, rows named ---------------------------------------------------------


def test_a_parquet_trace_with_a_nan_timestamp_is_bad_input(tmp_path: Path) -> None:
    evs = events()
    evs[5]["t"] = math.nan
    out = tmp_path / "t.parquet"
    trace_parquet.write(evs, out)
    trace = read_trace(out)
    assert trace.fault == f"{out}: row 6: t: nan is not a finite number", trace.fault
    assert len(trace.events) == 5


def test_a_parquet_column_nested_too_deep_is_bad_input(tmp_path: Path) -> None:
    evs = events()
    out = tmp_path / "t.parquet"
    trace_parquet.write(evs, out)
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    detail = table.column("detail").to_pylist()
    detail[6] = '{"x": ' + "[" * 1100 + "]" * 1100 + "}"
    table = table.set_column(table.schema.get_field_index("detail"), "detail", [detail])
    pq.write_table(table, out)
    trace = read_trace(out)
    assert trace.fault is not None
    assert trace.fault.startswith(f"{out}: row 7: detail: a value nested deeper than 64")


def test_an_empty_parquet_trace_is_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "t.parquet"
    trace_parquet.write([], out)
    assert read_trace(out).fault == f"{out}: row 1: no event: an empty trace"


def test_a_parquet_trace_without_run_end_may_be_cut(tmp_path: Path) -> None:
    evs = events()[:100]
    out = tmp_path / "t.parquet"
    trace_parquet.write(evs, out)
    why = cut_short(read_trace(out))
    assert why is not None and why.startswith(f"{out}: row 100: the trace ends without")
    trace_parquet.write(events(), out)
    assert cut_short(read_trace(out)) is None


# --- writing: nothing left behind ----------------------------------------------------------------


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()])
def test_a_write_that_fails_leaves_nothing_behind(tmp_path: Path, error: BaseException) -> None:
    out = tmp_path / "out.parquet"
    out.write_text("what was there")
    with pytest.raises(type(error)), trace_parquet.writing(out) as tmp:
        tmp.write_text("half")
        raise error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet"]
    assert out.read_text() == "what was there"


# --- the slack ----------------------------------------------------------------------------------


@pytest.mark.parametrize("slack", [-1.0, 60.5, 1e300, math.inf, math.nan])
def test_a_slack_outside_what_it_means_is_refused(slack: float) -> None:
    with pytest.raises(ValueError, match="must be from 0 to 60 seconds"):
        Bounds(slack=slack)
