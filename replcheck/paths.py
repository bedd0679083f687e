"""Where commands write what the user did not name: never the current folder.

A command writes its outputs where the user names them (``--out``, ``--junit``, ``--html``, ...).
What a command writes without being told goes under the user's cache folder, ``replcheck`` in
``$XDG_CACHE_HOME`` (``~/.cache`` when it is not set): the engines' compiled code, Hypothesis's
storage (its example database included), the counterexamples the engines save for ``replay``,
and the default folders of ``record``, ``conform``, ``mine`` and ``zk``. A command that writes
there by default says where in its ``--help`` (:func:`where`) and on stderr (:func:`say`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

WHERE = "~/.cache/replcheck"
"""How help texts name the cache folder (see :func:`where`)."""


def where(sub: str) -> str:
    """How a help text names ``sub`` in the cache folder."""
    return f"{WHERE}/{sub} (under $XDG_CACHE_HOME when it is set)"


HYPOTHESIS_ENV = "HYPOTHESIS_STORAGE_DIRECTORY"
"""Hypothesis's own variable for its storage folder (its example database, its caches), which
it otherwise creates as ``.hypothesis`` in the current folder."""


def cache_home() -> Path:
    """``$XDG_CACHE_HOME/replcheck``, or ``~/.cache/replcheck`` (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "replcheck"


def hypothesis_home() -> Path:
    """Where Hypothesis keeps its storage when a command runs it: ``$HYPOTHESIS_STORAGE_DIRECTORY``
    when set, else ``hypothesis`` in the cache folder."""
    return Path(os.environ.get(HYPOTHESIS_ENV) or cache_home() / "hypothesis")


def keep_hypothesis_out_of_cwd() -> None:
    """Point Hypothesis's storage at :func:`hypothesis_home` for this process and its children,
    unless ``$HYPOTHESIS_STORAGE_DIRECTORY`` already says where (the command line's entry point
    calls it; a test suite keeps its own)."""
    os.environ.setdefault(HYPOTHESIS_ENV, str(hypothesis_home()))


@contextlib.contextmanager
def hypothesis_storage() -> Iterator[None]:
    """While a command runs Hypothesis in this process: its storage in :func:`hypothesis_home`,
    whatever the process's first use of Hypothesis decided (a caller that embeds ``main`` keeps
    its own afterwards)."""
    from hypothesis import configuration

    key = "__hypothesis_home_directory"
    previous = configuration.__dict__.get(key)
    configuration.set_hypothesis_home_dir(hypothesis_home())
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(previous)


def fresh_folder(kind: str) -> Path:
    """A folder no run has used yet, ``<cache>/<kind>/<UTC time>-<pid>`` (not created here)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    base = cache_home() / kind / f"{stamp}-{os.getpid()}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def say(what: str, path: Path, flag: str) -> None:
    """One line on stderr: where a command writes what it was not told where to write."""
    sys.stderr.write(f"replcheck: {what} in {path} ({flag} names another place)\n")
    sys.stderr.flush()
