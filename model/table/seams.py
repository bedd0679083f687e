"""Shared pieces of the table era's steps (``model/table/text.py`` and the protocol
text's components in ``model/``): the attributes the layout provides (``model/table/layout.py``)
and the storage and memory updates several steps make (``setOffset``,
``removeQueue``, a new shipper, a head WAL, ``kill``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model.common.state import DELETED, DISABLED, ENABLED, LIVE_DIR
from replcheck.model.engine.names import Family, named, var
from replcheck.model.engine.text import Tx
from replcheck.model.table import rules as table_rules
from replcheck.model.table.families import QUEUE
from replcheck.model.table.state import (
    ARQP_ADD_MISSING,
    ARQP_REMOVE,
    NO_SOURCE,
    SCP_DONE,
    SCP_NONE,
    SCP_SPLIT,
)

ROW_DELETE = "rm-delete"
"""The name ``cursor_steps`` gives a row's deletion, before the row's ``(owner, source)``."""


class StepBase:
    """What every flat step reads: ``TableFlat`` provides the layout (``S``, ``P``, ``G``,
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
    uid_index: dict[tuple, int]
    replicable: Any
    passes: int
    refuse: list[bool]
    key: list[tuple[int, int, int]]

    def slot(self, s: int, g: int, q: int) -> int:
        """The WAL slot of server ``s``'s WAL ``q`` of WAL group ``g``."""
        return self.cfg.slot((s, g, q))

    def uid(self, w: int, j: int) -> int:
        """The flat index of our client's edit at entry ``j`` of WAL slot ``w``."""
        return self.uid_index[(0, *self.key[w], j)]

    def entry(self, get: Any, w: int, j: int) -> tuple[Any, Any, Any]:
        """Entry ``j`` of WAL slot ``w``: its edit (an index in ``uids``), kind and cluster-id
        list (an index in ``ids``). Without relay clusters every entry is our client's
        (``model/features/relays.py`` reads them from the state)."""
        return self.uid(w, j), named(get).entry_kind[w, j], 0

    def write_entry(
        self, t: Tx, cond: Any, w: int, j: int, uid: Any, kind: Any, ids: Any, owed: list[Any]
    ) -> None:
        """Where ``cond`` holds, entry ``j`` of WAL slot ``w`` is the edit ``uid`` of ``kind``
        and cluster-id list ``ids``, owed to each peer ``p`` where ``owed[p]``."""
        t.when(cond).entry_kind[w, j] = kind
        for p in self.P:
            t.when(cond).entry_owed[w, j, p] = owed[p]
        t.when(cond).wal_length[w] = j + 1

    def as_stored(self, ops: Any, t: Tx) -> Any:
        """``t``'s reads, but a server knows every peer in storage (what a dead server's
        sources would have owed an edit it wrote)."""

        def get(k: tuple) -> Any:
            return self.storage(ops, t.get, k[2]) if k[0] == "known" else t[k]

        return get

    def wal_owner(self, s: int, src: int) -> int:
        """Whose WALs a shipper or a queue of ``s`` reads: ``s``'s own, or the recovered
        queue's source server's."""
        return s if src == NO_SOURCE else src

    # --- shared pieces ------------------------------------------------------------------------

    def dflt(self, k: tuple) -> Any:
        """The value slot ``k`` holds when nothing is there (an absent row, an idle shipper)."""
        d = getattr(self, "_dflt", None)
        if d is None:
            d = self._dflt = self.defaults()
        return d[k]

    def clear(self, tx: Tx, cond: Any, keys: list[tuple]) -> None:
        """Where ``cond`` holds, put every slot of ``keys`` back to its default (delete)."""
        for k in keys:
            tx.when(cond, k, self.dflt(k))

    def peer_idle(self, ops: Any, get: Any, p: int) -> Any:
        """No procedure of peer ``p`` is under way (a feature adds those waiting for its
        lock)."""
        return ops.not_(named(get).peer_proc[p])

    def duplicates_explained_for(self, ops: Any, get: Any, p: int) -> Any:
        """Does peer ``p``'s history explain an edit applied twice there by a live server's own
        sources? Its removal does (the peer may have been added again, and its new sources
        start at the current WAL's beginning); a feature adds what else does."""
        return named(get).peer_removed[p]

    def peer_rows_left(self, ops: Any, get: Any, p: int) -> Any:
        """Are cells of peer ``p`` left in ``hbase:replication`` other than its queues? Its
        ``sid`` row (a feature adds the ``sid`` values and the ``hfileref`` row it holds)."""
        return named(get).last_pushed_row[p]

    def storage(self, ops: Any, get: Any, p: int) -> Any:
        """``listPeers``: the peer is in peer storage."""
        status = named(get).peer_state[p]
        return ops.or_(status == ENABLED, status == DISABLED)

    def scp_unfinished(self, ops: Any, get: Any, d: int) -> Any:
        """Server ``d``'s SCP is scheduled and not finished."""
        stage = named(get).scp_stage[d]
        return ops.and_(stage != SCP_NONE, stage != SCP_DONE)

    def arqp_unfinished(self, ops: Any, get: Any, d: int) -> Any:
        """Server ``d``'s SCP is in its AssignReplicationQueuesProcedure (adding the missing
        queues, claiming or removing them)."""
        stage = named(get).scp_stage[d]
        return ops.and_(stage >= ARQP_ADD_MISSING, stage <= ARQP_REMOVE)

    def row_keys(self, rk: tuple, row: tuple[Family, ...] = QUEUE) -> list[tuple]:
        """The slots of queue row ``rk`` (peer, owner, source): its existence and each WAL
        group's offset column, in the queue family (``QUEUE``) or a copy of it (the cleaner's
        ``SNAPSHOT``, ReplicationSyncUp's ``SYNCUP_VIEW``)."""
        exists, has, wal, pos = row
        out = [exists(*rk)]
        for og in self.OG:
            out += [has(*rk, og), wal(*rk, og), pos(*rk, og)]
        return out

    def set_offset(
        self, ops: Any, tx: Tx, cond: Any, rk: tuple, og: int, seq: Any, pos: Any
    ) -> None:
        """``setOffset``: a put of one column; it (re)creates the row."""
        tx.when(cond).queue_row[*rk] = True
        tx.when(cond).queue_has_offset[*rk, og] = True
        tx.when(cond).queue_offset_wal[*rk, og] = seq
        tx.when(cond).queue_offset_pos[*rk, og] = pos

    def remove_row(self, tx: Tx, cond: Any, rk: tuple) -> None:
        """``removeQueue``: delete the row."""
        self.clear(tx, cond, self.row_keys(rk))

    def shipper_keys(self, sk: tuple) -> list[tuple]:
        """The slots of shipper slot ``sk``: in use, its offset and its queued WALs."""
        return [var.shipper(*sk), var.shipper_pos(*sk)] + [
            var.shipper_has_wal(*sk, q) for q in self.Q
        ]

    def add_shipper(
        self, ops: Any, tx: Tx, cond: Any, base: tuple, bits: list[Any], pos: Any
    ) -> None:
        """A new shipper in the first free copy slot of ``base`` (server, peer, source, group):
        ``bits`` its WAL list (one flag per sequence)."""
        taken: list[Any] = []
        for m in range(len([k for k in self.sh_keys if k[:4] == base])):
            sk = (*base, m)
            on = tx.shipper[*sk]
            here = ops.and_(cond, ops.not_(on), *taken)
            taken.append(on)
            tx.when(here).shipper[*sk] = True
            tx.when(here).shipper_pos[*sk] = pos
            for q in self.Q:
                tx.when(here).shipper_has_wal[*sk, q] = bits[q]
        tx.when(ops.and_(cond, *taken)).overflow = True

    def first_wal_start(self, ops: Any, has: Any, ts: Any, pos: Any, bits: list[Any]) -> Any:
        """``getStartOffset`` for the first WAL a new source's group holds (``bits``, one flag
        per sequence): the group offset (``has``, its WAL's ``ts`` and ``pos``) where it names
        that WAL, else 0."""
        start: Any = 0
        for q in reversed(self.Q):
            start = ops.ite(bits[q], table_rules.start_position_rule(ops, has, ts, pos, q), start)
        return start

    def head_is(self, ops: Any, get: Any, sk: tuple, q: int) -> Any:
        """The shipper slot is in use and its head WAL is sequence ``q``."""
        now = named(get)
        return ops.and_(
            now.server_alive[sk[0]],
            now.shipper[*sk],
            now.shipper_has_wal[*sk, q],
            *(ops.not_(now.shipper_has_wal[*sk, r]) for r in range(q)),
        )

    def more_after(self, ops: Any, get: Any, sk: tuple, q: int) -> Any:
        """The shipper has a WAL queued after sequence ``q`` (a newer one in its group)."""
        return ops.or_(*(named(get).shipper_has_wal[*sk, r] for r in self.Q if r > q))

    def head_slot(self, sk: tuple, q: int) -> int:
        """The WAL slot of shipper ``sk``'s WAL of sequence ``q`` (of the server whose WALs
        its queue holds)."""
        s, _p, src, g, _m = sk
        return self.slot(self.wal_owner(s, src), g, q)

    def readable(self, ops: Any, get: Any, w: int) -> Any:
        """``head``: the WAL exists and is not deleted."""
        now = named(get)
        return ops.and_(now.wal_exists[w], now.wal_place[w] != DELETED)

    def shipper_ok(self, ops: Any, kind: Any, target: int, ids: Any = 0) -> Any:
        """``rule_ships`` on an edit of ``kind`` and cluster-id list ``ids`` (by default our
        client's, ``(0,)``)."""
        return self.replicable(ops, self.rule["rule_ships"], kind, ids, target)

    def kill(self, ops: Any, tx: Tx, s: int) -> None:
        """``kill``: current WALs closed, memory lost (the pending claim stays: a zombie's), an SCP
        scheduled."""
        for g in self.G:
            for q in self.Q:
                w = self.slot(s, g, q)
                tx.when(ops.and_(tx.current_wal[s, g] == q, tx.wal_exists[w])).wal_closed[w] = True
        tx.server_alive[s] = False
        for p in self.P:
            tx.knows_peer[s, p] = False
        for sk in self.sh_keys:
            if sk[0] == s:
                self.clear(tx, True, self.shipper_keys(sk))
        tx.scp_stage[s] = SCP_SPLIT
        self.clear(tx, True, self.scp_keys(s))

    def scp_keys(self, d: int) -> list[tuple]:
        """The SCP's peers and children."""
        out = [var.scp_missing_peer(d, p) for p in self.P]
        for p in self.P:
            for src in self.SRC:
                out += [var.claim_child(d, p, src), var.claim_target(d, p, src)]
        return out

    def claim_keys(self, s: int, m: int) -> list[tuple]:
        """The slots of server ``s``'s ``m``-th pending claim: the queue it claims and the
        offsets it read."""
        out = [
            var.claim_pending(s, m),
            var.claim_peer(s, m),
            var.claim_source(s, m),
            var.claim_dead(s, m),
        ]
        for og in self.OG:
            out += [
                var.claim_read_has(s, m, og),
                var.claim_read_wal(s, m, og),
                var.claim_read_pos(s, m, og),
            ]
        return out

    def pop_claim(self, tx: Tx, t: int) -> None:
        """``claim = claim[1:]``."""
        for k0, k1 in zip(self.claim_keys(t, 0), self.claim_keys(t, 1), strict=True):
            tx[k0] = tx[k1]
        self.clear(tx, True, self.claim_keys(t, 1))

    def proc_keys(self, p: int) -> list[tuple]:
        """The slots of peer ``p``'s peer procedure: its kind and stage, the servers it still
        has to refresh, the crashed servers it recorded to wait for, and removeAllQueues'
        cursor."""
        out = [
            var.peer_proc(p),
            var.peer_proc_kind(p),
            var.peer_proc_stage(p),
            var.peer_proc_cursor(p),
            var.peer_proc_pass(p),
        ]
        for s in self.S:
            out += [var.peer_proc_refresh(p, s), var.peer_proc_recorded(p, s)]
            out += [var.peer_proc_row_left(p, s, src) for src in self.SRC]
        return out

    # --- removeAllQueues' cursor (RemovePeerProcedure and the sync transition's REMOVE_ALL) -----

    def cursor_read(self, tx: Tx, p: int, cond: Any) -> None:
        """When ``cond``: the cursor holds a bit per row key of peer ``p`` that exists now."""
        for o in self.S:
            for src in self.SRC:
                tx.when(cond).peer_proc_row_left[p, o, src] = tx.queue_row[p, o, src]

    def cursor_start(self, tx: Tx, p: int) -> None:
        """The first pass of ``removeAllQueues``: list peer ``p``'s rows."""
        tx.peer_proc_cursor[p] = True
        tx.peer_proc_pass[p] = 0
        self.cursor_read(tx, p, True)

    def cursor_next(self, ops: Any, tx: Tx, p: int) -> Any:
        """A pass ended with every listed row removed: list again unless it was the last pass
        (``rule_remove_passes``); the condition "that was the last pass"."""
        n = tx.peer_proc_pass[p]
        done = n + 1 >= self.passes
        again = ops.not_(done)
        tx.when(again).peer_proc_pass[p] = n + 1
        self.cursor_read(tx, p, again)
        return done

    def cursor_steps(self, p: int, finish: Callable[[Any, Tx, Any], None]) -> list[tuple]:
        """``removeAllQueues`` of peer ``p`` as steps ``(name, guard, update)``, for the
        procedure's stage to wrap: ``rm-read`` lists the rows (the first pass); ``rm-delete(o,
        src)`` removes a row still listed; ``rm-next``, once none is, lists again or, after the
        last pass, calls ``finish(ops, tx, done)`` with ``done`` its condition.

        HBase deletes the rows in row-key order, which is the order of the servers' names
        (``peerId-serverName``). The model's servers stand for any names a cluster has, so a
        row still listed may go next: every naming's order is one of these, and renaming
        servers maps the steps of one state onto those of its image (symmetry reduction is
        sound over them)."""
        keys = [(o, src) for o in self.S for src in self.SRC]

        def idle(ops: Any, get: Any) -> Any:
            return ops.not_(named(get).peer_proc_cursor[p])

        def read(ops: Any, tx: Tx) -> None:
            self.cursor_start(tx, p)

        def none_listed(ops: Any, get: Any) -> Any:
            now = named(get)
            return ops.and_(
                now.peer_proc_cursor[p],
                *(ops.not_(now.peer_proc_row_left[p, *k]) for k in keys),
            )

        def next_pass(ops: Any, tx: Tx) -> None:
            finish(ops, tx, self.cursor_next(ops, tx, p))

        out = [("rm-read", idle, read), ("rm-next", none_listed, next_pass)]
        for k in keys:

            def listed(ops: Any, get: Any, k: tuple = k) -> Any:
                now = named(get)
                return ops.and_(now.peer_proc_cursor[p], now.peer_proc_row_left[p, *k])

            def delete(ops: Any, tx: Tx, k: tuple = k) -> None:
                self.remove_row(tx, True, (p, *k))
                tx.peer_proc_row_left[p, *k] = False

            out.append((f"{ROW_DELETE}{k}", listed, delete))
        return out

    # --- a server starting (a restart, a spare slot joining, an upgrade) -----------------------

    def wal_keys(self, w: int) -> list[tuple]:
        """Every variable of WAL slot ``w``."""
        out = [var.wal_exists(w), var.wal_length(w), var.wal_closed(w), var.wal_place(w)]
        for j in range(self.E):
            out.append(var.entry_kind(w, j))
            out += [var.entry_owed(w, j, p) for p in self.P]
        return out

    def start_server(self, ops: Any, tx: Tx, s: int) -> None:
        """Server ``s`` starts: a fresh first WAL per group, alive, knowing the peers in storage,
        a normal source at the head of its WAL for each, no shipper or claim from before."""
        for g in self.G:
            w = self.slot(s, g, 0)
            self.clear(tx, True, self.wal_keys(w))
            tx.wal_exists[w] = True
            tx.wal_place[w] = LIVE_DIR
            tx.current_wal[s, g] = 0
        known = [self.storage(ops, tx.__getitem__, p) for p in self.P]
        tx.server_alive[s] = True
        for sk in self.sh_keys:
            if sk[0] == s:
                self.clear(tx, True, self.shipper_keys(sk))
        for p in self.P:
            tx.knows_peer[s, p] = known[p]
            for g in self.G:
                sk = (s, p, NO_SOURCE, g, 0)
                tx.shipper[*sk] = known[p]
                tx.shipper_has_wal[*sk, 0] = known[p]
        for m in range(2):  # the pending-claim slots (``pop_claim``)
            self.clear(tx, True, self.claim_keys(s, m))
