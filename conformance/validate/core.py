"""Trace validation: is what a recorded run did, event by event, a behaviour the model allows?

``validate(trace)`` searches for a behaviour of the model that consumes every event of the trace
(the matching semantics, docs/validate.md):

* **Order.** Storage events (those with a zxid) are consumed in zxid order. An event without a
  zxid keeps only its place in its own process's order: it may be matched before or after any
  event of another process, so the verdict does not depend on how the merge broke ties.
* **Events.** An action event is matched by one model action, or by its declared composition
  (``mapping``); an observation is a check of the state it is matched in; context events are
  consumed as they come; an unmodelled event is listed and keeps the trace from being accepted.
* **Hidden steps.** Between two events, up to ``Bounds.hidden_depth`` model steps that no event
  records may run (the search is depth-first with memoisation of (position, state));
  environment steps that no event records (faults) are tried only after everything else.
* **Properties.** Every invariant is checked on every matched state and every step property on
  every step. A behaviour that breaks one is not extended: if no behaviour gets further without
  breaking a property, the trace is rejected with that property.

The model's configuration is derived from the trace (``derive_config``), large enough for every
server incarnation, peer, WAL, edit and fault it records, so no model budget ends a replay early.
The search itself has a node budget (``Bounds.max_nodes``); a trace it cannot decide within it is
``undecided``, never accepted.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replcheck.conformance.fromlog import agree as txnagree
from replcheck.conformance.fromlog import fill as txnfill
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.fromlog import zk as txntrace
from replcheck.conformance.hbase.names import MAX_SERVERS, Steps
from replcheck.conformance.trace.event import Event, EventError, events_of
from replcheck.conformance.trace.events import lane
from replcheck.conformance.trace.reader import Trace, TraceFault, cut_short, read_trace
from replcheck.conformance.validate.mapping import RULES, Candidate, Mapping, promote
from replcheck.model import DESIGNS, get_design
from replcheck.model.common.state import CATALOG, GLOBAL, LOCAL
from replcheck.model.config import Config
from replcheck.model.engine.action import Action
from replcheck.model.engine.model import Model
from replcheck.model.engine.text_model import NotCovered
from replcheck.model.render.draw import render_diff, render_state


@dataclass(frozen=True)
class Bounds:
    """The search's bounds (docs/validate.md): a verdict holds within them."""

    hidden_depth: int = 3
    """Model steps no event records, at most this many between two events."""
    max_nodes: int = 2_000_000
    """Search nodes per trace; past it the trace is undecided."""
    slack: float = 1.0
    """Seconds by which an event may be matched before another process's earlier-written event:
    from 0 to ``MAX_SLACK``."""
    reorder: int = 1
    """Between two advances of the earliest unmatched event, at most this many events may be
    matched ahead of one that fits earlier in the file."""
    lookahead: int = 48
    """While the earliest unmatched event waits, at most this many later events may be matched."""

    def __post_init__(self) -> None:
        problem = slack_problem(self.slack)
        if problem:
            raise ValueError(problem)


MAX_SLACK = 60.0
"""The largest ``Bounds.slack``, in seconds. The processes of a run share one machine's clock,
and a line stamped late (a paused process) is put back by what its lane and the zxids bound
(``Validator.effective_times``): the slack is what is left, a second or a few. A minute is far
beyond that; a slack past it bounds nothing in a run of a few minutes (and one of ``1e300``
swallows the timestamps it is added to), so it is not a slack but a different search."""


def slack_problem(slack: float) -> str | None:
    """Why ``slack`` is no ``Bounds.slack`` (one line naming the limit), or None."""
    if isinstance(slack, bool) or not isinstance(slack, int | float):
        return f"slack {slack!r}: not a number of seconds"
    if not 0 <= slack <= MAX_SLACK:  # NaN fails both comparisons
        return f"slack {slack}: must be from 0 to {MAX_SLACK:g} seconds"
    return None


FRONTIER_SAMPLES = 3


@dataclass
class Verdict:
    """What validation found for one trace. ``status`` is ``accepted``, ``rejected``,
    ``undecided`` or ``bad-input``; ``reason`` is ``divergence``, a property name, ``unmodelled``,
    ``no action event``, ``budget`` or the bad input's line."""

    path: str
    design: str
    status: str
    reason: str = ""
    event: int | None = None
    """Index (0-based, file order) of the event where the trace was rejected."""
    matched: int = 0
    """Events consumed by the longest matched prefix."""
    events: int = 0
    actions: int = 0
    hidden: int = 0
    """Hidden model steps in the behaviour found (accepted) or in the longest prefix."""
    nodes: int = 0
    seconds: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)
    unmodelled: list[dict[str, Any]] = field(default_factory=list)
    hidden_used: list[int] = field(default_factory=list)
    """Hidden steps taken before each matched action event, in the behaviour found."""
    frontier_sizes: list[int] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    behaviour: list[Action] = field(default_factory=list, repr=False, compare=False)
    """The model's actions in the behaviour found (accepted), or in the longest matched prefix
    (rejected, undecided by the budget), from ``model``'s initial state (``branch_cov``)."""
    model: Any = field(default=None, repr=False, compare=False)

    @property
    def accepted(self) -> bool:
        return self.status == "accepted"

    def headline(self) -> str:
        if self.status == "accepted":
            return "accepted"
        if self.status == "bad-input":
            return f"bad input: {self.reason}"
        if self.status == "undecided":
            return f"undecided: {self.reason}"
        where = f" at event {self.event}" if self.event is not None else ""
        return f"rejected: {self.reason}{where}"


# --- configuration --------------------------------------------------------------------------


