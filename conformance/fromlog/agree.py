"""A trace held against its run's ZooKeeper transaction logs: every zxid a recorded step names is
a committed transaction of the run, and it is the write that step makes.

The trace and the log are two records of one run, written by different parties: a process writes
its trace line after ZooKeeper answered its write with the zxid the line names, and ZooKeeper
logged the write. ``agreement`` checks, for every event that names a zxid:

* that a transaction with that zxid was committed (a majority of the ensemble's logs hold it,
  inside the run's chroot): a line naming a zxid no committed transaction has is a line about
  a write that did not happen;
* for the steps whose write ``txnread`` recognises, that the transaction is that write, with
  the same facts: a ``join`` creates the joining server's znode; an admin operation of the
  ZooKeeper era answers its request on the same peer; a ``peer_sync`` that starts a queue
  creates the server's queue for that peer; a ZooKeeper-era ``roll`` creates the named WAL in
  the server's queue; zk-lock's ``finish_claim`` deletes the dead server's znode with its lock;
  a ``persist`` writes the named WAL's position, the same number, in the server's queue (a
  table-era row: the group's offset); a table-era ``advance`` writes the offset ``-1`` of the
  named WAL.

The other steps with a zxid are checked for the first point only, and counted apart
(``Agreement.existence_only``), so that a reader sees how much of the trace was held in full.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from replcheck.conformance.cluster.common import ADMIN, BARRIER, CLAIMS, QUEUES, REFRESH, SCP, TABLE
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.hbase.names import peer_id, server_index, server_name
from replcheck.conformance.trace.event import Event, events_of

ZK_ADMIN = ("add_peer", "remove_peer", "enable_peer", "disable_peer")


@dataclass
class Agreement:
    """What holding a trace against its logs found."""

    checked: int = 0
    """Events naming a zxid."""
    in_full: int = 0
    """Of those, events whose transaction was recognised as their write, facts and all."""
    existence_only: Counter[str] = field(default_factory=Counter)
    """Events (by name) whose transaction was only found, not recognised."""
    problems: list[tuple[int, str]] = field(default_factory=list)
    """(event index, what disagrees), in trace order."""
    unverified: int = 0
    """Events whose zxid could not be looked up: some log is damaged, so a transaction missing
    from the others is no evidence that it did not happen."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "in_full": self.in_full,
            "existence_only": dict(sorted(self.existence_only.items())),
            "problems": [{"event": n, "what": w} for n, w in self.problems],
            "unverified": self.unverified,
        }


def agreement(
    events: list[Event],
    run: Path,
    committed: list[Any] | None = None,
    *,
    complete: bool = True,
) -> Agreement:
    """Hold ``events`` (a run's trace) against the run's transaction logs (``run/zk-txnlog``).
    ``complete``: ``committed`` is every committed transaction (no log was damaged)."""
    if committed is None:
        damaged: list[str] = []
        committed = txnread.committed(txnread.logs(run), txnread.chroot(run), damaged)
        complete = not damaged
    events = events_of(events)
    by_zxid = {t.zxid: t for t in committed}
    design = next((e.design for e in events if e.design), "")
    era = "table" if str(design).startswith("table") else "zk"
    out = Agreement()
    for n, e in enumerate(events):
        z = e.zxid
        if z is None:  # a step taken at its reads names its write apart (``arqp_claim``)
            z = e.detail.get("write")
        if not isinstance(z, int) or e.detail.get("from") == "txn-log":
            continue
        out.checked += 1
        txn = by_zxid.get(z)
        if txn is None and not complete:
            out.unverified += 1
            continue
        if txn is None:
            out.problems.append((n, f"zxid {z:#x}: no committed transaction of the run has it"))
            continue
        verdict = _same_write(e, txn, era)
        if verdict is None:
            out.existence_only[e.name] += 1
        elif verdict:
            out.problems.append((n, f"zxid {z:#x}: {verdict}"))
        else:
            out.in_full += 1
    return out


def _same_write(e: Event, txn: Any, era: str) -> str | None:
    """``""`` when ``txn`` is the write of step ``e``, what differs when it is not, or None when
    ``e`` is not a step whose write is recognised here. Every step of a process that fences its
    writes must also be a transaction of that process (``txnread.writer``)."""
    who = txnread.writer(txn)
    if who is not None and e.proc != who and e.proc.startswith(("master", "rs-")):
        return f"the step is {e.proc}'s, the transaction {who}'s"
    check = CHECKS.get((e.name, era)) or CHECKS.get((e.name, ""))
    return None if check is None else check(e, txn, era)


