"""Table-era mutants: each overrides exactly one named step of ``table`` and says which bug it
reproduces (reference section 11, and the hazards seed 004 argues against)."""

from __future__ import annotations

from replcheck.model.common.state import WalKey
from replcheck.model.config import Config
from replcheck.model.engine.logic import PY, B, I, Ops, dual
from replcheck.model.features import (
    cleaner_input,
    hfile_refs,
    peer_life,
    serial,
    serial_life,
    storage_faults,
)
from replcheck.model.table import claim, master, peer_procs, scp, source
from replcheck.model.table import rules as table_rules
from replcheck.model.table.designs import Table
from replcheck.model.table.rules import (
    QueueView,
    dead_server_may_delete_rule,
    live_server_may_delete_rule,
    should_replicate_rule,
)
from replcheck.model.table.state import TServer, TState

# --- the broken rules, in dual form (``model/engine/logic.py``)
# ----------------------------------------


def no_fence(ops: Ops) -> B:
    """HBASE-27214: AddPeerProcedure leaves the log cleaner alone."""
    return False


def unguarded(ops: Ops) -> B:
    """claimQueue's delete+put without a condition."""
    return False


def peer_always_known(ops: Ops, known: B) -> B:
    """A claimer that does not check the peer."""
    return True


def alive_only(ops: Ops, alive: B, scp_unfinished: B) -> B:
    """A cleaner that counts only online servers as live."""
    return alive


def missing_queue_deletes(
    ops: Ops, wal_ts: I, live: B, has_server: B, queues: list[QueueView]
) -> B:
    """A cleaner that applies the live-server rule to the peers that have a queue only, and
    deletes when none has: a missing queue no longer keeps the WAL."""
    present = [q._replace(listed=ops.and_(q.listed, q.has_queue)) for q in queues]
    return ops.or_(
        ops.not_(ops.or_(*(q.listed for q in present))),
        live_server_may_delete_rule(ops, has_server, present, wal_ts),
    )


def dead_without_queue_kept(
    ops: Ops, wal_ts: I, live: B, has_server: B, queues: list[QueueView]
) -> B:
    """A cleaner whose dead-server filter starts as the live one does: a server with no queue
    at all keeps its WALs ("replication queues missing"), so a fully dead server's WALs stay."""
    return ops.or_(
        ops.not_(ops.or_(*(q.listed for q in queues))),
        ops.and_(
            has_server,
            ops.ite(
                live,
                live_server_may_delete_rule(ops, has_server, queues, wal_ts),
                dead_server_may_delete_rule(ops, has_server, queues, wal_ts),
            ),
        ),
    )


def offset_wal_done(ops: Ops, wal_ts: I, live: B, has_server: B, queues: list[QueueView]) -> B:
    """A cleaner that skips a queue whose offset names the WAL itself, as if it were done."""
    return ops.or_(
        ops.not_(ops.or_(*(q.listed for q in queues))),
        ops.ite(
            ops.not_(has_server),
            ops.not_(live),
            ops.and_(
                *(
                    ops.implies(
                        q.listed,
                        ops.and_(
                            ops.implies(ops.not_(q.has_queue), ops.not_(live)),
                            ops.implies(
                                ops.and_(
                                    q.has_queue,
                                    ops.not_(ops.and_(q.has_offset, q.start_ts == wal_ts)),
                                ),
                                ops.not_(
                                    should_replicate_rule(
                                        ops, q.has_offset, q.start_ts, q.pos, wal_ts
                                    )
                                ),
                            ),
                        ),
                    )
                    for q in queues
                )
            ),
        ),
    )


class NoCleanerBarrier(Table):
    name = "table/HBASE-27214"
    mutant_of = "table"
    overrides = "rule_fence_add"
    bug = (
        "HBASE-27214: AddPeerProcedure does not disable the log cleaner; a cleaner run whose "
        "snapshot predates the new peer ('no peers: delete everything') deletes a WAL the new "
        "peer's source has just queued"
    )
    configs = ("t-add-peer",)

    @dual(no_fence)
    def rule_fence_add(self) -> bool:
        return no_fence(PY)


class RemoveWithoutWaiting(Table):
    name = "table/HBASE-27213"
    mutant_of = "table"
    overrides = "rule_removal_pending"
    bug = (
        "HBASE-27213: RemovePeerProcedure removes all queues without waiting for the claim "
        "procedures that read the peer list before the removal; one inserts a BEGIN queue for "
        "the removed peer afterwards (an orphan queue)"
    )
    configs = ("t-remove-peer",)
    text = peer_procs.RemoveWithoutWaiting


