"""The ZooKeeper-era designs (``zk-lock``, ``zk-multi``) and their mutants as flat models
(``model/engine/text.py``): the transition relation that bounded model checking and induction read.

The state is laid out over fixed slots that the configuration bounds: WAL slots (server, WAL
group, sequence), queue slots (owner, peer, chain of dead servers), shipper slots (server, peer,
chain, group, copy), edit identities and the cluster-id lists an edit can carry. A queue slot holds
a membership bit and a position per WAL slot; a shipper slot holds its in-memory WAL list as a
length and a packed array. Every unused slot holds a fixed default, so each explicit state has
exactly one flat form (``encode``) and back (``decode``).

The steps (``zk/text.py``, ``zk/designs.py``) are each the explicit step of
``model/zk/common.py``, ``zk/lock.py`` or ``zk/multi.py`` of the same name, with its structural
choices (which server, queue slot, WAL slot, entry index) made parameters of the action instance
and fixed by its guard. Decision rules are the design's own dual-form rules (``generic_of``):
shouldReplicate's edit filter, WAL-done, the claim's ``multi`` guard, the claimed queue's name,
the queue-id parse (through the WAL owner it yields), the start position, the removed-peer drop,
the cleaner's lookup. Steps that a mutant overrides outside a dual-form rule have their flat form
in a subclass named after the mutant (``FLAT_CLASSES``); a mutant without one is refused rather
than checked as its parent.

The test suite runs this text on plain values beside the explicit model on every reachable state
of small configurations (``tests/model/zk/test_zk_layout.py``): same successors, same verdicts.
"""

from __future__ import annotations

from itertools import combinations, permutations
from typing import Any, ClassVar

from replcheck.model.common.edit_space import EditSpace
from replcheck.model.common.state import (
    NO_LOCK,
    Budget,
    Claim,
    Cleaner,
    Edit,
    Queue,
    RsNode,
    Server,
    Shipper,
    Sink,
    State,
    wal_order,
)
from replcheck.model.config import Config
from replcheck.model.engine.copies import CopySlots
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import generic_of
from replcheck.model.engine.text import ByParts, FlatError
from replcheck.model.zk import families as _zk_families  # noqa: F401
from replcheck.model.zk.multi import ZkMulti
from replcheck.model.zk.peer_life import ZkPeerLife

BUDGET = ("crashes", "outages", "admin", "zk_faults", "foreign", "puts", "cleaner_runs")
COPIES = 2
"""Shipper slots per (server, peer, chain, group): a correct design needs one; a mutant that
starts a second source for the same queue name needs two. More sets the ``overflow`` flag."""


RULES = (
    "rule_ships",
    "rule_wal_done",
    "rule_drop_claimed_queue",
    "rule_start_position",
    "claim_applies",
)
"""The dual-form rules the ZooKeeper era's steps read from the design (``claim_applies``:
``zk-multi``'s only)."""


