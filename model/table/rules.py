"""The table era's decision rules, each written once (reference sections 1, 5, 6): names and their
parsing, ``shouldReplicate``, the log cleaner's live-server and dead-server rules, the claim's
conditional guard and AddPeer's fence. Designs, invariants, the dump and the checkers all call
these.

The rules that decide safety are in dual form (``model/engine/logic.py``): a ``*_rule`` function
takes the operations ``ops`` first and runs on plain values (``PY``) inside the model, through the
plain wrappers here, or builds Z3 terms for ``specs/proofs.py``. A wrapper only translates the
model's values (offsets, rows, WAL keys) into the rule's arguments (timestamps, positions, flags).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, NamedTuple

from replcheck.model.common import rules
from replcheck.model.common.state import ENABLED, REMOVED, WalKey, bits
from replcheck.model.config import Config
from replcheck.model.engine.logic import PY, B, I, Ops, S, after, before
from replcheck.model.table.state import (
    BARRIER_DISABLED,
    BEGIN_SEQ,
    NO_SOURCE,
    NOT_RUNNING,
    RUNNING,
    Offset,
    Row,
)

NO_TIMESTAMP = -1


# --- names ------------------------------------------------------------------------------------


def format_queue_id(ops: Ops, peer: S, owner: S, has_source: B, source: S) -> S:
    """``ReplicationQueueId.toString()``, also the row key: ``peerId + '-' + serverName`` and, if
    the queue is recovered, ``+ '/' + sourceServerName`` (reference section 1)."""
    return ops.concat(peer, "-", owner, ops.ite(has_source, ops.concat("/", source), ""))


def queue_id(cfg: Config, peer: int, owner: int, source: int = NO_SOURCE) -> str:
    """``ReplicationQueueId.toString()``, also the row key: ``peerId-owner[/source]``."""
    has_source = source != NO_SOURCE
    return format_queue_id(
        PY,
        rules.peer_id(peer),
        rules.server_name(cfg, owner),
        has_source,
        rules.server_name(cfg, source) if has_source else "",
    )


def parse_queue_id_rule(ops: Ops, text: S) -> tuple[B, S, S, B, S]:
    """``ReplicationQueueId.parse``: "peerId = up to the first ``-``; then look for ``/`` after
    it; if none -> normal queue, else serverName = between, sourceServerName = after ``/``" (peer
    ids may not contain ``-``, host names may; ``/`` is never in a host name). Returns (valid,
    peer, owner, recovered, source): valid when there is a ``-`` after a non-empty peer id."""
    h = ops.index_of(text, "-", 0)
    rest = after(ops, text, h + 1)
    slash = ops.index_of(rest, "/", 0)
    owner = ops.ite(slash < 0, rest, before(ops, rest, slash))
    source = ops.ite(slash < 0, "", after(ops, rest, slash + 1))
    return h > 0, before(ops, text, h), owner, slash >= 0, source


def parse_queue_id(text: str) -> tuple[str, str, str | None]:
    """``parse_queue_id_rule`` on a plain string: (peer, owner, source or None)."""
    valid, peer, owner, recovered, source = parse_queue_id_rule(PY, text)
    if not valid:
        raise ValueError(f"not a queue id: {text!r}")
    return peer, owner, (source if recovered else None)


def wal_timestamp(key: WalKey) -> int:
    return rules.wal_timestamp(key)


def offset_timestamp(offset: Offset) -> int:
    """``getTimestamp(offset.wal)``: BEGIN's WAL name is empty, which has no timestamp."""
    seq, _pos = offset
    return NO_TIMESTAMP if seq == BEGIN_SEQ else 1234 + 31 * seq


def format_wal_group_id(ops: Ops, host: S, port: S, start: S, provider: S) -> S:
    """The WAL group (``getWALPrefixFromWALName``): the URL-encoded server name and the provider
    id. A server name whose host has only DNS characters (letters, digits, ``-``, ``.``) is
    URL-encoded by turning each ``,`` into ``%2C`` and nothing else."""
    return ops.concat(host, "%2C", port, "%2C", start, provider)


