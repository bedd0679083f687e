from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from replcheck.model import DESIGNS, RegistryError, get_design, load_design_file, mutants
from replcheck.model.engine.step import Gate, Step
from replcheck.model.registry import register
from replcheck.model.zk.lock import ZkLock

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "my_mutant.py"


def test_at_least_ten_zookeeper_era_mutants_each_overriding_one_step() -> None:
    names = mutants()
    assert len(names) >= 10
    for name in names:
        cls = DESIGNS[name]
        # A mutant whose override is in the protocol text overrides it in its text class.
        where = cls.text if cls.text is not None else cls
        own = {
            n
            for n, v in vars(where).items()
            if not n.startswith("__") and (callable(v) or isinstance(v, (Step, Gate)))
        }
        assert own == {cls.overrides}
        assert cls.bug and cls.configs


def test_unknown_design_is_a_one_line_error() -> None:
    with pytest.raises(RegistryError) as err:
        get_design("zk-nope")
    assert "\n" not in str(err.value)


def test_a_mutant_overriding_two_steps_is_refused() -> None:
    class Sloppy(ZkLock):
        name = "zk-lock/sloppy"
        mutant_of = "zk-lock"
        overrides = "rule_ships"
        bug = "two changes"

        def rule_ships(self, edit, target):
            return True

        def rule_wal_done(self, sh, wal):
            return True

    with pytest.raises(RegistryError):
        register(Sloppy)


def test_the_worked_example_design_file_loads_and_is_caught() -> None:
    from replcheck.model import STANDARD, Model
    from replcheck.specs import check

    names = load_design_file(EXAMPLE)
    assert names
    for name in names:
        design = get_design(name)
        result = check(Model(design, STANDARD[design.configs[0]]))
        assert result.violated


def test_a_broken_design_file_names_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\nraise RuntimeError('boom')\n")
    with pytest.raises(RegistryError) as err:
        load_design_file(bad)
    assert f"{bad}:2" in str(err.value)


def test_a_design_may_not_take_a_registered_name() -> None:
    class Impostor(ZkLock):
        name = "zk-lock"

    with pytest.raises(RegistryError, match="already the name of a built-in design"):
        register(Impostor)
    assert DESIGNS["zk-lock"] is ZkLock


def test_a_design_file_that_exits_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "quits.py"
    path.write_text("raise SystemExit(0)\n")
    with pytest.raises(RegistryError, match="exits"):
        load_design_file(path)


def test_the_same_design_file_twice_is_loaded_once() -> None:
    assert load_design_file(EXAMPLE) == load_design_file(EXAMPLE)


ADDED = Path(__file__).parents[2] / "docs" / "examples" / "my_added_action.py"


def _broken_after(name: str, actions: list[tuple[str, tuple]]) -> list[str]:
    """The invariants ``name`` breaks after taking ``actions`` under ``std`` (each enabled)."""
    from replcheck.model import STANDARD, Action, Model

    model = Model(get_design(name), STANDARD["std"])
    state = model.init()
    for kind, args in actions:
        action = Action(kind, args)
        assert action in model.enabled(state), action
        state = model.step(state, action)
    return [p.name for p in model.invariants if not p.check(model.cfg, state)]


def test_a_mutant_that_adds_an_action_gets_its_kind_and_is_caught() -> None:
    load_design_file(ADDED)
    tool = get_design("zk-multi/tool-drops-dead-queue")
    base = [k.name for k in get_design("zk-multi").kinds]
    assert [k.name for k in tool.kinds] == [*base, "tool_drop_queue"]
    assert tool.kind("tool_drop_queue").params == ("dead", "peer")
    path = [("put", (0, 0, 0)), ("crash", (0,))]
    assert _broken_after("zk-multi/tool-drops-dead-queue", path) == []
    assert "no_lost_edit" in _broken_after(
        "zk-multi/tool-drops-dead-queue", [*path, ("tool_drop_queue", (0, 0))]
    )


