"""Generated Python: a traced flat model (``model/engine/terms.py``) as straight-line Python
functions over packed states (tuples of integers), for exploration wherever no C compiler is wanted.

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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from replcheck.model.engine.packsym import sources
from replcheck.model.engine.terms import Graph, Program, frames

_BIN = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "add": "+", "sub": "-", "mul": "*"}


class Emitter:
    """A node as an expression of generated Python, or of generated C (``c=True``: ``specs/
    ckern.py``), reading the state before the step as ``s`` and after it as ``t``; ``names``
    are nodes already computed into locals."""

    def __init__(self, g: Graph, names: dict[int, str] | None = None, c: bool = False) -> None:
        self.g = g
        self.names = names if names is not None else {}
        self.c = c
        self._memo: dict[int, str] = {}
        self._named = len(self.names)

    def expr(self, n: int) -> str:
        """Node ``n``'s text (remembered until a node is named: names only grow)."""
        name = self.names.get(n)
        if name is not None:
            return name
        if len(self.names) != self._named:
            self._memo.clear()
            self._named = len(self.names)
        got = self._memo.get(n)
        if got is None:
            got = self._memo[n] = self._expr(n)
        return got

    def _expr(self, n: int) -> str:
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


def _by_first_conjunct(
    prog: Program, em: Emitter, lines: list[str]
) -> Iterator[tuple[str, list[tuple[int, list[int]]]]]:
    """The instances grouped by their guards' first conjunct: for each group, the test of that
    conjunct is appended to ``lines``, and the indent under it and each member's instance and
    remaining conjuncts are given."""
    groups: dict[int, list[int]] = {}
    for i, conj in enumerate(prog.guards):
        groups.setdefault(conj[0] if conj else -1, []).append(i)
    for first, members in groups.items():
        inner = "    "
        if first >= 0:
            lines.append(f"    if {em.expr(first)}:")
            inner = "        "
        yield inner, [(i, prog.guards[i][1:] if first >= 0 else prog.guards[i]) for i in members]


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
    for inner, members in _by_first_conjunct(prog, em, lines):
        for i, rest in members:
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
    from replcheck.model.engine.cache import cache_dir

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


Renaming = tuple[list[int], list[list[int] | None], list[int]]
"""A renaming of servers as ``packsym.permutation_maps`` gives it: per slot, where it moves,
its value map (or None) and the slot whose flag the map waits for (or -1)."""


class _Terms:
    """The Zobrist terms of a fingerprint: the exclusive or of one term per slot, so a step
    changes only the terms of the slots it writes. Under ``one`` (a renaming), the terms are
    those of the state's image: each slot's number is read at the slot it moves to, for the
    value it is renamed to, so the image's fingerprint needs no image built."""

    def __init__(self, one: Renaming | None = None) -> None:
        self.one = one
        self.tables: dict[tuple[int, ...], str] = {}

    def term(self, i: int, v: str) -> str:
        """Slot ``i``'s term, over the state named ``v``."""
        if self.one is None:
            return f"Z[{256 * i + 128} + {v}[{i}]]"
        slot_map, vmaps, conds = self.one
        base = 256 * slot_map[i] + 128
        vm = vmaps[i]
        if vm is None:
            return f"Z[{base} + {v}[{i}]]"
        name = self.tables.setdefault(tuple(vm), f"vm{len(self.tables)}")
        mapped = f"{name}[{v}[{i}] + 128]"
        if conds[i] < 0:
            return f"Z[{base} + {mapped}]"
        return f"Z[{base} + ({mapped} if {v}[{conds[i]}] else {v}[{i}])]"

    def whole(self, n: int, name: str) -> list[str]:
        """``name(s)``: the fingerprint of a state of ``n`` slots (of its image, under ``one``),
        from scratch."""
        lines = [f"def {name}(s):", "    f = 0"]
        lines += [f"    f ^= {self.term(i, 's')}" for i in range(n)]
        lines.append("    return f")
        return [f"{t} = {list(vm)!r}" for vm, t in self.tables.items()] + lines

    def updates(self, written: list[int], indent: str) -> list[str]:
        """Lines that carry the fingerprint ``f`` of ``s`` to its successor ``n``: a term is
        exchanged only where its slot changed (a step writes many slots, few of them to new
        values)."""
        out = []
        for i in written:
            out.append(f"{indent}if n[{i}] != s[{i}]:")
            out.append(f"{indent}    f ^= {self.term(i, 's')} ^ {self.term(i, 'n')}")
        return out


