"""Generated Python: a traced flat model (``specs/terms.py``) as straight-line Python functions
over packed states (tuples of integers), for exploration wherever no C compiler is wanted.

``compile_python(program)`` returns a ``PyCode`` with

* ``successors(s)``: the list of ``(instance, next state)`` for every enabled instance, in the
  program's instance order. Instances whose guards begin with the same conjunct are emitted under
  one test of it, so a server that is down costs one comparison for all its steps;
* ``invariants(s)``: the indexes of the invariants ``s`` breaks;
* ``step_violations(s, t)``: the indexes of the step properties the step ``s -> t`` breaks;
* ``goals(s)``: a bit set of the liveness goals that hold in ``s``.

Subexpressions used more than once by an instance's writes are computed once, into a local.
Every operation is total on integers, so computing a shared subexpression early changes nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import os
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .packsym import sources
from .terms import Graph, Program, frames

_BIN = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "add": "+", "sub": "-", "mul": "*"}


class Emitter:
    """A node as an expression of generated Python, or of generated C (``c=True``: ``specs/
    ckern.py``), reading the state before the step as ``s`` and after it as ``t``; ``names``
    are nodes already computed into locals."""

    def __init__(self, g: Graph, names: dict[int, str] | None = None, c: bool = False) -> None:
        self.g = g
        self.names = names if names is not None else {}
        self.c = c

    def expr(self, n: int) -> str:
        name = self.names.get(n)
        if name is not None:
            return name
        op, a = self.g.nodes[n]
        if op == "const":
            return str(int(a[0])) if self.c else repr(a[0])
        if op == "var":
            return f"s[{a[0]}]"
        if op == "post":
            return f"t[{a[0]}]"
        if op == "not":
            return f"(!{self.expr(a[0])})" if self.c else f"(not {self.expr(a[0])})"
        if op in ("and", "or"):
            word = {"and": "&&", "or": "||"}[op] if self.c else op
            return "(" + f" {word} ".join(self.expr(x) for x in a) + ")"
        if op == "ite":
            c, x, y = (self.expr(v) for v in a)
            return f"({c} ? {x} : {y})" if self.c else f"({x} if {c} else {y})"
        if op == "neg":
            return f"(-{self.expr(a[0])})"
        if op == "add":
            terms = self._sum_terms(n)
            if len(terms) > 2:
                parts = ", ".join(self.expr(x) for x in terms)
                return (
                    f"({' + '.join(self.expr(x) for x in terms)})" if self.c else f"sum(({parts}))"
                )
        return f"({self.expr(a[0])} {_BIN[op]} {self.expr(a[1])})"

    def _sum_terms(self, n: int) -> list[int]:
        """The operands of a chain of additions rooted at ``n`` (a count over many conditions
        is one, nested as deep as it is long), in order: emitted as one sum, never as nested
        parentheses a compiler refuses past some depth."""
        out: list[int] = []
        stack = [n]
        while stack:
            x = stack.pop()
            op, a = self.g.nodes[x]
            if op == "add" and (x == n or x not in self.names):
                stack.extend(reversed(a))
            else:
                out.append(x)
        return out


def uses(g: Graph, roots: list[int]) -> Counter[int]:
    """How many times each operator node is referenced from ``roots`` (each node's arguments
    counted once, however often the node is reached)."""
    count: Counter[int] = Counter()
    seen: set[int] = set()
    stack = list(roots)
    for r in roots:
        count[r] += 1
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        op, a = g.nodes[n]
        if op in ("const", "var", "post"):
            continue
        for x in a:
            count[x] += 1
            stack.append(x)
    return count


def topo_order(g: Graph, nodes: set[int]) -> list[int]:
    """``nodes`` with every node after the ones it reads."""
    out: list[int] = []
    done: set[int] = set()

    def visit(n: int) -> None:
        if n in done:
            return
        done.add(n)
        op, a = g.nodes[n]
        if op not in ("const", "var", "post"):
            for x in a:
                visit(x)
        if n in nodes:
            out.append(n)

    for n in sorted(nodes):
        visit(n)
    return out


def write_locals(em: Emitter, writes: list[tuple[int, int]]) -> list[tuple[str, str]]:
    """The subexpressions an instance's writes read more than once and ``em`` does not name yet,
    as (local, expression) in an order that computes each after those it reads; each is named
    in ``em`` from then on, so the writes read the local."""
    g = em.g
    shared = {
        n
        for n, c in uses(g, [n for _slot, n in writes]).items()
        if c > 1 and g.nodes[n][0] not in ("const", "var", "post") and n not in em.names
    }
    out = []
    for n in topo_order(g, shared):
        out.append((f"w{n}", em.expr(n)))
        em.names[n] = f"w{n}"
    return out


def _writes(g: Graph, writes: list[tuple[int, int]], indent: str) -> list[str]:
    em = Emitter(g)
    lines = [f"{indent}n = list(s)"]
    lines += [f"{indent}{name} = {expr}" for name, expr in write_locals(em, writes)]
    for slot, n in writes:
        lines.append(f"{indent}n[{slot}] = {em.expr(n)}")
    return lines


def python_source(prog: Program) -> str:
    """The generated module's text."""
    g = prog.graph
    em = Emitter(g)
    lines = [
        f"# generated from the flat model of {prog.design} under {prog.config}; do not edit",
        "def successors(s):",
        "    out = []",
        "    app = out.append",
    ]
    groups: dict[int, list[int]] = {}
    for i, conj in enumerate(prog.guards):
        groups.setdefault(conj[0] if conj else -1, []).append(i)
    for first, members in groups.items():
        inner = "    "
        if first >= 0:
            lines.append(f"    if {em.expr(first)}:")
            inner = "        "
        for i in members:
            rest = prog.guards[i][1:] if first >= 0 else prog.guards[i]
            body = inner
            lines.append(f"{inner}# {i}: {prog.names[i]}{prog.args[i]}")
            if rest:
                lines.append(f"{inner}if " + " and ".join(em.expr(c) for c in rest) + ":")
                body = inner + "    "
            lines.extend(_writes(g, prog.writes[i], body))
            lines.append(f"{body}app(({i}, tuple(n)))")
    lines.append("    return out")
    lines.append("def invariants(s):")
    lines.append("    out = []")
    for j, (name, n) in enumerate(prog.invariants):
        lines.append(f"    if not {em.expr(n)}: out.append({j})  # {name}")
    lines.append("    return out")
    # per instance, the invariant conjuncts its writes can change (``terms.frames``); ``live``
    # holds the invariants not yet broken
    fr = frames(prog)
    for k, (_j, n) in enumerate(fr.inv):
        lines.append(f"def conj_{k}(s):")
        lines.append(f"    return {em.expr(n)}")
    for i, ks in enumerate(fr.inv_of):
        lines.append(f"def after_{i}(s, live):")
        lines.append("    out = []")
        for k in ks:
            j = fr.inv[k][0]
            lines.append(f"    if {j} in live and not conj_{k}(s): out.append({j})")
        lines.append("    return out")
    lines.append(f"after = [{', '.join(f'after_{i}' for i in range(len(fr.inv_of)))}]")
    lines.append("def goals(s):")
    lines.append("    out = 0")
    for j, (name, n) in enumerate(prog.goals):
        lines.append(f"    if {em.expr(n)}: out |= {1 << j}  # {name}")
    lines.append("    return out")
    lines.append("def step_violations(s, t):")
    lines.append("    out = []")
    for j, (name, n) in enumerate(prog.step_properties):
        lines.append(f"    if not {em.expr(n)}: out.append({j})  # {name}")
    lines.append("    return out")
    return "\n".join(lines) + "\n"


