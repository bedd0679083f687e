"""A ZooKeeper-era region server that starts again after it died (``Config.restarts``), in the
protocol text's form (``model/engine/step.py``). The table era's counterpart is
``model/features/restarts.py``.

A restarted server is a new server name: ``host,port,startcode`` with a new start code. Its old
incarnation's znode ``/hbase/replication/rs/<old>`` is a dead server's like any other, failed
over by the design's own failover (zk-lock's race for the lock znode and copy, zk-multi's claims
driven by the ServerCrashProcedure); the new incarnation creates its own znode, writes to new WAL
files (later timestamps) and gets a queue per peer holding its new WAL (``peer_sync``, as
``RSM.init``'s ``addSource`` adds the current WAL of each group to this server's queue). It finds
no queue under its own, new name. (HBase 1.x's ``RSM.init`` also transfers the queues of every
dead replicator it finds (``adoptAbandonedQueues``): here a started server takes part in the
same failover as any live one.)

The model keeps one server slot per host: both incarnations are slot ``s``, their WALs the
slot's sequences (the new one writes after its old WALs, so an edit keeps its identity). So that
the two names never meet in one slot, ``restart`` waits until nothing of the old name is left in
ZooKeeper or in memory:

* the old znode is failed over (``old_name_failed_over``: gone, and zk-multi's procedure
  finished);
* no queue anywhere is named after it (a claimed queue's chain holds its name) and no source
  reads a queue so named; no claim read from it is still to commit.

Its WALs are left as they are (each is its old incarnation's file, archived, read or deleted as
any dead server's). A restart needs a free WAL slot per group, so the WAL slots bound the
restarts; crashes stay on their budget (``model/common/crashes.py``).

A design or mutant changes what a starting server does with a znode under its name by overriding
``old_name_failed_over``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Server, WalFile


def _restarting(text: Any) -> list[tuple[int]]:
    if not text.cfg.restarts or text.cfg.wals_per_server < 2:
        return []
    return [(s,) for s in text.S]


class ZkRestarts:
    """The ``restart`` step (the layout provides ``cfg``, ``S``, ``G``, ``Q``, ``P``, ``CH``,
    ``W``, ``chains``, ``sh_keys``, and ``ZkJoins``'s ``new_wal`` and ``comes_up``)."""

    cfg: Any
    S: range
    G: range
    Q: range
    P: range
    CH: range
    W: range
    chains: list[tuple[int, ...]]
    sh_keys: list[tuple[int, int, int, int]]
    new_wal: Any
    comes_up: Any

    def old_name_failed_over(self, t: Ctx, s: int) -> Any:
        """The old incarnation's znode is gone: the failover moved its queues and deleted it
        (zk-lock's ``finish_claim``, zk-multi's ``scp_finish``, which also ends the procedure)."""
        return t.ops.and_(t.ops.not_(t.rs_znode[s]), t.ops.not_(t.failover_pending[s]))

    def old_name_unused(self, t: Ctx, s: int) -> list[Any]:
        """No queue is named after ``s`` (its chain holds it), no source reads one so named, and
        no claim read from ``s`` waits to commit."""
        ops = t.ops
        named = [ci for ci in self.CH if s in self.chains[ci]]
        out = [ops.not_(t.queue_znode[o, p, ci]) for o in self.S for p in self.P for ci in named]
        out += [
            ops.not_(t.shipper[o, *sk]) for o in self.S for sk in self.sh_keys if sk[1] in named
        ]
        out += [ops.not_(ops.and_(t.claiming[o], t.claiming_dead[o] == s)) for o in self.S]
        return out

    @step(params=("server",), fair=False, each=_restarting)
    def restart(self, t: Ctx, s: int) -> None:
        """a dead region server starts again under a new server name"""
        ops = t.ops
        last = self.cfg.wals_per_server - 1
        t.require(
            ops.not_(Server(t, s).alive),
            WalFile(t, self.cfg.slot((s, 0, 0))).exists,
            *(Server(t, s).current[g] < last for g in self.G),
            self.old_name_failed_over(t, s),
            *self.old_name_unused(t, s),
        )
        for g in self.G:
            cur = Server(t, s).current[g]
            for q in self.Q[1:]:
                self.new_wal(t, self.cfg.slot((s, g, q)), False, cur == q - 1)
            t.current_wal[s, g] = cur + 1
        self.comes_up(t, s)
