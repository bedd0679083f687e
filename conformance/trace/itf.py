"""A behaviour in the ITF trace format of Apalache and Quint (ADR-015, "Informal Trace Format").

Each state is the model's state as the drawing names it (``render.state_dict``), plus the
variables ``action`` (the action's name, ``init`` first) and ``args`` (its arguments, a tuple).
Values are written as ITF writes them:

* an integer is ``{"#bigint": "<digits>"}``, a boolean or a string is itself;
* an object whose keys are names (identifiers) is a record; one keyed by data (server names, WAL
  names, peer ids, queue ids) is a map: ``{"#map": [[key, value], ...]}``;
* a list is a sequence, except the lists that are sets in the model (``SET_KEYS``: edits applied,
  peers known, servers read, WAL names listed), which are ``{"#set": [...]}``;
* an action's arguments are a tuple: ``{"#tup": [...]}``;
* a value that may be missing (``OPTIONAL_KEYS``) is a set of at most one element, the usual
  TLA+ way of writing an option: ``{"#set": []}`` or ``{"#set": [v]}``.

Every state's ``#meta`` names its index, the action (as typed, and with its parameters named),
the trace event it matches (index, line, process), its zxid, and whether it is a hidden step.
A lasso (a liveness counterexample's loop) sets ``loop``.
"""

from __future__ import annotations

import keyword
from typing import Any

from replcheck.conformance.validate.replay import Behaviour
from replcheck.model.render.draw import describe_action, state_dict

FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"

SET_KEYS = frozenset(
    {
        "applied",
        "duplicates",
        "owed_to",
        "peers_missing",
        "read",
        "candidates",
        "seen",
        "cache",
        "unregistered",
        "live",
        "drained",
        "refresh_pending",
        "recorded",
        "disabled",
        "migrated",
        "markers",
        "removed_done",
        "sid",
        "hfileref",
        "down",
    }
)
"""Lists of the state's JSON form that are sets in the model (sorted, no repeats)."""

OPTIONAL_KEYS = frozenset({"lock", "source", "migration", "remove_all_queues", "rows_to_delete"})
"""Values of the state's JSON form that may be ``null``: written as an option."""


def is_name(key: str) -> bool:
    """A record field: an identifier, not a Python keyword, not private."""
    return key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("_")


def value(v: Any, key: str = "") -> Any:
    """One value of a state in ITF (see the module docstring)."""
    if key in OPTIONAL_KEYS:
        return {"#set": [] if v is None else [value(v)]}
    if isinstance(v, bool | str):
        return v
    if isinstance(v, int):
        return {"#bigint": str(v)}
    if isinstance(v, tuple):
        return {"#tup": [value(x) for x in v]}
    if isinstance(v, list | frozenset | set):
        items = [value(x) for x in v]
        return {"#set": items} if key in SET_KEYS or not isinstance(v, list) else items
    if isinstance(v, dict):
        if v and all(isinstance(k, str) and is_name(k) for k in v):
            return {k: value(x, k) for k, x in v.items()}
        return {"#map": [[value(k), value(x)] for k, x in v.items()]}
    return {"#unserializable": repr(v)}


def to_itf(b: Behaviour) -> dict[str, Any]:
    """The behaviour's model steps (the initial state and every step that takes an action) as an
    ITF trace."""
    cfg = b.cfg
    states: list[dict[str, Any]] = []
    kept: list[int] = []
    for step in b.steps:
        if step.index and step.action is None:
            continue  # an event the model consumes without a step: no new state
        data = state_dict(cfg, step.state)
        meta: dict[str, Any] = {"index": len(states), "step": step.index}
        a = step.action
        if a is not None:
            before = b.steps[step.index - 1].state
            meta["action"] = str(a)
            meta["described"] = describe_action(b.model.design, a, cfg, before)
        else:
            meta["action"] = "init"
        meta["hidden"] = step.hidden
        meta["lane"] = step.lane
        event = b.events[step.event] if step.event is not None else None
        meta["event"] = step.event
        meta["line"] = event.get("_line") if event else None
        meta["zxid"] = event.get("zxid") if event else None
        if b.failure is not None and b.failure.step == step.index:
            meta["broken"] = b.failure.property
        state = {"#meta": meta, "action": a.name if a else "init"}
        state["args"] = value(tuple(a.args) if a else ())
        state.update({k: value(x, k) for k, x in data.items()})
        states.append(state)
        kept.append(step.index)
    out: dict[str, Any] = {
        "#meta": {
            "format": "ITF",
            "format-description": FORMAT_DESCRIPTION,
            "source": b.source,
            "description": f"replcheck replay: {b.design}@{cfg.name}: {b.headline}",
            "design": b.design,
            "config": cfg.to_dict(),
            "verdict": b.headline,
        },
        "vars": [k for k in states[0] if k != "#meta"],
        "states": states,
    }
    if b.loop_start is not None and not b.stuck and b.loop_start in kept:
        out["loop"] = kept.index(b.loop_start)
    return out
