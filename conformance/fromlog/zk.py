"""A ZooKeeper-era run's trace from its ZooKeeper transaction logs alone.

An operator's cluster records no trace; its ZooKeeper data directory keeps every write to the
replication queues. ``log_trace`` reads the committed transactions and turns each write of the
replication znodes into the step that makes it (the recognisers of ``txnread``):

* a server's session is the server's: the session that creates its live znode
  (``/hbase/rs/<server>``) writes for it, and the ``closeSession`` that deletes that znode is its
  death (``crash``); the session that creates ``/hbase/master`` is the master's;
* ``/hbase/replication/rs/<server>`` created: ``join``; deleted by the master: ``scp_finish``;
* a queue for a peer created with its WAL (``peer_sync``), or deleted (the peer's removal,
  ``peer_sync``); a WAL znode of the server's own created in its queues (``roll``);
* a position written (``persist``); a WAL znode deleted with its queue left (``advance``); a
  claimed queue deleted with its last WAL (``finish``);
* a claim: one multi that creates the claimed queue under the claimer and deletes the dead
  server's (``claim_commit``; zk-lock's ``lock``, ``copy_queue`` and ``finish_claim``); a lock
  deleted alone (zk-lock's ``lock_cleaner``, HBASE-16144);
* a peer's znode created or deleted, its ``peer-state`` set (``add_peer``, ``remove_peer``,
  ``enable_peer``, ``disable_peer``).

Any other write under ``/hbase/replication`` is an ``unmodelled`` event that names it, and keeps
the verdict from ``accepted``.

Reads, and everything outside ZooKeeper (client writes, batches shipped, the log cleaner's
files), are not in the log. The edits are told apart by the positions: every offset the log ever
writes for a WAL is an entry boundary, so a WAL holds (at least) as many entries as it has
distinct offsets past 0, and an offset is the number of boundaries up to it (``Boundaries``).
One ``put`` per entry is placed in its server's writer lane before the first step that needs it
(and before the WAL's roll and its server's death); the batches a source ships to reach a
written position are the validator's to compose (``mapping``, events marked ``LOG_ONLY``); the
claim reads are hidden steps. After each storage step the validator holds the model's queues
against the queues the log rebuilt (``storage``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.cluster.common import CVERSION_PREFIX, LIVE, MASTER, PEERS, QUEUES, REPL
from replcheck.conformance.fromlog import names as txnnames
from replcheck.conformance.fromlog import procs as txnprocs
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.fromlog import table as txntrace_table
from replcheck.conformance.hbase.names import peer_index, server_index, server_name
from replcheck.conformance.hbase.values import decode_peer_state, decode_position
from replcheck.conformance.trace.event import Event, events_of
from replcheck.conformance.validate.mapping import at_reads
from replcheck.conformance.zookeeper.txnlog import OpCode
from replcheck.model.common.state import DISABLED, ENABLED, GLOBAL

Raw = dict[str, Any]
"""An event as this module builds it, before it is read as an ``Event``."""

LOG_ONLY = "txn-log only"
"""``detail.from`` of every event ``log_trace`` makes."""

Storage = tuple[tuple[int, int, tuple[tuple[int, tuple[int, ...], tuple], ...]], ...]
"""The queues, as the validator compares them: per ``/hbase/replication/rs/<server>`` znode
(by server index), its lock holder (``-1``: none) and its queues as (peer, chain, sorted (WAL
key, entries) pairs)."""


class LogTraceError(ValueError):
    """The logs cannot be read as a trace: no committed transaction, or names outside the
    reference cluster's."""


@dataclass
class LogTrace:
    """What ``log_trace`` read."""

    events: list[Event]
    storage: dict[int, Storage] = field(default_factory=dict)
    """Event index (of a storage event) -> the queues right after its transaction."""
    transactions: int = 0
    damaged: list[str] = field(default_factory=list)
    """Always empty: a damaged log is a ``LogTraceError`` (kept for the callers that read it)."""
    names: dict[str, Any] = field(default_factory=dict)
    """The cluster's names mapped onto the model's (``txnnames``), when they differ."""


