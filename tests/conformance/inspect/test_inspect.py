"""``replcheck inspect``: HBase 2.x values decoded from the bytes HBase's encoders write, each check
firing on a crafted tree and silent on seed 000's healthy ones, the drawings, and against a real
ZooKeeper: a live tree drawn, the same tree read offline from a snapshot and logs, and no write
from the inspecting session in the transaction log."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from replcheck.conformance.inspect.checks import VIOLATION, check
from replcheck.conformance.inspect.render import (
    dumps,
    render_distributed,
    render_tree,
    render_znodes,
)
from replcheck.conformance.inspect.view import (
    InspectError,
    Nodes,
    ZNode,
    build_view,
    decode_lock,
    decode_peer,
    decode_peer_state,
    decode_position,
    read_data_dir,
    read_live,
    read_snapshot_logs,
    strip_metadata,
)
from replcheck.conformance.zookeeper.server import Ensemble
from replcheck.conformance.zookeeper.snapshot import valid_snapshot_files
from replcheck.conformance.zookeeper.txnlog import OpCode, read_logs

from replcheck import cli

S1, S2, S3 = "1.1.1.1,60020,123456780", "1.1.1.2,60020,123456790", "1.1.1.3,60020,123456630"


# --- HBase 2.x's bytes, built as its encoders build them ------------------------------------------


def varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def metadata(data: bytes, ident: bytes = b"4242@rs1.example.org") -> bytes:
    """``RecoverableZooKeeper.appendMetaData``: 0xFF, the id length (id + 8-byte salt), the id,
    the salt, the data."""
    salt = (0x1122334455667788).to_bytes(8, "big")
    return b"\xff" + (len(ident) + 8).to_bytes(4, "big") + ident + salt + data


def pbuf(message: bytes) -> bytes:
    """``ProtobufUtil.prependPBMagic``."""
    return b"PBUF" + message


def position_bytes(pos: int) -> bytes:
    """``ZKUtil.positionToByteArray`` (``ReplicationHLogPosition``: int64 position = 1) as
    stored through RecoverableZooKeeper."""
    return metadata(pbuf(b"\x08" + varint(pos)))


def peer_state_bytes(state: int) -> bytes:
    """``ZKReplicationStorageBase.toByteArray(ReplicationState.State)``: enum state = 1."""
    return metadata(pbuf(b"\x08" + varint(state)))


def peer_bytes(cluster_key: str) -> bytes:
    """``ReplicationPeer``: string clusterkey = 1 (then the optional fields)."""
    key = cluster_key.encode()
    return metadata(pbuf(b"\x0a" + varint(len(key)) + key + b"\x40\x01"))


@pytest.mark.parametrize("pos", [0, 1, 127, 128, 300, 2**31 + 5, 2**40 + 17])
def test_positions_decode_from_hbase_bytes(pos: int) -> None:
    assert decode_position(position_bytes(pos)) == pos
    assert decode_position(pbuf(b"\x08" + varint(pos))) == pos  # no metadata prefix
    assert decode_position(str(pos).encode()) == pos  # the reference cluster's text


def test_peer_values_decode_from_hbase_bytes() -> None:
    assert decode_peer_state(peer_state_bytes(0)) == "ENABLED"
    assert decode_peer_state(peer_state_bytes(1)) == "DISABLED"
    assert decode_peer_state(b"DISABLED") == "DISABLED"
    assert decode_peer(peer_bytes("zk1,zk2:2181:/hbase")) == "zk1,zk2:2181:/hbase"
    assert decode_peer(b'{"cluster": 1, "sinks": []}') == "zk1:2181:/hbase-1"
    assert decode_lock(metadata(pbuf(b"\x0a" + varint(len(S3)) + S3.encode()))) == S3
    assert decode_lock(S3.encode()) == S3


def test_bad_values_are_errors_not_crashes() -> None:
    assert decode_position(b"") == 0
    assert strip_metadata(b"plain") == b"plain"
    for raw in (b"\xff\x00", b"\xff\x00\x00\x00\x40ab", metadata(pbuf(b"\x08\x80")), b"12x"):
        with pytest.raises(ValueError):
            decode_position(raw)
    with pytest.raises(ValueError):
        decode_peer_state(peer_state_bytes(7))


# --- crafted trees --------------------------------------------------------------------------------


def tree(
    values: dict[str, bytes], live: dict[str, int] | None = None, base: str = "/hbase"
) -> Nodes:
    """Nodes for ``values`` (path -> data), every ancestor added, ``live`` servers as
    ephemeral ``rs/<server>`` nodes."""
    data = dict(values)
    for server in live or {}:
        data[f"{base}/rs/{server}"] = b""
    data.setdefault(f"{base}/rs", b"")
    data.setdefault(f"{base}/replication/rs", b"")
    data.setdefault(f"{base}/replication/peers", b"")
    for path in list(data):
        parts = path.split("/")
        for i in range(2, len(parts)):
            data.setdefault("/".join(parts[:i]), b"")
    kids: dict[str, list[str]] = {p: [] for p in data}
    for path in data:
        parent, _, name = path.rpartition("/")
        if parent in kids:
            kids[parent].append(name)
    owners = {f"{base}/rs/{s}": sid for s, sid in (live or {}).items()}
    return {
        p: ZNode(d, tuple(sorted(kids[p])), 1, 1, 0, 0, owners.get(p, 0)) for p, d in data.items()
    }


RS = "/hbase/replication/rs"
PEER2 = {"/hbase/replication/peers/2": b"zk", "/hbase/replication/peers/2/peer-state": b"ENABLED"}


def seed000_second(encode=lambda p: str(p).encode()) -> dict[str, bytes]:
    """Seed 000's second drawing: 1.1.1.2 died, 1.1.1.3 holds its lock and has copied its
    queue, the originals not yet deleted."""
    return {
        **PEER2,
        f"{RS}/{S1}/2/1.1.1.1,60020.1234": encode(120),
        f"{RS}/{S1}/2/1.1.1.1,60020.1265": encode(0),
        f"{RS}/{S2}/lock": S3.encode(),
        f"{RS}/{S2}/2/1.1.1.2,60020.1214": encode(80),
        f"{RS}/{S2}/2/1.1.1.2,60020.1248": encode(0),
        f"{RS}/{S2}/2/1.1.1.2,60020.1312": encode(0),
        f"{RS}/{S3}/2/1.1.1.3,60020.1280": encode(33),
        f"{RS}/{S3}/2-{S2}/1.1.1.2,60020.1214": encode(80),
        f"{RS}/{S3}/2-{S2}/1.1.1.2,60020.1248": encode(0),
        f"{RS}/{S3}/2-{S2}/1.1.1.2,60020.1312": encode(0),
    }


def seed000_third() -> dict[str, bytes]:
    """Seed 000's third drawing: 1.1.1.3 died too; 1.1.1.1 holds its lock and copied both."""
    return {
        **PEER2,
        f"{RS}/{S1}/2/1.1.1.1,60020.1378": b"10",
        f"{RS}/{S1}/2-{S3}/1.1.1.3,60020.1325": b"5",
        f"{RS}/{S1}/2-{S3}/1.1.1.3,60020.1401": b"0",
        f"{RS}/{S1}/2-{S2}-{S3}/1.1.1.2,60020.1312": b"7",
        f"{RS}/{S3}/lock": S1.encode(),
        f"{RS}/{S3}/2/1.1.1.3,60020.1325": b"5",
        f"{RS}/{S3}/2/1.1.1.3,60020.1401": b"0",
        f"{RS}/{S3}/2-{S2}/1.1.1.2,60020.1312": b"7",
    }


