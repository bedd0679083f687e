"""The master's ServerCrashProcedure and its AssignReplicationQueuesProcedure in the table era
(seed 004 "Claim queue"; reference section 4), in the protocol text's form
(``model/engine/step.py``).

A dead server's SCP splits its WALs into ``oldWALs`` (SPLIT_LOGS, ASSIGN), reaches the claim
stage, and runs the AssignReplicationQueuesProcedure: ADD_MISSING_QUEUES reads which peers in
storage the dead server has no normal queue for (``arqp_read_missing``) and writes a BEGIN queue
for each (``arqp_put_missing``); CLAIM sends the dead server's queues of peers in storage to live
servers as child procedures, round after round until none is left (``arqp_claim``); REMOVE_QUEUES
deletes them all when the ReplicationSyncUp tool already replicated them (``arqp_remove``).

The components that change the procedure do it through its rules:

* ``rule_claims_allowed``: the claim stage waits for the migration
  (``model/features/migration.py``);
* ``rule_claim_target``: which servers a claim may be sent to (``table-doc``'s migration sends
  them only to upgraded servers);
* ``rule_should_skip``: the procedure's ``shouldSkip``, the SyncUp marker file
  (``model/features/syncup.py``);
* ``rule_add_missing``: which peers ADD_MISSING_QUEUES adds a queue for;
* ``rule_rerun_add_missing``: does every CLAIM round first run ADD_MISSING_QUEUES again (the
  deprecated ClaimReplicationQueuesProcedure; ``table/add-missing-rerun``)?
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from replcheck.model.common.state import ARCHIVED, LIVE_DIR
from replcheck.model.engine.names import named
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import count, lookup
from replcheck.model.table.state import (
    ARQP_ADD_MISSING,
    ARQP_CLAIM,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    BEGIN_SEQ,
    NO_SOURCE,
    SCP_CLAIM_STAGE,
    SCP_DONE,
    SCP_SPLIT,
)
from replcheck.model.table.views import Crash, Row, Server, TableText, WalFile, each_server


def _claim_rounds(text: Any) -> list[tuple[int, tuple[int, ...]]]:
    """Per dead server: the round that claims nothing, then each assignment of targets (a
    permutation of some live servers, one per queue claimed)."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for d in text.S:
        out.append((d, ()))
        for n in range(1, len(text.S) + 1):
            out.extend((d, tup) for tup in permutations(text.S, n))
    return out


