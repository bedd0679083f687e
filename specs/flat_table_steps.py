"""The steps of the table-era design (``model/table_common.py``) over the flat layout of
``specs/flat_table.py``: the client writes, WAL rolls and crashes here; the peer procedures and
the master restart in ``flat_table_procs.py``; the sources, the SCP's claim stage, the claims and
the log cleaner in the protocol text (``model/source.py``, ``model/scp.py``, ``model/claim.py``,
``model/cleaner.py``); shared pieces in ``flat_table_base.py``; the flat form
of each mutant that overrides a step outside a dual-form rule in ``flat_table_mutants.py``.

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

from replcheck.model import rules
from replcheck.model.claim import Claims
from replcheck.model.scp import AssignQueues
from replcheck.model.source import Sources
from replcheck.model.state import ARCHIVED, LIVE_DIR
from replcheck.model.table_state import (
    ADD,
    NO_SOURCE,
    REMOVE,
)
from replcheck.model.text import Instance, Tx, crash_instance

from .flat_table_base import StepBase
from .flat_table_procs import ProcSteps

LABELS: dict[str, Any] = {
    "put": lambda text, st, get, a: a[:3],
    "roll": lambda text, st, get, a: a[:2],
    "peer_proc": lambda text, st, get, a: a[:1],
    "refresh": lambda text, st, get, a: a[:2],
}
"""How the explicit model names each step's action (``TextModel``): an instance's structural
arguments made into the action's, reading the readable state ``st`` (and the slots, ``get``) where
the action names a position in it (a shipper's index on its server, a claim child's in its
SCP)."""


class TableSteps(Sources, Claims, AssignQueues, ProcSteps, StepBase):
    """Every flat step: the client writes and sources here, the rest mixed in."""

    labels = LABELS

    # --- action instances ---------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out: list[Instance] = []
        add = out.append
        c = self.cfg
        for s in self.S:
            for g in self.G:
                for q in self.Q:
                    for kind in c.edit_kinds:
                        for j in range(self.E):
                            add(self._put(s, g, q, j, kind))
                    if q + 1 < c.wals_per_server:
                        add(self._roll(s, g, q))
            add(self._crash(s))
        for w in self.W:
            add(self._archive(w))
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
        if c.master_restarts:
            add(self._master_restart())
        return out

    # --- client writes and WALs ---------------------------------------------------------------

    def rule_owed(self, ops: Any, get: Any, s: int, kind: int, p: int) -> Any:
        """``rule_owed``: a peer the server has a source for whose filter accepts the edit (no
        sync peer here, so no STANDBY view)."""
        return ops.and_(get(("known", s, p)), rules.replicable_rule(ops, kind, (0,), p + 1))

    def _put(self, s: int, g: int, q: int, j: int, kind: int) -> Instance:
        """``put``: a client edit appended to the current WAL of group ``g``."""
        w = self.slot(s, g, q)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "puts")) > 0,
                get(("alive", s)),
                get(("cur", s, g)) == q,
                get(("wn", w)) == j,
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "puts")] = tx[("b", "puts")] - 1
            tx[("wkind", w, j)] = kind
            for p in self.P:
                tx[("wowed", w, j, p)] = self.rule_owed(ops, tx.__getitem__, s, kind, p)
            tx[("wn", w)] = j + 1

        return Instance("put", (s, g, kind, q, j), guard, apply)

    def _roll(self, s: int, g: int, q: int) -> Instance:
        """``roll``: the old WAL closes, the new one goes to every normal source, in memory."""
        old, new = self.slot(s, g, q), self.slot(s, g, q + 1)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("alive", s)), get(("cur", s, g)) == q)

        def apply(ops: Any, tx: Tx) -> None:
            tx[("wclosed", old)] = True
            tx[("wex", new)] = True
            tx[("wn", new)] = 0
            tx[("wclosed", new)] = False
            tx[("wplace", new)] = LIVE_DIR
            for sk in self.sh_keys:
                if sk[0] == s and sk[2] == NO_SOURCE and sk[3] == g:
                    tx.when(tx[("sh", *sk)], ("shw", *sk, q + 1), True)
            tx[("cur", s, g)] = q + 1
            self.after_roll(ops, tx, s, g, q)

        return Instance("roll", (s, g, q), guard, apply)

    def after_roll(self, ops: Any, tx: Tx, s: int, g: int, q: int) -> None:
        """What else a roll of ``s``'s group ``g`` from sequence ``q`` writes (a version-2
        server's ZooKeeper queues: ``model/migration.py``)."""

    def _crash(self, s: int) -> Instance:
        """``crash``: with more than one server online."""
        return crash_instance(self, s)

    def _archive(self, w: int) -> Instance:
        """``archive``: a closed WAL of a live server moves to oldWALs."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("wex", w)),
                get(("wclosed", w)),
                get(("wplace", w)) == LIVE_DIR,
                get(("alive", self.key[w][0])),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("wplace", w)] = ARCHIVED

        return Instance("archive", self.key[w], guard, apply)

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
