"""Named state (``model/engine/names.py``): every variable family of both eras' layouts is
declared once with a readable name, the text reads it by that name, and the names make exactly
the keys the raw form made, so every engine packs the same slots."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from footprints import CASES, footprints
from replcheck.model import STANDARD
from replcheck.model.engine.catalogue import DESIGNS, flat_layout
from replcheck.model.engine.names import (
    FAMILIES,
    by_key,
    check_layout,
    families_of,
    name_of,
    named,
    var,
)
from replcheck.model.engine.step import Ctx, Reader
from replcheck.model.engine.text import FPY, Tx

ROOT = Path(__file__).parents[3]
PINNED = Path(__file__).parents[1] / "data" / "footprints.json"

LAYOUTS = (
    ("table", "t-std"),
    ("table", "t-race"),
    ("table-doc", "t-remove-peer"),
    ("table", "t-chore"),
    ("table", "t-master-restart"),
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
    ("table", "t-hfile-add"),
    ("zk-multi", "std"),
    ("zk-lock", "std"),
    ("zk-lock", "chore"),
    ("zk-multi", "zk-faults"),
    ("zk-lock", "master-master"),
    ("zk-multi", "peers"),
    ("zk-multi", "peer-life"),
)
"""Layouts that between them hold every family of both eras."""

CONVERTED = sorted(
    str(p.relative_to(ROOT))
    for folder in ("model/table", "model/zk", "model/features", "model/common")
    for p in (ROOT / folder).glob("*.py")
    if p.name not in ("layout.py", "edit_space.py", "families.py", "state.py")
)
"""The protocol text's modules: steps, rules, helpers, properties and the features' layouts.
The two eras' base layouts (``model/table/layout.py``, ``model/zk/layout.py``) and the
WAL and relay slots both share (``model/common/edit_space.py``) pack the keys: that is where a
key is spelled, once, beside its family's declaration."""


def _era(design: str) -> str:
    return DESIGNS[design].era


@pytest.mark.parametrize(("design", "config"), LAYOUTS)
def test_every_slot_of_a_layout_is_a_declared_family(design: str, config: str) -> None:
    layout = flat_layout(design, STANDARD[config])
    assert check_layout(layout.sorts(), _era(design), layout) == []


def test_each_era_declares_every_family_once() -> None:
    seen: dict[str, set[str]] = {"table": set(), "zk": set()}
    for design, config in LAYOUTS:
        layout = flat_layout(design, STANDARD[config])
        seen[_era(design)] |= {k[0] for k in layout.sorts()}
    for era, prefixes in seen.items():
        fams = families_of(era)
        assert len({f.key for f in fams}) == len(fams), f"{era}: a key declared twice"
        assert len({f.name for f in fams}) == len(fams)
        unused = {f.key for f in fams} - prefixes
        # the relay clusters' families of the table era and the joins' of the ZooKeeper era
        # serve recorded runs only
        assert unused <= {"rlen", "rship", "ru", "rkind", "rids", "wu", "wids", "started"}, unused
        for f in fams:
            assert f.name.isidentifier() and len(f.name) > 4, f.name
            assert f.doc, f"{f.name}: say what it is"


def test_a_family_reads_as_its_declaration() -> None:
    assert str(FAMILIES["claim_target"]) == "claim_target[dead, peer, source]: server"
    assert str(FAMILIES["cleaner_phase"]).startswith("cleaner_phase: ")
    assert name_of(("cht", 0, 0, -1), "table") == "claim_target[0, 0, -1]"
    assert name_of(("cl", 1), "zk") == "claiming[1]"
    assert name_of(("cph",), "table") == "cleaner_phase"


def test_no_family_name_hides_what_a_context_has() -> None:
    for cls in (Ctx, Tx, Reader):
        own = {n for c in cls.__mro__ if c.__name__ != "Named" for n in vars(c)}
        assert not own & set(FAMILIES), cls


def test_names_make_the_raw_keys() -> None:
    """Read, write, conditional write, a rule's ``get`` and the key itself: each by name is
    the raw key's."""
    values = {("cht", 0, 1, -1): 2, ("cph",): 1, ("rex", 0, 1, -1): True}
    for f in FAMILIES.values():
        idx = tuple(range(len(f.dims)))
        assert var.__getattr__(f.name)(*idx) == (f.key, *idx)
    got: list[tuple] = []

    def get(k: tuple) -> object:
        got.append(k)
        return values[k]

    assert named(get).claim_target[0, 1, -1] == 2
    assert named(get).cleaner_phase == 1
    rk = (0, 1, -1)
    assert Reader(get).queue_row[*rk] is True
    assert got == [("cht", 0, 1, -1), ("cph",), ("rex", 0, 1, -1)]

    tx = Tx(FPY, values)
    tx.claim_target[0, 1, -1] = 1
    tx.cleaner_phase = 2
    tx.when(False).claim_target[0, 1, -1] = 0
    tx.when(True).queue_row[*rk] = False
    assert tx.new == {("cht", 0, 1, -1): 1, ("cph",): 2, ("rex", 0, 1, -1): False}

    raw = Tx(FPY, values)
    t = Ctx(FPY, values.__getitem__, raw)
    t.when(True, ("cph",), 0)
    named_tx = Tx(FPY, values)
    Ctx(FPY, values.__getitem__, named_tx).when(True).cleaner_phase = 0
    assert raw.new == named_tx.new == {("cph",): 0}


def test_a_guard_stops_at_a_write_by_name() -> None:
    t = Ctx(FPY, {("cph",): 0}.__getitem__)
    cond = t.when(True)
    with pytest.raises(Exception) as stop:
        cond.cleaner_phase = 1
    assert type(stop.value).__name__ == "_Stop"


def test_the_named_text_has_the_raw_texts_footprints() -> None:
    """Every instance of every step reads and writes, in the same order, the slots it did when
    the text spelled raw keys (pinned before the rewrite), and every property reads the same:
    every engine is handed the same text. Since then, one step was added where a helper had hidden
    it: ``roll`` under sync replication (``tests/model/engine/test_composition.py``)."""
    pinned = json.loads(PINNED.read_text())
    for design, config in CASES:
        now = footprints(design, STANDARD[config])
        was = pinned[f"{design}@{config}"]
        changed = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
        assert not changed, f"{design}@{config}: {changed}"


def _raw_keys(path: Path, era: str) -> list[str]:
    """Tuples that spell a key of one of ``era``'s families (or a family prefix built by
    concatenation) in the module's code."""
    fams = by_key("table") if era == "common" else by_key(era)
    if era == "common":
        fams = {k: f for k, f in fams.items() if by_key("zk").get(k) is f}
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Tuple) or not node.elts:
            continue
        head = node.elts[0]
        if isinstance(head, ast.BinOp) and isinstance(head.left, ast.Constant):
            out.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
            continue
        if not (isinstance(head, ast.Constant) and head.value in fams):
            continue
        rest = node.elts[1:]
        names = all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in rest)
        if rest and names and head.value != "b":
            continue  # a tuple of names (params=("peer",)), not a key
        starred = any(isinstance(e, ast.Starred) for e in rest)
        if not starred and len(rest) != len(fams[head.value].dims):
            continue
        out.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return out


@pytest.mark.parametrize("module", CONVERTED)
def test_the_text_spells_no_raw_key(module: str) -> None:
    era = "zk" if "/zk/" in module else "common" if "/common/" in module else "table"
    assert _raw_keys(ROOT / module, era) == []
