"""Read-only inspection of a cluster's replication znodes: read them (from a live ZooKeeper, or a
snapshot plus logs), decode them, and build the :class:`ReplicationView` that the checks
(``inspect_checks``) judge and the drawings (``inspect_render``) print.

Two layouts are read, both under the znode parent (``/hbase`` by default):

- **HBase 2.x** (reference section 3a): ``rs/<server>`` ephemeral live nodes,
  ``replication/peers/<id>`` (a ``ReplicationPeer`` protobuf) with ``peer-state``
  (a ``ReplicationState``), ``replication/rs/<server>/<queueId>/<wal>`` with the position (a
  ``ReplicationHLogPosition``). Every value carries the metadata prefix that
  ``RecoverableZooKeeper.appendMetaData`` adds: the byte ``0xFF``, a 4-byte big-endian id
  length, the id (``pid@host`` and an 8-byte salt), then ``PBUF`` and the protobuf message
  (decoded in ``inspect_values``).
- **The reference cluster** (``zk-multi`` and ``zk-lock``, see ``cluster/common.py``): the same
  paths,
  plain values (a position in decimal, ``ENABLED``/``DISABLED``, a peer as JSON), and the
  control znodes beside the znode parent (``<parent's parent>/replcheck``): the registered
  servers, the ServerCrashProcedures, the claims the master sent and the admin commands.

Nothing here writes: a live read only calls ``get`` and ``get_children``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from replcheck.conformance.cluster.common import CVERSION_PREFIX
from replcheck.conformance.hbase.names import CFG
from replcheck.conformance.hbase.values import (
    decode_lock,
    decode_peer,
    decode_peer_state,
    decode_position,
    strip_metadata,
)
from replcheck.conformance.hbase.values import fields as _fields
from replcheck.conformance.hbase.values import protobuf_of as _pb
from replcheck.model.common import rules

__all__ = [
    "LAYOUTS",
    "InspectError",
    "Nodes",
    "PeerInfo",
    "Queue",
    "ReplicationView",
    "Replicator",
    "Wal",
    "ZNode",
    "build_view",
    "decode_lock",
    "decode_peer",
    "decode_peer_state",
    "decode_position",
    "nodes_from_tree",
    "read_data_dir",
    "read_live",
    "read_snapshot_logs",
    "strip_metadata",
]

LAYOUTS = ("auto", "hbase", "zk-multi", "zk-lock")
"""``hbase``: HBase 2.x; ``zk-multi``/``zk-lock``: the reference cluster's ZooKeeper designs."""


class InspectError(ValueError):
    """Bad input (unreachable ZooKeeper, missing file, no replication znodes); one line."""


@dataclass(frozen=True, slots=True)
class ZNode:
    data: bytes
    children: tuple[str, ...]
    czxid: int
    mzxid: int
    version: int
    cversion: int
    ephemeral_owner: int


Nodes = dict[str, ZNode]
"""Path -> node, for the subtrees an inspection reads."""


# --- reading ------------------------------------------------------------------------------------


def control_path(base: str) -> str:
    """The reference cluster's control znodes: ``replcheck`` beside the znode parent."""
    parent = base.rstrip("/").rpartition("/")[0]
    return f"{parent}/replcheck"


def roots_of(base: str) -> tuple[str, ...]:
    """The subtrees an inspection reads (not ``hfile-refs`` or serial replication's
    ``regions``, which can be large and are not judged)."""
    b = base.rstrip("/")
    return (f"{b}/rs", f"{b}/master", f"{b}/replication/peers", f"{b}/replication/rs",
            control_path(b))  # fmt: skip


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def nodes_from_tree(tree: Any, base: str) -> Nodes:
    """The inspected subtrees of a rebuilt data tree (``zkdigest.DataTree``)."""
    roots = roots_of(base)
    extra = _ancestors(base)
    out: Nodes = {}
    for path, n in tree.nodes.items():
        p = path or "/"
        if _under(p, roots) or p in extra:
            s = n.stat
            out[p] = ZNode(
                n.data or b"", tuple(sorted(n.children)), s.czxid, s.mzxid, s.version,
                s.cversion, s.ephemeral_owner,
            )  # fmt: skip
    return out