def test_a_choice_added_to_a_step_is_a_new_param_of_its_kind() -> None:
    load_design_file(ADDED)
    skip = get_design("zk-lock/cleaner-may-skip-lookup")
    assert skip.kind("clean").params == ("server", "group", "seq", "lookup")
    assert [k.name for k in skip.kinds] == [k.name for k in get_design("zk-lock").kinds]
    assert get_design("zk-lock").kind("clean").params == ("server", "group", "seq")
    path = [("put", (0, 0, 0)), ("roll", (0, 0)), ("archive", (0, 0, 0))]
    name = "zk-lock/cleaner-may-skip-lookup"
    assert _broken_after(name, [*path, ("clean", (0, 0, 0, 1))]) == []  # looked up: kept
    assert "no_lost_edit" in _broken_after(name, [*path, ("clean", (0, 0, 0, 0))])


def _tool(text: type, adds: object = ("tool_drop_queue",), overrides: str | None = None) -> type:
    from replcheck.model.zk.multi import ZkMulti

    return type(
        "Tool",
        (ZkMulti,),
        {
            "name": "zk-multi/test-tool",
            "mutant_of": "zk-multi",
            "overrides": overrides,
            "adds": adds,
            "text": text,
            "bug": "a test",
        },
    )


def _claims_with(**members: object) -> type:
    from replcheck.model.zk.claims import MultiClaims

    return type("Text", (MultiClaims,), members)


def _a_step() -> Step:
    from replcheck.model.engine.step import step

    def body(self: object, t: Any, d: int) -> None:
        """a test step"""
        t.require(t[("fail", d)])

    return step(params=("dead",), fair=False, each=lambda text: [(d,) for d in text.S])(body)


@pytest.mark.parametrize(
    ("adds", "members", "overrides", "needle"),
    [
        # a name the base text has already (a step of the text, a helper of the layout)
        (("scp_finish",), {"scp_finish": "step"}, None, "'scp_finish', which MultiClaims"),
        (("drop_queue",), {"drop_queue": "step"}, None, "the text of zk-multi under std"),
        (("rule_ships",), {"rule_ships": "step"}, None, "the design zk-multi already has"),
        # something defined but not declared, or declared but not defined
        (("tool",), {"tool": "step", "helper": "fn"}, None, "defines helper, which it does not"),
        (("tool", "other"), {"tool": "step"}, None, "does not define other"),
        ((), {"tool": "step"}, None, "names nothing it overrides or adds"),
        ("tool", {"tool": "step"}, None, "adds must be a tuple of names"),
        (("claim_bump",), {"claim_bump": "fn"}, "claim_bump", "both overridden and added"),
    ],
)
def test_a_bad_added_action_is_refused_in_one_line(
    adds: object, members: dict[str, str], overrides: str | None, needle: str
) -> None:
    made = {n: (_a_step() if v == "step" else (lambda self: None)) for n, v in members.items()}
    with pytest.raises(RegistryError) as err:
        register(_tool(_claims_with(**made), adds, overrides))
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert "zk-multi/test-tool" not in DESIGNS


def test_an_added_action_needs_a_text() -> None:
    from replcheck.model.zk.multi import ZkMulti

    class NoText(ZkMulti):
        name = "zk-multi/test-no-text"
        mutant_of = "zk-multi"
        overrides = "rule_ships"
        adds = ("tool",)
        bug = "a test"

    with pytest.raises(RegistryError, match="adds tool without a text"):
        register(NoText)


HELPER_MUTANT = """\
from replcheck.model.table.designs import Table


class Skips(Table):
    name = "table/skips-rs-add-peer"
    mutant_of = "table"
    overrides = "{name}"
    bug = "the server never adds the source"
    configs = ("t-add-peer",)

    def {name}(self, ops, t, cond, p, s):
        pass
"""


def test_a_mutant_overriding_a_text_helper_in_its_class_is_told_where_it_is(tmp_path) -> None:
    """A file written for the earlier interface overrides a helper of the text in the design
    class: the error says which class of the text defines it, where, and how to override it."""
    path = tmp_path / "skips.py"
    path.write_text(HELPER_MUTANT.format(name="rs_add_peer"))
    with pytest.raises(RegistryError) as got:
        load_design_file(path)
    message = str(got.value)
    assert "\n" not in message and str(path) in message
    assert "a helper of its protocol text, defined in PeerProcedures" in message
    assert "model/table/peer_procs.py" in message and "text = " in message
    path.write_text(HELPER_MUTANT.format(name="no_such_thing"))
    with pytest.raises(RegistryError, match="nor of its protocol text"):
        load_design_file(path)