class ZkLayout(ZkPeerLife, CopySlots, ByParts, EditSpace):
    """The slots of a ZooKeeper-era flat state under a configuration, and the translation from
    and to the explicit state. ``ZkFlat`` (``zk/text.py``) adds the steps."""

    def __init__(self, design: Design, cfg: Config) -> None:
        self.design = design
        self.cls = type(design)
        self.cfg = cfg
        self.multi = isinstance(design, ZkMulti)
        c = cfg
        self.S = range(c.servers)
        self.G = range(c.wal_groups)
        self.Q = range(c.wals_per_server)
        self.P = range(c.peers)
        self.W = range(c.wal_slots)
        self.key = [None] * c.wal_slots
        for s in self.S:
            for g in self.G:
                for q in self.Q:
                    self.key[c.slot((s, g, q))] = (s, g, q)
        kills = min(c.crashes + c.zk_faults, c.servers)
        self.chains = (
            [sub for n in range(len(c.death_order) + 1) for sub in combinations(c.death_order, n)]
            if c.death_order
            else [chain for n in range(kills + 1) for chain in permutations(range(c.servers), n)]
        )
        """The chains of dead servers a queue can be named by: every order of up to as many
        servers as can die, or a recorded run's order (``death_order``) and its subsequences."""
        self.chain_index = {ch: i for i, ch in enumerate(self.chains)}
        self.CH = range(len(self.chains))
        self.edit_space([(0, *self.key[w], j) for w in self.W for j in range(c.edits_per_wal)])
        self.E = self.wal_entries()
        self.LW = c.servers * c.wals_per_server
        """WALs a shipper's in-memory list can hold (one WAL group's)."""
        self.sh_keys = [
            (p, ci, g, m) for p in self.P for ci in self.CH for g in self.G for m in range(COPIES)
        ]
        self.owner = {
            (s, p, ci): design.wal_owner(c, s, Shipper(p, self.chains[ci], 0, (), 0))
            for s in self.S
            for p in self.P
            for ci in self.CH
        }
        self.new_chain = {
            (ci, d): self.chain_index.get(design.rule_claimed_chain(self.chains[ci], d), -1)
            for ci in self.CH
            for d in self.S
        }
        self.rule = {name: generic_of(self.cls, name) for name in RULES}

    # --- variables ----------------------------------------------------------------------------

    def entry(self, get: Any, w: int, j: int) -> tuple[Any, Any, Any]:
        """Entry ``j`` of WAL slot ``w``: its edit (an index in ``uids``), kind and cluster-id
        list (an index in ``ids``)."""
        return get(("wu", w, j)), get(("wkind", w, j)), get(("wids", w, j))

    def sorts(self) -> dict[tuple, Any]:
        c = self.cfg
        S, P, W, E = c.servers, c.peers, c.wal_slots, self.E
        out: dict[tuple, Any] = {}

        def i(lo: int, hi: int) -> tuple:
            return ("i", lo, hi)

        for s in self.S:
            out[("alive", s)] = "b"
            for g in self.G:
                out[("cur", s, g)] = i(0, c.wals_per_server - 1)
            for p in self.P:
                out[("known", s, p)] = "b"
                out[("gone", s, p)] = "b"
                for k in range(c.sink_servers):
                    out[("snk", s, p, k)] = "b"
            for w in self.W:
                out[("unreg", s, w)] = "b"
                out[("clin", s, w)] = "b"
                out[("clpos", s, w)] = i(0, E)
            for sk in self.sh_keys:
                out[("sh", s, *sk)] = "b"
                out[("shn", s, *sk)] = i(0, self.LW)
                out[("shpos", s, *sk)] = i(0, E)
                for j in range(self.LW):
                    out[("shw", s, *sk, j)] = i(-1, W - 1)
            for p in self.P:
                for ci in self.CH:
                    out[("drop", s, p, ci)] = "b"
            out[("cl", s)] = "b"
            out[("cld", s)] = i(0, S - 1)
            out[("clp", s)] = i(0, P - 1)
            out[("clc", s)] = i(0, len(self.chains) - 1)
            out[("rex", s)] = "b"
            out[("lock", s)] = i(NO_LOCK, S - 1)
            out[("fail", s)] = "b"
            out[("read", s)] = "b"
            for p in self.P:
                for ci in self.CH:
                    out[("qex", s, p, ci)] = "b"
                    out[("lst", s, p, ci)] = "b"
                    for w in self.W:
                        out[("qin", s, p, ci, w)] = "b"
                        out[("qpos", s, p, ci, w)] = i(0, E)
        for w in self.W:
            self.wal_sorts(out, w)
            out[("cand", w)] = "b"
            out[("seen", w)] = "b"
            out[("cache", w)] = "b"
            for j in range(E):
                out[("wu", w, j)] = i(-1, len(self.uids) - 1)
                out[("wkind", w, j)] = i(-1, 2)
                out[("wids", w, j)] = i(-1, len(self.ids) - 1)
                for p in self.P:
                    out[("wowed", w, j, p)] = "b"
        for p in self.P:
            out[("peer", p)] = i(0, 3)
        for cl in range(c.clusters):
            for u in self.U:
                out[("app", cl, u)] = "b"
                out[("dup", cl, u)] = "b"
            if cl:
                for k in range(c.sink_servers):
                    out[("down", cl, k)] = "b"
        self.relay_sorts(out)
        out[("repl",)] = "b"
        out[("phase",)] = i(0, 2)
        out[("changed",)] = "b"
        out[("overflow",)] = "b"
        for name, top in zip(BUDGET, self._budget0(), strict=True):
            out[("b", name)] = i(0, top)
        self.peer_life_sorts(out)
        return out

    def _budget0(self) -> tuple[int, ...]:
        c = self.cfg
        return (
            c.crashes,
            c.sink_outages,
            c.admin_ops,
            c.zk_faults,
            c.foreign_edits,
            c.edits,
            c.cleaner_runs,
        )

    # --- explicit <-> flat ----------------------------------------------------------------------

    def encode(self, st: State) -> dict[tuple, Any]:
        c = self.cfg
        v = self.defaults()
        for s, srv in enumerate(st.servers):
            v[("alive", s)] = srv.alive
            for g, q in enumerate(srv.current):
                v[("cur", s, g)] = q
            for p in self.P:
                v[("known", s, p)] = bool(srv.known >> p & 1)
                v[("gone", s, p)] = bool(srv.gone >> p & 1)
                for k in range(c.sink_servers):
                    v[("snk", s, p, k)] = bool(srv.sinks[p] >> k & 1)
            for key in srv.unregistered:
                v[("unreg", s, c.slot(key))] = True
            used: dict[tuple, int] = {}
            for sh in sorted(srv.shippers):
                base = (sh.peer, self.chain_index[sh.chain], sh.group)
                m = used.get(base, 0)
                used[base] = m + 1
                if m >= COPIES:
                    raise FlatError(f"more than {COPIES} shippers for one queue name")
                sk = (s, *base, m)
                v[("sh", *sk)] = True
                v[("shn", *sk)] = len(sh.wals)
                v[("shpos", *sk)] = sh.pos
                for j, key in enumerate(sh.wals):
                    v[("shw", *sk, j)] = c.slot(key)
            for p, chain in srv.drops:
                v[("drop", s, p, self.chain_index[chain])] = True
            if srv.claim:
                d, q = srv.claim[0]
                v[("cl", s)] = True
                v[("cld", s)] = d
                v[("clp", s)] = q.peer
                v[("clc", s)] = self.chain_index[q.chain]
                for key, pos in q.wals:
                    v[("clin", s, c.slot(key))] = True
                    v[("clpos", s, c.slot(key))] = pos
        for s, node in enumerate(st.rs):
            v[("lock", s)] = node.lock if node else NO_LOCK
            if node:
                v[("rex", s)] = True
                for q in node.queues:
                    ci = self.chain_index[q.chain]
                    v[("qex", s, q.peer, ci)] = True
                    for key, pos in q.wals:
                        v[("qin", s, q.peer, ci, c.slot(key))] = True
                        v[("qpos", s, q.peer, ci, c.slot(key))] = pos
            v[("fail", s)] = bool(st.failover >> s & 1)
            v[("read", s)] = bool(st.cleaner.read >> s & 1)
        for s, p, chain in st.cleaner.listed:
            v[("lst", s, p, self.chain_index[chain])] = True
        for wal in st.wals:
            if not wal:
                continue
            w = c.slot(wal.key)
            self.encode_wal(v, w, wal)
            for j, e in enumerate(wal.entries):
                v[("wu", w, j)] = self.uid_index[e.uid]
                v[("wkind", w, j)] = e.kind
                v[("wids", w, j)] = self.ids_index[e.cluster_ids]
                for p in self.P:
                    v[("wowed", w, j, p)] = bool(e.owed >> p & 1)
        for p, status in enumerate(st.peers):
            v[("peer", p)] = status
        for cl, sink in enumerate(st.sinks):
            for uid in sink.applied:
                v[("app", cl, self.uid_index[uid])] = True
            for uid in sink.duplicates:
                v[("dup", cl, self.uid_index[uid])] = True
            for k in range(c.sink_servers):
                if cl:
                    v[("down", cl, k)] = bool(sink.down >> k & 1)
        self.encode_relays(v, st.relays)
        v[("repl",)] = st.replication_on
        v[("phase",)] = st.cleaner.phase
        v[("changed",)] = st.cleaner.changed
        for key in st.cleaner.candidates:
            v[("cand", c.slot(key))] = True
        for key in st.cleaner.seen:
            v[("seen", c.slot(key))] = True
        for key in st.cleaner.cache:
            v[("cache", c.slot(key))] = True
        for name, n in zip(BUDGET, st.budget, strict=True):
            v[("b", name)] = n
        if c.peer_life:
            for s, srv in enumerate(st.servers):
                for p in self.P:
                    v[("upd", s, p)] = bool(srv.updates >> p & 1)
            for p in self.P:
                v[("pfresh", p)] = bool(st.refreshed >> p & 1)
        return self.normalized(v)

    def copy_groups(self) -> list[list[list[tuple]]]:
        """A server's shippers of one queue name and WAL group, one per copy slot."""
        bases = {(s, *sk[:3]) for s in self.S for sk in self.sh_keys}
        return [
            [
                [
                    ("sh", *b, m),
                    ("shn", *b, m),
                    ("shpos", *b, m),
                    *(("shw", *b, m, j) for j in range(self.LW)),
                ]
                for m in range(COPIES)
            ]
            for b in sorted(bases)
        ]

    # --- flat -> explicit, part by part -------------------------------------------------------

    PARTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "server": (
            "alive", "cur", "known", "gone", "snk", "unreg", "clin", "clpos", "sh", "shn",
            "shpos", "shw", "drop", "cl", "cld", "clp", "clc", "upd",
        ),
        "wal": ("wex", "wn", "wclosed", "wplace", "wu", "wkind", "wids", "wowed"),
        "rs": ("rex", "lock", "qex", "qin", "qpos"),
        "sinks": ("app", "dup", "down"),
        "relays": ("rlen", "rship", "ru", "rkind", "rids"),
        "cleaner": ("phase", "cand", "read", "seen", "changed", "cache", "lst"),
        "rest": ("peer", "repl", "fail", "b", "pfresh"),
    }  # fmt: skip
    """The readable state's parts and the slots (by key name) each is read from; a server's, a
    WAL's, an rs znode's and a cluster's sink are one part per index (the key's second
    element). ``overflow`` is in none: no part reads it."""

    INDEXED: ClassVar[tuple[str, ...]] = ("server", "wal", "rs", "sinks")

    def decode_parts(self) -> list[tuple[tuple, Any]]:
        """Each part of the readable state and the function that reads it from the slots: the
        parts depend on disjoint slots (``part_of``), so a part whose slots did not change need
        not be read again (``TextModel``)."""
        out: list[tuple[tuple, Any]] = []
        out += [(("server", s), lambda v, s=s: self._server(v, s)) for s in self.S]
        out += [(("wal", w), lambda v, w=w: self._wal(v, w)) for w in self.W]
        out += [(("rs", s), lambda v, s=s: self._rs(v, s)) for s in self.S]
        out += [
            (("sinks", cl), lambda v, cl=cl: self._sink(v, cl)) for cl in range(self.cfg.clusters)
        ]
        out += [(("relays",), self._relays)]
        out += [(("cleaner",), self._cleaner), (("rest",), self._rest)]
        return out

    def assemble(self, got: dict[tuple, Any]) -> State:
        """The readable state from its parts (``decode_parts``)."""
        peers, repl, failover, budget, refreshed = got[("rest",)]
        return State(
            tuple(got[("server", s)] for s in self.S),
            tuple(got[("wal", w)] for w in self.W),
            tuple(got[("rs", s)] for s in self.S),
            peers,
            repl,
            tuple(got[("sinks", cl)] for cl in range(self.cfg.clusters)),
            got[("relays",)],
            got[("cleaner",)],
            failover,
            budget,
            refreshed,
        )

    def _rest(self, v: Any) -> tuple[tuple[int, ...], bool, int, Budget, int]:
        """The peers, replication's switch, the failover mask, the budgets and the peers whose
        sources were created again (``peer_life``)."""
        return (
            tuple(v[("peer", p)] for p in self.P),
            v[("repl",)],
            sum(1 << s for s in self.S if v[("fail", s)]),
            Budget(*(v[("b", name)] for name in BUDGET)),
            sum(1 << p for p in self.P if v[("pfresh", p)]) if self.cfg.peer_life else 0,
        )

    def _server(self, v: Any, s: int) -> Server:
        c = self.cfg
        key = self.key
        shippers = []
        for sk in self.sh_keys:
            if v[("sh", s, *sk)]:
                p, ci, g, _m = sk
                n = v[("shn", s, *sk)]
                wals = tuple(key[v[("shw", s, *sk, j)]] for j in range(n))
                shippers.append(Shipper(p, self.chains[ci], g, wals, v[("shpos", s, *sk)]))
        claim = ()
        if v[("cl", s)]:
            cwals = tuple(
                sorted(
                    ((key[w], v[("clpos", s, w)]) for w in self.W if v[("clin", s, w)]),
                    key=lambda kp: wal_order(kp[0]),
                )
            )
            q = Queue(v[("clp", s)], self.chains[v[("clc", s)]], cwals)
            claim = (Claim(v[("cld", s)], q),)
        return Server(
            v[("alive", s)],
            tuple(v[("cur", s, g)] for g in self.G),
            sum(1 << p for p in self.P if v[("known", s, p)]),
            sum(1 << p for p in self.P if v[("gone", s, p)]),
            tuple(sorted(shippers)),
            tuple(
                sum(1 << k for k in range(c.sink_servers) if v[("snk", s, p, k)]) for p in self.P
            ),
            claim,
            tuple(key[w] for w in self.W if v[("unreg", s, w)]),
            tuple((p, self.chains[ci]) for p in self.P for ci in self.CH if v[("drop", s, p, ci)]),
            sum(1 << p for p in self.P if v[("upd", s, p)]) if c.peer_life else 0,
        )

    def _wal(self, v: Any, w: int) -> Any:
        if not v[("wex", w)]:
            return ()
        entries = tuple(
            Edit(
                self.uids[v[("wu", w, j)]],
                v[("wkind", w, j)],
                self.ids[v[("wids", w, j)]],
                sum(1 << p for p in self.P if v[("wowed", w, j, p)]),
            )
            for j in range(v[("wn", w)])
        )
        return self.decode_wal(v, w, entries)

    def _rs(self, v: Any, s: int) -> Any:
        if not v[("rex", s)]:
            return ()
        key = self.key
        queues = []
        for p in self.P:
            for ci in self.CH:
                if v[("qex", s, p, ci)]:
                    qw = sorted(
                        (
                            (key[w], v[("qpos", s, p, ci, w)])
                            for w in self.W
                            if v[("qin", s, p, ci, w)]
                        ),
                        key=lambda kp: wal_order(kp[0]),
                    )
                    queues.append(Queue(p, self.chains[ci], tuple(qw)))
        return RsNode(v[("lock", s)], tuple(sorted(queues)))

    def _sink(self, v: Any, cl: int) -> Sink:
        return Sink(
            *self.sink_edits(v, cl),
            sum(1 << k for k in range(self.cfg.sink_servers) if cl and v[("down", cl, k)]),
        )

    def _cleaner(self, v: Any) -> Cleaner:
        key = self.key
        return Cleaner(
            v[("phase",)],
            tuple(key[w] for w in self.W if v[("cand", w)]),
            sum(1 << s for s in self.S if v[("read", s)]),
            tuple(key[w] for w in self.W if v[("seen", w)]),
            v[("changed",)],
            tuple(key[w] for w in self.W if v[("cache", w)]),
            tuple(
                sorted(
                    (s, p, self.chains[ci])
                    for s in self.S
                    for p in self.P
                    for ci in self.CH
                    if v[("lst", s, p, ci)]
                )
            ),
        )
