"""What each instance of the protocol text reads and writes, traced over terms: the slots its
guard reads, the slots its update reads and the slots it writes, by key. Two texts whose
instances have the same footprints, in the same order, hand every engine the same slots
(``tests/model/engine/test_named_state.py`` holds the named text against the raw keys'
footprints)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.catalogue import flat_layout
from replcheck.model.engine.terms import Graph, TermOps
from replcheck.model.engine.text import Fold, Tx

CASES: tuple[tuple[str, str], ...] = (
    ("table", "t-race"),
    ("table", "t-std"),
    ("table-doc", "t-remove-peer"),
    ("table", "t-chore"),
    ("table", "t-master-restart"),
    ("table", "t-multiwal"),
    ("table", "t-bootstrap"),
    ("table", "t-storage-faults"),
    ("table", "t-peer-update"),
    ("table", "t-sync"),
    ("table-doc", "t-sync-remote"),
    ("table", "t-syncup"),
    ("table", "t-migrate"),
    ("table-doc", "t-migrate-legacy"),
    ("table", "t-migrate-hfile"),
    ("table", "t-serial"),
    ("table", "t-serial-add"),
    ("table", "t-hfile-remove"),
    ("zk-multi", "race"),
    ("zk-lock", "race"),
    ("zk-multi", "std"),
    ("zk-lock", "chore"),
    ("zk-multi", "zk-faults"),
    ("zk-lock", "master-master"),
    ("zk-multi", "peers"),
    ("zk-multi", "peer-life"),
)
"""(design, configuration) whose footprints are pinned: every component of both eras' text."""


class _Reads(dict):
    """The slots' terms, recording the keys read."""

    def __init__(self, var: dict[tuple, Any]) -> None:
        super().__init__(var)
        self.read: list[tuple] = []

    def __getitem__(self, k: tuple) -> Any:
        self.read.append(k)
        return super().__getitem__(k)


def footprints(design: str, cfg: Config) -> dict[str, str]:
    """Per action kind, a digest of its instances' footprints in order: each instance's
    arguments, the keys its guard reads, the keys its update reads and writes (in the order
    read and written); per property, the keys it reads (a step property's before and after)."""
    fm = flat_layout(design, cfg).model()
    g = Graph()
    ops = Fold(TermOps(g))
    var = {k: g.out(g.intern("var", (i,))) for i, k in enumerate(fm.sorts)}
    kinds: dict[str, list[Any]] = {}
    for inst in fm.instances:
        guard = _Reads(var)
        inst.guard(ops, guard.__getitem__)
        update = _Reads(var)
        tx = Tx(ops, update)
        inst.apply(ops, tx)
        kinds.setdefault(inst.name, []).append(
            [repr(inst.args), repr(guard.read), repr(update.read), repr(list(tx.new))]
        )
    for prop in fm.properties:
        before = _Reads(var)
        after = _Reads(var)
        if prop.kind == "step":
            prop.check(ops, before.__getitem__, after.__getitem__)
        else:
            prop.check(ops, before.__getitem__)
        kinds[f"{prop.kind} {prop.name}"] = [repr(before.read), repr(after.read)]
    return {
        name: hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
        for name, rows in sorted(kinds.items())
    }
