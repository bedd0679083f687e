"""One recorded run of the reference cluster: ZooKeeper, a master, region servers, sink clusters,
the workload and admin schedule, the fault injector, and the end-state verdict.

Everything random comes from ``random.Random(seed)``: which server a fault hits and when, the admin
schedule, and each process's own workload (the processes get seeds derived from it), so a run's
fault schedule is reproducible from its seed (the interleaving of the processes is not).

Every process is started with ``sys.executable -m replcheck.conformance.<module>`` and stopped by
its own pid.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import ConnectionLoss, NodeExistsError, OperationTimeoutError
from kazoo.handlers.threading import KazooTimeoutError
from replcheck.conformance.cluster import wire
from replcheck.conformance.cluster.common import ADMIN, LIVE, PEERS, trace_dir, wal_dir
from replcheck.conformance.cluster.lifeline import popen
from replcheck.conformance.hbase import wal as walfile
from replcheck.conformance.hbase.names import Steps, peer_id, server_index, server_name
from replcheck.conformance.trace import events as trace
from replcheck.conformance.trace import schema
from replcheck.conformance.validate import endstate

logging.getLogger("kazoo").setLevel(logging.ERROR)  # reconnects during faults are expected

FAULT_KINDS = ("kill", "pause", "expire", "zk-leader", "sink-down", "master-restart")
"""What the fault injector can do (``--faults``)."""


@dataclass
class RunSpec:
    """What one run does. Defaults give a short run (about 20-40 s on two cores)."""

    design: str = "zk-multi"
    seed: int = 0
    servers: int = 3
    edits: int = 40
    """Client edits per region server (a replacement server writes as many again)."""
    rate: float = 10.0
    """Client edits per second per region server."""
    roll_every: int = 8
    batch: int = 5
    faults: tuple[str, ...] = ()
    session_timeout: float = 4.0
    master_master: bool = True
    """Cluster 1 (peer id 2) also replicates its own clients' edits back into cluster 0."""
    foreign: int = 15
    second_peer: bool = True
    """Add peer id 3 (cluster 2) mid-run, and remove it later."""
    drain_timeout: float = 40.0
    zk_servers: int = 0
    """0: one server, or three when the ``zk-leader`` fault is asked for."""
    plan: Any = None
    """A ``plan.Plan``: the writes, peer operations and faults as data (``faults``,
    ``edits``, ``servers``, ``master_master`` and ``second_peer`` then come from it)."""


@dataclass
class RunResult:
    run_dir: Path
    verdict: endstate.Verdict
    faults: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    events: int = 0
    schema_problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    startup_seconds: float = 0.0
    """Of which: starting ZooKeeper (when the run has its own) and the cluster, until every
    region server is live."""
    drained: bool = False
    unexpected_exits: list[str] = field(default_factory=list)
    torn_lines: list[str] = field(default_factory=list)
    """Trace lines cut short: the trace is incomplete, so its verdict is not a clean one."""
    conformance: dict[str, Any] = field(default_factory=dict)
    """The trace replayed through the model (``validate``): status, reason, event, verdict."""

    def summary(self) -> dict[str, Any]:
        return {
            **self.verdict.summary(),
            "conformance": self.conformance.get("status", "not validated"),
            "faults": dict(self.faults),
            "faults_skipped": dict(self.skipped),
            "events": self.events,
            "schema_problems": len(self.schema_problems),
            "seconds": round(self.seconds, 1),
            "startup_seconds": round(self.startup_seconds, 1),
            "drained": self.drained,
            "unexpected_exits": len(self.unexpected_exits),
            "torn_lines": len(self.torn_lines),
        }


def conformance_of(run_dir: Path) -> dict[str, Any]:
    """The run's trace replayed through the model (``replcheck validate``), as data."""
    from replcheck.conformance.validate.core import validate_path

    v = validate_path(run_dir)
    return {
        "status": v.status,
        "reason": v.reason,
        "event": v.event,
        "verdict": v.headline(),
        "search_nodes": v.nodes,
        "seconds": round(v.seconds, 2),
    }


