"""The legacy ``region_replica_replication`` peer during the migration from ZooKeeper
(``Config.legacy_peer``; reference section 9, HBASE-29169), in the protocol text's form
(``model/engine/step.py``): every engine reads these steps.

In 2.x, region replica replication ran as a special replication peer,
``region_replica_replication``: every 2.x region server has a queue znode for it under its
replicator znode, and its source keeps writing WAL positions there. A 3.x master does not load
that peer (``listPeers`` does not return it), so the migration neither disables nor migrates it:

* **PREPARE** with no peer: if the legacy peer is still in peer storage
  (``hasRegionReplicaReplicationPeer``) the procedure goes to WAIT_UPGRADING, else straight to
  ENABLE_CLEANER (``no_peers_next``; ``rule_prepare_reads_legacy_peer``).
* **MIGRATE**: the iterator skips the legacy queues (no row is written for them); when it moves
  past a server that had one it deletes only the server's other queue znodes
  (``cleanupQueuesWithoutRegionReplicaReplication``), "otherwise we may crash the old region
  servers, see HBASE-29169" (``delete_migrated``; ``rule_iterator_keeps_legacy_queue``).
* **CLEAN_UP** (after WAIT_UPGRADING, when every online server is 3.x):
  ``oldStorage.deleteAllData()`` deletes the legacy queue znodes too, and
  ``deleteLegacyRegionReplicaReplicationPeer()`` the peer (``clean_up``).
* **The legacy source** (``legacy_position_write``): a version-2 server's source of the legacy
  peer writes its position to its own queue znode; when that znode is gone the write fails
  (NoNode) and the server aborts. The abort is ``kill``, the same death as a crash or a failed
  write to ``hbase:replication`` (``model/features/storage_faults.py``): its memory goes and the
  master schedules its ServerCrashProcedure. The history ``aborted`` records which server aborted
  this way; ``no_abort_by_removed_queue`` (``model/table/properties.py``) says none does.

Abstractions (each a documented choice): a legacy queue znode is one bit per server that is alive
and of version 2 at the start (its WALs and positions are not modelled: the peer replicates to
region replicas, which the model has no sink for, and its queue protects no WAL of a 3.x
cleaner); servers that died in the 2.x era have none (no source writes there, so deleting it
crashes no one); version-3 servers start no legacy source. Whether a write finds its znode is
the only thing the source does, so the step is enabled only when it fails (a write that succeeds
changes nothing), and it is not fair: the invariant fails as soon as the abort is possible.

The layout's new slots: ``legacy_peer_stored`` (the peer in storage), and per legacy server ``s``
its queue znode ``legacy_queue_znode[s]`` and the history bit ``legacy_aborted[s]``. What the layout
refuses (``FlatError``): a state with no legacy peer record, and a legacy znode or abort of a
server that had no legacy queue at the start.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.names import var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import FlatError
from replcheck.model.features.migration import OLD_VERSION, ZkMigration
from replcheck.model.table.state import MIG_WAIT_UPGRADING, LegacyReplicaPeer, TState
from replcheck.model.table.views import Server

LEGACY_PEER = "region_replica_replication"
"""The legacy peer's id (``REGION_REPLICA_REPLICATION_PEER`` of
``ZKReplicationQueueStorageForMigration``)."""


def start(cfg: Config, st: TState) -> TState:
    """The initial state with ``cfg.legacy_peer``: the peer is in storage and every alive
    version-2 server has its queue znode."""
    znodes = sum(
        1 << s for s, srv in enumerate(st.servers) if srv.alive and srv.version == OLD_VERSION
    )
    return st._replace(legacy=LegacyReplicaPeer(True, znodes, 0))


def _legacy_servers(text: Any) -> list[tuple[int]]:
    return [(s,) for s in text.legacy_servers]


class LegacyPeerMigration(ZkMigration):
    """The ``legacy_peer`` feature: the migration (its mixin's) with the legacy peer."""

    handles = frozenset({"legacy_peer", "migration", "spare_servers"})
    encoded_fields = ("legacy",)

    def __init__(self, design: Any, cfg: Config) -> None:
        super().__init__(design, cfg)
        legacy = self.init_state.legacy
        if not legacy:
            raise FlatError(f"config {cfg.name!r}: no legacy peer record")
        self.legacy_servers = [s for s in self.S if legacy.znodes >> s & 1]
        """The servers that have a legacy queue znode at the start."""

    # --- the layout ---------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out = super().sorts()
        out[var.legacy_peer_stored()] = "b"
        for s in self.legacy_servers:
            out[var.legacy_queue_znode(s)] = "b"
            out[var.legacy_aborted(s)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v = super().encode(st)
        legacy = st.legacy
        if not legacy:
            raise FlatError("no legacy peer record: not in the legacy peer's layout")
        extra = (legacy.znodes | legacy.aborted) & ~self.init_state.legacy.znodes
        if extra:
            raise FlatError("a legacy queue znode or abort of a server that had no legacy queue")
        v[var.legacy_peer_stored()] = legacy.stored
        for s in self.legacy_servers:
            v[var.legacy_queue_znode(s)] = bool(legacy.znodes >> s & 1)
            v[var.legacy_aborted(s)] = bool(legacy.aborted >> s & 1)
        return v

    def decode(self, v: Any) -> TState:
        st = super().decode(v)
        legacy = LegacyReplicaPeer(
            bool(v[var.legacy_peer_stored()]),
            sum(1 << s for s in self.legacy_servers if v[var.legacy_queue_znode(s)]),
            sum(1 << s for s in self.legacy_servers if v[var.legacy_aborted(s)]),
        )
        return st._replace(legacy=legacy)

    # --- rules and the migration's hooks --------------------------------------------------------

    def rule_prepare_reads_legacy_peer(self) -> bool:
        """PREPARE with no peer asks ``hasRegionReplicaReplicationPeer`` (the fix of
        HBASE-29169): while the legacy peer is stored, old servers may still write its queues."""
        return True

    def rule_iterator_keeps_legacy_queue(self) -> bool:
        """MIGRATE's iterator keeps the legacy queue znode of a server it moved past (the fix of
        HBASE-29169): "If there are region_replica_replication queues then we can not delete the
        data right now, otherwise we may crash the old region servers"."""
        return True

    def no_peers_next(self, t: Ctx) -> Any:
        """PREPARE with no peer: WAIT_UPGRADING while the legacy peer is in storage."""
        nxt = super().no_peers_next(t)
        if not self.rule_prepare_reads_legacy_peer():
            return nxt
        return t.ops.ite(t.legacy_peer_stored, MIG_WAIT_UPGRADING, nxt)

    def delete_migrated(self, t: Ctx, s: int) -> None:
        """MIGRATE: ``cleanupQueuesWithoutRegionReplicaReplication`` where ``s`` has a legacy
        queue (the other queue znodes only), else the whole replicator znode."""
        super().delete_migrated(t, s)
        if s in self.legacy_servers and not self.rule_iterator_keeps_legacy_queue():
            t.legacy_queue_znode[s] = False

    def clean_up(self, t: Ctx) -> None:
        """CLEAN_UP: ``deleteAllData()`` deletes the legacy queue znodes too, and
        ``deleteLegacyRegionReplicaReplicationPeer()`` the peer."""
        super().clean_up(t)
        for s in self.legacy_servers:
            t.legacy_queue_znode[s] = False
        t.legacy_peer_stored = False

    # --- the legacy source ----------------------------------------------------------------------

    @step(params=("server",), fair=False, each=_legacy_servers)
    def legacy_position_write(self, t: Ctx, s: int) -> None:
        """the legacy peer's source finds its queue znode gone: the 2.x server aborts"""
        t.require(Server(t, s).alive, t.ops.not_(t.legacy_queue_znode[s]))
        t.legacy_aborted[s] = True
        self.kill(t.ops, t, s)


class DeletesLegacyQueue(LegacyPeerMigration):
    """``table/HBASE-29169``: the iterator deletes the whole replicator znode."""

    def rule_iterator_keeps_legacy_queue(self) -> bool:
        """The iterator deletes a migrated server's whole replicator znode, its legacy queue
        included, as before HBASE-29169."""
        return False


class IgnoresLegacyPeer(LegacyPeerMigration):
    """``table/HBASE-29169-no-peers``: PREPARE with no peer does not look for the legacy peer."""

    def rule_prepare_reads_legacy_peer(self) -> bool:
        """PREPARE with no peer cleans up at once, as before HBASE-29169 (``listPeers`` does not
        return the legacy peer)."""
        return False


FEATURE = LegacyPeerMigration
"""The text of the ``legacy_peer`` configuration feature (``table/layout.py``'s ``FEATURES``):
it encodes the migration too, so it takes the migration's place."""
"""The legacy peer's mutants bring their text as ``Design.text``
(``features/migration_mutants.py``)."""
