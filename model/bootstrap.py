"""Seed 004's 'deadlock': the bootstrap dependency between the ``hbase:replication`` region, the
WAL its open marker goes into, and the queue storage that lives in that region.

``table-naive`` is the table design the seed rejects: every new WAL is recorded in queue storage
before anything is written to it. Opening the table's region needs a writable WAL; a writable WAL
needs a write to queue storage; queue storage needs the region open. Exploration finds the stuck
state (liveness ``system_table_served``); ``dependency_graph`` draws the same thing as a cycle of
waits-for edges, built from the design's own rules on the initial bootstrap state.
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from . import table_storage
from .action import ActionKind
from .config import Config
from .table import Table
from .table_common import STORAGE_KINDS, TABLE_KINDS
from .table_state import NO_SOURCE, TState

TABLE_REGION = "hbase:replication region open"
QUEUE_STORAGE = "write to queue storage (hbase:replication)"


def wal_writable(server: int) -> str:
    return f"WAL of region server {server} writable"


class TableNaive(Table):
    name = "table-naive"
    summary = "seed 004's rejected design: every new WAL is recorded in the table before use"
    configs = ("t-bootstrap",)
    kinds = (
        *Table.kinds,
        ActionKind("register_wal", ("server", "group"), True, "record the current WAL in storage"),
    )
    wal_registration_uses_storage = True

    def rule_wal_ready(self, cfg: Config, st: TState, s: int, g: int) -> bool:
        """A WAL is writable only once every queue of the server records it ("we always need to
        store the newly created WAL file in ReplicationQueueStorage ... before we allow actual WAL
        entries to go into the newly created WAL file")."""
        srv = st.servers[s]
        seq = srv.current[g]
        for p in range(cfg.peers):
            if srv.known >> p & 1:
                offsets = table_storage.get_offsets(st.rows, p, s, NO_SOURCE)
                if not any(og == g and oseq >= seq for og, oseq, _pos in offsets):
                    return False
        return True

    def en_register_wal(self, cfg: Config, st: TState) -> Iterator[tuple]:
        for s, srv in enumerate(st.servers):
            if srv.alive:
                for g in range(cfg.wal_groups):
                    if not self.rule_wal_ready(cfg, st, s, g):
                        yield (s, g)

    def do_register_wal(self, cfg: Config, st: TState, s: int, g: int) -> TState:
        srv = st.servers[s]
        for p in range(cfg.peers):
            if srv.known >> p & 1:
                st = self.set_offset(st, p, s, NO_SOURCE, g, (srv.current[g], 0))
        return st


assert "register_wal" in STORAGE_KINDS and all(k.name != "register_wal" for k in TABLE_KINDS)


def dependency_graph(design: Table, cfg: Config) -> nx.DiGraph:
    """The waits-for graph of the bootstrap, read off the design on its initial state: opening the
    table's region waits for a writable WAL on some live server (``open_table`` is enabled only
    then); a WAL that is not writable waits for queue storage when the design records WALs there;
    queue storage waits for the table's region (every storage action is gated on it)."""
    st = design.init(cfg)
    graph = nx.DiGraph()
    graph.add_node(TABLE_REGION)
    for s, srv in enumerate(st.servers):
        if not srv.alive:
            continue
        node = wal_writable(s)
        graph.add_edge(TABLE_REGION, node)
        ready = all(design.rule_wal_ready(cfg, st, s, g) for g in range(cfg.wal_groups))
        if not ready and design.wal_registration_uses_storage:
            graph.add_edge(node, QUEUE_STORAGE)
    if STORAGE_KINDS:
        graph.add_edge(QUEUE_STORAGE, TABLE_REGION)
    return graph


def dependency_cycle(design: Table, cfg: Config) -> list[tuple[str, str]]:
    """A cycle in the waits-for graph (a deadlock), or ``[]``."""
    graph = dependency_graph(design, cfg)
    try:
        return list(nx.find_cycle(graph))
    except nx.NetworkXNoCycle:
        return []
