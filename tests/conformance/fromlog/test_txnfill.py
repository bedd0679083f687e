"""Steps a killed process took but did not record, read back from the run's ZooKeeper logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from replcheck.conformance.fromlog import fill as txnfill
from replcheck.conformance.trace.reader import read_trace
from replcheck.conformance.validate.core import validate_events, validate_path
from replcheck.conformance.zookeeper.txnlog import read_logs

RUN = Path(__file__).resolve().parents[3] / "test_data" / "validate" / "zk-lock-lost-persist"


def test_the_lost_position_write_is_read_back_from_the_txn_log() -> None:
    events = read_trace(RUN).events
    lost = txnfill.lost_steps(events, RUN)
    assert [(e["zxid"], e["proc"], e["detail"]["position"]) for e in lost] == [
        (0x10000003C, "rs-1.1.1.1,60020,123456780", 939)
    ]
    filled, n, windows = txnfill.fill(events, RUN)
    assert n == 1 and len(filled) == len(events) + 1
    # recorded before crash lines carried the window the driver saw the expiry in: kept as is
    assert windows == 0
    zxids = [e["zxid"] for e in filled if e["zxid"] is not None]
    assert zxids == sorted(zxids)


def test_the_run_is_accepted_with_its_logs_and_rejected_without(tmp_path: Path) -> None:
    v = validate_path(RUN)
    assert v.status == "accepted" and v.detail["from_txn_log"] == 1, v.headline()
    alone = tmp_path / "run"
    alone.mkdir()
    shutil.copy(RUN / "trace.jsonl", alone / "trace.jsonl")
    bare = validate_path(alone)
    assert bare.status == "rejected" and bare.reason == "divergence", bare.headline()


DATA = RUN.parent


def _without_logs(run: Path, tmp_path: Path) -> Path:
    alone = tmp_path / run.name
    alone.mkdir()
    shutil.copy(run / "trace.jsonl", alone / "trace.jsonl")
    return alone


def test_a_lost_queue_creation_is_read_back_as_peer_sync(tmp_path: Path) -> None:
    run = DATA / "zk-multi-lost-peer-sync"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["proc"], e["args"]) for e in lost] == [
        ("peer_sync", "rs-1.1.1.4,60020,123456810", {"server": 3, "peer": 0})
    ]
    v = validate_path(run)
    assert v.status == "accepted" and v.detail["from_txn_log"] == 1, v.headline()
    bare = validate_path(_without_logs(run, tmp_path))
    assert bare.status == "rejected", bare.headline()


def test_a_lost_table_era_join_is_read_back_from_the_live_znode(tmp_path: Path) -> None:
    run = DATA / "table-lost-join"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["proc"], e["args"]) for e in lost] == [
        ("join", "rs-1.1.1.5,60020,123456820", {"server": 4})
    ]
    assert validate_path(run).status == "accepted"
    assert validate_path(_without_logs(run, tmp_path)).status == "rejected"


def test_a_transaction_fewer_than_a_quorum_logged_did_not_happen() -> None:
    run = DATA / "zk-multi-uncommitted-txn"
    logs = sorted({p.parent for p in (run / "zk-txnlog").rglob("log.*")})
    holders = [d.name for d in logs if any(t.zxid == 0x1000000C6 for t in read_logs(d))]
    assert holders == ["server3"]  # the leader that lost its leadership before the commit
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert 0x1000000C6 not in {e["zxid"] for e in lost}
    assert [e["name"] for e in lost] == ["join"]
    assert validate_path(run).status == "accepted"


def test_a_lost_table_era_advance_is_read_back_from_its_row(tmp_path: Path) -> None:
    """A paused server wrote its row's ``-1`` (the WAL fully replicated) and was fenced when it
    resumed, before the line: the cleaner then deleted the WAL, as the real one did."""
    run = DATA / "table-lost-advance"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["proc"], e["detail"]["wal"]) for e in lost] == [
        ("advance", "rs-1.1.1.3,60020,123456800", "1.1.1.3%2C60020%2C123456800.1265")
    ]
    assert validate_path(run).status == "accepted"
    assert validate_path(_without_logs(run, tmp_path)).status == "rejected"


def test_a_lost_first_offset_that_created_the_row_is_read_back(tmp_path: Path) -> None:
    """A server killed after its first persist, which created its queue row, and before the
    line: ADD_MISSING_QUEUES then finds the row there and the claimer's recovered source starts
    past the edit already shipped."""
    run = DATA / "table-lost-first-offset"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["detail"]["queue"], e["detail"]["position"]) for e in lost] == [
        ("persist", "2-1.1.1.5,60020,123456820", 94)
    ]
    assert validate_path(run).status == "accepted"
    assert validate_path(_without_logs(run, tmp_path)).status == "rejected"


def test_an_unrecorded_edit_is_read_back_from_the_batch_that_shipped_it() -> None:
    """A server killed between appending an edit and its ``put`` line: a claimer's recovered
    source later shipped the edit from the WAL. Without the ``put`` the model's WAL is one entry
    short and the batch does not fit."""
    run = DATA / "table-lost-put"
    events, _n, _windows = txnfill.fill(read_trace(run).events, run)
    filled, n = txnfill.lost_writes(events)
    at = [i for i, e in enumerate(filled) if (e.get("detail") or {}).get("from") == "later lines"]
    assert n == 1 and len(at) == 1
    put = filled[at[0]]
    assert (put["proc"], put["detail"]["uid"]) == ("rs-1.1.1.1,60020,123456780", "0.0.1.14")
    # after every line its server wrote
    assert all(i < at[0] for i, e in enumerate(filled) if e["proc"] == put["proc"] and i != at[0])
    assert validate_events(events, "table").status == "rejected"
    assert validate_path(run).status == "accepted"
    assert txnfill.lost_writes(filled) == (filled, 0)  # nothing more once it is there


def test_a_lost_zk_lock_finish_claim_is_read_back(tmp_path: Path) -> None:
    """The claimer deleted the dead server's znode with its lock and was killed before the line:
    without it the model still holds the dead server's queues, which the cleaner did not see."""
    run = DATA / "zk-lock-lost-finish-claim"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["proc"], e["args"]) for e in lost] == [
        ("finish_claim", "rs-1.1.1.3,60020,123456800", {"server": 2, "dead": 1})
    ]
    assert validate_path(run).status == "accepted"
    assert validate_path(_without_logs(run, tmp_path)).status == "rejected"