class Boundaries:
    """Per WAL, the byte offsets the log writes, in order: the entries the log tells apart."""

    def __init__(self) -> None:
        self.offsets: dict[str, set[int]] = {}

    def add(self, wal: str, offset: int) -> None:
        if offset > 0:
            self.offsets.setdefault(wal, set()).add(offset)

    def freeze(self) -> None:
        self.index = {
            w: {o: i + 1 for i, o in enumerate(sorted(s))} for w, s in self.offsets.items()
        }

    def entry(self, wal: str, offset: int) -> int:
        return 0 if offset <= 0 else self.index[wal][offset]

    def entries(self, wal: str) -> int:
        return len(self.offsets.get(wal, ()))


def _split(path: str) -> list[str] | None:
    """The parts of a path below ``/hbase/replication/rs``, or None."""
    marker = QUEUES + "/"
    return path[len(marker) :].split("/") if path.startswith(marker) else None


def _position(data: bytes | None) -> int:
    if not data:
        return 0
    try:
        return decode_position(data)
    except ValueError:
        return -1


def _sessions(committed: list[Any]) -> dict[int, str]:
    """Session -> the process it writes for (see the module docstring)."""
    out: dict[int, str] = {}
    for txn in committed:
        for kind, path, _data in txnread.ops(txn):
            head, _, name = path.rpartition("/")
            if kind == "create" and head == LIVE and name:
                out[txn.session] = f"rs-{name}"
            elif kind == "create" and path == MASTER:
                out[txn.session] = "master"
    return out


HFILE_REFS = REPL + "/hfile-refs"
"""``/hfile-refs/<peer id>/<hfile>``: bulk-loaded files still to be replicated to a peer
(``ZKReplicationQueueStorage.addHFileRefs``; the peer's own znode, ``addPeerToHFileRefs``)."""
REGIONS = REPL + "/regions"
"""``/regions/<ab>/<cd>/<rest of the encoded region name>-<peer id>``: serial replication's
last pushed sequence id of a region for a peer (a position value), written in the same multi
as a queue position (``setWALPosition``)."""


def _unmodelled_family(kind: str, path: str, data: bytes | None) -> str:
    """Why a write of ``hfile-refs`` or ``regions`` has no model step (the model has neither
    bulk loads nor serial peers yet), or ``""`` for a write the model needs no step for (the
    znodes of the families themselves, a peer's hfile-refs znode)."""
    if path.startswith(HFILE_REFS + "/"):
        parts = path[len(HFILE_REFS) + 1 :].split("/")
        if len(parts) == 2:
            verb = "queued for" if kind == "create" else "done for"
            return (
                f"bulk-loaded file {parts[1]} {verb} peer {parts[0]}: the model has no bulk loads"
            )
        return ""
    if path.startswith(REGIONS + "/"):
        parts = path[len(REGIONS) + 1 :].split("/")
        if len(parts) == 3 and "-" in parts[2]:
            rest, _, peer = parts[2].rpartition("-")
            region = parts[0] + parts[1] + rest
            seq = f" {_position(data)}" if kind != "delete" else ""
            return (
                f"last pushed sequence id{seq} of region {region} for peer {peer} ({kind}): the "
                "model has no serial peers"
            )
    return ""


STRUCTURE = (REPL + "/", QUEUES, PEERS, HFILE_REFS, REGIONS)
"""Znodes every cluster creates once, before any replication step (the master's bootstrap)."""