def search_source(prog: Program) -> str:
    """The generated search module's text (``compile_search``): the successors of a state from
    the set of instances enabled in it, and that set carried to each successor through the
    instance's frame (``terms.frames``), so only the guards a step can change are evaluated
    again, and only for a state not seen before.

    * ``enabled(s)``: the bit set of the instances enabled in ``s`` (every guard evaluated,
      instances that begin with the same conjunct under one test of it);
    * ``fingerprints(s)``: ``s``'s fingerprint (``PySearch``);
    * ``fire[i](s, f)``: the state instance ``i`` leads to from ``s``, and its fingerprint
      from ``s``'s, ``f``: only the terms of the slots ``i`` writes are read for it;
    * ``refresh[i](t, m)``: the bit set of the instances enabled in ``t``, reached by ``i`` from a
      state whose set was ``m``: the guards that read a slot ``i`` writes, evaluated on ``t``;
    * ``stepv[i](s, t)``: the step properties the step ``s -> t`` by ``i`` breaks, from the
      conjuncts ``i`` can break, or None where it can break none.
    """
    g = prog.graph
    em = Emitter(g)
    terms = _Terms()
    lines = [
        f"# generated from the flat model of {prog.design} under {prog.config}; do not edit",
        "def enabled(s):",
        "    m = 0",
    ]
    for inner, members in _by_first_conjunct(prog, em, lines):
        bits = 0
        for i, rest in members:
            if rest:
                lines.append(f"{inner}if " + " and ".join(em.expr(c) for c in rest) + ":")
                lines.append(f"{inner}    m |= {1 << i}  # {prog.names[i]}{prog.args[i]}")
            else:
                bits |= 1 << i
        if bits:
            lines.append(f"{inner}m |= {bits}")
    lines.append("    return m")
    lines += terms.whole(len(prog.lo), "fingerprints")
    fr = frames(prog)
    for i, ws in enumerate(prog.writes):
        lines.append(f"def fire_{i}(s, f):  # {prog.names[i]}{prog.args[i]}")
        lines.extend(_writes(g, ws, "    "))
        lines.extend(terms.updates([k for k, _ in ws], "    "))
        lines.append("    return tuple(n), f")
        affected = fr.guards_of[i]
        lines.append(f"def refresh_{i}(s, m):")
        if affected:
            lines.append(f"    m &= {~sum(1 << j for j in affected)}")
        for j in affected:
            conj = prog.guards[j]
            test = " and ".join(em.expr(c) for c in conj) if conj else "True"
            lines.append(f"    if {test}: m |= {1 << j}")
        lines.append("    return m")
        if fr.step_of[i]:
            lines.append(f"def stepv_{i}(s, t):")
            lines.append("    out = []")
            for k in fr.step_of[i]:
                j, n = fr.step[k]
                lines.append(f"    if not {em.expr(n)}: out.append({j})")
            lines.append("    return out")
    n = len(prog.writes)
    lines.append(f"fire = [{', '.join(f'fire_{i}' for i in range(n))}]")
    lines.append(f"refresh = [{', '.join(f'refresh_{i}' for i in range(n))}]")
    stepv = ", ".join(f"stepv_{i}" if fr.step_of[i] else "None" for i in range(n))
    lines.append(f"stepv = [{stepv}]")
    return "\n".join(lines) + "\n"


