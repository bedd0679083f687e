"""The embedded ZooKeeper against a real ZooKeeper: standalone, a 3-server ensemble with a leader
failover, stopping by pid, attaching from files, and the ``replcheck zk`` command line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from replcheck.conformance.zookeeper import server as zkmod
from replcheck.conformance.zookeeper.server import Ensemble, ZkError, classpath, zookeeper_version

CONNECT_TIMEOUT = 30.0


@contextmanager
def client(ensemble: Ensemble) -> Iterator[KazooClient]:
    """A connected kazoo client, closed afterwards."""
    zk = KazooClient(hosts=ensemble.connect_string, timeout=10.0)
    zk.start(timeout=CONNECT_TIMEOUT)
    try:
        yield zk
    finally:
        zk.stop()
        zk.close()


def gone(pid: int) -> bool:
    """Whether no process has this pid (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    if stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X"):
        return False
    # a zombie main thread whose other threads still run is not gone yet
    try:
        return len(os.listdir(f"/proc/{pid}/task")) <= 1
    except FileNotFoundError:
        return True


def unique_path() -> str:
    return f"/replcheck-test/{uuid.uuid4().hex}"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "replcheck", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


# --- no server needed -------------------------------------------------------------------------


def test_pyspark_ships_zookeeper_3_9() -> None:
    assert zookeeper_version().startswith("3.9.")
    jars = classpath().split(os.pathsep)
    names = [Path(j).name for j in jars]
    assert any(n.startswith("zookeeper-jute-") for n in names)
    assert any(n.startswith("log4j-core-") for n in names)
    assert all(Path(j).is_file() for j in jars)


@pytest.mark.parametrize("servers", [0, 2, -1, 4])
def test_servers_must_be_odd_and_positive(tmp_path: Path, servers: int) -> None:
    with pytest.raises(ZkError, match="servers must be"):
        Ensemble(tmp_path, servers=servers)


def test_base_port_layout(tmp_path: Path) -> None:
    ensemble = Ensemble(tmp_path, servers=3, base_port=21000)
    assert ensemble.connect_string == "127.0.0.1:21000,127.0.0.1:21003,127.0.0.1:21006"
    assert [s.alive for s in ensemble.status()] == [False, False, False]
    assert not ensemble.serving()


def test_attach_without_a_run_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ZkError, match="no ZooKeeper run"):
        Ensemble.attach(tmp_path)


# --- the shared standalone server -------------------------------------------------------------


@pytest.mark.zookeeper
def test_standalone_serves_and_stores(zookeeper: Ensemble) -> None:
    [status] = zookeeper.status()
    assert status.mode == "standalone"
    assert status.alive and status.serving
    assert zookeeper.serving()
    assert zookeeper.leader() is None
    assert zookeeper.connect_string == f"127.0.0.1:{status.client_port}"
    path = unique_path()
    with client(zookeeper) as zk:
        zk.create(path, b"queue-1", makepath=True)
        data, stat = zk.get(path)
        assert data == b"queue-1"
        zk.set(path, b"queue-2")
        assert zk.get(path)[0] == b"queue-2"
        assert stat.czxid > 0


@pytest.mark.zookeeper
def test_zxid_increases_with_writes(zookeeper: Ensemble) -> None:
    before = zookeeper.status()[0].zxid
    assert before is not None
    path = unique_path()
    with client(zookeeper) as zk:
        zk.create(path, b"", makepath=True)
        zk.set(path, b"x")
        stat = zk.exists(path)
        assert stat is not None
    after = zookeeper.status()[0].zxid
    assert after is not None
    assert after > before
    assert after >= stat.mzxid


@pytest.mark.zookeeper
def test_files_and_pid(zookeeper: Ensemble) -> None:
    sdir = zookeeper.server_dir(1)
    [status] = zookeeper.status()
    assert status.pid is not None and not gone(status.pid)
    assert int((sdir / "pid").read_text()) == status.pid
    assert (sdir / "data" / "myid").read_text().strip() == "1"
    config = (sdir / "zoo.cfg").read_text()
    assert "tickTime=200\n" in config
    assert "4lw.commands.whitelist=srvr,stat,ruok,mntr,conf\n" in config
    assert "admin.enableServer=false\n" in config
    assert (sdir / "zk.log").stat().st_size > 0
    with client(zookeeper) as zk:
        zk.create(unique_path(), b"", makepath=True)
    [txn_dir] = zookeeper.txn_log_dirs()
    assert txn_dir == sdir / "datalog" / "version-2"
    assert list(txn_dir.glob("log.*"))


