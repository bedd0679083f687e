"""Plans on the real cluster: the shrunk plan ``replcheck conform`` printed for a cluster mutant
still finds it, and the same plan passes on the correct design (docs/conform.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from replcheck.conformance.conform import check_plan
from replcheck.conformance.plan import Plan, Write

pytestmark = [pytest.mark.slow, pytest.mark.zookeeper]

# Shrunk by `python bench/conform.py --examples 8 --runs 16 --cuts 12` from its first failing
# run (4 servers, 31 writes, a peer added, 6 faults) to one server and one write.
SHIPS_LOCAL = Plan(servers=1, writes=((Write("local", "delete"),),), master_master=False, steps=())


def test_the_shrunk_plan_finds_the_mutant(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="only_global_non_catalog"):
        check_plan("zk-lock/ships-local-scope", SHIPS_LOCAL, tmp_path / "run")


def test_the_shrunk_plan_passes_on_the_correct_design(tmp_path: Path) -> None:
    check_plan("zk-lock", SHIPS_LOCAL, tmp_path / "run")
