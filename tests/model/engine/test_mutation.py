"""A mutant's text put together with its design's (``model/engine/mutation.py``): overrides
placed by name, an override no configuration reaches refused, steps wrapped, families added,
names two composed classes define refused unless declared, every feature's steps present."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from replcheck.model import DESIGNS, STANDARD, RegistryError, get_design
from replcheck.model.engine.catalogue import flat_class
from replcheck.model.engine.mutation import added, wrap
from replcheck.model.engine.names import BOOL
from replcheck.model.engine.plain import PlainModel
from replcheck.model.engine.step import Ctx, steps_of
from replcheck.model.engine.text import FlatError
from replcheck.model.features.serial import SerialReplication
from replcheck.model.registry import register
from replcheck.model.table import compose
from replcheck.model.table.cleaner import LogCleaner
from replcheck.model.table.designs import Table
from replcheck.model.table.layout import TableFlat, config_features
from replcheck.model.table.wal import Wals
from replcheck.model.zk.lock import ZkLock
from replcheck.model.zk.wal import ZkWals
from replcheck.specs.compiled import explore_compiled
from replcheck.specs.explore import explore


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Names registered by a test, forgotten after it."""
    names: list[str] = []
    yield names
    for n in names:
        DESIGNS.pop(n, None)


def _add(names: list[str], cls: type) -> type:
    register(cls)
    names.append(cls.name)
    return cls


def _owner(cls: type, name: str) -> str:
    return next(c for c in cls.__mro__ if name in vars(c)).__qualname__


# --- overrides placed by name ------------------------------------------------------------------


class NeverGetsThrough(LogCleaner):
    def cleaner_run_ok(self, t: Any) -> Any:
        """A run of the cleaner never gets through oldWALs: nothing is ever deleted."""
        return False


class StuckCleaner(Table):
    name = "test/cleaner-never-through"
    mutant_of = "table"
    overrides = "cleaner_run_ok"
    text = NeverGetsThrough
    configs = ("t-chore",)
    bug = "the cleaner fails every run"


def test_an_override_of_a_base_helper_wins_over_a_features(registered: list[str]) -> None:
    """``cleaner_input`` overrides ``cleaner_run_ok``; a reviewer's class deriving from the
    base component's (``LogCleaner``) used to land after it and change nothing. Placed by name,
    it is what ``t-chore``'s text runs: its chore never deletes a WAL, which breaks the
    cleaner's purpose."""
    _add(registered, StuckCleaner)
    cfg = STANDARD["t-chore"]
    base = flat_class("table", cfg)
    mine = flat_class(StuckCleaner.name, cfg)
    assert _owner(base, "cleaner_run_ok") == "CleanerInput"
    assert _owner(mine, "cleaner_run_ok") == "NeverGetsThrough"
    got = explore_compiled(StuckCleaner.name, cfg, backend="c", symmetry=True)
    was = explore_compiled("table", cfg, backend="c", symmetry=True)
    assert (got.states, got.transitions) != (was.states, was.transitions)


class PushesEarly(SerialReplication):
    def rule_previous_range_pushed(self, ops: Any, *args: Any) -> Any:
        """Every range counts as pushed."""
        return True


class SerialEarly(Table):
    name = "test/serial-pushes-early"
    mutant_of = "table"
    overrides = "rule_previous_range_pushed"
    text = PushesEarly
    configs = ("t-serial-add",)
    bug = "the serial checker lets every range go"


def test_an_override_from_a_features_class_shadows_nothing_else(registered: list[str]) -> None:
    """A class deriving from ``SerialReplication`` used to bring that class in front of
    ``SerialLifecycle`` under ``t-serial-add``, whose ``ranges`` and ``order_from`` it then
    replaced; placed by name, only the overridden rule changes."""
    _add(registered, SerialEarly)
    cfg = STANDARD["t-serial-add"]
    base = flat_class("table", cfg)
    mine = flat_class(SerialEarly.name, cfg)
    assert _owner(mine, "rule_previous_range_pushed") == "PushesEarly"
    for name in ("ranges", "order_from"):
        assert inspect.getattr_static(mine, name) is inspect.getattr_static(base, name)
    assert _owner(base, "order_from") == "SerialLifecycle"
    assert [s.name for s in steps_of(mine)] == [s.name for s in steps_of(base)]


def test_an_override_no_configuration_reaches_is_refused(registered: list[str]) -> None:
    class Nowhere(Table):
        name = "test/serial-rule-on-t-std"
        mutant_of = "table"
        overrides = "rule_previous_range_pushed"
        text = PushesEarly
        configs = ("t-std",)
        bug = "a serial rule where no serial peer is"

    with pytest.raises(RegistryError) as got:
        _add(registered, Nowhere)
    msg = str(got.value)
    assert "\n" not in msg
    assert "'rule_previous_range_pushed', which no configuration of it (t-std) reaches" in msg


