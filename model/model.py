"""``Model``: a design under a configuration, the one object every checker takes.

    model = Model(get_design("zk-multi"), STANDARD["std"])
    s0 = model.init()
    for action in model.enabled(s0):
        s1 = model.step(s0, action)

``canonical`` maps a state to the representative of its class under renaming of region servers
(they are interchangeable), which is what symmetry reduction stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import groupby, permutations, product
from math import factorial
from typing import TypeVar

from .action import Action
from .config import Config
from .design import Design
from .properties import Property
from .state import (
    NO_LOCK,
    Claim,
    Cleaner,
    Edit,
    Queue,
    RsNode,
    Server,
    Shipper,
    Sink,
    State,
    Wal,
    sort_queue_wals,
)


class Model:
    """The interface every checker, drawing and validator takes. A design's steps are the
    protocol text's; ``Model(design, cfg)`` is the engine that runs them under ``cfg``
    (``model/text_model.py``'s ``text_engine``: ``TextModel``'s generated program, or
    ``PlainModel``, the plain interpreter)."""

    def __new__(cls, design: Design, cfg: Config) -> Model:
        if cls is Model:
            from .text_model import text_engine

            got = text_engine(cfg, design)
            if got is None:
                raise ValueError(f"{design.name}: no protocol text for this design")
            cls = got
        return super().__new__(cls)

    def __init__(self, design: Design, cfg: Config) -> None:
        self.design = design
        self.cfg = cfg
        self.invariants: tuple[Property, ...] = ()
        self.step_properties: tuple[Property, ...] = ()
        self.liveness: tuple[Property, ...] = ()
        """The text's properties (``model/text_checks.py``), set by the engine that runs it."""
        self._canonical = getattr(design, "canonical", None)
        self.fair_kinds = frozenset(k.name for k in design.kinds if k.fair)

    @property
    def properties(self) -> tuple[Property, ...]:
        return self.invariants + self.step_properties + self.liveness

    def init(self) -> State:
        return self.design.init(self.cfg)

    def enabled(self, st: State) -> list[Action]:
        raise NotImplementedError

    def enabled_args(self, st: State, name: str) -> list[tuple]:
        """The arguments of every enabled action of kind ``name``."""
        raise NotImplementedError

    def is_enabled(self, st: State, action: Action) -> bool:
        """Is ``action`` enabled in ``st`` (what a recorded event asks of a state)?"""
        return action.args in self.enabled_args(st, action.name)

    def step(self, st: State, action: Action) -> State:
        raise NotImplementedError

    def successors(self, st: State) -> Iterator[tuple[Action, State]]:
        """Every enabled action from ``st`` with the state it leads to."""
        raise NotImplementedError

    def successors_from_any(self, st: State) -> Iterator[tuple[Action, State]]:
        """``successors`` from a state that may be one no run reaches (an induction's): a step
        that cannot be taken there leads nowhere."""
        raise NotImplementedError

    def canonical(self, st: State) -> State:
        """The representative of the state's class under renaming of region servers: the least
        renaming among those that list servers in order of a rename-invariant signature. (That
        subset of the class is the same from any member, so the choice is canonical; usually it
        holds one renaming, so this costs one rename or none.) A design with its own state
        shape brings its own ``canonical``."""
        if self._canonical is not None:
            return self._canonical(self.cfg, st)
        sig = [server_signature(self.cfg, st, s) for s in range(self.cfg.servers)]
        return least_renaming(st, sig, lambda perm: rename_servers(self.cfg, st, perm))


UNREADABLE = (AttributeError, IndexError, KeyError, TypeError, ValueError)
"""What reading a state no run reaches (an induction's) can raise."""

S = TypeVar("S")

TIE_LIMIT = 120
"""The most renamings ``least_renaming`` compares when servers tie on their signatures and are
not interchangeable. Beyond it the ties are broken by server number: the state stored is still
one of its class (symmetry reduction stays sound) but not always the same one, so a large
configuration may store a class more than once."""


def least_renaming(st: S, sig: list, rename: Callable[[tuple[int, ...]], S]) -> S:
    """The least of ``st``'s renamings that list servers in order of their rename-invariant
    signatures ``sig`` (that set is the same from any member of the class, so the choice is
    canonical); ``st`` itself when it is already in order.

    Never enumerates every ordering of the servers: servers are sorted by signature, and only
    servers that tie are ordered every way. A tied group whose members can be reordered without
    changing the state (a swap and a rotation leave it equal: the servers are interchangeable, as
    all are in an initial state) needs one order only, since every order gives the same state.
    Past ``TIE_LIMIT`` remaining orders, ties keep their server order (see ``TIE_LIMIT``)."""
    n = len(sig)
    order = sorted(range(n), key=sig.__getitem__)
    groups = [list(g) for _k, g in groupby(order, key=sig.__getitem__)]

    def interchangeable(g: list[int]) -> bool:
        """Does every order of ``g`` leave the state as it is? It does when swapping the first
        two and rotating them all does: those two generate every order."""
        swap = list(range(n))
        swap[g[0]], swap[g[1]] = g[1], g[0]
        if rename(tuple(swap)) != st:
            return False
        if len(g) == 2:
            return True
        rotate = list(range(n))
        for i, s in enumerate(g):
            rotate[s] = g[(i + 1) % len(g)]
        return rename(tuple(rotate)) == st

    count = 1
    choices: list[list[tuple[int, ...]]] = []
    for g in groups:
        if len(g) > 1 and interchangeable(g):
            choices.append([tuple(g)])  # one order stands for all
            continue
        count *= factorial(len(g))
        choices.append(list(permutations(g)) if count <= TIE_LIMIT else [tuple(g)])
    if count > TIE_LIMIT:
        choices = [[tuple(g)] for g in groups]
    starts = [0]
    for g in groups[:-1]:
        starts.append(starts[-1] + len(g))
    best = None
    for choice in product(*choices):
        perm = [0] * n
        for start, members in zip(starts, choice, strict=True):
            for offset, old in enumerate(members):
                perm[old] = start + offset
        other = st if perm == sorted(perm) else rename(tuple(perm))
        if best is None or other < best:  # type: ignore[operator]
            best = other
    assert best is not None
    return best


