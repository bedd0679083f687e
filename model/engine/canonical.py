"""The canonical form of a readable state under renaming of region servers, by the packed
renamings (``model/engine/packsym.py``): the one symmetry reduction every engine uses.

The packed searches (``specs/compiled.py``) store the least packed image of a state. An engine
that holds readable states (``TextModel``, ``PlainModel``) stores the least *readable* image
among the renamings that list servers in order of their signatures: each image is the state's
slots renamed by the slot and value maps of ``packsym`` and read back, so the renaming is
written once, as the layout's declared kinds. Reading back makes the choice exact where two
packed forms hold one readable state (a server's shippers in either of two copy slots).

Nothing enumerates every ordering of the servers: a renaming's maps are built when it is first
asked for, servers are sorted by a rename-invariant signature (the values of the slots that
name one server and nothing else renamed, ``packsym.signature_slots``), and only servers that
tie are ordered every way. A tied group whose members can be reordered without changing the
state (a swap and a rotation leave it equal: the servers are interchangeable, as all are in an
initial state) needs one order only. Past ``TIE_LIMIT`` orders, ties keep their server order.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby, permutations, product
from math import factorial
from operator import itemgetter
from typing import Any, TypeVar

from replcheck.model.engine.packsym import (
    NotClosed,
    permutation_maps,
    renamer,
    signature_slots,
    slot_renaming,
    types_for,
)
from replcheck.model.engine.terms import bounds

S = TypeVar("S")

Maps = tuple[list[int], list[list[int] | None], list[int]]

TIE_LIMIT = 120
"""The most renamings ``least_renaming`` compares when servers tie on their signatures and are
not interchangeable. Beyond it the ties are broken by server number: the state stored is still
one of its class (symmetry reduction stays sound) but not always the same one, so a large
configuration may store a class more than once."""

CLOSED_FROM_ALL = 6
"""A layout closed under only some renamings (the migration's, whose ZooKeeper queues have
slots only for the initial state's) has them listed among every ordering up to this many
servers; past it, no renaming is used."""


class Shape:
    """What ``permutation_maps`` reads of a program, from a layout's sorts alone (the plain
    interpreter generates no program)."""

    def __init__(self, sorts: dict[tuple, Any]) -> None:
        self.keys = list(sorts)
        self.slot = {k: i for i, k in enumerate(self.keys)}
        self.lo, self.hi = (list(x) for x in zip(*map(bounds, sorts.values()), strict=True))


class Renamings:
    """The renamings of one layout's servers: each one's maps built when first asked for."""

    def __init__(self, layout: Any, era: str, shape: Any) -> None:
        self.layout, self.era, self.shape = layout, era, shape
        self.n = layout.cfg.servers
        self._maps: dict[tuple[int, ...], Maps | None] = {}
        self._slots: dict[tuple[int, ...], Any] = {}
        self.owner, self.token = owner, token = signature_slots(shape.keys, era)
        """Per slot, the server whose signature counts it (-1: none) and its token
        (``packsym.signature_slots``)."""
        owned: dict[int, list[tuple[int, int]]] = {}
        for i, s in enumerate(owner):
            if s >= 0:
                owned.setdefault(s, []).append((token[i], i))
        self.signature_slots = [[i for _t, i in sorted(owned.get(s, []))] for s in range(self.n)]
        """Per server, its signature's slots in one order for every server."""
        self.signature_keys = [[shape.keys[i] for i in slots] for slots in self.signature_slots]
        n = self.n
        generators = [_swap(n, 0, 1)] if n > 1 else []
        if n > 2:
            generators.append((*range(1, n), 0))
        self.complete = all(self.is_closed(g) for g in generators)
        """Is the layout closed under every renaming? (Under a swap and a rotation of all
        servers: they generate every ordering.) Then only the renamings that order servers by
        signature are tried, and from any state of a class the least image among them is the
        same."""
        self._closed: list[tuple[int, ...]] | None = None
        deps: dict[str, list[str]] = {}
        for fam, (_positions, _value, presence) in types_for(era).items():
            if presence is not None:
                deps.setdefault(presence, []).append(fam)
        self.dependents = {p: tuple(fs) for p, fs in deps.items()}
        """Per presence family, the families whose values wait for it (``TYPES``)."""

    def is_closed(self, perm: tuple[int, ...]) -> bool:
        """Does ``perm`` take every slot of the layout to a slot of it, no two to one?"""
        one = slot_renaming(self.layout, self.era, perm)
        slot = self.shape.slot
        seen = set()
        try:
            for k in self.shape.keys:
                new = one(k)[0]
                if new not in slot:
                    return False
                seen.add(new)
        except (KeyError, IndexError):
            return False
        return len(seen) == len(self.shape.keys)

    def maps(self, perm: tuple[int, ...]) -> Maps | None:
        """``permutation_maps`` of ``perm``; None where the layout is not closed under it."""
        if perm not in self._maps:
            try:
                self._maps[perm] = permutation_maps(self.layout, self.era, self.shape, perm)
            except NotClosed:
                self._maps[perm] = None
        return self._maps[perm]

    def sparse(self, values: Any, perm: tuple[int, ...], make: Callable[[], Any]) -> Any:
        """Slot values held sparsely (``values``: the slots that differ from their defaults,
        ``values.defaults`` the rest) under ``perm``, into ``make()``: only the slots held
        move, and a slot at its default is renamed only where its presence variable is held
        (an unset optional value, -1, stays -1)."""
        got = self._slots.get(perm)
        if got is None:
            got = self._slots[perm] = (
                slot_renaming(self.layout, self.era, perm),
                renamer(self.layout, self.era, perm),
                {},
            )
        one, rename, memo = got
        defaults = values.defaults
        out = make()
        todo = set(values)
        dependents = self.dependents
        for k in values:
            for dep in dependents.get(k[0], ()):
                todo.add((dep, *k[1:]))
        for k in todo:
            hit = memo.get(k)
            if hit is None:
                hit = memo[k] = one(k)
            new, kind, presence = hit
            v = values[k]
            if kind is not None and (presence is None or values[presence]):
                v = rename(kind, int(v))
            if v != defaults[new] or type(v) is not type(defaults[new]):
                out[new] = v
        return out

    def closed(self) -> list[tuple[int, ...]]:
        """The renamings the layout is closed under, identity first (``CLOSED_FROM_ALL``)."""
        if self._closed is None:
            ident = tuple(range(self.n))
            self._closed = [ident]
            if self.n <= CLOSED_FROM_ALL:
                self._closed += [
                    p for p in permutations(range(self.n)) if p != ident and self.is_closed(p)
                ]
        return self._closed

    def every(self) -> list[Maps]:
        """The maps of every renaming but the identity that the layout is closed under (what
        generated Python's search compares images under where that is not every renaming):
        built on this call, all of them."""
        return [m for m in map(self.maps, self.closed()[1:]) if m is not None]

    def getters(self) -> list[Callable[[tuple], tuple]]:
        """Per server, its signature read off a packed state."""
        return [_getter(slots) for slots in self.signature_slots]


