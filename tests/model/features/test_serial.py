"""Serial replication and the ``sid`` family's values (``model/features/serial.py``): the checker's
wait for the previous range, the last pushed sequence ids an offset write carries, the sink's order
(``serial_order``), the two mutants, and the engines against each other."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Action, Config, Model, get_design
from replcheck.model.engine.plain import PlainModel
from replcheck.model.engine.text_model import TextModel
from replcheck.model.features.serial import FEATURE, PushesOnFailedCheck, SeqIdsApart, SerialRegion
from replcheck.model.table.compose import table_flat_class
from replcheck.specs.crosscheck import cross_check
from replcheck.specs.explore import check, explore

CFG = STANDARD["t-serial"]
SMALL = CFG.with_overrides(name="t-serial-small", servers=2, crashes=1, edits=2)
"""Two servers and one crash: the region moves once (258 states)."""


def _run(model: Model, steps: list[tuple[str, tuple]]) -> object:
    st = model.init()
    for name, args in steps:
        action = Action(name, args)
        assert action in model.enabled(st), f"{action} is not enabled"
        st = model.step(st, action)
    return st


MOVED = [
    ("put", (0, 0, 0)),
    ("crash", (0,)),
    ("scp_split", (0,)),
    ("open_region", (1,)),
    ("put", (1, 0, 0)),
]
"""The region's first edit on server 0, which dies; the region opens on server 1, which writes
the second edit: two ranges, the first still to be replicated by a recovered queue."""

CLAIMED = [
    ("scp_claim_stage", (0,)),
    ("arqp_read_missing", (0,)),
    ("arqp_put_missing", (0,)),
    ("arqp_claim", (0, (1,))),
    ("claim_read", (1, 0, 0)),
    ("claim_commit", (1,)),
]
"""Server 0's queue (a BEGIN placeholder) claimed by server 1."""


def test_the_feature_and_the_mutants_texts_compose() -> None:
    assert FEATURE in table_flat_class("table", CFG).__mro__
    for name, text in [
        ("table/HBASE-29501", PushesOnFailedCheck),
        ("table/sid-apart-from-offset", SeqIdsApart),
    ]:
        mro = table_flat_class(name, CFG).__mro__
        assert mro.index(text) < mro.index(FEATURE)
        assert text not in table_flat_class(name, STANDARD["t-std"]).__mro__


def test_other_configurations_have_no_region() -> None:
    """Without serial peers the state has no region, and no step opens one."""
    model = Model(get_design("table"), STANDARD["t-std"])
    st = model.init()
    assert st.serial == ()
    assert "open_region" not in {a.name for a in model.enabled(st)}


def test_serial_peers_must_exist_from_the_start() -> None:
    with pytest.raises(ValueError, match="serial_peers"):
        Config(name="x", peers=1, initial_peers=0, serial_peers=1)


def test_only_the_region_server_writes() -> None:
    model = Model(get_design("table"), CFG)
    st = model.init()
    assert st.serial == SerialRegion((0,), (0,), 0, (), (-1,), (-1,), 0)
    puts = {a.args[0] for a in model.enabled(st) if a.name == "put"}
    assert puts == {0}


def test_the_next_range_waits_for_the_previous() -> None:
    """The edit of range 1 is not shipped while the ``sid`` cell is below its barrier minus one;
    the recovered queue ships range 0, and its offset write carries sequence id 0, which lets
    range 1 go."""
    model = Model(get_design("table"), CFG)
    st = _run(model, MOVED + CLAIMED)
    assert st.serial.hosts == (0, 1) and st.serial.barriers == (0, 1)
    assert [s for _w, _j, s in st.serial.seqs] == [0, 1]
    ships = {a for a in model.enabled(st) if a.name == "ship"}
    assert Action("ship", (1, 0, 0)) not in ships
    assert Action("ship", (1, 1, 0)) in ships
    st = model.step(st, Action("ship", (1, 1, 0)))
    st = model.step(st, Action("persist", (1, 1)))
    assert st.serial.pushed == (0,)
    assert Action("ship", (1, 0, 0)) in model.enabled(st)
    st = model.step(st, Action("ship", (1, 0, 0)))
    st = model.step(st, Action("persist", (1, 0)))
    assert st.serial.pushed == (1,)
    assert st.serial.top == (1,) and st.serial.back == 0


