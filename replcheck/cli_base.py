"""What every ``replcheck`` command module shares: the errors a command raises for the entry
point (``replcheck.cli``) to report in one line with its exit status (``replcheck.exits``), and
the argument parser that reports its own errors that way.

The command modules import this one, never ``replcheck.cli``: ``cli`` imports them.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import NoReturn, TypeVar

T = TypeVar("T")


class UsageError(Exception):
    """Bad input; the message is one line. Exit status 2 (``Exit.BAD_INPUT``)."""


class InternalError(Exception):
    """A checker or a design raised; the message is one line. Exit status 3
    (``Exit.INTERNAL``)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are ``UsageError``: one line, exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def one_line(message: object) -> str:
    """``message`` as one line: its whitespace runs joined by single spaces."""
    return " ".join(str(message).split())


def internal(what: str, exc: BaseException) -> InternalError:
    """``exc``, raised by a checker or a design's code while doing ``what``, as a one-line
    ``InternalError``. Call it in the ``except`` block: with ``REPLCHECK_TRACEBACK=1`` set it
    raises ``exc`` again instead, so that its traceback shows."""
    if os.environ.get("REPLCHECK_TRACEBACK"):
        raise exc
    return InternalError(f"{what}: {type(exc).__name__}: {one_line(exc)}")


def guard(what: str, fn: Callable[[], T]) -> T:
    """Run a checker; turn whatever it raises, but Ctrl-C, into a one-line ``InternalError``."""
    try:
        return fn()
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        raise internal(what, exc) from None