def findings(values: dict[str, bytes], live: dict[str, int], layout: str = "auto"):
    return check(build_view(tree(values, live), "/hbase", layout))


def test_seed000_drawings_are_healthy() -> None:
    for values, live in ((seed000_second(), {S1: 1, S3: 3}), (seed000_third(), {S1: 1})):
        view = build_view(tree(values, live), "/hbase", "zk-lock")
        assert [f for f in check(view) if f.severity == VIOLATION] == []


def test_tree_is_drawn_as_seed_000() -> None:
    view = build_view(tree(seed000_second(), {S1: 1, S3: 3}), "/hbase", "zk-lock")
    text = render_tree(view)
    assert text.splitlines()[2:] == [
        "/hbase/replication/rs/",
        f"  {S1}/",
        "    2/",
        "      1.1.1.1,60020.1234  (position 120)",
        "      1.1.1.1,60020.1265  (position 0)",
        f"  {S2}/   [dead, locked by {S3}]",
        f"    lock  (held by {S3})",
        "    2/",
        "      1.1.1.2,60020.1214  (position 80)",
        "      1.1.1.2,60020.1248  (position 0)",
        "      1.1.1.2,60020.1312  (position 0)",
        f"  {S3}/",
        "    2/",
        "      1.1.1.3,60020.1280  (position 33)",
        f"    2-{S2}/",
        "      1.1.1.2,60020.1214  (position 80)",
        "      1.1.1.2,60020.1248  (position 0)",
        "      1.1.1.2,60020.1312  (position 0)",
    ]


