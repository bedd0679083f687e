"""The master's log cleaner in the table era (seed 003; seed 004 "WAL cleaner"; reference section
6), in the protocol text's form (``model/engine/step.py``).

One run of ``ReplicationLogCleaner`` is three steps:

* ``cleaner_start`` (``preClean``): ``barrier.start()`` (refused while AddPeerProcedure holds
  the barrier disabled), then the live region servers, each counted live also while its SCP is
  unfinished (``rule_cleaner_live``, a dual-form rule of the design). The master starts a run
  when it can (the step is fair): ``cleaner_runs`` bounds the runs, or, with
  ``cleaner_chore``, the chore runs for ever as HBase's ``LogCleaner`` chore does, which is
  what the cleaner's purpose (``unneeded_wals_deleted``) is checked on;
* ``cleaner_read`` (``preClean``): the peers in storage and a snapshot of every queue row;
* ``cleaner_delete`` (``getDeletableFiles`` over ``oldWALs``, then ``barrier.stop()``): every
  archived WAL the deletion rule lets go (``rule_cleaner_may_delete``, dual-form) is deleted.

The snapshot is a copy of the queue family (``snapshot_row[peer, owner, source]`` and its offset
columns, ``model/table/families.py``); the live servers the run read are ``cleaner_live[server]``,
the peers ``cleaner_peer[peer]``, where the run is ``cleaner_phase``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.cleaner_runs import run_left, spend_run
from replcheck.model.common.state import ARCHIVED, DELETED
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table import rules as table_rules
from replcheck.model.table.families import SNAPSHOT
from replcheck.model.table.rules import NO_TIMESTAMP
from replcheck.model.table.state import C_IDLE, C_READY, C_SERVERS, NO_SOURCE, NOT_RUNNING, RUNNING
from replcheck.model.table.views import Server, TableText, WalFile

ONCE = lambda text: [()]  # noqa: E731
"""One instance: the master runs one cleaner."""


class LogCleaner(TableText):
    """The log cleaner's run (the layout's helpers are ``StepBase``'s)."""

    def cleaner_reset(self, t: Any) -> None:
        """The run's memory forgotten: idle, no live servers, peers or snapshot."""
        t.cleaner_phase = C_IDLE
        keys = [var.cleaner_live(s) for s in self.S] + [var.cleaner_peer(p) for p in self.P]
        for rk in self.rkeys:
            keys += self.row_keys(rk, SNAPSHOT)
        self.clear(t, True, keys)

    @step(params=(), fair=True, each=ONCE)
    def cleaner_start(self, t: Ctx) -> None:
        """log cleaner preClean: barrier.start(), list live servers"""
        ops = t.ops
        t.require(
            *run_left(t, self.cfg),
            t.cleaner_phase == C_IDLE,
            table_rules.cleaner_may_start_rule(ops, t.cleaner_barrier),
        )
        live = self.rule["rule_cleaner_live"]
        flags = [live(ops, Server(t, s).alive, self.scp_unfinished(ops, t.get, s)) for s in self.S]
        spend_run(t, self.cfg)
        self.cleaner_reset(t)
        t.cleaner_phase = C_SERVERS
        for s in self.S:
            t.cleaner_live[s] = flags[s]
        t.cleaner_barrier = RUNNING
        t.cleaner_barrier_holders = 0

    @step(params=(), fair=True, each=ONCE)
    def cleaner_read(self, t: Ctx) -> None:
        """log cleaner preClean: list peers and all queues"""
        t.require(t.cleaner_phase == C_SERVERS)
        t.cleaner_phase = C_READY
        for p in self.P:
            t.cleaner_peer[p] = self.storage(t.ops, t.get, p)
        for rk in self.rkeys:
            for k, ck in zip(self.row_keys(rk), self.row_keys(rk, SNAPSHOT), strict=True):
                t[ck] = t[k]

    def cleaner_view(self, ops: Any, get: Any, x: int, g: int, p: int) -> Any:
        """``cleaner_views`` for peer ``p`` and the WALs of server ``x``, group ``g``, from the
        snapshot: the rows of ``(p, x)`` merged in row-key order, later ones winning."""
        now = named(get)
        order = []
        for o in self.S:
            order += [(p, x, NO_SOURCE), (p, x, x)] if o == x else [(p, o, x)]
        has_queue = ops.or_(*(now.snapshot_row[*rk] for rk in order))
        has: Any = False
        seq: Any = NO_TIMESTAMP
        pos: Any = 0
        for rk in order:
            col = now.snapshot_has_offset[*rk, g]
            has = ops.or_(has, col)
            seq = ops.ite(col, now.snapshot_offset_wal[*rk, g], seq)
            pos = ops.ite(col, now.snapshot_offset_pos[*rk, g], pos)
        return table_rules.QueueView(now.cleaner_peer[p], has_queue, has, seq, pos)

    def cleaner_has_server(self, ops: Any, get: Any, x: int) -> Any:
        """The snapshot holds a queue over server ``x``'s WALs."""
        return ops.or_(
            *(
                named(get).snapshot_row[*rk]
                for rk in self.rkeys
                if self.wal_owner(rk[1], rk[2]) == x
            )
        )

    def cleaner_run_ok(self, t: Any) -> Any:
        """Does ``getDeletableFiles`` get through every file of oldWALs (a file it cannot read
        fails the whole run, which then deletes nothing)? Yes here, where every file is one of a
        server's WALs; ``model/features/cleaner_input.py`` adds the other files."""
        return True

    def cleaner_delete_others(self, t: Any, ok: Any) -> None:
        """Where ``ok`` holds, the files of oldWALs that are no server's replicated WAL are
        deleted (there are none here; ``model/features/cleaner_input.py`` adds them)."""

    @step(params=(), fair=True, each=ONCE)
    def cleaner_delete(self, t: Ctx) -> None:
        """log cleaner: getDeletableFiles over oldWALs, barrier.stop()"""
        ops = t.ops
        t.require(t.cleaner_phase == C_READY)
        rule = self.rule["rule_cleaner_may_delete"]
        get = t.get
        ok = self.cleaner_run_ok(t)
        for w in self.W:
            x, g, q = self.key[w]
            views = [self.cleaner_view(ops, get, x, g, p) for p in self.P]
            may = rule(ops, q, t.cleaner_live[x], self.cleaner_has_server(ops, get, x), views)
            archived = ops.and_(WalFile(t, w).exists, WalFile(t, w).place == ARCHIVED)
            t.when(ops.and_(ok, archived, may)).wal_place[w] = DELETED
        self.cleaner_delete_others(t, ok)
        self.cleaner_reset(t)
        t.cleaner_barrier = NOT_RUNNING
        t.cleaner_barrier_holders = 0
