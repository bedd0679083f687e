"""Branch coverage of the model's steps: which ways each action's step went in real runs.

A *branch* is one outcome, ``then`` or ``else``, of a decision in an action's step or in a model
function it calls, transitively (a method of the design or text called through ``self``, or a
function of a model module called by name). The steps are those a recorded run is replayed
through (``model/engine/text_model.py``'s ``recorded_in_text``), the protocol text's ``@step``
bodies: a decision is a guarded write (``t.when(cond, ...)``, ``tx.when(cond, ...)``) or an
if-then-else (``ops.ite(cond, ...)``), taken ``then`` where its condition held, and an ``if``
statement.

``universe`` finds them in the source (``ast``); ``exercised`` replays a behaviour (the actions
``validate`` matched to a run's events) from the model's initial state with a tracer on the
model's files, and counts each branch where the step of the action that took it went: for the
text, only while an instance's update runs (its guard, and the guards of the instances not
taken, are not the step going anywhere).

A branch is named ``ACTION[FILE:LINE then|else: CONDITION]``, e.g.
``claim_commit[zk/text.py:135 then: cond (drop_queue)]`` (a condition that is a helper's
parameter names the helper); the mining tables count them beside the actions
(``mine.coverage``), and a branch with no event is one no run took. Conditional expressions,
``and``/``or`` and loops are not branches here.
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

DECIDERS = ("when", "ite")
"""The methods whose first argument decides a guarded write or an if-then-else of the text."""


@dataclass(frozen=True)
class Point:
    """A decision: an ``if`` statement (where its test is, where its body starts) or a call of a
    decider (``when``, ``ite``: the call's exact span, as the interpreter reports a call's
    position), and its condition."""

    file: str
    line: int
    test_end: int
    body: int
    condition: str
    span: tuple[int, int, int, int] | None = None
    """A call's (line, end line, column, end column); None for an ``if`` statement."""

    def name(self, action: str, outcome: str) -> str:
        return f"{action}[{_model_path(self.file)}:{self.line} {outcome}: {self.condition}]"


@cache
def _roots() -> tuple[str, ...]:
    """The folder a step and its helpers live in: the model's (the text, its layouts included)."""
    import replcheck.model

    return (str(Path(replcheck.model.__file__).resolve().parent),)


MACHINERY = ("engine/logic.py", "engine/step.py", "engine/text.py")
"""The model's modules that interpret the text rather than state the protocol (their ``if``s
fold constants and check the form): not followed."""


def _in_model(fn: Any) -> bool:
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    file = Path(code.co_filename).resolve()
    roots = _roots()
    if not str(file).startswith(roots):
        return False
    return _model_path(str(file)) not in MACHINERY


def _model_path(file: str) -> str:
    """``file``'s path in the model's folder (``zk/text.py``), or its name outside it."""
    path = Path(file).resolve()
    try:
        return path.relative_to(_roots()[0]).as_posix()
    except ValueError:
        return path.name


def _condition(node: ast.expr, where: str = "") -> str:
    cond = " ".join(ast.unparse(node).split())
    if where:
        cond = f"{cond} ({where})"
    if len(cond) > CONDITION_CHARS:
        cond = cond[: CONDITION_CHARS - 3] + "..."
    return cond


def _points_and_calls(fn: Any, cls: type) -> tuple[list[Point], list[Any]]:
    """The decisions of ``fn`` and the model functions it calls or hands on."""
    fn = inspect.unwrap(fn)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return [], []
    source = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a lambda's line, say: no statement of its own
        return [], []
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return [], []
    indent = len(lines[0]) - len(source.splitlines(keepends=True)[0])  # what dedent took
    file = str(Path(fn.__code__.co_filename).resolve())
    off = first - 1
    params = {a.arg for a in ast.walk(tree.body[0].args) if isinstance(a, ast.arg)}
    points, calls = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.body[0].lineno > node.test.end_lineno:
            # (a body on the test's own line gives no line event of its own: not told apart)
            points.append(
                Point(
                    file,
                    node.lineno + off,
                    node.test.end_lineno + off,
                    node.body[0].lineno + off,
                    _condition(node.test),
                )
            )
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in DECIDERS and node.args:
                test = node.args[0]
                where = fn.__name__ if isinstance(test, ast.Name) and test.id in params else ""
                line, end = node.lineno + off, (node.end_lineno or node.lineno) + off
                col, end_col = node.col_offset + indent, (node.end_col_offset or 0) + indent
                span = (line, end, col, end_col)
                points.append(Point(file, line, end, line, _condition(test, where), span))
        if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            # a call, or a function handed to one (``self.append_current(..., self.append)``)
            target = _resolve(node, fn, cls)
            if target is not None:
                calls.append(target)
    return points, calls


