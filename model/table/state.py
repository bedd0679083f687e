"""The table era's state (seed 004; reference sections 1, 2, 4-9): immutable, hashable, ordered.

What is stored:

* ``rows`` is the ``queue`` family of ``hbase:replication``: one ``Row`` per replication queue,
  keyed ``<peerId>-<owner>[/<source>]``, holding one ``ReplicationGroupOffset`` per WAL group;
* ``sid`` is the ``sid`` and ``hfileref`` families, per peer (a bit mask of which rows exist);
  with serial peers ``serial`` holds the ``sid`` family's values;
* ``peers`` and ``sync`` are the peer storage (status, and the sync-replication state pair);
* ``scps``, ``pprocs``, ``barrier``, ``migration`` are the master's persisted procedures;
* ``zk`` holds the ZooKeeper queues not yet migrated (the rolling upgrade of section 9);
* ``markers`` and ``info`` are the files ReplicationSyncUp leaves for the master.

The data path reuses the ZooKeeper era's ``Wal``, ``Edit``, ``Shipper``, ``Sink`` and ``Relay``: a
``Shipper`` with ``chain == ()`` is a normal source's, one with ``chain == (source,)`` belongs to a
recovered queue whose WALs were written by ``source``.
"""

from __future__ import annotations

from typing import NamedTuple

from replcheck.model.common.state import Queue, Relay, Shipper, Sink, Wal

# ReplicationGroupOffset: (WAL sequence, position). BEGIN is ("", 0): its WAL has no timestamp.
# A position of FULL (-1) means the WAL "has already been fully replicated out".
BEGIN_SEQ = -1
FULL = -1
Offset = tuple[int, int]
BEGIN: Offset = (BEGIN_SEQ, 0)
NO_SOURCE = -1

# Sync replication states (SyncReplicationState).
NONE, ACTIVE, DOWNGRADE_ACTIVE, STANDBY = 0, 1, 2, 3
SYNC_NAMES = ("NONE", "ACTIVE", "DOWNGRADE_ACTIVE", "STANDBY")

# ReplicationLogCleanerBarrier states.
NOT_RUNNING, RUNNING, BARRIER_DISABLED = 0, 1, 2
BARRIER_NAMES = ("NOT_RUNNING", "RUNNING", "DISABLED")

# ServerCrashProcedure and its AssignReplicationQueuesProcedure child, as one stage number.
# RemovePeerProcedure's steps.
RP_PRE, RP_STORAGE, RP_REFRESH, RP_POST, RP_REMOVE_ALL = range(5)
# AddPeerProcedure's steps.
AP_PRE, AP_STORAGE, AP_REFRESH, AP_POST = range(4)
AP_REOPEN, AP_SEQ_ID, AP_ENABLE = 4, 5, 6
"""A serial peer's AddPeerProcedure stages after REFRESH_PEER_ON_RS
(``model/features/serial_life.py``): SERIAL_PEER_REOPEN_REGIONS,
SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID, SERIAL_PEER_SET_PEER_ENABLED."""
SCP_NONE = 0
SCP_SPLIT = 1
"""Scheduled: split the dead server's WALs (archive them) and assign its regions."""
SCP_CLAIM_STAGE = 2
"""SERVER_CRASH_CLAIM_REPLICATION_QUEUES: suspended while a migration is unfinished."""
ARQP_ADD_MISSING = 3
ARQP_PUT_MISSING = 4
"""ADD_MISSING_QUEUES has read the peers and the existing queues; the puts are next."""
ARQP_CLAIM = 5
ARQP_REMOVE = 6
SCP_DONE = 7
SCP_STAGE_NAMES = (
    "none",
    "SPLIT_LOGS",
    "CLAIM_REPLICATION_QUEUES",
    "ADD_MISSING_QUEUES",
    "ADD_MISSING_QUEUES(put)",
    "CLAIM",
    "REMOVE_QUEUES",
    "FINISH",
)

# Peer procedures.
ADD, REMOVE, TRANSIT = 0, 1, 2
UPDATE, DISABLE, ENABLE = 3, 4, 5
"""UpdatePeerConfigProcedure, DisablePeerProcedure, EnablePeerProcedure (the ``peer_life``
feature): ModifyPeerProcedures whose steps are ``MP_*``."""
MP_PRE, MP_STORAGE, MP_REFRESH, MP_POST = range(4)
PROC_NAMES = (
    "AddPeerProcedure",
    "RemovePeerProcedure",
    "TransitPeerSyncReplicationStateProcedure",
    "UpdatePeerConfigProcedure",
    "DisablePeerProcedure",
    "EnablePeerProcedure",
)

# Migration (MigrateReplicationQueueFromZkToTableProcedure) states; MIG_DONE when finished.
(
    MIG_DISABLE_CLEANER,
    MIG_PREPARE,
    MIG_DISABLE_PEER,
    MIG_MIGRATE,
    MIG_WAIT_UPGRADING,
    MIG_ENABLE_PEER,
    MIG_ENABLE_CLEANER,
    MIG_CLEAN_UP,
    MIG_DONE,
) = range(9)
MIG_NAMES = (
    "DISABLE_CLEANER",
    "PREPARE",
    "DISABLE_PEER",
    "MIGRATE",
    "WAIT_UPGRADING",
    "ENABLE_PEER",
    "ENABLE_CLEANER",
    "CLEAN_UP",
    "DONE",
)

