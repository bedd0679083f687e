"""The bootstrap of ``hbase:replication`` (``Config.bootstrap``, ``model/bootstrap.py``) in the
flat table model (``specs/flat_table.py``), and the flat form of seed 004's rejected design
``table-naive``.

A bootstrap configuration starts with the region of ``hbase:replication`` closed. The state keeps
one flag for it, ``TState.table_online``, which the base flat model holds constant; here it is the
variable ``("online",)``. The explicit model gates every action that reads or writes the table
(``STORAGE_KINDS`` of ``model/table_common.py``) on the flag, so every flat instance of such an
action gets ``online`` as a conjunct of its guard. ``open_table`` of a server is the step that
sets the flag: the master assigns the region to a live server whose current WALs are writable
(``rule_wal_ready`` of every WAL group), and opening it writes the open marker into one of them.

In ``table`` a WAL is always writable (``rule_wal_ready`` is ``True``), so the bootstrap is just
the one ``open_table`` step. ``table-naive`` (``TableNaive``) records every new WAL in queue
storage before use: its WAL of group ``g`` is writable only once every normal queue of a peer the
server knows has a column of group ``g`` at the current WAL or later, and its ``register_wal``
step writes those columns, which needs the table open: the seed's 'deadlock', a state with no
``open_table``, ``put`` or ``register_wal`` enabled. ``FlatTableNaive`` mirrors that rule (which
gates a client ``put`` too) and that step; it is placed before the feature mixin
(``MUTANTS["table-naive"]``, base ``TableFlat``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.table_common import STORAGE_KINDS
from replcheck.model.table_state import NO_SOURCE, TState

from .flat import Instance, Tx
from .flat_table_base import StepBase

ONLINE = ("online",)
"""``TState.table_online``: the region of ``hbase:replication`` is open."""


def table_online(flat: Any, ops: Any, get: Any) -> Any:
    """The flag, or its constant initial value when the layout does not hold it (a
    configuration without the bootstrap)."""
    if "table_online" in flat.constant_fields:
        return flat.init_state.table_online
    return get(ONLINE)


class FlatBootstrap(StepBase):
    """The ``bootstrap`` feature: the ``table_online`` flag, ``open_table``, and the gating of
    every table read or write on it."""

    handles = frozenset({"bootstrap"})
    constant_fields: tuple[str, ...]
    init_state: TState

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.constant_fields = tuple(f for f in self.constant_fields if f != "table_online")

    # --- layout -------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        out[ONLINE] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        v[ONLINE] = st.table_online
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        return st._replace(table_online=v[ONLINE])

    # --- steps --------------------------------------------------------------------------------

    def rule_wal_ready(self, ops: Any, get: Any, s: int, g: int) -> Any:
        """``rule_wal_ready``: with one offset per queue a new WAL needs nothing from queue
        storage."""
        return True

    def _open_table(self, s: int) -> Instance:
        """``open_table``: the region is assigned to live server ``s`` whose WALs are writable;
        the table is online."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                ops.not_(get(ONLINE)),
                get(("alive", s)),
                *(self.rule_wal_ready(ops, get, s, g) for g in self.G),
            )

        def apply(ops: Any, tx: Tx) -> None:
            tx[ONLINE] = True

        return Instance("open_table", (s,), guard, apply)

    def gated(self, inst: Instance) -> Instance:
        """The instance as ``enabled`` offers it: a table read or write waits for the region."""
        if inst.name not in STORAGE_KINDS:
            return inst
        inner = inst.guard

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(get(ONLINE), inner(ops, get))

        return Instance(inst.name, inst.args, guard, inst.apply)

    def instances(self) -> list[Instance]:
        out: list[Instance] = super().instances()  # type: ignore[misc]
        out.extend(self._open_table(s) for s in self.S)
        return [self.gated(inst) for inst in out]


class FlatTableNaive(StepBase):
    """``table-naive``: a WAL is writable only once every normal queue of a peer the server
    knows records it, and ``register_wal`` records it (a table write)."""

    def rule_wal_ready(self, ops: Any, get: Any, s: int, g: int) -> Any:
        """``TableNaive.rule_wal_ready``: for each peer the server knows, its normal queue has a
        column of group ``g`` at the current WAL or a later one."""
        cur = get(("cur", s, g))
        return ops.and_(
            *(
                ops.implies(
                    get(("known", s, p)),
                    ops.and_(
                        get(("rex", p, s, NO_SOURCE)),
                        get(("rhas", p, s, NO_SOURCE, g)),
                        get(("rseq", p, s, NO_SOURCE, g)) >= cur,
                    ),
                )
                for p in self.P
            )
        )

    def _put(self, s: int, g: int, q: int, j: int, kind: int) -> Instance:
        """``put``, only into a writable WAL (``rule_wal_ready``)."""
        inst: Instance = super()._put(s, g, q, j, kind)  # type: ignore[misc]
        inner = inst.guard

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(self.rule_wal_ready(ops, get, s, g), inner(ops, get))

        return Instance(inst.name, inst.args, guard, inst.apply)

    def _register_wal(self, s: int, g: int) -> Instance:
        """``register_wal``: ``setOffset`` of the current WAL of group ``g`` at position 0 in the
        normal queue of every peer the server knows."""

        def guard(ops: Any, get: Any) -> Any:
            return ops.and_(
                table_online(self, ops, get),
                get(("alive", s)),
                ops.not_(self.rule_wal_ready(ops, get, s, g)),
            )

        def apply(ops: Any, tx: Tx) -> None:
            cur = tx[("cur", s, g)]
            for p in self.P:
                self.set_offset(ops, tx, tx[("known", s, p)], (p, s, NO_SOURCE), g, cur, 0)

        return Instance("register_wal", (s, g), guard, apply)

    def instances(self) -> list[Instance]:
        out: list[Instance] = super().instances()  # type: ignore[misc]
        out.extend(self._register_wal(s, g) for s in self.S for g in self.G)
        return out


FEATURE = FlatBootstrap
MUTANTS: dict[str, type] = {"table-naive": FlatTableNaive}
"""``table-naive`` is a design of its own; ``table_flat_class`` puts its mixin before the feature
mixin, with ``TableFlat`` as the base."""
