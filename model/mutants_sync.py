"""Table-era mutants of sync (see ``table_sync.py``)."""

from __future__ import annotations

SYNC_MUTANTS: tuple[type, ...] = ()