def _steps(
    txn: Any, proc: str, tree: dict[str, Any], steps: Any
) -> Iterator[tuple[str, dict, dict]]:
    """(step, args, detail) of one transaction's writes of the replication znodes; ``tree``:
    the znodes before it."""
    ops = [
        (k, p, d)
        for k, p, d in txnread.ops(txn)
        if p.startswith(REPL + "/") and not (k == "create" and p in STRUCTURE)
    ]
    if not ops:
        return
    for k, p, d in ops:
        what = _unmodelled_family(k, p, d)
        if what:
            yield "unmodelled", {}, {"why": what}
    ops = [(k, p, d) for k, p, d in ops if not p.startswith((HFILE_REFS, REGIONS))]
    if not ops:
        return
    rs_ops = [(k, _split(p), d) for k, p, d in ops if _split(p) is not None]
    rs_ops = [(k, parts, d) for k, parts, d in rs_ops if not parts[0].startswith(CVERSION_PREFIX)]
    peer_ops = [(k, p, d) for k, p, d in ops if p.startswith(PEERS + "/")]
    created_queues = [(p, d) for k, p, d in rs_ops if k == "create" and len(p) == 2]
    deleted_queues = [p for k, p, d in rs_ops if k == "delete" and len(p) == 2]
    locks = [(p, d) for p, d in created_queues if p[1] == "lock"]
    if locks:
        (parts, data), holder = locks[0], (locks[0][1] or b"").decode(errors="replace")
        yield "lock", {"server": server_index(holder), "dead": server_index(parts[0])}, {}
        return
    if proc == "master" and len(deleted_queues) == 1 and deleted_queues[0][1] == "lock":
        # zk-lock's lock cleaner chore (HBASE-16144): a lock whose holder died, removed
        yield "lock_cleaner", {"dead": server_index(deleted_queues[0][0])}, {}
        return
    dead = txnread.claim_finished(txn)
    if dead is not None and proc.startswith("rs-"):
        yield "finish_claim", {"server": server_index(proc[3:]), "dead": server_index(dead)}, {}
        return
    if created_queues and not deleted_queues and not created_queues[0][0][1].isdigit():
        (parts, _) = created_queues[0]
        _peer, chain = steps.parse_zk_queue_id(parts[1])
        args = {"server": server_index(parts[0]), "dead": chain[-1], "queue": None}
        yield "copy_queue", args, {"queue": parts[1]}
        return
    claim = txnread.claimed(txn)
    if claim is not None:
        server, queue, old = claim
        yield "claim_commit", {"server": server_index(server)}, {"queue": queue, "old": old}
        return
    if deleted_queues:
        parts = deleted_queues[0]
        wals = [p[2] for k, p, _ in rs_ops if k == "delete" and len(p) == 3 and p[:2] == parts]
        args = {"server": server_index(parts[0])}
        if not _peer_present(tree, parts[1]) and not parts[1].isdigit():
            # a claimed queue of a removed peer, deleted by its claimer (or by the source it
            # started before it saw the removal, which the trace records as ``finish``)
            yield "drop_claimed_queue", {**args, "queue": -1}, {"queue": parts[1]}
            return
        if parts[1].isdigit():
            yield "peer_sync", {**args, "peer": peer_index(parts[1])}, {"queue": parts[1]}
        else:
            yield "finish", args, {"queue": parts[1], "wal": wals[0] if wals else ""}
        return
    if created_queues:
        parts, _ = created_queues[0]
        if parts[1].isdigit():
            if not any(k == "create" and len(p) == 3 and p[:2] == parts for k, p, _ in rs_ops):
                return  # HBase's createWithParents: the queue alone, its WAL comes next
            args = {"server": server_index(parts[0]), "peer": peer_index(parts[1])}
            yield "peer_sync", args, {"queue": parts[1]}
            return
    rolled = txnread.rolled(txn)
    if rolled is not None:
        server, wal = rolled
        queue = next(p[1] for k, p, _ in rs_ops if k == "create" and len(p) == 3 and p[2] == wal)
        queued = {
            path.rsplit("/", 1)[1]
            for path in tree
            if path.startswith(f"{QUEUES}/{server}/") and path.count("/") == 6
        }
        if not any(path.startswith(f"{QUEUES}/{server}/{queue}/") for path in tree):
            # the first WAL of a queue created alone before it (createWithParents)
            args = {"server": server_index(server), "peer": peer_index(queue)}
            yield "peer_sync", args, {"queue": queue}
        elif wal not in queued:
            yield "roll", {"server": server_index(server), "group": 0}, {"wal": wal}
        # else: a roll's WAL added to one more of the server's queues (HBase 2.x adds it to
        # each queue in a transaction of its own; ``_atomic_adds`` keeps them together)
        return
    for k, parts, data in rs_ops:
        if len(parts) == 3 and k == "delete":
            detail = {"queue": parts[1], "wal": parts[2]}
            yield "advance", {"server": server_index(parts[0])}, detail
            return
        if len(parts) == 3 and k == "set":
            detail = {"queue": parts[1], "wal": parts[2], "position": _position(data)}
            yield "persist", {"server": server_index(parts[0])}, detail
            return
        if len(parts) == 1 and k == "delete" and proc == "master":
            yield "scp_finish", {"dead": server_index(parts[0])}, {}
            return
        if len(parts) == 1 and k == "create":
            yield "join", {"server": server_index(parts[0])}, {}
            return
    for k, path, data in peer_ops:
        head, _, name = path.rpartition("/")
        if head == PEERS and name.isdigit() and k in ("create", "delete"):
            step = "add_peer" if k == "create" else "remove_peer"
            yield step, {"peer": peer_index(name)}, {}
            return
        if name == "peer-state" and k == "set":
            try:
                state = decode_peer_state(data or b"")
            except ValueError:
                break
            step = "enable_peer" if state == "ENABLED" else "disable_peer"
            yield step, {"peer": peer_index(head.rpartition("/")[2])}, {}
            return
    what = "; ".join(f"{k} {p}" for k, p, _ in ops)
    yield "unmodelled", {}, {"why": f"no model step writes this: {what}"}


