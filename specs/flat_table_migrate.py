"""The migration from ZooKeeper to ``hbase:replication`` and the rolling upgrade
(``model/table_migrate.py``), with the spare servers it starts, as a feature of the flat table
model (``specs/flat_table.py``): the mixin ``FEATURE`` handles the configuration features
``migration`` and ``spare_servers``.

Added to the layout:

* per server ``("started", s)`` and ``("v3", s)`` (major version 3 rather than 2: the model's
  servers run one or the other);
* the procedure ``MigrateReplicationQueueFromZkToTableProcedure``: ``("mig",)`` its state
  (``MIG_DONE`` once finished), ``("migdis", p)`` the peers it disabled, ``("migmig", s)`` the
  servers whose znode it migrated;
* the ZooKeeper queues still to migrate, one slot per queue of the initial state, keyed
  ``(owner, peer, source)`` with ``source`` the first dead server of a chained queue id (-1 for a
  normal queue): ``("zk", owner, peer, source)`` present, and ``("zkw", owner, peer, source,
  group, seq)`` one bit per WAL of the queue, its WALs being the owner's (a normal queue) or the
  source's (a chained one). No queue is ever created after the start (the procedure only migrates
  and deletes them), so the initial state fixes the slots and each slot's chain.

What the flat form refuses (``FlatError``): a configuration with spare servers but no migration
(ReplicationSyncUp's spare servers are its own feature's), a server of a major version other than
2 or 3, a state with no migration procedure, a ZooKeeper queue that is not one of the initial
state's (or whose chain changed), a WAL of a queue that is not its owner's or source's, and a
ZooKeeper position other than 0 (version-2 servers never ship here, so no position is ever
written).

The steps are in ``flat_table_migrate_steps.py``. The invariants change in two places:
``no_claim_mid_migration`` reads the procedure's state, and ``no_lost_edit`` also counts an entry
covered by a ZooKeeper queue not yet migrated (the base predicate, read through a view in which
such an entry, in a WAL that is not deleted, counts as applied at the peer: ``app`` is read only
in the "still owed" premise, so the verdict is the explicit ``_covered``'s).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.config import Config
from replcheck.model.design import Design
from replcheck.model.state import DELETED, Queue
from replcheck.model.table_state import (
    ARQP_ADD_MISSING,
    ARQP_REMOVE,
    MIG_DONE,
    MIG_MIGRATE,
    NO_SOURCE,
    Migration,
    TState,
)
from replcheck.model.text import FlatProperty

from .flat_table_base import StepBase
from .flat_table_migrate_steps import MigrateSteps
from .flat_zk import FlatError


class FlatMigration(MigrateSteps):
    """The migration from ZooKeeper, the rolling upgrade and spare servers (a mixin before
    ``TableFlat``)."""

    handles = frozenset({"migration", "spare_servers"})
    encoded_fields = ("migration", "zk")
    encoded_server_fields = ("started", "version")

    def __init__(self, design: Design, cfg: Config) -> None:
        super().__init__(design, cfg)  # type: ignore[call-arg]
        i0: TState = self.init_state  # type: ignore[attr-defined]
        if not i0.migration:
            raise FlatError(f"config {cfg.name!r}: spare servers without a migration")
        self.fences = bool(design.rule_migration_fences_cleaner())  # type: ignore[attr-defined]
        self.doc = bool(design.doc_waits_for_scps)  # type: ignore[attr-defined]
        self.spare = [s for s, srv in enumerate(i0.servers) if not srv.started]
        self.chains: dict[tuple[int, int, int], tuple[int, ...]] = {}
        for owner, q in i0.zk:
            zs = (owner, q.peer, q.chain[0] if q.chain else NO_SOURCE)
            if zs in self.chains:
                raise FlatError("two ZooKeeper queues with one (owner, peer, source)")
            self.chains[zs] = q.chain
        self.zslots = sorted(self.chains)

    # --- variables ------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out = super().sorts()  # type: ignore[misc]
        for s in self.S:
            out[("started", s)] = "b"
            out[("v3", s)] = "b"
            out[("migmig", s)] = "b"
        for p in self.P:
            out[("migdis", p)] = "b"
        out[("mig",)] = ("i", 0, MIG_DONE)
        for zs in self.zslots:
            for k in self.zk_keys(zs):
                out[k] = "b"
        return out

    # --- explicit <-> flat ----------------------------------------------------------------------

    def encode(self, st: TState) -> dict[tuple, Any]:
        v = super().encode(st)  # type: ignore[misc]
        for s, srv in enumerate(st.servers):
            if srv.version not in (2, 3):
                raise FlatError(f"a server of major version {srv.version}")
            v[("started", s)] = srv.started
            v[("v3", s)] = srv.version == 3
        m = st.migration
        if not m:
            raise FlatError("no migration procedure: not in the flat migration model")
        v[("mig",)] = m.stage
        for p in self.P:
            v[("migdis", p)] = bool(m.disabled >> p & 1)
        for s in self.S:
            v[("migmig", s)] = bool(m.migrated >> s & 1)
        for owner, q in st.zk:
            zs = (owner, q.peer, q.chain[0] if q.chain else NO_SOURCE)
            if self.chains.get(zs) != q.chain:
                raise FlatError("a ZooKeeper queue that is not one of the initial state's")
            if v[("zk", *zs)]:
                raise FlatError("two ZooKeeper queues with one (owner, peer, source)")
            v[("zk", *zs)] = True
            x = self.wal_owner(owner, zs[2])
            for key, pos in q.wals:
                if key[0] != x or pos != 0:
                    raise FlatError("a ZooKeeper queue WAL of another server, or a position")
                v[("zkw", *zs, key[1], key[2])] = True
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        servers = tuple(
            srv._replace(started=v[("started", s)], version=3 if v[("v3", s)] else 2)
            for s, srv in enumerate(st.servers)
        )
        zk = []
        for zs in self.zslots:
            if v[("zk", *zs)]:
                owner, p, src = zs
                x = self.wal_owner(owner, src)
                wals = tuple(
                    ((x, g, q), 0) for g in self.G for q in self.Q if v[("zkw", *zs, g, q)]
                )
                zk.append((owner, Queue(p, self.chains[zs], wals)))
        migration = Migration(
            v[("mig",)],
            sum(1 << p for p in self.P if v[("migdis", p)]),
            sum(1 << s for s in self.S if v[("migmig", s)]),
        )
        return st._replace(servers=servers, zk=tuple(sorted(zk)), migration=migration)

    # --- properties -----------------------------------------------------------------------------

    def zk_covers(self, ops: Any, get: Any, p: int, w: int) -> Any:
        """``_covered``'s ZooKeeper clause for every entry of WAL slot ``w`` (their positions are
        0): a queue of ``p`` over the WAL's server holds an older WAL of its group, or this one."""
        x, g, q = self.key[w]
        out = []
        for zs in self.zslots:
            if zs[1] == p and self.wal_owner(zs[0], zs[2]) == x:
                held = ops.or_(*(get(("zkw", *zs, g, r)) for r in self.Q if r <= q))
                out.append(ops.and_(get(("zk", *zs)), held))
        return ops.or_(*out)

    def properties(self) -> list[FlatProperty]:
        out: list[FlatProperty] = super().properties()  # type: ignore[misc]
        by_uid = {}
        for w in self.W:
            for j in range(self.E):
                by_uid[self.uid(w, j)] = w

        def no_lost_edit(base: Any) -> Any:
            def check(ops: Any, get: Any) -> Any:
                def view(k: tuple) -> Any:
                    if k[0] != "app":
                        return get(k)
                    w = by_uid[k[2]]
                    kept = ops.and_(
                        get(("wplace", w)) != DELETED, self.zk_covers(ops, get, k[1] - 1, w)
                    )
                    return ops.or_(get(k), kept)

                return base(ops, view)

            return check

        def no_claim_mid_migration(ops: Any, get: Any) -> Any:
            migrating = get(("mig",)) <= MIG_MIGRATE
            claiming = ops.or_(
                *(
                    ops.and_(
                        get(("stage", d)) >= ARQP_ADD_MISSING, get(("stage", d)) <= ARQP_REMOVE
                    )
                    for d in self.S
                )
            )
            return ops.not_(ops.and_(migrating, claiming))

        for i, prop in enumerate(out):
            if prop.name == "no_lost_edit":
                out[i] = FlatProperty(prop.name, prop.kind, no_lost_edit(prop.check))
            elif prop.name == "no_claim_mid_migration":
                out[i] = FlatProperty(prop.name, prop.kind, no_claim_mid_migration)
        return out