class RemoveRecollects(Table):
    name = "table/HBASE-27213-recollect"
    mutant_of = "table"
    overrides = "rule_removal_pending"
    bug = (
        "HBASE-27213's other form: RemovePeerProcedure collects the running claim procedures again "
        "on every retry, so while new SCPs keep arriving it waits forever (seed 004: 'otherwise "
        "if there are new SCPs scheduled, it could make us stuck here forever')"
    )
    configs = ("t-remove-starve",)
    text = peer_procs.RemoveRecollects


class RemoveAllOnePass(Table):
    name = "table/remove-all-one-pass"
    mutant_of = "table"
    overrides = "rule_remove_passes"
    bug = (
        "removeAllQueues scans the peer's rows once: a claim still in flight (its claimer already "
        "declared dead) moves a queue to a key the scan did not read, which is left behind"
    )
    configs = ("t-remove-zombie",)

    def rule_remove_passes(self) -> int:
        """removeAllQueues scans the peer's queue rows once."""
        return 1


class AddMissingRerun(Table):
    name = "table/add-missing-rerun"
    mutant_of = "table"
    overrides = "rule_rerun_add_missing"
    bug = (
        "the deprecated ClaimReplicationQueuesProcedure: every CLAIM round adds the missing queues "
        "again, so a peer whose queue was claimed away gets a second BEGIN queue and the dead "
        "server's WALs are replicated twice"
    )
    configs = ("t-race",)
    text = scp.AddMissingRerun


class RecoveredEndsEarly(Table):
    name = "table/HBASE-28155"
    mutant_of = "table"
    overrides = "rule_recovered_done"
    bug = (
        "HBASE-28155: a recovered source's first WAL group finishes before the next shipper is "
        "registered, so the queue is removed with groups still unreplicated"
    )
    configs = ("t-multiwal",)
    text = source.RecoveredEndsEarly


class PositionNotReset(Table):
    name = "table/position-not-reset"
    mutant_of = "table"
    overrides = "rule_position_after_switch"
    bug = (
        "HBASE-29987: on a file switch the WAL reader keeps the finished WAL's position, so the "
        "next WAL is read, and its offset persisted, from a position its data may not reach"
    )
    configs = ("t-std",)
    text = source.PositionNotReset


class ShipKeepsPosition(Table):
    name = "table/ship-keeps-position"
    mutant_of = "table"
    overrides = "rule_position_after_ship"
    bug = (
        "the reader moves its position only when an offset is persisted, not when a batch is "
        "shipped: a live source ships the same batch again and the peer applies it twice, "
        "with no failover or retry to explain it"
    )
    configs = ("t-std",)
    text = source.ShipKeepsPosition


class ClaimIgnoresPeer(Table):
    name = "table/HBASE-17077"
    mutant_of = "table"
    overrides = "rule_claim_peer_known"
    bug = (
        "HBASE-17077 / HBASE-7380: the claimer does not check the peer, so a removed peer's queue "
        "is claimed and replicated, and its row outlives RemovePeerProcedure"
    )
    configs = ("t-remove-peer",)

    @dual(peer_always_known)
    def rule_claim_peer_known(self, srv: TServer, peer: int) -> bool:
        return peer_always_known(PY, bool(srv.known >> peer & 1))


class CleanerScpUnfinishedIsDead(Table):
    name = "table/cleaner-scp-unfinished-dead"
    mutant_of = "table"
    overrides = "rule_cleaner_live"
    bug = (
        "the log cleaner treats a crashed server whose SCP has not finished as dead; its queues "
        "are not added or claimed yet, so the dead-server rule deletes its WALs (seed 004: 'If SCP "
        "is not scheduled or not finished, we should still treat it as a live region server')"
    )
    configs = ("t-std",)

    @dual(alive_only)
    def rule_cleaner_live(self, st: TState) -> int:
        return table_rules.live_mask(
            alive_only,
            ((srv.alive, self.scp_unfinished(st, s)) for s, srv in enumerate(st.servers)),
        )


class CleanerMissingQueueDeletes(Table):
    name = "table/cleaner-missing-queue-deletes"
    mutant_of = "table"
    overrides = "rule_cleaner_may_delete"
    bug = (
        "the log cleaner deletes a live server's WAL when that server's queue for a peer is "
        "missing (seed 004: 'if there is a missing queue, then we do not delete the file')"
    )
    configs = ("t-std",)

    @dual(missing_queue_deletes)
    def rule_cleaner_may_delete(self, cfg: Config, st: TState, key: WalKey) -> bool:
        return table_rules.cleaner_decides(missing_queue_deletes, st.cleaner, key)


