"""Validating a run from its ZooKeeper transaction logs alone (``conformance.txntrace``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from replcheck.conformance.cluster.common import LIVE, MASTER, PEERS, QUEUES
from replcheck.conformance.fromlog import procs as txnprocs
from replcheck.conformance.fromlog import zk as txntrace
from replcheck.conformance.fromlog.zk import HFILE_REFS, REGIONS
from replcheck.conformance.hbase.names import Steps, server_name
from replcheck.conformance.hbase.values import encode_peer_state, encode_position, hbase_value
from replcheck.conformance.validate.core import (
    Validator,
    validate_events,
    validate_log,
    validate_path,
)
from replcheck.conformance.zookeeper.server import Ensemble
from replcheck.model import get_design
from replcheck.model.table.state import NOT_RUNNING

DATA = Path(__file__).resolve().parents[3] / "test_data" / "validate"

ACCEPTED_FROM_BOTH = [
    ("table-claim-reads-across-leader-election", "table"),
    ("table-died-between-claim-reads-and-write", "table"),
    ("table-joined-between-claim-reads-and-write", "table"),
    ("table-lost-advance", "table"),
    ("table-lost-join", "table"),
    ("table-removed-peer-source", "table"),
    ("zk-lock-lost-finish-claim", "zk-lock"),
    ("zk-lock-lock-cleaner", "zk-lock"),
    ("zk-lock-lost-persist", "zk-lock"),
    ("zk-multi-lost-peer-sync", "zk-multi"),
    ("zk-multi-lost-ship-to-one-peer", "zk-multi"),
    ("zk-multi-paused-line-seen-by-a-read", "zk-multi"),
    ("zk-multi-uncommitted-txn", "zk-multi"),
]


@pytest.mark.parametrize(("run", "design"), ACCEPTED_FROM_BOTH)
def test_a_run_accepted_from_its_trace_is_accepted_from_its_logs(run: str, design: str) -> None:
    assert validate_path(DATA / run).status == "accepted"
    v = validate_log(DATA / run, design)
    assert v.status == "accepted", v.headline()
    assert v.detail["zk_logs"]["events"] == v.events


def test_the_mutants_lost_position_is_found_from_the_logs_alone() -> None:
    """The recorded run of ``zk-multi/recovered-restarts-at-zero``: its trace breaks
    ``positions_monotone``; so does its log, read as that mutant; read as the correct design,
    the log cannot be followed at the same step (a recovered source writes a position behind
    the one it claimed)."""
    run = DATA / "zk-multi-mutant-all-servers-down"
    assert validate_path(run).reason == "positions_monotone"
    mutant = validate_log(run, "zk-multi/recovered-restarts-at-zero")
    assert (mutant.status, mutant.reason) == ("rejected", "positions_monotone")
    base = validate_log(run, "zk-multi")
    assert (base.status, base.reason, base.event) == ("rejected", "divergence", mutant.event)


@pytest.mark.parametrize(
    ("run", "design"), [("zk-multi-lost-peer-sync", "zk-multi"), ("table-lost-join", "table")]
)
def test_the_storage_check_rejects_queues_the_model_does_not_hold(run: str, design: str) -> None:
    """Every storage event's queues (the table era: its rows) are held against the model's: a
    log whose storage says another position than the step reached is rejected there, with what
    differs."""
    steps = Steps.for_model(get_design(design))
    log = txntrace.log_trace(DATA / run, design, steps)
    n = next(i for i, e in enumerate(log.events) if e["name"] == "persist")
    storage = dict(log.storage)
    peers, queues, *procedures = storage[n]
    storage[n] = (peers, _one_entry_further(queues, design), *procedures)
    v = validate_events(log.events, design, storage=storage)
    assert (v.status, v.reason, v.event) == ("rejected", "divergence", n)
    assert any("the log has, the model not" in line for line in v.detail["storage_misfit"])
    assert validate_events(log.events, design, storage=log.storage).status == "accepted"


def _log_of(run: str) -> tuple[list[dict], dict[int, tuple]]:
    steps = Steps.for_model(get_design("table"))
    log = txntrace.log_trace(DATA / run, "table", steps)
    return log.events, dict(log.storage)


@pytest.mark.parametrize("part", ["scp", "peer procedure", "barrier"])
def test_the_storage_check_holds_the_masters_procedures_too(part: str) -> None:
    """The table era's master procedures (an SCP's stage and the claims it sent, a peer
    procedure's stage, the cleaner barrier) are storage too: a log whose procedures differ from
    the model's after a step is rejected at that step, and the misfit names them."""
    events, storage = _log_of("table-lost-join")
    name = {"scp": "scp_split", "peer procedure": "add_peer", "barrier": "cleaner_start"}[part]
    n = next(i for i, e in enumerate(events) if e["name"] == name)
    peers, rows, (scps, procs, barrier) = storage[n]
    if part == "scp":
        scps = tuple((s, stage + 1, *rest) for s, stage, *rest in scps)
    elif part == "peer procedure":
        procs = tuple((p, kind, "storage") for p, kind, _phase in procs)
    else:
        barrier = (NOT_RUNNING, 0)
    storage[n] = (peers, rows, (scps, procs, barrier))
    v = validate_events(events, "table", storage=storage)
    assert (v.status, v.reason, v.event) == ("rejected", "divergence", n)
    word = {"scp": "SCP of server", "peer procedure": "AddPeerProcedure", "barrier": "barrier"}
    assert any(word[part] in line for line in v.detail["storage_misfit"])