def _peer_present(tree: dict[str, Any], queue_id: str) -> bool:
    """Is the peer of a queue (by its id) in the peers znode?"""
    return f"{PEERS}/{queue_id.split('-', 1)[0]}" in tree


def _storage(tree: dict[str, bytes | None], bounds: Boundaries, steps: Any) -> Storage:
    """The queues of ``tree`` (path -> data below ``/hbase/replication``), in the model's terms.
    Queues of a peer no longer in the peers znode are left out, here and in the model's
    (``model_storage``): every party drops them, each in its own time (a claimer a claimed one
    in a transaction of its own, ``drop_claimed_queue``; a server the rest when it sees the
    removal)."""
    nodes: dict[int, dict[str, Any]] = {}
    for path, data in tree.items():
        parts = _split(path)
        if parts is None or parts[0].startswith(CVERSION_PREFIX):
            continue
        if len(parts) >= 2 and parts[1] != "lock" and not _peer_present(tree, parts[1]):
            nodes.setdefault(server_index(parts[0]), {"lock": -1, "queues": {}})
            continue
        s = server_index(parts[0])
        node = nodes.setdefault(s, {"lock": -1, "queues": {}})
        if len(parts) == 2 and parts[1] == "lock":
            node["lock"] = server_index((data or b"").decode(errors="replace"))
        elif len(parts) >= 2:
            node["queues"].setdefault(parts[1], [])
        if len(parts) == 3:
            entries = bounds.entry(parts[2], _position(data))
            node["queues"][parts[1]].append((steps.parse_wal(parts[2]), entries))
    return tuple(
        (
            s,
            node["lock"],
            tuple(
                sorted(
                    (*steps.parse_zk_queue_id(q), tuple(sorted(w)))
                    for q, w in node["queues"].items()
                )
            ),
        )
        for s, node in sorted(nodes.items())
    )


