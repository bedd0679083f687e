"""Named state: every variable family of a layout declared once, read and written by its name.

A layout's state is a flat map from keys to values; a key is a short family prefix and its
indexes, ``("cht", d, p, src)``, and every engine (plain values, Z3, generated Python, C) packs
those keys into slots. A *family* gives one prefix a readable name, the names of its index
dimensions and what its values are, declared once::

    CLAIM_TARGET = family(
        "claim_target", "cht", ("dead", "peer", "source"), SERVER,
        "the live server the SCP of ``dead`` sent queue ``(peer, dead, source)`` to",
    )

which reads ``claim_target[dead, peer, source]: server``. The protocol text then reads and
writes it by that name on whatever it is given (a step's ``Ctx``, a ``Tx``, a rule's ``get``
through ``named``)::

    t.claim_target[d, p, src]              # read: t[("cht", d, p, src)]
    t.claim_target[d, p, src] = c          # write
    t.when(ok).claim_target[d, p, src] = c # write where ok holds: t.when(ok, ("cht", ...), c)
    t.cleaner_phase                        # a family with no index: t[("cph",)]
    named(get).claim_target[d, p, src]     # a rule's or property's read: get(("cht", ...))
    var.claim_target(d, p, src)            # the variable's key: ("cht", d, p, src)

Each form makes exactly the key tuple the raw form makes, so every engine sees the same text
and packs the same slots; names only change what a reviewer reads. A family's ``sort`` says
what its values are (``server``, ``WAL sequence or none``...) and, where the layout fixes it,
the range: ``check_layout`` holds a layout's ``sorts()`` against its era's declarations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

ERAS = ("table", "zk")
"""The eras a family can belong to: one of them, or both (``era="both"``)."""

RESERVED = frozenset(
    {
        "at", "base", "below", "conds", "get", "guard", "key", "new", "ops", "require", "t",
        "tx", "when", "writes", "wrote",
    }
)  # fmt: skip
"""Names of what the contexts a family is read through already have: no family takes one."""


@dataclass(frozen=True)
class Sort:
    """What a family's values are: a readable ``name`` (``server``, ``bool``) and, where the
    layout fixes it, the range it has there (``sort(layout)``: ``"b"`` or ``("i", lo, hi)``);
    ``None`` where features widen it (a procedure's stage)."""

    name: str
    of: Callable[[Any], Any] | None = None

    def __str__(self) -> str:
        return self.name


BOOL = Sort("bool", lambda layout: "b")


@dataclass(frozen=True)
class Family:
    """A variable family: ``name[dims...]: sort``, packed under key prefix ``key``."""

    name: str
    key: str
    dims: tuple[str, ...]
    sort: Sort
    doc: str = ""
    era: str = "both"

    def __call__(self, *index: Any) -> tuple:
        """The key of one variable of the family: ``(key, *index)``."""
        return (self.key, *index)

    def __str__(self) -> str:
        dims = f"[{', '.join(self.dims)}]" if self.dims else ""
        return f"{self.name}{dims}: {self.sort}"

    def in_era(self, era: str) -> bool:
        return self.era in (era, "both")


FAMILIES: dict[str, Family] = {}
"""Every declared family by its readable name (each era's ``families`` module declares them)."""


def family(
    name: str, key: str, dims: tuple[str, ...], sort: Sort, doc: str = "", *, era: str
) -> Family:
    """Declare a family (see the module's docstring): its name is then an attribute of every
    context the text reads through. A name is declared once; two eras may pack different
    families under one prefix, but one era only one."""
    if name in FAMILIES:
        raise ValueError(f"family {name!r} declared twice")
    if name in RESERVED or name.startswith("_"):
        raise ValueError(f"family {name!r}: the name is taken")
    if era not in (*ERAS, "both"):
        raise ValueError(f"family {name!r}: unknown era {era!r}")
    for other in FAMILIES.values():
        if other.key == key and (era == "both" or other.in_era(era)):
            raise ValueError(f"families {other.name!r} and {name!r} share key {key!r}")
    fam = Family(name, key, tuple(dims), sort, " ".join(doc.split()), era)
    FAMILIES[name] = fam
    if fam.dims:
        setattr(Named, name, _Indexed(fam.key, name))
        setattr(_When, name, _WhenIndexed(fam.key))
    else:
        setattr(Named, name, _Scalar(fam.key))
        setattr(_When, name, _WhenScalar(fam.key))
    return fam


def families_of(era: str) -> list[Family]:
    """The families of ``era`` (its own and both eras'), in declaration order."""
    return [f for f in FAMILIES.values() if f.in_era(era)]


def by_key(era: str) -> dict[str, Family]:
    """``era``'s families by key prefix."""
    return {f.key: f for f in families_of(era)}


def name_of(key: tuple, era: str) -> str:
    """Key ``key`` written with its family's name: ``claim_target[0, 0, -1]``, or the key as it
    is where no family of ``era`` packs it."""
    fam = by_key(era).get(key[0]) if key and isinstance(key[0], str) else None
    if fam is None:
        return repr(key)
    if not fam.dims:
        return fam.name
    return f"{fam.name}[{', '.join(repr(i) for i in key[1:])}]"


# --- reading and writing by name -----------------------------------------------------------------


def _index(key: str, i: Any) -> tuple:
    return (key, *i) if type(i) is tuple else (key, i)


class Slots:
    """A family read and written through ``t`` (``t[key]``, ``t[key] = v``): ``t.name[i, j]``.
    A read goes straight to ``t``'s own reader (``Named._read``): the plain interpreter reads
    every slot through here."""

    __slots__ = ("key", "read", "t")

    def __init__(self, t: Any, key: str) -> None:
        self.t = t
        self.key = key
        self.read = t._read()

    def __getitem__(self, i: Any) -> Any:
        return self.read((self.key, *i) if type(i) is tuple else (self.key, i))

    def __setitem__(self, i: Any, v: Any) -> None:
        self.t[_index(self.key, i)] = v


class _Indexed:
    """``t.name`` of an indexed family: its ``Slots`` through ``t``. A reader made by ``named``
    keeps it (the properties read the same families over and over in their loops)."""

    __slots__ = ("key", "name")

    def __init__(self, key: str, name: str) -> None:
        self.key = key
        self.name = name

    def __get__(self, t: Any, owner: type | None = None) -> Any:
        if t is None:
            return self
        slots = Slots(t, self.key)
        if type(t) is _Get:
            t.__dict__[self.name] = slots  # found before this (non-data) descriptor from now on
        return slots


class _Scalar:
    """``t.name`` of a family with no index: its one variable, read and written."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, t: Any, owner: type | None = None) -> Any:
        if t is None:
            return self
        return t[(self.key,)]

    def __set__(self, t: Any, v: Any) -> None:
        t[(self.key,)] = v


class Named:
    """What a context gains from the declarations: each family as an attribute (``Ctx``,
    ``Tx`` and ``Reader`` derive from it). A subclass reads with ``self[key]`` and writes with
    ``self[key] = v``."""

    __slots__ = ()

    def __getitem__(self, k: tuple) -> Any:
        raise NotImplementedError

    def _read(self) -> Callable[[tuple], Any]:
        """The function ``self[key]`` reads through (a subclass gives its ``get`` itself)."""
        return self.__getitem__

    def __setitem__(self, k: tuple, v: Any) -> None:
        raise NotImplementedError


class _When:
    """``t.when(cond)``: writes made through it land only where ``cond`` holds
    (``t.when(cond, key, v)``)."""

    __slots__ = ("cond", "t")

    def __init__(self, t: Any, cond: Any) -> None:
        self.t = t
        self.cond = cond


class _CondSlots:
    """A family written under a condition: ``t.when(cond).name[i, j] = v``."""

    __slots__ = ("cond", "key", "t")

    def __init__(self, t: Any, cond: Any, key: str) -> None:
        self.t = t
        self.cond = cond
        self.key = key

    def __setitem__(self, i: Any, v: Any) -> None:
        self.t.when(self.cond, _index(self.key, i), v)


class _WhenIndexed:
    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, w: Any, owner: type | None = None) -> Any:
        if w is None:
            return self
        return _CondSlots(w.t, w.cond, self.key)


class _WhenScalar:
    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, w: Any, owner: type | None = None) -> Any:
        if w is None:
            return self
        raise AttributeError("a conditional write is written, not read")

    def __set__(self, w: Any, v: Any) -> None:
        w.t.when(w.cond, (self.key,), v)


def when(t: Any, cond: Any) -> Any:
    """``t.when(cond)``'s proxy (``Ctx.when``, ``Tx.when`` with one argument)."""
    return _When(t, cond)


class _Keys:
    """``var.name(*index)``: the key of a variable of family ``name``."""

    def __getattr__(self, name: str) -> Family:
        try:
            return FAMILIES[name]
        except KeyError:
            raise AttributeError(f"no family {name!r}") from None


var = _Keys()
"""``var.claim_target(d, p, src)``: the key ``("cht", d, p, src)``."""


def named(get: Callable[[tuple], Any]) -> Any:
    """A ``get`` function (a rule's or property's reads) read by family name:
    ``named(get).claim_target[d, p, src]`` is ``get(("cht", d, p, src))``."""
    return _Get(get)


class _Get(Named):
    """A ``get`` function read by family name; its instance dictionary keeps each family's
    ``Slots`` once read (``_Indexed``)."""

    __slots__ = ("__dict__", "get")

    def __init__(self, get: Callable[[tuple], Any]) -> None:
        self.get = get

    def __getitem__(self, k: tuple) -> Any:
        return self.get(k)

    def _read(self) -> Callable[[tuple], Any]:
        return self.get


OVERFLOW = family(
    "overflow",
    "overflow",
    (),
    BOOL,
    "a step needed more room than the layout has: the successor is refused",
    era="both",
)
"""Every layout's one family of the engine's own (``model/engine/text_model.py``)."""


# --- the declarations against a layout ------------------------------------------------------------


def check_layout(sorts: dict[tuple, Any], era: str, layout: Any = None) -> list[str]:
    """What is wrong with a layout's ``sorts()`` against ``era``'s declarations: a key no
    family declares, a key with another number of indexes than its family's dimensions, or
    (given the ``layout``) a sort other than its family's. Empty when they agree."""
    fams = by_key(era)
    out: list[str] = []
    seen: set[str] = set()
    for k, sort in sorts.items():
        fam = fams.get(k[0])
        if fam is None:
            if k[0] not in seen:
                out.append(f"{k[0]!r}: no family of the {era} era declares it")
            seen.add(k[0])
            continue
        if len(k) - 1 != len(fam.dims):
            out.append(f"{k!r}: {fam.name} has {len(fam.dims)} indexes")
            continue
        if (fam.sort is BOOL) != (sort == "b"):
            out.append(f"{k!r}: {fam.name} is {fam.sort}, the layout says {sort!r}")
            continue
        if layout is not None and fam.sort.of is not None:
            want = fam.sort.of(layout)
            if want != sort:
                out.append(f"{k!r}: {fam.name} is {fam.sort} {want!r}, the layout says {sort!r}")
    return out


def describe(fams: Iterable[Family]) -> list[str]:
    """One line per family: ``name[dims]: sort  (key)  doc``."""
    return [f"{f}  ({f.key})  {f.doc}" for f in fams]
