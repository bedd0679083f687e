"""The table era's variable families (``model/engine/names.py``), each declared once with its
readable name, its index dimensions and what its values are; the layout
(``model/table/layout.py``) packs each under its short key, and the protocol text reads it by
name: ``t.claim_target[d, p, src]``. The families both eras share are in
``model/common/families.py``, the features' in ``model/features/families.py``.

Indexes: ``server``, ``dead`` (a crashed server), ``claimer`` (the server a claim runs on),
``peer``, ``owner`` and ``source`` (a queue row's key ``peerId-owner[/source]``, ``source`` -1
for the owner's normal queue), ``group`` (a WAL group, or -1: ADD_MISSING_QUEUES' placeholder
column), ``slot`` (a server's pending claim: 0, or 1 for one a master restart re-sent),
``copy`` (a shipper slot), ``seq`` (a WAL's sequence in its group), ``wal`` (a WAL slot).
"""

from __future__ import annotations

from replcheck.model.common.families import (
    PEER,
    POSITION_OR_FULL,
    SERVER,
    SOURCE,
    WAL_SEQ_OR_BEGIN,
)
from replcheck.model.engine.names import BOOL, Sort, family

TABLE = "table"
ROW = ("peer", "owner", "source")
COLUMN = (*ROW, "group")

SCP_STAGE = Sort("SCP stage (SCP_SPLIT .. SCP_DONE)", lambda L: ("i", 0, 7))
PROC_KIND = Sort("peer procedure kind (ADD, REMOVE; features add theirs)")
PROC_STAGE = Sort("the peer procedure's stage (features add stages)")
PASS = Sort("removeAllQueues' pass", lambda L: ("i", 0, max(L.passes - 1, 0)))
BARRIER = Sort("barrier state (NOT_RUNNING, RUNNING, DISABLED)", lambda L: ("i", 0, 2))
HOLDERS = Sort("AddPeerProcedures holding the barrier", lambda L: ("i", 0, L.cfg.peers + 1))
PHASE = Sort("cleaner run phase (C_IDLE, C_SERVERS, C_READY)", lambda L: ("i", 0, 2))

# --- a region server's pending claims (ClaimReplicationQueueRemoteProcedure on its target) -----

CLAIM_PENDING = family(
    "claim_pending",
    "cl",
    ("claimer", "slot"),
    BOOL,
    "the claimer has read a claim it has not committed",
    era=TABLE,
)
CLAIM_PEER = family(
    "claim_peer", "clp", ("claimer", "slot"), PEER, "the claimed queue's peer", era=TABLE
)
CLAIM_SOURCE = family(
    "claim_source", "cls", ("claimer", "slot"), SOURCE, "the claimed queue's source", era=TABLE
)
CLAIM_DEAD = family(
    "claim_dead",
    "cld",
    ("claimer", "slot"),
    SERVER,
    "the dead server whose queue is claimed",
    era=TABLE,
)
CLAIM_READ_HAS = family(
    "claim_read_has",
    "clhas",
    ("claimer", "slot", "group"),
    BOOL,
    "``getOffsets`` read an offset for the WAL group",
    era=TABLE,
)
CLAIM_READ_WAL = family(
    "claim_read_wal",
    "clseq",
    ("claimer", "slot", "group"),
    WAL_SEQ_OR_BEGIN,
    "the offset's WAL, as read",
    era=TABLE,
)
CLAIM_READ_POS = family(
    "claim_read_pos",
    "clpos",
    ("claimer", "slot", "group"),
    POSITION_OR_FULL,
    "the offset's position, as read",
    era=TABLE,
)

# --- the ServerCrashProcedure and its AssignReplicationQueuesProcedure ---------------------------

SCP_STAGE_ = family("scp_stage", "stage", ("dead",), SCP_STAGE, "the dead server's SCP", era=TABLE)
SCP_MISSING_PEER = family(
    "scp_missing_peer",
    "scpp",
    ("dead", "peer"),
    BOOL,
    "ADD_MISSING_QUEUES read that the peer needs a BEGIN queue for the dead server",
    era=TABLE,
)
CLAIM_CHILD = family(
    "claim_child",
    "ch",
    ("dead", "peer", "source"),
    BOOL,
    "the CLAIM round sent queue ``peer-dead[/source]`` to a live server (a child procedure)",
    era=TABLE,
)
CLAIM_TARGET = family(
    "claim_target",
    "cht",
    ("dead", "peer", "source"),
    SERVER,
    "the server the claim child was sent to",
    era=TABLE,
)

# --- shippers ------------------------------------------------------------------------------------

SHIPPER_HAS_WAL = family(
    "shipper_has_wal",
    "shw",
    ("server", "peer", "queue", "group", "copy", "seq"),
    BOOL,
    "the WAL of that sequence is in the shipper's in-memory WAL list",
    era=TABLE,
)

