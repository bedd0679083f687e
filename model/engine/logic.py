"""The operations a decision rule is written in, so that each rule is written once and runs two
ways: on plain Python values inside the explicit model, and on Z3 terms in the symbolic checks.

A rule takes the operations as its first parameter::

    def should_replicate_rule(ops: Ops, has_offset, start_ts, pos, wal_ts):
        return ops.ite(ops.not_(has_offset), True, ...)

The model calls it with ``PY`` (this module: plain ``bool``/``int``/``str``); ``specs/z3ops.py``
implements the same protocol over Z3's Boolean, integer and string (sequence) theories. Integers are
compared with the ordinary operators (``<``, ``==``, ``+``), which Z3's terms overload; everything
else (Boolean connectives, if-then-else, string operations, string equality) goes through ``ops``.

The string operations follow SMT-LIB's total semantics, so that both backends agree on every input,
including out-of-range indexes: ``substring(s, i, n)`` is empty when ``i`` is outside ``s`` or
``n <= 0``; ``index_of(s, t, i)`` is -1 when ``i`` is outside ``0..len(s)`` or ``t`` does not occur
at or after ``i``; ``str_to_int`` is -1 for anything but a non-empty string of ASCII digits;
``int_to_str`` is empty for a negative number; ``chars_in(s, "a-z0-9.-")`` says ``s`` is a
non-empty string of those characters (ranges written ``a-z``).

Nothing here imports Z3: ``model/`` depends on nothing outside itself.

``dual(generic)`` marks a design's ``rule_*`` method as the plain-Python face of ``generic``, so a
checker can find, for any design or mutant, the dual-form rule it actually uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

B = Any
"""A Boolean: ``bool`` for the model, a Z3 ``BoolRef`` for the symbolic checks."""
I = Any  # noqa: E741
"""An integer: ``int`` or a Z3 ``ArithRef``."""
S = Any
"""A string: ``str`` or a Z3 ``SeqRef``."""


class Ops(Protocol):
    """The operations a dual-form rule may use besides integer arithmetic and comparison."""

    def and_(self, *xs: B) -> B: ...
    def or_(self, *xs: B) -> B: ...
    def not_(self, x: B) -> B: ...
    def implies(self, a: B, b: B) -> B: ...
    def ite(self, c: B, a: Any, b: Any) -> Any: ...
    def eq(self, a: Any, b: Any) -> B: ...
    def lit(self, s: str) -> S: ...
    def concat(self, *xs: S) -> S: ...
    def length(self, s: S) -> I: ...
    def index_of(self, s: S, sub: S, start: I) -> I: ...
    def last_index_of(self, s: S, sub: S) -> I: ...
    def substring(self, s: S, start: I, n: I) -> S: ...
    def contains(self, s: S, sub: S) -> B: ...
    def prefix_of(self, pre: S, s: S) -> B: ...
    def suffix_of(self, suf: S, s: S) -> B: ...
    def str_to_int(self, s: S) -> I: ...
    def int_to_str(self, i: I) -> S: ...
    def is_digits(self, s: S) -> B: ...
    def chars_in(self, s: S, allowed: str) -> B: ...


def _digits(s: str) -> bool:
    return bool(s) and all("0" <= c <= "9" for c in s)


def charset(allowed: str) -> frozenset[str]:
    """The characters ``allowed`` names, ranges written ``a-z`` (a ``-`` first or last is
    itself)."""
    out: set[str] = set()
    i = 0
    while i < len(allowed):
        if 0 < i + 1 < len(allowed) - 1 and allowed[i + 1] == "-":
            out.update(chr(c) for c in range(ord(allowed[i]), ord(allowed[i + 2]) + 1))
            i += 3
        else:
            out.add(allowed[i])
            i += 1
    return frozenset(out)


class PlainOps:
    """``Ops`` on plain Python values (what the explicit model runs)."""

    __slots__ = ()

    @staticmethod
    def and_(*xs: bool) -> bool:
        return all(xs)

    @staticmethod
    def or_(*xs: bool) -> bool:
        return any(xs)

    @staticmethod
    def not_(x: bool) -> bool:
        return not x

    @staticmethod
    def implies(a: bool, b: bool) -> bool:
        return (not a) or bool(b)

    @staticmethod
    def ite(c: bool, a: Any, b: Any) -> Any:
        return a if c else b

    @staticmethod
    def eq(a: Any, b: Any) -> bool:
        return a == b

    @staticmethod
    def lit(s: str) -> str:
        return s

    @staticmethod
    def concat(*xs: str) -> str:
        return "".join(xs)

    @staticmethod
    def length(s: str) -> int:
        return len(s)

    @staticmethod
    def index_of(s: str, sub: str, start: int) -> int:
        if start < 0 or start > len(s):
            return -1
        return s.find(sub, start)

    @staticmethod
    def last_index_of(s: str, sub: str) -> int:
        return s.rfind(sub)

    @staticmethod
    def substring(s: str, start: int, n: int) -> str:
        if start < 0 or start >= len(s) or n <= 0:
            return ""
        return s[start : start + n]

    @staticmethod
    def contains(s: str, sub: str) -> bool:
        return sub in s

    @staticmethod
    def prefix_of(pre: str, s: str) -> bool:
        return s.startswith(pre)

    @staticmethod
    def suffix_of(suf: str, s: str) -> bool:
        return s.endswith(suf)

    @staticmethod
    def str_to_int(s: str) -> int:
        return int(s) if _digits(s) else -1

    @staticmethod
    def int_to_str(i: int) -> str:
        return str(i) if i >= 0 else ""

    @staticmethod
    def is_digits(s: str) -> bool:
        return _digits(s)

    @staticmethod
    def chars_in(s: str, allowed: str) -> bool:
        return bool(s) and set(s) <= charset(allowed)


PY: Ops = PlainOps()
"""The plain-Python operations: the default everywhere in the model."""


def after(ops: Ops, s: S, i: I) -> S:
    """The part of ``s`` from index ``i`` on (empty when ``i`` is past the end)."""
    return ops.substring(s, i, ops.length(s) - i)


def before(ops: Ops, s: S, i: I) -> S:
    """The first ``i`` characters of ``s`` (empty when ``i <= 0``)."""
    return ops.substring(s, 0, i)


F = TypeVar("F", bound=Callable[..., Any])


def dual(generic: Callable[..., Any]) -> Callable[[F], F]:
    """Mark a design's ``rule_*`` method as the plain-Python face of the dual-form rule
    ``generic`` (which takes ``ops`` first). The method computes its answer by calling
    ``generic(PY, ...)``; a checker reads ``method.generic`` to build the same rule over Z3."""

    def mark(method: F) -> F:
        method.generic = generic  # type: ignore[attr-defined]
        return method

    return mark


def generic_of(cls: type, rule: str) -> Callable[..., Any] | None:
    """The dual-form rule behind ``cls.<rule>``, or None when that method is not a dual-form
    rule (it decides something other than a pure rule: a protocol step, a state scan)."""
    return getattr(getattr(cls, rule, None), "generic", None)
