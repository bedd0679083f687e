"""Serial replication and the ``sid`` family as values (seed 004 "Last Sequence Ids"; reference
sections 2 and 5), in the protocol text's form (``model/engine/step.py``): every engine reads these
steps and rules.

HBase's ``SerialReplicationChecker`` decides whether a source "can push a given WAL entry without
breaking the replication order": each open of a region writes its open sequence number, a
*barrier*, so the region's sequence ids fall into ranges ``[b1, b2), [b2, b3), ...``, "and it is
obvious that a region will always be on the same RS within a range"; an entry of a later range
is pushed only when the previous range is finished, i.e. when the last pushed sequence id that
``hbase:replication`` holds for the region and the peer (the ``sid`` family) is at least the
range's end barrier minus one (``isRangeFinished``). ``setOffset(queueId, walGroup, offset,
lastSeqIds)`` writes the offset and the last pushed sequence ids in one conditional multi-row
mutation, and a sequence id never decreases (a new value not above the stored one is skipped).

Abstractions (each a documented choice):

* one region, in WAL group 0, holds every client edit: it is open on one server at a time, and
  only that server writes (``region_open_on``); its edits get sequence ids 0, 1, ... in the order
  they are written (``after_put``);
* its first range is open on server 0 from the start; when its server dies, the
  AssignmentManager opens it on a live server once the ServerCrashProcedure has split the dead
  server's WALs (``open_region``): the new range's barrier is the region's next sequence id
  ("the open sequence number will be set to the old max sequence id plus one"). A server hosts at
  most one range (servers do not restart with this feature), so an edit's range is its WAL's
  server's;
* the serial peers (the first ``serial_peers``) exist, enabled, from the start, unless the
  ``serial_life`` feature adds them while the cluster runs (``model/features/serial_life.py``:
  AddPeer's REOPEN_REGIONS and UPDATE_LAST_PUSHED_SEQ_ID); the checker's in-memory shortcuts
  (``canPushUnder``, ``pushed``) only save reads of the barriers and the ``sid`` row, and are
  left out, as is the OPENING state of the last range (an open is one step);
* a shipper's every offset write carries its batch's last sequence id (``push_seq_ids``):
  ``persist``, ``advance`` (the end-of-file batch) and ``finish`` (a recovered source's
  ``noMoreData`` flushes its offset).

The layout's new slots:

* ``region_range``: the region's current range; ``range_host[i]``, ``range_barrier[i]``: the server
  and the
  barrier (open sequence number) of range ``i`` (``rgh`` -1 until it opens); ``region_next_seq``:
  the region's next sequence id;
* ``entry_seq_id[w, j]``: the sequence id of entry ``j`` of WAL slot ``w`` (-1 for no entry);
* ``last_pushed_seq_id[p]``: the ``sid`` family's value for the region and peer ``p`` (-1,
  ``HConstants.NO_SEQNUM``, while absent);
* history for ``serial_order``, per serial peer: ``peer_top_range[p]`` the latest range any edit of
  the region applied at the peer came from (-1 for none), ``peer_went_back[p]`` an edit of an
  earlier range was applied after it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import FlatProperty
from replcheck.model.table import source
from replcheck.model.table.state import SCP_SPLIT, TState
from replcheck.model.table.views import TableText


class SerialRegion(NamedTuple):
    """The region and what serial replication stores for it (``TState.serial``)."""

    hosts: tuple[int, ...]
    """The server of each range opened so far, in order (the last one is the current)."""
    barriers: tuple[int, ...]
    """The open sequence number of each range opened so far (``rep_barrier``)."""
    next_seq: int
    """The region's next sequence id."""
    seqs: tuple[tuple[int, int, int], ...]
    """The sequence id of each entry written: ``(WAL slot, entry, sequence id)``, sorted."""
    pushed: tuple[int, ...]
    """The ``sid`` family: the last pushed sequence id per peer (-1 while absent)."""
    top: tuple[int, ...]
    """History, per peer: the latest range an edit applied at the peer came from (-1: none)."""
    back: int
    """History: peers at which an edit of an earlier range was applied after ``top`` (bits)."""


