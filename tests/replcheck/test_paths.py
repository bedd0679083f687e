"""Nothing is written where it was not asked for (``replcheck.paths``): commands run from a
folder leave nothing in it; what they write without being told goes to the user's cache folder,
and they say where, in their help and on stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from replcheck import paths
from replcheck.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
MUTANT = "zk-lock/ships-local-scope"

COMMANDS: list[list[str]] = [
    ["fuzz", "--design", MUTANT],
    ["explore", "--design", MUTANT],
    ["prove", "--depth", "3", "--design", MUTANT],
    ["check", "--design", MUTANT, "--checkers", "explore,fuzz", "--jobs", "1"],
    ["show", "--actions", "crash(1)"],
    ["list"],
    ["validate", str(ROOT / "traces" / "golden" / "zk-multi-kill.jsonl")],
    ["replay", "put(0, 0, 1); ship(0, 0, 0)", "--design", MUTANT, "--config", "filtering"],
]
"""Commands that wrote into the current folder (``.hypothesis/``,
``replcheck-counterexamples/``), and some that never should."""


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REPLCHECK_", "HYPOTHESIS"))}
    env.update(XDG_CACHE_HOME=str(home / "cache"), HOME=str(home))
    return env


def test_commands_leave_nothing_in_the_folder_they_run_from(tmp_path: Path) -> None:
    cwd = tmp_path / "checkout"
    cwd.mkdir()
    env = _env(tmp_path)
    said = []
    for argv in COMMANDS:
        proc = subprocess.run(
            [sys.executable, "-m", "replcheck", *argv],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode in (0, 1), (argv, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr
        assert sorted(p.name for p in cwd.iterdir()) == [], argv
        said.append(proc.stderr)
    cache = tmp_path / "cache" / "replcheck"
    saved = sorted(p.name.split("--")[0] for p in (cache / "counterexamples").iterdir())
    assert {"bmc", "explore", "fuzz"} <= set(saved)
    assert (cache / "hypothesis").is_dir()  # Hypothesis's storage
    # the first save of each run says where on stderr
    where = f"counterexamples saved as JSON in {cache / 'counterexamples'}"
    assert where in said[0] and where in said[2]


def test_the_default_folders_are_in_the_cache_and_fresh(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert paths.cache_home() == tmp_path / "replcheck"
    one = paths.fresh_folder("record")
    one.mkdir(parents=True)
    two = paths.fresh_folder("record")
    assert one.parent == two.parent == tmp_path / "replcheck" / "record" and one != two
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert paths.cache_home() == tmp_path / "home" / ".cache" / "replcheck"


def test_hypothesis_keeps_its_database_in_the_cache(monkeypatch, tmp_path: Path) -> None:
    from replcheck.specs import fuzz

    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert fuzz.database_dir() == str(tmp_path / "replcheck" / "hypothesis" / "replcheck")
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "h"))
    assert fuzz.database_dir() == str(tmp_path / "h" / "replcheck")
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY")
    paths.keep_hypothesis_out_of_cwd()
    assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] == str(paths.hypothesis_home())


@pytest.mark.parametrize(
    ("command", "where"),
    [
        ("explore", "counterexamples"),
        ("fuzz", "hypothesis"),
        ("prove", "counterexamples"),
        ("record", "record"),
        ("conform", "conform"),
        ("mine", "mine"),
        ("zk", "zk"),
    ],
)
def test_a_command_that_writes_by_default_says_where_in_its_help(command, where) -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and a.choices)
    text = " ".join(sub.choices[command].format_help().split())
    assert f"~/.cache/replcheck/{where}" in text, text


def test_zk_status_without_dir_reads_the_cache_folder(tmp_path: Path) -> None:
    cwd = tmp_path / "checkout"
    cwd.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "replcheck", "zk", "status"],
        cwd=cwd,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    assert list(cwd.iterdir()) == []
