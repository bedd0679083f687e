"""The variable families both eras' layouts share (``model/engine/names.py``): a region
server's liveness, current WALs and peers, the WAL files and their entries, peer storage, the
sink clusters, the relay clusters, the budgets. Each era adds its own (``model/table/families.py``,
``model/zk/families.py``, ``model/features/families.py``)."""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.names import BOOL, Sort, family


def _i(lo: int, hi: Any) -> Any:
    """The range ``lo .. hi(layout)``."""
    return lambda layout: ("i", lo, hi(layout))


# --- the vocabulary of sorts ----------------------------------------------------------------------

SERVER = Sort("server", _i(0, lambda L: L.cfg.servers - 1))
SERVER_OR_NONE = Sort("server or none (-1)", _i(-1, lambda L: L.cfg.servers - 1))
SOURCE = Sort("source server, or none (-1) for a normal queue", _i(-1, lambda L: L.cfg.servers - 1))
PEER = Sort("peer", _i(0, lambda L: L.cfg.peers - 1))
WAL_SEQ = Sort("WAL sequence", _i(0, lambda L: L.cfg.wals_per_server - 1))
WAL_SEQ_OR_BEGIN = Sort(
    "WAL sequence, or BEGIN (-1): no WAL yet", _i(-1, lambda L: L.cfg.wals_per_server - 1)
)
POSITION = Sort("position in a WAL (entries read)", _i(0, lambda L: L.E))
POSITION_OR_FULL = Sort("position, or FULL (-1): fully replicated", _i(-1, lambda L: L.E))
LENGTH = Sort("number of entries", _i(0, lambda L: L.E))
KIND = Sort("edit kind (GLOBAL, LOCAL, CATALOG), or none (-1)", lambda L: ("i", -1, 2))
PLACE = Sort("where the file lies (WALs/, oldWALs/, deleted)", lambda L: ("i", 0, 2))
PEER_STATE = Sort("peer status (ABSENT, ENABLED, DISABLED, REMOVED)", lambda L: ("i", 0, 3))
EDIT = Sort(
    "edit (an index of the layout's edits), or none (-1)", _i(-1, lambda L: len(L.uids) - 1)
)
CLUSTER_IDS = Sort(
    "cluster-id list (an index of the layout's lists), or none (-1)",
    _i(-1, lambda L: len(L.ids) - 1),
)
COUNT = Sort("count left")
"""A budget's count: from the configuration's bound down to 0."""
RELAY_POS = Sort("place in the relay's log", _i(0, lambda L: L.L))

BOTH = "both"

# --- region servers ------------------------------------------------------------------------------

SERVER_ALIVE = family(
    "server_alive", "alive", ("server",), BOOL, "the region server is online", era=BOTH
)
CURRENT_WAL = family(
    "current_wal",
    "cur",
    ("server", "group"),
    WAL_SEQ,
    "the WAL the server writes now in WAL group ``group``",
    era=BOTH,
)
KNOWS_PEER = family(
    "knows_peer",
    "known",
    ("server", "peer"),
    BOOL,
    "the server has a normal source for the peer (its view of peer storage)",
    era=BOTH,
)
SHIPPER = family(
    "shipper",
    "sh",
    ("server", "peer", "queue", "group", "copy"),
    BOOL,
    "a source's shipper runs on the server for the queue (the table era: the recovered "
    "queue's source server, or -1 for the normal queue; ZooKeeper: the chain of dead "
    "servers) and WAL group",
    era=BOTH,
)
SHIPPER_POS = family(
    "shipper_pos",
    "shpos",
    ("server", "peer", "queue", "group", "copy"),
    POSITION,
    "how far the shipper has read and shipped its head WAL",
    era=BOTH,
)

# --- WAL files and their entries ----------------------------------------------------------------

WAL_EXISTS = family("wal_exists", "wex", ("wal",), BOOL, "the WAL file was created", era=BOTH)
WAL_LENGTH = family("wal_length", "wn", ("wal",), LENGTH, "entries written to the WAL", era=BOTH)
WAL_CLOSED = family(
    "wal_closed", "wclosed", ("wal",), BOOL, "the WAL was rolled (closed)", era=BOTH
)
WAL_PLACE = family("wal_place", "wplace", ("wal",), PLACE, "where the WAL file lies", era=BOTH)
ENTRY_KIND = family(
    "entry_kind", "wkind", ("wal", "entry"), KIND, "the entry's edit kind", era=BOTH
)
ENTRY_OWED = family(
    "entry_owed",
    "wowed",
    ("wal", "entry", "peer"),
    BOOL,
    "the entry is owed to the peer (its source existed when it was written)",
    era=BOTH,
)
ENTRY_EDIT = family("entry_edit", "wu", ("wal", "entry"), EDIT, "the entry's edit", era=BOTH)
ENTRY_CLUSTER_IDS = family(
    "entry_cluster_ids",
    "wids",
    ("wal", "entry"),
    CLUSTER_IDS,
    "the clusters the entry's edit has been through",
    era=BOTH,
)

# --- peers, sinks, relays, budgets -------------------------------------------------------------

PEER_STATE_ = family(
    "peer_state", "peer", ("peer",), PEER_STATE, "the peer in peer storage", era=BOTH
)
SINK_APPLIED = family(
    "sink_applied",
    "app",
    ("cluster", "edit"),
    BOOL,
    "the cluster's sinks applied the edit",
    era=BOTH,
)
SINK_DUPLICATE = family(
    "sink_duplicate",
    "dup",
    ("cluster", "edit"),
    BOOL,
    "the cluster's sinks applied the edit more than once",
    era=BOTH,
)
SINK_DOWN = family(
    "sink_down", "down", ("cluster", "sink"), BOOL, "the sink region server is down", era=BOTH
)
RELAY_LENGTH = family(
    "relay_length", "rlen", ("cluster",), RELAY_POS, "edits in the relay cluster's log", era=BOTH
)
RELAY_SHIPPED = family(
    "relay_shipped",
    "rship",
    ("cluster", "edge"),
    RELAY_POS,
    "how far the relay cluster has shipped along its outbound edge",
    era=BOTH,
)
RELAY_EDIT = family(
    "relay_edit", "ru", ("cluster", "place"), EDIT, "the relay log's edit", era=BOTH
)
RELAY_KIND = family("relay_kind", "rkind", ("cluster", "place"), KIND, "its edit kind", era=BOTH)
RELAY_CLUSTER_IDS = family(
    "relay_cluster_ids", "rids", ("cluster", "place"), CLUSTER_IDS, "its cluster-id list", era=BOTH
)
BUDGET = family(
    "budget",
    "b",
    ("name",),
    COUNT,
    "what the environment may still do, by the budget's name (``crashes``, ``puts``...)",
    era=BOTH,
)
