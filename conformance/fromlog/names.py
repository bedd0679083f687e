"""A production cluster's names in its ZooKeeper log, mapped onto the model's.

The model names region servers, WALs and peers as the reference cluster does
(``1.1.1.<n>,60020,<start code>``, ``<address>,60020.<timestamp>``, peer ids from ``2``). An
HBase 2.x cluster's log names them as HBase does:

* a region server ``<host>,<port>,<start code>`` (its live znode ``/hbase/rs/<name>``, its
  replication znode, the dead servers a claimed queue's id carries, a zk-lock ``lock``'s data);
* a WAL ``<url-encoded server name>.<timestamp>`` (``AbstractFSWALProvider``; a ``.meta`` WAL is
  never queued for replication);
* a peer by any id (``/hbase/replication/peers/<id>``, the head of a queue id).

``Names`` gives every server an index by its first appearance in the log, every WAL of a server
its place among that server's WALs by timestamp, and every peer an index by its first
appearance, and rewrites each transaction's paths and data into the model's names. A log whose
names are already the model's is left as it is.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import unquote

from replcheck.conformance.cluster.common import CVERSION_PREFIX, LIVE, PEERS, QUEUES
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.hbase.names import MAX_SERVERS, peer_id, server_index, server_name
from replcheck.conformance.zookeeper.txnlog import OpCode


class NamesError(ValueError):
    """A log whose names cannot be mapped onto the model's."""


def _is_reference(name: str) -> bool:
    try:
        server_index(name)
    except ValueError:
        return False
    return True