def _ancestors(base: str) -> set[str]:
    parts = base.rstrip("/").split("/")
    return {"/".join(parts[:i]) or "/" for i in range(1, len(parts) + 1)}


def _stamp(nodes: Nodes) -> dict[str, tuple[int, int, int]]:
    return {p: (n.czxid, n.version, n.cversion) for p, n in nodes.items()}


def read_live(zk: Any, base: str, attempts: int = 10) -> tuple[Nodes, bool]:
    """Read the inspected subtrees with ``get``/``get_children`` only, until two reads in a row
    agree on every node (its czxid, version and cversion): every node then stayed as read from
    the end of the first read to the start of the second, so the second read is one consistent
    state of the tree. Returns the nodes and whether such a pair was found."""
    from kazoo.exceptions import NoNodeError

    def walk(path: str, out: Nodes) -> None:
        try:
            data, stat = zk.get(path)
            kids = zk.get_children(path)
        except NoNodeError:
            return
        out[path] = ZNode(
            data or b"", tuple(sorted(kids)), stat.czxid, stat.mzxid, stat.version,
            stat.cversion, stat.ephemeralOwner,
        )  # fmt: skip
        for k in sorted(kids):
            walk(f"{path.rstrip('/')}/{k}", out)

    def once() -> Nodes:
        out: Nodes = {}
        for r in roots_of(base):
            walk(r, out)
        return out

    last = once()
    for _ in range(attempts):
        now = once()
        if _stamp(now) == _stamp(last):
            return now, True
        last = now
    return last, False


def read_snapshot_logs(snapshot: str | os.PathLike[str], logs: str | os.PathLike[str] | None,
                       base: str) -> tuple[Nodes, int | None]:  # fmt: skip
    """The tree of a snapshot, with every later transaction of ``logs`` applied (if given).
    Returns the nodes and the zxid they are as of."""
    from replcheck.conformance.zookeeper.digest import DataTree, replay
    from replcheck.conformance.zookeeper.snapshot import read_snapshot
    from replcheck.conformance.zookeeper.txnlog import ZkLogError

    snap_path = Path(snapshot)
    if not snap_path.is_file():
        raise InspectError(
            f"{snap_path}: " + ("not a file" if snap_path.exists() else "no such file")
        )
    try:
        if logs is None:
            with read_snapshot(snap_path) as snap:
                tree = DataTree.from_snapshot(snap)
                zxid = snap.zxid
            return nodes_from_tree(tree, base), zxid
        if not Path(logs).is_dir():
            raise InspectError(f"{logs}: no such directory")
        r = replay(logs, logs, snapshot=snap_path)
        return _replayed(r, base)
    except ZkLogError as exc:
        raise InspectError(str(exc)) from None


def _replayed(r: Any, base: str) -> tuple[Nodes, int | None]:
    """The tree a replay ends with, and the last zxid it applied (the snapshot's if none)."""
    zxid = r.start if r.start >= 0 else None
    for step in r:
        zxid = step.txn.zxid
    return nodes_from_tree(r.tree, base), zxid


def read_data_dir(data_dir: str | os.PathLike[str], base: str) -> tuple[Nodes, int | None]:
    """A ZooKeeper data directory, loaded as ZooKeeper loads it (``FileSnap.deserialize``): the
    newest snapshot that passes ZooKeeper's quick test and reads whole (one still being written
    is passed over for the one before it), or the empty tree when there is none, plus the logs
    after it."""
    from replcheck.conformance.zookeeper.digest import replay
    from replcheck.conformance.zookeeper.snapshot import is_valid_snapshot, snapshot_files
    from replcheck.conformance.zookeeper.txnlog import ZkLogError, log_files

    d = Path(data_dir)
    if not d.is_dir():
        raise InspectError(f"{d}: " + ("not a directory" if d.exists() else "no such directory"))
    try:
        every = snapshot_files(d)
        snaps = [p for p in every if is_valid_snapshot(p)]
        if every and not snaps:
            raise InspectError(f"{every[-1]}: no snapshot of this directory is whole")
        try:
            log_files(d)
        except ZkLogError:
            if not snaps:
                raise
            return _newest_readable(snaps, lambda s: read_snapshot_logs(s, None, base))
        if not snaps:
            return _replayed(replay(d), base)
        return _newest_readable(snaps, lambda s: _replayed(replay(d, snapshot=s), base))
    except ZkLogError as exc:
        raise InspectError(str(exc)) from None


