"""The model's state: immutable, hashable, totally ordered values.

Every collection is a sorted tuple (never a set or a dict), and every "absent" slot is the empty
tuple ``()``, so that two equal states hash equal, any two states compare with ``<`` (which the
symmetry reduction needs to pick a canonical representative), and every checker can store them.

Vocabulary (seeds 000-003):

* a *region server* (``Server``) of the source cluster writes edits into *WALs*, one current WAL per
  *WAL group*; a WAL is named ``(server, group, seq)`` and ``seq`` orders WALs by timestamp;
* ``/hbase/replication/rs/<server>/<queueId>/<wal>`` is the znode tree of *queues* (``RsNode`` and
  ``Queue``); a queue holds the WALs still owed to one *peer* with a *position* per WAL;
* a *shipper* is the in-memory reader of one queue and one WAL group on a live server (HBase's
  ReplicationSource thread);
* *clusters* are numbered: 0 is the source cluster under study, peer ``p`` is cluster ``p + 1``
  (rendered as peer id ``str(p + 2)``, so the first peer is the seeds' peer ``2``).
"""

from __future__ import annotations

from typing import NamedTuple

# Edit kinds: the column family's replication scope and whether the table is a catalog table.
GLOBAL, LOCAL, CATALOG = 0, 1, 2
KIND_NAMES = ("GLOBAL", "LOCAL", "CATALOG")

# Peer status, as the peers znode and its peer-state child say.
ABSENT, ENABLED, DISABLED, REMOVED = 0, 1, 2, 3
PEER_STATUS_NAMES = ("ABSENT", "ENABLED", "DISABLED", "REMOVED")

# Where a WAL file lives: the server's WAL directory, the archive (oldWALs), or nowhere.
LIVE_DIR, ARCHIVED, DELETED = 0, 1, 2
WAL_PLACE_NAMES = ("WALs", "oldWALs", "deleted")

# Phases of the ZooKeeper-era log cleaner's snapshot (reference section 3a).
IDLE, READING, DELETING = 0, 1, 2

NO_LOCK = -1

WalKey = tuple[int, int, int]
"""A WAL's name: (server, WAL group, sequence). Sequence order is timestamp order."""

Uid = tuple[int, ...]
"""An edit's identity: (0, server, group, seq, index) for edits written at the source cluster,
(cluster, n) for the n-th client edit written at another cluster."""


class Edit(NamedTuple):
    """One WALEdit: its identity, its family's scope, the clusters that consumed it (origin first)
    and the peers it is owed to (a bit mask, fixed when the edit was appended)."""

    uid: Uid
    kind: int
    cluster_ids: tuple[int, ...]
    owed: int


class Wal(NamedTuple):
    key: WalKey
    entries: tuple[Edit, ...]
    closed: bool
    place: int


class Queue(NamedTuple):
    """``/hbase/replication/rs/<owner>/<queueId>``: the queue of one peer. ``chain`` lists the dead
    servers whose names the queue id carries (empty for a normal queue); the WALs belong to
    ``chain[0]``. ``wals`` holds ``(wal, position)`` pairs sorted by (group, seq)."""

    peer: int
    chain: tuple[int, ...]
    wals: tuple[tuple[WalKey, int], ...]


class RsNode(NamedTuple):
    """``/hbase/replication/rs/<server>``: an optional ``lock`` child (the holder) and queues."""

    lock: int
    queues: tuple[Queue, ...]


class Shipper(NamedTuple):
    """The in-memory reader/shipper of one queue and WAL group on a live server. ``wals`` is its
    in-memory WAL queue (head first); ``pos`` is how far it has read and shipped the head."""

    peer: int
    chain: tuple[int, ...]
    group: int
    wals: tuple[WalKey, ...]
    pos: int


class Claim(NamedTuple):
    """A claim a server has read but not yet committed (``zk-multi``: positions are read outside
    the ``multi``)."""

    dead: int
    queue: Queue


