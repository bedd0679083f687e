"""``replcheck record``'s bad input: one line on stderr, exit status 2 (no ZooKeeper needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replcheck.cli import main


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--design", "nope"], "unknown design 'nope'"),
        (["--faults", "kill,meteor"], "unknown fault 'meteor'"),
        (["--design", "zk-lock/HBASE-8207"], "no switch in the reference cluster"),
        (["--runs", "0"], "must be at least 1"),
        (["--servers", "1", "--faults", "kill"], "at least 2 servers"),
    ],
)
def test_bad_flags_exit_2(argv: list[str], needle: str, capsys, tmp_path: Path) -> None:
    assert main(["record", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