def test_every_builtin_override_is_reached() -> None:
    """What the registry holds a reviewer's mutant to, every built-in one meets."""
    from replcheck.model.registry import _check_reached

    for cls in DESIGNS.values():
        base = DESIGNS.get(cls.mutant_of or "")
        if base is not None and cls.text is not None and cls.text is not base.text:
            _check_reached(cls, base)


# --- the message for an override outside the text -------------------------------------------------


def test_a_helper_overridden_on_the_design_class_says_where_it_is(registered: list[str]) -> None:
    class OnTheDesign(Table):
        name = "test/rs-remove-peer-on-design"
        mutant_of = "table"
        overrides = "rs_remove_peer"
        configs = ("t-remove-peer",)
        bug = "written for the earlier interface"

        def rs_remove_peer(self, *args: Any) -> None:
            """Nothing."""

    with pytest.raises(RegistryError) as got:
        _add(registered, OnTheDesign)
    msg = str(got.value)
    assert "is not a step of" not in msg and "\n" not in msg
    assert "'rs_remove_peer' is not a method of the design table: it is a helper" in msg
    assert "PeerProcedures in model/table/peer_procs.py" in msg
    assert "override it in the mutant's text" in msg


# --- wrapping a step ------------------------------------------------------------------------------


def _small() -> Any:
    return replace(STANDARD["std"], name="std-small", crashes=0)


def test_a_wrapped_step_keeps_its_arguments_and_adds_a_guard(registered: list[str]) -> None:
    """``wrap(guard=...)``: the step's instances are the wrapped step's, each waiting for one
    more conjunct (here: no roll of server 1)."""

    class NoRollOfOne(ZkWals):
        roll = wrap(guard=lambda self, t, s, g, q: s != 1)

    cls = _add(
        registered,
        type(
            "NoRoll",
            (ZkLock,),
            {
                "name": "test/no-roll-of-one",
                "mutant_of": "zk-lock",
                "overrides": "roll",
                "text": NoRollOfOne,
                "configs": ("std",),
                "bug": "server 1 never rolls",
            },
        ),
    )
    cfg = _small()
    base, mine = PlainModel(get_design("zk-lock"), cfg), PlainModel(get_design(cls.name), cfg)
    rolls = {a for a in base.enabled(base.init()) if a.name == "roll"}
    assert {a.args[0] for a in rolls} == {0, 1}
    assert {a for a in mine.enabled(mine.init()) if a.name == "roll"} == {
        a for a in rolls if a.args[0] == 0
    }
    kind = next(k for k in get_design(cls.name).kinds if k.name == "roll")
    assert kind == next(k for k in get_design("zk-lock").kinds if k.name == "roll")


def test_writes_before_and_after_a_step(registered: list[str]) -> None:
    """``before`` writes what the body then reads; ``after`` writes over what the body wrote."""
    seen: list[Any] = []

    def before(self: Any, t: Ctx, s: int, g: int, q: int) -> None:
        t.server_alive[s] = True

    def after(self: Any, t: Ctx, s: int, g: int, q: int) -> None:
        seen.append(s)
        t.current_wal[s, g] = 0

    class Text(ZkWals):
        roll = wrap(before=before, after=after)

    cls = _add(
        registered,
        type(
            "StuckRoll",
            (ZkLock,),
            {
                "name": "test/roll-stays",
                "mutant_of": "zk-lock",
                "overrides": "roll",
                "text": Text,
                "configs": ("std",),
                "bug": "a roll that leaves the current WAL where it was",
            },
        ),
    )
    m = PlainModel(get_design(cls.name), _small())
    st = m.init()
    roll = next(a for a in m.enabled(st) if a.name == "roll")
    nxt = m.step(st, roll)
    assert seen and nxt.servers[roll.args[0]].current == st.servers[roll.args[0]].current
    assert nxt.wals != st.wals  # the body's writes stay: the next WAL exists


def keeps_nothing(self: Any, ops: Any, *args: Any) -> Any:
    """Every archived WAL may go."""
    return True


class DeletesAll(LogCleaner):
    cleaner_delete = wrap(rule={"rule_cleaner_may_delete": keeps_nothing})


class CleanerDeletesAll(Table):
    name = "test/cleaner-deletes-all"
    mutant_of = "table"
    overrides = "cleaner_delete"
    text = DeletesAll
    configs = ("t-std",)
    bug = "the cleaner's deletion rule lets every WAL go in its delete step"


def test_a_rule_replaced_while_one_step_runs(registered: list[str]) -> None:
    """``wrap(rule=...)``: the cleaner's deletion rule replaced in ``cleaner_delete`` alone;
    every engine reads it, and it is caught."""
    _add(registered, CleanerDeletesAll)
    got = explore_compiled(CleanerDeletesAll.name, STANDARD["t-std"], backend="c", symmetry=True)
    assert not got.complete or got.states != 16304
    assert "no_wal_deleted_while_needed" in got.first_violation


