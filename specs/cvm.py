"""The compiled back end's Python side: lower a traced flat model (``model/engine/terms.py``) to the
step table ``specs/cvm.c`` reads, build that C file once per machine, and drive its search.

The C file does not depend on the model, so it is compiled once (``gcc -O2``) into the user's
cache directory under a name made from its content's hash; a cache hit costs nothing. Where no C
compiler is present, ``library()`` returns None with the reason, and the caller falls back to
generated Python (``model/engine/pygen.py``).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from math import factorial
from pathlib import Path
from typing import Any

from replcheck.model.engine.cache import cache_dir
from replcheck.model.engine.canonical import CLOSED_FROM_ALL
from replcheck.model.engine.packsym import sources
from replcheck.model.engine.terms import OPCODE, Program, frames
from replcheck.specs.ckern import NAMES, addresses, compiler

SOURCE = Path(__file__).with_name("cvm.c")

SIGNATURES_FROM = 3
"""With this many servers or more, symmetry tries only the renamings that order servers by
their signatures; with two, trying the one other renaming (abandoned at its first larger slot)
is faster. Measured against trying every renaming: 2 servers 0.81x, 3 servers 1.16x, 4 servers
1.30x (``zk-multi@std``, ``zk-multi@std:servers=3``, ``table@t-std:servers=4``)."""

I32 = ctypes.POINTER(ctypes.c_int32)
NEED = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
"""The search's question for a renaming it has not used yet: build the maps of the renaming of
this Lehmer rank (1) or say the layout is not closed under it (0)."""

MAX_SERVERS = 8
"""The most servers the C search identifies states under renamings of (its signatures sort at
most this many)."""


def _fields(ints: str, ptrs: str) -> list[tuple[str, Any]]:
    return [(n, ctypes.c_int32) for n in ints.split()] + [(n, I32) for n in ptrs.split()]


class CProg(ctypes.Structure):
    """``Prog`` of ``cvm.c``, field for field."""

    _fields_ = [
        *_fields(
            "nnodes nslots ninst ninv nstep",
            "op a0 a1 a2 kids gstart gcount gnodes wstart wcount wslot wnode inv step",
        ),
        *_fields(
            "ninvc nstepc",
            "invc_node invc_prop stepc_node stepc_prop ia_start ia_count ia_list sa_start "
            "sa_count sa_list",
        ),
        *_fields("", "ga_start ga_count ga_list"),
        ("nperm", ctypes.c_int32),
        ("perm_nseg", I32),
        ("perm_nmap", I32),
        ("perm_seg", ctypes.POINTER(I32)),
        ("perm_map", ctypes.POINTER(I32)),
        ("perm_table", ctypes.POINTER(ctypes.POINTER(ctypes.c_int8))),
        ("known", ctypes.POINTER(ctypes.c_int8)),
        ("need", NEED),
        *_fields("ngoal", "goal"),
        *_fields("nservers nsig", "sig_slot sig_owner sig_token"),
        *[(name, ctypes.c_void_p) for name in NAMES],
    ]


_LIB: dict[str, Any] = {}


def library() -> tuple[Any, str]:
    """The loaded C library and how it was obtained (``cached``, ``compiled in N s``), or None
    and why not."""
    if "lib" in _LIB:
        return _LIB["lib"], "loaded"
    text = SOURCE.read_bytes()
    digest = hashlib.sha256(text).hexdigest()[:16]
    path = cache_dir() / f"cvm-{digest}.so"
    how = "cached"
    if not path.exists():
        cc, why = compiler()
        if cc is None:
            return None, f"{why}; using generated Python"
        path.parent.mkdir(parents=True, exist_ok=True)
        import time

        started = time.perf_counter()
        with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
            out = Path(tmp) / path.name
            try:
                proc = subprocess.run(
                    [cc, "-O2", "-shared", "-fPIC", "-o", str(out), str(SOURCE)],
                    capture_output=True,
                    text=True,
                )
            except OSError as err:
                return None, f"the C compiler could not run ({err}); using generated Python"
            if proc.returncode != 0:
                first = (proc.stderr.strip().splitlines() or ["?"])[0]
                return None, f"the C compiler failed ({first}); using generated Python"
            os.replace(out, path)
        how = f"compiled in {time.perf_counter() - started:.1f} s"
    lib = ctypes.CDLL(str(path))
    if lib.cx_prog_size() != ctypes.sizeof(CProg):
        return None, "the compiled search's step table layout differs from cvm.py's"
    lib.cx_new.restype = ctypes.c_void_p
    lib.cx_new.argtypes = [ctypes.POINTER(CProg), ctypes.POINTER(ctypes.c_int8), ctypes.c_int]
    lib.cx_run.restype = ctypes.c_int
    lib.cx_run.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32]
    lib.cx_free.argtypes = [ctypes.c_void_p]
    lib.cx_set_kernels.argtypes = [ctypes.c_void_p] * (1 + len(NAMES))
    for name in ("cx_states", "cx_transitions", "cx_frontier", "cx_edges", "cx_bytes"):
        getattr(lib, name).restype = ctypes.c_uint64
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    lib.cx_depth.restype = ctypes.c_int32
    lib.cx_depth.argtypes = [ctypes.c_void_p]
    for name, typ in (
        ("cx_parent", ctypes.c_uint32),
        ("cx_via", ctypes.c_uint16),
        ("cx_first_inv", ctypes.c_int32),
        ("cx_step_u", ctypes.c_int64),
        ("cx_step_i", ctypes.c_int32),
        ("cx_eu", ctypes.c_uint32),
        ("cx_ev", ctypes.c_uint32),
        ("cx_ei", ctypes.c_uint16),
        ("cx_gbits", ctypes.c_uint8),
    ):
        getattr(lib, name).restype = ctypes.POINTER(typ)
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    _LIB["lib"] = lib
    return lib, how


def _arr(values: list[int], typ: Any = ctypes.c_int32) -> Any:
    return (typ * max(1, len(values)))(*values)


@dataclass
class StepTable:
    """A ``Program`` as the C search reads it; ``keep`` holds the arrays alive."""

    prog: CProg
    init: Any
    keep: list[Any] = field(default_factory=list)
    renamings: Any = None
    """The renamings the search builds as it asks for them (``_Renamings``), or None."""


def lower(p: Program, ren: Any = None) -> StepTable:
    """The step table of ``p``; with ``ren`` (``canonical.Renamings``), the renamings of
    servers, each built when the search first asks for it, and the servers' signatures."""
    for i, (lo, hi) in enumerate(zip(p.lo, p.hi, strict=True)):
        if lo < -128 or hi > 127:
            raise ValueError(f"slot {p.keys[i]} ranges over {lo}..{hi}: more than a byte")
    g = p.graph
    op, a0, a1, a2, kids = [], [], [], [], []
    for name, args in g.nodes:
        op.append(OPCODE[name])
        if name in ("and", "or"):
            a0.append(len(kids)), a1.append(len(args)), a2.append(0)
            kids.extend(args)
        else:
            padded = [*args, 0, 0, 0]
            a0.append(padded[0]), a1.append(padded[1]), a2.append(padded[2])
    gstart, gcount, gnodes = [], [], []
    for conj in p.guards:
        gstart.append(len(gnodes)), gcount.append(len(conj))
        gnodes.extend(conj)
    wstart, wcount, wslot, wnode = [], [], [], []
    for ws in p.writes:
        wstart.append(len(wslot)), wcount.append(len(ws))
        for s, n in ws:
            wslot.append(s), wnode.append(n)
    if len(p.goals) > 8:
        raise ValueError("more than 8 liveness goals")
    if len(p.guards) >= 0xFFFF:
        raise ValueError("more than 65,534 action instances")
    arrays = {
        "op": op,
        "a0": a0,
        "a1": a1,
        "a2": a2,
        "kids": kids,
        "gstart": gstart,
        "gcount": gcount,
        "gnodes": gnodes,
        "wstart": wstart,
        "wcount": wcount,
        "wslot": wslot,
        "wnode": wnode,
        "inv": [n for _name, n in p.invariants],
        "step": [n for _name, n in p.step_properties],
        "goal": [n for _name, n in p.goals],
    }
    fr = frames(p)
    arrays["invc_node"] = [n for _j, n in fr.inv]
    arrays["invc_prop"] = [j for j, _n in fr.inv]
    arrays["stepc_node"] = [n for _j, n in fr.step]
    arrays["stepc_prop"] = [j for j, _n in fr.step]
    for prefix, lists in (("ia", fr.inv_of), ("sa", fr.step_of), ("ga", fr.guards_of)):
        start, count, flat = [], [], []
        for lst in lists:
            start.append(len(flat)), count.append(len(lst))
            flat.extend(lst)
        arrays[f"{prefix}_start"], arrays[f"{prefix}_count"], arrays[f"{prefix}_list"] = (
            start,
            count,
            flat,
        )
    keep = {k: _arr(v) for k, v in arrays.items()}
    renamings = _Renamings(ren) if ren is not None else None
    n = ren.n if ren is not None else 0
    by_sig = renamings is not None and ren.complete and n >= SIGNATURES_FROM
    owned = [i for i, o in enumerate(ren.owner) if o >= 0] if by_sig else []
    keep["sig_slot"] = _arr(owned)
    keep["sig_owner"] = _arr([ren.owner[i] for i in owned])
    keep["sig_token"] = _arr([ren.token[i] for i in owned])
    prog = CProg(
        nnodes=len(op),
        nslots=len(p.keys),
        ninst=len(p.guards),
        ninv=len(p.invariants),
        nstep=len(p.step_properties),
        nperm=renamings.count if renamings is not None else 1,
        ninvc=len(fr.inv),
        nstepc=len(fr.step),
        ngoal=len(p.goals),
        nservers=n if by_sig else 0,
        nsig=len(owned),
        **keep,
    )
    if renamings is not None:
        renamings.attach(prog)
    init = _arr(p.init, ctypes.c_int8)
    return StepTable(prog, init, [*keep.values(), init], renamings)


