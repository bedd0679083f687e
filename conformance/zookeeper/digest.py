"""ZooKeeper's data tree rebuilt from a snapshot and transaction logs, with its tree digest.

:class:`DataTree` applies transactions as ZooKeeper's ``DataTree.processTxn`` does (creates with
the parent's cversion and pzxid rules of a fuzzy snapshot, deletes, setData, setACL, session
closes with their ephemeral nodes, multis, and failed multis as no-ops) and keeps the digest
ZooKeeper 3.9 logs after every transaction (``DigestCalculator`` version 2, summed as
``NodeHashMapImpl``/``AdHash`` do): for every node outside ``/zookeeper/``, the CRC32 of its path
(``""`` for the root), its data and its stat (czxid, mzxid, pzxid, ctime, mtime, version,
cversion, aversion, ephemeralOwner), added up as a 64-bit signed sum.

:func:`replay` starts from a data directory's earliest snapshot (or the empty tree) and yields,
for each later transaction, the digest after it and whether it matches the logged one. A digest
that matches after every transaction is the proof that the tree and every stat field were rebuilt
exactly. Comparisons start where ZooKeeper's do: a snapshot is fuzzy until the zxid of the digest
it recorded, and transactions before that zxid are applied but not compared.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.zookeeper.snapshot import (
    Snapshot,
    StatPersisted,
    read_snapshot,
    snapshot_files,
)
from replcheck.conformance.zookeeper.txnlog import ACL, OpCode, Txn, ZkLogError, log_files, read_log

__all__ = ["DIGEST_VERSION", "DataTree", "Node", "Replay", "Step", "node_digest", "replay"]

DIGEST_VERSION = 2
ZOOKEEPER_SUBTREE = "/zookeeper/"
"""Nodes under it count for nothing in the digest (the quota and config nodes)."""
CONTAINER_OWNER = -(1 << 63)
_EXTENDED_MASK = 0xFF << 56
_MASK64 = (1 << 64) - 1
_DIGEST_STAT = struct.Struct(">qqqqqiiiq")
_NODEEXISTS, _NONODE = -110, -101


def node_digest(path: str, data: bytes | None, stat: StatPersisted) -> int:
    """``DigestCalculator.calculateDigest``: 0 under ``/zookeeper/``, else a CRC32."""
    if path.startswith(ZOOKEEPER_SUBTREE):
        return 0
    crc = zlib.crc32(b"" if path == "/" else path.encode())
    if data:
        crc = zlib.crc32(data, crc)
    s = stat
    packed = _DIGEST_STAT.pack(
        s.czxid, s.mzxid, s.pzxid, s.ctime, s.mtime, s.version, s.cversion, s.aversion,
        s.ephemeral_owner,
    )  # fmt: skip
    return zlib.crc32(packed, crc)


def _signed(v: int) -> int:
    v &= _MASK64
    return v - (1 << 64) if v >> 63 else v


@dataclass(slots=True)
class Node:
    """One node of the rebuilt tree."""

    data: bytes | None
    acl: tuple[ACL, ...] | int | None
    """The ACL list (from a txn), or the snapshot's ACL id for a node loaded from a snapshot."""
    stat: StatPersisted
    children: set[str] = field(default_factory=set)
    digest: int = 0