@pytest.mark.zookeeper
def test_attach_sees_the_same_servers(zookeeper: Ensemble) -> None:
    attached = Ensemble.attach(zookeeper.run_dir)
    assert attached.connect_string == zookeeper.connect_string
    assert attached.tick_ms == zookeeper.tick_ms
    [mine], [theirs] = zookeeper.status(), attached.status()
    assert (theirs.id, theirs.pid, theirs.mode) == (mine.id, mine.pid, "standalone")
    assert attached.serving()


@pytest.mark.zookeeper
def test_short_session_timeouts_are_allowed(zookeeper: Ensemble) -> None:
    zk = KazooClient(hosts=zookeeper.connect_string, timeout=1.0)
    zk.start(timeout=CONNECT_TIMEOUT)
    try:
        negotiated = zk._session_timeout  # what the server granted, in ms
        assert negotiated <= 1000
    finally:
        zk.stop()
        zk.close()


# --- servers of a test's own ------------------------------------------------------------------


@pytest.mark.zookeeper
def test_stop_leaves_no_process(tmp_path: Path) -> None:
    ensemble = Ensemble(tmp_path / "run", servers=1)
    ensemble.start(timeout=90)
    try:
        pids = [s.pid for s in ensemble.status()]
        assert all(p is not None and not gone(p) for p in pids)
    finally:
        ensemble.stop()
    assert all(gone(p) for p in pids if p is not None)
    assert [s.alive for s in ensemble.status()] == [False]
    assert not (ensemble.server_dir(1) / "pid").exists()
    assert ensemble.log_file(1).stat().st_size > 0  # logs are kept
    ensemble.stop()  # stopping again is harmless


@pytest.mark.zookeeper
def test_attach_stops_what_another_instance_started(tmp_path: Path) -> None:
    ensemble = Ensemble(tmp_path, servers=1)
    ensemble.start(timeout=90)
    try:
        pid = ensemble.status()[0].pid
        assert pid is not None
        Ensemble.attach(tmp_path).stop()
        assert gone(pid)
        assert not ensemble.alive(1)
    finally:
        ensemble.stop()


@pytest.mark.zookeeper
def test_not_serving_in_time_names_the_log(tmp_path: Path) -> None:
    ensemble = Ensemble(tmp_path, servers=1)
    with pytest.raises(ZkError, match=r"did not become serving within .*zk\.log"):
        ensemble.start(timeout=0.001)
    assert not ensemble.alive(1)


@pytest.mark.zookeeper
def test_starting_twice_is_an_error(zookeeper: Ensemble) -> None:
    with pytest.raises(ZkError, match="already running"):
        Ensemble.attach(zookeeper.run_dir).start()


@pytest.mark.zookeeper
def test_ensemble_fails_over_and_keeps_data(zookeeper_ensemble: Ensemble) -> None:
    ensemble = zookeeper_ensemble
    statuses = ensemble.status()
    modes = sorted(s.mode or "" for s in statuses)
    assert modes == ["follower", "follower", "leader"]
    old_leader = ensemble.leader()
    assert old_leader is not None
    assert ensemble.serving()
    assert len(ensemble.connect_string.split(",")) == 3

    path = unique_path()
    with client(ensemble) as zk:
        zk.create(path, b"survives", makepath=True)
        written = zk.exists(path)
        assert written is not None

    ensemble.kill_server(old_leader)
    assert not ensemble.alive(old_leader)
    ensemble.wait_serving(timeout=60)
    new_leader = ensemble.leader()
    assert new_leader is not None and new_leader != old_leader
    assert sum(s.mode == "leader" for s in ensemble.status()) == 1

    with client(ensemble) as zk:
        assert zk.get(path)[0] == b"survives"
        zk.set(path, b"after failover")

    ensemble.start_server(old_leader, timeout=60)
    rejoined = ensemble.server_status(old_leader)
    assert rejoined.mode == "follower"
    deadline = time.monotonic() + 30
    while (rejoined.zxid or 0) < written.czxid and time.monotonic() < deadline:
        time.sleep(0.2)
        rejoined = ensemble.server_status(old_leader)
    assert (rejoined.zxid or 0) >= written.czxid

    pids = [s.pid for s in ensemble.status()]
    ensemble.stop()
    assert all(p is not None and gone(p) for p in pids)
    assert all(list(d.glob("log.*")) for d in ensemble.txn_log_dirs())


