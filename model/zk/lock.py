"""``zk-lock``: failover as seeds 000 and 003 describe it, and as HBase 0.94 built it without
``multi`` (reference section 3b).

Every survivor watches the others; when one dies they race to create a ``lock`` znode under its
``/hbase/replication/rs/<dead>`` node; the winner copies the queues one by one to its own node,
naming each ``<queueId>-<dead server>``, deletes the old node, and starts one recovered source per
copied queue. The lock is a persistent znode; a chore removes locks whose holder has died
(HBASE-16144). The log cleaner looks every queue up, keeping a cache of what it found (seed
003); with ``cleaner_chore`` it runs as the master's chore, for ever, its cache refreshed by a
miss.
The steps are the protocol text's: ``LockClaims`` (``zk/claims.py``) and ``LockCleaner``
(``zk/cleaners.py``).
"""

from __future__ import annotations

from replcheck.model.engine.step import kinds_of
from replcheck.model.zk.claims import LockClaims
from replcheck.model.zk.cleaners import LockCleaner
from replcheck.model.zk.common import COMMON_KINDS, ZK_CONFIGS, ZkCommon


class ZkLock(ZkCommon):
    name = "zk-lock"
    summary = "seeds 000/003: survivors race for a lock znode, copy queues one by one"
    configs = (*ZK_CONFIGS, "chore")
    kinds = (
        *COMMON_KINDS,
        *kinds_of(LockClaims),
        *(k for k in kinds_of(LockCleaner) if k.name not in ("master_restart", "chore_clean")),
        *(k for k in kinds_of(LockCleaner) if k.name == "master_restart"),
        *(k for k in kinds_of(LockCleaner) if k.name == "chore_clean"),
    )

    # --- failover ---------------------------------------------------------------------------

    # --- log cleaner --------------------------------------------------------------------------