def initial(peers: int) -> SerialRegion:
    """The region open on server 0 in its first range, nothing written, nothing pushed."""
    return SerialRegion((0,), (0,), 0, (), (-1,) * peers, (-1,) * peers, 0)


def _opens(text: Any) -> list[tuple[int, int]]:
    return [(s, i) for s in text.S for i in range(1, text.ranges)]


def _apart_heads(text: Any) -> list[tuple]:
    """``put_seq_ids``' instances: none where the sequence ids go with the offset (a design's
    text that writes them apart has one per shipper slot of a serial peer and head WAL)."""
    if text.rule_seq_ids_with_offset():
        return []
    return [(*sk, q) for sk in text.sh_keys if sk[1] in text.serial for q in text.Q]


class SerialReplication(TableText):
    """The ``serial`` feature: the region and its ranges, the checker's wait, the ``sid`` values
    and the sink's order (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"serial"})
    encoded_fields = ("serial",)

    @property
    def ranges(self) -> int:
        """Ranges the region can have: one, and one more per crash."""
        return self.cfg.crashes + 1

    @property
    def serial(self) -> range:
        """The serial peers."""
        return range(self.cfg.serial_peers)

    # --- the layout ---------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        n = self.cfg.edits
        out[var.region_range()] = ("i", 0, self.ranges - 1)
        out[var.region_next_seq()] = ("i", 0, n)
        for i in range(self.ranges):
            out[var.range_host(i)] = ("i", -1, self.cfg.servers - 1)
            out[var.range_barrier(i)] = ("i", 0, n)
        for w in self.W:
            for j in range(self.E):
                out[var.entry_seq_id(w, j)] = ("i", -1, max(n - 1, 0))
        for p in self.P:
            out[var.last_pushed_seq_id(p)] = ("i", -1, max(n - 1, 0))
            out[var.peer_top_range(p)] = ("i", -1, self.ranges - 1)
            out[var.peer_went_back(p)] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        rg = st.serial or initial(self.cfg.peers)
        v[var.region_range()] = len(rg.hosts) - 1
        v[var.region_next_seq()] = rg.next_seq
        for i, (h, b) in enumerate(zip(rg.hosts, rg.barriers, strict=True)):
            v[var.range_host(i)] = h
            v[var.range_barrier(i)] = b
        for w, j, n in rg.seqs:
            v[var.entry_seq_id(w, j)] = n
        for p in self.P:
            v[var.last_pushed_seq_id(p)] = rg.pushed[p]
            v[var.peer_top_range(p)] = rg.top[p]
            v[var.peer_went_back(p)] = bool(rg.back >> p & 1)
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        opened = range(v[var.region_range()] + 1)
        return st._replace(
            serial=SerialRegion(
                tuple(v[var.range_host(i)] for i in opened),
                tuple(v[var.range_barrier(i)] for i in opened),
                v[var.region_next_seq()],
                tuple(
                    (w, j, v[var.entry_seq_id(w, j)])
                    for w in self.W
                    for j in range(self.E)
                    if v[var.entry_seq_id(w, j)] >= 0
                ),
                tuple(v[var.last_pushed_seq_id(p)] for p in self.P),
                tuple(v[var.peer_top_range(p)] for p in self.P),
                sum(1 << p for p in self.P if v[var.peer_went_back(p)]),
            )
        )

    # --- the region: where it is open, its sequence ids ---------------------------------------

    def host_is(self, ops: Any, get: Any, i: int, s: Any) -> Any:
        """Range ``i`` of the region is open (or was) on server ``s``."""
        now = named(get)
        return ops.and_(now.region_range >= i, now.range_host[i] == s)

    def never_hosted(self, ops: Any, get: Any, s: int) -> Any:
        """No range of the region was open on server ``s`` (a server hosts at most one)."""
        return ops.not_(ops.or_(*(self.host_is(ops, get, i, s) for i in range(self.ranges))))

    def range_of(self, ops: Any, get: Any, x: int) -> Any:
        """The range whose edits server ``x``'s WALs hold (-1: it never hosted the region)."""
        out: Any = -1
        for i in range(self.ranges):
            out = ops.ite(self.host_is(ops, get, i, x), i, out)
        return out

    def region_open_on(self, ops: Any, get: Any, s: int, g: int) -> Any:
        """The region's edits go to group 0 of the server its current range is open on."""
        now = named(get)
        if g != 0:
            return False
        return ops.or_(
            *(ops.and_(now.region_range == i, now.range_host[i] == s) for i in range(self.ranges))
        )

    def after_put(self, ops: Any, t: Any, s: int, g: int, q: int, j: int) -> None:
        """The region's edit gets its next sequence id."""
        super().after_put(ops, t, s, g, q, j)  # type: ignore[misc]
        n = t.region_next_seq
        t.entry_seq_id[self.slot(s, g, q), j] = n
        t.region_next_seq = n + 1

    @step(params=("server",), fair=True, each=_opens, label=lambda text, st, get, a: a[:1])
    def open_region(self, t: Ctx, s: int, i: int) -> None:
        """assign the region of a dead server (SCP, after the split): a new range"""
        ops = t.ops
        prev = t.range_host[i - 1]
        dead = ops.or_(
            *(
                ops.and_(
                    prev == x,
                    ops.not_(t.server_alive[x]),
                    t.scp_stage[x] > SCP_SPLIT,
                )
                for x in self.S
            )
        )
        t.require(
            t.region_range == i - 1, dead, t.server_alive[s], self.never_hosted(ops, t.get, s)
        )
        t.region_range = i
        t.range_host[i] = s
        t.range_barrier[i] = t.region_next_seq

    # --- the source: the checker, and the sequence ids an offset write carries ----------------

    def rule_previous_range_pushed(self, ops: Any, pushed: Any, end_barrier: Any) -> Any:
        """``isRangeFinished``: is the range ending at ``end_barrier`` pushed? The last pushed
        sequence id is at least the barrier minus one ("the open sequence number will be set to
        the old max sequence id plus one, so here we need to minus one")."""
        return pushed >= end_barrier - 1

    def batch_can_push(self, ops: Any, get: Any, sk: tuple, q: int) -> Any:
        """``SerialReplicationChecker.canPush`` for a serial peer: the head WAL's edits are of
        its server's range; the first range passes, a later one only once the range before it is
        pushed."""
        now = named(get)
        s, p, src, _g, _m = sk
        base = super().batch_can_push(ops, get, sk, q)  # type: ignore[misc]
        if p not in self.serial:
            return base
        x = self.wal_owner(s, src)
        return ops.and_(
            base,
            *(
                ops.implies(
                    self.host_is(ops, get, i, x),
                    self.rule_previous_range_pushed(
                        ops, now.last_pushed_seq_id[p], now.range_barrier[i]
                    ),
                )
                for i in range(1, self.ranges)
            ),
        )

    def last_seq_id(self, ops: Any, get: Any, w: int, upto: Any) -> Any:
        """The sequence id of the last entry of WAL slot ``w`` below ``upto`` (-1: none)."""
        now = named(get)
        out: Any = -1
        for j in range(self.E):
            out = ops.ite(
                ops.and_(upto > j, now.entry_seq_id[w, j] >= 0),
                now.entry_seq_id[w, j],
                out,
            )
        return out

    def rule_seq_ids_with_offset(self) -> bool:
        """Does ``setOffset`` write the last pushed sequence ids in the offset's own mutation?
        Yes: one conditional multi-row mutation holds the offset's put and the ``sid`` puts."""
        return True

    def push_seq_ids(self, ops: Any, t: Ctx, sk: tuple, q: int, upto: Any) -> None:
        """``setOffset``'s ``lastSeqIds`` for a serial peer, in the offset's own mutation: the
        region's last pushed sequence id, where it is above the stored one ("seq ids never
        decrease")."""
        super().push_seq_ids(ops, t, sk, q, upto)  # type: ignore[misc]
        p = sk[1]
        if p not in self.serial or not self.rule_seq_ids_with_offset():
            return
        new = self.last_seq_id(ops, t.get, self.head_slot(sk, q), upto)
        t.when(new > t.last_pushed_seq_id[p]).last_pushed_seq_id[p] = new

    @step(
        params=("server", "shipper"),
        fair=True,
        each=_apart_heads,
        label=lambda text, st, get, a: source._by_index(text, st, get, a),
        lead=source.head,
    )
    def put_seq_ids(self, t: Ctx, s: int, p: int, src: int, g: int, m: int, q: int) -> None:
        """the shipped batch's last sequence id, put apart from its offset"""
        ops = t.ops
        sk = (s, p, src, g, m)
        new = self.last_seq_id(ops, t.get, self.head_slot(sk, q), t.shipper_pos[*sk])
        t.require(self.head_is(ops, t.get, sk, q), new > t.last_pushed_seq_id[p])
        t.last_pushed_seq_id[p] = new

    # --- the sink: the order the peer applies the region's edits in ---------------------------

    def deliver(self, ops: Any, tx: Any, cl: int, edits: list[tuple[Any, Any, Any, Any]]) -> None:
        """The sink applies the batch; at a serial peer the history of ranges is kept."""
        super().deliver(ops, tx, cl, edits)  # type: ignore[misc]
        p = cl - 1
        if p not in self.serial:
            return
        for cond, uid, _kind, _ids in edits:
            if cond is False:
                continue
            _origin, x, g, q, j = self.uids[uid]
            w = self.slot(x, g, q)
            region = ops.and_(cond, tx.entry_seq_id[w, j] >= self.order_from(ops, tx.get, p))
            r, top = self.range_of(ops, tx.get, x), tx.peer_top_range[p]
            tx.when(ops.and_(region, r < top)).peer_went_back[p] = True
            tx.when(ops.and_(region, r > top)).peer_top_range[p] = r

    # --- the property -------------------------------------------------------------------------

    def order_from(self, ops: Any, get: Any, p: int) -> Any:
        """The first sequence id of the region that serial peer ``p`` is promised in order: 0,
        every edit (``model/features/serial_life.py``: a peer added while the cluster runs, from its
        reopen's barrier on)."""
        return 0

    def properties(self) -> list[FlatProperty]:
        """The base properties, and ``serial_order``."""
        out: list[FlatProperty] = super().properties()  # type: ignore[misc]
        return [*out, FlatProperty.of("invariant", self.serial_order_check())]

    def serial_order_check(self) -> Any:
        """``serial_order`` over this layout's entry slots."""
        slots = [(w, j) for w in self.W for j in range(self.E)]

        def serial_order(ops: Any, get: Any) -> Any:
            """HBASE-9465 (serial replication): "we can make sure the order of pushing logs is
            same as the order of requests from client". At a serial peer, the edits of one region
            are applied in the order of their sequence ids (from ``order_from`` on): no edit is
            applied before every earlier edit of the region owed to the peer was, and none of an
            earlier range (an earlier open of the region) is applied again after an edit of a
            later one
            (at-least-once delivery may repeat a suffix of one range, as a retry from the last
            persisted offset does)."""
            now = named(get)
            out = []
            for p in self.serial:
                cl = p + 1
                out.append(ops.not_(now.peer_went_back[p]))
                for a in slots:
                    for b in slots:
                        if a == b:
                            continue
                        sa, sb = now.entry_seq_id[*a], now.entry_seq_id[*b]
                        gap = ops.and_(
                            sa >= self.order_from(ops, get, p),
                            sa < sb,
                            now.entry_owed[*a, p],
                            now.sink_applied[cl, self.uid(*b)],
                            ops.not_(now.sink_applied[cl, self.uid(*a)]),
                        )
                        out.append(ops.not_(gap))
            return ops.and_(*out)

        return serial_order


class PushesOnFailedCheck(SerialReplication):
    """``table/HBASE-29501``: the checker's verdict is not waited for."""

    def rule_previous_range_pushed(self, ops: Any, pushed: Any, end_barrier: Any) -> Any:
        """The previous range is taken as finished whatever the ``sid`` row holds (a failed read
        of the barriers or of the row lets the reader push the entry)."""
        return True


class SeqIdsApart(SerialReplication):
    """``table/sid-apart-from-offset``: the last pushed sequence ids are a put of their own."""

    def rule_seq_ids_with_offset(self) -> bool:
        """The offset is one put and the last pushed sequence ids another (``put_seq_ids``)."""
        return False


FEATURE = SerialReplication
"""The text of the ``serial`` configuration feature (``table/layout.py``'s ``FEATURES``)."""
