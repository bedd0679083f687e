"""``zk-multi``: the ZooKeeper storage of HBase 2.x (reference section 3a).

A crashed server's queues are claimed one per ZooKeeper ``multi`` (create the new queue and its
WAL znodes, delete the old ones, bump the cversion of ``/rs``), driven by the master's
ServerCrashProcedure, so a dead server is never forgotten. The claimer reads the positions before
the ``multi``; when the ``multi`` fails, someone else took the queue. The log cleaner takes an
optimistic snapshot of every queue, retrying until the cversion of ``/rs`` did not move during it.
The steps are the protocol text's: ``MultiClaims`` (``zk_claims.py``) and ``MultiCleaner``
(``zk_cleaners.py``); this class holds the action kinds and the claim's decision rule.
"""

from __future__ import annotations

from . import rules
from .action import ActionKind
from .logic import PY, dual
from .state import (
    Claim,
    State,
    WalKey,
)
from .zk_common import COMMON_KINDS, ZK_CONFIGS, ZkCommon

K = ActionKind


class ZkMulti(ZkCommon):
    name = "zk-multi"
    summary = "HBase 2.x: SCP-driven claims, one multi per queue, cversion-checked cleaner"
    configs = ZK_CONFIGS
    kinds = (
        *COMMON_KINDS,
        K("claim_read", ("server", "dead", "queue"), True, "read a dead server's queue positions"),
        K("claim_commit", ("server",), True, "the claim multi: move the queue, bump the cversion"),
        K(
            "scp_finish",
            ("dead",),
            True,
            "SCP: the dead server has no queue left; delete its znode",
        ),
        K("lose_failover_event", ("dead",), False, "a failover trigger is lost"),
        K("cleaner_start", (), False, "log cleaner: list oldWALs, begin the snapshot"),
        K("cleaner_read", ("server",), True, "log cleaner: list the queues of one /rs/<server>"),
        K(
            "cleaner_read_queue",
            ("server", "queue"),
            True,
            "log cleaner: read the WALs of one listed queue",
        ),
        K("cleaner_finish", (), True, "log cleaner: retry if the cversion moved, else decide"),
        K(
            "cleaner_delete_wal",
            ("server", "group", "index"),
            True,
            "log cleaner: delete one WAL the run decided it may delete",
        ),
        K("master_restart", (), False, "the master restarts: a cleaner run in progress is lost"),
    )

    # --- failover ---------------------------------------------------------------------------

    @dual(rules.zk_claim_applies_rule)
    def claim_applies(self, st: State, s: int, claim: Claim) -> bool:
        """The multi succeeds when every old WAL znode is still there to delete and the new queue
        does not exist yet; otherwise "someone else took the log"."""
        d, q = claim
        i = self.find_queue(st.rs[d], q.peer, q.chain)
        same = i >= 0 and {k for k, _ in st.rs[d].queues[i].wals} == {k for k, _ in q.wals}
        exists = self.find_queue(st.rs[s], q.peer, self.rule_claimed_chain(q.chain, d)) >= 0
        return rules.zk_claim_applies_rule(PY, i >= 0, same, exists)

    # --- log cleaner (HBASE-12865's fix) ------------------------------------------------------

    def listed_wals(self, st: State, i: int) -> set[WalKey]:
        """The run's candidates that listed queue ``i`` names now (none if the queue is gone
        since the listing: its end deleted it)."""
        s, peer, chain = st.cleaner.listed[i]
        node = st.rs[s]
        qi = self.find_queue(node, peer, chain)
        wals = rules.queue_wal_keys((node.queues[qi],)) if qi >= 0 else ()
        return set(wals) & set(st.cleaner.candidates)
