"""``zk-lock``: failover as seeds 000 and 003 describe it, and as HBase 0.94 built it without
``multi`` (reference section 3b).

Every survivor watches the others; when one dies they race to create a ``lock`` znode under its
``/hbase/replication/rs/<dead>`` node; the winner copies the queues one by one to its own node,
naming each ``<queueId>-<dead server>``, deletes the old node, and starts one recovered source per
copied queue. The lock is a persistent znode; a chore removes locks whose holder has died
(HBASE-16144). The log cleaner looks every queue up, keeping a cache of what it found (seed 003).
"""

from __future__ import annotations

from collections.abc import Iterator

from . import rules
from .action import ActionKind
from .config import Config
from .state import ARCHIVED, DELETED, NO_LOCK, State
from .zk_common import COMMON_KINDS, ZK_CONFIGS, ZkCommon

K = ActionKind


class ZkLock(ZkCommon):
    name = "zk-lock"
    summary = "seeds 000/003: survivors race for a lock znode, copy queues one by one"
    configs = ZK_CONFIGS
    kinds = (
        *COMMON_KINDS,
        K("lock", ("server", "dead"), True, "create /rs/<dead>/lock (the race of seed 000)"),
        K("copy_queue", ("server", "dead", "queue"), True, "copy one queue of the locked server"),
        K(
            "finish_claim",
            ("server", "dead"),
            True,
            "delete the dead server's queues, start sources",
        ),
        K("lock_cleaner", ("dead",), True, "remove a lock whose holder has died (HBASE-16144)"),
        K("clean", ("server", "group", "seq"), False, "log cleaner: TTL passed, look the WAL up"),
        K("master_restart", (), False, "the master restarts: the cleaner's cache is lost"),
    )

    # --- failover ---------------------------------------------------------------------------

    def en_lock(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d, node in enumerate(st.rs):
            if node and node.lock == NO_LOCK and not st.servers[d].alive:
                for s, srv in enumerate(st.servers):
                    if srv.alive:
                        yield (s, d)

    def do_lock(self, cfg: Config, st: State, s: int, d: int) -> State:
        """Seed 000: "they all race to create a znode called lock ... The Region Server that
        creates it successfully then transfers all the queues"."""
        return self.with_rs(st, d, st.rs[d]._replace(lock=s))

    def en_copy_queue(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d, node in enumerate(st.rs):
            if node and node.lock != NO_LOCK and st.servers[node.lock].alive:
                s = node.lock
                for qi, q in enumerate(node.queues):
                    chain = self.rule_claimed_chain(q.chain, d)
                    if not self._copied(st, s, q.peer, chain, q):
                        yield (s, d, qi)

    def _copied(self, st: State, s: int, peer: int, chain: tuple[int, ...], q) -> bool:
        i = self.find_queue(st.rs[s], peer, chain)
        if i < 0:
            return False
        have = {k for k, _ in st.rs[s].queues[i].wals}
        return all(k in have for k, _ in q.wals)

    def do_copy_queue(self, cfg: Config, st: State, s: int, d: int, qi: int) -> State:
        """Seed 000: it transfers the queues "one at a time since ZooKeeper does not support
        renaming queues", naming each with "the name of the server that failed" appended."""
        q = st.rs[d].queues[qi]
        copy = q._replace(chain=self.rule_claimed_chain(q.chain, d))
        return self.with_rs(st, s, self.put_queue(st.rs[s], copy))

    def en_finish_claim(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d, node in enumerate(st.rs):
            if node and node.lock != NO_LOCK and st.servers[node.lock].alive:
                s = node.lock
                if all(
                    self._copied(st, s, q.peer, self.rule_claimed_chain(q.chain, d), q)
                    for q in node.queues
                ):
                    yield (s, d)

    def do_finish_claim(self, cfg: Config, st: State, s: int, d: int) -> State:
        """Seed 000: "After all queues are transferred, they are deleted from the old location",
        then "one new source thread per copied queue"."""
        copied = [self.rule_claimed_chain(q.chain, d) for q in st.rs[d].queues]
        peers = [q.peer for q in st.rs[d].queues]
        st = self.with_rs(st, d, ())
        for peer, chain in zip(peers, copied, strict=True):
            i = self.find_queue(st.rs[s], peer, chain)
            if i >= 0:
                st = self.start_recovered(cfg, st, s, st.rs[s].queues[i])
        return st

    def en_lock_cleaner(self, cfg: Config, st: State) -> Iterator[tuple]:
        for d, node in enumerate(st.rs):
            if node and node.lock != NO_LOCK and not st.servers[node.lock].alive:
                yield (d,)

    def do_lock_cleaner(self, cfg: Config, st: State, d: int) -> State:
        """HBASE-16144: a lock whose holder died is removed, so another survivor can claim."""
        return self.with_rs(st, d, st.rs[d]._replace(lock=NO_LOCK))

    # --- log cleaner --------------------------------------------------------------------------

    def en_clean(self, cfg: Config, st: State) -> Iterator[tuple]:
        cache = st.cleaner.cache
        for wal in st.wals:
            if wal and wal.place == ARCHIVED and wal.key not in cache:
                yield wal.key

    def en_master_restart(self, cfg: Config, st: State) -> Iterator[tuple]:
        if cfg.master_restarts:
            yield ()

    def do_master_restart(self, cfg: Config, st: State) -> State:
        """The master restarts: the log cleaner's cache was in its memory."""
        return st._replace(cleaner=st.cleaner._replace(cache=()))

    def do_clean(self, cfg: Config, st: State, s: int, g: int, seq: int) -> State:
        """Seed 003: "if a log is passed its TTL, the cleaning thread will lookup every queue until
        it finds the log (while caching the ones it finds). If it's not found, the log will be
        deleted. The next time it has to look for a log, it will first use its cache.\""""
        key = (s, g, seq)
        queued = rules.queue_wal_keys(q for node in st.rs if node for q in node.queues)
        st = st._replace(cleaner=st.cleaner._replace(cache=queued))
        if rules.may_delete_wal(key, queued):
            wal = st.wals[cfg.slot(key)]
            st = self.with_wal(cfg, st, wal._replace(place=DELETED))
        return st
