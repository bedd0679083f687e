"""The catalogue of ZooKeeper-era mutants: each a known bug, as one overridden named step.

Every mutant names the design it mutates, the step it overrides, the bug it reproduces (an HBase
issue where there is one, else the seed sentence it breaks) and the standard configurations in
which the checkers must catch it. A mutant overrides a dual-form rule (``model/engine/logic.py``)
or, through its ``text``, one step or helper of the protocol text (``model/engine/step.py``): either
way every engine reads the one override.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import (
    ARCHIVED,
    DELETED,
    GLOBAL,
    Claim,
    Edit,
    Queue,
    Shipper,
    State,
    Wal,
    WalKey,
)
from replcheck.model.config import Config
from replcheck.model.engine.logic import PY, B, I, Ops, S, after, before, dual
from replcheck.model.engine.names import named
from replcheck.model.engine.step import kinds_of, step
from replcheck.model.engine.text import Tx
from replcheck.model.zk.claims import LockClaims, MultiClaims
from replcheck.model.zk.cleaners import LockCleaner, MultiCleaner
from replcheck.model.zk.lock import ZkLock
from replcheck.model.zk.multi import ZkMulti
from replcheck.model.zk.peer_life import ZkPeerLife
from replcheck.model.zk.restarts import ZkRestarts
from replcheck.model.zk.source import ZkSources
from replcheck.model.zk.wal import ZkWals

# --- the broken rules, in dual form (``model/engine/logic.py``)
# ----------------------------------------


def claim_applies_always(ops: Ops, old_present: B, same_wals: B, new_exists: B) -> B:
    """HBASE-12241's claim: copy and delete are separate writes, so nothing makes a second copy
    fail."""
    return True


def drop_claimed_queue_never(ops: Ops, peer_removed: B) -> B:
    """HBASE-17077's claim: a removed peer's queue is claimed like any other."""
    return False


def start_position_zero(ops: Ops, stored: I) -> I:
    """A recovered source that starts its first WAL from 0."""
    return 0


def split_every_hyphen(ops: Ops, text: S, slots: int) -> rules.ParsedZkQueueId:
    """HBASE-8207's parser: the peer id up to the first ``-``, then a dead server's name between
    every two ``-`` (``peer, *dead = text.split("-")``)."""
    h = ops.index_of(text, "-", 0)
    peer = ops.ite(h < 0, text, before(ops, text, h))
    rest = ops.ite(h < 0, "", after(ops, text, h + 1))
    more = h >= 0
    dead = []
    for _ in range(slots):
        cut = ops.index_of(rest, "-", 0)
        dead.append((more, ops.ite(cut < 0, rest, before(ops, rest, cut))))
        more = ops.and_(more, cut >= 0)
        rest = ops.ite(cut < 0, "", after(ops, rest, cut + 1))
    return peer, dead, more


def wal_done_at_end_of_file(ops: Ops, newer_queued: B, closed: B, pos: I, length: I) -> B:
    """A source that drops its head WAL as soon as it read to the end of it."""
    return pos >= length


def claimed_chain_unchanged(ops: Ops, chain: tuple, dead: object) -> tuple:
    """A claimed queue that keeps its old name."""
    return tuple(chain)


def replicable_ignoring_origin(ops: Ops, kind: I, cluster_ids: tuple, target: I) -> B:
    """A filter that keeps GLOBAL edits whatever cluster they came from."""
    return kind == GLOBAL


def replicable_ignoring_scope(ops: Ops, kind: I, cluster_ids: tuple, target: I) -> B:
    """A filter that keeps every edit not from the target, whatever its scope."""
    return ops.not_(ops.or_(*(target == c for c in cluster_ids)))


class Hbase12865(ZkMulti):
    name = "zk-multi/HBASE-12865"
    mutant_of = "zk-multi"
    overrides = "claim_bump"
    configs = ("cleaner-race",)
    bug = (
        "HBASE-12865: the claim does not bump the cversion of /rs, so the cleaner's snapshot can "
        "miss a queue that moved between two servers it read, and delete a WAL still queued."
    )

    class text(MultiClaims):
        def claim_bump(self, ops: Any, tx: Any, cond: Any) -> None:
            """No ``cversion_`` node: the cversion of ``/rs`` still moves when a server's znode
            is created or deleted (ZooKeeper does that), not when a queue moves between two."""


class Hbase8099(ZkMulti):
    name = "zk-multi/HBASE-8099"
    mutant_of = "zk-multi"
    overrides = "claim_failed"
    configs = ("race",)
    bug = (
        "HBASE-8099: the claim returns the queue it read although its multi failed, so two region "
        "servers replicate the same queue."
    )

    class text(MultiClaims):
        def claim_failed(
            self, ops: Any, tx: Any, cond: Any, s: int, p: int, nci: int, snap: list
        ) -> None:
            """The failed claim starts a recovered source over the queue it read anyway."""
            self.start_recovered(ops, tx, cond, s, p, nci, snap)


class Hbase12241(ZkMulti):
    name = "zk-multi/HBASE-12241"
    mutant_of = "zk-multi"
    overrides = "claim_applies"
    configs = ("race",)
    bug = (
        "HBASE-12241: without multi, copying a queue and deleting the original are separate "
        "writes, so two survivors can both copy the same queue."
    )

    @dual(claim_applies_always)
    def claim_applies(self, st: State, s: int, claim: Claim) -> bool:
        return claim_applies_always(PY, True, True, False)


class Hbase26029(ZkMulti):
    name = "zk-multi/HBASE-26029"
    mutant_of = "zk-multi"
    overrides = "lose_failover_event"
    configs = ("std",)
    bug = (
        "HBASE-26029: claims are driven by ZooKeeper nodeDeleted events, which can be missed, so a "
        "dead server's queues are never claimed."
    )

    class text(MultiClaims):
        lose_failover_event = step(
            params=("dead",), fair=False, each=lambda text: [(d,) for d in text.S]
        )(MultiClaims.lose_failover_event.body)


class Hbase17077(ZkMulti):
    name = "zk-multi/HBASE-17077"
    mutant_of = "zk-multi"
    overrides = "rule_drop_claimed_queue"
    configs = ("peers",)
    bug = (
        "HBASE-17077: a survivor claims the queue of a peer that was removed, leaving an orphan "
        "queue (and its WALs) behind forever."
    )

    @dual(drop_claimed_queue_never)
    def rule_drop_claimed_queue(self, st: State, queue: Queue) -> bool:
        return drop_claimed_queue_never(PY, True)


class RecoveredRestartsAtZero(ZkMulti):
    name = "zk-multi/recovered-restarts-at-zero"
    mutant_of = "zk-multi"
    overrides = "rule_start_position"
    configs = ("std",)
    bug = (
        "A recovered source ignores the position in ZooKeeper and starts its first WAL from 0, "
        "writing an older position back (seed 003: the znode holds 'the latest position that has "
        "been replicated')."
    )

    @dual(start_position_zero)
    def rule_start_position(self, queue: Queue, key: WalKey) -> int:
        return start_position_zero(PY, dict(queue.wals)[key])


class Hbase16144(ZkLock):
    name = "zk-lock/HBASE-16144"
    mutant_of = "zk-lock"
    overrides = "lock_cleaner"
    configs = ("double-failure",)
    bug = (
        "HBASE-16144: the lock znode is persistent and nothing removes it when its holder dies "
        "mid-claim, so the dead server's queues are never recovered."
    )

    class text(LockClaims):
        lock_cleaner = step(params=("dead",), fair=True, each=lambda text: [])(
            LockClaims.lock_cleaner.body
        )


class Hbase8207(ZkLock):
    name = "zk-lock/HBASE-8207"
    mutant_of = "zk-lock"
    overrides = "rule_parse_queue_id"
    configs = ("hyphen-hosts",)
    bug = (
        "HBASE-8207: the recovered queue id is split on every '-', so a host name containing '-' "
        "yields the wrong dead server; its WALs are not found and are skipped."
    )

    @dual(split_every_hyphen)
    def rule_parse_queue_id(self, cfg: Config, text: str) -> tuple[str, list[str]]:
        peer, dead, _more = split_every_hyphen(PY, text, text.count("-") + 1)
        return peer, rules.present_names(dead)


class Hbase3515(ZkLock):
    name = "zk-lock/HBASE-3515"
    mutant_of = "zk-lock"
    overrides = "roll_fails"
    configs = ("zk-faults",)
    bug = (
        "HBASE-3515: the failure to add a new WAL to the queues in ZooKeeper is ignored; the "
        "server "
        "writes edits into a WAL no queue knows of."
    )

    class text(ZkWals):
        def roll_fails(self, ops: Any, tx: Any, s: int, g: int, q: int) -> None:
            """The failed write is ignored: the server rolls to a WAL no queue names."""
            tx.budget["zk_faults"] = tx.budget["zk_faults"] - 1
            self.switch_wal(ops, tx, s, g, q)


class DeleteCurrentWal(ZkLock):
    name = "zk-lock/delete-current-wal"
    mutant_of = "zk-lock"
    overrides = "rule_wal_done"
    configs = ("std",)
    bug = (
        "A source that read to the end of the WAL being written deletes it from its queue; seed "
        "001: 'reading up to the end of the current file does not delete the item in the queue'."
    )

    @dual(wal_done_at_end_of_file)
    def rule_wal_done(self, sh: Shipper, wal: Wal) -> bool:
        return wal_done_at_end_of_file(PY, len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries))


class AppendBeforeRegister(ZkLock):
    name = "zk-lock/append-before-register"
    mutant_of = "zk-lock"
    overrides = "roll_wal"
    configs = ("std",)
    bug = (
        "A roll makes the new WAL available before adding it to the queues; seed 001: the new "
        "file is added to the queues 'just before it is made available'."
    )

    class text(ZkWals):
        def roll_wal(self, ops: Any, tx: Any, s: int, g: int, q: int) -> None:
            """Use the new WAL first; it is queued later (``register_wal``)."""
            self.switch_wal(ops, tx, s, g, q)
            tx.wal_unregistered[s, self.cfg.slot((s, g, q + 1))] = True


class CleanerSkipsLookup(ZkLock):
    name = "zk-lock/cleaner-skips-lookup"
    mutant_of = "zk-lock"
    overrides = "clean_wal"
    configs = ("std",)
    bug = (
        "The log cleaner deletes by TTL alone; seed 003: 'archived logs passed their TTL may "
        "still be in a queue'."
    )

    class text(LockCleaner):
        def clean_wal(self, ops: Any, tx: Any, w: int) -> None:
            """Delete, with no lookup."""
            tx.wal_place[w] = DELETED


class CleanerStaleCache(ZkLock):
    name = "zk-lock/cleaner-stale-cache"
    mutant_of = "zk-lock"
    overrides = "clean_wal"
    configs = ("std",)
    bug = (
        "The log cleaner trusts its cache as the whole truth: a WAL not in the cache is deleted "
        "without looking the queues up again (seed 003 uses the cache only to find logs faster)."
    )

    class text(LockCleaner):
        def clean_wal(self, ops: Any, tx: Any, w: int) -> None:
            """With a cache from an earlier lookup, delete with no lookup; else look up."""
            cached = ops.or_(*(tx.cleaner_cache[x] for x in self.W))
            if cached is True:
                tx.wal_place[w] = DELETED
                return
            if cached is False:
                super().clean_wal(ops, tx, w)
                return
            normal = Tx(ops, tx.base)
            normal.new = dict(tx.new)
            super().clean_wal(ops, normal, w)
            for k, v in normal.new.items():
                if tx.new.get(k) is not v:
                    tx[k] = ops.ite(cached, tx[k], v)
            tx.when(cached).wal_place[w] = DELETED


class ClaimWithoutChain(ZkLock):
    name = "zk-lock/claim-without-chain"
    mutant_of = "zk-lock"
    overrides = "rule_claimed_chain"
    configs = ("std",)
    bug = (
        "The claimed queue keeps its old name instead of appending the dead server's; seed 000: "
        "'The recovered znodes are then renamed with the slave cluster ID appended to the name of "
        "the server that failed'."
    )
    names_ordered = (
        "the claimed queue keeps its name, so it merges with the claimer's own, and the merged "
        "queue lists the two servers' WALs in the order of the servers' names"
    )

    @dual(claimed_chain_unchanged)
    def rule_claimed_chain(self, chain: tuple[int, ...], dead: int) -> tuple[int, ...]:
        return claimed_chain_unchanged(PY, chain, dead)


class ReaderIgnoresArchive(ZkLock):
    name = "zk-lock/reader-ignores-archive"
    mutant_of = "zk-lock"
    overrides = "locate"
    configs = ("std",)
    bug = (
        "The reader is not told that a WAL moved to oldWALs, cannot open it and skips it; seed "
        "001: 'When a log is archived, the source threads are notified that the path for that log "
        "changed'."
    )

    class text(ZkSources):
        def locate(self, ops: Any, get: Any, s: int, p: int, ci: int, w: int) -> Any:
            """Never in oldWALs."""
            return ops.and_(
                named(get).wal_place[w] != ARCHIVED, super().locate(ops, get, s, p, ci, w)
            )


class NoLoopPrevention(ZkLock):
    name = "zk-lock/no-loop-prevention"
    mutant_of = "zk-lock"
    overrides = "rule_ships"
    configs = ("master-master",)
    bug = (
        "The source ignores the edit's cluster ids and ships edits back to the cluster they came "
        "from; seed 002: the preserved UUIDs 'prevent replication loops'."
    )

    @dual(replicable_ignoring_origin)
    def rule_ships(self, edit: Edit, target: int) -> bool:
        return replicable_ignoring_origin(PY, edit.kind, edit.cluster_ids, target)


class ShipsLocalScope(ZkLock):
    name = "zk-lock/ships-local-scope"
    mutant_of = "zk-lock"
    overrides = "rule_ships"
    configs = ("filtering",)
    bug = (
        "The source's filter ignores the column family's scope and the catalog table; seed 002: "
        "only families 'scoped GLOBAL' and 'not part of a catalog' are replicated."
    )

    @dual(replicable_ignoring_scope)
    def rule_ships(self, edit: Edit, target: int) -> bool:
        return replicable_ignoring_scope(PY, edit.kind, edit.cluster_ids, target)


class RestartAdoptsQueues(ZkLock):
    name = "zk-lock/restart-adopts-queues"
    mutant_of = "zk-lock"
    overrides = "old_name_failed_over"
    configs = ("restarts",)
    bug = (
        "A starting region server takes the znode it finds under its name for its own (a restart "
        "under the old server name, before its znode was failed over): its normal sources start "
        "on its new WAL, so the old WALs its queues list are never read, and no survivor locks "
        "the znode of a live server (HBase gives a restarted server a new start code, so it "
        "finds none)."
    )

    class text(ZkRestarts):
        def old_name_failed_over(self, t: Any, s: int) -> Any:
            """The server starts whatever it finds under its name: its old queues stay and
            become its own."""
            return True


class Hbase24871Zk(ZkMulti):
    name = "zk-multi/HBASE-24871"
    mutant_of = "zk-multi"
    overrides = "rule_refresh_keeps_recovered_wals"
    configs = ("peer-life",)
    bug = (
        "HBASE-24871: refreshSources creates the peer's recovered sources again without their "
        "WALs (walsByIdRecoveredQueues' WALs go to the new normal source): a new recovered "
        "source finds nothing to read, ends and deletes its queue znode, so the dead server's "
        "edits not yet shipped are lost."
    )

    class text(ZkPeerLife):
        def rule_refresh_keeps_recovered_wals(self) -> bool:
            """The recovered queue's WALs are not given to the new recovered source."""
            return False


