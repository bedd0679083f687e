"""The typed trace event (``conformance/trace/event.py``) and the one mapping table
(``conformance/validate/mapping.py``'s ``RULES``): every recorded trace reads into events and
back to the same JSON objects, every event kind of the schema and every model action of the
reference cluster's designs is in the table exactly once (or is listed as not recorded, with
the reason), bad input is one line naming the file and line, and docs/validate.md prints the
table as the code has it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replcheck.conformance.hbase.names import DESIGNS
from replcheck.conformance.trace import parquet as trace_parquet
from replcheck.conformance.trace.event import Event, EventError, events_of
from replcheck.conformance.trace.reader import read_trace
from replcheck.conformance.trace.schema import SCHEMA_PATH
from replcheck.conformance.validate import mapping
from replcheck.conformance.validate.core import validate_events
from replcheck.model import get_design

from replcheck import docs

ROOT = Path(__file__).resolve().parents[3]
TRACES = sorted(
    [
        *(ROOT / "traces" / "golden").glob("*.jsonl"),
        *(ROOT / "test_data").rglob("trace.jsonl"),
        *(ROOT / "test_data" / "validate").glob("*.jsonl"),
    ]
)


def _objects(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_recorded_trace_reads_into_events_and_back(path: Path) -> None:
    trace = read_trace(path)
    assert trace.fault is None, trace.fault
    objects = _objects(path)
    assert len(trace.events) == len(objects)
    for n, (e, obj) in enumerate(zip(trace.events, objects, strict=True), 1):
        assert isinstance(e, Event)
        assert e.line == n
        assert e.to_dict() == obj
        assert list(e.to_dict()) == list(obj)  # the recorder's key order
        assert Event.of({**obj, "_line": n}) == e
        assert dict(e) == {**obj, "_line": n}  # the JSON object's view


def test_the_corpus_covers_every_trace_directory() -> None:
    assert len([p for p in TRACES if "golden" in p.parts]) >= 26
    assert len([p for p in TRACES if "test_data" in p.parts]) >= 40


def test_a_parquet_trace_reads_into_the_same_events(tmp_path: Path) -> None:
    src = ROOT / "traces" / "golden" / "zk-multi-kill.jsonl"
    out = tmp_path / "t.parquet"
    trace_parquet.write(_objects(src), out)
    assert read_trace(out).events == read_trace(src).events


def test_an_event_reads_as_its_json_object() -> None:
    obj = {"v": 1, "proc": "master", "pid": 7, "seq": 1, "t": 1.5, "kind": "action"}
    obj.update(name="add_peer", args={"peer": 0}, zxid=None)
    e = Event.of(obj)
    assert (e.name, e.args, e.zxid, e.detail, e.design, e.line) == (
        "add_peer",
        {"peer": 0},
        None,
        {},
        None,
        None,
    )
    assert e["name"] == "add_peer" and e.get("detail") is None and "detail" not in e
    assert "design" not in e and e.get("_line") is None
    assert e.to_dict() == obj
    assert {**e} == obj


# --- the table ----------------------------------------------------------------------------------


def _schema_meta_names() -> list[str]:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    (rule,) = schema["allOf"]
    return rule["then"]["properties"]["name"]["enum"]


def _kinds() -> dict[str, list[tuple[str, ...]]]:
    """Every model action of the reference cluster's designs -> its parameters per design."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for design in DESIGNS:
        for k in get_design(design).kinds:
            out.setdefault(k.name, []).append(k.params)
    return out


def test_every_meta_event_kind_of_the_schema_has_exactly_one_entry() -> None:
    names = _schema_meta_names()
    meta = [r.event for r in mapping.RULES_LIST if r.kind == "meta"]
    assert sorted(meta) == sorted(names)
    assert len(meta) == len(set(meta))


def test_every_model_action_has_exactly_one_entry_or_is_listed_as_not_recorded() -> None:
    kinds = _kinds()
    actions = [r.event for r in mapping.RULES_LIST if r.kind == "action"]
    assert len(actions) == len(set(actions)), "an event kind with two entries"
    assert not set(actions) & set(mapping.NOT_RECORDED), "both an entry and not recorded"
    assert sorted({*actions, *mapping.NOT_RECORDED}) == sorted(kinds)
    for name, why in mapping.NOT_RECORDED.items():
        assert why.strip(), name
    assert set(mapping.UNRECORDED) <= set(mapping.NOT_RECORDED)