def derive_config(design_name: str, events: list[Event], steps: Steps) -> Config:
    """The model's bounds from what the trace records: every server incarnation it names, every
    peer, the longest WAL sequence and WAL, and a budget for each kind of step at least as large
    as the number of times it happens."""
    servers = 1
    peers = 1
    seqs = 1
    sinks = 1
    count: dict[str, int] = {}
    faults: dict[str, int] = {}
    topology: set[tuple[int, int]] = set()
    died: dict[int, None] = {}
    entries: dict[tuple[int, int, int], int] = {}
    for e in events:
        a = e.args
        d = e.detail
        for k in ("server", "dead"):
            if isinstance(a.get(k), int) and a[k] >= 0:
                servers = max(servers, a[k] + 1)
        for t in a.get("targets") or []:
            servers = max(servers, t + 1)
        if isinstance(d.get("index"), int):
            servers = max(servers, d["index"] + 1)
        if isinstance(a.get("peer"), int):
            peers = max(peers, a["peer"] + 1)
        if isinstance(a.get("sink"), int):
            sinks = max(sinks, a["sink"] + 1)
        if isinstance(a.get("cluster"), int) and e.name in ("foreign_put", "relay_home"):
            topology.add((a["cluster"], 0))
        if isinstance(d.get("wal"), str):
            try:
                key = steps.parse_wal(d["wal"])
            except ValueError:
                key = None
            if key is not None:
                servers = max(servers, key[0] + 1)
                seqs = max(seqs, key[2] + 1)
                if e.name == "put" or (e.name == "sink_apply" and e.proc[:3] == "rs-"):
                    entries[key] = entries.get(key, 0) + 1
        if e.kind == "action":
            count[e.name] = count.get(e.name, 0) + 1
            if e.name == "crash" and isinstance(a.get("server"), int):
                died.setdefault(a["server"])
        if e.name == "fault":
            faults[d.get("fault", "")] = faults.get(d.get("fault", ""), 0) + 1
    if servers > MAX_SERVERS:
        raise TraceFault(
            f"the trace names {servers} servers; the model's names cover {MAX_SERVERS}"
        )
    for c, _ in topology:
        peers = max(peers, c)
    crashes = count.get("crash", 0) + sum(faults.get(k, 0) for k in ("kill", "pause", "expire"))
    admin = sum(count.get(k, 0) for k in ("add_peer", "remove_peer", "enable_peer", "disable_peer"))
    return Config(
        name="trace",
        servers=servers,
        peers=peers,
        initial_peers=0,
        wals_per_server=seqs + 1,
        edits_per_wal=max(entries.values(), default=1),
        # A WAL holds what the run wrote to it, and room for every edit relayed home: where
        # the search places one among the run's rolls is not pinned by the run.
        wal_entries=max(entries.values(), default=1) + count.get("relay_home", 0)
        if steps.era == "zk"
        else 0,
        death_order=tuple(died) if steps.era == "zk" else (),
        edits=count.get("put", 0),
        batch=1,
        crashes=crashes,
        sink_servers=sinks,
        sink_outages=count.get("sink_down", 0),
        admin_ops=admin,
        edit_kinds=(GLOBAL, LOCAL, CATALOG),
        topology=tuple(sorted(topology)),
        foreign_edits=count.get("foreign_put", 0),
        cleaner_runs=count.get("cleaner_start", 0) + count.get("clean", 0),
        master_restarts=faults.get("master-restart", 0),
        joins=servers,
        zombies=True,
        peer_toggles=steps.era == "table"
        and bool(count.get("disable_peer") or count.get("enable_peer")),
    )


def read_windows(events: list[Event], storage: list[int]) -> dict[int, tuple[int, int]]:
    """Events whose ``detail.read`` gives the zxids ``[lo, hi]`` their ZooKeeper reads were
    served between (the session's last reply before them and after them): the reads saw every
    write up to ``lo`` and none after ``hi``. Each maps to (how many storage events, in zxid
    order, precede it: those with zxid <= lo; the index of the first storage event it precedes:
    the first with zxid > hi)."""
    zxids = [events[n].zxid for n in storage]
    out = {}
    for n, e in enumerate(events):
        window = e.detail.get("read")
        if not (isinstance(window, list) and len(window) == 2):
            continue
        lo, hi = window
        if isinstance(lo, int) and isinstance(hi, int) and lo <= hi:
            out[n] = (bisect.bisect_right(zxids, lo), bisect.bisect_right(zxids, hi))
    return out


def acknowledged(events: list[Event], times: list[float]) -> Iterator[tuple[int, float]]:
    """(event, when its step happened) for each ``ship`` and ``relay_home`` whose receiver
    recorded the apply (``sink_apply``): the latest apply of one of its edits by that receiver,
    from that sender, no later than the sender's line. (An edit is applied again when a claimer
    ships it again: the claimer's apply is not the first sender's.)"""
    applies: dict[tuple[str, str], list[tuple[float, str | None]]] = {}
    for n, e in enumerate(events):
        if e.name == "sink_apply":
            d = e.detail
            for uid in d.get("uids") or []:
                applies.setdefault((e.proc, uid), []).append((times[n], d.get("source")))
    for n, e in enumerate(events):
        d = e.detail
        sender = e.proc[3:] if e.proc.startswith("rs-") else None
        if e.name == "ship" and isinstance(e.args.get("sink"), int):
            uids = d.get("uids") or []
            receivers = [p for p in {k[0] for k in applies} if p.startswith("sink-")]
        elif e.name == "relay_home" and isinstance(d.get("target"), str):
            uids, sender = [d.get("uid")], None
            receivers = [f"rs-{d['target']}"]
        else:
            continue
        best = None
        for proc in receivers:
            for uid in uids:
                for t, source in applies.get((proc, uid), ()):
                    if source is not None and sender is not None and source != sender:
                        continue
                    if t <= times[n] and (best is None or t > best):
                        best = t
        if best is not None:
            yield n, best