def test_a_claim_round_taken_at_its_reads_may_come_before_writes_it_follows() -> None:
    """A CLAIM round is decided by reads and written after them (``mapping.at_reads``): between
    its reads and its write the log shows the SCP before the round, while a model that took the
    round at its reads has it after. Those storage events accept either (``txnprocs.Either``);
    held to the log as written, the run is rejected."""
    events, storage = _log_of("table-died-between-claim-reads-and-write")
    widened = [n for n, s in storage.items() if isinstance(s[2], txnprocs.Either)]
    assert widened
    assert validate_events(events, "table", storage=storage).status == "accepted"
    strict = {n: (*s[:2], s[2][0]) if n in widened else s for n, s in storage.items()}
    v = validate_events(events, "table", storage=strict)
    assert (v.status, v.reason) == ("rejected", "divergence")


def _one_entry_further(storage: tuple, design: str) -> tuple:
    """``storage`` with its first position one entry further."""
    if design == "table":
        for i, (peer, owner, source, offsets) in enumerate(storage):
            if offsets and offsets[0][2] > 0:
                g, seq, pos = offsets[0]
                row = (peer, owner, source, ((g, seq, pos + 1), *offsets[1:]))
                return (*storage[:i], row, *storage[i + 1 :])
        raise AssertionError("no row with a position")
    s, lock, queues = storage[0]
    peer, chain, wals = queues[0]
    wals = ((wals[0][0], wals[0][1] + 1), *wals[1:])
    return ((s, lock, ((peer, chain, wals), *queues[1:])), *storage[1:])


def test_a_directory_without_logs_is_bad_input(tmp_path: Path) -> None:
    v = validate_log(tmp_path)
    assert v.status == "bad-input"
    assert str(tmp_path) in v.reason and "log." in v.reason
    assert validate_log(tmp_path / "missing").status == "bad-input"


# --- HBase 2.x's layout written to a real ZooKeeper --------------------------------------------

RS0, RS1 = server_name(0), server_name(1)
REGION = "dd04e76a6966d4ffa908ed0586764767"
STEPS = Steps.for_model(get_design("zk-multi"))
WAL0, WAL1 = STEPS.wal_name(0, 0), STEPS.wal_name(1, 0)


def _value(data: bytes) -> bytes:
    return hbase_value(data, "test:1")


