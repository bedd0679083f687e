"""ReplicationSyncUp run while the source cluster is down, and the master clean-up after it (seed
004 "The ReplicationSyncUp tool"; reference section 8), in the protocol text's form
(``model/engine/step.py``): every engine reads these steps.

The scenario: the whole source cluster stops (``cluster_down``: every live region server dies and
the master is down, so no procedure, refresh or cleaner step runs); the tool runs once
(``syncup_start``, then ``syncup_ship`` per work item, then ``syncup_finish``); then the master
starts again (``cluster_up``), cleans up the tool's status and runs the SCPs the stop scheduled,
whose AssignReplicationQueuesProcedure sees the tool's marker files and goes to REMOVE_QUEUES
(``rule_should_skip``, ``model/table/scp.py``).

Abstractions (each a documented choice):

* the offline view is the current rows, not an older flushed snapshot: the most favourable case.
  An older snapshot only holds older offsets (more is replicated again: duplicates) or misses
  rows written since the flush; ``TState`` has no field for the flushed rows, so this is not
  explored (seed 004 accepts "redundant data being replicated" for it);
* the tool's ``OfflineTableReplicationQueueStorage`` writes only in memory: the work items it
  computes at start are all the model keeps of its claimed queues, as ``(peer, WAL, position)``;
  nothing is written to ``hbase:replication``;
* "server dirs under WALs/" are the servers with a WAL still in ``WALs/`` (a crashed server whose
  SCP split its logs has no directory any more, as in HBase);
* the operator's runs (``syncup_failures``): a run may die part-way (``syncup_fail``), leaving
  its info file and the markers it wrote; without ``-f`` the next run then fails with no change
  (a stutter, not generated), so the operator reruns with it (``syncup_start(1)``), and starts
  the cluster only once a run finished (``syncup_abandon`` lifts that: nothing in HBase checks
  it). Each master return brings a spare server, so with two spare slots the cluster can stop
  and be synced up again while markers of the first run are still there;
* region servers do not come back when the master starts, except one fresh server (the first
  slot not yet started: the spare one when the configuration has it) that joins with the master,
  so that an SCP the tool did not mark can still claim its queues; client writes stop with the
  cluster (the put budget is spent at ``cluster_down``).

The layout's new slots:

* ``master_up``: the master is up. While it is down no ServerCrashProcedure stage, peer
  procedure, refresh, log cleaner start or master restart runs (``master_up``, a gate);
* ``server_started[s]``: the server has joined the cluster (a spare server has not, and until then
  is an unstarted slot: not alive, no WAL, no SCP);
* ``syncup_marker[s]``: the tool's marker file for server ``s``; ``syncup_info_file``: its info
  file;
* ``syncup_failed``: the last run died part-way; ``syncup_deaths_left``: the runs that may still
  die;
* ``syncup_running``: the tool is running; its offline view of the queue rows is a copy of the
  ``queue`` family with row prefix ``sv``;
* ``syncup_work[p, w, pos]``: the work item ``(peer p, the WAL in slot w, position pos)`` is still
  to ship. The work list is a sorted tuple of distinct items, so a bit per possible item is exact;
  the position is a start position, so it lies in ``0..edits_per_wal``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from replcheck.model.common.state import ARCHIVED, DELETED, ENABLED, LIVE_DIR, bits
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, Var, gate, step
from replcheck.model.engine.text import FlatError, FlatProperty, Tx
from replcheck.model.features.families import SYNCUP_VIEW
from replcheck.model.features.joins import StartedSlots
from replcheck.model.table import rules as table_rules
from replcheck.model.table.rules import NO_TIMESTAMP
from replcheck.model.table.state import NO_SOURCE, SyncUp, TState
from replcheck.model.table.views import Row, Server, WalFile

MASTER_KINDS = (
    "scp_split",
    "scp_claim_stage",
    "arqp_read_missing",
    "arqp_put_missing",
    "arqp_claim",
    "arqp_remove",
    "add_peer",
    "remove_peer",
    "peer_proc",
    "refresh",
    "cleaner_start",
    "master_restart",
    "disable_peer",
    "enable_peer",
    "transit_peer",
    "migration_step",
    "migrate_server",
    "join",
)
"""What the active master runs: nothing of it while the master is down."""


def _work_index(text: Any, st: TState, get: Any, args: tuple) -> tuple[int]:
    """The index of work item ``(peer, WAL slot, position)`` in the tool's sorted work list."""
    p, w, pos = args
    return (st.syncup.work.index((p, text.key[w], pos)),)


