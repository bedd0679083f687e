"""An embedded ZooKeeper: a standalone server or an ensemble on loopback, run from the jars that
the ``pyspark`` wheel ships (ZooKeeper 3.9.x), with nothing needed from the system but Java.

Every server is one ``java`` process running ``org.apache.zookeeper.server.quorum.QuorumPeerMain``
on a generated ``zoo.cfg``. All of its files live under ``run_dir/zk/<id>/``::

    zoo.cfg            the configuration
    log4j2.properties  logging to the console, which goes to zk.log
    zk.log             the process's stdout and stderr (kept after it stops)
    pid                the process id, while it runs
    data/myid          the server id (data/version-2 holds snapshots)
    datalog/version-2  the transaction logs (``log.<zxid>``)

``run_dir/zk/ensemble.json`` records the servers and their ports, so that :meth:`Ensemble.attach`
in a later process can find, query and stop what :meth:`Ensemble.start` launched. Health is
checked with the ``srvr`` four-letter word: a server serves when its mode is ``leader``,
``follower`` or ``standalone``. Processes are only ever stopped by their own pid, after checking
(where ``/proc`` exists) that the pid is still the ``java`` process started on that ``zoo.cfg``.

Typical use::

    with Ensemble(tmp_path, servers=3) as zk:
        client = KazooClient(hosts=zk.connect_string)
        ...
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType

from replcheck.conformance.cluster.lifeline import popen

__all__ = [
    "MAIN_CLASS",
    "SERVING_MODES",
    "Ensemble",
    "ServerStatus",
    "ZkError",
    "classpath",
    "four_letter_word",
    "jars_dir",
    "java_executable",
    "zookeeper_version",
]

MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
SERVING_MODES = ("leader", "follower", "standalone")
"""Modes in which a server serves clients; any other (or no answer) means not serving."""

FOUR_LETTER_WORDS = "srvr,stat,ruok,mntr,conf"
PREALLOC_KB = 1024
"""Transaction-log preallocation block (ZooKeeper's default is 64 MB per log file, which a soak of
hundreds of short runs, each keeping its logs, cannot afford)."""
STATE_FILE = "ensemble.json"
JVM_OPTIONS = (
    "-Xms16m",
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
    "-Djava.net.preferIPv4Stack=true",
)
"""Small, quick-starting JVMs: an ensemble of three must fit a two-core machine."""

_JAR_PREFIXES = (
    "zookeeper-",
    "netty-",
    "slf4j-api-",
    "log4j-api-",
    "log4j-core-",
    "log4j-slf4j2-impl-",
    "metrics-core-",
    "commons-io-",
    "audience-annotations-",
    "snappy-java-",
)
_LOG4J2 = """\
status = warn
appender.console.type = Console
appender.console.name = console
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} [myid:%X{myid}] %-5p [%t] %c{1}: %m%n
rootLogger.level = INFO
rootLogger.appenderRef.console.ref = console
"""
_HOST = "127.0.0.1"
_PORT_ATTEMPTS = 3
_STOP_GRACE = 10.0


class ZkError(Exception):
    """ZooKeeper could not be found, started, queried or stopped; the message is one line."""


# --- the jars ---------------------------------------------------------------------------------


def jars_dir() -> Path:
    """The ``jars`` directory of the installed ``pyspark`` package."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise ZkError("pyspark is not installed: pip install 'pyspark>=4.0'")
    for location in spec.submodule_search_locations:
        jars = Path(location) / "jars"
        if jars.is_dir():
            return jars
    raise ZkError("the installed pyspark has no jars directory")


def _zookeeper_jar(jars: Path) -> Path:
    found = sorted(p for p in jars.glob("zookeeper-[0-9]*.jar"))
    if not found:
        raise ZkError(f"no zookeeper jar in {jars}")
    return found[-1]


def zookeeper_version(jars: Path | None = None) -> str:
    """The version of the ZooKeeper jar that pyspark ships, e.g. ``3.9.5``."""
    jar = _zookeeper_jar(jars or jars_dir())
    return jar.name.removeprefix("zookeeper-").removesuffix(".jar")


def classpath(jars: Path | None = None) -> str:
    """The classpath of a ZooKeeper server: ZooKeeper, jute, netty, slf4j and log4j2."""
    jars = jars or jars_dir()
    _zookeeper_jar(jars)  # fail early, with a clear message
    chosen = sorted(
        p
        for p in jars.glob("*.jar")
        if p.name.startswith(_JAR_PREFIXES) and "tcnative" not in p.name
    )
    return os.pathsep.join(str(p) for p in chosen)


