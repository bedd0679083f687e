"""Generated C kernels: a traced flat model (``model/engine/terms.py``) as straight-line C functions
that the fixed search of ``specs/cvm.c`` calls instead of interpreting the step table.

The search, its visited set, symmetry and counterexample bookkeeping stay in ``cvm.c``; only the
evaluation of the model moves here. Per program, one C file with

* ``k_guard(i, s)``: whether instance ``i`` is enabled in ``s`` (its conjuncts in order);
* ``k_apply(i, s, t)``: instance ``i``'s writes into ``t`` (a copy of ``s``), every value read
  from ``s``;
* ``k_conj(q, s)``: invariant conjunct ``q`` of ``terms.frames`` (the conjuncts a step can
  change), ``k_inv(j, s)``: invariant ``j`` whole;
* ``k_step(q, s, t)``: step-property conjunct ``q`` over the step ``s -> t``;
* ``k_goal(j, s)``: liveness goal ``j``;
* ``k_image(q, s, o)``: the renaming of servers of rank ``q`` (with symmetry), for the
  renamings the search had asked for when the kernels were built (it builds a renaming's maps
  the first time it wants it, ``specs/cvm.py``): 1 when it wrote the image, 0 for a renaming
  it has no code for, which ``cvm.c`` then builds from the renaming's maps.

Each dispatches through a table to one function per index, whose body is the expressions
``pygen.Emitter`` writes for generated Python, in C syntax. ``Build`` compiles the file
(``gcc -O1``) into the cache directory under a name made from its content's hash, so a
configuration explored again costs no compilation. Where no compiler runs, or it fails, its
``how`` says why and the search interprets the step table as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from replcheck.model.engine.cache import cache_dir
from replcheck.model.engine.pygen import Emitter, renamed, write_locals
from replcheck.model.engine.terms import Graph, Program, frames, supports

FLAGS = ["-O1", "-shared", "-fPIC"]
"""``-O1``: the kernels are straight-line code that ``-O2`` does not make faster here, and
``-O1`` compiles a large configuration's file in a fraction of the time."""

_LOADED: dict[str, Any] = {}


def _table(
    name: str, params: str, args: str, cases: list[tuple[int, list[str]]], ret: str = "int32_t"
) -> list[str]:
    """``name(k, ...)``: case ``k``'s body, each case a function of its own (one function of
    every case compiles in time superlinear in its size) called through a table."""
    lines = [f"static {ret} {name}_{k}({params}) {{ {' '.join(body)} }}" for k, body in cases]
    fns = ", ".join(f"{name}_{k}" for k, _b in cases) or "0"
    lines.append(f"static {ret} (*const {name}_t[])({params}) = {{{fns}}};")
    call = f"{name}_t[k]({args})"
    lines.append(
        f"{ret} {name}(int32_t k, {params}) {{ {'' if ret == 'void' else 'return '}{call}; }}"
    )
    return lines


HELPER_SIZE = 8
"""A subexpression of at least this many operators that more than one expression reads becomes
a function of its own: inlined everywhere, the largest configurations' files grow to megabytes
and their compilation to minutes."""


def _helpers(g: Graph) -> list[int]:
    """The nodes that become functions (``HELPER_SIZE``), every one after those it reads."""
    _pre, post = supports(g)
    size: list[int] = []
    refs = [0] * len(g.nodes)
    for op, a in g.nodes:
        if op in ("const", "var", "post"):
            size.append(0)
            continue
        size.append(min(1 + sum(size[x] for x in a), 1 << 20))
        for x in set(a):
            refs[x] += 1
    return [
        n
        for n, (op, _a) in enumerate(g.nodes)
        if size[n] >= HELPER_SIZE and not post[n] and (refs[n] > 1 or op in ("and", "or"))
    ]


def kernel_source(prog: Program, images: dict[int, Any] | None = None) -> str:
    """The C file of ``prog``'s kernels, with code for the renamings ``images`` (rank ->
    ``packsym.permutation_maps``)."""
    g = prog.graph
    out = [
        f"/* generated from the flat model of {prog.design} under {prog.config}; do not edit */",
        "#include <stdint.h>",
        "#define S const int8_t *restrict",
    ]
    helpers: dict[int, str] = {}
    for n in _helpers(g):  # nodes come after the nodes they read
        out.append(f"static int32_t h{n}(S s) {{ return {Emitter(g, helpers, c=True).expr(n)}; }}")
        helpers[n] = f"h{n}(s)"
    em = Emitter(g, helpers, c=True)
    guards = []
    for i, conj in enumerate(prog.guards):
        test = " && ".join(em.expr(c) for c in conj) or "1"
        guards.append((i, [f"return {test};"]))
    out += _table("k_guard", "S s", "s", guards)
    applies = []
    for i, ws in enumerate(prog.writes):
        local = Emitter(g, dict(helpers), c=True)
        body = [f"int32_t {name} = {expr};" for name, expr in write_locals(local, ws)]
        body += [f"t[{slot}] = (int8_t)({local.expr(n)});" for slot, n in ws]
        applies.append((i, body))
    out += _table("k_apply", "S s, int8_t *restrict t", "s, t", applies, "void")
    fr = frames(prog)
    out += _table(
        "k_conj", "S s", "s", [(q, [f"return {em.expr(n)};"]) for q, (_j, n) in enumerate(fr.inv)]
    )
    out += _table(
        "k_inv",
        "S s",
        "s",
        [
            (j, [f"return {em.expr(n)};  /* {name} */"])
            for j, (name, n) in enumerate(prog.invariants)
        ],
    )
    out += _table(
        "k_step",
        "S s, S t",
        "s, t",
        [(q, [f"return {em.expr(n)};"]) for q, (_j, n) in enumerate(fr.step)],
    )
    out += _table(
        "k_goal",
        "S s",
        "s",
        [(j, [f"return {em.expr(n)};  /* {name} */"]) for j, (name, n) in enumerate(prog.goals)],
    )
    out += _images(images or {})
    return "\n".join(out) + "\n"


