"""Drawings of a :class:`~replcheck.conformance.inspect.view.ReplicationView`: the znode tree as
seed 000 draws it, and what HBase's DumpReplicationQueues prints
(``ZKUtil.getReplicationZnodesDump``, and ``--distributed``'s ``dumpQueues`` with its summary).

Every line is made safe for a terminal as a whole (:func:`_lines`): a znode name or value is
anybody's text, and a control or bidirectional character in it is printed as its escape
(``\\u202e``), so one node is one line and reads as its bytes are."""

from __future__ import annotations

import json
from typing import Any

from replcheck.conformance.inspect.checks import Finding, recovery_of
from replcheck.conformance.inspect.view import Queue, ReplicationView, server_parts
from replcheck.conformance.zookeeper.escape import printable
from replcheck.model.render.table import replication_summary

NOT_STARTED = "0 (not started or nothing to replicate)"


def _server_order(name: str) -> tuple[str, int, int, str]:
    """``ServerName`` order: host (case-insensitive), port, start code."""
    parts = server_parts(name)
    if parts is None:
        return (name.lower(), 0, 0, name)
    host, port, start = parts
    num = [int(x) if x.isdigit() else 0 for x in (port, start)]
    return (host.lower(), num[0], num[1], name)


def _lines(lines: list[str], *, strip: bool = False) -> str:
    """``lines`` joined, each escaped by the one escaping function (``escape.printable``); a
    newline inside a name stays inside its line, escaped."""
    return "\n".join(printable(line).rstrip(" ") if strip else printable(line) for line in lines)


def _status(view: ReplicationView, server: str) -> str:
    if server in view.live:
        return ""
    how = recovery_of(view, server)
    if how is None and server in view.scp:
        how = f"SCP {view.scp[server]}"
    return f"   [dead, {how}]" if how else "   [dead]"


def render_tree(view: ReplicationView) -> str:
    """The peers, then ``replication/rs`` as seed 000 draws it: a server, its ``lock``, its
    queues, each WAL with its position; dead servers marked."""
    lines = [f"{view.base}/replication/peers/"]
    for pid, p in sorted(view.peers.items()):
        state = p.state or f"peer-state {p.error or 'missing'}"
        lines.append(f"  {pid}  ({p.cluster_key}, {state})")
    if not view.peers:
        lines.append("  (empty)")
    lines.append(f"{view.base}/replication/rs/")
    for rep in sorted(view.replicators, key=lambda r: _server_order(r.server)):
        lines.append(f"  {rep.server}/{_status(view, rep.server)}")
        if rep.lock is not None:
            dead = "" if rep.lock in view.live else ", dead"
            lines.append(f"    lock  (held by {rep.lock}{dead})")
        for q in rep.queues:
            lines.append(f"    {q.queue_id}/")
            for w in q.wals:
                pos = f"position {w.position}" if w.error is None else f"bad position: {w.error}"
                lines.append(f"      {w.name}  ({pos})")
    for name in view.leftovers:
        lines.append(f"  {name}")
    if not view.replicators and not view.leftovers:
        lines.append("  (empty)")
    return _lines(lines)


def _peers_state(view: ReplicationView) -> list[str]:
    """``dumpPeersState``: one block per peer (the table-CFs map is not read)."""
    lines = ["Dumping replication peers and configurations:"]
    for pid, p in sorted(view.peers.items()):
        lines += [
            f"Peer: {pid}",
            f"    State: {'DISABLED' if p.state == 'DISABLED' else 'ENABLED'}",
            f"    Cluster Name: {p.cluster_key}",
            "    Replication Endpoint: null",
            "    Peer Table CFs: null",
            "    Peer Namespaces: null",
        ]
    return lines


