"""JSON text as every reader of a trace (and of the other JSON files a command is handed) reads
it: strictly, and never with a traceback.

``loads(text)`` is ``json.loads`` with the rule written once:

* the text is JSON as RFC 8259 says: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's
  ``json`` reads by default) are not JSON, and neither is a number too large for a float (read
  as infinity);
* an integer has at most ``MAX_DIGITS`` digits (Python refuses to read more than 4300 with
  an error of its own);
* a value nests at most ``MAX_DEPTH`` lists and objects: a recorded event nests 3 deep, a
  checker's JSON output about 10, and a deeper one would make the parser (and everything that
  walks the value after it) run out of stack, a ``RecursionError`` that is not a verdict on
  anything.

Anything else is a ``JsonTextError``: a ``ValueError`` whose message is one line saying what is
wrong and where (``offset``, a character offset, and its ``line``), so that a caller names its
file (and its own line, for a file of one JSON value per line).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 64
"""Lists and objects a value may nest (the outermost counts as 1)."""
MAX_DIGITS = 4000
"""Digits an integer may have (Python reads no more than 4300 of them in one)."""

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_BRACKETS = re.compile(_STRING + r"|[\[\]{}]")
_TOKEN = re.compile(
    _STRING + r"|-?Infinity|NaN|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
)


class JsonTextError(ValueError):
    """Text that is not JSON as a trace holds it; the message is one line."""

    def __init__(self, why: str, text: str, offset: int, kind: str = "syntax") -> None:
        self.why = why
        """What is wrong, without where."""
        self.kind = kind
        """``syntax`` (not JSON text: ``json``'s own complaint), ``number`` (a number JSON has
        no value for, or too long to read) or ``depth`` (nested too deep)."""
        self.offset = offset
        """The character offset where it is (0-based)."""
        self.line = text.count("\n", 0, offset) + 1
        """The line it is on, from 1."""
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"{why}: line {self.line} column {column} (char {offset})")


class _Refused(ValueError):
    """A number ``json`` would read that JSON has no value for (the hooks' signal)."""


def _constant(name: str) -> Any:
    raise _Refused(name)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(text)
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(text)
    return int(text)


def loads(text: str) -> Any:
    """The JSON value of ``text`` (see the module docstring); ``JsonTextError`` otherwise."""
    deep = too_deep(text)
    if deep is not None:
        why = f"a value nested deeper than {MAX_DEPTH} lists and objects"
        raise JsonTextError(why, text, deep, "depth")
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except _Refused as exc:
        word = str(exc)
        at = next((m.start() for m in _TOKEN.finditer(text) if m.group() == word), 0)
        if word[-1:].isdigit() and "." not in word and "e" not in word.lower():
            why = f"an integer of {len(word.lstrip('-'))} digits (at most {MAX_DIGITS})"
        else:
            why = f"not JSON: {word} is not a JSON number"
        raise JsonTextError(why, text, at, "number") from None
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not JSON: {exc.msg}", text, exc.pos) from None
    except RecursionError:  # only when called with little stack left: said all the same
        raise JsonTextError("a value nested too deep to read", text, 0, "depth") from None


def too_deep(text: str) -> int | None:
    """The offset of the first list or object nested deeper than ``MAX_DEPTH``, else None
    (brackets inside strings do not count)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None  # too few brackets to nest that deep: the common case, at no cost
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        elif c in "]}":
            depth -= 1
    return None
