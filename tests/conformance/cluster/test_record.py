"""Short recorded runs of the reference cluster against a real ZooKeeper: each design's end state
is correct and its trace validates; a run with faults (kill -9 and a SIGSTOP zombie) still passes
for a correct design; a mutant's bug shows on the real cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from replcheck.conformance.cluster.run import RunSpec, record_run
from replcheck.conformance.trace import events as trace
from replcheck.conformance.trace import schema

pytestmark = pytest.mark.zookeeper

SHORT = {
    "servers": 2,
    "edits": 16,
    "rate": 12.0,
    "foreign": 6,
    "drain_timeout": 60.0,
    # Long enough that a busy CI machine never expires a healthy session by itself.
    "session_timeout": 10.0,
}


def names(run_dir: Path) -> Counter[str]:
    return Counter(e["name"] for e in trace.load(run_dir / "trace.jsonl"))


def assert_clean(result, run_dir: Path) -> None:
    s = result.summary()
    assert s["ok"], json.dumps(result.verdict.to_json())[:2000]
    assert s["lost"] == 0 and s["drained"], s
    assert s["edits_written"] > 0 and s["delivered"] == s["owed_deliveries"] > 0, s
    assert result.schema_problems == [], result.schema_problems[:5]
    assert s["unexpected_exits"] == 0, result.unexpected_exits
    assert schema.validate_file(run_dir / "trace.jsonl") == []
    assert trace.check_order(trace.load(run_dir / "trace.jsonl")) == []
    verdict = json.loads((run_dir / "verdict.json").read_text())
    assert verdict["verdict"]["summary"]["ok"] is True
    assert any((run_dir / "zk-txnlog").rglob("log.*")), "ZooKeeper transaction logs copied"
    assert list((run_dir / "logs").glob("rs-*.log"))


@pytest.mark.parametrize("design", ["zk-lock", "zk-multi", "table"])
def test_short_run_of_each_design(design: str, zookeeper, tmp_path: Path) -> None:
    run_dir = tmp_path / design
    result = record_run(RunSpec(design=design, seed=5, **SHORT), run_dir, ensemble=zookeeper)
    assert_clean(result, run_dir)
    seen = names(run_dir)
    assert seen["put"] and seen["ship"] and seen["persist"] and seen["roll"]
    conformance = json.loads((run_dir / "verdict.json").read_text())["conformance"]
    assert conformance["status"] == "accepted", conformance
    assert seen["add_peer"] >= 2 and seen["remove_peer"] == 1
    assert seen["join"] and seen["foreign_put"] and seen["relay_home"]
    assert not seen["unmodelled"], seen  # every design now has every step the cluster takes
    if design == "table":
        assert seen["peer_proc"] and seen["refresh"] and seen["cleaner_start"]
    else:
        assert seen["peer_sync"]
        assert_values_encoded(run_dir, hbase=design == "zk-multi")


def assert_values_encoded(run_dir: Path, *, hbase: bool) -> None:
    """zk-multi writes every peer, peer state and position as HBase 2.x does (the metadata
    prefix, then ``PBUF`` and the protobuf message); zk-lock writes them as text (a peer as
    JSON)."""
    from replcheck.conformance.fromlog import read as txnread
    from replcheck.conformance.hbase.values import PB_MAGIC, strip_metadata

    values = [
        (path, data)
        for txn in txnread.committed(txnread.logs(run_dir), txnread.chroot(run_dir))
        for kind, path, data in txnread.ops(txn)
        if kind in ("create", "set")
        and data
        and (
            path.endswith("/peer-state")
            or path.rpartition("/")[0].endswith("/replication/peers")
            or txnread.position(path, data) is not None
        )
    ]
    assert any(p.endswith("/peer-state") for p, _ in values)
    assert any(p.rpartition("/")[0].endswith("/replication/peers") for p, _ in values)
    assert sum("/replication/rs/" in p for p, _ in values) > 1
    for path, data in values:
        if hbase:
            assert data[0] == 0xFF and strip_metadata(data).startswith(PB_MAGIC), (path, data)
        else:
            text = data in (b"ENABLED", b"DISABLED") or data.isdigit()
            assert text or data.startswith(b"{"), (path, data)  # a peer as JSON


def test_faults_kill_and_pause_still_pass(zookeeper, tmp_path: Path) -> None:
    run_dir = tmp_path / "faults"
    spec = RunSpec(design="zk-multi", seed=11, faults=("kill", "pause"), **SHORT)
    result = record_run(spec, run_dir, ensemble=zookeeper)
    assert_clean(result, run_dir)
    assert result.faults == Counter({"kill": 1, "pause": 1}), result.summary()
    assert_values_encoded(run_dir, hbase=True)  # the claims copied them as they were
    seen = names(run_dir)
    assert seen["crash"] == 2 and seen["claim_commit"] >= 1 and seen["scp_finish"] >= 1, seen
    assert seen["fenced"] == 1, seen  # the zombie found its session gone and stopped writing
    assert seen["wal_truncated"] == 1, seen  # the killed server's torn tail was cut off
    assert result.conformance["status"] == "accepted", result.conformance


def test_faults_expire_and_master_restart_still_pass(zookeeper, tmp_path: Path) -> None:
    run_dir = tmp_path / "expire"
    spec = RunSpec(design="table", seed=12, faults=("expire", "master-restart"), **SHORT)
    result = record_run(spec, run_dir, ensemble=zookeeper)
    assert_clean(result, run_dir)
    # Every fault was carried out (the expiry waits for the victim's session to be on record).
    assert result.faults == Counter({"expire": 1, "master-restart": 1}), result.summary()
    assert not result.skipped, result.skipped
    seen = names(run_dir)
    assert seen["crash"] == 1 and seen["claim_commit"] >= 1, seen


def test_mutant_shows_on_the_real_cluster(zookeeper, tmp_path: Path) -> None:
    run_dir = tmp_path / "mutant"
    spec = RunSpec(design="zk-lock/ships-local-scope", seed=3, **SHORT)
    result = record_run(spec, run_dir, ensemble=zookeeper)
    assert not result.verdict.ok and result.verdict.shipped_local
    assert result.verdict.lost == []


def test_record_command_writes_run_folders(tmp_path: Path, capsys) -> None:
    """``replcheck record`` with its own ZooKeeper: one folder per run, exit 0."""
    from replcheck.cli import main

    out = tmp_path / "runs"
    argv = ["record", "--out", str(out), "--servers", "2", "--edits", "12", "--seed", "4"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "zk-multi: 1 run(s), 0 with violations" in captured.out
    assert "[1/1]" in captured.err
    (run,) = out.glob("run-000-seed4")
    for name in ("trace.jsonl", "verdict.json", "logs", "zk-txnlog", "trace"):
        assert (run / name).exists(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == 1 and summary["failed_runs"] == 0 and summary["errors"] == []


def _processes_mentioning(text: str) -> list[int]:
    """Pids of live processes whose command line mentions ``text``."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline and int(proc.name) != os.getpid():
            pids.append(int(proc.name))
    return pids


def test_sigterm_stops_the_whole_cluster(tmp_path: Path) -> None:
    """A terminated ``replcheck record`` stops every process and the ZooKeeper it started, and
    still writes the summary of the runs that finished."""
    out = tmp_path / "runs"
    argv = [sys.executable, "-m", "replcheck", "record", "--runs", "3", "--out", str(out)]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "cluster up" in line:
            break
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    deadline = time.monotonic() + 30
    while _processes_mentioning(str(out)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _processes_mentioning(str(out)) == []
    assert json.loads((out / "summary.json").read_text())["runs"] == 0