class Hbase12865Chore(ZkLock):
    name = "zk-lock/HBASE-12865"
    mutant_of = "zk-lock"
    overrides = "chore_clean"
    configs = ("chore",)
    bug = (
        "HBASE-12865 in the chore: the cleaner keeps no cache and reads every queue once per run "
        "(the later getDeletableFiles' loadHLogsFromQueues), one rs znode after another, with no "
        "cversion check: a queue the claimer copied after its znode was read, and deleted from "
        "the dead server's before that one was read, is in neither view; its WAL is deleted."
    )
    kinds = (
        *(k for k in ZkLock.kinds if k.name not in ("clean", "chore_clean", "master_restart")),
        *(k for k in kinds_of(MultiCleaner) if k.name != "master_restart"),
        *(k for k in kinds_of(MultiCleaner) if k.name == "master_restart"),
    )

    class text(MultiCleaner, LockCleaner):
        """zk-multi's per-run snapshot in place of the cache; zk-lock's claims never move the
        cversion it would read again on."""

        chore_clean = step(params=("server", "group", "seq"), fair=True, each=lambda text: [])(
            LockCleaner.clean.body
        )


ZK_MUTANTS = (
    Hbase12865,
    Hbase8099,
    Hbase12241,
    Hbase26029,
    Hbase17077,
    RecoveredRestartsAtZero,
    Hbase16144,
    Hbase8207,
    Hbase3515,
    DeleteCurrentWal,
    AppendBeforeRegister,
    CleanerSkipsLookup,
    CleanerStaleCache,
    ClaimWithoutChain,
    ReaderIgnoresArchive,
    NoLoopPrevention,
    ShipsLocalScope,
    RestartAdoptsQueues,
    Hbase24871Zk,
    Hbase12865Chore,
)