class CleanerOwnWalDone(Table):
    name = "table/cleaner-offset-wal-done"
    mutant_of = "table"
    overrides = "rule_cleaner_may_delete"
    bug = (
        "the log cleaner takes the offset's own WAL as replicated (ignoring that only -1 means "
        "'fully replicated out'), deleting the WAL a source is still reading"
    )
    configs = ("t-std",)

    @dual(offset_wal_done)
    def rule_cleaner_may_delete(self, cfg: Config, st: TState, key: WalKey) -> bool:
        return table_rules.cleaner_decides(offset_wal_done, st.cleaner, key)


class CleanerKeepsQueuelessDead(Table):
    name = "table/cleaner-keeps-queueless-dead"
    mutant_of = "table"
    overrides = "rule_cleaner_may_delete"
    bug = (
        "the log cleaner's dead-server filter keeps the WALs of a server with no queue, as the "
        "live-server filter does ('replication queues missing'); reference section 6: for a fully "
        "dead server 'm is None: DELETE', so these WALs are never deleted"
    )
    configs = ("t-chore",)

    @dual(dead_without_queue_kept)
    def rule_cleaner_may_delete(self, cfg: Config, st: TState, key: WalKey) -> bool:
        return table_rules.cleaner_decides(dead_without_queue_kept, st.cleaner, key)


class CleanerUnvalidatedNames(Table):
    name = "table/cleaner-unvalidated-names"
    mutant_of = "table"
    overrides = "rule_cleaner_validates_names"
    bug = (
        "the log cleaner parses the server from every file name in oldWALs without first "
        "checking it is a WAL's (validateWALFilename); one stray file makes every run throw, "
        "so no WAL is deleted any more"
    )
    configs = ("t-chore",)
    text = cleaner_input.UnvalidatedNames


class RefreshDropsRecoveredWals(Table):
    name = "table/HBASE-24871"
    mutant_of = "table"
    overrides = "rule_refresh_keeps_recovered_wals"
    bug = (
        "HBASE-24871: refreshSources (a disabled peer, a new key configuration) creates the "
        "peer's recovered sources again without their WALs (they were enqueued to the new normal "
        "source), so each ends at once and removes its queue: the dead server's edits are lost"
    )
    configs = ("t-peer-update",)
    text = peer_life.RefreshDropsRecoveredWals


class CheckedAtSubmission(Table):
    name = "table/peer-checked-at-submission"
    mutant_of = "table"
    overrides = "rule_peer_checked_under_lock"
    bug = (
        "the peer is checked (it exists, or is not already in the state asked for) when the "
        "admin's command is accepted, not in the procedure's PRE under the peer's lock: a "
        "DisablePeerProcedure that waited behind a RemovePeerProcedure stores the removed peer "
        "again, and no region server replicates to it"
    )
    configs = ("t-peer-readd",)
    text = peer_procs.CheckedAtSubmission


class RefreshWriteFailureIgnored(Table):
    name = "table/refresh-write-failure-ignored"
    mutant_of = "table"
    overrides = "rule_write_failure_aborts"
    bug = (
        "a region server whose write to hbase:replication fails does not abort: AddPeer's "
        "refresh on it fails its setOffset after the peer entered its peer cache, so it reports "
        "the refresh done with no source for the new peer, and its edits never reach the peer "
        "(HBase aborts the server: 'failure aborts the RS and fails the refresh')"
    )
    configs = ("t-storage-faults",)
    text = storage_faults.RefreshFailureIgnored


class SerialPushesOnFailedCheck(Table):
    name = "table/HBASE-29501"
    mutant_of = "table"
    overrides = "rule_previous_range_pushed"
    bug = (
        "HBASE-29501: when SerialReplicationChecker.canPush cannot read the barriers or the "
        "last pushed sequence id, the reader pushes the entry anyway; an edit of the region's "
        "new range reaches the serial peer before the edits its previous server wrote"
    )
    configs = ("t-serial",)
    text = serial.PushesOnFailedCheck


class SeqIdsApartFromOffset(Table):
    name = "table/sid-apart-from-offset"
    mutant_of = "table"
    overrides = "rule_seq_ids_with_offset"
    bug = (
        "setOffset writes the offset and the last pushed sequence ids in two puts instead of one "
        "conditional multi-row mutation: a server that dies between them leaves the sequence id "
        "past its offset, the region's next range is pushed, and the recovered queue then "
        "pushes the previous range's edits again after it"
    )
    configs = ("t-serial",)
    text = serial.SeqIdsApart


class HFileRefsAfterCommit(Table):
    name = "table/hfile-refs-after-commit"
    mutant_of = "table"
    overrides = "rule_refs_before_commit"
    bug = (
        "the bulk load adds its hfile references after it commits the hfile and writes the "
        "marker (not in preCommitStoreFile): a compaction archives the hfile and the hfile "
        "cleaner, finding no reference, deletes it before the marker is replicated; the peer "
        "then skips the missing file"
    )
    configs = ("t-hfile",)
    text = hfile_refs.RefsAfterCommit


