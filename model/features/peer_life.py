"""The peer's whole lifecycle in the table era (reference sections 5 and 10): the ``peer_life``
configuration feature.

* **UpdatePeerConfigProcedure, DisablePeerProcedure, EnablePeerProcedure** are ModifyPeerProcedures:
  PRE (``preUpdatePeerConfig`` / ``preDisablePeer`` / ``preEnablePeer``: the peer must exist, and
  not already be in the state asked for), UPDATE_PEER_STORAGE, REFRESH_PEER_ON_RS (one
  RefreshPeerProcedure per online server), POST.
* **What a region server does on the refresh** (``PeerProcedureHandlerImpl``): a disable
  (``refreshPeerState``, ENABLED -> DISABLED) and an update whose key configuration changed
  (``updatePeerConfig``: the cluster key or the endpoint; the model's update is one) call
  ``ReplicationSourceManager.refreshSources``: the peer's normal source is terminated and a new one
  is created from the offsets in storage (``createRefreshedSource``: ``getOffsets``) over the same
  WALs (``walsById``); each recovered source of the peer likewise, over its
  ``walsByIdRecoveredQueues`` (``rule_refresh_keeps_recovered_wals``). A new source starts its
  group's first WAL where ``getStartOffset`` says, so a batch shipped and not yet persisted is
  shipped again. An enable only refreshes the peer's state.
* **A peer added again under its id**: once RemovePeerProcedure has finished, the id is free again
  (``rule_peer_id_free``); the new peer is owed nothing its predecessor was (the edits written
  before are owed to no one: UPDATE_PEER_STORAGE of the new AddPeerProcedure clears them).
* **More than one procedure for the same peer**: the peer's procedures hold its exclusive lock for
  their whole life (``holdLock``), so one the admin submits while another runs waits in the
  peer's queue (``MasterProcedureScheduler``'s PeerQueue) and starts when the lock is released
  (``peer_proc_start``); its PRE then checks the peer as it is by then.

Layout: ``peer_proc_queued[p]``, the kind of the procedure waiting for peer ``p``'s lock, plus one
(``TState.queued``); the procedure slot's kind (``ppk``) takes the three new kinds.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ABSENT, DISABLED, ENABLED, REMOVED
from replcheck.model.engine.composition import replaces
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import FlatError
from replcheck.model.table import rules as table_rules
from replcheck.model.table.peers import PeerAdmin
from replcheck.model.table.state import (
    ADD,
    DISABLE,
    ENABLE,
    MP_POST,
    MP_PRE,
    MP_REFRESH,
    MP_STORAGE,
    NO_SOURCE,
    UPDATE,
    TState,
)
from replcheck.model.table.views import Budget, PeerProc, Server, ShipperSlot, TableText

MODIFY_KINDS: dict[str, int] = {"update": UPDATE, "disable": DISABLE, "enable": ENABLE}
"""The ModifyPeerProcedures by the name their steps carry."""

_MODIFY_STAGES = {"pre": MP_PRE, "storage": MP_STORAGE, "refresh": MP_REFRESH, "post": MP_POST}


def _peers(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.P]


class PeerLifecycle(TableText):
    """The ``peer_life`` feature: the ModifyPeerProcedures, ``refreshSources``, a peer added
    again, and the peer's procedure queue (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"peer_life"})
    encoded_fields = ("queued", "refreshed")

    # --- layout -------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for p in self.P:
            out[var.peer_proc_kind(p)] = ("i", 0, max(out[var.peer_proc_kind(p)][2], ENABLE))
            out[var.peer_proc_queued(p)] = ("i", 0, ENABLE + 1)
            out[var.sources_refreshed(p)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        """The base encodes a ModifyPeerProcedure's slot as an AddPeer one at the same stage
        (kind, stage and refreshes); its kind is set here."""
        masked = tuple(
            proc._replace(kind=ADD) if proc and proc.kind in MODIFY_KINDS.values() else proc
            for proc in st.pprocs
        )
        v: dict[tuple, Any] = super().encode(st._replace(pprocs=masked))  # type: ignore[misc]
        for p, proc in enumerate(st.pprocs):
            if proc and proc.kind in MODIFY_KINDS.values():
                v[var.peer_proc_kind(p)] = proc.kind
        queued = st.queued or (0,) * len(self.P)
        if len(queued) != len(self.P):
            raise FlatError("a procedure queue per peer")
        for p in self.P:
            v[var.peer_proc_queued(p)] = queued[p]
            v[var.sources_refreshed(p)] = bool(st.refreshed >> p & 1)
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        return st._replace(
            queued=tuple(v[var.peer_proc_queued(p)] for p in self.P),
            refreshed=sum(1 << p for p in self.P if v[var.sources_refreshed(p)]),
        )

    def initial_queued(self) -> tuple[int, ...]:
        """No procedure waits at first."""
        return (0,) * len(self.P)

    # --- the admin's commands and the peer's queue --------------------------------------------

    @replaces(PeerAdmin)
    def may_submit(self, t: Ctx, p: int, applies: Any) -> list[Any]:
        """A command for a peer with no procedure running is issued only where it applies (as
        the admin sees the peer); one for a peer whose lock is held waits in the peer's queue
        (one place), whatever the peer's state: its PRE decides."""
        ops = t.ops
        later = ops.and_(self.rule_peer_checked_under_lock(ops), t.peer_proc[p])
        return [ops.or_(applies, later), t.peer_proc_queued[p] == 0]

    @replaces(PeerAdmin)
    def enqueue(self, t: Ctx, p: int, kind: int, stage: int) -> None:
        """The procedure starts if the peer's lock is free, else waits in the peer's queue (every
        procedure's first stage is 0, so the queue holds only its kind)."""
        busy = t.peer_proc[p]
        t.when(busy).peer_proc_queued[p] = kind + 1
        self.start_proc(t, t.ops.not_(busy), p, kind, stage)

    @step(params=("peer",), fair=True, each=_peers)
    def peer_proc_start(self, t: Ctx, p: int) -> None:
        """the peer's lock is free: its queued procedure starts"""
        queued = t.peer_proc_queued[p]
        t.require(t.ops.not_(t.peer_proc[p]), queued > 0)
        self.start_proc(t, True, p, queued - 1, MP_PRE)
        t.peer_proc_queued[p] = 0

    @replaces(PeerAdmin)
    def rule_peer_id_free(self, ops: Any, status: Any) -> Any:
        """A peer may be added under an id never used, or under the id of a removed peer."""
        return ops.or_(status == ABSENT, status == REMOVED)

    @replaces(PeerAdmin)
    def toggle(self, t: Ctx, p: int, want: int, to: int) -> None:
        """The admin disables or enables the peer: DisablePeerProcedure or EnablePeerProcedure
        is submitted."""
        t.require(Budget(t, "admin").left > 0, *self.may_submit(t, p, t.peer_state[p] == want))
        self.submit(t, p, DISABLE if to == DISABLED else ENABLE, MP_PRE)

    @step(params=("peer",), fair=False, each=_peers)
    def update_peer(self, t: Ctx, p: int) -> None:
        """admin: UpdatePeerConfigProcedure is submitted (a new key configuration)"""
        applies = self.storage(t.ops, t.get, p)
        t.require(Budget(t, "admin").left > 0, *self.may_submit(t, p, applies))
        self.submit(t, p, UPDATE, MP_PRE)

    # --- the procedures -----------------------------------------------------------------------

    def proc_steps(self, p: int) -> dict[str, Any]:
        """The ModifyPeerProcedures' steps join the other procedures' (``update-pre``, ...,
        ``enable-post``)."""
        out: dict[str, Any] = super().proc_steps(p)  # type: ignore[misc]
        for name, kind in MODIFY_KINDS.items():
            for stage_name, stage in _MODIFY_STAGES.items():
                body = getattr(self, "proc_mp_" + stage_name)
                out[f"{name}-{stage_name}"] = (
                    kind,
                    stage,
                    lambda t, body=body, kind=kind: body(t, p, kind),
                )
        return out

    def proc_mp_pre(self, t: Ctx, p: int, kind: int) -> None:
        """ModifyPeerProcedure PRE: the peer must be in storage (``checkPeerExists``); a disable
        of a disabled peer or an enable of an enabled one fails too."""
        status = t.peer_state[p]
        ops = t.ops
        ok = self.storage(ops, t.get, p)
        if kind == DISABLE:
            ok = ops.and_(ok, status == ENABLED)
        elif kind == ENABLE:
            ok = ops.and_(ok, status == DISABLED)
        ok = ops.or_(ok, ops.not_(self.rule_peer_checked_under_lock(ops)))
        t.when(ok).peer_proc_stage[p] = MP_STORAGE
        self.clear(t, ops.not_(ok), self.proc_keys(p))

    def proc_mp_storage(self, t: Ctx, p: int, kind: int) -> None:
        """UPDATE_PEER_STORAGE: the new state (the new configuration is not in the model's
        state: only what the servers do with it is)."""
        if kind != UPDATE:
            t.peer_state[p] = DISABLED if kind == DISABLE else ENABLED
        self.set_stage(t, p, MP_REFRESH, refresh=True)

    def proc_mp_refresh(self, t: Ctx, p: int, kind: int) -> None:
        """REFRESH_PEER_ON_RS: every refresh ended."""
        self.set_stage(t, p, MP_POST)

    def proc_mp_post(self, t: Ctx, p: int, kind: int) -> None:
        """POST: the procedure ends and releases the peer's lock."""
        self.clear(t, True, self.proc_keys(p))

    def after_add_storage(self, t: Ctx, p: int) -> None:
        """A peer added again under the id of a removed one is owed nothing its predecessor
        was: the edits written before are owed to no one."""
        super().after_add_storage(t, p)  # type: ignore[misc]
        again = t.peer_removed[p]
        for w in self.W:
            for j in range(self.E):
                t.when(again).entry_owed[w, j, p] = False

    def peer_idle(self, ops: Any, get: Any, p: int) -> Any:
        """No procedure of the peer runs, and none waits for its lock."""
        return ops.and_(super().peer_idle(ops, get, p), named(get).peer_proc_queued[p] == 0)  # type: ignore[misc]

    def duplicates_explained_for(self, ops: Any, get: Any, p: int) -> Any:
        """A refresh explains a duplicate too: the new source ships again what the one it
        replaced shipped and had not persisted (at-least-once)."""
        return ops.or_(
            super().duplicates_explained_for(ops, get, p), named(get).sources_refreshed[p]
        )  # type: ignore[misc]

    # --- the refreshes, on the region servers -------------------------------------------------

    def refresh_variants(self, p: int) -> list[tuple]:
        out: list[tuple] = super().refresh_variants(p)  # type: ignore[misc]
        return out + [(kind,) for kind in MODIFY_KINDS.values()]

    def refresh_on(self, t: Ctx, p: int, s: int, kind: int, *variant: Any) -> None:
        """Server ``s`` runs a ModifyPeerProcedure's refresh: ``refreshSources`` on a disable or
        a configuration update, nothing on an enable (a server that died since just ends it)."""
        if kind not in MODIFY_KINDS.values():
            super().refresh_on(t, p, s, kind, *variant)  # type: ignore[misc]
            return
        PeerProc(t, p).refresh[s] = False
        if kind != ENABLE:
            self.refresh_sources(t.ops, t, Server(t, s).alive, p, s)

    def rule_refresh_keeps_recovered_wals(self, ops: Any) -> Any:
        """Does a refreshed recovered source get its queue's WALs (``walsByIdRecoveredQueues``)?
        Yes (HBASE-24871's fix)."""
        return True

    def refresh_sources(self, ops: Any, t: Any, cond: Any, p: int, s: int) -> None:
        """``refreshSources(p)`` on server ``s`` where ``cond`` holds: every source of the peer,
        normal and recovered, is terminated and created again over the same WALs, starting at
        the offset its queue row holds (``getStartOffset``)."""
        t.when(cond).sources_refreshed[p] = True
        keep = self.rule_refresh_keeps_recovered_wals(ops)
        for sk in self.sh_keys:
            if sk[:2] != (s, p):
                continue
            _s, _p, src, g, _m = sk
            present = ops.and_(cond, ShipperSlot(t, *sk).present)
            rk = (p, s, src)
            has = ops.and_(t.queue_row[*rk], t.queue_has_offset[*rk, g])
            ts = ops.ite(has, t.queue_offset_wal[*rk, g], table_rules.NO_TIMESTAMP)
            stored = ops.ite(has, t.queue_offset_pos[*rk, g], 0)
            start = self.first_wal_start(
                ops, has, ts, stored, [t.shipper_has_wal[*sk, q] for q in self.Q]
            )
            if src == NO_SOURCE:
                t.when(present).shipper_pos[*sk] = start
                continue
            t.when(ops.and_(present, keep)).shipper_pos[*sk] = start
            # without its WALs the new recovered source has nothing to read: it ends at once
            # and, as the queue's last, removes the queue (``finishRecoveredSource``)
            self.clear(t, ops.and_(present, ops.not_(keep)), self.shipper_keys(sk))
            self.remove_row(t, ops.and_(present, ops.not_(keep)), rk)


class RefreshDropsRecoveredWals(PeerLifecycle):
    """``table/HBASE-24871``: a refreshed recovered source is created without its WALs."""

    def rule_refresh_keeps_recovered_wals(self, ops: Any) -> Any:
        """The recovered queue's WALs are enqueued to the new normal source instead of the new
        recovered one, which finds nothing to read, ends and removes its queue."""
        return False


FEATURE = PeerLifecycle
"""The text of the ``peer_life`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
