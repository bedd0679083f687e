"""The table era (seed 004; reference sections 2, 4-6, 10): queues as rows of ``hbase:replication``
with one offset per WAL group, the ServerCrashProcedure's claim stage, AddPeer's fence,
RemovePeerProcedure, and the log cleaner with its barrier. Sync replication is in
``table_sync.py``; ``table.py`` puts them together as the ``table`` and ``table-doc`` designs.
Components written only in the protocol text are the bootstrap, server restarts,
ReplicationSyncUp and the migration from ZooKeeper (``bootstrap.py``, ``restarts.py``,
``syncup.py``, ``migration.py``); the ServerCrashProcedure's claim stage (``scp.py``) is still
here too, for the configurations the text does not cover yet.

Abstractions (each a documented choice, not an accident):

* a source reads, filters and ships one batch in one action (``ship``), as in the ZooKeeper era;
  ``persist`` is the ``setOffset`` that follows it, so a crash in between re-ships;
* a procedure that suspends with backoff is simply not enabled until its condition holds;
* ``claim_read`` is ``getOffsets`` and ``claim_commit`` the conditional multi-row mutation plus the
  region server's handling of its result (the peer check and starting the recovered source);
* a WAL file's name, its group and timestamp come from ``table_rules``; WAL sequence order is
  timestamp order.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations

from . import migration, rules, table_rules, table_storage, table_symmetry
from .action import ActionKind
from .bootstrap import Bootstrap
from .claim import Claims
from .cleaner import LogCleaner
from .config import Config
from .design import Design
from .joins import Joins
from .logic import PY, dual
from .master import MasterRestart
from .peer_procs import PeerProcedures
from .peers import PeerAdmin
from .relays import RELAY_KINDS, Relays
from .restarts import Restarts
from .scp import AssignQueues
from .sink_outages import SinkOutages
from .sinks import SinkServers
from .source import Sources
from .state import (
    ABSENT,
    ARCHIVED,
    DELETED,
    DISABLED,
    EMPTY_SINK,
    ENABLED,
    LIVE_DIR,
    REMOVED,
    Edit,
    Relay,
    Shipper,
    Wal,
    WalKey,
    bits,
    set_at,
)
from .step import kinds_of
from .table_state import (
    ADD,
    AP_POST,
    AP_PRE,
    AP_REFRESH,
    AP_STORAGE,
    ARQP_ADD_MISSING,
    ARQP_CLAIM,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    BARRIER_DISABLED,
    BEGIN,
    C_IDLE,
    C_READY,
    C_SERVERS,
    DOWNGRADE_ACTIVE,
    FULL,
    IDLE_TCLEANER,
    NO_SCP,
    NO_SOURCE,
    NO_SYNCUP,
    NONE,
    NOT_RUNNING,
    REMOVE,
    RP_POST,
    RP_PRE,
    RP_REFRESH,
    RP_REMOVE_ALL,
    RP_STORAGE,
    RUNNING,
    SCP_CLAIM_STAGE,
    SCP_DONE,
    SCP_NONE,
    SCP_SPLIT,
    SID,
    STANDBY,
    Child,
    PeerProc,
    Row,
    Scp,
    TBudget,
    TServer,
    TState,
)
from .wal import Wals
from .zombies import ZOMBIE_KINDS, Zombies

K = ActionKind
PLACEHOLDER_GROUP = -1
"""ADD_MISSING_QUEUES writes BEGIN under the crashed server's name, which no WAL group matches."""


WAL_KINDS = {k.name: k for k in kinds_of(Wals)}
"""The WAL's kinds, from the text (``crash`` is listed between ``roll`` and ``archive``)."""
CLAIM_KINDS = {k.name: k for k in kinds_of(Claims)}
"""The claim's kinds, from the text (``claim_redeliver`` is listed with the master restart)."""

TABLE_KINDS: tuple[ActionKind, ...] = (
    *(WAL_KINDS[n] for n in ("put", "roll")),
    K("crash", ("server",), False, "a region server dies; the master schedules its SCP"),
    WAL_KINDS["archive"],
    *kinds_of(Sources),
    *kinds_of(SinkServers),
    *kinds_of(AssignQueues),
    *(CLAIM_KINDS[n] for n in ("claim_read", "claim_commit", "claim_lost", "zombie_claim_commit")),
    *(k for k in kinds_of(Restarts) if k.name != "crash"),
    *kinds_of(Joins),
    CLAIM_KINDS["claim_redeliver"],
    *kinds_of(PeerAdmin),
    *kinds_of(PeerProcedures),
    *kinds_of(LogCleaner),
    *kinds_of(MasterRestart),
    *kinds_of(Bootstrap),
    K(
        "zombie_persist",
        ("server", "peer", "source", "group", "seq", "pos"),
        False,
        "a dead server's source writes an offset it had reached (a table client needs no session)",
    ),
    K(
        "zombie_refresh",
        ("peer", "server"),
        False,
        "a dead server runs a refresh the master sent it before its session expired",
    ),
    *RELAY_KINDS,
    *ZOMBIE_KINDS,
)


def wals_to_replicate(
    st: TState, source: int, group: int, offset, places: tuple[int, ...]
) -> tuple[WalKey, ...]:
    """The WAL group's files of server ``source`` that lie in one of ``places`` (``WALs/``,
    ``oldWALs/``) and that ``shouldReplicate`` from ``offset``, oldest first: how a recovered
    source and ReplicationSyncUp list what they still have to replicate."""
    keys = (
        w.key
        for w in st.wals
        if w
        and w.key[0] == source
        and w.key[1] == group
        and w.place in places
        and table_rules.should_replicate(offset, w.key)
    )
    return tuple(sorted(keys, key=table_rules.wal_timestamp))