def unrank(rank: int, n: int) -> tuple[int, ...]:
    """The renaming (``perm[old]`` = new name) of Lehmer rank ``rank`` (``cvm.c``'s
    ``rank_of``): 0 is the identity."""
    digits = []
    for base in range(1, n + 1):
        rank, d = divmod(rank, base)
        digits.append(d)
    digits.reverse()
    free = list(range(n))
    return tuple(free.pop(d) for d in digits)


class _Renamings:
    """The C search's renamings: arrays of one pointer per renaming, each filled the first time
    the search asks (``NEED``), from ``canonical.Renamings``' maps, which are built then too."""

    def __init__(self, ren: Any) -> None:
        self.ren = ren
        self.n = ren.n
        usable = self.n <= MAX_SERVERS and (ren.complete or self.n <= CLOSED_FROM_ALL)
        self.count = factorial(self.n) if usable else 1
        """Renamings the search may ask for, by rank (1: the identity alone: more servers than
        the search sorts, or a layout closed under only some renamings past
        ``canonical.CLOSED_FROM_ALL`` servers, as the readable engines do)."""
        c = max(1, self.count)
        self.nseg = (ctypes.c_int32 * c)()
        self.nmap = (ctypes.c_int32 * c)()
        self.seg = (I32 * c)()
        self.map = (I32 * c)()
        self.table = (ctypes.POINTER(ctypes.c_int8) * c)()
        self.known = (ctypes.c_int8 * c)()
        self.hold: list[Any] = []
        self.maps: dict[int, Any] = {}
        """The maps of each renaming built, by rank (what the kernels generate code for)."""
        self.error: BaseException | None = None
        self.callback = NEED(self._need)

    @property
    def built(self) -> int:
        """How many renamings the search has asked for and been given."""
        return len(self.maps)

    def attach(self, prog: CProg) -> None:
        prog.perm_nseg, prog.perm_nmap = self.nseg, self.nmap
        prog.perm_seg, prog.perm_map, prog.perm_table = self.seg, self.map, self.table
        prog.known, prog.need = self.known, self.callback

    def _need(self, rank: int) -> int:
        try:
            maps = self.ren.maps(unrank(rank, self.n))
            if maps is None:
                return 0
            slot_map, vmaps, conds = maps
            src = sources(slot_map)
            table: list[int] = []
            offsets: dict[tuple[int, ...], int] = {}
            seg: list[int] = []
            mapped: list[int] = []
            for to, i in enumerate(src):
                vm = vmaps[i]
                if vm is not None:
                    key = tuple(vm)
                    if key not in offsets:
                        offsets[key] = len(table)
                        table.extend(vm)
                    mapped += [to, i, offsets[key], conds[i]]
                elif seg and seg[-3] + seg[-1] == to and seg[-2] + seg[-1] == i:
                    seg[-1] += 1
                else:
                    seg += [to, i, 1]
            arrays = (_arr(seg), _arr(mapped), _arr(table, ctypes.c_int8))
            self.hold.append(arrays)
            self.seg[rank], self.map[rank], self.table[rank] = arrays
            self.maps[rank] = maps
            self.nseg[rank], self.nmap[rank] = len(seg) // 3, len(mapped) // 4
            return 1
        except BaseException as err:  # never across the C frames: raised after the chunk
            self.error = err
            return 0


