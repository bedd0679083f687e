"""A trace held against its run's ZooKeeper transaction logs (``conformance.txnagree``): every
zxid a step names is a committed write of the run, and for the steps ``txnread`` recognises it is
that step's very write; a trace that says otherwise is rejected there."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from replcheck.conformance.fromlog.agree import agreement
from replcheck.conformance.fromlog.read import TxnLogDamaged
from replcheck.conformance.trace.reader import read_trace
from replcheck.conformance.validate.core import validate_path

DATA = Path(__file__).resolve().parents[3] / "test_data" / "validate"
RUNS = sorted(p.parent for p in DATA.glob("*/zk-txnlog"))


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_every_recorded_zxid_is_its_steps_write(run: Path) -> None:
    a = agreement(read_trace(run).events, run)
    assert a.problems == []
    assert a.checked == a.in_full + sum(a.existence_only.values())
    # the steps whose writes are recognised are most of them, persists above all
    assert a.in_full * 2 > a.checked


def tamper(tmp_path: Path, run: str, change) -> tuple[Path, int]:
    """A copy of ``run`` whose trace has one event changed by ``change`` (which returns True for
    the event it changed); returns the copy and that event's index."""
    copy = tmp_path / run
    shutil.copytree(DATA / run, copy)
    lines = (copy / "trace.jsonl").read_text().splitlines()
    for n, line in enumerate(lines):
        e = json.loads(line)
        if change(e):
            lines[n] = json.dumps(e, sort_keys=True, separators=(",", ":"))
            (copy / "trace.jsonl").write_text("\n".join(lines) + "\n")
            return copy, n
    raise AssertionError("nothing to change")


def test_a_persist_whose_position_is_not_the_one_written_is_rejected(tmp_path: Path) -> None:
    def change(e: dict) -> bool:
        if e["name"] == "persist" and e["zxid"] is not None and e["detail"]["position"] > 0:
            e["detail"]["position"] += 1
            return True
        return False

    run, n = tamper(tmp_path, "zk-multi-lost-peer-sync", change)
    v = validate_path(run)
    assert (v.status, v.reason, v.event) == ("rejected", "txn_log_agreement", n), v.headline()
    assert v.detail["txn_log"].startswith("the ZooKeeper txn log disagrees with it: zxid ")
    assert "the step writes" in v.detail["txn_log"]


def test_a_zxid_no_committed_transaction_has_is_rejected(tmp_path: Path) -> None:
    def change(e: dict) -> bool:
        if e["name"] == "join" and e["zxid"] is not None:
            e["zxid"] += 1 << 40  # an epoch the ensemble never reached
            return True
        return False

    run, n = tamper(tmp_path, "table-lost-join", change)
    a = agreement(read_trace(run).events, run)
    assert [p[0] for p in a.problems] == [n]
    assert "no committed transaction of the run has it" in a.problems[0][1]


def test_a_join_named_after_another_server_is_rejected(tmp_path: Path) -> None:
    def change(e: dict) -> bool:
        if e["name"] == "join" and e["zxid"] is not None:
            e["args"]["server"] += 1
            return True
        return False

    run, n = tamper(tmp_path, "zk-lock-lost-persist", change)
    a = agreement(read_trace(run).events, run)
    assert a.problems and a.problems[0][0] == n and "joins" in a.problems[0][1]


def test_an_accepted_run_says_how_much_of_it_was_held_against_the_log() -> None:
    v = validate_path(DATA / "zk-lock-lost-persist")
    assert v.status == "accepted", v.headline()
    full, checked = v.detail["txn_log_checked"]
    assert 0 < full <= checked


def test_a_step_is_the_write_of_the_process_that_records_it(tmp_path: Path) -> None:
    """Every process fences its writes with a write of its own znode: a persist recorded by
    one server and written by another disagrees."""

    def change(e: dict) -> bool:
        if (
            e["name"] == "persist"
            and e["zxid"] is not None
            and e["proc"] == "rs-1.1.1.1,60020,123456780"
        ):
            e["proc"] = "rs-1.1.1.2,60020,123456790"
            return True
        return False

    run, n = tamper(tmp_path, "zk-multi-lost-peer-sync", change)
    a = agreement(read_trace(run).events, run)
    assert a.problems[0] == (
        n,
        f"zxid {read_trace(run).events[n]['zxid']:#x}: the step is rs-1.1.1.2,60020,123456790's, "
        "the transaction rs-1.1.1.1,60020,123456780's",
    )


@pytest.mark.parametrize(
    ("run", "name", "field"),
    [
        ("zk-multi-lost-peer-sync", "claim_commit", "queue"),
        ("zk-lock-lost-roll", "copy_queue", "queue"),
        ("table-lost-put", "claim_commit", "row"),
        ("table-lost-put", "finish", "queue"),
    ],
)
def test_a_step_that_names_another_queue_than_its_write_disagrees(
    tmp_path: Path, run: str, name: str, field: str
) -> None:
    def change(e: dict) -> bool:
        if e["name"] == name and e["zxid"] is not None and field in (e.get("detail") or {}):
            old = e["detail"][field]
            e["detail"][field] = ("3" if old[0] == "2" else "2") + old[1:]  # another peer's
            return True
        return False

    copy, n = tamper(tmp_path, run, change)
    a = agreement(read_trace(copy).events, copy)
    assert a.problems and a.problems[0][0] == n, a.problems
    assert "the step would " in a.problems[0][1]


def test_a_damaged_log_is_bad_input_not_a_disagreement(tmp_path: Path) -> None:
    """Every server's log fails its checksum: nothing is held against it, and no verdict is
    given on the run (it used to be validated with its zxids left unverified); the fault names
    the log and the byte offset."""
    run = tmp_path / "run"
    shutil.copytree(DATA / "zk-lock-lost-persist", run)
    for log in run.glob("zk-txnlog/*/log.*"):
        data = bytearray(log.read_bytes())
        data[5000] ^= 0xFF
        log.write_bytes(bytes(data))
    with pytest.raises(TxnLogDamaged, match=r"/log\.\w+: byte \d+: bad checksum"):
        agreement(read_trace(run).events, run)
    v = validate_path(run)
    assert (v.status, v.path) == ("bad-input", str(run))
    assert re.search(r"/log\.\w+: byte \d+: bad checksum", v.reason), v.reason
