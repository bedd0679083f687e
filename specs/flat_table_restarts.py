"""Server restarts (``Config.restarts``) in the flat table model (``specs/flat_table.py``).

With restarts a crashed region server whose ServerCrashProcedure finished may start again: a new
incarnation (a new start code) on the same server slot. The explicit steps are ``crash`` and
``restart`` of ``model/table_common.py``:

* ``crash`` is no longer bounded by the crash budget: while the budget lasts a crash spends it,
  after that crashes go on, but only while more than two servers are online (so the targets of
  a running claim stay up);
* ``restart`` needs the finished SCP, no queue row owned by the server or recovered from it, no
  edit in any of its WALs and no recovered shipper anywhere reading its WALs. The old WAL files
  are forgotten and the first WAL of each group is created empty; the server starts with a normal
  source (one shipper per WAL group) for every peer in peer storage; the claim children sent to
  it are dropped from every SCP, its own SCP slot is reset, and no RemovePeerProcedure counts
  the old incarnation's procedure any longer.

The layout needs no new variable: the ``restarts`` budget is never spent (it only switches the
behaviour on), so it stays in ``constant_budgets``; the new incarnation's constant server fields
(``started``, ``version``, ``sinks``, ``views``, ``drained``) are those of a started server at
the initial state, which ``encode`` checks as before.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.table_state import SCP_DONE, SCP_NONE
from replcheck.model.text import Instance, Tx, count

from .flat_table_base import StepBase


class FlatRestarts(StepBase):
    """The ``restarts`` feature: unbounded crashes and the ``restart`` step."""

    handles = frozenset({"restarts"})
    init_state: Any

    def _crash(self, s: int) -> Instance:
        """``crash`` with restarts: the budget is spent while it lasts, and crashes go on after
        it, with more than two servers online."""

        def guard(ops: Any, get: Any) -> Any:
            alive = count(ops, (get(("alive", t)) for t in self.S))
            return ops.and_(alive > 2, get(("alive", s)))

        def apply(ops: Any, tx: Tx) -> None:
            left = tx[("b", "crashes")]
            tx[("b", "crashes")] = ops.ite(left > 0, left - 1, left)
            self.kill(ops, tx, s)

        return Instance("crash", (s,), guard, apply)

    def _restart(self, s: int) -> Instance:
        """``restart``: a crashed server whose SCP finished, with nothing left to replicate from
        it, starts again as a new incarnation."""
        started = self.init_state.servers[s].started
        mine = [rk for rk in self.rkeys if s in (rk[1], rk[2])]
        wals = [w for w in self.W if self.key[w][0] == s]
        readers = [sk for sk in self.sh_keys if sk[2] == s]

        def guard(ops: Any, get: Any) -> Any:
            if not started:
                return False
            return ops.and_(
                ops.not_(get(("alive", s))),
                get(("stage", s)) == SCP_DONE,
                *(ops.not_(get(("rex", *rk))) for rk in mine),
                *(ops.not_(ops.and_(get(("wex", w)), get(("wn", w)) > 0)) for w in wals),
                *(ops.not_(get(("sh", *sk))) for sk in readers),
            )

        def apply(ops: Any, tx: Tx) -> None:
            for w in wals:
                self.clear(tx, True, self.wal_keys(w))
            self.start_server(ops, tx, s)
            for d in self.S:
                for p in self.P:
                    for src in self.SRC:
                        sent = ops.and_(tx[("ch", d, p, src)], tx[("cht", d, p, src)] == s)
                        self.clear(tx, sent, [("ch", d, p, src), ("cht", d, p, src)])
            tx[("stage", s)] = SCP_NONE
            self.clear(tx, True, self.scp_keys(s))
            for p in self.P:
                tx[("pprec", p, s)] = False

        return Instance("restart", (s,), guard, apply)

    def instances(self) -> list[Instance]:
        out: list[Instance] = super().instances()  # type: ignore[misc]
        out.extend(self._restart(s) for s in self.S)
        return out


FEATURE = FlatRestarts
MUTANTS: dict[str, type] = {}
"""No mutant overrides a step of this feature."""
