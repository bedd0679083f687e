"""A tiny progress reporter for long checks, written to stderr.

It is on when stderr is a terminal or when ``--progress`` is given, and silent otherwise (so tests
and CI logs stay quiet). On a terminal it redraws one line::

    [3/28] zk-multi@race explore  states 12,345  queued 2,000  depth 14  3,100 states/s  210 MiB

elsewhere (``--progress`` into a file or a pipe) it prints a line every few seconds instead.

An instance is callable with ``(states, queued, depth)``, the signature
``replcheck.specs.explore.Progress`` expects, so it can be handed straight to ``specs.check``.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from replcheck.model.engine.memory import memory_mib


class Progress:
    """Progress lines for one task at a time; ``task`` starts one, ``done`` ends it."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        enabled: bool | None = None,
        interval: float | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        tty = _isatty(self.stream)
        self.enabled = tty if enabled is None else enabled
        self.tty = tty
        self.interval = interval if interval is not None else (0.2 if tty else 5.0)
        self.label = ""
        self._started = time.perf_counter()
        self._last = 0.0
        self._drawn = False

    def task(self, label: str) -> None:
        """Begin a new task (a design, a configuration and a checker)."""
        self.label = label
        self._started = time.perf_counter()
        self._last = 0.0
        if self.enabled and self.tty:
            self._draw(f"{label} ...")

    def __call__(self, states: int, queued: int, depth: int) -> None:
        """Report exploration progress (throttled)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last < self.interval:
            return
        self._last = now
        elapsed = max(now - self._started, 1e-6)
        rate = states / elapsed
        self._draw(
            f"{self.label}  states {states:,}  queued {queued:,}  depth {depth}  "
            f"{rate:,.0f} states/s  {memory_mib():,} MiB"
        )

    def note(self, message: str) -> None:
        """A line that stays (a skipped checker, a finished task)."""
        if not self.enabled:
            return
        self._clear()
        self.stream.write(message + "\n")
        self.stream.flush()

    def done(self, summary: str = "") -> None:
        """End the current task; with a summary, leave it as a line."""
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self._started
        if summary:
            self.note(f"{self.label}  {summary}  ({elapsed:.1f} s)")
        else:
            self._clear()

    def close(self) -> None:
        """Clear the progress line, if one is drawn."""
        if self.enabled:
            self._clear()

    def _draw(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K" + text)
            self._drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _clear(self) -> None:
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[K")
            self._drawn = False


def quiet() -> Progress:
    """A reporter that never writes."""
    return Progress(enabled=False)


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
