"""The table era's properties (seed 004), written against the true state: which WALs exist, what
each sink applied, which rows ``hbase:replication`` holds. The era-independent ones
(``no_edit_at_origin``, ``only_global_non_catalog``, ``sink_in_order``) are the ZooKeeper era's,
reused as they are.
"""

from __future__ import annotations

from .config import Config
from .properties import (
    Property,
    _prop,
    no_edit_at_origin,
    only_global_non_catalog,
    single_source,
    sink_in_order,
)
from .state import DELETED, ENABLED, REMOVED, bits
from .table_rules import group_offset, should_replicate, start_position
from .table_state import (
    ARQP_ADD_MISSING,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    BEGIN_SEQ,
    MIG_MIGRATE,
    NO_SOURCE,
    REMOVE,
    SCP_CLAIM_STAGE,
    SCP_SPLIT,
    TState,
)


def _stale(st: TState, p: int) -> frozenset:
    for peer, uids in st.stale:
        if peer == p:
            return frozenset(uids)
    return frozenset()


def _covered(cfg: Config, st: TState, p: int, key, index: int) -> bool:
    """Will entry ``index`` of WAL ``key`` still be replicated to peer ``p``? By a live source
    that has it queued; by a queue row of a dead owner (to be claimed) whose offset still needs
    it; by the BEGIN queue ADD_MISSING_QUEUES will add for a crashed server; by a ZooKeeper queue
    not yet migrated; or by a running ReplicationSyncUp."""
    server = key[0]
    for srv in st.servers:
        if not srv.alive:
            continue
        for sh in srv.shippers:
            if sh.peer == p and key in sh.wals and (sh.wals[0] != key or sh.pos <= index):
                return True
    for row in st.rows:
        src = row.source if row.source != NO_SOURCE else row.owner
        if row.peer != p or src != server or st.servers[row.owner].alive:
            continue
        offset = group_offset(row, key[1])
        if should_replicate(offset, key) and start_position(offset, key) <= index:
            return True
    scp = st.scps[server]
    if not st.servers[server].alive:
        if SCP_SPLIT <= scp.stage <= ARQP_ADD_MISSING and st.peers[p] != REMOVED:
            return True
        if scp.stage == ARQP_PUT_MISSING and scp.peers >> p & 1:
            return True
    for owner, q in st.zk:
        if q.peer == p and (q.chain[0] if q.chain else owner) == server:
            for k, pos in q.wals:
                if k[1] == key[1] and (k[2] < key[2] or (k == key and pos <= index)):
                    return True
    return any(peer == p and tuple(wk) == key and pos <= index for peer, wk, pos in st.syncup.work)


# --- invariants --------------------------------------------------------------------------------


def no_lost_edit(cfg: Config, st: TState) -> bool:
    """Seed 004: "otherwise there will be data loss in the peer cluster." Every edit owed to a
    peer that still exists has been applied there, or a live source, a dead owner's queue, a
    queue still to be added, a ZooKeeper queue or a SyncUp run will replicate it from a WAL that
    still exists."""
    applied = [set(sink.applied) for sink in st.sinks]
    for w in st.wals:
        if not w:
            continue
        for i, e in enumerate(w.entries):
            for p in bits(e.owed):
                if st.peers[p] == REMOVED or e.uid in applied[p + 1]:
                    continue
                if e.uid in _stale(st, p):
                    continue
                if w.place == DELETED or not _covered(cfg, st, p, w.key, i):
                    return False
    return True


def no_wal_deleted_while_needed(cfg: Config, st: TState) -> bool:
    """Seed 004: "all the files before this offset can be deleted, otherwise not." No deleted
    WAL is queued in a live source of a peer that still exists, and none is at or after the
    offset of a queue row of such a peer (a live, SCP-unfinished or not-yet-claimed server's
    queue). (A removed peer's source ships until the refresh on its server stops it, and the
    cleaner no longer keeps its WALs: what it can no longer read is owed to no one.)"""
    deleted = [w.key for w in st.wals if w and w.place == DELETED]
    if not deleted:
        return True
    gone = set(deleted)
    for srv in st.servers:
        if srv.alive and any(
            k in gone for sh in srv.shippers if st.peers[sh.peer] != REMOVED for k in sh.wals
        ):
            return False
    for row in st.rows:
        if st.peers[row.peer] == REMOVED:
            continue
        src = row.source if row.source != NO_SOURCE else row.owner
        for g, seq, _pos in row.offsets:
            if seq == BEGIN_SEQ:
                continue
            for key in deleted:
                if key[0] == src and key[1] == g and should_replicate((seq, _pos), key):
                    return False
    return True


def one_queue_per_source(cfg: Config, st: TState) -> bool:
    """Seed 004: "we only need to replicate the WAL data of the first region server" — and once:
    at most one queue per (source server, peer)."""
    seen = set()
    for row in st.rows:
        k = (row.source if row.source != NO_SOURCE else row.owner, row.peer)
        if k in seen:
            return False
        seen.add(k)
    return True


