"""``replcheck validate``: exit statuses, the rejection report, JSON and JUnit output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from replcheck.conformance.trace import mutate as tracemut

from replcheck.cli import main

GOLDEN = Path(__file__).resolve().parents[2] / "traces" / "golden"
VALID = GOLDEN / "zk-multi-kill.jsonl"


def edited(tmp_path: Path, edit: str) -> Path:
    events = tracemut.load(VALID)
    path = tmp_path / f"{edit}.jsonl"
    tracemut.dump(tracemut.apply_edit(events, tracemut.HAND_MADE[edit](events)), path)
    return path


def test_an_accepted_trace_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(VALID)]) == 0
    out, err = capsys.readouterr()
    assert f"{VALID}: accepted (" in out
    assert err.strip().splitlines()[-1] == "validate: PASS: 1 traces: 1 accepted"


@pytest.mark.slow
def test_the_plain_interpreter_keeps_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--engine plain`` holds a trace to the protocol text on plain values: a golden trace
    with a master restart is accepted, and a hand-made edit (a claim of a live server's queue)
    is rejected at the event the default engine rejects."""
    trace = GOLDEN / "zk-lock-master-restart.jsonl"
    assert main(["validate", "--engine", "plain", str(trace)]) == 0
    capsys.readouterr()
    events = tracemut.load(GOLDEN / "zk-lock-kill.jsonl")
    path = tmp_path / "claim-of-live-server.jsonl"
    bad = tracemut.HAND_MADE["claim-of-live-server"](events)
    tracemut.dump(tracemut.apply_edit(events, bad), path)
    assert main(["validate", "--json", str(path)]) == 1
    (want,) = json.loads(capsys.readouterr()[0])
    assert main(["validate", "--engine", "plain", "--json", str(path)]) == 1
    (got,) = json.loads(capsys.readouterr()[0])
    assert got["verdict"] == want["verdict"] and got["verdict"].startswith("rejected:")


def test_a_rejected_trace_exits_1_with_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edited(tmp_path, "swap-across-zxid")
    assert main(["validate", str(VALID), str(path)]) == 1
    out, err = capsys.readouterr()
    assert "rejected: divergence at event" in out
    for part in ("matched: every event up to line", "did not fit: line", "frontier:"):
        assert part in out
    assert "FAIL" in err.strip().splitlines()[-1]


def test_bad_input_exits_2_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "torn.jsonl"
    text = VALID.read_text()
    path.write_text(text[: len(text) - 40])
    assert main(["validate", str(path)]) == 2
    out, _ = capsys.readouterr()
    lines = text.count("\n")
    assert f"bad input: {path}:{lines}: the last line is cut short (a torn tail)" in out


