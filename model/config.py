"""Bounds of a model run, and the standard configurations the manifest pins."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from replcheck.model.common.state import CATALOG, GLOBAL, KIND_NAMES, LOCAL

MAX_BOUND = 64
"""The largest value of any bound that shapes the state: beyond it no checker finishes, and some
(the server bitmasks, the state's fixed-size tuples) would not even start."""

SHAPE_FIELDS = ("servers", "wal_groups", "wals_per_server", "edits_per_wal", "sink_servers")
"""The bounds that size the state. The others are budgets that only count down (edits, crashes,
cleaner runs, ...): a replayed run sets them to what it recorded, often more than 64."""


@dataclass(frozen=True)
class Config:
    """Bounds on what the environment and the protocol may do. Every field is small on purpose:
    exhaustive exploration covers every interleaving within them."""

    name: str = "custom"
    servers: int = 2
    """Region servers of the source cluster."""
    peers: int = 1
    """Peer clusters the source cluster may replicate to (cluster ids 1..peers)."""
    initial_peers: int = 1
    """How many of the peers exist, enabled, from the start."""
    wal_groups: int = 1
    wals_per_server: int = 2
    """WALs per server and WAL group, counting the first (so ``wals_per_server - 1`` rolls)."""
    edits_per_wal: int = 1
    edits: int = 2
    """Client edits written at the source cluster, in all."""
    batch: int = 1
    """Edits read per shipped batch."""
    crashes: int = 1
    sink_servers: int = 1
    """Region servers of each peer cluster that accept replicated edits."""
    sink_ratio: float = 1.0
    """Fraction of a peer's sink servers each source chooses among (seed 003's ratio)."""
    sink_outages: int = 0
    admin_ops: int = 0
    """Peer add/remove/enable/disable and replication-state toggles the admin may issue."""
    edit_kinds: tuple[int, ...] = (GLOBAL,)
    topology: tuple[tuple[int, int], ...] = ()
    """Replication edges between other clusters (c, d); cluster 0 ships to each of its peers."""
    foreign_edits: int = 0
    """Client edits written at other clusters (for master-master and cyclic replication)."""
    zk_faults: int = 0
    """ZooKeeper write failures on log roll (HBASE-3515)."""
    cleaner_runs: int = 1
    """Runs of the log cleaner that takes a snapshot over several reads (``zk-multi``)."""
    cleaner_input: bool = False
    """oldWALs also holds each server's archived meta WAL and a file whose name is not a WAL's
    (the log cleaner's full input: both are never replicated, and the cleaner deletes them)."""
    cleaner_chore: bool = False
    """The log cleaner runs as the master's chore does, for ever (``cleaner_runs`` no longer
    bounds it): the configurations where its purpose, ``unneeded_wals_deleted``, is checked
    (the table era, and zk-multi's cversion-checked cleaner)."""
    hyphen_hosts: bool = False
    """Name region servers ``rs-1.example,...`` instead of ``1.1.1.1,...`` (HBASE-8207)."""
    joins: int = 0
    """Region servers (the last ones) that are not running at first and start while the cluster
    runs, each a new incarnation (a replacement after a crash): ``join``."""
    zombies: bool = False
    """A dead server may still append to its unsplit WALs, and a batch its source had in flight
    may still land (``zombie_put``, ``zombie_ship``): trace validation's bound, since real runs
    do this; off for every checker's configuration."""
    death_order: tuple[int, ...] = ()
    """A recorded run's servers in the order they died (trace validation): the layout then gives
    a queue a chain of dead servers only in that order, where a checker's gives every order."""
    wal_entries: int = 0
    """Entries a WAL slot of the layout holds, replicated ones included (trace validation: what
    the run wrote); 0 for a checker's layout, which holds every edit a WAL can receive."""
    # --- the table era ---
    spare_servers: int = 0
    """Region servers (the last ones) that have not joined yet: they start during an upgrade."""
    sync_peers: int = 0
    """The first ``sync_peers`` peers are synchronous-replication peers (start DOWNGRADE_ACTIVE)."""
    serial_peers: int = 0
    """The first ``serial_peers`` peers are serial replication peers, and every client edit is
    one region's, open on one server at a time (``model/features/serial.py``)."""
    serial_life: bool = False
    """The serial peers are added (those beyond ``initial_peers``) and removed while the cluster
    runs: AddPeerProcedure's serial stages, RemovePeerProcedure's ``removeLastSequenceIds``
    (``model/features/serial_life.py``)."""
    bulk_load: bool = False
    """A live server may bulk load one hfile: its references in the ``hfileref`` family, its
    marker in the WAL, its archive and the hfile cleaner (``model/features/hfile_refs.py``)."""
    remote_wals: int = 0
    """Non-zero: the sync peers' remote side (``model/features/sync_remote.py``). Cluster 0 starts
    as the STANDBY of each sync peer, whose cluster is ACTIVE and acknowledges up to this many
    edits, each in its own ``.syncrep`` WAL in cluster 0's ``remoteWALs/<peerId>``."""
    master_restarts: int = 0
    storage_faults: int = 0
    """Writes of a region server to ``hbase:replication`` that fail (AddPeer's refresh, a
    shipper's ``setOffset``): the server aborts (table era)."""
    restarts: int = 0
    """Non-zero: a dead server may start again (a new incarnation, a new server name, on the
    same slot). The table era: once its SCP finished, and crashes are then unbounded — only with
    ``edits=0``. The ZooKeeper era: once its old znode is failed over; its new WALs follow its
    old ones in the slot's sequences (so the WAL slots bound the restarts) and crashes stay on
    their budget."""
    peer_toggles: bool = False
    """The admin may also disable and enable peers (table era; from the admin budget)."""
    peer_life: bool = False
    """The peer's whole lifecycle. The table era: the admin may also update a peer's
    configuration, disable and enable it, and add a removed peer again under its id; each is a
    procedure that waits in the peer's queue for the peer's lock, and the region servers refresh
    their sources (``refreshSources``). The ZooKeeper era: the admin may also update a peer's
    config znode, each server reacting once (zk-multi refreshes its sources), and add a removed
    peer again under its id (``model/zk/peer_life.py``)."""
    migration: bool = False
    """Start from ZooKeeper queues with version-2 servers: the migration and rolling upgrade."""
    legacy_peer: bool = False
    """With ``migration``: the 2.x cluster also ran the legacy ``region_replica_replication``
    peer, still in peer storage, with a queue znode of each alive version-2 server that its
    source writes positions to (``model/features/legacy_peer.py``)."""
    zk_hfile_refs: bool = False
    """With ``migration`` and ``bulk_load``: a 2.x server bulk loaded the hfile before the
    upgrade, so its references are in ZooKeeper (``/hbase/replication/hfile-refs``) and its
    marker in the server's WAL, owed to every peer; MIGRATE copies them to the ``hfileref`` rows
    (``model/features/migrate_hfile.py``)."""
    syncup: bool = False
    syncup_failures: int = 0
    """ReplicationSyncUp runs that die part-way (``syncup_fail``); after each the operator runs
    the tool again with ``-f`` (without it the tool refuses: its info file exists)."""
    syncup_abandon: bool = False
    """The operator may start the cluster after a run that died, instead of running the tool
    again to its end (nothing in HBase checks which it was)."""
    """The source cluster may go down and ReplicationSyncUp run."""
    bootstrap: bool = False
    """Start with the ``hbase:replication`` region closed (seed 004's 'deadlock')."""
    skip_liveness: tuple[str, ...] = ()
    """Liveness properties that do not apply under this configuration's environment."""

    def __post_init__(self) -> None:
        checks = [
            (self.servers >= 1, "servers must be at least 1"),
            (0 <= self.initial_peers <= self.peers, "initial_peers must be within 0..peers"),
            (self.peers <= 6, "at most 6 peers"),
            (
                self.wal_groups >= 1 and self.wals_per_server >= 1,
                "wal_groups, wals_per_server >= 1",
            ),
            (self.edits_per_wal >= 0 and self.batch >= 1, "edits_per_wal >= 0 and batch >= 1"),
            (
                self.sink_servers >= 1 and 0 < self.sink_ratio <= 1,
                "sink_servers >= 1, ratio in (0,1]",
            ),
            (0 <= self.spare_servers < self.servers, "spare_servers must be below servers"),
            (0 <= self.joins <= self.servers, "joins must be within 0..servers"),
            (
                self.joins + self.spare_servers <= self.servers,
                "joins and spare_servers together must not exceed servers",
            ),
            (0 <= self.sync_peers <= self.peers, "sync_peers must be within 0..peers"),
            (not self.remote_wals or self.sync_peers, "remote_wals needs sync_peers"),
            (
                (self.serial_peers <= self.initial_peers or self.serial_life)
                and not (self.serial_peers and self.restarts),
                "serial_peers must exist from the start (or serial_life), without restarts",
            ),
            (not self.serial_life or self.serial_peers, "serial_life needs serial_peers"),
            (
                self.syncup or not (self.syncup_failures or self.syncup_abandon),
                "syncup_failures and syncup_abandon need syncup",
            ),
            (self.syncup_failures >= 0, "syncup_failures must be at least 0"),
            (self.migration or not self.legacy_peer, "legacy_peer needs migration"),
            (
                (self.migration and self.bulk_load) or not self.zk_hfile_refs,
                "zk_hfile_refs needs migration and bulk_load",
            ),
            (not (self.zk_hfile_refs and self.legacy_peer), "zk_hfile_refs without legacy_peer"),
            (all(k in (GLOBAL, LOCAL, CATALOG) for k in self.edit_kinds), "unknown edit kind"),
            (
                all(0 <= c <= self.clusters - 1 and d >= 0 and c != d for c, d in self.topology),
                "topology edges must join two different clusters",
            ),
        ]
        # Every count, budgets included, named when it is negative (one check for them all).
        negative = [
            f.name
            for f in fields(self)
            if isinstance(getattr(self, f.name), int)
            and not isinstance(getattr(self, f.name), bool)
            and getattr(self, f.name) < 0
        ]
        checks.append((not negative, f"{', '.join(negative)} must not be negative"))
        huge = [n for n in SHAPE_FIELDS if getattr(self, n) > MAX_BOUND]
        checks.append(
            (not huge, f"{', '.join(huge)} above {MAX_BOUND}, the most the checkers handle")
        )
        for ok, why in checks:
            if not ok:
                raise ValueError(f"config {self.name!r}: {why}")

    def misfit(self, era: str) -> str:
        """Why this configuration does not apply to a design of ``era`` (``zk`` or ``table``):
        it sets a bound only the other era's designs read. Empty when it applies."""
        base = Config()
        other = [n for e, names in ERA_FIELDS.items() if e != era for n in names]
        if era not in ERA_FIELDS:
            return ""
        set_here = [n for n in other if getattr(self, n) != getattr(base, n)]
        if not set_here:
            return ""
        return (
            f"configuration {self.name!r} sets {', '.join(set_here)}, which only "
            f"{'table' if era == 'zk' else 'ZooKeeper'}-era designs read; it does not apply to "
            f"a {'ZooKeeper' if era == 'zk' else 'table'}-era design"
        )

    @property
    def clusters(self) -> int:
        """Number of clusters, the source cluster included."""
        most = max([self.peers, *(max(e) for e in self.topology)], default=self.peers)
        return most + 1

    @property
    def sink_subset(self) -> int:
        """How many sink servers each source chooses among: ``ceil(ratio * sink servers)``."""
        return max(1, math.ceil(self.sink_ratio * self.sink_servers))

    def slot(self, key: tuple[int, int, int]) -> int:
        server, group, seq = key
        return (server * self.wal_groups + group) * self.wals_per_server + seq

    @property
    def wal_slots(self) -> int:
        return self.servers * self.wal_groups * self.wals_per_server

    def outbound(self, cluster: int) -> tuple[int, ...]:
        """The clusters ``cluster`` replicates to (for cluster 0: its peers' clusters)."""
        if cluster == 0:
            return tuple(range(1, self.peers + 1))
        return tuple(d for c, d in self.topology if c == cluster)

    def to_dict(self) -> dict[str, object]:
        """Every bound, but a recorded run's sizing (``RECORDED_FIELDS``) only where it is set:
        a checker's configuration reads as it did before those fields existed (its JSON, and
        the fuzzer's derandomized examples, which hash it)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in RECORDED_FIELDS or getattr(self, f.name) != f.default
        }

    def with_overrides(self, **changes: object) -> Config:
        return replace(self, **changes)


RECORDED_FIELDS = ("death_order", "wal_entries", "serial_life")
"""The bounds written only where set: a recorded run's sizing (trace validation's layout), and
``serial_life``, so every configuration without it reads (and hashes) as before it existed."""

ERA_FIELDS: dict[str, tuple[str, ...]] = {
    "zk": ("zk_faults", "hyphen_hosts"),
    "table": (
        "spare_servers",
        "peer_toggles",
        "sync_peers",
        "storage_faults",
        "serial_peers",
        "serial_life",
        "bulk_load",
        "remote_wals",
        "migration",
        "legacy_peer",
        "zk_hfile_refs",
        "syncup",
        "syncup_failures",
        "syncup_abandon",
        "bootstrap",
        "cleaner_input",
    ),
}
"""The bounds only one era's designs read: a configuration setting one of them does not apply to
a design of the other era (``Config.misfit``)."""

STANDARD: dict[str, Config] = {
    c.name: c
    for c in (
        Config(name="std", servers=2, wals_per_server=2, edits=1, crashes=1),
        Config(name="chore", servers=2, wals_per_server=2, edits=1, crashes=1, cleaner_chore=True),
        Config(
            name="cleaner-race", servers=2, wals_per_server=1, edits=1, crashes=1, cleaner_runs=1
        ),
        Config(name="race", servers=3, wals_per_server=1, edits=1, crashes=1, cleaner_runs=0),
        Config(
            name="double-failure", servers=3, wals_per_server=1, edits=1, crashes=2, cleaner_runs=0
        ),
        Config(
            name="peers",
            servers=2,
            peers=2,
            initial_peers=1,
            wals_per_server=1,
            edits=1,
            crashes=1,
            admin_ops=2,
            cleaner_runs=0,
        ),
        Config(
            name="filtering",
            servers=1,
            wals_per_server=2,
            edits_per_wal=2,
            edits=3,
            crashes=0,
            edit_kinds=(GLOBAL, LOCAL, CATALOG),
        ),
        Config(
            name="master-master",
            servers=1,
            wals_per_server=2,
            edits=1,
            crashes=0,
            topology=((1, 0),),
            foreign_edits=1,
        ),
        Config(
            name="cyclic",
            servers=1,
            wals_per_server=1,
            edits=1,
            crashes=0,
            topology=((1, 2), (2, 0)),
            foreign_edits=1,
        ),
        Config(
            name="sink-outage",
            servers=1,
            wals_per_server=2,
            edits_per_wal=2,
            edits=3,
            crashes=0,
            sink_servers=2,
            sink_ratio=0.5,
            sink_outages=2,
        ),
        Config(name="zk-faults", servers=2, wals_per_server=2, edits=1, crashes=0, zk_faults=1),
        Config(
            name="hyphen-hosts", servers=2, wals_per_server=2, edits=1, crashes=1, hyphen_hosts=True
        ),
        Config(
            name="restarts",
            servers=2,
            wals_per_server=2,
            edits=1,
            crashes=2,
            restarts=1,
            cleaner_runs=0,
        ),
        Config(
            name="peer-life",
            servers=2,
            wals_per_server=2,
            edits=1,
            crashes=1,
            admin_ops=1,
            cleaner_runs=0,
            peer_life=True,
        ),
        Config(
            name="peer-readd",
            servers=2,
            wals_per_server=2,
            edits=1,
            crashes=0,
            admin_ops=2,
            cleaner_runs=0,
            peer_life=True,
        ),
        Config(
            name="multiwal",
            servers=2,
            wal_groups=2,
            wals_per_server=1,
            edits=2,
            crashes=1,
            cleaner_runs=0,
        ),
    )
}

TABLE_STANDARD: tuple[Config, ...] = (
    Config(name="t-std", servers=2, wals_per_server=2, edits=1, crashes=1, cleaner_runs=1),
    Config(
        name="t-chore",
        servers=2,
        wals_per_server=2,
        edits=1,
        crashes=1,
        cleaner_chore=True,
        cleaner_input=True,
    ),
    Config(
        name="t-race",
        servers=3,
        wals_per_server=1,
        edits=1,
        crashes=1,
        cleaner_runs=0,
        master_restarts=1,
    ),
    Config(name="t-double", servers=3, wals_per_server=1, edits=1, crashes=2, cleaner_runs=0),
    Config(
        name="t-add-peer",
        servers=2,
        initial_peers=0,
        wals_per_server=1,
        edits=1,
        crashes=1,
        admin_ops=1,
        cleaner_runs=1,
    ),
    Config(
        name="t-remove-peer",
        servers=3,
        wals_per_server=1,
        edits=1,
        crashes=1,
        admin_ops=1,
        cleaner_runs=0,
    ),
    Config(
        name="t-remove-zombie",
        servers=3,
        wals_per_server=1,
        edits=0,
        crashes=2,
        admin_ops=1,
        cleaner_runs=0,
    ),
    Config(
        name="t-remove-starve",
        servers=3,
        peers=2,
        initial_peers=2,
        wals_per_server=1,
        edits=0,
        crashes=0,
        restarts=1,
        skip_liveness=("dead_queues_claimed",),
        admin_ops=1,
        cleaner_runs=0,
    ),
    Config(
        name="t-multiwal",
        servers=2,
        wal_groups=2,
        wals_per_server=1,
        edits=2,
        crashes=1,
        cleaner_runs=1,
    ),
    Config(
        name="t-storage-faults",
        servers=2,
        initial_peers=0,
        wals_per_server=1,
        edits=1,
        crashes=0,
        admin_ops=1,
        cleaner_runs=1,
        storage_faults=1,
    ),
    Config(name="t-cleaner", servers=2, wals_per_server=2, edits=1, crashes=1, cleaner_runs=2),
    Config(
        name="t-bootstrap",
        servers=2,
        wals_per_server=1,
        edits=1,
        crashes=0,
        cleaner_runs=0,
        bootstrap=True,
    ),
    Config(
        name="t-master-restart",
        servers=2,
        initial_peers=0,
        wals_per_server=2,
        edits=1,
        crashes=0,
        admin_ops=1,
        cleaner_runs=1,
        master_restarts=1,
    ),
)
STANDARD.update((c.name, c) for c in TABLE_STANDARD)

PEER_LIFE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-peer-update",
        servers=2,
        wals_per_server=2,
        edits=1,
        crashes=1,
        admin_ops=1,
        cleaner_runs=0,
        peer_life=True,
    ),
    Config(
        name="t-peer-readd",
        servers=2,
        wals_per_server=2,
        edits=1,
        crashes=0,
        admin_ops=2,
        cleaner_runs=0,
        peer_life=True,
    ),
)
"""The peer's whole lifecycle (``peer_life``). ``t-peer-update``: a crash, and one admin command
of any kind (an update or a disable refreshes the sources of a survivor that claimed the dead
server's queue). ``t-peer-readd``: two admin commands, so a peer may be removed and added again
under its id, the second command waiting in the peer's queue while the first runs."""
STANDARD.update((c.name, c) for c in PEER_LIFE_CONFIGS)


# --- the table era's features: sync replication, ReplicationSyncUp, the migration ----------

SYNC_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-sync",
        servers=2,
        peers=1,
        initial_peers=1,
        sync_peers=1,
        wals_per_server=2,
        edits=1,
        crashes=1,
        admin_ops=1,
        cleaner_runs=0,
    ),
)

