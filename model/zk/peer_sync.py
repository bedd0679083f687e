"""A ZooKeeper-era region server's reaction to a change of the peers' znodes, in the protocol
text's form (``model/engine/step.py``), one step per peer and server (``peer_sync``):

* a peer in storage the server does not replicate to yet: its queue znode for the peer holds
  every WAL of the server's current ones, each at position 0, and a normal source per WAL group
  starts on the current WAL;
* a peer removed that the server still replicates to (or still has a source of): every queue of
  the peer on the server, recovered ones too, is deleted and its sources stop (HBASE-17077's
  clean-up); the server remembers the removal (``gone``) and does not react to it again;
* under ``peer_life``, an update of the peer's config znode (``model/zk/peer_life.py``'s
  ``config_sync``).

The layout provides ``put_queue``, ``add_shipper``, ``drop_queue`` and ``clear_shipper`` over its
queue znodes and shipper slots.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import DISABLED, ENABLED, REMOVED
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import lookup
from replcheck.model.table.views import Server


def _syncs(text: Any) -> list[tuple[int, int, str]]:
    hows = ("add", "remove", "config") if text.cfg.peer_life else ("add", "remove")
    return [(s, p, how) for s in text.S for p in text.P for how in hows]


class PeerSync:
    """``peer_sync`` (the layout provides ``cfg``, ``S``, ``P``, ``G``, ``Q``, ``CH``, its
    shipper slots ``sh_keys`` and the queue and shipper helpers)."""

    cfg: Any
    S: range
    P: range
    G: range
    Q: range
    CH: Any
    sh_keys: list[tuple[int, int, int, int]]
    put_queue: Any
    add_shipper: Any
    drop_queue: Any
    clear_shipper: Any
    config_sync: Any

    @step(
        params=("server", "peer"),
        fair=True,
        each=_syncs,
        label=lambda text, st, get, a: a if a[2] == "config" else a[:2],
    )
    def peer_sync(self, t: Ctx, s: int, p: int, how: str) -> None:
        """a region server reacts to a peers-znode change"""
        ops = t.ops
        status = t.peer_state[p]
        if how == "config":
            self.config_sync(t, s, p)
            return
        if how == "add":
            t.require(
                Server(t, s).alive,
                ops.or_(status == ENABLED, status == DISABLED),
                ops.not_(Server(t, s).knows[p]),
            )
            wals = []
            for g in self.G:
                cur = Server(t, s).current[g]
                for q in self.Q:
                    wals.append((self.cfg.slot((s, g, q)), cur == q, 0))
            self.put_queue(ops, t, True, s, p, 0, wals)
            for g in self.G:
                cur = Server(t, s).current[g]
                w = lookup(ops, cur, [self.cfg.slot((s, g, q)) for q in self.Q])
                self.add_shipper(ops, t, True, s, p, 0, g, [w], 1, 0)
            t.knows_peer[s, p] = True
            return
        mine = [sk for sk in self.sh_keys if sk[0] == p]
        sources = ops.or_(*(t.shipper[s, *sk] for sk in mine))
        t.require(
            Server(t, s).alive,
            status == REMOVED,
            ops.not_(t.removal_handled[s, p]),
            ops.or_(Server(t, s).knows[p], sources),
        )
        for ci in self.CH:
            self.drop_queue(ops, t, True, s, p, ci)
        for sk in mine:
            self.clear_shipper(ops, t, True, (s, *sk))
        t.knows_peer[s, p] = False
        t.removal_handled[s, p] = True
