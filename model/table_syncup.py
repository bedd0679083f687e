"""ReplicationSyncUp run while the source cluster is down, and the master clean-up after it (seed
004 "The ReplicationSyncUp tool"; reference section 8).
"""

from __future__ import annotations

from .action import ActionKind
from .config import Config

SYNCUP_KINDS: tuple[ActionKind, ...] = ()
SYNCUP_CONFIGS: tuple[Config, ...] = ()


class SyncUpSteps:
    """Steps mixed into the table-era designs (before TableCommon in the MRO)."""