FEATURE = FlatMigration


# --- mutants of the migration --------------------------------------------------------------------


class FlatMigrationKeepsCleaner(StepBase):
    """``table/HBASE-27430``: the migration leaves the cleaner barrier alone. Its override,
    ``rule_migration_fences_cleaner``, reads no state: ``FlatMigration`` reads it from the design
    when it is built (``fences``), so nothing is overridden here."""


class FlatClaimDuringMigration(StepBase):
    """``table/claim-during-migration``: the SCP's claim stage does not wait for the
    migration."""

    def rule_claims_allowed(self, ops: Any, get: Any) -> Any:
        return True


class FlatReplayForgetsBarrier(StepBase):
    """``table/migration-replay-barrier``: ``afterReplay`` does not disable the barrier again
    for the migration."""

    def migration_holds_barrier(self, ops: Any, get: Any) -> Any:
        return 0


MUTANTS: dict[str, type] = {
    "table/HBASE-27430": FlatMigrationKeepsCleaner,
    "table/claim-during-migration": FlatClaimDuringMigration,
    "table/migration-replay-barrier": FlatReplayForgetsBarrier,
}
"""Mutants of the migration whose override is not a dual-form rule. Making these overrides
dual-form in the model would class the mutants as rule-level for ``specs/proofs.py``, which has no
proof over them (it lists why in ``_REASONS``), so the flat form overrides them here."""