def _resolve(func: ast.expr, fn: Any, cls: type) -> Any:
    """The model function an expression names, if it names one: ``self.m`` (the design's ``m``),
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
    """Action -> the decisions its step may go through."""
    return _scan(design)[0]


def _starts(design: str) -> tuple[type, dict[str, Any]]:
    """The text class a recorded run of ``design`` is replayed through and each action's step
    (the text's ``@step`` bodies)."""
    from replcheck.model import get_design
    from replcheck.model.engine.step import steps_of
    from replcheck.model.engine.text_model import recorded_in_text

    d = get_design(design)
    text = recorded_in_text(d)
    if text is None:
        raise ValueError(f"{design}: no protocol text to cover")
    return text, {st.name: st.body for st in steps_of(text)}


@cache
def _scan(design: str) -> tuple[dict[str, tuple[Point, ...]], frozenset[Any]]:
    """``universe``; the code objects holding its ``if`` points (the only frames line-traced)."""
    from replcheck.model import get_design

    cls, starts = _starts(design)
    out: dict[str, tuple[Point, ...]] = {}
    codes: set[Any] = set()
    for kind in get_design(design).kinds:
        step = starts.get(kind.name)
        seen: set[Any] = set()
        todo = [step] if step is not None else []
        points: dict[tuple, Point] = {}
        while todo:
            fn = todo.pop()
            if fn in seen:
                continue
            seen.add(fn)
            found, calls = _points_and_calls(fn, cls)
            for p in found:
                points[p.file, p.span or p.line] = p
            if any(p.span is None for p in found):
                codes.update(_codes(inspect.unwrap(fn).__code__))
            todo.extend(calls)
        out[kind.name] = tuple(
            sorted(points.values(), key=lambda p: (p.file, p.line, p.span or ()))
        )
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
    out = {
        p.name(action, outcome): None
        for action, points in universe(design).items()
        for p in points
        for outcome in ("then", "else")
    }
    return list(out)  # (two decisions on one line with one condition are one branch)


@cache
def _decider_codes() -> dict[types.CodeType, int]:
    """The code of every decider a step calls on plain values (the context's and the
    transaction's ``when``, the folding and the plain ``ite``), and where its condition is among
    its arguments."""
    from replcheck.model.engine import logic, step, text

    fns = [step.Ctx.when, text.Tx.when, text.Fold.ite, logic.PY.ite]
    return {f.__code__: 1 if f.__code__.co_varnames[0] == "self" else 0 for f in fns}


@cache
def _apply_codes() -> frozenset[types.CodeType]:
    """The code of an instance's update (``model/engine/step.py``'s ``instance``): a step goes its
    way only while one runs."""
    from replcheck.model.engine import step

    return frozenset(c for c in _codes(step.instance.__code__)[1:] if c.co_name == "apply")


def exercised(design: str, model: Any, actions: list[Any]) -> Counter[str]:
    """Branch -> how many times the steps of ``actions``, replayed from ``model``'s initial
    state, went that way."""
    points_of, codes = _scan(design)
    by_line = {(p.file, p.line): p for points in points_of.values() for p in points if not p.span}
    by_span = {(p.file, p.span): p for points in points_of.values() for p in points if p.span}
    hits: Counter[str] = Counter()
    current: list[str] = [""]
    active = [False]
    """Whether a step's update is running."""
    files: dict[str, str] = {}
    positions: dict[types.CodeType, list[Any]] = {}

    def file_of(code: types.CodeType) -> str:
        file = files.get(code.co_filename)
        if file is None:
            file = files[code.co_filename] = str(Path(code.co_filename).resolve())
        return file

    def tracer_for(file: str) -> Any:
        last: list[Point | None] = [None]

        def local(frame: Any, event: str, arg: Any) -> Any:
            p = last[0]
            if event == "line":
                line = frame.f_lineno
                if p is not None and not (p.line <= line <= p.test_end):
                    hits[p.name(current[0], "then" if line == p.body else "else")] += 1
                    p = None
                if p is None and active[0]:
                    p = by_line.get((file, line))
                last[0] = p
            elif event == "return" and p is not None:
                hits[p.name(current[0], "else")] += 1
                last[0] = None
            return local

        return local

    def decided(frame: Any) -> None:
        """A decider's call: where its caller called it, and which way its condition went."""
        caller = frame.f_back
        code = caller.f_code
        pos = positions.get(code)
        if pos is None:
            pos = positions[code] = list(code.co_positions())
        span = pos[caller.f_lasti // 2]
        p = by_span.get((file_of(code), span))
        if p is not None:
            code = frame.f_code
            cond = frame.f_locals[code.co_varnames[deciders[code]]]
            hits[p.name(current[0], "then" if cond else "else")] += 1

    def update_ended(frame: Any, event: str, arg: Any) -> Any:
        if event == "return":
            active[0] = False
        return None

    deciders = _decider_codes()
    applies = _apply_codes()

    def on_call(frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code in deciders:
            if active[0]:
                decided(frame)
            return None
        if code in applies:
            active[0] = True
            return update_ended
        if code not in codes:
            return None
        return tracer_for(file_of(code))

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
