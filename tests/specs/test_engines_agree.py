"""The four interpreters of the flat text agree over whole state spaces: the plain interpreter
(``FlatModel.successors``), generated Python (``model/engine/pygen.py``), the C search and the Z3
one-step relation (``specs/bmc.py``'s ``Unrolling``). For every reachable state (no symmetry),
the plain and generated successors are the same set of states; the C search finds exactly the
states the generated search does; and Z3, with the state before the step fixed, can reach each
of those successors and no other state."""

from __future__ import annotations

from collections import deque

import pytest
import z3
from replcheck.model import STANDARD
from replcheck.model.engine.catalogue import flat_model
from replcheck.model.engine.pygen import compile_python
from replcheck.model.engine.terms import trace
from replcheck.specs.bmc import Unrolling, _term
from replcheck.specs.compiled import explore_compiled


def reachable(name: str, config: str):
    fm = flat_model(name, STANDARD[config])
    prog = trace(fm)
    code = compile_python(prog)
    s0 = tuple(prog.init)
    succ: dict[tuple, set[tuple]] = {}
    todo = deque([s0])
    seen = {s0}
    while todo:
        s = todo.popleft()
        succ[s] = {t for _i, t in code.successors(s)}
        for t in succ[s] - seen:
            seen.add(t)
            todo.append(t)
    return fm, prog, succ


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("table", "t-bootstrap"),
        ("table-naive", "t-bootstrap"),
        pytest.param("zk-multi", "cleaner-race", marks=pytest.mark.slow),
    ],
)
def test_plain_generated_c_and_z3_agree(name: str, config: str) -> None:
    fm, prog, succ = reachable(name, config)
    for s, ts in succ.items():
        plain = {prog.pack(nxt) for _inst, nxt in fm.successors(prog.unpack(s))}
        assert plain == ts
    c = explore_compiled(name, STANDARD[config], backend="c")
    assert c.states == len(succ)
    assert c.transitions == sum(len(list(fm.successors(prog.unpack(s)))) for s in succ)
    solver = z3.SolverFor("QF_BV")
    un = Unrolling(fm, solver, free_start=True)
    un.extend()
    pre, post = un.frames
    sorts = fm.sorts

    def equal(frame: dict, state: tuple) -> z3.BoolRef:
        values = prog.unpack(state)
        return z3.And([_term(frame[k], sorts[k]) == _term(values[k], sorts[k]) for k in prog.keys])

    for s, ts in succ.items():
        solver.push()
        solver.add(equal(pre, s))
        for t in ts:
            assert solver.check(equal(post, t)) == z3.sat
        solver.add(*(z3.Not(equal(post, t)) for t in ts))
        assert solver.check() == z3.unsat
        solver.pop()
