"""The table era's properties, each written once and quoting the seed sentence it protects: its
invariants, step property and liveness goals over the layout of ``model/table/layout.py`` (the
edits' own, both eras', are ``model/common/edit_properties.py``'s; a feature reads some of them
through a view of its own). Every engine checks these (``model/engine/text_checks.py``);
``encoding_capacity`` is the layout's own check that no slot array was too small for a state it
reached.

``no_stale_edit_replicated`` and ``no_claim_mid_migration`` hold trivially here: the history of
STANDBY-era edits and the migration are constant (empty) in every configuration the flat table
model supports, so each is the constant ``True``, as the explicit predicate is on such states.
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
from replcheck.model.engine.names import named, var
from replcheck.model.engine.text import FlatProperty, count, off
from replcheck.model.features.sync_procedure import IN_DIR, NO_FILE
from replcheck.model.table import rules as table_rules
from replcheck.model.table.rules import NO_TIMESTAMP
from replcheck.model.table.state import (
    ARQP_ADD_MISSING,
    ARQP_PUT_MISSING,
    BEGIN_SEQ,
    REMOVE,
    SCP_CLAIM_STAGE,
    SCP_SPLIT,
    STANDBY,
)

if TYPE_CHECKING:
    from replcheck.model.table.layout import TableFlat


def table_properties(z: TableFlat) -> list[FlatProperty]:
    P, S, G, Q, W = z.P, z.S, z.G, z.Q, z.W

    def offset_covers(ops: Any, get: Any, rk: tuple, g: int, q: int, j: int) -> Any:
        """``should_replicate(offset, key) and start_position(offset, key) <= index`` for the
        row's column of group ``g`` (None when absent)."""
        now = named(get)
        has = now.queue_has_offset[*rk, g]
        ts = ops.ite(has, now.queue_offset_wal[*rk, g], NO_TIMESTAMP)
        pos = ops.ite(has, now.queue_offset_pos[*rk, g], 0)
        return ops.and_(
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
            table_rules.start_position_rule(ops, has, ts, pos, q) <= j,
        )

    def covered(ops: Any, get: Any, p: int, w: int, j: int) -> Any:
        """``_covered``: a live source has the entry queued; a dead owner's row still needs it;
        ADD_MISSING_QUEUES will add a queue for the crashed server."""
        now = named(get)
        x, g, q = z.key[w]
        out = []
        for sk in z.sh_keys:
            o, sp, src, sg, _m = sk
            if sp != p or sg != g or z.wal_owner(o, src) != x:
                continue
            head = ops.and_(*(ops.not_(now.shipper_has_wal[*sk, r]) for r in range(q)))
            out.append(
                ops.and_(
                    now.server_alive[o],
                    now.shipper[*sk],
                    now.shipper_has_wal[*sk, q],
                    ops.or_(ops.not_(head), now.shipper_pos[*sk] <= j),
                )
            )
        for rk in z.rkeys:
            rp, o, src = rk
            if rp != p or z.wal_owner(o, src) != x:
                continue
            out.append(
                ops.and_(
                    now.queue_row[*rk],
                    ops.not_(now.server_alive[o]),
                    offset_covers(ops, get, rk, g, q, j),
                )
            )
        stage = now.scp_stage[x]
        dead = ops.not_(now.server_alive[x])
        out.append(
            ops.and_(
                dead,
                stage >= SCP_SPLIT,
                stage <= ARQP_ADD_MISSING,
                now.peer_state[p] != REMOVED,
            )
        )
        out.append(ops.and_(dead, stage == ARQP_PUT_MISSING, now.scp_missing_peer[x, p]))
        return ops.or_(*out)

    def no_lost_edit(ops: Any, get: Any) -> Any:
        """Seed 004: "otherwise there will be data loss in the peer cluster." Every edit owed to a
        peer that still exists has been applied there, or a live source, a dead owner's queue, a
        queue still to be added, a ZooKeeper queue or a SyncUp run will replicate it from a WAL that
        still exists."""
        ok = []
        for owed, w, j, p in unapplied(z, ops, get):
            safe = ops.and_(named(get).wal_place[w] != DELETED, covered(ops, get, p, w, j))
            ok.append(ops.implies(owed, safe))
        return ops.and_(*ok)

    def deleted(ops: Any, get: Any, w: int) -> Any:
        now = named(get)
        return ops.and_(now.wal_exists[w], now.wal_place[w] == DELETED)

    def no_wal_deleted_while_needed(ops: Any, get: Any) -> Any:
        """Seed 004: "all the files before this offset can be deleted, otherwise not." No deleted
        WAL is queued in a live source of a peer that still exists, and none is at or after the
        offset of a queue row of such a peer (a live, SCP-unfinished or not-yet-claimed server's
        queue). (A removed peer's source ships until the refresh on its server stops it, and the
        cleaner no longer keeps its WALs: what it can no longer read is owed to no one.)"""
        now = named(get)
        gone = {}
        for w in W:
            d = deleted(ops, get, w)
            if not off(d):
                gone[w] = d
        ok = []
        if not gone:
            return True
        for sk in z.sh_keys:
            o, p, src, g, _m = sk
            on = ops.and_(
                now.server_alive[o],
                now.peer_state[p] != REMOVED,
                now.shipper[*sk],
            )
            if off(on):
                continue
            for q in Q:
                w = z.slot(z.wal_owner(o, src), g, q)
                if w in gone:
                    ok.append(ops.not_(ops.and_(on, now.shipper_has_wal[*sk, q], gone[w])))
        for rk in z.rkeys:
            p, o, src = rk
            on = ops.and_(now.queue_row[*rk], now.peer_state[p] != REMOVED)
            if off(on):
                continue
            x = z.wal_owner(o, src)
            for g in G:
                has = now.queue_has_offset[*rk, g]
                if off(has):
                    continue
                seq, pos = now.queue_offset_wal[*rk, g], now.queue_offset_pos[*rk, g]
                for q in Q:
                    w = z.slot(x, g, q)
                    if w not in gone:
                        continue
                    needs = table_rules.should_replicate_rule(ops, True, seq, pos, q)
                    ok.append(ops.not_(ops.and_(on, has, seq != BEGIN_SEQ, gone[w], needs)))
        return ops.and_(*ok)

    def offset_within_wal(ops: Any, get: Any) -> Any:
        """Seed 004: "the offset of a replication queue is just a WAL file and the offset in this
        file" (seed 003: "the latest position that has been replicated"). A persisted group
        offset never points past the data its WAL holds: a restarted or recovered source starts
        there, and an offset past the end would skip the edits written up to it."""
        now = named(get)
        out = []
        for rk in z.rkeys:
            _p, o, src = rk
            on = now.queue_row[*rk]
            if off(on):
                continue
            x = z.wal_owner(o, src)
            for g in G:
                has = ops.and_(on, now.queue_has_offset[*rk, g])
                if off(has):
                    continue
                seq, pos = now.queue_offset_wal[*rk, g], now.queue_offset_pos[*rk, g]
                for q in Q:
                    n = now.wal_length[z.slot(x, g, q)]
                    out.append(ops.not_(ops.and_(has, seq == q, pos > n)))
        return ops.and_(*out)

    def one_queue_per_source(ops: Any, get: Any) -> Any:
        """Seed 004: "we only need to replicate the WAL data of the first region server" — and once:
        at most one queue per (source server, peer)."""
        out = []
        for p in P:
            for x in S:
                rows = [rk for rk in z.rkeys if rk[0] == p and z.wal_owner(rk[1], rk[2]) == x]
                out.append(count(ops, (named(get).queue_row[*rk] for rk in rows)) <= 1)
        return ops.and_(*out)

    def single_source(ops: Any, get: Any) -> Any:
        """Seed 000: "the master cluster Region Server creates one new source thread per copied
        queue": each WAL is read for a peer by at most one live source."""
        now = named(get)
        live = []
        for sk in z.sh_keys:
            on = ops.and_(now.server_alive[sk[0]], now.shipper[*sk])
            if not off(on):
                live.append((sk, on))
        out = []
        for p in P:
            for w in W:
                x, g, q = z.key[w]
                n = count(
                    ops,
                    (
                        ops.and_(on, now.shipper_has_wal[*sk, q])
                        for sk, on in live
                        if sk[1] == p and sk[3] == g and z.wal_owner(sk[0], sk[2]) == x
                    ),
                )
                out.append(n <= 1)
        return ops.and_(*out)

    def no_queue_after_removal(ops: Any, get: Any) -> Any:
        """Seed 004: RemovePeerProcedure must make sure the claim stage "does not insert a new
        replication queue for the deleted replication peer, or at least, we need to have a way to
        delete these replication queues properly." Once it finished, no queue, ``sid`` or
        ``hfileref`` row of the peer exists, and none is created afterwards (until the peer is added
        again under its id)."""
        now = named(get)
        out = []
        for p in P:
            done = ops.and_(now.peer_removed[p], now.peer_state[p] == REMOVED)
            rows = ops.or_(*(now.queue_row[*rk] for rk in z.rkeys if rk[0] == p))
            out.append(ops.not_(ops.and_(done, ops.or_(rows, z.peer_rows_left(ops, get, p)))))
        return ops.and_(*out)

    def sources_follow_peers(ops: Any, get: Any) -> Any:
        """Seed 003: "Each region server has one queue for every peer cluster it replicates to."
        Once no procedure of a peer is under way (none runs, none waits for the peer's lock),
        every live region server has a normal source for the peer exactly when the peer is in
        peer storage: a server that does not know of a peer replicates nothing to it, and
        nothing else notices."""
        now = named(get)
        out = []
        for p in P:
            stored = z.storage(ops, get, p)
            idle = z.peer_idle(ops, get, p)
            for s in S:
                agree = ops.eq(now.knows_peer[s, p], stored)
                out.append(ops.implies(ops.and_(idle, now.server_alive[s]), agree))
        return ops.and_(*out)

    def no_stale_edit_replicated(ops: Any, get: Any) -> Any:
        """Seed 004: "when converting from STANDBY to DOWNGRADE_ACTIVE, we need to make sure we do
        not replicate the data which belongs to the previous DA state." No edit left unreplicated
        when the peer went to STANDBY is ever applied there."""
        return True

    SP = range(z.cfg.sync_peers)
    RW = range(z.cfg.remote_wals)

    def acked_edits_replayed(ops: Any, get: Any) -> Any:
        """Reference section 7: for STANDBY -> DOWNGRADE_ACTIVE, REPLAY_REMOTE_WAL_IN_PEER runs
        ``RecoverStandbyProcedure``: "RENAME_SYNC_REPLICATION_WALS_DIR -> ... DISPATCH_WALS (one
        SyncReplicationReplayWALProcedure per WAL)", and "the source RS deletes remote WAL copies
        once replicated". Every edit the ACTIVE cluster acknowledged (written to its WAL and to
        the remote WAL) is in cluster 0 once cluster 0 is no longer STANDBY (applies with
        ``remote_wals``: cluster 0 is the STANDBY, ``model/features/sync_remote.py``)."""
        now = named(get)
        out = []
        for p in SP:
            promoted = now.sync_state[p] != STANDBY
            for k in RW:
                acked = k < now.remote_acked[p]
                out.append(ops.implies(ops.and_(promoted, acked), now.remote_applied[p, k]))
        return ops.and_(*out)

    def no_remote_wals_after_removal(ops: Any, get: Any) -> Any:
        """Reference section 7: "Remote WAL dir: ``remoteWALs/<peerId>`` (suffixes: ``-replay``,
        ``-snapshot`` dirs; ``.syncrep`` WALs ...)"; RemovePeerProcedure deletes them all
        (``removePeerRemoteWALs``). Once it finished, none of the peer's remote WAL directories
        and no remote WAL of the peer is left (applies with ``remote_wals``)."""
        now = named(get)
        out = []
        for p in SP:
            left = [
                now.remote_wal_dir[p],
                now.remote_replay_dir[p],
                now.remote_snapshot_dir[p],
            ]
            left += [now.remote_wal_file[p, k] != NO_FILE for k in RW]
            out.append(ops.implies(now.peer_removed[p], ops.not_(ops.or_(*left))))
        return ops.and_(*out)

    def replicated_remote_wals_deleted(ops: Any, get: Any) -> Any:
        """Reference section 7: "The source RS deletes remote WAL copies once replicated
        (``cleanOldLogs`` -> ``removeRemoteWALs``, also in DA: HBASE-20434)." Goal: no remote WAL
        whose edit cluster 0 has applied is left in ``remoteWALs/<peerId>``, whether the peer's
        cluster is still ACTIVE or went DOWNGRADE_ACTIVE (applies with ``remote_wals``)."""
        now = named(get)
        return ops.and_(
            *(
                ops.not_(ops.and_(now.remote_wal_file[p, k] == IN_DIR, now.remote_applied[p, k]))
                for p in SP
                for k in RW
            )
        )

    def no_claim_mid_migration(ops: Any, get: Any) -> Any:
        """Seed 004: "during migration, the region server can not claim the replication queues
        too." While queues are still being migrated (up to and including MIGRATE) no claim procedure
        runs. (The code waits longer, until the whole procedure is done; seed 004 lets claims start
        once the data is migrated, and both are safe.)"""
        return True

    def no_abort_by_removed_queue(ops: Any, get: Any) -> Any:
        """Reference section 9: "znodes of the legacy ``region_replica_replication`` queues are
        kept until CLEAN_UP (HBASE-29169)", and HBase's iterator: "If there are
        region_replica_replication queues then we can not delete the data right now, otherwise we
        may crash the old region servers". No region server has aborted because its own queue
        znode was removed under its running source (applies with ``legacy_peer``)."""
        return ops.not_(ops.or_(*(named(get).legacy_aborted[s] for s in z.legacy_servers)))

    def hfile_refs_migrated(ops: Any, get: Any) -> Any:
        """Reference section 9: MIGRATE runs "3 parallel tasks: queues, last pushed seq ids,
        hfile refs", and a 3.x ``ReplicationHFileCleaner`` "checks if a hfile is still scheduled
        for replication" in the table only. While the bulk-loaded hfile's marker is owed to a
        peer that still exists and not yet applied there, the peer's reference is in ZooKeeper
        (not migrated yet) or in its ``hfileref`` row (applies with ``zk_hfile_refs``)."""
        now = named(get)
        return ops.and_(
            *(
                ops.implies(
                    z.marker_owed(ops, get, p),
                    ops.or_(now.zk_hfile_refs[p], now.hfile_ref[p]),
                )
                for p in z.zk_hfile_peers
            )
        )

    def offsets_monotone(ops: Any, before: Any, after: Any) -> Any:
        """Seed 004: "When starting a recovered replication queue, we will skip all the files before
        this offset": a queue's group offset never moves backwards in timestamp order."""
        was = named(before)
        now = named(after)
        out = []
        for rk in z.rkeys:
            for og in z.OG:
                had = ops.and_(
                    was.queue_row[*rk],
                    was.queue_has_offset[*rk, og],
                    was.queue_offset_wal[*rk, og] != BEGIN_SEQ,
                )
                has = ops.and_(now.queue_row[*rk], now.queue_has_offset[*rk, og])
                s0, p0 = (
                    was.queue_offset_wal[*rk, og],
                    was.queue_offset_pos[*rk, og],
                )
                s1, p1 = (
                    now.queue_offset_wal[*rk, og],
                    now.queue_offset_pos[*rk, og],
                )
                back = ops.or_(
                    s1 < s0,
                    ops.and_(s1 == s0, p0 >= 0, p1 >= 0, p1 < p0),
                    ops.and_(s1 == s0, p0 < 0, p1 >= 0),
                )
                out.append(ops.not_(ops.and_(had, has, back)))
        return ops.and_(*out)

    def duplicates_explained(ops: Any, before: Any, after: Any) -> Any:
        return duplicates_only_explained(
            z, ops, before, after, lambda p: ops.not_(z.duplicates_explained_for(ops, after, p))
        )

    duplicates_explained.__doc__ = duplicates_only_explained.__doc__

    def encoding_capacity(ops: Any, get: Any) -> Any:
        return ops.not_(named(get).overflow)

    # --- liveness goals (a feature mixin reads them through its own view) ---------------------

    def edits_delivered(ops: Any, get: Any) -> Any:
        """Seed 004: queues exist so that nothing "will be data loss in the peer cluster". Goal:
        every edit owed to an enabled peer is applied there (stale STANDBY-era edits excepted)."""
        return ops.not_(ops.or_(*undelivered(z, ops, get)))

    def dead_queues_claimed(ops: Any, get: Any) -> Any:
        """Seed 004: "in the claim queue stage of SCP, we list all the replication peers, create a
        replication queue for it if it does not exist yet, and then let other region servers to
        claim it." Goal: no dead server owns a queue of a peer in storage, and no SCP is stuck."""
        now = named(get)
        rows = [
            ops.and_(
                now.queue_row[*rk],
                ops.not_(now.server_alive[rk[1]]),
                now.peer_state[rk[0]] != REMOVED,
            )
            for rk in z.rkeys
        ]
        stuck = ops.or_(*(now.scp_stage[s] == SCP_CLAIM_STAGE for s in S))
        return ops.and_(
            ops.not_(ops.or_(*rows)),
            ops.or_(ops.not_(stuck), ops.not_(field(get, "master_up", var.master_up()))),
        )

    def removal_finishes(ops: Any, get: Any) -> Any:
        """Seed 004: collect the ongoing SCPs once, "otherwise if there are new SCPs scheduled, it
        could make us stuck here forever". Goal: no RemovePeerProcedure is pending."""
        now = named(get)
        return ops.not_(
            ops.or_(*(ops.and_(now.peer_proc[p], now.peer_proc_kind[p] == REMOVE) for p in P))
        )

    def removed_peer_queues_deleted(ops: Any, get: Any) -> Any:
        """Seed 004: "we need to have a way to delete these replication queues properly." Goal: no
        queue of a removed peer is left."""
        now = named(get)
        return ops.not_(
            ops.or_(
                *(ops.and_(now.queue_row[*rk], now.peer_state[rk[0]] == REMOVED) for rk in z.rkeys)
            )
        )

    def unneeded_wals_deleted(ops: Any, get: Any) -> Any:
        now = named(get)
        others = []
        if z.cfg.cleaner_input:  # meta WALs and other files are never needed
            others = [now.oldwals_meta[s] for s in S] + [now.oldwals_junk]
        return unneeded_files_deleted(z, ops, get, others)

    unneeded_wals_deleted.__doc__ = unneeded_files_deleted.__doc__

    def field(get: Any, name: str, key: tuple) -> Any:
        """A state field that is a variable only where a feature encodes it."""
        if name in z.constant_fields:
            return getattr(z.init_state, name)
        return get(key)

    def system_table_served(ops: Any, get: Any) -> Any:
        """Seed 004: "once a region server is started, we will assign the system table to it, and
        during the assignment processing, we need to create a WAL file and write the open marker to
        it, but before we can writing anything into the WAL file, we need to store this WAL file to
        the system table. Deadlock." Goal: the region of ``hbase:replication`` is open."""
        return field(get, "table_online", var.replication_table_online())

    edits = edit_properties(z)
    out = [
        FlatProperty.of("invariant", f)
        for f in (
            no_lost_edit,
            no_wal_deleted_while_needed,
            one_queue_per_source,
            single_source,
            offset_within_wal,
        )
    ]
    out += edits.values()
    out += [
        FlatProperty.of("invariant", f)
        for f in (
            no_queue_after_removal,
            no_stale_edit_replicated,
            no_claim_mid_migration,
            sources_follow_peers,
        )
    ]
    if z.cfg.remote_wals:
        out += [
            FlatProperty.of("invariant", f)
            for f in (acked_edits_replayed, no_remote_wals_after_removal)
        ]
    if z.cfg.legacy_peer:
        out.append(FlatProperty.of("invariant", no_abort_by_removed_queue))
    if z.cfg.zk_hfile_refs:
        out.append(FlatProperty.of("invariant", hfile_refs_migrated))
    out.append(FlatProperty.of("step", offsets_monotone))
    out.append(FlatProperty.of("step", duplicates_explained))
    out.append(FlatProperty.of("invariant", encoding_capacity))
    out += [
        FlatProperty.of("liveness", f)
        for f in (
            edits_delivered,
            dead_queues_claimed,
            removal_finishes,
            removed_peer_queues_deleted,
            system_table_served,
        )
        if f.__name__ not in z.cfg.skip_liveness
    ]
    if z.cfg.cleaner_chore and "unneeded_wals_deleted" not in z.cfg.skip_liveness:
        out.append(FlatProperty.of("liveness", unneeded_wals_deleted))
    if z.cfg.remote_wals and "replicated_remote_wals_deleted" not in z.cfg.skip_liveness:
        out.append(FlatProperty.of("liveness", replicated_remote_wals_deleted))
    return out