SYNC_FINDING_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-sync-back",
        servers=2,
        peers=1,
        initial_peers=1,
        sync_peers=1,
        wals_per_server=2,
        edits=1,
        crashes=1,
        admin_ops=2,
        cleaner_runs=0,
    ),
)
"""DA→S then S→DA: both ``table`` and ``table-doc`` replicate a stale edit here (a claim read
during DA→S commits after S→DA's stage-0 refresh). A pinned finding: see docs/findings.md."""

SYNC_REMOTE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-sync-remote",
        servers=2,
        peers=1,
        initial_peers=1,
        sync_peers=1,
        remote_wals=2,
        wals_per_server=2,
        edits=0,
        crashes=1,
        admin_ops=1,
        cleaner_runs=0,
    ),
    Config(
        name="t-sync-remote-cycle",
        servers=2,
        peers=1,
        initial_peers=1,
        sync_peers=1,
        remote_wals=1,
        wals_per_server=2,
        edits=0,
        crashes=0,
        admin_ops=2,
        cleaner_runs=0,
    ),
)
"""The remote side of sync replication (``model/features/sync_remote.py``): cluster 0 starts as the
STANDBY of the sync peer, whose cluster (ACTIVE) writes ``.syncrep`` WALs into cluster 0's remote
WAL directory and may go DOWNGRADE_ACTIVE. ``t-sync-remote``: the ACTIVE acknowledges two edits
while the one admin command promotes cluster 0 to DOWNGRADE_ACTIVE (RecoverStandbyProcedure's
replay) and a server may crash. ``t-sync-remote-cycle``: one edit, and a second admin command
after the promotion: RemovePeer (which deletes the remote WAL directories), or the way back to
STANDBY, after which a remote WAL may be written again and is left to its source's clean-up."""
SYNC_CONFIGS = (*SYNC_CONFIGS, *SYNC_FINDING_CONFIGS, *SYNC_REMOTE_CONFIGS)


