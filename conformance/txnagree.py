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

from . import txnread
from .steps import server_index

Event = dict[str, Any]

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

    def as_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "in_full": self.in_full,
            "existence_only": dict(sorted(self.existence_only.items())),
            "problems": [{"event": n, "what": w} for n, w in self.problems],
        }


def agreement(events: list[Event], run: Path, committed: list[Any] | None = None) -> Agreement:
    """Hold ``events`` (a run's trace) against the run's transaction logs (``run/zk-txnlog``)."""
    if committed is None:
        committed = txnread.committed(txnread.logs(run), txnread.chroot(run))
    by_zxid = {t.zxid: t for t in committed}
    design = next((e["design"] for e in events if e.get("design")), "")
    era = "table" if str(design).startswith("table") else "zk"
    out = Agreement()
    for n, e in enumerate(events):
        z = e.get("zxid")
        if z is None or (e.get("detail") or {}).get("from") == "txn-log":
            continue
        out.checked += 1
        txn = by_zxid.get(z)
        if txn is None:
            out.problems.append((n, f"zxid {z:#x}: no committed transaction of the run has it"))
            continue
        verdict = _same_write(e, txn, era)
        if verdict is None:
            out.existence_only[e["name"]] += 1
        elif verdict:
            out.problems.append((n, f"zxid {z:#x}: {verdict}"))
        else:
            out.in_full += 1
    return out


def _same_write(e: Event, txn: Any, era: str) -> str | None:
    """``""`` when ``txn`` is the write of step ``e``, what differs when it is not, or None when
    ``e`` is not a step whose write is recognised here."""
    name, args, d = e["name"], e.get("args") or {}, e.get("detail") or {}
    if name == "join":
        got = txnread.joined(txn, era)
        return _differ("joins", _index(got), args.get("server"))
    if name in ZK_ADMIN and era == "zk" and e["proc"] == "master":
        got = txnread.admin_op(txn)
        return _differ("answers", got, (name, args.get("peer")))
    if name == "peer_sync" and era == "zk":
        created = txnread.queue_created(txn)
        if created is None:
            return None  # a removal, or a queue already there: not recognised
        return _differ("creates the queue of", (_index(created[0]), created[1]), _pair(args))
    if name == "roll" and era == "zk":
        got = txnread.rolled(txn)
        want = (args.get("server"), d.get("wal"))
        return _differ("creates", got and (_index(got[0]), got[1]), want)
    if name == "finish_claim" and era == "zk":
        got = txnread.claim_finished(txn)
        return _differ("ends the claim of", _index(got), args.get("dead"))
    if name in ("persist", "advance") and "wal" in d:
        if name == "advance" and era == "zk":
            return None
        found = []
        for write in txnread.writes(txn, era):
            read = txnread.position if era == "zk" else txnread.row_offset
            got = read(write.path, write.data)
            if got is not None:
                found.append((_index(got[0]), got[2], got[3]))
        want_pos = -1 if name == "advance" else d.get("position")
        want = (args.get("server"), d["wal"], want_pos)
        if want in found:
            return ""
        return f"the step writes {want}, the transaction {found or 'no position'}"
    return None


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