# --- the command line -------------------------------------------------------------------------


@pytest.mark.zookeeper
def test_cli_start_status_stop(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    try:
        started = run_cli("zk", "start", "--dir", str(run_dir))
        assert started.returncode == 0, started.stderr
        connect = started.stdout.strip()
        assert connect.startswith("127.0.0.1:")

        status = run_cli("zk", "status", "--dir", str(run_dir), "--json")
        assert status.returncode == 0, status.stderr
        doc = json.loads(status.stdout)
        assert doc["serving"] is True
        assert doc["connect_string"] == connect
        [server] = doc["servers"]
        assert server["mode"] == "standalone"
        pid = server["pid"]
        assert not gone(pid)  # outlived the command that started it

        table = run_cli("zk", "status", "--dir", str(run_dir))
        assert table.returncode == 0
        assert table.stdout.split("\n")[0].split() == ["id", "port", "pid", "mode", "zxid"]
        assert "standalone" in table.stdout

        again = run_cli("zk", "start", "--dir", str(run_dir))
        assert again.returncode == 2
        assert "already running" in again.stderr

        stopped = run_cli("zk", "stop", "--dir", str(run_dir))
        assert stopped.returncode == 0, stopped.stderr
        assert gone(pid)

        after = run_cli("zk", "status", "--dir", str(run_dir))
        assert after.returncode == 1
        assert "stopped" in after.stdout
    finally:
        if (run_dir / "zk" / "ensemble.json").exists():
            Ensemble.attach(run_dir).stop()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["zk", "start", "--servers", "2"], "positive odd number"),
        (["zk", "start", "--servers", "x"], "not an integer"),
        (["zk", "restart"], "invalid choice"),
        (["zk"], "required"),
        (["zk", "start", "--base-port", "80"], "between 1024 and 65000"),
        (["zk", "status", "--dir", "no-such-run"], "no ZooKeeper run"),
        (["zk", "stop", "--dir", "no-such-run"], "no ZooKeeper run"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "replcheck", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("replcheck: error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.zookeeper
def test_a_port_taken_meanwhile_is_picked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_pick = zkmod._pick_ports
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        calls: list[int] = []

        def pick(count: int, reservations: object, avoid: set[int]) -> list[int]:
            calls.append(count)
            ports = real_pick(count, reservations, avoid)  # type: ignore[arg-type]
            return [busy, *ports[1:]] if len(calls) == 1 else ports

        monkeypatch.setattr(zkmod, "_pick_ports", pick)
        ensemble = Ensemble(tmp_path, servers=1)
        assert ensemble.client_port(1) == busy
        try:
            ensemble.start(timeout=90)
            assert ensemble.client_port(1) != busy
            assert ensemble.serving()
            assert len(calls) == 2
            assert "Address already in use" in ensemble.log_file(1).read_text()
        finally:
            ensemble.stop()


@pytest.mark.zookeeper
def test_the_drivers_calls_end_when_zookeeper_is_gone(tmp_path: Path) -> None:
    """A run's driver must not wait for ever on an ensemble that lost its quorum: each of its
    calls answers or fails within ``CALL_TIMEOUT`` (kazoo's own wait has no end)."""
    from kazoo.handlers.threading import KazooTimeoutError
    from replcheck.conformance.cluster.run import CALL_TIMEOUT, DriverClient

    ensemble = Ensemble(tmp_path, servers=1)
    ensemble.start(timeout=90)
    client = DriverClient(hosts=ensemble.connect_string, timeout=10)
    client.start(timeout=30)
    try:
        client.ensure_path("/driver")
        client.create("/driver/up", b"")  # while the ensemble serves, a call goes through
        assert client.get_children("/driver") == ["up"]
        ensemble.stop()
        for call in (
            lambda: client.get_children("/driver"),
            lambda: client.exists("/driver"),
            lambda: client.create("/driver/x", b""),
            lambda: client.ensure_path("/driver/y"),
        ):
            raised: list[BaseException] = []

            def run(call=call, raised=raised) -> None:
                try:
                    call()
                except Exception as exc:
                    raised.append(exc)

            t = threading.Thread(target=run, daemon=True)
            t.start()
            t.join(CALL_TIMEOUT * 6)  # a hang, not a speed: kazoo alone never returns
            assert not t.is_alive(), "the call is still waiting"
            (err,) = raised
            assert isinstance(err, KazooTimeoutError) or "Connection" in type(err).__name__
    finally:
        client.stop()
        client.close()
        ensemble.stop()
