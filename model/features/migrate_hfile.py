"""The hfile references of a 2.x bulk load through the migration from ZooKeeper
(``Config.zk_hfile_refs``; reference sections 2 and 9), in the protocol text's form
(``model/engine/step.py``): every engine reads these steps.

In 2.x the ``hfileref`` family was ZooKeeper's ``/hbase/replication/hfile-refs/<peer>/<hfile>``:
a bulk load added a child per peer before it committed the file and wrote the marker. A 3.x
master reads only ``hbase:replication``: its ``ReplicationHFileCleaner`` asks the table
(``getAllHFileRefs``), so a 2.x reference protects nothing until the migration copied it.

* **The starting point** (``start``): before the upgrade, alive 2.x server 0 bulk loaded the
  hfile. It is in the store, its marker is entry 0 of the server's current WAL (group 0), owed to
  every initial peer and not replicated (version-2 servers never ship), and each initial peer's
  hfile-refs znode holds its reference. No ``hfileref`` row exists.
* **MIGRATE's hfile-refs task** (``migrate_hfile_refs``, one step per peer): ``listAllHFileRefs``
  hands over one peer's references, ``batchUpdateHFileRefs`` writes them to the peer's
  ``hfileref`` row and the iterator then deletes the peer's znode. The batch of a peer that is
  no longer in peer storage is not written ("only queues whose peer exists"). As for the queues
  (``migrate_server``), write and delete are one step: a master restart in between migrates the
  znode again, and the put is idempotent. MIGRATE ends once no hfile-refs znode is left
  (``migrate_left``).
* The marker's later life is ``model/features/hfile_refs.py``'s: the upgrade stops server 0, its
  queue is
  claimed by a 3.x server once the migration is done, and shipping the marker removes the row's
  reference (``cleanUpHFileRefs``).

The layout's new slot: ``zk_hfile_refs[p]``, peer ``p``'s hfile-refs znode with the hfile's
reference. What the layout refuses (``FlatError``): a znode of a peer that had none at the start.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import GLOBAL, Edit
from replcheck.model.config import Config
from replcheck.model.engine.names import var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import FlatError
from replcheck.model.features.hfile_refs import HF_STORE, BulkLoad
from replcheck.model.features.migration import OLD_VERSION
from replcheck.model.table.state import MIG_MIGRATE, TState
from replcheck.model.table.views import TableText

BULK_LOADER = 0
"""The 2.x server that bulk loaded the hfile (the migration's first alive old server)."""


def start(cfg: Config, st: TState) -> TState:
    """The initial state with ``cfg.zk_hfile_refs``: the marker in server 0's current WAL, owed
    to every initial peer, and each initial peer's reference in ZooKeeper."""
    srv = st.servers[BULK_LOADER]
    if not srv.alive or srv.version != OLD_VERSION or cfg.edits_per_wal < 1:
        raise ValueError(f"config {cfg.name!r}: no alive 2.x server with room for the marker")
    peers = sum(1 << p for p in range(cfg.initial_peers))
    key = (BULK_LOADER, 0, srv.current[0])
    w = cfg.slot(key)
    wal = st.wals[w]
    if wal.entries:
        raise ValueError(f"config {cfg.name!r}: the bulk loader's WAL is not empty")
    marker = Edit((0, *key, 0), GLOBAL, (0,), peers)
    wals = list(st.wals)
    wals[w] = wal._replace(entries=(marker,))
    return st._replace(
        wals=tuple(wals),
        hfile=BulkLoad(HF_STORE, BULK_LOADER, (w, 0)),
        zk_hfile=peers,
    )


def _znodes(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.zk_hfile_peers]


class ZkHFileRefs(TableText):
    """The ``zk_hfile_refs`` feature: the 2.x references in ZooKeeper and MIGRATE's hfile-refs
    task (it comes before the migration's mixin, whose hooks it extends)."""

    handles = frozenset({"zk_hfile_refs"})
    encoded_fields = ("zk_hfile",)

    def __init__(self, design: Any, cfg: Config) -> None:
        super().__init__(design, cfg)  # type: ignore[call-arg]
        self.zk_hfile_peers = [p for p in self.P if self.init_state.zk_hfile >> p & 1]
        """The peers whose hfile-refs znode exists at the start."""

    # --- the layout ---------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for p in self.zk_hfile_peers:
            out[var.zk_hfile_refs(p)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        if st.zk_hfile & ~self.init_state.zk_hfile:
            raise FlatError("an hfile-refs znode of a peer that had none at the start")
        for p in self.zk_hfile_peers:
            v[var.zk_hfile_refs(p)] = bool(st.zk_hfile >> p & 1)
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        return st._replace(
            zk_hfile=sum(1 << p for p in self.zk_hfile_peers if v[var.zk_hfile_refs(p)])
        )

    # --- MIGRATE's hfile-refs task ------------------------------------------------------------

    def rule_migration_copies_hfile_refs(self) -> bool:
        """Does MIGRATE write a peer's ZooKeeper references to its ``hfileref`` row
        (``batchUpdateHFileRefs``) before it deletes the peer's znode? Yes."""
        return True

    def migrate_left(self, t: Ctx) -> list[Any]:
        """MIGRATE also waits for every peer's hfile-refs znode to be migrated."""
        out: list[Any] = super().migrate_left(t)  # type: ignore[misc]
        return [*out, *(t.zk_hfile_refs[p] for p in self.zk_hfile_peers)]

    @step(params=("peer",), fair=True, each=_znodes)
    def migrate_hfile_refs(self, t: Ctx, p: int) -> None:
        """MIGRATE: one peer's hfile references become its hfileref row, then its znode is
        deleted"""
        ops = t.ops
        t.require(t.migration_stage == MIG_MIGRATE, t.zk_hfile_refs[p])
        if self.rule_migration_copies_hfile_refs():
            t.when(self.storage(ops, t.get, p)).hfile_ref[p] = True  # type: ignore[attr-defined]
        t.zk_hfile_refs[p] = False


class SkipsHFileRefs(ZkHFileRefs):
    """``table/migrate-skips-hfile-refs``: MIGRATE deletes the hfile-refs znodes unread."""

    def rule_migration_copies_hfile_refs(self) -> bool:
        """MIGRATE deletes each peer's hfile-refs znode without writing its references to the
        table (the queues are migrated, the references are not)."""
        return False


FEATURE = ZkHFileRefs
"""The text of the ``zk_hfile_refs`` configuration feature (``table/layout.py``'s
``FEATURES``)."""
"""The mutant brings its text as ``Design.text`` (``features/migration_mutants.py``)."""
