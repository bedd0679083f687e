"""Properties as data: named predicates, each quoting the seed sentence it protects.

* an *invariant* holds in every reachable state: ``check(cfg, state) -> bool``;
* a *step property* holds across every transition: ``check(cfg, before, after) -> bool``;
* a *liveness property* says a goal is eventually reached on every fair behaviour once the
  environment's budgets (crashes, outages, admin commands) are spent: ``check(cfg, state)`` is the
  goal, and the checker looks for fair cycles and stuck states that never reach it.

They are written against the true state (which WALs exist, what each sink applied), never against a
design's beliefs, so a mutant cannot bend them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from . import rules
from .config import Config
from .state import DELETED, ENABLED, GLOBAL, REMOVED, State, Wal, WalKey, bits


class Property(NamedTuple):
    name: str
    kind: str
    """``invariant``, ``step`` or ``liveness``."""
    check: Callable[..., bool]
    doc: str


def _first_line(fn: Callable) -> str:
    return " ".join((fn.__doc__ or "").split())


# --- helpers over the true state --------------------------------------------------------------


def all_queues(st: State) -> Iterator[tuple[int, object]]:
    """(owner, queue) for every queue znode in ``/hbase/replication/rs``."""
    for owner, node in enumerate(st.rs):
        if node:
            for q in node.queues:
                yield owner, q


def existing_wals(st: State) -> Iterator[Wal]:
    return (w for w in st.wals if w)


# --- invariants --------------------------------------------------------------------------------


def no_lost_edit(cfg: Config, st: State) -> bool:
    """Seed 003: the WALs "must be kept in HDFS as long as they are needed to replicate data to any
    slave cluster". Every edit owed to a peer that still exists has been applied there, or some
    queue of that peer (owned by a live server, or by a dead one not yet failed over) still covers
    it and its WAL still exists."""
    cover: dict[tuple[int, WalKey], int] = {}
    for _owner, q in all_queues(st):
        for key, pos in q.wals:
            k = (q.peer, key)
            if k not in cover or pos < cover[k]:
                cover[k] = pos
    applied = [set(sink.applied) for sink in st.sinks]
    for w in existing_wals(st):
        for i, e in enumerate(w.entries):
            for p in bits(e.owed):
                if st.peers[p] == REMOVED or e.uid in applied[p + 1]:
                    continue
                pos = cover.get((p, w.key))
                if pos is None or pos > i or w.place == DELETED:
                    return False
    return True


def no_wal_deleted_while_queued(cfg: Config, st: State) -> bool:
    """Seed 001: "if one slave cluster becomes unavailable for some time, the WALs should not be
    deleted. They need to stay in the queue while the others are processed." No deleted WAL is in
    any queue znode or in any live source's in-memory queue."""
    deleted = {w.key for w in existing_wals(st) if w.place == DELETED}
    if not deleted:
        return True
    for _owner, q in all_queues(st):
        if any(key in deleted for key, _ in q.wals):
            return False
    for srv in st.servers:
        for sh in srv.shippers:
            if any(key in deleted for key in sh.wals):
                return False
    return True


def single_owner(cfg: Config, st: State) -> bool:
    """Seed 000: the server that wins the lock "transfers all the queues to its own znode" and the
    old ones "are deleted from the old location": each WAL is owed to a peer by at most one queue
    of a live server (a dead server's copy being claimed does not count)."""
    seen: set[tuple[int, WalKey]] = set()
    for owner, q in all_queues(st):
        if not st.servers[owner].alive:
            continue
        for key, _ in q.wals:
            if (q.peer, key) in seen:
                return False
            seen.add((q.peer, key))
    return True


def single_source(cfg: Config, st: State) -> bool:
    """Seed 000: "the master cluster Region Server creates one new source thread per copied
    queue": each WAL is read for a peer by at most one live source."""
    seen: set[tuple[int, WalKey]] = set()
    for srv in st.servers:
        if not srv.alive:
            continue
        for sh in srv.shippers:
            for key in sh.wals:
                if (sh.peer, key) in seen:
                    return False
                seen.add((sh.peer, key))
    return True


def no_edit_at_origin(cfg: Config, st: State) -> bool:
    """Seed 002: "The UUID of the master RegionServer and the UUIDs of the slaves, which have
    already consumed the data, are preserved in the edits when they are applied. This prevents
    replication loops." No cluster applies an edit it originated."""
    return all(uid[0] != c for c, sink in enumerate(st.sinks) for uid in sink.applied)


