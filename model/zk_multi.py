"""``zk-multi``: the ZooKeeper storage of HBase 2.x (reference section 3a).

A crashed server's queues are claimed one per ZooKeeper ``multi`` (create the new queue and its
WAL znodes, delete the old ones, bump the cversion of ``/rs``), driven by the master's
ServerCrashProcedure, so a dead server is never forgotten. The claimer reads the positions before
the ``multi``; when the ``multi`` fails, someone else took the queue. The log cleaner takes an
optimistic snapshot of every queue, retrying until the cversion of ``/rs`` did not move during it.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import rules
from .action import ActionKind
from .config import Config
from .logic import PY, dual
from .state import (
    ARCHIVED,
    DELETED,
    DELETING,
    IDLE,
    IDLE_CLEANER,
    READING,
    Claim,
    State,
    WalKey,
)
from .zk_common import COMMON_KINDS, ZK_CONFIGS, ZkCommon

K = ActionKind


class ZkMulti(ZkCommon):
    name = "zk-multi"
    summary = "HBase 2.x: SCP-driven claims, one multi per queue, cversion-checked cleaner"
    configs = ZK_CONFIGS
    kinds = (
        *COMMON_KINDS,
        K("claim_read", ("server", "dead", "queue"), True, "read a dead server's queue positions"),
        K("claim_commit", ("server",), True, "the claim multi: move the queue, bump the cversion"),
        K(
            "scp_finish",
            ("dead",),
            True,
            "SCP: the dead server has no queue left; delete its znode",
        ),
        K("lose_failover_event", ("dead",), False, "a failover trigger is lost"),
        K("cleaner_start", (), False, "log cleaner: list oldWALs, begin the snapshot"),
        K("cleaner_read", ("server",), True, "log cleaner: list the queues of one /rs/<server>"),
        K(
            "cleaner_read_queue",
            ("server", "queue"),
            True,
            "log cleaner: read the WALs of one listed queue",
        ),
        K("cleaner_finish", (), True, "log cleaner: retry if the cversion moved, else decide"),
        K(
            "cleaner_delete_wal",
            ("server", "group", "index"),
            True,
            "log cleaner: delete one WAL the run decided it may delete",
        ),
        K("master_restart", (), False, "the master restarts: a cleaner run in progress is lost"),
    )

    def on_death(self, cfg: Config, st: State, s: int) -> State:
        """The master schedules a ServerCrashProcedure: a persisted procedure, never lost."""
        return st._replace(failover=st.failover | 1 << s)

    # --- failover ---------------------------------------------------------------------------

    def en_claim_read(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d, node in enumerate(st.rs):
            if node and st.failover >> d & 1:
                for s, srv in enumerate(st.servers):
                    if srv.alive and not srv.claim:
                        for qi in range(len(node.queues)):
                            yield (s, d, qi)

    def do_claim_read(self, cfg: Config, st: State, s: int, d: int, qi: int) -> State:
        srv = st.servers[s]
        claim = (Claim(d, st.rs[d].queues[qi]),)
        return self.with_server(st, s, srv._replace(claim=claim))

    def en_claim_commit(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive and srv.claim:
                yield (s,)

    @dual(rules.zk_claim_applies_rule)
    def claim_applies(self, st: State, s: int, claim: Claim) -> bool:
        """The multi succeeds when every old WAL znode is still there to delete and the new queue
        does not exist yet; otherwise "someone else took the log"."""
        d, q = claim
        i = self.find_queue(st.rs[d], q.peer, q.chain)
        same = i >= 0 and {k for k, _ in st.rs[d].queues[i].wals} == {k for k, _ in q.wals}
        exists = self.find_queue(st.rs[s], q.peer, self.rule_claimed_chain(q.chain, d)) >= 0
        return rules.zk_claim_applies_rule(PY, i >= 0, same, exists)

    def do_claim_commit(self, cfg: Config, st: State, s: int) -> State:
        """Reference 3a: one ``multi`` creates the new queue and its WAL znodes, deletes the old
        ones, and creates and deletes ``/rs/cversion_<newQueueId>`` to bump the cversion."""
        srv = st.servers[s]
        claim = srv.claim[0]
        st = self.with_server(st, s, srv._replace(claim=()))
        if not self.claim_applies(st, s, claim):
            return self.claim_failed(cfg, st, s, claim)
        d, q = claim
        st = self.drop_queue(st, d, q.peer, q.chain)
        moved = q._replace(chain=self.rule_claimed_chain(q.chain, d))
        st = self.with_rs(st, s, self.put_queue(st.rs[s], moved))
        st = self.claim_bump(st)
        return self.start_recovered(cfg, st, s, moved)

    def claim_failed(self, cfg: Config, st: State, s: int, claim: Claim) -> State:
        """A failed multi claims nothing: no source is started (the fix of HBASE-8099)."""
        return st

    def rs_child_created(self, st: State) -> State:
        return self.bump_cversion(st)

    def claim_bump(self, st: State) -> State:
        """The claim's ``multi`` creates and deletes ``/rs/cversion_<newQueueId>``: it moves
        only grandchildren of ``/rs`` otherwise, which ZooKeeper's cversion of ``/rs`` ignores."""
        return self.bump_cversion(st)

    def bump_cversion(self, st: State) -> State:
        """A child of ``/rs`` was created or deleted: its cversion moved."""
        if st.cleaner.phase == READING:
            return st._replace(cleaner=st.cleaner._replace(changed=True))
        return st

    def en_scp_finish(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d in range(cfg.servers):
            if st.failover >> d & 1 and not (st.rs[d] and st.rs[d].queues):
                yield (d,)

    def do_scp_finish(self, cfg: Config, st: State, d: int) -> State:
        """``removeReplicatorIfQueueIsEmpty``: the dead server's znode goes; the SCP ends. A
        step of its own after the last claim (branch-2's ``ClaimReplicationQueuesProcedure``
        calls it when it runs again after its children): its delete moves the cversion of
        ``/rs``, which a cleaner reading at that moment sees."""
        st = st._replace(failover=st.failover & ~(1 << d))
        if st.rs[d]:
            st = self.bump_cversion(self.with_rs(st, d, ()))
        return st

    def en_lose_failover_event(self, cfg: Config, st: State) -> Iterator[tuple]:
        """A ServerCrashProcedure is persisted by the master: nothing can lose it."""
        return iter(())

    def do_lose_failover_event(self, cfg: Config, st: State, d: int) -> State:
        return st._replace(failover=st.failover & ~(1 << d))

    # --- log cleaner (HBASE-12865's fix) ------------------------------------------------------

    def en_cleaner_start(self, cfg: Config, st: State) -> Iterator[tuple]:
        if (
            st.budget.cleaner_runs
            and st.cleaner.phase == IDLE
            and any(w and w.place == ARCHIVED for w in st.wals)
        ):
            yield ()

    def do_cleaner_start(self, cfg: Config, st: State) -> State:
        candidates = tuple(w.key for w in st.wals if w and w.place == ARCHIVED)
        st = st._replace(budget=st.budget._replace(cleaner_runs=st.budget.cleaner_runs - 1))
        return st._replace(cleaner=IDLE_CLEANER._replace(phase=READING, candidates=candidates))

    def en_cleaner_read(self, cfg: Config, st: State) -> Iterator[tuple]:
        if st.cleaner.phase == READING and not st.cleaner.listed:
            for s in range(cfg.servers):
                if not st.cleaner.read >> s & 1:
                    yield (s,)

    def do_cleaner_read(self, cfg: Config, st: State, s: int) -> State:
        """``getAllQueues(rs)``: the cleaner lists one server's queue znodes (its children); it
        reads their WALs next, one queue at a time (``cleaner_read_queue``)."""
        c = st.cleaner
        node = st.rs[s]
        listed = tuple(sorted((s, q.peer, q.chain) for q in (node.queues if node else ())))
        return st._replace(cleaner=c._replace(read=c.read | 1 << s, listed=listed))

    def en_cleaner_read_queue(self, cfg: Config, st: State) -> Iterator[tuple]:
        for i, (s, _p, _chain) in enumerate(st.cleaner.listed):
            yield (s, i)

    def listed_wals(self, st: State, i: int) -> set[WalKey]:
        """The run's candidates that listed queue ``i`` names now (none if the queue is gone
        since the listing: its end deleted it)."""
        s, peer, chain = st.cleaner.listed[i]
        node = st.rs[s]
        qi = self.find_queue(node, peer, chain)
        wals = rules.queue_wal_keys((node.queues[qi],)) if qi >= 0 else ()
        return set(wals) & set(st.cleaner.candidates)

    def do_cleaner_read_queue(self, cfg: Config, st: State, s: int, i: int) -> State:
        """``getWALsInQueue(rs, queue)``: the WALs of one listed queue, as they are now
        (``listed_wals``). Reference 3a: a queue's end or a roll changes a queue without moving
        the cversion of ``/rs``; only a claim, which moves WALs between servers, bumps it."""
        c = st.cleaner
        seen = tuple(sorted(set(c.seen) | self.listed_wals(st, i)))
        listed = c.listed[:i] + c.listed[i + 1 :]
        return st._replace(cleaner=c._replace(seen=seen, listed=listed))

    def en_cleaner_finish(self, cfg: Config, st: State) -> Iterator[tuple]:
        c = st.cleaner
        if c.phase == READING and c.read == (1 << cfg.servers) - 1 and not c.listed:
            yield ()

    def en_master_restart(self, cfg: Config, st: State) -> Iterator[tuple]:
        if cfg.master_restarts:
            yield ()

    def do_master_restart(self, cfg: Config, st: State) -> State:
        """The active master restarts. Its ServerCrashProcedures are persisted and go on; the log
        cleaner's snapshot was in memory: a run in progress is abandoned (it deleted nothing)."""
        return st._replace(cleaner=IDLE_CLEANER)

    def do_cleaner_finish(self, cfg: Config, st: State) -> State:
        """``getAllWALs``: if the cversion of ``/rs`` moved while reading, read everything again;
        else decide: every listed WAL that no queue named (reference 3a) may go. Only the listed
        WALs are kept from the snapshot: nothing else can be deleted. The chore then deletes the
        files one by one (``cleaner_delete_wal``); a master restart abandons the rest."""
        c = st.cleaner
        if c.changed:
            return st._replace(cleaner=c._replace(read=0, seen=(), changed=False))
        doomed = tuple(
            key
            for key in c.candidates
            if st.wals[cfg.slot(key)].place == ARCHIVED and rules.may_delete_wal(key, c.seen)
        )
        if not doomed:
            return st._replace(cleaner=IDLE_CLEANER)
        return st._replace(cleaner=IDLE_CLEANER._replace(phase=DELETING, candidates=doomed))

    def en_cleaner_delete_wal(self, cfg: Config, st: State) -> Iterator[tuple]:
        if st.cleaner.phase == DELETING:
            yield from st.cleaner.candidates

    def do_cleaner_delete_wal(self, cfg: Config, st: State, s: int, g: int, i: int) -> State:
        """One file of the run's decision is deleted from oldWALs (in any order)."""
        key = (s, g, i)
        wal = st.wals[cfg.slot(key)]
        st = self.with_wal(cfg, st, wal._replace(place=DELETED))
        rest = tuple(k for k in st.cleaner.candidates if k != key)
        cleaner = st.cleaner._replace(candidates=rest) if rest else IDLE_CLEANER
        return st._replace(cleaner=cleaner)
