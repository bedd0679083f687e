"""The cleaner's purpose, ``unneeded_wals_deleted`` (written once in
``model/common/edit_properties.py``), in both eras: asked only where the cleaner runs for ever, and
able to fail in each."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from replcheck.model import STANDARD, Model, get_design

KEEPS_ALL = '''
from replcheck.model.zk.multi import ZkMulti
from replcheck.model.zk.text import ZkFlat


class KeepsAll(ZkFlat):
    def may_delete(self, ops, w, listed):
        """The cleaner keeps every WAL."""
        return False


class CleanerKeepsAll(ZkMulti):
    name = "review/zk-cleaner-keeps-all"
    mutant_of = "zk-multi"
    overrides = "may_delete"
    text = KeepsAll
    configs = ("chore",)
    bug = "the log cleaner never deletes a WAL"
'''


def _goals(design: str, config: str) -> set[str]:
    return {p.name for p in Model(get_design(design), STANDARD[config]).liveness}


def test_the_goal_is_asked_only_where_the_cleaner_runs_for_ever() -> None:
    assert "unneeded_wals_deleted" in _goals("zk-multi", "chore")
    assert "unneeded_wals_deleted" in _goals("table", "t-chore")
    assert "unneeded_wals_deleted" not in _goals("zk-multi", "std")
    assert "unneeded_wals_deleted" not in _goals("table", "t-std")


def test_a_zookeeper_cleaner_that_keeps_every_wal_fails_the_goal(tmp_path: Path) -> None:
    design = tmp_path / "keeps_all.py"
    design.write_text(KEEPS_ALL)
    args = ["--design", "review/zk-cleaner-keeps-all", "--config", "chore", "--engine", "c"]
    run = subprocess.run(
        [sys.executable, "-m", "replcheck", "explore", "--design-file", str(design), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 1, run.stderr
    failed = [line.split()[1] for line in run.stdout.splitlines() if line.startswith("  FAIL")]
    assert failed == ["unneeded_wals_deleted"], run.stdout
