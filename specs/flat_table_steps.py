"""The steps of the table-era design (``model/table_common.py``) over the flat layout of
``specs/flat_table.py`` that are not in the protocol text yet: crashes here, the peer procedures
and their refreshes in ``flat_table_procs.py``; shared pieces in ``flat_table_base.py``; the flat
form of each mutant that overrides such a step outside a dual-form rule in
``flat_table_mutants.py``. The WALs, the sources, the sink outages, the SCP's claim stage, the
claims, the peer commands, the log cleaner and the master restart are in the protocol text
(``model/wal.py``, ``model/source.py``, ``model/sinks.py``, ``model/scp.py``, ``model/claim.py``,
``model/peers.py``, ``model/cleaner.py``, ``model/master.py``), composed into ``TableSteps``.

Each ``_name`` method builds the action instances of the explicit step ``en_name``/``do_name`` of
the same name, with its structural choices (which server, shipper slot, head WAL, queue row,
claim child, target assignment, procedure stage) made parameters and fixed by the guard. Decision
rules the design has in dual form are called through ``generic_of`` (``self.rule``): the edit
filter, the live-server read and the deletion rule of the log cleaner, the claim's guard flag,
AddPeer's fence, the claimer's peer check. The storage rules of ``table_rules`` (the claim guard,
``shouldReplicate``, the start position, the barrier) are called as they are. What the design
decides outside a dual-form rule (``rule_owed``, ``rule_add_missing``, ``rule_recovered_done``,
``rule_recovered_wals``, ``rule_removal_waits_for``, ``rule_removal_pending``) is mirrored in a
method of the same name, which a mutant's flat class overrides.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.claim import Claims
from replcheck.model.master import MasterRestart
from replcheck.model.peers import PeerAdmin
from replcheck.model.scp import AssignQueues
from replcheck.model.sinks import SinkServers
from replcheck.model.source import Sources
from replcheck.model.table_state import (
    ADD,
    REMOVE,
)
from replcheck.model.text import Instance, crash_instance
from replcheck.model.wal import Wals

from .flat_table_base import StepBase
from .flat_table_procs import ProcSteps

LABELS: dict[str, Any] = {
    "peer_proc": lambda text, st, get, a: a[:1],
    "refresh": lambda text, st, get, a: a[:2],
}
"""How the explicit model names each step's action (``TextModel``): an instance's structural
arguments made into the action's, reading the readable state ``st`` (and the slots, ``get``) where
the action names a position in it (a shipper's index on its server, a claim child's in its
SCP)."""


class TableSteps(
    Wals, Sources, SinkServers, Claims, AssignQueues, PeerAdmin, MasterRestart, ProcSteps, StepBase
):
    """Every flat step: the client writes and sources here, the rest mixed in."""

    labels = LABELS

    # --- action instances ---------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out: list[Instance] = []
        add = out.append
        for s in self.S:
            add(self._crash(s))
        for p in self.P:
            out.extend(self._peer_proc(p))
            for s in self.S:
                for kind in (ADD, REMOVE):
                    add(self._refresh(p, s, kind))
        return out

    # --- crashes ---------------------------------------------------------------------------------

    def _crash(self, s: int) -> Instance:
        """``crash``: with more than one server online."""
        return crash_instance(self, s)