def _history(c: KazooClient, rs: list[KazooClient], bad: str) -> None:
    """Two region servers replicating to peer 2; server 1 dies and server 0 claims its queue.
    ``bad`` names a step done wrong."""
    c.create(MASTER, b"", ephemeral=True, makepath=True)
    for path in (QUEUES, PEERS):
        c.ensure_path(path)
    t = c.transaction()
    t.create(f"{PEERS}/2", _value(b"PBUF\n\x05peer2"))
    t.create(f"{PEERS}/2/peer-state", _value(encode_peer_state("ENABLED")))
    t.commit()
    c.ensure_path(f"{HFILE_REFS}/2")  # addPeerToHFileRefs: no model step needed
    for client, name, wal in ((rs[0], RS0, WAL0), (rs[1], RS1, WAL1)):
        client.create(f"{LIVE}/{name}", b"", ephemeral=True, makepath=True)
        client.create(f"{QUEUES}/{name}")
        t = client.transaction()
        t.create(f"{QUEUES}/{name}/2")
        t.create(f"{QUEUES}/{name}/2/{wal}")
        t.commit()
    positions = [120, 240] if bad != "backwards" else [240, 120]
    for p in positions:
        rs[1].set(f"{QUEUES}/{RS1}/2/{WAL1}", _value(encode_position(p)))
    t = rs[0].transaction()
    t.set_data(f"{QUEUES}/{RS0}/2/{WAL0}", _value(encode_position(90)))
    if bad == "serial":  # setWALPosition with a region's last pushed sequence id
        rs[0].ensure_path(f"{REGIONS}/dd/04")
        t.create(f"{REGIONS}/dd/04/{REGION[4:]}-2", _value(encode_position(7)))
    assert not any(isinstance(r, Exception) for r in t.commit())
    rs[1].stop()  # its session ends: the server's death
    rs[1].close()
    claimed = f"2-{RS1}"
    copied = positions[-1] if bad != "copy" else 120
    t = rs[0].transaction()
    t.create(f"{QUEUES}/{RS0}/{claimed}")
    t.create(f"{QUEUES}/{RS0}/{claimed}/{WAL1}", _value(encode_position(copied)))
    t.delete(f"{QUEUES}/{RS1}/2/{WAL1}")
    t.delete(f"{QUEUES}/{RS1}/2")
    t.create(f"{QUEUES}/cversion_{claimed}")
    t.delete(f"{QUEUES}/cversion_{claimed}")
    assert not any(isinstance(r, Exception) for r in t.commit())
    rs[0].set(f"{QUEUES}/{RS0}/{claimed}/{WAL1}", _value(encode_position(360)))


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    made: dict[str, Path] = {}

    def run(bad: str) -> Path:
        if bad not in made:
            zk = Ensemble(tmp_path_factory.mktemp(f"zk-{bad or 'good'}"), servers=1)
            zk.start(timeout=90)
            clients = [KazooClient(hosts=zk.connect_string, timeout=10.0) for _ in range(3)]
            try:
                for client in clients:
                    client.start(timeout=30)
                _history(clients[0], clients[1:], bad)
            finally:
                for client in clients:
                    client.stop()
                    client.close()
                zk.stop()
            made[bad] = zk.server_dir(1)
        return made[bad]

    return run


@pytest.mark.zookeeper
def test_a_data_directory_of_hbase_layout_is_accepted(histories: Callable[[str], Path]) -> None:
    v = validate_log(histories(""))
    assert v.status == "accepted", v.headline()
    names = [e["name"] for e in txntrace.log_trace(histories(""), "zk-multi", STEPS).events]
    assert names.count("claim_commit") == 1 and names.count("crash") >= 1


@pytest.mark.zookeeper
@pytest.mark.parametrize("bad", ["backwards", "copy"])
def test_a_data_directory_with_a_wrong_step_is_rejected(
    histories: Callable[[str], Path], bad: str
) -> None:
    """A position written backwards; a claim that copies another position than the dead
    server's last (only the storage check sees it: the model's claim copies what it read)."""
    v = validate_log(histories(bad))
    assert v.status == "rejected", v.headline()
    if bad == "copy":
        assert any("claimed from (1,)" in line for line in v.detail["storage_misfit"])


@pytest.mark.zookeeper
def test_validate_zk_logs_on_the_command_line(histories: Callable[[str], Path]) -> None:
    def cli(path: Path) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "replcheck", "validate", "--zk-logs", str(path)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    good, bad = cli(histories("")), cli(histories("copy"))
    assert good.returncode == 0, good.stdout + good.stderr
    assert bad.returncode == 1 and "rejected" in bad.stdout
    assert "the log has, the model not" in bad.stdout


