"""A region server's death, the same step in both eras, in the protocol text's form
(``model/engine/step.py``): while the crash budget lasts and more than one server is alive, a server
dies. What dying does is the era's own ``kill``: in the ZooKeeper era its session and memory go
(seed 000, "a region server fails"); in the table era its memory goes and the master schedules
its ServerCrashProcedure (seed 004). With the configuration's ``zombies`` (trace validation) the
last server may die too. Server restarts (``model/features/restarts.py``) replace the step with
one that crashes for ever.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import count
from replcheck.model.table.views import Budget, Server, each_server


class Crashes:
    """The crash step (the layout provides ``S`` and the era's ``kill``)."""

    S: range
    cfg: Any
    kill: Any

    @step(params=("server",), fair=False, each=each_server)
    def crash(self, t: Ctx, s: int) -> None:
        """a region server dies"""
        ops = t.ops
        t.require(
            Budget(t, "crashes").left > 0,
            # the checkers keep one server up; a recorded run can lose them all at once (a kill
            # while another server's session expires), which trace validation (``zombies``)
            # allows
            True if self.cfg.zombies else count(ops, (Server(t, x).alive for x in self.S)) > 1,
            Server(t, s).alive,
        )
        Budget(t, "crashes").left = Budget(t, "crashes").left - 1
        self.kill(ops, t, s)
