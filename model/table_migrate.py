"""The ZooKeeper-to-table migration and rolling upgrade (seed 004 "About data migration and rolling
upgrading"; reference section 9).
"""

from __future__ import annotations

from .action import ActionKind
from .config import Config

MIGRATE_KINDS: tuple[ActionKind, ...] = ()
MIGRATE_CONFIGS: tuple[Config, ...] = ()


class MigrationSteps:
    """Steps mixed into the table-era designs (before TableCommon in the MRO)."""
