"""The variable families the table era's features add to its layout (``model/engine/names.py``;
the base's are in ``model/table/families.py``), each declared once with its readable name, its
index dimensions and what its values are. Each feature's layout (its ``sorts``) packs them."""

from __future__ import annotations

from replcheck.model.common.families import (
    POSITION_OR_FULL,
    SERVER_OR_NONE,
    WAL_SEQ_OR_BEGIN,
)
from replcheck.model.engine.names import BOOL, Sort, family
from replcheck.model.table.families import COLUMN, ROW

TABLE = "table"
SYNC_STATE = Sort(
    "sync replication state (NONE, ACTIVE, DOWNGRADE_ACTIVE, STANDBY)", lambda L: ("i", 0, 3)
)
NUMBER = Sort("a number the feature bounds")

# --- servers joining, the bootstrap of hbase:replication ------------------------------------------

SERVER_STARTED = family(
    "server_started",
    "started",
    ("server",),
    BOOL,
    "the region server has joined the cluster",
    era=TABLE,
)
REPLICATION_TABLE_ONLINE = family(
    "replication_table_online",
    "online",
    (),
    BOOL,
    "the region of hbase:replication is open",
    era=TABLE,
)

# --- ReplicationSyncUp  ---------------------------------------------------------------------------

MASTER_UP = family("master_up", "mup", (), BOOL, "the master runs (the cluster is up)", era=TABLE)
SYNCUP_INFO_FILE = family(
    "syncup_info_file", "info", (), BOOL, "ReplicationSyncUp's info file exists", era=TABLE
)
SYNCUP_RUNNING = family("syncup_running", "surun", (), BOOL, "the tool is running", era=TABLE)
SYNCUP_FAILED = family("syncup_failed", "sufail", (), BOOL, "its last run died part-way", era=TABLE)
SYNCUP_DEATHS_LEFT = family(
    "syncup_deaths_left", "sudie", (), NUMBER, "runs that may still die part-way", era=TABLE
)
SYNCUP_MARKER = family(
    "syncup_marker",
    "mk",
    ("server",),
    BOOL,
    "the tool's marker file for the dead server",
    era=TABLE,
)
SYNCUP_ROW = family(
    "syncup_row", "svex", ROW, BOOL, "the tool's in-memory view holds the queue row", era=TABLE
)
SYNCUP_HAS_OFFSET = family(
    "syncup_has_offset", "svhas", COLUMN, BOOL, "the view's row has the column", era=TABLE
)
SYNCUP_OFFSET_WAL = family(
    "syncup_offset_wal", "svseq", COLUMN, WAL_SEQ_OR_BEGIN, "its offset's WAL", era=TABLE
)
SYNCUP_OFFSET_POS = family(
    "syncup_offset_pos", "svpos", COLUMN, POSITION_OR_FULL, "its offset's position", era=TABLE
)
SYNCUP_VIEW = (SYNCUP_ROW, SYNCUP_HAS_OFFSET, SYNCUP_OFFSET_WAL, SYNCUP_OFFSET_POS)
"""ReplicationSyncUp's in-memory view of a row."""
SYNCUP_WORK = family(
    "syncup_work",
    "suw",
    ("peer", "wal", "pos"),
    BOOL,
    "the tool has the WAL still to replicate to the peer from the position",
    era=TABLE,
)

# --- the migration from ZooKeeper  ----------------------------------------------------------------