def _work_items(text: Any) -> list[tuple[int, int, int]]:
    """Every possible work item ``(peer, WAL slot, start position)``."""
    return [(p, w, pos) for p in text.P for w in text.W for pos in range(text.E + 1)]


def _once(text: Any) -> list[tuple]:
    """One instance when the configuration runs the tool (a spare server alone does not)."""
    return [()] if text.cfg.syncup else []


def _starts(text: Any) -> list[tuple[int]]:
    """``syncup_start``'s instances: without ``-f``, and with it where a run may die (the
    operator's rerun)."""
    if not text.cfg.syncup:
        return []
    return [(0,), (1,)] if text.cfg.syncup_failures else [(0,)]


def _fails(text: Any) -> list[tuple]:
    """One ``syncup_fail`` instance where a run may die part-way."""
    return [()] if text.cfg.syncup and text.cfg.syncup_failures else []


def _items(text: Any) -> list[tuple[int, int, int]]:
    """A ``syncup_ship`` instance per work item, when the configuration runs the tool."""
    return _work_items(text) if text.cfg.syncup else []


def when_apply(ops: Any, t: Any, cond: Any, apply: Callable[[Any, Tx], None]) -> None:
    """Run ``apply`` only if ``cond`` holds: its writes, made in a transaction of their own over
    ``t``, land in ``t`` under ``cond``."""
    if cond is False:
        return
    sub = Tx(ops, t)
    apply(ops, sub)
    for k, val in sub.new.items():
        t.when(cond, k, val)


