"""Table-era mutants of migrate (see ``table_migrate.py``)."""

from __future__ import annotations

MIGRATE_MUTANTS: tuple[type, ...] = ()
