"""How many runs the master's log cleaner makes, in both eras (``model/table/cleaner.py`` and
``model/zk/cleaners.py`` start their runs through these): on the configuration's
``cleaner_runs`` budget, or, with ``cleaner_chore``, for ever, as HBase's ``LogCleaner`` chore
does (what the cleaner's purpose, ``unneeded_wals_deleted``, is checked on)."""

from __future__ import annotations

from typing import Any


def run_left(t: Any, cfg: Any) -> list[Any]:
    """The guard a run's start adds under configuration ``cfg``: a run left on the budget (none
    for the chore)."""
    return [] if cfg.cleaner_chore else [t.budget["cleaner_runs"] > 0]


def spend_run(t: Any, cfg: Any) -> None:
    """A run starts: one fewer left on the budget (the chore spends none)."""
    if not cfg.cleaner_chore:
        t.budget["cleaner_runs"] = t.budget["cleaner_runs"] - 1