def _join(e: Event, txn: Any, era: str) -> str:
    return _differ("joins", _index(txnread.joined(txn, era)), e.args.get("server"))


def _admin(e: Event, txn: Any, era: str) -> str | None:
    if e.proc != "master":
        return None
    got = txnread.admin_op(txn)
    if got is None and era == "table" and e.name in ("add_peer", "remove_peer"):
        return _request(e, txn, era)  # the table era's procedure starts by storing its stage
    return _differ("answers", got, (e.name, e.args.get("peer")))


def _request(e: Event, txn: Any, era: str) -> str:
    """An admin request's procedure moving to its next stage: the request of this peer (and, for
    a peer operation of the table era, this operation) is written."""
    peer = e.args.get("peer")
    for kind, path, data in txnread.ops(txn):
        if kind == "delete" and path.startswith(ADMIN + "/") and e.name == "peer_proc":
            return ""  # the procedure's last stage: the request answered (its data is gone)
        if kind == "set" and path.startswith(ADMIN + "/"):
            req = txnread.json_object(data)
            if req.get("peer") == peer and (e.name == "peer_proc" or req.get("op") == e.name):
                return ""
    return f"the step moves the request of peer {peer}, the transaction {_shape(txn)}"


def _peer_sync(e: Event, txn: Any, era: str) -> str | None:
    created = txnread.queue_created(txn)
    srv, peer = e.args.get("server"), e.args.get("peer")
    if created is not None:
        return _differ("creates the queue of", (_index(created[0]), created[1]), (srv, peer))
    return _expect(txn, [("delete", f"{QUEUES}/{server_name(srv)}/{peer_id(peer)}")])


def _roll(e: Event, txn: Any, era: str) -> str:
    got = txnread.rolled(txn)
    want = (e.args.get("server"), e.detail.get("wal"))
    return _differ("creates", got and (_index(got[0]), got[1]), want)


def _finish_claim(e: Event, txn: Any, era: str) -> str:
    return _differ("ends the claim of", _index(txnread.claim_finished(txn)), e.args.get("dead"))


def _position(e: Event, txn: Any, era: str) -> str | None:
    d = e.detail
    if "wal" not in d:
        return None
    found = [(_index(srv), wal, pos) for srv, _queue, wal, pos in txnread.positions(txn, era)]
    want = (e.args.get("server"), d["wal"], -1 if e.name == "advance" else d.get("position"))
    return (
        "" if want in found else f"the step writes {want}, the transaction {found or 'no position'}"
    )


def _queue_wal_done(e: Event, txn: Any, era: str) -> str | None:
    """zk era: a source done with a WAL deletes its znode (``advance``); done with its queue
    (``finish``, ``skip_missing``), the queue's znode too."""
    d = e.detail
    if "queue" not in d or "wal" not in d:
        return None
    queue = f"{QUEUES}/{server_name(e['args']['server'])}/{d['queue']}"
    want = [("delete", f"{queue}/{d['wal']}")]
    if e.name != "advance":
        want.append(("delete", queue))
    return _expect(txn, want)


def _claim_commit_zk(e: Event, txn: Any, era: str) -> str | None:
    d = e.detail
    if "queue" not in d or "old" not in d:
        return None
    new = f"{QUEUES}/{server_name(e['args']['server'])}/{d['queue']}"
    return _expect(txn, [("create", new), ("delete", d["old"])])


def _lock(e: Event, txn: Any, era: str) -> str:
    data = server_name(e.args["server"]).encode()
    return _expect(txn, [("create", f"{QUEUES}/{server_name(e['args']['dead'])}/lock", data)])


def _copy_queue(e: Event, txn: Any, era: str) -> str | None:
    queue = e.detail.get("queue")
    if queue is None:
        return None
    return _expect(txn, [("create", f"{QUEUES}/{server_name(e['args']['server'])}/{queue}")])


def _row_deleted(e: Event, txn: Any, era: str) -> str | None:
    """Table era: a source done with its queue deletes the queue's row."""
    queue = e.detail.get("queue")
    return None if queue is None else _expect(txn, [("delete", _row(queue))])


