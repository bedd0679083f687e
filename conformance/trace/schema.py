"""Validate trace events against ``traces/schema/v1/event.schema.json`` and against the model: an
``action`` event must name one of its design's actions (``replcheck list``) with exactly that
action's parameters."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import jsontext

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "traces" / "schema" / "v1" / "event.schema.json"


@cache
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


SHARED_KEYWORDS = frozenset(
    [
        "$id",
        "$schema",
        "additionalProperties",
        "allOf",
        "anyOf",
        "const",
        "description",
        "else",
        "enum",
        "if",
        "items",
        "maxLength",
        "maximum",
        "minLength",
        "minimum",
        "not",
        "oneOf",
        "pattern",
        "properties",
        "required",
        "then",
        "title",
        "type",
    ]
)
"""The keywords draft 07 reads as draft 2020-12 does (``items`` in its one-schema form): the
schema may use only these, so that its compiled form below judges as ``jsonschema`` does."""


@cache
def _fast() -> Any:
    """The schema compiled into Python (``fastjsonschema``, which reads drafts up to 07): twenty
    times faster than ``jsonschema`` on a valid event. It only lets valid events through; an
    event it refuses is judged again by ``jsonschema``, whose messages are the ones reported."""
    import fastjsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    draft7 = {**schema, "$schema": "http://json-schema.org/draft-07/schema#"}
    return fastjsonschema.compile(draft7, use_default=False), fastjsonschema.JsonSchemaException


@cache
def _designs() -> dict[str, Any]:
    """The registry (the one dict: a design registered later is in it too)."""
    from replcheck.model import DESIGNS

    return DESIGNS


def same_family(a: str, b: str) -> bool:
    """Are designs ``a`` and ``b`` one correct design or its mutants (whose events are the
    same actions: a trace of one may be read as the other)?"""
    from replcheck.model.registry import base_design

    return base_design(a) == base_design(b)


@cache
def _kinds(design: str) -> dict[str, tuple[str, ...]]:
    from replcheck.model import get_design

    return {k.name: k.params for k in get_design(design).kinds}


def problems(event: dict[str, Any], where: str = "") -> list[str]:
    """Everything wrong with one event (empty when it is valid); an unknown design alone."""
    design = event.get("design")
    if isinstance(design, str) and design not in _designs():
        return [f"{where}unknown design {design!r} (replcheck list names them)"]
    check, refused = _fast()
    try:
        check(event)
        out = []
    except refused:
        out = [
            f"{where}{'/'.join(map(str, e.absolute_path)) or 'event'}: {e.message}"
            for e in _validator().iter_errors(event)
        ]
    if out or event.get("kind") != "action":
        return out
    design = event.get("design")
    if design:
        kinds = _kinds(design)
        params = kinds.get(event["name"])
        if params is None:
            out.append(f"{where}name: {event['name']!r} is not an action of {design}")
        elif set(event["args"]) != set(params):
            out.append(
                f"{where}args: {sorted(event['args'])} are not {event['name']}'s parameters "
                f"{list(params)}"
            )
    return out


def validate_file(path: Path) -> list[str]:
    """Problems of every line of a JSON-lines trace, each naming the file and line."""
    out: list[str] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = jsontext.loads(line)
        except jsontext.JsonTextError as exc:
            out.append(f"{path}:{n}: {exc}")
            continue
        out.extend(problems(event, f"{path}:{n}: "))
    return out
