"""What every process of the reference cluster shares: the znode layout, its ZooKeeper session,
fenced writes that return their zxid, and the run directory's layout.

Layout (HBase 2.x's, reference section 3a, plus the table of the table era stored on ZooKeeper):

```
/hbase/rs/<server>                                   ephemeral: the server is alive (data: ports)
/hbase/master                                        ephemeral: the active master
/hbase/replication/peers/<peerId>                    data: {"cluster": c, "sinks": ["host:port"]}
                                                     (zk-multi: ReplicationPeer, HBase 2.x bytes)
/hbase/replication/peers/<peerId>/peer-state         ENABLED | DISABLED (zk-multi: HBase 2.x bytes)
/hbase/replication/rs/<server>/<queueId>/<wal>       data: position (zk-lock: text; zk-multi:
                                                     HBase 2.x bytes, empty while only queued)
/hbase/replication/rs/<server>/lock                  zk-lock: data = the claiming server
/hbase/replication-table/<urlencoded row key>        table: one znode per row of hbase:replication,
                                                     data = {"queue": {walGroup: "wal:offset"}}
/replcheck/servers/<server>                          every server that ever started (the master's
                                                     view of WAL directories)
/replcheck/scp/<server>                              a ServerCrashProcedure (data: its stage)
/replcheck/claims/<server>/<req>                     a claim the master sent to a region server
/replcheck/refresh/<peerId>/<server>                 a RefreshPeerProcedure for one server
/replcheck/admin/req-<n>                             an admin command (data: op, peer, stage)
/replcheck/barrier                                   ReplicationLogCleanerBarrier (table)
```

zk-multi writes peers, peer states and positions exactly as HBase 2.x does (the metadata
prefix, ``PBUF`` and the protobuf message: ``inspect_values``); the other designs write them as
text.

Every storage write of a region server is a ``multi`` that first sets the data of its own
ephemeral ``/hbase/rs/<server>`` znode: if the session expired (a zombie after SIGSTOP, or a forced
expiry), that znode is gone, the ``multi`` fails with NoNode, and the process aborts instead of
writing. The same set gives the transaction's zxid (its ``mzxid``) for the trace. The master fences
itself the same way with ``/hbase/master``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar
from urllib.parse import quote, unquote

from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import (
    BadVersionError,
    ConnectionLoss,
    NodeExistsError,
    NoNodeError,
    OperationTimeoutError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError
from replcheck.conformance.cluster.hooks import Hooks
from replcheck.conformance.trace.events import TraceWriter

R = TypeVar("R")

LIVE = "/hbase/rs"
MASTER = "/hbase/master"
REPL = "/hbase/replication"
PEERS = f"{REPL}/peers"
QUEUES = f"{REPL}/rs"
TABLE = "/hbase/replication-table"
CTRL = "/replcheck"
SERVERS = f"{CTRL}/servers"
SCP = f"{CTRL}/scp"
CLAIMS = f"{CTRL}/claims"
REFRESH = f"{CTRL}/refresh"
ADMIN = f"{CTRL}/admin"
BARRIER = f"{CTRL}/barrier"
CVERSION_PREFIX = "cversion_"

ENABLED, DISABLED = "ENABLED", "DISABLED"


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path``'s content with ``text`` so that a process killed at any moment leaves
    either the old content or the new, never a truncated file (write a sibling, then rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def drop_torn_tail(path: Path) -> int:
    """Cut a JSON-lines file back to its last complete line (a process killed mid-append leaves a
    partial one); returns the bytes dropped."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep == len(data):
        return 0
    with open(path, "r+b") as f:
        f.truncate(keep)
    return len(data) - keep


def row_znode(row_key: str) -> str:
    """A row key (``peerId-owner[/source]``) as a znode name: URL-encoded, since ``/`` separates
    the two server names."""
    return f"{TABLE}/{quote(row_key, safe='')}"


def row_key_of(znode_name: str) -> str:
    return unquote(znode_name)


# --- the run directory --------------------------------------------------------------------------


def wal_dir(run_dir: Path, server: str) -> Path:
    return run_dir / "cluster0" / "WALs" / server


def old_wal_dir(run_dir: Path) -> Path:
    return run_dir / "cluster0" / "oldWALs"