@dataclass
class PyCode:
    source: str
    successors: Any
    invariants: Any
    step_violations: Any
    goals: Any
    after: list[Any]
    """Per instance ``i``, ``after[i](t, live)``: the invariants of ``live`` that the state
    ``t`` reached by ``i`` breaks, evaluating only the conjuncts ``i``'s writes can change."""


def _compiled(src: str, name: str) -> Any:
    """``compile(src)``, its code object cached by the source's content hash (and the Python
    version's bytecode magic) in ``cache_dir()``: a cache hit skips the compiler, which takes
    seconds on a large configuration's program."""
    from .cvm import cache_dir

    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER + src.encode()).hexdigest()[:32]
    path = cache_dir() / f"py-{digest}.marshal"
    try:
        return marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = compile(src, name, "exec")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps(code))
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache costs only the next compile
    return code


def compile_python(prog: Program) -> PyCode:
    src = python_source(prog)
    space: dict[str, Any] = {}
    exec(_compiled(src, f"<generated {prog.design}@{prog.config}>"), space)
    return PyCode(
        src,
        space["successors"],
        space["invariants"],
        space["step_violations"],
        space["goals"],
        space["after"],
    )


def renamed(
    renaming: tuple[list[int], list[list[int] | None], list[int]],
    tables: dict[tuple[int, ...], str],
    c: bool = False,
) -> list[str]:
    """Per slot of the renamed state, its value as an expression over ``s`` in Python (or C):
    the slot it is read from, through its value map (a table of ``tables``, named on first
    use, indexed by value + 128) where the map's condition slot is set."""
    slot_map, vmaps, conds = renaming
    items = []
    for i in sources(slot_map):
        vm = vmaps[i]
        if vm is None:
            items.append(f"s[{i}]")
            continue
        name = tables.setdefault(tuple(vm), f"m{len(tables)}")
        mapped = f"{name}[s[{i}] + 128]"
        if conds[i] < 0:
            items.append(mapped)
        else:
            cond = f"s[{conds[i]}]"
            items.append(
                f"({cond} ? {mapped} : s[{i}])" if c else f"({mapped} if {cond} else s[{i}])"
            )
    return items


def renaming_source(maps: list[tuple[list[int], list[list[int] | None], list[int]]]) -> str:
    """``renamings``: one function per renaming of servers (``specs/packsym.py``), ``r(s, b)``:
    the renamed state if it is less than ``b``, else None. It is built slot by slot only as far
    as it agrees with ``b`` (as ``cvm.c`` builds it): at the first slot that differs, a larger
    image is given up there, and a smaller one is built whole, as one tuple (``f``)."""
    lines = []
    tables: dict[tuple[int, ...], str] = {}
    for q, one in enumerate(maps):
        items = renamed(one, tables)
        lines.append(f"def f{q}(s):")
        lines.append("    return (" + ", ".join(items) + ",)")
        lines.append(f"def r{q}(s, b):")
        for i, item in enumerate(items):
            lines.append(f"    x = {item}")
            lines.append(f"    if x != b[{i}]:")
            lines.append(f"        return f{q}(s) if x < b[{i}] else None")
        lines.append("    return None")
    head = [f"{name} = {list(vm)!r}" for vm, name in tables.items()]
    tail = [f"renamings = [{', '.join(f'r{q}' for q in range(len(maps)))}]"]
    return "\n".join(head + lines + tail) + "\n"


def compile_renamings(maps: list[Any]) -> list[Any]:
    space: dict[str, Any] = {}
    exec(compile(renaming_source(maps), "<generated renamings>", "exec"), space)
    return space["renamings"]
