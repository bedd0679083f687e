"""``TableReplicationQueueStorage`` over the model's rows (reference section 2): each function is
one row mutation (or one conditional multi-row mutation) of ``hbase:replication``, on the sorted
tuple of ``Row`` that stands for the ``queue`` family.
"""

from __future__ import annotations

from replcheck.model.table.rules import claim_applies
from replcheck.model.table.state import NO_SOURCE, Offset, Row, row_key


def find(rows: tuple[Row, ...], peer: int, owner: int, source: int = NO_SOURCE) -> Row | None:
    for row in rows:
        if row.peer == peer and row.owner == owner and row.source == source:
            return row
    return None


def _without(rows: tuple[Row, ...], peer: int, owner: int, source: int) -> tuple[Row, ...]:
    return tuple(
        r for r in rows if not (r.peer == peer and r.owner == owner and r.source == source)
    )


def _with(rows: tuple[Row, ...], row: Row) -> tuple[Row, ...]:
    rest = _without(rows, row.peer, row.owner, row.source)
    return tuple(sorted((*rest, row), key=row_key))


def set_offset(
    rows: tuple[Row, ...], peer: int, owner: int, source: int, group: int, offset: Offset
) -> tuple[Row, ...]:
    """``setOffset``: a plain put of one column. Last writer wins, and it (re)creates the row."""
    old = find(rows, peer, owner, source)
    cols = {g: (s, p) for g, s, p in old.offsets} if old else {}
    cols[group] = offset
    return _with(rows, Row(peer, owner, source, tuple((g, *cols[g]) for g in sorted(cols))))


def get_offsets(
    rows: tuple[Row, ...], peer: int, owner: int, source: int
) -> tuple[tuple[int, int, int], ...]:
    """``getOffsets``: the row's columns, empty when there is no row."""
    row = find(rows, peer, owner, source)
    return row.offsets if row else ()


def claim_queue(
    rows: tuple[Row, ...],
    peer: int,
    owner: int,
    source: int,
    target: int,
    read: tuple[tuple[int, int, int], ...],
    guarded: bool = True,
) -> tuple[tuple[Row, ...], bool]:
    """``claimQueue``'s mutation: if the guard column still holds what was read, atomically delete
    the old row and put the new one (owner := target; source := the original source, or the old
    owner) with the offsets read. Returns the rows and whether the mutation was processed."""
    old = find(rows, peer, owner, source)
    if not claim_applies(guarded, old, read):
        return rows, False
    new_source = source if source != NO_SOURCE else owner
    rows = _without(rows, peer, owner, source)
    merged = find(rows, peer, target, new_source)
    cols = {g: (s, p) for g, s, p in merged.offsets} if merged else {}
    for g, s, p in read:
        cols[g] = (s, p)
    row = Row(peer, target, new_source, tuple((g, *cols[g]) for g in sorted(cols)))
    return _with(rows, row), True


def remove_queue(rows: tuple[Row, ...], peer: int, owner: int, source: int) -> tuple[Row, ...]:
    """``removeQueue``: delete the row."""
    return _without(rows, peer, owner, source)


def queue_ids_of(rows: tuple[Row, ...], owner: int) -> list[Row]:
    """``listAllQueueIds(serverName)``: the queues this server owns, normal and recovered."""
    return [r for r in rows if r.owner == owner]
