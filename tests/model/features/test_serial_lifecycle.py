"""A serial peer across its lifecycle (``model/features/serial_life.py``): AddPeerProcedure's serial
stages (the peer stored disabled, the region reopened into a new range, the last pushed sequence id
written from its barrier, the peer enabled), RemovePeerProcedure's ``removeLastSequenceIds`` and
``removePeerFromHFileRefs``, AddPeer's check of the ``hfileref`` row, the mutants, and the
engines against each other."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Action, Config, Model, get_design
from replcheck.model.common.state import DISABLED, ENABLED, REMOVED
from replcheck.model.engine.plain import PlainModel
from replcheck.model.features.hfile_refs import RemovalKeepsHFileRefs
from replcheck.model.features.serial_life import FEATURE, AddSkipsSeqIds, RemovalKeepsSeqIds
from replcheck.model.table.compose import table_flat_class
from replcheck.model.table.state import AP_ENABLE, AP_REOPEN, AP_SEQ_ID, TState
from replcheck.specs.crosscheck import cross_check
from replcheck.specs.explore import check, explore

ADD = STANDARD["t-serial-add"]
READD = STANDARD["t-serial-readd"]
HFILE = STANDARD["t-hfile-remove"]


def _take(model: Model, st: TState, name: str, *args: object) -> TState:
    action = Action(name, tuple(args))
    assert action in model.enabled(st), f"{action} is not enabled"
    return model.step(st, action)


def _to_reopen(model: Model, st: TState) -> TState:
    """The admin adds serial peer 0: PRE, UPDATE_PEER_STORAGE (stored disabled), the refresh on
    the live servers 1 and 2, and the procedure at SERIAL_PEER_REOPEN_REGIONS."""
    st = _take(model, st, "add_peer", 0)
    st = _take(model, st, "peer_proc", 0)
    st = _take(model, st, "peer_proc", 0)
    for s in (1, 2):
        st = _take(model, st, "refresh", 0, s)
    return _take(model, st, "peer_proc", 0)


def _until_done(model: Model, st: TState, p: int = 0) -> TState:
    """Run peer ``p``'s procedure (its stages and refreshes, the first enabled each time) to its
    end."""
    for _ in range(40):
        if not st.pprocs[p]:
            return st
        action = next(a for a in model.enabled(st) if a.name in ("peer_proc", "refresh"))
        st = model.step(st, action)
    raise AssertionError("the procedure does not end")


def test_the_feature_and_the_mutants_texts_compose() -> None:
    assert FEATURE in table_flat_class("table", ADD).__mro__
    assert FEATURE not in table_flat_class("table", STANDARD["t-serial"]).__mro__
    for name, cfg, text in [
        ("table/serial-add-skips-seq-id", ADD, AddSkipsSeqIds),
        ("table/serial-remove-keeps-sid", READD, RemovalKeepsSeqIds),
    ]:
        mro = table_flat_class(name, cfg).__mro__
        assert text in mro and mro.count(FEATURE) == 1
    assert RemovalKeepsHFileRefs in table_flat_class("table/remove-keeps-hfile-refs", HFILE).__mro__


def test_serial_life_needs_serial_peers_and_reads_as_before_when_unset() -> None:
    with pytest.raises(ValueError, match="serial_life needs serial_peers"):
        Config(name="x", serial_life=True)
    assert "serial_life" not in STANDARD["t-serial"].to_dict()
    assert ADD.to_dict()["serial_life"] is True


def test_a_serial_peer_is_stored_disabled_and_its_add_reopens_the_region() -> None:
    model = Model(get_design("table"), ADD)
    st = _take(model, model.init(), "put", 0, 0, 0)
    st = _take(model, st, "add_peer", 0)
    st = _take(model, st, "peer_proc", 0)
    st = _take(model, st, "peer_proc", 0)
    assert st.peers[0] == DISABLED
    for s in range(3):
        st = _take(model, st, "refresh", 0, s)
    st = _take(model, st, "peer_proc", 0)
    assert st.pprocs[0].stage == AP_REOPEN
    reopens = {a.args[1] for a in model.enabled(st) if a.name == "peer_proc" and len(a.args) == 2}
    assert reopens == {1, 2}, "the region reopens on a live server that never hosted it"
    st = _take(model, st, "peer_proc", 0, 2)
    assert st.serial.hosts == (0, 2) and st.serial.barriers == (0, 1)
    assert st.pprocs[0].stage == AP_SEQ_ID
    st = _take(model, st, "peer_proc", 0)
    assert st.serial.pushed == (0,), "the last barrier minus one"
    assert st.serial_from == (1,)
    assert st.pprocs[0].stage == AP_ENABLE and st.peers[0] == DISABLED
    st = _take(model, st, "peer_proc", 0)
    assert st.peers[0] == ENABLED
    st = _until_done(model, st)
    assert not st.pprocs[0]


def test_the_reopen_waits_for_a_closed_region() -> None:
    """The region's server died and the SCP has not assigned it: nothing to reopen yet."""
    model = Model(get_design("table"), ADD)
    st = _take(model, model.init(), "crash", 0)
    st = _to_reopen(model, st)
    assert st.pprocs[0].stage == AP_REOPEN
    assert not [a for a in model.enabled(st) if a.name == "peer_proc"]
    st = _take(model, st, "scp_split", 0)
    st = _take(model, st, "open_region", 1)
    reopens = {a.args[1] for a in model.enabled(st) if a.name == "peer_proc"}
    assert reopens == {2}


