"""Text read from ZooKeeper, made safe to print: the one escaping function for terminal output.

A znode's name or data is anybody's text: it may hold a terminal escape sequence (``ESC [ 2 J``
clears the screen, ``ESC ] 52`` writes the clipboard), a carriage return that overwrites what
was printed, or a bidirectional override (U+202E) that shows ``abc.gol`` as ``log.cba``.
:func:`printable` writes every such character as its escape (``\\x1b``, ``\\x0d``, ``\\u202e``),
so a line printed is one line, and it reads as the bytes are. ``zklog``, ``inspect`` and the
messages that quote a run folder's files use it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["UNSAFE_CATEGORIES", "printable"]

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Unicode categories escaped: controls (C0, DEL, C1: newlines, tabs, ``ESC``), format
characters (the bidirectional embeddings, overrides and isolates U+202A–U+202E and
U+2066–U+2069, the marks U+200E/U+200F/U+061C, zero-width characters, U+FEFF), surrogates (a
name decoded with ``surrogateescape``), and the line and paragraph separators."""

_CANDIDATES = re.compile(r"[^\x20-\x7e\xa0-\xac\xae-\u05ff]")
"""Characters worth a look (everything printable ASCII and the common Latin, Greek and
Cyrillic ranges are safe and skipped quickly)."""


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if unicodedata.category(c) not in UNSAFE_CATEGORIES:
        return c
    n = ord(c)
    if n < 0x100:
        return f"\\x{n:02x}"
    if n < 0x10000:
        return f"\\u{n:04x}"
    return f"\\U{n:08x}"


def printable(text: str) -> str:
    """``text`` with every control, format (bidirectional) and separator character written as
    its escape; everything else (any script, any symbol) as it is."""
    return _CANDIDATES.sub(_escape, text)
