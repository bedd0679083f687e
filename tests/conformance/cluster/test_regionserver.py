"""The reference cluster's region server, started in this process against a real ZooKeeper."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from replcheck.conformance.cluster import wire
from replcheck.conformance.cluster.regionserver import RegionServer

EDIT = {
    "uid": "1.0",
    "ids": [1],
    "table": "t1",
    "family": "g",
    "row": "r0",
    "op": "put",
    "kind": 0,
}
"""An edit another cluster (cluster 1) relays home."""


class Probe(RegionServer):
    """A region server that, as soon as its live znode is there (where another cluster finds
    its sink), has a batch relayed to it, as the other cluster may."""

    early: dict[str, Any]

    def create_fence(self, path: str, wait: bool) -> None:
        super().create_fence(path, wait)
        self.early = wire.send(json.loads(self.fence_data)["sink"], relay())


def relay() -> dict[str, Any]:
    return {"op": "relay", "edits": [EDIT], "source": "sink-1"}


@pytest.mark.zookeeper
@pytest.mark.parametrize("design", ["zk-lock", "zk-multi", "table"])
def test_a_relayed_batch_is_refused_until_the_server_has_joined(
    zk_root: str, tmp_path: Path, design: str
) -> None:
    """HBase starts the replication sink (``startReplicationService``) after
    ``setupWALAndReplication``: a soak's zk-lock run had a server write a relayed edit before
    its queue znode existed, which the model (rightly) rejected."""
    args = argparse.Namespace(
        run_dir=str(tmp_path),
        zk=zk_root,
        design=design,
        index=0,
        edits=0,
        workload=None,
        rate=20.0,
        roll_every=10,
        batch=5,
        seed=0,
        session_timeout=10.0,
    )
    rs = Probe(args)
    try:
        assert rs.early == {"ok": False, "error": "the replication sink has not started"}
        events = [json.loads(line) for line in rs.trace.path.read_text().splitlines()]
        assert [e["name"] for e in events if e["name"] in ("join", "sink_apply")] == ["join"]
        assert wire.send(json.loads(rs.fence_data)["sink"], relay()) == {"ok": True}
        events = [json.loads(line) for line in rs.trace.path.read_text().splitlines()]
        assert [e["name"] for e in events if e["name"] in ("join", "sink_apply")] == [
            "join",
            "sink_apply",
        ]
    finally:
        rs.close()
