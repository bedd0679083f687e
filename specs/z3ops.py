"""``replcheck.model.engine.logic.Ops`` over Z3: Booleans, integers (timestamps, offsets, positions)
and strings (names). A dual-form rule of the model called with a ``Z3Ops`` instead of ``PY`` builds
the Z3 term of the very same rule: no second copy of a rule lives here.

Strings are encoded as a length and an array of character codes (``ZStr``), not with Z3's
sequence theory: the round-trip proofs about names need facts like "the first ``-`` of
``peer + '-' + rest`` is at ``len(peer)`` when ``peer`` has none", which Z3's string solver does
not settle (it times out on that very lemma), while the same fact over arrays with a quantified
"first occurrence" is immediate. Every operation keeps SMT-LIB's total semantics (the plain
backend's, see ``model/engine/logic.py``); operations that search (``index_of``, ``last_index_of``,
``contains``) return a fresh integer defined by side constraints, which ``side`` collects and the
caller must assert with its query (a definitional extension: it constrains nothing else).
Searched-for strings must be literals, as they are in every rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import z3
from replcheck.model.engine.logic import charset

_MAX_CODE = 0x10FFFF


class ZStr(NamedTuple):
    """A string: its length and its characters' codes (positions ``0 .. length-1``). ``marks``
    are positions worth looking at (where the parts of a concatenation meet): a search's
    quantified "no occurrence" facts are also asserted at each mark, instances that Z3 would
    otherwise have to guess."""

    length: z3.ArithRef
    chars: z3.ArrayRef
    marks: tuple = ()
    cap: int | None = None
    """An upper bound on the length, when the query bounds every string variable's length
    (a counterexample search): quantifiers over positions are then finite conjunctions."""

    def at(self, i: Any) -> z3.ArithRef:
        return self.chars[i]


def zstr_value(text: str) -> ZStr:
    """The constant string ``text``."""
    arr = z3.K(z3.IntSort(), z3.IntVal(-1))
    for i, ch in enumerate(text):
        arr = z3.Store(arr, i, ord(ch))
    return ZStr(z3.IntVal(len(text)), arr, (), len(text))


def zstr_var(name: str, cap: int | None = None) -> ZStr:
    """A string variable (of at most ``cap`` characters); ``zstr_ok`` says what it must satisfy."""
    chars = z3.Array(f"{name}.chars", z3.IntSort(), z3.IntSort())
    return ZStr(z3.Int(f"{name}.len"), chars, (), cap)


def zstr_ok(s: ZStr) -> z3.BoolRef:
    if s.cap is None:
        return s.length >= 0
    return z3.And(s.length >= 0, s.length <= s.cap)


def _cap(*caps: int | None) -> int | None:
    return None if any(c is None for c in caps) else sum(c for c in caps if c is not None)


def zstr_read(model: z3.ModelRef, s: ZStr) -> str:
    """The model's value of a string."""
    n = model.eval(s.length, model_completion=True).as_long()
    out = []
    for i in range(max(n, 0)):
        code = model.eval(s.chars[i], model_completion=True).as_long()
        out.append(chr(code) if 0 <= code <= _MAX_CODE else "\ufffd")
    return "".join(out)


def _z(x: Any) -> ZStr:
    return zstr_value(x) if isinstance(x, str) else x


def _b(x: Any) -> Any:
    return z3.BoolVal(x) if isinstance(x, bool) else x