_SYNCUP = Config(
    name="t-syncup",
    servers=3,
    spare_servers=1,
    peers=1,
    initial_peers=1,
    syncup=True,
    wals_per_server=1,
    edits=2,
    crashes=1,
    cleaner_runs=0,
)
SYNCUP_CONFIGS: tuple[Config, ...] = (
    _SYNCUP,
    replace(_SYNCUP, name="t-syncup-rerun", syncup_failures=1),
    replace(_SYNCUP, name="t-syncup-cycles", spare_servers=2, edits=1, crashes=0),
)
"""ReplicationSyncUp as an operator runs it. ``t-syncup``: one stop, one run to its end, the
master's return with a spare server. ``t-syncup-rerun``: the run may die part-way, and the
operator runs the tool again with ``-f`` (without it the tool refuses: the info file is left)
before starting the cluster. ``t-syncup-cycles``: two stop-and-SyncUp cycles, each master
return bringing one spare server, so the second run meets markers the first left."""
SYNCUP_FINDING_CONFIGS: tuple[Config, ...] = (
    replace(_SYNCUP, name="t-syncup-abandon", syncup_failures=1, syncup_abandon=True),
)
"""The operator starts the cluster after a ReplicationSyncUp run that died part-way: the master
reads the markers the run left as "replicated" and removes those servers' queues. A pinned
finding: see docs/findings.md."""
SYNCUP_CONFIGS = (*SYNCUP_CONFIGS, *SYNCUP_FINDING_CONFIGS)