def test_dump_replication_queues_formats() -> None:
    view = build_view(tree(seed000_third(), {S1: 1}), "/hbase", "zk-lock")
    znodes = render_znodes(view).splitlines()
    assert znodes[0] == "Dumping replication peers and configurations:"
    assert "Dumping replication znodes via ZooKeeper:" in znodes
    assert f"/hbase/replication/rs/{S3}/lock: {S1}" in znodes
    assert f"/hbase/replication/rs/{S1}/2-{S3}/1.1.1.3,60020.1325: 5" in znodes
    dist = render_distributed(view).splitlines()
    i = dist.index(f"Dumping replication queue info for RegionServer: [{S1}]")
    assert dist[i + 1 : i + 8] == [
        "    Queue znode: 2",
        "    PeerID: 2",
        "    Recovered: false",
        "    No dead RegionServers found in this queue.",
        "    Was deleted: false",
        "    Number of WALs in replication queue: 1",
        "    Replication position for 1.1.1.1,60020.1378: 10",
    ]
    assert f"    Dead RegionServers: [{S2}, {S3}]" in dist
    assert (
        "    Replication position for 1.1.1.3,60020.1401: 0 (not started or nothing to replicate)"
        in dist
    )
    assert (
        "Found 1 dead regionservers, restart one regionserver to transfer the queues of dead "
        "regionservers" in dist
    )
    assert "    PeerId: 2 , sizeOfLogQueue: 7" in dist
    as_json = json.loads(dumps(view, check(view)))
    assert as_json["layout"] == "zk-lock" and as_json["findings"] == []
    assert as_json["replicators"][1]["recovery"] == f"locked by {S1}"
    assert [q["dead"] for q in as_json["replicators"][0]["queues"]] == [[], [S2, S3], [S3]]


def names(found) -> set[tuple[str, str]]:
    return {(f.check, f.severity) for f in found}


