"""``replcheck zklog`` on what a user may hand it: every record printed as JSON (ACLs included),
and anything that is not a regular file (a named pipe, a device) refused in one line, at once.

The logs are written with :mod:`replcheck.conformance.zookeeper.txnwrite` (no ZooKeeper
needed) or taken from a recorded run of ``test_data/validate``.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from replcheck.conformance.zookeeper.records import (
    ACL,
    CheckVersionTxn,
    CloseSessionTxn,
    CreateContainerTxn,
    CreateSessionTxn,
    CreateTTLTxn,
    CreateTxn,
    DeleteTxn,
    ErrorTxn,
    MultiTxn,
    OpCode,
    SetACLTxn,
    SetDataTxn,
    SubTxn,
    Txn,
    TxnDigest,
)
from replcheck.conformance.zookeeper.txnlog import ZkLogError, read_log, read_logs
from replcheck.conformance.zookeeper.txnwrite import encode_body, write_log

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[3]
RUN_LOG = ROOT / "test_data/validate/zk-multi-lost-advance/zk-txnlog/server1/log.100000001"

WORLD = (ACL(31, "world", "anyone"),)
DIGEST = (ACL(31, "digest", "admin:x1nq8J3bOxV0c4gkK8bnkmCmlzs="), ACL(1, "world", "anyone"))


def every_type() -> list[Txn]:
    """One transaction of every type a 3.9 server logs, ACLs of two kinds among them."""

    def txn(zxid: int, op: int, rec: object, digest: bool = True) -> Txn:
        d = TxnDigest(2, 1000 + zxid) if digest else None
        return Txn("", 0, 0x1000, zxid, zxid, 1_700_000_000_000 + zxid, op, rec, d)  # type: ignore[arg-type]

    def sub(op: int, rec: object) -> SubTxn:
        return SubTxn(op, encode_body(op, rec), rec)  # type: ignore[arg-type]

    return [
        txn(1, OpCode.createSession, CreateSessionTxn(30000)),
        txn(2, OpCode.create, CreateTxn("/a", b"config", WORLD, False, 1)),
        txn(3, OpCode.create2, CreateTxn("/a/b", bytes(range(256)), DIGEST, True, 1)),
        txn(4, OpCode.createTTL, CreateTTLTxn("/ttl", b"t", WORLD, 2, 5000)),
        txn(5, OpCode.createContainer, CreateContainerTxn("/box", b"", WORLD, 3)),
        txn(6, OpCode.setData, SetDataTxn("/a", b"v2", 1)),
        txn(7, OpCode.setACL, SetACLTxn("/a", DIGEST, 1)),
        txn(8, OpCode.delete, DeleteTxn("/ttl")),
        txn(
            9,
            OpCode.multi,
            MultiTxn(
                [
                    sub(OpCode.create, CreateTxn("/m", b"1", DIGEST, False, 4)),
                    sub(OpCode.setData, SetDataTxn("/a", b"v3", 2)),
                    sub(OpCode.check, CheckVersionTxn("/a", 3)),
                ]
            ),
        ),
        txn(10, OpCode.error, ErrorTxn(-110), digest=False),
        txn(11, OpCode.closeSession, CloseSessionTxn(["/a/b"])),
    ]


def _json_lines(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[dict]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return [json.loads(line) for line in out.splitlines()]


def test_json_prints_every_record_of_a_recorded_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The audit's case: a real run's log, whose creates carry ACLs."""
    rows = _json_lines(capsys, ["zklog", str(RUN_LOG), "--json"])
    txns = list(read_log(RUN_LOG))
    assert len(rows) == len(txns) > 100
    assert [r["zxid"] for r in rows] == [t.zxid for t in txns]
    creates = [r for r in rows if r["type"] == "create"]
    assert creates and all(isinstance(r["acl"], list) for r in creates)
    assert creates[0]["acl"] == [{"perms": 31, "scheme": "world", "id": "anyone"}]
    multis = [op for r in rows if r["type"] == "multi" for op in r["ops"]]
    assert any("acl" in op for op in multis)  # ACLs inside a multi's ops too