# --- the search -------------------------------------------------------------------------------


Move = tuple[int | None, tuple[Action, ...]]
"""A step of the search: (the event matched, or None for a hidden step; the model actions)."""


class _Node:
    __slots__ = ("ahead", "consumed", "cursors", "fr", "h", "k", "parent", "r", "st", "step")

    def __init__(self, cursors, k, st, h, consumed, parent, step, r=0) -> None:
        self.cursors: tuple[int, ...] = cursors
        self.k: int = k
        self.st = st
        self.h: int = h
        self.consumed: int = consumed
        self.parent: _Node | None = parent
        self.step: Move = step
        self.r: int = r
        """Reorderings left: matches of an event other than the first that fits."""
        self.ahead: int = 0
        """Events matched since the earliest unmatched event last changed."""
        self.fr: int = -1
        """``Validator.front`` of the node, once computed."""


class Validator:
    """The search over one trace (see the module docstring)."""

    def __init__(
        self,
        events: list[Event] | list[dict[str, Any]],
        design_name: str,
        *,
        bounds: Bounds = Bounds(),
        cfg: Config | None = None,
        storage: dict[int, Any] | None = None,
        widest_early: bool = False,
        engine: type[Model] | None = None,
    ) -> None:
        self.bounds = bounds
        self.widest_early = widest_early
        """Rank a step at its reads whose window only its lane bounds (``widest``) by that
        window's start too (the second search of ``validate_events``)."""
        self.storage_at = storage or {}
        """Log-only validation (``txntrace``): storage event -> the queues its transaction left,
        which the model's must equal after its step."""
        self.storage_misfits: dict[int, tuple[Any, Any]] = {}
        self.held: dict[Any, str | None] = {}
        """The first invariant each state breaks (None: none), by the state's value."""
        self.design = get_design(design_name)
        self.events = events = promote(events_of(events), self.design)
        self.steps = Steps.for_model(self.design)
        self.cfg = cfg or derive_config(design_name, events, self.steps)
        self.model = (engine or Model)(self.design, self.cfg)
        """The design's model (``engine``: a chosen one, such as the plain interpreter of the
        text, ``model/engine/plain.py``)."""
        self.mapping = Mapping(self.model, events, log_only=storage is not None)
        self.roles = [self.mapping.role(e) for e in events]
        procs: dict[tuple[str, ...], list[int]] = {}
        for n, e in enumerate(events):
            procs.setdefault(lane(e), []).append(n)
        self.proc_events = list(procs.values())
        self.proc_of = {}
        self.lane_pos = {}
        """Event -> its place in its lane."""
        for p, idx in enumerate(self.proc_events):
            for i, n in enumerate(idx):
                self.proc_of[n] = p
                self.lane_pos[n] = i
        self.storage = [n for n, e in enumerate(events) if e.zxid is not None]
        self.storage_at = {n: q for n, q in self.storage_at.items() if n in set(self.storage)}
        self.reads = read_windows(events, self.storage)
        """Reads whose zxid window the event records: event -> (storage events that must be
        matched before it, storage index it must be matched before)."""
        self.storage_waits = self.waits_for_reads()
        self.times = self.effective_times(events)
        self.earliest = {
            n: self.times[self.storage[k - 1]]
            for n, (k, _before) in self.reads.items()
            if k > 0
            and "write" in events[n].detail
            and (widest_early or not events[n].detail.get("widest"))
        }
        """A step taken at its reads (``mapping.at_reads``), whose reads' window was recorded ->
        the time of the last write its reads saw: the step happened no earlier, however late its
        line was written (reads that waited out a leader election). A window only its lane
        bounds (``widest``) says nothing of when the reads were served."""
        self.order = sorted(
            range(len(events)), key=lambda n: (self.earliest.get(n, self.times[n]), n)
        )
        """The events by when they happened at the latest (ties in file order): an order that
        keeps every lane's and the zxids' (``effective_times``), unlike a merge that had to
        place a paused process's late-stamped lines. A step at its reads is placed by the
        last write its reads saw (``earliest``): where its reads began, not where its line was
        written."""
        self.rank = [0] * len(events)
        for i, n in enumerate(self.order):
            self.rank[n] = i
        self.nodes = 0
        self.best: list[_Node] = []
        self.best_consumed = -1
        self.best_front = len(events)
        self.violations: list[tuple[int, str, Any, Any, tuple[Action, ...], _Node]] = []
        self.misfits: dict[int, int] = {}
        self.overflows = 0
        """Steps the search could not follow because their state did not fit the layout
        (``NotCovered``)."""

    def effective_times(self, events: list[Event]) -> list[float]:
        """When each event happened at the latest. A line's timestamp is taken after the step:
        a process paused between a storage write and its line stamps it seconds late. But a
        step happened before every later step of its lane and, for a storage write, before
        every write with a larger zxid, and before every read that saw it (whose zxid window
        starts at or past it): its time is at most theirs (the minimum over what follows it in
        those orders). A batch or a relayed edit is stamped when its sender
        hears back; its step is the receiver's apply, stamped by the receiver
        (``acknowledged``)."""
        times = [e.t for e in events]
        for n, applied in acknowledged(events, times):
            times[n] = min(times[n], applied)
        # A read was served before the first write past its window (``read_windows``), and
        # after every write up to its window's start, which it saw; bounding one can bound its
        # lane's earlier steps and writes again: a few passes settle it.
        for _ in range(3 if self.reads else 1):
            for n, (_k, before) in self.reads.items():
                if before < len(self.storage):
                    times[n] = min(times[n], times[self.storage[before]])
            seen_by = [float("inf")] * (len(self.storage) + 1)
            for n, (k, _before) in self.reads.items():
                seen_by[k] = min(seen_by[k], times[n])
            latest = float("inf")
            for j in range(len(self.storage) - 1, -1, -1):
                latest = min(latest, seen_by[j + 1])
                times[self.storage[j]] = min(times[self.storage[j]], latest)
            next_in_lane: dict[int, float] = {}
            after_storage = float("inf")
            for n in range(len(events) - 1, -1, -1):
                p = self.proc_of[n]
                t = min(times[n], next_in_lane.get(p, float("inf")))
                if events[n].zxid is not None:
                    t = min(t, after_storage)
                    after_storage = t
                times[n] = next_in_lane[p] = t
        return times

    def waits_for_reads(self) -> list[tuple[tuple[int, int], ...]]:
        """Per storage event (in zxid order), the lane cursors it waits for: every read whose
        window closed before its zxid is matched first."""
        by_before: dict[int, list[int]] = {}
        for n, (_k, before) in self.reads.items():
            by_before.setdefault(before, []).append(n)
        need: dict[int, int] = {}
        out: list[tuple[tuple[int, int], ...]] = []
        for k in range(len(self.storage)):
            for n in by_before.get(k, ()):
                p = self.proc_of[n]
                need[p] = max(need.get(p, 0), self.lane_pos[n] + 1)
            out.append(tuple(need.items()))
        return out

    # --- readiness ----------------------------------------------------------------------------

    def ready(self, node: _Node) -> Iterator[int]:
        """Events that may be matched next, in file order: the head of a lane, if it is not a
        storage event or it is the next storage event, and it was written no more than ``slack``
        seconds after the earliest unmatched event (the processes share one clock; a step at its
        reads may have happened as early as the last write its reads saw: ``earliest``)."""
        heads = []
        for p, idx in enumerate(self.proc_events):
            c = node.cursors[p]
            if c < len(idx):
                heads.append(idx[c])
        if not heads:
            return iter(())
        nxt_storage = self.storage[node.k] if node.k < len(self.storage) else None
        if nxt_storage is not None:
            waits = self.storage_waits[node.k]
            if any(node.cursors[p] < c for p, c in waits):
                nxt_storage = None  # a read served before this write is not matched yet
        horizon = min(self.times[n] for n in heads) + self.bounds.slack
        reads = self.reads
        earliest = self.earliest
        out = [
            n
            for n in heads
            if (self.events[n].zxid is None or n == nxt_storage)
            and min(self.times[n], earliest.get(n, self.times[n])) <= horizon
            and (n not in reads or node.k >= reads[n][0])
        ]
        out.sort(key=self.rank.__getitem__)
        return iter(out)

    def advance(self, node: _Node, n: int) -> tuple[tuple[int, ...], int]:
        p = self.proc_of[n]
        cursors = (*node.cursors[:p], node.cursors[p] + 1, *node.cursors[p + 1 :])
        k = node.k + (1 if self.events[n].zxid is not None else 0)
        return cursors, k

    # --- steps --------------------------------------------------------------------------------

    def enabled(self, st: Any, action: Action) -> bool:
        return self.model.is_enabled(st, action)

    def run_steps(
        self, st: Any, actions: tuple[Action, ...]
    ) -> list[tuple[Any, Action, Any]] | None:
        """Run a sequence of actions: each step as (state before, action, state after); None if
        some action is not enabled."""
        path = []
        for a in actions:
            if not self.enabled(st, a):
                return None
            try:
                nxt = self.model.step(st, a)
            except NotCovered:
                # The layout sized from the trace cannot hold this step's state: this
                # behaviour is not followed, and a rejection is then not a verdict.
                self.overflows += 1
                return None
            path.append((st, a, nxt))
            st = nxt
        return path

    def first_broken(
        self, path: list[tuple[Any, Action, Any]]
    ) -> tuple[str, Any, Any, Action] | None:
        """The first step of ``path`` that breaks a property: (the property, the state before,
        the state after, the action); None if every step keeps every property."""
        for before, a, after in path:
            broken = self.judge(before, after)
            if broken is not None:
                return broken, before, after, a
        return None

    def apply(
        self, st: Any, actions: tuple[Action, ...]
    ) -> tuple[Any, str | None, Any, Action | None]:
        """Run a sequence of actions: (state after, broken property or None, state before the
        breaking step, the breaking action); state None if some action is not enabled."""
        path = self.run_steps(st, actions)
        if path is None:
            return None, None, None, None
        bad = self.first_broken(path)
        if bad is not None:
            broken, before, after, a = bad
            return after, broken, before, a
        return (path[-1][2] if path else st), None, None, None

    def judge(self, st: Any, nxt: Any) -> str | None:
        """The first step property the step from ``st`` to ``nxt`` breaks, else the first
        invariant ``nxt`` breaks, else None. The invariants' verdict is remembered by the
        state's value: a search that backtracks reaches one state through many candidates and
        orders (an invariant is a function of the state alone)."""
        for prop in self.model.step_properties:
            if not prop.check(self.cfg, st, nxt):
                return prop.name
        held = self.held
        got = held.get(nxt, held)
        if got is held:
            got = next((p.name for p in self.model.invariants if not p.check(self.cfg, nxt)), None)
            if len(held) >= 1 << 14:
                held.clear()
            held[nxt] = got
        return got  # type: ignore[return-value]

    def children(self, node: _Node) -> Iterator[_Node]:
        """The search's successors of a node."""
        ready = list(self.ready(node))
        # Events that change nothing in the model go at once: context, unmodelled, and
        # observations that hold (matching them first never blocks another event).
        for n in ready:
            role = self.roles[n]
            if role in ("context", "unmodelled") or (
                role == "observation" and self.observe(n, node.st) is None
            ):
                cursors, k = self.advance(node, n)
                # It keeps the node's reorderings: a line that changes nothing spends none.
                yield self.fresh(
                    node,
                    _Node(
                        cursors,
                        k,
                        node.st,
                        self.bounds.hidden_depth,
                        node.consumed + 1,
                        node,
                        (n, ()),
                        node.r,
                    ),
                )
                return
        front = self.front(node)
        first: int | None = None
        for move, st in self.moves(node, ready):
            n = move[0]
            if n is None:
                yield _Node(node.cursors, node.k, st, node.h - 1, node.consumed, node, move, node.r)
                continue
            # The first event that fits is matched at no cost, in each way it fits; matching
            # another one first is a reordering (out of ``reorder``), tried only near where the
            # trace stopped fitting.
            if first is None or n == first:
                first = n
                r = node.r
            elif self.near_failure(front):
                r = node.r - 1
            else:
                continue
            if r < 0 or node.ahead >= self.bounds.lookahead:
                continue
            cursors, k = self.advance(node, n)
            yield self.fresh(
                node,
                _Node(cursors, k, st, self.bounds.hidden_depth, node.consumed + 1, node, move, r),
            )

    def near_failure(self, front: int) -> bool:
        """Reorderings are local: they are tried at a point only when the furthest point any
        behaviour has matched to is within ``slack`` seconds of it (the trace stopped fitting
        there, or nowhere yet)."""
        if self.best_front >= len(self.events) or front >= len(self.events):
            return True
        best, here = self.order[self.best_front], self.order[front]
        return self.times[best] <= self.times[here] + self.bounds.slack

    def fresh(self, parent: _Node, child: _Node) -> _Node:
        """A child that matched the earliest unmatched event gets its reorderings back, unless
        it is going over ground a behaviour already covered further (then a reordering is spent
        once for the whole stretch: that bounds the retries where a trace stops fitting)."""
        front = self.front(child)
        if front > self.front(parent):
            if front >= self.best_front:
                child.r = self.bounds.reorder
        else:
            child.ahead = parent.ahead + 1
        return child

    def front(self, node: _Node) -> int:
        """The rank (``order``) of the earliest event a node has not matched."""
        if node.fr >= 0:
            return node.fr
        first = len(self.events)
        for p, idx in enumerate(self.proc_events):
            c = node.cursors[p]
            if c < len(idx) and self.rank[idx[c]] < first:
                first = self.rank[idx[c]]
        node.fr = first
        return first

    def moves(self, node: _Node, ready: list[int]) -> Iterator[tuple[Move, Any]]:
        """The moves possible from a node, with the states they reach: ready action events in
        file order, then hidden steps, then unrecorded faults."""
        for n in ready:
            if self.roles[n] != "action":
                continue
            fitted = False
            try:
                cands = list(self.mapping.candidates(n, self.events[n], node.st))
            except NotCovered:  # a composed step the mapping took does not fit the layout
                self.overflows += 1
                cands = []
            for cand in cands:
                st = self.take(node, n, cand)
                if st is not None:
                    fitted = True
                    yield (n, cand.actions), st
            if not fitted:
                self.misfits[n] = self.misfits.get(n, 0) + 1
        if node.h <= 0:
            return
        for names in (self.mapping.hidden, self.mapping.faults):
            for name in names:
                for args in self.model.enabled_args(node.st, name):
                    a = Action(name, args)
                    st, broken, before, bad = self.apply(node.st, (a,))
                    if broken:
                        self.violations.append((None, broken, before, st, (bad,), node))
                        continue
                    yield (None, (a,)), st

    def take(self, node: _Node, n: int, cand: Candidate) -> Any:
        """The state after matching event ``n`` with ``cand``, or None. The properties are
        judged only on a behaviour that matches the event (what it says of the state after,
        and the queues a log-only trace records): a candidate the event rules out breaks
        nothing the run did."""
        path = self.run_steps(node.st, cand.actions)
        if path is None:
            return None
        st = path[-1][2] if path else node.st
        if cand.expect is not None and cand.expect(node.st, st) is not None:
            return None
        if n in self.storage_at:
            got = txntrace.model_storage(st)
            if not txntrace.storage_fits(got, self.storage_at[n]):
                self.storage_misfits.setdefault(n, (got, self.storage_at[n]))
                return None
        bad = self.first_broken(path)
        if bad is not None:
            broken, before, after, a = bad
            self.violations.append((n, broken, before, after, (a,), node))
            return None
        return st

    def observe(self, n: int, st: Any) -> str | None:
        e = self.events[n]
        return RULES[e.name].observe(self.mapping, e, st)

    # --- driver -------------------------------------------------------------------------------

    def run(self, deadline: float | None = None) -> tuple[str, _Node | None]:
        """``accepted`` with the final node, ``exhausted`` (no behaviour matches), or
        ``budget``."""
        total = len(self.events)
        root = _Node(
            (0,) * len(self.proc_events),
            0,
            self.model.init(),
            self.bounds.hidden_depth,
            0,
            None,
            (None, ()),
            self.bounds.reorder,
        )
        seen: dict[tuple, tuple[int, int]] = {}
        stack = [(root, self.children(root))]
        self.note(root)
        while stack:
            gen = stack[-1][1]
            child = next(gen, None)
            if child is None:
                stack.pop()
                continue
            self.nodes += 1
            if self.nodes > self.bounds.max_nodes or (
                deadline is not None and self.nodes % 1024 == 0 and time.monotonic() > deadline
            ):
                return "budget", None
            if child.consumed == total:
                return "accepted", child
            key = (child.cursors, child.st)
            old = seen.get(key)
            if old is not None and old[0] >= child.h and old[1] >= child.r:
                continue
            seen[key] = (max(child.h, old[0]), max(child.r, old[1])) if old else (child.h, child.r)
            self.note(child)
            stack.append((child, self.children(child)))
        return "exhausted", None

    def note(self, node: _Node) -> None:
        if node.consumed > self.best_consumed:
            self.best_consumed = node.consumed
            self.best = [node]
            self.best_front = self.front(node)
        elif node.consumed == self.best_consumed and len(self.best) < 10_000:
            self.best.append(node)