MIGRATE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-migrate",
        servers=3,
        spare_servers=1,
        migration=True,
        wals_per_server=1,
        edits=1,
        crashes=0,
        cleaner_runs=1,
        master_restarts=1,
    ),
    Config(
        name="t-migrate-chain",
        servers=4,
        spare_servers=1,
        migration=True,
        wals_per_server=2,
        edits=0,
        crashes=0,
        cleaner_runs=0,
    ),
    Config(
        name="t-migrate-rolling",
        servers=4,
        spare_servers=2,
        migration=True,
        wals_per_server=1,
        edits=1,
        crashes=0,
        cleaner_runs=1,
    ),
)
"""One peer, no crash but the upgrade's. ``t-migrate``: one alive 2.x server (0), one that died
in the 2.x era (1, its queue claimed by 0 in ZooKeeper), one spare slot; the cleaner runs once and
the master may restart (the barrier is disabled again on replay). ``t-migrate-chain``: two servers
died in a cascade (server 0 holds the chained id ``peer-1-2``), and the old server may roll (the
new WAL goes to its znode). ``t-migrate-rolling``: two alive 2.x servers and two spare slots, so
one upgraded server of two online passes seed 004's 30% threshold while the other old server still
runs."""

LEGACY_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-migrate-legacy",
        servers=4,
        spare_servers=2,
        migration=True,
        legacy_peer=True,
        wals_per_server=1,
        edits=1,
        crashes=0,
        cleaner_runs=0,
        master_restarts=1,
    ),
    Config(
        name="t-migrate-legacy-idle",
        servers=4,
        spare_servers=2,
        initial_peers=0,
        migration=True,
        legacy_peer=True,
        wals_per_server=1,
        edits=1,
        crashes=0,
        cleaner_runs=1,
        master_restarts=1,
    ),
)
"""The legacy ``region_replica_replication`` peer (``model/features/legacy_peer.py``): two alive 2.x
servers, each with its legacy queue znode, and two spare slots; the master may restart.
``t-migrate-legacy``: one peer, so MIGRATE moves past each old server's replicator znode while
the other old server still runs. ``t-migrate-legacy-idle``: no peer but the legacy one, so
PREPARE must wait for the upgrade (WAIT_UPGRADING) before CLEAN_UP deletes the znodes; the
cleaner runs once."""
MIGRATE_CONFIGS = (*MIGRATE_CONFIGS, *LEGACY_CONFIGS)

