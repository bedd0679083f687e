"""Peers added and removed by an administrator in the table era (reference sections 7 and 10),
in the protocol text's form (``model/step.py``): the submission of AddPeerProcedure and
RemovePeerProcedure while the admin budget lasts, one procedure per peer at a time, and (with
the configuration's ``peer_toggles``) the peer's state toggled in peer storage. The
procedures' own steps and the refreshes they send to region servers are in
``model/peer_procs.py``."""

from __future__ import annotations

from typing import Any

from .state import ABSENT, DISABLED, ENABLED
from .step import Ctx, step
from .table_state import ADD, AP_PRE, REMOVE, RP_PRE
from .table_views import Budget, TableText


def _peers(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.P]


def _toggled(text: Any) -> list[tuple[int]]:
    """The peers an administrator may disable and enable: every one, with the configuration's
    ``peer_toggles``."""
    return _peers(text) if text.cfg.peer_toggles else []


class PeerAdmin(TableText):
    """The admin's peer commands (the layout's helpers are ``StepBase``'s)."""

    def submit(self, t: Ctx, p: int, kind: int, stage: int) -> None:
        """The procedure of ``kind`` for peer ``p`` is persisted at its first ``stage``."""
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        t[("pp", p)] = True
        t[("ppk", p)] = kind
        t[("pps", p)] = stage

    @step(params=("peer",), fair=False, each=_peers)
    def add_peer(self, t: Ctx, p: int) -> None:
        """admin: AddPeerProcedure is submitted"""
        t.require(Budget(t, "admin").left > 0, t[("peer", p)] == ABSENT, t.ops.not_(t[("pp", p)]))
        self.submit(t, p, ADD, AP_PRE)

    @step(params=("peer",), fair=False, each=_peers)
    def remove_peer(self, t: Ctx, p: int) -> None:
        """admin: RemovePeerProcedure is submitted"""
        t.require(
            Budget(t, "admin").left > 0,
            self.storage(t.ops, t.get, p),
            t.ops.not_(t[("pp", p)]),
        )
        self.submit(t, p, REMOVE, RP_PRE)

    def toggle(self, t: Ctx, p: int, want: int, to: int) -> None:
        """A peer in state ``want`` with no procedure of its own running (the peer's procedures
        hold its lock one at a time) goes to state ``to`` in peer storage; its sources follow
        the peer's state (``source_ships_rule``)."""
        t.require(Budget(t, "admin").left > 0, t[("peer", p)] == want, t.ops.not_(t[("pp", p)]))
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        t[("peer", p)] = to

    @step(params=("peer",), fair=False, each=_toggled)
    def disable_peer(self, t: Ctx, p: int) -> None:
        """admin: the peer's state in storage goes DISABLED"""
        self.toggle(t, p, ENABLED, DISABLED)

    @step(params=("peer",), fair=False, each=_toggled)
    def enable_peer(self, t: Ctx, p: int) -> None:
        """admin: the peer's state in storage goes ENABLED"""
        self.toggle(t, p, DISABLED, ENABLED)