@dataclass
class PySearch:
    """The generated search module's functions (``search_source``).

    A state's fingerprint is Zobrist's: the exclusive or of one random 64-bit number per slot
    and value (``zobrist``, at ``256 * slot + 128 + value``, seeded by ``ZOBRIST_SEED``). Two
    distinct states share one with probability 2^-64 (their difference is the exclusive or
    of distinct independent uniform numbers), and a step updates it from the slots it
    writes. ``image_fingerprint`` gives the fingerprint of a state's image under a renaming
    of servers the same way, without building the image."""

    enabled: Any
    fingerprints: Any
    fire: list[Any]
    refresh: list[Any]
    stepv: list[Any]
    zobrist: list[int]

    def image_fingerprint(self, one: Renaming) -> Any:
        """``fp(s)``: the fingerprint of ``s``'s image under the renaming ``one``
        (``packsym.permutation_maps``), which equals ``fingerprints`` of the image."""
        space: dict[str, Any] = {"Z": self.zobrist}
        src = "\n".join(_Terms(one).whole(len(one[0]), "fp")) + "\n"
        exec(_compiled(src, "<generated image fingerprint>"), space)
        return space["fp"]


ZOBRIST_SEED = 20261128
"""The seed of the fingerprints' random numbers: a search is the same from run to run."""


def compile_search(prog: Program) -> PySearch:
    import random

    rng = random.Random(ZOBRIST_SEED)
    table = [rng.getrandbits(64) for _ in range(256 * len(prog.lo))]
    space: dict[str, Any] = {"Z": table}
    src = search_source(prog)
    exec(_compiled(src, f"<generated search {prog.design}@{prog.config}>"), space)
    return PySearch(
        space["enabled"],
        space["fingerprints"],
        space["fire"],
        space["refresh"],
        space["stepv"],
        table,
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
    """``renamings``: one function per renaming of servers (``model/engine/packsym.py``), ``r(s,
    b)``: the renamed state if it is less than ``b``, else None. It is built slot by slot only as
    far as it agrees with ``b`` (as ``cvm.c`` builds it): at the first slot that differs, a larger
    image is given up there, and a smaller one is built whole, as one tuple (``f``)."""
    lines = []
    tables: dict[tuple[int, ...], str] = {}
    for q, one in enumerate(maps):
        items = renamed(one, tables)
        # the slots only moved are gathered at once; those whose values are renamed, one by one
        lines.append(f"g{q} = itemgetter({', '.join(str(i) for i in sources(one[0]))})")
        lines.append(f"def f{q}(s):")
        lines.append(f"    n = list(g{q}(s))")
        for i, item in enumerate(items):
            if not item.startswith("s["):
                lines.append(f"    n[{i}] = {item}")
        lines.append("    return tuple(n)")
        lines.append(f"def r{q}(s, b):")
        for i, item in enumerate(items):
            lines.append(f"    x = {item}")
            lines.append(f"    if x != b[{i}]:")
            lines.append(f"        return f{q}(s) if x < b[{i}] else None")
        lines.append("    return None")
    head = ["from operator import itemgetter"]
    head += [f"{name} = {list(vm)!r}" for vm, name in tables.items()]
    tail = [
        f"renamings = [{', '.join(f'r{q}' for q in range(len(maps)))}]",
        f"images = [{', '.join(f'f{q}' for q in range(len(maps)))}]",
    ]
    return "\n".join(head + lines + tail) + "\n"


def _renamings_space(maps: list[Any]) -> dict[str, Any]:
    space: dict[str, Any] = {}
    exec(compile(renaming_source(maps), "<generated renamings>", "exec"), space)
    return space


def compile_renamings(maps: list[Any]) -> list[Any]:
    return _renamings_space(maps)["renamings"]


def compile_images(maps: list[Any]) -> list[Any]:
    """Per renaming, ``f(s)``: the renamed packed state."""
    return _renamings_space(maps)["images"]