SERVER_UPGRADED = family(
    "server_upgraded", "v3", ("server",), BOOL, "the server runs major version 3", era=TABLE
)
MIGRATION_MIGRATED = family(
    "migration_migrated",
    "migmig",
    ("server",),
    BOOL,
    "the server's ZooKeeper queues were written to the table",
    era=TABLE,
)
MIGRATION_DISABLED_PEER = family(
    "migration_disabled_peer",
    "migdis",
    ("peer",),
    BOOL,
    "the migration disabled the peer and must enable it again",
    era=TABLE,
)
MIGRATION_STAGE = family(
    "migration_stage",
    "mig",
    (),
    NUMBER,
    "MigrateReplicationQueueFromZkToTableProcedure's state",
    era=TABLE,
)
ZK_QUEUE = family(
    "zk_queue",
    "zk",
    ("owner", "peer", "source"),
    BOOL,
    "the ZooKeeper queue znode not migrated yet",
    era=TABLE,
)
ZK_QUEUE_WAL = family(
    "zk_queue_wal",
    "zkw",
    ("owner", "peer", "source", "group", "seq"),
    BOOL,
    "the ZooKeeper queue's WAL znode",
    era=TABLE,
)
LEGACY_PEER_STORED = family(
    "legacy_peer_stored",
    "lpeer",
    (),
    BOOL,
    "the legacy region_replica_replication peer is stored",
    era=TABLE,
)
LEGACY_QUEUE_ZNODE = family(
    "legacy_queue_znode",
    "lzk",
    ("server",),
    BOOL,
    "the server's legacy queue znode exists",
    era=TABLE,
)
LEGACY_ABORTED = family(
    "legacy_aborted",
    "labort",
    ("server",),
    BOOL,
    "history: the server aborted because its own legacy queue znode was removed",
    era=TABLE,
)
ZK_HFILE_REFS = family(
    "zk_hfile_refs",
    "zkhf",
    ("peer",),
    BOOL,
    "the peer's ZooKeeper hfile-refs znode still holds the reference",
    era=TABLE,
)

# --- bulk loads and the log cleaner's other input ------------------------------------------------

HFILE_STAGE = family(
    "hfile_stage",
    "hf",
    (),
    NUMBER,
    "the bulk-loaded hfile's stage (HF_NONE .. HF_DELETED)",
    era=TABLE,
)
HFILE_SERVER = family(
    "hfile_server", "hfs", (), SERVER_OR_NONE, "the server that bulk-loads it", era=TABLE
)
HFILE_REF = family(
    "hfile_ref", "hfref", ("peer",), BOOL, "the peer's ``hfileref`` cell for the hfile", era=TABLE
)
ENTRY_BULK_MARKER = family(
    "entry_bulk_marker",
    "wbulk",
    ("wal", "entry"),
    BOOL,
    "the entry is the bulk load's marker",
    era=TABLE,
)
OLDWALS_META = family(
    "oldwals_meta",
    "ometa",
    ("server",),
    BOOL,
    "the server's archived meta WAL is in oldWALs",
    era=TABLE,
)
OLDWALS_JUNK = family(
    "oldwals_junk", "ojunk", (), BOOL, "a file whose name is no WAL's is in oldWALs", era=TABLE
)

# --- the peer's lifecycle  ------------------------------------------------------------------------

PEER_PROC_QUEUED = family(
    "peer_proc_queued",
    "ppq",
    ("peer",),
    NUMBER,
    "the kind of the procedure waiting for the peer's lock, plus one (0: none)",
    era=TABLE,
)
SOURCES_REFRESHED = family(
    "sources_refreshed",
    "pprf",
    ("peer",),
    BOOL,
    "history: ``refreshSources`` created the peer's sources again on some server",
    era=TABLE,
)

# --- sync replication  ----------------------------------------------------------------------------

