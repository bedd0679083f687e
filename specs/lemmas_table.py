"""Strengthening lemmas for induction over the table-era flat model (``model/table/layout.py``,
``specs/bmc.py`` ``induct``), for ``table`` and ``table-doc`` under the standard configuration
``t-std`` (two servers, one peer enabled from the start, WALs rolled once, one edit, one crash, one
run of the log cleaner; no admin commands, no sink outage, no master restart).

Each lemma below rules out a class of unreachable states from which a step breaks an invariant,
and says in its docstring why it holds in every reachable state. ``run_induction`` proves each
invariant with all of them as its strengthening (``bmc.induct_invariants`` says how).

The vocabulary: an entry is *owed* to a peer when the put marked it so, and *pending* while the
peer's cluster has not applied it; a queue row or a source *needs* a WAL it would still read
(``shouldReplicate`` from the row's offset, or the source's WAL list); a WAL is *wanted* while it
holds a pending entry or something needs it. The log cleaner deletes only WALs its snapshot lets
go, and the heart of the proof is that its snapshot never lets a wanted WAL go
(``cleaner_keeps_wanted``).

Only the two table-era designs whose steps under ``t-std`` are the same (the designs differ in
what RemovePeerProcedure waits for, and ``t-std`` has no admin command) are covered; the lemmas
lean on the configuration's bounds (one crash, no admin command), which ``table_lemmas`` checks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import ABSENT, DELETED, ENABLED, LIVE_DIR, REMOVED
from replcheck.model.engine.text import FlatProperty, count
from replcheck.model.table import rules as table_rules
from replcheck.model.table.layout import CLAIMS, TableFlat, config_features
from replcheck.model.table.rules import NO_TIMESTAMP
from replcheck.model.table.state import (
    ARQP_CLAIM,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    BEGIN_SEQ,
    C_IDLE,
    C_READY,
    C_SERVERS,
    FULL,
    NO_SOURCE,
    NOT_RUNNING,
    RUNNING,
    SCP_DONE,
    SCP_NONE,
    SCP_SPLIT,
)

INDUCTION_DESIGNS = ("table", "table-doc")
INDUCTION_CONFIG = "t-std"
"""The designs and the configuration these lemmas are written for."""


def table_lemmas(z: TableFlat) -> dict[str, FlatProperty]:
    """The lemmas over the flat model ``z`` (of a design of ``INDUCTION_DESIGNS``)."""
    c = z.cfg
    if c.admin_ops or c.sink_outages or c.master_restarts or c.crashes != 1:
        raise ValueError(
            f"config {c.name!r}: the table lemmas assume one crash and no admin command, sink "
            "outage or master restart"
        )
    features = config_features(c)
    if features:
        raise ValueError(f"config {c.name!r}: the table lemmas do not cover {features[0][1]}")
    S, P, G, Q, W, E, OG = z.S, z.P, z.G, z.Q, z.W, z.E, z.OG
    PEER_SLOTS = [sk for sk in z.sh_keys if sk[4] == 0]

    # --- helpers --------------------------------------------------------------------------------

    def here(ops: Any, get: Any, w: int, j: int) -> Any:
        return ops.and_(get(("wex", w)), j < get(("wn", w)))

    def pending(ops: Any, get: Any, w: int, j: int, p: int) -> Any:
        """Entry ``j`` of WAL ``w`` is owed to peer ``p`` (not removed) and not applied there."""
        return ops.and_(
            here(ops, get, w, j),
            get(("wowed", w, j, p)),
            get(("peer", p)) != REMOVED,
            ops.not_(get(("app", p + 1, z.uid(w, j)))),
        )

    def rows_of(p: int, x: int) -> list[tuple]:
        """The row keys of peer ``p`` whose WALs are server ``x``'s."""
        return [rk for rk in z.rkeys if rk[0] == p and z.wal_owner(rk[1], rk[2]) == x]

    def any_row(ops: Any, get: Any, p: int, x: int, prefix: str = "r") -> Any:
        return ops.or_(*(get((prefix + "ex", *rk)) for rk in rows_of(p, x)))

    def column(ops: Any, get: Any, prefix: str, rk: tuple, g: int) -> tuple[Any, Any, Any]:
        """The rules' arguments for the row's offset of group ``g``: (has, timestamp, pos)."""
        has = get((prefix + "has", *rk, g))
        ts = ops.ite(has, get((prefix + "seq", *rk, g)), NO_TIMESTAMP)
        pos = ops.ite(has, get((prefix + "pos", *rk, g)), 0)
        return has, ts, pos

    def row_needs(ops: Any, get: Any, rk: tuple, g: int, q: int, prefix: str = "r") -> Any:
        """The row exists and ``shouldReplicate`` WAL sequence ``q`` of group ``g``."""
        has, ts, pos = column(ops, get, prefix, rk, g)
        return ops.and_(
            get((prefix + "ex", *rk)),
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )

    def row_covers(ops: Any, get: Any, rk: tuple, g: int, q: int, j: int) -> Any:
        """A source started from the row would read entry ``j`` of WAL sequence ``q``."""
        has, ts, pos = column(ops, get, "r", rk, g)
        return ops.and_(
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
            table_rules.start_position_rule(ops, has, ts, pos, q) <= j,
        )

    def sources_of(p: int, x: int, g: int) -> list[tuple]:
        """Shipper slots (copy 0) of peer ``p`` reading group ``g`` of server ``x``'s WALs."""
        return [
            sk for sk in PEER_SLOTS if sk[1] == p and sk[3] == g and z.wal_owner(sk[0], sk[2]) == x
        ]

    def live(ops: Any, get: Any, sk: tuple) -> Any:
        return ops.and_(get(("alive", sk[0])), get(("sh", *sk)))

    def head_is(ops: Any, get: Any, sk: tuple, q: int) -> Any:
        return z.head_is(ops, get, sk, q)

    def stage_in(ops: Any, get: Any, x: int, lo: int, hi: int) -> Any:
        st = get(("stage", x))
        return ops.and_(st >= lo, st <= hi)

    def unclaimed(ops: Any, get: Any, p: int, x: int) -> Any:
        """``x`` is dead, its SCP has not yet put its missing queues, and no row of ``p`` holds
        its WALs: every WAL of ``x`` will be read from the start."""
        return ops.and_(
            ops.not_(get(("alive", x))),
            stage_in(ops, get, x, SCP_SPLIT, ARQP_PUT_MISSING),
            ops.not_(any_row(ops, get, p, x)),
        )

    def wanted(ops: Any, get: Any, x: int, g: int, q: int) -> Any:
        """WAL ``(x, g, q)`` holds a pending entry, or a live source lists it, or a row needs
        it, or its dead server's SCP has yet to give it a queue."""
        w = z.slot(x, g, q)
        out = []
        for p in P:
            out += [pending(ops, get, w, j, p) for j in range(E)]
            out += [
                ops.and_(live(ops, get, sk), get(("shw", *sk, q))) for sk in sources_of(p, x, g)
            ]
            out += [row_needs(ops, get, rk, g, q) for rk in rows_of(p, x)]
            out.append(unclaimed(ops, get, p, x))
        return ops.or_(*out)

    def would_delete(ops: Any, get: Any, prefix: str, x: int, g: int, q: int) -> Any:
        """``rule_cleaner_may_delete`` for WAL ``(x, g, q)`` on the rows of ``prefix`` (the
        cleaner's snapshot ``cr``, or the rows now, ``r``, which ``cleaner_read`` is about to
        copy), with the live servers the cleaner read at its start."""
        views = []
        for p in P:
            order: list[tuple] = []
            for o in S:
                order += [(p, x, NO_SOURCE), (p, x, x)] if o == x else [(p, o, x)]
            has_queue = ops.or_(*(get((prefix + "ex", *rk)) for rk in order))
            has: Any = False
            seq: Any = NO_TIMESTAMP
            pos: Any = 0
            for rk in order:
                col = get((prefix + "has", *rk, g))
                has = ops.or_(has, col)
                seq = ops.ite(col, get((prefix + "seq", *rk, g)), seq)
                pos = ops.ite(col, get((prefix + "pos", *rk, g)), pos)
            listed = get(("cpeers", p)) if prefix == "cr" else z.storage(ops, get, p)
            views.append(table_rules.QueueView(listed, has_queue, has, seq, pos))
        has_server = ops.or_(
            *(get((prefix + "ex", *rk)) for rk in z.rkeys if z.wal_owner(rk[1], rk[2]) == x)
        )
        rule = z.rule["rule_cleaner_may_delete"]
        return rule(ops, q, get(("clive", x)), has_server, views)

    # --- the lemmas -----------------------------------------------------------------------------

    def environment_fixed(ops: Any, get: Any) -> Any:
        """Without admin commands every peer stays as configured (the first ``initial_peers``
        enabled, the rest absent), no peer procedure runs and none finished; each live server
        knows exactly the enabled peers, a dead one none; without outages no sink is down;
        without master restarts no claim is redelivered; the barrier is RUNNING exactly while a
        cleaner run is under way and is never disabled (no AddPeerProcedure)."""
        out = []
        d = z.defaults()
        for p in P:
            out.append(get(("peer", p)) == (ENABLED if p < c.initial_peers else ABSENT))
            out += [get(k) == d[k] for k in z.proc_keys(p)]
            out.append(ops.not_(get(("rdone", p))))
            for s in S:
                out.append(
                    ops.eq(
                        get(("known", s, p)), get(("alive", s)) if p < c.initial_peers else False
                    )
                )
        for cl in z.CL:
            out += [ops.not_(get(("down", cl, k))) for k in range(c.sink_servers)]
        for s in S:
            for m in range(1, CLAIMS):
                out += [get(k) == d[k] for k in z.claim_keys(s, m)]
        idle = get(("cph",)) == C_IDLE
        out.append(get(("bar",)) == ops.ite(idle, NOT_RUNNING, RUNNING))
        out.append(get(("barn",)) == 0)
        return ops.and_(*out)

    def one_crash(ops: Any, get: Any) -> Any:
        """Servers die only within the crash budget and never restart; a live server has no
        SCP, a dead one's SCP is at some stage (never REMOVE_QUEUES: no SyncUp marker). The
        peers ADD_MISSING_QUEUES read are marked only while it puts the missing queues, and are
        exactly the peers in storage with no row of the dead server (no row of a dead server
        appears or goes before its claims); claim children exist only in the CLAIM stage, each
        for a row still there (only its own claim moves it) and targeting a live server (with
        one crash, the claimer cannot die)."""
        out = []
        deaths = count(ops, (ops.not_(get(("alive", s))) for s in S))
        out.append(deaths + get(("b", "crashes")) == c.crashes)
        for s in S:
            st = get(("stage", s))
            out.append(ops.eq(get(("alive", s)), st == SCP_NONE))
            out.append(st != ARQP_REMOVE)
            for p in P:
                out.append(ops.implies(get(("scpp", s, p)), st == ARQP_PUT_MISSING))
                # in PUT_MISSING, the peers read are exactly those without a row
                put = ops.and_(st == ARQP_PUT_MISSING, z.storage(ops, get, p))
                out.append(
                    ops.implies(put, ops.eq(get(("scpp", s, p)), ops.not_(any_row(ops, get, p, s))))
                )
                for src in z.SRC:
                    ch = get(("ch", s, p, src))
                    t = get(("cht", s, p, src))
                    out.append(ops.implies(ch, st == ARQP_CLAIM))
                    out.append(ops.implies(ops.not_(ch), t == 0))
                    target_ok = ops.or_(*(ops.and_(t == x, get(("alive", x))) for x in S))
                    out.append(ops.implies(ch, ops.and_(target_ok, get(("rex", p, s, src)))))
        return ops.and_(*out)

    def wal_files(ops: Any, get: Any) -> Any:
        """WAL ``(x, g, q)`` exists exactly when ``q`` is at most the current sequence; it is
        closed when older than the current one or when its server is dead; only a closed WAL
        leaves the WAL directory, and a dead server's WALs all left it once its SCP split them;
        a WAL that does not exist is in its initial form. Entry ``j`` is there when ``j`` is
        below the length: a client put of a configured kind, owed to exactly the peers enabled
        from the start whose filter takes it; past the length, slots are empty. A sink applied
        only entries that are there (a duplicate is applied too). Entries and the puts left in
        the budget add up to the configured edits."""
        out = []
        total = count(ops, (here(ops, get, w, j) for w in W for j in range(E)))
        out.append(total + get(("b", "puts")) == c.edits)
        for x in S:
            for g in G:
                cur = get(("cur", x, g))
                for q in Q:
                    w = z.slot(x, g, q)
                    ex = get(("wex", w))
                    out.append(ops.eq(ex, q <= cur))
                    closed = ops.or_(q < cur, ops.not_(get(("alive", x))))
                    out.append(ops.implies(ex, ops.eq(get(("wclosed", w)), closed)))
                    place = get(("wplace", w))
                    out.append(ops.implies(place != LIVE_DIR, get(("wclosed", w))))
                    split = ops.and_(ops.not_(get(("alive", x))), get(("stage", x)) != SCP_SPLIT)
                    out.append(ops.implies(ops.and_(ex, split), place != LIVE_DIR))
                    out.append(
                        ops.implies(
                            ops.not_(ex),
                            ops.and_(
                                ops.not_(get(("wclosed", w))),
                                place == LIVE_DIR,
                                get(("wn", w)) == 0,
                            ),
                        )
                    )
                    for j in range(E):
                        there = here(ops, get, w, j)
                        kind = get(("wkind", w, j))
                        ok = [ops.or_(*(kind == k for k in c.edit_kinds))]
                        for p in P:
                            owed = rules.replicable_rule(ops, kind, (0,), p + 1)
                            if p >= c.initial_peers:
                                owed = False
                            ok.append(ops.eq(get(("wowed", w, j, p)), owed))
                        empty = [kind == -1] + [ops.not_(get(("wowed", w, j, p))) for p in P]
                        out.append(ops.ite(there, ops.and_(*ok), ops.and_(*empty)))
                        for cl in z.CL:
                            u = z.uid(w, j)
                            out.append(ops.implies(get(("app", cl, u)), there))
                            out.append(ops.implies(get(("dup", cl, u)), get(("app", cl, u))))
        return ops.and_(*out)

    def rows_well_formed(ops: Any, get: Any) -> Any:
        """A row (and a row of the cleaner's snapshot, copied from the rows at once) holds its
        columns' defaults where absent; the placeholder column holds BEGIN, and only once the
        row's server is dead and its SCP past PUT_MISSING; a group's column names an existing
        WAL of the row's server, at a position within it or FULL, and FULL only for a WAL older
        than the current one (a source advances only with a newer WAL queued). A normal row of
        a dead server exists only until its SCP is done (its queue is claimed first); a
        recovered row names a dead server other than its live owner, whose SCP is past
        PUT_MISSING; the rows of one peer and server are at most one (a claim moves the row in
        one mutation). Idem for the snapshot."""
        out = []
        for prefix in ("r", "cr"):
            for p in P:
                for x in S:
                    out.append(count(ops, (get((prefix + "ex", *rk)) for rk in rows_of(p, x))) <= 1)
            for rk in z.rkeys:
                p, o, src = rk
                x = z.wal_owner(o, src)
                ex = get((prefix + "ex", *rk))
                if src == o:
                    out.append(ops.not_(ex))
                if src != NO_SOURCE:
                    out.append(
                        ops.implies(
                            ex,
                            ops.and_(
                                get(("alive", o)),
                                ops.not_(get(("alive", x))),
                                get(("stage", x)) >= ARQP_CLAIM,
                            ),
                        )
                    )
                elif prefix == "r":
                    out.append(ops.implies(ex, get(("stage", x)) != SCP_DONE))
                for og in OG:
                    has = get((prefix + "has", *rk, og))
                    seq = get((prefix + "seq", *rk, og))
                    pos = get((prefix + "pos", *rk, og))
                    out.append(ops.implies(has, ex))
                    out.append(ops.implies(ops.not_(has), ops.and_(seq == -1, pos == -1)))
                    if og < 0:
                        begin = ops.and_(
                            seq == BEGIN_SEQ,
                            pos == 0,
                            ops.not_(get(("alive", x))),
                            get(("stage", x)) >= ARQP_CLAIM,
                        )
                        out.append(ops.implies(has, begin))
                        continue
                    cur = get(("cur", x, og))
                    out.append(ops.implies(has, ops.and_(seq >= 0, seq <= cur)))
                    out.append(ops.implies(ops.and_(has, pos == FULL), seq < cur))
                    out.append(ops.implies(has, pos >= FULL))
                    for q in Q:
                        w = z.slot(x, og, q)
                        out.append(ops.implies(ops.and_(has, seq == q), pos <= get(("wn", w))))
        return ops.and_(*out)

    def sources_follow_rows(ops: Any, get: Any) -> Any:
        """A source runs only on a live server, in copy slot 0 (one per queue and group); an
        unused slot holds its defaults. A live server runs a normal source for each peer it
        knows; a recovered source exists exactly while its row does. A source's head WAL is at
        or past its row's offset, and when it is the offset's WAL the stored position is at most
        the source's (``persist`` stores the source's position; ``advance`` stores FULL and
        moves the head on); a normal source with no offset stored yet still reads from the first
        WAL. The head position lies within the head WAL; the current WAL of a live server is in
        its normal source's list; no listed WAL is past the current one."""
        out = []
        d = z.defaults()
        for sk in z.sh_keys:
            o, p, src, g, m = sk
            on = get(("sh", *sk))
            out.append(
                ops.implies(ops.not_(on), ops.and_(*(get(k) == d[k] for k in z.shipper_keys(sk))))
            )
            if m > 0:
                out.append(ops.not_(on))
                continue
            out.append(ops.implies(on, get(("alive", o))))
            x = z.wal_owner(o, src)
            rk = (p, o, src)
            if src == NO_SOURCE:
                out.append(ops.eq(on, get(("known", o, p))))
                cur = get(("cur", o, g))
                for q in Q:
                    out.append(ops.implies(ops.and_(on, cur == q), get(("shw", *sk, q))))
            elif src == o:
                out.append(ops.not_(on))
                continue
            else:
                out.append(ops.implies(on, get(("rex", *rk))))
            cur = get(("cur", x, g))
            for q in Q:
                out.append(ops.implies(get(("shw", *sk, q)), q <= cur))
            has = get(("rhas", *rk, g))
            seq, pos = get(("rseq", *rk, g)), get(("rpos", *rk, g))
            for q in Q:
                hd = head_is(ops, get, sk, q)
                w = z.slot(x, g, q)
                shpos = get(("shpos", *sk))
                out.append(ops.implies(hd, shpos <= get(("wn", w))))
                at = ops.or_(seq < q, ops.and_(seq == q, pos >= 0, pos <= shpos))
                out.append(ops.implies(ops.and_(hd, has), at))
                if src == NO_SOURCE and q > 0:
                    out.append(ops.not_(ops.and_(hd, ops.not_(has))))
        for rk in z.rkeys:
            p, o, src = rk
            if src in (NO_SOURCE, o):
                continue
            started = ops.or_(*(get(("sh", o, p, src, g, 0)) for g in G))
            out.append(ops.implies(get(("rex", *rk)), started))
        return ops.and_(*out)

    def progress_means_applied(ops: Any, get: Any) -> Any:
        """Every pending entry lies ahead of what reads its WALs: a row's offset (a source
        started from it would read the entry), and each live source of its peer and server (the
        WAL is in the source's list, and at or past the position when it is the head). A
        source moves past an entry only by shipping it, and stores only positions it reached."""
        out = []
        for w in W:
            x, g, q = z.key[w]
            for j in range(E):
                for p in P:
                    pend = pending(ops, get, w, j, p)
                    for rk in rows_of(p, x):
                        on = ops.and_(pend, get(("rex", *rk)))
                        out.append(ops.implies(on, row_covers(ops, get, rk, g, q, j)))
                    for sk in sources_of(p, x, g):
                        on = ops.and_(pend, live(ops, get, sk))
                        ahead = ops.and_(
                            get(("shw", *sk, q)),
                            ops.implies(head_is(ops, get, sk, q), get(("shpos", *sk)) <= j),
                        )
                        out.append(ops.implies(on, ahead))
        return ops.and_(*out)

    def pending_entries_have_a_reader(ops: Any, get: Any) -> Any:
        """A pending entry has something that will read it: a live source of its peer and WAL
        group, or a row of its peer and server, or its dead server's SCP has yet to put the
        missing queues. (A server's SCP creates a row for every peer it has none for before its
        claims; a row goes only when claimed, when its recovered source finished, or when
        nothing was left to read.)"""
        out = []
        for w in W:
            x, g, _q = z.key[w]
            for p in P:
                reader = ops.or_(
                    *(live(ops, get, sk) for sk in sources_of(p, x, g)),
                    any_row(ops, get, p, x),
                    unclaimed(ops, get, p, x),
                )
                for j in range(E):
                    out.append(ops.implies(pending(ops, get, w, j, p), reader))
        return ops.and_(*out)

    def claims_read_their_rows(ops: Any, get: Any) -> Any:
        """A pending claim is one live server's, for a claim child of a dead server targeting
        it, and the row it read is still there with exactly the offsets read (nothing writes a
        dead server's row but the claim); with no claim pending the slot holds its defaults."""
        out = []
        d = z.defaults()
        for t in S:
            cl = get(("cl", t, 0))
            out.append(
                ops.implies(ops.not_(cl), ops.and_(*(get(k) == d[k] for k in z.claim_keys(t, 0))))
            )
            out.append(ops.implies(cl, get(("alive", t))))
            options = []
            for dd in S:
                for p in P:
                    for src in z.SRC:
                        rk = (p, dd, src)
                        this = z.claim_is(ops, get, t, 0, dd, p, src)
                        same = [
                            ops.and_(
                                ops.eq(get(("clhas", t, 0, og)), get(("rhas", *rk, og))),
                                get(("clseq", t, 0, og)) == get(("rseq", *rk, og)),
                                get(("clpos", t, 0, og)) == get(("rpos", *rk, og)),
                            )
                            for og in OG
                        ]
                        ok = ops.and_(
                            get(("ch", dd, p, src)),
                            get(("cht", dd, p, src)) == t,
                            get(("rex", *rk)),
                            ops.or_(*(get(("rhas", *rk, og)) for og in OG)),
                            *same,
                        )
                        if dd == t:
                            ok = False
                        options.append(this)
                        out.append(ops.implies(this, ok))
            out.append(ops.implies(cl, ops.or_(*options)))
        return ops.and_(*out)

    def deleted_wals_unwanted(ops: Any, get: Any) -> Any:
        """A deleted WAL is wanted by nothing: no pending entry, no live source's list, no row,
        no unfinished SCP of its server (the cleaner deleted it when nothing wanted it, and
        nothing wants a WAL again once it stops: entries are appended only to the current WAL,
        and sources and rows only move forward)."""
        out = []
        for w in W:
            x, g, q = z.key[w]
            gone = ops.and_(get(("wex", w)), get(("wplace", w)) == DELETED)
            out.append(ops.implies(gone, ops.not_(wanted(ops, get, x, g, q))))
        return ops.and_(*out)

    def cleaner_keeps_wanted(ops: Any, get: Any) -> Any:
        """What the cleaner's rule would let go, on its snapshot once read (and on the rows now
        while it is about to read them), is not wanted now and is not a current or future WAL of
        a live server. Before the read, a row's offset lies behind everything its WALs still
        hold, and a server with no row (live, or dead with its SCP unfinished when the run
        started) counts as live, so the rule keeps all its WALs. After the read, a WAL becomes
        wanted only through what the snapshot keeps anyway: a put or a roll touches a live
        server's current or next WAL; a crash makes a server's WALs wanted from the start only
        when it had no row (then its normal source listed them all, so the snapshot kept them);
        a claim moves a row with its offsets, and the recovered source lists only what the row
        needs; ``persist`` and ``advance`` move a row only forward."""
        out = []
        ph = get(("cph",))
        for prefix, phase in (("r", C_SERVERS), ("cr", C_READY)):
            on = ph == phase
            for x in S:
                for g in G:
                    for q in Q:
                        gone = would_delete(ops, get, prefix, x, g, q)
                        ahead = ops.and_(get(("alive", x)), q >= get(("cur", x, g)))
                        bad = ops.or_(wanted(ops, get, x, g, q), ahead)
                        out.append(ops.implies(ops.and_(on, gone), ops.not_(bad)))
        return ops.and_(*out)

    fns = (
        environment_fixed,
        one_crash,
        wal_files,
        rows_well_formed,
        sources_follow_rows,
        progress_means_applied,
        pending_entries_have_a_reader,
        claims_read_their_rows,
        deleted_wals_unwanted,
        cleaner_keeps_wanted,
    )
    return {f.__name__: FlatProperty(f.__name__, "lemma", f) for f in fns}


def run_induction(
    timeout: float = 120.0, names: Iterable[str] | None = None, design: str = "table"
) -> list[Any]:
    """Induction for each invariant of ``design`` under ``t-std`` (or those ``names``), each
    with every lemma above as its strengthening."""
    from replcheck.model import get_design
    from replcheck.model.config import STANDARD
    from replcheck.model.table.compose import table_flat_class
    from replcheck.specs.bmc import induct_invariants

    cfg = STANDARD[INDUCTION_CONFIG]
    z = table_flat_class(design, cfg)(get_design(design), cfg)
    fm = z.model()
    return induct_invariants(fm, table_lemmas(z).values(), timeout=timeout, names=names)