def test_queue_of_a_server_neither_live_nor_recovered() -> None:
    """zk-multi: a dead server's queue after its SCP finished, or of a server never registered."""
    values = {
        **PEER2,
        f"{RS}/{S2}/2/1.1.1.2,60020.1214": b"80",
        "/replcheck/servers/" + S1: b"",
        "/replcheck/servers/" + S2: b"",
        "/replcheck/scp/" + S2: b'{"stage": "done"}',
    }
    assert ("dead_server_queues", VIOLATION) in names(findings(values, {S1: 1}, "zk-multi"))
    # still being recovered: the SCP at its claim stage, or a claim in flight
    claim = {**values, "/replcheck/scp/" + S2: b'{"stage": "claim"}'}
    assert names(findings(claim, {S1: 1}, "zk-multi")) == set()
    sent = {
        **values,
        f"/replcheck/claims/{S1}/claim-0001": b'{"dead": "%s", "queue": "2"}' % S2.encode(),
    }
    assert names(findings(sent, {S1: 1}, "zk-multi")) == set()
    due = {k: v for k, v in values.items() if not k.startswith("/replcheck/scp")}
    assert names(findings(due, {S1: 1}, "zk-multi")) == set()
    never = {k: v for k, v in due.items() if k != "/replcheck/servers/" + S2}
    assert ("dead_server_queues", VIOLATION) in names(findings(never, {S1: 1}, "zk-multi"))
    # HBase 2.x: the SCP is not in ZooKeeper; zk-lock: the survivors will claim
    assert names(findings(due, {S1: 1}, "hbase")) == {("dead_server_queues", "warning")}
    assert names(findings(values, {S1: 1}, "zk-lock")) == set()
    assert names(findings(values, {}, "zk-lock")) == {("dead_server_queues", "warning")}


def test_claimed_queue_named_after_a_live_server() -> None:
    values = {**PEER2, f"{RS}/{S1}/2-{S2}/1.1.1.2,60020.1214": b"5"}
    assert names(findings(values, {S1: 1, S2: 2})) == {("claimed_from_live_server", VIOLATION)}
    assert names(findings(values, {S1: 1})) == set()
    own = {**PEER2, f"{RS}/{S1}/2-{S1}/1.1.1.1,60020.1214": b"5"}
    assert ("claimed_from_live_server", VIOLATION) in names(findings(own, {S1: 1}))
    twice = {**PEER2, f"{RS}/{S1}/2-{S2}-{S2}/1.1.1.2,60020.1214": b"5"}
    assert ("claimed_from_live_server", VIOLATION) in names(findings(twice, {S1: 1}))


def test_queue_of_a_peer_that_does_not_exist() -> None:
    values = {**PEER2, f"{RS}/{S1}/3/1.1.1.1,60020.1214": b"5"}
    assert names(findings(values, {S1: 1})) == {("queue_of_unknown_peer", "warning")}


def test_wal_queued_twice_for_a_peer() -> None:
    values = {
        **PEER2,
        f"{RS}/{S1}/2-{S2}/1.1.1.2,60020.1214": b"5",
        f"{RS}/{S3}/2-{S2}/1.1.1.2,60020.1214": b"5",
    }
    assert names(findings(values, {S1: 1, S3: 3})) == {("wal_in_two_queues", VIOLATION)}
    # the original under the dead server being copied does not count (seed 000)
    assert names(findings(seed000_second(), {S1: 1, S3: 3}, "zk-lock")) == set()


def test_lock_on_a_live_server() -> None:
    values = {**PEER2, f"{RS}/{S2}/lock": S3.encode(), f"{RS}/{S2}/2/1.1.1.2,60020.1": b"0"}
    assert names(findings(values, {S2: 2, S3: 3})) == {("lock_on_live_server", VIOLATION)}


def test_wal_of_another_server() -> None:
    values = {**PEER2, f"{RS}/{S1}/2/1.1.1.2,60020.1214": b"5"}
    assert names(findings(values, {S1: 1})) == {("wal_of_other_server", VIOLATION)}
    # HBase 2.x names: the URL-encoded server name (with its start code), then the timestamp
    ok = {**PEER2, f"{RS}/{S1}/2/1.1.1.1%2C60020%2C123456780.1700000000000": b"5"}
    assert names(findings(ok, {S1: 1})) == set()
    old = {**PEER2, f"{RS}/{S1}/2/1.1.1.1%2C60020%2C999.1700000000000": b"5"}
    assert names(findings(old, {S1: 1})) == {("wal_of_other_server", VIOLATION)}