@pytest.mark.zookeeper
def test_a_serial_peers_sequence_id_is_named_not_accepted(histories: Callable[[str], Path]) -> None:
    """Serial replication's last pushed sequence id, written with a position: the model has no
    serial peers, so the run is undecided, the write named."""
    v = validate_log(histories("serial"))
    assert v.status == "undecided", v.headline()
    (why,) = [u["why"] for u in v.unmodelled]
    assert f"sequence id 7 of region {REGION} for peer 2" in why


# --- an HBase 2.x cluster's own names and transactions -----------------------------------------

A, B = "rs-a.example.com,16020,1700000000001", "rs-b.example.com,16020,1700000000002"


def _wal(server: str, ts: int) -> str:
    return f"{server.replace(',', '%2C')}.{ts}"


def _hbase_history(c: KazooClient, rs: list[KazooClient]) -> None:
    """What HBase 2.x's ``ZKReplicationQueueStorage`` and ``ZKReplicationPeerStorage`` write,
    transaction by transaction, with a production cluster's names: two peers (ids ``1`` and
    ``dr``), queues made by ``createWithParents`` (the queue, then its WAL), a roll that adds the
    new WAL to each queue in a transaction of its own, ``setWALPosition`` as a one-op multi,
    server ``B``'s death, ``claimQueue``'s multi, the recovered queue removed when done, and
    ``removeReplicatorIfQueueIsEmpty``."""
    c.create(MASTER, b"", ephemeral=True, makepath=True)
    for path in (QUEUES, PEERS, HFILE_REFS):
        c.ensure_path(path)
    for pid in ("1", "dr"):
        t = c.transaction()
        t.create(f"{PEERS}/{pid}", _value(b"PBUF\n\x05peer"))
        t.create(f"{PEERS}/{pid}/peer-state", _value(encode_peer_state("ENABLED")))
        assert not any(isinstance(r, Exception) for r in t.commit())
    wals = {A: _wal(A, 1700000000100), B: _wal(B, 1700000000200)}
    for client, name in ((rs[0], A), (rs[1], B)):
        client.create(f"{LIVE}/{name}", b"", ephemeral=True, makepath=True)
        for pid in ("1", "dr"):
            client.ensure_path(f"{QUEUES}/{name}/{pid}")  # createWithParents: one by one
            client.create(f"{QUEUES}/{name}/{pid}/{wals[name]}")

    def position(client: KazooClient, server: str, queue: str, wal: str, at: int) -> None:
        t = client.transaction()
        t.set_data(f"{QUEUES}/{server}/{queue}/{wal}", _value(encode_position(at)))
        assert not any(isinstance(r, Exception) for r in t.commit())

    for at in (100, 200):
        position(rs[1], B, "1", wals[B], at)
    position(rs[1], B, "dr", wals[B], 100)
    position(rs[0], A, "1", wals[A], 150)
    rolled = _wal(A, 1700000000900)
    for pid in ("1", "dr"):  # preLogRoll: addWAL, queue by queue
        rs[0].create(f"{QUEUES}/{A}/{pid}/{rolled}")
    position(rs[0], A, "dr", wals[A], 150)
    rs[0].delete(f"{QUEUES}/{A}/1/{wals[A]}")  # the old WAL done with: removeWAL
    rs[1].stop()
    rs[1].close()
    for pid, at in (("1", 200), ("dr", 100)):
        new = f"{QUEUES}/{A}/{pid}-{B}"
        t = rs[0].transaction()
        t.create(new)
        t.create(f"{new}/{wals[B]}", _value(encode_position(at)))
        t.delete(f"{QUEUES}/{B}/{pid}/{wals[B]}")
        t.delete(f"{QUEUES}/{B}/{pid}")
        assert not any(isinstance(r, Exception) for r in t.commit())
    position(rs[0], A, f"dr-{B}", wals[B], 200)
    for pid in ("1", "dr"):  # the recovered sources done: removeQueue
        t = rs[0].transaction()
        t.delete(f"{QUEUES}/{A}/{pid}-{B}/{wals[B]}")
        t.delete(f"{QUEUES}/{A}/{pid}-{B}")
        assert not any(isinstance(r, Exception) for r in t.commit())
    c.delete(f"{QUEUES}/{B}")  # removeReplicatorIfQueueIsEmpty


