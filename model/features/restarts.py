"""A region server restarting after its ServerCrashProcedure (``Config.restarts``), in the
protocol text's form (``model/engine/step.py``): the same server slot starts again as a new
incarnation (a new start code), so crashes and restarts go on for ever and new SCPs 'keep coming'
(the starvation RemovePeerProcedure must survive, HBASE-27213).

* ``crash`` is no longer bounded by the crash budget: while the budget lasts a crash spends it,
  after that crashes go on, but only while more than two servers are online (so the targets of
  a running claim stay up and each claim can finish);
* ``restart`` needs the finished SCP, no queue row owned by the server or recovered from it, no
  edit in any of its WALs and no recovered shipper anywhere reading its WALs (so forgetting the
  old WAL files loses nothing). The old WAL files are forgotten and the first WAL of each group
  is created empty; the server starts with a normal source (one shipper per WAL group) for every
  peer in peer storage; the claim children sent to it are dropped from every SCP, its own SCP
  slot is reset, and no RemovePeerProcedure counts the old incarnation's procedure any longer
  (the new incarnation's procedures have new ids).

The layout needs no new variable: the ``restarts`` budget only switches the behaviour on, and
the new incarnation's constant server fields are those of a started server at the initial state.
"""

from __future__ import annotations

from replcheck.model.common.crashes import Crashes
from replcheck.model.engine.composition import replaces
from replcheck.model.engine.names import var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import count
from replcheck.model.table.state import SCP_DONE, SCP_NONE
from replcheck.model.table.views import (
    Budget,
    Crash,
    Row,
    Server,
    ShipperSlot,
    TableText,
    WalFile,
    each_server,
)


class Restarts(TableText):
    """Unbounded crashes and the ``restart`` step (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"restarts"})

    @replaces(Crashes)
    @step(params=("server",), fair=False, each=each_server)
    def crash(self, t: Ctx, s: int) -> None:
        """a region server dies; the master schedules its SCP"""
        ops = t.ops
        t.require(count(ops, (Server(t, x).alive for x in self.S)) > 2, Server(t, s).alive)
        left = Budget(t, "crashes").left
        Budget(t, "crashes").left = ops.ite(left > 0, left - 1, left)
        self.kill(ops, t, s)

    @step(params=("server",), fair=False, each=each_server)
    def restart(self, t: Ctx, s: int) -> None:
        """a crashed server whose SCP finished starts again"""
        ops = t.ops
        mine = [rk for rk in self.rkeys if s in (rk[1], rk[2])]
        wals = [w for w in self.W if self.key[w][0] == s]
        readers = [sk for sk in self.sh_keys if sk[2] == s]
        t.require(
            bool(self.init_state.servers[s].started),
            ops.not_(Server(t, s).alive),
            Crash(t, s).stage == SCP_DONE,
            *(ops.not_(Row(t, *rk).exists) for rk in mine),
            *(ops.not_(ops.and_(WalFile(t, w).exists, WalFile(t, w).entries > 0)) for w in wals),
            *(ops.not_(ShipperSlot(t, *sk).present) for sk in readers),
        )
        for w in wals:
            self.clear(t, True, self.wal_keys(w))
        self.start_server(ops, t, s)
        for d in self.S:
            for p in self.P:
                for src in self.SRC:
                    sent = ops.and_(t.claim_child[d, p, src], t.claim_target[d, p, src] == s)
                    self.clear(t, sent, [var.claim_child(d, p, src), var.claim_target(d, p, src)])
        Crash(t, s).stage = SCP_NONE
        self.clear(t, True, self.scp_keys(s))
        for p in self.P:
            t.peer_proc_recorded[p, s] = False


FEATURE = Restarts
"""The text of the ``restarts`` configuration feature (``model/table/layout.py``'s ``FEATURES``)."""
"""No design or mutant overrides a step of this component."""
