"""Peers added and removed by an administrator in the table era (reference sections 7 and 10),
in the protocol text's form (``model/engine/step.py``): the submission of AddPeerProcedure and
RemovePeerProcedure while the admin budget lasts, one procedure per peer at a time, and (with
the configuration's ``peer_toggles``) the peer's state toggled in peer storage. The
procedures' own steps and the refreshes they send to region servers are in
``model/table/peer_procs.py``."""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ABSENT, DISABLED, ENABLED
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.state import ADD, AP_PRE, REMOVE, RP_PRE
from replcheck.model.table.views import Budget, TableText


def _peers(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.P]


def _toggled(text: Any) -> list[tuple[int]]:
    """The peers an administrator may disable and enable: every one, with the configuration's
    ``peer_toggles`` or ``peer_life``."""
    return _peers(text) if text.cfg.peer_toggles or text.cfg.peer_life else []


class PeerAdmin(TableText):
    """The admin's peer commands (the layout's helpers are ``StepBase``'s)."""

    def may_submit(self, t: Ctx, p: int, applies: Any) -> list[Any]:
        """The admin issues a command for peer ``p`` only where it ``applies`` (the peer's
        state is one the command is for) and no procedure of the peer runs: the peer's
        procedures hold its lock one at a time, and here the admin waits for the last one
        (the ``peer_life`` feature queues the command instead)."""
        return [applies, t.ops.not_(t.peer_proc[p])]

    def start_proc(self, t: Ctx, cond: Any, p: int, kind: Any, stage: Any) -> None:
        """Where ``cond`` holds, the procedure of ``kind`` for peer ``p`` is persisted at
        ``stage`` and holds the peer's lock."""
        t.when(cond).peer_proc[p] = True
        t.when(cond).peer_proc_kind[p] = kind
        t.when(cond).peer_proc_stage[p] = stage

    def enqueue(self, t: Ctx, p: int, kind: int, stage: int) -> None:
        """The submitted procedure starts at once (``may_submit`` let it in only with the
        peer's lock free)."""
        self.start_proc(t, True, p, kind, stage)

    def submit(self, t: Ctx, p: int, kind: int, stage: int) -> None:
        """The procedure of ``kind`` for peer ``p`` is submitted at its first ``stage``."""
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        self.enqueue(t, p, kind, stage)

    @step(params=("peer",), fair=False, each=_peers)
    def add_peer(self, t: Ctx, p: int) -> None:
        """admin: AddPeerProcedure is submitted"""
        applies = self.rule_peer_id_free(t.ops, t.peer_state[p])
        t.require(Budget(t, "admin").left > 0, *self.may_submit(t, p, applies))
        self.submit(t, p, ADD, AP_PRE)

    def rule_peer_id_free(self, ops: Any, status: Any) -> Any:
        """May a peer be added under this id? Only one never used (the ``peer_life`` feature:
        also one whose peer was removed)."""
        return status == ABSENT

    @step(params=("peer",), fair=False, each=_peers)
    def remove_peer(self, t: Ctx, p: int) -> None:
        """admin: RemovePeerProcedure is submitted"""
        applies = self.storage(t.ops, t.get, p)
        t.require(Budget(t, "admin").left > 0, *self.may_submit(t, p, applies))
        self.submit(t, p, REMOVE, RP_PRE)

    def toggle(self, t: Ctx, p: int, want: int, to: int) -> None:
        """A peer in state ``want`` with no procedure of its own running (the peer's procedures
        hold its lock one at a time) goes to state ``to`` in peer storage in one step; its
        sources follow the peer's state (``source_ships_rule``). This is the grain of a
        recorded run's admin command (trace validation); the ``peer_life`` feature runs
        DisablePeerProcedure and EnablePeerProcedure stage by stage instead."""
        t.require(Budget(t, "admin").left > 0, *self.may_submit(t, p, t.peer_state[p] == want))
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        t.peer_state[p] = to

    @step(params=("peer",), fair=False, each=_toggled)
    def disable_peer(self, t: Ctx, p: int) -> None:
        """admin: the peer's state in storage goes DISABLED"""
        self.toggle(t, p, ENABLED, DISABLED)

    @step(params=("peer",), fair=False, each=_toggled)
    def enable_peer(self, t: Ctx, p: int) -> None:
        """admin: the peer's state in storage goes ENABLED"""
        self.toggle(t, p, DISABLED, ENABLED)