# --- reports ------------------------------------------------------------------------------------


def path_of(node: _Node | None) -> list[tuple[int | None, tuple[Action, ...]]]:
    out = []
    while node is not None and node.parent is not None:
        out.append(node.step)
        node = node.parent
    out.reverse()
    return out


def _hidden_stats(steps: list[tuple[int | None, tuple[Action, ...]]]) -> tuple[int, list[int]]:
    hidden = 0
    per_event: list[int] = []
    run = 0
    for n, _actions in steps:
        if n is None:
            hidden += 1
            run += 1
        else:
            per_event.append(run)
            run = 0
    return hidden, per_event


def validate_events(
    events: list[Event] | list[dict[str, Any]],
    design: str,
    *,
    path: str = "",
    bounds: Bounds = Bounds(),
    cfg: Config | None = None,
    seconds: float | None = None,
    storage: dict[int, Any] | None = None,
    engine: type[Model] | None = None,
) -> Verdict:
    """Validate already-read events (see the module docstring): ``Event`` values, or the JSON
    objects of events, each read here as one (an object that is not one is bad input naming its
    ``_line``, or its place); ``storage``: the events are a
    ZooKeeper log's alone (``txntrace``), with the queues after each storage event; ``engine``:
    the model to hold them to, if not the design's default."""
    t0 = time.monotonic()
    try:
        events = events_of(events)
    except EventError as exc:  # a plain object handed in that is not an event
        reason = f"{path}:{str(exc).removeprefix('line ')}"
        return Verdict(path=path, design=design, status="bad-input", reason=reason)
    actions = sum(1 for e in events if e.kind == "action")
    v = Verdict(path=path, design=design, status="undecided", events=len(events), actions=actions)
    if not events:
        v.reason = "no event: nothing to hold against the model"
        return v
    try:
        val = Validator(events, design, bounds=bounds, cfg=cfg, storage=storage, engine=engine)
    except TraceFault as exc:
        text = str(exc)
        where = f"{path}:{text.removeprefix('line ')}" if text.startswith("line ") else None
        v.status, v.reason = "bad-input", where or f"{path}: {text}"
        return v
    except ValueError as exc:  # the derived configuration is beyond the model's bounds
        v.status, v.reason = "undecided", f"the model cannot hold this trace: {exc}"
        return v
    v.config = val.cfg.to_dict()
    events = val.events
    v.unmodelled = [
        {"event": n, "line": events[n].line, "why": val.mapping.why_unmodelled(events[n])}
        for n, r in enumerate(val.roles)
        if r == "unmodelled"
    ]
    deadline = None if seconds is None else t0 + seconds
    try:
        outcome, final = val.run(deadline)
        if outcome == "exhausted" and any(e.detail.get("widest") for e in events):
            # A step at its reads whose reads' window is not recorded (a ZooKeeper log's) may
            # have read anywhere in its lane's window: search again with it ranked by the
            # window's start; the first search's rejection stands if this one fails too.
            again = Validator(
                val.events,
                design,
                bounds=bounds,
                cfg=val.cfg,
                storage=storage,
                widest_early=True,
                engine=engine,
            )
            again.held = val.held  # the same invariants, by value
            got = again.run(deadline)
            if got[0] == "accepted":
                val, (outcome, final) = again, got
    except NotCovered as exc:
        v.status = "undecided"
        v.reason = f"the model's layout for this trace cannot hold a step: {exc}"
        v.nodes, v.seconds = val.nodes, time.monotonic() - t0
        return v
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        # An event whose facts the mapping cannot read: said, never a traceback or a pass.
        v.status = "undecided"
        v.reason = f"the mapping could not read an event ({type(exc).__name__}: {exc})"
        v.nodes, v.seconds = val.nodes, time.monotonic() - t0
        return v
    v.nodes = val.nodes
    v.seconds = time.monotonic() - t0
    v.model = val.model
    if outcome == "accepted":
        steps = path_of(final)
        v.behaviour = [a for _n, acts in steps for a in acts]
        v.matched = len(events)
        v.hidden, v.hidden_used = _hidden_stats(steps)
        if not actions:
            v.status, v.reason = "undecided", "no action event: nothing to hold against the model"
        elif v.unmodelled:
            v.status = "undecided"
            v.reason = f"unmodelled: {len(v.unmodelled)} events have no model counterpart"
        else:
            v.status = "accepted"
        return v
    if val.best:  # the longest matched prefix's behaviour
        v.behaviour = [a for _n, acts in path_of(val.best[0]) for a in acts]
    if outcome == "budget":
        v.status = "undecided"
        v.reason = f"budget: the search stopped after {val.nodes} nodes"
        v.matched = max(val.best_consumed, 0)
        describe_prefix(val, v)
        return v
    report_rejection(val, v)
    if val.overflows:
        v.detail["overflows"] = val.overflows
        v.status = "undecided"
        where = f" at event {v.event}" if v.event is not None else ""
        v.reason = (
            f"the behaviours tried are rejected ({v.reason}{where}), but {val.overflows} steps "
            "did not fit the layout sized from the trace, so not every behaviour was tried"
        )
        return v
    if v.reason == "divergence" and v.event in val.storage_misfits:
        model, real = val.storage_misfits[v.event]
        v.detail["storage_misfit"] = txntrace.storage_diff(model, real)
    if v.reason == "divergence" and v.unmodelled:
        # Events the model has no counterpart for may be what it cannot follow: not a verdict.
        v.status = "undecided"
        v.reason = (
            f"unmodelled: {len(v.unmodelled)} events have no model counterpart, and the trace "
            f"stops fitting at event {v.event}"
        )
    return v