class Names:
    """The mapping (see the module docstring), read from the committed transactions."""

    def __init__(self, committed: list[Any], steps: Any) -> None:
        self.steps = steps
        self.servers: dict[str, int] = {}
        self.peers: dict[str, int] = {}
        self.wals: dict[str, str] = {}
        seen_wals: dict[int, set[int]] = {}
        wal_names: list[str] = []
        for txn in committed:
            for path in _paths(txn):
                head, _, name = path.rpartition("/")
                if head == LIVE and name:
                    self._server(name)
                elif head == PEERS and name:
                    self.peers.setdefault(name, len(self.peers))
                parts = path[len(QUEUES) + 1 :].split("/") if path.startswith(QUEUES + "/") else []
                if parts and parts[0].startswith(CVERSION_PREFIX):
                    continue  # the claim's cversion bump: a queue id under /rs, no server
                if parts and "," in parts[0]:
                    self._server(parts[0])
                if len(parts) >= 2 and parts[1] != "lock":
                    self.peers.setdefault(parts[1].split("-", 1)[0], len(self.peers))
                if len(parts) == 3:
                    wal_names.append(parts[2])
        self.identity = all(_is_reference(s) for s in self.servers) and all(
            p.isdigit() and int(p) >= 2 for p in self.peers
        )
        if self.identity:
            return
        if len(self.servers) > MAX_SERVERS:
            raise NamesError(
                f"the log names {len(self.servers)} region servers; the model's names cover "
                f"{MAX_SERVERS}"
            )
        by_server: dict[int, list[tuple[int, str]]] = {}
        for wal in dict.fromkeys(wal_names):
            owner, ts = self._wal_parts(wal)
            s = self._server(owner)
            if ts in seen_wals.setdefault(s, set()):
                continue
            seen_wals[s].add(ts)
            by_server.setdefault(s, []).append((ts, wal))
        for s, wals in by_server.items():
            for seq, (_ts, wal) in enumerate(sorted(wals)):
                self.wals[wal] = steps.wal_name(s, seq)

    def _server(self, name: str) -> int:
        if name not in self.servers:
            if name.count(",") != 2:
                raise NamesError(f"{name!r} is not a region server name (host,port,startcode)")
            self.servers[name] = len(self.servers)
        return self.servers[name]

    @staticmethod
    def _wal_parts(wal: str) -> tuple[str, int]:
        """(owner server name, timestamp) of an HBase WAL file name."""
        prefix, _, ts = wal.rpartition(".")
        owner = unquote(prefix)
        start = owner.rsplit(",", 1)[-1]
        if ts.isdigit() and owner.count(",") == 2 and not start.isdigit() and "." in start:
            raise NamesError(
                f"{wal!r} is a WAL of a region-grouped provider (multiwal: <server>.<group>."
                "<timestamp>); log-only validation takes one WAL group per server"
            )
        if not ts.isdigit() or owner.count(",") != 2 or not start.isdigit():
            raise NamesError(
                f"{wal!r} is not a WAL name of one WAL group (<url-encoded server>.<timestamp>)"
            )
        return owner, int(ts)

    def as_dict(self) -> dict[str, Any]:
        """What was mapped onto what, for the verdict."""
        if self.identity:
            return {}
        return {
            "servers": {n: server_name(i) for n, i in self.servers.items()},
            "peers": {n: peer_id(i) for n, i in self.peers.items()},
            "wals": dict(self.wals),
        }

    # --- rewriting ----------------------------------------------------------------------------

    def server(self, name: str) -> str:
        return server_name(self.servers[name]) if name in self.servers else name

    def queue_id(self, text: str) -> str:
        """``<peer>[-<dead server>...]``: server names may hold ``-`` themselves, so the dead
        servers are matched against the known names."""
        head, _, rest = text.partition("-")
        out = [peer_id(self.peers[head]) if head in self.peers else head]
        while rest:
            match = next((n for n in self.servers if rest == n or rest.startswith(n + "-")), None)
            if match is None:
                raise NamesError(f"queue {text!r} names a dead server the log never names")
            out.append(self.server(match))
            rest = rest[len(match) + 1 :]
        return "-".join(out)

    def path(self, path: str | None) -> str | None:
        if path is None or self.identity:
            return path
        rel = txnread.relative(path)
        root = path[: len(path) - len(rel)]
        head, _, name = rel.rpartition("/")
        if head == LIVE and name:
            return root + f"{LIVE}/{self.server(name)}"
        if head == PEERS and name:
            return root + f"{PEERS}/{peer_id(self.peers[name])}" if name in self.peers else path
        if rel.startswith(PEERS + "/"):
            parts = rel[len(PEERS) + 1 :].split("/")
            if parts[0] in self.peers:
                parts[0] = peer_id(self.peers[parts[0]])
            return root + PEERS + "/" + "/".join(parts)
        if not rel.startswith(QUEUES + "/"):
            return path
        parts = rel[len(QUEUES) + 1 :].split("/")
        if parts[0].startswith(CVERSION_PREFIX):
            return path
        parts[0] = self.server(parts[0])
        if len(parts) >= 2 and parts[1] != "lock":
            parts[1] = self.queue_id(parts[1])
        if len(parts) >= 3:
            parts[2] = self.wals.get(parts[2], parts[2])
        return root + QUEUES + "/" + "/".join(parts)

    def data(self, path: str | None, data: bytes | None) -> bytes | None:
        """A zk-lock ``lock`` holds the claiming server's name."""
        if self.identity or not data or not (path or "").endswith("/lock"):
            return data
        return self.server(data.decode(errors="replace")).encode()

    def rewrite(self, txn: Any) -> Any:
        if self.identity or txn.record is None:
            return txn
        if txn.type == OpCode.closeSession:
            paths = [self.path(p) for p in txn.record.paths or []]
            return dataclasses.replace(txn, record=dataclasses.replace(txn.record, paths=paths))
        if txn.type == OpCode.multi:
            subs = [
                dataclasses.replace(sub, record=self._record(sub.record)) if sub.record else sub
                for sub in txn.record.txns
            ]
            return dataclasses.replace(txn, record=dataclasses.replace(txn.record, txns=subs))
        return dataclasses.replace(txn, record=self._record(txn.record))

    def _record(self, record: Any) -> Any:
        path = getattr(record, "path", None)
        if path is None:
            return record
        changes: dict[str, Any] = {"path": self.path(path)}
        if hasattr(record, "data"):
            changes["data"] = self.data(path, record.data)
        return dataclasses.replace(record, **changes)


def _paths(txn: Any) -> list[str]:
    return [txnread.relative(p) for p in txnread.paths(txn) if p]
