"""The ZooKeeper era's properties, each written once and quoting the seed sentence it protects:
its invariants, step property and liveness goals over the flat layout of ``model/zk/layout.py``
(the edits' own, both eras', are ``model/common/edit_properties.py``'s). Every engine checks these
(``model/engine/text_checks.py``); ``encoding_capacity`` is the layout's own check that no slot
array was too small for a state it reached.

On plain values a property costs what the state holds, not what the layout could hold: a
condition known false while building (``off``) skips its position, loops over a WAL's entries
or a source's queue stop at its length (``below``), and the queues and in-memory queues a
property counts over are listed once per state (``queues``, ``held``). On terms nothing is known
while building, and every position is written out. A recorded run's layout is thousands of
slots, so this is what lets the plain interpreter check these predicates on every replayed
state (``bench/props_plain.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from replcheck.model.common.edit_properties import (
    duplicates_only_explained,
    edit_properties,
    unapplied,
    undelivered,
    unneeded_files_deleted,
)
from replcheck.model.common.state import DELETED, REMOVED
from replcheck.model.engine.names import named
from replcheck.model.engine.step import below
from replcheck.model.engine.text import FlatProperty, count, off

if TYPE_CHECKING:
    from replcheck.model.zk.text import ZkFlat


def zk_properties(z: ZkFlat) -> list[FlatProperty]:
    P, W, S, CH = z.P, z.W, z.S, z.CH

    def no_lost_edit(ops: Any, get: Any) -> Any:
        """Seed 003: the WALs "must be kept in HDFS as long as they are needed to replicate data to
        any slave cluster". Every edit owed to a peer that still exists has been applied there, or
        some queue of that peer (owned by a live server, or by a dead one not yet failed over) still
        covers it and its WAL still exists."""
        now = named(get)
        ok = []
        for owed, w, j, p in unapplied(z, ops, get):
            queued = []
            for o in S:
                for ci in CH:
                    listed = now.queue_has_wal[o, p, ci, w]
                    if not off(listed):
                        queued.append(ops.and_(listed, now.queue_wal_pos[o, p, ci, w] <= j))
            covered = ops.and_(now.wal_place[w] != DELETED, ops.or_(*queued))
            ok.append(ops.implies(owed, covered))
        return ops.and_(*ok)

    def held(ops: Any, get: Any, live_only: bool) -> list[tuple[int, Any, Any]]:
        """(peer, condition, WAL slot) for every position of a source's in-memory queue (of a
        live server's sources only, with ``live_only``)."""
        now = named(get)
        out = []
        for s in S:
            alive = now.server_alive[s] if live_only else True
            if off(alive):
                continue
            for sk in z.sh_keys:
                on = ops.and_(alive, now.shipper[s, *sk])
                if off(on):
                    continue
                n = now.shipper_length[s, *sk]
                for j in below(z.LW, 0, n):
                    out.append((sk[0], ops.and_(on, j < n), now.shipper_wal[s, *sk, j]))
        return out

    def queues(ops: Any, get: Any, p: int, live_only: bool = False) -> list[tuple[int, int, Any]]:
        """(owner, chain, condition) for each queue znode of peer ``p`` (of live servers only,
        with ``live_only``)."""
        now = named(get)
        out = []
        for o in S:
            alive = now.server_alive[o] if live_only else True
            if off(alive):
                continue
            for ci in CH:
                on = ops.and_(alive, now.queue_znode[o, p, ci])
                if not off(on):
                    out.append((o, ci, on))
        return out

    def no_wal_deleted_while_queued(ops: Any, get: Any) -> Any:
        """Seed 001: "if one slave cluster becomes unavailable for some time, the WALs should not be
        deleted. They need to stay in the queue while the others are processed." No deleted WAL is
        in any queue znode or in any live source's in-memory queue."""
        now = named(get)
        ok = []
        memory = None
        for w in W:
            deleted = ops.and_(now.wal_exists[w], now.wal_place[w] == DELETED)
            if off(deleted):
                continue
            if memory is None:
                memory = held(ops, get, False)
                znodes = [(p, q) for p in P for q in queues(ops, get, p)]
            in_queue = ops.or_(
                *(ops.and_(on, now.queue_has_wal[o, p, ci, w]) for p, (o, ci, on) in znodes)
            )
            in_memory = ops.or_(*(ops.and_(c, v == w) for _p, c, v in memory))
            ok.append(ops.implies(deleted, ops.not_(ops.or_(in_queue, in_memory))))
        return ops.and_(*ok)

    def offset_within_wal(ops: Any, get: Any) -> Any:
        """Seed 003: the value of a WAL's znode "is the latest position that has been replicated".
        A position never points past the data its WAL holds: a source that claims or restarts the
        queue reads from there, and a position past the end would skip the edits written up to
        it."""
        now = named(get)
        out = []
        for p in P:
            for o, ci, on in queues(ops, get, p):
                for w in W:
                    listed = now.queue_has_wal[o, p, ci, w]
                    if off(listed):
                        continue
                    past = now.queue_wal_pos[o, p, ci, w] > now.wal_length[w]
                    out.append(ops.not_(ops.and_(on, listed, past)))
        return ops.and_(*out)

    def single_owner(ops: Any, get: Any) -> Any:
        """Seed 000: the server that wins the lock "transfers all the queues to its own znode" and
        the old ones "are deleted from the old location": each WAL is owed to a peer by at most one
        queue of a live server (a dead server's copy being claimed does not count)."""
        out = []
        for p in P:
            mine = queues(ops, get, p, live_only=True)
            if len(mine) < 2:
                continue
            for w in W:
                out.append(
                    count(
                        ops,
                        (ops.and_(on, named(get).queue_has_wal[o, p, ci, w]) for o, ci, on in mine),
                    )
                    <= 1
                )
        return ops.and_(*out)

    def single_source(ops: Any, get: Any) -> Any:
        """Seed 000: "the master cluster Region Server creates one new source thread per copied
        queue": each WAL is read for a peer by at most one live source."""
        live = held(ops, get, True)
        out = []
        for p in P:
            mine = [(c, v) for q, c, v in live if q == p]
            if len(mine) < 2:
                continue
            for w in W:
                out.append(count(ops, (ops.and_(c, v == w) for c, v in mine)) <= 1)
        return ops.and_(*out)

    def positions_monotone(ops: Any, before: Any, after: Any) -> Any:
        """Seed 003: "The value of these HLog child znodes is the latest position that has been
        replicated." A WAL znode's position never moves backwards."""
        was = named(before)
        now = named(after)
        out = []
        for p in P:
            for o, ci, on in queues(ops, before, p):
                kept = ops.and_(on, now.queue_znode[o, p, ci])
                if off(kept):
                    continue
                for w in W:
                    both = ops.and_(
                        kept,
                        was.queue_has_wal[o, p, ci, w],
                        now.queue_has_wal[o, p, ci, w],
                    )
                    if off(both):
                        continue
                    out.append(
                        ops.implies(
                            both,
                            now.queue_wal_pos[o, p, ci, w] >= was.queue_wal_pos[o, p, ci, w],
                        )
                    )
        return ops.and_(*out)

    def encoding_capacity(ops: Any, get: Any) -> Any:
        return ops.not_(named(get).overflow)

    # --- liveness goals ---------------------------------------------------------------------

    def edits_delivered(ops: Any, get: Any) -> Any:
        """Seed 002: "When the slave cluster is finally available, the buffer is applied ... The
        master RegionServer then replicates the backlog of logs that accumulated during the outage."
        Goal: every edit owed to an enabled peer has been applied there."""
        return ops.or_(
            ops.not_(named(get).replication_on), ops.not_(ops.or_(*undelivered(z, ops, get)))
        )

    def dead_queues_claimed(ops: Any, get: Any) -> Any:
        """Seed 000: "ZooKeeper is highly available, it is useful for managing the transfer of the
        queues in the event of a failure." Goal: no dead server still owns a queue."""
        now = named(get)
        return ops.and_(
            *(
                ops.or_(
                    now.server_alive[s],
                    ops.not_(ops.or_(*(now.queue_znode[s, p, ci] for p in P for ci in CH))),
                )
                for s in S
            )
        )

    def removed_peer_queues_deleted(ops: Any, get: Any) -> Any:
        """Seed 003: "Each region server has one queue for every peer cluster it replicates to."
        Goal: once a peer is removed, no queue for it is left behind (HBASE-17077)."""
        now = named(get)
        return ops.and_(
            *(
                ops.not_(ops.and_(now.queue_znode[o, p, ci], now.peer_state[p] == REMOVED))
                for o in S
                for p in P
                for ci in CH
            )
        )

    edits = edit_properties(z)
    out = [
        FlatProperty.of("invariant", f)
        for f in (
            no_lost_edit,
            no_wal_deleted_while_queued,
            single_owner,
            single_source,
            offset_within_wal,
        )
    ]
    out += edits.values()

    def duplicates_explained(ops: Any, before: Any, after: Any) -> Any:
        return duplicates_only_explained(
            z, ops, before, after, lambda p: ops.not_(z.duplicates_explained_for(ops, after, p))
        )

    duplicates_explained.__doc__ = duplicates_only_explained.__doc__
    out.append(FlatProperty.of("step", positions_monotone))
    out.append(FlatProperty.of("step", duplicates_explained))
    out.append(FlatProperty.of("invariant", encoding_capacity))
    out += [
        FlatProperty.of("liveness", f)
        for f in (edits_delivered, dead_queues_claimed, removed_peer_queues_deleted)
        if f.__name__ not in z.cfg.skip_liveness
    ]
    if z.cfg.cleaner_chore and "unneeded_wals_deleted" not in z.cfg.skip_liveness:

        def unneeded_wals_deleted(ops: Any, get: Any) -> Any:
            return unneeded_files_deleted(z, ops, get, [])

        unneeded_wals_deleted.__doc__ = unneeded_files_deleted.__doc__
        out.append(FlatProperty.of("liveness", unneeded_wals_deleted))
    return out
