"""Bulk loads and the ``hfileref`` family (seed 004 "HFile References"; reference section 2), in
the protocol text's form (``model/engine/step.py``): every engine reads these steps and rules.

A bulk load replicates a file, not cells: the WAL holds only a marker naming the hfile, and the
peer copies the hfile from the source cluster when the marker is shipped. So the hfile must
outlive the marker's replication, which is what the ``hfileref`` family is for: the region
server adds a reference per peer (``addHFileRefs``, row ``peerId``, qualifier the hfile's name)
*before* it commits the file and writes the marker (``preCommitStoreFile``); the shipper removes
the peer's reference once the marker was replicated (``cleanUpHFileRefs``); and the master's
``ReplicationHFileCleaner`` keeps every archived hfile some reference names.

Abstractions (each a documented choice):

* one bulk load of one hfile (``bulk_load``), by any live server, into WAL group 0: the server
  adds a reference for each peer it has a source for (``bulk_load``), then commits the file
  into the store and appends the marker to its current WAL (``bulk_load_commit``); a server
  that dies in between leaves the references (harmless: they only keep a file) and no marker;
* a compaction moves the committed hfile to the archive (``hfile_archive``), where the
  ``ReplicationHFileCleaner`` deletes it when no peer's reference names it (``hfile_clean``);
* shipping the marker copies the hfile to the peer (from the store, else the archive); a
  deleted hfile is skipped ("Hence ignoring this hfile from replication"), so the marker counts
  as applied while its data is lost: ``bulk_loaded_hfile_kept`` judges the deletion itself. A
  shipped marker removes the peer's reference in the same step (a crash between the two only
  leaves the reference behind), so a marker shipped again after a failover may find its hfile
  deleted, which loses nothing: the peer has it;
* a peer's removal deletes its row (RemovePeerProcedure's ``removePeerFromHFileRefs``, in its
  post stage with the queues and the ``sid`` row: ``removal_done``), and AddPeerProcedure's
  ``checkQueuesDeleted`` fails the add of a peer whose row is left ("Undeleted queue for peer
  ... in hfile-refs": ``add_refused``); ``no_queue_after_removal`` counts the row
  (``peer_rows_left``).

The layout's new slots: ``hfile_stage`` the hfile's stage (``HF_*``); ``hfile_server`` the server
that bulk loaded it; ``hfile_ref[p]`` peer ``p``'s reference (``TState.sid``'s ``HFILE_REF`` bit);
``entry_bulk_marker[w, j]`` entry ``j`` of WAL slot ``w`` is the bulk load's marker.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from replcheck.model.common.state import GLOBAL, REMOVED
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import FlatProperty
from replcheck.model.table.state import HFILE_REF, TState
from replcheck.model.table.views import TableText
from replcheck.model.table.wal import appends_at

HF_NONE, HF_STAGED, HF_STORE, HF_ARCHIVED, HF_DELETED = range(5)
HF_NAMES = ("none", "staged", "in the store", "archived", "deleted")


class BulkLoad(NamedTuple):
    """The bulk-loaded hfile (``TState.hfile``): its stage, the server that loaded it, and the
    WAL entry of its marker ``(WAL slot, entry)`` once written."""

    stage: int
    server: int
    marker: tuple[int, ...]


NO_BULK_LOAD = BulkLoad(HF_NONE, -1, ())


def _commits(text: Any) -> list[tuple[int, int, int]]:
    return [(s, q, j) for s in text.S for q in text.Q for j in range(text.cfg.edits_per_wal)]


def _late_refs(text: Any) -> list[tuple[int]]:
    """``bulk_load_refs``' instances: none where the references come before the commit."""
    return [] if text.rule_refs_before_commit() else [(s,) for s in text.S]