# The log cleaner's run: idle, servers read (preClean's first read), snapshot complete.
C_IDLE, C_SERVERS, C_READY = 0, 1, 2

SID, HFILE_REF = 1, 2
"""Bits of ``TState.sid``: a peer has rows in the ``sid`` family / the ``hfileref`` family."""


class Row(NamedTuple):
    """A row of the ``queue`` family: ``ReplicationQueueId`` (peer, owner, optional source) and
    its offsets, ``(group, seq, pos)`` sorted by WAL group. Rows sort in row-key order."""

    peer: int
    owner: int
    source: int
    offsets: tuple[tuple[int, int, int], ...]


class Child(NamedTuple):
    """A ClaimReplicationQueueRemoteProcedure: the queue (of the crashed server) and its target."""

    peer: int
    source: int
    target: int


class Scp(NamedTuple):
    """A ServerCrashProcedure and its AssignReplicationQueuesProcedure, as persisted."""

    stage: int
    peers: int
    """ADD_MISSING_QUEUES: the peers that still need a BEGIN queue, as read (bit mask)."""
    children: tuple[Child, ...]


NO_SCP = Scp(SCP_NONE, 0, ())


class PeerProc(NamedTuple):
    """One peer procedure (the peer's exclusive lock is held for its whole life)."""

    kind: int
    stage: int
    """Index into the procedure's own list of steps (see ``table_common``)."""
    refresh: int
    """Servers whose RefreshPeerProcedure child is still to run (bit mask)."""
    recorded: int
    """RemovePeer: the crashed servers whose claim procedures were collected (bit mask)."""
    cursor: tuple
    """removeAllQueues: ``(pass, row keys still to delete)`` with keys ``(owner, source)``;
    ``()`` before the first pass."""
    target: int
    """TransitPeerSyncReplicationStateProcedure: the state it moves to."""


class TServer(NamedTuple):
    alive: bool
    started: bool
    """False for a region server that has not joined the cluster yet (rolling upgrade)."""
    version: int
    """Major version: 2 keeps queues in ZooKeeper, 3 in ``hbase:replication``."""
    current: tuple[int, ...]
    """Sequence of the current WAL, per WAL group."""
    known: int
    """Peers this server has a normal source for (its view of the peer storage; bit mask)."""
    shippers: tuple[Shipper, ...]
    sinks: tuple[int, ...]
    claim: tuple[tuple[Child, tuple[tuple[int, int, int], ...]], ...]
    """A claim read but not committed: the child and the offsets ``getOffsets`` returned."""
    views: tuple[tuple[int, int], ...]
    """Per peer, the (state, new state) of sync replication as this server last refreshed it."""
    drained: int
    """Peers whose sources this server drained for STANDBY (bit mask)."""


class TCleaner(NamedTuple):
    """A run of ReplicationLogCleaner: ``live`` (online or SCP-unfinished servers) is read first,
    then the peers and every queue row (``rows``)."""

    phase: int
    live: int
    peers: int
    rows: tuple[Row, ...]


IDLE_TCLEANER = TCleaner(C_IDLE, 0, 0, ())


class Migration(NamedTuple):
    stage: int
    disabled: int
    """Peers the migration disabled and must enable again (bit mask)."""
    migrated: int
    """Servers whose ZooKeeper queues were written to the table (bit mask)."""


class LegacyReplicaPeer(NamedTuple):
    """The 2.x ``region_replica_replication`` peer a migration meets
    (``model/features/legacy_peer.py``)."""

    stored: bool
    """The legacy peer is still in peer storage (``hasRegionReplicaReplicationPeer``)."""
    znodes: int
    """Servers whose ``region_replica_replication`` queue znode exists (bit mask)."""
    aborted: int
    """History: servers that aborted because their own queue znode was removed under their
    running source (bit mask)."""


class SyncUp(NamedTuple):
    """A ReplicationSyncUp run: its offline, in-memory view of the queue rows, and the WALs it
    still has to replicate as ``(peer, wal key, position)``."""

    running: bool
    view: tuple[Row, ...]
    work: tuple[tuple[int, tuple[int, int, int], int], ...]
    failed: bool = False
    """The last run died part-way (its info file and markers are left)."""
    deaths: int = 0
    """Runs that may still die part-way (the configuration's ``syncup_failures``)."""


NO_SYNCUP = SyncUp(False, (), ())