def test_every_entry_names_model_actions_and_parameters_the_designs_have() -> None:
    kinds = _kinds()
    for rule in mapping.RULES_LIST:
        assert rule.role in mapping.ROLES, rule.event
        if rule.kind == "action":
            assert rule.action == rule.event
        named = [rule.action, *rule.alternatives, *rule.catch_up, rule.sent_again]
        for name in filter(None, named):
            assert name in kinds, (rule.event, name)
        for p in rule.params:
            assert p.find is None or p.find in mapping.RESOLVED, (rule.event, p)
        if rule.kind != "action" or rule.candidates is not None:
            continue
        mine = [p.name for p in rule.params]
        assert len(mine) == len(set(mine)), rule.event
        used: set[str] = set()
        for params in kinds[rule.event]:
            assert set(params) <= set(mine), (rule.event, params, mine)
            assert [p for p in mine if p in params] == list(params), (rule.event, params)
            used |= set(params)
        assert used == set(mine), (rule.event, mine, used)


def test_docs_validate_prints_the_table_as_the_code_has_it() -> None:
    table = mapping.table_markdown()
    assert docs.section("docs/validate.md", "event-mapping") == table, (
        "docs/validate.md is stale: python -m replcheck.docs --sections"
    )
    for rule in mapping.RULES_LIST:
        assert f"| `{rule.event}`" in table
    for name in mapping.NOT_RECORDED:
        assert f"| `{name}` |" in table


# --- bad input ----------------------------------------------------------------------------------

GOOD = {"v": 1, "proc": "master", "pid": 7, "seq": 1, "t": 1000.0, "kind": "action"}
GOOD.update(name="add_peer", args={"peer": 0}, zxid=None, design="zk-multi")

BAD = {
    "missing name": ({k: v for k, v in GOOD.items() if k != "name"}, "name: a required field"),
    "missing proc": ({k: v for k, v in GOOD.items() if k != "proc"}, "proc: a required field"),
    "kind": ({**GOOD, "kind": "step"}, "kind: 'step' is not"),
    "zxid": ({**GOOD, "zxid": "0x10"}, "zxid: '0x10' is not an integer"),
    "args": ({**GOOD, "args": {"peer": "one"}}, "args: {'peer': 'one'} is not"),
    "detail": ({**GOOD, "detail": [1]}, "detail: [1] is not an object"),
    "t": ({**GOOD, "t": "now"}, "t: 'now' is not a number"),
    "not an object": ([1, 2], "not a JSON object"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_an_object_that_is_not_an_event_is_one_line_naming_where(case: str) -> None:
    obj, needle = BAD[case]
    with pytest.raises(EventError) as got:
        Event.of(obj, "trace.jsonl:3: ")
    text = str(got.value)
    assert text.startswith("trace.jsonl:3: ") and needle in text, text
    assert "\n" not in text
    with pytest.raises(EventError, match=r"^line 2: "):
        events_of([GOOD, obj])


@pytest.mark.parametrize("case", sorted(BAD))
def test_validating_objects_that_are_not_events_is_bad_input(case: str) -> None:
    obj, needle = BAD[case]
    if isinstance(obj, dict):
        obj = {**obj, "_line": 5}
    v = validate_events([GOOD, obj], "zk-multi", path="t.jsonl")
    assert v.status == "bad-input"
    where = "t.jsonl:5: " if isinstance(obj, dict) else "t.jsonl:2: "
    assert v.reason.startswith(where) and needle in v.reason, v.reason
    assert "\n" not in v.reason


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [("zxid", None, "zxid"), ("seq", "two", "seq"), ("args", [1], "args"), ("kind", None, "kind")],
)
def test_a_trace_line_with_a_missing_or_ill_typed_field_is_one_line(
    tmp_path: Path, field: str, value: object, needle: str
) -> None:
    bad = {**GOOD, "seq": 2}
    if value is None:
        del bad[field]
    else:
        bad[field] = value
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    trace = read_trace(path)
    assert trace.fault is not None and trace.fault.startswith(f"{path}:2: "), trace.fault
    assert needle in trace.fault and "\n" not in trace.fault
    assert [e.line for e in trace.events] == [1]
