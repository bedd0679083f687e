"""One table of exit statuses (``replcheck.exits``) for every command, and the command overview
generated from the parser: every subcommand has a description, its ``--help`` says what each
status means for it, the README, ``replcheck/cli.py``'s docstring and ``docs/gate.md`` list every
command as the parser and the table have it, and undecided exits 4 in every command.

The command modules import ``replcheck.cli_base`` and ``replcheck.exits``, never ``replcheck.cli``
(which imports them), and no module but ``replcheck.exits`` defines an exit status.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from replcheck import docs, exits
from replcheck.cli import build_parser, main
from replcheck.exits import Exit

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "replcheck"


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


COMMANDS = _subparsers()


def test_every_command_has_a_one_line_help_and_a_description() -> None:
    helps = dict(docs.commands())
    assert list(helps) == list(COMMANDS)
    for name, parser in COMMANDS.items():
        assert helps[name], f"{name}: no help (the one line of replcheck --help)"
        assert "\n" not in helps[name]
        assert parser.description, f"replcheck {name} --help has no description"


def test_every_command_has_its_row_of_the_exit_table_in_its_help() -> None:
    assert set(exits.COMMANDS) == set(COMMANDS), "replcheck.exits.COMMANDS: one entry a command"
    for name, parser in COMMANDS.items():
        assert (parser.epilog or "").endswith(exits.epilog(name)), name
        said = exits.meanings(name)
        assert said[Exit.OK] and said[Exit.BAD_INPUT] and said[Exit.INTERRUPTED]
        assert list(said) == sorted(said)


def test_every_status_of_the_table_is_one_of_the_statuses() -> None:
    assert [int(c) for c in Exit] == [0, 1, 2, 3, 4, 130, 143]
    for name in exits.COMMANDS:
        assert set(exits.meanings(name)) <= set(Exit)
    assert exits.for_signal(2) is Exit.INTERRUPTED and exits.for_signal(15) is Exit.TERMINATED


def test_the_top_level_help_names_every_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert exits.summary() in out
    for name in COMMANDS:
        assert f" {name} " in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_commands_help_says_its_exit_statuses(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([name, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for code, text in exits.meanings(name).items():
        assert f"{int(code)} {' '.join(text.split())}" in out, (name, code)


@pytest.mark.parametrize(("filename", "section"), sorted(docs.SECTIONS))
def test_generated_sections_are_current(filename: str, section: str) -> None:
    assert docs.section(filename, section) == docs.SECTIONS[(filename, section)](), (
        f"run python -m replcheck.docs --sections ({filename}: {section})"
    )


@pytest.mark.parametrize("filename", ["README.md", "replcheck/cli.py"])
def test_the_overviews_name_every_command(filename: str) -> None:
    text = docs.section(filename, "commands")
    listed = [line.split()[1] for line in text.splitlines() if line.strip().startswith("replcheck")]
    assert listed == list(COMMANDS), f"{filename}: run python -m replcheck.docs --sections"


def test_the_cli_docstring_is_the_generated_overview() -> None:
    import replcheck.cli

    assert docs.cli_commands() in (replcheck.cli.__doc__ or "")


def test_gate_md_has_every_commands_exit_statuses() -> None:
    text = docs.section("docs/gate.md", "exit-statuses")
    for name in COMMANDS:
        assert f"| `{name}` | 0 |" in text


def test_a_missing_section_is_named() -> None:
    with pytest.raises(ValueError, match="no generated section 'nope'"):
        docs.split_section("text\n", "README.md", "nope")


# --- one definition ---------------------------------------------------------------------------


def _modules() -> list[Path]:
    return sorted(PACKAGE.glob("*.py"))


def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_no_command_module_imports_the_entry_point() -> None:
    """``cli`` imports the command modules; none of them imports ``cli`` (no import cycle)."""
    for path in _modules():
        if path.name in ("cli.py", "__main__.py", "docs.py"):
            continue
        imported = _imported(ast.parse(path.read_text()))
        assert "replcheck.cli" not in imported, f"{path.name} imports replcheck.cli"


def test_no_module_but_exits_defines_an_exit_status() -> None:
    for path in [*_modules(), *sorted((ROOT / "conformance").rglob("*.py"))]:
        if path.name == "exits.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[Any] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assert not name.id.startswith("EXIT_"), f"{path.name}: {name.id}"


def test_the_command_modules_return_no_bare_status() -> None:
    """A command's status is an ``Exit``: no ``return 4`` that the table does not know of."""
    for path in _modules():
        if not path.name.startswith("cli") and path.name != "matrix.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
                value = node.value.value
                assert not isinstance(value, int) or isinstance(value, bool), (
                    f"{path.name}:{node.lineno}: return {value}"
                )


# --- undecided exits 4 in every command --------------------------------------------------------


def test_mine_undecided_is_4_and_rejected_is_1() -> None:
    from replcheck.cli_mine import exit_status

    def summary(**status: int) -> dict[str, Any]:
        st = {"accepted": 1, "rejected": 0, "undecided": 0, "bad-input": 0, **status}
        return {"status": st, "interrupted": False, "quarantine": [], "mined": 2}

    assert exit_status(summary()) == Exit.OK
    assert exit_status(summary(undecided=1)) == Exit.UNDECIDED
    assert exit_status(summary(undecided=1, rejected=1)) == Exit.FAIL
    assert exit_status(summary(undecided=1, **{"bad-input": 1})) == Exit.BAD_INPUT
    assert exit_status({**summary(rejected=1), "interrupted": True}) == Exit.INTERRUPTED


def test_replay_undecided_is_4() -> None:
    from replcheck.cli_replay import exit_status

    def behaviour(status: str | None, failure: object = None) -> Any:
        verdict = None if status is None else SimpleNamespace(status=status)
        return SimpleNamespace(verdict=verdict, failure=failure)

    assert exit_status(behaviour("accepted")) == Exit.OK
    assert exit_status(behaviour(None)) == Exit.OK
    assert exit_status(behaviour(None, failure="broken")) == Exit.FAIL
    assert exit_status(behaviour("rejected", failure="divergence")) == Exit.FAIL
    assert exit_status(behaviour("undecided", failure="divergence")) == Exit.UNDECIDED


def test_conform_undecided_is_4(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A search with a run that could not finish (and no failure) is undecided: 4, as in every
    command (it was 3)."""
    from replcheck.conformance.search import conform
    from replcheck.conformance.search.plan import Plan

    def search(name: str, profile: Any, out: Path, **_kw: Any) -> conform.Report:
        out.mkdir(parents=True, exist_ok=True)  # as the search does, before its first run
        run = conform.Outcome(Plan(), out / "run-0", False, "x", 0.0, error="ZkError: no start")
        return conform.Report(name, profile.name, 0, [run], None, None, None, False)

    monkeypatch.setattr(conform, "search", search)
    out = tmp_path / "out"
    code = main(["conform", "--design", "zk-multi", "--out", str(out)])
    assert code == Exit.UNDECIDED == 4
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("conform: UNDECIDED")