def report_rejection(val: Validator, v: Verdict) -> None:
    cfg = val.cfg
    v.status = "rejected"
    v.matched = val.best_consumed
    best = val.best
    v.frontier_sizes = [len({b.st for b in best})]
    deepest = max((viol[5].consumed for viol in val.violations), default=-1)
    if val.violations and deepest >= val.best_consumed - 1:
        n, prop, before, after, bad, node = max(val.violations, key=lambda x: x[5].consumed)
        v.reason = prop
        v.event = n if n is not None else _next_event(val, node)
        v.detail = {
            "action": str(bad[0]),
            "hidden": n is None,
            "before": render_state(cfg, before),
            "after": render_state(cfg, after),
            "diff": render_diff(cfg, before, after),
        }
        _where(val, v)
        return
    v.reason = "divergence"
    describe_prefix(val, v)


def describe_prefix(val: Validator, v: Verdict) -> None:
    """The longest matched prefix, the event after it, and the frontier of candidate states."""
    cfg = val.cfg
    best = val.best
    node = best[0]
    n = _next_event(val, node)
    v.event = n
    samples = []
    seen_states = set()
    for b in best:
        if b.st in seen_states:
            continue
        seen_states.add(b.st)
        if len(samples) >= FRONTIER_SAMPLES:
            continue
        samples.append(_frontier_sample(val, b, n))
    v.detail = {
        "frontier": len(seen_states),
        "samples": samples,
        "before": render_state(cfg, node.st),
    }
    _where(val, v)
    v.hidden, _ = _hidden_stats(path_of(node))


