"""The ZooKeeper-to-table migration and rolling upgrade (seed 004 "About data migration and rolling
upgrading"; reference section 9): ``MigrateReplicationQueueFromZkToTableProcedure`` and region
servers of major version 2 being replaced, one by one, by servers of version 3.

Abstractions (each a documented choice):

* **The starting point.** With ``cfg.migration`` the cluster has just got a 3.x master, which
  scheduled the migration (persisted, state DISABLE_CLEANER). Of the started slots, as many as
  there are spare slots are alive version-2 servers (each can be upgraded into a spare slot); the
  other started slots are servers that died in the 2.x era, in order: each one's queue was claimed
  by the next dead one, and the last dead one's by server 0 (a cascade), so server 0's znode holds
  the chained ids ``peer-d1-d2-...`` of "only the first dead server of a chained id". A dead
  server's SCP finished long ago; its one WAL (group 0) is in oldWALs and holds one edit owed to
  every initial peer that was not replicated yet (it is not counted in ``cfg.edits``).
* **ZooKeeper** (``TState.zk``): per alive version-2 server a normal queue per initial peer with
  its current WAL of each group at position 0, and the chained recovered queues above. No table
  row exists at first.
* **Version-2 servers are frozen for replication.** The migration disables every peer, and in the
  real system an old server only writes ZooKeeper positions; the model starts old servers with
  nothing shipped and never lets them ship, persist, advance or finish (so an old server never
  writes ``hbase:replication``). They still write edits and roll: a roll is appended to the old
  server's ZooKeeper queues while its znode exists (not after it was migrated: the row's offset,
  the oldest WAL of the group, already keeps every newer WAL). A version-2 server keeps its
  queues, the recovered ones included, as sources in memory.
* **MIGRATE**: one ``migrate_server`` action per replicator znode writes its queues' rows and
  deletes the znode in one step. In HBase the iterator deletes a znode only when it moves on, so
  a master restart in between re-migrates it; the puts are idempotent, so one step loses
  nothing. The procedure leaves MIGRATE once no znode is left (it "suspends until the future
  completes"). Last pushed sequence ids and hfile references are not modelled.
* **The rolling upgrade** (``upgrade``, an environment action): an alive version-2 server stops
  (the master expires it and schedules its SCP) and the lowest spare slot starts as a version-3
  server with a normal source per peer in storage (a new server name, so a new slot). Spare slots
  are interchangeable, so taking the lowest loses no behaviour.
* **Claims**: the code suspends the SCP's claim stage until the migration procedure finished
  (``TableCommon.rule_claims_allowed``); ``table-doc`` (seed 004 as written) lets claims start
  once the data is migrated (past MIGRATE) and at least 30% of the online servers are upgraded,
  and sends them to upgraded servers only.
* The master's cleaner chore does not start before the migration's first state ran
  (``TableCommon.cleaner_may_run``): the master schedules the migration before its chores start.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import table_rules
from .action import ActionKind
from .config import Config
from .state import ARCHIVED, DISABLED, ENABLED, GLOBAL, LIVE_DIR, Edit, Queue, Shipper, Wal, bits
from .table_state import (
    MIG_CLEAN_UP,
    MIG_DISABLE_CLEANER,
    MIG_DISABLE_PEER,
    MIG_DONE,
    MIG_ENABLE_CLEANER,
    MIG_ENABLE_PEER,
    MIG_MIGRATE,
    MIG_PREPARE,
    MIG_WAIT_UPGRADING,
    NO_SOURCE,
    RUNNING,
    SCP_DONE,
    Migration,
    Scp,
    TState,
)

K = ActionKind

OLD_VERSION, NEW_VERSION = 2, 3
UPGRADED_SHARE = 0.3
"""Seed 004: "only after at least 30% region servers have been upgraded" (``table-doc`` only)."""

MIGRATE_KINDS: tuple[ActionKind, ...] = (
    K("migration_step", (), True, "MigrateReplicationQueueFromZkToTableProcedure's next state"),
    K(
        "migrate_server",
        ("server",),
        True,
        "MIGRATE: one replicator znode's queues become rows, then the znode is deleted",
    ),
    K("upgrade", ("old", "new"), False, "rolling upgrade: a 2.x server stops, a 3.x one joins"),
)


def _wal_order(kp: tuple[tuple[int, int, int], int]) -> tuple[int, int, int]:
    """The order of ``Queue.wals`` (the one ``table_symmetry`` keeps): group, seq, server."""
    key = kp[0]
    return (key[1], key[2], key[0])


class MigrationSteps:
    """Steps mixed into the table-era designs (before TableCommon in the MRO)."""

    # --- initial state ---------------------------------------------------------------------------

    def init(self, cfg: Config) -> TState:
        """With ``cfg.migration``: version-2 servers whose queues are in ZooKeeper, servers that
        died in the 2.x era, spare slots for version-3 servers, and the migration procedure at
        DISABLE_CLEANER (see the module docstring)."""
        st = super().init(cfg)
        if not cfg.migration:
            return st
        old = cfg.servers - cfg.spare_servers
        alive = min(cfg.spare_servers, old)
        if alive == 0:
            raise ValueError(f"config {cfg.name!r}: a migration needs a spare slot")
        initial = range(cfg.initial_peers)
        owed = sum(1 << p for p in initial)
        servers = list(st.servers)
        wals = list(st.wals)
        scps = list(st.scps)
        zk: list[tuple[int, Queue]] = []
        for s in range(alive):
            servers[s] = servers[s]._replace(version=OLD_VERSION)
            for p in initial:
                zk.append((s, Queue(p, (), tuple(((s, g, 0), 0) for g in range(cfg.wal_groups)))))
        dead = list(range(alive, old))
        for d in dead:
            for g in range(cfg.wal_groups):
                edits = (Edit((0, d, g, 0, 0), GLOBAL, (0,), owed),) if g == 0 and owed else ()
                wals[cfg.slot((d, g, 0))] = Wal((d, g, 0), edits, True, ARCHIVED)
            servers[d] = servers[d]._replace(alive=False, version=OLD_VERSION, known=0, shippers=())
            scps[d] = Scp(SCP_DONE, 0, ())
        recovered = []
        for i, d in enumerate(dead):
            for p in initial:
                zk.append((0, Queue(p, tuple(dead[i:]), (((d, 0, 0), 0),))))
                recovered.append(Shipper(p, (d,), 0, ((d, 0, 0),), 0))
        srv = servers[0]
        servers[0] = srv._replace(shippers=tuple(sorted((*srv.shippers, *recovered))))
        return st._replace(
            servers=tuple(servers),
            wals=tuple(wals),
            scps=tuple(scps),
            zk=tuple(sorted(zk)),
            migration=Migration(MIG_DISABLE_CLEANER, 0, 0),
        )

    # --- decision rules --------------------------------------------------------------------------

    def rule_migration_fences_cleaner(self) -> bool:
        """DISABLE_CLEANER and ENABLE_CLEANER hold the log cleaner's barrier over the whole
        migration (the fix of HBASE-27430)."""
        return True

    def migration_holds_barrier(self, st: TState) -> int:
        """``afterReplay``: a migration past DISABLE_CLEANER and not yet past ENABLE_CLEANER
        disables the barrier again."""
        m = st.migration
        held = bool(m) and MIG_DISABLE_CLEANER < m.stage <= MIG_ENABLE_CLEANER
        return int(held and self.rule_migration_fences_cleaner())

    def upgraded_share_reached(self, st: TState) -> bool:
        """Seed 004: at least 30% of the (online) region servers run the new version."""
        online = self.online(st)
        new = [s for s in online if st.servers[s].version >= NEW_VERSION]
        return bool(new) and len(new) >= UPGRADED_SHARE * len(online)

    def rule_claims_allowed(self, st: TState) -> bool:
        """The code (``table``): the claim stage suspends until the migration procedure finished.
        Seed 004 (``table-doc``): "Check whether we have finished the data migration, if not,
        just suspend the SCP" and "only after at least 30% region servers have been upgraded, we
        can start to execute the claim replication queue operations"."""
        if super().rule_claims_allowed(st):
            return True
        if not self.doc_waits_for_scps:
            return False
        return st.migration.stage > MIG_MIGRATE and self.upgraded_share_reached(st)

    def rule_claim_targets(self, st: TState) -> list[int]:
        """Seed 004 (``table-doc``): "we will only send claim queue procedures to the region
        server with the new version". The code has no such filter (every online server is
        upgraded by the time it claims)."""
        targets = super().rule_claim_targets(st)
        if not self.doc_waits_for_scps:
            return targets
        return [t for t in targets if st.servers[t].version >= NEW_VERSION]

    # --- version-2 servers -----------------------------------------------------------------------

    def _new_only(self, st: TState, gen: Iterator[tuple]) -> Iterator[tuple]:
        for args in gen:
            if st.servers[args[0]].version >= NEW_VERSION:
                yield args

    def en_ship(self, cfg: Config, st: TState) -> Iterator[tuple]:
        """Version-2 servers do not replicate in the model (see the module docstring)."""
        return self._new_only(st, super().en_ship(cfg, st))

    def en_persist(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._new_only(st, super().en_persist(cfg, st))

    def en_advance(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._new_only(st, super().en_advance(cfg, st))

    def en_finish(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._new_only(st, super().en_finish(cfg, st))

    def do_roll(self, cfg: Config, st: TState, s: int, g: int) -> TState:
        """A version-2 server also adds the new WAL to its normal ZooKeeper queues, while its
        znode exists."""
        st = super().do_roll(cfg, st, s, g)
        if st.servers[s].version >= NEW_VERSION or not any(o == s for o, _q in st.zk):
            return st
        key = (s, g, st.servers[s].current[g])
        zk = tuple(
            (o, q._replace(wals=tuple(sorted((*q.wals, (key, 0)), key=_wal_order))))
            if o == s and not q.chain
            else (o, q)
            for o, q in st.zk
        )
        return st._replace(zk=tuple(sorted(zk)))

    # --- the migration procedure -----------------------------------------------------------------

    def en_migration_step(self, cfg: Config, st: TState) -> Iterator[tuple]:
        m = st.migration
        if not m or m.stage == MIG_DONE:
            return
        if m.stage == MIG_DISABLE_CLEANER:
            ok = not self.rule_migration_fences_cleaner() or st.barrier[0] != RUNNING
        elif m.stage == MIG_PREPARE:
            ok = not any(st.pprocs)
        elif m.stage == MIG_MIGRATE:
            ok = not st.zk
        elif m.stage == MIG_WAIT_UPGRADING:
            ok = all(st.servers[s].version >= NEW_VERSION for s in self.online(st))
        else:
            ok = True
        if ok:
            yield ()

    def do_migration_step(self, cfg: Config, st: TState) -> TState:
        """One state of ``MigrateReplicationQueueFromZkToTableProcedure`` (reference section 9):
        DISABLE_CLEANER (``barrier.disable()``, suspended while the cleaner runs); PREPARE (the
        enabled peers are recorded; no peer: straight to ENABLE_CLEANER); DISABLE_PEER; MIGRATE
        (left once every znode is migrated); WAIT_UPGRADING (suspended while an online server runs
        version 2); ENABLE_PEER (the recorded ones); ENABLE_CLEANER; CLEAN_UP (the ZooKeeper data
        left is deleted)."""
        m = st.migration
        stage = m.stage
        nxt = stage + 1
        if stage == MIG_DISABLE_CLEANER:
            if self.rule_migration_fences_cleaner():
                st = st._replace(barrier=self.barrier_disable(st.barrier))
        elif stage == MIG_PREPARE:
            peers = self.storage_peers(st)
            m = m._replace(disabled=sum(1 << p for p in peers if st.peers[p] == ENABLED))
            if not peers:
                nxt = MIG_ENABLE_CLEANER
        elif stage == MIG_DISABLE_PEER:
            peers = st.peers
            for p in bits(m.disabled):
                peers = (*peers[:p], DISABLED, *peers[p + 1 :])
            st = st._replace(peers=peers)
        elif stage == MIG_ENABLE_PEER:
            peers = st.peers
            for p in bits(m.disabled):
                if peers[p] == DISABLED:
                    peers = (*peers[:p], ENABLED, *peers[p + 1 :])
            st = st._replace(peers=peers)
        elif stage == MIG_ENABLE_CLEANER:
            if self.rule_migration_fences_cleaner():
                st = st._replace(barrier=self.barrier_enable(st.barrier))
        elif stage == MIG_CLEAN_UP:
            st = st._replace(zk=())
        return st._replace(migration=m._replace(stage=nxt))

    def en_migrate_server(self, cfg: Config, st: TState) -> Iterator[tuple]:
        m = st.migration
        if m and m.stage == MIG_MIGRATE:
            yield from ((o,) for o in sorted({o for o, _q in st.zk}))

    def do_migrate_server(self, cfg: Config, st: TState, s: int) -> TState:
        """``migrateQueues`` for one replicator znode: each queue of a peer in storage becomes the
        row ``ReplicationQueueId(s, peer[, first dead server of the chain])`` holding, per WAL
        group, the WAL with the smallest timestamp and its position (``setOffset`` puts); then
        the znode is deleted."""
        peers = set(self.storage_peers(st))
        for owner, q in st.zk:
            if owner != s or q.peer not in peers:
                continue
            source = q.chain[0] if q.chain else NO_SOURCE
            first: dict[int, tuple[tuple[int, int, int], int]] = {}
            for key, pos in q.wals:
                g = key[1]
                if g not in first or table_rules.wal_timestamp(key) < table_rules.wal_timestamp(
                    first[g][0]
                ):
                    first[g] = (key, pos)
            for g in sorted(first):
                key, pos = first[g]
                st = self.set_offset(st, q.peer, s, source, g, (key[2], pos))
        m = st.migration
        return st._replace(
            zk=tuple(x for x in st.zk if x[0] != s),
            migration=m._replace(migrated=m.migrated | 1 << s),
        )

    # --- the rolling upgrade ---------------------------------------------------------------------

    def en_upgrade(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if not st.migration:
            return
        spare = [s for s, srv in enumerate(st.servers) if not srv.started]
        if not spare:
            return
        for s, srv in enumerate(st.servers):
            if srv.alive and srv.version < NEW_VERSION:
                yield (s, spare[0])

    def do_upgrade(self, cfg: Config, st: TState, old: int, new: int) -> TState:
        """The old server stops (its SCP is scheduled); the new one starts on the spare slot
        (``RSM.init``: a normal source per peer in storage, on its first WALs)."""
        st = self.kill(cfg, st, old)
        for g in range(cfg.wal_groups):
            st = self.with_wal(cfg, st, Wal((new, g, 0), (), False, LIVE_DIR))
        known = sum(1 << p for p in self.storage_peers(st))
        srv = self.new_server(cfg, new, True, known, (0,) * cfg.wal_groups)
        return self.with_server(st, new, srv)