def _copies(items: list[str]) -> list[str]:
    """``o[t] = item`` for each slot, a run of slots read unmapped from consecutive slots as one
    ``memcpy`` (a server's block of slots moves whole under a renaming)."""
    plain = [int(x[2:-1]) if x.startswith("s[") and x.endswith("]") else -1 for x in items]
    out = []
    t = 0
    while t < len(items):
        end = t + 1
        if plain[t] >= 0:
            while end < len(items) and plain[end] == plain[end - 1] + 1 and plain[end] >= 0:
                end += 1
        if end - t > 1:
            out.append(f"memcpy(o + {t}, s + {plain[t]}, {end - t});")
        else:
            out.append(f"o[{t}] = {items[t]};")
        t = end
    return out


def _images(images: dict[int, Any]) -> list[str]:
    """``k_image(q, s, o)``: the renaming of rank ``q`` of ``s`` into ``o``, slot by slot as
    ``cvm.c``'s ``image`` builds it, for the ranks ``images`` holds (0 for any other)."""
    tables: dict[tuple[int, ...], str] = {}
    lines = []
    cases = []
    for q in sorted(images):
        body = " ".join(_copies(renamed(images[q], tables, c=True)))
        lines.append(f"static void k_image_{q}(S s, int8_t *restrict o) {{ {body} }}")
        cases.append(f"case {q}: k_image_{q}(s, o); return 1;")
    head = [
        f"static const int8_t {name}[256] = {{{', '.join(map(str, vm))}}};"
        for vm, name in tables.items()
    ]
    return [
        "#include <string.h>",
        *head,
        *lines,
        "int32_t k_image(int32_t q, S s, int8_t *restrict o) {",
        f"    switch (q) {{ {' '.join(cases)} default: return 0; }}",
        "}",
    ]


NAMES = ("k_guard", "k_apply", "k_conj", "k_inv", "k_step", "k_goal", "k_image")
"""The kernels, in the order of their pointers in ``cvm.c``'s ``Prog``."""


class Build:
    """The kernels of one program: loaded from the cache at once, or compiled by a C compiler
    running beside the search (``poll`` until it is done); ``close`` stops a compiler still
    running, so no child outlives the search."""

    def __init__(self, prog: Program, images: dict[int, Any] | None = None) -> None:
        self.lib: Any = None
        self.how = ""
        self.proc: subprocess.Popen[str] | None = None
        self.tmp: tempfile.TemporaryDirectory[str] | None = None
        self.started = time.perf_counter()
        src = kernel_source(prog, images)
        digest = hashlib.sha256((" ".join(FLAGS) + "\n" + src).encode()).hexdigest()[:32]
        if digest in _LOADED:
            self.lib, self.how = _LOADED[digest], "loaded"
            return
        self.path = cache_dir() / f"kern-{digest}.so"
        self.digest = digest
        if self.path.exists():
            self._load("cached")
            return
        cc, why = compiler()
        if cc is None:
            self.how = f"{why}; interpreting the step table"
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = tempfile.TemporaryDirectory(dir=self.path.parent)
        c_file = Path(self.tmp.name) / "kern.c"
        c_file.write_text(src)
        self.built = Path(self.tmp.name) / self.path.name
        try:
            self.proc = subprocess.Popen(
                [cc, *FLAGS, "-o", str(self.built), str(c_file)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # its own group: ``close`` stops cc1 and as too
            )
        except OSError as err:
            self.how = f"the C compiler could not run ({err}); interpreting the step table"
            self._clean()

    def _load(self, how: str) -> None:
        self.lib = ctypes.CDLL(str(self.path))
        _LOADED[self.digest] = self.lib
        self.how = how

    def _clean(self) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None

    def poll(self) -> Any:
        """The kernels once they are loaded, else None (compiling, or failed: ``how``)."""
        if self.proc is not None and self.proc.poll() is not None:
            _out, err = self.proc.communicate()
            if self.proc.returncode == 0:
                os.replace(self.built, self.path)
                self._load(f"compiled in {time.perf_counter() - self.started:.1f} s")
            else:
                first = (err.strip().splitlines() or ["?"])[0]
                self.how = f"the kernels did not compile ({first}); interpreting the step table"
            self.proc = None
            self._clean()
        return self.lib

    def wait(self) -> Any:
        """The kernels, once the compiler is done (or None: ``how`` says why)."""
        if self.proc is not None:
            self.proc.wait()
        return self.poll()

    def close(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.proc = None
            self.how = "not compiled: the search ended first"
        self._clean()


def addresses(lib: Any) -> list[int]:
    """The kernels' addresses, in ``NAMES`` order."""
    return [ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0 for name in NAMES]


def compiler() -> tuple[str | None, str]:
    """The C compiler (``$CC``, else ``gcc`` or ``cc``), or None and why not."""
    wanted = os.environ.get("CC") or "gcc"
    cc = shutil.which(wanted) or (None if os.environ.get("CC") else shutil.which("cc"))
    return cc, "" if cc else f"no C compiler found ({wanted})"
