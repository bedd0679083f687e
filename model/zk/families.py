"""The ZooKeeper era's variable families (``model/engine/names.py``), each declared once with its
readable name, its index dimensions and what its values are; the layout
(``model/zk/layout.py``) packs each under its short key. The families both eras share are in
``model/common/families.py``.

Indexes: ``server``, ``peer``, ``chain`` (a queue's chain of dead servers, an index of the
layout's ``chains``), ``group``, ``copy`` (a shipper slot), ``wal`` (a WAL slot), ``place`` (a
place in a shipper's in-memory WAL list), ``sink`` (one of the peer's sink servers).
"""

from __future__ import annotations

from replcheck.model.common.families import PEER, POSITION, SERVER, SERVER_OR_NONE
from replcheck.model.engine.names import BOOL, Sort, family

ZK = "zk"
QUEUE = ("server", "peer", "chain")

CHAIN = Sort(
    "chain of dead servers (an index of the layout's chains)", lambda L: ("i", 0, len(L.chains) - 1)
)
WAL_OR_NONE = Sort("WAL slot, or none (-1)", lambda L: ("i", -1, L.cfg.wal_slots - 1))
LIST_LENGTH = Sort("WALs in the list", lambda L: ("i", 0, L.LW))
PHASE = Sort("the cleaner's snapshot phase", lambda L: ("i", 0, 2))

# --- a region server  -----------------------------------------------------------------------------

REMOVAL_HANDLED = family(
    "removal_handled",
    "gone",
    ("server", "peer"),
    BOOL,
    "the server has handled the peer's removal (the event comes once)",
    era=ZK,
)
SINK_CHOSEN = family(
    "sink_chosen",
    "snk",
    ("server", "peer", "sink"),
    BOOL,
    "the sink server is in the server's chosen subset of the peer's sinks",
    era=ZK,
)
WAL_UNREGISTERED = family(
    "wal_unregistered",
    "unreg",
    ("server", "wal"),
    BOOL,
    "the WAL is in use but in no queue yet (only a mutant has one)",
    era=ZK,
)
SHIPPER_LENGTH = family(
    "shipper_length",
    "shn",
    ("server", "peer", "chain", "group", "copy"),
    LIST_LENGTH,
    "WALs in the shipper's in-memory list",
    era=ZK,
)
SHIPPER_WAL = family(
    "shipper_wal",
    "shw",
    ("server", "peer", "chain", "group", "copy", "place"),
    WAL_OR_NONE,
    "the WAL at that place of the shipper's list (head first)",
    era=ZK,
)
DROP_CLAIMED = family(
    "drop_claimed",
    "drop",
    QUEUE,
    BOOL,
    "the server found the claimed queue's peer gone and still has to delete the queue",
    era=ZK,
)
CONFIG_UPDATE_PENDING = family(
    "config_update_pending",
    "upd",
    ("server", "peer"),
    BOOL,
    "the peer's config znode changed and the server has not reacted yet",
    era=ZK,
)

# --- a claim read but not committed (zk-multi reads positions outside the multi)  -----------------

CLAIMING = family("claiming", "cl", ("server",), BOOL, "the server has read a claim", era=ZK)
CLAIMING_DEAD = family(
    "claiming_dead", "cld", ("server",), SERVER, "the dead server whose queue it claims", era=ZK
)
CLAIMING_PEER = family(
    "claiming_peer", "clp", ("server",), PEER, "the claimed queue's peer", era=ZK
)
CLAIMING_CHAIN = family(
    "claiming_chain", "clc", ("server",), CHAIN, "the claimed queue's chain", era=ZK
)
CLAIMING_HAS_WAL = family(
    "claiming_has_wal",
    "clin",
    ("server", "wal"),
    BOOL,
    "the claim read the WAL in the queue",
    era=ZK,
)
CLAIMING_WAL_POS = family(
    "claiming_wal_pos", "clpos", ("server", "wal"), POSITION, "and its position", era=ZK
)

# --- /hbase/replication/rs: the rs znodes and their queues  ---------------------------------------

RS_ZNODE = family(
    "rs_znode", "rex", ("server",), BOOL, "``/hbase/replication/rs/<server>`` exists", era=ZK
)
RS_LOCK = family(
    "rs_lock",
    "lock",
    ("server",),
    SERVER_OR_NONE,
    "the holder of its ``lock`` child (-1: none)",
    era=ZK,
)
QUEUE_ZNODE = family(
    "queue_znode", "qex", QUEUE, BOOL, "the server's queue znode of the peer and chain", era=ZK
)
QUEUE_HAS_WAL = family(
    "queue_has_wal", "qin", (*QUEUE, "wal"), BOOL, "the queue znode has the WAL's child", era=ZK
)
QUEUE_WAL_POS = family(
    "queue_wal_pos",
    "qpos",
    (*QUEUE, "wal"),
    POSITION,
    "the position the WAL's znode holds",
    era=ZK,
)
FAILOVER_PENDING = family(
    "failover_pending",
    "fail",
    ("server",),
    BOOL,
    "the dead server's failover is pending (zk-multi: its SCP is unfinished)",
    era=ZK,
)
REPLICATION_ON = family(
    "replication_on", "repl", (), BOOL, "the ``/hbase/replication/state`` znode", era=ZK
)
PEER_REFRESHED = family(
    "peer_refreshed",
    "pfresh",
    ("peer",),
    BOOL,
    "history: the peer's sources were created again, or it was added again after its removal",
    era=ZK,
)

# --- the log cleaner  -----------------------------------------------------------------------------

CLEANER_SNAPSHOT_PHASE = family(
    "cleaner_snapshot_phase", "phase", (), PHASE, "where zk-multi's cleaner snapshot is", era=ZK
)
CLEANER_CANDIDATE = family(
    "cleaner_candidate",
    "cand",
    ("wal",),
    BOOL,
    "the snapshot listed the WAL as a candidate",
    era=ZK,
)
CLEANER_READ_RS = family(
    "cleaner_read_rs",
    "read",
    ("server",),
    BOOL,
    "the snapshot has read the server's rs znode",
    era=ZK,
)
CLEANER_LISTED = family(
    "cleaner_listed",
    "lst",
    QUEUE,
    BOOL,
    "the snapshot listed the queue of the rs znode it reads and has not read it yet",
    era=ZK,
)
CLEANER_SEEN = family(
    "cleaner_seen", "seen", ("wal",), BOOL, "the snapshot found the WAL in a queue", era=ZK
)
CLEANER_RS_CHANGED = family(
    "cleaner_rs_changed",
    "changed",
    (),
    BOOL,
    "the cversion of ``/rs`` moved since the listing began",
    era=ZK,
)
CLEANER_CACHE = family(
    "cleaner_cache", "cache", ("wal",), BOOL, "zk-lock's cleaner cache holds the WAL", era=ZK
)
