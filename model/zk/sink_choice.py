"""A region server's choice of sink servers in the ZooKeeper era, in the protocol text's form
(``model/engine/step.py``): seed 002, "If the slave RegionServer is still not available, the master
selects a new subset of RegionServers to replicate to". When every sink a server chose for a
peer is down, it picks another subset of the peer cluster's servers (``ceil(ratio * servers)``
of them), any that differs from the one it had.

The layout holds ``sink_chosen[server, peer, sink]``, the server's chosen sinks for the peer, and
``sink_down[cluster, sink]``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from replcheck.model.engine.step import Ctx, step


def subsets(cfg: Any) -> list[int]:
    """Every subset of a peer cluster's sink servers a source may choose, as a bit mask."""
    return [
        sum(1 << k for k in combo)
        for combo in combinations(range(cfg.sink_servers), cfg.sink_subset)
    ]


def _choices(text: Any) -> list[tuple[int, int, int]]:
    if text.cfg.sink_servers == 1:
        return []
    return [(s, p, mask) for s in text.S for p in text.P for mask in subsets(text.cfg)]


class SinkChoice:
    """``reselect_sinks`` (the layout provides ``cfg``, ``S`` and ``P``)."""

    cfg: Any
    S: range
    P: range

    @step(params=("server", "peer", "subset"), fair=True, each=_choices)
    def reselect_sinks(self, t: Ctx, s: int, p: int, mask: int) -> None:
        """every chosen sink is down: pick anew"""
        ops = t.ops
        ks = range(self.cfg.sink_servers)
        up = ops.or_(
            *(ops.and_(t.sink_chosen[s, p, k], ops.not_(t.sink_down[p + 1, k])) for k in ks)
        )
        differs = ops.or_(
            *(ops.not_(ops.eq(t.sink_chosen[s, p, k], bool(mask >> k & 1))) for k in ks)
        )
        t.require(t.server_alive[s], t.knows_peer[s, p], ops.not_(up), differs)
        for k in ks:
            t.sink_chosen[s, p, k] = bool(mask >> k & 1)
