"""The steps of synchronous replication (``model/table_sync.py``) over the flat layout of
``specs/flat_table_sync.py``: TransitPeerSyncReplicationStateProcedure, its refreshes on the
region servers with ``drainSources``, and what sync peers change in the base steps (the owed
peers of a put and the STANDBY-era history, the spare WAL slot that stops ordinary rolls,
RemovePeer's state check and remote WAL directory, the views AddPeer's refresh writes, the
refusal of recovered sources, the drained flags a crash forgets).

Each method mirrors the explicit step or helper of the same name (``en_``/``do_`` for an action);
``drain_sources`` and ``refuse_recovered`` are what the sync mutants' flat forms override.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from replcheck.model.step import gate
from replcheck.model.table_state import (
    ACTIVE,
    DOWNGRADE_ACTIVE,
    FULL,
    NO_SOURCE,
    NONE,
    STANDBY,
    TRANSIT,
)
from replcheck.model.table_sync import (
    TS_REFRESH_BEGIN,
    TS_REFRESH_END,
)
from replcheck.model.text import Instance, Tx

from .flat_table_sync_proc import TransitSteps


class SyncFlatSteps(TransitSteps):
    """The sync-replication steps, mixed in before the base steps."""

    SP: range
    """The sync peers (``range(cfg.sync_peers)``)."""
    U: range

    # --- helpers ------------------------------------------------------------------------------

    def proc_keys(self, p: int) -> list[tuple]:
        """The peer procedure's variables, with the transition's ``WAS_ENABLED`` flag and target."""
        return [*super().proc_keys(p), ("ppwe", p), ("ppt", p)]

    def roll(self, ops: Any, tx: Tx, cond: Any, s: int, g: int) -> None:
        """``do_roll`` where ``cond`` holds and a next WAL slot is left (``open_next_wal`` from
        whichever WAL is current when the step starts)."""
        wps = self.cfg.wals_per_server
        cur = tx[("cur", s, g)]
        at = {q: ops.and_(cond, cur == q) for q in self.Q if q + 1 < wps}
        for q, c in at.items():
            self.open_next_wal(ops, tx, c, s, g, q)

    # --- what sync peers change in the base steps ---------------------------------------------

    def rule_owed(self, ops: Any, get: Any, s: int, kind: int, p: int) -> Any:
        """``rule_owed``: not to a peer this server knows to be (going) STANDBY."""
        return ops.and_(
            super().rule_owed(ops, get, s, kind, p),
            get(("vs", s, p)) != STANDBY,
            get(("vn", s, p)) != STANDBY,
        )

    def after_put(self, ops: Any, t: Any, s: int, g: int, q: int, j: int) -> None:
        """``put`` (``SyncSteps.do_put``): an edit owed to a peer whose new state STANDBY is
        already stored becomes STANDBY-era history."""
        super().after_put(ops, t, s, g, q, j)
        w = self.slot(s, g, q)
        u = self.uid(w, j)
        for p in self.SP:
            stale = ops.and_(t[("syncn", p)] == STANDBY, t[("wowed", w, j, p)])
            t.when(stale, ("stale", p, u), True)

    @gate("roll")
    def keeps_last_wal_slot(self, t: Any, s: int, g: int, q: int) -> None:
        """``roll`` (``SyncSteps.en_roll``): the last WAL slot is kept for the roll that follows
        ``drainSources``."""
        t.require(q + 2 < self.cfg.wals_per_server)

    def start_server(self, ops: Any, tx: Tx, s: int) -> None:
        """A new incarnation reads the peer storage, sync states included: its views are the
        stored pairs."""
        super().start_server(ops, tx, s)
        for p in self.P:
            tx[("vs", s, p)] = tx[("sync", p)]
            tx[("vn", s, p)] = tx[("syncn", p)]

    def kill(self, ops: Any, tx: Tx, s: int) -> None:
        """``kill``: the drained flags are memory too (the views stay)."""
        super().kill(ops, tx, s)
        for p in self.P:
            tx[("drained", s, p)] = False

    @gate("remove_peer")
    def removable_sync_state(self, t: Any, p: int) -> None:
        """``remove_peer``: only a peer whose sync state is NONE or DOWNGRADE_ACTIVE."""
        state = t[("sync", p)]
        t.require(t.ops.or_(state == NONE, state == DOWNGRADE_ACTIVE))

    def _peer_proc(self, p: int) -> list[Instance]:
        """``peer_proc``: AddPeer's storage step stores a sync peer as (DOWNGRADE_ACTIVE, NONE);
        RemovePeer's last step also deletes the remote WAL directory; and the transition's
        steps."""
        out = []
        for inst in super()._peer_proc(p):
            step = inst.args[1]
            if step == "add-storage" and p in self.SP:
                out.append(replace(inst, apply=self._then_stored_da(inst, p)))
            elif step == "rm-next":
                out.append(replace(inst, apply=self._then_no_remote_dir(inst, p)))
            else:
                out.append(inst)
        if p in self.SP:
            out.extend(self._transit_proc(p))
        return out

    @staticmethod
    def _then_stored_da(inst: Instance, p: int) -> Any:
        def apply(ops: Any, tx: Tx) -> None:
            inst.apply(ops, tx)
            tx[("sync", p)] = DOWNGRADE_ACTIVE
            tx[("syncn", p)] = NONE

        return apply

    def _then_no_remote_dir(self, inst: Instance, p: int) -> Any:
        def apply(ops: Any, tx: Tx) -> None:
            done = tx[("ppn", p)] + 1 >= self.passes
            inst.apply(ops, tx)
            tx.when(done, ("rdir", p), False)

        return apply

    def rs_add_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        """``RSM.addPeer``: the new source's server also reads the peer's sync states."""
        on = ops.and_(cond, ops.not_(tx[("known", s, p)]))
        super().rs_add_peer(ops, tx, cond, p, s)
        tx.when(on, ("vs", s, p), tx[("sync", p)])
        tx.when(on, ("vn", s, p), tx[("syncn", p)])

    def refuse_recovered(self, ops: Any, get: Any, t: int, p: int) -> Any:
        """``rule_refuse_recovered`` of the claimer ``t``, the design's dual-form rule over its
        view of the peer."""
        return self.rule["rule_refuse_recovered"](ops, get(("vs", t, p)), get(("vn", t, p)))

    # --- the region server's side -------------------------------------------------------------

    def _transit_refresh(self, p: int, s: int, stage: int | None) -> Instance:
        """``refresh`` of a transition on ``s`` (``rs_transit``), dispatched at ``stage``: stage 0
        and stage 1 set the server's view to the peer storage; stage 0 takes the server off the
        recorded ones; stage 1 to STANDBY ``drainSources``. ``stage`` None: the enabling
        refresh, which changes nothing kept per server. A dead server's child just ends."""

        def guard(ops: Any, get: Any) -> Any:
            step = get(("pps", p))
            at = (
                step == stage
                if stage is not None
                else ops.and_(step != TS_REFRESH_BEGIN, step != TS_REFRESH_END)
            )
            return ops.and_(get(("pp", p)), get(("ppk", p)) == TRANSIT, get(("ppref", p, s)), at)

        def apply(ops: Any, tx: Tx) -> None:
            tx[("ppref", p, s)] = False
            if stage is None:
                return
            alive = tx[("alive", s)]
            tx.when(alive, ("vs", s, p), tx[("sync", p)])
            tx.when(alive, ("vn", s, p), tx[("syncn", p)])
            if stage == TS_REFRESH_BEGIN:
                tx.when(alive, ("pprec", p, s), False)
            else:
                self.drain_sources(ops, tx, ops.and_(alive, tx[("sync", p)] == STANDBY), p, s)

        return Instance("refresh", (p, s, TRANSIT, stage), guard, apply)

    def drain_sources(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        """``drain_sources`` where ``cond`` holds: the normal source's offset of each group is set
        to its last WAL, fully replicated, and its WALs leave memory; the peer's recovered sources
        end and their queues are removed; the peer is drained; each drained group rolls."""
        for src in self.SRC:
            if src == NO_SOURCE:
                continue
            slots = [sk for sk in self.sh_keys if sk[:3] == (s, p, src)]
            has = ops.or_(*(tx[("sh", *sk)] for sk in slots))
            self.remove_row(tx, ops.and_(cond, has), (p, s, src))
            for sk in slots:
                self.clear(tx, cond, self.shipper_keys(sk))
        rolls = []
        for sk in self.sh_keys:
            if sk[:3] != (s, p, NO_SOURCE):
                continue
            g = sk[3]
            on = ops.and_(cond, tx[("sh", *sk)])
            bits = [tx[("shw", *sk, q)] for q in self.Q]
            last: Any = 0
            for q in self.Q:
                last = ops.ite(bits[q], q, last)
            self.set_offset(ops, tx, ops.and_(on, ops.or_(*bits)), (p, s, NO_SOURCE), g, last, FULL)
            for q in self.Q:
                tx.when(on, ("shw", *sk, q), False)
            tx.when(on, ("shpos", *sk), 0)
            rolls.append((g, on))
        tx.when(cond, ("drained", s, p), True)
        for g, on in rolls:
            self.roll(ops, tx, on, s, g)

    # --- action instances ---------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out = super().instances()
        for p in self.SP:
            for to in (ACTIVE, DOWNGRADE_ACTIVE, STANDBY):
                out.append(self._transit_peer(p, to))
            for s in self.S:
                for stage in (TS_REFRESH_BEGIN, TS_REFRESH_END, None):
                    out.append(self._transit_refresh(p, s, stage))
        return out
