"""Symmetry on packed states: renaming region servers as a map of slots and values.

Region servers are interchangeable, so a search stores one state per class of renamings. On a
packed state (``model/engine/terms.py``) a renaming ``perm`` is a slot map and a value map: the slot
of flat variable ``("qpos", s, p, ci, w)`` goes to the slot of ``("qpos", perm[s], p, ci', w')``,
where ``ci'`` is the chain of dead servers renamed and ``w'`` the WAL slot of the renamed
server's WAL; a slot whose value names a server (a lock holder, a claim's dead server), a chain,
a WAL slot or an edit gets its value renamed too. ``TYPES`` declares, per variable family of each
era, what each key position and the value are:

* ``s`` a server, ``s?`` a server or -1 (no server: a normal queue's source, no lock holder);
* ``ch`` a chain of dead servers (the ZooKeeper era's queue names), by index;
* ``w``/``w?`` a WAL slot (or -1); ``u``/``u?`` an edit (or -1) of the ZooKeeper era's edit list;
  ``tu`` an edit of the table era (WAL slot times entries per WAL, plus the entry);
* ``None``: not renamed.

A value is renamed only while its family's *presence* variable (same key, another family) is
set: an unused slot keeps its default (0 is also server 0). The search stores the least image
of a state over the renamings, compared byte by byte: the same for every state of the class.
``model/engine/canonical.py``'s ``Renamings`` builds a renaming's maps (``permutation_maps``) when a
search first asks for it.
The test suite checks these declarations against the explicit model's own renaming, state by
state (``tests/specs/test_packsym.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model.engine.terms import Program

Kinds = tuple[tuple[str | None, ...], str | None, str | None]
"""(the key positions after the family name, the value, the presence family)."""

S_, SQ, W_ = "s", "s?", "w"
_SERVER = (S_,)

ZK_TYPES: dict[str, Kinds] = {
    **{f: (_SERVER, None, None) for f in ("alive", "cl", "clp", "rex", "fail", "read")},
    **{f: ((S_, None), None, None) for f in ("cur", "known", "gone", "upd")},
    "snk": ((S_, None, None), None, None),
    **{f: ((S_, W_), None, None) for f in ("unreg", "clin", "clpos")},
    **{f: ((S_, None, "ch", None, None), None, None) for f in ("sh", "shn", "shpos")},
    "shw": ((S_, None, "ch", None, None, None), "w?", None),
    "cld": (_SERVER, "s", "cl"),
    "clc": (_SERVER, "ch", "cl"),
    "lock": (_SERVER, "s?", None),
    **{f: ((S_, None, "ch"), None, None) for f in ("qex", "drop", "lst")},
    **{f: ((S_, None, "ch", W_), None, None) for f in ("qin", "qpos")},
    **{f: ((W_,), None, None) for f in ("wex", "wn", "wclosed", "wplace", "cand", "seen", "cache")},
    "wu": ((W_, None), "u?", None),
    **{f: ((W_, None), None, None) for f in ("wkind", "wids")},
    "wowed": ((W_, None, None), None, None),
    **{f: ((None, "u"), None, None) for f in ("app", "dup")},
    "ru": ((None, None), "u?", None),
    "pfresh": ((None,), None, None),
}

_ROW = (None, S_, SQ)
_SHIPPER = (S_, None, SQ, None, None)

TABLE_TYPES: dict[str, Kinds] = {
    **{
        f: (_SERVER, None, None)
        for f in (
            "alive",
            "stage",
            "clive",
            "started",
            "v3",
            "migmig",
            "mk",
            "ometa",
            "lzk",
            "labort",
        )
    },
    **{f: ((S_, None), None, None) for f in ("cur", "known", "scpp", "vs", "vn", "drained")},
    **{f: ((S_, None), None, None) for f in ("cl", "clp")},
    "cls": ((S_, None), "s?", None),
    "cld": ((S_, None), "s", "cl"),
    **{f: ((S_, None, None), None, None) for f in ("clhas", "clseq", "clpos")},
    "ch": ((S_, None, SQ), None, None),
    "cht": ((S_, None, SQ), "s", "ch"),
    **{f: (_SHIPPER, None, None) for f in ("sh", "shpos")},
    "shw": ((*_SHIPPER, None), None, None),
    **{f: ((W_,), None, None) for f in ("wex", "wn", "wclosed", "wplace")},
    "wkind": ((W_, None), None, None),
    "wowed": ((W_, None, None), None, None),
    **{f: (_ROW, None, None) for f in ("rex", "crex", "svex", "ppkey")},
    **{
        f: ((*_ROW, None), None, None)
        for f in ("rhas", "rseq", "rpos", "crhas", "crseq", "crpos", "svhas", "svseq", "svpos")
    },
    **{f: ((None, S_), None, None) for f in ("ppref", "pprec")},
    **{f: ((None, "tu"), None, None) for f in ("app", "dup", "stale")},
    "suw": ((None, W_, None), None, None),
    "rgh": ((None,), "s?", None),
    "hfs": ((), "s?", None),
    "wbulk": ((W_, None), None, None),
    "wsq": ((W_, None), None, None),
    "zk": ((S_, None, SQ), None, None),
    "zkw": ((S_, None, SQ, None, None), None, None),
}


def types_for(era: str) -> dict[str, Kinds]:
    return ZK_TYPES if era == "zk" else TABLE_TYPES


Renamer = Callable[[str, int], int]


def renamer(layout: Any, era: str, perm: tuple[int, ...]) -> Renamer:
    """How each kind of value is renamed under ``perm``."""
    cfg = layout.cfg
    key = layout.key

    def server(x: int) -> int:
        return perm[x]

    def wal(w: int) -> int:
        s, g, q = key[w]
        return cfg.slot((perm[s], g, q))

    def rename(kind: str, x: int) -> int:
        if kind.endswith("?"):
            if x == -1:
                return -1
            kind = kind[:-1]
        if kind == "s":
            return server(x)
        if kind == "w":
            return wal(x)
        if kind == "ch":
            chain = tuple(perm[d] for d in layout.chains[x])
            return layout.chain_index[chain]
        if kind == "u":
            u = layout.uids[x]
            if u[0] != 0:
                return x
            return layout.uid_index[(0, perm[u[1]], *u[2:])]
        if kind == "tu":
            w, j = divmod(x, layout.E)
            return wal(w) * layout.E + j
        raise ValueError(f"unknown kind {kind!r}")

    return rename


class Undeclared(ValueError):
    """A variable family with no declared kinds: symmetry cannot be used safely."""


Slot = tuple[tuple, str | None, tuple | None]
"""A flat variable under a renaming: its new key, the kind its value is renamed as (None: kept)
and the presence variable that must be set for that (None: always)."""


def slot_renaming(layout: Any, era: str, perm: tuple[int, ...]) -> Callable[[tuple], Slot]:
    """Each flat variable under ``perm``, by its declared kinds (``TYPES``)."""
    types = types_for(era)
    rename = renamer(layout, era, perm)

    def one(k: tuple) -> Slot:
        fam = k[0]
        kinds = types.get(fam)
        if kinds is None:
            if fam not in _PLAIN:
                raise Undeclared(f"no symmetry kinds declared for {fam!r} ({era} era)")
            return k, None, None
        positions, value, presence = kinds
        if len(positions) != len(k) - 1:
            raise Undeclared(f"{k}: {len(positions)} kinds declared for {len(k) - 1} positions")
        new = (
            fam,
            *(x if t is None else rename(t, x) for t, x in zip(positions, k[1:], strict=True)),
        )
        return new, value, None if presence is None else (presence, *k[1:])

    return one


def permutation_maps(
    layout: Any, era: str, prog: Program, perm: tuple[int, ...]
) -> tuple[list[int], list[list[int] | None], list[int]]:
    """For one renaming: per slot, the slot its value goes to, its value map (indexed by value +
    128) or None, and the slot whose value must be set for the map to apply (-1: always)."""
    one = slot_renaming(layout, era, perm)
    rename = renamer(layout, era, perm)
    slot = prog.slot
    slot_map: list[int] = []
    vmaps: list[list[int] | None] = []
    conds: list[int] = []
    for i, k in enumerate(prog.keys):
        new, value, presence = one(k)
        if new not in slot:
            raise NotClosed(new)
        slot_map.append(slot[new])
        if value is None:
            vmaps.append(None)
        else:
            lo, hi = prog.lo[i], prog.hi[i]
            table = list(range(-128, 128))
            for v in range(lo, hi + 1):
                table[v + 128] = rename(value, v)
            vmaps.append(table)
        conds.append(-1 if presence is None else slot[presence])
    if sorted(slot_map) != list(range(len(slot_map))):
        raise NotClosed("two slots renamed to one")
    return slot_map, vmaps, conds


_PLAIN = frozenset(
    {
        "peer",
        "sid",
        "rdone",
        "cpeers",
        "pp",
        "ppk",
        "pps",
        "ppc",
        "ppn",
        "down",
        "bar",
        "barn",
        "cph",
        "overflow",
        "b",
        "repl",
        "phase",
        "changed",
        "rlen",
        "rship",
        "rkind",
        "rids",
        "online",
        "mig",
        "migdis",
        "lpeer",
        "ppt",
        "ppwe",
        "sync",
        "syncn",
        "rdir",
        "mup",
        "info",
        "surun",
        "sufail",
        "sudie",
        "ojunk",
        "ppq",
        "pprf",
        "rgi",
        "rgb",
        "rgn",
        "lsid",
        "stop",
        "sback",
        "sfrom",
        "hf",
        "hfref",
        "rwn",
        "rwf",
        "rwa",
        "rwrep",
        "rwsnap",
        "rwst",
        "rwch",
        "rwda",
    }
)
"""Families that name no server, chain, WAL or edit: never renamed."""


class NotClosed(KeyError):
    """A renaming takes some slot to a variable the layout does not have."""


def signature_slots(keys: list[tuple], era: str) -> tuple[list[int], list[int]]:
    """``Symmetry.owner`` and ``Symmetry.token`` of each slot ``keys`` lists."""
    types = types_for(era)
    owner: list[int] = []
    token: list[int] = []
    tokens: dict[tuple, int] = {}
    for k in keys:
        kinds = types.get(k[0])
        positions, value, _presence = kinds if kinds else ((), None, None)
        counts = (
            kinds is not None
            and value is None
            and len(positions) >= 1
            and positions[0] == "s"
            and all(t is None for t in positions[1:])
        )
        if counts:
            owner.append(k[1])
            token.append(tokens.setdefault((k[0], *k[2:]), len(tokens)))
        else:
            owner.append(-1)
            token.append(0)
    return owner, token


def sources(slot_map: list[int]) -> list[int]:
    """A renaming as a gather: per slot of the renamed state, the slot it is read from (what
    ``cvm.c`` and the generated renamings of ``pygen`` build the renamed state by)."""
    src = [0] * len(slot_map)
    for i, t in enumerate(slot_map):
        src[t] = i
    return src


def apply(
    maps: tuple[list[int], list[list[int] | None], list[int]], state: tuple[int, ...]
) -> tuple[int, ...]:
    """A packed state renamed, in Python (the tests' reference)."""
    slot_map, vmaps, conds = maps
    out = []
    for i in sources(slot_map):
        v = state[i]
        vm = vmaps[i]
        if vm is not None and (conds[i] < 0 or state[conds[i]]):
            v = vm[v + 128]
        out.append(v)
    return tuple(out)
