"""Table-era mutants of syncup (see ``table_syncup.py``)."""

from __future__ import annotations

SYNCUP_MUTANTS: tuple[type, ...] = ()