MIGRATE_HFILE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-migrate-hfile",
        servers=2,
        spare_servers=1,
        migration=True,
        bulk_load=True,
        zk_hfile_refs=True,
        wals_per_server=1,
        edits=0,
        crashes=0,
        cleaner_runs=0,
    ),
)
"""The hfile references of a bulk load done in the 2.x era (``model/features/migrate_hfile.py``):
one alive 2.x server (0) whose WAL holds the bulk load's marker, owed to the peer, the hfile's
reference in the peer's ZooKeeper hfile-refs znode, and one spare slot. MIGRATE's hfile-refs
task copies the reference to the ``hfileref`` row; the upgrade stops server 0 and its queue,
claimed by the 3.x server once the migration is done, ships the marker."""
MIGRATE_CONFIGS = (*MIGRATE_CONFIGS, *MIGRATE_HFILE_CONFIGS)


SERIAL_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-serial",
        servers=3,
        serial_peers=1,
        wals_per_server=1,
        edits=3,
        crashes=2,
        cleaner_runs=0,
    ),
)
"""A serial peer: one region, open on server 0 first and reopened on a live server after each
crash of its server, so its edits are in the WALs of up to three servers (three ranges), and each
range must wait for the one before it, which a recovered queue may still be replicating."""

SERIAL_LIFE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-serial-add",
        servers=3,
        initial_peers=0,
        serial_peers=1,
        serial_life=True,
        wals_per_server=1,
        edits=2,
        crashes=1,
        admin_ops=1,
        cleaner_runs=0,
    ),
    Config(
        name="t-serial-readd",
        servers=3,
        serial_peers=1,
        serial_life=True,
        peer_life=True,
        wals_per_server=1,
        edits=2,
        crashes=0,
        admin_ops=2,
        cleaner_runs=0,
    ),
)
"""Serial peers across their lifecycle (``model/features/serial_life.py``). ``t-serial-add``: the
serial peer is added while the cluster runs, with an edit and a crash before or after it, so the
region may be in its second range when AddPeerProcedure reopens it into a new one and writes the
last pushed sequence id from the barrier. ``t-serial-readd``: a serial peer removed and added again
under its id (two admin commands), edits before and after either: the re-added peer's reopen and
last pushed sequence id replace what its predecessor pushed."""