def _where(val: Validator, v: Verdict) -> None:
    if v.event is None:
        return
    e = val.events[v.event]
    v.detail["event_line"] = e.line
    v.detail["event_text"] = _event_text(e)
    v.detail["proc"] = e.proc
    v.detail["zxid"] = e.zxid
    if val.best:
        rank = val.rank[_next_event(val, val.best[0])]
        if rank > 0:
            last = val.order[rank - 1]
            le = val.events[last]
            v.detail["last_matched"] = {
                "event": last,
                "line": le.line,
                "proc": le.proc,
                "zxid": le.zxid,
                "text": _event_text(le),
            }


def _next_event(val: Validator, node: _Node) -> int:
    """The earliest event (``Validator.order``) the node has not consumed."""
    rank = val.front(node)
    return val.order[rank] if rank < len(val.events) else len(val.events) - 1


def _event_text(e: Event) -> str:
    args = ", ".join(f"{k}={v}" for k, v in e.args.items())
    z = f" zxid {e.zxid:#x}" if e.zxid is not None else ""
    return f"{e.kind} {e.name}({args}) by {e.proc}{z}"


def _frontier_sample(val: Validator, node: _Node, n: int) -> dict[str, Any]:
    """One candidate state at the longest prefix: what the model allowed, and how close it came
    to the event that did not fit."""
    e = val.events[n]
    role = val.roles[n]
    enabled = [str(a) for a in val.model.enabled(node.st)]
    out: dict[str, Any] = {"enabled": enabled[:40], "enabled_count": len(enabled)}
    if role == "observation":
        out["observation"] = val.observe(n, node.st)
        return out
    if role != "action":
        return out
    wanted = []
    for cand in val.mapping.candidates(n, e, node.st):
        wanted.append(" ; ".join(str(a) for a in cand.actions))
        missing = None
        st = node.st
        for a in cand.actions:
            if not val.enabled(st, a):
                missing = a
                break
            try:
                st = val.model.step(st, a)
            except NotCovered:
                out.setdefault("does_not_fit", str(a))
                break
        if missing is None and cand.expect is not None and "does_not_fit" not in out:
            out.setdefault("disagrees", cand.expect(node.st, st))
        if missing is not None:
            same = [str(a) for a in val.model.enabled(node.st) if a.name == missing.name]
            out.setdefault("closest", same[:10])
            out.setdefault("not_enabled", str(missing))
            out.setdefault("guard", _guard(val, node.st, missing))
    out["wanted"] = wanted or [f"no model action: the {e.name} event names nothing in this state"]
    return out


