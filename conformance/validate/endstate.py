"""The end-state checker: what a run's trace and the sink clusters' stores say about its edits.

* every replicable edit reached every peer it was owed to (the peers a region server had a source
  for when it wrote the edit, whose filter accepts it: ``rules.replicable``), unless that peer was
  removed later; duplicates are counted separately (replication is at least once); an owed edit
  that never arrived is lost, and is marked with its WAL and whether the cleaner deleted that WAL
  (a run that did not drain may leave edits undelivered whose WAL is still kept);
* no LOCAL or catalog edit was shipped (seed 002: only families "scoped GLOBAL" and "not part of a
  catalog" are replicated);
* no edit returned to its origin cluster (seed 002: the preserved cluster ids "prevent replication
  loops");
* no WAL was deleted while a queue still needed it: each ``wal_deleted`` record carries the queues
  that named the WAL (or, in the table era, that the correct cleaner rule says need it) in a fresh
  read right after the deletion; and a deleted WAL holding an owed edit that never reached its
  peer was deleted too early whatever that read said (the read judges by the servers live at
  that moment, and misses a dead server whose queue was still to be created: soak run seed
  7991).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.cluster.common import store_dir
from replcheck.model.common import rules
from replcheck.model.common.state import GLOBAL


@dataclass
class Verdict:
    ok: bool = True
    edits_written: int = 0
    foreign_edits: int = 0
    owed_deliveries: int = 0
    delivered: int = 0
    duplicates: int = 0
    lost: list[dict[str, Any]] = field(default_factory=list)
    shipped_local: list[dict[str, Any]] = field(default_factory=list)
    returned_to_origin: list[dict[str, Any]] = field(default_factory=list)
    premature_deletions: list[dict[str, Any]] = field(default_factory=list)
    unacknowledged_applied: int = 0
    removed_peers: list[int] = field(default_factory=list)
    wals_deleted: int = 0

    def lost_wal_deleted(self) -> int:
        """Lost edits whose WAL the cleaner deleted."""
        return sum(1 for e in self.lost if e.get("wal_deleted"))

    def summary(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "edits_written": self.edits_written,
            "foreign_edits": self.foreign_edits,
            "owed_deliveries": self.owed_deliveries,
            "delivered": self.delivered,
            "duplicates": self.duplicates,
            "lost": len(self.lost),
            "lost_wal_deleted": self.lost_wal_deleted(),
            "shipped_local": len(self.shipped_local),
            "returned_to_origin": len(self.returned_to_origin),
            "premature_deletions": len(self.premature_deletions),
            "unacknowledged_applied": self.unacknowledged_applied,
            "wals_deleted": self.wals_deleted,
        }

    def to_json(self) -> dict[str, Any]:
        return {"summary": self.summary(), **asdict(self)}


def read_stores(run_dir: Path, clusters: int) -> dict[int, list[dict[str, Any]]]:
    """Every application record of every cluster's store (cluster 0's are written by its region
    servers when another cluster replicates into it)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for c in range(clusters):
        recs: list[dict[str, Any]] = []
        d = store_dir(run_dir, c)
        if d.exists():
            for path in sorted(d.glob("applied*.jsonl")):
                for line in path.read_text(encoding="utf-8").splitlines():
                    if line.strip():
                        try:
                            recs.append(json.loads(line))
                        except ValueError:
                            continue  # a line cut short by a kill: never acknowledged
        out[c] = recs
    return out


def check(events: list[dict[str, Any]], stores: dict[int, list[dict[str, Any]]]) -> Verdict:
    """Judge a run from its merged events and its stores."""
    v = Verdict()
    owed: dict[str, tuple[int, ...]] = {}
    origin: dict[str, int] = {}
    kinds: dict[str, int] = {}
    removed: set[int] = set()
    wal_of: dict[str, str] = {}
    deleted: set[str] = set()
    for e in events:
        d = e.get("detail", {})
        if e["name"] == "unmodelled":
            e = {**e, "kind": "action", "name": d["action"], "args": d["action_args"]}
        if e["kind"] == "action" and e["name"] == "put":
            v.edits_written += 1
            owed[d["uid"]] = tuple(p + 1 for p in d.get("owed", []))
            origin[d["uid"]] = 0
            kinds[d["uid"]] = e["args"]["kind"]
            if d.get("wal"):
                wal_of[d["uid"]] = d["wal"]
        elif e["kind"] == "meta" and e["name"] == "sink_apply" and "owed" in d:
            for uid in d.get("uids", []):
                more = {p + 1 for p in d["owed"]}
                owed[uid] = tuple(sorted(set(owed.get(uid, ())) | more))
        elif e["kind"] == "action" and e["name"] == "foreign_put":
            c = e["args"]["cluster"]
            v.foreign_edits += 1
            uid = d["uid"]
            origin[uid] = c
            kinds[uid] = d.get("scope", GLOBAL)
            extra = (0,) if rules.replicable(kinds[uid], (c,), 0) else ()
            owed[uid] = tuple(sorted(set(owed.get(uid, ())) | set(extra)))
        elif e["kind"] == "action" and e["name"] == "remove_peer":
            removed.add(e["args"]["peer"])
        elif e["kind"] == "meta" and e["name"] == "wal_deleted":
            v.wals_deleted += 1
            deleted.add(d.get("wal"))
            if d.get("queued"):
                v.premature_deletions.append({"wal": d.get("wal"), "queued": d["queued"]})
    v.removed_peers = sorted(removed)
    applied: dict[int, Counter[str]] = {c: Counter() for c in stores}
    for c, recs in stores.items():
        for r in recs:
            uid = r["uid"]
            applied[c][uid] += 1
            if r.get("kind", GLOBAL) != GLOBAL:
                v.shipped_local.append({"uid": uid, "cluster": c, "kind": r.get("kind")})
            ids = r.get("ids") or []
            if ids and ids[0] == c:
                v.returned_to_origin.append({"uid": uid, "cluster": c})
            if uid not in owed and uid not in origin:
                v.unacknowledged_applied += 1
    for counts in applied.values():
        v.duplicates += sum(n - 1 for n in counts.values() if n > 1)
    for uid, targets in sorted(owed.items()):
        for c in targets:
            if c - 1 in removed and c != 0:
                continue
            v.owed_deliveries += 1
            if applied.get(c, Counter())[uid]:
                v.delivered += 1
            else:
                entry: dict[str, Any] = {"uid": uid, "cluster": c}
                if uid in wal_of:
                    entry["wal"] = wal_of[uid]
                    entry["wal_deleted"] = wal_of[uid] in deleted
                v.lost.append(entry)
    flagged = {p["wal"]: p for p in v.premature_deletions}
    for e in v.lost:
        if e.get("wal_deleted"):
            entry = flagged.setdefault(e["wal"], {"wal": e["wal"], "queued": []})
            entry["undelivered"] = entry.get("undelivered", 0) + 1
    v.premature_deletions = list(flagged.values())
    v.ok = not (v.lost or v.shipped_local or v.returned_to_origin or v.premature_deletions)
    return v


def check_run(run_dir: Path, events: list[dict[str, Any]], clusters: int) -> Verdict:
    return check(events, read_stores(run_dir, clusters))
