"""The catalogue of ZooKeeper-era mutants: each a known bug, as one overridden named step.

Every mutant names the design it mutates, the step it overrides, the bug it reproduces (an HBase
issue where there is one, else the seed sentence it breaks) and the standard configurations in
which the checkers must catch it.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import rules
from .config import Config
from .logic import PY, B, I, Ops, S, after, before, dual
from .state import ARCHIVED, DELETED, GLOBAL, Claim, Edit, Queue, Shipper, State, Wal, WalKey
from .zk_lock import ZkLock
from .zk_multi import ZkMulti

# --- the broken rules, in dual form (``model/logic.py``) ----------------------------------------


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

    def claim_bump(self, st: State) -> State:
        """No ``cversion_`` node: the cversion of ``/rs`` still moves when a server's znode is
        created or deleted (ZooKeeper does that), not when a queue moves between two."""
        return st


class Hbase8099(ZkMulti):
    name = "zk-multi/HBASE-8099"
    mutant_of = "zk-multi"
    overrides = "claim_failed"
    configs = ("race",)
    bug = (
        "HBASE-8099: the claim returns the queue it read although its multi failed, so two region "
        "servers replicate the same queue."
    )

    def claim_failed(self, cfg: Config, st: State, s: int, claim: Claim) -> State:
        d, q = claim
        return self.start_recovered(
            cfg, st, s, q._replace(chain=self.rule_claimed_chain(q.chain, d))
        )


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
    overrides = "en_lose_failover_event"
    configs = ("std",)
    bug = (
        "HBASE-26029: claims are driven by ZooKeeper nodeDeleted events, which can be missed, so a "
        "dead server's queues are never claimed."
    )

    def en_lose_failover_event(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d in range(cfg.servers):
            if st.failover >> d & 1:
                yield (d,)


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
    overrides = "en_lock_cleaner"
    configs = ("double-failure",)
    bug = (
        "HBASE-16144: the lock znode is persistent and nothing removes it when its holder dies "
        "mid-claim, so the dead server's queues are never recovered."
    )

    def en_lock_cleaner(self, cfg: Config, st: State) -> Iterator[tuple]:
        return iter(())


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
    overrides = "do_roll_zk_fail"
    configs = ("zk-faults",)
    bug = (
        "HBASE-3515: the failure to add a new WAL to the queues in ZooKeeper is ignored; the "
        "server "
        "writes edits into a WAL no queue knows of."
    )

    def do_roll_zk_fail(self, cfg: Config, st: State, s: int, g: int) -> State:
        st = st._replace(budget=st.budget._replace(zk_faults=st.budget.zk_faults - 1))
        return self.switch_wal(cfg, st, s, g, (s, g, st.servers[s].current[g] + 1))


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
    overrides = "do_roll"
    configs = ("std",)
    bug = (
        "A roll makes the new WAL available before adding it to the queues; seed 001: the new "
        "file is added to the queues 'just before it is made available'."
    )

    def do_roll(self, cfg: Config, st: State, s: int, g: int) -> State:
        key = (s, g, st.servers[s].current[g] + 1)
        st = self.switch_wal(cfg, st, s, g, key)
        srv = st.servers[s]
        return self.with_server(st, s, srv._replace(unregistered=(*srv.unregistered, key)))


class CleanerSkipsLookup(ZkLock):
    name = "zk-lock/cleaner-skips-lookup"
    mutant_of = "zk-lock"
    overrides = "do_clean"
    configs = ("std",)
    bug = (
        "The log cleaner deletes by TTL alone; seed 003: 'archived logs passed their TTL may "
        "still be in a queue'."
    )

    def do_clean(self, cfg: Config, st: State, s: int, g: int, seq: int) -> State:
        wal = st.wals[cfg.slot((s, g, seq))]
        return self.with_wal(cfg, st, wal._replace(place=DELETED))


class CleanerStaleCache(ZkLock):
    name = "zk-lock/cleaner-stale-cache"
    mutant_of = "zk-lock"
    overrides = "do_clean"
    configs = ("std",)
    bug = (
        "The log cleaner trusts its cache as the whole truth: a WAL not in the cache is deleted "
        "without looking the queues up again (seed 003 uses the cache only to find logs faster)."
    )

    def do_clean(self, cfg: Config, st: State, s: int, g: int, seq: int) -> State:
        if not st.cleaner.cache:
            return super().do_clean(cfg, st, s, g, seq)
        wal = st.wals[cfg.slot((s, g, seq))]
        return self.with_wal(cfg, st, wal._replace(place=DELETED))


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

    @dual(claimed_chain_unchanged)
    def rule_claimed_chain(self, chain: tuple[int, ...], dead: int) -> tuple[int, ...]:
        return claimed_chain_unchanged(PY, chain, dead)


class ReaderIgnoresArchive(ZkLock):
    name = "zk-lock/reader-ignores-archive"
    mutant_of = "zk-lock"
    overrides = "rule_locate"
    configs = ("std",)
    bug = (
        "The reader is not told that a WAL moved to oldWALs, cannot open it and skips it; seed "
        "001: 'When a log is archived, the source threads are notified that the path for that log "
        "changed'."
    )

    def rule_locate(self, cfg: Config, st: State, s: int, sh: Shipper, key: WalKey) -> bool:
        wal = st.wals[cfg.slot(key)]
        if wal.place == ARCHIVED:
            return False
        return super().rule_locate(cfg, st, s, sh, key)


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
)