def test_a_lost_zk_era_roll_is_read_back_and_the_old_roll_order_still_rejected() -> None:
    """The server queued its new WAL in ZooKeeper and was killed before the line, and before it
    created the file: the cluster then queued a WAL before creating it, which HBase never does
    (``FSHLog.rollWriter`` creates the writer first). The roll is read back; the recovered
    source's skip of the WAL that never existed has no step in the model."""
    run = DATA / "zk-lock-lost-roll"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["proc"], e["detail"]["wal"]) for e in lost] == [
        ("roll", "rs-1.1.1.3,60020,123456800", "1.1.1.3,60020.1265")
    ]
    v = validate_path(run)
    assert (v.status, v.event) == ("rejected", 423)
    assert v.detail["event_text"].startswith("action skip_missing(")


def test_a_lost_zk_multi_claim_is_read_back(tmp_path: Path) -> None:
    """A claimer let go at its read committed its claim's multi and lost its session before its
    line: the multi is read back as its ``claim_commit``, and the run is accepted; without the
    logs, the dead server's queue is still there for the model when the SCP ends."""
    run = DATA / "zk-multi-lost-claim-commit"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["proc"], e["name"], e["args"]) for e in lost] == [
        ("rs-1.1.1.2,60020,123456790", "claim_commit", {"server": 1})
    ]
    assert lost[0]["detail"]["queue"] == "2-1.1.1.1,60020,123456780"
    v = validate_path(run)
    assert v.status == "accepted" and v.detail["from_txn_log"] == 1, v.headline()
    alone = tmp_path / "run"
    alone.mkdir()
    shutil.copy(run / "trace.jsonl", alone / "trace.jsonl")
    assert validate_path(alone).status == "rejected"


def test_a_lost_zk_era_advance_is_read_back(tmp_path: Path) -> None:
    """zk-multi: server 1 finished its first WAL, deleted it from its queue and was killed before
    that ``advance`` line; the cleaner then read the queue without it. The deletion is read back
    from the logs as that source's ``advance``, and the run is accepted; without it, the model
    still has the WAL queued where the cleaner's read found none."""
    run = DATA / "zk-multi-lost-advance"
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [(e["name"], e["proc"], e["detail"]["wal"], e["zxid"]) for e in lost] == [
        ("advance", "rs-1.1.1.1,60020,123456780", "1.1.1.1,60020.1234", 0x100000045)
    ]
    assert validate_path(run).status == "accepted"
    alone = tmp_path / "trace.jsonl"  # the trace without its run folder: no logs to read
    alone.write_bytes((run / "trace.jsonl").read_bytes())
    v = validate_path(alone)
    assert (v.status, v.event) == ("rejected", 168), v.headline()


