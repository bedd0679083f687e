"""Edits of a recorded trace, for the golden corpus's invalid traces and the anti-vacuity suite.

An edit is data: ``{"op": ..., ...}``, applied to a list of events by ``apply_edit``. Single-event
edits (``drop``, ``duplicate``, ``swap``, ``alter``) are what the mutation suite draws at random
(``random_edits``); the named hand-made edits (``HAND_MADE``) find, in a valid trace, the event
that makes each one mean what its name says (a WAL deleted while still queued, a second owner of a
queue, an offset moving backwards, ...).

Edited events keep their ``seq``; zxids are left as they are unless the edit is about them, so an
edit that breaks the zxid order is caught by the reader as bad input, not by the model.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import jsontext

Event = dict[str, Any]
Edit = dict[str, Any]


def load(path: Path) -> list[Event]:
    return [jsontext.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def dump(events: list[Event], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for e in events:
            f.write(json.dumps({k: v for k, v in e.items() if k != "_line"}, sort_keys=True))
            f.write("\n")


def apply_edit(events: list[Event], edit: Edit) -> list[Event]:
    """A copy of ``events`` with one edit applied."""
    out = copy.deepcopy(events)
    op = edit["op"]
    n = edit["event"]
    if op == "drop":
        del out[n]
    elif op == "duplicate":
        out.insert(n + 1, copy.deepcopy(out[n]))
    elif op == "swap":
        m = edit["with"]
        out[n], out[m] = out[m], out[n]
    elif op == "alter":
        target = out[n]
        *path, last = edit["field"].split(".")
        for key in path:
            target = target.setdefault(key, {})
        target[last] = edit["value"]
    elif op == "insert":
        out.insert(n, copy.deepcopy(edit["new"]))
    else:
        raise ValueError(f"unknown edit {op!r}")
    return out


def random_edits(events: list[Event], rng: random.Random, count: int) -> list[Edit]:
    """``count`` single-event edits of action events (drop, duplicate, swap with a neighbour of
    another process, alter one argument)."""
    actions = [n for n, e in enumerate(events) if e["kind"] == "action"]
    out: list[Edit] = []
    while len(out) < count and actions:
        n = rng.choice(actions)
        e = events[n]
        op = rng.choice(("drop", "duplicate", "swap", "alter"))
        if op == "swap":
            others = [
                m for m in range(max(0, n - 5), min(len(events), n + 6)) if m != n and events[m]
            ]
            others = [m for m in others if events[m]["proc"] != e["proc"]]
            if not others:
                continue
            out.append({"op": "swap", "event": n, "with": rng.choice(others)})
        elif op == "alter":
            if not e["args"]:
                continue
            key = rng.choice(sorted(e["args"]))
            value = e["args"][key]
            if isinstance(value, list):
                new: Any = [*value, rng.randrange(6)] if rng.random() < 0.5 else value[:-1]
            else:
                new = (value + rng.choice((1, -1, 2))) % 6
            if new == value:
                continue
            out.append({"op": "alter", "event": n, "field": f"args.{key}", "value": new})
        else:
            out.append({"op": op, "event": n})
    return out


# --- named, hand-made edits ---------------------------------------------------------------------


def _first(events: list[Event], pred: Callable[[int, Event], bool]) -> int:
    for n, e in enumerate(events):
        if pred(n, e):
            return n
    raise LookupError("no event fits this edit")


def _wal_deleted_while_queued(events: list[Event]) -> Edit:
    """The cleaner's deletion record of a WAL that a source still reads afterwards, moved to
    just after that WAL's first put: a WAL deleted before its queue's offset passes it."""
    deleted = {e["detail"]["wal"] for e in events if e["name"] == "wal_deleted"}
    ship = _first(
        events,
        lambda n, e: e["name"] == "ship" and (e.get("detail") or {}).get("wal") in deleted,
    )
    wal = events[ship]["detail"]["wal"]
    put = _first(events, lambda n, e: e["name"] == "put" and e["detail"].get("wal") == wal)
    rec = _first(events, lambda n, e: e["name"] == "wal_deleted" and e["detail"]["wal"] == wal)
    new = {**copy.deepcopy(events[rec]), "t": events[put]["t"]}
    return {"op": "insert", "event": put + 1, "new": new}


def _second_owner(events: list[Event]) -> Edit:
    """A claim committed twice, by a second server: two owners of one queue."""
    n = _first(events, lambda n, e: e["name"] == "claim_commit")
    e = events[n]
    other = next(
        x["args"]["server"]
        for x in events
        if x["name"] == "put" and x["args"]["server"] != e["args"]["server"]
    )
    new = copy.deepcopy(e)
    new["args"]["server"] = other
    new["proc"] = next(x["proc"] for x in events if x["args"].get("server") == other)
    return {"op": "insert", "event": n + 1, "new": {**new, "zxid": None}}


def _offset_backwards(events: list[Event]) -> Edit:
    """A persisted position after the first one of its source, rewritten to an earlier one."""
    seen: dict[tuple, int] = {}
    for n, e in enumerate(events):
        if e["name"] == "persist":
            key = (e["proc"], e["args"]["shipper"], e["detail"]["wal"])
            if key in seen and e["detail"]["position"] > seen[key] > 0:
                return {
                    "op": "alter",
                    "event": n,
                    "field": "detail.position",
                    "value": seen[key],
                }
            seen[key] = e["detail"]["position"]
    raise LookupError("no source persisted twice")


def _ship_after_remove(events: list[Event]) -> Edit:
    """A batch of the removed peer's source shipped again after every server handled the
    removal."""
    rm = _first(events, lambda n, e: e["name"] == "remove_peer")
    p = events[rm]["args"]["peer"]
    last_sync = max(
        n for n, e in enumerate(events) if e["name"] == "peer_sync" and e["args"]["peer"] == p
    )
    ship = max(
        n
        for n, e in enumerate(events[:rm])
        if e["name"] == "ship" and str(e["detail"].get("queue", "")).startswith(str(p + 2))
    )
    new = {**copy.deepcopy(events[ship]), "t": events[last_sync]["t"]}
    return {"op": "insert", "event": last_sync + 1, "new": new}


def _claim_of_live(events: list[Event]) -> Edit:
    """A claim read naming a server that is alive (it never crashed) as the dead one."""
    crashed = {e["args"]["server"] for e in events if e["name"] == "crash"}
    n = _first(events, lambda n, e: e["name"] in ("claim_read", "lock"))
    live = next(
        x["args"]["server"]
        for x in events
        if x["name"] == "put"
        and x["args"]["server"] not in crashed
        and x["args"]["server"] != events[n]["args"]["server"]
    )
    return {"op": "alter", "event": n, "field": "args.dead", "value": live}


def _swap_across_zxid(events: list[Event]) -> Edit:
    """A ship swapped with the persist that records its position (a later zxid)."""
    n = _first(
        events,
        lambda n, e: (
            e["name"] == "ship"
            and n + 1 < len(events)
            and events[n + 1]["name"] == "persist"
            and events[n + 1]["proc"] == e["proc"]
        ),
    )
    return {"op": "swap", "event": n, "with": n + 1}


def _drop_ship(events: list[Event]) -> Edit:
    """A shipped batch that delivered an edit, dropped."""
    return {
        "op": "drop",
        "event": _first(events, lambda n, e: e["name"] == "ship" and e["detail"].get("uids")),
    }


def _duplicate_ship(events: list[Event]) -> Edit:
    """A shipped batch that delivered an edit, recorded twice."""
    return {
        "op": "duplicate",
        "event": _first(events, lambda n, e: e["name"] == "ship" and e["detail"].get("uids")),
    }


HAND_MADE: dict[str, Callable[[list[Event]], Edit]] = {
    "wal-deleted-while-queued": _wal_deleted_while_queued,
    "second-owner": _second_owner,
    "offset-backwards": _offset_backwards,
    "ship-after-remove": _ship_after_remove,
    "claim-of-live-server": _claim_of_live,
    "swap-across-zxid": _swap_across_zxid,
    "drop-event": _drop_ship,
    "duplicate-event": _duplicate_ship,
}
"""The golden corpus's hand-made invalid traces: each finds its event in a valid trace."""
