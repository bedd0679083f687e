"""The steps of the table-era design (``model/table_common.py``) over the flat layout of
``specs/flat_table.py``: crashes and the sink outages here; the peer procedures in
``flat_table_procs.py``; the WALs, the sources, the SCP's claim stage, the claims, the log
cleaner and the master restart in the protocol text (``model/wal.py``, ``model/source.py``,
``model/scp.py``, ``model/claim.py``, ``model/cleaner.py``, ``model/master.py``); shared pieces
in ``flat_table_base.py``; the flat form of each mutant that overrides a step outside a
dual-form rule in ``flat_table_mutants.py``.

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
from replcheck.model.scp import AssignQueues
from replcheck.model.source import Sources
from replcheck.model.table_state import (
    ADD,
    REMOVE,
)
from replcheck.model.text import Instance, Tx, crash_instance
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


class TableSteps(Wals, Sources, Claims, AssignQueues, MasterRestart, ProcSteps, StepBase):
    """Every flat step: the client writes and sources here, the rest mixed in."""

    labels = LABELS

    # --- action instances ---------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out: list[Instance] = []
        add = out.append
        c = self.cfg
        for s in self.S:
            add(self._crash(s))
        for cl in self.CL:
            for k in range(c.sink_servers):
                add(self._sink_down(cl, k))
                add(self._sink_up(cl, k))
        for p in self.P:
            add(self._add_peer(p))
            add(self._remove_peer(p))
            out.extend(self._peer_proc(p))
            for s in self.S:
                for kind in (ADD, REMOVE):
                    add(self._refresh(p, s, kind))
        return out

    # --- client writes and WALs ---------------------------------------------------------------

    def _crash(self, s: int) -> Instance:
        """``crash``: with more than one server online."""
        return crash_instance(self, s)

    def _sink_down(self, cl: int, k: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("b", "outages")) > 0, ops.not_(get(("down", cl, k))))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "outages")] = tx[("b", "outages")] - 1
            tx[("down", cl, k)] = True

        return Instance("sink_down", (cl, k), guard, apply)

    def _sink_up(self, cl: int, k: int) -> Instance:
        def apply(ops: Any, tx: Tx) -> None:
            tx[("down", cl, k)] = False

        return Instance("sink_up", (cl, k), lambda ops, get: get(("down", cl, k)), apply)