def test_json_and_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = edited(tmp_path, "drop-event")
    junit = tmp_path / "validate.xml"
    assert main(["validate", str(VALID), str(bad), "--json", "--junit", str(junit)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [d["status"] for d in data] == ["accepted", "rejected"]
    assert data[1]["reason"] == "divergence" and data[1]["event"] is not None
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "2" and suite.get("failures") == "1"


def test_an_unknown_design_and_an_unwritable_junit_are_usage_errors(tmp_path: Path) -> None:
    assert main(["validate", str(VALID), "--design", "zk-nope"]) == 2
    assert main(["validate", str(VALID), "--junit", str(tmp_path)]) == 2


def test_an_event_the_mapping_cannot_read_is_undecided_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from replcheck.conformance.validate import mapping

    def unreadable(*_args: object) -> list[int]:
        raise KeyError("row")

    monkeypatch.setitem(mapping.RESOLVED, "shipper", unreadable)
    assert main(["validate", str(VALID)]) == 4  # undecided: never a pass, exit 4 as everywhere
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "undecided: the mapping could not read an event (KeyError: 'row')" in out
    assert err.strip().splitlines()[-1].startswith("validate: UNDECIDED (undecided is not a pass)")


def test_a_dropped_claim_recorded_without_its_row_is_any_child_whose_target_died() -> None:
    """An older recording's ``claim_lost`` names no row: the dropped child is one whose target
    is dead in the model (test_data/validate/README.md)."""
    from replcheck.conformance.validate.core import validate_path

    trace = (
        Path(__file__).resolve().parents[2]
        / "test_data/validate/table-claim-lost-without-row.jsonl"
    )
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert any(e["name"] == "claim_lost" and "detail" not in e for e in events)
    v = validate_path(trace)
    assert v.status == "accepted", v.headline()


def test_the_masters_archives_after_the_run_end_are_teardown() -> None:
    """test_data/validate/README.md: the archives of stopped servers' WALs after ``run_end``
    are matched by no step (the model has no clean stop); before the end they would not fit."""
    from replcheck.conformance.validate.core import validate_events, validate_path

    trace = (
        Path(__file__).resolve().parents[2] / "test_data/validate/zk-lock-teardown-archive.jsonl"
    )
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    end = next(n for n, e in enumerate(events) if e["name"] == "run_end")
    assert any(e["name"] == "archive" and e["proc"] == "master" for e in events[end:])
    assert validate_path(trace).status == "accepted"
    without_end = [e for e in events if e["name"] != "run_end"]
    assert validate_events(without_end, "zk-lock").status == "rejected"


def test_a_trace_is_read_as_a_mutant_of_its_design_and_not_as_another_family(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["validate", str(VALID), "--design", "zk-multi/HBASE-12865"]) == 0
    assert f"{VALID}: accepted (" in capsys.readouterr().out
    # the first event already names another family: one line, the file and line, exit 2
    assert main(["validate", str(VALID), "--design", "table"]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert (
        f"{VALID}: bad input: {VALID}:1: design 'zk-multi', but the trace is read as 'table' "
        "(a design or mutant of another family)"
    ) in out


def test_a_mutants_run_read_as_its_base_design_is_rejected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What the mutant's cluster did (ship an edit back to the cluster it came from) is not a
    behaviour of the design it is a mutant of."""
    run = GOLDEN / "zk-lock--no-loop-prevention.jsonl"
    assert main(["validate", str(run)]) == 1
    assert "rejected: no_edit_at_origin at event" in capsys.readouterr().out
    assert main(["validate", str(run), "--design", "zk-lock"]) == 1
    assert "rejected: divergence at event" in capsys.readouterr().out


NEVER_DONE = """
from replcheck.model.engine.logic import PY, Ops, dual
from replcheck.model.zk.multi import ZkMulti


def never_done_rule(ops: Ops, newer_queued, closed, pos, length):
    return ops.and_(closed, ops.not_(closed))


class NeverDone(ZkMulti):
    name = "zk-multi/never-done"
    mutant_of = "zk-multi"
    overrides = "rule_wal_done"
    configs = ("std",)
    bug = "A source never leaves a WAL it has read to the end."

    @dual(never_done_rule)
    def rule_wal_done(self, sh, wal) -> bool:
        return never_done_rule(PY, len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries))
"""


def test_a_reviewers_design_file_is_what_validate_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--design-file`` reaches trace validation: the recorded run its base design accepts is
    rejected under a reviewer's override that never lets a source leave a WAL (the closest
    behaviour the override leaves breaks ``no_lost_edit``)."""
    path = tmp_path / "never_done.py"
    path.write_text(NEVER_DONE, encoding="utf-8")
    argv = ["validate", str(VALID), "--design-file", str(path), "--json"]
    assert main([*argv, "--design", "zk-multi"]) == 0
    capsys.readouterr()
    assert main([*argv, "--design", "zk-multi/never-done"]) == 1
    (verdict,) = json.loads(capsys.readouterr().out)
    got = (verdict["design"], verdict["status"], verdict["reason"], verdict["event"])
    assert got == ("zk-multi/never-done", "rejected", "no_lost_edit", 164)


def test_a_folder_of_traces_is_validated_trace_by_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``validate FOLDER`` reads a folder as ``mine`` does: its loose traces, the run folders
    under it, each with its own verdict; other files are not traces."""
    corpus = tmp_path / "corpus"
    (corpus / "runs" / "run-1").mkdir(parents=True)
    (corpus / "a.jsonl").write_bytes(VALID.read_bytes())
    (corpus / "runs" / "run-1" / "trace.jsonl").write_bytes(VALID.read_bytes())
    (corpus / "README.md").write_text("not a trace\n")
    bad = edited(tmp_path, "offset-backwards")
    (corpus / "b.jsonl").write_bytes(bad.read_bytes())
    assert main(["validate", str(corpus)]) == 1
    out, err = capsys.readouterr()
    assert f"{corpus / 'a.jsonl'}: accepted (" in out
    assert f"{corpus / 'runs' / 'run-1' / 'trace.jsonl'}: accepted (" in out
    assert f"{corpus / 'b.jsonl'}: rejected" in out
    assert "README" not in out
    assert err.strip().splitlines()[-1] == "validate: FAIL: 3 traces: 2 accepted, 1 rejected"


def test_a_folder_with_nothing_to_validate_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("nothing here\n")
    assert main(["validate", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert f"{tmp_path}: bad input" in out
    assert "Traceback" not in out + err