def test_without_the_sequence_id_the_new_range_waits_for_ever() -> None:
    """The mutant: the dead server's range is never pushed to the new peer, so the range the
    reopen opened cannot be pushed."""
    model = Model(get_design("table/serial-add-skips-seq-id"), ADD)
    st = _take(model, model.init(), "put", 0, 0, 0)
    st = _take(model, st, "crash", 0)
    st = _take(model, st, "scp_split", 0)
    st = _take(model, st, "open_region", 1)
    st = _to_reopen(model, st)
    st = _take(model, st, "peer_proc", 0, 2)
    st = _until_done(model, st)
    assert st.serial.pushed == (-1,) and st.peers[0] == ENABLED
    st = _take(model, st, "put", 2, 0, 0)
    assert not [a for a in model.enabled(st) if a.name == "ship" and a.args[0] == 2]


def _removed(model: Model) -> TState:
    """t-serial-readd: an edit shipped and persisted (its sequence id with it), then the peer
    removed to the end of RemovePeerProcedure."""
    st = _take(model, model.init(), "put", 0, 0, 0)
    st = _take(model, st, "ship", 0, 0, 0)
    st = _take(model, st, "persist", 0, 0)
    assert st.serial.pushed == (0,)
    st = _take(model, st, "remove_peer", 0)
    return _until_done(model, st)


def test_the_removal_deletes_the_sequence_ids_and_the_mutant_keeps_them() -> None:
    model = Model(get_design("table"), READD)
    st = _removed(model)
    assert st.peers[0] == REMOVED and st.serial.pushed == (-1,)
    assert [p.name for p in model.invariants if not p.check(model.cfg, st)] == []
    mutant = Model(get_design("table/serial-remove-keeps-sid"), READD)
    st = _removed(mutant)
    assert st.serial.pushed == (0,)
    broken = [p.name for p in mutant.invariants if not p.check(mutant.cfg, st)]
    assert broken == ["no_queue_after_removal"]


def test_a_readded_serial_peer_takes_the_new_barrier() -> None:
    model = Model(get_design("table"), READD)
    st = _take(model, _removed(model), "add_peer", 0)
    st = _until_done(model, st)
    assert st.peers[0] == ENABLED
    assert st.serial.pushed[0] == st.serial.barriers[-1] - 1 == 0
    assert len(st.serial.hosts) == 2


def test_an_hfile_ref_left_by_the_removal_fails_the_add() -> None:
    """``checkQueuesDeleted``: "Undeleted queue for peer ... in hfile-refs"."""
    cfg = HFILE.with_overrides(name="t-hfile-readd", admin_ops=2, peer_life=True)
    for design, added in [("table", True), ("table/remove-keeps-hfile-refs", False)]:
        model = Model(get_design(design), cfg)
        st = _take(model, model.init(), "bulk_load", 0)
        st = _take(model, st, "remove_peer", 0)
        st = _until_done(model, st)
        assert bool(st.sid[0]) != added
        st = _until_done(model, _take(model, st, "add_peer", 0))
        assert (st.peers[0] == ENABLED) == added


@pytest.mark.parametrize(
    ("design", "cfg", "violated"),
    [
        ("table/serial-remove-keeps-sid", READD, ["no_queue_after_removal"]),
        ("table/remove-keeps-hfile-refs", HFILE, ["no_queue_after_removal"]),
    ],
)
def test_mutants_caught(design: str, cfg: Config, violated: list[str]) -> None:
    r = check(Model(get_design(design), cfg))
    assert r.violated == violated
    base = check(Model(get_design("table"), cfg))
    assert base.stats["complete"] and base.violated == []


@pytest.mark.slow
def test_the_skipped_sequence_id_is_caught() -> None:
    r = check(Model(get_design("table/serial-add-skips-seq-id"), ADD))
    assert r.violated == ["edits_delivered"]


@pytest.mark.parametrize("cfg", [READD, HFILE])
def test_engines_agree(cfg: Config) -> None:
    """The generated program and the plain interpreter find the same space, without symmetry."""
    text = explore(Model(get_design("table"), cfg), symmetry=False)
    plain = explore(PlainModel(get_design("table"), cfg), symmetry=False)
    assert (len(text.states), text.transitions) == (len(plain.states), plain.transitions)


@pytest.mark.parametrize(
    ("name", "cfg", "depth"),
    [("table", READD, 5), ("table/remove-keeps-hfile-refs", HFILE, 11)],
)
def test_bounded_model_checking_agrees_with_exploration(name: str, cfg: Config, depth: int) -> None:
    cc = cross_check(name, cfg, depth)
    assert cc.agree, cc.to_dict()