class _KeeperError(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class DataTree:
    """The data tree: ``nodes`` maps a path (``""`` for the root) to its :class:`Node`."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self._hash = 0
        self.ephemerals: dict[int, set[str]] = {}

    @classmethod
    def empty(cls) -> DataTree:
        """The tree of a new server: the root, ``/zookeeper``, its ``quota`` and ``config``."""
        tree = cls()
        for path in ("", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"):
            tree._put(path, Node(b"", -1, StatPersisted(0, 0, 0, 0, 0, 0, 0, 0, 0)))
            if path:
                parent, _, child = path.rpartition("/")
                tree.nodes[parent].children.add(child)
        tree.nodes["/zookeeper/config"].stat.aversion = -1
        return tree

    @classmethod
    def from_snapshot(cls, snap: Snapshot) -> DataTree:
        """The tree a snapshot holds (reads its nodes, checking its seals)."""
        tree = cls()
        for n in snap.nodes():
            node = Node(n.data, n.acl, n.stat)
            tree._put(n.path, node)
            if n.path:
                parent_path, _, child = n.path.rpartition("/")
                parent = tree.nodes.get(parent_path)
                if parent is None:
                    raise ZkLogError(f"{snap.path}: node {n.path!r} comes before its parent")
                parent.children.add(child)
                tree._track(n.path, n.stat.ephemeral_owner)
        return tree

    @property
    def digest(self) -> int:
        """The tree digest, a signed 64-bit number as ZooKeeper logs it."""
        return _signed(self._hash)

    def get(self, path: str) -> Node | None:
        return self.nodes.get("" if path == "/" else path)

    # --- NodeHashMapImpl ---

    def _put(self, path: str, node: Node) -> None:
        node.digest = node_digest(path, node.data, node.stat)
        old = self.nodes.get(path)
        self.nodes[path] = node
        self._hash += node.digest - (old.digest if old is not None else 0)

    def _pre(self, node: Node) -> None:
        self._hash -= node.digest

    def _post(self, path: str, node: Node) -> None:
        node.digest = node_digest(path, node.data, node.stat)
        self._hash += node.digest

    def _track(self, path: str, owner: int) -> None:
        if owner != 0 and owner != CONTAINER_OWNER and owner & _EXTENDED_MASK != _EXTENDED_MASK:
            self.ephemerals.setdefault(owner, set()).add(path)

    # --- the operations ---

    def _create(
        self, path: str, data: bytes | None, acl: object, owner: int, pcv: int, zxid: int, t: int
    ) -> None:
        parent_path, _, child = path.rpartition("/")
        parent = self.nodes.get(parent_path)
        if parent is None:
            raise _KeeperError(_NONODE)
        if path in self.nodes:
            raise _KeeperError(_NODEEXISTS)
        self._pre(parent)
        if pcv == -1:
            pcv = parent.stat.cversion + 1
        if pcv > parent.stat.cversion:
            parent.stat.cversion = pcv
            parent.stat.pzxid = zxid
        parent.children.add(child)
        self._post(parent_path, parent)
        self._put(path, Node(data, acl, StatPersisted(zxid, zxid, t, t, 0, 0, 0, owner, zxid)))
        self._track(path, owner)

    def _delete(self, path: str, zxid: int) -> None:
        parent_path, _, child = path.rpartition("/")
        parent = self.nodes.get(parent_path)
        if parent is None:
            raise _KeeperError(_NONODE)
        self._pre(parent)
        parent.children.discard(child)
        if zxid > parent.stat.pzxid:
            parent.stat.pzxid = zxid
        self._post(parent_path, parent)
        node = self.nodes.pop(path, None)
        if node is None:
            raise _KeeperError(_NONODE)
        self._hash -= node.digest
        owned = self.ephemerals.get(node.stat.ephemeral_owner)
        if owned is not None:
            owned.discard(path)

    def _change(self, path: str) -> Node:
        node = self.get(path)
        if node is None:
            raise _KeeperError(_NONODE)
        self._pre(node)
        return node

    def _set_cversion_pzxid(self, path: str, cversion: int, zxid: int) -> None:
        path = path.removesuffix("/")
        node = self.nodes.get(path)
        if node is None:
            raise _KeeperError(_NONODE)
        if cversion == -1:
            cversion = node.stat.cversion + 1
        if cversion > node.stat.cversion:
            self._pre(node)
            node.stat.cversion = cversion
            node.stat.pzxid = zxid
            self._post(path, node)

    def apply(self, txn: Txn) -> int:
        """Apply one transaction; returns the error code ZooKeeper's processTxn returns (0 when
        it applied, as for nearly every logged txn)."""
        return self._process(txn.session, txn.zxid, txn.time, txn.type, txn.record)

    def _process(self, session: int, zxid: int, t: int, op: int, r: Any) -> int:
        err = 0
        try:
            if op in (OpCode.create, OpCode.create2):
                owner = session if r.ephemeral else 0
                self._create(r.path, r.data, r.acl, owner, r.parent_cversion, zxid, t)
            elif op == OpCode.createTTL:
                owner = _signed(_EXTENDED_MASK | r.ttl)
                self._create(r.path, r.data, r.acl, owner, r.parent_cversion, zxid, t)
            elif op == OpCode.createContainer:
                self._create(r.path, r.data, r.acl, CONTAINER_OWNER, r.parent_cversion, zxid, t)
            elif op in (OpCode.delete, OpCode.deleteContainer):
                self._delete(r.path, zxid)
            elif op in (OpCode.setData, OpCode.reconfig):
                node = self._change(r.path)
                node.data = r.data
                node.stat.mtime, node.stat.mzxid = t, zxid
                node.stat.version = r.version
                self._post(r.path, node)
            elif op == OpCode.setACL:
                node = self._change(r.path)
                node.stat.aversion, node.acl = r.version, r.acl
                self._post(r.path, node)
            elif op == OpCode.closeSession:
                self._close_session(session, zxid, getattr(r, "paths", None))
            elif op == OpCode.error:
                err = r.err
            elif op == OpCode.multi:
                err = self._multi(session, zxid, t, r.txns)
        except _KeeperError as exc:
            err = exc.code
        if op == OpCode.create and err == _NODEEXISTS:
            try:
                parent = r.path.rpartition("/")[0]
                self._set_cversion_pzxid(parent, r.parent_cversion, zxid)
            except _KeeperError as exc:
                err = exc.code
        return err

    def _close_session(self, session: int, zxid: int, paths: list[str | None] | None) -> None:
        local = self.ephemerals.pop(session, None)
        for path in paths or ():
            with contextlib.suppress(_KeeperError):
                self._delete(path or "", zxid)
            if local is not None:
                local.discard(path or "")
        for path in sorted(local or ()):
            with contextlib.suppress(_KeeperError):
                self._delete(path, zxid)

    def _multi(self, session: int, zxid: int, t: int, subs: list[Any]) -> int:
        errors = [s.record.err if s.record else 0 for s in subs if s.type == OpCode.error]
        if errors:  # a failed multi: ZooKeeper turns every op into an error and applies none
            return next((e for e in errors if e), 0)
        err = 0
        for s in subs:
            sub_err = self._process(session, zxid, t, s.type, s.record)
            if sub_err and not err:
                err = sub_err
        return err


# --- replay -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Step:
    """One replayed transaction."""

    txn: Txn
    digest: int
    """The tree digest after the transaction."""
    check: str
    """``match`` or ``mismatch`` (the logged digest, and the snapshot's where this is its
    zxid); ``fuzzy`` (inside the snapshot's fuzzy range: not compared, as ZooKeeper does not);
    ``none`` (the txn has no digest, or one of another digest version)."""
    err: int
    """What ZooKeeper's processTxn returns for it (0: applied)."""


class Replay:
    """A replay of a data directory (see :func:`replay`); iterate it for the :class:`Step` s.

    Building it reads the snapshot: :attr:`snapshot_check` then says whether the rebuilt tree
    has the digest the snapshot recorded (``match``/``mismatch``), or that the comparison waits
    for a later zxid (``fuzzy``), or that the snapshot recorded none (``none``)."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        log_dir: str | os.PathLike[str] | None = None,
        *,
        snapshot: str | os.PathLike[str] | None = None,
    ) -> None:
        snap_path = Path(snapshot) if snapshot is not None else None
        if snap_path is None:
            snaps = snapshot_files(data_dir)
            snap_path = snaps[0] if snaps else None
        self.files = log_files(log_dir if log_dir is not None else data_dir)
        self.snapshot = snap_path
        self.target: int | None = None  # the zxid where the snapshot's digest is due
        self.target_digest = 0
        self.snapshot_check = "none"
        if snap_path is None:
            self.tree, self.start = DataTree.empty(), -1
            return
        with read_snapshot(snap_path) as snap:
            self.tree = DataTree.from_snapshot(snap)
            self.start = snap.zxid if snap.zxid is not None else -1
            d = snap.digest
        if d is None or d.zxid <= 0 or d.zxid < self.start or d.version != DIGEST_VERSION:
            return  # ZooKeeper compares nothing then (deserializeZxidDigest)
        if d.zxid == self.start:
            ok = self.tree.digest == d.digest
            self.snapshot_check = "match" if ok else "mismatch"
        else:
            self.target, self.target_digest = d.zxid, d.digest
            self.snapshot_check = "fuzzy"

    def __iter__(self) -> Iterator[Step]:
        tree, target = self.tree, self.target
        for file in self.files:
            for txn in read_log(file):
                if txn.zxid <= self.start:
                    continue
                err = tree.apply(txn)
                digest = tree.digest
                ok = True
                if target is not None:
                    if txn.zxid < target:
                        yield Step(txn, digest, "fuzzy", err)
                        continue
                    # the txn the snapshot's digest was taken at (absent: a mismatch)
                    ok = txn.zxid == target and digest == self.target_digest
                    self.snapshot_check = "match" if ok else "mismatch"
                    target = None
                d = txn.digest
                if d is None or d.version != DIGEST_VERSION:
                    check = "none" if ok else "mismatch"
                else:
                    check = "match" if ok and d.tree_digest == digest else "mismatch"
                yield Step(txn, digest, check, err)


def replay(
    data_dir: str | os.PathLike[str],
    log_dir: str | os.PathLike[str] | None = None,
    *,
    snapshot: str | os.PathLike[str] | None = None,
) -> Replay:
    """Rebuild the tree from ``snapshot`` (default: the earliest in ``data_dir``, or the empty
    tree when there is none) and apply every later transaction of the logs in ``log_dir``
    (default: ``data_dir``): iterate the result for a :class:`Step` per transaction."""
    return Replay(data_dir, log_dir, snapshot=snapshot)
