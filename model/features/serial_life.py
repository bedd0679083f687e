"""A serial peer's lifecycle: added while the cluster runs, removed, added again (reference
sections 2 and 5; seed 004 "Last Sequence Ids"), in the protocol text's form
(``model/engine/step.py``): the ``serial_life`` configuration feature, on top of
``model/features/serial.py``.

* **AddPeerProcedure of a serial peer.** UPDATE_PEER_STORAGE stores the peer disabled
  (``addPeer(peerId, peerConfig, peerConfig.isSerial() ? false : enabled)``: ``added_state``);
  after REFRESH_PEER_ON_RS (``nextStateAfterRefresh``: ``add_stage_after_refresh``) come
  SERIAL_PEER_REOPEN_REGIONS (``reopenRegions``: a ``ReopenTableRegionsProcedure`` for each
  replicated table, so the region opens again and a new range starts at a new barrier),
  SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID (``setLastPushedSequenceIdForTable``: for each region,
  its last barrier minus one, written with ``setLastSequenceIds``, a plain put: "No need CAS and
  retry here, because it'll call setLastSequenceIds() for disabled peers only") and
  SERIAL_PEER_SET_PEER_ENABLED, then POST. So the edits of the ranges before the add count as
  pushed, and those of the new range wait for nothing the new peer was never given.
* **RemovePeerProcedure** deletes the peer's ``sid`` cells (``removeLastSequenceIds(peerId)``) in
  its post stage with its queues (``removal_done``); ``no_queue_after_removal`` counts them
  (``peer_rows_left``).

Abstractions (each a documented choice):

* the reopen moves the region to a live server that never hosted it (``model/features/serial.py``
  keeps
  one range per server, so an edit's range is its WAL's server's); HBase may reopen it in place,
  where one WAL then holds both ranges in order. It waits while the region is not open (its
  server died and the SCP has not assigned it yet): ``ReopenTableRegionsProcedure`` reopens open
  regions;
* the enable's second refresh (SERIAL_PEER_ENABLE_PEER_REFRESH_PEER_ON_RS) is not a stage: the
  sources read the peer's state from peer storage (``source_ships_rule``);
* the region's ranges: one, one more per crash and one more per admin command (each may add a
  serial peer, which reopens the region).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import DISABLED, ENABLED
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx
from replcheck.model.table.state import ADD, AP_ENABLE, AP_POST, AP_REOPEN, AP_SEQ_ID, TState
from replcheck.model.table.views import TableText


class SerialLifecycle(TableText):
    """The ``serial_life`` feature: AddPeerProcedure's serial stages and RemovePeerProcedure's
    ``removeLastSequenceIds`` (the region's helpers are ``SerialReplication``'s)."""

    handles = frozenset({"serial_life"})
    encoded_fields = ("serial_from",)

    @property
    def ranges(self) -> int:
        """One range more per admin command: an added serial peer reopens the region."""
        return super().ranges + self.cfg.admin_ops  # type: ignore[misc]

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for p in self.P:
            out[var.peer_proc_stage(p)] = ("i", 0, max(out[var.peer_proc_stage(p)][2], AP_ENABLE))
            out[var.serial_order_from(p)] = ("i", 0, self.cfg.edits)
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        start = st.serial_from or (0,) * len(self.P)
        for p in self.P:
            v[var.serial_order_from(p)] = start[p]
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        return st._replace(serial_from=tuple(v[var.serial_order_from(p)] for p in self.P))

    def order_from(self, ops: Any, get: Any, p: int) -> Any:
        """A serial peer added while the cluster runs is promised the order of the edits from
        the barrier SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID read on (history, written by that
        stage whatever it writes to the ``sid`` family): the edits before it are taken as
        pushed, and go as they come."""
        return named(get).serial_order_from[p]

    # --- AddPeerProcedure ---------------------------------------------------------------------

    def added_state(self, p: int) -> int:
        """A serial peer is stored disabled until its last pushed sequence ids are written."""
        if p in self.serial:  # type: ignore[attr-defined]
            return DISABLED
        return super().added_state(p)  # type: ignore[misc]

    def add_stage_after_refresh(self, p: int) -> int:
        """A serial peer's AddPeerProcedure reopens the regions next."""
        if p in self.serial:  # type: ignore[attr-defined]
            return AP_REOPEN
        return super().add_stage_after_refresh(p)  # type: ignore[misc]

    def proc_steps(self, p: int) -> dict[str, Any]:
        """The serial stages join the procedures' steps: ``add-reopen(s)`` (the region reopens
        on server ``s``), ``add-seq-id``, ``add-enable``."""
        out: dict[str, Any] = super().proc_steps(p)  # type: ignore[misc]
        if p not in self.serial:  # type: ignore[attr-defined]
            return out
        for s in self.S:
            out[f"add-reopen({s})"] = (
                ADD,
                AP_REOPEN,
                lambda t, s=s: self.proc_add_reopen(t, p, s),
            )
        out["add-seq-id"] = (ADD, AP_SEQ_ID, lambda t: self.proc_add_seq_id(t, p))
        out["add-enable"] = (ADD, AP_ENABLE, lambda t: self.proc_add_enable(t, p))
        return out

    def region_open(self, ops: Any, get: Any) -> Any:
        """The region's current range is open on a live server."""
        now = named(get)
        return ops.or_(
            *(
                ops.and_(
                    now.region_range == i,
                    now.range_host[i] == x,
                    now.server_alive[x],
                )
                for i in range(self.ranges)
                for x in self.S
            )
        )

    def proc_add_reopen(self, t: Ctx, p: int, s: int) -> None:
        """SERIAL_PEER_REOPEN_REGIONS: the open region closes and opens on live server ``s``,
        a new range whose barrier is the region's next sequence id."""
        ops = t.ops
        i = t.region_range
        t.require(
            t.server_alive[s],
            self.never_hosted(ops, t.get, s),  # type: ignore[attr-defined]
            self.region_open(ops, t.get),
            i < self.ranges - 1,
        )
        for k in range(1, self.ranges):
            t.when(i == k - 1).range_host[k] = s
            t.when(i == k - 1).range_barrier[k] = t.region_next_seq
        t.region_range = i + 1
        self.set_stage(t, p, AP_SEQ_ID)  # type: ignore[attr-defined]

    def rule_writes_last_pushed_seq_ids(self) -> bool:
        """Does a serial peer's AddPeerProcedure write the last pushed sequence ids
        (SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID)? Yes."""
        return True

    def proc_add_seq_id(self, t: Ctx, p: int) -> None:
        """SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID: ``setLastSequenceIds`` puts the region's last
        barrier minus one as the peer's last pushed sequence id (a plain put)."""
        last = t.range_barrier[0]
        for k in range(1, self.ranges):
            last = t.ops.ite(t.region_range == k, t.range_barrier[k], last)
        if self.rule_writes_last_pushed_seq_ids():
            t.last_pushed_seq_id[p] = last - 1
        t.serial_order_from[p] = last
        self.set_stage(t, p, AP_ENABLE)  # type: ignore[attr-defined]

    def proc_add_enable(self, t: Ctx, p: int) -> None:
        """SERIAL_PEER_SET_PEER_ENABLED: the peer enabled in peer storage; POST is next."""
        t.peer_state[p] = ENABLED
        self.set_stage(t, p, AP_POST)  # type: ignore[attr-defined]

    # --- RemovePeerProcedure ------------------------------------------------------------------

    def rule_removal_deletes_last_seq_ids(self) -> bool:
        """Does RemovePeerProcedure delete the peer's ``sid`` cells (``removeLastSequenceIds``)?
        Yes, in its post stage."""
        return True

    def removal_done(self, t: Ctx, p: int, done: Any) -> None:
        """``removeLastSequenceIds(peerId)``: the serial peer's last pushed sequence ids go."""
        super().removal_done(t, p, done)  # type: ignore[misc]
        if p in self.serial and self.rule_removal_deletes_last_seq_ids():  # type: ignore[attr-defined]
            t.when(done).last_pushed_seq_id[p] = -1

    def peer_rows_left(self, ops: Any, get: Any, p: int) -> Any:
        """A serial peer's ``sid`` cells are rows of the peer too."""
        out = super().peer_rows_left(ops, get, p)  # type: ignore[misc]
        if p not in self.serial:  # type: ignore[attr-defined]
            return out
        return ops.or_(out, named(get).last_pushed_seq_id[p] >= 0)


class AddSkipsSeqIds(SerialLifecycle):
    """``table/serial-add-skips-seq-id``: no SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID."""

    def rule_writes_last_pushed_seq_ids(self) -> bool:
        """The peer is enabled with no last pushed sequence id written for the region."""
        return False


class RemovalKeepsSeqIds(SerialLifecycle):
    """``table/serial-remove-keeps-sid``: RemovePeerProcedure leaves the ``sid`` cells."""

    def rule_removal_deletes_last_seq_ids(self) -> bool:
        """The removal deletes the peer's queues and ``hfileref`` row, not its ``sid`` cells."""
        return False


FEATURE = SerialLifecycle
"""The text of the ``serial_life`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
