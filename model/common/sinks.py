"""The peer clusters' sink region servers, the same steps in both eras, in the protocol text's
form (``model/engine/step.py``): one stops answering (while the outage budget lasts) and answers
again. A source's batch needs a sink that answers (``ship``, ``model/table/source.py``). The layout
holds ``sink_down[cluster, sink]`` per cluster other than ours and the ``outages`` budget."""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Budget, TableText


def _sinks(text: Any) -> list[tuple[int, int]]:
    cfg = text.cfg
    return [(cl, k) for cl in range(1, cfg.clusters) for k in range(cfg.sink_servers)]


class SinkServers(TableText):
    """Sink outages (the layout's helpers are ``StepBase``'s)."""

    @step(params=("cluster", "sink"), fair=False, each=_sinks)
    def sink_down(self, t: Ctx, cl: int, k: int) -> None:
        """a sink region server stops answering"""
        t.require(Budget(t, "outages").left > 0, t.ops.not_(t.sink_down[cl, k]))
        Budget(t, "outages").left = Budget(t, "outages").left - 1
        t.sink_down[cl, k] = True

    @step(params=("cluster", "sink"), fair=True, each=_sinks)
    def sink_up(self, t: Ctx, cl: int, k: int) -> None:
        """a sink region server answers again"""
        t.require(t.sink_down[cl, k])
        t.sink_down[cl, k] = False
