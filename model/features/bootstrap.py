"""Seed 004's 'deadlock': the bootstrap dependency between the ``hbase:replication`` region, the
WAL its open marker goes into, and the queue storage that lives in that region. The first
component written once, in the protocol text's own form (``model/engine/step.py``): every engine
(the explicit explorer, plain-value replay, Z3, generated Python, C) reads these steps.

A bootstrap configuration (``Config.bootstrap``) starts with the region closed: the readable
state's ``TState.table_online``, one slot. Every action that reads or writes the table
(``STORAGE_KINDS``) waits for it. ``open_table`` opens it: the master assigns the region to a
live server whose current WALs are writable, and opening writes the open marker into one.

``table-naive`` is the table design the seed rejects: every new WAL is recorded in queue storage
before anything is written to it. Opening the table's region needs a writable WAL; a writable WAL
needs a write to queue storage; queue storage needs the region open. Exploration finds the stuck
state (liveness ``system_table_served``); ``dependency_graph`` draws the same thing as a cycle of
waits-for edges, read off the design's own rule on the initial state.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
from replcheck.model.engine.names import var
from replcheck.model.engine.step import Ctx, Var, gate, step
from replcheck.model.table.state import NO_SOURCE
from replcheck.model.table.views import Region, Row, Server, TableText, each_server

STORAGE_KINDS = frozenset(
    {
        "persist",
        "advance",
        "finish",
        "arqp_read_missing",
        "arqp_put_missing",
        "arqp_claim",
        "arqp_remove",
        "claim_read",
        "claim_commit",
        "peer_proc",
        "refresh",
        "cleaner_read",
        "register_wal",
    }
)
"""Actions that read or write ``hbase:replication``: none can run before its region is open."""

TABLE_REGION = "hbase:replication region open"
QUEUE_STORAGE = "write to queue storage (hbase:replication)"


def wal_writable(server: int) -> str:
    return f"WAL of region server {server} writable"


def _server_groups(text: Any) -> list[tuple[int, int]]:
    return [(s, g) for s in text.S for g in text.G]


class Bootstrap(TableText):
    """The bootstrap of ``hbase:replication`` in the table designs."""

    handles = frozenset({"bootstrap"})
    variables = (Var(var.replication_table_online(), "b", "table_online"),)
    wal_registration_uses_storage = False

    def rule_wal_ready(self, t: Any, s: int, g: int) -> Any:
        """May entries go into the server's current WAL of group ``g``? With one offset per queue
        (3.x) a new WAL needs nothing from queue storage ("we do not need to touch the
        replication queue system table every time when creating a WAL file")."""
        return True

    @step(params=("server",), fair=True, each=each_server)
    def open_table(self, t: Ctx, s: int) -> None:
        """assign hbase:replication: write its open marker to a WAL"""
        t.require(
            t.ops.not_(Region(t).online),
            Server(t, s).alive,
            *(self.rule_wal_ready(t, s, g) for g in self.G),
        )
        Region(t).online = True

    @gate(*STORAGE_KINDS)
    def region_open(self, t: Ctx, *args: Any) -> None:
        """A read or write of ``hbase:replication`` waits for its region."""
        t.require(Region(t).online)

    @gate("put")
    def put_needs_writable_wal(self, t: Ctx, s: int, g: int, *rest: Any) -> None:
        """A client write goes only into a writable WAL."""
        t.require(self.rule_wal_ready(t, s, g))


class NaiveRegistration(Bootstrap):
    """``table-naive``: a WAL is writable only once every normal queue of a peer the server
    knows records it, and ``register_wal`` records it (a table write)."""

    wal_registration_uses_storage = True
    set_offset: Any
    """The layout's ``setOffset`` (``StepBase``)."""

    def rule_wal_ready(self, t: Any, s: int, g: int) -> Any:
        """A WAL is writable only once every queue of the server records it ("we always need to
        store the newly created WAL file in ReplicationQueueStorage ... before we allow actual
        WAL entries to go into the newly created WAL file")."""
        ops = t.ops
        srv = Server(t, s)
        cur = srv.current[g]

        def recorded(p: int) -> Any:
            row = Row(t, p, s, NO_SOURCE)
            return ops.and_(row.exists, row.has[g], row.seq[g] >= cur)

        return ops.and_(*(ops.implies(srv.knows[p], recorded(p)) for p in self.P))

    @step(params=("server", "group"), fair=True, each=_server_groups)
    def register_wal(self, t: Ctx, s: int, g: int) -> None:
        """record the current WAL in storage"""
        t.require(Server(t, s).alive, t.ops.not_(self.rule_wal_ready(t, s, g)))
        cur = Server(t, s).current[g]
        for p in self.P:
            self.set_offset(t.ops, t, Server(t, s).knows[p], (p, s, NO_SOURCE), g, cur, 0)


FEATURE = Bootstrap
"""The text of the ``bootstrap`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
"""No mutant's override is here (``table-naive`` brings ``NaiveRegistration`` as its
``Design.text``)."""


def dependency_graph(model: Any) -> nx.DiGraph:
    """The waits-for graph of the bootstrap, read off the design's text on the model's initial
    state: opening the table's region waits for a writable WAL on some live server
    (``open_table`` is enabled only then); a WAL that is not writable waits for queue storage
    when the design records WALs there; queue storage waits for the table's region (every
    storage action is gated on it)."""
    text = model.text
    t = model.reader(model.init())
    graph = nx.DiGraph()
    graph.add_node(TABLE_REGION)
    for s in text.S:
        if not Server(t, s).alive:
            continue
        node = wal_writable(s)
        graph.add_edge(TABLE_REGION, node)
        ready = all(text.rule_wal_ready(t, s, g) for g in text.G)
        if not ready and text.wal_registration_uses_storage:
            graph.add_edge(node, QUEUE_STORAGE)
    if STORAGE_KINDS:
        graph.add_edge(QUEUE_STORAGE, TABLE_REGION)
    return graph


def dependency_cycle(model: Any) -> list[tuple[str, str]]:
    """A cycle in the waits-for graph (a deadlock), or ``[]``."""
    graph = dependency_graph(model)
    try:
        return list(nx.find_cycle(graph))
    except nx.NetworkXNoCycle:
        return []