def _guard(val: Validator, st: Any, a: Action) -> str:
    """Why an action is not enabled, as far as the model's guards of its kind say."""
    args = sorted(set(val.model.enabled_args(st, a.name)))
    if not args:
        return f"no {a.name} action is enabled in this state"
    return f"only {', '.join(str(Action(a.name, x)) for x in args[:8])} enabled"


# --- files --------------------------------------------------------------------------------------


def _hold_against_txn_log(v: Verdict, agree: txnagree.Agreement, events: list[Any]) -> None:
    """Say how the trace agrees with its run's transaction logs (``txnagree``); a step whose zxid
    is not the write it records rejects the run there (``txn_log_agreement``), unless the run was
    already rejected at an earlier event."""
    v.detail["txn_log_checked"] = [agree.in_full, agree.checked - agree.unverified]
    if agree.unverified:
        v.detail["txn_log_unverified"] = agree.unverified
    if not agree.problems:
        return
    v.detail["txn_log_problems"] = agree.as_dict()["problems"]
    n, what = agree.problems[0]
    if v.status == "rejected" and v.event is not None and v.event < n:
        return
    e = events[n]
    v.status, v.reason, v.event = "rejected", "txn_log_agreement", n
    v.detail.update(
        event_line=e.line,
        event_text=_event_text(e),
        txn_log=f"the ZooKeeper txn log disagrees with it: {what}",
    )


