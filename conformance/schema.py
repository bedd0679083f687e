"""Validate trace events against ``traces/schema/v1/event.schema.json`` and against the model: an
``action`` event must name one of its design's actions (``replcheck list``) with exactly that
action's parameters."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_PATH = (
    Path(__file__).resolve().parent.parent / "traces" / "schema" / "v1" / "event.schema.json"
)


@cache
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@cache
def _kinds(design: str) -> dict[str, tuple[str, ...]]:
    from replcheck.model import get_design

    return {k.name: k.params for k in get_design(design).kinds}


def problems(event: dict[str, Any], where: str = "") -> list[str]:
    """Everything wrong with one event (empty when it is valid)."""
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
            event = json.loads(line)
        except ValueError as exc:
            out.append(f"{path}:{n}: not JSON: {exc}")
            continue
        out.extend(problems(event, f"{path}:{n}: "))
    return out
