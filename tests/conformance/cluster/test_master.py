"""The reference cluster's master, driven step by step against a real ZooKeeper."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from replcheck.conformance.cluster.common import (
    ADMIN,
    BARRIER,
    ENABLED,
    LIVE,
    PEERS,
    SERVERS,
    old_wal_dir,
)
from replcheck.conformance.cluster.master import Master
from replcheck.conformance.hbase.names import Steps, peer_id, server_name


@pytest.fixture
def master(zk_root: str, tmp_path: Path) -> Iterator[Master]:
    """A ``table`` master on a ZooKeeper subtree of its own, its loop not started."""
    args = argparse.Namespace(
        run_dir=str(tmp_path),
        zk=zk_root,
        design="table",
        seed=0,
        session_timeout=10.0,
        cleaner_interval=1.0,
        wal_ttl=0.0,
    )
    m = Master(args)
    try:
        yield m
    finally:
        m.close()


def old_wal(m: Master, server: int) -> Path:
    """A WAL of ``server`` in oldWALs, old enough for the cleaner to look at."""
    path = old_wal_dir(m.run_dir) / Steps("table").wal_name(server, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    past = time.time() - 60
    os.utime(path, (past, past))
    return path


@pytest.mark.zookeeper
def test_cleaner_keeps_the_wals_of_a_dead_server_whose_scp_is_not_created_yet(
    master: Master,
) -> None:
    """Seed 7991: a server died before it had a queue row for peer 2, and the cleaner ran after
    its session expired but before the master created its SCP. HBase expires a server and
    schedules its SCP in one step, so the server counts as SCP-unfinished, and a missing queue
    of an SCP-unfinished server keeps its WALs."""
    alive, dead = server_name(0), server_name(1)
    for s in (alive, dead):
        master.ensure(f"{SERVERS}/{s}")
    master.ensure(f"{LIVE}/{alive}", f"{PEERS}/{peer_id(0)}")
    wal = old_wal(master, 1)
    assert master.live_or_scp_unfinished() == {alive, dead}
    master.cleaner()
    assert wal.exists()
    # once the SCP has finished (nothing to claim: the server had no rows), the WAL may go
    master.set_scp(dead, {"stage": "done"})
    assert master.live_or_scp_unfinished() == {alive}
    master.cleaner()
    assert not wal.exists()


@pytest.mark.zookeeper
def test_a_peer_command_that_does_not_apply_is_refused_and_writes_nothing(
    master: Master,
) -> None:
    """HBase's ``ReplicationPeerManager`` checks a command against the peers before it writes:
    a request the driver sent twice (its create retried through a leader election) must not
    enable an enabled peer again, nor add a peer twice."""
    master.ensure(ADMIN)
    pz = f"{PEERS}/{peer_id(0)}"

    def send(n: int, op: str) -> None:
        data = {"op": op, "peer": 0, "sinks": ["127.0.0.1:1"]}
        master.zk.create(f"{ADMIN}/req-{n:010d}", json.dumps(data).encode())

    send(1, "enable_peer")
    master.admin()  # no such peer
    assert master.children(ADMIN) == [] and master.zk.exists(pz) is None
    master.zk.create(pz, master.steps.peer_value(1, ["127.0.0.1:1"], master.ident), makepath=True)
    master.zk.create(f"{pz}/peer-state", master.steps.peer_state_value(ENABLED, master.ident))
    for n, op in enumerate(("add_peer", "enable_peer", "disable_peer", "disable_peer"), 2):
        send(n, op)
    versions = []
    for _ in range(4):  # one command a pass
        master.admin()
        versions.append(master.zk.exists(f"{pz}/peer-state").version)
    # the add (the peer exists) and the enable (enabled) are refused; the first disable writes,
    # the second is refused
    assert versions == [0, 0, 1, 1]
    assert master.children(ADMIN) == []


@pytest.mark.zookeeper
def test_a_new_master_starts_the_cleaner_barrier_as_hbases_after_replay(
    master: Master,
) -> None:
    """HBase's ReplicationLogCleanerBarrier lives in the master's memory: a master that starts
    after one died while its cleaner ran finds it NOT_RUNNING, and disabled once for each
    AddPeerProcedure replayed past PRE. The reference cluster keeps it in a znode, so a new
    master writes it so; before, a RUNNING left by the dead master's cleaner held every later
    AddPeerProcedure at PRE."""
    master.txn(lambda t: t.set_data(BARRIER, json.dumps({"state": "RUNNING", "n": 0}).encode()))
    master.replay_barrier()
    assert master.barrier()[0] == {"state": "NOT_RUNNING", "n": 0, "replayed": True}
    master.ensure(ADMIN)
    for n, stage in enumerate(("pre", "storage", "wait")):
        data = {"op": "add_peer", "peer": n, "sinks": [], "stage": stage}
        master.zk.create(f"{ADMIN}/req-{n:010d}", json.dumps(data).encode())
    master.zk.create(f"{ADMIN}/req-{9:010d}", json.dumps({"op": "add_peer", "peer": 5}).encode())
    master.replay_barrier()
    assert master.barrier()[0] == {"state": "DISABLED", "n": 2, "replayed": True}