def validate_path(
    path: Path,
    *,
    design: str | None = None,
    bounds: Bounds = Bounds(),
    seconds: float | None = None,
    engine: type[Model] | None = None,
) -> Verdict:
    """Read and validate one trace file or run folder. Bad input is a ``bad-input`` verdict
    whose reason names the file and line; the valid prefix is still validated and reported in
    ``detail['prefix']``. ``engine``: the model, if not the design's default."""
    try:
        trace: Trace = read_trace(path, design)
    except TraceFault as exc:
        return Verdict(path=str(path), design=design or "?", status="bad-input", reason=str(exc))
    name = design or trace.design
    if name is None:
        why = trace.fault or f"{trace.path}: no event names its design; give --design"
        return Verdict(path=str(trace.path), design="?", status="bad-input", reason=why)
    events, filled, windows = trace.events, 0, 0
    run = Path(trace.path).parent
    agree = None
    if name in DESIGNS and (run / "zk-txnlog").is_dir():
        damaged: list[str] = []
        try:
            committed = txnread.committed(txnread.logs(run), txnread.chroot(run), damaged)
        except txnread.TxnLogDamaged as exc:  # the run's txn logs or zk-chroot: bad input
            return Verdict(path=str(path), design=name, status="bad-input", reason=str(exc))
        agree = txnagree.agreement(events, run, committed, complete=not damaged)
        events, filled, windows = txnfill.fill(events, run, committed)
    events, edits = txnfill.lost_writes(events)
    v = validate_events(
        events,
        name,
        path=str(trace.path),
        bounds=bounds,
        seconds=seconds,
        engine=engine,
    )
    if filled:
        v.detail["from_txn_log"] = filled
    if windows:
        v.detail["crashes_from_txn_log"] = windows
    if edits:
        v.detail["writes_from_later_lines"] = edits
    if agree is not None:
        _hold_against_txn_log(v, agree, trace.events)
    hold_whole(v, trace)
    return v


def hold_whole(v: Verdict, trace: Trace) -> None:
    """What ``v``, the verdict of the events ``trace`` holds, is of the trace as a file: bad
    input if the file has a fault (the valid prefix's verdict kept in ``detail['prefix']``);
    undecided if it may have been cut at a line boundary (``reader.cut_short``: no ``run_end``),
    whatever its events got, since what was cut off may be what makes them fit (or what breaks
    a property): the verdict of the events it holds is kept in ``detail['prefix']`` too."""
    if trace.fault is not None:
        prefix = v.headline()
        v.detail["prefix"] = f"the {len(trace.events)} events before it: {prefix}"
        v.status, v.reason = "bad-input", trace.fault
        return
    cut = cut_short(trace)
    if cut is None or v.status in ("bad-input", "undecided"):
        return
    v.detail["prefix"] = f"the {len(trace.events)} events it holds: {v.headline()}"
    if v.status == "rejected":
        v.detail["prefix_reason"] = v.reason
    v.status, v.reason = "undecided", f"incomplete: {cut}"


def validate_log(
    path: Path,
    design: str = "zk-multi",
    *,
    bounds: Bounds = Bounds(),
    seconds: float | None = None,
    engine: type[Model] | None = None,
) -> Verdict:
    """Validate a run from its ZooKeeper transaction logs alone (``txntrace``): ``path`` is a run
    folder or a ZooKeeper data directory; ``engine`` as ``validate_path``'s."""
    try:
        steps = Steps.for_model(get_design(design))
    except ValueError as exc:
        return Verdict(path=str(path), design=design, status="bad-input", reason=str(exc))
    if not path.is_dir():
        return Verdict(
            path=str(path), design=design, status="bad-input", reason=f"{path}: not a directory"
        )
    try:
        log = txntrace.log_trace(path, design, steps)
    except txntrace.LogTraceError as exc:
        return Verdict(path=str(path), design=design, status="bad-input", reason=str(exc))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        # a write the converter cannot read (a name or a value of another shape): said, never
        # a traceback or a pass
        reason = f"{path}: a write cannot be read as a step ({type(exc).__name__}: {exc})"
        return Verdict(path=str(path), design=design, status="bad-input", reason=reason)
    v = validate_events(
        log.events,
        design,
        path=str(path),
        bounds=bounds,
        seconds=seconds,
        storage=log.storage,
        engine=engine,
    )
    v.detail["zk_logs"] = {"transactions": log.transactions, "events": len(log.events)}
    if log.names:
        v.detail["zk_logs"]["names"] = log.names
    if log.damaged:
        v.detail["zk_logs"]["damaged"] = log.damaged
        if v.status == "accepted":
            v.status, v.reason = "bad-input", log.damaged[0]
    return v