def java_executable() -> str:
    """``$JAVA_HOME/bin/java`` when set, else ``java`` on the PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("java")
    if found is None:
        raise ZkError("java not found: install a JDK (17 or later) or set JAVA_HOME")
    return found


# --- four-letter words ------------------------------------------------------------------------


def four_letter_word(
    port: int, word: str = "srvr", *, host: str = _HOST, timeout: float = 2.0
) -> str:
    """Send a four-letter word to a server and return its whole answer ('' if none)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(word.encode("ascii"))
        chunks = []
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _parse_srvr(text: str) -> tuple[str | None, int | None]:
    """(mode, zxid) from a ``srvr`` answer; mode is None unless it is a serving mode."""
    mode_match = re.search(r"^Mode:\s*(\S+)", text, re.MULTILINE)
    zxid_match = re.search(r"^Zxid:\s*(0x[0-9a-fA-F]+|\d+)", text, re.MULTILINE)
    mode = mode_match.group(1) if mode_match else None
    zxid = int(zxid_match.group(1), 0) if zxid_match else None
    return (mode if mode in SERVING_MODES else None), zxid


# --- ports ------------------------------------------------------------------------------------


def _ephemeral_low() -> int:
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
        return int(text.split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((_HOST, port))
        except OSError:
            return False
    return True


class _PortReservations:
    """Ports picked but not yet bound, reserved across processes (pytest-xdist workers) with
    exclusive-create files in the temp directory; a reservation older than two minutes is stale."""

    STALE = 120.0

    def __init__(self) -> None:
        self.dir = Path(tempfile.gettempdir()) / "replcheck-zk-ports"
        self.held: list[Path] = []

    def reserve(self, port: int) -> bool:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / str(port)
        for _ in range(2):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    if time.time() - path.stat().st_mtime < self.STALE:
                        return False
                    path.unlink()
                except FileNotFoundError:
                    pass
                continue
            with os.fdopen(fd, "w") as handle:
                handle.write(f"{os.getpid()}\n")
            self.held.append(path)
            return True
        return False

    def release(self) -> None:
        for path in self.held:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        self.held.clear()


def _pick_ports(count: int, reservations: _PortReservations, avoid: set[int]) -> list[int]:
    """``count`` distinct free loopback ports below the ephemeral range (so no outgoing
    connection takes one meanwhile), each reserved against other processes."""
    high = _ephemeral_low() - 1
    low = 10000 if high > 12000 else 1024
    rng = random.SystemRandom()
    ports: list[int] = []
    for _ in range(count * 200):
        if len(ports) == count:
            break
        port = rng.randint(low, high)
        if port in avoid or port in ports or not _bindable(port):
            continue
        if reservations.reserve(port):
            ports.append(port)
    if len(ports) < count:
        raise ZkError(f"could not find {count} free loopback ports")
    return ports


# --- processes --------------------------------------------------------------------------------


def _proc_matches(pid: int, marker: str) -> bool | None:
    """True/False when ``/proc`` tells whether ``pid`` is a live process whose command line
    contains ``marker``; None when there is no ``/proc`` to ask."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    try:
        cmdline = (proc / str(pid) / "cmdline").read_bytes().decode("utf-8", "replace")
        stat = (proc / str(pid) / "stat").read_text()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else ""
    if state in ("Z", "X"):
        # A JVM's main thread can be a zombie while its other threads still shut down (and
        # hold its ports): it is gone only once no other thread is left.
        try:
            return len(os.listdir(proc / str(pid) / "task")) > 1
        except OSError:
            return False
    return marker in cmdline.replace("\0", " ")


def pid_alive(pid: int) -> bool:
    """Is process ``pid`` there (one of another user's counts)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class ServerStatus:
    """What one server looks like now."""

    id: int
    client_port: int
    pid: int | None
    alive: bool
    mode: str | None
    """``leader``, ``follower`` or ``standalone``; None when not serving (or not answering)."""
    zxid: int | None
    """The last zxid the server has seen, from ``srvr``; None when it did not answer."""

    @property
    def serving(self) -> bool:
        """Alive and in a serving mode."""
        return self.alive and self.mode in SERVING_MODES


@dataclass
class _Ports:
    client: int
    quorum: int
    election: int


_LIVE: set[Ensemble] = set()
"""Ensembles with processes that this process started, not detached, and not yet stopped."""


@atexit.register
def _stop_leftovers() -> None:
    """Stop the attached (non-detached) ensembles this process started and did not stop."""
    for ensemble in list(_LIVE):
        with contextlib.suppress(Exception):
            ensemble.stop()


class Ensemble:
    """A standalone ZooKeeper (``servers=1``) or an ensemble of an odd number of servers, all on
    loopback, with their files under ``run_dir/zk``.

    Ports: with ``base_port``, server ``i`` (from 1) uses ``base_port + 3*(i-1)`` as its client
    port and the next two as its quorum and election ports; without it, free loopback ports are
    picked (and picked again if a server cannot bind one when starting).

    ``tick_ms`` is ZooKeeper's tickTime; the negotiated session timeout is clamped to
    [``min_session_timeout_ms``, ``max_session_timeout_ms``], by default [2 ticks, 60 s].
    ``system_properties`` are passed to each server's JVM as ``-Dkey=value`` (for example
    ``zookeeper.snapCount`` or ``zookeeper.extendedTypesEnabled``).
    """

    def __init__(
        self,
        run_dir: Path,
        servers: int = 1,
        *,
        base_port: int | None = None,
        tick_ms: int = 200,
        min_session_timeout_ms: int | None = None,
        max_session_timeout_ms: int | None = None,
        system_properties: dict[str, str] | None = None,
    ) -> None:
        if isinstance(servers, bool) or not isinstance(servers, int) or servers < 1:
            raise ZkError(f"servers must be a positive odd number, not {servers!r}")
        if servers % 2 == 0:
            raise ZkError(f"servers must be odd (1, 3, 5, ...), not {servers}")
        if tick_ms < 1:
            raise ZkError(f"tick_ms must be positive, not {tick_ms}")
        if base_port is not None and not 1 <= base_port <= 65535 - 3 * servers:
            raise ZkError(f"base_port out of range: {base_port}")
        self.run_dir = Path(run_dir).resolve()
        self.servers = servers
        self.base_port = base_port
        self.tick_ms = tick_ms
        self.min_session_timeout_ms = (
            min_session_timeout_ms if min_session_timeout_ms is not None else 2 * tick_ms
        )
        self.max_session_timeout_ms = (
            max_session_timeout_ms if max_session_timeout_ms is not None else 60_000
        )
        if self.min_session_timeout_ms > self.max_session_timeout_ms:
            raise ZkError(
                f"min_session_timeout_ms {self.min_session_timeout_ms} exceeds "
                f"max_session_timeout_ms {self.max_session_timeout_ms}"
            )
        self.system_properties = dict(system_properties or {})
        self.detached = False
        self._procs: dict[int, subprocess.Popen[bytes]] = {}
        self._reservations = _PortReservations()
        self._ports: dict[int, _Ports] = {}
        if base_port is None:
            self._assign_free_ports()
        else:
            self._ports = {
                i: _Ports(*(base_port + 3 * (i - 1) + k for k in range(3))) for i in self.ids
            }

    # --- layout ---

    @property
    def ids(self) -> list[int]:
        """The server ids, 1..servers."""
        return list(range(1, self.servers + 1))

    @property
    def zk_dir(self) -> Path:
        """``run_dir/zk``: every file of every server is under it."""
        return self.run_dir / "zk"

    def server_dir(self, server_id: int) -> Path:
        """``run_dir/zk/<id>``."""
        self._check_id(server_id)
        return self.zk_dir / str(server_id)

    def log_file(self, server_id: int) -> Path:
        """The server's stdout and stderr."""
        return self.server_dir(server_id) / "zk.log"

    def config_file(self, server_id: int) -> Path:
        """The server's ``zoo.cfg``."""
        return self.server_dir(server_id) / "zoo.cfg"

    def txn_log_dirs(self) -> list[Path]:
        """Each server's transaction-log directory (``datalog/version-2``, which holds the
        ``log.<zxid>`` files), in server order."""
        return [self.server_dir(i) / "datalog" / "version-2" for i in self.ids]

    def client_port(self, server_id: int) -> int:
        """The port clients connect to on this server."""
        self._check_id(server_id)
        return self._ports[server_id].client

    @property
    def connect_string(self) -> str:
        """``127.0.0.1:port1,127.0.0.1:port2,...``, for a ZooKeeper client."""
        return ",".join(f"{_HOST}:{self._ports[i].client}" for i in self.ids)

    def _check_id(self, server_id: int) -> None:
        if server_id not in range(1, self.servers + 1):
            raise ZkError(f"no server {server_id} (servers are 1..{self.servers})")

    # --- ports ---

    def _assign_free_ports(self) -> None:
        avoid = {p for ports in self._ports.values() for p in asdict(ports).values()}
        picked = _pick_ports(3 * self.servers, self._reservations, avoid)
        self._ports = {i: _Ports(*picked[3 * (i - 1) : 3 * i]) for i in self.ids}

    # --- files ---

    def _config_text(self, server_id: int) -> str:
        sdir = self.server_dir(server_id)
        lines = [
            f"tickTime={self.tick_ms}",
            "initLimit=50",
            "syncLimit=15",
            f"minSessionTimeout={self.min_session_timeout_ms}",
            f"maxSessionTimeout={self.max_session_timeout_ms}",
            f"dataDir={sdir / 'data'}",
            f"dataLogDir={sdir / 'datalog'}",
            f"clientPort={self._ports[server_id].client}",
            f"clientPortAddress={_HOST}",
            "maxClientCnxns=0",
            "admin.enableServer=false",
            f"4lw.commands.whitelist={FOUR_LETTER_WORDS}",
            "forceSync=no",
            "autopurge.purgeInterval=0",
            f"preAllocSize={PREALLOC_KB}",
        ]
        if self.servers > 1:
            lines += ["cnxTimeout=2000"]
            lines += [
                f"server.{i}={_HOST}:{self._ports[i].quorum}:{self._ports[i].election}"
                for i in self.ids
            ]
        return "\n".join(lines) + "\n"

    def _write_files(self) -> None:
        self.zk_dir.mkdir(parents=True, exist_ok=True)
        for i in self.ids:
            sdir = self.server_dir(i)
            (sdir / "data").mkdir(parents=True, exist_ok=True)
            (sdir / "datalog").mkdir(parents=True, exist_ok=True)
            (sdir / "data" / "myid").write_text(f"{i}\n")
            self.config_file(i).write_text(self._config_text(i))
            (sdir / "log4j2.properties").write_text(_LOG4J2)
        state = {
            "servers": self.servers,
            "base_port": self.base_port,
            "tick_ms": self.tick_ms,
            "min_session_timeout_ms": self.min_session_timeout_ms,
            "max_session_timeout_ms": self.max_session_timeout_ms,
            "ports": {str(i): asdict(self._ports[i]) for i in self.ids},
            "zookeeper_version": zookeeper_version(),
        }
        (self.zk_dir / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n")

    # --- processes ---

    def pid(self, server_id: int) -> int | None:
        """The pid of the server's process, when one was started and its pid file remains."""
        proc = self._procs.get(server_id)
        if proc is not None:
            return proc.pid
        try:
            return int((self.server_dir(server_id) / "pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def alive(self, server_id: int) -> bool:
        """Whether the server's own process (by pid) is running."""
        proc = self._procs.get(server_id)
        if proc is not None:
            return proc.poll() is None
        pid = self.pid(server_id)
        if pid is None:
            return False
        matches = _proc_matches(pid, str(self.config_file(server_id)))
        return pid_alive(pid) if matches is None else matches

    def _spawn(self, server_id: int) -> None:
        if self.alive(server_id):
            raise ZkError(f"server {server_id} is already running (pid {self.pid(server_id)})")
        sdir = self.server_dir(server_id)
        command = [
            java_executable(),
            *JVM_OPTIONS,
            f"-Dlog4j2.configurationFile={sdir / 'log4j2.properties'}",
            f"-Dzookeeper.log.dir={sdir}",
            *(f"-D{k}={v}" for k, v in getattr(self, "system_properties", {}).items()),
            "-cp",
            classpath(),
            MAIN_CLASS,
            str(self.config_file(server_id)),
        ]
        env = {k: v for k, v in os.environ.items() if k not in ("CLASSPATH", "JAVA_TOOL_OPTIONS")}
        with open(self.log_file(server_id), "ab") as log:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            log.write(f"--- replcheck: starting server {server_id} at {stamp}\n".encode())
            log.flush()
            # An attached server dies with the process that started it (a SIGKILLed driver
            # leaves no ZooKeeper behind); a detached one is meant to outlive it.
            start = subprocess.Popen if self.detached else popen
            proc = start(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=sdir,
                env=env,
                start_new_session=self.detached,
            )
        self._procs[server_id] = proc
        (sdir / "pid").write_text(f"{proc.pid}\n")
        if not self.detached:
            _LIVE.add(self)

    def _signal(self, server_id: int, sig: signal.Signals) -> bool:
        """Send ``sig`` to the server's own process; False when it is not running."""
        if not self.alive(server_id):
            return False
        proc = self._procs.get(server_id)
        if proc is not None:
            proc.send_signal(sig)
            return True
        pid = self.pid(server_id)
        if pid is None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        return True

    def _wait_dead(self, server_ids: list[int], timeout: float) -> list[int]:
        """Wait until the servers' processes are gone; returns those still alive."""
        deadline = time.monotonic() + timeout
        left = list(server_ids)
        while left:
            left = [i for i in left if self.alive(i)]
            if not left or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        return left

    def _forget(self, server_id: int) -> None:
        proc = self._procs.pop(server_id, None)
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        with contextlib.suppress(FileNotFoundError):
            (self.server_dir(server_id) / "pid").unlink()

    def _stop_ids(self, server_ids: list[int], *, grace: float = _STOP_GRACE) -> None:
        running = [i for i in server_ids if self._signal(i, signal.SIGTERM)]
        stubborn = self._wait_dead(running, grace)
        for i in stubborn:
            self._signal(i, signal.SIGKILL)
        still = self._wait_dead(stubborn, 5.0)
        for i in server_ids:
            if i not in still:
                self._forget(i)
        if still:
            pids = ", ".join(str(self.pid(i)) for i in still)
            raise ZkError(f"could not stop server(s) {still} (pid {pids})")
        if not any(self.alive(i) for i in self.ids):
            _LIVE.discard(self)

    # --- health ---

    def server_status(self, server_id: int) -> ServerStatus:
        """The status of one server (asks it ``srvr`` when its process is alive)."""
        alive = self.alive(server_id)
        mode: str | None = None
        zxid: int | None = None
        if alive:
            with contextlib.suppress(OSError):
                mode, zxid = _parse_srvr(four_letter_word(self.client_port(server_id)))
        return ServerStatus(
            id=server_id,
            client_port=self.client_port(server_id),
            pid=self.pid(server_id),
            alive=alive,
            mode=mode,
            zxid=zxid,
        )

    def status(self) -> list[ServerStatus]:
        """The status of every server, in id order."""
        return [self.server_status(i) for i in self.ids]

    def serving(self) -> bool:
        """Whether the ensemble serves clients: a standalone server in standalone mode, or a
        majority of servers serving with exactly one leader among them."""
        statuses = self.status()
        if self.servers == 1:
            return statuses[0].serving and statuses[0].mode == "standalone"
        up = [s for s in statuses if s.serving]
        leaders = [s for s in up if s.mode == "leader"]
        return len(up) > self.servers // 2 and len(leaders) == 1

    def leader(self) -> int | None:
        """The id of the one server in leader mode, or None (standalone, or no single leader)."""
        leaders = [s.id for s in self.status() if s.serving and s.mode == "leader"]
        return leaders[0] if len(leaders) == 1 else None

    def wait_serving(self, timeout: float = 30.0) -> None:
        """Wait until :meth:`serving` holds (e.g. after killing the leader); ZkError on timeout."""
        deadline = time.monotonic() + timeout
        while not self.serving():
            if time.monotonic() >= deadline:
                logs = ", ".join(str(self.log_file(i)) for i in self.ids)
                raise ZkError(f"ZooKeeper not serving after {timeout:g}s; see {logs}")
            time.sleep(0.1)

    def _log_says_bind_failed(self, server_id: int) -> bool:
        try:
            text = self.log_file(server_id).read_text(errors="replace")
        except OSError:
            return False
        tail = text[text.rfind("--- replcheck: starting server") :]
        return "Address already in use" in tail

    def _wait_serving(self, server_ids: list[int], timeout: float) -> None:
        """Wait until each of ``server_ids`` serves; ZkError when one dies or time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            waiting = []
            for i in server_ids:
                status = self.server_status(i)
                if not status.alive:
                    raise ZkError(
                        f"ZooKeeper server {i} exited while starting; see {self.log_file(i)}"
                    )
                if not status.serving:
                    waiting.append(i)
            if not waiting:
                return
            if time.monotonic() >= deadline:
                i = waiting[0]
                raise ZkError(
                    f"ZooKeeper server {i} did not become serving within {timeout:g}s; "
                    f"see {self.log_file(i)}"
                )
            time.sleep(0.1)

    # --- life cycle ---

    def start(self, timeout: float = 30.0, *, detach: bool = False) -> None:
        """Start every server and wait until each serves. ``detach`` puts the processes in their
        own session so that they outlive this process (the CLI does); otherwise they are stopped
        when this process exits, if :meth:`stop` was not called first."""
        running = [i for i in self.ids if self.alive(i)]
        if running:
            raise ZkError(f"ZooKeeper server(s) {running} already running in {self.zk_dir}")
        self.detached = detach
        try:
            for attempt in range(1, _PORT_ATTEMPTS + 1):
                self._write_files()
                try:
                    for i in self.ids:
                        self._spawn(i)
                    self._wait_serving(self.ids, timeout)
                    return
                except ZkError:
                    bind_failed = any(self._log_says_bind_failed(i) for i in self.ids)
                    with contextlib.suppress(ZkError):
                        self._stop_ids(self.ids, grace=3.0)
                    if self.base_port is not None or not bind_failed or attempt == _PORT_ATTEMPTS:
                        raise
                    self._assign_free_ports()
        finally:
            self._reservations.release()

    def start_server(self, server_id: int, timeout: float = 30.0, *, wait: bool = True) -> None:
        """Start one stopped server (same ports and data); by default wait until it serves,
        which in an ensemble needs a quorum to be up."""
        self._check_id(server_id)
        if not self.config_file(server_id).is_file():
            self._write_files()
        self._spawn(server_id)
        if wait:
            self._wait_serving([server_id], timeout)

    def stop_server(self, server_id: int) -> None:
        """Stop one server: SIGTERM to its own pid, then SIGKILL if it lingers."""
        self._check_id(server_id)
        self._stop_ids([server_id])

    def kill_server(self, server_id: int) -> None:
        """Kill one server with SIGKILL (a crash) and wait until its process is gone."""
        self._check_id(server_id)
        if self._signal(server_id, signal.SIGKILL) and self._wait_dead([server_id], 10.0):
            raise ZkError(f"server {server_id} (pid {self.pid(server_id)}) survived SIGKILL")
        self._forget(server_id)
        if not any(self.alive(i) for i in self.ids):
            _LIVE.discard(self)

    def restart_server(self, server_id: int, timeout: float = 30.0) -> None:
        """Stop one server, start it again and wait until it serves."""
        self.stop_server(server_id)
        self.start_server(server_id, timeout)

    def stop(self) -> None:
        """Stop every server, each by its own pid (SIGTERM, then SIGKILL if it lingers)."""
        self._stop_ids(self.ids)

    def __enter__(self) -> Ensemble:
        if not any(self.alive(i) for i in self.ids):
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"Ensemble({str(self.run_dir)!r}, servers={self.servers}, {self.connect_string})"

    # --- another process's ensemble ---

    @classmethod
    def attach(cls, run_dir: Path) -> Ensemble:
        """The ensemble whose files are in ``run_dir`` (written by :meth:`start`, possibly in
        another process), to query or stop it."""
        state_file = Path(run_dir) / "zk" / STATE_FILE
        try:
            state = json.loads(state_file.read_text())
            servers = int(state["servers"])
            ports = {int(k): _Ports(**v) for k, v in state["ports"].items()}
            ensemble = cls.__new__(cls)
            ensemble.run_dir = Path(run_dir).resolve()
            ensemble.servers = servers
            ensemble.base_port = state.get("base_port")
            ensemble.tick_ms = int(state["tick_ms"])
            ensemble.min_session_timeout_ms = int(state["min_session_timeout_ms"])
            ensemble.max_session_timeout_ms = int(state["max_session_timeout_ms"])
        except FileNotFoundError:
            raise ZkError(f"no ZooKeeper run in {run_dir} (no {state_file})") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ZkError(f"unreadable {state_file}: {exc}") from None
        if sorted(ports) != list(range(1, servers + 1)):
            raise ZkError(f"unreadable {state_file}: ports do not match servers")
        ensemble.detached = True
        ensemble._procs = {}
        ensemble._reservations = _PortReservations()
        ensemble._ports = ports
        return ensemble
