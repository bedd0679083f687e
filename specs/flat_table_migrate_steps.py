"""The steps of the migration from ZooKeeper and of the rolling upgrade
(``model/table_migrate.py``) over the flat layout of ``specs/flat_table_migrate.py``: the
procedure's states, ``migrate_server``, ``upgrade``, and what the migration changes in the base
steps (version-2 servers do not replicate, a version-2 roll goes to the server's znode, claims and
peer procedures wait, the cleaner starts only after the migration's first state, the master
restart's ``afterReplay``).

The design's decisions that take no state (``rule_migration_fences_cleaner``) are read from the
design once; those that read the state (``rule_claims_allowed``, ``upgraded_share_reached``,
``migration_holds_barrier``) are mirrored in a method of the same name, which a mutant's flat
class overrides (``MUTANTS`` in ``flat_table_migrate.py``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model import table_rules
from replcheck.model.state import DISABLED, ENABLED
from replcheck.model.table_migrate import UPGRADED_SHARE
from replcheck.model.table_state import (
    BARRIER_DISABLED,
    MIG_CLEAN_UP,
    MIG_DISABLE_CLEANER,
    MIG_DISABLE_PEER,
    MIG_DONE,
    MIG_ENABLE_CLEANER,
    MIG_ENABLE_PEER,
    MIG_MIGRATE,
    MIG_PREPARE,
    MIG_WAIT_UPGRADING,
    NO_SOURCE,
    NOT_RUNNING,
    RUNNING,
)
from replcheck.model.text import Instance, Tx, count

from .flat_table_base import StepBase

SHARE = (3, 10)
"""``UPGRADED_SHARE`` as a fraction: ``new >= 0.3 * online`` is ``10 * new >= 3 * online`` on
the small server counts a configuration has (checked when the module loads)."""
if not all(
    (n >= UPGRADED_SHARE * o) == (SHARE[1] * n >= SHARE[0] * o)
    for o in range(64)
    for n in range(o + 1)
):
    raise ValueError("SHARE no longer matches the model's UPGRADED_SHARE")


def also(inst: Instance, extra: Any) -> Instance:
    """``inst`` with ``extra(ops, get)`` added to its guard."""
    guard = inst.guard
    return Instance(
        inst.name,
        inst.args,
        lambda ops, get: ops.and_(guard(ops, get), extra(ops, get)),
        inst.apply,
    )


class MigrateSteps(StepBase):
    """The migration's steps and its changes to the base steps (a mixin before ``TableFlat``)."""

    zslots: list[tuple[int, int, int]]
    """ZooKeeper queue slots ``(owner, peer, source)`` (``flat_table_migrate.py``)."""
    fences: bool
    """``rule_migration_fences_cleaner`` (it reads no state)."""
    doc: bool
    """``doc_waits_for_scps``: seed 004's 30% threshold and upgraded-only claim targets."""
    spare: list[int]
    """The slots that start as spare servers."""

    def zk_keys(self, zs: tuple[int, int, int]) -> list[tuple]:
        out = [("zk", *zs)]
        for g in self.G:
            out += [("zkw", *zs, g, q) for q in self.Q]
        return out

    def znode(self, ops: Any, get: Any, s: int) -> Any:
        """The replicator znode of ``s`` exists (it holds a queue)."""
        return ops.or_(*(get(("zk", *zs)) for zs in self.zslots if zs[0] == s))

    # --- decisions the design makes from the state ---------------------------------------------

    def upgraded_share_reached(self, ops: Any, get: Any) -> Any:
        """``upgraded_share_reached``: at least 30% of the online servers run version 3."""
        online = count(ops, (get(("alive", s)) for s in self.S))
        new = count(ops, (ops.and_(get(("alive", s)), get(("v3", s))) for s in self.S))
        return ops.and_(new > 0, new * SHARE[1] >= online * SHARE[0])

    def rule_claims_allowed(self, ops: Any, get: Any) -> Any:
        """``rule_claims_allowed``: the claim stage waits until the migration finished
        (``table``); ``table-doc`` lets it start past MIGRATE once 30% are upgraded."""
        stage = get(("mig",))
        done = stage == MIG_DONE
        if not self.doc:
            return done
        return ops.or_(done, ops.and_(stage > MIG_MIGRATE, self.upgraded_share_reached(ops, get)))

    def migration_holds_barrier(self, ops: Any, get: Any) -> Any:
        """``migration_holds_barrier``: 1 for a migration past DISABLE_CLEANER and not past
        ENABLE_CLEANER (when it fences the cleaner), else 0."""
        if not self.fences:
            return 0
        stage = get(("mig",))
        return ops.ite(ops.and_(stage > MIG_DISABLE_CLEANER, stage <= MIG_ENABLE_CLEANER), 1, 0)

    # --- action instances ---------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out = super().instances()  # type: ignore[misc]
        out += [self._migration_step(stage) for stage in range(MIG_DONE)]
        out += [self._migrate_server(s) for s in sorted({zs[0] for zs in self.zslots})]
        old = [s for s in self.S if s not in self.spare]
        out += [self._upgrade(o, n) for o in old for n in self.spare]
        return out

    # --- version-2 servers --------------------------------------------------------------------

    def new_version(self, sk: tuple) -> Any:
        return lambda ops, get: get(("v3", sk[0]))

    def _ship(self, sk: tuple, q: int, k: int) -> Instance:
        """``ship``: version-2 servers do not replicate."""
        return also(super()._ship(sk, q, k), self.new_version(sk))  # type: ignore[misc]

    def _persist(self, sk: tuple, q: int) -> Instance:
        """``persist``: only a version-3 server."""
        return also(super()._persist(sk, q), self.new_version(sk))  # type: ignore[misc]

    def _advance(self, sk: tuple, q: int) -> Instance:
        """``advance``: only a version-3 server."""
        return also(super()._advance(sk, q), self.new_version(sk))  # type: ignore[misc]

    def _finish(self, sk: tuple, q: int) -> Instance:
        """``finish``: only a version-3 server."""
        return also(super()._finish(sk, q), self.new_version(sk))  # type: ignore[misc]

    def _roll(self, s: int, g: int, q: int) -> Instance:
        """``roll``: a version-2 server also appends the new WAL to its normal ZooKeeper queues
        while its znode exists."""
        inst = super()._roll(s, g, q)  # type: ignore[misc]
        base = inst.apply

        def apply(ops: Any, tx: Tx) -> None:
            zk = ops.and_(ops.not_(tx[("v3", s)]), self.znode(ops, tx.__getitem__, s))
            base(ops, tx)
            for zs in self.zslots:
                if zs[0] == s and zs[2] == NO_SOURCE:
                    tx.when(ops.and_(zk, tx[("zk", *zs)]), ("zkw", *zs, g, q + 1), True)

        return Instance(inst.name, inst.args, inst.guard, apply)

    # --- what waits for the migration -----------------------------------------------------------

    def rule_claim_target(self, t: Any, x: int) -> Any:
        """``rule_claim_targets``: ``table-doc`` sends claims to version-3 servers only."""
        alive = super().rule_claim_target(t, x)  # type: ignore[misc]
        return t.ops.and_(alive, t[("v3", x)]) if self.doc else alive

    def migration_done(self, ops: Any, get: Any) -> Any:
        return get(("mig",)) == MIG_DONE

    def _add_peer(self, p: int) -> Instance:
        """``add_peer``: not while the migration runs (``peer_proc_busy``)."""
        return also(super()._add_peer(p), self.migration_done)  # type: ignore[misc]

    def _remove_peer(self, p: int) -> Instance:
        """``remove_peer``: not while the migration runs (``peer_proc_busy``)."""
        return also(super()._remove_peer(p), self.migration_done)  # type: ignore[misc]

    def _cleaner_start(self) -> Instance:
        """``cleaner_start``: not before the migration's first state ran (``cleaner_may_run``)."""
        return also(
            super()._cleaner_start(),  # type: ignore[misc]
            lambda ops, get: get(("mig",)) > MIG_DISABLE_CLEANER,
        )

    def master_restart_barrier(self, ops: Any, tx: Tx) -> None:
        """``afterReplay``: the AddPeerProcedures' count, plus ``migration_holds_barrier``."""
        super().master_restart_barrier(ops, tx)  # type: ignore[misc]
        n = tx[("barn",)] + self.migration_holds_barrier(ops, tx.__getitem__)
        tx[("bar",)] = ops.ite(n > 0, BARRIER_DISABLED, NOT_RUNNING)
        tx[("barn",)] = n

    # --- the migration procedure --------------------------------------------------------------

    def _migration_step(self, stage: int) -> Instance:
        """``migration_step``: one state of ``MigrateReplicationQueueFromZkToTableProcedure``."""
        P = self.P

        def ready(ops: Any, get: Any) -> Any:
            if stage == MIG_DISABLE_CLEANER:
                return ops.or_(not self.fences, get(("bar",)) != RUNNING)
            if stage == MIG_PREPARE:
                return ops.not_(ops.or_(*(get(("pp", p)) for p in P)))
            if stage == MIG_MIGRATE:
                return ops.not_(ops.or_(*(get(("zk", *zs)) for zs in self.zslots)))
            if stage == MIG_WAIT_UPGRADING:
                return ops.and_(*(ops.implies(get(("alive", s)), get(("v3", s))) for s in self.S))
            return True

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("mig",)) == stage, ready(ops, get))

        def apply(ops: Any, tx: Tx) -> None:
            nxt: Any = stage + 1
            if stage == MIG_DISABLE_CLEANER and self.fences:
                bar, n = table_rules.barrier_disable_rule(ops, tx[("bar",)], tx[("barn",)])
                tx[("bar",)] = bar
                tx[("barn",)] = n
            elif stage == MIG_PREPARE:
                for p in P:
                    tx[("migdis", p)] = tx[("peer", p)] == ENABLED
                peers = ops.or_(*(self.storage(ops, tx.__getitem__, p) for p in P))
                nxt = ops.ite(peers, nxt, MIG_ENABLE_CLEANER)
            elif stage == MIG_DISABLE_PEER:
                for p in P:
                    tx.when(tx[("migdis", p)], ("peer", p), DISABLED)
            elif stage == MIG_ENABLE_PEER:
                for p in P:
                    back = ops.and_(tx[("migdis", p)], tx[("peer", p)] == DISABLED)
                    tx.when(back, ("peer", p), ENABLED)
            elif stage == MIG_ENABLE_CLEANER and self.fences:
                self.barrier_enable(ops, tx, True)  # type: ignore[attr-defined]
            elif stage == MIG_CLEAN_UP:
                for zs in self.zslots:
                    self.clear(tx, True, self.zk_keys(zs))
            tx[("mig",)] = nxt

        return Instance("migration_step", (stage,), guard, apply)

    def _migrate_server(self, s: int) -> Instance:
        """``migrate_server``: each queue of ``s``'s znode whose peer is in storage becomes the
        row ``(peer, s, source)`` holding, per WAL group, its oldest WAL at position 0 (ZooKeeper
        positions are never written here: version-2 servers do not ship); the znode goes."""
        mine = [zs for zs in self.zslots if zs[0] == s]

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("mig",)) == MIG_MIGRATE, self.znode(ops, get, s))

        def apply(ops: Any, tx: Tx) -> None:
            for zs in mine:
                _o, p, src = zs
                on = ops.and_(tx[("zk", *zs)], self.storage(ops, tx.__getitem__, p))
                for g in self.G:
                    first: Any = None
                    for q in reversed(self.Q):
                        here = tx[("zkw", *zs, g, q)]
                        first = q if first is None else ops.ite(here, q, first)
                    has = ops.or_(*(tx[("zkw", *zs, g, q)] for q in self.Q))
                    self.set_offset(ops, tx, ops.and_(on, has), (p, s, src), g, first, 0)
            for zs in mine:
                self.clear(tx, True, self.zk_keys(zs))
            tx[("migmig", s)] = True

        return Instance("migrate_server", (s,), guard, apply)

    # --- the rolling upgrade ------------------------------------------------------------------

    def _upgrade(self, old: int, new: int) -> Instance:
        """``upgrade``: the version-2 server ``old`` stops (its SCP is scheduled) and the lowest
        spare slot ``new`` starts as a version-3 server with a normal source per peer in storage
        on its first WALs."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("alive", old)),
                ops.not_(get(("v3", old))),
                ops.not_(get(("started", new))),
                *(get(("started", x)) for x in self.spare if x < new),
            )

        def apply(ops: Any, tx: Tx) -> None:
            self.kill(ops, tx, old)
            self.start_server(ops, tx, new)
            tx[("started", new)] = True
            tx[("v3", new)] = True

        return Instance("upgrade", (old, new), guard, apply)