def format_wal_file_name(ops: Ops, group_id: S, ts: S) -> S:
    """``<urlencoded serverName>[.<providerId>].<timestamp>`` (reference section 6)."""
    return ops.concat(group_id, ".", ts)


def wal_group_id(cfg: Config, key: WalKey) -> str:
    """The WAL group: the file name before ``.<timestamp>`` (``getWALPrefixFromWALName``)."""
    server, group, _seq = key
    return format_wal_group_id(
        PY,
        rules.host(cfg, server),
        str(rules.PORT),
        str(rules.start_code(server)),
        rules.provider_id(cfg, group),
    )


def wal_file_name(cfg: Config, key: WalKey) -> str:
    """``<urlencoded serverName>[.<providerId>].<timestamp>``."""
    return format_wal_file_name(PY, wal_group_id(cfg, key), str(wal_timestamp(key)))


class ParsedWalName(NamedTuple):
    """What ``parse_wal_file_name_rule`` reads out of a WAL file name."""

    valid_name: Any
    """``WAL_FILE_NAME_PATTERN`` matches: a non-empty prefix, ``.``, a timestamp of digits."""
    valid_server: Any
    """The prefix starts with a server name ``host%2Cport%2Cstartcode``."""
    group: Any
    host: Any
    port: Any
    start: Any
    ts: Any
    """The timestamp's digits."""


def parse_wal_file_name_rule(ops: Ops, name: S) -> ParsedWalName:
    """``WAL_FILE_NAME_PATTERN`` ``(.+)\\.(\\d+)(\\.[0-9A-Za-z]+)?`` and
    ``parseServerNameFromWALName``: a ``.meta`` suffix is dropped; the group is everything before
    the last ``.``, the timestamp the digits after it; the server name is the URL-decoded prefix's
    ``host,port,startcode`` (the start code ends at the provider id's ``.``)."""
    meta = ops.suffix_of(".meta", name)
    base = ops.ite(meta, before(ops, name, ops.length(name) - 5), name)
    dot = ops.last_index_of(base, ".")
    prefix = before(ops, base, dot)
    ts = after(ops, base, dot + 1)
    i1 = ops.index_of(prefix, "%2C", 0)
    i2 = ops.ite(i1 < 0, -1, ops.index_of(prefix, "%2C", i1 + 3))
    port = ops.ite(i2 < 0, "", ops.substring(prefix, i1 + 3, i2 - i1 - 3))
    rest = ops.ite(i2 < 0, "", after(ops, prefix, i2 + 3))
    d = ops.index_of(rest, ".", 0)
    start = ops.ite(d < 0, rest, before(ops, rest, d))
    return ParsedWalName(
        valid_name=ops.and_(dot > 0, ops.is_digits(ts)),
        valid_server=ops.and_(i1 > 0, ops.is_digits(port), ops.is_digits(start)),
        group=prefix,
        host=before(ops, prefix, i1),
        port=port,
        start=start,
        ts=ts,
    )


def parse_wal_file_name(name: str) -> tuple[str, str, int]:
    """``parse_wal_file_name_rule`` on a plain name: (group, server name, timestamp)."""
    p = parse_wal_file_name_rule(PY, name)
    if not p.valid_name:
        raise ValueError(f"not a WAL file name: {name!r}")
    if not p.valid_server:
        raise ValueError(f"no server name in WAL file name: {name!r}")
    return p.group, rules.format_server_name(PY, p.host, p.port, p.start), int(p.ts)


# --- shouldReplicate --------------------------------------------------------------------------


def should_replicate_rule(ops: Ops, has_offset: B, start_ts: I, pos: I, wal_ts: I) -> B:
    """``ReplicationOffsetUtil.shouldReplicate``: no offset or BEGIN (no timestamp) -> yes; an
    older WAL than the offset's -> no; a newer one -> yes; the offset's own WAL -> yes unless its
    position is negative ("A negative value means this file has already been fully replicated
    out"). Only timestamps are compared (reference section 6)."""
    return ops.ite(
        ops.not_(has_offset),
        True,
        ops.ite(
            start_ts == NO_TIMESTAMP,
            True,
            ops.ite(wal_ts < start_ts, False, ops.ite(wal_ts > start_ts, True, pos >= 0)),
        ),
    )


