"""The steps of the table-era design (``model/table_common.py``) over the flat layout of
``specs/flat_table.py``, and the flat form of each table-era mutant that overrides a step outside
a dual-form rule.

Each ``_name`` method builds the action instances of the explicit step ``en_name``/``do_name`` of
the same name, with its structural choices (which server, shipper slot, head WAL, queue row,
claim child, target assignment, procedure stage) made parameters and fixed by the guard. Decision
rules the design has in dual form are called through ``generic_of`` (``self.rule``): the edit
filter, the live-server read and the deletion rule of the log cleaner, the claim's guard flag,
AddPeer's fence, the claimer's peer check. The storage rules of ``table_rules`` (the claim guard,
``shouldReplicate``, the start position, the barrier) are called as they are. What the design
decides outside a dual-form rule (``rule_owed``, ``rule_add_missing``, ``rule_recovered_done``,
``rule_recovered_wals``, ``rule_removal_waits_for``, ``rule_removal_pending``) is mirrored in a
method of the same name here, which a mutant's flat class overrides.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from replcheck.model import rules, table_rules
from replcheck.model.state import ABSENT, ARCHIVED, DELETED, DISABLED, ENABLED, LIVE_DIR, REMOVED
from replcheck.model.table_common import (
    AP_POST,
    AP_PRE,
    AP_REFRESH,
    AP_STORAGE,
    RP_POST,
    RP_PRE,
    RP_REFRESH,
    RP_REMOVE_ALL,
    RP_STORAGE,
)
from replcheck.model.table_rules import NO_TIMESTAMP
from replcheck.model.table_state import (
    ADD,
    ARQP_ADD_MISSING,
    ARQP_CLAIM,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    BARRIER_DISABLED,
    BEGIN_SEQ,
    C_IDLE,
    C_READY,
    C_SERVERS,
    FULL,
    NO_SOURCE,
    NOT_RUNNING,
    REMOVE,
    RUNNING,
    SCP_CLAIM_STAGE,
    SCP_DONE,
    SCP_NONE,
    SCP_SPLIT,
)

from .flat import Instance, Tx, count


def lookup(ops: Any, x: Any, table: list[Any], default: Any = 0) -> Any:
    """``table[x]`` for an integer (term) ``x``; ``default`` outside the table."""
    if isinstance(x, int):
        return table[x] if 0 <= x < len(table) else default
    out = default
    for i, val in enumerate(table):
        out = ops.ite(x == i, val, out)
    return out


class TableSteps:
    """The flat steps; mixed into ``TableFlat``, which provides the layout (``S``, ``P``, ``G``,
    ``OG``, ``Q``, ``E``, ``W``, ``SRC``, ``K``, ``CL``, ``sh_keys``, ``rkeys``, ``rule``...)."""

    cfg: Any
    design: Any
    rule: dict[str, Any]
    S: range
    P: range
    G: range
    OG: range
    Q: range
    E: int
    W: range
    SRC: range
    K: range
    CL: range
    sh_keys: list[tuple]
    rkeys: list[tuple]
    passes: int
    refuse: list[bool]
    key: list[tuple[int, int, int]]

    def slot(self, s: int, g: int, q: int) -> int: ...  # noqa: D102 - see TableFlat
    def uid(self, w: int, j: int) -> int: ...  # noqa: D102
    def wal_owner(self, s: int, src: int) -> int: ...  # noqa: D102
    def defaults(self) -> dict[tuple, Any]: ...  # noqa: D102

    # --- shared pieces ------------------------------------------------------------------------

    def dflt(self, k: tuple) -> Any:
        d = getattr(self, "_dflt", None)
        if d is None:
            d = self._dflt = self.defaults()
        return d[k]

    def clear(self, tx: Tx, cond: Any, keys: list[tuple]) -> None:
        for k in keys:
            tx.when(cond, k, self.dflt(k))

    def storage(self, ops: Any, get: Any, p: int) -> Any:
        """``listPeers``: the peer is in peer storage."""
        status = get(("peer", p))
        return ops.or_(status == ENABLED, status == DISABLED)

    def scp_unfinished(self, ops: Any, get: Any, d: int) -> Any:
        stage = get(("stage", d))
        return ops.and_(stage != SCP_NONE, stage != SCP_DONE)

    def arqp_unfinished(self, ops: Any, get: Any, d: int) -> Any:
        stage = get(("stage", d))
        return ops.and_(stage >= ARQP_ADD_MISSING, stage <= ARQP_REMOVE)

    def row_keys(self, rk: tuple, prefix: str = "r") -> list[tuple]:
        out = [(prefix + "ex", *rk)]
        for og in self.OG:
            out += [(prefix + f, *rk, og) for f in ("has", "seq", "pos")]
        return out

    def set_offset(
        self, ops: Any, tx: Tx, cond: Any, rk: tuple, og: int, seq: Any, pos: Any
    ) -> None:
        """``setOffset``: a put of one column; it (re)creates the row."""
        tx.when(cond, ("rex", *rk), True)
        tx.when(cond, ("rhas", *rk, og), True)
        tx.when(cond, ("rseq", *rk, og), seq)
        tx.when(cond, ("rpos", *rk, og), pos)

    def remove_row(self, tx: Tx, cond: Any, rk: tuple) -> None:
        """``removeQueue``: delete the row."""
        self.clear(tx, cond, self.row_keys(rk))

    def shipper_keys(self, sk: tuple) -> list[tuple]:
        return [("sh", *sk), ("shpos", *sk)] + [("shw", *sk, q) for q in self.Q]

    def add_shipper(
        self, ops: Any, tx: Tx, cond: Any, base: tuple, bits: list[Any], pos: Any
    ) -> None:
        """A new shipper in the first free copy slot of ``base`` (server, peer, source, group):
        ``bits`` its WAL list (one flag per sequence)."""
        taken: list[Any] = []
        for m in range(len([k for k in self.sh_keys if k[:4] == base])):
            sk = (*base, m)
            on = tx[("sh", *sk)]
            here = ops.and_(cond, ops.not_(on), *taken)
            taken.append(on)
            tx.when(here, ("sh", *sk), True)
            tx.when(here, ("shpos", *sk), pos)
            for q in self.Q:
                tx.when(here, ("shw", *sk, q), bits[q])
        tx.when(ops.and_(cond, *taken), ("overflow",), True)

    def head_is(self, ops: Any, get: Any, sk: tuple, q: int) -> Any:
        """The shipper slot is in use and its head WAL is sequence ``q``."""
        return ops.and_(
            get(("alive", sk[0])),
            get(("sh", *sk)),
            get(("shw", *sk, q)),
            *(ops.not_(get(("shw", *sk, r))) for r in range(q)),
        )

    def more_after(self, ops: Any, get: Any, sk: tuple, q: int) -> Any:
        return ops.or_(*(get(("shw", *sk, r)) for r in self.Q if r > q))

    def head_slot(self, sk: tuple, q: int) -> int:
        s, _p, src, g, _m = sk
        return self.slot(self.wal_owner(s, src), g, q)

    def readable(self, ops: Any, get: Any, w: int) -> Any:
        """``head``: the WAL exists and is not deleted."""
        return ops.and_(get(("wex", w)), get(("wplace", w)) != DELETED)

    def shipper_ok(self, ops: Any, kind: Any, target: int) -> Any:
        """``rule_ships`` on a local edit (cluster ids ``(0,)``) of kind ``kind``."""
        return self.rule["rule_ships"](ops, kind, (0,), target)

    def kill(self, ops: Any, tx: Tx, s: int) -> None:
        """``kill``: current WALs closed, memory lost (the pending claim stays: a zombie's), an SCP
        scheduled."""
        for g in self.G:
            for q in self.Q:
                w = self.slot(s, g, q)
                tx.when(ops.and_(tx[("cur", s, g)] == q, tx[("wex", w)]), ("wclosed", w), True)
        tx[("alive", s)] = False
        for p in self.P:
            tx[("known", s, p)] = False
        for sk in self.sh_keys:
            if sk[0] == s:
                self.clear(tx, True, self.shipper_keys(sk))
        tx[("stage", s)] = SCP_SPLIT
        self.clear(tx, True, self.scp_keys(s))

    def scp_keys(self, d: int) -> list[tuple]:
        """The SCP's peers and children."""
        out = [("scpp", d, p) for p in self.P]
        for p in self.P:
            for src in self.SRC:
                out += [("ch", d, p, src), ("cht", d, p, src)]
        return out

    def claim_keys(self, s: int, m: int) -> list[tuple]:
        out = [("cl", s, m), ("clp", s, m), ("cls", s, m), ("cld", s, m)]
        for og in self.OG:
            out += [("clhas", s, m, og), ("clseq", s, m, og), ("clpos", s, m, og)]
        return out

    def pop_claim(self, tx: Tx, t: int) -> None:
        """``claim = claim[1:]``."""
        for k0, k1 in zip(self.claim_keys(t, 0), self.claim_keys(t, 1), strict=True):
            tx[k0] = tx[k1]
        self.clear(tx, True, self.claim_keys(t, 1))

    def proc_keys(self, p: int) -> list[tuple]:
        out = [("pp", p), ("ppk", p), ("pps", p), ("ppc", p), ("ppn", p)]
        for s in self.S:
            out += [("ppref", p, s), ("pprec", p, s)]
            out += [("ppkey", p, s, src) for src in self.SRC]
        return out

    # --- action instances ---------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        out: list[Instance] = []
        add = out.append
        c = self.cfg
        for s in self.S:
            for g in self.G:
                for q in self.Q:
                    for kind in c.edit_kinds:
                        for j in range(self.E):
                            add(self._put(s, g, q, j, kind))
                    if q + 1 < c.wals_per_server:
                        add(self._roll(s, g, q))
            add(self._crash(s))
        for w in self.W:
            add(self._archive(w))
        for sk in self.sh_keys:
            for q in self.Q:
                for k in self.K:
                    add(self._ship(sk, q, k))
                add(self._persist(sk, q))
                add(self._advance(sk, q))
                if sk[2] != NO_SOURCE:
                    add(self._finish(sk, q))
        for cl in self.CL:
            for k in range(c.sink_servers):
                add(self._sink_down(cl, k))
                add(self._sink_up(cl, k))
        for d in self.S:
            add(self._scp_split(d))
            add(self._scp_claim_stage(d))
            add(self._arqp_read_missing(d))
            add(self._arqp_put_missing(d))
            add(self._arqp_claim(d, ()))
            for n in range(1, c.servers + 1):
                for tup in permutations(self.S, n):
                    add(self._arqp_claim(d, tup))
            for p in self.P:
                for src in self.SRC:
                    add(self._claim_lost(d, p, src))
                    for t in self.S:
                        add(self._claim_read(t, d, p, src))
                        add(self._claim_commit(t, d, p, src))
                        add(self._zombie_claim_commit(t, d, p, src))
                        if c.master_restarts:
                            add(self._claim_redeliver(t, d, p, src))
        for p in self.P:
            add(self._add_peer(p))
            add(self._remove_peer(p))
            out.extend(self._peer_proc(p))
            for s in self.S:
                for kind in (ADD, REMOVE):
                    add(self._refresh(p, s, kind))
        add(self._cleaner_start())
        add(self._cleaner_read())
        add(self._cleaner_delete())
        if c.master_restarts:
            add(self._master_restart())
        return out

    # --- client writes and WALs ---------------------------------------------------------------

    def rule_owed(self, ops: Any, get: Any, s: int, kind: int, p: int) -> Any:
        """``rule_owed``: a peer the server has a source for whose filter accepts the edit (no
        sync peer here, so no STANDBY view)."""
        return ops.and_(get(("known", s, p)), rules.replicable_rule(ops, kind, (0,), p + 1))

    def _put(self, s: int, g: int, q: int, j: int, kind: int) -> Instance:
        """``put``: a client edit appended to the current WAL of group ``g``."""
        w = self.slot(s, g, q)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "puts")) > 0,
                get(("alive", s)),
                get(("cur", s, g)) == q,
                get(("wn", w)) == j,
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "puts")] = tx[("b", "puts")] - 1
            tx[("wkind", w, j)] = kind
            for p in self.P:
                tx[("wowed", w, j, p)] = self.rule_owed(ops, tx.__getitem__, s, kind, p)
            tx[("wn", w)] = j + 1

        return Instance("put", (s, g, kind, q, j), guard, apply)

    def _roll(self, s: int, g: int, q: int) -> Instance:
        """``roll``: the old WAL closes, the new one goes to every normal source, in memory."""
        old, new = self.slot(s, g, q), self.slot(s, g, q + 1)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("alive", s)), get(("cur", s, g)) == q)

        def apply(ops: Any, tx: Tx) -> None:
            tx[("wclosed", old)] = True
            tx[("wex", new)] = True
            tx[("wn", new)] = 0
            tx[("wclosed", new)] = False
            tx[("wplace", new)] = LIVE_DIR
            for sk in self.sh_keys:
                if sk[0] == s and sk[2] == NO_SOURCE and sk[3] == g:
                    tx.when(tx[("sh", *sk)], ("shw", *sk, q + 1), True)
            tx[("cur", s, g)] = q + 1

        return Instance("roll", (s, g, q), guard, apply)

    def _crash(self, s: int) -> Instance:
        """``crash``: with more than one server online."""

        def guard(ops: Any, get: Any) -> Any:
            alive = count(ops, (get(("alive", t)) for t in self.S))
            return ops.and_(get(("b", "crashes")) > 0, alive > 1, get(("alive", s)))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "crashes")] = tx[("b", "crashes")] - 1
            self.kill(ops, tx, s)

        return Instance("crash", (s,), guard, apply)

    def _archive(self, w: int) -> Instance:
        """``archive``: a closed WAL of a live server moves to oldWALs."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("wex", w)),
                get(("wclosed", w)),
                get(("wplace", w)) == LIVE_DIR,
                get(("alive", self.key[w][0])),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("wplace", w)] = ARCHIVED

        return Instance("archive", self.key[w], guard, apply)

    # --- sources ------------------------------------------------------------------------------

    def _ship(self, sk: tuple, q: int, k: int) -> Instance:
        """``ship``: one batch from the head WAL's position to sink server ``k``."""
        p = sk[1]
        target = p + 1
        w = self.head_slot(sk, q)
        batch = self.cfg.batch

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                self.head_is(ops, get, sk, q),
                get(("peer", p)) == ENABLED,
                self.readable(ops, get, w),
                get(("shpos", *sk)) < get(("wn", w)),
                ops.not_(get(("down", target, k))),
            )

        def apply(ops: Any, tx: Tx) -> None:
            pos, n = tx[("shpos", *sk)], tx[("wn", w)]
            for j in range(self.E):
                inb = ops.and_(pos <= j, j < pos + batch, j < n)
                ok = ops.and_(inb, self.shipper_ok(ops, tx[("wkind", w, j)], target))
                u = self.uid(w, j)
                tx.when(ops.and_(ok, tx[("app", target, u)]), ("dup", target, u), True)
                tx.when(ok, ("app", target, u), True)
            tx[("shpos", *sk)] = ops.ite(n < pos + batch, n, pos + batch)

        return Instance("ship", (*sk, q, k), guard, apply)

    def stored_is(self, ops: Any, get: Any, rk: tuple, g: int, seq: Any, pos: Any) -> Any:
        """``stored(...) == (seq, pos)``: the row has that column with that value."""
        return ops.and_(
            get(("rex", *rk)),
            get(("rhas", *rk, g)),
            get(("rseq", *rk, g)) == seq,
            get(("rpos", *rk, g)) == pos,
        )

    def _persist(self, sk: tuple, q: int) -> Instance:
        """``persist``: ``setOffset`` of the shipped position, and the ``sid`` row."""
        s, p, src, g, _m = sk
        rk = (p, s, src)

        def guard(ops: Any, get: Any) -> Any:
            pos = get(("shpos", *sk))
            return ops.and_(
                self.head_is(ops, get, sk, q),
                pos > 0,
                ops.not_(self.stored_is(ops, get, rk, g, q, pos)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            self.set_offset(ops, tx, True, rk, g, q, tx[("shpos", *sk)])
            tx[("sid", p)] = True

        return Instance("persist", (*sk, q), guard, apply)

    def _advance(self, sk: tuple, q: int) -> Instance:
        """``advance``: the head is done with a newer WAL queued: offset -1, drop the head."""
        s, p, src, g, _m = sk
        w = self.head_slot(sk, q)

        def guard(ops: Any, get: Any) -> Any:
            done = rules.wal_done_rule(
                ops,
                self.more_after(ops, get, sk, q),
                get(("wclosed", w)),
                get(("shpos", *sk)),
                get(("wn", w)),
            )
            return ops.and_(self.head_is(ops, get, sk, q), self.readable(ops, get, w), done)

        def apply(ops: Any, tx: Tx) -> None:
            self.set_offset(ops, tx, True, (p, s, src), g, q, FULL)
            tx[("shw", *sk, q)] = False
            tx[("shpos", *sk)] = 0

        return Instance("advance", (*sk, q), guard, apply)

    def rule_recovered_done(self, ops: Any, get: Any, sk: tuple) -> Any:
        """``rule_recovered_done``: no other shipper of the same queue (HBASE-28155's fix)."""
        s, p, src, _g, _m = sk
        return ops.not_(
            ops.or_(
                *(get(("sh", *x)) for x in self.sh_keys if x[:3] == (s, p, src) and x != sk)
            )
        )

    def _finish(self, sk: tuple, q: int) -> Instance:
        """``finish``: a recovered shipper read its last WAL; the queue's last removes the row."""
        s, p, src, _g, _m = sk
        w = self.head_slot(sk, q)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                self.head_is(ops, get, sk, q),
                ops.not_(self.more_after(ops, get, sk, q)),
                self.readable(ops, get, w),
                get(("wclosed", w)),
                get(("shpos", *sk)) >= get(("wn", w)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            done = self.rule_recovered_done(ops, tx.__getitem__, sk)
            self.clear(tx, True, self.shipper_keys(sk))
            self.remove_row(tx, done, (p, s, src))

        return Instance("finish", (*sk, q), guard, apply)

    def _sink_down(self, cl: int, k: int) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("b", "outages")) > 0, ops.not_(get(("down", cl, k))))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "outages")] = tx[("b", "outages")] - 1
            tx[("down", cl, k)] = True

        return Instance("sink_down", (cl, k), guard, apply)

    def _sink_up(self, cl: int, k: int) -> Instance:
        def apply(ops: Any, tx: Tx) -> None:
            tx[("down", cl, k)] = False

        return Instance("sink_up", (cl, k), lambda ops, get: get(("down", cl, k)), apply)

    # --- ServerCrashProcedure and AssignReplicationQueuesProcedure ----------------------------

    def _scp_split(self, d: int) -> Instance:
        """``scp_split``: the dead server's WALs to oldWALs; its pending claim is dropped; CLAIM
        next, or done with no peer in storage."""

        def guard(ops: Any, get: Any) -> Any:
            return get(("stage", d)) == SCP_SPLIT

        def apply(ops: Any, tx: Tx) -> None:
            for g in self.G:
                for q in self.Q:
                    w = self.slot(d, g, q)
                    live = ops.and_(tx[("wex", w)], tx[("wplace", w)] == LIVE_DIR)
                    tx.when(live, ("wplace", w), ARCHIVED)
                    tx.when(live, ("wclosed", w), True)
            for m in range(2):
                self.clear(tx, True, self.claim_keys(d, m))
            peers = ops.or_(*(self.storage(ops, tx.__getitem__, p) for p in self.P))
            tx[("stage", d)] = ops.ite(peers, SCP_CLAIM_STAGE, SCP_DONE)
            self.clear(tx, True, self.scp_keys(d))

        return Instance("scp_split", (d,), guard, apply)

    def _stage_step(self, name: str, d: int, frm: int, to: int) -> Instance:
        def apply(ops: Any, tx: Tx) -> None:
            tx[("stage", d)] = to
            self.clear(tx, True, self.scp_keys(d))

        return Instance(name, (d,), lambda ops, get: get(("stage", d)) == frm, apply)

    def _scp_claim_stage(self, d: int) -> Instance:
        """``scp_claim_stage`` (no migration: claims are allowed)."""
        return self._stage_step("scp_claim_stage", d, SCP_CLAIM_STAGE, ARQP_ADD_MISSING)

    def rule_add_missing(self, ops: Any, get: Any, d: int, p: int) -> Any:
        """``rule_add_missing``: a peer in storage the crashed server has no normal queue for."""
        return ops.and_(self.storage(ops, get, p), ops.not_(get(("rex", p, d, NO_SOURCE))))

    def _arqp_read_missing(self, d: int) -> Instance:
        """``arqp_read_missing`` (no SyncUp marker)."""

        def apply(ops: Any, tx: Tx) -> None:
            missing = [self.rule_add_missing(ops, tx.__getitem__, d, p) for p in self.P]
            tx[("stage", d)] = ARQP_PUT_MISSING
            self.clear(tx, True, self.scp_keys(d))
            for p in self.P:
                tx[("scpp", d, p)] = missing[p]

        guard = lambda ops, get: get(("stage", d)) == ARQP_ADD_MISSING  # noqa: E731
        return Instance("arqp_read_missing", (d,), guard, apply)

    def _arqp_put_missing(self, d: int) -> Instance:
        """``arqp_put_missing``: a BEGIN column under the placeholder group per peer read."""

        def apply(ops: Any, tx: Tx) -> None:
            for p in self.P:
                self.set_offset(ops, tx, tx[("scpp", d, p)], (p, d, NO_SOURCE), -1, BEGIN_SEQ, 0)
            tx[("stage", d)] = ARQP_CLAIM
            self.clear(tx, True, self.scp_keys(d))

        guard = lambda ops, get: get(("stage", d)) == ARQP_PUT_MISSING  # noqa: E731
        return Instance("arqp_put_missing", (d,), guard, apply)

    def claim_queue_keys(self, d: int) -> list[tuple[int, int]]:
        """The (peer, source) keys of ``d``'s rows, in row-key order."""
        return [(p, src) for p in self.P for src in self.SRC]

    def _arqp_claim(self, d: int, tup: tuple[int, ...]) -> Instance:
        """``arqp_claim``: the first ``len(tup)`` queues of the dead server (peers in storage)
        go to the online servers ``tup`` (a permutation of ``min(#queues, #online)`` of them);
        with no queue the procedure finishes."""
        n = len(tup)
        keys = self.claim_queue_keys(d)

        def present(ops: Any, get: Any) -> list[Any]:
            return [
                ops.and_(get(("rex", p, d, src)), self.storage(ops, get, p)) for p, src in keys
            ]

        def guard(ops: Any, get: Any) -> Any:
            base = ops.and_(
                get(("stage", d)) == ARQP_CLAIM,
                *(ops.not_(get(("ch", d, p, src))) for p, src in keys),
            )
            nq = count(ops, present(ops, get))
            if not tup:
                return ops.and_(base, nq == 0)
            online = count(ops, (get(("alive", t)) for t in self.S))
            return ops.and_(
                base,
                *(get(("alive", t)) for t in tup),
                ops.or_(ops.and_(nq == n, online >= n), ops.and_(online == n, nq >= n)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            if not tup:
                tx[("stage", d)] = SCP_DONE
                self.clear(tx, True, self.scp_keys(d))
                return
            here = present(ops, tx.__getitem__)
            for i, (p, src) in enumerate(keys):
                rank = count(ops, here[:i])
                on = ops.and_(here[i], rank < n)
                tx[("ch", d, p, src)] = on
                tx[("cht", d, p, src)] = ops.ite(on, lookup(ops, rank, list(tup)), 0)
            for p in self.P:
                tx[("scpp", d, p)] = False

        return Instance("arqp_claim", (d, tup), guard, apply)

    def _claim_lost(self, d: int, p: int, src: int) -> Instance:
        """``claim_lost``: the child's target is dead; the child finishes."""

        def guard(ops: Any, get: Any) -> Any:
            t = get(("cht", d, p, src))
            dead = ops.or_(*(ops.and_(t == x, ops.not_(get(("alive", x)))) for x in self.S))
            return ops.and_(get(("ch", d, p, src)), dead)

        def apply(ops: Any, tx: Tx) -> None:
            self.clear(tx, True, [("ch", d, p, src), ("cht", d, p, src)])

        return Instance("claim_lost", (d, p, src), guard, apply)

    def _claim_read(self, t: int, d: int, p: int, src: int) -> Instance:
        """``claim_read``: the peer check, then ``getOffsets``; an unknown peer or no row ends
        the child."""
        rk = (p, d, src)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("ch", d, p, src)),
                get(("cht", d, p, src)) == t,
                get(("alive", t)),
                ops.not_(get(("cl", t, 0))),
            )

        def apply(ops: Any, tx: Tx) -> None:
            known = self.rule["rule_claim_peer_known"](ops, tx[("known", t, p)])
            read = ops.or_(*(tx[("rhas", *rk, og)] for og in self.OG))
            ok = ops.and_(known, read)
            self.clear(tx, ops.not_(ok), [("ch", d, p, src), ("cht", d, p, src)])
            tx.when(ok, ("cl", t, 0), True)
            tx.when(ok, ("clp", t, 0), p)
            tx.when(ok, ("cls", t, 0), src)
            tx.when(ok, ("cld", t, 0), d)
            for og in self.OG:
                for f in ("has", "seq", "pos"):
                    tx.when(ok, ("cl" + f, t, 0, og), tx[("r" + f, *rk, og)])

        return Instance("claim_read", (t, d, p, src), guard, apply)

    def claim_is(self, ops: Any, get: Any, t: int, m: int, d: int, p: int, src: int) -> Any:
        return ops.and_(
            get(("cl", t, m)),
            get(("clp", t, m)) == p,
            get(("cls", t, m)) == src,
            get(("cld", t, m)) == d,
        )

    def claim_queue(self, ops: Any, tx: Tx, t: int, d: int, p: int, src: int) -> tuple:
        """``claimQueue``'s conditional delete+put of row ``(p, d, src)`` to ``(p, t, source)``
        with the offsets of pending claim 0 of ``t``; returns (processed, source, read)."""
        rk = (p, d, src)
        read = [
            (og, tx[("clhas", t, 0, og)], tx[("clseq", t, 0, og)], tx[("clpos", t, 0, og)])
            for og in self.OG
        ]
        # The first column read (group 0 when nothing was read), and the row's value of it.
        col = ops.and_(tx[("rex", *rk)], tx[("rhas", *rk, 0)])
        cseq, cpos = tx[("rseq", *rk, 0)], tx[("rpos", *rk, 0)]
        rseq: Any = 0
        rpos: Any = 0
        for og, has, seq, pos in reversed(read):
            col = ops.ite(has, ops.and_(tx[("rex", *rk)], tx[("rhas", *rk, og)]), col)
            cseq = ops.ite(has, tx[("rseq", *rk, og)], cseq)
            cpos = ops.ite(has, tx[("rpos", *rk, og)], cpos)
            rseq = ops.ite(has, seq, rseq)
            rpos = ops.ite(has, pos, rpos)
        cseq = ops.ite(col, cseq, 0)
        cpos = ops.ite(col, cpos, 0)
        holds = table_rules.claim_guard_rule(
            ops,
            tx[("rex", *rk)],
            ops.or_(*(has for _og, has, _s, _p in read)),
            col,
            cseq,
            cpos,
            rseq,
            rpos,
        )
        applies = table_rules.claim_applies_rule(ops, self.rule["rule_claim_guarded"](ops), holds)
        source = src if src != NO_SOURCE else d
        self.pop_claim(tx, t)
        self.remove_row(tx, applies, rk)
        nk = (p, t, source)
        tx.when(applies, ("rex", *nk), True)
        for og, has, seq, pos in read:
            on = ops.and_(applies, has)
            tx.when(on, ("rhas", *nk, og), True)
            tx.when(on, ("rseq", *nk, og), seq)
            tx.when(on, ("rpos", *nk, og), pos)
        return applies, source, read

    def _claim_commit(self, t: int, d: int, p: int, src: int) -> Instance:
        """``claim_commit``: the child ends; the conditional mutation; then the peer check drops
        the claimed queue, or a recovered source starts over the archived WALs."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("alive", t)), self.claim_is(ops, get, t, 0, d, p, src))

        def apply(ops: Any, tx: Tx) -> None:
            mine = ops.and_(tx[("ch", d, p, src)], tx[("cht", d, p, src)] == t)
            self.clear(tx, mine, [("ch", d, p, src), ("cht", d, p, src)])
            applies, source, read = self.claim_queue(ops, tx, t, d, p, src)
            known = self.rule["rule_claim_peer_known"](ops, tx[("known", t, p)])
            drop = ops.or_(ops.not_(known), self.refuse[p])
            self.remove_row(tx, ops.and_(applies, drop), (p, t, source))
            self.start_recovered(ops, tx, ops.and_(applies, ops.not_(drop)), t, p, source, read)

        return Instance("claim_commit", (t, d, p, src), guard, apply)

    def rule_recovered_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        """``rule_recovered_wals``: WAL ``(x, g, q)`` is in oldWALs and ``shouldReplicate`` from
        the offset."""
        w = self.slot(x, g, q)
        return ops.and_(
            get(("wex", w)),
            get(("wplace", w)) == ARCHIVED,
            table_rules.should_replicate_rule(ops, has, ts, pos, q),
        )

    def start_recovered(
        self, ops: Any, tx: Tx, cond: Any, t: int, p: int, x: int, read: list
    ) -> None:
        """``start_recovered``: per WAL group a recovered shipper over the listed WALs from the
        start position; none at all removes the queue."""
        cols = {og: (has, seq, pos) for og, has, seq, pos in read}
        started = []
        for g in self.G:
            has, seq, pos = cols[g]
            ts = ops.ite(has, seq, NO_TIMESTAMP)
            pos = ops.ite(has, pos, 0)
            bits = [
                self.rule_recovered_wals(ops, tx.__getitem__, x, g, q, has, ts, pos)
                for q in self.Q
            ]
            first: Any = 0
            for q in reversed(self.Q):
                at = table_rules.start_position_rule(ops, has, ts, pos, q)
                first = ops.ite(bits[q], at, first)
            any_wal = ops.or_(*bits)
            started.append(any_wal)
            self.add_shipper(ops, tx, ops.and_(cond, any_wal), (t, p, x, g), bits, first)
        self.remove_row(tx, ops.and_(cond, ops.not_(ops.or_(*started))), (p, t, x))

    def _zombie_claim_commit(self, t: int, d: int, p: int, src: int) -> Instance:
        """``zombie_claim_commit``: a dead claimer's mutation lands before its SCP splits."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                ops.not_(get(("alive", t))),
                get(("stage", t)) == SCP_SPLIT,
                self.claim_is(ops, get, t, 0, d, p, src),
            )

        def apply(ops: Any, tx: Tx) -> None:
            self.claim_queue(ops, tx, t, d, p, src)

        return Instance("zombie_claim_commit", (t, d, p, src), guard, apply)

    def _claim_redeliver(self, t: int, d: int, p: int, src: int) -> Instance:
        """``claim_redeliver``: a master restart re-sends the running claim; the second
        ``claimQueue`` reads the offsets now."""
        rk = (p, d, src)

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "master_restarts")) > 0,
                get(("alive", t)),
                self.claim_is(ops, get, t, 0, d, p, src),
                ops.not_(get(("cl", t, 1))),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "master_restarts")] = tx[("b", "master_restarts")] - 1
            tx[("cl", t, 1)] = True
            tx[("clp", t, 1)] = p
            tx[("cls", t, 1)] = src
            tx[("cld", t, 1)] = d
            for og in self.OG:
                for f in ("has", "seq", "pos"):
                    tx[("cl" + f, t, 1, og)] = tx[("r" + f, *rk, og)]

        return Instance("claim_redeliver", (t, d, p, src), guard, apply)

    # --- peer procedures ----------------------------------------------------------------------

    def _add_peer(self, p: int) -> Instance:
        """``add_peer``: AddPeerProcedure submitted."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "admin")) > 0, get(("peer", p)) == ABSENT, ops.not_(get(("pp", p)))
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "admin")] = tx[("b", "admin")] - 1
            tx[("pp", p)] = True
            tx[("ppk", p)] = ADD
            tx[("pps", p)] = AP_PRE

        return Instance("add_peer", (p,), guard, apply)

    def _remove_peer(self, p: int) -> Instance:
        """``remove_peer``: RemovePeerProcedure submitted (no sync peer: any storage peer)."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "admin")) > 0, self.storage(ops, get, p), ops.not_(get(("pp", p)))
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "admin")] = tx[("b", "admin")] - 1
            tx[("pp", p)] = True
            tx[("ppk", p)] = REMOVE
            tx[("pps", p)] = RP_PRE

        return Instance("remove_peer", (p,), guard, apply)

    def rule_removal_waits_for(self, ops: Any, get: Any, d: int) -> Any:
        """``rule_removal_waits_for``: the AssignReplicationQueuesProcedures still running."""
        return self.arqp_unfinished(ops, get, d)

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        """``rule_removal_pending``: a recorded procedure is unfinished."""
        return ops.or_(
            *(ops.and_(get(("pprec", p, d)), self.arqp_unfinished(ops, get, d)) for d in self.S)
        )

    def barrier_enable(self, ops: Any, tx: Tx, cond: Any) -> None:
        """``barrier_enable``: DISABLED with n <= 1 -> NOT_RUNNING, else n - 1."""
        bar, n = tx[("bar",)], tx[("barn",)]
        on = ops.and_(cond, bar == BARRIER_DISABLED)
        last = n <= 1
        tx.when(on, ("bar",), ops.ite(last, NOT_RUNNING, BARRIER_DISABLED))
        tx.when(on, ("barn",), ops.ite(last, 0, n - 1))

    def _proc(self, name: str, p: int, kind: int, stage: int, extra: Any, apply: Any) -> Instance:
        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("pp", p)),
                get(("ppk", p)) == kind,
                get(("pps", p)) == stage,
                *(ops.not_(get(("ppref", p, s))) for s in self.S),
                extra(ops, get),
            )

        return Instance("peer_proc", (p, name), guard, apply)

    def _peer_proc(self, p: int) -> list[Instance]:
        """``peer_proc``: AddPeerProcedure's and RemovePeerProcedure's steps, one instance per
        step (and per row ``removeAllQueues`` deletes next)."""
        fence = self.rule["rule_fence_add"]
        rows = [(p, o, src) for o in self.S for src in self.SRC]
        yes = lambda ops, get: True  # noqa: E731

        def set_stage(tx: Tx, stage: int, refresh: bool = False) -> None:
            tx[("pps", p)] = stage
            if refresh:
                for s in self.S:
                    tx[("ppref", p, s)] = tx[("alive", s)]

        def add_pre(ops: Any, tx: Tx) -> None:
            fail = ops.or_(*(tx[("rex", *rk)] for rk in rows))
            ok = ops.not_(fail)
            on = ops.and_(ok, fence(ops))
            bar, n = table_rules.barrier_disable_rule(ops, tx[("bar",)], tx[("barn",)])
            tx.when(on, ("bar",), bar)
            tx.when(on, ("barn",), n)
            tx.when(ok, ("pps", p), AP_STORAGE)
            self.clear(tx, fail, self.proc_keys(p))

        def add_storage(ops: Any, tx: Tx) -> None:
            tx[("peer", p)] = ENABLED
            set_stage(tx, AP_REFRESH, True)

        def add_post(ops: Any, tx: Tx) -> None:
            self.barrier_enable(ops, tx, fence(ops))
            self.clear(tx, True, self.proc_keys(p))

        def rm_storage(ops: Any, tx: Tx) -> None:
            tx[("peer", p)] = REMOVED
            for d in self.S:
                tx[("pprec", p, d)] = self.rule_removal_waits_for(ops, tx.__getitem__, d)
            set_stage(tx, RP_REFRESH, True)

        def rm_post(ops: Any, tx: Tx) -> None:
            set_stage(tx, RP_REMOVE_ALL)
            self.clear(tx, True, [("ppc", p), ("ppn", p)])

        def read_keys(ops: Any, tx: Tx, cond: Any) -> None:
            for _p, o, src in rows:
                tx.when(cond, ("ppkey", p, o, src), tx[("rex", p, o, src)])

        def rm_read(ops: Any, tx: Tx) -> None:
            tx[("ppc", p)] = True
            tx[("ppn", p)] = 0
            read_keys(ops, tx, True)

        def rm_next(ops: Any, tx: Tx) -> None:
            n = tx[("ppn", p)]
            done = n + 1 >= self.passes
            again = ops.not_(done)
            tx.when(again, ("ppn", p), n + 1)
            read_keys(ops, tx, again)
            tx.when(done, ("sid", p), False)
            tx.when(done, ("rdone", p), True)
            self.clear(tx, done, self.proc_keys(p))

        def removal_free(ops: Any, get: Any) -> Any:
            return ops.not_(self.rule_removal_pending(ops, get, p))

        def may_leave_pre(ops: Any, get: Any) -> Any:
            return table_rules.add_peer_may_leave_pre(ops, fence(ops), get(("bar",)))

        def cursor(on: bool) -> Any:
            return lambda ops, get: get(("ppc", p)) if on else ops.not_(get(("ppc", p)))

        out = [
            self._proc("add-pre", p, ADD, AP_PRE, may_leave_pre, add_pre),
            self._proc("add-storage", p, ADD, AP_STORAGE, yes, add_storage),
            self._proc(
                "add-refresh", p, ADD, AP_REFRESH, yes, lambda o, tx: set_stage(tx, AP_POST)
            ),
            self._proc("add-post", p, ADD, AP_POST, yes, add_post),
            self._proc("rm-pre", p, REMOVE, RP_PRE, yes, lambda o, tx: set_stage(tx, RP_STORAGE)),
            self._proc("rm-storage", p, REMOVE, RP_STORAGE, yes, rm_storage),
            self._proc(
                "rm-refresh", p, REMOVE, RP_REFRESH, yes, lambda o, tx: set_stage(tx, RP_POST)
            ),
            self._proc("rm-post", p, REMOVE, RP_POST, removal_free, rm_post),
            self._proc("rm-read", p, REMOVE, RP_REMOVE_ALL, cursor(False), rm_read),
        ]
        keys = [(o, src) for _p, o, src in rows]

        def no_keys(ops: Any, get: Any) -> Any:
            return ops.and_(get(("ppc", p)), *(ops.not_(get(("ppkey", p, *k))) for k in keys))

        out.append(self._proc("rm-next", p, REMOVE, RP_REMOVE_ALL, no_keys, rm_next))
        for i, k in enumerate(keys):

            def first(ops: Any, get: Any, i: int = i, k: tuple = k) -> Any:
                return ops.and_(
                    get(("ppc", p)),
                    get(("ppkey", p, *k)),
                    *(ops.not_(get(("ppkey", p, *e))) for e in keys[:i]),
                )

            def delete(ops: Any, tx: Tx, k: tuple = k) -> None:
                self.remove_row(tx, True, (p, *k))
                tx[("ppkey", p, *k)] = False

            out.append(self._proc(f"rm-delete{k}", p, REMOVE, RP_REMOVE_ALL, first, delete))
        return out

    def rs_add_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        """``RSM.addPeer``: an offset per group at the current WAL, a normal source on it."""
        on = ops.and_(cond, ops.not_(tx[("known", s, p)]))
        for g in self.G:
            cur = tx[("cur", s, g)]
            self.set_offset(ops, tx, on, (p, s, NO_SOURCE), g, cur, 0)
            self.add_shipper(ops, tx, on, (s, p, NO_SOURCE, g), [cur == q for q in self.Q], 0)
        tx.when(on, ("known", s, p), True)

    def rs_remove_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        """``RSM.removePeer``: every source of the peer stops and its queue is removed."""
        for src in self.SRC:
            has = ops.or_(*(tx[("sh", *x)] for x in self.sh_keys if x[:3] == (s, p, src)))
            self.remove_row(tx, ops.and_(cond, ops.or_(has, src == NO_SOURCE)), (p, s, src))
        for sk in self.sh_keys:
            if sk[:2] == (s, p):
                self.clear(tx, cond, self.shipper_keys(sk))
        tx.when(cond, ("known", s, p), False)

    def _refresh(self, p: int, s: int, kind: int) -> Instance:
        """``refresh``: the RefreshPeerProcedure child on ``s`` (nothing if ``s`` died)."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(("pp", p)), get(("ppk", p)) == kind, get(("ppref", p, s)))

        def apply(ops: Any, tx: Tx) -> None:
            tx[("ppref", p, s)] = False
            alive = tx[("alive", s)]
            if kind == ADD:
                self.rs_add_peer(ops, tx, alive, p, s)
            else:
                self.rs_remove_peer(ops, tx, alive, p, s)

        return Instance("refresh", (p, s, kind), guard, apply)

    # --- the log cleaner ----------------------------------------------------------------------

    def cleaner_reset(self, tx: Tx) -> None:
        tx[("cph",)] = C_IDLE
        keys = [("clive", s) for s in self.S] + [("cpeers", p) for p in self.P]
        for rk in self.rkeys:
            keys += self.row_keys(rk, "cr")
        self.clear(tx, True, keys)

    def _cleaner_start(self) -> Instance:
        """``cleaner_start``: ``barrier.start()`` and the live-or-SCP-unfinished servers."""
        live = self.rule["rule_cleaner_live"]

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                get(("b", "cleaner_runs")) > 0,
                get(("cph",)) == C_IDLE,
                table_rules.cleaner_may_start_rule(ops, get(("bar",))),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "cleaner_runs")] = tx[("b", "cleaner_runs")] - 1
            flags = [
                live(ops, tx[("alive", s)], self.scp_unfinished(ops, tx.__getitem__, s))
                for s in self.S
            ]
            self.cleaner_reset(tx)
            tx[("cph",)] = C_SERVERS
            for s in self.S:
                tx[("clive", s)] = flags[s]
            tx[("bar",)] = RUNNING
            tx[("barn",)] = 0

        return Instance("cleaner_start", (), guard, apply)

    def _cleaner_read(self) -> Instance:
        """``cleaner_read``: the peers and every queue row."""

        def apply(ops: Any, tx: Tx) -> None:
            tx[("cph",)] = C_READY
            for p in self.P:
                tx[("cpeers", p)] = self.storage(ops, tx.__getitem__, p)
            for rk in self.rkeys:
                for k, ck in zip(self.row_keys(rk), self.row_keys(rk, "cr"), strict=True):
                    tx[ck] = tx[k]

        return Instance("cleaner_read", (), lambda ops, get: get(("cph",)) == C_SERVERS, apply)

    def cleaner_view(self, ops: Any, get: Any, x: int, g: int, p: int) -> Any:
        """``cleaner_views`` for peer ``p`` and the WALs of server ``x``, group ``g``, from the
        snapshot: the rows of ``(p, x)`` merged in row-key order, later ones winning."""
        order = []
        for o in self.S:
            order += [(p, x, NO_SOURCE), (p, x, x)] if o == x else [(p, o, x)]
        has_queue = ops.or_(*(get(("crex", *rk)) for rk in order))
        has: Any = False
        seq: Any = NO_TIMESTAMP
        pos: Any = 0
        for rk in order:
            col = get(("crhas", *rk, g))
            has = ops.or_(has, col)
            seq = ops.ite(col, get(("crseq", *rk, g)), seq)
            pos = ops.ite(col, get(("crpos", *rk, g)), pos)
        return table_rules.QueueView(get(("cpeers", p)), has_queue, has, seq, pos)

    def cleaner_has_server(self, ops: Any, get: Any, x: int) -> Any:
        return ops.or_(
            *(get(("crex", *rk)) for rk in self.rkeys if self.wal_owner(rk[1], rk[2]) == x)
        )

    def _cleaner_delete(self) -> Instance:
        """``cleaner_delete``: every archived WAL the rule lets go is deleted; the run ends."""
        rule = self.rule["rule_cleaner_may_delete"]

        def apply(ops: Any, tx: Tx) -> None:
            get = tx.__getitem__
            for w in self.W:
                x, g, q = self.key[w]
                views = [self.cleaner_view(ops, get, x, g, p) for p in self.P]
                may = rule(ops, q, get(("clive", x)), self.cleaner_has_server(ops, get, x), views)
                archived = ops.and_(get(("wex", w)), get(("wplace", w)) == ARCHIVED)
                tx.when(ops.and_(archived, may), ("wplace", w), DELETED)
            self.cleaner_reset(tx)
            tx[("bar",)] = NOT_RUNNING
            tx[("barn",)] = 0

        return Instance("cleaner_delete", (), lambda ops, get: get(("cph",)) == C_READY, apply)

    # --- master restart -----------------------------------------------------------------------

    def master_restart_barrier(self, ops: Any, tx: Tx) -> None:
        """``afterReplay``: the barrier disabled once per AddPeerProcedure past PRE."""
        fence = self.rule["rule_fence_add"](ops)
        n = count(
            ops,
            (
                ops.and_(tx[("pp", p)], tx[("ppk", p)] == ADD, tx[("pps", p)] > AP_PRE, fence)
                for p in self.P
            ),
        )
        tx[("bar",)] = ops.ite(n > 0, BARRIER_DISABLED, NOT_RUNNING)
        tx[("barn",)] = n

    def _master_restart(self) -> Instance:
        """``master_restart``: the barrier rebuilt, a cleaner run forgotten."""

        def apply(ops: Any, tx: Tx) -> None:
            tx[("b", "master_restarts")] = tx[("b", "master_restarts")] - 1
            self.master_restart_barrier(ops, tx)
            self.cleaner_reset(tx)

        guard = lambda ops, get: get(("b", "master_restarts")) > 0  # noqa: E731
        return Instance("master_restart", (), guard, apply)


# --- mutants overriding a step outside a dual-form rule (mixed in before TableFlat) -------------


class FlatTableDoc:
    """``table-doc``: RemovePeerProcedure records and waits for the unfinished SCPs."""

    def rule_removal_waits_for(self, ops: Any, get: Any, d: int) -> Any:
        return self.scp_unfinished(ops, get, d)  # type: ignore[attr-defined]

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return ops.or_(
            *(
                ops.and_(get(("pprec", p, d)), self.scp_unfinished(ops, get, d))  # type: ignore[attr-defined]
                for d in self.S  # type: ignore[attr-defined]
            )
        )


class FlatRemoveWithoutWaiting:
    """``table/HBASE-27213``: RemovePeerProcedure does not wait."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return False


