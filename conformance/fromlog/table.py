"""The table era's writes, read from a ZooKeeper log as steps (``txntrace``'s other half).

The reference cluster keeps the table era's storage in ZooKeeper too: the rows of
``hbase:replication``'s ``queue`` family (``/hbase/replication-table/<row key>``, JSON offsets
per WAL group), the master's persisted procedures (a ServerCrashProcedure's stage under
``/replcheck/scp``, a peer procedure's stage in its request under ``/replcheck/admin``, the
claims sent under ``/replcheck/claims``, the refreshes under ``/replcheck/refresh``) and the log
cleaner's barrier (``/replcheck/barrier``). Each transaction is the step whose write it is:

* a request's first stage (``add_peer``, ``remove_peer``), each later stage (``peer_proc``, with
  the stage it left), a peer's state set with its request answered (``enable_peer``,
  ``disable_peer``);
* an SCP's stage moved on, named by the stage it left: ``scp_split``, ``scp_claim_stage``,
  ``arqp_read_missing``, ``arqp_put_missing`` (the BEGIN rows it writes), ``arqp_claim`` (the
  claims it sends: targets and rows); a claim to a dead target dropped (``claim_lost``);
* the barrier set RUNNING (``cleaner_start``) or back to NOT_RUNNING by the cleaner
  (``cleaner_delete``);
* a server's refresh answered (``refresh``), a claim's delete and put (``claim_commit``; a
  failed one, ``claim_failed``), an offset written (``persist``; ``-1``: ``advance``), a row
  deleted (``finish``), the live znode created (``join``).

A table-era roll writes nothing: each WAL a write names is rolled to before the first step
that names it (and before its server's death), in the server's writer lane (``rolls``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from replcheck.conformance.cluster.common import (
    ADMIN,
    BARRIER,
    CLAIMS,
    LIVE,
    MASTER,
    PEERS,
    QUEUES,
    REFRESH,
    REPL,
    SCP,
    TABLE,
)
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.hbase.names import server_index, server_name
from replcheck.conformance.zookeeper.txnlog import OpCode
from replcheck.model.common.state import DISABLED, ENABLED
from replcheck.model.table.common import PLACEHOLDER_GROUP
from replcheck.model.table.state import BEGIN

Event = dict[str, Any]

SCP_STEPS = {
    "split": "scp_split",
    "claim_stage": "scp_claim_stage",
    "add_missing": "arqp_read_missing",
    "put_missing": "arqp_put_missing",
    "claim": "arqp_claim",
}
"""An SCP's persisted stage -> the step that leaves it."""


def _row_key(path: str) -> str:
    return unquote(path[len(TABLE) + 1 :])


def failed_ops(txn: Any) -> list[tuple[str, str]]:
    """(kind, path) of the ops before the failure of a failed multi."""
    if txn.type != OpCode.multi or not txn.record.failed:
        return []
    kinds = {OpCode.delete: "delete", OpCode.create: "create", OpCode.create2: "create"}
    return [
        (kinds[sub.type], txnread.relative(sub.record.path))
        for sub in txn.record.txns
        if sub.type in kinds and sub.record is not None
    ]