def no_queue_after_removal(cfg: Config, st: TState) -> bool:
    """Seed 004: RemovePeerProcedure must make sure the claim stage "does not insert a new
    replication queue for the deleted replication peer, or at least, we need to have a way to
    delete these replication queues properly." Once it finished, no queue, ``sid`` or
    ``hfileref`` row of the peer exists, and none is created afterwards."""
    done = st.removed_done
    if not done:
        return True
    if any(done >> r.peer & 1 for r in st.rows):
        return False
    return not any(done >> p & 1 and st.sid[p] for p in range(len(st.sid)))


def no_stale_edit_replicated(cfg: Config, st: TState) -> bool:
    """Seed 004: "when converting from STANDBY to DOWNGRADE_ACTIVE, we need to make sure we do
    not replicate the data which belongs to the previous DA state." No edit left unreplicated
    when the peer went to STANDBY is ever applied there."""
    for p, uids in st.stale:
        applied = set(st.sinks[p + 1].applied)
        if any(u in applied for u in uids):
            return False
    return True


def no_claim_mid_migration(cfg: Config, st: TState) -> bool:
    """Seed 004: "during migration, the region server can not claim the replication queues
    too." While queues are still being migrated (up to and including MIGRATE) no claim procedure
    runs. (The code waits longer, until the whole procedure is done; seed 004 lets claims start
    once the data is migrated, and both are safe.)"""
    if not st.migration or st.migration.stage > MIG_MIGRATE:
        return True
    return not any(ARQP_ADD_MISSING <= scp.stage <= ARQP_REMOVE for scp in st.scps)


# --- step properties ---------------------------------------------------------------------------


def offsets_monotone(cfg: Config, before: TState, after: TState) -> bool:
    """Seed 004: "When starting a recovered replication queue, we will skip all the files before
    this offset": a queue's group offset never moves backwards in timestamp order."""
    if before.rows is after.rows:
        return True
    old = {}
    for r in before.rows:
        for g, seq, pos in r.offsets:
            old[(r.peer, r.owner, r.source, g)] = (seq, pos)
    for r in after.rows:
        for g, seq, pos in r.offsets:
            prev = old.get((r.peer, r.owner, r.source, g))
            if prev is None or prev[0] == BEGIN_SEQ:
                continue
            if seq < prev[0] or (seq == prev[0] and prev[1] >= 0 and 0 <= pos < prev[1]):
                return False
            if seq == prev[0] and prev[1] < 0 <= pos:
                return False
    return True


# --- liveness goals ----------------------------------------------------------------------------


def edits_delivered(cfg: Config, st: TState) -> bool:
    """Seed 004: queues exist so that nothing "will be data loss in the peer cluster". Goal: every
    edit owed to an enabled peer is applied there (stale STANDBY-era edits excepted)."""
    applied = [set(sink.applied) for sink in st.sinks]
    for w in st.wals:
        if w:
            for e in w.entries:
                for p in bits(e.owed):
                    if (
                        st.peers[p] == ENABLED
                        and e.uid not in applied[p + 1]
                        and e.uid not in _stale(st, p)
                    ):
                        return False
    return True


def dead_queues_claimed(cfg: Config, st: TState) -> bool:
    """Seed 004: "in the claim queue stage of SCP, we list all the replication peers, create a
    replication queue for it if it does not exist yet, and then let other region servers to claim
    it." Goal: no dead server owns a queue of a peer in storage, and no SCP is stuck."""
    for row in st.rows:
        if not st.servers[row.owner].alive and st.peers[row.peer] != REMOVED:
            return False
    return not any(scp.stage == SCP_CLAIM_STAGE for scp in st.scps) or not st.master_up


def removal_finishes(cfg: Config, st: TState) -> bool:
    """Seed 004: collect the ongoing SCPs once, "otherwise if there are new SCPs scheduled, it
    could make us stuck here forever". Goal: no RemovePeerProcedure is pending."""
    return not any(proc and proc.kind == REMOVE for proc in st.pprocs)


def removed_peer_queues_deleted(cfg: Config, st: TState) -> bool:
    """Seed 004: "we need to have a way to delete these replication queues properly." Goal: no
    queue of a removed peer is left."""
    return not any(st.peers[r.peer] == REMOVED for r in st.rows)


def system_table_served(cfg: Config, st: TState) -> bool:
    """Seed 004: "once a region server is started, we will assign the system table to it, and
    during the assignment processing, we need to create a WAL file and write the open marker to it,
    but before we can writing anything into the WAL file, we need to store this WAL file to the
    system table. Deadlock." Goal: the region of ``hbase:replication`` is open."""
    return st.table_online


INVARIANTS: tuple[Property, ...] = tuple(
    _prop("invariant", f)
    for f in (
        no_lost_edit,
        no_wal_deleted_while_needed,
        one_queue_per_source,
        single_source,
        no_edit_at_origin,
        only_global_non_catalog,
        sink_in_order,
        no_queue_after_removal,
        no_stale_edit_replicated,
        no_claim_mid_migration,
    )
)
STEP_PROPERTIES: tuple[Property, ...] = (_prop("step", offsets_monotone),)
LIVENESS: tuple[Property, ...] = tuple(
    _prop("liveness", f)
    for f in (
        edits_delivered,
        dead_queues_claimed,
        removal_finishes,
        removed_peer_queues_deleted,
        system_table_served,
    )
)
ALL_PROPERTIES: tuple[Property, ...] = INVARIANTS + STEP_PROPERTIES + LIVENESS
