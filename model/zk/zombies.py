"""What a ZooKeeper-era region server does after its session expired and before the master's
split takes its WALs' leases (a *zombie*), in the protocol text's form (``model/engine/step.py``).
HBase's zombie writer can still append to its current WAL until lease recovery fences it, and a
batch its source had in flight still reaches the sink. The model's dead server otherwise takes
no step; these exist only under the configuration's ``zombies`` (trace validation sets it), so
no checker's state space changes:

* ``zombie_put``, ``zombie_roll``, ``zombie_archive``: its writer appends an edit (owed to the
  peers in storage, which the sources it had would have shipped), rolls to a new WAL in its WAL
  directory, or moves a WAL it rolled away from to ``oldWALs``, while the split has not taken
  the WAL;
* ``zombie_ship``: an edit of any WAL, to a peer that should receive it, once some server is
  dead (its sources may have had a batch of it in flight, read before the log cleaner deleted the
  WAL if it since has).

A zombie's sink handler writing an edit another cluster sent it is ``zombie_relay_apply``
(``model/common/relay_steps.py``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common import rules
from replcheck.model.common.state import DISABLED, ENABLED
from replcheck.model.common.zombie_wals import ZombieWals, zombies_only
from replcheck.model.engine.step import Ctx, step
from replcheck.model.table.views import Server, WalFile

_on = zombies_only


@_on
def _edits(text: Any) -> list[tuple[int, int, int]]:
    return [(w, j, p) for w in text.W for j in range(text.E) for p in text.P]


def _key_label(text: Any, st: Any, get: Any, a: tuple) -> tuple:
    return (*text.key[a[0]], *a[1:])


class ZkZombies(ZombieWals):
    """The zombie steps (the layout provides ``append``, ``deliver`` and ``replicable``)."""

    cfg: Any
    S: range
    P: range
    W: range
    E: int
    key: list[tuple[int, int, int]]
    uid_index: dict[tuple, int]
    ids_index: dict[tuple, int]
    append: Any
    deliver: Any
    replicable: Any

    def append_as_stored(
        self,
        ops: Any,
        t: Ctx,
        s: int,
        w: int,
        j: int,
        uid: Any,
        kind: Any,
        ids: Any,
        cond: Any = True,
    ) -> None:
        """``append``, the edit owed to every peer in storage, as if the dead server knew them
        all (what it knew is kept)."""
        known = [t.knows_peer[s, p] for p in self.P]
        for p in self.P:
            t.knows_peer[s, p] = ops.or_(t.peer_state[p] == ENABLED, t.peer_state[p] == DISABLED)
        self.append(ops, t, s, w, j, uid, kind, ids, cond)
        for p in self.P:
            t.knows_peer[s, p] = known[p]

    def zombie_append(self, t: Ctx, s: int, w: int, j: int, kind: int) -> None:
        """A zombie server (declared dead, still running) appends our client's edit ``j`` to
        its WAL slot ``w``, as stored."""
        uid, ids = self.uid_index[(0, *self.key[w], j)], self.ids_index[(0,)]
        self.append_as_stored(t.ops, t, s, w, j, uid, kind, ids)

    @step(
        params=("server", "group", "seq", "entry", "peer"),
        fair=False,
        each=_edits,
        label=_key_label,
    )
    def zombie_ship(self, t: Ctx, w: int, j: int, p: int) -> None:
        """an edit in a dead server's batch in flight reaches the peer"""
        ops = t.ops
        t.require(WalFile(t, w).exists)
        t.require(j < WalFile(t, w).entries)
        kind, ids, uid = t.entry_kind[w, j], t.entry_cluster_ids[w, j], t.entry_edit[w, j]
        t.require(
            ops.or_(*(ops.not_(Server(t, x).alive) for x in self.S)),
            self.replicable(ops, rules.replicable_rule, kind, ids, p + 1),
        )
        self.deliver(ops, t, p + 1, [(True, uid, kind, ids)])