def steps_of(
    txn: Any, proc: str, tree: dict[str, bytes | None]
) -> Iterator[tuple[str, dict, dict]]:
    """(step, args, detail) of one transaction (see the module docstring); ``tree``: every znode
    before it (path -> data)."""
    failed = failed_ops(txn)
    if failed and proc.startswith("rs-"):
        if any(k == "delete" and p.startswith(CLAIMS + "/") for k, p in failed):
            yield "claim_failed", {}, {}
        return
    ops = [
        (k, p, d)
        for k, p, d in txnread.ops(txn)
        if not (k == "set" and (p == MASTER or p.startswith(LIVE + "/")))  # the fencing write
    ]
    if not ops:
        return
    by = {p: (k, d) for k, p, d in ops}
    admin = [(k, p, d) for k, p, d in ops if p.startswith(ADMIN + "/")]
    if admin and proc == "master":
        got = txnread.admin_op(txn)
        if got is not None and got[0] in ("enable_peer", "disable_peer"):
            yield got[0], {"peer": got[1]}, {}
            return
        _k, path, _d = admin[0]
        old = txnread.json_object(tree.get(path))
        if "peer" not in old:
            return
        if "stage" not in old:
            yield str(old.get("op")), {"peer": old["peer"]}, {}
        else:
            yield "peer_proc", {"peer": old["peer"]}, {"stage": old["stage"]}
        return
    scps = [(k, p, d) for k, p, d in ops if p.startswith(SCP + "/")]
    if scps and proc == "master":
        kind, path, data = scps[0]
        if kind != "set":
            return  # the SCP recorded (its first stage) or done with: no step of its own
        dead = server_index(path.rsplit("/", 1)[1])
        old, new = txnread.json_object(tree.get(path)), txnread.json_object(data)
        step = SCP_STEPS.get(str(old.get("stage")))
        if step is None:
            return
        detail: dict[str, Any] = {}
        args: dict[str, Any] = {"dead": dead}
        if step == "arqp_read_missing":
            detail["missing"] = new.get("missing", [])
        elif step == "arqp_put_missing":
            detail["rows"] = [
                _row_key(p) for k, p, _ in ops if k == "create" and p.startswith(TABLE)
            ]
        elif step == "arqp_claim":
            sent = [
                (p.split("/")[-2], txnread.json_object(d))
                for k, p, d in ops
                if k == "create" and p.startswith(CLAIMS + "/")
            ]
            args["targets"] = [server_index(t) for t, _ in sent]
            detail["rows"] = [d.get("row") for _, d in sent]
        yield step, args, detail
        return
    claims = [p for k, p, _ in ops if k == "delete" and p.startswith(CLAIMS + "/")]
    if claims and proc == "master":
        target = claims[0].split("/")[-2]
        data = txnread.json_object(tree.get(claims[0]))
        if "dead" in data:
            args = {"dead": server_index(data["dead"]), "child": None}
            yield "claim_lost", args, {"row": data.get("row"), "target": target}
        return
    if BARRIER in by and proc == "master":
        if txnread.json_object(by[BARRIER][1]).get("replayed"):
            return  # a new master's barrier (``Master.replay_barrier``): the restart's, no step
        state = txnread.json_object(by[BARRIER][1]).get("state")
        was = txnread.json_object(tree.get(BARRIER)).get("state")
        if state == "RUNNING":
            yield "cleaner_start", {}, {}
        elif state == "NOT_RUNNING" and was == "RUNNING":
            yield "cleaner_delete", {}, {}
        return
    if not proc.startswith("rs-"):
        yield from _unmodelled(ops)
        return
    server = server_index(proc[3:])
    refreshed = [p for k, p, _ in ops if k == "delete" and p.startswith(REFRESH + "/")]
    if refreshed:
        peer_id_text, srv = refreshed[0].split("/")[-2:]
        yield "refresh", {"peer": int(peer_id_text) - 2, "server": server_index(srv)}, {}
        return
    if claims:
        new = [_row_key(p) for k, p, _ in ops if k == "create" and p.startswith(TABLE + "/")]
        old = [_row_key(p) for k, p, _ in ops if k == "delete" and p.startswith(TABLE + "/")]
        yield (
            "claim_commit",
            {"server": server},
            {"row": new[0] if new else "", "old": old[0] if old else ""},
        )
        return
    for k, p, _d in ops:
        if k == "create" and p.startswith(LIVE + "/"):
            yield "join", {"server": server_index(p.rsplit("/", 1)[1])}, {}
            return
    for k, p, d in ops:
        if not p.startswith(TABLE + "/"):
            continue
        if k == "delete":
            yield "finish", {"server": server}, {"queue": _row_key(p)}
            return
        found = txnread.row_offset(p, d or b"")
        if found is not None:
            _owner, key, wal, offset = found
            if offset < 0:
                yield "advance", {"server": server}, {"queue": key, "wal": wal}
            else:
                yield "persist", {"server": server}, {"queue": key, "wal": wal, "position": offset}
            return
    yield from _unmodelled(ops)