def _newest_readable(snaps: list[Path], read: Any) -> tuple[Nodes, int | None]:
    """``read`` of the newest snapshot it does not fail on, as ZooKeeper tries them; when every
    one fails, the newest's error."""
    first: Exception | None = None
    for snap in reversed(snaps):
        try:
            return read(snap)
        except (InspectError, ValueError) as exc:
            first = first or exc
    assert first is not None
    raise first


# --- the view -----------------------------------------------------------------------------------


@dataclass
class Wal:
    name: str
    position: int | None
    error: str | None = None


@dataclass
class Queue:
    owner: str
    queue_id: str
    peer: str
    dead: list[str]
    """The dead servers the queue id names, in the order they were claimed."""
    wals: list[Wal]

    @property
    def recovered(self) -> bool:
        return bool(self.dead)


@dataclass
class Replicator:
    """A server's node under ``replication/rs``."""

    server: str
    live: bool
    queues: list[Queue]
    lock: str | None = None
    """The holder named in its ``lock`` znode (``zk-lock``), if there is one."""


@dataclass
class PeerInfo:
    peer_id: str
    cluster_key: str
    state: str | None
    error: str | None = None


@dataclass
class ReplicationView:
    """What one consistent read of the replication znodes shows."""

    layout: str
    """``hbase``, ``zk-multi``, ``zk-lock``, or ``reference`` (the reference cluster, design
    not told by the tree)."""
    base: str
    live: dict[str, int]
    """Live servers (``rs/<server>``) and their sessions."""
    peers: dict[str, PeerInfo]
    replicators: list[Replicator]
    leftovers: list[str] = field(default_factory=list)
    """Other children of ``replication/rs`` (``cversion_*`` bump nodes)."""
    registered: set[str] | None = None
    """The reference cluster's registered servers (None: not the reference cluster)."""
    scp: dict[str, str] = field(default_factory=dict)
    """The reference cluster's ServerCrashProcedures: server -> stage."""
    claims: list[tuple[str, str, str]] = field(default_factory=list)
    """Claims the master sent: (target, dead server, queue id)."""
    removing: set[str] = field(default_factory=set)
    """Peers with a pending remove command."""
    master: str | None = None
    zxid: int | None = None
    consistent: bool = True
    source: str = ""
    session: int | None = None
    """The session a live read used."""


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _kids(nodes: Nodes, path: str) -> tuple[str, ...]:
    n = nodes.get(path)
    return n.children if n is not None else ()


def parse_queue_id(queue_id: str) -> tuple[str, list[str]]:
    """``ReplicationQueueInfo``, as the model's rule parses it: (peer id, dead servers)."""
    return rules.parse_queue_id(CFG, queue_id)


