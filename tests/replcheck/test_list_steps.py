"""``replcheck list --steps`` and a reviewer's mutants that add an action or a choice
(``docs/examples/my_added_action.py``) on the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
ADDED = str(ROOT / "docs" / "examples" / "my_added_action.py")
TOOL = "zk-multi/tool-drops-dead-queue"
SKIP = "zk-lock/cleaner-may-skip-lookup"
SUMMARY = re.compile(
    r"^(\d+) override points in (\d+) designs?: (\d+) steps, (\d+) gates, (\d+) rules, "
    r"(\d+) helpers$"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_steps_is_grouped_by_class_wrapped_and_ends_with_a_summary(capsys) -> None:
    code, out, err = run(capsys, "list", "--design", "zk-lock", "--design", "table", "--steps")
    assert code == 0 and not err
    lines = out.rstrip("\n").splitlines()
    assert all(len(line) <= 100 for line in lines)
    got = SUMMARY.match(lines[-1])
    assert got is not None, lines[-1]
    total, designs, *kinds = map(int, got.groups())
    assert designs == 2 and total == sum(kinds) and all(kinds[k] > 0 for k in (0, 2, 3))
    assert "  ZkWals  model/zk/wal.py  (protocol text)" in lines
    i = lines.index("    helper roll_fails")
    assert lines[i + 1].startswith("           ") and "abort" in lines[i + 1]
    assert any(line.startswith("    gate   region_open") for line in lines)
    assert any(line.startswith("    step   lock(server, dead)  [fair]") for line in lines)


def test_list_steps_json(capsys) -> None:
    code, out, _err = run(capsys, "list", "--design", "zk-multi", "--steps", "--json")
    assert code == 0
    (listing,) = json.loads(out)["overrides"]
    points = {p["name"]: p for p in listing["points"]}
    assert points["claim_bump"]["kind"] == "helper"
    assert points["claim_bump"]["class"] == "MultiClaims"
    assert points["claim_bump"]["module"] == "model/zk/claims.py"
    assert points["claim_read"]["params"] == ["server", "dead", "queue"]
    assert points["claim_applies"]["dual"] is True
    assert all(p["doc"] for p in listing["points"])
    assert listing["counts"]["step"] == sum(p["kind"] == "step" for p in listing["points"])


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["list", "--steps"], "name the designs"),
        (["list", "--steps", "--design", "nope"], "unknown design 'nope'"),
        (["list", "--steps", "--design", "zk-lock", "--config", "nope"], "unknown config"),
    ],
)
def test_list_steps_bad_input_is_one_line(capsys, argv: list[str], needle: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("replcheck: error: ") and needle in err


def test_a_design_files_added_step_and_choice_are_listed(capsys) -> None:
    code, out, _err = run(capsys, "list", "--design-file", ADDED, "--steps")
    assert code == 0
    assert "    step   tool_drop_queue(dead, peer)  [not fair]" in out
    assert "    step   clean(server, group, seq, lookup)  [not fair]" in out
    assert SUMMARY.match(out.rstrip("\n").splitlines()[-1])
    code, out, _err = run(capsys, "list", "--design-file", ADDED, "--json")
    actions = {d["name"]: d["actions"] for d in json.loads(out)["designs"]}
    assert actions[TOOL][-1] == "tool_drop_queue(dead, peer)"
    assert "clean(server, group, seq, lookup)" in actions[SKIP]


BAD = '''
from replcheck.model.engine.step import step
from replcheck.model.zk.claims import MultiClaims
from replcheck.model.zk.multi import ZkMulti


class Text(MultiClaims):
    @step(params=("dead",), fair=True, each=lambda text: [(d,) for d in text.S])
    def scp_finish(self, t, d):
        """SCP finishes at once"""
        t.require(t[("fail", d)])
        t[("fail", d)] = False


class Mine(ZkMulti):
    name = "review/adds-existing"
    mutant_of = "zk-multi"
    adds = ("scp_finish",)
    text = Text
    configs = ("std",)
    bug = "claims nothing"
'''


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ("", "adds 'scp_finish', which MultiClaims (its text's base) already has"),
        (
            'adds = ("scp_finish",)|adds = ("finish_now",)',
            "its text defines scp_finish, which it does not declare (overrides or adds)",
        ),
    ],
)
def test_a_bad_added_action_is_refused_by_every_command(
    capsys, tmp_path: Path, change: str, needle: str
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(BAD.replace(*change.split("|")) if change else BAD)
    for command in ("explore", "list", "check"):
        code, out, err = run(capsys, command, "--design-file", str(path))
        assert code == 2 and out == "", command
        assert err.count("\n") == 1 and needle in err and "Traceback" not in err


@pytest.mark.slow
def test_the_added_action_and_choice_are_caught_by_check(capsys) -> None:
    code, out, _err = run(capsys, "check", "--design-file", ADDED, "--jobs", "1")
    assert code == 0, out
    assert out.rstrip("\n").splitlines()[-1].startswith("PASS: mutants caught: 2/2")


@pytest.mark.slow
@pytest.mark.parametrize("design", [TOOL, SKIP])
def test_an_added_action_or_choice_runs_alike_on_every_engine(capsys, design: str) -> None:
    """The explicit explorer, generated Python and C: the same counts and verdicts (the
    explicit run is the slow one); ``prove --depth`` agrees with exploration; ``fuzz`` finds
    the broken property too."""
    args = ("explore", "--design-file", ADDED, "--design", design, "--json")
    want = None
    for engine in ("explicit", "python", "c"):
        code, out, _err = run(capsys, *args, "--engine", engine)
        (got,) = json.loads(out)["results"]
        assert code == 1 and got["verdicts"]["no_lost_edit"] == "fail", engine
        stats = (got["stats"]["states"], got["stats"]["transitions"], got["verdicts"])
        want = want or stats
        assert stats == want, engine
    code, out, _err = run(
        capsys, "prove", "--design-file", ADDED, "--design", design, "--depth", "4"
    )
    assert code == 0 and "PASS: the engines agree" in out
    pytest.importorskip("replcheck.specs.fuzz")
    code, out, _err = run(capsys, "fuzz", "--design-file", ADDED, "--design", design)
    assert code == 1 and "minimal program breaking no_lost_edit" in out
