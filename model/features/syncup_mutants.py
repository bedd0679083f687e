"""Table-era mutants of ReplicationSyncUp (``features/syncup.py``): each brings the tool's text with
one rule overridden."""

from __future__ import annotations

from replcheck.model.features import syncup
from replcheck.model.table.designs import Table


class SyncUpNoAddMissing(Table):
    name = "table/syncup-no-add-missing"
    mutant_of = "table"
    overrides = "rule_syncup_add_missing"
    bug = (
        "ReplicationSyncUp does not add the missing queues: a server that never persisted an "
        "offset has no row, so the tool does not replicate its WALs, yet it leaves a marker and "
        "the master's REMOVE_QUEUES finishes the server's SCP with nothing claimed (lost edits)"
    )
    configs = ("t-syncup",)
    text = syncup.NoAddMissing


class SyncUpSkipsOldWals(Table):
    name = "table/syncup-skips-oldwals"
    mutant_of = "table"
    overrides = "rule_syncup_wals"
    bug = (
        "ReplicationSyncUp's claimed queues list only the source server's WALs/ directory, not "
        "oldWALs/: a WAL already split (or archived) is not replicated by the tool, and the "
        "master then drops the queue because of the marker (lost edits)"
    )
    configs = ("t-syncup",)
    text = syncup.SkipsOldWals


class SyncUpRerunSkipsMarked(Table):
    name = "table/syncup-rerun-skips-marked"
    mutant_of = "table"
    overrides = "rule_syncup_claims"
    bug = (
        "a ReplicationSyncUp rerun takes a server's marker file as 'already replicated' and "
        "skips its queues; but a run writes the marker before it claims that server's queues, "
        "so after a run that died part-way the rerun leaves them unreplicated and the master "
        "removes them (lost edits)"
    )
    configs = ("t-syncup-rerun",)
    text = syncup.RerunSkipsMarked


SYNCUP_MUTANTS: tuple[type, ...] = (
    SyncUpNoAddMissing,
    SyncUpSkipsOldWals,
    SyncUpRerunSkipsMarked,
)