HFILE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-hfile",
        servers=2,
        peers=2,
        initial_peers=2,
        bulk_load=True,
        wals_per_server=1,
        edits=0,
        crashes=1,
        cleaner_runs=0,
    ),
)
"""A bulk load and two peers: the hfile's reference per peer, its marker shipped to each (or by
a recovered queue after a crash), and the hfile compacted to the archive, where the hfile
cleaner may delete it once no peer's reference names it."""

HFILE_REMOVE_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-hfile-remove",
        servers=2,
        bulk_load=True,
        wals_per_server=1,
        edits=0,
        crashes=0,
        admin_ops=1,
        cleaner_runs=0,
    ),
)
"""A bulk load and the peer's removal: RemovePeerProcedure deletes the peer's ``hfileref`` row
with its queues (``removePeerFromHFileRefs``), whether the marker was shipped or not."""

HFILE_ADD_CONFIGS: tuple[Config, ...] = (
    Config(
        name="t-hfile-add",
        servers=2,
        peers=1,
        initial_peers=0,
        bulk_load=True,
        wals_per_server=1,
        edits=0,
        crashes=0,
        admin_ops=1,
        cleaner_runs=0,
    ),
)
"""A bulk load while the admin adds a peer: ``preCommitStoreFile`` adds a reference for each
source its server has at that moment (``ReplicationSourceManager.addHFileRefs``), and the marker
is written after. A pinned finding: see docs/findings.md."""