def _peers(tree: dict[str, Any]) -> tuple[int, ...]:
    """The peers in storage (their znodes), by index."""
    return tuple(
        sorted(peer_index(p.rsplit("/", 1)[1]) for p in tree if p.rpartition("/")[0] == PEERS)
    )


def model_storage(st: Any) -> tuple[tuple[int, ...], Any]:
    """The model's storage in the terms the log's is read in: the peers in storage (present or
    not: a disable is deferred to the peer's next admin event, ``mapping.DEFERRED``), and the
    queues as ``_storage`` reads them (table era: its rows, as ``txntrace_table.storage``, and
    the master's procedures, as ``txnprocs`` reads them)."""
    peers = tuple(p for p, status in enumerate(st.peers) if status in (ENABLED, DISABLED))
    if hasattr(st, "rows"):
        return peers, txntrace_table.model_storage(st), txnprocs.model_procedures(st)
    return peers, _model_queues(st)


def _model_queues(st: Any) -> Storage:
    out = []
    for s, node in enumerate(st.rs):
        if not node:
            continue
        queues = tuple(
            sorted(
                (q.peer, q.chain, tuple(sorted(q.wals)))
                for q in node.queues
                if st.peers[q.peer] in (ENABLED, DISABLED)
            )
        )
        out.append((s, node.lock, queues))
    return tuple(out)


def storage_fits(model: Any, real: Any) -> bool:
    """Does the model's storage (``model_storage``) fit the log's at a storage event?"""
    if model == real:
        return True
    return len(real) > 2 and model[:2] == real[:2] and txnprocs.fits(model[2], real[2])


def storage_diff(model: Any, real: Any) -> list[str]:
    """What the model's queues and the log's differ in, one line each (the first ten)."""

    def facts(storage: Storage) -> set[str]:
        out = set()
        for item in storage:
            if len(item) == 4:  # a table-era row
                peer, owner, source, offsets = item
                row = f"row of peer {peer}, owner {owner}" + (
                    f", source {source}" if source >= 0 else ""
                )
                out.add(row)
                out.update(f"{row}: group {g} at WAL seq {q}, entry {p}" for g, q, p in offsets)
                continue
            s, lock, queues = item
            out.add(f"server {s}: znode" + (f", lock held by {lock}" if lock >= 0 else ""))
            for peer, chain, wals in queues:
                name = f"server {s}: queue of peer {peer}" + (
                    f" claimed from {chain}" if chain else ""
                )
                out.add(name)
                out.update(f"{name}: WAL {key} at entry {entries}" for key, entries in wals)
        return out

    m, r = facts(model[1]), facts(real[1])
    if len(model) > 2:
        m.update(txnprocs.facts(model[2]))
        procs = real[2][0] if isinstance(real[2], txnprocs.Either) else real[2]
        r.update(txnprocs.facts(procs))
    m.update(f"peer {p} in storage" for p in model[0])
    r.update(f"peer {p} in storage" for p in real[0])
    lines = [f"the log has, the model not: {f}" for f in sorted(r - m)]
    lines += [f"the model has, the log not: {f}" for f in sorted(m - r)]
    return lines[:10] or ["the same facts, in another shape"]


def log_dirs(path: Path) -> tuple[list[Path], str | None]:
    """The transaction-log directories and the chroot of a run folder (its ``zk-txnlog``) or of
    a ZooKeeper data directory (every folder holding ``log.*`` files)."""
    if (path / "zk-txnlog").is_dir():
        return txnread.logs(path), txnread.chroot(path)
    return sorted({p.parent for p in path.rglob("log.*")}), None