def test_json_prints_every_record_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path / "version-2" / "log.1", every_type(), preallocate=4096)
    assert len(list(read_log(log))) == len(every_type())
    for path in (log, tmp_path):  # the file, and the data directory
        rows = _json_lines(capsys, ["zklog", str(path), "--json"])
        assert [r["type"] for r in rows] == [
            "createSession",
            "create",
            "create2",
            "createTTL",
            "createContainer",
            "setData",
            "setACL",
            "delete",
            "multi",
            "error",
            "closeSession",
        ]
        by = {r["zxid"]: r for r in rows}
        assert by[3]["acl"] == [
            {"perms": 31, "scheme": "digest", "id": "admin:x1nq8J3bOxV0c4gkK8bnkmCmlzs="},
            {"perms": 1, "scheme": "world", "id": "anyone"},
        ]
        assert by[3]["data"] == {"base64": base64.b64encode(bytes(range(256))).decode()}
        assert by[7]["acl"][0]["scheme"] == "digest"
        assert by[9]["ops"][0]["acl"][1] == {"perms": 1, "scheme": "world", "id": "anyone"}
        assert by[9]["ops"][2] == {"type": "check", "path": "/a", "version": 3}
        assert by[11]["paths"] == ["/a/b"]
        assert by[10]["digest"] is None and by[2]["digest"] == {"version": 2, "tree_digest": 1002}


# --- what is not a regular file ---------------------------------------------------------------


def _zklog(*argv: str) -> subprocess.CompletedProcess[str]:
    """``replcheck zklog`` in a process of its own: a read that blocks fails the test by its
    timeout instead of hanging the suite."""
    return subprocess.run(
        [sys.executable, "-m", "replcheck", "zklog", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["{fifo}"],
        ["{fifo}", "--json"],
        ["{dir}"],
        ["{snapfifo}"],
        ["--replay", "{dir}", "--snapshot", "{snapfifo}"],
        ["/dev/null"],
    ],
)
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, argv: list[str]) -> None:
    """A named pipe given as a log or a snapshot, or lying among a data directory's logs, or a
    device: one line naming it, exit 2, without reading it (a pipe would block for ever)."""
    folder = tmp_path / "data" / "version-2"
    folder.mkdir(parents=True)
    fifo = folder / "log.1"
    os.mkfifo(fifo)
    snapfifo = tmp_path / "snapshot.1"
    os.mkfifo(snapfifo)
    values = {"{fifo}": str(fifo), "{dir}": str(tmp_path / "data"), "{snapfifo}": str(snapfifo)}
    args = [values.get(a, a) for a in argv]
    done = _zklog(*args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("replcheck: error: "), done.stderr
    named = next(a for a in args if a.startswith(str(tmp_path)) or a == "/dev/null")
    if "--snapshot" in args:
        named = str(snapfifo)
    elif named.endswith("data"):
        named = str(fifo)
    assert f"{named}: not a regular file" in lines[0]


def test_the_reader_refuses_a_named_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "log.1"
    os.mkfifo(fifo)
    with pytest.raises(ZkLogError, match=r"log\.1: not a regular file \(a named pipe\)$"):
        next(read_log(fifo))
    with pytest.raises(ZkLogError, match="not a regular file"):
        list(read_logs(tmp_path))


def test_the_writer_writes_back_the_logs_of_recorded_runs_byte_for_byte() -> None:
    """``txnwrite`` is the reader's inverse: the entries of every recorded run's log, read and
    written again, are the same bytes (a hostile log built with it is a log ZooKeeper could
    have written)."""
    from replcheck.conformance.zookeeper.txnwrite import encode_log

    logs = sorted((ROOT / "test_data" / "validate").glob("*/zk-txnlog/*/log.*"))
    assert len(logs) > 10
    for log in logs:
        data = log.read_bytes()
        again = encode_log(read_log(log), dbid=int.from_bytes(data[8:16], "big", signed=True))
        assert data.startswith(again), log
        assert data[len(again) :].count(0) == len(data) - len(again)  # then zeros, or nothing
