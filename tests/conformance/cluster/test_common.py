"""Fenced transactions on a real ZooKeeper: the zxid of each ``multi``, all-or-nothing failure,
the fence's version, and a table row's conditional claim (delete + create, guarded by version)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from replcheck.conformance.cluster.common import (
    TABLE,
    TxnFailed,
    ZkProcess,
    drop_torn_tail,
    row_key_of,
    row_znode,
    write_atomic,
)

pytestmark = pytest.mark.zookeeper


@pytest.fixture
def proc(zookeeper, tmp_path: Path):
    chroot = f"/test-common-{uuid.uuid4().hex[:8]}"
    admin = KazooClient(hosts=zookeeper.connect_string)
    admin.start(timeout=30)
    admin.ensure_path(chroot)
    admin.stop()
    admin.close()
    p = ZkProcess(zookeeper.connect_string + chroot, tmp_path, "test", "table", 10.0)
    p.ensure("/hbase/rs", TABLE)
    p.fence_data = b"{}"
    p.create_fence("/hbase/rs/me", wait=False)
    yield p
    p.close()


def test_txn_zxid_and_all_or_nothing(proc: ZkProcess) -> None:
    row = row_znode("2-1.1.1.1,60020,123456780")
    zxid = proc.txn(lambda t: t.create(row, b'{"queue": {}}'))
    assert proc.get(row)[1].czxid == zxid
    assert proc.fence_version == 1
    later = proc.txn(lambda t: t.set_data(row, b'{"queue": {"g": "w:5"}}'))
    assert later > zxid and proc.fence_version == 2
    other = row_znode("2-1.1.1.2,60020,123456790")
    with pytest.raises(TxnFailed):  # the second op fails: the first does not apply either
        proc.txn(lambda t: (t.create(other, b"{}"), t.create(row, b"{}")))
    assert proc.get(other) is None and proc.fence_version == 2


def test_conditional_claim_moves_a_row_once(proc: ZkProcess) -> None:
    old = "2-1.1.1.1,60020,123456780"
    new = "2-1.1.1.2,60020,123456790/1.1.1.1,60020,123456780"
    proc.txn(lambda t: t.create(row_znode(old), b'{"queue": {"g": "w:7"}}'))
    raw, stat = proc.get(row_znode(old))

    def claim(t) -> None:
        t.check(row_znode(old), stat.version)
        t.delete(row_znode(old))
        t.create(row_znode(new), raw)

    proc.txn(claim)
    assert [row_key_of(n) for n in proc.children(TABLE)] == [new]
    with pytest.raises(TxnFailed):  # a second claimer with the same read loses
        proc.txn(claim)


def test_write_atomic_replaces_whole_content(tmp_path: Path) -> None:
    target = tmp_path / "relay.pos"
    write_atomic(target, "12")
    write_atomic(target, "3")
    assert target.read_text() == "3"
    assert [p.name for p in tmp_path.iterdir()] == ["relay.pos"]


def test_drop_torn_tail_keeps_complete_lines(tmp_path: Path) -> None:
    log = tmp_path / "applied.jsonl"
    log.write_bytes(b'{"uid": "0.1"}\n{"uid": "0.2"}\n{"uid"')
    assert drop_torn_tail(log) == len(b'{"uid"')
    assert log.read_bytes() == b'{"uid": "0.1"}\n{"uid": "0.2"}\n'
    assert drop_torn_tail(log) == 0
    assert drop_torn_tail(tmp_path / "absent.jsonl") == 0
