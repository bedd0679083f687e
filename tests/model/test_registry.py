from __future__ import annotations

from pathlib import Path

import pytest
from replcheck.model import DESIGNS, RegistryError, get_design, load_design_file, mutants
from replcheck.model.registry import register
from replcheck.model.step import Gate, Step
from replcheck.model.zk_lock import ZkLock

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