def _swap(n: int, a: int, b: int) -> tuple[int, ...]:
    p = list(range(n))
    p[a], p[b] = b, a
    return tuple(p)


def _getter(slots: list[int]) -> Callable[[tuple], tuple]:
    if not slots:
        return lambda s: ()
    if len(slots) == 1:
        i = slots[0]
        return lambda s: (s[i],)
    return itemgetter(*slots)


def canonical(st: S, ren: Renamings, sig: list, rename: Callable[[tuple[int, ...]], S]) -> S:
    """The representative of ``st``'s class: ``rename(perm)`` is ``st`` with server ``s``
    called ``perm[s]`` (read back from its renamed slots), ``sig`` each server's signature."""
    if ren.complete:
        return least_renaming(st, sig, rename)
    best = st
    for perm in ren.closed()[1:]:
        other = rename(perm)
        if other < best:  # type: ignore[operator]
            best = other
    return best


def least_renaming(st: S, sig: list, rename: Callable[[tuple[int, ...]], S]) -> S:
    """The least of ``st``'s renamings that list servers in order of their rename-invariant
    signatures ``sig`` (that set is the same from any member of the class, so the choice is
    canonical); ``st`` itself when it is already in order (module docstring)."""
    n = len(sig)
    order = sorted(range(n), key=sig.__getitem__)
    groups = [list(g) for _k, g in groupby(order, key=sig.__getitem__)]

    def interchangeable(g: list[int]) -> bool:
        """Does every order of ``g`` leave the state as it is? It does when swapping the first
        two and rotating them all does: those two generate every order."""
        if rename(_swap(n, g[0], g[1])) != st:
            return False
        if len(g) == 2:
            return True
        rotate = list(range(n))
        for i, s in enumerate(g):
            rotate[s] = g[(i + 1) % len(g)]
        return rename(tuple(rotate)) == st

    count = 1
    choices: list[list[tuple[int, ...]]] = []
    for g in groups:
        if len(g) > 1 and interchangeable(g):
            choices.append([tuple(g)])  # one order stands for all
            continue
        count *= factorial(len(g))
        choices.append(list(permutations(g)) if count <= TIE_LIMIT else [tuple(g)])
    if count > TIE_LIMIT:
        choices = [[tuple(g)] for g in groups]
    starts = [0]
    for g in groups[:-1]:
        starts.append(starts[-1] + len(g))
    best = None
    for choice in product(*choices):
        perm = [0] * n
        for start, members in zip(starts, choice, strict=True):
            for offset, old in enumerate(members):
                perm[old] = start + offset
        other = st if perm == sorted(perm) else rename(tuple(perm))
        if best is None or other < best:  # type: ignore[operator]
            best = other
    assert best is not None
    return best