STANDARD.update(
    (c.name, c)
    for c in (
        *SYNC_CONFIGS,
        *SYNCUP_CONFIGS,
        *MIGRATE_CONFIGS,
        *SERIAL_CONFIGS,
        *SERIAL_LIFE_CONFIGS,
        *HFILE_CONFIGS,
        *HFILE_REMOVE_CONFIGS,
        *HFILE_ADD_CONFIGS,
    )
)


# --- a configuration from a user's spec ---------------------------------------------------------

DEFAULT_CONFIG = "std"
"""The configuration overrides with no name apply to."""


def resolve_config(spec: str | Config) -> Config:
    """A configuration from its spec:

    * ``NAME``: a standard configuration (``std``, ``race``, ``filtering``, ...);
    * ``NAME:key=value,key=value``: that configuration with fields overridden, e.g.
      ``std:servers=3,crashes=2``;
    * ``key=value,...``: overrides on top of ``std``.

    Values are parsed by the field's type: integers, ``sink_ratio`` a float, ``hyphen_hosts``
    ``true``/``false``, ``edit_kinds`` kind names or numbers joined by ``+``
    (``GLOBAL+LOCAL``), ``topology`` edges ``c>d`` joined by ``+`` (``1>2+2>0``). The derived
    configuration is named by its spec. Raises ``ValueError`` with a one-line message.
    """
    if isinstance(spec, Config):
        return spec
    text = spec.strip()
    if not text:
        raise ValueError("empty configuration name")
    if ":" in text:
        base_name, _, overrides = text.partition(":")
    elif "=" in text:
        base_name, overrides = DEFAULT_CONFIG, text
    else:
        base_name, overrides = text, ""
    base_name = base_name.strip()
    if base_name not in STANDARD:
        raise ValueError(f"unknown config {base_name!r}; known: {', '.join(STANDARD)}")
    base = STANDARD[base_name]
    if not overrides.strip():
        return base
    known = {f.name for f in fields(Config)} - {"name"}
    changes: dict[str, object] = {}
    for item in overrides.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        key, value = key.strip().replace("-", "_"), value.strip()
        if not eq or not key:
            raise ValueError(f"config {text!r}: expected key=value, got {item!r}")
        if key not in known:
            raise ValueError(
                f"config {text!r}: unknown key {key!r}; known: {', '.join(sorted(known))}"
            )
        changes[key] = _parse_value(text, key, value, getattr(base, key))
    name = text if ":" in text else f"{DEFAULT_CONFIG}:{text}"
    try:
        return base.with_overrides(name=name, **changes)
    except TypeError as exc:
        raise ValueError(f"config {text!r}: {exc}") from None