def test_a_lost_finish_of_a_claimed_queue_is_read_back(tmp_path: Path) -> None:
    """zk-multi: server 1 claimed server 2's queue, whose WAL was already shipped to its end,
    and its recovered source deleted the queue (its ``finish``) before the server was killed;
    no line of it names that source. The deletion is read back as the ``finish`` of a source
    numbered past every number the process used, and the run is accepted; without the logs the
    model still has the claimed queue where the cleaner's read found none."""
    run = DATA / "zk-multi-lost-finish-of-claim"
    events = read_trace(run).events
    used = {
        e["args"]["shipper"]
        for e in events
        if e["proc"] == "rs-1.1.1.2,60020,123456790"
        and isinstance((e.get("args") or {}).get("shipper"), int)
    }
    lost = txnfill.lost_steps(events, run)
    assert [(e["name"], e["proc"], e["detail"]["queue"], e["zxid"]) for e in lost] == [
        ("finish", "rs-1.1.1.2,60020,123456790", "2-1.1.1.3,60020,123456800", 0x3B)
    ]
    assert lost[0]["args"] == {"server": 1, "shipper": max(used) + 1}
    assert validate_path(run).status == "accepted"
    alone = tmp_path / "trace.jsonl"
    alone.write_bytes((run / "trace.jsonl").read_bytes())
    v = validate_path(alone)
    assert (v.status, v.event) == ("rejected", 76), v.headline()


def test_a_write_read_back_goes_before_its_servers_fenced_line(tmp_path: Path) -> None:
    """A server created its queue (zxid ``0x100000024``), its session expired at the next zxid
    and it wrote ``fenced`` and exited before the write's own line. The write read back keeps its
    place in zxid order, which the merge put after those two lines of its own lane; the lines
    that came after the session ended follow it instead."""
    run = DATA / "zk-multi-lost-write-before-fenced"
    events = read_trace(run).events
    filled, n, _windows = txnfill.fill(events, run)
    assert n == 1
    lane = [e["name"] for e in filled if e["proc"] == "rs-1.1.1.1,60020,123456780"]
    assert lane[-3:] == ["peer_sync", "fenced", "process_exit"]
    zxids = [e["zxid"] for e in filled if e["zxid"] is not None]
    assert zxids == sorted(zxids)
    v = validate_path(run)
    assert v.status == "accepted" and v.detail["from_txn_log"] == 1, v.headline()
    assert validate_path(_without_logs(run, tmp_path)).status == "rejected"


@pytest.mark.parametrize(
    "step", ["add_peer", "peer_proc", "scp_split", "scp_claim_stage", "arqp_claim"]
)
def test_a_table_era_masters_lost_line_is_read_back(tmp_path: Path, step: str) -> None:
    """A master killed (restarted) between a write and its line: the write is read back as the
    step log-only validation reads it (an SCP's or a peer procedure's stage, the claims a round
    sent, the cleaner's barrier), and the run is accepted; without the logs it is not."""
    run = tmp_path / "copy" / "table-lost-join"
    shutil.copytree(DATA / "table-lost-join", run)
    lines = (run / "trace.jsonl").read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if json.loads(line)["name"] == step)
    (run / "trace.jsonl").write_text("".join(lines[:cut] + lines[cut + 1 :]))
    lost = txnfill.lost_steps(read_trace(run).events, run)
    assert [e["name"] for e in lost if e["proc"] == "master"] == [step]
    v = validate_path(run)
    assert v.status == "accepted", v.headline()
    assert validate_path(_without_logs(run, tmp_path)).status != "accepted"


def test_a_foreign_edit_relayed_home_without_its_line_is_read_back(tmp_path: Path) -> None:
    """The other cluster wrote a client edit to its relay log and was stopped (``sink-down``)
    before the edit's line; restarted, it relayed the edit home. The ``relay_home`` names it, so
    its ``foreign_put`` is read back (GLOBAL: it was relayed), in its cluster's order."""
    run = tmp_path / "copy" / "table-claim-reads-across-leader-election"
    shutil.copytree(DATA / "table-claim-reads-across-leader-election", run)
    lines = (run / "trace.jsonl").read_text().splitlines(keepends=True)
    relayed = {
        json.loads(x)["detail"]["uid"] for x in lines if json.loads(x)["name"] == "relay_home"
    }
    cut = next(
        i
        for i, x in enumerate(lines)
        if json.loads(x)["name"] == "foreign_put" and json.loads(x)["detail"]["uid"] in relayed
    )
    uid = json.loads(lines[cut])["detail"]["uid"]
    (run / "trace.jsonl").write_text("".join(lines[:cut] + lines[cut + 1 :]))
    events, _n = txnfill.lost_writes(read_trace(run).events)
    read_back = [e for e in events if (e.get("detail") or {}).get("from") == "later lines"]
    assert [(e["name"], e["detail"]["uid"]) for e in read_back] == [("foreign_put", uid)]
    assert validate_path(run).status == "accepted"
