"""The ZooKeeper-to-table migration and the rolling upgrade (seed 004 "About data migration and
rolling upgrading"; reference section 9): ``MigrateReplicationQueueFromZkToTableProcedure`` and
region servers of major version 2 being replaced, one by one, by servers of version 3. Written
once, in the protocol text's form (``model/engine/step.py``): every engine reads these steps.

Abstractions (each a documented choice):

* **The starting point** (``start``). With ``cfg.migration`` the cluster has just got a 3.x
  master, which scheduled the migration (persisted, state DISABLE_CLEANER). Of the started slots,
  as many as there are spare slots are alive version-2 servers (each can be upgraded into a spare
  slot); the other started slots are servers that died in the 2.x era, in order: each one's queue
  was claimed by the next dead one, and the last dead one's by server 0 (a cascade), so server
  0's znode holds the chained ids ``peer-d1-d2-...`` of "only the first dead server of a chained
  id". A dead server's SCP finished long ago; its one WAL (group 0) is in oldWALs and holds one
  edit owed to every initial peer that was not replicated yet (it is not counted in
  ``cfg.edits``).
* **ZooKeeper** (``TState.zk``): per alive version-2 server a normal queue per initial peer with
  its current WAL of each group at position 0, and the chained recovered queues above. No table
  row exists at first.
* **Version-2 servers are frozen for replication.** The migration disables every peer, and in the
  real system an old server only writes ZooKeeper positions; the model starts old servers with
  nothing shipped and never lets them ship, persist, advance or finish (``new_version``, a gate),
  so an old server never writes ``hbase:replication``. They still write edits and roll: a roll is
  appended to the old server's ZooKeeper queues while its znode exists (``after_roll``; not after
  it was migrated: the row's offset, the oldest WAL of the group, already keeps every newer WAL).
* **MIGRATE**: one ``migrate_server`` action per replicator znode writes its queues' rows and
  deletes the znode in one step. In HBase the iterator deletes a znode only when it moves on, so
  a master restart in between re-migrates it; the puts are idempotent, so one step loses
  nothing. The procedure leaves MIGRATE once no znode is left (it "suspends until the future
  completes"). Last pushed sequence ids are not modelled; the hfile-refs task is
  ``model/features/migrate_hfile.py``'s (``Config.zk_hfile_refs``), which extends ``migrate_left``.
* **The rolling upgrade** (``upgrade``, an environment action): an alive version-2 server stops
  (the master expires it and schedules its SCP) and the lowest spare slot starts as a version-3
  server with a normal source per peer in storage (a new server name, so a new slot). Spare slots
  are interchangeable, so taking the lowest loses no behaviour.
* **Claims**: the code suspends the SCP's claim stage until the migration procedure finished
  (``rule_claims_allowed``); ``table-doc`` (seed 004 as written) lets claims start once the data
  is migrated (past MIGRATE) and at least 30% of the online servers are upgraded, and sends them
  to upgraded servers only (``rule_claim_target``).
* Peer procedures wait for the migration, and the master's cleaner chore does not start before
  the migration's first state ran: the master schedules the migration before its chores start.
* The legacy ``region_replica_replication`` peer (``Config.legacy_peer``,
  ``model/features/legacy_peer.py``) extends three hooks of the procedure: ``no_peers_next``
  (PREPARE with no peer), ``delete_migrated`` (what MIGRATE's iterator deletes) and ``clean_up``.

The layout's new slots: per server ``server_started[s]`` and ``server_upgraded[s]`` (major version
3 rather than 2); the procedure's state ``migration_stage``, the peers it disabled
``migration_disabled_peer[p]``, the servers whose znode it migrated ``migration_migrated[s]``; the
ZooKeeper queues still to migrate, one slot per queue of the initial state keyed ``(owner, peer,
source)`` with ``source`` the first dead server of a chained queue id (-1 for a normal queue):
``zk_queue[owner, peer, source]`` present and ``zk_queue_wal[owner, peer, source, group, seq]`` one
bit per WAL of the queue (the owner's WALs for a normal queue, the source's for a chained one). No
queue is ever created after the start, so the
initial state fixes the slots and each slot's chain. What the layout refuses (``FlatError``):
spare servers with no migration (ReplicationSyncUp's are its own feature's), a server of a major
version other than 2 or 3, a state with no migration procedure, a ZooKeeper queue that is not one
of the initial state's, a WAL of a queue that is not its owner's or source's, and a ZooKeeper
position other than 0 (version-2 servers never ship, so no position is ever written).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from replcheck.model.common.state import (
    ARCHIVED,
    DELETED,
    DISABLED,
    ENABLED,
    GLOBAL,
    Edit,
    Queue,
    Shipper,
    Wal,
)
from replcheck.model.config import Config
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, gate, step
from replcheck.model.engine.text import FlatError, FlatProperty, count
from replcheck.model.features.joins import StartedSlots
from replcheck.model.table import rules as table_rules
from replcheck.model.table.state import (
    ARQP_ADD_MISSING,
    ARQP_REMOVE,
    BARRIER_DISABLED,
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
    NOT_RUNNING,
    RUNNING,
    SCP_DONE,
    Migration,
    Scp,
    TState,
)
from replcheck.model.table.views import Server

OLD_VERSION, NEW_VERSION = 2, 3
UPGRADED_SHARE = 0.3
"""Seed 004: "only after at least 30% region servers have been upgraded" (``table-doc`` only)."""
SHARE = (3, 10)
"""``UPGRADED_SHARE`` as a fraction: ``new >= 0.3 * online`` is ``10 * new >= 3 * online`` on
the small server counts a configuration has (checked when the module loads)."""
if not all(
    (n >= UPGRADED_SHARE * o) == (SHARE[1] * n >= SHARE[0] * o)
    for o in range(64)
    for n in range(o + 1)
):
    raise ValueError("SHARE no longer matches UPGRADED_SHARE")


def start(cfg: Config, st: TState) -> TState:
    """The initial state with ``cfg.migration``: version-2 servers whose queues are in ZooKeeper,
    servers that died in the 2.x era, spare slots for version-3 servers, and the migration
    procedure at DISABLE_CLEANER (see the module docstring)."""
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


def _stages(text: Any) -> list[tuple[int]]:
    return [(stage,) for stage in range(MIG_DONE)]


def _znodes(text: Any) -> list[tuple[int]]:
    return [(s,) for s in sorted({zs[0] for zs in text.zslots})]


def _upgrades(text: Any) -> list[tuple[int, int]]:
    old = [s for s in text.S if s not in text.spare]
    return [(o, n) for o in old for n in text.spare]


class ZkMigration(StartedSlots):
    """The migration from ZooKeeper, the rolling upgrade and spare servers (the layout's helpers
    are ``StepBase``'s)."""

    handles = frozenset({"migration", "spare_servers"})
    encoded_fields = ("migration", "zk")
    encoded_server_fields = ("version",)

    def __init__(self, design: Any, cfg: Config) -> None:
        super().__init__(design, cfg)  # type: ignore[call-arg]
        i0 = self.init_state
        if not i0.migration:
            raise FlatError(f"config {cfg.name!r}: spare servers without a migration")
        self.doc = bool(design.doc_waits_for_scps)
        """``doc_waits_for_scps``: seed 004's 30% threshold and upgraded-only claim targets."""
        self.spare = [s for s, srv in enumerate(i0.servers) if not srv.started]
        """The slots that start as spare servers."""
        self.chains: dict[tuple[int, int, int], tuple[int, ...]] = {}
        for owner, q in i0.zk:
            zs = (owner, q.peer, q.chain[0] if q.chain else NO_SOURCE)
            if zs in self.chains:
                raise FlatError("two ZooKeeper queues with one (owner, peer, source)")
            self.chains[zs] = q.chain
        self.zslots = sorted(self.chains)
        """ZooKeeper queue slots ``(owner, peer, source)``."""

    # --- the layout ---------------------------------------------------------------------------

    def zk_keys(self, zs: tuple[int, int, int]) -> list[tuple]:
        """The slots of ZooKeeper queue ``zs`` not migrated yet: the queue znode and its WAL
        znodes per WAL group."""
        out = [var.zk_queue(*zs)]
        for g in self.G:
            out += [var.zk_queue_wal(*zs, g, q) for q in self.Q]
        return out

    def sorts(self) -> dict[tuple, Any]:
        out = super().sorts()  # type: ignore[misc]
        for s in self.S:
            out[var.server_upgraded(s)] = "b"
            out[var.migration_migrated(s)] = "b"
        for p in self.P:
            out[var.migration_disabled_peer(p)] = "b"
        out[var.migration_stage()] = ("i", 0, MIG_DONE)
        for zs in self.zslots:
            for k in self.zk_keys(zs):
                out[k] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v = super().encode(st)  # type: ignore[misc]
        for s, srv in enumerate(st.servers):
            if srv.version not in (OLD_VERSION, NEW_VERSION):
                raise FlatError(f"a server of major version {srv.version}")
            v[var.server_upgraded(s)] = srv.version == NEW_VERSION
        m = st.migration
        if not m:
            raise FlatError("no migration procedure: not in the migration's layout")
        v[var.migration_stage()] = m.stage
        for p in self.P:
            v[var.migration_disabled_peer(p)] = bool(m.disabled >> p & 1)
        for s in self.S:
            v[var.migration_migrated(s)] = bool(m.migrated >> s & 1)
        for owner, q in st.zk:
            zs = (owner, q.peer, q.chain[0] if q.chain else NO_SOURCE)
            if self.chains.get(zs) != q.chain:
                raise FlatError("a ZooKeeper queue that is not one of the initial state's")
            if v[var.zk_queue(*zs)]:
                raise FlatError("two ZooKeeper queues with one (owner, peer, source)")
            v[var.zk_queue(*zs)] = True
            x = self.wal_owner(owner, zs[2])
            for key, pos in q.wals:
                if key[0] != x or pos != 0:
                    raise FlatError("a ZooKeeper queue WAL of another server, or a position")
                v[var.zk_queue_wal(*zs, key[1], key[2])] = True
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        servers = tuple(
            srv._replace(version=NEW_VERSION if v[var.server_upgraded(s)] else OLD_VERSION)
            for s, srv in enumerate(st.servers)
        )
        zk = []
        for zs in self.zslots:
            if v[var.zk_queue(*zs)]:
                owner, p, src = zs
                x = self.wal_owner(owner, src)
                wals = tuple(
                    ((x, g, q), 0) for g in self.G for q in self.Q if v[var.zk_queue_wal(*zs, g, q)]
                )
                zk.append((owner, Queue(p, self.chains[zs], wals)))
        migration = Migration(
            v[var.migration_stage()],
            sum(1 << p for p in self.P if v[var.migration_disabled_peer(p)]),
            sum(1 << s for s in self.S if v[var.migration_migrated(s)]),
        )
        return st._replace(servers=servers, zk=tuple(sorted(zk)), migration=migration)

    def znode(self, t: Any, s: int) -> Any:
        """The replicator znode of ``s`` exists (it holds a queue)."""
        return t.ops.or_(*(t.zk_queue[*zs] for zs in self.zslots if zs[0] == s))

    # --- rules --------------------------------------------------------------------------------

    def rule_migration_fences_cleaner(self) -> bool:
        """DISABLE_CLEANER and ENABLE_CLEANER hold the log cleaner's barrier over the whole
        migration (the fix of HBASE-27430)."""
        return True

    def upgraded_share_reached(self, ops: Any, get: Any) -> Any:
        """Seed 004: at least 30% of the (online) region servers run the new version."""
        now = named(get)
        online = count(ops, (now.server_alive[s] for s in self.S))
        new = count(
            ops,
            (ops.and_(now.server_alive[s], now.server_upgraded[s]) for s in self.S),
        )
        return ops.and_(new > 0, new * SHARE[1] >= online * SHARE[0])

    def rule_claims_allowed(self, ops: Any, get: Any) -> Any:
        """The code (``table``): the claim stage suspends until the migration procedure finished.
        Seed 004 (``table-doc``): "Check whether we have finished the data migration, if not,
        just suspend the SCP" and "only after at least 30% region servers have been upgraded, we
        can start to execute the claim replication queue operations"."""
        stage = named(get).migration_stage
        done = stage == MIG_DONE
        if not self.doc:
            return done
        return ops.or_(done, ops.and_(stage > MIG_MIGRATE, self.upgraded_share_reached(ops, get)))

    def rule_claim_target(self, t: Any, x: int) -> Any:
        """Seed 004 (``table-doc``): "we will only send claim queue procedures to the region
        server with the new version". The code has no such filter (every online server is
        upgraded by the time it claims)."""
        alive = super().rule_claim_target(t, x)  # type: ignore[misc]
        return t.ops.and_(alive, t.server_upgraded[x]) if self.doc else alive

    def migration_holds_barrier(self, ops: Any, get: Any) -> Any:
        """``afterReplay``: a migration past DISABLE_CLEANER and not yet past ENABLE_CLEANER
        disables the barrier again (when it fences the cleaner)."""
        if not self.rule_migration_fences_cleaner():
            return 0
        stage = named(get).migration_stage
        return ops.ite(ops.and_(stage > MIG_DISABLE_CLEANER, stage <= MIG_ENABLE_CLEANER), 1, 0)

    def master_restart_barrier(self, ops: Any, tx: Any) -> None:
        """``afterReplay``: the AddPeerProcedures' count, plus ``migration_holds_barrier`` (the
        migration's own ``afterReplay``, separate code in HBase)."""
        super().master_restart_barrier(ops, tx)  # type: ignore[misc]
        n = tx.cleaner_barrier_holders + self.migration_holds_barrier(ops, tx.__getitem__)
        tx.cleaner_barrier = ops.ite(n > 0, BARRIER_DISABLED, NOT_RUNNING)
        tx.cleaner_barrier_holders = n

    # --- what waits, and version-2 servers ------------------------------------------------------

    @gate("ship", "persist", "advance", "finish")
    def new_version(self, t: Ctx, s: int, *rest: Any) -> None:
        """Version-2 servers do not replicate (see the module docstring)."""
        t.require(t.server_upgraded[s])

    @gate("add_peer", "remove_peer")
    def peer_procedures_wait(self, t: Ctx, *args: Any) -> None:
        """No peer procedure is submitted while the migration runs."""
        t.require(t.migration_stage == MIG_DONE)

    @gate("cleaner_start")
    def cleaner_after_first_state(self, t: Ctx) -> None:
        """The cleaner chore starts only after the migration's first state ran."""
        t.require(t.migration_stage > MIG_DISABLE_CLEANER)

    def after_roll(self, ops: Any, tx: Any, s: int, g: int, q: int) -> None:
        """A version-2 server also adds the new WAL to its normal ZooKeeper queues, while its
        znode exists."""
        super().after_roll(ops, tx, s, g, q)  # type: ignore[misc]
        zk = ops.and_(ops.not_(tx.server_upgraded[s]), self.znode(tx, s))
        for zs in self.zslots:
            if zs[0] == s and zs[2] == NO_SOURCE:
                tx.when(ops.and_(zk, tx.zk_queue[*zs])).zk_queue_wal[*zs, g, q + 1] = True

    # --- the migration procedure --------------------------------------------------------------

    @step(params=(), fair=True, each=_stages, label=lambda text, st, get, a: ())
    def migration_step(self, t: Ctx, stage: int) -> None:
        """MigrateReplicationQueueFromZkToTableProcedure's next state"""
        ops = t.ops
        fences = self.rule_migration_fences_cleaner()
        ready: Any = True
        if stage == MIG_DISABLE_CLEANER:
            ready = ops.or_(not fences, t.cleaner_barrier != RUNNING)
        elif stage == MIG_PREPARE:
            ready = ops.not_(ops.or_(*(t.peer_proc[p] for p in self.P)))
        elif stage == MIG_MIGRATE:
            ready = ops.not_(ops.or_(*self.migrate_left(t)))
        elif stage == MIG_WAIT_UPGRADING:
            ready = ops.and_(
                *(ops.implies(Server(t, s).alive, t.server_upgraded[s]) for s in self.S)
            )
        t.require(t.migration_stage == stage, ready)
        nxt: Any = stage + 1
        if stage == MIG_DISABLE_CLEANER and fences:
            bar, n = table_rules.barrier_disable_rule(
                ops, t.cleaner_barrier, t.cleaner_barrier_holders
            )
            t.cleaner_barrier = bar
            t.cleaner_barrier_holders = n
        elif stage == MIG_PREPARE:
            for p in self.P:
                t.migration_disabled_peer[p] = t.peer_state[p] == ENABLED
            peers = ops.or_(*(self.storage(ops, t.get, p) for p in self.P))
            nxt = ops.ite(peers, nxt, self.no_peers_next(t))
        elif stage == MIG_DISABLE_PEER:
            for p in self.P:
                t.when(t.migration_disabled_peer[p]).peer_state[p] = DISABLED
        elif stage == MIG_ENABLE_PEER:
            for p in self.P:
                back = ops.and_(t.migration_disabled_peer[p], t.peer_state[p] == DISABLED)
                t.when(back).peer_state[p] = ENABLED
        elif stage == MIG_ENABLE_CLEANER and fences:
            self.barrier_enable(ops, t, True)
        elif stage == MIG_CLEAN_UP:
            self.clean_up(t)
        t.migration_stage = nxt

    def migrate_left(self, t: Ctx) -> list[Any]:
        """MIGRATE's tasks not done yet: a replicator znode's queue still in ZooKeeper."""
        return [t.zk_queue[*zs] for zs in self.zslots]

    def no_peers_next(self, t: Ctx) -> Any:
        """PREPARE with no peer in storage: the next state, ENABLE_CLEANER (nothing to migrate or
        disable)."""
        return MIG_ENABLE_CLEANER

    def clean_up(self, t: Ctx) -> None:
        """CLEAN_UP: ``oldStorage.deleteAllData()`` deletes every queue znode left."""
        for zs in self.zslots:
            self.clear(t, True, self.zk_keys(zs))

    def delete_migrated(self, t: Ctx, s: int) -> None:
        """MIGRATE: the iterator, moving past server ``s``, deletes its queue znodes."""
        for zs in self.zslots:
            if zs[0] == s:
                self.clear(t, True, self.zk_keys(zs))

    @step(params=("server",), fair=True, each=_znodes)
    def migrate_server(self, t: Ctx, s: int) -> None:
        """MIGRATE: one replicator znode's queues become rows, then the znode is deleted"""
        ops = t.ops
        t.require(t.migration_stage == MIG_MIGRATE, self.znode(t, s))
        mine = [zs for zs in self.zslots if zs[0] == s]
        # Each queue of a peer in storage becomes the row (peer, s, source) holding, per WAL
        # group, its oldest WAL at position 0 (ZooKeeper positions are never written here).
        for zs in mine:
            _o, p, src = zs
            on = ops.and_(t.zk_queue[*zs], self.storage(ops, t.get, p))
            for g in self.G:
                first: Any = None
                for q in reversed(self.Q):
                    here = t.zk_queue_wal[*zs, g, q]
                    first = q if first is None else ops.ite(here, q, first)
                has = ops.or_(*(t.zk_queue_wal[*zs, g, q] for q in self.Q))
                self.set_offset(ops, t, ops.and_(on, has), (p, s, src), g, first, 0)
        self.delete_migrated(t, s)
        t.migration_migrated[s] = True

    @step(params=("old", "new"), fair=False, each=_upgrades)
    def upgrade(self, t: Ctx, old: int, new: int) -> None:
        """rolling upgrade: a 2.x server stops, a 3.x one joins"""
        ops = t.ops
        t.require(
            Server(t, old).alive,
            ops.not_(t.server_upgraded[old]),
            ops.not_(t.server_started[new]),
            *(t.server_started[x] for x in self.spare if x < new),
        )
        self.kill(ops, t, old)
        self.start_server(ops, t, new)
        t.server_started[new] = True
        t.server_upgraded[new] = True

    # --- properties ---------------------------------------------------------------------------

    def zk_covers(self, ops: Any, get: Any, p: int, w: int) -> Any:
        """``_covered``'s ZooKeeper clause for every entry of WAL slot ``w`` (their positions are
        0): a queue of ``p`` over the WAL's server holds an older WAL of its group, or this one."""
        now = named(get)
        x, g, q = self.key[w]
        out = []
        for zs in self.zslots:
            if zs[1] == p and self.wal_owner(zs[0], zs[2]) == x:
                held = ops.or_(*(now.zk_queue_wal[*zs, g, r] for r in self.Q if r <= q))
                out.append(ops.and_(now.zk_queue[*zs], held))
        return ops.or_(*out)

    def properties(self) -> list[FlatProperty]:
        """``no_claim_mid_migration`` reads the procedure's state, and ``no_lost_edit`` also
        counts an entry covered by a ZooKeeper queue not yet migrated (the base predicate, read
        through a view in which such an entry, in a WAL that is not deleted, counts as applied at
        the peer: ``app`` is read only in the "still owed" premise)."""
        out: list[FlatProperty] = super().properties()  # type: ignore[misc]
        by_uid = {self.uid(w, j): w for w in self.W for j in range(self.E)}

        def no_lost_edit(base: Any) -> Any:
            def check(ops: Any, get: Any) -> Any:
                def view(k: tuple) -> Any:
                    if k[0] != "app":
                        return get(k)
                    w = by_uid[k[2]]
                    kept = ops.and_(
                        named(get).wal_place[w] != DELETED, self.zk_covers(ops, get, k[1] - 1, w)
                    )
                    return ops.or_(get(k), kept)

                return base(ops, view)

            return check

        def no_claim_mid_migration(ops: Any, get: Any) -> Any:
            now = named(get)
            migrating = now.migration_stage <= MIG_MIGRATE
            claiming = ops.or_(
                *(
                    ops.and_(
                        now.scp_stage[d] >= ARQP_ADD_MISSING,
                        now.scp_stage[d] <= ARQP_REMOVE,
                    )
                    for d in self.S
                )
            )
            return ops.not_(ops.and_(migrating, claiming))

        for i, prop in enumerate(out):
            if prop.name == "no_lost_edit":
                out[i] = replace(prop, check=no_lost_edit(prop.check))
            elif prop.name == "no_claim_mid_migration":
                out[i] = replace(prop, check=no_claim_mid_migration)
        return out


class KeepsCleaner(ZkMigration):
    """``table/HBASE-27430``: the migration leaves the cleaner barrier alone."""

    def rule_migration_fences_cleaner(self) -> bool:
        """The migration does not hold the cleaner barrier while it copies the queues."""
        return False


class ClaimDuringMigration(ZkMigration):
    """``table/claim-during-migration``: the SCP's claim stage does not wait for the
    migration."""

    def rule_claims_allowed(self, ops: Any, get: Any) -> Any:
        """Claims may start at once: the SCP's claim stage does not wait for the migration."""
        return True


class ReplayForgetsBarrier(ZkMigration):
    """``table/migration-replay-barrier``: ``afterReplay`` does not disable the barrier again
    for the migration."""

    def migration_holds_barrier(self, ops: Any, get: Any) -> Any:
        """After a master restart the migration holds no cleaner barrier."""
        return 0


FEATURE = ZkMigration
"""The text of the ``migration`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
"""The migration's mutants bring their text as ``Design.text``
(``features/migration_mutants.py``)."""