def build_view(nodes: Nodes, base: str = "/hbase", layout: str = "auto") -> ReplicationView:
    """The replication state in ``nodes`` (see :func:`read_live`, :func:`nodes_from_tree`)."""
    b = base.rstrip("/")
    repl, rs_root, ctrl = f"{b}/replication", f"{b}/replication/rs", control_path(b)
    if rs_root not in nodes and f"{repl}/peers" not in nodes and f"{b}/rs" not in nodes:
        raise InspectError(f"no replication znodes under {b} (is the znode parent right?)")
    live = {s: nodes[f"{b}/rs/{s}"].ephemeral_owner for s in _kids(nodes, f"{b}/rs")}
    peers: dict[str, PeerInfo] = {}
    for pid in _kids(nodes, f"{repl}/peers"):
        path = f"{repl}/peers/{pid}"
        info = PeerInfo(pid, decode_peer(nodes[path].data), None)
        st = nodes.get(f"{path}/peer-state")
        if st is not None:
            try:
                info.state = decode_peer_state(st.data)
            except ValueError as exc:
                info.error = str(exc)
        peers[pid] = info
    replicators, leftovers = [], []
    for server in _kids(nodes, rs_root):
        if server.startswith(CVERSION_PREFIX):
            leftovers.append(server)
            continue
        rep = Replicator(server, server in live, [])
        for q in _kids(nodes, f"{rs_root}/{server}"):
            qpath = f"{rs_root}/{server}/{q}"
            if q == "lock":
                rep.lock = decode_lock(nodes[qpath].data)
                continue
            peer, dead = parse_queue_id(q)
            wals = []
            for w in _kids(nodes, qpath):
                try:
                    wals.append(Wal(w, decode_position(nodes[f"{qpath}/{w}"].data)))
                except ValueError as exc:
                    wals.append(Wal(w, None, str(exc)))
            rep.queues.append(Queue(server, q, peer, dead, wals))
        replicators.append(rep)
    view = ReplicationView(layout, b, live, peers, replicators, leftovers)
    master = nodes.get(f"{b}/master")
    if master is not None:
        view.master = _master_name(master.data)
    if ctrl in nodes:
        view.registered = set(_kids(nodes, f"{ctrl}/servers"))
        for s in _kids(nodes, f"{ctrl}/scp"):
            st = _json(nodes[f"{ctrl}/scp/{s}"].data) or {}
            view.scp[s] = str(st.get("stage", "?"))
        for target in _kids(nodes, f"{ctrl}/claims"):
            for req in _kids(nodes, f"{ctrl}/claims/{target}"):
                d = _json(nodes[f"{ctrl}/claims/{target}/{req}"].data) or {}
                if "dead" in d:
                    view.claims.append((target, str(d["dead"]), str(d.get("queue", ""))))
        for req in _kids(nodes, f"{ctrl}/admin"):
            d = _json(nodes[f"{ctrl}/admin/{req}"].data) or {}
            if d.get("op") in ("remove_peer", "remove") and "peer" in d:
                view.removing.add(rules.peer_id(int(d["peer"])))
    view.layout = _detect(view) if layout == "auto" else layout
    return view


def _master_name(raw: bytes) -> str:
    """The active master: HBase's ``Master`` protobuf (field 1, a ``ServerName``: host, port,
    start code), or the reference cluster's fence (no name: ``active``)."""
    try:
        pb = _pb(raw)
        if pb is not None and isinstance(pb.get(1), bytes):
            sn = _fields(pb[1])
            host = sn.get(1, b"").decode("utf-8", "replace")
            return f"{host},{sn.get(2, 0)},{sn.get(3, 0)}"
    except ValueError:
        pass
    return "active"


def _detect(view: ReplicationView) -> str:
    """The layout from what is there: the control znodes mean the reference cluster (a lock
    znode means ``zk-lock``, a claim sent or an SCP at its claim stage ``zk-multi``); else
    HBase 2.x."""
    if view.registered is None:
        return "hbase"
    if any(r.lock is not None for r in view.replicators):
        return "zk-lock"
    if view.claims or "claim" in view.scp.values():
        return "zk-multi"
    return "reference"


def server_parts(name: str) -> tuple[str, str, str] | None:
    """``host,port,startcode`` of a server name, or None."""
    parts = name.split(",")
    if len(parts) != 3:
        return None
    return parts[0], parts[1], parts[2]


def wal_of(wal: str, server: str) -> bool | None:
    """Is ``wal`` a WAL of ``server``? Its name (URL-decoded) starts ``host,port.`` (seed 000's
    ``address,port.timestamp``) or ``host,port,startcode`` (HBase 2.x's server-name prefix).
    None when ``server`` is not a server name."""
    parts = server_parts(server)
    if parts is None:
        return None
    host, port, start = parts
    name = unquote(wal)
    if name.startswith(f"{host},{port}."):
        return True
    prefix = f"{host},{port},"
    if name.startswith(prefix):
        return name[len(prefix) :].split(".", 1)[0] == start
    return False