class SyncUpTool(StartedSlots):
    """The ``syncup`` and ``spare_servers`` features: the cluster stop, the tool, the master's
    return with the spare server, and REMOVE_QUEUES for marked servers (the layout's helpers
    are ``StepBase``'s)."""

    handles = frozenset({"syncup", "spare_servers"})
    variables = (Var(var.master_up(), "b", "master_up"), Var(var.syncup_info_file(), "b", "info"))
    encoded_fields = ("syncup", "markers")

    # --- the layout ---------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        Q, E = self.cfg.wals_per_server, self.E
        out[var.syncup_running()] = "b"
        out[var.syncup_failed()] = "b"
        out[var.syncup_deaths_left()] = ("i", 0, self.cfg.syncup_failures)
        for s in self.S:
            out[var.syncup_marker(s)] = "b"
        for rk in self.rkeys:
            out[var.syncup_row(*rk)] = "b"
            for og in self.OG:
                out[var.syncup_has_offset(*rk, og)] = "b"
                out[var.syncup_offset_wal(*rk, og)] = ("i", -1, Q - 1)
                out[var.syncup_offset_pos(*rk, og)] = ("i", -1, E)
        for item in _work_items(self):
            out[var.syncup_work(*item)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        for s in self.S:
            v[var.syncup_marker(s)] = bool(st.markers >> s & 1)
        su = st.syncup
        v[var.syncup_running()] = su.running
        v[var.syncup_failed()] = su.failed
        v[var.syncup_deaths_left()] = su.deaths
        for row in su.view:
            self._put_row(v, "sv", row)
        for p, key, pos in su.work:
            if not 0 <= pos <= self.E:
                raise FlatError("a ReplicationSyncUp work item past the end of its WAL")
            v[var.syncup_work(p, self.cfg.slot(key), pos)] = True
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        work = tuple(
            (p, self.key[w], pos)
            for p, w, pos in _work_items(self)
            if v[var.syncup_work(p, w, pos)]
        )
        return st._replace(
            markers=sum(1 << s for s in self.S if v[var.syncup_marker(s)]),
            syncup=SyncUp(
                v[var.syncup_running()],
                self._get_rows(v, "sv"),
                tuple(sorted(work)),
                v[var.syncup_failed()],
                v[var.syncup_deaths_left()],
            ),
        )

    # --- the master ---------------------------------------------------------------------------

    @gate(*MASTER_KINDS)
    def master_up(self, t: Ctx, *args: Any) -> None:
        """The active master runs procedures, refreshes and the cleaner only while it is up."""
        t.require(t.master_up)

    def rule_should_skip(self, t: Any, d: int) -> Any:
        """``shouldSkip``: ReplicationSyncUp left a marker file for the dead server."""
        return t.syncup_marker[d]

    def after_remove(self, t: Ctx, d: int) -> None:
        """REMOVE_QUEUES deletes the marker file after the queues."""
        t.syncup_marker[d] = False

    # --- the cluster stops --------------------------------------------------------------------

    @step(params=(), fair=False, each=_once)
    def cluster_down(self, t: Ctx) -> None:
        """the whole source cluster stops: every server, the master"""
        ops = t.ops
        # Once: with a spare slot, only while some slot has not joined yet.
        spare_left = (
            ops.or_(*(ops.not_(t.server_started[s]) for s in self.S))
            if self.cfg.spare_servers
            else True
        )
        t.require(t.master_up, ops.or_(*(Server(t, s).alive for s in self.S)), spare_left)
        for s in self.S:
            when_apply(ops, t, Server(t, s).alive, lambda o, tx, s=s: self.kill(o, tx, s))
        for s in self.S:
            for m in range(2):
                self.clear(t, True, self.claim_keys(s, m))
        t.master_up = False
        t.budget["puts"] = 0

    # --- the tool -----------------------------------------------------------------------------

    def syncup_wal_dir(self, t: Any, s: int) -> Any:
        """``listRegionServers``: ``s`` has joined and has a WAL under ``WALs/``."""
        ops = t.ops
        wals = [w for w in self.W if self.key[w][0] == s]
        return ops.and_(
            t.server_started[s],
            ops.or_(
                *(ops.and_(WalFile(t, w).exists, WalFile(t, w).place == LIVE_DIR) for w in wals)
            ),
        )

    def rule_syncup_add_missing(self, t: Any, has_dir: Any, s: int, p: int) -> Any:
        """``addMissingReplicationQueues``: does the tool's in-memory storage get a BEGIN queue
        of peer ``p`` for server ``s``? Yes for a server with a WAL directory (``has_dir``) and a
        storage peer it has no normal queue for."""
        ops = t.ops
        return ops.and_(
            has_dir, self.storage(ops, t.get, p), ops.not_(Row(t, p, s, NO_SOURCE).exists)
        )

    def rule_syncup_wals(self, t: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any) -> Any:
        """Is WAL ``(x, g, q)`` listed by a claimed queue: in ``WALs/`` or ``oldWALs/`` and
        ``shouldReplicate`` from the offset?"""
        ops = t.ops
        w = self.slot(x, g, q)
        place = WalFile(t, w).place
        return ops.and_(
            WalFile(t, w).exists,
            ops.or_(place == LIVE_DIR, place == ARCHIVED),
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )

    def rule_syncup_claims(self, t: Any, s: int, marked: Any) -> Any:
        """Does the tool claim the queues server ``s`` owns? Yes, each run, every server it
        lists, whatever marker file an earlier run left for it (a marker is written before
        that server's queues are replicated, so it does not say they were)."""
        return True

    @step(params=("force",), fair=False, each=_starts)
    def syncup_start(self, t: Ctx, force: int) -> None:
        """ReplicationSyncUp: info file, offline view, claims"""
        ops = t.ops
        # The info file is left by a run, finished or not (the master deletes it). Without
        # ``-f`` a second run fails with no change (a stutter, not generated); the operator
        # reruns with ``-f`` after a run that died (``force``), which overwrites it.
        t.require(
            ops.not_(t.master_up),
            ops.not_(t.syncup_running),
            t.syncup_info_file if force else ops.not_(t.syncup_info_file),
            *([t.syncup_failed] if force else []),
        )
        marked = [t.syncup_marker[s] for s in self.S]
        claims = [self.rule_syncup_claims(t, s, marked[s]) for s in self.S]
        dirs = [self.syncup_wal_dir(t, s) for s in self.S]
        items: dict[tuple, list[Any]] = {item: [] for item in _work_items(self)}
        for rk in self.rkeys:
            p, o, src = rk
            x = self.wal_owner(o, src)
            added = self.rule_syncup_add_missing(t, dirs[o], o, p) if src == NO_SOURCE else False
            row = Row(t, *rk)
            queue = ops.and_(self.storage(ops, t.get, p), ops.or_(row.exists, added), claims[o])
            for g in self.G:
                # An added queue has no column of a WAL group: no offset.
                has = row.has[g]
                ts = ops.ite(has, row.seq[g], NO_TIMESTAMP)
                pos = ops.ite(has, row.pos[g], 0)
                for q in self.Q:
                    listed = ops.and_(queue, self.rule_syncup_wals(t, x, g, q, has, ts, pos))
                    at = table_rules.start_position_rule(ops, has, ts, pos, q)
                    w = self.slot(x, g, q)
                    for j in range(self.E + 1):
                        items[(p, w, j)].append(ops.and_(listed, at == j))
        owners = [ops.or_(*(Row(t, *rk).exists for rk in self.rkeys if rk[1] == s)) for s in self.S]
        for rk in self.rkeys:
            for k, vk in zip(self.row_keys(rk), self.row_keys(rk, SYNCUP_VIEW), strict=True):
                t[vk] = t[k]
        for s in self.S:
            t.syncup_marker[s] = ops.or_(t.syncup_marker[s], dirs[s], owners[s])
        for key, conds in items.items():
            t.syncup_work[*key] = ops.or_(*conds)
        t.syncup_info_file = True
        t.syncup_running = True
        t.syncup_failed = False

    @step(params=("item",), fair=True, each=_items, label=_work_index)
    def syncup_ship(self, t: Ctx, p: int, w: int, pos: int) -> None:
        """ReplicationSyncUp replicates one WAL from its position"""
        ops = t.ops
        target = p + 1
        t.require(
            t.syncup_work[p, w, pos],
            t.peer_state[p] == ENABLED,
            ops.or_(*(ops.not_(t.sink_down[target, k]) for k in self.K)),
        )
        wal = WalFile(t, w)
        n = wal.entries
        batch = []
        for j in range(pos, self.E):
            uid, kind, ids = self.entry(t.get, w, j)
            ok = ops.and_(wal.exists, j < n, self.shipper_ok(ops, kind, target, ids))
            batch.append((ok, uid, kind, ids))
        self.deliver(ops, t, target, batch)
        t.syncup_work[p, w, pos] = False

    @step(params=(), fair=True, each=_once)
    def syncup_finish(self, t: Ctx) -> None:
        """ReplicationSyncUp exits; the info file and markers stay"""
        ops = t.ops
        t.require(t.syncup_running, *(ops.not_(t.syncup_work[*item]) for item in _work_items(self)))
        t.syncup_running = False
        for rk in self.rkeys:
            self.clear(t, True, self.row_keys(rk, SYNCUP_VIEW))

    @step(params=(), fair=False, each=_fails)
    def syncup_fail(self, t: Ctx) -> None:
        """ReplicationSyncUp dies part-way; its info file and markers stay"""
        t.require(t.syncup_running, t.syncup_deaths_left > 0)
        t.syncup_deaths_left = t.syncup_deaths_left - 1
        t.syncup_running = False
        t.syncup_failed = True
        for item in _work_items(self):
            t.syncup_work[*item] = False
        for rk in self.rkeys:
            self.clear(t, True, self.row_keys(rk, SYNCUP_VIEW))

    # --- the master starts again ---------------------------------------------------------------

    @step(params=(), fair=False, each=_once)
    def cluster_up(self, t: Ctx) -> None:
        """the master starts: clean-up of the SyncUp status, SCPs resume"""
        ops = t.ops
        # The operator starts the cluster once a run finished (``syncup_abandon``: also after one
        # that died; the master cannot tell them apart).
        t.require(
            ops.not_(t.master_up),
            ops.not_(t.syncup_running),
            t.syncup_info_file,
            *([] if self.cfg.syncup_abandon else [ops.not_(t.syncup_failed)]),
        )

        def join(s: int) -> Callable[[Any, Tx], None]:
            def apply(o: Any, tx: Tx) -> None:
                self.start_server(o, tx, s)
                tx.server_started[s] = True

            return apply

        t.master_up = True
        for p in self.P:
            t.last_pushed_row[p] = False
        t.syncup_info_file = False
        t.syncup_failed = False
        earlier: list[Any] = []
        for s in self.S:
            first = ops.and_(ops.not_(t.server_started[s]), *earlier)
            earlier.append(t.server_started[s])
            when_apply(ops, t, first, join(s))

    # --- properties ---------------------------------------------------------------------------

    def syncup_covers(self, ops: Any, get: Any, p: int, w: int, j: int) -> Any:
        """A work item of the running tool still ships entry ``j`` of WAL slot ``w`` to ``p``."""
        return ops.or_(*(named(get).syncup_work[p, w, pos] for pos in range(min(j, self.E) + 1)))

    def properties(self) -> list[FlatProperty]:
        """``no_lost_edit`` counts an edit as covered also while a work item of the running tool
        still ships it: the base predicate is read through a view in which such an edit, from a
        WAL that is not deleted, counts as applied."""
        out: list[FlatProperty] = super().properties()  # type: ignore[misc]
        E = self.E

        def view(ops: Any, get: Any) -> Callable[[tuple], Any]:
            def read(k: tuple) -> Any:
                if k[0] != "app" or not E:
                    return get(k)
                cl, u = k[1], k[2]
                w, j = divmod(u, E)
                shipping = ops.and_(
                    self.syncup_covers(ops, get, cl - 1, w, j), named(get).wal_place[w] != DELETED
                )
                return ops.or_(get(k), shipping)

            return read

        def lift(check: Callable[..., Any]) -> Callable[..., Any]:
            def no_lost_edit(ops: Any, get: Any) -> Any:
                return check(ops, view(ops, get))

            return no_lost_edit

        return [replace(f, check=lift(f.check)) if f.name == "no_lost_edit" else f for f in out]


class NoAddMissing(SyncUpTool):
    """``table/syncup-no-add-missing``: the tool adds no missing queue."""

    def rule_syncup_add_missing(self, t: Any, has_dir: Any, s: int, p: int) -> Any:
        """The tool adds a queue for no peer a dead server lacks one for."""
        return False


class SkipsOldWals(SyncUpTool):
    """``table/syncup-skips-oldwals``: a claimed queue lists only ``WALs/``."""

    def rule_syncup_wals(self, t: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any) -> Any:
        """A claimed queue lists the WALs still in ``WALs/`` that its offset owes; none in
        oldWALs."""
        ops = t.ops
        w = self.slot(x, g, q)
        return ops.and_(
            WalFile(t, w).exists,
            WalFile(t, w).place == LIVE_DIR,
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )


class RerunSkipsMarked(SyncUpTool):
    """``table/syncup-rerun-skips-marked``: a rerun leaves out servers with a marker file."""

    def rule_syncup_claims(self, t: Any, s: int, marked: Any) -> Any:
        """A server an earlier run left a marker for is taken as done and not claimed again."""
        return t.ops.not_(marked)


def syncup_replicated_all(cfg: Any, st: TState) -> bool:
    """Seed 004: "After ReplicationSyncUp is executed, the data that needs to be replicated by the
    master cluster has been replicated." Once the tool has exited (info file present, master
    still down), every edit owed to an enabled peer is applied there."""
    if st.master_up or st.syncup.running or not st.info:
        return True
    for w in st.wals:
        if w:
            for e in w.entries:
                for p in bits(e.owed):
                    if st.peers[p] == ENABLED and e.uid not in st.sinks[p + 1].applied:
                        return False
    return True


FEATURE = SyncUpTool
"""The text of the ``syncup`` configuration feature (``model/table/layout.py``'s ``FEATURES``)."""
"""The syncup mutants bring their text as ``Design.text`` (``features/syncup_mutants.py``)."""
