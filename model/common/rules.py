"""The decision rules, each written once. Designs, invariants, renderers and checkers call these;
nothing else re-implements them.

* which edits a peer should receive (``replicable``);
* server, WAL and queue-id names as HBase writes them, and how a queue id parses;
* which WALs a queue still needs and which edits it still covers;
* the ZooKeeper era's claim conditions and the log cleaner's lookup.

The rules that decide safety are written in dual form (``model/engine/logic.py``): a ``*_rule``
function takes the operations ``ops`` first and runs on plain values (``PY``, what the model calls
through the plain wrappers below) or builds Z3 terms (``specs/z3ops.py``, what ``specs/proofs.py``
proves things about). The plain wrappers only translate the model's values into the rule's
arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

from replcheck.model.common.state import GLOBAL, Edit, Queue, WalKey
from replcheck.model.config import Config
from replcheck.model.engine.logic import PY, B, I, Ops, S, after, before

PORT = 60020
"""The region server port in the seeds' drawings."""


def replicable_rule(ops: Ops, kind: I, cluster_ids: Sequence[I], target: I) -> B:
    """Should an edit go to cluster ``target``? Seed 002: eligible edits are "part of a column
    family whose schema is scoped GLOBAL", "not part of a catalog such as hbase:meta", and "have
    not originated from the target slave cluster" nor "already been consumed by" it."""
    return ops.and_(kind == GLOBAL, ops.not_(ops.or_(*(target == c for c in cluster_ids))))


@cache
def replicable(kind: int, cluster_ids: tuple[int, ...], target: int) -> bool:
    """``replicable_rule`` on the model's values."""
    return replicable_rule(PY, kind, cluster_ids, target)


def edit_replicable(edit: Edit, target: int) -> bool:
    return replicable(edit.kind, edit.cluster_ids, target)


# --- names ------------------------------------------------------------------------------------


def host(cfg: Config, server: int) -> str:
    return f"rs-{server + 1}.example" if cfg.hyphen_hosts else f"1.1.1.{server + 1}"


def start_code(server: int) -> int:
    return 123456780 + 10 * server


def format_server_name(ops: Ops, host_: S, port: S, start: S) -> S:
    """``ServerName.toString``: ``host,port,startcode`` (seed 000: ``1.1.1.1,60020,123456780``)."""
    return ops.concat(host_, ",", port, ",", start)


def server_name(cfg: Config, server: int) -> str:
    """``host,port,startcode`` (seed 000: ``1.1.1.1,60020,123456780``)."""
    return format_server_name(PY, host(cfg, server), str(PORT), str(start_code(server)))


def wal_timestamp(key: WalKey) -> int:
    _server, _group, seq = key
    return 1234 + 31 * seq


def format_zk_wal_name(ops: Ops, host_: S, port: S, provider: S, ts: S) -> S:
    """``address,port[.provider].timestamp`` (seed 000's drawing of a ZooKeeper-era WAL znode)."""
    return ops.concat(host_, ",", port, provider, ".", ts)


def provider_id(cfg: Config, group: int) -> str:
    """``.regiongroup-N`` when a server has more than one WAL group, else nothing."""
    return f".regiongroup-{group}" if cfg.wal_groups > 1 else ""


def wal_name(cfg: Config, key: WalKey) -> str:
    """``address,port.timestamp`` (seed 000), with a ``.regiongroup-N`` provider id when a
    server has more than one WAL group."""
    server, group, _seq = key
    return format_zk_wal_name(
        PY, host(cfg, server), str(PORT), provider_id(cfg, group), str(wal_timestamp(key))
    )


def peer_id(peer: int) -> str:
    """The peer's id as the admin typed it; peer index 0 is the seeds' peer ``2``."""
    return str(peer + 2)


def format_zk_queue_id(ops: Ops, peer: S, dead: Sequence[S]) -> S:
    """The ZooKeeper-era queue znode name: the peer id, then ``-`` and each dead server's name in
    the order the queue was claimed (seed 000: ``2-1.1.1.2,60020,123456790-1.1.1.3,...``; reference
    3a: "each claim appends ``"-" + sourceServerName``")."""
    parts: list[S] = [peer]
    for d in dead:
        parts += ["-", d]
    return ops.concat(*parts)


def queue_id(cfg: Config, peer: int, chain: tuple[int, ...]) -> str:
    """The ZooKeeper-era queue znode name (``format_zk_queue_id``)."""
    return format_zk_queue_id(PY, peer_id(peer), [server_name(cfg, d) for d in chain])


def parse_server_name(cfg: Config, name: str) -> int | None:
    """The server index named ``name``, or None if no region server has that name."""
    for server in range(cfg.servers):
        if server_name(cfg, server) == name:
            return server
    return None


ParsedZkQueueId = tuple[Any, list[tuple[Any, Any]], Any]
"""(peer id, ``slots`` pairs (present, dead server name), overflow: more names than slots)."""