def test_a_wrap_of_no_step_is_refused() -> None:
    class Text(Wals):
        open_next_wal = wrap(guard=lambda self, t: True)

    from replcheck.model.engine.mutation import place

    with pytest.raises(FlatError, match="wraps open_next_wal, which is not a step"):
        place(TableFlat, [Text], era="table", label="test")


# --- a family a mutant adds ------------------------------------------------------------------


def _mark(self: Any, t: Ctx, s: int, g: int, q: int) -> None:
    t.rolled[s] = True


def test_an_added_family_is_carried_by_every_engine(registered: list[str]) -> None:
    """A flag per server (it rolled once; it may not roll again), written and read by the
    text: the plain interpreter, generated Python and C reach the same states, which the
    flag tells apart from the base design's."""

    class Text(ZkWals):
        rolled = added(("server",), BOOL, False, "the server rolled a WAL once")
        roll = wrap(guard=lambda self, t, s, g, q: t.ops.not_(t.rolled[s]), after=_mark)

    cls = _add(
        registered,
        type(
            "RollsOnce",
            (ZkLock,),
            {
                "name": "test/rolls-once",
                "mutant_of": "zk-lock",
                "overrides": "roll",
                "text": Text,
                "configs": ("std",),
                "bug": "each server rolls at most once",
            },
        ),
    )
    cfg = replace(STANDARD["std"], name="std-rolls", crashes=0, edits=1, wals_per_server=3)
    plain = explore(PlainModel(get_design(cls.name), cfg))
    py = explore_compiled(cls.name, cfg, backend="python", symmetry=True)
    c = explore_compiled(cls.name, cfg, backend="c", symmetry=True)
    base = explore_compiled("zk-lock", cfg, backend="c", symmetry=True)
    assert plain.complete and py.complete and c.complete
    assert len(plain.states) == py.states == c.states != base.states
    flagged = [st for st in plain.states if st.extra]
    assert flagged and all(k[0] == "rolled" and v is True for st in flagged for k, v in st.extra)


# --- names two composed classes define ----------------------------------------------------------


def test_a_helper_named_as_a_step_is_refused_where_the_text_is_put_together() -> None:
    """A feature's helper named as a base step would remove the step silently."""

    class Hides(Wals):
        pass

    class Feature:
        handles = frozenset()

        def roll(self, ops: Any, t: Any, s: int) -> None:
            """A helper that happens to be named as the WAL's step."""

    with pytest.raises(FlatError, match=r"\bFeature\.roll replaces Wals's step roll"):
        compose._compose([Feature], TableFlat)

    class Declared:
        handles = frozenset()
        replaces = ("roll",)
        roll = Feature.roll

    assert "roll" not in {s.name for s in steps_of(compose._compose([Declared], TableFlat))}


def test_every_feature_step_is_in_every_configuration_that_enables_it() -> None:
    for cfg in STANDARD.values():
        try:
            features = [f for f, _what in config_features(cfg)]
            cls = flat_class("table", cfg)
        except (FlatError, RegistryError):
            continue
        have = {s.name: s for s in steps_of(cls)}
        for feature in features:
            module = compose.FEATURES.get(feature)
            if module is None:
                continue
            for st in steps_of(module.FEATURE):
                assert have.get(st.name) is not None, (cfg.name, feature, st.name)


def test_no_feature_module_carries_a_mutant_table() -> None:
    for module in compose.FEATURES.values():
        assert not hasattr(module, "MUTANTS"), module.__name__


def test_a_text_rule_is_a_method_reached_by_its_name() -> None:
    """The cleaner reads its rules as methods of the text (no string lookups): the design's
    dual-form rule by default, a mutant's text's method where it has one."""
    cfg = STANDARD["t-std"]
    text = flat_class("table", cfg)(get_design("table"), cfg)
    rule = text.rule_cleaner_may_delete
    assert rule is type(get_design("table")).rule_cleaner_may_delete.generic
    assert "self.rule[" not in inspect.getsource(LogCleaner)


def test_the_wrapped_step_example_is_caught_by_every_engine(registered: list[str]) -> None:
    """``docs/examples/my_wrapped_step.py``: a wrapped step, an added flag and an added step;
    the generated Python and C programs reach the same states and catch it."""
    from pathlib import Path

    from replcheck.model.registry import load_design_file

    path = Path(__file__).parents[3] / "docs" / "examples" / "my_wrapped_step.py"
    registered.extend(load_design_file(path))
    cfg = replace(STANDARD["std"], name="std-one-crash", wals_per_server=2)
    c = explore_compiled("zk-lock/cleaner-trusts-first-look", cfg, backend="c", symmetry=True)
    py = explore_compiled("zk-lock/cleaner-trusts-first-look", cfg, backend="python", symmetry=True)
    assert c.states == py.states and "no_wal_deleted_while_queued" in c.first_violation