def log_trace(path: Path, design: str, steps: Any) -> LogTrace:
    """The trace of the run whose logs ``path`` holds (see the module docstring)."""
    try:
        dirs, chroot = log_dirs(path)
        if not dirs:
            raise LogTraceError(f"{path}: no ZooKeeper transaction log (log.*) under it")
        committed = txnread.committed(dirs, chroot)
    except txnread.TxnLogDamaged as exc:  # a damaged log is bad input, never a verdict
        raise LogTraceError(str(exc)) from None
    return trace_of(committed, design, steps, str(path))


def trace_of(committed: list[Any], design: str, steps: Any, where: str = "") -> LogTrace:
    """The trace of committed transactions (``log_trace``; ``where`` names them in errors)."""
    table = steps.era == "table"
    try:
        names = txnnames.Names(committed, steps)
    except txnnames.NamesError as exc:
        raise LogTraceError(f"{where}: {exc}") from None
    committed = [names.rewrite(t) for t in committed]
    slots = _atomic_adds(committed)
    procs = _sessions(committed)
    bounds = Boundaries()
    for txn in committed:
        for kind, path_, data in txnread.ops(txn):
            if kind in ("create", "set"):
                for wal, offset in _offsets(path_, data, table):
                    bounds.add(wal, offset)
    bounds.freeze()
    out = LogTrace([], transactions=len(committed), names=names.as_dict())
    tree: dict[str, bytes | None] = {}
    numbers: dict[tuple[str, str], int] = {}
    procedures = txnprocs.LogProcedures(steps)
    for slot in slots:
        found: list[tuple[Any, str, str, dict, dict]] = []
        for txn in slot:
            proc = procs.get(txn.session) or txnread.writer(txn) or "zookeeper"
            if txn.type == OpCode.closeSession:
                for p in txnread.paths(txn):
                    head, _, name = txnread.relative(p).rpartition("/")
                    if head == LIVE and name:
                        found.append(
                            (txn, f"rs-{name}", "crash", {"server": server_index(name)}, {})
                        )
                        procedures.crash(server_index(name))
                    elif txnread.relative(p) == MASTER:
                        found.append((txn, proc, "fault", {}, {"fault": "master-restart"}))
                        procedures.master_died(tree)
                    tree.pop(txnread.relative(p), None)
            else:
                read = (
                    txntrace_table.steps_of(txn, proc, tree)
                    if table
                    else _steps(txn, proc, tree, steps)
                )
                found.extend((txn, proc, *step) for step in read)
            written = txnread.ops(txn)
            txnread.apply(tree, written)
            procedures.seen(written)
        # the storage after the slot: a roll's WAL added to every queue (``_atomic_adds``)
        for txn, proc, name, args, detail in found:
            detail = {**detail, "from": LOG_ONLY}
            if "position" in detail:
                detail["entry"] = bounds.entry(detail["wal"], detail["position"])
            if "queue" in detail and name != "claim_commit" and name != "peer_sync":
                key = (proc, detail["queue"])
                args = {**args, "shipper": numbers.setdefault(key, len(numbers))}
            kind = "meta" if name in ("fault", "unmodelled", "claim_failed") else "action"
            e = _event(proc, txn, kind, name, args, detail, design)
            if table:
                rows = txntrace_table.storage(tree, bounds, steps)
                e["_storage"] = (_peers(tree), rows, procedures.now(tree))
            else:
                e["_storage"] = (_peers(tree), _storage(tree, bounds, steps))
            out.events.append(e)
    events = out.events
    if table:
        events = txntrace_table.rolls(events, steps, _made)
    events = _with_puts(events, bounds, steps)
    out.storage = {n: e.pop("_storage") for n, e in enumerate(events) if "_storage" in e}
    out.events = events_of(events)  # each read once as an ``Event``
    if table:
        txnprocs.window(out.events, out.storage, at_reads(out.events))
    return out


