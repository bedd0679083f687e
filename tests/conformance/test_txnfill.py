"""Steps a killed process took but did not record, read back from the run's ZooKeeper logs."""

from __future__ import annotations

import shutil
from pathlib import Path

from replcheck.conformance import txnfill
from replcheck.conformance.events import read_trace
from replcheck.conformance.validate import validate_path

RUN = Path(__file__).resolve().parents[2] / "test_data" / "validate" / "zk-lock-lost-persist"


def test_the_lost_position_write_is_read_back_from_the_txn_log() -> None:
    events = read_trace(RUN).events
    lost = txnfill.lost_steps(events, RUN)
    assert [(e["zxid"], e["proc"], e["detail"]["position"]) for e in lost] == [
        (0x10000003C, "rs-1.1.1.1,60020,123456780", 939)
    ]
    filled, n = txnfill.fill(events, RUN)
    assert n == 1 and len(filled) == len(events) + 1
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
