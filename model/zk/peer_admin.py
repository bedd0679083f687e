"""The administrator's peer commands in the ZooKeeper era, in the protocol text's form
(``model/engine/step.py``): each is one write to the peers' znodes, while the admin budget lasts
(seed 001: a peer's znode under ``/hbase/replication/peers``, its ``peer-state`` ENABLED or
DISABLED, and ``/hbase/replication/state``). The region servers react in ``peer_sync``.

The layout holds ``peer_state[p]`` (``ABSENT``, ``ENABLED``, ``DISABLED``, ``REMOVED``), the
``admin`` budget and ``replication_on``, the replication state znode.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ABSENT, DISABLED, ENABLED, REMOVED
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Budget


def _peers(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.P]


class ZkPeerAdmin:
    """``add_peer``, ``remove_peer``, ``disable_peer``, ``enable_peer`` and
    ``toggle_replication`` (the layout provides ``P``)."""

    P: range
    cfg: Any
    readd_guard: Any
    after_add: Any

    def set_peer(self, t: Ctx, p: int, frm: tuple[int, ...], to: int) -> None:
        """The peer's status goes from one of ``frm`` to ``to``: one admin command."""
        ops = t.ops
        t.require(Budget(t, "admin").left > 0, ops.or_(*(t.peer_state[p] == f for f in frm)))
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        t.peer_state[p] = to

    @step(params=("peer",), fair=False, each=_peers)
    def add_peer(self, t: Ctx, p: int) -> None:
        """admin: add_peer"""
        if not self.cfg.peer_life:
            self.set_peer(t, p, (ABSENT,), ENABLED)
            return
        # a removed peer's id may be used again (``model/zk/peer_life.py``)
        again = t.peer_state[p] == REMOVED
        t.require(Budget(t, "admin").left > 0, *self.readd_guard(t, p))
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        t.peer_state[p] = ENABLED
        self.after_add(t, p, again)

    @step(params=("peer",), fair=False, each=_peers)
    def remove_peer(self, t: Ctx, p: int) -> None:
        """admin: remove_peer"""
        self.set_peer(t, p, (ENABLED, DISABLED), REMOVED)

    @step(params=("peer",), fair=False, each=_peers)
    def disable_peer(self, t: Ctx, p: int) -> None:
        """admin: disable_peer (peer-state znode)"""
        self.set_peer(t, p, (ENABLED,), DISABLED)

    @step(params=("peer",), fair=False, each=_peers)
    def enable_peer(self, t: Ctx, p: int) -> None:
        """admin: enable_peer (peer-state znode)"""
        self.set_peer(t, p, (DISABLED,), ENABLED)

    @step(params=(), fair=False, each=lambda text: [()])
    def toggle_replication(self, t: Ctx) -> None:
        """admin: flip the /hbase/replication/state znode"""
        t.require(Budget(t, "admin").left > 0)
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        t.replication_on = t.ops.not_(t.replication_on)
