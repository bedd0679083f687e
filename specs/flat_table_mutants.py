"""The flat form of each table-era mutant that overrides a step outside a dual-form rule, as a
mixin placed before ``TableFlat`` (``specs/flat_table.py``)."""

from __future__ import annotations

from typing import Any

from replcheck.model.table_state import (
    NO_SOURCE,
)
from replcheck.model.text import Tx

from .flat_table_base import StepBase


class FlatTableDoc(StepBase):
    """``table-doc``: RemovePeerProcedure records and waits for the unfinished SCPs."""

    def rule_removal_waits_for(self, ops: Any, get: Any, d: int) -> Any:
        return self.scp_unfinished(ops, get, d)

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return ops.or_(
            *(ops.and_(get(("pprec", p, d)), self.scp_unfinished(ops, get, d)) for d in self.S)
        )


class FlatRemoveWithoutWaiting(StepBase):
    """``table/HBASE-27213``: RemovePeerProcedure does not wait."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return False


class FlatRemoveRecollects(StepBase):
    """``table/HBASE-27213-recollect``: the running claim procedures are collected again."""

    def rule_removal_pending(self, ops: Any, get: Any, p: int) -> Any:
        return ops.or_(*(self.rule_removal_waits_for(ops, get, d) for d in self.S))


class FlatRemovePeerKeepsRecovered(StepBase):
    """``table/remove-peer-keeps-recovered``: only the normal source stops."""

    def rs_remove_peer(self, ops: Any, tx: Tx, cond: Any, p: int, s: int) -> None:
        self.remove_row(tx, cond, (p, s, NO_SOURCE))
        for sk in self.sh_keys:
            if sk[:3] == (s, p, NO_SOURCE):
                self.clear(tx, cond, self.shipper_keys(sk))
        tx.when(cond, ("known", s, p), False)