def _claim_commit_table(e: Event, txn: Any, era: str) -> str | None:
    d = e.detail
    if "old" not in d or "row" not in d:
        return None
    return _expect(txn, [("delete", _row(d["old"])), ("create", _row(d["row"]))])


def _barrier(state: str) -> Any:
    def check(e: Event, txn: Any, era: str) -> str:
        for kind, path, data in txnread.ops(txn):
            if (
                kind == "set"
                and path == BARRIER
                and txnread.json_object(data).get("state") == state
            ):
                return ""
        return f"the step sets the cleaner's barrier {state}, the transaction {_shape(txn)}"

    return check


def _scp(e: Event, txn: Any, era: str) -> str:
    """A ServerCrashProcedure's step stores the procedure's next state for its dead server."""
    path = f"{SCP}/{server_name(e['args']['dead'])}"
    if any(k == "set" and p == path for k, p, _ in txnread.ops(txn)):
        return ""
    return f"the step stores {path}, the transaction {_shape(txn)}"


def _refresh(e: Event, txn: Any, era: str) -> str:
    srv, peer = server_name(e.args["server"]), peer_id(e.args["peer"])
    return _expect(txn, [("delete", f"{REFRESH}/{peer}/{srv}")])


def _claim_lost(e: Event, txn: Any, era: str) -> str | None:
    target = e.detail.get("target")
    if target is None:
        return None
    if any(k == "delete" and p.startswith(f"{CLAIMS}/{target}/") for k, p, _ in txnread.ops(txn)):
        return ""
    return f"the step drops a claim sent to {target}, the transaction {_shape(txn)}"


CHECKS: dict[tuple[str, str], Any] = {
    ("join", ""): _join,
    **{(name, ""): _admin for name in ZK_ADMIN},
    ("peer_proc", "table"): _request,
    ("peer_sync", "zk"): _peer_sync,
    ("roll", "zk"): _roll,
    ("finish_claim", "zk"): _finish_claim,
    ("persist", ""): _position,
    ("advance", "table"): _position,
    ("advance", "zk"): _queue_wal_done,
    ("finish", "zk"): _queue_wal_done,
    ("skip_missing", "zk"): _queue_wal_done,
    ("claim_commit", "zk"): _claim_commit_zk,
    ("scp_finish", "zk"): _scp,
    ("lock", "zk"): _lock,
    ("copy_queue", "zk"): _copy_queue,
    ("finish", "table"): _row_deleted,
    ("claim_commit", "table"): _claim_commit_table,
    ("cleaner_start", "table"): _barrier("RUNNING"),
    ("cleaner_delete", "table"): _barrier("NOT_RUNNING"),
    ("scp_split", "table"): _scp,
    ("scp_claim_stage", "table"): _scp,
    ("arqp_read_missing", "table"): _scp,
    ("arqp_put_missing", "table"): _scp,
    ("arqp_claim", "table"): _scp,
    ("refresh", "table"): _refresh,
    ("claim_lost", "table"): _claim_lost,
}
"""(step, era; ``""`` for both) -> the check that the transaction is that step's write."""


def _expect(txn: Any, want: list[tuple[str, ...]]) -> str:
    """``""`` when the transaction has every (kind, path[, data]) of ``want``."""
    got = txnread.ops(txn)
    missing = [
        w
        for w in want
        if not any(k == w[0] and p == w[1] and (len(w) < 3 or d == w[2]) for k, p, d in got)
    ]
    if not missing:
        return ""
    kind, path = missing[0][:2]
    return f"the step would {kind} {path}, the transaction {_shape(txn)}"


def _shape(txn: Any) -> str:
    return "; ".join(f"{k} {p}" for k, p, _ in txnread.ops(txn)) or "writes nothing"


def _row(key: str) -> str:
    return f"{TABLE}/{quote(key, safe='')}"


def _differ(what: str, got: Any, want: Any) -> str:
    if got == want:
        return ""
    return f"the step {what} {want}, the transaction {got if got is not None else 'does not'}"


def _index(server: str | None) -> int | None:
    if server is None:
        return None
    try:
        return server_index(server)
    except (ValueError, IndexError):
        return None


def _pair(args: dict[str, Any]) -> tuple[Any, Any]:
    return args.get("server"), args.get("peer")