class Z3Ops:
    """The ``Ops`` protocol building Z3 terms. Plain Python values (``True``, ``"-"``, ``3``) are
    lifted where a Z3 operation needs them. Use one instance per query and assert ``side``."""

    def __init__(self) -> None:
        self.side: list[z3.BoolRef] = []
        self._fresh = 0

    def _int(self, tag: str) -> z3.ArithRef:
        self._fresh += 1
        return z3.Int(f"_{tag}{self._fresh}")

    def _j(self) -> z3.ArithRef:
        self._fresh += 1
        return z3.Int(f"_j{self._fresh}")

    # --- Booleans and values ------------------------------------------------------------------

    def and_(self, *xs: Any) -> Any:
        return z3.And(*[_b(x) for x in xs]) if xs else z3.BoolVal(True)

    def or_(self, *xs: Any) -> Any:
        return z3.Or(*[_b(x) for x in xs]) if xs else z3.BoolVal(False)

    def not_(self, x: Any) -> Any:
        return z3.Not(_b(x))

    def implies(self, a: Any, b: Any) -> Any:
        return z3.Implies(_b(a), _b(b))

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(a, (str, ZStr)) or isinstance(b, (str, ZStr)):
            za, zb = _z(a), _z(b)
            return ZStr(
                z3.If(_b(c), za.length, zb.length),
                z3.If(_b(c), za.chars, zb.chars),
                (*za.marks, *zb.marks),
                None if za.cap is None or zb.cap is None else max(za.cap, zb.cap),
            )
        return z3.If(_b(c), a, b)

    def eq(self, a: Any, b: Any) -> Any:
        if isinstance(a, (str, ZStr)) or isinstance(b, (str, ZStr)):
            za, zb = _z(a), _z(b)
            cap = None if za.cap is None or zb.cap is None else max(za.cap, zb.cap)
            same = self._forall(cap, lambda j: z3.Implies(j < za.length, za.at(j) == zb.at(j)))
            return z3.And(za.length == zb.length, same)
        return _b(a) == _b(b)

    # --- strings ---------------------------------------------------------------------------------

    def lit(self, s: str) -> ZStr:
        return zstr_value(s)

    def concat(self, *xs: Any) -> ZStr:
        parts = [_z(x) for x in xs]
        out = parts[0]
        for p in parts[1:]:
            j = self._j()
            n = out.length
            chars = z3.Lambda([j], z3.If(j < n, out.at(j), p.at(j - n)))
            marks = (*out.marks, n, *(n + m for m in p.marks))
            out = ZStr(n + p.length, chars, marks, _cap(out.cap, p.cap))
        return out

    def length(self, s: Any) -> Any:
        return _z(s).length

    def _occurs(self, s: ZStr, t: str, j: Any) -> z3.BoolRef:
        return z3.And(
            j >= 0, j + len(t) <= s.length, *(s.at(j + k) == ord(c) for k, c in enumerate(t))
        )

    def index_of(self, s: Any, sub: Any, start: Any) -> z3.ArithRef:
        if not isinstance(sub, str) or not sub:
            raise ValueError("index_of searches for a non-empty literal")
        zs, r = _z(s), self._int("idx")
        in_range = z3.And(start >= 0, start <= zs.length)
        none_after = self._forall(
            zs.cap, lambda k: z3.Implies(k >= start, z3.Not(self._occurs(zs, sub, k)))
        )
        first = self._forall(
            zs.cap,
            lambda k: z3.Implies(z3.And(k >= start, k < r), z3.Not(self._occurs(zs, sub, k))),
        )
        found = z3.And(r >= start, self._occurs(zs, sub, r), first)
        self.side.append(z3.If(in_range, z3.Or(z3.And(r == -1, none_after), found), r == -1))
        for m in zs.marks:  # instances of the two quantified facts at the marks
            self.side.append(
                z3.Implies(z3.And(r == -1, m >= start), z3.Not(self._occurs(zs, sub, m)))
            )
            self.side.append(
                z3.Implies(z3.And(m >= start, m < r), z3.Not(self._occurs(zs, sub, m)))
            )
        return r

    def last_index_of(self, s: Any, sub: Any) -> z3.ArithRef:
        if not isinstance(sub, str) or not sub:
            raise ValueError("last_index_of searches for a non-empty literal")
        zs, r = _z(s), self._int("last")
        none = self._forall(zs.cap, lambda k: z3.Not(self._occurs(zs, sub, k)))
        last = self._forall(zs.cap, lambda k: z3.Implies(k > r, z3.Not(self._occurs(zs, sub, k))))
        self.side.append(z3.Or(z3.And(r == -1, none), z3.And(self._occurs(zs, sub, r), last)))
        for m in zs.marks:
            self.side.append(z3.Implies(z3.Or(r == -1, m > r), z3.Not(self._occurs(zs, sub, m))))
        return r

    def substring(self, s: Any, start: Any, n: Any) -> ZStr:
        zs, j = _z(s), self._j()
        empty = z3.Or(start < 0, start >= zs.length, n <= 0)
        length = z3.If(empty, 0, z3.If(n < zs.length - start, n, zs.length - start))
        marks = tuple(m - start for m in zs.marks)
        return ZStr(length, z3.Lambda([j], zs.at(j + start)), marks, zs.cap)

    def contains(self, s: Any, sub: Any) -> z3.BoolRef:
        return self.index_of(s, sub, 0) >= 0

    def prefix_of(self, pre: Any, s: Any) -> z3.BoolRef:
        if not isinstance(pre, str):
            raise ValueError("prefix_of takes a literal prefix")
        return self._occurs(_z(s), pre, 0)

    def suffix_of(self, suf: Any, s: Any) -> z3.BoolRef:
        if not isinstance(suf, str):
            raise ValueError("suffix_of takes a literal suffix")
        zs = _z(s)
        return z3.And(zs.length >= len(suf), self._occurs(zs, suf, zs.length - len(suf)))

    def str_to_int(self, s: Any) -> Any:
        raise NotImplementedError("str_to_int is not used by any dual-form rule")

    def int_to_str(self, i: Any) -> Any:
        raise NotImplementedError("int_to_str is not used by any dual-form rule")

    def _forall(self, cap: int | None, body: Any) -> z3.BoolRef:
        """``body(j)`` for every position ``j >= 0``: a quantifier or, with a length bound ``cap``
        (``body`` holding trivially at and beyond it), the conjunction over ``0 .. cap-1``."""
        if cap is not None:
            return z3.And(*(body(z3.IntVal(j)) for j in range(cap))) if cap else z3.BoolVal(True)
        j = self._j()
        return z3.ForAll([j], z3.Implies(j >= 0, body(j)))

    def _all(self, s: ZStr, pred: Any) -> z3.BoolRef:
        return self._forall(s.cap, lambda j: z3.Implies(j < s.length, pred(s.at(j))))

    def is_digits(self, s: Any) -> z3.BoolRef:
        zs = _z(s)
        return z3.And(zs.length > 0, self._all(zs, lambda c: z3.And(c >= 48, c <= 57)))

    def chars_in(self, s: Any, allowed: str) -> z3.BoolRef:
        zs = _z(s)
        ranges = _ranges(charset(allowed))

        def ok(c: Any) -> z3.BoolRef:
            return z3.Or(
                *[(c == lo) if lo == hi else z3.And(c >= lo, c <= hi) for lo, hi in ranges]
            )

        return z3.And(zs.length > 0, self._all(zs, ok))


def _ranges(chars: frozenset[str]) -> list[tuple[int, int]]:
    codes = sorted(ord(c) for c in chars)
    out: list[tuple[int, int]] = []
    for c in codes:
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


@contextmanager
def fresh_context() -> Iterator[None]:
    """Build and solve the terms made inside in a Z3 context of their own. Quantifier
    instantiation follows the order of term ids, so a quantified query's answer (and whether it
    comes within its time limit) would otherwise depend on every term the process built before:
    a proof answered at once alone once ran out of time after a bounded model check in the same
    process. Terms from outside must not be mixed in."""
    saved = z3.z3._main_ctx
    z3.z3._main_ctx = z3.Context()
    try:
        yield
    finally:
        z3.z3._main_ctx = saved


def check(solver: z3.Solver) -> Any:
    """``solver.check()``, except that Ctrl-C raises ``KeyboardInterrupt``. Z3 catches SIGINT
    itself while it solves and returns ``unknown`` ("interrupted from keyboard"), which a caller
    would take for a time limit and carry on; this turns it back into the interruption it was."""
    answer = solver.check()
    if answer == z3.unknown and "interrupted" in solver.reason_unknown():
        raise KeyboardInterrupt
    return answer
