"""Command lines generated from the argument parser's own options: no input gives a traceback, and
an option value that the parser's own validation rejects never exits 0.

Each example is one subcommand with a few of its options, each given a value drawn from what the
option takes (its choices, design and configuration names, numbers, paths) or from junk (unknown
names, negative and huge numbers, empty strings, text). It runs as a real ``replcheck`` process
with a time limit: a command still working when the limit is reached has given no wrong answer
yet and is stopped. ``record``, ``conform`` and ``zk start`` are left out (they start
clusters).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replcheck.model import DESIGNS

from replcheck.cli import build_parser
from replcheck.matrix import resolve_config

LEFT_OUT = {"record", "conform"}
REPORTS_BAD_INPUT = {"validate", "mine"}
"""Commands whose exit 2 is a report over many inputs (``validate``: one verdict per trace;
``mine``: the inputs it quarantined), not the one-line usage error; the other rules hold for them
too."""
LIMIT = 8.0
EXITS = {0, 1, 2, 3, 4}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction | argparse._VersionAction)
    ]


PARSER = build_parser()
COMMANDS = {name: p for name, p in _subparsers(PARSER).items() if name not in LEFT_OUT}
JUNK = st.sampled_from(
    ["", "-1", "0", "-0.5", "nope", "99999999999999999999", "1e309", "std:servers=-1", "x,y", "'"]
)
SENSIBLE = st.sampled_from(
    [
        *("1", "2", "3", "zk-lock", "zk-multi", "table", "std", "filtering", "t-std", "t-migrate"),
        *("std:servers=3", "explore", "proofs", "ci", "crash(1)", "crash(0); lock(1, 0)"),
    ]
)


GOLDEN = Path(__file__).resolve().parents[2] / "traces" / "golden" / "zk-multi-kill.jsonl"
PATHS = st.sampled_from(
    [
        *("trace.jsonl", "cut.jsonl", "garbage.bin", "empty", "used", "garbage.bin/under"),
        *("new.html", "new-folder", "", "-", str(GOLDEN)),
    ]
)
"""Paths a command reads or writes, made in the folder each command runs in by ``_inputs``: a
trace, a trace cut mid-line, bytes that are no trace, an empty and a used folder, a path under a
regular file, names not yet used."""
PATH_OPTIONS = {
    *("junit", "html", "out", "output", "itf", "export_test", "package", "data_dir", "dir"),
    *("database", "design_file", "expected_failures", "paths", "source", "path", "input"),
}


def _inputs(folder: Path) -> None:
    """The files ``PATHS`` names, made once in ``folder``."""
    if (folder / "used").exists():
        return
    (folder / "trace.jsonl").write_bytes(GOLDEN.read_bytes())
    (folder / "cut.jsonl").write_bytes(GOLDEN.read_bytes()[:30000])
    (folder / "garbage.bin").write_bytes(bytes(range(256)) * 16)
    (folder / "empty").mkdir()
    (folder / "used").mkdir()
    (folder / "used" / "earlier.txt").write_text("an earlier run\n")


def _values(action: argparse.Action) -> st.SearchStrategy[str]:
    if action.dest in PATH_OPTIONS:
        return st.one_of(PATHS, JUNK)
    if action.choices:
        return st.one_of(st.sampled_from([str(c) for c in action.choices]), JUNK)
    names = st.sampled_from(sorted(DESIGNS))
    text = st.text(
        st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=12
    )  # anything a command line can carry
    return st.one_of(SENSIBLE, JUNK, names, text)


def _rejected(action: argparse.Action, value: str, tmp: Path) -> bool:
    """Does the parser's own validation, or the resolver behind the option, refuse ``value``?"""
    if action.choices is not None and value not in [str(c) for c in action.choices]:
        return True
    if action.type is not None and callable(action.type):
        try:
            action.type(value)
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            return True
    dest = action.dest
    if dest == "design" and value not in DESIGNS:
        return True
    if dest == "config":
        try:
            resolve_config(value)
        except ValueError:
            return True
    return dest in ("design_file", "expected_failures") and not (tmp / value).is_file()


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[list[str], bool]:
    """(argv, whether some option value is one the parser's validation rejects)."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    sub = COMMANDS[name]
    argv = [name]
    bad = False
    positionals = [a for a in sub._actions if not a.option_strings and a.dest != "help"]
    for action in positionals:  # zk's action: never start a cluster
        choices = [c for c in (action.choices or []) if c != "start"]
        if choices:
            argv.append(draw(st.sampled_from(choices)))
        else:
            argv.append(draw(PATHS if action.dest in PATH_OPTIONS else SENSIBLE))
    flags = _options(sub)  # a command may have no option but -h (convert)
    options = draw(st.lists(st.sampled_from(flags), max_size=4, unique_by=id)) if flags else []
    for action in options:
        flag = action.option_strings[-1]
        if action.dest == "jobs":
            continue  # worker pools outlive a killed parent for a moment; not this test's subject
        if action.nargs == 0:
            argv.append(flag)
            continue
        value = draw(_values(action))
        argv += [flag, value]
        bad = bad or _rejected(action, value, Path("."))
    if name == "check":
        argv += ["--jobs", "1"]
    return argv, bad


@pytest.mark.slow
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=command_lines())
def test_no_traceback_and_no_exit_0_on_an_error(case: tuple[list[str], bool], tmp_path) -> None:
    argv, bad = case
    _inputs(tmp_path)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "replcheck", *argv],
            capture_output=True,
            text=True,
            timeout=LIMIT,
            cwd=tmp_path,
        )
    except subprocess.TimeoutExpired:
        return  # still working: no wrong answer given
    out, err = proc.stdout, proc.stderr
    assert "Traceback" not in out + err, (argv, err[-2000:])
    assert proc.returncode in EXITS, (argv, proc.returncode, err[-2000:])
    if proc.returncode == 2 and argv[0] not in REPORTS_BAD_INPUT:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("replcheck: error: "), (argv, err)
    if bad:
        assert proc.returncode != 0, (argv, out[-500:])
