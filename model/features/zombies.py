"""What a table-era region server does after the master found it dead and before its
ServerCrashProcedure's split takes its WALs' leases (a *zombie*), in the protocol text's form
(``model/engine/step.py``). HBase's zombie writer can still append to its current WAL until lease
recovery fences it, a batch its source had in flight still reaches the sink, and nothing fences
its writes to ``hbase:replication`` (a table client needs no ZooKeeper session). The model's dead
server otherwise takes no step; these steps exist only under the configuration's ``zombies``
(trace validation sets it), so no checker's state space changes:

* ``zombie_put``, ``zombie_roll``, ``zombie_archive``: its writer appends an edit (owed to the
  peers in storage, which the sources it had would have shipped), rolls to a new WAL in its WAL
  directory, or moves a WAL it rolled away from to ``oldWALs``, while the split has not taken
  the WAL;
* ``zombie_ship``: an edit of any WAL, to a peer that should receive it, once some server is
  dead (its sources may have had a batch of it in flight, read before the log cleaner deleted the
  WAL if it since has);
* ``zombie_persist``: ``setOffset`` of any offset its sources could have reached, into any WAL of
  the server a source of it reads (its own, or a claimed one's), or the end of one (``advance``);
* ``zombie_refresh``: a RefreshPeerProcedure it received before the master found it dead writes
  a new peer's first offsets (``rs_add_peer``) or deletes a removed peer's queues
  (``rs_remove_peer``); it starts no source and stops none.

A dead claimer's in-flight claim is ``zombie_claim_commit`` (``model/table/claim.py``), and with the
configuration's ``zombies`` every server may die (``model/common/crashes.py``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import DELETED, REMOVED
from replcheck.model.common.zombie_wals import ZombieWals, zombies_only
from replcheck.model.engine.step import Ctx, step
from replcheck.model.features.joins import StartedSlots
from replcheck.model.table.state import FULL, NO_SOURCE
from replcheck.model.table.views import Server, TableText, WalFile

_on = zombies_only


@_on
def _edits(text: Any) -> list[tuple[int, int, int, int, int]]:
    return [(*text.key[w], j, p) for w in text.W for j in range(text.E) for p in text.P]


@_on
def _offsets(text: Any) -> list[tuple[int, int, int, int, int, int]]:
    positions = (*range(1, text.E + 1), FULL)
    return [
        (s, p, NO_SOURCE if ws == s else ws, g, q, pos)
        for s in text.S
        for p in text.P
        for ws in text.S
        for g in text.G
        for q in text.Q
        for pos in positions
    ]


@_on
def _refreshes(text: Any) -> list[tuple[int, int]]:
    return [(p, s) for s in text.S for p in text.P]


class ZombieSteps(ZombieWals, TableText):
    """The ``zombies`` feature (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"zombies"})
    shipper_copies = 4
    """A zombie's ``zombie_persist`` can write back a queue row a claim already moved, and the
    next claim round moves it again: each move starts one more recovered shipper on the
    claimer. A successor needing more is refused (``overflow``), never decoded wrongly."""
    rule_owed: Any

    def zombie(self, ops: Any, t: Any, s: int) -> Any:
        """Server ``s`` has started and is dead."""
        started = t.server_started[s] if isinstance(self, StartedSlots) else True
        return ops.and_(started, ops.not_(Server(t, s).alive))

    def zombie_append(self, t: Ctx, s: int, w: int, j: int, kind: int) -> None:
        # the edit is owed to every peer in storage, as if the server knew them all
        stored = self.as_stored(t.ops, t)
        owed = [self.rule_owed(t.ops, stored, s, kind, p) for p in self.P]
        self.write_entry(t, True, w, j, self.uid(w, j), kind, 0, owed)

    @step(params=("server", "group", "seq", "entry", "peer"), fair=False, each=_edits)
    def zombie_ship(self, t: Ctx, s: int, g: int, q: int, j: int, p: int) -> None:
        """an edit in a dead server's batch in flight reaches the peer"""
        ops = t.ops
        w = self.slot(s, g, q)
        target = p + 1
        t.require(
            ops.or_(*(ops.not_(Server(t, x).alive) for x in self.S)),
            WalFile(t, w).exists,
            j < WalFile(t, w).entries,
        )
        uid, kind, ids = self.entry(t.get, w, j)
        t.require(self.replicable(ops, rules.replicable_rule, kind, ids, target))
        self.deliver(ops, t, target, [(True, uid, kind, ids)])

    @step(
        params=("server", "peer", "source", "group", "seq", "pos"),
        fair=False,
        each=_offsets,
    )
    def zombie_persist(self, t: Ctx, s: int, p: int, src: int, g: int, q: int, pos: int) -> None:
        """a dead server's source writes an offset it had reached (a table client needs no
        session)"""
        ops = t.ops
        w = self.slot(self.wal_owner(s, src), g, q)
        t.require(
            self.zombie(ops, t, s),
            WalFile(t, w).exists,
            WalFile(t, w).place != DELETED,
            True if pos == FULL else pos <= WalFile(t, w).entries,
        )
        self.set_offset(ops, t, True, (p, s, src), g, q, pos)
        t.last_pushed_row[p] = True

    @step(params=("peer", "server"), fair=False, each=_refreshes)
    def zombie_refresh(self, t: Ctx, p: int, s: int) -> None:
        """a dead server runs a refresh the master sent it before its session expired"""
        ops = t.ops
        removed = t.peer_state[p] == REMOVED
        known = Server(t, s).knows[p]
        t.require(self.zombie(ops, t, s), removed == known)
        self.rs_remove_peer(ops, t, removed, p, s)
        self.rs_add_peer(ops, t, ops.not_(removed), p, s)
        # the server is dead to the model: what it knows and its sources stay as they were
        t.knows_peer[s, p] = known
        for sk in self.sh_keys:
            if sk[:2] == (s, p):
                self.clear(t, True, self.shipper_keys(sk))


FEATURE = ZombieSteps