def only_global_non_catalog(cfg: Config, st: State) -> bool:
    """Seed 002: edits "eligible for replication are those KeyValues that are: Part of a column
    family whose schema is scoped GLOBAL; Not part of a catalog such as hbase:meta". No peer has
    applied a LOCAL or catalog edit."""
    applied: set[tuple] = set()
    for sink in st.sinks[1:]:
        applied.update(sink.applied)
    if not applied:
        return True
    logs = [w.entries for w in existing_wals(st)] + [r.log for r in st.relays if r]
    return not any(e.kind != GLOBAL and e.uid in applied for log in logs for e in log)


def _written_twice(st: State) -> set[tuple]:
    seen: set[tuple] = set()
    twice: set[tuple] = set()
    for w in existing_wals(st):
        for e in w.entries:
            (twice if e.uid in seen else seen).add(e.uid)
    return twice


def sink_in_order(cfg: Config, st: State) -> bool:
    """Seed 002: "The RegionServer reads the edits sequentially" and the source reads each WAL
    from its position on: per WAL, what a peer has applied of the edits meant for it is a prefix
    (it never sees a later edit of a WAL before an earlier one). An edit written to two WALs (one
    coming home that a server applied and died before answering, so that the other cluster sent
    it again) may reach the peer from either: it says nothing of either WAL's order."""
    targets = [
        (p + 1, set(st.sinks[p + 1].applied))
        for p, status in enumerate(st.peers)
        if status != REMOVED and st.sinks[p + 1].applied
    ]
    if not targets:
        return True
    twice = _written_twice(st)
    for w in existing_wals(st):
        gap = [False] * len(targets)
        for e in w.entries:
            if e.uid in twice:
                continue
            for j, (cluster, applied) in enumerate(targets):
                if not rules.replicable(e.kind, e.cluster_ids, cluster):
                    continue
                if e.uid in applied:
                    if gap[j]:
                        return False
                else:
                    gap[j] = True
    return True


# --- step properties ----------------------------------------------------------------------------


def positions_monotone(cfg: Config, before: State, after: State) -> bool:
    """Seed 003: "The value of these HLog child znodes is the latest position that has been
    replicated." A WAL znode's position never moves backwards."""
    if before.rs is after.rs:
        return True
    old: dict[tuple, int] = {}
    for owner, q in all_queues(before):
        for key, pos in q.wals:
            old[(owner, q.peer, q.chain, key)] = pos
    for owner, q in all_queues(after):
        for key, pos in q.wals:
            prev = old.get((owner, q.peer, q.chain, key))
            if prev is not None and pos < prev:
                return False
    return True


# --- liveness goals -------------------------------------------------------------------------------


def edits_delivered(cfg: Config, st: State) -> bool:
    """Seed 002: "When the slave cluster is finally available, the buffer is applied ... The
    master RegionServer then replicates the backlog of logs that accumulated during the outage."
    Goal: every edit owed to an enabled peer has been applied there."""
    if not st.replication_on:
        return True
    applied = [set(sink.applied) for sink in st.sinks]
    for w in existing_wals(st):
        for e in w.entries:
            for p in bits(e.owed):
                if st.peers[p] == ENABLED and e.uid not in applied[p + 1]:
                    return False
    return True


def dead_queues_claimed(cfg: Config, st: State) -> bool:
    """Seed 000: "ZooKeeper is highly available, it is useful for managing the transfer of the
    queues in the event of a failure." Goal: no dead server still owns a queue."""
    return all(srv.alive or not (st.rs[s] and st.rs[s].queues) for s, srv in enumerate(st.servers))


def removed_peer_queues_deleted(cfg: Config, st: State) -> bool:
    """Seed 003: "Each region server has one queue for every peer cluster it replicates to." Goal:
    once a peer is removed, no queue for it is left behind (HBASE-17077)."""
    return all(st.peers[q.peer] != REMOVED for _owner, q in all_queues(st))


def _prop(kind: str, fn: Callable) -> Property:
    return Property(fn.__name__, kind, fn, _first_line(fn))


INVARIANTS: tuple[Property, ...] = tuple(
    _prop("invariant", f)
    for f in (
        no_lost_edit,
        no_wal_deleted_while_queued,
        single_owner,
        single_source,
        no_edit_at_origin,
        only_global_non_catalog,
        sink_in_order,
    )
)
STEP_PROPERTIES: tuple[Property, ...] = (_prop("step", positions_monotone),)
LIVENESS: tuple[Property, ...] = tuple(
    _prop("liveness", f)
    for f in (edits_delivered, dead_queues_claimed, removed_peer_queues_deleted)
)
ALL_PROPERTIES: tuple[Property, ...] = INVARIANTS + STEP_PROPERTIES + LIVENESS