# --- hbase:replication's queue family, and the log cleaner's snapshot of it --------------------

QUEUE_ROW = family(
    "queue_row",
    "rex",
    ROW,
    BOOL,
    "the replication queue row ``peer-owner[/source]`` exists",
    era=TABLE,
)
QUEUE_HAS_OFFSET = family(
    "queue_has_offset",
    "rhas",
    COLUMN,
    BOOL,
    "the row has an offset column for the WAL group",
    era=TABLE,
)
QUEUE_OFFSET_WAL = family(
    "queue_offset_wal", "rseq", COLUMN, WAL_SEQ_OR_BEGIN, "the offset's WAL", era=TABLE
)
QUEUE_OFFSET_POS = family(
    "queue_offset_pos", "rpos", COLUMN, POSITION_OR_FULL, "the offset's position in it", era=TABLE
)
SNAPSHOT_ROW = family(
    "snapshot_row", "crex", ROW, BOOL, "the log cleaner's snapshot holds the queue row", era=TABLE
)
SNAPSHOT_HAS_OFFSET = family(
    "snapshot_has_offset", "crhas", COLUMN, BOOL, "the snapshot's row has the column", era=TABLE
)
SNAPSHOT_OFFSET_WAL = family(
    "snapshot_offset_wal", "crseq", COLUMN, WAL_SEQ_OR_BEGIN, "its offset's WAL", era=TABLE
)
SNAPSHOT_OFFSET_POS = family(
    "snapshot_offset_pos", "crpos", COLUMN, POSITION_OR_FULL, "its offset's position", era=TABLE
)

QUEUE = (QUEUE_ROW, QUEUE_HAS_OFFSET, QUEUE_OFFSET_WAL, QUEUE_OFFSET_POS)
"""The queue family's row and its offset columns, as one row's four families."""
SNAPSHOT = (SNAPSHOT_ROW, SNAPSHOT_HAS_OFFSET, SNAPSHOT_OFFSET_WAL, SNAPSHOT_OFFSET_POS)
"""The log cleaner's snapshot of a row."""

# --- peers and their procedures ------------------------------------------------------------------

LAST_PUSHED_ROW = family(
    "last_pushed_row",
    "sid",
    ("peer",),
    BOOL,
    "the peer has cells in the ``sid`` family (last pushed sequence ids)",
    era=TABLE,
)
PEER_REMOVED = family(
    "peer_removed",
    "rdone",
    ("peer",),
    BOOL,
    "history: a RemovePeerProcedure of the peer has finished",
    era=TABLE,
)
PEER_PROC = family(
    "peer_proc", "pp", ("peer",), BOOL, "a procedure of the peer is persisted", era=TABLE
)
PEER_PROC_KIND = family("peer_proc_kind", "ppk", ("peer",), PROC_KIND, "which one", era=TABLE)
PEER_PROC_STAGE = family("peer_proc_stage", "pps", ("peer",), PROC_STAGE, "its stage", era=TABLE)
PEER_PROC_REFRESH = family(
    "peer_proc_refresh",
    "ppref",
    ("peer", "server"),
    BOOL,
    "the server's RefreshPeerProcedure child is still to run",
    era=TABLE,
)
PEER_PROC_RECORDED = family(
    "peer_proc_recorded",
    "pprec",
    ("peer", "server"),
    BOOL,
    "RemovePeerProcedure recorded the crashed server (its claims to wait for)",
    era=TABLE,
)
PEER_PROC_CURSOR = family(
    "peer_proc_cursor", "ppc", ("peer",), BOOL, "removeAllQueues has begun its passes", era=TABLE
)
PEER_PROC_PASS = family(
    "peer_proc_pass", "ppn", ("peer",), PASS, "removeAllQueues' pass", era=TABLE
)
PEER_PROC_ROW_LEFT = family(
    "peer_proc_row_left",
    "ppkey",
    ("peer", "owner", "source"),
    BOOL,
    "removeAllQueues' pass has the row still to delete",
    era=TABLE,
)

# --- the log cleaner and its barrier -------------------------------------------------------------

CLEANER_BARRIER = family(
    "cleaner_barrier", "bar", (), BARRIER, "ReplicationLogCleanerBarrier's state", era=TABLE
)
CLEANER_BARRIER_HOLDERS = family(
    "cleaner_barrier_holders",
    "barn",
    (),
    HOLDERS,
    "AddPeerProcedures that disabled the barrier",
    era=TABLE,
)
CLEANER_PHASE = family("cleaner_phase", "cph", (), PHASE, "where the cleaner's run is", era=TABLE)
CLEANER_LIVE = family(
    "cleaner_live",
    "clive",
    ("server",),
    BOOL,
    "the run counted the server live (online, or its SCP unfinished)",
    era=TABLE,
)
CLEANER_PEER = family(
    "cleaner_peer", "cpeers", ("peer",), BOOL, "the run read the peer in storage", era=TABLE
)
