"""ReplicationSyncUp run while the source cluster is down, and the master clean-up after it (seed
004 "The ReplicationSyncUp tool"; reference section 8).

The scenario: the whole source cluster stops (``cluster_down``: every live region server dies and
the master is down, so no procedure, refresh or cleaner step runs); the tool runs once
(``syncup_start``, then ``syncup_ship`` per WAL, then ``syncup_finish``); then the master starts
again (``cluster_up``), cleans up the tool's status and runs the SCPs the stop scheduled, whose
claim stage sees the tool's marker files and goes to REMOVE_QUEUES.

Abstractions (each a documented choice):

* the offline view is the current rows, not an older flushed snapshot: the most favourable case.
  An older snapshot only holds older offsets (more is replicated again: duplicates) or misses
  rows written since the flush; ``TState`` has no field for the flushed rows, so this is not
  explored (seed 004 accepts "redundant data being replicated" for it);
* the tool's ``OfflineTableReplicationQueueStorage`` writes only in memory: the work items it
  computes at start are all the model keeps of its claimed queues, as ``(peer, WAL, position)``;
  nothing is written to ``hbase:replication``;
* "server dirs under WALs/" are the servers with a WAL still in ``WALs/`` (a crashed server whose
  SCP split its logs has no directory any more, as in HBase);
* the tool runs to its end (no crash of the tool, so the info file never pre-exists and ``-f`` is
  not needed); ``force`` is still a parameter: without it, a left-over info file makes the tool
  fail with no change (a stutter, not generated);
* region servers do not come back when the master starts, except one fresh server (the last,
  spare, slot when the configuration has one) that joins with the master so that an SCP the tool
  did not mark can still claim its queues; client writes stop with the cluster (the put budget is
  spent at ``cluster_down``).
"""

from __future__ import annotations

from collections.abc import Iterator

from . import table_rules, table_storage
from .action import ActionKind
from .config import Config
from .state import ARCHIVED, ENABLED, LIVE_DIR, Wal, WalKey, bits
from .table_common import wals_to_replicate
from .table_state import BEGIN, NO_SOURCE, NO_SYNCUP, Row, SyncUp, TState

K = ActionKind

SYNCUP_KINDS: tuple[ActionKind, ...] = (
    K("cluster_down", (), False, "the whole source cluster stops: every server, the master"),
    K("syncup_start", ("force",), False, "ReplicationSyncUp: info file, offline view, claims"),
    K("syncup_ship", ("item",), True, "ReplicationSyncUp replicates one WAL from its position"),
    K("syncup_finish", (), True, "ReplicationSyncUp exits; the info file and markers stay"),
    K("cluster_up", (), False, "the master starts: clean-up of the SyncUp status, SCPs resume"),
)


Work = tuple[tuple[int, WalKey, int], ...]