def test_a_finished_recovered_queue_leaves_its_sequence_id() -> None:
    """A recovered source that ends without persisting its offset (``finish``) still pushes its
    batch's sequence id (``noMoreData`` flushes it): range 1 is not left waiting."""
    model = Model(get_design("table"), CFG)
    st = _run(model, [*MOVED, *CLAIMED, ("ship", (1, 1, 0)), ("finish", (1, 1))])
    assert st.serial.pushed == (0,)
    assert Action("ship", (1, 0, 0)) in model.enabled(st)


def test_a_sequence_id_never_decreases() -> None:
    """A write of a lower sequence id than the stored one is skipped."""
    model = Model(get_design("table"), CFG)
    st = _run(model, [*MOVED, *CLAIMED, ("ship", (1, 1, 0)), ("persist", (1, 1))])
    st = _run_from(model, st, [("ship", (1, 0, 0)), ("persist", (1, 0))])
    assert st.serial.pushed == (1,)
    st = _run_from(model, st, [("finish", (1, 1))])
    assert st.serial.pushed == (1,)


def _run_from(model: Model, st: object, steps: list[tuple[str, tuple]]) -> object:
    for name, args in steps:
        action = Action(name, args)
        assert action in model.enabled(st), f"{action} is not enabled"
        st = model.step(st, action)
    return st


def test_correct_design_passes_the_small_configuration() -> None:
    r = check(Model(get_design("table"), SMALL))
    assert r.stats["complete"] and r.violated == []
    assert r.stats["states"] == 258


@pytest.mark.parametrize(
    ("mutant", "violated", "length"),
    [
        ("table/HBASE-29501", ["serial_order"], 6),
        ("table/sid-apart-from-offset", ["serial_order", "edits_delivered"], 15),
    ],
)
def test_mutants_caught(mutant: str, violated: list[str], length: int) -> None:
    r = check(Model(get_design(mutant), SMALL))
    assert r.violated == violated
    assert r.counterexamples["serial_order"].length == length


def test_sequence_ids_apart_from_the_offset() -> None:
    """The sequence id put alone, then the server dies before its offset's put: the next range
    is pushed, and the recovered queue pushes the previous range's edit again after it."""
    model = Model(get_design("table/sid-apart-from-offset"), SMALL)
    st = _run(
        model,
        [
            ("put", (0, 0, 0)),
            ("ship", (0, 0, 0)),
            ("put_seq_ids", (0, 0)),
            *MOVED[1:],
            *CLAIMED,
            ("ship", (1, 0, 0)),
        ],
    )
    assert st.serial.top == (1,) and st.serial.back == 0
    broken = [p.name for p in model.invariants if not p.check(model.cfg, st)]
    assert broken == []
    st = model.step(st, Action("ship", (1, 1, 0)))
    assert st.serial.back == 1
    broken = [p.name for p in model.invariants if not p.check(model.cfg, st)]
    assert broken == ["serial_order"]


@pytest.mark.parametrize("design", ["table", "table/HBASE-29501"])
def test_engines_agree(design: str) -> None:
    """The generated program and the plain interpreter find the same space, without symmetry."""
    model = Model(get_design(design), SMALL)
    assert isinstance(model, TextModel)
    text = explore(model, symmetry=False)
    plain = explore(PlainModel(get_design(design), SMALL), symmetry=False)
    assert (len(text.states), text.transitions) == (len(plain.states), plain.transitions)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "depth"), [("table", 6), ("table/HBASE-29501", 6)])
def test_bounded_model_checking_agrees_with_exploration(name: str, depth: int) -> None:
    cc = cross_check(name, CFG, depth)
    assert cc.agree, cc.to_dict()
