"""What every ZooKeeper-era design shares (seeds 001, 002, 003; reference section 10):
the life of an edit, WAL rolls and archiving, sources reading, filtering and shipping,
positions, sink clusters, peers and the replication state znode, and clusters replicating
onward (master-master, cyclic).

The failover (how a dead server's queues move) and the log cleaner differ per design, in
``zk_lock.py`` and ``zk_multi.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import rules
from .action import ActionKind
from .config import Config
from .design import Design
from .logic import PY, dual
from .relays import RELAY_KINDS, Relays
from .sink_choice import subsets
from .sink_outages import SinkOutages
from .state import (
    ABSENT,
    ARCHIVED,
    DELETED,
    DISABLED,
    EMPTY_SINK,
    ENABLED,
    IDLE_CLEANER,
    LIVE_DIR,
    NO_LOCK,
    REMOVED,
    Budget,
    Edit,
    Queue,
    Relay,
    RsNode,
    Server,
    Shipper,
    State,
    Wal,
    WalKey,
    bits,
    insert_sorted,
    set_at,
    sort_queue_wals,
)
from .zombies import ZOMBIE_KINDS, Zombies

K = ActionKind

ZK_CONFIGS: tuple[str, ...] = (
    "std",
    "cleaner-race",
    "race",
    "double-failure",
    "peers",
    "filtering",
    "master-master",
    "cyclic",
    "sink-outage",
    "zk-faults",
    "hyphen-hosts",
    "multiwal",
)
"""The standard configurations both ZooKeeper-era designs are checked in."""

COMMON_KINDS: tuple[ActionKind, ...] = (
    K("put", ("server", "group", "kind"), False, "a client Put/Delete appended to the current WAL"),
    K(
        "roll",
        ("server", "group"),
        False,
        "log roll: the new WAL is queued for every peer, then used",
    ),
    K("roll_zk_fail", ("server", "group"), False, "the ZooKeeper write of a roll fails"),
    K("register_wal", ("server", "group", "seq"), True, "queue a WAL that is already in use"),
    K("crash", ("server",), False, "a region server dies (its ZooKeeper session expires)"),
    K("join", ("server",), False, "a new region server starts: its rs znode and first WAL"),
    K(
        "died_starting",
        ("server",),
        False,
        "a starting region server dies before it made its rs znode (trace validation only)",
    ),
    K("archive", ("server", "group", "seq"), False, "a closed WAL is moved to oldWALs"),
    K("ship", ("server", "shipper", "sink"), True, "read a batch, filter it, ship it to a sink"),
    K("persist", ("server", "shipper"), True, "write the shipped position to the WAL's znode"),
    K("advance", ("server", "shipper"), True, "end of a WAL with a newer one queued: drop it"),
    K("finish", ("server", "shipper"), True, "a recovered shipper read its last WAL: drop it"),
    K("skip_missing", ("server", "shipper"), True, "the WAL cannot be found: skip it"),
    K(
        "drop_claimed_queue",
        ("server", "queue"),
        True,
        "a claimer deletes a claimed queue whose peer is gone (removeQueue)",
    ),
    K("reselect_sinks", ("server", "peer", "subset"), True, "every chosen sink is down: pick anew"),
    K("sink_down", ("cluster", "sink"), False, "a sink region server stops answering"),
    K("sink_up", ("cluster", "sink"), True, "a sink region server answers again"),
    K("add_peer", ("peer",), False, "admin: add_peer"),
    K("remove_peer", ("peer",), False, "admin: remove_peer"),
    K("disable_peer", ("peer",), False, "admin: disable_peer (peer-state znode)"),
    K("enable_peer", ("peer",), False, "admin: enable_peer (peer-state znode)"),
    K("toggle_replication", (), False, "admin: flip the /hbase/replication/state znode"),
    K("peer_sync", ("server", "peer"), True, "a region server reacts to a peers-znode change"),
    *RELAY_KINDS,
    *ZOMBIE_KINDS,
)


class ZkCommon(SinkOutages, Relays, Zombies, Design):
    """Shared steps of the ZooKeeper-era designs."""

    era = "zk"

    def __init__(self) -> None:
        super().__init__()
        self._owner_cache: dict[tuple, int | None] = {}

    # --- initial state -------------------------------------------------------------------------

    def init(self, cfg: Config) -> State:
        wals: list = [()] * cfg.wal_slots
        running = cfg.servers - cfg.joins
        for s in range(running):
            for g in range(cfg.wal_groups):
                wals[cfg.slot((s, g, 0))] = Wal((s, g, 0), (), False, LIVE_DIR)
        initial = tuple(range(cfg.initial_peers))
        known = sum(1 << p for p in initial)
        servers, rs = [], []
        full = (1 << cfg.sink_subset) - 1
        for s in range(cfg.servers):
            current = (0,) * cfg.wal_groups
            if s >= running:
                rs.append(())
                servers.append(Server(False, current, 0, 0, (), (full,) * cfg.peers, (), ()))
                continue
            rs.append(RsNode(NO_LOCK, tuple(self.new_queue(cfg, s, p, current) for p in initial)))
            shippers = tuple(sh for p in initial for sh in self.new_shippers(cfg, s, p, current))
            servers.append(Server(True, current, known, 0, shippers, (full,) * cfg.peers, (), ()))
        relays = tuple(
            Relay((), (0,) * len(cfg.outbound(c))) if c and cfg.outbound(c) else ()
            for c in range(cfg.clusters)
        )
        return State(
            servers=tuple(servers),
            wals=tuple(wals),
            rs=tuple(rs),
            peers=tuple(ENABLED if p < cfg.initial_peers else ABSENT for p in range(cfg.peers)),
            replication_on=True,
            sinks=(EMPTY_SINK,) * cfg.clusters,
            relays=relays,
            cleaner=IDLE_CLEANER,
            failover=0,
            budget=Budget(
                cfg.crashes,
                cfg.sink_outages,
                cfg.admin_ops,
                cfg.zk_faults,
                cfg.foreign_edits,
                cfg.edits,
                cfg.cleaner_runs,
            ),
        )

    @staticmethod
    def new_queue(cfg: Config, s: int, peer: int, current: tuple[int, ...]) -> Queue:
        """A new normal queue: "when a source is instantiated, it contains the current WAL"."""
        return Queue(peer, (), tuple(((s, g, seq), 0) for g, seq in enumerate(current)))

    @staticmethod
    def new_shippers(cfg: Config, s: int, peer: int, current: tuple[int, ...]) -> list[Shipper]:
        return [Shipper(peer, (), g, ((s, g, seq),), 0) for g, seq in enumerate(current)]

    # --- decision rules a design may get wrong --------------------------------------------------

    @dual(rules.replicable_rule)
    def rule_ships(self, edit: Edit, target: int) -> bool:
        """The source's filter: keep only edits replicable to the target cluster."""
        return rules.edit_replicable(edit, target)

    @dual(rules.parse_zk_queue_id_rule)
    def rule_parse_queue_id(self, cfg: Config, text: str) -> tuple[str, list[str]]:
        return rules.parse_queue_id(cfg, text)

    def rule_locate(self, cfg: Config, st: State, s: int, sh: Shipper, key: WalKey) -> bool:
        """Can the reader open this WAL? It looks in oldWALs and in the WAL directory of the
        server the queue id names; an archived WAL is seen at its new path (seed 001)."""
        wal = st.wals[cfg.slot(key)]
        if not wal or wal.place == DELETED:
            return False
        if wal.place == ARCHIVED:
            return True
        return self.wal_owner(cfg, s, sh) == key[0]

    def rule_order_wals(self, cfg: Config, keys: list[WalKey]) -> tuple[WalKey, ...]:
        """A recovered source reads a group's WALs oldest first (by timestamp)."""
        return tuple(sorted(keys, key=rules.wal_timestamp))

    @dual(rules.claimed_chain_rule)
    def rule_claimed_chain(self, chain: tuple[int, ...], dead: int) -> tuple[int, ...]:
        """The claimed queue's id appends the dead server's name (seed 000)."""
        return rules.claimed_chain_rule(PY, chain, dead)

    @dual(rules.drop_claimed_queue_rule)
    def rule_drop_claimed_queue(self, st: State, queue: Queue) -> bool:
        """A claimed queue whose peer has been removed is deleted, not replicated (HBASE-17077)."""
        return rules.drop_claimed_queue_rule(PY, st.peers[queue.peer] == REMOVED)

    @dual(rules.zk_start_position_rule)
    def rule_start_position(self, queue: Queue, key: WalKey) -> int:
        """A recovered source starts reading its first WAL at the position in ZooKeeper."""
        return rules.zk_start_position_rule(PY, dict(queue.wals)[key])

    def wal_owner(self, cfg: Config, s: int, sh: Shipper) -> int | None:
        if not sh.chain:
            return s
        key = (sh.peer, sh.chain)
        if key not in self._owner_cache:
            self._owner_cache[key] = rules.queue_wal_owner(
                cfg, sh.peer, sh.chain, s, parse=self.rule_parse_queue_id
            )
        return self._owner_cache[key]

    # --- helpers ---------------------------------------------------------------------------------

    @staticmethod
    def with_server(st: State, s: int, srv: Server) -> State:
        return st._replace(servers=set_at(st.servers, s, srv))

    @staticmethod
    def with_rs(st: State, s: int, node: RsNode | tuple[()]) -> State:
        return st._replace(rs=set_at(st.rs, s, node))

    @staticmethod
    def with_wal(cfg: Config, st: State, wal: Wal) -> State:
        return st._replace(wals=set_at(st.wals, cfg.slot(wal.key), wal))

    @staticmethod
    def find_queue(node: RsNode | tuple[()], peer: int, chain: tuple[int, ...]) -> int:
        if node:
            for i, q in enumerate(node.queues):
                if q.peer == peer and q.chain == chain:
                    return i
        return -1

    @staticmethod
    def put_queue(node: RsNode | tuple[()], queue: Queue) -> RsNode:
        """Create the queue znode, or add its WALs to an existing znode of the same name."""
        if not node:
            node = RsNode(NO_LOCK, ())
        i = ZkCommon.find_queue(node, queue.peer, queue.chain)
        if i < 0:
            return node._replace(queues=insert_sorted(node.queues, queue))
        old = node.queues[i]
        merged = dict(old.wals)
        for key, pos in queue.wals:
            merged.setdefault(key, pos)
        new = old._replace(wals=sort_queue_wals(merged.items()))
        return node._replace(queues=set_at(node.queues, i, new))

    def owed_mask(
        self, cfg: Config, st: State, srv: Server, kind: int, ids: tuple[int, ...]
    ) -> int:
        """The peers an edit appended now is owed to: those the server replicates to, while
        replication is on, that should receive it."""
        if not st.replication_on:
            return 0
        mask = 0
        for p in bits(srv.known):
            if rules.replicable(kind, ids, p + 1):
                mask |= 1 << p
        return mask

    def append(self, cfg: Config, st: State, s: int, g: int, kind: int, ids, uid=None) -> State:
        srv = st.servers[s]
        key = (s, g, srv.current[g])
        wal = st.wals[cfg.slot(key)]
        uid = uid if uid is not None else (0, s, g, key[2], len(wal.entries))
        edit = Edit(uid, kind, ids, self.owed_mask(cfg, st, srv, kind, ids))
        return self.with_wal(cfg, st, wal._replace(entries=(*wal.entries, edit)))

    def start_recovered(self, cfg: Config, st: State, s: int, queue: Queue) -> State:
        """One recovered shipper per WAL group of a claimed queue, starting at its position; a
        queue whose peer is gone starts none: the claimer deletes it next, in a write of its own
        (``drop_claimed_queue``; HBASE-17077)."""
        srv = st.servers[s]
        if self.rule_drop_claimed_queue(st, queue):
            drops = tuple(sorted({*srv.drops, (queue.peer, queue.chain)}))
            return self.with_server(st, s, srv._replace(drops=drops))
        new = list(srv.shippers)
        for g in range(cfg.wal_groups):
            keys = [k for k, _ in queue.wals if k[1] == g]
            if not keys:
                continue
            ordered = self.rule_order_wals(cfg, keys)
            pos = self.rule_start_position(queue, ordered[0])
            new.append(Shipper(queue.peer, queue.chain, g, ordered, pos))
        return self.with_server(st, s, srv._replace(shippers=tuple(sorted(new))))

    def en_drop_claimed_queue(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            for i in range(len(srv.drops)):
                yield (s, i)

    def do_drop_claimed_queue(self, cfg: Config, st: State, s: int, i: int) -> State:
        """``removeQueue(claimedId)``: the claimed queue of a peer that is gone is deleted, in a
        write after the claim's own (reference section 4: "if getPeer(peerId) is not oldPeer:
        removeQueue(claimedId)"). A cleaner reading in between finds the queue."""
        srv = st.servers[s]
        peer, chain = srv.drops[i]
        st = self.with_server(st, s, srv._replace(drops=srv.drops[:i] + srv.drops[i + 1 :]))
        return self.drop_queue(st, s, peer, chain)

    def drop_queue(self, st: State, s: int, peer: int, chain: tuple[int, ...]) -> State:
        node = st.rs[s]
        i = self.find_queue(node, peer, chain)
        if i < 0:
            return st
        return self.with_rs(st, s, node._replace(queues=node.queues[:i] + node.queues[i + 1 :]))

    def drop_head(self, cfg: Config, st: State, s: int, i: int) -> State:
        """Remove the head WAL of shipper ``i`` from its queue znode and from memory; a recovered
        shipper past its last WAL ends, and the last one of a queue deletes the queue znode."""
        srv = st.servers[s]
        sh = srv.shippers[i]
        head = sh.wals[0]
        node = st.rs[s]
        qi = self.find_queue(node, sh.peer, sh.chain)
        if qi >= 0:
            q = node.queues[qi]
            q = q._replace(wals=tuple((k, p) for k, p in q.wals if k != head))
            node = node._replace(queues=set_at(node.queues, qi, q))
            st = self.with_rs(st, s, node)
        if not sh.chain and len(sh.wals) == 1:
            return st
        if len(sh.wals) > 1:
            nxt = sh._replace(wals=sh.wals[1:], pos=0)
            return self.with_server(st, s, srv._replace(shippers=set_at(srv.shippers, i, nxt)))
        rest = srv.shippers[:i] + srv.shippers[i + 1 :]
        st = self.with_server(st, s, srv._replace(shippers=rest))
        if not any(x.peer == sh.peer and x.chain == sh.chain for x in rest):
            st = self.drop_queue(st, s, sh.peer, sh.chain)
        return st

    def head(self, cfg: Config, st: State, sh: Shipper) -> Wal | None:
        if not sh.wals:
            return None
        return st.wals[cfg.slot(sh.wals[0])] or None

    # --- client writes and WALs -------------------------------------------------------------------

    def en_put(self, cfg: Config, st: State) -> Iterator[tuple]:
        if not st.budget.puts:
            return
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            for g, seq in enumerate(srv.current):
                wal = st.wals[cfg.slot((s, g, seq))]
                if len(wal.entries) < cfg.edits_per_wal:
                    for kind in cfg.edit_kinds:
                        yield (s, g, kind)

    def do_put(self, cfg: Config, st: State, s: int, g: int, kind: int) -> State:
        st = st._replace(budget=st.budget._replace(puts=st.budget.puts - 1))
        return self.append(cfg, st, s, g, kind, (0,))

    def en_roll(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for g, seq in enumerate(srv.current):
                    if seq + 1 < cfg.wals_per_server:
                        yield (s, g)

    def do_roll(self, cfg: Config, st: State, s: int, g: int) -> State:
        """Seed 001: "the new file is added to the queue of each slave cluster znode just before
        it is made available", so every source knows of it before any edit goes in."""
        key = (s, g, st.servers[s].current[g] + 1)
        st = self.register_wal(cfg, st, s, key)
        return self.switch_wal(cfg, st, s, g, key)

    def register_wal(self, cfg: Config, st: State, s: int, key: WalKey) -> State:
        """Add a WAL to every normal queue of its server, in ZooKeeper and in memory."""
        srv = st.servers[s]
        node = st.rs[s]
        if node:
            queues = tuple(
                q._replace(wals=sort_queue_wals((*q.wals, (key, 0)))) if not q.chain else q
                for q in node.queues
            )
            st = self.with_rs(st, s, node._replace(queues=queues))
        shippers = tuple(
            sh._replace(wals=(*sh.wals, key)) if not sh.chain and sh.group == key[1] else sh
            for sh in srv.shippers
        )
        unregistered = tuple(k for k in srv.unregistered if k != key)
        return self.with_server(st, s, srv._replace(shippers=shippers, unregistered=unregistered))

    def en_register_wal(self, cfg: Config, st: State) -> Iterator[tuple]:
        for srv in st.servers:
            if srv.alive:
                yield from srv.unregistered

    def do_register_wal(self, cfg: Config, st: State, s: int, g: int, seq: int) -> State:
        """Register a WAL that is already in use (only a mutant ever leaves one unregistered)."""
        return self.register_wal(cfg, st, s, (s, g, seq))

    def switch_wal(self, cfg: Config, st: State, s: int, g: int, key: WalKey) -> State:
        srv = st.servers[s]
        old = st.wals[cfg.slot((s, g, srv.current[g]))]
        st = self.with_wal(cfg, st, old._replace(closed=True))
        st = self.with_wal(cfg, st, Wal(key, (), False, LIVE_DIR))
        return self.with_server(st, s, srv._replace(current=set_at(srv.current, g, key[2])))

    def en_roll_zk_fail(self, cfg: Config, st: State) -> Iterator[tuple]:
        if st.budget.zk_faults:
            yield from self.en_roll(cfg, st)

    def do_roll_zk_fail(self, cfg: Config, st: State, s: int, g: int) -> State:
        """The new WAL cannot be added to the queues: the region server aborts and the roll fails,
        so no edit ever goes into an untracked WAL (the fix of HBASE-3515)."""
        st = st._replace(budget=st.budget._replace(zk_faults=st.budget.zk_faults - 1))
        return self.kill(cfg, st, s)

    def en_crash(self, cfg: Config, st: State) -> Iterator[tuple]:
        """The checkers keep one server alive (a cluster with none takes no step a crash budget
        is better spent on); a recorded run can lose them all at once (a kill while another
        server's session expires), which trace validation (``zombies``) allows."""
        if st.budget.crashes and (sum(srv.alive for srv in st.servers) > 1 or cfg.zombies):
            for s, srv in enumerate(st.servers):
                if srv.alive:
                    yield (s,)

    def do_crash(self, cfg: Config, st: State, s: int) -> State:
        st = st._replace(budget=st.budget._replace(crashes=st.budget.crashes - 1))
        return self.kill(cfg, st, s)

    def en_join(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s in range(cfg.servers - cfg.joins, cfg.servers):
            if not st.servers[s].alive and not st.wals[cfg.slot((s, 0, 0))]:
                yield (s,)

    def do_join(self, cfg: Config, st: State, s: int) -> State:
        """A region server that was not running starts: it opens its first WAL and creates its
        znode under ``/hbase/replication/rs``; it learns the peers afterwards (``peer_sync``)."""
        for g in range(cfg.wal_groups):
            st = self.with_wal(cfg, st, Wal((s, g, 0), (), False, LIVE_DIR))
        st = self.rs_child_created(self.with_rs(st, s, RsNode(NO_LOCK, ())))
        return self.with_server(st, s, st.servers[s]._replace(alive=True))

    def rs_child_created(self, st: State) -> State:
        """A znode was created under ``/hbase/replication/rs`` (its cversion moves)."""
        return st

    def en_died_starting(self, cfg: Config, st: State) -> Iterator[tuple]:
        """Only with the configuration's ``zombies`` (trace validation: a recorded run's server
        can go live, be chosen as a fault's victim and die before it creates its znode under
        ``/hbase/replication/rs``, which HBase creates with the server's first queue)."""
        if not cfg.zombies:
            return
        for s in range(cfg.servers - cfg.joins, cfg.servers):
            if not st.servers[s].alive and not st.wals[cfg.slot((s, 0, 0))]:
                yield (s,)

    def do_died_starting(self, cfg: Config, st: State, s: int) -> State:
        """Its first WAL is left for the master's split, and the master's crash procedure runs
        for it; it had no queue, and nothing moved the cversion of ``/rs``."""
        for g in range(cfg.wal_groups):
            st = self.with_wal(cfg, st, Wal((s, g, 0), (), True, LIVE_DIR))
        return self.on_death(cfg, st, s)

    def kill(self, cfg: Config, st: State, s: int) -> State:
        """The server's ephemeral znode goes; its memory is lost; its WALs stay where they are."""
        srv = st.servers[s]
        for g, seq in enumerate(srv.current):
            wal = st.wals[cfg.slot((s, g, seq))]
            st = self.with_wal(cfg, st, wal._replace(closed=True))
        dead = srv._replace(
            alive=False, known=0, gone=0, shippers=(), claim=(), unregistered=(), drops=()
        )
        return self.on_death(cfg, self.with_server(st, s, dead), s)

    def on_death(self, cfg: Config, st: State, s: int) -> State:
        return st

    def en_archive(self, cfg: Config, st: State) -> Iterator[tuple]:
        for wal in st.wals:
            if wal and wal.closed and wal.place == LIVE_DIR:
                yield wal.key

    def do_archive(self, cfg: Config, st: State, s: int, g: int, seq: int) -> State:
        wal = st.wals[cfg.slot((s, g, seq))]
        return self.with_wal(cfg, st, wal._replace(place=ARCHIVED))

    # --- sources: read, filter, ship, persist ----------------------------------------------------

    def en_ship(self, cfg: Config, st: State) -> Iterator[tuple]:
        if not st.replication_on:
            return
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            for i, sh in enumerate(srv.shippers):
                if not self.peer_ships(st, srv, sh.peer):
                    continue
                wal = self.head(cfg, st, sh)
                if wal is None or sh.pos >= len(wal.entries):
                    continue
                if not self.rule_locate(cfg, st, s, sh, wal.key):
                    continue
                down = st.sinks[sh.peer + 1].down if self.batch_keeps(cfg, wal, sh) else 0
                for k in bits(srv.sinks[sh.peer] & ~down):
                    yield (s, i, k)

    @staticmethod
    def peer_ships(st: State, srv: Server, p: int) -> bool:
        """Does a source of this server ship to peer ``p``? While the peer is enabled; and after
        its removal, until the server has handled the removal (``peer_sync`` stops its sources:
        a region server learns of a removed peer by a watch, not at once)."""
        return st.peers[p] == ENABLED or (st.peers[p] == REMOVED and not srv.gone >> p & 1)

    def batch_keeps(self, cfg: Config, wal: Wal, sh: Shipper) -> bool:
        """Does the next batch hold an edit the filter keeps? One that keeps nothing moves the
        position without contacting a sink (HBase's shipper sends no empty batch), so a sink
        that is down does not hold it back."""
        batch = wal.entries[sh.pos : sh.pos + cfg.batch]
        return any(self.rule_ships(e, sh.peer + 1) for e in batch)

    def do_ship(self, cfg: Config, st: State, s: int, i: int, k: int) -> State:
        """Seed 003: the source reads a batch, keeps only the replicable edits, and sends it to a
        random sink; the sink applies it. The position is persisted afterwards (``persist``)."""
        srv = st.servers[s]
        sh = srv.shippers[i]
        wal = st.wals[cfg.slot(sh.wals[0])]
        batch = wal.entries[sh.pos : sh.pos + cfg.batch]
        target = sh.peer + 1
        st = self.deliver(cfg, st, target, [e for e in batch if self.rule_ships(e, target)])
        srv = st.servers[s]
        nxt = sh._replace(pos=sh.pos + len(batch))
        return self.with_server(st, s, srv._replace(shippers=set_at(srv.shippers, i, nxt)))

    def en_persist(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            node = st.rs[s]
            for i, sh in enumerate(srv.shippers):
                qi = self.find_queue(node, sh.peer, sh.chain)
                if qi < 0 or not sh.wals:
                    continue
                for key, pos in node.queues[qi].wals:
                    if key == sh.wals[0]:
                        if pos != sh.pos:
                            yield (s, i)
                        break

    def do_persist(self, cfg: Config, st: State, s: int, i: int) -> State:
        sh = st.servers[s].shippers[i]
        node = st.rs[s]
        qi = self.find_queue(node, sh.peer, sh.chain)
        q = node.queues[qi]
        head = sh.wals[0]
        q = q._replace(wals=tuple((k, sh.pos if k == head else p) for k, p in q.wals))
        return self.with_rs(st, s, node._replace(queues=set_at(node.queues, qi, q)))

    def en_advance(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for i, sh in enumerate(srv.shippers):
                    wal = self.head(cfg, st, sh)
                    if wal and self.rule_wal_done(sh, wal) and self.queued(st, s, sh, wal.key):
                        yield (s, i)

    @dual(rules.wal_done_rule)
    def rule_wal_done(self, sh: Shipper, wal: Wal) -> bool:
        """May a source drop its head WAL from the queue? Only once it read to the end of a file
        that is closed and a newer WAL is queued: "reading up to the end of the current file does
        not delete the item in the queue" (seed 001)."""
        return rules.wal_done(len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries))

    def queued(self, st: State, s: int, sh: Shipper, key: WalKey) -> bool:
        i = self.find_queue(st.rs[s], sh.peer, sh.chain)
        return i >= 0 and any(k == key for k, _ in st.rs[s].queues[i].wals)

    def do_advance(self, cfg: Config, st: State, s: int, i: int) -> State:
        """Seed 001: "the queue items are discarded when the replication thread cannot read more
        entries from a file ... and there are other files in the queue"."""
        return self.drop_head(cfg, st, s, i)

    def en_finish(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for i, sh in enumerate(srv.shippers):
                    if sh.chain and len(sh.wals) == 1:
                        wal = self.head(cfg, st, sh)
                        if wal and wal.closed and sh.pos >= len(wal.entries):
                            yield (s, i)

    def do_finish(self, cfg: Config, st: State, s: int, i: int) -> State:
        """Seed 000: "When the reader hits the end of the last log, the queue znode is deleted and
        the ... Region Server closes that replication source"."""
        return self.drop_head(cfg, st, s, i)

    def en_skip_missing(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for i, sh in enumerate(srv.shippers):
                    if (
                        sh.wals
                        and (sh.chain or len(sh.wals) > 1)
                        and not self.rule_locate(cfg, st, s, sh, sh.wals[0])
                    ):
                        yield (s, i)

    def do_skip_missing(self, cfg: Config, st: State, s: int, i: int) -> State:
        """A WAL found neither in the queue's server directory nor in oldWALs is skipped, as
        HBase's source did; in a correct design this only happens to a WAL already lost."""
        return self.drop_head(cfg, st, s, i)

    def en_reselect_sinks(self, cfg: Config, st: State) -> Iterator[tuple]:
        if cfg.sink_servers == 1:
            return
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            for p in bits(srv.known):
                subset = srv.sinks[p]
                down = st.sinks[p + 1].down
                if subset & ~down:
                    continue
                for mask in subsets(cfg):
                    if mask != subset:
                        yield (s, p, mask)

    def do_reselect_sinks(self, cfg: Config, st: State, s: int, p: int, mask: int) -> State:
        """Seed 002: "If the slave RegionServer is still not available, the master selects a new
        subset of RegionServers to replicate to"."""
        srv = st.servers[s]
        return self.with_server(st, s, srv._replace(sinks=set_at(srv.sinks, p, mask)))

    # --- peers and the replication state znode ----------------------------------------------------

    def _admin(self, cfg: Config, st: State, want: int) -> Iterator[tuple]:
        if st.budget.admin:
            for p, status in enumerate(st.peers):
                if status == want:
                    yield (p,)

    def _set_peer(self, st: State, p: int, status: int) -> State:
        st = st._replace(budget=st.budget._replace(admin=st.budget.admin - 1))
        return st._replace(peers=set_at(st.peers, p, status))

    def en_add_peer(self, cfg: Config, st: State) -> Iterator[tuple]:
        return self._admin(cfg, st, ABSENT)

    def do_add_peer(self, cfg: Config, st: State, p: int) -> State:
        return self._set_peer(st, p, ENABLED)

    def en_remove_peer(self, cfg: Config, st: State) -> Iterator[tuple]:
        yield from self._admin(cfg, st, ENABLED)
        yield from self._admin(cfg, st, DISABLED)

    def do_remove_peer(self, cfg: Config, st: State, p: int) -> State:
        return self._set_peer(st, p, REMOVED)

    def en_disable_peer(self, cfg: Config, st: State) -> Iterator[tuple]:
        return self._admin(cfg, st, ENABLED)

    def do_disable_peer(self, cfg: Config, st: State, p: int) -> State:
        return self._set_peer(st, p, DISABLED)

    def en_enable_peer(self, cfg: Config, st: State) -> Iterator[tuple]:
        return self._admin(cfg, st, DISABLED)

    def do_enable_peer(self, cfg: Config, st: State, p: int) -> State:
        return self._set_peer(st, p, ENABLED)

    def en_toggle_replication(self, cfg: Config, st: State) -> Iterator[tuple]:
        if st.budget.admin:
            yield ()

    def do_toggle_replication(self, cfg: Config, st: State) -> State:
        st = st._replace(budget=st.budget._replace(admin=st.budget.admin - 1))
        return st._replace(replication_on=not st.replication_on)

    def en_peer_sync(self, cfg: Config, st: State) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if not srv.alive:
                continue
            for p, status in enumerate(st.peers):
                known = srv.known >> p & 1
                if (status in (ENABLED, DISABLED) and not known) or (
                    status == REMOVED
                    and not srv.gone >> p & 1
                    and (known or any(sh.peer == p for sh in srv.shippers))
                ):
                    yield (s, p)

    def do_peer_sync(self, cfg: Config, st: State, s: int, p: int) -> State:
        """A new peer gets a source whose queue holds the current WAL(s); a removed peer's sources
        stop and their queues, normal and recovered, are deleted. A server handles a peer's
        removal once; a queue it claims for that peer later is the claim's business."""
        srv = st.servers[s]
        if st.peers[p] != REMOVED:
            created = not st.rs[s]
            st = self.with_rs(
                st, s, self.put_queue(st.rs[s], self.new_queue(cfg, s, p, srv.current))
            )
            if created:  # a joined server's first queue creates its znode under /rs
                st = self.rs_child_created(st)
            shippers = tuple(sorted((*srv.shippers, *self.new_shippers(cfg, s, p, srv.current))))
            return self.with_server(
                st, s, srv._replace(known=srv.known | 1 << p, shippers=shippers)
            )
        node = st.rs[s]
        if node:
            st = self.with_rs(
                st, s, node._replace(queues=tuple(q for q in node.queues if q.peer != p))
            )
        shippers = tuple(sh for sh in srv.shippers if sh.peer != p)
        srv = srv._replace(known=srv.known & ~(1 << p), gone=srv.gone | 1 << p, shippers=shippers)
        return self.with_server(st, s, srv)
