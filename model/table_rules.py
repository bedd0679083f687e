"""The table era's decision rules, each written once (reference sections 1, 6): names and their
parsing, ``shouldReplicate``, the log cleaner's live-server and dead-server rules, and the claim's
conditional guard. Designs, invariants, the dump and the checkers all call these.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote, unquote

from . import rules
from .config import Config
from .state import WalKey
from .table_state import BEGIN_SEQ, NO_SOURCE, Offset, Row

NO_TIMESTAMP = -1


# --- names ------------------------------------------------------------------------------------


def queue_id(cfg: Config, peer: int, owner: int, source: int = NO_SOURCE) -> str:
    """``ReplicationQueueId.toString()``, also the row key: ``peerId-owner[/source]``."""
    text = f"{rules.peer_id(peer)}-{rules.server_name(cfg, owner)}"
    if source != NO_SOURCE:
        text += "/" + rules.server_name(cfg, source)
    return text


def parse_queue_id(text: str) -> tuple[str, str, str | None]:
    """``ReplicationQueueId.parse``: the peer id is up to the first ``-`` (peer ids may not contain
    one, host names may); the two server names are split at ``/`` (never in a host name)."""
    peer, sep, rest = text.partition("-")
    if not sep or not peer:
        raise ValueError(f"not a queue id: {text!r}")
    owner, slash, source = rest.partition("/")
    return peer, owner, (source if slash else None)


def wal_timestamp(key: WalKey) -> int:
    return rules.wal_timestamp(key)


def offset_timestamp(offset: Offset) -> int:
    """``getTimestamp(offset.wal)``: BEGIN's WAL name is empty, which has no timestamp."""
    seq, _pos = offset
    return NO_TIMESTAMP if seq == BEGIN_SEQ else 1234 + 31 * seq


def wal_group_id(cfg: Config, key: WalKey) -> str:
    """The WAL group: the file name before ``.<timestamp>`` (``getWALPrefixFromWALName``)."""
    server, group, _seq = key
    provider = f".regiongroup-{group}" if cfg.wal_groups > 1 else ""
    return quote(rules.server_name(cfg, server), safe="") + provider


def wal_file_name(cfg: Config, key: WalKey) -> str:
    """``<urlencoded serverName>[.<providerId>].<timestamp>``."""
    return f"{wal_group_id(cfg, key)}.{wal_timestamp(key)}"


def parse_wal_file_name(name: str) -> tuple[str, str, int]:
    """``WAL_FILE_NAME_PATTERN`` ``(.+)\\.(\\d+)(\\.[0-9A-Za-z]+)?``: (group, server name,
    timestamp). The server name is the URL-decoded prefix up to its third comma-separated part."""
    base = name[:-5] if name.endswith(".meta") else name
    prefix, dot, ts = base.rpartition(".")
    if not dot or not prefix or not ts.isdigit():
        raise ValueError(f"not a WAL file name: {name!r}")
    decoded = unquote(prefix)
    host, port, rest = ([*decoded.split(",", 2), "", ""])[:3]
    start = ""
    for ch in rest:
        if not ch.isdigit():
            break
        start += ch
    if not host or not port.isdigit() or not start:
        raise ValueError(f"no server name in WAL file name: {name!r}")
    return prefix, f"{host},{port},{start}", int(ts)


# --- shouldReplicate --------------------------------------------------------------------------


def should_replicate(offset: Offset | None, key: WalKey) -> bool:
    """``ReplicationOffsetUtil.shouldReplicate``: no offset or BEGIN -> yes; an older WAL -> no; a
    newer one -> yes; the offset's own WAL -> yes unless its position is -1 (fully replicated)."""
    if offset is None:
        return True
    start = offset_timestamp(offset)
    if start == NO_TIMESTAMP:
        return True
    ts = wal_timestamp(key)
    if ts < start:
        return False
    if ts > start:
        return True
    return offset[1] >= 0


def group_offset(row: Row, group: int) -> Offset | None:
    for g, seq, pos in row.offsets:
        if g == group:
            return (seq, pos)
    return None


def start_position(offset: Offset | None, key: WalKey) -> int:
    """``ReplicationSource.getStartOffset``: where a source starts reading a group's first WAL: the
    stored position when the offset names that WAL and is not -1, else 0."""
    if offset is None or offset[0] == BEGIN_SEQ or offset[0] != key[2] or offset[1] < 0:
        return 0
    return offset[1]


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


def live_server_may_delete(
    by_peer: dict[int, dict[int, Offset]] | None, peers: Iterable[int], key: WalKey
) -> bool:
    """``filterForLiveRegionServer``: keep the WAL when the server has no queue at all, when any
    peer's queue is missing, or when any queue still needs it (``shouldReplicate``)."""
    if by_peer is None:
        return False
    for p in peers:
        groups = by_peer.get(p)
        if groups is None:
            return False
        if should_replicate(groups.get(key[1]), key):
            return False
    return True


def dead_server_may_delete(
    by_peer: dict[int, dict[int, Offset]] | None, peers: Iterable[int], key: WalKey
) -> bool:
    """``filterForDeadRegionServer``: a fully dead server with no queue left -> delete; a missing
    peer queue was finished and removed -> skip it; keep only when a queue still needs the WAL."""
    if by_peer is None:
        return True
    for p in peers:
        groups = by_peer.get(p)
        if groups is None:
            continue
        if should_replicate(groups.get(key[1]), key):
            return False
    return True


def cleaner_may_delete(
    offsets: dict[int, dict[int, dict[int, Offset]]],
    live: int,
    peers: Iterable[int],
    key: WalKey,
    treat_as_live: bool | None = None,
) -> bool:
    """``ReplicationLogCleaner.filter`` for a (non-meta, validly named) WAL: no peers -> delete;
    a server in the snapshot of live-or-SCP-unfinished servers -> the live rule, else the dead
    rule. ``treat_as_live`` overrides the snapshot (only a mutant passes it)."""
    peers = list(peers)
    if not peers:
        return True
    server = key[0]
    is_live = bool(live >> server & 1) if treat_as_live is None else treat_as_live
    rule = live_server_may_delete if is_live else dead_server_may_delete
    return rule(offsets.get(server), peers, key)


# --- claimQueue's guard ---------------------------------------------------------------------------


def claim_guard_holds(row: Row | None, read: tuple[tuple[int, int, int], ...]) -> bool:
    """The conditional of ``claimQueue``'s multi-row mutation: the first column read still holds
    the value read (one column only: a write to another group's column is not detected)."""
    if row is None or not read:
        return False
    g, seq, pos = read[0]
    return group_offset(row, g) == (seq, pos)
