"""ReplicationSyncUp (``Config.syncup``) and spare region servers (``Config.spare_servers``) in
the flat table model (``specs/flat_table.py``); the explicit steps are those of
``model/table_syncup.py``.

The scenario: the whole source cluster stops (``cluster_down``), the tool runs once
(``syncup_start``, ``syncup_ship`` per work item, ``syncup_finish``), and the master starts again
(``cluster_up``), with the spare server joining; the SCPs the stop scheduled then find the tool's
marker files and go to REMOVE_QUEUES (``arqp_remove``).

New variables:

* ``("mup",)``: the master is up. While it is down no ServerCrashProcedure stage, peer
  procedure, refresh, log cleaner start or master restart runs: those base steps get
  ``master_up`` added to their guard, as their explicit enabling conditions have it;
* ``("started", s)``: the server has joined the cluster (a spare server has not, and until then
  is an unstarted slot: not alive, no WAL, no SCP, as the base layout already holds it);
* ``("mk", s)``: the tool's marker file for server ``s``; ``("info",)``: its info file;
* ``("surun",)``: the tool is running; its offline view of the queue rows is a copy of the
  ``queue`` family with row prefix ``sv`` (as the log cleaner's snapshot uses ``cr``);
* ``("suw", p, w, pos)``: the work item ``(peer p, the WAL in slot w, position pos)`` is still to
  ship. The work list is a sorted tuple of distinct items, so a bit per possible item is exact;
  the position is a start position, so it lies in ``0..edits_per_wal``.

``syncup_start`` decides everything at once, as the explicit step does: the in-memory queues are
the view plus ``addMissingReplicationQueues``' BEGIN queue for each server with a WAL directory
and a storage peer it has no normal queue for; every server that has a WAL directory or owns a
row gets a marker; each in-memory queue of a storage peer lists, per WAL group, the source
server's WALs that ``shouldReplicate`` from its offset, each from its start position (only the
first listed WAL can be the one the offset names, so the start position of every listed WAL is
the explicit one). ``rule_syncup_add_missing`` and ``rule_syncup_wals`` mirror the design's
rules of the same name, so the two syncup mutants override them here (``MUTANTS``).

``no_lost_edit`` counts an edit as covered also while a work item of the running tool still
ships it: the base predicate is read through a view in which such an edit, from a WAL that is not
deleted, counts as applied (exactly the explicit ``_covered``'s last clause).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model import table_rules
from replcheck.model.state import ARCHIVED, DELETED, ENABLED, LIVE_DIR
from replcheck.model.table_rules import NO_TIMESTAMP
from replcheck.model.table_state import (
    ARQP_CLAIM,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    NO_SOURCE,
    SCP_DONE,
    SyncUp,
    TState,
)
from replcheck.model.text import FlatProperty, Instance, Tx

from .flat_table_base import StepBase
from .flat_zk import FlatError

ENCODED_FIELDS = ("master_up", "syncup", "markers", "info")
"""The state fields this feature makes variables (the base keeps them constant)."""


class FlatSyncUp(StepBase):
    """The ``syncup`` and ``spare_servers`` features: the cluster stop, the tool, the master's
    return with the spare server, and REMOVE_QUEUES for marked servers."""

    handles = frozenset({"syncup", "spare_servers"})
    init_state: Any
    _put_row: Callable[..., None]
    _get_rows: Callable[..., Any]

    encoded_fields = ENCODED_FIELDS
    encoded_server_fields = ("started",)

    # --- variables ------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        Q, E = self.cfg.wals_per_server, self.E
        out[("mup",)] = "b"
        out[("info",)] = "b"
        out[("surun",)] = "b"
        for s in self.S:
            out[("started", s)] = "b"
            out[("mk", s)] = "b"
        for rk in self.rkeys:
            out[("svex", *rk)] = "b"
            for og in self.OG:
                out[("svhas", *rk, og)] = "b"
                out[("svseq", *rk, og)] = ("i", -1, Q - 1)
                out[("svpos", *rk, og)] = ("i", -1, E)
        for p in self.P:
            for w in self.W:
                for pos in range(E + 1):
                    out[("suw", p, w, pos)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        v[("mup",)] = st.master_up
        v[("info",)] = st.info
        for s, srv in enumerate(st.servers):
            v[("started", s)] = srv.started
            v[("mk", s)] = bool(st.markers >> s & 1)
        su = st.syncup
        v[("surun",)] = su.running
        for row in su.view:
            self._put_row(v, "sv", row)
        for p, key, pos in su.work:
            if not 0 <= pos <= self.E:
                raise FlatError("a ReplicationSyncUp work item past the end of its WAL")
            v[("suw", p, self.cfg.slot(key), pos)] = True
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        servers = tuple(srv._replace(started=v[("started", s)]) for s, srv in enumerate(st.servers))
        work = tuple(
            (p, self.key[w], pos)
            for p in self.P
            for w in self.W
            for pos in range(self.E + 1)
            if v[("suw", p, w, pos)]
        )
        return st._replace(
            servers=servers,
            master_up=v[("mup",)],
            info=v[("info",)],
            markers=sum(1 << s for s in self.S if v[("mk", s)]),
            syncup=SyncUp(v[("surun",)], self._get_rows(v, "sv"), tuple(sorted(work))),
        )

    # --- shared pieces ------------------------------------------------------------------------

    def when_apply(self, ops: Any, tx: Tx, cond: Any, apply: Callable[[Any, Tx], None]) -> None:
        """Run ``apply`` only if ``cond`` holds: its writes, made in a transaction of their own
        over ``tx``, land in ``tx`` under ``cond``."""
        if cond is False:
            return
        sub = Tx(ops, tx)  # type: ignore[arg-type]
        apply(ops, sub)
        for k, val in sub.new.items():
            tx.when(cond, k, val)

    def master_up(self, inst: Instance) -> Instance:
        """The instance, enabled only while the master is up."""
        guard = inst.guard

        def up(ops: Any, get: Any) -> Any:
            return ops.and_(get(("mup",)), guard(ops, get))

        return Instance(inst.name, inst.args, up, inst.apply)

    # --- base steps that wait for the master --------------------------------------------------

    def _scp_split(self, d: int) -> Instance:
        """``scp_split``, only while the master is up."""
        return self.master_up(super()._scp_split(d))  # type: ignore[misc]

    def _scp_claim_stage(self, d: int) -> Instance:
        """``scp_claim_stage``, only while the master is up."""
        return self.master_up(super()._scp_claim_stage(d))  # type: ignore[misc]

    def _arqp_put_missing(self, d: int) -> Instance:
        """``arqp_put_missing``, only while the master is up."""
        return self.master_up(super()._arqp_put_missing(d))  # type: ignore[misc]

    def _add_peer(self, p: int) -> Instance:
        """``add_peer``, only while the master is up."""
        return self.master_up(super()._add_peer(p))  # type: ignore[misc]

    def _remove_peer(self, p: int) -> Instance:
        """``remove_peer``, only while the master is up."""
        return self.master_up(super()._remove_peer(p))  # type: ignore[misc]

    def _peer_proc(self, p: int) -> list[Instance]:
        """``peer_proc``, only while the master is up."""
        return [self.master_up(i) for i in super()._peer_proc(p)]  # type: ignore[misc]

    def _refresh(self, p: int, s: int, kind: int) -> Instance:
        """``refresh``, only while the master is up."""
        return self.master_up(super()._refresh(p, s, kind))  # type: ignore[misc]

    def _cleaner_start(self) -> Instance:
        """``cleaner_start``, only while the master is up (``cleaner_may_run``)."""
        return self.master_up(super()._cleaner_start())  # type: ignore[misc]

    def _master_restart(self) -> Instance:
        """``master_restart``, only while the master is up."""
        return self.master_up(super()._master_restart())  # type: ignore[misc]

    # --- the master's side of the markers -----------------------------------------------------

    def _arqp_read_missing(self, d: int) -> Instance:
        """``arqp_read_missing``: with a SyncUp marker for the crashed server, REMOVE_QUEUES
        next (nothing read); otherwise the base step."""
        base = super()._arqp_read_missing(d)  # type: ignore[misc]

        def apply(ops: Any, tx: Tx) -> None:
            marked = tx[("mk", d)]
            base.apply(ops, tx)
            tx[("stage", d)] = ops.ite(marked, ARQP_REMOVE, ARQP_PUT_MISSING)
            for p in self.P:
                tx[("scpp", d, p)] = ops.and_(ops.not_(marked), tx[("scpp", d, p)])

        return self.master_up(Instance(base.name, base.args, base.guard, apply))

    def _arqp_claim(self, d: int, tup: tuple[int, ...]) -> Instance:
        """``arqp_claim``: with a SyncUp marker for the crashed server, no claim round but
        REMOVE_QUEUES next; otherwise the base step."""
        base = super()._arqp_claim(d, tup)  # type: ignore[misc]
        if tup:

            def guard(ops: Any, get: Any) -> Any:
                return ops.and_(ops.not_(get(("mk", d))), base.guard(ops, get))

            return self.master_up(Instance(base.name, base.args, guard, base.apply))
        keys = self.claim_queue_keys(d)  # type: ignore[attr-defined]

        def guard0(ops: Any, get: Any) -> Any:
            marked = ops.and_(
                get(("mk", d)),
                get(("stage", d)) == ARQP_CLAIM,
                *(ops.not_(get(("ch", d, p, src))) for p, src in keys),
            )
            return ops.or_(marked, base.guard(ops, get))

        def apply0(ops: Any, tx: Tx) -> None:
            # the base step's own outcome stands unless the marker sends the procedure to
            # REMOVE_QUEUES with no children (a mutant's round may still claim queues here)
            marked = tx[("mk", d)]
            base.apply(ops, tx)
            for p, src in keys:
                tx.when(marked, ("ch", d, p, src), False)
                tx.when(marked, ("cht", d, p, src), 0)
            tx[("stage", d)] = ops.ite(marked, ARQP_REMOVE, tx[("stage", d)])

        return self.master_up(Instance(base.name, base.args, guard0, apply0))

    def _arqp_remove(self, d: int) -> Instance:
        """``arqp_remove``: REMOVE_QUEUES deletes every queue the crashed server owns, then its
        marker file; the SCP finishes."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("mup",)), get(("stage", d)) == ARQP_REMOVE)

        def apply(ops: Any, tx: Tx) -> None:
            for rk in self.rkeys:
                if rk[1] == d:
                    self.remove_row(tx, True, rk)
            tx[("mk", d)] = False
            tx[("stage", d)] = SCP_DONE
            self.clear(tx, True, self.scp_keys(d))

        return Instance("arqp_remove", (d,), guard, apply)

    # --- the cluster stops --------------------------------------------------------------------

    def _cluster_down(self) -> Instance:
        """``cluster_down``: every live server dies (``kill``: its SCP scheduled), every pending
        claim fails, the master stops, clients stop writing."""
        spare = self.cfg.spare_servers

        def guard(ops: Any, get: Any) -> Any:
            # Once: with a spare slot, only while some slot has not joined yet.
            spare_left = (
                ops.or_(*(ops.not_(get(("started", s))) for s in self.S)) if spare else True
            )
            return ops.and_(
                get(("mup",)), ops.or_(*(get(("alive", s)) for s in self.S)), spare_left
            )

        def apply(ops: Any, tx: Tx) -> None:
            for s in self.S:
                self.when_apply(ops, tx, tx[("alive", s)], lambda o, t, s=s: self.kill(o, t, s))
            for s in self.S:
                for m in range(2):
                    self.clear(tx, True, self.claim_keys(s, m))
            tx[("mup",)] = False
            tx[("b", "puts")] = 0

        return Instance("cluster_down", (), guard, apply)

    # --- the tool -----------------------------------------------------------------------------

    def syncup_wal_dir(self, ops: Any, get: Any, s: int) -> Any:
        """``rule_syncup_wal_dirs``: ``s`` has joined and has a WAL under ``WALs/``."""
        return ops.and_(
            get(("started", s)),
            ops.or_(
                *(
                    ops.and_(get(("wex", w)), get(("wplace", w)) == LIVE_DIR)
                    for w in self.W
                    if self.key[w][0] == s
                )
            ),
        )

    def rule_syncup_add_missing(self, ops: Any, get: Any, has_dir: Any, s: int, p: int) -> Any:
        """``rule_syncup_add_missing``: does the tool's in-memory storage get a BEGIN queue of
        peer ``p`` for server ``s``? Yes for a server with a WAL directory (``has_dir``) and a
        storage peer it has no normal queue for."""
        return ops.and_(has_dir, self.storage(ops, get, p), ops.not_(get(("rex", p, s, NO_SOURCE))))

    def rule_syncup_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        """``rule_syncup_wals``: WAL ``(x, g, q)`` is in ``WALs/`` or ``oldWALs/`` and
        ``shouldReplicate`` from the offset."""
        w = self.slot(x, g, q)
        place = get(("wplace", w))
        return ops.and_(
            get(("wex", w)),
            ops.or_(place == LIVE_DIR, place == ARCHIVED),
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )

    def _syncup_start(self) -> Instance:
        """``syncup_start``: the info file, the offline view, the added missing queues (in
        memory), a marker per server with a WAL directory or a queue, and the work items of the
        claimed queues of storage peers."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                ops.not_(get(("mup",))), ops.not_(get(("surun",))), ops.not_(get(("info",)))
            )

        def apply(ops: Any, tx: Tx) -> None:
            get = tx.__getitem__
            dirs = [self.syncup_wal_dir(ops, get, s) for s in self.S]
            items: dict[tuple, list[Any]] = {
                (p, w, pos): [] for p in self.P for w in self.W for pos in range(self.E + 1)
            }
            for rk in self.rkeys:
                p, o, src = rk
                x = self.wal_owner(o, src)
                added = (
                    self.rule_syncup_add_missing(ops, get, dirs[o], o, p)
                    if src == NO_SOURCE
                    else False
                )
                queue = ops.and_(self.storage(ops, get, p), ops.or_(get(("rex", *rk)), added))
                for g in self.G:
                    # An added queue has no column of a WAL group: no offset.
                    has = get(("rhas", *rk, g))
                    ts = ops.ite(has, get(("rseq", *rk, g)), NO_TIMESTAMP)
                    pos = ops.ite(has, get(("rpos", *rk, g)), 0)
                    for q in self.Q:
                        listed = ops.and_(
                            queue, self.rule_syncup_wals(ops, get, x, g, q, has, ts, pos)
                        )
                        at = table_rules.start_position_rule(ops, has, ts, pos, q)
                        w = self.slot(x, g, q)
                        for j in range(self.E + 1):
                            items[(p, w, j)].append(ops.and_(listed, at == j))
            owners = [
                ops.or_(*(get(("rex", *rk)) for rk in self.rkeys if rk[1] == s)) for s in self.S
            ]
            for rk in self.rkeys:
                for k, vk in zip(self.row_keys(rk), self.row_keys(rk, "sv"), strict=True):
                    tx[vk] = tx[k]
            for s in self.S:
                tx[("mk", s)] = ops.or_(tx[("mk", s)], dirs[s], owners[s])
            for key, conds in items.items():
                tx[("suw", *key)] = ops.or_(*conds)
            tx[("info",)] = True
            tx[("surun",)] = True

        return Instance("syncup_start", (0,), guard, apply)

    def _syncup_ship(self, p: int, w: int, pos: int) -> Instance:
        """``syncup_ship``: the work item's WAL, from its position, every edit the peer's filter
        accepts, to the peer (while it is enabled and a chosen sink server is up)."""
        target = p + 1

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("suw", p, w, pos)),
                get(("peer", p)) == ENABLED,
                ops.or_(*(ops.not_(get(("down", target, k))) for k in self.K)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            n = tx[("wn", w)]
            for j in range(pos, self.E):
                ok = ops.and_(
                    tx[("wex", w)], j < n, self.shipper_ok(ops, tx[("wkind", w, j)], target)
                )
                u = self.uid(w, j)
                tx.when(ops.and_(ok, tx[("app", target, u)]), ("dup", target, u), True)
                tx.when(ok, ("app", target, u), True)
            tx[("suw", p, w, pos)] = False

        return Instance("syncup_ship", (p, w, pos), guard, apply)

    def _syncup_finish(self) -> Instance:
        """``syncup_finish``: no work left; the tool exits (the info file and markers stay)."""
        work = [("suw", p, w, pos) for p in self.P for w in self.W for pos in range(self.E + 1)]

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("surun",)), *(ops.not_(get(k)) for k in work))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("surun",)] = False
            for rk in self.rkeys:
                self.clear(tx, True, self.row_keys(rk, "sv"))

        return Instance("syncup_finish", (), guard, apply)

    # --- the master starts again ---------------------------------------------------------------

    def _cluster_up(self) -> Instance:
        """``cluster_up``: the SyncUp status cleaned up (the ``sid`` rows and the info file), the
        first server slot not yet joined starts (an empty first WAL per group, a normal source
        per storage peer), the master is up."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(ops.not_(get(("mup",))), ops.not_(get(("surun",))), get(("info",)))

        def join(s: int) -> Callable[[Any, Tx], None]:
            def apply(ops: Any, tx: Tx) -> None:
                self.start_server(ops, tx, s)
                tx[("started", s)] = True

            return apply

        def apply(ops: Any, tx: Tx) -> None:
            tx[("mup",)] = True
            for p in self.P:
                tx[("sid", p)] = False
            tx[("info",)] = False
            earlier: list[Any] = []
            for s in self.S:
                first = ops.and_(ops.not_(tx[("started", s)]), *earlier)
                earlier.append(tx[("started", s)])
                self.when_apply(ops, tx, first, join(s))

        return Instance("cluster_up", (), guard, apply)

    # --- the model ------------------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out: list[Instance] = super().instances()  # type: ignore[misc]
        out.extend(self._arqp_remove(d) for d in self.S)
        if self.cfg.syncup:
            out.append(self._cluster_down())
            out.append(self._syncup_start())
            for p in self.P:
                for w in self.W:
                    for pos in range(self.E + 1):
                        out.append(self._syncup_ship(p, w, pos))
            out.append(self._syncup_finish())
            out.append(self._cluster_up())
        return out

    def syncup_covers(self, ops: Any, get: Any, p: int, w: int, j: int) -> Any:
        """A work item of the running tool still ships entry ``j`` of WAL slot ``w`` to ``p``."""
        return ops.or_(*(get(("suw", p, w, pos)) for pos in range(min(j, self.E) + 1)))

    def properties(self) -> list[FlatProperty]:
        out: list[FlatProperty] = super().properties()  # type: ignore[misc]
        E = self.E

        def view(ops: Any, get: Any) -> Callable[[tuple], Any]:
            def read(k: tuple) -> Any:
                if k[0] != "app" or not E:
                    return get(k)
                cl, u = k[1], k[2]
                w, j = divmod(u, E)
                shipping = ops.and_(
                    self.syncup_covers(ops, get, cl - 1, w, j), get(("wplace", w)) != DELETED
                )
                return ops.or_(get(k), shipping)

            return read

        def lift(check: Callable[..., Any]) -> Callable[..., Any]:
            def no_lost_edit(ops: Any, get: Any) -> Any:
                return check(ops, view(ops, get))

            return no_lost_edit

        return [
            FlatProperty(f.name, f.kind, lift(f.check)) if f.name == "no_lost_edit" else f
            for f in out
        ]


class FlatSyncUpNoAddMissing(StepBase):
    """``table/syncup-no-add-missing``: the tool adds no missing queue."""

    def rule_syncup_add_missing(self, ops: Any, get: Any, has_dir: Any, s: int, p: int) -> Any:
        return False


class FlatSyncUpSkipsOldWals(StepBase):
    """``table/syncup-skips-oldwals``: a claimed queue lists only ``WALs/``."""

    def rule_syncup_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        w = self.slot(x, g, q)
        return ops.and_(
            get(("wex", w)),
            get(("wplace", w)) == LIVE_DIR,
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )


FEATURE = FlatSyncUp
MUTANTS: dict[str, type] = {
    "table/syncup-no-add-missing": FlatSyncUpNoAddMissing,
    "table/syncup-skips-oldwals": FlatSyncUpSkipsOldWals,
}
"""The syncup mutants override rules that are not dual-form: their flat rule, as a mixin."""
