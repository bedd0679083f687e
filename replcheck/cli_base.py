"""What every ``replcheck`` command module shares: the errors a command raises for the entry
point (``replcheck.cli``) to report in one line with its exit status (``replcheck.exits``), and
the argument parser that reports its own errors that way.

The command modules import this one, never ``replcheck.cli``: ``cli`` imports them.
"""

from __future__ import annotations

import argparse
from typing import NoReturn


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
