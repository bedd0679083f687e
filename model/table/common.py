"""The table era (seed 004; reference sections 2, 4-6, 10) outside its protocol text: the initial
state (queues as rows of ``hbase:replication``, with one offset per WAL group), the properties,
symmetry, the action kinds in the order ``list`` shows them, and the decision rules a design may
get wrong. Every step is the text's, split by HBase component: the WALs (``wal.py``), sources
(``table/source.py``), sinks, the ServerCrashProcedure's claim stage (``table/scp.py``) and the
claim (``table/claim.py``), the peer procedures (``table/peers.py``, ``table/peer_procs.py``), the
log cleaner (``table/cleaner.py``), the master's restart (``master.py``), crashes, restarts and
joins, the bootstrap, ReplicationSyncUp, the migration, sync replication, zombies and relay
clusters. ``table/designs.py`` puts them together as the ``table`` and ``table-doc`` designs.

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

from replcheck.model.common import rules
from replcheck.model.common.crashes import Crashes
from replcheck.model.common.relay_steps import RelaySteps
from replcheck.model.common.sinks import SinkServers
from replcheck.model.common.state import (
    ABSENT,
    DISABLED,
    EMPTY_SINK,
    ENABLED,
    LIVE_DIR,
    Edit,
    Relay,
    Shipper,
    Wal,
    WalKey,
    bits,
)
from replcheck.model.config import Config
from replcheck.model.engine.action import ActionKind
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import PY, dual
from replcheck.model.engine.step import kinds_of
from replcheck.model.features import hfile_refs, legacy_peer, migrate_hfile, migration, serial
from replcheck.model.features.bootstrap import Bootstrap
from replcheck.model.features.joins import Joins
from replcheck.model.features.restarts import Restarts
from replcheck.model.features.storage_faults import StorageFaults
from replcheck.model.features.zombies import ZombieSteps
from replcheck.model.table import rules as table_rules
from replcheck.model.table import storage as table_storage
from replcheck.model.table.claim import Claims
from replcheck.model.table.cleaner import LogCleaner
from replcheck.model.table.master import MasterRestart
from replcheck.model.table.peer_procs import PeerProcedures
from replcheck.model.table.peers import PeerAdmin
from replcheck.model.table.scp import AssignQueues
from replcheck.model.table.source import Sources
from replcheck.model.table.state import (
    DOWNGRADE_ACTIVE,
    IDLE_TCLEANER,
    NO_SCP,
    NO_SYNCUP,
    NONE,
    NOT_RUNNING,
    SCP_DONE,
    SCP_NONE,
    Row,
    TBudget,
    TServer,
    TState,
)
from replcheck.model.table.wal import Wals

PLACEHOLDER_GROUP = -1
"""ADD_MISSING_QUEUES writes BEGIN under the crashed server's name, which no WAL group matches."""


WAL_KINDS = {k.name: k for k in kinds_of(Wals)}
"""The WAL's kinds, from the text (``crash`` is listed between ``roll`` and ``archive``)."""
CLAIM_KINDS = {k.name: k for k in kinds_of(Claims)}
"""The claim's kinds, from the text (``claim_redeliver`` is listed with the master restart)."""

ZOMBIE_KINDS = {k.name: k for k in kinds_of(ZombieSteps)}
"""A zombie's kinds, from the text (its offsets and refreshes are listed before the relays)."""

TABLE_KINDS: tuple[ActionKind, ...] = (
    *(WAL_KINDS[n] for n in ("put", "roll")),
    *kinds_of(Crashes),
    WAL_KINDS["archive"],
    *kinds_of(Sources),
    *kinds_of(SinkServers),
    *kinds_of(AssignQueues),
    *(CLAIM_KINDS[n] for n in ("claim_read", "claim_commit", "claim_lost", "zombie_claim_commit")),
    *(k for k in kinds_of(Restarts) if k.name != "crash"),
    *kinds_of(Joins),
    *kinds_of(StorageFaults),
    CLAIM_KINDS["claim_redeliver"],
    *kinds_of(PeerAdmin),
    *kinds_of(PeerProcedures),
    *kinds_of(LogCleaner),
    *kinds_of(MasterRestart),
    *kinds_of(Bootstrap),
    *(ZOMBIE_KINDS[n] for n in ("zombie_persist", "zombie_refresh")),
    *(k for k in kinds_of(RelaySteps) if k.name != "zombie_relay_apply"),
    *(ZOMBIE_KINDS[n] for n in ("zombie_put", "zombie_roll", "zombie_archive", "zombie_ship")),
    *(k for k in kinds_of(RelaySteps) if k.name == "zombie_relay_apply"),
)
"""Every table-era kind, in the order ``list`` shows them; each is a ``@step`` of the text."""