def _atomic_adds(committed: list[Any]) -> list[list[Any]]:
    """The transactions with each roll's WAL additions kept together: HBase 2.x adds a new WAL
    to each of the server's queues in a transaction of its own, where the model (and the
    reference cluster, in one multi) adds it to all at once; a later addition of the same WAL by
    the same session is moved to right after the earlier ones (no other party writes a live
    server's queues): the transactions in slots, each the transactions of one step."""
    slots: list[list[Any]] = []
    group: dict[tuple[int, str], int] = {}
    wals: dict[tuple[str, str], int] = {}
    """(server, queue) -> WAL znodes in it."""
    for txn in committed:
        rolled = None
        for kind, path, _data in txnread.ops(txn):
            parts = _split(path)
            if parts is None or len(parts) != 3:
                continue
            key = (parts[0], parts[1])
            if kind == "create":
                if wals.get(key) and parts[1].isdigit() and txn.type == OpCode.create:
                    rolled = (txn.session, parts[2])  # a queue's next WAL: a roll's
                wals[key] = wals.get(key, 0) + 1
            elif kind == "delete":
                wals[key] = wals.get(key, 1) - 1
        if rolled is not None and rolled in group:
            slots[group[rolled]].append(txn)
            continue
        if rolled is not None:
            group[rolled] = len(slots)
        slots.append([txn])
    return slots


def _offsets(path: str, data: bytes | None, table: bool) -> list[tuple[str, int]]:
    """(WAL, offset) of each position a write names."""
    if table:
        return txntrace_table.offsets_written(path, data)
    parts = _split(path)
    return [(parts[2], _position(data))] if parts is not None and len(parts) == 3 else []


def _made(like: Raw, proc: str, name: str, args: dict) -> Raw:
    """A step no write shows, put in beside ``like``: no zxid, in ``proc``'s order."""
    out = {k: v for k, v in like.items() if k != "_storage"}
    out.update(proc=proc, kind="action", name=name, args=args, zxid=None)
    out["detail"] = {"from": LOG_ONLY}
    return out


def _event(proc: str, txn: Any, kind: str, name: str, args: dict, detail: dict, design: str):
    return {
        "v": 1,
        "proc": proc,
        "pid": 0,
        "seq": None,
        "t": txn.time / 1000.0,
        "kind": kind,
        "name": name,
        "args": args,
        "zxid": txn.zxid,
        "design": design,
        "detail": detail,
    }


def _with_puts(events: list[Raw], bounds: Boundaries, steps: Any) -> list[Raw]:
    """The events with one ``put`` per entry of each WAL (see the module docstring), each before
    the first event that needs it: a step writing an offset at or past it, the WAL's roll to the
    next, its server's death."""
    at: dict[int, list[Raw]] = {}
    before_count: dict[int, int] = {}
    for wal in sorted(bounds.offsets, key=steps.parse_wal):
        s, g, seq = steps.parse_wal(wal)
        stop = len(events)
        for n, e in enumerate(events):
            if (e.get("args") or {}).get("server") != s:
                continue
            if e["name"] == "crash" or (
                e["name"] == "roll" and steps.parse_wal(e["detail"]["wal"])[2] > seq
            ):
                stop = n
                break
        need: dict[int, int] = {}
        for n, e in enumerate(events):
            d = e.get("detail") or {}
            if d.get("wal") == wal and "entry" in d:
                need.setdefault(d["entry"], n)
        written = before_count.get(s, 0)
        for i in range(1, bounds.entries(wal) + 1):
            n = min([stop, *(v for k, v in need.items() if k >= i)])
            put = _made(events[min(n, len(events) - 1)], f"rs-{server_name(s)}", "put", {})
            put["args"] = {"server": s, "group": g, "kind": GLOBAL}
            put["detail"].update(uid=f"0.{s}.{seq}.{written}", wal=wal, owed=[])
            written += 1
            at.setdefault(n, []).append(put)
        before_count[s] = written
    out: list[Raw] = []
    for n, e in enumerate(events):
        out.extend(at.get(n, ()))
        out.append(e)
    out.extend(at.get(len(events), ()))
    return out