def test_undecodable_values_and_leftover_bump_node() -> None:
    bad = {**PEER2, f"{RS}/{S1}/2/1.1.1.1,60020.1": b"\xff\x00"}
    assert names(findings(bad, {S1: 1})) == {("undecodable_value", VIOLATION)}
    stateless = {"/hbase/replication/peers/2": b"zk", f"{RS}/{S1}/2/1.1.1.1,60020.1": b"1"}
    assert names(findings(stateless, {S1: 1})) == {("undecodable_value", VIOLATION)}
    bump = {**PEER2, f"{RS}/cversion_2-{S2}": b""}
    assert names(findings(bump, {S1: 1})) == {("cversion_leftover", VIOLATION)}


def test_layout_is_detected() -> None:
    assert build_view(tree(seed000_second(), {S1: 1})).layout == "hbase"
    ref = {**seed000_second(), "/replcheck/servers/" + S1: b""}
    assert build_view(tree(ref, {S1: 1})).layout == "zk-lock"


def test_bad_input_is_one_line(tmp_path: Path, capsys) -> None:
    assert cli.main(["inspect", "--snapshot", str(tmp_path / "nope")]) == 2
    assert cli.main(["inspect", "--data-dir", str(tmp_path / "nope")]) == 2
    not_snap = tmp_path / "snapshot.1"
    not_snap.write_bytes(b"garbage")
    assert cli.main(["inspect", "--snapshot", str(not_snap)]) == 2
    assert cli.main(["inspect", "--zk", ""]) == 2
    assert cli.main(["inspect", "--data-dir", str(tmp_path), "--logs", str(tmp_path)]) == 2
    assert cli.main(["inspect", "--data-dir", str(tmp_path), "--chroot", "/"]) == 2
    assert cli.main(["inspect", "--zk", "127.0.0.1:1"]) == 2  # nothing listens there
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 7 and all(line.startswith("replcheck: error: ") for line in err)
    assert "Traceback" not in "".join(err)


# --- a real ZooKeeper -----------------------------------------------------------------------------


def build(hosts: str, base: str, values: dict[str, bytes], live: list[str]) -> list[KazooClient]:
    """Write ``values`` with one client, and each live server's ephemeral ``rs/<server>`` with a
    session of its own (returned: close them to kill the servers)."""
    zk = KazooClient(hosts=hosts, timeout=10)
    zk.start(timeout=30)
    try:
        zk.ensure_path(f"{base}/rs")
        zk.ensure_path(f"{base}/replication/rs")
        zk.ensure_path(f"{base}/replication/peers")
        for path, data in sorted(values.items()):
            zk.ensure_path(path.rpartition("/")[0])
            zk.create(path, data)
    finally:
        zk.stop()
        zk.close()
    servers = []
    for s in live:
        c = KazooClient(hosts=hosts, timeout=10)
        c.start(timeout=30)
        c.create(f"{base}/rs/{s}", b"", ephemeral=True)
        servers.append(c)
    return servers


def rebase(values: dict[str, bytes], base: str) -> dict[str, bytes]:
    return {base + k.removeprefix("/hbase"): v for k, v in values.items()}


def hbase_values() -> dict[str, bytes]:
    """Seed 000's second drawing as HBase 2.x stores it (peer 2 disabled)."""
    v = seed000_second(position_bytes)
    v["/hbase/replication/peers/2"] = peer_bytes("zk1,zk2,zk3:2181:/hbase")
    v["/hbase/replication/peers/2/peer-state"] = peer_state_bytes(1)
    v[f"{RS}/{S2}/lock"] = metadata(S3.encode())
    return v


def last_zxid(ensemble: Ensemble) -> int:
    return max((t.zxid for d in ensemble.txn_log_dirs() for t in read_logs(d)), default=0)


