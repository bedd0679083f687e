"""The event schema's two validators (``conformance/trace/schema.py``): the compiled one lets an
event through only where ``jsonschema`` finds nothing wrong with it, and the schema uses only
keywords both drafts read alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from replcheck.conformance.trace import schema

GOLDEN = Path(__file__).resolve().parents[3] / "traces" / "golden"


def _keywords(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            out.add(k)
            if k == "properties":  # its keys are the event's fields, not keywords
                for sub in v.values():
                    _keywords(sub, out)
            else:
                _keywords(v, out)
    elif isinstance(node, list):
        for v in node:
            _keywords(v, out)
    return out


def test_the_schema_uses_only_keywords_both_drafts_read_alike() -> None:
    used = _keywords(json.loads(schema.SCHEMA_PATH.read_text()), set())
    assert used <= schema.SHARED_KEYWORDS, used - schema.SHARED_KEYWORDS


def _events() -> list[dict[str, Any]]:
    out = []
    for path in sorted(GOLDEN.glob("*.jsonl"))[:6]:
        for line in path.read_text().splitlines()[:60]:
            if line.strip():
                out.append(json.loads(line))
    return out


EVENTS = _events()
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["action", "meta", "put", "peer_seen", "zk-multi", "table", "rs-1"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def edited_events(draw: st.DrawFn) -> dict[str, Any]:
    event = json.loads(json.dumps(draw(st.sampled_from(EVENTS))))
    for _ in range(draw(st.integers(1, 3))):
        target = event
        nested = draw(st.sampled_from([None, "args", "detail"]))
        if nested and isinstance(event.get(nested), dict):
            target = event[nested]
        keys = sorted(target) or ["x"]
        key = draw(st.sampled_from([*keys, "extra"]))
        if draw(st.booleans()) and key in target:
            del target[key]
        else:
            target[key] = draw(VALUES)
    return event


@settings(max_examples=400, deadline=None)
@given(edited_events())
def test_the_compiled_validator_passes_only_what_jsonschema_passes(event: dict) -> None:
    check, refused = schema._fast()
    try:
        check(json.loads(json.dumps(event)))
        fast_ok = True
    except refused:
        fast_ok = False
    slow_ok = not list(schema._validator().iter_errors(event))
    assert not fast_ok or slow_ok, event
    # and what is reported is jsonschema's judgement either way
    assert (not schema.problems(event)) == slow_ok or event.get("kind") == "action"


def test_every_golden_event_passes_both() -> None:
    check, _refused = schema._fast()
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                event = json.loads(line)
                check(event)
                assert not list(schema._validator().iter_errors(event))


def test_an_unknown_design_is_one_problem_not_a_traceback() -> None:
    event = {**next(e for e in EVENTS if e["kind"] == "action"), "design": "0"}
    assert schema.problems(event, "t.jsonl:3: ") == [
        "t.jsonl:3: unknown design '0' (replcheck list names them)"
    ]
