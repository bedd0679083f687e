"""Strengthening lemmas for induction over the ZooKeeper-era flat models (``specs/bmc.py``
``induct``), for ``zk-multi`` and ``zk-lock`` under the standard configuration ``std`` (two
servers, one peer, WALs rolled once, one crash; no relays, no admin commands).

Each lemma below rules out a class of unreachable states from which a step breaks an invariant,
and says in its docstring why it holds in every reachable state. ``run_induction`` proves each
invariant with all of them as its strengthening (``bmc.induct_invariants`` says how).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from replcheck.model.common.state import (
    ARCHIVED,
    DELETED,
    DELETING,
    ENABLED,
    IDLE,
    LIVE_DIR,
    NO_LOCK,
    READING,
    REMOVED,
)
from replcheck.model.engine.text import FlatProperty, count
from replcheck.model.zk.layout import COPIES
from replcheck.model.zk.text import ZkFlat

INDUCTION_DESIGNS = ("zk-multi", "zk-lock")
INDUCTION_CONFIG = "std"
"""The designs and the configuration these lemmas are written for."""


def zk_lemmas(z: ZkFlat) -> dict[str, FlatProperty]:
    S, P, W, CH = z.S, z.P, z.W, z.CH
    c = z.cfg

    def entry_identity(ops: Any, get: Any) -> Any:
        """Entry ``j`` of WAL ``(s, g, q)`` is the client edit put there, ``(0, s, g, q, j)``,
        of a configured kind, carrying cluster id 0 only; positions past the end are empty.
        (Only client puts append to WALs when no cluster replicates into ours.)"""
        out = []
        for w in W:
            for j in range(z.E):
                here = ops.and_(get(("wex", w)), j < get(("wn", w)))
                uid = z.uid_index.get((0, *z.key[w], j), -2)
                full = ops.and_(
                    get(("wu", w, j)) == uid,
                    get(("wids", w, j)) == z.ids_index[(0,)],
                    ops.or_(*(get(("wkind", w, j)) == k for k in c.edit_kinds)),
                )
                empty = ops.and_(
                    get(("wu", w, j)) == -1,
                    get(("wids", w, j)) == -1,
                    get(("wkind", w, j)) == -1,
                    *(ops.not_(get(("wowed", w, j, p))) for p in P),
                )
                out.append(ops.ite(here, full, empty))
            out.append(ops.implies(ops.not_(get(("wex", w))), get(("wn", w)) == 0))
        return ops.and_(*out)

    def wal_files(ops: Any, get: Any) -> Any:
        """WAL ``(s, g, q)`` exists exactly when ``q`` is at most the current sequence; it is
        closed when older than the current one or when its server is dead; only a closed WAL is
        archived; a WAL that does not exist is in its initial form; no WAL waits to be
        registered in the queues (the roll registers it first)."""
        out = [ops.not_(get(("unreg", s, w))) for s in S for w in W]
        for s in S:
            for g in z.G:
                cur = get(("cur", s, g))
                for q in z.Q:
                    w = c.slot((s, g, q))
                    out.append(ops.eq(get(("wex", w)), q <= cur))
                    closed = ops.or_(q < cur, ops.not_(get(("alive", s))))
                    out.append(ops.implies(get(("wex", w)), ops.eq(get(("wclosed", w)), closed)))
                    out.append(ops.implies(get(("wplace", w)) != LIVE_DIR, get(("wclosed", w))))
                    out.append(
                        ops.implies(
                            ops.not_(get(("wex", w))),
                            ops.and_(ops.not_(get(("wclosed", w))), get(("wplace", w)) == LIVE_DIR),
                        )
                    )
        return ops.and_(*out)

    def peers_as_configured(ops: Any, get: Any) -> Any:
        """Without admin commands every peer stays as configured (the first ``initial_peers``
        enabled), replication stays on, each live server knows every enabled peer and has
        handled no removal."""
        out = [get(("repl",))]
        for p in P:
            out.append(get(("peer", p)) == (ENABLED if p < c.initial_peers else 0))
            for s in S:
                out.append(ops.not_(get(("gone", s, p))))
                out.append(
                    ops.implies(
                        get(("alive", s)), ops.eq(get(("known", s, p)), p < c.initial_peers)
                    )
                )
                out.append(ops.implies(ops.not_(get(("alive", s))), ops.not_(get(("known", s, p)))))
        return ops.and_(*out)

    def queue_holds_its_servers_wals(ops: Any, get: Any) -> Any:
        """A queue znode names only WALs of the server its id says: the owner's for a normal
        queue, the first dead server's for a claimed one; a claimed queue's chain names dead
        servers other than its owner; every queued WAL exists; no queue without ``/rs/<owner>``.
        (A queue is created with the owner's current WAL, grows by the owner's new WALs, and
        moves whole, its id extended by the server it was taken from.)"""
        out = []
        for o in S:
            for p in P:
                for ci in CH:
                    chain = z.chains[ci]
                    ex = get(("qex", o, p, ci))
                    out.append(ops.implies(ex, get(("rex", o))))
                    if o in chain:
                        out.append(ops.not_(ex))
                    for d in chain:
                        out.append(ops.implies(ex, ops.not_(get(("alive", d)))))
                    owner = chain[0] if chain else o
                    for w in W:
                        inn = get(("qin", o, p, ci, w))
                        out.append(ops.implies(inn, ex))
                        out.append(ops.implies(inn, get(("wex", w))))
                        if z.key[w][0] != owner:
                            out.append(ops.not_(inn))
                        out.append(ops.implies(ops.not_(inn), get(("qpos", o, p, ci, w)) == 0))
        return ops.and_(*out)

    def one_queue_per_wal(ops: Any, get: Any) -> Any:
        """Each WAL is named for a peer by at most one queue znode, of any server, live or dead:
        a claim moves a queue in one ``multi`` (it creates the new and deletes the old)."""
        return ops.and_(
            *(
                count(ops, (get(("qin", o, p, ci, w)) for o in S for ci in CH)) <= 1
                for p in P
                for w in W
            )
        )

    def copies_only_at_the_lock_holder(ops: Any, get: Any) -> Any:
        """``zk-lock``: each WAL is named for a peer by at most one queue of a live server and at
        most one of a dead server; when both, the live one is the copy the dead server's lock
        holder made, under the claimed name, with the same position (queues are copied one at a
        time, and the dead server's node goes only in ``finish_claim``)."""
        out = []
        for p in P:
            for w in W:
                live = count(
                    ops,
                    (
                        ops.and_(get(("alive", o)), get(("qin", o, p, ci, w)))
                        for o in S
                        for ci in CH
                    ),
                )
                dead = count(
                    ops,
                    (
                        ops.and_(ops.not_(get(("alive", o))), get(("qin", o, p, ci, w)))
                        for o in S
                        for ci in CH
                    ),
                )
                out += [live <= 1, dead <= 1]
                for d in S:
                    for ci in CH:
                        src = ops.and_(ops.not_(get(("alive", d))), get(("qin", d, p, ci, w)))
                        for o in S:
                            for ci2 in CH:
                                if o == d:
                                    continue
                                both = ops.and_(src, get(("alive", o)), get(("qin", o, p, ci2, w)))
                                ok = ops.and_(
                                    get(("lock", d)) == o,
                                    ci2 == z.new_chain[(ci, d)],
                                    get(("qpos", o, p, ci2, w)) == get(("qpos", d, p, ci, w)),
                                )
                                out.append(ops.implies(both, ok))
        for o in S:
            for p in P:
                for ci2 in CH:
                    chain2 = z.chains[ci2]
                    if not chain2:
                        continue
                    d = chain2[-1]
                    pending = ops.and_(get(("qex", o, p, ci2)), get(("rex", d)))
                    origins = [
                        ops.and_(
                            get(("qex", d, p, ci)),
                            *(
                                ops.eq(get(("qin", d, p, ci, w)), get(("qin", o, p, ci2, w)))
                                for w in W
                            ),
                        )
                        for ci in CH
                        if z.new_chain[(ci, d)] == ci2
                    ]
                    whole = ops.and_(get(("lock", d)) == o, ops.or_(*origins))
                    out.append(ops.implies(pending, whole))
        return ops.and_(*out)

    def locks_on_dead_nodes(ops: Any, get: Any) -> Any:
        """``zk-lock``: a lock znode sits only on a dead server's node and names a live server
        (with one crash allowed, the holder cannot die); servers die only within the crash and
        ZooKeeper-fault budgets."""
        out = []
        deaths = count(ops, (ops.not_(get(("alive", s))) for s in S))
        budget = get(("b", "crashes")) + get(("b", "zk_faults"))
        out.append(deaths + budget == c.crashes + c.zk_faults)
        for d in S:
            held = get(("lock", d)) != NO_LOCK
            out.append(ops.implies(held, ops.and_(get(("rex", d)), ops.not_(get(("alive", d))))))
            for s in S:
                by_s = get(("lock", d)) == s
                out.append(ops.implies(by_s, get(("alive", s)) if s != d else False))
        return ops.and_(*out)

    def live_queues_complete(ops: Any, get: Any) -> Any:
        """A live server's normal queue of each peer it knows exists and holds its current
        WAL of every group."""
        out = []
        for s in S:
            for p in P:
                live = ops.and_(get(("alive", s)), get(("known", s, p)))
                out.append(ops.implies(live, get(("qex", s, p, 0))))
                for g in z.G:
                    for q in z.Q:
                        w = c.slot((s, g, q))
                        current = ops.and_(live, get(("cur", s, g)) == q)
                        out.append(ops.implies(current, get(("qin", s, p, 0, w))))
        return ops.and_(*out)

    def copying(ops: Any, get: Any, s: int, ci: int) -> Any:
        """``zk-lock``: is queue slot ``(s, *, ci)`` a copy ``s`` made of a queue of the dead
        server it holds the lock of, before ``finish_claim`` started its sources?"""
        chain = z.chains[ci]
        if z.multi or not chain:
            return False
        d = chain[-1]
        return ops.and_(get(("rex", d)), get(("lock", d)) == s)

    def shippers_mirror_queues(ops: Any, get: Any) -> Any:
        """On a live server, the shipper of queue ``(peer, chain)`` and WAL group ``g`` holds, in
        order of sequence and without repeats, exactly the queue's WALs of that group, and
        exists exactly when that list is not empty; no second copy exists; dead servers have no
        shippers and no claim in progress; a server with a pending SCP is dead. (``zk-lock``: a
        queue copied from a locked dead server has no shipper until ``finish_claim``. A claimed
        queue marked for its claimer's delete, ``drop_claimed_queue``, has none: it is a
        recovered queue of a removed peer on a live server.)"""
        out = []
        for s in S:
            for p in P:
                for ci in CH:
                    marked = get(("drop", s, p, ci))
                    if not z.chains[ci]:
                        out.append(ops.not_(marked))
                    removed = get(("peer", p)) == REMOVED
                    out.append(ops.implies(marked, ops.and_(get(("alive", s)), removed)))
                    busy = ops.or_(copying(ops, get, s, ci), marked)
                    alive = ops.and_(get(("alive", s)), ops.not_(busy))
                    if busy is not False:
                        for g in z.G:
                            out.append(ops.implies(busy, ops.not_(get(("sh", s, p, ci, g, 0)))))
                    for g in z.G:
                        mine = [w for w in W if z.key[w][1] == g]
                        sk = (s, p, ci, g, 0)
                        n = get(("shn", *sk))
                        members = count(ops, (get(("qin", s, p, ci, w)) for w in mine))
                        out.append(ops.implies(alive, ops.eq(get(("sh", *sk)), members > 0)))
                        out.append(ops.implies(alive, n == members))
                        for m in range(1, COPIES):
                            out.append(ops.not_(get(("sh", s, p, ci, g, m))))
                        for j in range(z.LW):
                            x = get(("shw", *sk, j))
                            out.append(ops.implies(ops.not_(j < n), x == -1))
                            inside = ops.or_(
                                *(ops.and_(x == w, get(("qin", s, p, ci, w))) for w in mine)
                            )
                            out.append(ops.implies(ops.and_(alive, j < n), inside))
                            for j2 in range(j + 1, z.LW):
                                y = get(("shw", *sk, j2))
                                ordered = ops.or_(
                                    *(
                                        ops.and_(x == a, y == b)
                                        for a in mine
                                        for b in mine
                                        if z.key[a][2] < z.key[b][2]
                                    )
                                )
                                out.append(ops.implies(j2 < n, ordered))
                        empty = ops.and_(n == 0, get(("shpos", *sk)) == 0)
                        out.append(ops.implies(ops.not_(get(("sh", *sk))), empty))
                        dead = ops.not_(get(("alive", s)))
                        out.append(ops.implies(dead, ops.not_(get(("sh", *sk)))))
            out.append(ops.implies(ops.not_(get(("alive", s))), ops.not_(get(("cl", s)))))
            out.append(ops.implies(get(("fail", s)), ops.not_(get(("alive", s)))))
        return ops.and_(*out)

    def claims_read_dead_queues(ops: Any, get: Any) -> Any:
        """A claim in progress read a queue of a dead server other than the claimer, holding
        only WALs of the server its id names; the chain it will write fits the layout."""
        out = []
        for s in S:
            cl = get(("cl", s))
            dead_read = ops.or_(*(ops.and_(get(("cld", s)) == d, get(("alive", d))) for d in S))
            out.append(ops.implies(cl, ops.not_(dead_read)))
            out.append(ops.implies(cl, get(("cld", s)) != s))
            for ci in CH:
                for d in S:
                    here = ops.and_(cl, get(("clc", s)) == ci, get(("cld", s)) == d)
                    chain = z.chains[ci]
                    if s in chain or d in chain or z.new_chain[(ci, d)] < 0:
                        out.append(ops.not_(here))
                    owner = chain[0] if chain else d
                    for w in W:
                        if z.key[w][0] != owner:
                            out.append(ops.implies(here, ops.not_(get(("clin", s, w)))))
        return ops.and_(*out)

    def cleaner_snapshot_sound(ops: Any, get: Any) -> Any:
        """While the cleaner reads and the cversion of ``/rs`` has not moved, every listed WAL
        still queued at a server already read, in a queue already read (not still listed), was
        seen; listed WALs are archived or deleted; outside a run nothing is listed, read or seen.
        (Queues gain only new WALs, which are not listed, except by a claim, which moves the
        cversion.)"""
        out = []
        reading = get(("phase",)) == READING
        deleting = get(("phase",)) == DELETING
        stable = ops.and_(reading, ops.not_(get(("changed",))))
        for w in W:
            queued = []
            for s in S:
                queued_s = ops.or_(*(get(("qin", s, p, ci, w)) for p in P for ci in CH))
                read_s = ops.or_(
                    *(
                        ops.and_(get(("qin", s, p, ci, w)), ops.not_(get(("lst", s, p, ci))))
                        for p in P
                        for ci in CH
                    )
                )
                known = ops.and_(stable, get(("read", s)), get(("cand", w)), read_s)
                out.append(ops.implies(known, get(("seen", w))))
                queued.append(queued_s)
            place = get(("wplace", w))
            listed = ops.and_(get(("wex", w)), ops.or_(place == ARCHIVED, place == DELETED))
            out.append(ops.implies(get(("cand", w)), listed))
            out.append(ops.implies(ops.not_(reading), ops.not_(get(("seen", w)))))
            out.append(
                ops.implies(
                    ops.and_(ops.not_(reading), ops.not_(deleting)), ops.not_(get(("cand", w)))
                )
            )
            # a run's decision (multi: deleting) names only archived WALs that no queue holds (a
            # claim in progress that read one fails: the queue it read has changed)
            doomed = ops.and_(deleting, get(("cand", w)))
            out.append(ops.implies(doomed, ops.and_(place == ARCHIVED, ops.not_(ops.or_(*queued)))))
            out.append(ops.implies(get(("seen", w)), get(("cand", w))))
            if z.multi:
                out.append(ops.not_(get(("cache", w))))
            else:
                out.append(ops.not_(get(("cand", w))))
        for s in S:
            out.append(ops.implies(ops.not_(reading), ops.not_(get(("read", s)))))
            for p in P:
                for ci in CH:
                    listed = get(("lst", s, p, ci))
                    out.append(ops.implies(listed, ops.and_(reading, get(("read", s)))))
        out.append(ops.implies(ops.not_(reading), ops.not_(get(("changed",)))))
        idle = get(("phase",)) == IDLE
        out.append(ops.or_(reading, deleting, idle) if z.multi else idle)
        return ops.and_(*out)

    def read_means_applied(ops: Any, get: Any) -> Any:
        """Every edit below a position was delivered: an entry owed to a peer that lies below
        the position of a queue holding its WAL, below the position of the shipper reading that
        WAL, or below a position a claim in progress read, has been applied at the peer;
        positions never pass the end of the WAL. (A shipper moves its position past a batch only
        by shipping it; ``persist`` copies the shipper's position into the queue; a claim keeps
        the stored one.)"""
        out = []

        def below_applied(w: int, p: int, pos: Any) -> Any:
            return ops.and_(
                *(
                    ops.implies(
                        ops.and_(j < pos, get(("wowed", w, j, p))),
                        z.applied(ops, get, p + 1, get(("wu", w, j))),
                    )
                    for j in range(z.E)
                )
            )

        for o in S:
            for p in P:
                for ci in CH:
                    for w in W:
                        pos = get(("qpos", o, p, ci, w))
                        fine = ops.and_(pos <= get(("wn", w)), below_applied(w, p, pos))
                        out.append(ops.implies(get(("qin", o, p, ci, w)), fine))
                    for g in z.G:
                        sk = (o, p, ci, g, 0)
                        pos = get(("shpos", *sk))
                        for w in W:
                            at = ops.and_(get(("sh", *sk)), get(("shw", *sk, 0)) == w)
                            fine = ops.and_(pos <= get(("wn", w)), below_applied(w, p, pos))
                            out.append(ops.implies(at, fine))
            for w in W:
                pos = get(("clpos", o, w))
                claimed = ops.and_(get(("cl", o)), get(("clin", o, w)))
                per_peer = (ops.implies(get(("clp", o)) == p, below_applied(w, p, pos)) for p in P)
                out.append(ops.implies(claimed, ops.and_(pos <= get(("wn", w)), *per_peer)))
                out.append(ops.implies(ops.not_(claimed), pos == 0))
        return ops.and_(*out)

    def no_lock(ops: Any, get: Any) -> Any:
        """``zk-multi`` never writes a lock znode."""
        return ops.and_(*(get(("lock", s)) == NO_LOCK for s in S))

    def nothing_overflows(ops: Any, get: Any) -> Any:
        """The flat layout never ran out of slots."""
        return ops.not_(get(("overflow",)))

    shared = (
        entry_identity,
        wal_files,
        peers_as_configured,
        queue_holds_its_servers_wals,
        live_queues_complete,
        shippers_mirror_queues,
        claims_read_dead_queues,
        cleaner_snapshot_sound,
        read_means_applied,
        nothing_overflows,
    )
    own = (
        (one_queue_per_wal, no_lock)
        if z.multi
        else (
            copies_only_at_the_lock_holder,
            locks_on_dead_nodes,
        )
    )
    fns = (*shared, *own)
    return {f.__name__: FlatProperty(f.__name__, "lemma", f) for f in fns}


def run_induction(
    timeout: float = 120.0, names: Iterable[str] | None = None, design: str = "zk-multi"
) -> list[Any]:
    """Induction for each invariant of ``design`` under ``std`` (or those ``names``), each with
    every lemma above that applies to the design as its strengthening."""
    from replcheck.model import get_design
    from replcheck.model.config import STANDARD
    from replcheck.model.engine.catalogue import flat_class
    from replcheck.specs.bmc import induct_invariants

    z = flat_class(design)(get_design(design), STANDARD[INDUCTION_CONFIG])
    fm = z.model()
    return induct_invariants(fm, zk_lemmas(z).values(), timeout=timeout, names=names)
