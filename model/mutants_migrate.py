"""Table-era mutants of the migration from ZooKeeper and the rolling upgrade (``migration.py``):
each brings the migration's text with one rule overridden."""

from __future__ import annotations

from . import migration
from .table import Table


class MigrationKeepsCleaner(Table):
    name = "table/HBASE-27430"
    mutant_of = "table"
    overrides = "rule_migration_fences_cleaner"
    bug = (
        "HBASE-27430: the migration does not disable the log cleaner (DISABLE_CLEANER and "
        "ENABLE_CLEANER do nothing); while hbase:replication exists but is not filled yet, a "
        "server that died in the 2.x era (its SCP long finished) has no row, so the cleaner's "
        "dead-server rule deletes its WAL although a ZooKeeper queue still references it"
    )
    configs = ("t-migrate",)

    text = migration.KeepsCleaner


class ClaimDuringMigration(Table):
    name = "table/claim-during-migration"
    mutant_of = "table"
    overrides = "rule_claims_allowed"
    bug = (
        "the SCP's claim stage does not wait for the migration (seed 004: 'during migration, "
        "the region server can not claim the replication queues too'): an upgraded server's "
        "SCP claims while its queues are still in ZooKeeper, and the migration then writes "
        "the claimed queue back under the dead server (two queues for one source)"
    )
    configs = ("t-migrate",)

    text = migration.ClaimDuringMigration


class ReplayForgetsBarrier(Table):
    name = "table/migration-replay-barrier"
    mutant_of = "table"
    overrides = "migration_holds_barrier"
    bug = (
        "the migration procedure's afterReplay does not disable the cleaner barrier again "
        "(reference section 9: 'afterReplay: if not initial state, barrier.disable() must "
        "succeed'): after a master restart mid-migration the barrier, which lives only in "
        "memory, is open, so the cleaner runs on a table that is not filled yet"
    )
    configs = ("t-migrate",)

    text = migration.ReplayForgetsBarrier


MIGRATE_MUTANTS: tuple[type, ...] = (
    MigrationKeepsCleaner,
    ClaimDuringMigration,
    ReplayForgetsBarrier,
)
