"""What every ZooKeeper-era design shares (seeds 001, 002, 003; reference section 10): the
action kinds, the initial state and the decision rules a design may get wrong.

The steps themselves (the life of an edit, WAL rolls and archiving, sources reading, filtering
and shipping, positions, sink clusters, peers and the replication state znode, clusters
replicating onward) are the protocol text's: ``zk/wal.py``, ``zk/source.py``, ``common/crashes.py``,
``zk/peer_admin.py``, ``zk/peer_sync.py``, ``common/sinks.py``, ``zk/sink_choice.py``,
``common/relay_steps.py``, ``zk/peer_life.py``, ``zk/joins.py``, ``zk/restarts.py``,
``zk/zombies.py``, over the layout of ``model/zk/layout.py``. The failover (how a dead server's
queues move) and the log cleaner differ per design: ``zk/claims.py`` and ``zk/cleaners.py``.
"""

from __future__ import annotations

from replcheck.model.common import rules
from replcheck.model.common.crashes import Crashes
from replcheck.model.common.relay_steps import RelaySteps
from replcheck.model.common.sinks import SinkServers
from replcheck.model.common.state import (
    ABSENT,
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
)
from replcheck.model.config import Config
from replcheck.model.engine.action import ActionKind
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import PY, dual
from replcheck.model.engine.step import kinds_of
from replcheck.model.zk.claim_drop import ClaimDrops
from replcheck.model.zk.joins import ZkJoins
from replcheck.model.zk.peer_admin import ZkPeerAdmin
from replcheck.model.zk.peer_life import ZkPeerLife
from replcheck.model.zk.peer_sync import PeerSync
from replcheck.model.zk.restarts import ZkRestarts
from replcheck.model.zk.sink_choice import SinkChoice
from replcheck.model.zk.source import ZkSources
from replcheck.model.zk.wal import ZkWals
from replcheck.model.zk.zombies import ZkZombies

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
    "restarts",
    "peer-life",
    "peer-readd",
)
"""The standard configurations both ZooKeeper-era designs are checked in."""

_WAL = {k.name: k for k in kinds_of(ZkWals)}

COMMON_KINDS: tuple[ActionKind, ...] = (
    *(_WAL[n] for n in ("put", "roll", "roll_zk_fail", "register_wal")),
    *kinds_of(Crashes),
    *kinds_of(ZkJoins),
    *kinds_of(ZkRestarts),
    _WAL["archive"],
    *kinds_of(ZkSources),
    *kinds_of(ClaimDrops),
    *kinds_of(SinkChoice),
    *kinds_of(SinkServers),
    *kinds_of(ZkPeerAdmin),
    *kinds_of(ZkPeerLife),
    *kinds_of(PeerSync),
    *kinds_of(RelaySteps),
    *kinds_of(ZkZombies),
)
"""The action kinds both designs share, from their steps in the text (``@step``: parameters,
fairness and the docstring), in the order the designs offer them."""


class ZkCommon(Design):
    """What the ZooKeeper-era designs share: the initial state and the decision rules (their
    steps are the protocol text's)."""

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
    def find_queue(node: RsNode | tuple[()], peer: int, chain: tuple[int, ...]) -> int:
        if node:
            for i, q in enumerate(node.queues):
                if q.peer == peer and q.chain == chain:
                    return i
        return -1

    # --- sources ----------------------------------------------------------------------------------

    @dual(rules.wal_done_rule)
    def rule_wal_done(self, sh: Shipper, wal: Wal) -> bool:
        """May a source drop its head WAL from the queue? Only once it read to the end of a file
        that is closed and a newer WAL is queued: "reading up to the end of the current file does
        not delete the item in the queue" (seed 001)."""
        return rules.wal_done(len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries))