class SyncUpSteps:
    """Steps mixed into the table-era designs (before TableCommon in the MRO)."""

    # --- the cluster stops -------------------------------------------------------------------

    def en_cluster_down(self, cfg: Config, st: TState) -> Iterator[tuple]:
        # Once: the spare server joins when the master comes back (with no spare, nobody is left).
        spare_left = not cfg.spare_servers or not all(srv.started for srv in st.servers)
        if cfg.syncup and st.master_up and self.online(st) and spare_left:
            yield ()

    def do_cluster_down(self, cfg: Config, st: TState) -> TState:
        """Every live region server dies (each gets its SCP, persisted, run when the master is
        back) and the master stops. A claim mutation in flight fails: the server hosting
        ``hbase:replication`` is down too. Clients stop writing."""
        for s in self.online(st):
            st = self.kill(cfg, st, s)
        servers = tuple(srv._replace(claim=()) for srv in st.servers)
        st = st._replace(servers=servers, master_up=False)
        return self.spend(st, puts=st.budget.puts)

    # --- the tool ----------------------------------------------------------------------------

    def en_syncup_start(self, cfg: Config, st: TState) -> Iterator[tuple]:
        # One run per stop: the info file is left by a finished run (the master deletes it). A
        # second run would need ``-f``; without it the tool fails with no change (a stutter).
        if not st.master_up and not st.syncup.running and not st.info:
            yield (0,)

    def do_syncup_start(self, cfg: Config, st: TState, force: int) -> TState:
        """``writeInfoFile``, the offline view of the rows, ``addMissingReplicationQueues`` for
        the servers with a WAL directory, a marker file for every server of
        ``regionServers ∪ listAllReplicators()`` and the claim of all its queues (in memory),
        and the WALs each claimed queue still has to replicate."""
        if st.info and not force:
            return st
        view = st.rows
        dirs = self.rule_syncup_wal_dirs(cfg, st)
        rows = self.rule_syncup_add_missing(st, view, dirs)
        servers = self.rule_syncup_servers(st, rows, dirs)
        markers = st.markers
        work: set[tuple[int, WalKey, int]] = set()
        peers = set(self.storage_peers(st))
        for s in servers:
            markers |= 1 << s
            for row in table_storage.queue_ids_of(rows, s):
                if row.peer in peers:
                    work.update(self.syncup_queue_work(cfg, st, row))
        return st._replace(
            info=True, markers=markers, syncup=SyncUp(True, view, tuple(sorted(work)))
        )

    def syncup_queue_work(self, cfg: Config, st: TState, row: Row) -> Work:
        """``claimQueue(queueId, syncUp=true)``: a recovered source over the WALs of the queue's
        source server that ``shouldReplicate``, per WAL group; the first from the stored
        position."""
        source = row.source if row.source != NO_SOURCE else row.owner
        out = []
        for g in range(cfg.wal_groups):
            offset = table_rules.group_offset(row, g)
            keys = self.rule_syncup_wals(cfg, st, source, g, offset)
            for i, key in enumerate(keys):
                pos = table_rules.start_position(offset, key) if i == 0 else 0
                out.append((row.peer, key, pos))
        return tuple(out)

    def rule_syncup_wal_dirs(self, cfg: Config, st: TState) -> list[int]:
        """``listRegionServers``: the server directories under ``WALs/``."""
        return sorted(
            {
                w.key[0]
                for w in st.wals
                if w and w.place == LIVE_DIR and st.servers[w.key[0]].started
            }
        )

    def rule_syncup_add_missing(
        self, st: TState, view: tuple[Row, ...], dirs: list[int]
    ) -> tuple[Row, ...]:
        """``addMissingReplicationQueues``: for each server with a WAL directory, a BEGIN queue
        for every peer it has no normal queue for (in memory)."""
        rows = view
        for s in dirs:
            have = {r.peer for r in table_storage.queue_ids_of(rows, s) if r.source == NO_SOURCE}
            for p in self.storage_peers(st):
                if p not in have:
                    rows = table_storage.set_offset(rows, p, s, NO_SOURCE, -1, BEGIN)
        return rows

    def rule_syncup_servers(self, st: TState, rows: tuple[Row, ...], dirs: list[int]) -> list[int]:
        """``claimReplicationQueues``: ``regionServers ∪ listAllReplicators()``."""
        return sorted({*dirs, *(r.owner for r in rows)})

    def rule_syncup_wals(
        self, cfg: Config, st: TState, source: int, group: int, offset
    ) -> tuple[WalKey, ...]:
        """The WALs of the source server in ``WALs/`` and ``oldWALs/`` that ``shouldReplicate``,
        oldest first."""
        return wals_to_replicate(st, source, group, offset, (LIVE_DIR, ARCHIVED))

    def en_syncup_ship(self, cfg: Config, st: TState) -> Iterator[tuple]:
        full = (1 << cfg.sink_subset) - 1
        for i, (p, _key, _pos) in enumerate(st.syncup.work):
            if st.peers[p] == ENABLED and st.sinks[p + 1].down & full != full:
                yield (i,)

    def do_syncup_ship(self, cfg: Config, st: TState, i: int) -> TState:
        """The tool's recovered source reads the WAL from the position and ships every edit the
        peer's filter accepts (one action: nothing is persisted, so batching is invisible)."""
        su = st.syncup
        p, key, pos = su.work[i]
        wal = st.wals[cfg.slot(key)]
        if isinstance(wal, Wal):
            target = p + 1
            edits = [e for e in wal.entries[pos:] if self.rule_ships(e, target)]
            st = self.deliver(cfg, st, target, edits)
        return st._replace(syncup=su._replace(work=su.work[:i] + su.work[i + 1 :]))

    def en_syncup_finish(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.syncup.running and not st.syncup.work:
            yield ()

    def do_syncup_finish(self, cfg: Config, st: TState) -> TState:
        """No active failover task and no old source left: the tool exits."""
        return st._replace(syncup=NO_SYNCUP)

    # --- the master starts again ---------------------------------------------------------------

    def en_cluster_up(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if not st.master_up and not st.syncup.running and st.info:
            yield ()

    def do_cluster_up(self, cfg: Config, st: TState) -> TState:
        """ "Cleanup ReplicationSyncUp status": ``removeLastSequenceIdsAndHFileRefsBefore`` the
        tool's start (all of them: nothing was written since) and delete the info file. A spare
        region server joins. The persisted SCPs then resume."""
        st = st._replace(master_up=True)
        if st.info:
            st = st._replace(sid=(0,) * len(st.sid), info=False)
        for s, srv in enumerate(st.servers):
            if not srv.started:
                for g in range(cfg.wal_groups):
                    st = self.with_wal(cfg, st, Wal((s, g, 0), (), False, LIVE_DIR))
                known = sum(1 << p for p in self.storage_peers(st))
                new = self.new_server(cfg, s, True, known, (0,) * cfg.wal_groups)
                st = self.with_server(st, s, new)
                break
        return st


def syncup_replicated_all(cfg: Config, st: TState) -> bool:
    """Seed 004: "After ReplicationSyncUp is executed, the data that needs to be replicated by the
    master cluster has been replicated." Once the tool has exited (info file present, master
    still down), every edit owed to an enabled peer is applied there."""
    if st.master_up or st.syncup.running or not st.info:
        return True
    for w in st.wals:
        if w:
            for e in w.entries:
                for p in bits(e.owed):
                    if st.peers[p] == ENABLED and e.uid not in st.sinks[p + 1].applied:
                        return False
    return True