class Search:
    """One breadth-first search in C; ``run`` it in chunks, read its results, ``close`` it."""

    def __init__(self, lib: Any, table: StepTable, record_edges: bool = False) -> None:
        self.lib = lib
        self.table = table
        self.ctx = lib.cx_new(ctypes.byref(table.prog), table.init, int(record_edges))
        if not self.ctx:
            raise MemoryError("the compiled search could not allocate its tables")

    def use_kernels(self, kernels: Any) -> None:
        """Evaluate the model through its generated kernels (``specs/ckern.py``) from now on;
        they compute what the step table does, so the search goes on where it is."""
        self.table.keep.append(kernels)
        self.lib.cx_set_kernels(self.ctx, *addresses(kernels))

    def run(self, budget: int, max_depth: int = -1) -> int:
        code = self.lib.cx_run(self.ctx, budget, max_depth)
        ren = self.table.renamings
        if ren is not None and ren.error is not None:
            raise ren.error
        return code

    @property
    def renamings_built(self) -> int:
        """How many renamings' maps the search has asked for so far."""
        ren = self.table.renamings
        return ren.built if ren is not None else 0

    def stat(self, name: str) -> int:
        return int(getattr(self.lib, f"cx_{name}")(self.ctx))

    def array(self, name: str, n: int) -> list[int]:
        ptr = getattr(self.lib, f"cx_{name}")(self.ctx)
        return ptr[:n] if n else []

    def close(self) -> None:
        if self.ctx:
            self.lib.cx_free(self.ctx)
            self.ctx = None

    def __del__(self) -> None:
        self.close()
