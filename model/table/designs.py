"""The table-era designs: ``table`` as HBase 3.x built it, and ``table-doc`` as seed 004 wrote
it. Where the two differ (reference sections 5, 7 and 9), ``table-doc`` overrides the rule:

* RemovePeerProcedure waits for the ongoing SCPs (doc) rather than the
  AssignReplicationQueuesProcedures (code), both recorded once;
* the sync-replication transition waits until every live or SCP-unfinished server has either
  refreshed or had its SCP finish (doc); the code does not wait;
* the migration lets claims start once a threshold of region servers is upgraded (30%), sending
  them only to upgraded servers (doc); the code waits until every online server is upgraded.
"""

from __future__ import annotations

from replcheck.model.config import (
    HFILE_ADD_CONFIGS,
    HFILE_CONFIGS,
    HFILE_REMOVE_CONFIGS,
    MIGRATE_CONFIGS,
    PEER_LIFE_CONFIGS,
    SERIAL_CONFIGS,
    SERIAL_LIFE_CONFIGS,
    SYNC_CONFIGS,
    SYNCUP_CONFIGS,
)
from replcheck.model.engine.step import kinds_of
from replcheck.model.features.bootstrap import NaiveRegistration
from replcheck.model.features.hfile_refs import HFileRefs
from replcheck.model.features.legacy_peer import LegacyPeerMigration
from replcheck.model.features.migrate_hfile import ZkHFileRefs
from replcheck.model.features.migration import ZkMigration
from replcheck.model.features.peer_life import PeerLifecycle
from replcheck.model.features.serial import SerialReplication
from replcheck.model.features.sync_procedure import SyncSteps
from replcheck.model.features.sync_remote import SyncRemote
from replcheck.model.features.sync_replication import SyncReplication
from replcheck.model.features.syncup import SyncUpTool
from replcheck.model.table.common import TABLE_KINDS, TableCommon

TABLE_CONFIGS = (
    "t-std",
    "t-chore",
    "t-race",
    "t-double",
    "t-add-peer",
    "t-remove-peer",
    "t-remove-zombie",
    "t-remove-starve",
    "t-multiwal",
    "t-master-restart",
    "t-bootstrap",
    *(c.name for c in PEER_LIFE_CONFIGS),
    "t-storage-faults",
    *(
        c.name
        for c in (
            *SYNC_CONFIGS,
            *SYNCUP_CONFIGS,
            *MIGRATE_CONFIGS,
            *SERIAL_CONFIGS,
            *SERIAL_LIFE_CONFIGS,
            *HFILE_CONFIGS,
            *HFILE_REMOVE_CONFIGS,
            *HFILE_ADD_CONFIGS,
        )
    ),
)


REMOTE_KINDS = ("remote_put", "remote_downgrade", "remote_ship", "remote_clean", "replay_wal")
"""The steps of sync replication's remote side (``model/features/sync_remote.py``)."""


class Table(SyncSteps, TableCommon):
    name = "table"
    summary = "HBase 3.x: hbase:replication rows, one offset per WAL group, SCP-driven claims"
    configs = TABLE_CONFIGS
    kinds = (
        *TABLE_KINDS,
        *(k for k in kinds_of(SyncReplication) if k.name == "transit_peer"),
        *(k for k in kinds_of(SyncRemote) if k.name in REMOTE_KINDS),
        *kinds_of(SyncUpTool),
        *kinds_of(ZkMigration),
        *(k for k in kinds_of(LegacyPeerMigration) if k.name == "legacy_position_write"),
        *(k for k in kinds_of(ZkHFileRefs) if k.name == "migrate_hfile_refs"),
        *kinds_of(PeerLifecycle),
        *kinds_of(SerialReplication),
        *kinds_of(HFileRefs),
    )


class TableDoc(Table):
    name = "table-doc"
    summary = "seed 004 as written: RemovePeer waits for SCPs, sync waits for SCPs, 30% upgrade"
    doc_waits_for_scps = True
    """Seed 004: "collect all the ongoing SCPs, store them as a class field"."""


class TableNaive(Table):
    """Seed 004's rejected design (``model/features/bootstrap.py``): its steps are the text's
    ``NaiveRegistration``."""

    name = "table-naive"
    summary = "seed 004's rejected design: every new WAL is recorded in the table before use"
    configs = ("t-bootstrap",)
    text = NaiveRegistration
    kinds = (
        *Table.kinds,
        *(k for k in kinds_of(NaiveRegistration) if k not in Table.kinds),
    )