class AssignQueues(TableText):
    """The SCP's stages and the AssignReplicationQueuesProcedure (the layout's helpers are
    ``StepBase``'s)."""

    # --- rules ------------------------------------------------------------------------------------

    def rule_claims_allowed(self, ops: Any, get: Any) -> Any:
        """May an SCP reach its claim stage? Always, unless a migration is running."""
        return True

    def rule_claim_target(self, t: Any, x: int) -> Any:
        """May a claim be sent to server ``x``? Every online server."""
        return Server(t, x).alive

    def rule_should_skip(self, t: Any, d: int) -> Any:
        """``shouldSkip``: did ReplicationSyncUp already replicate the dead server's queues (its
        marker file)? Never, without the tool."""
        return False

    def rule_add_missing(self, ops: Any, get: Any, d: int, p: int) -> Any:
        """ADD_MISSING_QUEUES: a peer in storage the crashed server has no normal queue for."""
        return ops.and_(self.storage(ops, get, p), ops.not_(named(get).queue_row[p, d, NO_SOURCE]))

    def claim_queue_keys(self, d: int) -> list[tuple[int, int]]:
        """The (peer, source) keys of ``d``'s rows, in row-key order."""
        return [(p, src) for p in self.P for src in self.SRC]

    def claimable(self, t: Any, d: int) -> list[Any]:
        """Per key of ``claim_queue_keys``: the dead server owns that queue, of a peer in
        storage."""
        ops = t.ops
        return [
            ops.and_(Row(t, p, d, src).exists, self.storage(ops, t.get, p))
            for p, src in self.claim_queue_keys(d)
        ]

    # --- the steps ----------------------------------------------------------------------------

    @step(params=("dead",), fair=True, each=each_server)
    def scp_split(self, t: Ctx, d: int) -> None:
        """SCP: split the dead server's WALs, assign its regions"""
        ops = t.ops
        t.require(Crash(t, d).stage == SCP_SPLIT)
        for g in self.G:
            for q in self.Q:
                w = self.slot(d, g, q)
                live = ops.and_(WalFile(t, w).exists, WalFile(t, w).place == LIVE_DIR)
                t.when(live).wal_place[w] = ARCHIVED
                t.when(live).wal_closed[w] = True
        for m in range(2):
            self.clear(t, True, self.claim_keys(d, m))
        peers = ops.or_(*(self.storage(ops, t.get, p) for p in self.P))
        Crash(t, d).stage = ops.ite(peers, SCP_CLAIM_STAGE, SCP_DONE)
        self.clear(t, True, self.scp_keys(d))

    @step(params=("dead",), fair=True, each=each_server)
    def scp_claim_stage(self, t: Ctx, d: int) -> None:
        """SCP: CLAIM_REPLICATION_QUEUES (waits for migration)"""
        t.require(Crash(t, d).stage == SCP_CLAIM_STAGE, self.rule_claims_allowed(t.ops, t.get))
        Crash(t, d).stage = ARQP_ADD_MISSING
        self.clear(t, True, self.scp_keys(d))

    @step(params=("dead",), fair=True, each=each_server)
    def arqp_read_missing(self, t: Ctx, d: int) -> None:
        """ADD_MISSING_QUEUES: read peers and existing queues"""
        ops = t.ops
        t.require(Crash(t, d).stage == ARQP_ADD_MISSING)
        skip = self.rule_should_skip(t, d)
        missing = [self.rule_add_missing(ops, t.get, d, p) for p in self.P]
        Crash(t, d).stage = ops.ite(skip, ARQP_REMOVE, ARQP_PUT_MISSING)
        self.clear(t, True, self.scp_keys(d))
        for p in self.P:
            t.scp_missing_peer[d, p] = ops.and_(ops.not_(skip), missing[p])

    @step(params=("dead",), fair=True, each=each_server)
    def arqp_put_missing(self, t: Ctx, d: int) -> None:
        """ADD_MISSING_QUEUES: a BEGIN queue per missing peer"""
        t.require(Crash(t, d).stage == ARQP_PUT_MISSING)
        for p in self.P:
            self.set_offset(t.ops, t, t.scp_missing_peer[d, p], (p, d, NO_SOURCE), -1, BEGIN_SEQ, 0)
        Crash(t, d).stage = ARQP_CLAIM
        self.clear(t, True, self.scp_keys(d))

    @step(params=("dead", "targets"), fair=True, each=_claim_rounds)
    def arqp_claim(self, t: Ctx, d: int, tup: tuple[int, ...]) -> None:
        """CLAIM: send each queue to a shuffled live server"""
        ops = t.ops
        t.require(Crash(t, d).stage == ARQP_CLAIM)
        n = len(tup)
        keys = self.claim_queue_keys(d)
        skip = self.rule_should_skip(t, d)
        idle = [ops.not_(t.claim_child[d, p, src]) for p, src in keys]
        nq = count(ops, self.round_queues(t, d))
        if tup:
            online = count(ops, (self.rule_claim_target(t, x) for x in self.S))
            t.require(
                ops.not_(skip),
                *idle,
                *(self.rule_claim_target(t, x) for x in tup),
                ops.or_(ops.and_(nq == n, online >= n), ops.and_(online == n, nq >= n)),
            )
        else:
            t.require(*idle, ops.or_(skip, nq == 0))
        self.claim_round(t, d, tup)
        if skip is not False:
            # The marker sends the procedure to REMOVE_QUEUES with no child (a mutant's round
            # may still have claimed queues here).
            for p, src in keys:
                t.when(skip).claim_child[d, p, src] = False
                t.when(skip).claim_target[d, p, src] = 0
            Crash(t, d).stage = ops.ite(skip, ARQP_REMOVE, Crash(t, d).stage)

    def rule_rerun_add_missing(self) -> bool:
        """Does every CLAIM round first run ADD_MISSING_QUEUES again? Not in
        AssignReplicationQueuesProcedure."""
        return False

    def reran(self, t: Any, d: int) -> Any:
        """Has this procedure's last round re-run ADD_MISSING_QUEUES (the SCP's peer mask)?"""
        return t.ops.or_(*(t.scp_missing_peer[d, p] for p in self.P))

    def rerun_adds(self, t: Any, d: int) -> list[Any]:
        """Per peer: this round's re-run of ADD_MISSING_QUEUES adds its BEGIN queue (only with
        ``rule_rerun_add_missing``, and not in a round right after one that re-ran it)."""
        ops = t.ops
        if not self.rule_rerun_add_missing():
            return [False for _p in self.P]
        reran = self.reran(t, d)
        return [ops.and_(ops.not_(reran), self.rule_add_missing(ops, t.get, d, p)) for p in self.P]

    def round_queues(self, t: Any, d: int) -> list[Any]:
        """Per key of ``claim_queue_keys``: the CLAIM round hands that queue out (those
        ``claimable`` now, and a normal queue the round's re-run adds)."""
        ops = t.ops
        adds = self.rerun_adds(t, d)
        return [
            ops.or_(c, adds[p]) if src == NO_SOURCE else c
            for c, (p, src) in zip(self.claimable(t, d), self.claim_queue_keys(d), strict=True)
        ]

    def claim_round(self, t: Ctx, d: int, tup: tuple[int, ...]) -> None:
        """One CLAIM round: the first ``len(tup)`` queues of the dead server (peers in storage,
        in row-key order, as ``listAllQueueIds`` lists them) go to the servers ``tup``; with no
        queue the procedure finishes."""
        ops = t.ops
        if not tup:
            Crash(t, d).stage = SCP_DONE
            self.clear(t, True, self.scp_keys(d))
            return
        adds = self.rerun_adds(t, d)
        for p in self.P:
            self.set_offset(ops, t, adds[p], (p, d, NO_SOURCE), -1, BEGIN_SEQ, 0)
        here = self.claimable(t, d)
        for i, (p, src) in enumerate(self.claim_queue_keys(d)):
            rank = count(ops, here[:i])
            on = ops.and_(here[i], rank < len(tup))
            t.claim_child[d, p, src] = on
            t.claim_target[d, p, src] = ops.ite(on, lookup(ops, rank, list(tup), 0), 0)
        for p in self.P:
            t.scp_missing_peer[d, p] = ops.or_(*adds) if p == 0 else False

    @step(params=("dead",), fair=True, each=each_server)
    def arqp_remove(self, t: Ctx, d: int) -> None:
        """REMOVE_QUEUES: the SyncUp marker says: drop the queues"""
        t.require(Crash(t, d).stage == ARQP_REMOVE)
        for rk in self.rkeys:
            if rk[1] == d:
                self.remove_row(t, True, rk)
        self.after_remove(t, d)
        Crash(t, d).stage = SCP_DONE
        self.clear(t, True, self.scp_keys(d))

    def after_remove(self, t: Ctx, d: int) -> None:
        """What REMOVE_QUEUES deletes after the queues (the SyncUp marker file)."""


class AddMissingRerun(AssignQueues):
    """``table/add-missing-rerun``: the deprecated ClaimReplicationQueuesProcedure, whose every
    CLAIM round first adds the missing queues again (a BEGIN column under the placeholder group
    for each peer in storage the crashed server has no normal queue for). The re-run is modelled
    once per procedure, which is enough to replicate the WALs twice: the SCP's peer mask is 1
    (peer 0's bit) after a round that re-ran it, and every round clears it otherwise. The
    queue claimed again starts a third recovered source on one server: the layout gives it a
    third shipper slot (``shipper_copies``)."""

    shipper_copies = 3

    def rule_rerun_add_missing(self) -> bool:
        """Every CLAIM round adds the missing queues again."""
        return True
