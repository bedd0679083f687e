"""The other clusters of a master-master or cyclic topology in the table era (the
configuration's ``topology`` and ``foreign_edits``; every recorded run has one), in the protocol
text's form (``model/engine/step.py``). The steps are both eras' (``model/common/relay_steps.py``):
another cluster's own edits, its log replicated onward and home, and what a live or dead server of
ours writes when it applies one.

An edit relayed home is written to a WAL with its own id and cluster ids, so each WAL entry holds
``entry_edit[w, j]`` (an index in the layout's ``uids``) and ``entry_cluster_ids[w, j]`` (an index
in its cluster-id lists) beside its kind; the relay logs and the sinks' slots are
``model/common/edit_space.py``'s. The properties read each entry's edit through ``entry``
(``model/common/edit_properties.py``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.relay_steps import RelaySteps
from replcheck.model.engine.composition import replaces
from replcheck.model.engine.names import named, var
from replcheck.model.engine.text import FlatError
from replcheck.model.table.layout import TableFlat
from replcheck.model.table.seams import StepBase
from replcheck.model.table.views import TableText


class TableRelays(RelaySteps, TableText):
    """The ``relays`` feature (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"relays"})
    encoded_fields = ("relays",)
    relay_clusters: list[int]
    uids: list[tuple]
    uid_index: dict[tuple, int]
    ids: list[tuple[int, ...]]
    ids_index: dict[tuple[int, ...], int]
    rule_owed: Any
    sink_clusters: list[int]

    def __init__(self, design: Any, cfg: Any) -> None:
        for flag, what in (
            (cfg.sync_peers, "sync replication peers"),
            (cfg.syncup, "ReplicationSyncUp"),
            (cfg.migration, "the migration from ZooKeeper"),
        ):
            if flag:
                raise FlatError(f"config {cfg.name!r}: relay clusters with {what} not in the text")
        super().__init__(design, cfg)  # type: ignore[call-arg]

    @property
    def budgets(self) -> tuple[str, ...]:
        return (*super().budgets, "foreign")  # type: ignore[misc]

    @property
    def constant_budgets(self) -> tuple[str, ...]:
        return tuple(b for b in super().constant_budgets if b != "foreign")  # type: ignore[misc]

    # --- the layout -------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for w in self.W:
            for j in range(self.E):
                out[var.entry_edit(w, j)] = ("i", -1, len(self.uids) - 1)
                out[var.entry_cluster_ids(w, j)] = ("i", -1, len(self.ids) - 1)
        self.relay_sorts(out)
        return out

    def wal_keys(self, w: int) -> list[tuple]:
        keys: list[tuple] = super().wal_keys(w)  # type: ignore[misc]
        for j in range(self.E):
            keys += [var.entry_edit(w, j), var.entry_cluster_ids(w, j)]
        return keys

    @replaces(TableFlat)
    def _put_entry(self, v: dict[tuple, Any], w: int, j: int, e: Any) -> None:
        v[var.entry_edit(w, j)] = self.uid_index[e.uid]
        v[var.entry_kind(w, j)] = e.kind
        v[var.entry_cluster_ids(w, j)] = self.ids_index[e.cluster_ids]
        for p in self.P:
            v[var.entry_owed(w, j, p)] = bool(e.owed >> p & 1)

    @replaces(TableFlat)
    def _entry(self, v: Any, w: int, j: int) -> Any:
        from replcheck.model.common.state import Edit

        owed = sum(1 << p for p in self.P if v[var.entry_owed(w, j, p)])
        return Edit(
            self.uids[v[var.entry_edit(w, j)]],
            v[var.entry_kind(w, j)],
            self.ids[v[var.entry_cluster_ids(w, j)]],
            owed,
        )

    # --- the text's pieces ----------------------------------------------------------------------

    @replaces(StepBase)
    def entry(self, get: Any, w: int, j: int) -> tuple[Any, Any, Any]:
        now = named(get)
        return (
            now.entry_edit[w, j],
            now.entry_kind[w, j],
            now.entry_cluster_ids[w, j],
        )

    def write_entry(
        self, t: Any, cond: Any, w: int, j: int, uid: Any, kind: Any, ids: Any, owed: list[Any]
    ) -> None:
        t.when(cond).entry_edit[w, j] = uid
        t.when(cond).entry_cluster_ids[w, j] = ids
        super().write_entry(t, cond, w, j, uid, kind, ids, owed)  # type: ignore[misc]

    def append(
        self,
        ops: Any,
        t: Any,
        s: int,
        w: int,
        j: int,
        uid: Any,
        kind: Any,
        ids: Any,
        cond: Any = True,
        get: Any = None,
    ) -> None:
        """``append``: where ``cond`` holds, the edit is entry ``j`` of WAL slot ``w``, owed to
        the peers ``rule_owed`` gives (read through ``get``, by default the state)."""
        if j >= self.E:
            t.when(cond).overflow = True
            return
        owed = [self.rule_owed(ops, get or t.get, s, kind, p, ids) for p in self.P]
        self.write_entry(t, cond, w, j, uid, kind, ids, owed)

    def append_as_stored(
        self,
        ops: Any,
        t: Any,
        s: int,
        w: int,
        j: int,
        uid: Any,
        kind: Any,
        ids: Any,
        cond: Any = True,
    ) -> None:
        """``append``, owed as if the server knew every peer in storage (a zombie's)."""
        self.append(ops, t, s, w, j, uid, kind, ids, cond, self.as_stored(ops, t))


FEATURE = TableRelays