@pytest.mark.zookeeper
def test_an_hbase_2_clusters_own_names_and_transactions(tmp_path: Path) -> None:
    zk = Ensemble(tmp_path, servers=1)
    zk.start(timeout=90)
    clients = [KazooClient(hosts=zk.connect_string, timeout=10.0) for _ in range(3)]
    try:
        for client in clients:
            client.start(timeout=30)
        _hbase_history(clients[0], clients[1:])
    finally:
        for client in clients:
            client.stop()
            client.close()
        zk.stop()
    v = validate_log(zk.server_dir(1))
    assert v.status == "accepted", v.headline()
    names = v.detail["zk_logs"]["names"]
    assert names["servers"] == {A: server_name(0), B: server_name(1)}
    assert names["peers"] == {"1": "2", "dr": "3"}
    assert names["wals"][_wal(A, 1700000000900)] == STEPS.wal_name(0, 1)
    kinds = [a.name for a in v.behaviour]
    assert kinds.count("roll") == 1 and kinds.count("claim_commit") == 2
    assert kinds.count("peer_sync") == 4 and "scp_finish" in kinds


@pytest.mark.zookeeper
def test_names_the_model_cannot_hold_are_bad_input(tmp_path: Path) -> None:
    """A log naming a region server the HBase way cannot (not ``host,port,startcode``) is bad
    input that names the directory and the name, not a traceback or a verdict."""

    def write(client: KazooClient) -> None:
        client.create(f"{LIVE}/not-a-server", b"", ephemeral=True, makepath=True)
        client.create(f"{QUEUES}/not-a-server", makepath=True)

    data = _data_dir(tmp_path, write)
    v = validate_log(data)
    assert v.status == "bad-input"
    assert v.reason.startswith(str(data)) and "'not-a-server'" in v.reason


def _data_dir(tmp_path: Path, write: Callable[[KazooClient], None]) -> Path:
    """The data directory of a real ZooKeeper that one client's ``write`` wrote to."""
    zk = Ensemble(tmp_path, servers=1)
    zk.start(timeout=90)
    client = KazooClient(hosts=zk.connect_string, timeout=10.0)
    try:
        client.start(timeout=30)
        write(client)
    finally:
        client.stop()
        client.close()
        zk.stop()
    return zk.server_dir(1)


@pytest.mark.zookeeper
def test_a_multiwal_clusters_wals_are_refused_by_name(tmp_path: Path) -> None:
    """A region-grouped provider (``multiwal``) names its WALs ``<server>.<group>.<timestamp>``:
    log-only validation takes one WAL group per server, so such a log is bad input naming the
    WAL, not a server of its own."""
    wal = f"{A.replace(',', '%2C')}.regiongroup-0.1700000000100"

    def write(client: KazooClient) -> None:
        client.create(f"{PEERS}/1", _value(b"PBUF\n\x05peer"), makepath=True)
        client.create(f"{LIVE}/{A}", b"", ephemeral=True, makepath=True)
        client.create(f"{QUEUES}/{A}/1/{wal}", makepath=True)

    data = _data_dir(tmp_path, write)
    v = validate_log(data)
    assert v.status == "bad-input", v.headline()
    assert v.reason.startswith(str(data)) and wal in v.reason
    assert "multiwal" in v.reason


def test_a_claim_round_from_the_log_alone_is_searched_again_by_its_windows_start() -> None:
    """From its log alone a CLAIM round has no recorded reads: its window is the widest its
    lane allows, and it keeps its rank by its write. The round of
    ``table-claim-reads-across-leader-election`` read the servers before a join its write
    follows by a leader election; ranked by its write the search cannot take it before the
    join, so a trace no behaviour consumes is searched again with such rounds ranked by their
    window's start."""
    run = DATA / "table-claim-reads-across-leader-election"
    steps = Steps.for_model(get_design("table"))
    log = txntrace.log_trace(run, "table", steps)
    first = Validator(log.events, "table", storage=log.storage)
    assert first.run()[0] == "exhausted"
    assert validate_events(log.events, "table", storage=log.storage).status == "accepted"
