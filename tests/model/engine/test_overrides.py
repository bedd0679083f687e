"""The override points of a design (``model/engine/overrides.py``, ``replcheck list --steps``)."""

from __future__ import annotations

from typing import Any

import pytest
from replcheck.model import DESIGNS, STANDARD, get_design
from replcheck.model.engine.overrides import list_points, text_points
from replcheck.model.engine.step import Ctx, step
from replcheck.model.zk.wal import ZkWals


def _listing(name: str, configs: tuple[str, ...] = ()) -> Any:
    design = get_design(name)
    return list_points(design, [STANDARD[c] for c in configs or type(design).configs])


def test_every_override_point_of_every_design_has_a_docstring() -> None:
    """A reviewer reads what an override point decides from its docstring: ``list --steps``
    shows it, for every design and mutant under each of its configurations."""
    missing = set()
    for name in list(DESIGNS):
        for p in _listing(name).points:
            if not p.doc:
                missing.add(f"{p.module}: {p.owner}.{p.name} ({p.kind}, {name})")
    assert not missing, sorted(missing)


def test_an_undocumented_helper_is_listed_without_a_docstring() -> None:
    """The check above can fail: a helper a step calls is found, and its missing docstring is
    reported as empty."""

    class Text(ZkWals):
        @step(params=("server",), fair=False, each=lambda text: [(s,) for s in text.S])
        def tidy(self, t: Ctx, s: int) -> None:
            """a server tidies up"""
            self.tidy_helper(t, s)

        def tidy_helper(self, t: Ctx, s: int) -> None:
            pass

    points = {p.name: p for p in text_points(Text)}
    assert points["tidy"].kind == "step" and points["tidy"].doc == "a server tidies up"
    assert points["tidy_helper"].kind == "helper" and points["tidy_helper"].doc == ""
    assert points["roll_fails"].kind == "helper"  # through roll's body, inherited


@pytest.mark.parametrize(
    ("design", "config", "name", "owner"),
    [
        ("zk-lock", "std", "roll_fails", "ZkWals"),
        ("zk-lock", "std", "roll_wal", "ZkWals"),
        ("zk-lock", "std", "clean_wal", "LockCleaner"),
        ("zk-multi", "std", "claim_bump", "MultiClaims"),
        ("zk-multi", "std", "claim_failed", "MultiClaims"),
        ("table", "t-sync", "drain_sources", "SyncReplication"),
        ("table", "t-sync", "refuse_recovered", "SyncReplication"),
        ("table", "t-remove-peer", "rs_remove_peer", "PeerProcedures"),
        ("table", "t-master-restart", "master_restart_barrier", "MasterRestart"),
    ],
)
def test_the_helpers_mutants_override_are_listed(
    design: str, config: str, name: str, owner: str
) -> None:
    points = [p for p in _listing(design, (config,)).points if p.name == name]
    assert [(p.kind, p.owner) for p in points] == [("helper", owner)]


def test_steps_gates_and_rules_of_both_eras() -> None:
    lock = {p.name: p for p in _listing("zk-lock", ("std",)).points}
    assert lock["lock"].kind == "step" and lock["lock"].params == ("server", "dead")
    assert lock["lock"].fair is True and lock["crash"].fair is False
    assert lock["rule_ships"].in_design and lock["rule_ships"].dual
    table = {p.name: p for p in _listing("table", ("t-std",)).points}
    boot = {p.name: p for p in _listing("table", ("t-bootstrap",)).points}
    assert boot["region_open"].kind == "gate" and "region_open" not in table
    assert table["rule_remove_passes"].in_design and table["rule_remove_passes"].dual is False
    assert table["rule_owed"].kind == "rule" and not table["rule_owed"].in_design
    # the layout's own methods are not override points
    assert not {"sorts", "encode", "decode", "defaults", "_budget0"} & set(table)


def test_a_mutants_listing_names_its_own_override() -> None:
    points = {p.name: p for p in _listing("zk-lock/HBASE-3515").points}
    assert points["roll_fails"].owner == "Hbase3515.text"
    assert points["roll_fails"].module == "model/zk/mutants.py"