@pytest.mark.zookeeper
def test_live_tree_drawn_and_nothing_written(zookeeper: Ensemble, capsys) -> None:
    base = f"/inspect-{uuid.uuid4().hex[:8]}/hbase"
    servers = build(zookeeper.connect_string, base, rebase(hbase_values(), base), [S1, S3])
    try:
        before = last_zxid(zookeeper)
        code = cli.main(["inspect", "--zk", zookeeper.connect_string, "--chroot", base,
                         "--format", "all"])  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        assert f"  {S2}/   [dead, locked by {S3}]" in out
        assert "      1.1.1.1,60020.1234  (position 120)" in out
        assert "  2  (zk1,zk2,zk3:2181:/hbase, DISABLED)" in out
        assert f"{base}/replication/rs/{S3}/2-{S2}/1.1.1.2,60020.1214: 80" in out
        assert "Found 1 dead regionservers" in out
        assert "layout zk-lock" not in err and "layout hbase" in err
        # The inspecting session wrote nothing: after it, the log holds its session's open and
        # close and nothing else.
        after = [t for d in zookeeper.txn_log_dirs() for t in read_logs(d) if t.zxid > before]
        assert after and {t.type for t in after} <= {OpCode.createSession, OpCode.closeSession}
        assert len({t.session for t in after}) == 1
        # Through the API, with the session named: none of its transactions is a write.
        zk = KazooClient(hosts=zookeeper.connect_string, timeout=10)
        zk.start(timeout=30)
        try:
            nodes, consistent = read_live(zk, base)
            session = zk.client_id[0]
        finally:
            zk.stop()
            zk.close()
        assert consistent and build_view(nodes, base).replicators
        mine = [t for d in zookeeper.txn_log_dirs() for t in read_logs(d) if t.session == session]
        assert {t.type for t in mine} <= {OpCode.createSession, OpCode.closeSession}
        assert mine
    finally:
        for c in servers:
            c.stop()
            c.close()


