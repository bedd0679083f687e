"""Bulk loads and the ``hfileref`` family (``model/features/hfile_refs.py``): the references a bulk
load adds per peer, their removal when the marker is shipped, the hfile cleaner that waits for them,
``bulk_loaded_hfile_kept``, the mutant, and the engines against each other."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.engine.plain import PlainModel
from replcheck.model.features.hfile_refs import (
    FEATURE,
    HF_ARCHIVED,
    HF_DELETED,
    HF_STORE,
    RefsAfterCommit,
)
from replcheck.model.table.compose import table_flat_class
from replcheck.model.table.state import HFILE_REF
from replcheck.specs.crosscheck import cross_check
from replcheck.specs.explore import check, explore

CFG = STANDARD["t-hfile"]
LOADED = [("bulk_load", (0,)), ("bulk_load_commit", (0,)), ("hfile_archive", ())]
"""Server 0 bulk loads the hfile (its references for both peers, then the marker), and a
compaction archives it."""


def _run(model: Model, steps: list[tuple[str, tuple]], st: object = None) -> object:
    st = model.init() if st is None else st
    for name, args in steps:
        action = Action(name, args)
        assert action in model.enabled(st), f"{action} is not enabled"
        st = model.step(st, action)
    return st


def test_the_feature_and_the_mutant_text_compose() -> None:
    assert FEATURE in table_flat_class("table", CFG).__mro__
    mro = table_flat_class("table/hfile-refs-after-commit", CFG).__mro__
    assert mro.index(RefsAfterCommit) < mro.index(FEATURE)
    assert (
        RefsAfterCommit
        not in table_flat_class("table/hfile-refs-after-commit", STANDARD["t-std"]).__mro__
    )


def test_other_configurations_have_no_bulk_load() -> None:
    model = Model(get_design("table"), STANDARD["t-std"])
    assert model.init().hfile == ()
    assert not {"bulk_load", "hfile_clean"} & {a.name for a in model.enabled(model.init())}


def test_the_cleaner_waits_for_every_peer() -> None:
    """The archived hfile is kept while either peer's reference names it: shipping the marker
    to the first peer removes only that peer's reference."""
    model = Model(get_design("table"), CFG)
    st = _run(model, LOADED)
    assert st.hfile.stage == HF_ARCHIVED
    assert [x & HFILE_REF for x in st.sid] == [HFILE_REF, HFILE_REF]
    assert Action("hfile_clean", ()) not in model.enabled(st)
    st = _run(model, [("ship", (0, 0, 0))], st)
    assert [bool(x & HFILE_REF) for x in st.sid] == [False, True]
    assert Action("hfile_clean", ()) not in model.enabled(st)
    st = _run(model, [("ship", (0, 1, 0)), ("hfile_clean", ())], st)
    assert st.hfile.stage == HF_DELETED
    assert [p.name for p in model.invariants if not p.check(model.cfg, st)] == []


def test_a_marker_replicated_by_a_recovered_queue() -> None:
    """The loading server dies before shipping: its references keep the hfile until the
    claimer's recovered queues ship the marker."""
    model = Model(get_design("table"), CFG)
    st = _run(
        model,
        [
            ("bulk_load", (0,)),
            ("bulk_load_commit", (0,)),
            ("crash", (0,)),
            ("scp_split", (0,)),
            ("hfile_archive", ()),
        ],
    )
    assert st.hfile.stage == HF_ARCHIVED
    assert Action("hfile_clean", ()) not in model.enabled(st)


def test_the_mutant_deletes_an_owed_hfile() -> None:
    model = Model(get_design("table/hfile-refs-after-commit"), CFG)
    st = _run(model, [*LOADED, ("hfile_clean", ())])
    broken = [p.name for p in model.invariants if not p.check(model.cfg, st)]
    assert broken == ["bulk_loaded_hfile_kept"]


def test_late_references_come_after_the_commit() -> None:
    """The mutant's references are a step of their own, taken only after the commit."""
    model = Model(get_design("table/hfile-refs-after-commit"), CFG)
    st = _run(model, [("bulk_load", (0,))])
    assert st.sid == (0, 0)
    assert Action("bulk_load_refs", (0,)) not in model.enabled(st)
    st = _run(model, [("bulk_load_commit", (0,)), ("bulk_load_refs", (0,))], st)
    assert st.hfile.stage == HF_STORE and all(x & HFILE_REF for x in st.sid)


def test_verdicts() -> None:
    base = check(Model(get_design("table"), CFG))
    assert base.stats["complete"] and base.violated == []
    assert base.stats["states"] == 1645
    mutant = check(Model(get_design("table/hfile-refs-after-commit"), CFG))
    assert mutant.violated == ["bulk_loaded_hfile_kept"]
    assert mutant.counterexamples["bulk_loaded_hfile_kept"].length == 4


@pytest.mark.parametrize("design", ["table", "table/hfile-refs-after-commit"])
def test_engines_agree(design: str) -> None:
    text = explore(Model(get_design(design), CFG), symmetry=False)
    plain = explore(PlainModel(get_design(design), CFG), symmetry=False)
    assert (len(text.states), text.transitions) == (len(plain.states), plain.transitions)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "depth"), [("table", 5), ("table/hfile-refs-after-commit", 5)])
def test_bounded_model_checking_agrees_with_exploration(name: str, depth: int) -> None:
    cc = cross_check(name, CFG, depth)
    assert cc.agree, cc.to_dict()


RACE = [
    ("add_peer", (0,)),
    ("peer_proc", (0,)),
    ("peer_proc", (0,)),
    ("bulk_load", (0,)),
    ("refresh", (0, 0)),
    ("bulk_load_commit", (0,)),
    ("hfile_archive", ()),
]
"""t-hfile-add: the peer is stored, server 0's bulk load adds its references (it has no source
yet, so none), server 0's refresh creates the new peer's source, and the marker is written."""


def test_a_bulk_load_racing_a_new_peer_leaves_its_marker_without_a_reference() -> None:
    """The pinned finding on ``t-hfile-add``: the marker is owed to the new peer, no reference
    names the hfile, and the hfile cleaner may delete it; had the source existed before the
    bulk load's references, the cleaner would wait."""
    model = Model(get_design("table"), STANDARD["t-hfile-add"])
    st = _run(model, RACE)
    marker = st.hfile.marker
    assert st.wals[marker[0]].entries[marker[1]].owed == 1
    assert st.sid[0] & HFILE_REF == 0
    assert Action("hfile_clean", ()) in model.enabled(st)
    ordered = [RACE[i] for i in (0, 1, 2, 4, 3, 5, 6)]  # the refresh before the bulk load
    st = _run(model, ordered)
    assert st.sid[0] & HFILE_REF and Action("hfile_clean", ()) not in model.enabled(st)


def test_the_race_is_the_only_failure_on_t_hfile_add() -> None:
    for design in ("table", "table-doc"):
        r = check(Model(get_design(design), STANDARD["t-hfile-add"]))
        assert r.stats["complete"] and r.violated == ["bulk_loaded_hfile_kept"]
        assert r.counterexamples["bulk_loaded_hfile_kept"].length == 8