class FlatRemoveRecollects:
    """``table/HBASE-27213-recollect``: the running claim procedures are collected again."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return ops.or_(*(self.rule_removal_waits_for(ops, get, d) for d in self.S))  # type: ignore[attr-defined]


class FlatRecoveredEndsEarly:
    """``table/HBASE-28155``: the first group to finish removes the recovered queue."""

    def rule_recovered_done(self, ops: Any, get: Any, sk: tuple) -> Any:
        return True


class FlatRecoveredListsWalDir:
    """``table/recovered-lists-wal-dir``: the recovered queue lists ``WALs/``, every WAL
    there."""

    def rule_recovered_wals(
        self, ops: Any, get: Any, x: int, g: int, q: int, has: Any, ts: Any, pos: Any
    ) -> Any:
        w = self.slot(x, g, q)  # type: ignore[attr-defined]
        return ops.and_(get(("wex", w)), get(("wplace", w)) == LIVE_DIR)


class FlatRemovePeerKeepsRecovered:
    """``table/remove-peer-keeps-recovered``: only the normal source stops."""

    def rs_remove_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        self.remove_row(tx, cond, (p, s, NO_SOURCE))  # type: ignore[attr-defined]
        for sk in self.sh_keys:  # type: ignore[attr-defined]
            if sk[:3] == (s, p, NO_SOURCE):
                self.clear(tx, cond, self.shipper_keys(sk))  # type: ignore[attr-defined]
        tx.when(cond, ("known", s, p), False)


class FlatRestartForgetsBarrier:
    """``table/restart-forgets-barrier``: the replayed AddPeerProcedure leaves the barrier."""

    def master_restart_barrier(self, ops: Any, tx: Tx) -> None:
        tx[("bar",)] = NOT_RUNNING
        tx[("barn",)] = 0