class RemoteWals(NamedTuple):
    """One sync peer's remote side on cluster 0, its STANDBY (``model/features/sync_remote.py``):
    the ``.syncrep`` WALs its ACTIVE cluster wrote into ``remoteWALs/<peerId>``, and the
    RecoverStandbyProcedure that replays them."""

    acked: int
    """Edits the ACTIVE acknowledged (each in its own remote WAL: edit ``k`` in WAL ``k``)."""
    files: tuple[int, ...]
    """Per remote WAL, where its file is (``sync_remote.FILE_NAMES``)."""
    applied: int
    """Edits of the ACTIVE applied at cluster 0, replicated or replayed (bit mask)."""
    replay_dir: bool
    """``remoteWALs/<peerId>-replay`` exists."""
    snapshot_dir: bool
    """``remoteWALs/<peerId>-snapshot`` exists."""
    recover: int
    """RecoverStandbyProcedure's step while the transition is at REPLAY_REMOTE_WAL_IN_PEER."""
    children: int
    """Remote WALs whose SyncReplicationReplayWALProcedure is still to run (bit mask)."""
    downgraded: bool = False
    """The peer's cluster went ACTIVE -> DOWNGRADE_ACTIVE: it writes no remote WAL any more."""


class TBudget(NamedTuple):
    crashes: int
    outages: int
    admin: int
    puts: int
    cleaner_runs: int
    master_restarts: int
    foreign: int
    restarts: int
    storage_faults: int = 0


class TState(NamedTuple):
    servers: tuple[TServer, ...]
    wals: tuple[Wal | tuple[()], ...]
    rows: tuple[Row, ...]
    sid: tuple[int, ...]
    peers: tuple[int, ...]
    """Peer storage status per peer (ABSENT, ENABLED, DISABLED, REMOVED as in ``state``)."""
    sync: tuple[tuple[int, int], ...]
    """Peer storage: (sync state, new state) per peer; (NONE, NONE) for asynchronous peers."""
    remote_dir: int
    """Peers whose remote WAL directory exists (bit mask)."""
    scps: tuple[Scp, ...]
    pprocs: tuple[PeerProc | tuple[()], ...]
    removed_done: int
    """Peers whose RemovePeerProcedure has finished (bit mask; history for the invariants)."""
    barrier: tuple[int, int]
    cleaner: TCleaner
    migration: Migration | tuple[()]
    zk: tuple[tuple[int, Queue], ...]
    """ZooKeeper queues still to migrate: (owner, queue)."""
    master_up: bool
    syncup: SyncUp
    markers: int
    """ReplicationSyncUp marker files, one per server (bit mask)."""
    info: bool
    """The ReplicationSyncUp info file."""
    table_online: bool
    """The region of ``hbase:replication`` is open (the bootstrap of seed 004's 'deadlock')."""
    stale: tuple[tuple[int, tuple[int, ...]], ...]
    """History: per peer, edits written before it went to STANDBY that were not replicated then
    (they must never be)."""
    sinks: tuple[Sink, ...]
    relays: tuple[Relay | tuple[()], ...]
    budget: TBudget
    serial: tuple = ()
    """With serial peers (``model/features/serial.py``): the region, its ranges, the ``sid``
    family's last pushed sequence ids and the serial peers' order history (a ``SerialRegion``);
    ``()`` otherwise."""
    hfile: tuple = ()
    """With bulk loads (``model/features/hfile_refs.py``): the bulk-loaded hfile's stage, its server
    and its marker's WAL entry (a ``BulkLoad``); ``()`` otherwise. Its references are ``sid``'s
    ``HFILE_REF`` bits."""
    others: int = 0
    """Files in oldWALs that are no server's replicated WAL (bit mask): bit ``s`` is server
    ``s``'s archived meta WAL, bit ``len(servers)`` a file whose name is not a WAL's."""
    queued: tuple[int, ...] = ()
    """Per peer, the kind of the procedure waiting for the peer's lock, plus one (0: none); ``()``
    where no configuration queues procedures (the ``peer_life`` feature)."""
    refreshed: int = 0
    """Peers whose sources ``refreshSources`` created again on some server (bit mask; history:
    a new source ships again what its predecessor shipped and had not persisted)."""
    remote: tuple[RemoteWals, ...] = ()
    """Per sync peer, its remote side (configurations with ``remote_wals``)."""
    legacy: LegacyReplicaPeer | tuple[()] = ()
    """With ``legacy_peer``: the 2.x ``region_replica_replication`` peer, its queue znodes and
    the aborts their removal caused; ``()`` otherwise."""
    zk_hfile: int = 0
    """With ``zk_hfile_refs``: the peers whose ZooKeeper hfile-refs znode
    (``/hbase/replication/hfile-refs/<peer>``) still holds the bulk-loaded hfile's reference (bit
    mask; MIGRATE's hfile-refs task deletes each)."""
    serial_from: tuple[int, ...] = ()
    """History, per serial peer added while the cluster runs (``model/features/serial_life.py``):
    the barrier of the range its AddPeerProcedure opened, from which its edits are pushed in order
    (0 for a peer that existed from the start); ``()`` where no serial peer is added."""


def row_key(row: Row) -> tuple[int, int, int]:
    """Row-key order of ``<peerId>-<owner>[/<source>]``: by peer, owner, then source."""
    return (row.peer, row.owner, row.source)