STRUCTURE = (REPL, QUEUES, PEERS, TABLE)
"""Znodes the master creates once, before any step."""


def _unmodelled(ops: list[tuple[str, str, bytes | None]]) -> Iterator[tuple[str, dict, dict]]:
    """A write of replication storage that no step makes; the reference cluster's own
    bookkeeping (``/replcheck``: requests created, folders) is no step, and not listed."""
    storage = [
        (k, p)
        for k, p, _ in ops
        if p.startswith((REPL + "/", TABLE + "/")) and not (k == "create" and p in STRUCTURE)
    ]
    if storage:
        what = "; ".join(f"{k} {p}" for k, p in storage)
        yield "unmodelled", {}, {"why": f"no model step writes this: {what}"}


def offsets_written(path: str, data: bytes | None) -> list[tuple[str, int]]:
    """(WAL, offset) of each group a row write names."""
    if not path.startswith(TABLE + "/"):
        return []
    out = []
    for value in txnread.json_object(data).get("queue", {}).values():
        wal, _, pos = str(value).rpartition(":")
        if wal and pos.lstrip("-").isdigit():
            out.append((wal, int(pos)))
    return out


def storage(tree: dict[str, bytes | None], bounds: Any, steps: Any) -> Any:
    """The rows of ``tree`` in the model's terms: (peer, owner, source, offsets), the rows of
    peers no longer in storage left out (as ``txntrace._storage`` does for queues)."""
    rows = []
    peers = {p.rsplit("/", 1)[1] for p in tree if p.count("/") == 4 and "/peers/" in p}
    for path, data in tree.items():
        if not path.startswith(TABLE + "/"):
            continue
        key = _row_key(path)
        if key.split("-", 1)[0] not in peers:
            continue
        peer, owner, source = steps.parse_row_key(key)
        offsets = []
        for value in txnread.json_object(data).get("queue", {}).values():
            wal, _, pos = str(value).rpartition(":")
            if not wal:
                offsets.append((PLACEHOLDER_GROUP, *BEGIN))
                continue
            _s, g, seq = steps.parse_wal(wal)
            offsets.append((g, seq, -1 if int(pos) < 0 else bounds.entry(wal, int(pos))))
        rows.append((peer, owner, source, tuple(sorted(offsets))))
    return tuple(sorted(rows))


def model_storage(st: Any) -> Any:
    return tuple(
        sorted(
            (r.peer, r.owner, r.source, tuple(sorted(r.offsets)))
            for r in st.rows
            if st.peers[r.peer] in (ENABLED, DISABLED)
        )
    )


def rolls(events: list[Event], steps: Any, like: Any) -> list[Event]:
    """The events with a ``roll`` of each server's WAL ``seq >= 1`` that a step names, before
    the first step naming it or a later WAL of its server (an ``advance`` of WAL ``seq - 1``
    needs it queued), and before the server's death (see the module docstring)."""
    need: dict[tuple[int, int, int], int] = {}
    for n, e in enumerate(events):
        wal = (e.get("detail") or {}).get("wal")
        if not wal:
            continue
        s, g, seq = steps.parse_wal(wal)
        if e["name"] == "advance":
            seq += 1
        for q in range(1, seq + 1):
            need.setdefault((s, g, q), n)
    crashes: dict[int, int] = {}
    """Server -> the index of its first ``crash``."""
    for i, e in enumerate(events):
        if e["name"] == "crash":
            crashes.setdefault(e["args"].get("server"), i)
    at: dict[int, list[Event]] = {}
    for (s, g, seq), n in sorted(need.items()):
        crash = crashes.get(s)
        where = n if crash is None or crash > n else crash
        roll = like(events[where], f"rs-{server_name(s)}", "roll", {"server": s, "group": g})
        roll["detail"]["wal"] = steps.wal_name(s, seq)
        at.setdefault(where, []).append(roll)
    out: list[Event] = []
    for n, e in enumerate(events):
        out.extend(at.get(n, ()))
        out.append(e)
    return out