@cache
def should_replicate(offset: Offset | None, key: WalKey) -> bool:
    """``should_replicate_rule`` for a group offset (None: no offset) and a WAL of that group."""
    if offset is None:
        return should_replicate_rule(PY, False, NO_TIMESTAMP, 0, wal_timestamp(key))
    return should_replicate_rule(PY, True, offset_timestamp(offset), offset[1], wal_timestamp(key))


def group_offset(row: Row, group: int) -> Offset | None:
    for g, seq, pos in row.offsets:
        if g == group:
            return (seq, pos)
    return None


def start_position_rule(ops: Ops, has_offset: B, start_ts: I, pos: I, wal_ts: I) -> I:
    """``ReplicationSource.getStartOffset``: where a source starts reading a group's first WAL: the
    stored position when the offset names that WAL and is not negative, else 0."""
    names_it = ops.and_(has_offset, start_ts != NO_TIMESTAMP, start_ts == wal_ts, pos >= 0)
    return ops.ite(names_it, pos, 0)


@cache
def start_position(offset: Offset | None, key: WalKey) -> int:
    """``start_position_rule`` for a group offset (None: no offset) and a WAL of that group."""
    if offset is None:
        return start_position_rule(PY, False, NO_TIMESTAMP, 0, wal_timestamp(key))
    return start_position_rule(PY, True, offset_timestamp(offset), offset[1], wal_timestamp(key))


# --- the log cleaner (reference section 6) ------------------------------------------------------


def cleaner_offsets(rows: Iterable[Row]) -> dict[int, dict[int, dict[int, Offset]]]:
    """``replicationOffsets[source server][peer][group]``, keyed by the server the WALs belong to
    (``getServerWALsBelongTo``); rows of the same (source, peer) are merged, later ones winning."""
    out: dict[int, dict[int, dict[int, Offset]]] = {}
    for row in rows:
        src = row.source if row.source != NO_SOURCE else row.owner
        groups = out.setdefault(src, {}).setdefault(row.peer, {})
        for g, seq, pos in row.offsets:
            groups[g] = (seq, pos)
    return out


class QueueView(NamedTuple):
    """What the cleaner's snapshot says about one peer, for the server and group of one WAL."""

    listed: Any
    """The peer is in the snapshot's peer list (``peerIds``)."""
    has_queue: Any
    """``replicationOffsets[server]`` has an entry for the peer."""
    has_offset: Any
    """That entry has an offset for the WAL's group."""
    start_ts: Any
    """The timestamp of the offset's WAL (``NO_TIMESTAMP`` for BEGIN)."""
    pos: Any
    """The offset's position (negative: fully replicated)."""


CleanerRule = Callable[[Ops, Any, Any, Any, Sequence[QueueView]], Any]
"""A cleaner rule: ``(ops, wal_ts, live, has_server, queues) -> may delete``."""


def live_server_may_delete_rule(
    ops: Ops, has_server: B, queues: Sequence[QueueView], wal_ts: I
) -> B:
    """``filterForLiveRegionServer``: keep the WAL when the server has no queue at all ("replication
    queues missing"), when any listed peer's queue is missing, or when any queue still needs it
    (``shouldReplicate``)."""
    return ops.and_(
        has_server,
        *(
            ops.implies(
                q.listed,
                ops.and_(
                    q.has_queue,
                    ops.not_(should_replicate_rule(ops, q.has_offset, q.start_ts, q.pos, wal_ts)),
                ),
            )
            for q in queues
        ),
    )