class TableCommon(Design):
    """What the table-era designs share outside the protocol text: the initial state,
    symmetry, and the decision rules a design may get wrong (the dual-form ones, which the text
    reads through ``generic_of``, and the constants it reads from the design)."""

    era = "table"

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
            syncup=NO_SYNCUP._replace(deaths=cfg.syncup_failures if cfg.syncup else 0),
            markers=0,
            info=False,
            table_online=not cfg.bootstrap,
            stale=(),
            sinks=(EMPTY_SINK,) * cfg.clusters,
            relays=relays,
            queued=(0,) * cfg.peers if cfg.peer_life else (),
            others=(1 << (cfg.servers + 1)) - 1 if cfg.cleaner_input else 0,
            serial=serial.initial(cfg.peers) if cfg.serial_peers else (),
            hfile=hfile_refs.NO_BULK_LOAD if cfg.bulk_load else (),
            serial_from=(0,) * cfg.peers if cfg.serial_life else (),
            budget=TBudget(
                cfg.crashes,
                cfg.sink_outages,
                cfg.admin_ops,
                cfg.edits,
                cfg.cleaner_runs,
                cfg.master_restarts,
                cfg.foreign_edits,
                cfg.restarts,
                cfg.storage_faults,
            ),
        )
        st = migration.start(cfg, st) if cfg.migration else st
        st = migrate_hfile.start(cfg, st) if cfg.zk_hfile_refs else st
        return legacy_peer.start(cfg, st) if cfg.legacy_peer else st

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
    def storage_peers(st: TState) -> list[int]:
        """``listPeers``: the peers in peer storage."""
        return [p for p, status in enumerate(st.peers) if status in (ENABLED, DISABLED)]

    @staticmethod
    def scp_unfinished(st: TState, d: int) -> bool:
        return st.scps[d].stage not in (SCP_NONE, SCP_DONE)

    def claim_queues(self, st: TState, d: int) -> list[Row]:
        """The queues of dead server ``d`` its claim stage hands out: its rows of peers in
        storage, in row-key order (the order the cluster's ``arqp_claim`` names targets in)."""
        peers = set(self.storage_peers(st))
        return [r for r in table_storage.queue_ids_of(st.rows, d) if r.peer in peers]

    # --- decision rules a design may get wrong ---------------------------------------------------

    @dual(rules.replicable_rule)
    def rule_ships(self, edit: Edit, target: int) -> bool:
        return rules.edit_replicable(edit, target)

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

    doc_waits_for_scps = False
    """Seed 004's RemovePeerProcedure and sync transition wait for SCPs (``table-doc``); HBase's
    for the AssignReplicationQueuesProcedures. The text reads it from the design."""

    def rule_remove_passes(self) -> int:
        """``removeAllQueues`` twice: a claim in flight can move a queue from an unscanned row to
        a scanned one, and "a queue can only be claimed once after the refresh"."""
        return 2

    @dual(table_rules.fence_add_rule)
    def rule_fence_add(self) -> bool:
        """AddPeerProcedure disables the log cleaner (the barrier) for its whole life."""
        return table_rules.fence_add_rule(PY)

    @dual(table_rules.claim_peer_known_rule)
    def rule_claim_peer_known(self, srv: TServer, peer: int) -> bool:
        """The claimer checks ``replicationPeers.getPeer(peerId)`` before and after the claim: a
        peer it does not know (removed) is not replicated (HBASE-17077, HBASE-20475)."""
        return table_rules.claim_peer_known_rule(PY, bool(srv.known >> peer & 1))