def store_dir(run_dir: Path, cluster: int) -> Path:
    return run_dir / f"cluster{cluster}" / "store"


def trace_dir(run_dir: Path) -> Path:
    return run_dir / "trace"


def locate_wal(run_dir: Path, server: str, wal: str) -> Path | None:
    """Where a WAL is now: its server's WAL directory, the same renamed by a split in progress,
    else oldWALs (seed 001: archived WALs are found at their new path)."""
    live = wal_dir(run_dir, server)
    splitting = live.with_name(live.name + "-splitting")
    for path in (live / wal, splitting / wal, old_wal_dir(run_dir) / wal):
        if path.exists():
            return path
    return None


class Fenced(Exception):
    """This process's session is gone: it must stop writing."""


class TxnFailed(Exception):
    """A ``multi`` did not apply; ``errors`` are the per-operation results."""

    def __init__(self, errors: list[Any]) -> None:
        super().__init__(", ".join(type(e).__name__ for e in errors if isinstance(e, Exception)))
        self.errors = errors


class ZkProcess:
    """A process with one ZooKeeper session, a trace writer and a fence znode."""

    def __init__(self, zk_hosts: str, run_dir: Path, proc: str, design: str, timeout: float):
        self.run_dir = run_dir
        self.design_name = design
        self.trace = TraceWriter(trace_dir(run_dir), proc, design)
        self.hooks = Hooks(run_dir, proc)
        self.zk = KazooClient(hosts=zk_hosts, timeout=timeout)
        self.session_timeout = timeout
        self.ident = f"{proc.split('-', 1)[0].replace('rs', 'regionserver')}:{os.getpid()}"
        """The identifier in the metadata prefix of the values written as HBase 2.x does."""
        self.fence_path = ""
        self.fence_data = b""
        self.fence_version = 0
        """The fence znode's version after our last transaction (0 when just created)."""
        self.txn_lock = threading.Lock()
        self.stopping = threading.Event()
        self._aborting = threading.Lock()
        self.lock = threading.RLock()
        self.zk.add_listener(self._on_state)
        self._connect()

    def _connect(self) -> None:
        """Connect, waiting out an ensemble that has no quorum for a while (a leader fault on
        a loaded machine): a process that gave up at its start would stall the run, as a
        master or region server that cannot reach ZooKeeper keeps retrying. The driver's death
        still ends the wait."""
        while True:
            try:
                self.zk.start(timeout=30)
                return
            except (KazooTimeoutError, ConnectionLoss):
                # a connection lost right after it was made (kazoo's check of the chroot) is
                # the same wait: the ensemble is electing a leader
                if orphaned():
                    raise
                log("no ZooKeeper quorum yet; retrying")
                with contextlib.suppress(Exception):
                    self.zk.stop()

    def _on_state(self, state: str) -> None:
        if state == KazooState.LOST and self.fence_path and not self.stopping.is_set():
            threading.Thread(target=self.abort, args=("session lost",), daemon=True).start()

    def abort(self, why: str) -> NoReturn:
        """Stop at once, as a region server that finds its session expired aborts. Only the first
        thread to get here records it; any other waits for the exit."""
        if not self._aborting.acquire(blocking=False):
            while True:
                time.sleep(1.0)
        try:
            self.trace.meta("fenced", why=why)
            self.trace.meta("process_exit", code=1)
        finally:
            os._exit(1)

    def retry(
        self, fn: Callable[[], Any], *, seconds: float = 60.0, expire_aborts: bool = True
    ) -> Any:
        """Run a ZooKeeper call, retrying while the connection is lost (a leader election);
        an expired session means we are fenced (abort, or raise ``SessionExpiredError`` for a
        caller that records something first)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                return fn()
            except SessionExpiredError:
                if not expire_aborts:
                    raise
                self.abort("session expired")
            except (ConnectionLoss, OperationTimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def txn(self, build: Callable[[Any], None], fenced: Callable[[], None] | None = None) -> int:
        """One fenced ``multi``: set the fence znode (conditional on its version), then
        ``build``'s operations. Returns the transaction's zxid; raises ``TxnFailed`` when an
        operation failed (nothing applied); aborts when the fence is gone, after ``fenced()``
        (what the caller did before the write, recorded as a zombie's).

        Exactly once across a lost connection: the fence's version tells whether a ``multi``
        whose answer was lost did apply (the version moved by one: it did, and the fence's
        ``mzxid`` is its zxid) or not (retry). Only this process writes its fence, one
        transaction at a time."""
        with self.txn_lock:
            expected = self.fence_version
            deadline = time.monotonic() + 60.0
            while True:
                try:
                    t = self.zk.transaction()
                    t.set_data(self.fence_path, self.fence_data, version=expected)
                    build(t)
                    results = t.commit()
                except SessionExpiredError:
                    self._fenced(fenced, "session expired")
                except (ConnectionLoss, OperationTimeoutError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
                    stat = self.retry(lambda: self.zk.exists(self.fence_path))
                    if stat is None:
                        self._fenced(fenced, f"fence {self.fence_path} is gone")
                    if stat.version == expected + 1:  # it applied; its answer was lost
                        self.fence_version = stat.version
                        return stat.mzxid
                    continue
                break
            if results and isinstance(results[0], NoNodeError):
                self._fenced(fenced, f"fence {self.fence_path} is gone")
            if results and isinstance(results[0], BadVersionError):
                self._fenced(fenced, f"fence {self.fence_path} written by someone else")
            if any(isinstance(r, Exception) for r in results):
                raise TxnFailed(results)
            self.fence_version = results[0].version
            return results[0].mzxid

    def _fenced(self, fenced: Callable[[], None] | None, why: str) -> NoReturn:
        if fenced is not None and not self._aborting.locked():
            fenced()
        self.abort(why)

    def create_fence(self, path: str, wait: bool) -> None:
        """Create our ephemeral fence znode. If it exists and is ours (a retried create that had
        applied), fine; if it is another session's: wait for it to go (``wait``, a restarted
        master waiting for the old one's session to expire) or fail."""
        while True:
            try:
                self.retry(lambda: self.zk.create(path, self.fence_data, ephemeral=True))
                break
            except NodeExistsError:
                stat = self.retry(lambda: self.zk.exists(path))
                if stat is not None and stat.ephemeralOwner == self.zk.client_id[0]:
                    break
                if not wait:
                    raise
                time.sleep(0.2)
        self.fence_path = path
        stat = self.retry(lambda: self.zk.exists(path))
        self.fence_version = stat.version
        self.fence_zxid: int = stat.czxid

    def guarded(self, what: str, fn: Callable[[], Any]) -> None:
        """Run one round of a loop; an unexpected error is logged and the loop goes on (the
        process must not die silently: the end-state checker would only see its effects)."""
        try:
            fn()
        except Exception as exc:
            log(f"{what}: {type(exc).__name__}: {exc}")
            traceback.print_exc()
            self.trace.meta("note", what=f"{what} failed", error=f"{type(exc).__name__}: {exc}")
            time.sleep(0.2)

    def served(self, read: Callable[[], R]) -> tuple[R, list[int]]:
        """``read()``'s result and the zxids its ZooKeeper reads were served between: no earlier
        than this session's last reply before them, no later than its last reply after them
        (an event's ``read`` window, docs/validate.md)."""
        lo = self.zk.last_zxid
        out = read()
        return out, [lo, self.zk.last_zxid]

    def children(self, path: str) -> list[str]:
        try:
            return sorted(self.retry(lambda: self.zk.get_children(path)))
        except NoNodeError:
            return []

    def get(self, path: str) -> tuple[bytes, Any] | None:
        try:
            return self.retry(lambda: self.zk.get(path))
        except NoNodeError:
            return None

    def get_json(self, path: str) -> Any:
        got = self.get(path)
        if got is None or not got[0]:
            return None
        return json.loads(got[0])

    def ensure(self, *paths: str) -> None:
        for path in paths:
            self.retry(lambda p=path: self.zk.ensure_path(p))

    def close(self, code: int = 0) -> None:
        self.stopping.set()
        self.trace.meta("process_exit", code=code)
        try:
            self.zk.stop()
            self.zk.close()
        except Exception:
            pass


_PARENT = os.getppid()


def orphaned() -> bool:
    """Has the driver that started this process gone? (Then the process stops by itself, so a
    killed driver leaves nothing running.)"""
    return os.getppid() != _PARENT


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True).encode()


def log(msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {msg}", file=sys.stderr, flush=True)
