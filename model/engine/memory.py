"""The memory this process holds, as every search's ``--max-memory`` and progress line read it."""

from __future__ import annotations


def memory_mib() -> int:
    """The memory the process holds now, in MiB: its resident set (``/proc/self/statm``), what
    ``--max-memory`` bounds and the progress line shows; where there is no ``/proc``, its peak
    resident set (``getrusage``), which is never less."""
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[1])
        return pages * _PAGE // 2**20
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _page_size() -> int:
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 4096


_PAGE = _page_size()
