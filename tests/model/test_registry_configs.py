"""A design file's mutant must say where it is checked: no configuration at all, or one that is
not a configuration, is refused when the file is loaded, in one line naming the file and the
class (``model/registry.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from replcheck.model import DESIGNS, RegistryError, load_design_file

from replcheck.cli import main

MUTANT = """\
from replcheck.model.common.state import Shipper, Wal
from replcheck.model.engine.logic import PY, Ops, dual
from replcheck.model.zk.multi import ZkMulti


def drop_unread_rule(ops: Ops, newer_queued, closed, pos, length):
    return ops.and_(newer_queued, closed)


class {cls}(ZkMulti):
    name = "zk-multi/{cls}"
    mutant_of = "zk-multi"
    overrides = "rule_wal_done"
    configs = {configs}
    bug = "drops an unread WAL"

    @dual(drop_unread_rule)
    def rule_wal_done(self, sh: Shipper, wal: Wal) -> bool:
        return drop_unread_rule(PY, len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries))
"""


@pytest.mark.parametrize(
    ("configs", "said"),
    [
        ("()", "no configuration"),
        ('("nope",)', "'nope'"),
        ('("std", "nope:servers=2")', "'nope:servers=2'"),
        ('("std:servers=x",)', "'std:servers=x'"),
        ('"std"', "a tuple"),
    ],
)
def test_a_mutant_without_a_real_configuration_is_refused(
    configs: str, said: str, tmp_path: Path
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(MUTANT.format(cls="NoWhere", configs=configs))
    with pytest.raises(RegistryError) as err:
        load_design_file(path)
    message = str(err.value)
    assert "\n" not in message
    assert str(path) in message and "NoWhere" in message and said in message, message
    assert "zk-multi/NoWhere" not in DESIGNS


def test_the_command_line_refuses_it_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mutant with ``configs = ()`` ran ``std`` and reported PASS."""
    path = tmp_path / "mine.py"
    path.write_text(MUTANT.format(cls="NoWhere", configs="()"))
    code = main(["check", "--design-file", str(path), "--checkers", "explore", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and str(path) in err and "NoWhere" in err


def test_a_mutant_with_a_derived_configuration_loads(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(MUTANT.format(cls="Derived", configs='("std:servers=2", "race")'))
    assert load_design_file(path) == ["zk-multi/Derived"]


def test_every_built_in_mutant_lists_configurations() -> None:
    from replcheck.matrix import resolve_config

    for cls in DESIGNS.values():
        if cls.is_mutant():
            assert cls.configs, cls.name
            for c in cls.configs:
                resolve_config(c)