class TableCommon(SinkOutages, Relays, Zombies, Design):
    """Shared steps of the table-era designs."""

    era = "table"

    # --- properties and symmetry -----------------------------------------------------------------

    @property
    def invariants(self):
        from .table_properties import INVARIANTS

        return INVARIANTS

    @property
    def step_properties(self):
        from .table_properties import STEP_PROPERTIES

        return STEP_PROPERTIES

    @property
    def liveness(self):
        from .table_properties import LIVENESS

        return LIVENESS

    def canonical(self, cfg: Config, st: TState) -> TState:
        """Symmetry reduction over region servers (``table_symmetry``)."""
        return table_symmetry.canonical(cfg, st)

    # --- initial state ---------------------------------------------------------------------------

    def init(self, cfg: Config) -> TState:
        wals: list = [()] * cfg.wal_slots
        servers = []
        initial = tuple(range(cfg.initial_peers))
        known = sum(1 << p for p in initial)
        for s in range(cfg.servers):
            started = s < cfg.servers - cfg.spare_servers - cfg.joins
            current = (0,) * cfg.wal_groups
            if started:
                for g in range(cfg.wal_groups):
                    wals[cfg.slot((s, g, 0))] = Wal((s, g, 0), (), False, LIVE_DIR)
            servers.append(self.new_server(cfg, s, started, known if started else 0, current))
        relays = tuple(
            Relay((), (0,) * len(cfg.outbound(c))) if c and cfg.outbound(c) else ()
            for c in range(cfg.clusters)
        )
        sync = tuple(
            (DOWNGRADE_ACTIVE, NONE) if p < cfg.sync_peers else (NONE, NONE)
            for p in range(cfg.peers)
        )
        st = TState(
            servers=tuple(servers),
            wals=tuple(wals),
            rows=(),
            sid=(0,) * cfg.peers,
            peers=tuple(ENABLED if p < cfg.initial_peers else ABSENT for p in range(cfg.peers)),
            sync=sync,
            remote_dir=sum(1 << p for p in range(min(cfg.sync_peers, cfg.initial_peers))),
            scps=(NO_SCP,) * cfg.servers,
            pprocs=((),) * cfg.peers,
            removed_done=0,
            barrier=(NOT_RUNNING, 0),
            cleaner=IDLE_TCLEANER,
            migration=(),
            zk=(),
            master_up=True,
            syncup=NO_SYNCUP,
            markers=0,
            info=False,
            table_online=not cfg.bootstrap,
            stale=(),
            sinks=(EMPTY_SINK,) * cfg.clusters,
            relays=relays,
            budget=TBudget(
                cfg.crashes,
                cfg.sink_outages,
                cfg.admin_ops,
                cfg.edits,
                cfg.cleaner_runs,
                cfg.master_restarts,
                cfg.foreign_edits,
                cfg.restarts,
            ),
        )
        return migration.start(cfg, st) if cfg.migration else st

    def new_server(
        self, cfg: Config, s: int, started: bool, known: int, current: tuple[int, ...], version=3
    ) -> TServer:
        """``RSM.init``: a normal source per peer on the current WALs; nothing is written to the
        table at startup (the first shipped batch creates the row)."""
        shippers = tuple(
            Shipper(p, (), g, ((s, g, seq),), 0)
            for p in bits(known)
            for g, seq in enumerate(current)
        )
        full = (1 << cfg.sink_subset) - 1
        return TServer(
            alive=started,
            started=started,
            version=version,
            current=current,
            known=known,
            shippers=tuple(sorted(shippers)),
            sinks=(full,) * cfg.peers,
            claim=(),
            views=((NONE, NONE),) * cfg.peers,
            drained=0,
        )

    # --- small helpers ---------------------------------------------------------------------------

    @staticmethod
    def with_server(st: TState, s: int, srv: TServer) -> TState:
        return st._replace(servers=set_at(st.servers, s, srv))

    @staticmethod
    def with_wal(cfg: Config, st: TState, wal: Wal) -> TState:
        return st._replace(wals=set_at(st.wals, cfg.slot(wal.key), wal))

    @staticmethod
    def with_scp(st: TState, d: int, scp: Scp) -> TState:
        return st._replace(scps=set_at(st.scps, d, scp))

    @staticmethod
    def spend(st: TState, **spent: int) -> TState:
        b = st.budget
        return st._replace(budget=b._replace(**{k: getattr(b, k) - v for k, v in spent.items()}))

    @staticmethod
    def storage_peers(st: TState) -> list[int]:
        """``listPeers``: the peers in peer storage."""
        return [p for p, status in enumerate(st.peers) if status in (ENABLED, DISABLED)]

    @staticmethod
    def online(st: TState) -> list[int]:
        """``getOnlineServersList``."""
        return [s for s, srv in enumerate(st.servers) if srv.alive]

    @staticmethod
    def scp_unfinished(st: TState, d: int) -> bool:
        return st.scps[d].stage not in (SCP_NONE, SCP_DONE)

    @staticmethod
    def arqp_unfinished(st: TState, d: int) -> bool:
        return ARQP_ADD_MISSING <= st.scps[d].stage <= ARQP_REMOVE

    def queue_source(self, s: int, sh: Shipper) -> int:
        return sh.chain[0] if sh.chain else NO_SOURCE

    def set_offset(self, st: TState, peer, owner, source, group, offset) -> TState:
        rows = table_storage.set_offset(st.rows, peer, owner, source, group, offset)
        return st._replace(rows=rows)

    # --- decision rules a design may get wrong ---------------------------------------------------

    @dual(rules.replicable_rule)
    def rule_ships(self, edit: Edit, target: int) -> bool:
        return rules.edit_replicable(edit, target)

    def rule_owed(self, cfg: Config, st: TState, srv: TServer, kind: int, ids) -> int:
        """The peers an edit appended now is owed to: those the server has a source for and whose
        filter accepts it, except a sync peer this server knows to be (going) STANDBY."""
        mask = 0
        for p in bits(srv.known):
            state, new = srv.views[p]
            if STANDBY in (state, new):
                continue
            if rules.replicable(kind, ids, p + 1):
                mask |= 1 << p
        return mask

    @dual(table_rules.counts_as_live_rule)
    def rule_cleaner_live(self, st: TState) -> int:
        """preClean's first read: online servers and those whose SCP has not finished ("a 'dead'
        server means the region server is dead, and its associated SCP has also been finished")."""
        return table_rules.live_mask(
            table_rules.counts_as_live_rule,
            ((srv.alive, self.scp_unfinished(st, s)) for s, srv in enumerate(st.servers)),
        )

    @dual(table_rules.cleaner_may_delete_rule)
    def rule_cleaner_may_delete(self, cfg: Config, st: TState, key: WalKey) -> bool:
        return table_rules.cleaner_decides(table_rules.cleaner_may_delete_rule, st.cleaner, key)

    @dual(table_rules.claim_guarded_rule)
    def rule_claim_guarded(self) -> bool:
        """claimQueue's mutation is conditional on the first column read."""
        return table_rules.claim_guarded_rule(PY)

    def rule_recovered_done(self, srv: TServer, sh: Shipper) -> bool:
        """A recovered queue is removed when its last WAL group finishes: every shipper was
        created before any started (the fix of HBASE-28155)."""
        return not any(
            x.peer == sh.peer and x.chain == sh.chain and x is not sh for x in srv.shippers
        )

    def rule_add_missing(self, st: TState, d: int) -> int:
        """ADD_MISSING_QUEUES: the peers the crashed server has no normal queue for."""
        existing = {r.peer for r in table_storage.queue_ids_of(st.rows, d) if r.source == NO_SOURCE}
        return sum(1 << p for p in self.storage_peers(st) if p not in existing)

    def rule_removal_waits_for(self, st: TState) -> int:
        """RemovePeerProcedure records, once, the AssignReplicationQueuesProcedures still running
        (the code; seed 004 says 'ongoing SCPs', see ``table-doc``)."""
        return sum(1 << d for d in range(len(st.scps)) if self.arqp_unfinished(st, d))

    def rule_removal_pending(self, st: TState, proc: PeerProc) -> bool:
        """Is any recorded procedure unfinished? Only the recorded ones count."""
        return any(
            self.scp_unfinished(st, d) if self.doc_waits_for_scps else self.arqp_unfinished(st, d)
            for d in bits(proc.recorded)
        )

    doc_waits_for_scps = False

    def rule_remove_passes(self) -> int:
        """``removeAllQueues`` twice: a claim in flight can move a queue from an unscanned row to
        a scanned one, and "a queue can only be claimed once after the refresh"."""
        return 2

    @dual(table_rules.fence_add_rule)
    def rule_fence_add(self) -> bool:
        """AddPeerProcedure disables the log cleaner (the barrier) for its whole life."""
        return table_rules.fence_add_rule(PY)

    def rule_claim_targets(self, st: TState) -> list[int]:
        return self.online(st)

    @dual(table_rules.claim_peer_known_rule)
    def rule_claim_peer_known(self, srv: TServer, peer: int) -> bool:
        """The claimer checks ``replicationPeers.getPeer(peerId)`` before and after the claim: a
        peer it does not know (removed) is not replicated (HBASE-17077, HBASE-20475)."""
        return table_rules.claim_peer_known_rule(PY, bool(srv.known >> peer & 1))

    def rule_recovered_wals(
        self, cfg: Config, st: TState, source: int, group: int, offset
    ) -> tuple[WalKey, ...]:
        """``getArchivedWALFiles`` of the WALs' server, those that ``shouldReplicate``, oldest
        first: a recovered queue's WALs come from listing oldWALs, not from storage."""
        return wals_to_replicate(st, source, group, offset, (ARCHIVED,))

    def rule_refuse_recovered(self, srv: TServer, peer: int) -> bool:
        """``addRecoveredSource`` refuses a sync peer whose (state, new state) this server knows as
        (STANDBY, NONE), or whose new state is STANDBY."""
        state, new = srv.views[peer]
        return (state == STANDBY and new == NONE) or new == STANDBY

    # --- client writes and WALs ------------------------------------------------------------------

    def en_put(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if not st.budget.puts:
            return
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            for g, seq in enumerate(srv.current):
                wal = st.wals[cfg.slot((s, g, seq))]
                if len(wal.entries) < cfg.edits_per_wal:
                    for kind in cfg.edit_kinds:
                        yield (s, g, kind)

    def do_put(self, cfg: Config, st: TState, s: int, g: int, kind: int) -> TState:
        return self.append(cfg, self.spend(st, puts=1), s, g, kind, (0,))

    def append(self, cfg: Config, st: TState, s: int, g: int, kind: int, ids, uid=None) -> TState:
        """An edit written to the server's current WAL of the group (a client's, or one
        replicated into this cluster with its cluster ids)."""
        srv = st.servers[s]
        key = (s, g, srv.current[g])
        wal = st.wals[cfg.slot(key)]
        uid = uid if uid is not None else (0, s, g, key[2], len(wal.entries))
        edit = Edit(uid, kind, ids, self.rule_owed(cfg, st, srv, kind, ids))
        return self.with_wal(cfg, st, wal._replace(entries=(*wal.entries, edit)))

    def en_roll(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for g, seq in enumerate(srv.current):
                    if seq + 1 < cfg.wals_per_server:
                        yield (s, g)

    def do_roll(self, cfg: Config, st: TState, s: int, g: int) -> TState:
        """``postLogRoll``: the new WAL is enqueued in every normal source, in memory only (3.x
        writes nothing to the table on a roll — that is what breaks seed 004's 'deadlock')."""
        srv = st.servers[s]
        key = (s, g, srv.current[g] + 1)
        old = st.wals[cfg.slot((s, g, srv.current[g]))]
        st = self.with_wal(cfg, st, old._replace(closed=True))
        st = self.with_wal(cfg, st, Wal(key, (), False, LIVE_DIR))
        shippers = tuple(
            sh._replace(wals=(*sh.wals, key)) if not sh.chain and sh.group == g else sh
            for sh in srv.shippers
        )
        srv = srv._replace(current=set_at(srv.current, g, key[2]), shippers=shippers)
        return self.with_server(st, s, srv)

    def en_crash(self, cfg: Config, st: TState) -> Iterator[tuple]:
        # The checkers keep one server up; a recorded run can lose them all at once (a kill while
        # another server's session expires), which trace validation (``zombies``) allows. (With
        # restarts, ``model/restarts.py``, crashes are unbounded.)
        if st.budget.crashes and (len(self.online(st)) > 1 or cfg.zombies):
            for s in self.online(st):
                yield (s,)

    def do_crash(self, cfg: Config, st: TState, s: int) -> TState:
        return self.kill(cfg, self.spend(st, crashes=1), s)

    def kill(self, cfg: Config, st: TState, s: int) -> TState:
        """The server's memory is lost; its WALs stay; the master expires it and schedules an SCP
        (a persisted procedure)."""
        srv = st.servers[s]
        for g, seq in enumerate(srv.current):
            wal = st.wals[cfg.slot((s, g, seq))]
            if wal:
                st = self.with_wal(cfg, st, wal._replace(closed=True))
        dead = srv._replace(alive=False, known=0, shippers=(), drained=0)
        st = self.with_server(st, s, dead)
        return self.with_scp(st, s, Scp(SCP_SPLIT, 0, ()))

    def en_archive(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for wal in st.wals:
            if wal and wal.closed and wal.place == LIVE_DIR and st.servers[wal.key[0]].alive:
                yield wal.key

    def do_archive(self, cfg: Config, st: TState, s: int, g: int, seq: int) -> TState:
        wal = st.wals[cfg.slot((s, g, seq))]
        return self.with_wal(cfg, st, wal._replace(place=ARCHIVED))

    # --- sources ---------------------------------------------------------------------------------

    def head(self, cfg: Config, st: TState, sh: Shipper) -> Wal | None:
        if not sh.wals:
            return None
        wal = st.wals[cfg.slot(sh.wals[0])]
        return wal if wal and wal.place != DELETED else None

    def en_ship(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            for i, sh in enumerate(srv.shippers):
                if not table_rules.source_ships_rule(PY, st.peers[sh.peer]):
                    continue
                wal = self.head(cfg, st, sh)
                if wal is None or sh.pos >= len(wal.entries):
                    continue
                down = st.sinks[sh.peer + 1].down if self.batch_keeps(cfg, wal, sh) else 0
                for k in bits(srv.sinks[sh.peer] & ~down):
                    yield (s, i, k)

    def batch_keeps(self, cfg: Config, wal: Wal, sh: Shipper) -> bool:
        """Does the next batch hold an edit the filter keeps? One that keeps nothing moves the
        position without contacting a sink (HBase's shipper sends no empty batch)."""
        batch = wal.entries[sh.pos : sh.pos + cfg.batch]
        return any(self.rule_ships(e, sh.peer + 1) for e in batch)

    def do_ship(self, cfg: Config, st: TState, s: int, i: int, k: int) -> TState:
        srv = st.servers[s]
        sh = srv.shippers[i]
        wal = st.wals[cfg.slot(sh.wals[0])]
        batch = wal.entries[sh.pos : sh.pos + cfg.batch]
        target = sh.peer + 1
        st = self.deliver(cfg, st, target, [e for e in batch if self.rule_ships(e, target)])
        srv = st.servers[s]
        nxt = sh._replace(pos=sh.pos + len(batch))
        return self.with_server(st, s, srv._replace(shippers=set_at(srv.shippers, i, nxt)))

    def stored(self, st: TState, s: int, sh: Shipper):
        row = table_storage.find(st.rows, sh.peer, s, self.queue_source(s, sh))
        return table_rules.group_offset(row, sh.group) if row else None

    def en_persist(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for i, sh in enumerate(srv.shippers):
                    if sh.wals and sh.pos > 0 and self.stored(st, s, sh) != (sh.wals[0][2], sh.pos):
                        yield (s, i)

    def do_persist(self, cfg: Config, st: TState, s: int, i: int) -> TState:
        """``logPositionAndCleanOldLogs``: ``setOffset(queue, group, (wal, position))`` with the
        last pushed sequence ids (the ``sid`` family, compare-and-set, never decreasing)."""
        sh = st.servers[s].shippers[i]
        st = self.set_offset(
            st, sh.peer, s, self.queue_source(s, sh), sh.group, (sh.wals[0][2], sh.pos)
        )
        return st._replace(sid=set_at(st.sid, sh.peer, st.sid[sh.peer] | SID))

    def en_zombie_persist(self, cfg: Config, st: TState) -> Iterator[tuple]:
        """With the configuration's ``zombies``: any offset a dead server's sources could have
        reached, into any WAL of the server a source of it reads (its own, or a claimed one's),
        or the end of one (``advance``)."""
        if not cfg.zombies:
            return
        for s, srv in enumerate(st.servers):
            if srv.alive or not srv.started:
                continue
            for wal in st.wals:
                if not wal or wal.place == DELETED:
                    continue
                ws, g, seq = wal.key
                source = NO_SOURCE if ws == s else ws
                for p in range(cfg.peers):
                    for pos in (*range(1, len(wal.entries) + 1), FULL):
                        yield (s, p, source, g, seq, pos)

    def do_zombie_persist(
        self, cfg: Config, st: TState, s: int, p: int, source: int, g: int, seq: int, pos: int
    ) -> TState:
        """``setOffset`` is a put to the queue's row: after a claim moved the queue it writes the
        old row again."""
        st = self.set_offset(st, p, s, source, g, (seq, pos))
        return st._replace(sid=set_at(st.sid, p, st.sid[p] | SID))

    def en_zombie_refresh(self, cfg: Config, st: TState) -> Iterator[tuple]:
        """With the configuration's ``zombies``: a dead server's refresh of a peer in storage it
        did not know, or of a peer removed from storage."""
        if not cfg.zombies:
            return
        for s, srv in enumerate(st.servers):
            if srv.alive or not srv.started:
                continue
            for p, status in enumerate(st.peers):
                if (status == REMOVED) == bool(srv.known >> p & 1):
                    yield (p, s)

    def do_zombie_refresh(self, cfg: Config, st: TState, p: int, s: int) -> TState:
        """The region server's control thread is not stopped by its session's end, and nothing
        fences its writes to ``hbase:replication``: a RefreshPeerProcedure it received before the
        master found it dead writes a new peer's first offsets (``rs_add_peer``) or deletes a
        removed peer's queues (``rs_remove_peer``). It starts no source and stops none: the
        server is dead to the model (a batch in flight is ``zombie_ship``'s)."""
        srv = st.servers[s]
        if st.peers[p] == REMOVED:
            st = self.rs_remove_peer(cfg, st, p, s)
        else:
            st = self.rs_add_peer(cfg, st, p, s)
        return self.with_server(st, s, srv)

    def en_advance(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for i, sh in enumerate(srv.shippers):
                    wal = self.head(cfg, st, sh)
                    if wal and rules.wal_done(
                        len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries)
                    ):
                        yield (s, i)

    def do_advance(self, cfg: Config, st: TState, s: int, i: int) -> TState:
        """End of file with a newer WAL queued: ``setOffset(group, (wal, -1))``, then the WAL is
        dropped from the source's memory (``cleanOldLogs``)."""
        srv = st.servers[s]
        sh = srv.shippers[i]
        st = self.set_offset(
            st, sh.peer, s, self.queue_source(s, sh), sh.group, (sh.wals[0][2], FULL)
        )
        srv = st.servers[s]
        nxt = sh._replace(wals=sh.wals[1:], pos=0)
        return self.with_server(st, s, srv._replace(shippers=set_at(srv.shippers, i, nxt)))

    def en_finish(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for i, sh in enumerate(srv.shippers):
                    if sh.chain and len(sh.wals) == 1:
                        wal = self.head(cfg, st, sh)
                        if wal and wal.closed and sh.pos >= len(wal.entries):
                            yield (s, i)

    def do_finish(self, cfg: Config, st: TState, s: int, i: int) -> TState:
        """A recovered shipper read its last WAL (``NO_MORE_DATA``): it ends; when it was the
        queue's last, ``finishRecoveredSource`` removes the queue."""
        srv = st.servers[s]
        sh = srv.shippers[i]
        done = self.rule_recovered_done(srv, sh)
        srv = srv._replace(shippers=srv.shippers[:i] + srv.shippers[i + 1 :])
        st = self.with_server(st, s, srv)
        if done:
            st = st._replace(rows=table_storage.remove_queue(st.rows, sh.peer, s, sh.chain[0]))
        return st

    # --- ServerCrashProcedure and AssignReplicationQueuesProcedure -------------------------------

    def _stage(self, st: TState, stage: int) -> Iterator[tuple]:
        for d, scp in enumerate(st.scps):
            if scp.stage == stage:
                yield (d,)

    def en_scp_split(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._stage(st, SCP_SPLIT)

    def do_scp_split(self, cfg: Config, st: TState, d: int) -> TState:
        """SPLIT_LOGS and ASSIGN: every WAL of the dead server ends up in oldWALs. With no peer in
        storage the SCP finishes here (no race: see reference section 4)."""
        for wal in st.wals:
            if wal and wal.key[0] == d and wal.place == LIVE_DIR:
                st = self.with_wal(cfg, st, wal._replace(place=ARCHIVED, closed=True))
        if st.servers[d].claim:
            st = self.with_server(st, d, st.servers[d]._replace(claim=()))
        stage = SCP_CLAIM_STAGE if self.storage_peers(st) else SCP_DONE
        return self.with_scp(st, d, Scp(stage, 0, ()))

    def en_scp_claim_stage(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._stage(st, SCP_CLAIM_STAGE)

    def do_scp_claim_stage(self, cfg: Config, st: TState, d: int) -> TState:
        return self.with_scp(st, d, Scp(ARQP_ADD_MISSING, 0, ()))

    def en_arqp_read_missing(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._stage(st, ARQP_ADD_MISSING)

    def do_arqp_read_missing(self, cfg: Config, st: TState, d: int) -> TState:
        return self.with_scp(st, d, Scp(ARQP_PUT_MISSING, self.rule_add_missing(st, d), ()))

    def en_arqp_put_missing(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._stage(st, ARQP_PUT_MISSING)

    def do_arqp_put_missing(self, cfg: Config, st: TState, d: int) -> TState:
        """``setOffset(QueueId(crashed, peer), crashed.toString(), BEGIN)`` for each peer read;
        then CLAIM (persisted: ADD_MISSING_QUEUES never runs again)."""
        for p in bits(st.scps[d].peers):
            st = self.set_offset(st, p, d, NO_SOURCE, PLACEHOLDER_GROUP, BEGIN)
        return self.with_scp(st, d, Scp(ARQP_CLAIM, 0, ()))

    def claim_queues(self, st: TState, d: int) -> list[Row]:
        peers = set(self.storage_peers(st))
        return [r for r in table_storage.queue_ids_of(st.rows, d) if r.peer in peers]

    def en_arqp_claim(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for (d,) in self._stage(st, ARQP_CLAIM):
            scp = st.scps[d]
            if scp.children:
                continue
            queues = self.claim_queues(st, d)
            if not queues:
                yield (d, ())
                continue
            targets = self.rule_claim_targets(st)
            n = min(len(queues), len(targets))
            if n:
                for perm in permutations(targets, n):
                    yield (d, perm)

    def do_arqp_claim(self, cfg: Config, st: TState, d: int, targets: tuple[int, ...]) -> TState:
        """One CLAIM round: the queues the crashed server still owns, for peers still in storage,
        each sent to a live server (shuffled); the round runs again once all children are done.
        Queues of deleted peers are not removed here."""
        queues = self.claim_queues(st, d)
        if not queues:
            return self.with_scp(st, d, Scp(SCP_DONE, 0, ()))
        children = tuple(Child(q.peer, q.source, t) for q, t in zip(queues, targets, strict=False))
        return self.with_scp(st, d, Scp(ARQP_CLAIM, 0, children))

    def en_claim_read(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for d, scp in enumerate(st.scps):
            for i, child in enumerate(scp.children):
                srv = st.servers[child.target]
                if srv.alive and not srv.claim:
                    yield (child.target, d, i)

    def do_claim_read(self, cfg: Config, st: TState, t: int, d: int, i: int) -> TState:
        """``claimReplicationQueue`` on the target: a peer this server does not know is not
        claimed; otherwise ``getOffsets`` (an empty answer means someone else claimed it)."""
        scp = st.scps[d]
        child = scp.children[i]
        srv = st.servers[t]
        read = table_storage.get_offsets(st.rows, child.peer, d, child.source)
        if not self.rule_claim_peer_known(srv, child.peer) or not read:
            children = scp.children[:i] + scp.children[i + 1 :]
            return self.with_scp(st, d, scp._replace(children=children))
        return self.with_server(st, t, srv._replace(claim=((child._replace(target=d), read),)))

    def en_claim_commit(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for t, srv in enumerate(st.servers):
            if srv.alive and srv.claim:
                yield (t,)

    def do_claim_commit(self, cfg: Config, st: TState, t: int) -> TState:
        """The conditional delete+put; then, if processed, the peer check (peer removed or
        replaced: delete the claimed queue, HBASE-20475/17077), the sync-replication refusal, or a
        RecoveredReplicationSource over the dead server's archived WALs that ``shouldReplicate``."""
        srv = st.servers[t]
        (child, read), later = srv.claim[0], srv.claim[1:]
        d = child.target  # in a pending claim, ``target`` names the crashed server
        srv = srv._replace(claim=later)
        st = self.with_server(st, t, srv)
        scp = st.scps[d]
        rest = tuple(
            c
            for c in scp.children
            if not (c.peer == child.peer and c.source == child.source and c.target == t)
        )
        st = self.with_scp(st, d, scp._replace(children=rest))
        rows, done = table_storage.claim_queue(
            st.rows, child.peer, d, child.source, t, read, guarded=self.rule_claim_guarded()
        )
        if not done:
            return st
        st = st._replace(rows=rows)
        source = child.source if child.source != NO_SOURCE else d
        if not self.rule_claim_peer_known(srv, child.peer) or self.rule_refuse_recovered(
            srv, child.peer
        ):
            return st._replace(rows=table_storage.remove_queue(st.rows, child.peer, t, source))
        return self.start_recovered(cfg, st, t, child.peer, source, read)

    def start_recovered(
        self, cfg: Config, st: TState, t: int, peer: int, source: int, read
    ) -> TState:
        row = Row(peer, t, source, read)
        new = []
        for g in range(cfg.wal_groups):
            offset = table_rules.group_offset(row, g)
            keys = self.rule_recovered_wals(cfg, st, source, g, offset)
            if keys:
                pos = table_rules.start_position(offset, keys[0])
                new.append(Shipper(peer, (source,), g, tuple(keys), pos))
        if not new:
            return st._replace(rows=table_storage.remove_queue(st.rows, peer, t, source))
        srv = st.servers[t]
        return self.with_server(st, t, srv._replace(shippers=tuple(sorted((*srv.shippers, *new)))))

    def en_zombie_claim_commit(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for t, srv in enumerate(st.servers):
            if not srv.alive and srv.claim and st.scps[t].stage == SCP_SPLIT:
                yield (t,)

    def do_zombie_claim_commit(self, cfg: Config, st: TState, t: int) -> TState:
        """The claimer was declared dead while its ``claimQueue`` mutation was in flight; the
        table applies it anyway (nothing fences a zombie's writes to ``hbase:replication``). No
        source starts: the moved queue is now the dead claimer's, for its own SCP to claim."""
        srv = st.servers[t]
        (child, read), later = srv.claim[0], srv.claim[1:]
        st = self.with_server(st, t, srv._replace(claim=later))
        rows, done = table_storage.claim_queue(
            st.rows, child.peer, child.target, child.source, t, read, self.rule_claim_guarded()
        )
        return st._replace(rows=rows) if done else st

    def en_join(self, cfg: Config, st: TState) -> Iterator[tuple]:
        last = cfg.servers - cfg.spare_servers
        for s in range(last - cfg.joins, last):
            if not st.servers[s].started:
                yield (s,)

    def do_join(self, cfg: Config, st: TState, s: int) -> TState:
        """A region server that was not running starts (it reports for duty to the master):
        ``RSM.init`` gives it a normal source per peer in storage on its first WALs; it writes
        nothing to the table until a source ships."""
        for g in range(cfg.wal_groups):
            st = self.with_wal(cfg, st, Wal((s, g, 0), (), False, LIVE_DIR))
        known = sum(1 << p for p in self.storage_peers(st))
        return self.with_server(st, s, self.new_server(cfg, s, True, known, (0,) * cfg.wal_groups))

    def en_claim_redeliver(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.budget.master_restarts:
            for t, srv in enumerate(st.servers):
                if srv.alive and len(srv.claim) == 1:
                    yield (t,)

    def do_claim_redeliver(self, cfg: Config, st: TState, t: int) -> TState:
        """The master restarted while the target ran the claim; the replayed child is sent again
        and the target runs a second ``claimQueue`` of the same queue (it reads the offsets now)."""
        st = self.spend(st, master_restarts=1)
        srv = st.servers[t]
        child, _read = srv.claim[0]
        read = table_storage.get_offsets(st.rows, child.peer, child.target, child.source)
        return self.with_server(st, t, srv._replace(claim=(*srv.claim, (child, read))))

    def en_claim_lost(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for d, scp in enumerate(st.scps):
            for i, child in enumerate(scp.children):
                srv = st.servers[child.target]
                if not srv.alive:
                    yield (d, i)

    def do_claim_lost(self, cfg: Config, st: TState, d: int, i: int) -> TState:
        """FailedRemoteDispatchException: the child finishes; the next CLAIM round re-sends
        whatever the crashed server still owns."""
        scp = st.scps[d]
        return self.with_scp(st, d, scp._replace(children=scp.children[:i] + scp.children[i + 1 :]))

    # --- peer procedures -------------------------------------------------------------------------

    def en_add_peer(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.budget.admin:
            for p, status in enumerate(st.peers):
                if status == ABSENT and not st.pprocs[p]:
                    yield (p,)

    def do_add_peer(self, cfg: Config, st: TState, p: int) -> TState:
        st = self.spend(st, admin=1)
        return st._replace(pprocs=set_at(st.pprocs, p, PeerProc(ADD, AP_PRE, 0, 0, (), 0)))

    def en_remove_peer(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.budget.admin:
            for p in self.storage_peers(st):
                if not st.pprocs[p] and st.sync[p][0] in (NONE, DOWNGRADE_ACTIVE):
                    yield (p,)

    def do_remove_peer(self, cfg: Config, st: TState, p: int) -> TState:
        st = self.spend(st, admin=1)
        return st._replace(pprocs=set_at(st.pprocs, p, PeerProc(REMOVE, RP_PRE, 0, 0, (), 0)))

    def en_disable_peer(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._toggle(cfg, st, ENABLED)

    def do_disable_peer(self, cfg: Config, st: TState, p: int) -> TState:
        """The peer's state goes DISABLED in peer storage; its sources stop shipping (they
        follow the peer's state)."""
        return self.spend(st, admin=1)._replace(peers=set_at(st.peers, p, DISABLED))

    def en_enable_peer(self, cfg: Config, st: TState) -> Iterator[tuple]:
        return self._toggle(cfg, st, DISABLED)

    def do_enable_peer(self, cfg: Config, st: TState, p: int) -> TState:
        return self.spend(st, admin=1)._replace(peers=set_at(st.peers, p, ENABLED))

    def _toggle(self, cfg: Config, st: TState, want: int) -> Iterator[tuple]:
        """A peer in state ``want`` with no procedure of its own running (the peer's procedures
        hold its lock one at a time)."""
        if cfg.peer_toggles and st.budget.admin:
            for p, status in enumerate(st.peers):
                if status == want and not st.pprocs[p]:
                    yield (p,)

    def set_proc(self, st: TState, p: int, proc) -> TState:
        return st._replace(pprocs=set_at(st.pprocs, p, proc))

    def en_peer_proc(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for p, proc in enumerate(st.pprocs):
            if proc and not proc.refresh and self.proc_ready(st, p, proc):
                yield (p,)

    def proc_ready(self, st: TState, p: int, proc: PeerProc) -> bool:
        if proc.kind == ADD and proc.stage == AP_PRE:
            return table_rules.add_peer_may_leave_pre(PY, self.rule_fence_add(), st.barrier[0])
        if proc.kind == REMOVE and proc.stage == RP_POST:
            return not self.rule_removal_pending(st, proc)
        return self.extra_proc_ready(st, p, proc)

    def extra_proc_ready(self, st: TState, p: int, proc: PeerProc) -> bool:
        return True

    def do_peer_proc(self, cfg: Config, st: TState, p: int) -> TState:
        proc = st.pprocs[p]
        if proc.kind == ADD:
            return self.add_peer_step(cfg, st, p, proc)
        if proc.kind == REMOVE:
            return self.remove_peer_step(cfg, st, p, proc)
        return self.transit_step(cfg, st, p, proc)

    def transit_step(self, cfg: Config, st: TState, p: int, proc: PeerProc) -> TState:
        raise ValueError("no sync replication in this design")

    def add_peer_step(self, cfg: Config, st: TState, p: int, proc: PeerProc) -> TState:
        """AddPeerProcedure: PRE disables the cleaner (suspends while it runs) and checks no queue
        of the peer is left; UPDATE_PEER_STORAGE; REFRESH_PEER_ON_RS on every online server
        (each writes the initial offsets: the fence); POST enables the cleaner again."""
        if proc.stage == AP_PRE:
            if any(r.peer == p for r in st.rows):
                return self.set_proc(st, p, ())  # checkQueuesDeleted: the procedure fails
            if self.rule_fence_add():
                st = st._replace(barrier=self.barrier_disable(st.barrier))
            return self.set_proc(st, p, proc._replace(stage=AP_STORAGE))
        if proc.stage == AP_STORAGE:
            st = st._replace(peers=set_at(st.peers, p, ENABLED))
            if p < cfg.sync_peers:
                st = st._replace(sync=set_at(st.sync, p, (DOWNGRADE_ACTIVE, NONE)))
            return self.set_proc(
                st, p, proc._replace(stage=AP_REFRESH, refresh=self.online_mask(st))
            )
        if proc.stage == AP_REFRESH:
            return self.set_proc(st, p, proc._replace(stage=AP_POST))
        if self.rule_fence_add():
            st = st._replace(barrier=self.barrier_enable(st.barrier))
        return self.set_proc(st, p, ())

    def online_mask(self, st: TState) -> int:
        return sum(1 << s for s in self.online(st))

    def remove_peer_step(self, cfg: Config, st: TState, p: int, proc: PeerProc) -> TState:
        """RemovePeerProcedure: UPDATE_PEER_STORAGE removes the peer and records, once, the claim
        procedures still running; REFRESH stops the peer's sources on every online server; POST
        waits for the recorded procedures, then ``removeAllQueues`` row by row, twice, then the
        peer's ``sid`` and ``hfileref`` rows."""
        if proc.stage == RP_PRE:
            return self.set_proc(st, p, proc._replace(stage=RP_STORAGE))
        if proc.stage == RP_STORAGE:
            st = st._replace(peers=set_at(st.peers, p, REMOVED))
            recorded = self.rule_removal_waits_for(st)
            return self.set_proc(
                st,
                p,
                proc._replace(stage=RP_REFRESH, refresh=self.online_mask(st), recorded=recorded),
            )
        if proc.stage == RP_REFRESH:
            return self.set_proc(st, p, proc._replace(stage=RP_POST))
        if proc.stage == RP_POST:
            return self.set_proc(st, p, proc._replace(stage=RP_REMOVE_ALL, cursor=()))
        st, proc = self.remove_all_queues_step(st, p, proc)
        if proc is not None:
            return self.set_proc(st, p, proc)
        st = st._replace(
            sid=set_at(st.sid, p, 0),
            remote_dir=st.remote_dir & ~(1 << p),
            removed_done=st.removed_done | 1 << p,
        )
        return self.set_proc(st, p, ())

    def remove_all_queues_step(self, st: TState, p: int, proc: PeerProc):
        """One step of ``removeAllQueues``: a pass first reads the row keys of the peer (the
        client scanner fetches them in one batch), then deletes them one row at a time; a queue
        moved to a new key after the read is not seen by that pass. Returns (state, proc), or
        (state, None) once the last pass is over."""
        passes = self.rule_remove_passes()
        if not proc.cursor:
            keys = tuple((r.owner, r.source) for r in st.rows if r.peer == p)
            return st, proc._replace(cursor=(0, keys))
        n, keys = proc.cursor
        if keys:
            owner, source = keys[0]
            st = st._replace(rows=table_storage.remove_queue(st.rows, p, owner, source))
            return st, proc._replace(cursor=(n, keys[1:]))
        if n + 1 >= passes:
            return st, None
        keys = tuple((r.owner, r.source) for r in st.rows if r.peer == p)
        return st, proc._replace(cursor=(n + 1, keys))

    def barrier_disable(self, barrier: tuple[int, int]) -> tuple[int, int]:
        return table_rules.barrier_disable_rule(PY, *barrier)

    def barrier_enable(self, barrier: tuple[int, int]) -> tuple[int, int]:
        state, n = barrier
        if state != BARRIER_DISABLED:
            return barrier
        return (NOT_RUNNING, 0) if n <= 1 else (BARRIER_DISABLED, n - 1)

    def en_refresh(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for p, proc in enumerate(st.pprocs):
            if proc:
                for s in bits(proc.refresh):
                    yield (p, s)

    def do_refresh(self, cfg: Config, st: TState, p: int, s: int) -> TState:
        """A RefreshPeerProcedure child; one whose server died meanwhile just finishes."""
        proc = st.pprocs[p]
        st = self.set_proc(st, p, proc._replace(refresh=proc.refresh & ~(1 << s)))
        if not st.servers[s].alive:
            return st
        if proc.kind == ADD:
            return self.rs_add_peer(cfg, st, p, s)
        if proc.kind == REMOVE:
            return self.rs_remove_peer(cfg, st, p, s)
        return self.rs_transit(cfg, st, p, s, proc)

    def rs_transit(self, cfg: Config, st: TState, p: int, s: int, proc: PeerProc) -> TState:
        return st

    def rs_add_peer(self, cfg: Config, st: TState, p: int, s: int) -> TState:
        """``RSM.addPeer`` → ``addSource``: for each WAL group, ``setOffset((me, peer), group,
        (current WAL, 0))`` and enqueue only the current WAL."""
        srv = st.servers[s]
        if srv.known >> p & 1:
            return st
        for g, seq in enumerate(srv.current):
            st = self.set_offset(st, p, s, NO_SOURCE, g, (seq, 0))
        new = [Shipper(p, (), g, ((s, g, seq),), 0) for g, seq in enumerate(srv.current)]
        views = set_at(srv.views, p, st.sync[p])
        srv = srv._replace(
            known=srv.known | 1 << p, shippers=tuple(sorted((*srv.shippers, *new))), views=views
        )
        return self.with_server(st, s, srv)

    def rs_remove_peer(self, cfg: Config, st: TState, p: int, s: int) -> TState:
        """``RSM.removePeer``: terminate the peer's recovered sources and its normal source, and
        ``removeQueue`` each."""
        srv = st.servers[s]
        for sh in srv.shippers:
            if sh.peer == p:
                st = st._replace(
                    rows=table_storage.remove_queue(st.rows, p, s, self.queue_source(s, sh))
                )
        st = st._replace(rows=table_storage.remove_queue(st.rows, p, s, NO_SOURCE))
        srv = srv._replace(
            known=srv.known & ~(1 << p), shippers=tuple(sh for sh in srv.shippers if sh.peer != p)
        )
        return self.with_server(st, s, srv)

    # --- the log cleaner -------------------------------------------------------------------------

    def en_cleaner_start(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if (
            st.budget.cleaner_runs
            and st.cleaner.phase == C_IDLE
            and table_rules.cleaner_may_start_rule(PY, st.barrier[0])
        ):
            yield ()

    def do_cleaner_start(self, cfg: Config, st: TState) -> TState:
        """preClean: ``barrier.start()``, then the live-or-SCP-unfinished servers — FIRST, so that a
        server's missing queues were added before the queue list is read."""
        st = self.spend(st, cleaner_runs=1)
        cleaner = IDLE_TCLEANER._replace(phase=C_SERVERS, live=self.rule_cleaner_live(st))
        return st._replace(cleaner=cleaner, barrier=(RUNNING, 0))

    def en_cleaner_read(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.cleaner.phase == C_SERVERS:
            yield ()

    def do_cleaner_read(self, cfg: Config, st: TState) -> TState:
        peers = sum(1 << p for p in self.storage_peers(st))
        c = st.cleaner._replace(phase=C_READY, peers=peers, rows=st.rows)
        return st._replace(cleaner=c)

    def en_cleaner_delete(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.cleaner.phase == C_READY:
            yield ()

    def do_cleaner_delete(self, cfg: Config, st: TState) -> TState:
        """getDeletableFiles over the files in oldWALs now (listed after preClean), on the
        snapshot; postClean: ``barrier.stop()``."""
        for wal in st.wals:
            if wal and wal.place == ARCHIVED and self.rule_cleaner_may_delete(cfg, st, wal.key):
                st = self.with_wal(cfg, st, wal._replace(place=DELETED))
        return st._replace(cleaner=IDLE_TCLEANER, barrier=(NOT_RUNNING, 0))

    # --- master restart --------------------------------------------------------------------------

    def en_master_restart(self, cfg: Config, st: TState) -> Iterator[tuple]:
        if st.budget.master_restarts:
            yield ()

    def do_master_restart(self, cfg: Config, st: TState) -> TState:
        """Procedures are persisted and replayed; the barrier and a cleaner run live in memory.
        ``afterReplay`` re-disables the barrier for every AddPeerProcedure past PRE (and for a
        migration past DISABLE_CLEANER: ``model/migration.py``)."""
        st = self.spend(st, master_restarts=1)
        adds = sum(
            1
            for proc in st.pprocs
            if proc and proc.kind == ADD and proc.stage > AP_PRE and self.rule_fence_add()
        )
        return st._replace(barrier=self.replayed_barrier(st, adds), cleaner=IDLE_TCLEANER)

    def replayed_barrier(self, st: TState, adds: int) -> tuple[int, int]:
        """The cleaner barrier after a master restart: disabled once for each of ``adds``
        replayed AddPeerProcedures; not running otherwise."""
        return (BARRIER_DISABLED, adds) if adds else (NOT_RUNNING, 0)