def render_znodes(view: ReplicationView) -> str:
    """DumpReplicationQueues without ``--distributed``: the peers, then
    ``ZKUtil.getReplicationZnodesDump`` (a WAL znode with its position, ``lock`` with its
    holder)."""
    repl = f"{view.base}/replication"
    lines = [*_peers_state(view), "", "Dumping replication znodes via ZooKeeper:", f"{repl}:"]
    lines.append(f"{repl}/peers:")
    for pid, p in sorted(view.peers.items()):
        lines.append(f"{repl}/peers/{pid}: {p.cluster_key}")
        lines.append(f"{repl}/peers/{pid}/peer-state: {p.state or ''}")
    lines.append(f"{repl}/rs:")
    for rep in view.replicators:
        root = f"{repl}/rs/{rep.server}"
        lines.append(f"{root}:")
        if rep.lock is not None:
            lines.append(f"{root}/lock: {rep.lock}")
        for q in rep.queues:
            lines.append(f"{root}/{q.queue_id}:")
            for w in q.wals:
                lines.append(f"{root}/{q.queue_id}/{w.name}: {w.position}")
    return _lines(lines, strip=True)


def _queue_block(server: str, q: Queue, deleted: bool) -> list[str]:
    lines = [
        f"Dumping replication queue info for RegionServer: [{server}]",
        f"    Queue znode: {q.queue_id}",
        f"    PeerID: {q.peer}",
        f"    Recovered: {'true' if q.recovered else 'false'}",
        f"    Dead RegionServers: [{', '.join(q.dead)}]"
        if q.dead
        else "    No dead RegionServers found in this queue.",
        f"    Was deleted: {'true' if deleted else 'false'}",
        f"    Number of WALs in replication queue: {len(q.wals)}",
    ]
    for w in q.wals:
        pos = str(w.position) if w.position and w.position > 0 else NOT_STARTED
        lines.append(f"    Replication position for {w.name}: {pos}")
    return lines


def render_distributed(view: ReplicationView) -> str:
    """DumpReplicationQueues ``--distributed``: per replicator (server-name order) and queue,
    the dead servers its id names and every WAL's position; then ``dumpReplicationSummary``
    (without ``--hdfs`` the WAL sizes are not added up: 0)."""
    lines = [*_peers_state(view), ""]
    deleted: list[str] = []
    dead: list[str] = []
    sizes: dict[str, int] = {}
    for rep in sorted(view.replicators, key=lambda r: _server_order(r.server)):
        if not rep.live:
            dead.append(rep.server)
        for q in rep.queues:
            was_deleted = q.peer not in view.peers
            if was_deleted:
                deleted.append(f"{rep.server}/{q.queue_id}")
            lines += _queue_block(rep.server, q, was_deleted)
            sizes[q.peer] = sizes.get(q.peer, 0) + len(q.wals)
    if len(lines) > len(_peers_state(view)) + 1:
        lines.append("")
    lines += replication_summary(deleted, dead, sizes)
    return _lines(lines, strip=True)


def render_findings(findings: list[Finding]) -> str:
    if not findings:
        return "checks: no violation"
    return _lines(["checks:", *(f"  {f.line()}" for f in findings)])


def view_json(view: ReplicationView, findings: list[Finding]) -> dict[str, Any]:
    """The view and the findings as one JSON object."""
    return {
        "layout": view.layout,
        "base": view.base,
        "source": view.source,
        "zxid": view.zxid,
        "consistent": view.consistent,
        "live": sorted(view.live),
        "master": view.master,
        "peers": {
            pid: {"cluster_key": p.cluster_key, "state": p.state, "error": p.error}
            for pid, p in sorted(view.peers.items())
        },
        "replicators": [
            {
                "server": r.server,
                "live": r.live,
                "lock": r.lock,
                "recovery": None if r.live else recovery_of(view, r.server),
                "queues": [
                    {
                        "queue_id": q.queue_id,
                        "peer": q.peer,
                        "dead": q.dead,
                        "wals": [
                            {"name": w.name, "position": w.position, "error": w.error}
                            for w in q.wals
                        ],
                    }
                    for q in r.queues
                ],
            }
            for r in view.replicators
        ],
        "findings": [f.__dict__ for f in findings],
    }


def dumps(view: ReplicationView, findings: list[Finding]) -> str:
    return json.dumps(view_json(view, findings), sort_keys=True)