def _parse_value(spec: str, key: str, value: str, default: object) -> object:
    def bad(why: str) -> ValueError:
        return ValueError(f"config {spec!r}: {key}={value!r}: {why}")

    if isinstance(default, bool):
        low = value.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise bad("expected true or false")
    if isinstance(default, int):
        try:
            return int(value)
        except ValueError:
            raise bad("expected an integer") from None
    if isinstance(default, float):
        try:
            return float(value)
        except ValueError:
            raise bad("expected a number") from None
    if key == "edit_kinds":
        kinds = []
        for part in filter(None, (p.strip() for p in value.split("+"))):
            if part.isdigit():
                kinds.append(int(part))
            elif part.upper() in KIND_NAMES:
                kinds.append(KIND_NAMES.index(part.upper()))
            else:
                raise bad(f"unknown edit kind {part!r}; known: {', '.join(KIND_NAMES)}")
        return tuple(kinds)
    if key == "topology":
        edges = []
        for part in filter(None, (p.strip() for p in value.split("+"))):
            c, sep, d = part.partition(">")
            if not sep or not c.strip().isdigit() or not d.strip().isdigit():
                raise bad(f"expected edges like 1>2 joined by +, got {part!r}")
            edges.append((int(c), int(d)))
        return tuple(edges)
    raise bad("this field cannot be overridden")