def dead_server_may_delete_rule(
    ops: Ops, has_server: B, queues: Sequence[QueueView], wal_ts: I
) -> B:
    """``filterForDeadRegionServer``: a fully dead server with no queue left -> delete; a missing
    peer queue was finished and removed -> skip it; keep only when a queue still needs the WAL."""
    return ops.or_(
        ops.not_(has_server),
        ops.and_(
            *(
                ops.implies(
                    ops.and_(q.listed, q.has_queue),
                    ops.not_(should_replicate_rule(ops, q.has_offset, q.start_ts, q.pos, wal_ts)),
                )
                for q in queues
            )
        ),
    )


def cleaner_may_delete_rule(
    ops: Ops, wal_ts: I, live: B, has_server: B, queues: Sequence[QueueView]
) -> B:
    """``ReplicationLogCleaner.filter`` for a (non-meta, validly named) WAL: no peers -> delete;
    a server in the snapshot of live-or-SCP-unfinished servers -> the live rule, else the dead
    rule."""
    return ops.or_(
        ops.not_(ops.or_(*(q.listed for q in queues))),
        ops.ite(
            live,
            live_server_may_delete_rule(ops, has_server, queues, wal_ts),
            dead_server_may_delete_rule(ops, has_server, queues, wal_ts),
        ),
    )


def cleaner_views(
    by_peer: dict[int, dict[int, Offset]] | None, peers: Iterable[int], key: WalKey
) -> tuple[bool, list[QueueView]]:
    """The model's snapshot for one WAL as the cleaner rules' arguments: (the server has some
    queue, a view of each listed peer)."""
    views = []
    for p in peers:
        groups = None if by_peer is None else by_peer.get(p)
        offset = None if groups is None else groups.get(key[1])
        if offset is None:
            views.append(QueueView(True, groups is not None, False, NO_TIMESTAMP, 0))
        else:
            views.append(QueueView(True, True, True, offset_timestamp(offset), offset[1]))
    return by_peer is not None, views


def live_server_may_delete(
    by_peer: dict[int, dict[int, Offset]] | None, peers: Iterable[int], key: WalKey
) -> bool:
    """``live_server_may_delete_rule`` on the model's snapshot."""
    has_server, views = cleaner_views(by_peer, peers, key)
    return live_server_may_delete_rule(PY, has_server, views, wal_timestamp(key))


def dead_server_may_delete(
    by_peer: dict[int, dict[int, Offset]] | None, peers: Iterable[int], key: WalKey
) -> bool:
    """``dead_server_may_delete_rule`` on the model's snapshot."""
    has_server, views = cleaner_views(by_peer, peers, key)
    return dead_server_may_delete_rule(PY, has_server, views, wal_timestamp(key))


def cleaner_may_delete(
    offsets: dict[int, dict[int, dict[int, Offset]]],
    live: int,
    peers: Iterable[int],
    key: WalKey,
    treat_as_live: bool | None = None,
    rule: CleanerRule = cleaner_may_delete_rule,
) -> bool:
    """``rule`` (default ``cleaner_may_delete_rule``) on the model's snapshot: ``live`` is the
    bit mask of live-or-SCP-unfinished servers; ``treat_as_live`` overrides it."""
    is_live = bool(live >> key[0] & 1) if treat_as_live is None else treat_as_live
    has_server, views = cleaner_views(offsets.get(key[0]), peers, key)
    return rule(PY, wal_timestamp(key), is_live, has_server, views)


def cleaner_decides(rule: CleanerRule, cleaner: Any, key: WalKey) -> bool:
    """``rule`` on a cleaner run's snapshot (``TCleaner``: rows, peers, live servers)."""
    return cleaner_may_delete(
        cleaner_offsets(cleaner.rows), cleaner.live, bits(cleaner.peers), key, rule=rule
    )


def counts_as_live_rule(ops: Ops, alive: B, scp_unfinished: B) -> B:
    """preClean's first read: online servers and those whose SCP has not finished ("a 'dead'
    server means the region server is dead, and its associated SCP has also been finished";
    seed 004: "If SCP is not scheduled or not finished, we should still treat it as a live
    region server")."""
    return ops.or_(alive, scp_unfinished)