class Server(NamedTuple):
    alive: bool
    current: tuple[int, ...]
    """Sequence of the current WAL, per WAL group."""
    known: int
    """Peers this server has a normal source for (bit mask)."""
    gone: int
    """Peers whose removal this server has handled (bit mask): the event comes once."""
    shippers: tuple[Shipper, ...]
    sinks: tuple[int, ...]
    """The chosen subset of each peer's sink servers (bit mask per peer)."""
    claim: tuple[Claim, ...]
    unregistered: tuple[WalKey, ...]
    """WALs in use but not yet in any queue (only a mutant ever has some)."""
    drops: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """Claimed queues (peer, chain) this server found its peer gone for: it deletes each in a
    write of its own after the claim (``removeQueue(claimedId)``, HBASE-17077/HBASE-20475)."""
    updates: int = 0
    """Peers whose config znode changed and this server has not reacted yet (bit mask:
    ``model/zk/peer_life.py``)."""


class Sink(NamedTuple):
    """What a cluster has applied from replication: edit ids (sorted), the ids applied more than
    once, and which of its sink region servers are down (bit mask)."""

    applied: tuple[Uid, ...]
    duplicates: tuple[Uid, ...]
    down: int


class Relay(NamedTuple):
    """A peer cluster that replicates onward (master-master, cyclic): the edits it holds in order,
    and how far it has shipped along each of its outbound edges."""

    log: tuple[Edit, ...]
    shipped: tuple[int, ...]


class Cleaner(NamedTuple):
    """The master's log cleaner. ``zk-lock`` uses only ``cache`` (seed 003); ``zk-multi`` takes a
    cversion-checked snapshot: ``candidates`` listed first, then the rs znodes one by one, each
    ``read`` by listing its queues (``listed``) and reading those one by one into ``seen``;
    ``changed`` says the cversion of ``/rs`` moved since the listing began."""

    phase: int
    candidates: tuple[WalKey, ...]
    read: int
    seen: tuple[WalKey, ...]
    changed: bool
    cache: tuple[WalKey, ...]
    listed: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    """Queues (server, peer, chain) of the rs znode being read, listed and not yet read."""


class Budget(NamedTuple):
    """What the environment may still do: crashes, sink outages, admin operations, ZooKeeper
    faults, client edits at other clusters and at ours, and log-cleaner runs."""

    crashes: int
    outages: int
    admin: int
    zk_faults: int
    foreign: int
    puts: int
    cleaner_runs: int


class State(NamedTuple):
    servers: tuple[Server, ...]
    wals: tuple[Wal | tuple[()], ...]
    """Indexed by ``Config.slot(key)``; ``()`` where that WAL has not been created."""
    rs: tuple[RsNode | tuple[()], ...]
    """``/hbase/replication/rs/<server>`` per server; ``()`` where the znode does not exist."""
    peers: tuple[int, ...]
    replication_on: bool
    """The ``/hbase/replication/state`` znode."""
    sinks: tuple[Sink, ...]
    """Per cluster (0 = the source cluster, for edits coming back to it)."""
    relays: tuple[Relay | tuple[()], ...]
    cleaner: Cleaner
    failover: int
    """Dead servers whose failover is pending (zk-multi: an unfinished SCP)."""
    budget: Budget
    refreshed: int = 0
    """Peers whose sources were created again, or that were added again after their removal
    (bit mask: ``model/zk/peer_life.py``): what explains an edit applied twice there."""


EMPTY_SINK = Sink((), (), 0)
IDLE_CLEANER = Cleaner(IDLE, (), 0, (), False, ())


def set_at(tup: tuple, i: int, value: object) -> tuple:
    """``tup`` with item ``i`` replaced."""
    return (*tup[:i], value, *tup[i + 1 :])


def insert_sorted(tup: tuple, item: object) -> tuple:
    return tuple(sorted((*tup, item)))


def wal_order(key: WalKey) -> tuple[int, int, int]:
    """How a queue znode lists its WALs: by group, then timestamp, then server."""
    return (key[1], key[2], key[0])


def sort_queue_wals(wals) -> tuple[tuple[WalKey, int], ...]:
    return tuple(sorted(wals, key=lambda kp: wal_order(kp[0])))


def bits(mask: int) -> list[int]:
    """The indexes set in a bit mask."""
    out, i = [], 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out
