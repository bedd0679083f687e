"""The table era's steps over the flat layout of ``model/table_layout.py``: every component of
the protocol text composed into ``TableSteps`` (``model/wal.py``, ``model/source.py``,
``model/sinks.py``, ``model/scp.py``, ``model/claim.py``, ``model/peers.py``,
``model/peer_procs.py``, ``model/cleaner.py``, ``model/master.py``, ``model/crashes.py``); shared
pieces in ``table_seams.py``.

Decision rules the design has in dual form are called through ``generic_of`` (``self.rule``): the
edit filter, the live-server read and the deletion rule of the log cleaner, the claim's guard
flag, AddPeer's fence, the claimer's peer check. What the design decides outside a dual-form rule
(``rule_owed``, ``rule_add_missing``, ``rule_recovered_done``, ``rule_recovered_wals``,
``rule_removal_waits_for``, ``rule_removal_pending``) is a method of the text of the same name,
which a mutant overrides.
"""

from __future__ import annotations

from replcheck.model.claim import Claims
from replcheck.model.cleaner import LogCleaner
from replcheck.model.crashes import Crashes
from replcheck.model.master import MasterRestart
from replcheck.model.peer_procs import PeerProcedures
from replcheck.model.peers import PeerAdmin
from replcheck.model.scp import AssignQueues
from replcheck.model.sinks import SinkServers
from replcheck.model.source import Sources
from replcheck.model.wal import Wals

from .table_seams import StepBase


class TableSteps(
    Wals,
    Sources,
    SinkServers,
    Claims,
    AssignQueues,
    PeerAdmin,
    PeerProcedures,
    MasterRestart,
    LogCleaner,
    Crashes,
    StepBase,
):
    """Every step: the protocol text's components."""
