"""Branch coverage of the model's steps: which ways each action's step went in real runs.

A *branch* is one outcome, ``then`` or ``else``, of an ``if`` statement (``elif`` included) in
an action's step (``do_<action>``) or in a model function it calls, transitively: a method of the
design called through ``self``, or a function of a model module called by name. ``universe``
finds them in the model's source (``ast``); ``exercised`` replays a behaviour (the actions
``validate`` matched to a run's events) from the model's initial state with a line tracer on the
model's files, and counts each branch where the step of the action that took it went.

A branch is named ``ACTION[FILE:LINE then|else: CONDITION]``, e.g.
``claim_commit[zk_multi.py:91 then: not self.claim_applies(st, s, claim)]``; the mining tables
count them beside the actions (``mine.coverage``), and a branch with no event is one no run took.
Conditional expressions, ``and``/``or`` and loops are not branches here. The steps are the
explicit ones, which trace validation's model runs (a recorded run's configuration has zombies,
which the protocol text does not cover yet); replay a behaviour through a ``Model`` that runs
them.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import types
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CONDITION_CHARS = 60
"""Characters of a condition's source kept in a branch's name."""


@dataclass(frozen=True)
class Point:
    """An ``if`` statement: where its test is, where its body starts, and its condition."""

    file: str
    line: int
    test_end: int
    body: int
    condition: str

    def name(self, action: str, outcome: str) -> str:
        return f"{action}[{Path(self.file).name}:{self.line} {outcome}: {self.condition}]"


def _model_dir() -> str:
    import replcheck.model

    return str(Path(replcheck.model.__file__).resolve().parent)


def _in_model(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and str(Path(code.co_filename).resolve()).startswith(_model_dir())


def _points_and_calls(fn: Any, cls: type) -> tuple[list[Point], list[Any]]:
    """The ``if`` statements of ``fn`` and the model functions it calls."""
    fn = inspect.unwrap(fn)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return [], []
    tree = ast.parse(textwrap.dedent("".join(lines)))
    file = str(Path(fn.__code__.co_filename).resolve())
    off = first - 1
    points, calls = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.body[0].lineno > node.test.end_lineno:
            # (a body on the test's own line gives no line event of its own: not told apart)
            cond = " ".join(ast.unparse(node.test).split())
            if len(cond) > CONDITION_CHARS:
                cond = cond[: CONDITION_CHARS - 3] + "..."
            points.append(
                Point(
                    file,
                    node.lineno + off,
                    node.test.end_lineno + off,
                    node.body[0].lineno + off,
                    cond,
                )
            )
        elif isinstance(node, ast.Call):
            target = _resolve(node.func, fn, cls)
            if target is not None:
                calls.append(target)
    return points, calls


def _resolve(func: ast.expr, fn: Any, cls: type) -> Any:
    """The model function a call names, if it names one: ``self.m(...)`` (the design's ``m``),
    ``super().m(...)``, ``module.f(...)``, ``Class.m(...)`` or ``f(...)`` through ``fn``'s
    globals. A call through any other object is not followed (the model's state is data)."""
    glb = getattr(fn, "__globals__", {})
    target = None
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    ):
        target = _super_attr(cls, fn, func.attr)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id == "self":
            target = inspect.getattr_static(cls, func.attr, None)
            if isinstance(target, (staticmethod, classmethod)):
                target = target.__func__
        else:
            owner = glb.get(func.value.id)
            if isinstance(owner, types.ModuleType):
                target = getattr(owner, func.attr, None)
            elif isinstance(owner, type):  # ``ZkCommon.find_queue(...)``
                target = inspect.getattr_static(owner, func.attr, None)
                if isinstance(target, (staticmethod, classmethod)):
                    target = target.__func__
    elif isinstance(func, ast.Name):
        target = glb.get(func.id)
    target = inspect.unwrap(target) if callable(target) else None
    return target if isinstance(target, types.FunctionType) and _in_model(target) else None


def _super_attr(cls: type, fn: Any, name: str) -> Any:
    """What ``super().name`` means inside ``fn``, a method of one of ``cls``'s bases."""
    mro = cls.__mro__
    for i, klass in enumerate(mro):
        if any(inspect.unwrap(v) is fn for v in vars(klass).values() if callable(v)):
            for later in mro[i + 1 :]:
                if name in vars(later):
                    return vars(later)[name]
            return None
    return None


def universe(design: str) -> dict[str, tuple[Point, ...]]:
    """Action -> the ``if`` statements its step may go through."""
    return _scan(design)[0]


@cache
def _scan(design: str) -> tuple[dict[str, tuple[Point, ...]], frozenset[Any]]:
    """``universe``, and the code objects holding its points (the only frames traced)."""
    from replcheck.model import get_design

    d = get_design(design)
    cls = type(d)
    out: dict[str, tuple[Point, ...]] = {}
    codes: set[Any] = set()
    for kind in d.kinds:
        seen: set[Any] = set()
        step = inspect.getattr_static(cls, "do_" + kind.name, None)
        if step is None:  # written in the protocol text: guards are requires, not ifs
            out[kind.name] = ()
            continue
        todo = [step]
        points: dict[tuple[str, int], Point] = {}
        while todo:
            fn = todo.pop()
            if fn in seen:
                continue
            seen.add(fn)
            found, calls = _points_and_calls(fn, cls)
            for p in found:
                points[p.file, p.line] = p
            if found:
                codes.update(_codes(inspect.unwrap(fn).__code__))
            todo.extend(calls)
        out[kind.name] = tuple(sorted(points.values(), key=lambda p: (p.file, p.line)))
    return out, frozenset(codes)


def _codes(code: types.CodeType) -> list[types.CodeType]:
    """A function's code object and those of the functions defined in it."""
    out = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out.extend(_codes(const))
    return out


def names(design: str) -> list[str]:
    """Every branch of ``design``'s steps (the zero rows of the coverage table)."""
    return [
        p.name(action, outcome)
        for action, points in universe(design).items()
        for p in points
        for outcome in ("then", "else")
    ]


def exercised(design: str, model: Any, actions: list[Any]) -> Counter[str]:
    """Branch -> how many times the steps of ``actions``, replayed from ``model``'s initial
    state, went that way."""
    points_of, codes = _scan(design)
    by_line = {(p.file, p.line): p for points in points_of.values() for p in points}
    hits: Counter[str] = Counter()
    current: list[str] = [""]

    def tracer_for(file: str) -> Any:
        last: list[Point | None] = [None]

        def local(frame: Any, event: str, arg: Any) -> Any:
            p = last[0]
            if event == "line":
                line = frame.f_lineno
                if p is not None and not (p.line <= line <= p.test_end):
                    hits[p.name(current[0], "then" if line == p.body else "else")] += 1
                    p = None
                if p is None:
                    p = by_line.get((file, line))
                last[0] = p
            elif event == "return" and p is not None:
                hits[p.name(current[0], "else")] += 1
                last[0] = None
            return local

        return local

    files: dict[str, str] = {}

    def on_call(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code not in codes:
            return None
        file = files.get(code.co_filename)
        if file is None:
            file = files[code.co_filename] = str(Path(code.co_filename).resolve())
        return tracer_for(file)

    st = model.init()
    old = sys.gettrace()
    sys.settrace(on_call)
    try:
        for a in actions:
            current[0] = a.name
            st = model.step(st, a)
    finally:
        sys.settrace(old)
    return hits
