"""The decision rules, each written once. Designs, invariants, renderers and checkers call these;
nothing else re-implements them.

* which edits a peer should receive (``replicable``);
* server, WAL and queue-id names as HBase writes them, and how a queue id parses;
* which WALs a queue still needs and which edits it still covers.
"""

from __future__ import annotations

from collections.abc import Iterable

from .config import Config
from .state import GLOBAL, Edit, Queue, WalKey

PORT = 60020
"""The region server port in the seeds' drawings."""


def replicable(kind: int, cluster_ids: tuple[int, ...], target: int) -> bool:
    """Should an edit go to cluster ``target``? Seed 002: eligible edits are "part of a column
    family whose schema is scoped GLOBAL", "not part of a catalog such as hbase:meta", and "have
    not originated from the target slave cluster" nor "already been consumed by" it."""
    return kind == GLOBAL and target not in cluster_ids


def edit_replicable(edit: Edit, target: int) -> bool:
    return replicable(edit.kind, edit.cluster_ids, target)


# --- names ------------------------------------------------------------------------------------


def host(cfg: Config, server: int) -> str:
    return f"rs-{server + 1}.example" if cfg.hyphen_hosts else f"1.1.1.{server + 1}"


def start_code(server: int) -> int:
    return 123456780 + 10 * server


def server_name(cfg: Config, server: int) -> str:
    """``host,port,startcode`` (seed 000: ``1.1.1.1,60020,123456780``)."""
    return f"{host(cfg, server)},{PORT},{start_code(server)}"


def wal_timestamp(key: WalKey) -> int:
    _server, _group, seq = key
    return 1234 + 31 * seq


def wal_name(cfg: Config, key: WalKey) -> str:
    """``address,port.timestamp`` (seed 000), with a ``.regiongroup-N`` provider id when a
    server has more than one WAL group."""
    server, group, _seq = key
    provider = f".regiongroup-{group}" if cfg.wal_groups > 1 else ""
    return f"{host(cfg, server)},{PORT}{provider}.{wal_timestamp(key)}"


def peer_id(peer: int) -> str:
    """The peer's id as the admin typed it; peer index 0 is the seeds' peer ``2``."""
    return str(peer + 2)


def queue_id(cfg: Config, peer: int, chain: tuple[int, ...]) -> str:
    """The ZooKeeper-era queue znode name: the peer id, then ``-`` and each dead server's name in
    the order the queue was claimed (seed 000: ``2-1.1.1.2,60020,123456790-1.1.1.3,...``)."""
    return "-".join([peer_id(peer), *(server_name(cfg, d) for d in chain)])


def parse_server_name(cfg: Config, name: str) -> int | None:
    """The server index named ``name``, or None if no region server has that name."""
    for server in range(cfg.servers):
        if server_name(cfg, server) == name:
            return server
    return None


def parse_queue_id(cfg: Config, text: str) -> tuple[str, list[str]]:
    """``ReplicationQueueInfo``: the peer id is everything before the first ``-``; the rest is
    the dead servers' names, split on a ``-`` only once a whole ``host,port,startcode`` has been
    read (two commas seen), so host names may contain ``-`` (the fix of HBASE-8207)."""
    peer, _, rest = text.partition("-")
    dead: list[str] = []
    current, commas = "", 0
    for ch in rest:
        if ch == "-" and commas >= 2:
            dead.append(current)
            current, commas = "", 0
            continue
        if ch == ",":
            commas += 1
        current += ch
    if current:
        dead.append(current)
    return peer, dead


def queue_wal_owner(
    cfg: Config, peer: int, chain: tuple[int, ...], owner: int, parse=parse_queue_id
) -> int | None:
    """Whose WAL directory a queue's WALs are in, as its source works it out: the first dead
    server named in the queue id, or the owner for a normal queue. ``parse`` is the queue-id
    parser in use (a mutant may pass a broken one)."""
    if not chain:
        return owner
    _peer, dead = parse(cfg, queue_id(cfg, peer, chain))
    return parse_server_name(cfg, dead[0]) if dead else None


# --- what a queue needs -----------------------------------------------------------------------


def queue_wal_keys(queues: Iterable[Queue]) -> tuple[WalKey, ...]:
    """Every WAL named in some queue (the cleaner's lookup of every queue, seed 003)."""
    return tuple(sorted({key for q in queues for key, _pos in q.wals}))


def may_delete_wal(key: WalKey, queued: tuple[WalKey, ...]) -> bool:
    """The cleaner's rule: "if it's not found, the log will be deleted" (seed 003)."""
    return key not in queued


def queue_covers(queue: Queue, key: WalKey, index: int) -> bool:
    """Does the queue still owe entry ``index`` of WAL ``key``? The position of a WAL is how far
    it has been replicated; a WAL in the queue is owed from its position on."""
    for wal, pos in queue.wals:
        if wal == key:
            return pos <= index
    return False
