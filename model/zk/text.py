"""The steps of the ZooKeeper-era flat model (``model/zk/layout.py`` lays out the slots): each the
explicit step of ``model/zk/common.py`` of the same name, with its structural choices (server,
queue slot, WAL slot, entry index) made parameters of the action instance and fixed by its guard;
``zk/lock.py`` and ``zk/multi.py`` add their failover and cleaner in ``zk/designs.py``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.crashes import Crashes
from replcheck.model.common.relay_steps import RelaySteps
from replcheck.model.common.sinks import SinkServers
from replcheck.model.common.state import READING, REMOVED, wal_order
from replcheck.model.engine.names import named
from replcheck.model.engine.step import instances_of
from replcheck.model.engine.text import FlatModel, FlatProperty, Instance, Tx, count
from replcheck.model.zk.claim_drop import ClaimDrops
from replcheck.model.zk.joins import ZkJoins
from replcheck.model.zk.layout import COPIES, ZkLayout
from replcheck.model.zk.peer_admin import ZkPeerAdmin
from replcheck.model.zk.peer_sync import PeerSync
from replcheck.model.zk.restarts import ZkRestarts
from replcheck.model.zk.sink_choice import SinkChoice
from replcheck.model.zk.source import ZkSources
from replcheck.model.zk.wal import ZkWals
from replcheck.model.zk.zombies import ZkZombies


class ZkFlat(
    Crashes,
    ZkWals,
    ZkSources,
    ClaimDrops,
    PeerSync,
    SinkChoice,
    SinkServers,
    RelaySteps,
    ZkPeerAdmin,
    ZkJoins,
    ZkRestarts,
    ZkZombies,
    ZkLayout,
):
    """Builds the flat model of a ZooKeeper-era design (or mutant) under a configuration."""

    # --- shared pieces of steps -------------------------------------------------------------------

    def append(
        self,
        ops: Any,
        tx: Tx,
        s: int,
        w: int,
        j: int,
        uid: Any,
        kind: Any,
        ids: Any,
        cond: Any = True,
    ) -> None:
        """``append``: entry ``j`` of WAL slot ``w``, owed to the peers the server replicates to
        (while replication is on) whose filter accepts it; only where ``cond`` holds."""
        if j >= self.E:
            tx.when(cond).overflow = True
            return
        tx.when(cond).entry_edit[w, j] = uid
        tx.when(cond).entry_kind[w, j] = kind
        tx.when(cond).entry_cluster_ids[w, j] = ids
        for p in self.P:
            owed = ops.and_(
                tx.replication_on,
                tx.knows_peer[s, p],
                self.replicable(ops, rules.replicable_rule, kind, ids, p + 1),
            )
            tx.when(cond).entry_owed[w, j, p] = owed
        tx.when(cond).wal_length[w] = j + 1

    def bump_cversion(self, ops: Any, tx: Tx, cond: Any) -> None:
        """Where ``cond`` holds, the cversion of ``/rs`` moves: a cleaner reading its snapshot
        will see the change and read again."""
        tx.when(ops.and_(cond, tx.cleaner_snapshot_phase == READING)).cleaner_rs_changed = True

    def drop_queue(self, ops: Any, tx: Tx, cond: Any, s: int, p: int, ci: int) -> None:
        """Where ``cond`` holds, delete server ``s``'s queue znode for peer ``p`` (chain
        ``ci``) with its WAL znodes and offsets."""
        tx.when(cond).queue_znode[s, p, ci] = False
        for w in self.W:
            tx.when(cond).queue_has_wal[s, p, ci, w] = False
            tx.when(cond).queue_wal_pos[s, p, ci, w] = 0

    def put_queue(
        self, ops: Any, tx: Tx, cond: Any, s: int, p: int, ci: int, wals: list[tuple[int, Any, Any]]
    ) -> None:
        """``put_queue``: create the queue znode (and ``/rs/<s>``), or add to an existing one the
        WALs it lacks; a WAL already there keeps its position."""
        tx.when(cond).rs_znode[s] = True
        tx.when(cond).queue_znode[s, p, ci] = True
        for w, present, pos in wals:
            add = ops.and_(cond, present, ops.not_(tx.queue_has_wal[s, p, ci, w]))
            tx.when(add).queue_wal_pos[s, p, ci, w] = pos
            tx.when(add).queue_has_wal[s, p, ci, w] = True

    def clear_shipper(self, ops: Any, tx: Tx, cond: Any, sk: tuple) -> None:
        """Where ``cond`` holds, shipper slot ``sk`` stops: no WAL queued, offset 0."""
        tx.when(cond).shipper[*sk] = False
        tx.when(cond).shipper_length[*sk] = 0
        tx.when(cond).shipper_pos[*sk] = 0
        for j in range(self.LW):
            tx.when(cond).shipper_wal[*sk, j] = -1

    def add_shipper(
        self,
        ops: Any,
        tx: Tx,
        cond: Any,
        s: int,
        p: int,
        ci: int,
        g: int,
        wals: list[Any],
        n: Any,
        pos: Any,
    ) -> None:
        """A new shipper in the first free copy slot; ``wals`` its packed WAL list (slot or -1),
        ``n`` its length."""
        taken: list[Any] = []
        for m in range(COPIES):
            sk = (s, p, ci, g, m)
            on = tx.shipper[*sk]
            here = ops.and_(cond, ops.not_(on), *taken)
            taken.append(on)
            tx.when(here).shipper[*sk] = True
            tx.when(here).shipper_length[*sk] = n
            tx.when(here).shipper_pos[*sk] = pos
            for j in range(self.LW):
                tx.when(here).shipper_wal[*sk, j] = wals[j] if j < len(wals) else -1
        tx.when(ops.and_(cond, *taken)).overflow = True

    def start_recovered(
        self, ops: Any, tx: Tx, cond: Any, s: int, p: int, ci: int, wals: list[tuple[int, Any, Any]]
    ) -> None:
        """``start_recovered``: per WAL group one recovered shipper over the queue's WALs, oldest
        first, from the start position; or, when its peer is gone, none: the queue is marked for
        the claimer's delete (``drop_claimed_queue``)."""
        drop = self.rule["rule_drop_claimed_queue"](ops, tx.peer_state[p] == REMOVED)
        tx.when(ops.and_(cond, drop)).drop_claimed[s, p, ci] = True
        start = ops.and_(cond, ops.not_(drop))
        if start is False:
            return
        present = {w: inn for w, inn, _pos in wals}
        stored = {w: pos for w, _inn, pos in wals}
        for g in self.G:
            group = sorted(
                (w for w in self.W if self.key[w][1] == g),
                key=lambda w: (rules.wal_timestamp(self.key[w]), wal_order(self.key[w])),
            )
            before: dict[int, Any] = {}
            for i, w in enumerate(group):
                before[w] = count(ops, (present[x] for x in group[:i]))
            run = count(ops, (present[w] for w in group))
            packed = []
            for j in range(self.LW):
                val: Any = -1
                for w in group:
                    val = ops.ite(ops.and_(present[w], before[w] == j), w, val)
                packed.append(val)
            first: Any = 0
            for w in reversed(group):
                first = ops.ite(present[w], stored[w], first)
            pos = self.rule["rule_start_position"](ops, first)
            any_wal = ops.or_(*(present[w] for w in group))
            self.add_shipper(ops, tx, ops.and_(start, any_wal), s, p, ci, g, packed, run, pos)

    def kill(self, ops: Any, tx: Tx, s: int) -> None:
        """``kill``: the current WALs are closed; the ephemeral node and the memory go."""
        for g in self.G:
            for q in self.Q:
                tx.when(tx.current_wal[s, g] == q).wal_closed[self.cfg.slot((s, g, q))] = True
        tx.server_alive[s] = False
        for p in self.P:
            tx.knows_peer[s, p] = False
            tx.removal_handled[s, p] = False
            if self.cfg.peer_life:
                tx.config_update_pending[s, p] = False
        for sk in self.sh_keys:
            self.clear_shipper(ops, tx, True, (s, *sk))
        self.clear_claim(tx, s)
        for w in self.W:
            tx.wal_unregistered[s, w] = False
        for p in self.P:
            for ci in self.CH:
                tx.drop_claimed[s, p, ci] = False
        self.on_death(ops, tx, s)

    def on_death(self, ops: Any, tx: Tx, s: int) -> None:
        """``on_death``: the master learns of the death (zk-multi schedules a
        ServerCrashProcedure, a persisted procedure)."""
        if self.multi:
            tx.failover_pending[s] = True

    def rs_child_created(self, ops: Any, tx: Tx) -> None:
        """``rs_child_created``: a znode was created under ``/rs`` (zk-multi's cleaner reads its
        cversion)."""
        if self.multi:
            self.bump_cversion(ops, tx, True)

    def clear_claim(self, tx: Tx, s: int) -> None:
        """Server ``s`` forgets the claim it read (the queue and its WALs' offsets)."""
        tx.claiming[s] = False
        tx.claiming_dead[s] = 0
        tx.claiming_peer[s] = 0
        tx.claiming_chain[s] = 0
        for w in self.W:
            tx.claiming_has_wal[s, w] = False
            tx.claiming_wal_pos[s, w] = 0

    def enqueue_wal(self, ops: Any, tx: Tx, s: int, w: int) -> None:
        """``register_wal``: the WAL joins every normal queue of its server and every normal
        shipper of its group."""
        g = self.key[w][1]
        for p in self.P:
            tx.when(tx.queue_znode[s, p, 0]).queue_has_wal[s, p, 0, w] = True
            for m in range(COPIES):
                sk = (s, p, 0, g, m)
                on = tx.shipper[*sk]
                n = tx.shipper_length[*sk]
                for j in range(self.LW):
                    tx.when(ops.and_(on, n == j)).shipper_wal[*sk, j] = w
                tx.when(ops.and_(on, n >= self.LW)).overflow = True
                tx.when(on).shipper_length[*sk] = n + 1
        tx.wal_unregistered[s, w] = False

    def drop_head(self, ops: Any, tx: Tx, sk: tuple, hw: int) -> None:
        """``drop_head``: the head WAL leaves its queue znode and the shipper; a recovered
        shipper past its last WAL ends, and the last one of a queue deletes the queue."""
        s, p, ci, _g, _m = sk
        tx.queue_has_wal[s, p, ci, hw] = False
        tx.queue_wal_pos[s, p, ci, hw] = 0
        n = tx.shipper_length[*sk]
        shift = n > 1
        for j in range(self.LW):
            nxt = tx.shipper_wal[*sk, j + 1] if j + 1 < self.LW else -1
            tx.when(shift).shipper_wal[*sk, j] = nxt
        tx.when(shift).shipper_length[*sk] = n - 1
        tx.when(shift).shipper_pos[*sk] = 0
        if ci == 0:
            return
        end = ops.not_(shift)
        self.clear_shipper(ops, tx, end, sk)
        others = [
            tx.shipper[s, p, ci, g2, m2]
            for g2 in self.G
            for m2 in range(COPIES)
            if (s, p, ci, g2, m2) != sk
        ]
        self.drop_queue(ops, tx, ops.and_(end, ops.not_(ops.or_(*others))), s, p, ci)

    def head_guard(self, ops: Any, get: Any, sk: tuple, hw: int) -> Any:
        """Shipper slot ``sk`` runs on a live server and its head WAL is slot ``hw``."""
        now = named(get)
        return ops.and_(
            now.server_alive[sk[0]],
            now.shipper[*sk],
            now.shipper_length[*sk] >= 1,
            now.shipper_wal[*sk, 0] == hw,
        )

    # --- action instances -------------------------------------------------------------------------

    def instances(self) -> list[Instance]:
        """Steps not in the text's form: none (each design's failover and cleaner are
        ``model/zk/claims.py`` and ``model/zk/cleaners.py``)."""
        return []

    def queued_anywhere(self, ops: Any, get: Any, w: int, owners: Any = None) -> Any:
        """Is WAL slot ``w`` named in some queue (of ``owners``, default all)?"""
        return ops.or_(
            *(
                named(get).queue_has_wal[o, p, ci, w]
                for o in (self.S if owners is None else owners)
                for p in self.P
                for ci in self.CH
            )
        )

    def may_delete(self, ops: Any, w: int, listed: dict[int, Any]) -> Any:
        """The cleaner's lookup rule over the WALs ``listed`` (slot -> listed or not)."""
        queued = [
            tuple(ops.ite(on, part, -1) for part in self.key[x])
            for x, on in listed.items()
            if on is not False
        ]
        return rules.may_delete_wal_rule(ops, self.key[w], queued)

    # --- the model ------------------------------------------------------------------------------

    def properties(self) -> list[FlatProperty]:
        """The flat invariants and step property (``model/zk/properties.py``)."""
        from replcheck.model.zk.properties import zk_properties

        return zk_properties(self)

    def model(self) -> FlatModel:
        sorts = self.sorts()
        init = self.encode(self.design.init(self.cfg))
        return FlatModel(
            design=self.design.name,
            config=self.cfg.name,
            sorts=sorts,
            init=init,
            instances=instances_of(self, self.instances()),
            properties=self.properties(),
            decode=self.decode,
            encode=self.encode,
        )