def parse_zk_queue_id_rule(ops: Ops, text: S, slots: int) -> ParsedZkQueueId:
    """``ReplicationQueueInfo``: the peer id is everything before the first ``-``; the rest is
    the dead servers' names, split on a ``-`` only once a whole ``host,port,startcode`` has been
    read (two commas seen), so host names may contain ``-`` (the fix of HBASE-8207). Reads at most
    ``slots`` dead servers."""
    h = ops.index_of(text, "-", 0)
    peer = ops.ite(h < 0, text, before(ops, text, h))
    rest = ops.ite(h < 0, "", after(ops, text, h + 1))
    dead = []
    for _ in range(slots):
        c1 = ops.index_of(rest, ",", 0)
        c2 = ops.ite(c1 < 0, -1, ops.index_of(rest, ",", c1 + 1))
        cut = ops.ite(c2 < 0, -1, ops.index_of(rest, "-", c2 + 1))
        dead.append((ops.length(rest) > 0, ops.ite(cut < 0, rest, before(ops, rest, cut))))
        rest = ops.ite(cut < 0, "", after(ops, rest, cut + 1))
    return peer, dead, ops.length(rest) > 0


def present_names(dead: list[tuple[bool, str]]) -> list[str]:
    """The names a plain-valued parse found (its present slots)."""
    return [name for present, name in dead if present]


def parse_queue_id(cfg: Config, text: str) -> tuple[str, list[str]]:
    """``parse_zk_queue_id_rule`` on a plain string: (peer id, dead servers' names)."""
    peer, dead, _more = parse_zk_queue_id_rule(PY, text, text.count("-") + 1)
    return peer, present_names(dead)


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


def queue_wal_keys_rule(queues: Iterable[Any]) -> list[Any]:
    """Every WAL named in some queue, in the queues' order (the cleaner's lookup of every queue,
    seed 003). Each queue has ``wals``, pairs (WAL key, position); keys may be symbolic."""
    return [key for q in queues for key, _pos in q.wals]


def queue_wal_keys(queues: Iterable[Queue]) -> tuple[WalKey, ...]:
    """``queue_wal_keys_rule``, sorted and without repeats (what the model stores)."""
    return tuple(sorted(set(queue_wal_keys_rule(queues))))


def same_wal(ops: Ops, a: Sequence[I], b: Sequence[I]) -> B:
    """Do two WAL keys (server, group, sequence) name the same WAL?"""
    return ops.and_(*(x == y for x, y in zip(a, b, strict=True)))


def may_delete_wal_rule(ops: Ops, key: Sequence[I], queued: Sequence[Sequence[I]]) -> B:
    """The cleaner's rule: "the cleaning thread will lookup every queue until it finds the log
    ... If it's not found, the log will be deleted" (seed 003)."""
    return ops.not_(ops.or_(*(same_wal(ops, key, q) for q in queued)))


@lru_cache(maxsize=1 << 16)
def may_delete_wal(key: WalKey, queued: tuple[WalKey, ...]) -> bool:
    """``may_delete_wal_rule`` on the model's values."""
    return may_delete_wal_rule(PY, key, queued)


# --- the ZooKeeper era's claim ----------------------------------------------------------------


def claimed_chain_rule(ops: Ops, chain: Sequence[Any], dead: Any) -> tuple[Any, ...]:
    """The claimed queue's id appends the dead server's name (seed 000: "The recovered znodes are
    then renamed with the slave cluster ID appended to the name of the server that failed")."""
    return (*chain, dead)


def zk_claim_applies_rule(ops: Ops, old_present: B, same_wals: B, new_exists: B) -> B:
    """The claim's ``multi`` succeeds only when the old queue is still there with the WAL znodes
    read, and the new queue does not exist yet; otherwise "someone else took the log"
    (reference 3a)."""
    return ops.and_(old_present, same_wals, ops.not_(new_exists))


def zk_start_position_rule(ops: Ops, stored: I) -> I:
    """A recovered source starts its first WAL at the position in ZooKeeper: the znode holds "the
    latest position that has been replicated" (seed 003)."""
    return stored


def wal_done_rule(ops: Ops, newer_queued: B, closed: B, pos: I, length: I) -> B:
    """May a source drop its head WAL from its queue? Only when a newer WAL is queued, the head
    is closed and read to its end: "reading up to the end of the current file does not delete the
    item in the queue" (seed 001)."""
    return ops.and_(newer_queued, closed, pos >= length)


@cache
def wal_done(newer_queued: bool, closed: bool, pos: int, length: int) -> bool:
    """``wal_done_rule`` on the model's values."""
    return wal_done_rule(PY, newer_queued, closed, pos, length)


def drop_claimed_queue_rule(ops: Ops, peer_removed: B) -> B:
    """A claimed queue whose peer has been removed is deleted, not replicated (HBASE-17077)."""
    return peer_removed


def queue_covers(queue: Queue, key: WalKey, index: int) -> bool:
    """Does the queue still owe entry ``index`` of WAL ``key``? The position of a WAL is how far
    it has been replicated; a WAL in the queue is owed from its position on."""
    for wal, pos in queue.wals:
        if wal == key:
            return pos <= index
    return False
