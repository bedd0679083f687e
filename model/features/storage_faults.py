"""A region server's reaction when its write to ``hbase:replication`` fails
(``Config.storage_faults``, the table era), in the protocol text's form (``model/engine/step.py``).
Reference section 5, AddPeer's refresh on a server:
``RQS.setOffset(QueueId(me, peer), group, (latestWal, 0))`` — "failure aborts the RS and fails
the refresh"; section 10: ``logPositionAndCleanOldLogs``' ``setOffset`` "(failure aborts the
RS)", and the shipper then "restarts from the last persisted offset (re-ship ⇒ duplicates
possible, never skip)". The ZooKeeper era's counterpart is ``roll_zk_fail`` (HBASE-3515,
``model/zk/wal.py``).

A budget of failed writes, each one of:

* ``refresh_write_fail``: a RefreshPeerProcedure of AddPeerProcedure reaches a live server and
  the server's initial ``setOffset`` for the new peer fails;
* ``persist_write_fail``: a shipper's ``setOffset`` of a shipped position fails.

HBase's reaction (``rule_write_failure_aborts``): the server aborts, a crash of that server
(``kill``: its memory goes and the master schedules its ServerCrashProcedure, whose
ADD_MISSING_QUEUES gives it a BEGIN queue for a peer it has no row of), and the refresh ends
failed. Its sources are gone with its memory, so whoever claims its queues restarts them from the
last persisted offset. Like a crash, an abort leaves more than one server up (the checkers keep a
claim target).

The layout's new slot: the budget ``budget["storage_faults"]``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import count
from replcheck.model.table.source import _by_index, _heads, head
from replcheck.model.table.state import ADD
from replcheck.model.table.views import Budget, PeerProc, Server, TableText


def _refresh_faults(text: Any) -> list[tuple[int, int]]:
    return [(p, s) for p in text.P for s in text.S]


class StorageFaults(TableText):
    """The ``storage_faults`` feature (the layout's helpers are ``StepBase``'s; ``head_is`` and
    ``stored_is`` are the sources')."""

    handles = frozenset({"storage_faults"})
    head_is: Any
    stored_is: Any
    kill: Any

    @property
    def budgets(self) -> tuple[str, ...]:
        return (*super().budgets, "storage_faults")  # type: ignore[misc]

    @property
    def constant_budgets(self) -> tuple[str, ...]:
        return tuple(b for b in super().constant_budgets if b != "storage_faults")  # type: ignore[misc]

    def rule_write_failure_aborts(self, ops: Any) -> bool:
        """Does a server whose write to ``hbase:replication`` failed abort? Yes
        (``abortWhenFail``): a server that carries on would hold in memory what storage does not
        have."""
        return True

    def write_failed(self, t: Ctx, s: int) -> None:
        """A write of server ``s`` failed: the budget is spent, and the server aborts where
        ``rule_write_failure_aborts`` says so."""
        Budget(t, "storage_faults").left = Budget(t, "storage_faults").left - 1
        if self.rule_write_failure_aborts(t.ops):
            self.kill(t.ops, t, s)

    def may_fail(self, t: Ctx, s: int) -> list[Any]:
        """A write may fail: the budget lasts, ``s`` is alive, and another server stays up."""
        ops = t.ops
        return [
            Budget(t, "storage_faults").left > 0,
            Server(t, s).alive,
            count(ops, (Server(t, x).alive for x in self.S)) > 1,
        ]

    @step(params=("peer", "server"), fair=False, each=_refresh_faults)
    def refresh_write_fail(self, t: Ctx, p: int, s: int) -> None:
        """AddPeer's refresh: the server's setOffset for the new peer fails"""
        ops = t.ops
        proc = PeerProc(t, p)
        t.require(
            proc.present,
            proc.kind == ADD,
            proc.refresh[s],
            ops.not_(Server(t, s).knows[p]),
            *self.may_fail(t, s),
        )
        proc.refresh[s] = False
        self.write_failed(t, s)
        if not self.rule_write_failure_aborts(ops):
            # carried on: the peer is in the server's peer cache (``replicationPeers.addPeer``
            # ran before ``addSource``), with no source and no row
            t.knows_peer[s, p] = True

    @step(params=("server", "shipper"), fair=False, each=_heads, label=_by_index, lead=head)
    def persist_write_fail(self, t: Ctx, s: int, p: int, src: int, g: int, m: int, q: int) -> None:
        """a shipper's setOffset of its shipped position fails"""
        ops = t.ops
        sk = (s, p, src, g, m)
        pos = t.shipper_pos[*sk]
        t.require(
            self.head_is(ops, t.get, sk, q),
            pos > 0,
            ops.not_(self.stored_is(ops, t.get, (p, s, src), g, q, pos)),
            *self.may_fail(t, s),
        )
        self.write_failed(t, s)


class RefreshFailureIgnored(StorageFaults):
    """``table/refresh-write-failure-ignored``: the server does not abort."""

    def rule_write_failure_aborts(self, ops: Any) -> bool:
        """A failed write is logged and the server carries on; the refresh reports success."""
        return False


FEATURE = StorageFaults
"""The text of the ``storage_faults`` configuration feature (``table/layout.py``'s
``FEATURES``)."""
"""No mutant overrides a step of this component (``table/refresh-write-failure-ignored``
overrides its rule: its ``Design.text`` is ``RefreshFailureIgnored``)."""
