"""Table-era mutants of the migration from ZooKeeper and the rolling upgrade
(``features/migration.py``): each brings the migration's text with one rule overridden."""

from __future__ import annotations

from replcheck.model.features import legacy_peer, migrate_hfile, migration
from replcheck.model.table.designs import Table


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


class DeletesLegacyQueue(Table):
    name = "table/HBASE-29169"
    mutant_of = "table"
    overrides = "rule_iterator_keeps_legacy_queue"
    bug = (
        "HBASE-29169: MIGRATE's iterator deletes a migrated server's whole replicator znode, "
        "its region_replica_replication queue included; the 2.x server still runs the legacy "
        "peer's source, whose next position write fails (NoNode) and aborts the server "
        "('Removing the legacy region_replica_replication peer will crash region servers while "
        "rolling upgrading')"
    )
    configs = ("t-migrate-legacy",)

    text = legacy_peer.DeletesLegacyQueue


class IgnoresLegacyPeer(Table):
    name = "table/HBASE-29169-no-peers"
    mutant_of = "table"
    overrides = "rule_prepare_reads_legacy_peer"
    bug = (
        "HBASE-29169: PREPARE with no replication peer cleans up at once, not asking whether "
        "the legacy region_replica_replication peer is still stored (listPeers does not return "
        "it); CLEAN_UP then deletes every queue znode while 2.x servers still run the legacy "
        "peer's source, and the next position write aborts the server"
    )
    configs = ("t-migrate-legacy-idle",)

    text = legacy_peer.IgnoresLegacyPeer


class SkipsHFileRefs(Table):
    name = "table/migrate-skips-hfile-refs"
    mutant_of = "table"
    overrides = "rule_migration_copies_hfile_refs"
    bug = (
        "MIGRATE moves the queues but not the hfile references: it deletes each peer's "
        "/hbase/replication/hfile-refs znode without batchUpdateHFileRefs, so a 2.x bulk load "
        "whose marker is still owed has no hfileref cell, and the 3.x master's "
        "ReplicationHFileCleaner, which reads only the table, deletes the archived hfile"
    )
    configs = ("t-migrate-hfile",)

    text = migrate_hfile.SkipsHFileRefs


MIGRATE_MUTANTS: tuple[type, ...] = (
    MigrationKeepsCleaner,
    ClaimDuringMigration,
    ReplayForgetsBarrier,
    DeletesLegacyQueue,
    IgnoresLegacyPeer,
    SkipsHFileRefs,
)
