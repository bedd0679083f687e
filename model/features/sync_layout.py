"""Synchronous replication (``model/features/sync_procedure.py``; seed 004 "About sync replication")
as a feature of the flat table model (``model/table/layout.py``): the mixin ``FEATURE``. The steps
are the protocol text's,
``model/features/sync_replication.py``; this module lays out their slots.

What the feature adds to the layout:

* per peer its stored sync-replication pair, ``sync_state[p]`` and ``sync_new_state[p]`` (state, new
  state: NONE, ACTIVE, DOWNGRADE_ACTIVE, STANDBY), and ``remote_wal_dir[p]``, its remote WAL
  directory;
* per server and peer the pair as the server last read it, ``view_state[s, p]`` /
  ``view_new_state[s, p]``, and whether it drained the peer's sources for STANDBY, ``drained[s,
  p]``;
* a TransitPeerSyncReplicationStateProcedure lives in the peer's procedure slot: its kind
  (``ppk``) is TRANSIT, ``pps`` is its step without the ``WAS_ENABLED`` flag, which is
  ``transit_was_enabled[p]``, and ``transit_target[p]`` the state it moves to; ``ppref``, ``pprec``
  and the ``removeAllQueues`` cursor are the base's (``pprec`` holds the servers ``table-doc``
  records);
* per sync peer and edit slot a bit of the STANDBY-era history ``TState.stale``:
  ``standby_stale[p, u]``, the edit that WAL slot and entry hold (only client puts append, so an
  edit's identity is its slot).

The refusal of recovered sources is the design's dual-form ``rule_refuse_recovered`` applied to
the claimer's view, so it follows the views as they change (``table/sync-no-refusal`` overrides
``refuse_recovered`` in its text). The invariants that read the
history (``no_lost_edit``'s exemption of stale edits, ``no_stale_edit_replicated``) are added over
the base's: ``no_lost_edit`` is the base predicate read through a view of the state in which a
stale edit is owed to nobody (the base predicate reads the owed bits only to decide which edits
must be covered).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import generic_of
from replcheck.model.engine.names import named, var
from replcheck.model.engine.text import FlatProperty
from replcheck.model.features.sync_procedure import TS_POST, WAS_ENABLED, step_of
from replcheck.model.features.sync_replication import SyncReplication
from replcheck.model.table.state import REMOVE, TRANSIT, TState
from replcheck.model.zk.layout import FlatError

SYNC_FIELDS = ("sync", "remote_dir", "stale")
"""State fields this feature makes variables."""
SYNC_SERVER_FIELDS = ("views", "drained")


class SyncFlat(SyncReplication):
    """Sync replication peers: their states, the transition procedure, the servers' views and
    drains, the remote WAL directories and the STANDBY-era history."""

    handles = frozenset({"sync"})
    cls: type
    init_state: TState

    encoded_fields = SYNC_FIELDS
    encoded_server_fields = SYNC_SERVER_FIELDS

    def __init__(self, design: Design, cfg: Config) -> None:
        super().__init__(design, cfg)  # type: ignore[call-arg]
        self.SP = range(cfg.sync_peers)
        refuse = generic_of(self.cls, "rule_refuse_recovered")
        if refuse is None and type(self).refuse_recovered is SyncReplication.refuse_recovered:
            raise FlatError(f"{design.name}: rule_refuse_recovered is not a dual-form rule here")
        self.rule["rule_refuse_recovered"] = refuse

    # --- variables ------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out = super().sorts()  # type: ignore[misc]
        state = ("i", 0, 3)
        for p in self.P:
            out[var.peer_proc_kind(p)] = ("i", 0, max(out[var.peer_proc_kind(p)][2], TRANSIT))
            out[var.peer_proc_stage(p)] = ("i", 0, max(out[var.peer_proc_stage(p)][2], TS_POST))
            out[var.transit_was_enabled(p)] = "b"
            out[var.transit_target(p)] = state
            out[var.sync_state(p)] = state
            out[var.sync_new_state(p)] = state
            out[var.remote_wal_dir(p)] = "b"
            for s in self.S:
                out[var.view_state(s, p)] = state
                out[var.view_new_state(s, p)] = state
                out[var.drained(s, p)] = "b"
        for p in self.SP:
            for u in self.U:
                out[var.standby_stale(p, u)] = "b"
        return out

    # --- explicit <-> flat ----------------------------------------------------------------------

    def encode(self, st: TState) -> dict[tuple, Any]:
        """The base encodes a transition's slot as a RemovePeer one of the same step (refresh,
        recorded, cursor); then its kind, flag and target are set here."""
        masked = tuple(
            proc._replace(kind=REMOVE, stage=step_of(proc), target=0)
            if proc and proc.kind == TRANSIT
            else proc
            for proc in st.pprocs
        )
        v = super().encode(st._replace(pprocs=masked))  # type: ignore[misc]
        c = self.cfg
        for p, proc in enumerate(st.pprocs):
            if proc and proc.kind == TRANSIT:
                if proc.stage >= 2 * WAS_ENABLED:
                    raise FlatError("a transition's stage out of range")
                v[var.peer_proc_kind(p)] = TRANSIT
                v[var.transit_was_enabled(p)] = proc.stage >= WAS_ENABLED
                v[var.transit_target(p)] = proc.target
        for p in self.P:
            v[var.sync_state(p)], v[var.sync_new_state(p)] = st.sync[p]
            v[var.remote_wal_dir(p)] = bool(st.remote_dir >> p & 1)
        for s, srv in enumerate(st.servers):
            for p in self.P:
                v[var.view_state(s, p)], v[var.view_new_state(s, p)] = srv.views[p]
                v[var.drained(s, p)] = bool(srv.drained >> p & 1)
        for p, uids in st.stale:
            if p not in self.SP:
                raise FlatError("STANDBY-era history of a peer that is not a sync peer")
            for uid in uids:
                if uid[0] != 0:
                    raise FlatError("STANDBY-era history of an edit not written here")
                v[var.standby_stale(p, self.uid(c.slot(uid[1:4]), uid[4]))] = True
        return v

    def decode(self, v: Any) -> TState:
        st = super().decode(v)  # type: ignore[misc]
        pprocs = tuple(
            proc._replace(
                stage=v[var.peer_proc_stage(p)] + WAS_ENABLED * v[var.transit_was_enabled(p)],
                target=v[var.transit_target(p)],
            )
            if proc and v[var.peer_proc_kind(p)] == TRANSIT
            else proc
            for p, proc in enumerate(st.pprocs)
        )
        servers = tuple(
            srv._replace(
                views=tuple((v[var.view_state(s, p)], v[var.view_new_state(s, p)]) for p in self.P),
                drained=sum(1 << p for p in self.P if v[var.drained(s, p)]),
            )
            for s, srv in enumerate(st.servers)
        )
        uids = [(0, *self.key[w], j) for w in self.W for j in range(self.E)]
        stale = []
        for p in self.SP:
            mine = tuple(sorted(uids[u] for u in self.U if v[var.standby_stale(p, u)]))
            if mine:
                stale.append((p, mine))
        return st._replace(
            pprocs=pprocs,
            servers=servers,
            sync=tuple((v[var.sync_state(p)], v[var.sync_new_state(p)]) for p in self.P),
            remote_dir=sum(1 << p for p in self.P if v[var.remote_wal_dir(p)]),
            stale=tuple(stale),
        )

    # --- properties -----------------------------------------------------------------------------

    def _owed_unless_stale(self, ops: Any, get: Any) -> Any:
        """A view of the state in which an edit of a sync peer's STANDBY-era history is owed to
        nobody."""

        def view(k: tuple) -> Any:
            if k[0] == "wowed" and k[3] in self.SP:
                _, w, j, p = k
                return ops.and_(get(k), ops.not_(named(get).standby_stale[p, self.uid(w, j)]))
            return get(k)

        return view

    def properties(self) -> list[FlatProperty]:
        """``no_lost_edit`` exempts STANDBY-era edits; ``no_stale_edit_replicated``: no edit of
        a peer's history is applied at its cluster."""

        def no_stale_edit_replicated(ops: Any, get: Any) -> Any:
            now = named(get)
            return ops.and_(
                *(
                    ops.not_(ops.and_(now.standby_stale[p, u], now.sink_applied[p + 1, u]))
                    for p in self.SP
                    for u in self.U
                )
            )

        out = []
        for prop in super().properties():  # type: ignore[misc]
            if prop.name in ("no_lost_edit", "edits_delivered"):
                base = prop.check

                def unless_stale(ops: Any, get: Any, base: Any = base) -> Any:
                    return base(ops, self._owed_unless_stale(ops, get))

                out.append(replace(prop, check=unless_stale))
            elif prop.name == "no_stale_edit_replicated":
                out.append(replace(prop, check=no_stale_edit_replicated))
            else:
                out.append(prop)
        return out


FEATURE = SyncFlat
