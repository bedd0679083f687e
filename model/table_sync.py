"""Sync replication (seed 004 "About sync replication"; reference section 7):
TransitPeerSyncReplicationStateProcedure, draining sources for STANDBY, the refusal of recovered
sources, the remote WAL directory.
"""

from __future__ import annotations

from .action import ActionKind
from .config import Config

SYNC_KINDS: tuple[ActionKind, ...] = ()
SYNC_CONFIGS: tuple[Config, ...] = ()


class SyncSteps:
    """Steps mixed into the table-era designs (before TableCommon in the MRO)."""
