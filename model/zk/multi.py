"""``zk-multi``: the ZooKeeper storage of HBase 2.x (reference section 3a).

A crashed server's queues are claimed one per ZooKeeper ``multi`` (create the new queue and its
WAL znodes, delete the old ones, bump the cversion of ``/rs``), driven by the master's
ServerCrashProcedure, so a dead server is never forgotten. The claimer reads the positions before
the ``multi``; when the ``multi`` fails, someone else took the queue. The log cleaner takes an
optimistic snapshot of every queue, retrying until the cversion of ``/rs`` did not move during it.
The steps are the protocol text's: ``MultiClaims`` (``zk/claims.py``) and ``MultiCleaner``
(``zk/cleaners.py``); this class holds the action kinds and the claim's decision rule.
"""

from __future__ import annotations

from replcheck.model.common import rules
from replcheck.model.common.state import Claim, State, WalKey
from replcheck.model.engine.logic import PY, dual
from replcheck.model.engine.step import kinds_of
from replcheck.model.zk.claims import MultiClaims
from replcheck.model.zk.cleaners import MultiCleaner
from replcheck.model.zk.common import COMMON_KINDS, ZK_CONFIGS, ZkCommon


class ZkMulti(ZkCommon):
    name = "zk-multi"
    summary = "HBase 2.x: SCP-driven claims, one multi per queue, cversion-checked cleaner"
    configs = (*ZK_CONFIGS, "chore")
    kinds = (
        *COMMON_KINDS,
        *kinds_of(MultiClaims),
        *(k for k in kinds_of(MultiCleaner) if k.name != "master_restart"),
        *(k for k in kinds_of(MultiCleaner) if k.name == "master_restart"),
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