def server_signature(cfg: Config, st: State, s: int) -> tuple:
    """What a server looks like without naming any server: unchanged by renaming."""
    srv = st.servers[s]
    node = st.rs[s]
    own = tuple(
        (len(w.entries), w.closed, w.place) if w else ()
        for w in st.wals[
            cfg.slot((s, 0, 0)) : cfg.slot((s, 0, 0)) + cfg.wal_groups * cfg.wals_per_server
        ]
    )
    return (
        srv.alive,
        srv.current,
        srv.known,
        srv.gone,
        tuple((sh.peer, len(sh.chain), sh.group, len(sh.wals), sh.pos) for sh in srv.shippers),
        own,
        (node.lock != NO_LOCK, tuple((q.peer, len(q.chain), len(q.wals)) for q in node.queues))
        if node
        else (),
        len(srv.claim),
        tuple((p, len(c)) for p, c in srv.drops),
    )


# --- renaming region servers ----------------------------------------------------------------


def rename_servers(cfg: Config, st: State, perm: tuple[int, ...]) -> State:
    """The same state with server ``s`` called ``perm[s]`` everywhere it is named."""

    def key(k):
        return (perm[k[0]], k[1], k[2])

    def uid(u):
        return (0, perm[u[1]], *u[2:]) if u[0] == 0 else u

    def edit(e: Edit) -> Edit:
        return e._replace(uid=uid(e.uid)) if e.uid[0] == 0 else e

    def chain(c):
        return tuple(perm[d] for d in c)

    def queue(q: Queue) -> Queue:
        return Queue(q.peer, chain(q.chain), sort_queue_wals((key(k), p) for k, p in q.wals))

    def shipper(sh: Shipper) -> Shipper:
        return Shipper(sh.peer, chain(sh.chain), sh.group, tuple(key(k) for k in sh.wals), sh.pos)

    def mask(m: int) -> int:
        out = 0
        for s in range(cfg.servers):
            if m >> s & 1:
                out |= 1 << perm[s]
        return out

    servers: list = [None] * cfg.servers
    for s, srv in enumerate(st.servers):
        servers[perm[s]] = Server(
            srv.alive,
            srv.current,
            srv.known,
            srv.gone,
            tuple(sorted(shipper(sh) for sh in srv.shippers)),
            srv.sinks,
            tuple(Claim(perm[c.dead], queue(c.queue)) for c in srv.claim),
            tuple(sorted(key(k) for k in srv.unregistered)),
            tuple(sorted((p, chain(c)) for p, c in srv.drops)),
        )
    wals: list = [()] * len(st.wals)
    for w in st.wals:
        if w:
            k = key(w.key)
            wals[cfg.slot(k)] = Wal(k, tuple(edit(e) for e in w.entries), w.closed, w.place)
    rs: list = [()] * cfg.servers
    for s, node in enumerate(st.rs):
        if node:
            lock = perm[node.lock] if node.lock != NO_LOCK else NO_LOCK
            rs[perm[s]] = RsNode(lock, tuple(sorted(queue(q) for q in node.queues)))
    sinks = tuple(
        Sink(
            tuple(sorted(uid(u) for u in k.applied)),
            tuple(sorted(uid(u) for u in k.duplicates)),
            k.down,
        )
        for k in st.sinks
    )
    relays = tuple(r._replace(log=tuple(edit(e) for e in r.log)) if r else r for r in st.relays)
    c = st.cleaner
    cleaner = Cleaner(
        c.phase,
        tuple(sorted(key(k) for k in c.candidates)),
        mask(c.read),
        tuple(sorted(key(k) for k in c.seen)),
        c.changed,
        tuple(sorted(key(k) for k in c.cache)),
        tuple(sorted((perm[s], p, chain(ch)) for s, p, ch in c.listed)),
    )
    return State(
        tuple(servers),
        tuple(wals),
        tuple(rs),
        st.peers,
        st.replication_on,
        sinks,
        relays,
        cleaner,
        mask(st.failover),
        st.budget,
    )
