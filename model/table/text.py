"""The table era's steps over the flat layout of ``model/table/layout.py``: every component of
the protocol text composed into ``TableSteps`` (``model/table/wal.py``, ``model/table/source.py``,
``model/common/sinks.py``, ``model/table/scp.py``, ``model/table/claim.py``,
``model/table/peers.py``, ``model/table/peer_procs.py``, ``model/table/cleaner.py``,
``model/table/master.py``, ``model/common/crashes.py``); shared pieces in ``table/seams.py``.

Decision rules the design has in dual form are called through ``generic_of`` (``self.rule``): the
edit filter, the live-server read and the deletion rule of the log cleaner, the claim's guard
flag, AddPeer's fence, the claimer's peer check. What the design decides outside a dual-form rule
(``rule_owed``, ``rule_add_missing``, ``rule_recovered_done``, ``rule_recovered_wals``,
``rule_removal_waits_for``, ``rule_removal_pending``) is a method of the text of the same name,
which a mutant overrides.
"""

from __future__ import annotations

from replcheck.model.common.crashes import Crashes
from replcheck.model.common.sinks import SinkServers
from replcheck.model.table.claim import Claims
from replcheck.model.table.cleaner import LogCleaner
from replcheck.model.table.master import MasterRestart
from replcheck.model.table.peer_procs import PeerProcedures
from replcheck.model.table.peers import PeerAdmin
from replcheck.model.table.scp import AssignQueues
from replcheck.model.table.seams import StepBase
from replcheck.model.table.source import Sources
from replcheck.model.table.wal import Wals


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