TRANSIT_WAS_ENABLED = family(
    "transit_was_enabled",
    "ppwe",
    ("peer",),
    BOOL,
    "the transition found the peer enabled",
    era=TABLE,
)
TRANSIT_TARGET = family(
    "transit_target", "ppt", ("peer",), SYNC_STATE, "the state the transition moves to", era=TABLE
)
SYNC_STATE_ = family(
    "sync_state", "sync", ("peer",), SYNC_STATE, "the peer's sync state", era=TABLE
)
SYNC_NEW_STATE = family(
    "sync_new_state", "syncn", ("peer",), SYNC_STATE, "the peer's new sync state", era=TABLE
)
REMOTE_WAL_DIR = family(
    "remote_wal_dir", "rdir", ("peer",), BOOL, "the peer's remote WAL directory exists", era=TABLE
)
VIEW_STATE = family(
    "view_state",
    "vs",
    ("server", "peer"),
    SYNC_STATE,
    "the sync state as the server last refreshed it",
    era=TABLE,
)
VIEW_NEW_STATE = family(
    "view_new_state", "vn", ("server", "peer"), SYNC_STATE, "the new state as it saw it", era=TABLE
)
DRAINED = family(
    "drained",
    "drained",
    ("server", "peer"),
    BOOL,
    "the server drained the peer's sources for STANDBY",
    era=TABLE,
)
STANDBY_STALE = family(
    "standby_stale",
    "stale",
    ("peer", "edit"),
    BOOL,
    "history: the edit was written before the peer went STANDBY and not replicated then",
    era=TABLE,
)
REMOTE_ACKED = family(
    "remote_acked", "rwn", ("peer",), NUMBER, "edits the peer's ACTIVE acknowledged", era=TABLE
)
REMOTE_REPLAY_DIR = family(
    "remote_replay_dir",
    "rwrep",
    ("peer",),
    BOOL,
    "``remoteWALs/<peer>-replay`` exists",
    era=TABLE,
)
REMOTE_SNAPSHOT_DIR = family(
    "remote_snapshot_dir",
    "rwsnap",
    ("peer",),
    BOOL,
    "``remoteWALs/<peer>-snapshot`` exists",
    era=TABLE,
)
RECOVER_STEP = family(
    "recover_step", "rwst", ("peer",), NUMBER, "RecoverStandbyProcedure's step", era=TABLE
)
REMOTE_DOWNGRADED = family(
    "remote_downgraded",
    "rwda",
    ("peer",),
    BOOL,
    "the peer's cluster went ACTIVE -> DOWNGRADE_ACTIVE",
    era=TABLE,
)
REMOTE_WAL_FILE = family(
    "remote_wal_file",
    "rwf",
    ("peer", "remote_wal"),
    NUMBER,
    "where the remote WAL's file is",
    era=TABLE,
)
REMOTE_APPLIED = family(
    "remote_applied",
    "rwa",
    ("peer", "remote_wal"),
    BOOL,
    "the ACTIVE's edit was applied here, replicated or replayed",
    era=TABLE,
)
REPLAY_CHILD = family(
    "replay_child",
    "rwch",
    ("peer", "remote_wal"),
    BOOL,
    "the remote WAL's SyncReplicationReplayWALProcedure is still to run",
    era=TABLE,
)

# --- serial replication  --------------------------------------------------------------------------

REGION_RANGE = family(
    "region_range",
    "rgi",
    (),
    NUMBER,
    "the region's current range (ranges opened, less one)",
    era=TABLE,
)
REGION_NEXT_SEQ = family(
    "region_next_seq", "rgn", (), NUMBER, "the region's next sequence id", era=TABLE
)
RANGE_HOST = family(
    "range_host",
    "rgh",
    ("range",),
    SERVER_OR_NONE,
    "the server the range was opened on",
    era=TABLE,
)
RANGE_BARRIER = family(
    "range_barrier",
    "rgb",
    ("range",),
    NUMBER,
    "the range's open sequence number (rep_barrier)",
    era=TABLE,
)
ENTRY_SEQ_ID = family(
    "entry_seq_id",
    "wsq",
    ("wal", "entry"),
    NUMBER,
    "the entry's sequence id (-1: none)",
    era=TABLE,
)
LAST_PUSHED_SEQ_ID = family(
    "last_pushed_seq_id",
    "lsid",
    ("peer",),
    NUMBER,
    "the ``sid`` family: the last pushed sequence id (-1 while absent)",
    era=TABLE,
)
PEER_TOP_RANGE = family(
    "peer_top_range",
    "stop",
    ("peer",),
    NUMBER,
    "history: the latest range an edit applied at the peer came from (-1: none)",
    era=TABLE,
)
PEER_WENT_BACK = family(
    "peer_went_back",
    "sback",
    ("peer",),
    BOOL,
    "history: an edit of an earlier range was applied at the peer after a later one",
    era=TABLE,
)
SERIAL_ORDER_FROM = family(
    "serial_order_from",
    "sfrom",
    ("peer",),
    NUMBER,
    "history: the barrier from which the serial peer added later is promised order",
    era=TABLE,
)