@pytest.mark.zookeeper
def test_offline_from_snapshot_and_logs_equals_live(tmp_path: Path) -> None:
    """A reference-cluster tree (zk-multi: a dead server's SCP done with a queue left) on a
    ZooKeeper that snapshots every few transactions: the data directory, and the newest
    snapshot with the logs, read as the live server does."""
    base = "/run-1/hbase"
    values = rebase(
        {
            **PEER2,
            "/hbase/replication/peers/2": b'{"cluster": 1, "sinks": []}',
            f"{RS}/{S1}/2/1.1.1.1,60020.1234": b"120",
            f"{RS}/{S2}/2/1.1.1.2,60020.1214": b"80",
            f"{RS}/{S3}/2/1.1.1.3,60020.1280": b"0",
        },
        base,
    )
    values.update(
        {f"/run-1/replcheck/servers/{s}": b"" for s in (S1, S2, S3)}
        | {f"/run-1/replcheck/scp/{S2}": b'{"stage": "done"}'}
    )
    zk = Ensemble(tmp_path, servers=1, system_properties={"zookeeper.snapCount": "10"})
    zk.start(timeout=90)
    try:
        hosts = zk.connect_string
        servers = build(hosts, base, values, [S1, S3])
        try:
            client = KazooClient(hosts=hosts, timeout=10)
            client.start(timeout=30)
            try:
                for i in range(12):  # positions move on after the snapshot
                    client.set(
                        f"{base}/replication/rs/{S1}/2/1.1.1.1,60020.1234", b"%d" % (200 + i)
                    )
                live_nodes, consistent = read_live(client, base)
            finally:
                client.stop()
                client.close()
            assert consistent
            live = build_view(live_nodes, base)
            assert live.layout == "reference"
            server_dir = zk.server_dir(1)
            # the newest snapshot may still be being written: it is passed over, as ZooKeeper
            # passes it over when it loads the directory
            snaps = valid_snapshot_files(server_dir)
            assert len(snaps) >= 2, snaps
            offline, _zxid = read_data_dir(server_dir, base)
            from_snap, _ = read_snapshot_logs(snaps[-1], zk.txn_log_dirs()[0], base)
            for nodes in (offline, from_snap):
                view = build_view(nodes, base)
                assert render_tree(view) == render_tree(live)
                assert check(view) == check(live)
            assert "(position 211)" in render_tree(live)
            only = tmp_path / "snapshot-only"  # a copy with the snapshot and no logs
            only.mkdir()
            shutil.copy(snaps[-1], only / snaps[-1].name)
            assert read_data_dir(only, base)[0] == read_snapshot_logs(snaps[-1], None, base)[0]
            # a snapshot cut short (being written, or a crash while writing) is passed over for
            # the one before it, and the logs bring the tree to the same end
            cut = tmp_path / "cut-short"
            shutil.copytree(snaps[-1].parent, cut)
            before = read_data_dir(cut, base)
            whole = snaps[-1].read_bytes()
            (cut / f"snapshot.{before[1] + 1:x}").write_bytes(whole[: len(whole) // 2])
            assert read_data_dir(cut, base) == before
            alone = tmp_path / "cut-short-alone"
            alone.mkdir()
            (alone / snaps[-1].name).write_bytes(whole[: len(whole) // 2])
            with pytest.raises(InspectError, match=r"snapshot\.[0-9a-f]+: no snapshot .* whole"):
                read_data_dir(alone, base)
            found = check(build_view(offline, base, "zk-multi"))
            assert [(f.check, f.severity) for f in found] == [("dead_server_queues", VIOLATION)]
            assert cli.main(["inspect", "--data-dir", str(server_dir), "--chroot", base,
                             "--layout", "zk-multi"]) == 1  # fmt: skip
        finally:
            for c in servers:
                c.stop()
                c.close()
    finally:
        zk.stop()


@pytest.mark.zookeeper
@pytest.mark.parametrize("design", ["zk-multi", "zk-lock"])
def test_live_reference_cluster_inspected_during_a_run(
    design: str, zookeeper: Ensemble, tmp_path: Path
) -> None:
    """A recorded run of the reference cluster, inspected while it runs (once it is up, after a
    region server is killed, and while it drains), through its connect string as an operator
    would: its queues are drawn and no check finds a violation."""
    from replcheck.conformance.cluster.run import RunSpec, record_run

    seen: list[tuple[str, str, list]] = []

    def on_progress(msg: str) -> None:
        if msg.startswith("cluster up"):
            seen.append(("hosts", msg.rsplit("zk ", 1)[1], []))
        if seen and (msg.startswith(("cluster up", "fault: kill", "draining"))):
            client = KazooClient(hosts=seen[0][1], timeout=10)
            client.start(timeout=30)
            try:
                nodes, _consistent = read_live(client, "/hbase")
            finally:
                client.stop()
                client.close()
            view = build_view(nodes, "/hbase")
            seen.append((msg, render_tree(view), check(view)))

    spec = RunSpec(
        design=design, seed=21, faults=("kill",), servers=2, edits=16, rate=12.0, foreign=6,
        drain_timeout=60.0, session_timeout=10.0,
    )  # fmt: skip
    result = record_run(spec, tmp_path / "run", ensemble=zookeeper, progress=on_progress)
    assert result.summary()["ok"]
    views = seen[1:]
    assert len(views) >= 2, [m for m, _, _ in seen]
    for msg, text, found in views:
        assert [f for f in found if f.severity == VIOLATION] == [], (msg, text, found)
    assert any("    2/" in text for _, text, _ in views), views
    # The run's copied transaction logs, read offline under the run's chroot, draw its end state.
    chroot = seen[0][1].split("/", 1)[1]
    logs = next((tmp_path / "run" / "zk-txnlog").iterdir())
    nodes, zxid = read_data_dir(logs, f"/{chroot}/hbase")
    view = build_view(nodes, f"/{chroot}/hbase")
    assert zxid and view.layout in ("reference", design) and view.replicators
    assert [f for f in check(view) if f.severity == VIOLATION] == []