class RemovalKeepsHFileRefs(Table):
    name = "table/remove-keeps-hfile-refs"
    mutant_of = "table"
    overrides = "rule_removal_deletes_hfile_refs"
    bug = (
        "RemovePeerProcedure deletes the peer's queues and sid row but not its hfileref row "
        "(no removePeerFromHFileRefs): the removed peer's references keep its bulk-loaded "
        "hfile from the hfile cleaner for ever, and an AddPeer under the same id fails "
        "('Undeleted queue for peer ... in hfile-refs')"
    )
    configs = ("t-hfile-remove",)
    text = hfile_refs.RemovalKeepsHFileRefs


class SerialAddSkipsSeqIds(Table):
    name = "table/serial-add-skips-seq-id"
    mutant_of = "table"
    overrides = "rule_writes_last_pushed_seq_ids"
    bug = (
        "a serial peer's AddPeerProcedure reopens the regions and enables the peer without "
        "SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID: the peer has no last pushed sequence id for the "
        "region, so the checker holds the new range until the ranges before it are pushed to "
        "the peer, which are in WALs no queue of the new peer holds: its edits never go"
    )
    configs = ("t-serial-add",)
    text = serial_life.AddSkipsSeqIds


class SerialRemovalKeepsSeqIds(Table):
    name = "table/serial-remove-keeps-sid"
    mutant_of = "table"
    overrides = "rule_removal_deletes_last_seq_ids"
    bug = (
        "RemovePeerProcedure of a serial peer deletes its queues but not its sid cells (no "
        "removeLastSequenceIds): the removed peer's last pushed sequence ids stay in "
        "hbase:replication after the removal"
    )
    configs = ("t-serial-readd",)
    text = serial_life.RemovalKeepsSeqIds


class UnguardedClaim(Table):
    name = "table/unguarded-claim"
    mutant_of = "table"
    overrides = "rule_claim_guarded"
    bug = (
        "claimQueue's delete+put is not conditional: a claim dispatched twice (a master restart "
        "replays the child while the target still runs it) moves the queue twice and starts two "
        "recovered sources for it"
    )
    configs = ("t-race",)

    @dual(unguarded)
    def rule_claim_guarded(self) -> bool:
        return unguarded(PY)


class RecoveredListsWalDir(Table):
    name = "table/recovered-lists-wal-dir"
    mutant_of = "table"
    overrides = "rule_recovered_wals"
    bug = (
        "a recovered queue lists the dead server's WALs directory instead of oldWALs; after SCP "
        "split the logs it is empty, so the queue is finished without replicating anything"
    )
    configs = ("t-std",)
    text = claim.RecoveredListsWalDir


class RemovePeerKeepsRecovered(Table):
    name = "table/remove-peer-keeps-recovered"
    mutant_of = "table"
    overrides = "rs_remove_peer"
    bug = (
        "RSM.removePeer stops only the normal source: a recovered source of the removed peer "
        "keeps running, and its setOffset recreates a queue row after removeAllQueues"
    )
    configs = ("t-remove-peer",)
    text = peer_procs.RemovePeerKeepsRecovered


class RestartForgetsBarrier(Table):
    name = "table/restart-forgets-barrier"
    mutant_of = "table"
    overrides = "master_restart_barrier"
    bug = (
        "after a master restart the replayed AddPeerProcedure does not disable the log cleaner "
        "again (afterReplay, cf. HBASE-27988): the cleaner runs during the add"
    )
    configs = ("t-master-restart",)
    text = master.RestartForgetsBarrier


TABLE_MUTANTS = (
    NoCleanerBarrier,
    RemoveWithoutWaiting,
    RemoveRecollects,
    RemoveAllOnePass,
    AddMissingRerun,
    RecoveredEndsEarly,
    PositionNotReset,
    ShipKeepsPosition,
    ClaimIgnoresPeer,
    CleanerScpUnfinishedIsDead,
    CleanerMissingQueueDeletes,
    CleanerOwnWalDone,
    CleanerKeepsQueuelessDead,
    CleanerUnvalidatedNames,
    CheckedAtSubmission,
    HFileRefsAfterCommit,
    RefreshDropsRecoveredWals,
    RefreshWriteFailureIgnored,
    SeqIdsApartFromOffset,
    SerialPushesOnFailedCheck,
    SerialAddSkipsSeqIds,
    SerialRemovalKeepsSeqIds,
    RemovalKeepsHFileRefs,
    UnguardedClaim,
    RecoveredListsWalDir,
    RemovePeerKeepsRecovered,
    RestartForgetsBarrier,
)