class Proc:
    """A child process, its log file, and its pid (the only handle used to stop it)."""

    def __init__(self, name: str, module: str, args: list[str], log_dir: Path) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log = open(log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed in stop()
        # Tethered: the process dies with the driver, even a SIGKILLed one (``lifeline``).
        self.popen = popen(
            [sys.executable, "-m", f"replcheck.conformance.cluster.{module}", *args],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pid = self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            os.kill(self.pid, sig)

    def stop(self, grace: float = 3.0) -> None:
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGCONT)
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.popen.wait(5)
        self.log.close()


CALL_TIMEOUT = 10.0
"""Seconds a driver's ZooKeeper call may wait for its answer."""


class DriverClient(KazooClient):
    """The driver's client: every call it makes answers or fails within ``CALL_TIMEOUT``
    (kazoo's own wait for an answer has no end, so an ensemble that lost its quorum would hold
    the driver for ever; a wait that times out instead ends the run as the cluster's failure)."""

    def get_children(self, path: str, *args: Any, **kwargs: Any) -> Any:
        return self.get_children_async(path, *args, **kwargs).get(timeout=CALL_TIMEOUT)

    def exists(self, path: str, *args: Any, **kwargs: Any) -> Any:
        return self.exists_async(path, *args, **kwargs).get(timeout=CALL_TIMEOUT)

    def create(self, path: str, value: bytes = b"", *args: Any, **kwargs: Any) -> Any:
        return self.create_async(path, value, *args, **kwargs).get(timeout=CALL_TIMEOUT)

    def ensure_path(self, path: str, acl: Any = None) -> Any:
        return self.ensure_path_async(path, acl).get(timeout=CALL_TIMEOUT)


class Cluster:
    def __init__(
        self,
        spec: RunSpec,
        run_dir: Path,
        ensemble: Any,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.spec = spec
        self.run_dir = run_dir
        self.ensemble = ensemble
        self.steps = Steps(spec.design)
        self.rng = random.Random(spec.seed)
        self.progress = progress or (lambda _msg: None)
        self.chroot = f"/replcheck-runs/{run_dir.name}-{uuid.uuid4().hex[:8]}"
        # the ensemble may serve other runs too: their transactions are in the same logs
        (run_dir / "zk-chroot").write_text(self.chroot + "\n")
        admin = KazooClient(hosts=ensemble.connect_string, timeout=10)
        admin.start(timeout=30)
        admin.ensure_path(self.chroot)
        admin.stop()
        admin.close()
        self.hosts = ensemble.connect_string + self.chroot
        self.zk = DriverClient(hosts=self.hosts, timeout=10)
        self.zk.start(timeout=30)
        self.trace = trace.TraceWriter(trace_dir(run_dir), "driver", spec.design)
        self.logs = run_dir / "logs"
        self.rs: dict[int, Proc] = {}
        self.next_index = 0
        self.sinks: dict[int, Proc] = {}
        self.sink_ports = {1: wire.free_port(), 2: wire.free_port()}
        self.admin_requests = 0
        """Admin commands sent so far (each request is named by its number)."""
        self.master: Proc | None = None
        self.faults: Counter[str] = Counter()
        self.faulted: set[int] = set()
        self.skipped: Counter[str] = Counter()
        self.unexpected_exits: list[str] = []
        self.zk_startup = 0.0
        """Seconds ``record_run`` took to start the run's own ZooKeeper."""

    # --- processes ----------------------------------------------------------------------------

    def common_args(self) -> list[str]:
        return ["--run-dir", str(self.run_dir), "--zk", self.hosts, "--design", self.spec.design]

    def start_master(self) -> None:
        self.master = Proc(
            f"master-{len(list(self.logs.glob('master*')))}",
            "master",
            [
                *self.common_args(),
                "--seed",
                str(self.spec.seed),
                "--session-timeout",
                str(self.spec.session_timeout),
            ],
            self.logs,
        )

    def start_rs(self) -> int:
        i = self.next_index
        self.next_index += 1
        self.rs[i] = Proc(
            f"rs-{i}",
            "regionserver",
            [
                *self.common_args(),
                "--index",
                str(i),
                *self.workload_args(),
                "--rate",
                str(self.spec.rate),
                "--roll-every",
                str(self.spec.roll_every),
                "--batch",
                str(self.spec.batch),
                "--seed",
                str(self.spec.seed),
                "--session-timeout",
                str(self.spec.session_timeout),
            ],
            self.logs,
        )
        return i

    def workload_args(self) -> list[str]:
        return ["--edits", str(self.spec.edits)]

    def start_sink(self, c: int) -> None:
        args = [
            "--run-dir",
            str(self.run_dir),
            "--cluster",
            str(c),
            "--port",
            str(self.sink_ports[c]),
            "--design",
            self.spec.design,
            "--zk",
            self.hosts,
            "--seed",
            str(self.spec.seed),
        ]
        if c == 1 and self.spec.master_master:
            args += ["--relay", "--foreign", str(self.spec.foreign)]
        self.sinks[c] = Proc(f"sink-{c}-{self.faults['sink-down']}", "sink", args, self.logs)

    def wait_for(self, what: str, cond: Callable[[], bool], timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond():
                return True
            time.sleep(0.1)
        self.progress(f"timed out waiting for {what}")
        return False

    def live_servers(self) -> list[str]:
        try:
            return self.zk.get_children(LIVE)
        except Exception:
            return []

    # --- admin ----------------------------------------------------------------------------------

    def zk_retry(self, fn: Callable[[], Any], seconds: float = 30.0) -> Any:
        """A driver call on ZooKeeper, retried through a leader election."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return fn()
            except (ConnectionLoss, OperationTimeoutError, KazooTimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def admin(self, op: str, peer: int) -> None:
        data = {"op": op, "peer": peer, "sinks": [f"127.0.0.1:{self.sink_ports[peer + 1]}"]}
        self.zk_retry(lambda: self.zk.ensure_path(ADMIN))
        # named by the driver, not by a sequence: a create retried after its reply was lost in a
        # leader election finds its own request there instead of making a second one (which
        # the master would run twice: an enable of an enabled peer)
        self.admin_requests += 1
        path = f"{ADMIN}/req-{self.admin_requests:010d}"

        def create() -> None:
            with contextlib.suppress(NodeExistsError):
                self.zk.create(path, json.dumps(data).encode())

        self.zk_retry(create)
        self.trace.meta("note", what=f"admin {op}", peer=peer)

    def admin_idle(self) -> bool:
        try:
            return not self.zk.get_children(ADMIN)
        except Exception:
            return False

    def peer_exists(self, p: int) -> bool:
        try:
            return self.zk.exists(f"{PEERS}/{peer_id(p)}") is not None
        except Exception:
            return False

    # --- faults ---------------------------------------------------------------------------------

    def victim(self, pick: int | None = None, held: int | None = None) -> int | None:
        """The region server a server fault hits: a random live one; or, for a plan, the
        server ``held`` at a hook point when ``pick`` is -1, else the live one at ``pick`` in
        index order (modulo their number), the held one left out. None when fewer than two
        servers are live."""
        live = {server_index(s) for s in self.live_servers()}
        cands = sorted(i for i, p in self.rs.items() if p.alive() and i in live)
        if len(cands) < 2:
            return None
        if pick == -1 and held in cands:
            return held
        if pick is not None:
            others = [i for i in cands if i != held]
            return others[pick % len(others)]
        return self.rng.choice(cands)

    def fault(self, kind: str, pick: int | None = None, held: int | None = None) -> None:
        """Inject one fault; one that cannot be carried out is counted as skipped."""
        try:
            self._fault(kind, pick, held)
        except Exception as exc:
            self.progress(f"fault {kind} failed: {type(exc).__name__}: {exc}")
            self.trace.meta("note", what=f"fault {kind} failed", error=f"{type(exc).__name__}")
            self.skipped[kind] += 1

    def _fault(self, kind: str, pick: int | None, held: int | None) -> None:
        self.progress(f"fault: {kind}")
        if kind in ("kill", "pause", "expire"):
            i = self.victim(pick, held)
            if i is None:
                self.trace.meta("note", what=f"fault {kind} skipped: fewer than 2 live servers")
                self.skipped[kind] += 1
                return
            proc = self.rs[i]
            self.faulted.add(proc.pid)
            self.trace.meta("fault", fault=kind, server=server_name(i), pid=proc.pid)
            # ``crash`` is recorded when the server stops being one for the rest of the cluster
            # (the model's crash: the master expires it): when its session has expired, after a
            # kill or a pause, or at the forced expiry.
            # It carries the zxids its expiry lies between (``read``), which order it among the
            # storage writes.
            live_at = self.zk.last_zxid
            if kind == "kill":
                proc.signal(signal.SIGKILL)
                proc.popen.wait(5)
                self.tear_tail(i)
                _, window = self.await_expiry(i, live_at)
                self.crashed(i, window)
            elif kind == "pause":
                proc.signal(signal.SIGSTOP)
                resume, window = self.await_expiry(i, live_at)
                self.crashed(i, window)
                time.sleep(max(0.0, resume - time.monotonic()))
                proc.signal(signal.SIGCONT)
            else:
                try:
                    self.expire(i)
                except Exception as exc:  # the session may have expired all the same
                    self.trace.meta("note", what="forced expiry raised", error=type(exc).__name__)
                _, window = self.await_expiry(i, live_at)
                if window is None:  # the server is still one: no crash, no replacement
                    self.trace.meta("note", what="fault expire did not take")
                    self.skipped[kind] += 1
                    return
                self.crashed(i, window)
            self.before_replacement()
            j = self.start_rs()  # a replacement, so the cluster keeps its size
            self.wait_for(
                "the replacement region server", lambda: server_name(j) in self.live_servers()
            )
        elif kind == "zk-leader":
            leader = self.ensemble.leader()
            if leader is None or len(self.ensemble.ids) < 3:
                self.trace.meta("note", what="zk-leader fault needs a 3-server ensemble")
                self.skipped[kind] += 1
                return
            self.trace.meta("fault", fault=kind, zk_server=leader)
            self.ensemble.kill_server(leader)
            time.sleep(2.0)
            self.ensemble.start_server(leader)
        elif kind == "sink-down":
            self.trace.meta("fault", fault=kind, cluster=1)
            self.faulted.add(self.sinks[1].pid)
            self.sinks[1].signal(signal.SIGKILL)
            self.sinks[1].stop()
            self.trace.emit("sink_down", {"cluster": 1, "sink": 0})
            time.sleep(3.0)
            self.start_sink(1)
            self.trace.emit("sink_up", {"cluster": 1, "sink": 0})
        elif kind == "master-restart":
            assert self.master is not None
            self.trace.meta("fault", fault=kind, pid=self.master.pid)
            self.faulted.add(self.master.pid)
            self.master.signal(signal.SIGKILL)
            self.master.stop()
            self.start_master()
        self.faults[kind] += 1

    def before_replacement(self) -> None:
        """Called after a server's crash, before its replacement is started."""

    def await_expiry(self, i: int, live_at: int) -> tuple[float, list[int] | None]:
        """Wait (at most the session timeout and two seconds) until server ``i``'s session has
        expired: ZooKeeper has deleted its live znode. Returns when the wait would have ended,
        and the zxids the expiry lies between: after ``live_at`` (a zxid the driver saw while
        the server was still up) or a later read that still found it live, and no later than
        the read that found it gone (None if it was not seen gone)."""
        until = time.monotonic() + self.spec.session_timeout + 2.0
        name = server_name(i)
        while time.monotonic() < until:
            before = self.zk.last_zxid
            try:
                live = self.zk.get_children(LIVE)
            except Exception:
                live = None  # ZooKeeper did not answer: no news either way
            if live is not None and name not in live:
                return until, [live_at, self.zk.last_zxid]
            if live is not None:
                live_at = before
            time.sleep(0.05)
        return until, None

    def crashed(self, i: int, window: list[int] | None) -> None:
        if window is None:
            self.trace.emit("crash", {"server": i})
        else:
            self.trace.emit("crash", {"server": i}, read=window)

    def tear_tail(self, i: int) -> None:
        """Leave a torn record at the end of the killed server's newest WAL, as a crash in the
        middle of a write would: whoever splits its logs must cut it off."""
        wals = sorted(wal_dir(self.run_dir, server_name(i)).glob("*"), key=lambda p: p.name)
        if not wals:
            return
        keep = self.rng.randint(1, 24)
        walfile.tear(wals[-1], {"uid": f"torn.{i}", "kind": 0, "ids": [0]}, keep)
        self.trace.meta("fault", fault="torn-tail", wal=wals[-1].name, bytes=keep)

    def expire(self, i: int) -> None:
        """Force the server's session to expire: open the same session elsewhere and close it."""
        path = self.run_dir / "sessions" / f"{server_name(i)}.json"
        info = json.loads(path.read_text())  # written before the server went live
        other = KazooClient(
            hosts=self.ensemble.connect_string,
            client_id=(info["session"], bytes.fromhex(info["password"])),
        )
        self.zk_retry(lambda: other.start(timeout=15))
        other.stop()
        other.close()

    # --- the run --------------------------------------------------------------------------------

    def schedule(self) -> list[tuple[float, str, Any]]:
        """(seconds after the workload starts, what, argument), sorted."""
        span = self.spec.edits / self.spec.rate
        items: list[tuple[float, str, Any]] = []
        if self.spec.second_peer:
            items.append((0.2 * span, "admin", ("add_peer", 1)))
            items.append((0.75 * span, "admin", ("remove_peer", 1)))
        items.append((0.3 * span, "admin", ("disable_peer", 0)))
        items.append((0.65 * span, "admin", ("enable_peer", 0)))
        for kind in self.spec.faults:
            items.append((self.rng.uniform(0.15, 0.8) * span, "fault", kind))
        return sorted(items, key=lambda x: x[0])

    def workloads_done(self) -> bool:
        """Every live region server has written its edits."""
        for i, proc in self.rs.items():
            if not proc.alive():
                continue
            name = f"rs-{server_name(i)}"
            done = False
            for path in trace_dir(self.run_dir).glob(f"{name.replace(',', '_')}.*.jsonl"):
                if "workload done" in path.read_text(encoding="utf-8"):
                    done = True
            if not done:
                return False
        return True

    def current_verdict(self) -> endstate.Verdict:
        streams = [trace.load(p) for p in sorted(trace_dir(self.run_dir).glob("*.jsonl"))]
        events = trace.merge_streams(streams)
        return endstate.check_run(self.run_dir, events, 3)

    def run(self) -> RunResult:
        t0 = time.monotonic()
        self.start()
        self.up_at = time.monotonic() - t0
        self.drive()
        return self.wind_down(t0)

    def start(self) -> None:
        self.trace.meta("process_start", seed=self.spec.seed, faults=list(self.spec.faults))
        for c in (1, 2):
            self.start_sink(c)
        self.start_master()
        self.admin("add_peer", 0)
        self.wait_for("peer 2", lambda: self.peer_exists(0))
        self.wait_for("admin", self.admin_idle)
        for _ in range(self.spec.servers):
            self.start_rs()
        self.wait_for("region servers", lambda: len(self.live_servers()) >= self.spec.servers)
        self.progress(f"cluster up: {self.spec.servers} region servers, zk {self.hosts}")

    def drive(self) -> None:
        """The admin schedule and the faults, while the workload runs."""
        start = time.monotonic()
        for at, what, arg in self.schedule():
            delay = at - (time.monotonic() - start)
            if delay > 0:
                time.sleep(delay)
            if what == "admin":
                self.admin(*arg)
            else:
                self.fault(arg)

    def wind_down(self, t0: float) -> RunResult:
        """Wait for the workloads, the admin commands and the backlog; judge the run."""
        self.wait_for("workloads", self.workloads_done, timeout=120)
        self.wait_for("admin", self.admin_idle, timeout=30)
        self.progress("draining")
        drained = self.wait_for(
            "replication to drain",
            lambda: not self.current_verdict().lost,
            timeout=self.spec.drain_timeout,
        )
        time.sleep(1.0)  # let the cleaner run once more over the drained queues
        self.trace.meta("run_end", drained=drained)
        return self.finish(t0, drained)

    def stop_all(self) -> None:
        procs = [*self.rs.values(), *self.sinks.values(), *([self.master] if self.master else [])]
        for proc in procs:
            if not proc.alive() and proc.pid not in self.faulted:
                self.unexpected_exits.append(f"{proc.name} (pid {proc.pid})")
        for proc in [*self.rs.values(), *self.sinks.values()]:
            proc.stop()
        if self.master:
            self.master.stop()
        try:
            self.zk.stop()
            self.zk.close()
        except Exception:
            pass

    def finish(self, t0: float, drained: bool) -> RunResult:
        self.stop_all()
        self.trace.close()
        torn: list[str] = []
        events = trace.merge(trace_dir(self.run_dir), self.run_dir / "trace.jsonl", torn)
        verdict = endstate.check_run(self.run_dir, events, 3)
        problems = schema.validate_file(self.run_dir / "trace.jsonl")
        result = RunResult(
            self.run_dir,
            verdict,
            faults=self.faults,
            skipped=self.skipped,
            events=len(events),
            schema_problems=problems,
            drained=drained,
        )
        result.seconds = time.monotonic() - t0
        result.startup_seconds = getattr(self, "up_at", 0.0) + self.zk_startup
        result.unexpected_exits = list(self.unexpected_exits)
        result.torn_lines = torn
        # the run is judged as its folder is, with its ZooKeeper transaction logs (copied again
        # once the ensemble has stopped)
        copy_txn_logs(self.ensemble, self.run_dir / "zk-txnlog")
        result.conformance = conformance_of(self.run_dir)
        (self.run_dir / "verdict.json").write_text(
            json.dumps(
                {
                    "design": self.spec.design,
                    "seed": self.spec.seed,
                    "spec": {
                        k: v.to_json() if hasattr(v, "to_json") else v
                        for k, v in vars(self.spec).items()
                    },
                    "run": result.summary(),
                    "schema_problems": problems[:50],
                    "order_problems": trace.check_order(events)[:50],
                    "torn_lines": torn,
                    "verdict": verdict.to_json(),
                    "conformance": result.conformance,
                },
                indent=2,
                default=list,
            )
            + "\n"
        )
        return result


def copy_txn_logs(ensemble: Any, dest: Path) -> None:
    """Copy the ensemble's ZooKeeper transaction logs into the run folder."""
    for n, d in enumerate(ensemble.txn_log_dirs()):
        if Path(d).exists():
            shutil.copytree(d, dest / f"server{n + 1}", dirs_exist_ok=True)


def record_run(
    spec: RunSpec,
    run_dir: Path,
    ensemble: Any = None,
    progress: Callable[[str], None] | None = None,
    cluster_class: type[Cluster] | None = None,
) -> RunResult:
    """Record one run into ``run_dir``: its own ZooKeeper unless ``ensemble`` is given (then the
    run lives under a chroot of its own). A planned run (``spec.plan``) is driven by the
    conformance search's ``PlannedCluster`` (``conformance/search/run.py``), which it passes as
    ``cluster_class``."""
    cls = cluster_class or Cluster
    if spec.plan is not None and cls is Cluster:
        raise ValueError("a planned run is driven by conformance/search/run.py's PlannedCluster")
    from replcheck.conformance.zookeeper.server import Ensemble

    run_dir.mkdir(parents=True, exist_ok=True)
    own = ensemble is None
    t0 = time.monotonic()
    if own:
        n = spec.zk_servers or (3 if "zk-leader" in spec.faults else 1)
        ensemble = Ensemble(run_dir / "zookeeper", servers=n)
        ensemble.start(timeout=90)
    zk_startup = time.monotonic() - t0
    cluster = None
    try:
        cluster = cls(spec, run_dir, ensemble, progress)
        cluster.zk_startup = zk_startup
        return cluster.run()
    except BaseException:
        if cluster is not None:
            cluster.stop_all()
        raise
    finally:
        try:
            copy_txn_logs(ensemble, run_dir / "zk-txnlog")
        finally:
            if own:
                ensemble.stop()
