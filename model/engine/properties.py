"""Properties as data: named checks, each quoting the seed sentence it protects.

* an *invariant* holds in every reachable state: ``check(cfg, state) -> bool``;
* a *step property* holds across every transition: ``check(cfg, before, after) -> bool``;
* a *liveness property* says a goal is eventually reached on every fair behaviour once the
  environment's budgets (crashes, outages, admin commands) are spent: ``check(cfg, state)`` is the
  goal, and the checker looks for fair cycles and stuck states that never reach it.

Each is written once, in the protocol text (``model/zk/properties.py``,
``model/table/properties.py``, ``model/common/edit_properties.py``), against the true state (which
WALs exist, what each sink applied), never against a design's beliefs, so a mutant cannot bend them;
``model/engine/text_checks.py`` makes them these values for the engine that runs the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


class Property(NamedTuple):
    name: str
    kind: str
    """``invariant``, ``step`` or ``liveness``."""
    check: Callable[..., bool]
    doc: str