def live_mask(rule: Callable[[Ops, Any, Any], Any], servers: Iterable[tuple[bool, bool]]) -> int:
    """The bit mask of servers ``rule`` counts as live, from (alive, SCP unfinished) pairs."""
    mask = 0
    for s, (alive, unfinished) in enumerate(servers):
        if rule(PY, alive, unfinished):
            mask |= 1 << s
    return mask


# --- AddPeer's fence (reference section 5) ------------------------------------------------------


def fence_add_rule(ops: Ops) -> B:
    """AddPeerProcedure disables the log cleaner (the barrier) for its whole life."""
    return True


def add_peer_may_leave_pre(ops: Ops, fence: B, barrier_state: I) -> B:
    """``prePeerModification``: ``barrier.disable()`` returns false while a cleaner run holds the
    barrier (RUNNING), and the procedure suspends; without the fence nothing is checked."""
    return ops.or_(ops.not_(fence), barrier_state != RUNNING)


def barrier_disable_rule(ops: Ops, state: I, n: I) -> tuple[I, I]:
    """``ReplicationLogCleanerBarrier.disable()``: RUNNING -> no change; NOT_RUNNING -> DISABLED,
    n=1; DISABLED -> n+1."""
    running = state == RUNNING
    return (
        ops.ite(running, state, BARRIER_DISABLED),
        ops.ite(running, n, ops.ite(state == BARRIER_DISABLED, n + 1, 1)),
    )


def cleaner_may_start_rule(ops: Ops, barrier_state: I) -> B:
    """``barrier.start()``: only NOT_RUNNING -> RUNNING succeeds; DISABLED -> false."""
    return barrier_state == NOT_RUNNING


# --- claimQueue's guard ---------------------------------------------------------------------------


def claim_guard_rule(
    ops: Ops,
    row_present: B,
    read_any: B,
    col_present: B,
    cur_seq: I,
    cur_pos: I,
    read_seq: I,
    read_pos: I,
) -> B:
    """The conditional of ``claimQueue``'s multi-row mutation: "condition:
    row(queueId).queue:g == o.toString()" for the first column read (one column only: a write to
    another group's column is not detected)."""
    return ops.and_(row_present, read_any, col_present, cur_seq == read_seq, cur_pos == read_pos)


def claim_guarded_rule(ops: Ops) -> B:
    """claimQueue's mutation is conditional on the first column read."""
    return True


def claim_applies_rule(ops: Ops, guarded: B, guard_holds: B) -> B:
    """Is the mutation processed? Always when unguarded, else only when the guard holds."""
    return ops.or_(ops.not_(guarded), guard_holds)


def claim_guard_holds(row: Row | None, read: tuple[tuple[int, int, int], ...]) -> bool:
    """``claim_guard_rule`` on the model's row and the columns read."""
    g, read_seq, read_pos = read[0] if read else (0, 0, 0)
    cur = group_offset(row, g) if row is not None else None
    cur_seq, cur_pos = cur if cur is not None else (0, 0)
    return claim_guard_rule(
        PY, row is not None, bool(read), cur is not None, cur_seq, cur_pos, read_seq, read_pos
    )


def claim_applies(guarded: bool, row: Row | None, read: tuple[tuple[int, int, int], ...]) -> bool:
    """``claim_applies_rule`` on the model's row and the columns read."""
    return claim_applies_rule(PY, guarded, claim_guard_holds(row, read))


def claim_peer_known_rule(ops: Ops, known: B) -> B:
    """The claimer checks ``replicationPeers.getPeer(peerId)`` before and after the claim: a
    peer it does not know (removed) is not replicated (HBASE-17077, HBASE-20475)."""
    return known


def source_ships_rule(ops: Ops, status: I) -> B:
    """May a source of the peer ship? It follows its server's copy of the peer, which a
    RefreshPeerProcedure updates (reference section 10): a removed peer's sources ship until the
    refresh on their server terminates them (``RSM.removePeer``); a disabled peer's do not."""
    return ops.or_(status == ENABLED, status == REMOVED)
