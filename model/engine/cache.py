"""Where the engines keep what they compiled: generated Python's code objects and the C
search's libraries, by content hash, so a configuration explored again compiles nothing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/replcheck`` (default ``~/.cache/replcheck``), or a folder of this user's
    under the temporary directory when that one cannot be written."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    out = Path(base) / "replcheck"
    try:
        out.mkdir(parents=True, exist_ok=True)
        if os.access(out, os.W_OK):
            return out
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / f"replcheck-{os.getuid()}"
