"""Copy slots in one order: the normal form of a layout's interchangeable slots.

A layout that holds a set of equal-kind things in numbered slots (a server's shippers for one
queue and WAL group, in the shipper *copy* slots) could hold one readable state in several
packed forms: a new shipper takes the first free copy, so which copy holds which shipper depends
on the order they came and went. Those forms are one state of the protocol; an engine that
compares packed states (the C search, generated Python, bounded model checking) would count
them apart.

``CopySlots`` keeps them in one order. ``copy_groups`` lists each group's copies, each as its
slot keys with its presence flag first. After every step (``model/engine/step.py``'s ``instance``)
the groups the step wrote are sorted, and ``encode`` sorts every group, by one comparison: a present
copy before an absent one, present copies by their slot values in the listed order. An absent
copy holds its slots' defaults, so two absent copies are equal. Since the initial state is
encoded and every step sorts what it touched, every reachable packed state is in normal form,
and ``encode(decode(x)) == x`` on each.

Swapping two copies renames which slot holds which shipper and nothing else: every step treats
the copies of a group alike (a step's instance for copy ``m`` is the same step on the shipper
held there), so the normal form changes no behaviour, only how many packed forms a state has.
The sort is a fixed network of compare-and-swap writes, written against ``Ops``, so every engine
runs it: plain values, Z3 terms and the traced program alike.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.logic import PY
from replcheck.model.engine.text import FPY, Tx


class CopySlots:
    """A layout whose ``copy_groups`` are kept sorted (see the module's doc)."""

    def copy_groups(self) -> list[list[list[tuple]]]:
        """Each group of interchangeable copies: per copy, its slot keys, presence first."""
        return []

    def _copy_index(self) -> tuple[list[list[list[tuple]]], dict[tuple, int], dict[tuple, Any]]:
        got = self.__dict__.get("_copies")
        if got is None:
            groups = self.copy_groups()
            where = {k: i for i, group in enumerate(groups) for copy in group for k in copy}
            got = self.__dict__["_copies"] = (groups, where, self.sorts())  # type: ignore[attr-defined]
        return got

    def normal_form(self, ops: Any, tx: Tx) -> None:
        """Sort the copy groups step ``tx`` wrote."""
        groups, where, sorts = self._copy_index()
        if not where:
            return
        touched = sorted({where[k] for k in tx.new if k in where})
        plain = ops is FPY or ops is PY
        for i in touched:
            (sort_plain if plain else sort_copies)(ops, tx, groups[i], sorts)

    def normalized(self, v: dict[tuple, Any]) -> dict[tuple, Any]:
        """``v`` (plain values) with every copy group sorted."""
        groups, _where, sorts = self._copy_index()
        tx = Tx(FPY, v)
        for group in groups:
            sort_plain(FPY, tx, group, sorts)
        v.update(tx.new)
        return v


def sort_copies(ops: Any, tx: Tx, copies: list[list[tuple]], sorts: dict[tuple, Any]) -> None:
    """Sort ``copies`` in place in ``tx`` by a compare-and-swap network (bubble order)."""
    n = len(copies)
    for i in range(n - 1):
        for j in range(n - 1 - i):
            _order(ops, tx, copies[j], copies[j + 1], sorts)


def sort_plain(_ops: Any, tx: Tx, copies: list[list[tuple]], _sorts: Any) -> None:
    """``sort_copies`` on plain values, where the order is Python's on tuples (``False <
    True``; a present copy's key starts with ``False``): the same sorted result, written only
    where it changes a slot."""
    if not any(tx[copy[0]] for copy in copies[1:]):
        return  # no copy but the first in use: absent copies hold the defaults, in order
    values = [[tx[k] for k in copy] for copy in copies]
    keys = [(not v[0], *v[1:]) for v in values]
    if all(keys[i] <= keys[i + 1] for i in range(len(keys) - 1)):
        return
    order = sorted(range(len(copies)), key=keys.__getitem__)
    for i, j in enumerate(order):
        for k, old, new in zip(copies[i], values[i], values[j], strict=True):
            if old != new or type(old) is not type(new):
                tx[k] = new


def _order(ops: Any, tx: Tx, a: list[tuple], b: list[tuple], sorts: dict[tuple, Any]) -> None:
    va = [tx[k] for k in a]
    vb = [tx[k] for k in b]
    swap = _before(ops, vb, va, [sorts[k] for k in a])
    if swap is False:
        return
    for k, x, y in zip(a, va, vb, strict=True):
        tx[k] = ops.ite(swap, y, x)
    for k, x, y in zip(b, va, vb, strict=True):
        tx[k] = ops.ite(swap, x, y)


def _less(ops: Any, x: Any, y: Any, sort: Any) -> Any:
    return ops.and_(ops.not_(x), y) if sort == "b" else x < y


def _before(ops: Any, u: list[Any], v: list[Any], sorts: list[Any]) -> Any:
    """Copy ``u`` strictly before copy ``v``: present before absent, then by value."""
    lt: Any = False
    for x, y, sort in reversed(list(zip(u[1:], v[1:], sorts[1:], strict=True))):
        lt = ops.or_(_less(ops, x, y, sort), ops.and_(ops.eq(x, y), lt))
    return ops.or_(ops.and_(u[0], ops.not_(v[0])), ops.and_(u[0], v[0], lt))
