"""Region servers joining a running cluster (seed 004; reference section 4), in the protocol
text's form (``model/engine/step.py``): a server slot that has not started yet (the configuration's
``joins``, the last server slots before any spare one) starts, reports for duty, and gets a normal
source per peer in storage on its first WALs (``RSM.init``, ``StepBase.start_server``); it writes
nothing to ``hbase:replication`` until a source ships.

``StartedSlots`` is the layout of servers that may not have started: ``server_started[s]`` per
server (a server that has not started is not alive, has no WAL and no SCP). The joins, the spare
server of ReplicationSyncUp (``model/features/syncup.py``) and the migration's upgraded servers
(``model/features/migration.py``) share it.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.names import var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import TableText


class StartedSlots(TableText):
    """``server_started[s]``: whether server ``s`` has joined the cluster."""

    encoded_server_fields = ("started",)

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for s in self.S:
            out[var.server_started(s)] = "b"
        return out

    def encode(self, st: Any) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        for s, srv in enumerate(st.servers):
            v[var.server_started(s)] = srv.started
        return v

    def _server(self, v: Any, s: int) -> Any:
        """A server's part (``server_started[s]`` is read with it: the layout's ``PARTS``)."""
        return super()._server(v, s)._replace(started=v[var.server_started(s)])  # type: ignore[misc]


def _joining(text: Any) -> list[tuple[int]]:
    """The server slots that join: the configuration's last ``joins`` before the spare ones."""
    cfg = text.cfg
    last = cfg.servers - cfg.spare_servers
    return [(s,) for s in range(last - cfg.joins, last)]


class Joins(StartedSlots):
    """The ``joins`` feature (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"joins"})

    @step(params=("server",), fair=False, each=_joining)
    def join(self, t: Ctx, s: int) -> None:
        """a new region server starts: its first WALs and its sources"""
        t.require(t.ops.not_(t.server_started[s]))
        t.server_started[s] = True
        self.start_server(t.ops, t, s)


FEATURE = Joins
