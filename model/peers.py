"""Peers added and removed by an administrator in the table era (reference sections 7 and 10),
in the protocol text's form (``model/step.py``): the submission of AddPeerProcedure and
RemovePeerProcedure while the admin budget lasts, one procedure per peer at a time. The
procedures' own steps and the refreshes they send to region servers are in
``model/peer_procs.py``."""

from __future__ import annotations

from typing import Any

from .state import ABSENT
from .step import Ctx, step
from .table_state import ADD, AP_PRE, REMOVE, RP_PRE
from .table_views import Budget, TableText


def _peers(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.P]


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
