"""The peer's configuration update and a peer added again under its id, in the ZooKeeper era
(``Config.peer_life``; the table era's counterpart is ``model/features/peer_life.py``), in the
protocol text's form (``model/engine/step.py``).

* **The configuration update** (``update_peer``): the admin writes the peer's config znode
  (``/hbase/replication/peers/<id>``); every live region server gets the watch's event once
  (``config_update_pending[s, p]`` until it reacts, ``peer_sync`` with ``how == "config"``):

  - HBase 1.x (``zk-lock``): ``ReplicationPeerZKImpl``'s ``PeerConfigTracker`` calls
    ``peerConfigUpdated``, which tells the replication endpoint; the sources go on as they are.
  - HBase 2.x (``zk-multi``): ``PeerProcedureHandlerImpl.updatePeerConfig`` calls
    ``ReplicationSourceManager.refreshSources`` on a key configuration change (the model's
    update is one): every source of the peer, normal and recovered, is terminated and created
    again over the same WALs (``walsById``, ``walsByIdRecoveredQueues``), the first one read from
    the position stored in its queue znode, so a batch shipped and not yet persisted is shipped
    again (``rule_refresh_keeps_recovered_wals``).

* **A peer added again under its id** (``add_peer`` from ``REMOVED``): once every server has
  handled the removal (none still replicates to the old peer or runs a source of it: HBase 2.x's
  RemovePeerProcedure waits for every server's refresh, and 1.x's watcher delivers the peer
  znode's deletion before the new children list). The new peer is owed nothing its predecessor
  was: the edits written before are owed to no one; each server may handle a later removal
  again (its ``gone`` flag is cleared).

Layout (only under ``peer_life``): ``config_update_pending[s, p]`` (``Server.updates``) and
``peer_refreshed[p]`` (``State.refreshed``: the peer's sources were created again, or it was added
again, which explains an edit applied twice there).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.state import ABSENT, DISABLED, ENABLED, REMOVED
from replcheck.model.engine.names import named, var
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Budget, Server


def _updates(text: Any) -> list[tuple[int]]:
    return [(p,) for p in text.P] if text.cfg.peer_life else []


class ZkPeerLife:
    """``update_peer``, the servers' reaction to it and the re-add's clean-up (the layout
    provides ``cfg``, ``multi``, ``S``, ``P``, ``W``, ``E``, ``LW``, ``sh_keys`` and the queue
    and shipper helpers)."""

    cfg: Any
    multi: bool
    S: range
    P: range
    W: range
    E: int
    sh_keys: list[tuple[int, int, int, int]]
    drop_queue: Any
    clear_shipper: Any

    # --- layout -------------------------------------------------------------------------------

    def peer_life_sorts(self, out: dict[tuple, Any]) -> None:
        """The feature's slots, only under ``peer_life`` (other configurations keep their
        layout)."""
        if not self.cfg.peer_life:
            return
        for s in self.S:
            for p in self.P:
                out[var.config_update_pending(s, p)] = "b"
        for p in self.P:
            out[var.peer_refreshed(p)] = "b"

    # --- the admin ----------------------------------------------------------------------------

    @step(params=("peer",), fair=False, each=_updates)
    def update_peer(self, t: Ctx, p: int) -> None:
        """admin: update_peer_config (the peer's config znode)"""
        ops = t.ops
        status = t.peer_state[p]
        t.require(Budget(t, "admin").left > 0, ops.or_(status == ENABLED, status == DISABLED))
        Budget(t, "admin").left = Budget(t, "admin").left - 1
        for s in self.S:
            t.config_update_pending[s, p] = Server(t, s).alive

    def old_peer_handled(self, t: Ctx, p: int) -> list[Any]:
        """No server still replicates to removed peer ``p`` or runs a source of it."""
        ops = t.ops
        out = []
        for s in self.S:
            out.append(ops.not_(t.knows_peer[s, p]))
            out += [ops.not_(t.shipper[s, *sk]) for sk in self.sh_keys if sk[0] == p]
        return out

    def readd_guard(self, t: Ctx, p: int) -> list[Any]:
        """``add_peer``'s condition: the id is free (never used, or, under ``peer_life``, a
        removed peer's whose removal every server has handled)."""
        ops = t.ops
        status = t.peer_state[p]
        if not self.cfg.peer_life:
            return [status == ABSENT]
        again = ops.and_(status == REMOVED, *self.old_peer_handled(t, p))
        return [ops.or_(status == ABSENT, again)]

    def after_add(self, t: Ctx, p: int, again: Any) -> None:
        """A peer added again is owed nothing its predecessor was, and each server handles a
        later removal of it again."""
        if not self.cfg.peer_life:
            return
        for w in self.W:
            for j in range(self.E):
                t.when(again).entry_owed[w, j, p] = False
        for s in self.S:
            t.when(again).removal_handled[s, p] = False
        t.when(again).peer_refreshed[p] = True

    # --- the servers --------------------------------------------------------------------------

    def config_sync(self, t: Ctx, s: int, p: int) -> None:
        """Server ``s`` reacts to the update of peer ``p``'s config znode: HBase 2.x refreshes
        the peer's sources, 1.x tells the endpoint only."""
        t.require(Server(t, s).alive, t.config_update_pending[s, p])
        t.config_update_pending[s, p] = False
        if self.multi:
            self.refresh_sources(t, s, p)

    def rule_refresh_keeps_recovered_wals(self) -> bool:
        """Does a refreshed recovered source get its queue's WALs (``walsByIdRecoveredQueues``)?
        Yes (HBASE-24871's fix)."""
        return True

    def refresh_sources(self, t: Ctx, s: int, p: int) -> None:
        """``refreshSources(p)`` on server ``s``: every source of the peer is created again over
        the same WALs, its first one read from the position in its queue znode."""
        ops = t.ops
        keep = self.rule_refresh_keeps_recovered_wals()
        t.peer_refreshed[p] = True
        for sk in self.sh_keys:
            if sk[0] != p:
                continue
            _p, ci, _g, _m = sk
            key = (s, *sk)
            present = t.shipper[*key]
            if ci != 0 and not keep:
                # without its WALs the new recovered source has nothing to read: it ends at
                # once and, as the queue's last, deletes the queue znode
                self.clear_shipper(ops, t, present, key)
                self.drop_queue(ops, t, present, s, p, ci)
                continue
            head = t.shipper_wal[*key, 0]
            stored: Any = 0
            for w in self.W:
                at = ops.ite(t.queue_has_wal[s, p, ci, w], t.queue_wal_pos[s, p, ci, w], 0)
                stored = ops.ite(head == w, at, stored)
            t.when(present).shipper_pos[*key] = stored

    def duplicates_explained_for(self, ops: Any, get: Any, p: int) -> Any:
        """Does peer ``p``'s history explain an edit applied twice there by a live server's own
        sources? Its removal does; under ``peer_life`` also a re-add or a refresh of its
        sources (the new source ships again what the old one had not persisted)."""
        now = named(get)
        removed = now.peer_state[p] == REMOVED
        if not self.cfg.peer_life:
            return removed
        return ops.or_(removed, now.peer_refreshed[p])