class HFileRefs(TableText):
    """The ``bulk_load`` feature: the bulk load, its references, the hfile's archive and cleaner,
    and what shipping its marker needs and clears (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"bulk_load"})
    encoded_fields = ("hfile",)

    # --- the layout ---------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        out[var.hfile_stage()] = ("i", HF_NONE, HF_DELETED)
        out[var.hfile_server()] = ("i", -1, self.cfg.servers - 1)
        for p in self.P:
            out[var.hfile_ref(p)] = "b"
        for w in self.W:
            for j in range(self.E):
                out[var.entry_bulk_marker(w, j)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        refs = [bool(x & HFILE_REF) for x in st.sid]
        st = st._replace(sid=tuple(x & ~HFILE_REF for x in st.sid))
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        hf = st.hfile or NO_BULK_LOAD
        v[var.hfile_stage()] = hf.stage
        v[var.hfile_server()] = hf.server
        for p in self.P:
            v[var.hfile_ref(p)] = refs[p]
        if hf.marker:
            v[var.entry_bulk_marker(*hf.marker)] = True
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        marker = next(
            ((w, j) for w in self.W for j in range(self.E) if v[var.entry_bulk_marker(w, j)]),
            (),
        )
        return st._replace(
            sid=tuple(x | (HFILE_REF if v[var.hfile_ref(p)] else 0) for p, x in enumerate(st.sid)),
            hfile=BulkLoad(v[var.hfile_stage()], v[var.hfile_server()], marker),
        )

    # --- the bulk load ------------------------------------------------------------------------

    def rule_refs_before_commit(self) -> bool:
        """Does the bulk load add its hfile references before it commits the file and writes
        the marker (``preCommitStoreFile``)? Yes."""
        return True

    def add_refs(self, ops: Any, t: Ctx, s: int) -> None:
        """``addHFileRefs``: a reference for each peer server ``s`` has a source for."""
        for p in self.P:
            t.when(t.knows_peer[s, p]).hfile_ref[p] = True

    @step(params=("server",), fair=False, each=lambda text: [(s,) for s in text.S])
    def bulk_load(self, t: Ctx, s: int) -> None:
        """bulk load: preCommitStoreFile adds the hfile's references"""
        t.require(t.hfile_stage == HF_NONE, t.server_alive[s])
        if self.rule_refs_before_commit():
            self.add_refs(t.ops, t, s)
        t.hfile_stage = HF_STAGED
        t.hfile_server = s

    @step(
        params=("server",),
        fair=True,
        each=_commits,
        label=lambda text, st, get, a: a[:1],
        lead=lambda text, s, q, j: appends_at(text, s, 0, GLOBAL, q, j),
    )
    def bulk_load_commit(self, t: Ctx, s: int, q: int, j: int) -> None:
        """bulk load: the hfile committed, its marker appended to the WAL"""
        ops = t.ops
        w = self.slot(s, 0, q)
        t.require(t.hfile_stage == HF_STAGED, t.hfile_server == s, t.server_alive[s])
        owed = [self.rule_owed(ops, t.get, s, GLOBAL, p) for p in self.P]  # type: ignore[attr-defined]
        self.write_entry(t, True, w, j, self.uid(w, j), GLOBAL, 0, owed)
        t.entry_bulk_marker[w, j] = True
        t.hfile_stage = HF_STORE

    @step(params=("server",), fair=True, each=_late_refs)
    def bulk_load_refs(self, t: Ctx, s: int) -> None:
        """bulk load: the hfile's references, added after its commit"""
        t.require(t.hfile_stage >= HF_STORE, t.hfile_server == s, t.server_alive[s])
        self.add_refs(t.ops, t, s)

    # --- the hfile's life after the load ------------------------------------------------------

    @step(params=(), fair=False, each=lambda text: [()])
    def hfile_archive(self, t: Ctx) -> None:
        """a compaction moves the bulk-loaded hfile to the archive"""
        t.require(t.hfile_stage == HF_STORE)
        t.hfile_stage = HF_ARCHIVED

    def rule_hfile_deletable(self, ops: Any, get: Any) -> Any:
        """``ReplicationHFileCleaner``: may the archived hfile be deleted? Only when no peer's
        ``hfileref`` cell names it (``getAllHFileRefs``)."""
        return ops.not_(ops.or_(*(named(get).hfile_ref[p] for p in self.P)))

    @step(params=(), fair=False, each=lambda text: [()])
    def hfile_clean(self, t: Ctx) -> None:
        """the master's hfile cleaner deletes the archived hfile"""
        t.require(t.hfile_stage == HF_ARCHIVED, self.rule_hfile_deletable(t.ops, t.get))
        t.hfile_stage = HF_DELETED

    # --- the source: a shipped marker clears its reference -----------------------------------

    def _marker_in(self, ops: Any, get: Any, w: int, pos: Any, end: Any) -> Any:
        """Entries ``pos`` to ``end`` of WAL slot ``w`` hold the bulk load's marker."""
        return ops.or_(
            *(
                ops.and_(named(get).entry_bulk_marker[w, j], pos <= j, j < end)
                for j in range(self.E)
            )
        )

    def after_ship(self, ops: Any, t: Ctx, sk: tuple, q: int, pos: Any, end: Any) -> None:
        """``cleanUpHFileRefs``: a shipped marker removes the peer's reference."""
        super().after_ship(ops, t, sk, q, pos, end)  # type: ignore[misc]
        marker = self._marker_in(ops, t.get, self.head_slot(sk, q), pos, end)
        t.when(marker).hfile_ref[sk[1]] = False

    # --- the peer's removal and its add ------------------------------------------------------

    def rule_removal_deletes_hfile_refs(self) -> bool:
        """Does RemovePeerProcedure delete the peer's ``hfileref`` row
        (``removePeerFromHFileRefs``)? Yes, after ``removeAllQueues``."""
        return True

    def removal_done(self, t: Ctx, p: int, done: Any) -> None:
        """``removePeerFromHFileRefs``: the peer's references go with its queues."""
        super().removal_done(t, p, done)  # type: ignore[misc]
        if self.rule_removal_deletes_hfile_refs():
            t.when(done).hfile_ref[p] = False

    def add_refused(self, ops: Any, get: Any, p: int) -> Any:
        """``checkQueuesDeleted``: "Undeleted queue for peer ... in hfile-refs"."""
        return ops.or_(super().add_refused(ops, get, p), named(get).hfile_ref[p])  # type: ignore[misc]

    def peer_rows_left(self, ops: Any, get: Any, p: int) -> Any:
        """The peer's ``hfileref`` row is one of its rows."""
        return ops.or_(super().peer_rows_left(ops, get, p), named(get).hfile_ref[p])  # type: ignore[misc]

    # --- the property -------------------------------------------------------------------------

    def marker_owed(self, ops: Any, get: Any, p: int) -> Any:
        """The bulk load's marker is owed to peer ``p``, which still exists, and not yet applied
        there: what an hfile reference has to cover."""
        now = named(get)
        return ops.or_(
            *(
                ops.and_(
                    now.entry_bulk_marker[w, j],
                    now.entry_owed[w, j, p],
                    ops.not_(now.sink_applied[p + 1, self.uid(w, j)]),
                    now.peer_state[p] != REMOVED,
                )
                for w in self.W
                for j in range(self.E)
            )
        )

    def properties(self) -> list[FlatProperty]:
        """The base properties, and ``bulk_loaded_hfile_kept``."""
        out: list[FlatProperty] = super().properties()  # type: ignore[misc]
        return [*out, FlatProperty.of("invariant", self.hfile_kept_check())]

    def hfile_kept_check(self) -> Any:
        """``bulk_loaded_hfile_kept`` over this layout's entry slots."""

        def bulk_loaded_hfile_kept(ops: Any, get: Any) -> Any:
            """HBase's ReplicationHFileCleaner "checks if a hfile is still scheduled for
            replication before deleting it from hfile archive directory" (seed 004 keeps the
            scheduled hfiles in the ``hfileref`` family). A bulk load's hfile is not deleted
            while its marker is owed to a peer that still exists and not yet applied there."""
            kept = named(get).hfile_stage != HF_DELETED
            return ops.and_(*(ops.implies(self.marker_owed(ops, get, p), kept) for p in self.P))

        return bulk_loaded_hfile_kept


class RefsAfterCommit(HFileRefs):
    """``table/hfile-refs-after-commit``: the references are added after the marker."""

    def rule_refs_before_commit(self) -> bool:
        """The references are added after the file is committed and its marker written."""
        return False


class RemovalKeepsHFileRefs(HFileRefs):
    """``table/remove-keeps-hfile-refs``: RemovePeerProcedure leaves the peer's ``hfileref``
    row."""

    def rule_removal_deletes_hfile_refs(self) -> bool:
        """The removal deletes the queues and the ``sid`` row, not the ``hfileref`` row."""
        return False


FEATURE = HFileRefs
"""The text of the ``bulk_load`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
