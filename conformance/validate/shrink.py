"""The shortest failing prefix of a rejected trace, shrunk by removing events (delta debugging).

A trace is rejected at one event: a divergence (no behaviour of the model gets past it) or a
broken property (the step that matches it breaks one). ``shrink`` keeps that verdict while it
removes what the verdict does not need:

1. every event after the failing one (the prefix that ends with it);
2. groups of events that often go together: every event of a process, every event of one kind
   of a process (all its puts), every event of one kind (all ``sink_apply``);
3. runs of consecutive events, from the end backwards (a later event that needs an earlier one
   goes first, freeing it), halving their length down to single events, until no single event
   can go (as ``ddmin`` ends: the result is 1-minimal when the time allows).

A candidate is kept when validating it gives the same status and reason, rejected *at the same
recorded event* (a removal that makes another event fail first is not the same failure). The
failing event itself is never removed. Every candidate is validated from scratch with the same
search bounds but a smaller node budget (``NODES_FACTOR``): a search that ends within it ends
the same way within the default one, so the result is exactly what ``validate`` says of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from replcheck.conformance.trace.event import Event, events_of
from replcheck.conformance.validate.core import Bounds, Verdict, validate_events

NODES_FACTOR = 20
NODES_FLOOR = 20_000
"""A candidate's search budget: ``NODES_FACTOR`` times the original's nodes, at least
``NODES_FLOOR``. A candidate that needs more is not kept (its verdict would be undecided)."""


@dataclass
class Shrunk:
    events: list[dict[str, Any]]
    """The shrunk trace's events, in file order, as JSON objects (those given, or an
    ``Event``'s, with its ``_line``)."""
    verdict: Verdict
    """Its verdict (the same as the original's, at the same recorded event)."""
    original: list[int]
    """The original index of each event kept."""
    tries: int
    seconds: float
    minimal: bool
    """No single event can be removed (False when the time limit or an interruption stopped
    the search)."""
    interrupted: bool = False
    """Ctrl-C stopped the search: ``events`` are the smallest found so far, not minimal."""


class NotFailing(ValueError):
    """The trace is not rejected: there is no failing prefix to shrink."""


def shrink(
    events: list[Event] | list[dict[str, Any]],
    design: str,
    *,
    bounds: Bounds | None = None,
    seconds: float = 300.0,
    progress: Callable[[int, int], None] | None = None,
    verdict: Verdict | None = None,
) -> Shrunk:
    """Shrink a rejected trace (see the module docstring); ``progress(tries, events left)`` is
    called after every candidate; ``verdict``: the trace's own, if already known (else it is
    validated first). Raises ``NotFailing`` unless the trace is rejected. Ctrl-C
    (``KeyboardInterrupt``) while it shrinks ends it with what it has: the smallest failing
    events found so far, ``interrupted`` and not ``minimal``."""
    bounds = bounds or Bounds()
    t0 = time.monotonic()
    first = verdict or validate_events(events, design, bounds=bounds)
    if first.status != "rejected" or first.event is None:
        raise NotFailing(f"the trace is {first.headline()}: nothing fails to shrink")
    given = events
    events = events_of(events)  # read once: every candidate is a sublist of these
    target = first.event
    # A candidate's search ends where the original's would have, many times over, or it is
    # not the same failure (an exhausted search within a smaller budget is the same search).
    budget = min(bounds.max_nodes, max(NODES_FLOOR, NODES_FACTOR * first.nodes))
    small = replace(bounds, max_nodes=budget)
    state = _Search(events, design, small, first, t0 + seconds, progress)
    try:
        minimal = _ddmin(state, events, target)
        interrupted = False
    except KeyboardInterrupt:
        minimal, interrupted = False, True
    keep, best = state.found
    return Shrunk(
        events=[dict(given[i]) if isinstance(given[i], Event) else given[i] for i in keep],
        verdict=best,
        original=keep,
        tries=state.tries,
        seconds=time.monotonic() - t0,
        minimal=minimal,
        interrupted=interrupted,
    )


def _ddmin(state: _Search, events: list[Event], target: int) -> bool:
    """Shrink ``state.keep`` (steps 1 to 3 of the module docstring); whether the result is
    1-minimal. ``state.keep`` always holds the smallest failing events found so far."""
    keep = state.keep
    state.attempt(keep, [i for i in keep if i > target])
    for group in _groups(events, state.keep, target):
        kept = set(state.keep)
        state.attempt(state.keep, [i for i in group if i in kept])
    size = max(1, len(state.keep) // 4)
    while not state.out_of_time():
        removed = False
        end = len(state.keep)
        while end > 0 and not state.out_of_time():
            chunk = [i for i in state.keep[max(0, end - size) : end] if i != target]
            if chunk and state.attempt(state.keep, chunk) is not None:
                removed = True
            end -= size  # what is before the run is where it was
        if size == 1 and not removed:
            return not state.out_of_time()
        size = max(1, size // 2)
    return False


def _groups(events: list[Event], keep: list[int], target: int) -> list[list[int]]:
    """Events that often go together: a whole process, one kind of event of one process, one
    kind of event everywhere (never the failing event)."""
    by: dict[tuple[str, ...], list[int]] = {}
    for i in keep:
        if i == target:
            continue
        e = events[i]
        for key in ((e.proc,), (e.proc, e.name), ("", e.name)):
            by.setdefault(key, []).append(i)
    return [g for key, g in by.items() if len(g) > 1 or len(key) == 1]


class _Search:
    def __init__(
        self,
        events: list[Event],
        design: str,
        bounds: Bounds,
        verdict: Verdict,
        deadline: float,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.events = events
        self.design = design
        self.bounds = bounds
        self.target = verdict
        self.deadline = deadline
        self.progress = progress
        self.tries = 0
        self.found: tuple[list[int], Verdict] = (list(range(len(events))), verdict)
        """The smallest failing events found so far (indexes into ``events``) and their
        verdict, set together (one assignment: an interruption never finds them apart)."""

    @property
    def keep(self) -> list[int]:
        return self.found[0]

    @property
    def best(self) -> Verdict:
        return self.found[1]

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def attempt(self, keep: list[int], remove: list[int]) -> list[int] | None:
        """``keep`` without ``remove`` if the verdict stays the same, else None."""
        if not remove:
            return None
        gone = set(remove)
        candidate = [i for i in keep if i not in gone]
        v = validate_events([self.events[i] for i in candidate], self.design, bounds=self.bounds)
        self.tries += 1
        if self.progress is not None:
            self.progress(self.tries, len(candidate))
        same = (
            v.status == self.target.status
            and v.reason == self.target.reason
            and v.event is not None
            and candidate[v.event] == self.target.event
        )
        if not same:
            return None
        self.found = (candidate, v)
        return candidate
