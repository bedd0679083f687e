"""Trace events to model actions, written once for the three designs the reference cluster runs.

The mapping is one table, ``RULES``: one ``EventRule`` per event kind (an ``action`` event's
name, or a ``meta`` record's), saying which model action the event is, each of its parameters
and where the value comes from, and the parts of the matching that are procedures (a search
for a source by its queue, the steps of a peer procedure's stage, a zombie's step), each a
function the entry names. ``docs/validate.md`` prints the table (``table_markdown``). The model
steps that no event records are listed apart (``NOT_RECORDED``, ``UNRECORDED``).

Every event of a trace has one role:

* **action**: a step of the model. It maps to the action its entry names (or a declared
  composition of them), whose arguments come from the event's ``args`` in the model's
  convention, except where the cluster names a thing the model numbers differently (a
  parameter with a ``find``, ``RESOLVED``): a source (``shipper``), a dead server's queue
  (``queue``) or a claim child (``child``) is found in the model's state by the real name the
  event carries (queue id, row key);
* **observation**: a ``meta`` event that states a fact the model's state must agree with when it
  is matched (the entry's ``observe``): an edit a sink applied, a WAL the cleaner deleted, a
  server that found itself fenced (a design that deletes a cleaner run's WALs one by one,
  zk-multi, has the deletion as its step ``cleaner_delete_wal``);
* **context**: a ``meta`` event that says nothing the model has a notion of (each entry says
  why);
* **unmodelled**: a step the cluster took that its design has no action for. The validator lists
  them; a trace with one is never accepted.

``Resolver`` precomputes, once per trace, what the events name: the model key of every WAL file
name, the model identity of every edit uid, and each process's source numbers with their queues.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

from replcheck.conformance.fromlog.procs import PHASE_OF_STAGE, peer_phase
from replcheck.conformance.hbase.names import Steps, server_index
from replcheck.conformance.trace.event import Event
from replcheck.conformance.trace.reader import TraceFault
from replcheck.model.common import rules
from replcheck.model.common.rules import queue_wal_keys
from replcheck.model.common.state import ARCHIVED, DELETED, DELETING, LOCAL, REMOVED, WalKey
from replcheck.model.config import Config
from replcheck.model.engine.action import Action
from replcheck.model.engine.design import Design
from replcheck.model.engine.model import Model
from replcheck.model.table.state import (
    ADD,
    AP_REFRESH,
    C_READY,
    FULL,
    NO_SOURCE,
    RP_REFRESH,
    SCP_SPLIT,
)

ROLES = ("action", "observation", "context", "unmodelled")


@dataclass(frozen=True)
class Param:
    """One parameter of an entry's model action, and where its value comes from."""

    name: str
    """The model's parameter name (``replcheck list --steps``)."""
    source: str = ""
    """Where the value comes from, for the reader (``args.<name>`` when not said)."""
    find: str | None = None
    """A ``RESOLVED`` search: the values the event's real name stands for in the model's state
    (several, when the model has several matching things; none, and the event does not fit)."""

    @property
    def where(self) -> str:
        return self.source or f"args.{self.name}"


def args(*names: str) -> tuple[Param, ...]:
    """Parameters taken as they are from the event's ``args``."""
    return tuple(Param(n) for n in names)


@dataclass(frozen=True)
class EventRule:
    """How one kind of event maps onto the model."""

    event: str
    """The event's name (an ``action`` event's name is its model action's)."""
    kind: str
    """The event's kind: ``action`` or ``meta``."""
    action: str | None
    """The model action the event is (None: none)."""
    params: tuple[Param, ...] = ()
    """The model action's parameters in its order, and where each value comes from (a design
    whose action has fewer, or another, uses those it has)."""
    role: str = "action"
    """The event's role when nothing below says otherwise (``ROLES``)."""
    note: str = ""
    """Why, and what is special, in a sentence or two."""
    alternatives: tuple[str, ...] = ()
    """Model actions the event may be instead, by circumstance, with the same parameters."""
    deferred_until: tuple[str, ...] = ()
    """Matched by no step: its step is taken before the next of these events for the same
    arguments (``Resolver.owed``)."""
    catch_up: tuple[str, ...] = ()
    """Log-only traces: the batches reaching the event's point come first (``catch_up``), and
    the step is one of these model actions."""
    at_reads: bool = False
    """Decided by reads and written after them: the step is taken at its reads
    (``at_reads``)."""
    archived_first: bool = False
    """Log-only traces of the table era: the WALs archived before it are tried first
    (``archived_first``)."""
    sent_again: str | None = None
    """The model action it is when the other cluster sent it again (``relay_answers``)."""
    context_when: Callable[[Event], bool] | None = None
    """An event of this kind that is context all the same."""
    acts_when: Callable[[Mapping, Event], str | None] | None = None
    """A ``meta`` event's role when it stands for a step (``action``, or ``unmodelled`` when
    the design has no such step), else None."""
    promote: Callable[[Event, set[str]], Event | None] | None = None
    """An event recorded before its design had the step: the action event it is now."""
    first: Callable[[Mapping, Event, Any], Candidate | None] | None = None
    """Another step the event is in some states, tried before anything else."""
    candidates: Callable[[Mapping, int, Event, Any], Iterator[Candidate]] | None = None
    """A ``meta`` event acting as a step: its candidates."""
    already: Callable[[Mapping, Event, Any], bool] | None = None
    """The model took the step with another one: matched by no step when this holds."""
    zombie: Callable[[Mapping, int, Event, Any], Iterator[Candidate]] | None = None
    """The step when the event's own server is dead in the model (HBase's zombie)."""
    prefix: Callable[[Mapping, Event, Any], tuple[Action, ...]] | None = None
    """Model steps no event records, taken before the event's."""
    after: Callable[[Mapping, Event, Any], tuple[Action, ...]] | None = None
    """Model steps taken at once after the event's."""
    composed: Callable[[Mapping, Event, Any], int] | None = None
    """How many model steps of the action the event is (0: it does not fit)."""
    path: Callable[[Mapping, Event, Any], tuple[Action, ...]] | None = None
    """The model steps the event is, worked out one by one."""
    expect: Callable[..., str | None] | None = None
    """What the event says of the step's outcome, checked against the model's."""
    observe: Callable[[Mapping, Event, Any], str | None] | None = None
    """An observation: what the model's state must agree with (a problem, or None)."""

    @property
    def finds(self) -> dict[str, str]:
        return {p.name: p.find for p in self.params if p.find}


UNRECORDED: dict[str, str] = {
    "claim_redeliver": "a restarted master's claim child is sent again without an event",
}
"""The model steps the reference cluster takes without recording an event, with the reason: the
validator tries them between events. Every other step of a design is recorded by an event
(``RULES``) or never taken by the cluster (``NOT_RECORDED``)."""

LOG_ONLY_HIDDEN: dict[str, str] = {
    "claim_read": "a claimer reads the dead server's queue before its claim's multi; reads are not "
    "in a ZooKeeper log",
    "cleaner_read": "the table era's log cleaner reads the queues between its barrier's two writes",
}
"""The model steps a log-only trace (``txntrace``) leaves hidden, with the reason: everything
else either writes ZooKeeper or is composed from what the writes say (``catch_up``)."""

MAX_ARCHIVE_CHOICES = 6

DROP_NOTE = "claimed queue dropped"
"""How a trace recorded before the claimer's delete was a step of its own (``drop_claimed_queue``)
says that step: a ``note`` with this text and the queue."""

FAULT_STEPS = {"master-restart": "master_restart"}
"""``fault`` events (by ``detail.fault``) whose effect is a model step the cluster records
nowhere else."""


@dataclass(frozen=True)
class Candidate:
    """One way an event maps onto the model: a sequence of actions, and what their outcome must
    be to agree with what the event says (``expect(before, after)``: a problem, or None)."""

    actions: tuple[Action, ...]
    expect: Callable[[Any, Any], str | None] | None = None


def local_foreign(e: Event) -> bool:
    """A client edit at another cluster in a LOCAL-scoped family: it never leaves that cluster, so
    ours never sees it (the model's edits at other clusters are all GLOBAL)."""
    return e.detail.get("scope") == LOCAL


def promote(events: list[Event], design: Design) -> list[Event]:
    """A trace recorded while its design had no action for a step holds the step as another
    event (the entry's ``promote``); once the design has the action, the event is it. A step
    decided by reads and written after them is taken at its reads (``at_reads``)."""
    kinds = {k.name for k in design.kinds}
    out = []
    for e in events:
        rule = RULES.get(e.name)
        if rule is not None and rule.promote is not None:
            e = rule.promote(e, kinds) or e
        out.append(e)
    return at_reads(out)


def _unmodelled_action(e: Event, kinds: set[str]) -> Event | None:
    """An ``unmodelled`` event naming an action (``detail.action``, ``detail.action_args``) that
    the design has now: that action."""
    d = e.detail
    if d.get("action") not in kinds:
        return None
    return replace(e, kind="action", name=d["action"], args=d.get("action_args") or {})


def _drop_note(e: Event, kinds: set[str]) -> Event | None:
    """A ``note`` saying a claimer dropped a claimed queue (``DROP_NOTE``), recorded before the
    delete was a step of its own: ``drop_claimed_queue`` of that server."""
    if e.detail.get("what") != DROP_NOTE or "drop_claimed_queue" not in kinds:
        return None
    args = {"server": server_index(e.proc[3:]), "queue": -1}
    return replace(e, kind="action", name="drop_claimed_queue", args=args)


def at_reads(events: list[Event]) -> list[Event]:
    """Each event whose entry is ``at_reads`` as the step at its reads: its ``read`` window
    (the zxids its reads were served between), its write named apart (``write``) and no longer
    a storage event. A line that names only its write (a trace recorded before the master named its
    reads, or a step read from a ZooKeeper log) gets the widest window its lane allows: after
    the procedure's previous write (the master reads after it), before its own."""
    last: dict[tuple[str, Any], int] = {}
    out = []
    for e in events:
        d = e.detail
        dead = e.args.get("dead")
        z = e.zxid
        if isinstance(z, int) and e.name in AT_READS:
            if d.get("read"):
                e = replace(e, zxid=None, detail={**d, "write": z}, has_detail=True)
            else:  # the widest window: when the reads were served is not known
                read = [last.get((e.proc, dead), 0), z - 1]
                detail = {**d, "read": read, "write": z, "widest": True}
                e = replace(e, zxid=None, detail=detail, has_detail=True)
        write = e.zxid if e.zxid is not None else d.get("write")
        if isinstance(dead, int) and isinstance(write, int) and e.name != "claim_lost":
            last[(e.proc, dead)] = write  # a dropped claim is written after the round's reads
        out.append(e)
    return out


class Resolver:
    """What a trace's events name, in the model's terms (computed once per trace)."""

    def __init__(self, steps: Steps, cfg: Config, events: list[Event]) -> None:
        self.steps = steps
        self.cfg = cfg
        self.wal_keys: dict[str, WalKey] = {}
        self.uids: dict[str, tuple[int, ...]] = {}
        self.queue_of: dict[int, str] = {}
        """Event index -> the real queue id (or row key) of the source the event names."""
        counts: dict[WalKey, int] = {}
        numbers: dict[tuple[str, int, int], str] = {}
        pending: list[tuple[int, tuple[str, int, int]]] = []
        puts: list[tuple[str, WalKey]] = []
        foreign: dict[int, int] = {}
        batches: list[tuple[str, int, int, int]] = []
        self.joined = {
            e.args["server"]
            for e in events
            if e.name == "join" and isinstance(e.args.get("server"), int)
        }
        """Servers whose ``join`` the trace records."""
        self.joins: dict[int, list[int]] = {}
        """Per server, the events of its ``join``s."""
        self.adds: dict[int, list[int]] = {}
        """Per peer, the events of its ``add_peer``s (an AddPeerProcedure's first stage)."""
        self.crashed_again: set[int] = set()
        """The ``id`` of each ``crash`` of a server whose incarnation has crashed before (no
        ``join`` or ``process_start`` of it between): the driver killed a zombie."""
        down: set[int] = set()
        for n, e in enumerate(events):
            a = e.args
            if e.name == "join" and isinstance(a.get("server"), int):
                self.joins.setdefault(a["server"], []).append(n)
                down.discard(a["server"])
            elif e.name == "add_peer" and isinstance(a.get("peer"), int):
                self.adds.setdefault(a["peer"], []).append(n)
            elif e.name == "process_start" and e.proc.startswith("rs-"):
                down.discard(e.detail.get("index"))
            elif e.name == "crash" and isinstance(a.get("server"), int):
                if a["server"] in down:
                    self.crashed_again.add(id(e))
                down.add(a["server"])
        self.unanswered, self.unpersisted = relay_answers(events)
        """Per other cluster, its GLOBAL client edits so far: the model numbers only those."""
        for n, e in enumerate(events):
            d = e.detail
            if e.name == "put" or (
                e.name == "sink_apply" and e.proc.startswith("rs-") and "wal" in d
            ):
                key = self.wal_key(d["wal"])
                counts[key] = counts.get(key, 0) + 1
                if e.name == "put":
                    puts.append((d["uid"], key))
            if e.name == "foreign_put" and not local_foreign(e):
                c = e.args["cluster"]
                self.uids.setdefault(d.get("uid"), (c, foreign.get(c, 0)))
                foreign[c] = foreign.get(c, 0) + 1
            if e.name == "ship" and {"wal", "start", "end", "read"} <= d.keys():
                batches.append((d["wal"], d["start"], d["end"], int(d["read"])))
            if e.args.get("shipper", -1) >= 0:  # -1: no source (a claim with no WAL)
                num = (e.proc, e.pid, e.args["shipper"])
                q = d.get("queue") or d.get("row")
                if q and numbers.get(num, q) != q:
                    raise TraceFault(
                        f"line {n + 1 if e.line is None else e.line}: source {num[2]} of "
                        f"{num[0]} names queue "
                        f"{q}, but it named {numbers[num]} before (a source keeps its queue)"
                    )
                if q:
                    numbers[num] = q
                    self.queue_of[n] = q
                else:
                    pending.append((n, num))
        for n, num in pending:
            if num in numbers:
                self.queue_of[n] = numbers[num]
        self.max_entries = max(counts.values(), default=0)
        self.owed: dict[int, tuple[Action, ...]] = {}
        """Event index -> the deferred step it takes first (an entry's ``deferred_until``)."""
        pending: dict[tuple, Action] = {}
        for n, e in enumerate(events):
            for kind, family in DEFERRED.items():
                if e.kind != "action" or e.name not in family:
                    continue
                key = (kind, tuple(sorted(e.args.items())))
                if key in pending:
                    self.owed[n] = (pending.pop(key),)
                if e.name == kind:
                    pending[key] = Action(kind, tuple(e.args.values()))
        self.entry_at: dict[str, dict[int, int]] = {}
        """Per WAL file, byte offset -> entries before it, as the batches read them."""
        for wal, _, _, _ in batches:
            self.entry_at.setdefault(wal, {0: 0})
        changed = True
        while changed:
            changed = False
            for wal, start, end, read in batches:
                at = self.entry_at[wal]
                if start in at and end not in at:
                    at[end] = at[start] + read
                    changed = True
        for uid, key in puts:
            self.uids.setdefault(uid, self.put_uid(uid, key, counts))

    @staticmethod
    def put_uid(uid: str, key: WalKey, counts: dict[WalKey, int]) -> tuple[int, ...]:
        """The model's identity of a client edit. The cluster names it
        ``0.<server>.<WAL seq>.<entries the server wrote before it>``, counting edits that came
        home into the same WALs; the model names it by its index in its WAL. The WAL's order is
        the file's, which the trace's order of two writer threads may not show, so the index
        comes from the count, not from the trace's order."""
        s, g, seq = key
        written = int(uid.rsplit(".", 1)[1])
        before = sum(c for (s2, g2, q), c in counts.items() if s2 == s and g2 == g and q < seq)
        return (0, s, g, seq, written - before)

    def wal_key(self, name: str) -> WalKey:
        key = self.wal_keys.get(name)
        if key is None:
            key = self.wal_keys[name] = self.steps.parse_wal(name)
        return key

    def source_of(self, queue: str) -> tuple[int, tuple[int, ...]]:
        """(peer, chain) of a source's queue: a ZooKeeper-era queue id, or a row key (whose
        recovered sources carry ``(source,)``)."""
        if self.steps.era == "zk":
            return self.steps.parse_zk_queue_id(queue)
        peer, _owner, source = self.steps.parse_row_key(queue)
        return peer, () if source == NO_SOURCE else (source,)


class Mapping:
    """The roles of one design's events, and their model actions."""

    def __init__(self, model: Model, events: list[Event], *, log_only: bool = False) -> None:
        self.model = model
        """Every step the mapping takes or asks about goes through the model."""
        design, cfg = model.design, model.cfg
        self.design = design
        self.log_only = log_only
        """The events are a ZooKeeper log's writes alone (``txntrace``): the batches a source
        ships to reach a written position are composed (``catch_up``), and the only hidden
        steps are the reads no write shows (``LOG_ONLY_HIDDEN``)."""
        self.cfg = cfg
        self.steps = Steps.for_model(design)
        self.resolver = Resolver(self.steps, cfg, events)
        self.kinds = {k.name: k for k in design.kinds}
        ends = [n for n, e in enumerate(events) if e.name == "run_end"]
        self.teardown = {id(e) for e in events[ends[0] + 1 :]} if ends else set()
        """Events after the driver's end of run, while it stops the processes."""
        self.legacy_join = "join" in self.kinds and not any(e.name == "join" for e in events)
        """A trace recorded before region servers recorded ``join``: their start is the join."""
        self.lost_ships = lost_batches(events) if "ship" in self.kinds else set()
        """``sink_apply`` events (by id) of a batch its sender never recorded (``lost_ship``)."""
        unrecorded = [k for k in design.kinds if k.name in UNRECORDED]
        self.hidden = tuple(k.name for k in unrecorded if k.fair)
        """Model steps the cluster takes without an event, tried between events."""
        self.faults = tuple(k.name for k in unrecorded if not k.fair)
        """Environment steps the cluster takes without an event, tried after everything else."""
        if log_only:
            self.hidden = tuple(k.name for k in design.kinds if k.name in LOG_ONLY_HIDDEN)
            self.faults = ()

    # --- roles ---------------------------------------------------------------------------------

    def role(self, e: Event) -> str:
        """The event's role (``ROLES``), as its entry says."""
        rule = RULES.get(e.name)
        if rule is None:  # an event kind the mapping does not know: nothing it says is checked
            return "action" if e.kind == "action" else "context"
        if rule.context_when is not None and rule.context_when(e):
            return "context"
        if e.kind == "action":
            return "action"
        if rule.acts_when is not None:
            acts = rule.acts_when(self, e)
            if acts is not None:
                return acts
        return rule.role

    def unanswered(self, e: Event) -> list[str]:
        """The edits coming home that a region server of ours applied (``sink_apply``) and that
        no ``relay_home`` answers (``relay_answers``): the edit was sent again
        (``relay_apply``)."""
        if "relay_apply" not in self.kinds:
            return []
        unanswered = self.resolver.unanswered.get(id(e), [])
        return [u for u in e.detail.get("uids") or [] if u in unanswered]

    def why_unmodelled(self, e: Event) -> str:
        d = e.detail
        if e.name == "unmodelled" and "why" in d:
            return str(d["why"])  # a log-only trace's write no model step makes (``txntrace``)
        if e.name == "unmodelled":
            what = f"{d.get('action', '?')}{d.get('action_args', {})}"
            return f"{what}: no such action in {self.design.name}"
        return f"{e.name} {d.get('fault', '')}: no such action in {self.design.name}"

    # --- actions -------------------------------------------------------------------------------

    def candidates(self, n: int, e: Event, st: Any) -> Iterator[Candidate]:
        """The ways event ``n`` maps onto the model in state ``st``."""
        early = self.early_refresh(n, e, st)
        if early is None:
            yield from self._candidates(n, e, st)
            return
        after = self.model.step(st, early)
        for c in self._candidates(n, e, after):
            # the event's own check compares the states around its own step
            check = c.expect
            expect = None if check is None else lambda _before, new, f=check: f(after, new)
            yield Candidate((early, *c.actions), expect)

    def early_refresh(self, n: int, e: Event, st: Any) -> Action | None:
        """Table era: a server that started while a peer was being added read the peers after
        the procedure's storage update, and so knows the peer before the refresh the procedure
        sends it (which it then answers as already done, ``_refresh_unneeded``); the model's join
        reads the peers in storage with the live znode. An event of the server's source for that
        peer first takes the refresh."""
        if not hasattr(st, "pprocs") or "shipper" not in e.args:
            return None
        queue = self.resolver.queue_of.get(n)
        s = e.args.get("server")
        if queue is None or not isinstance(s, int) or not st.servers[s].alive:
            return None
        p, _chain = self.resolver.source_of(queue)
        proc = st.pprocs[p] if 0 <= p < len(st.pprocs) else None
        if (
            not proc
            or proc.kind != ADD
            or not proc.refresh >> s & 1
            or st.servers[s].known >> p & 1
        ):
            return None
        # the server started after the procedure did (its join follows the add): a server that
        # was running learns of the peer only from the refresh
        added = max((a for a in self.resolver.adds.get(p, ()) if a < n), default=None)
        if added is None or not any(added < j < n for j in self.resolver.joins.get(s, ())):
            return None
        return Action("refresh", (p, s))

    def _candidates(self, n: int, e: Event, st: Any) -> Iterator[Candidate]:
        name = e.name
        rule = RULES.get(name) or _PLAIN
        if rule.first is not None:
            first = rule.first(self, e, st)
            if first is not None:
                yield first
                return
        if e.kind == "meta":
            if rule.candidates is not None:
                yield from rule.candidates(self, n, e, st)
            return
        kind = self.kinds[name]
        args = e.args
        if rule.already is not None and rule.already(self, e, st):
            yield Candidate(())
            return
        s = args.get("server")
        if (
            rule.zombie is not None
            and not st.servers[s].alive
            and st.wals[self.cfg.slot((s, 0, 0))]
            and e.proc.startswith("rs-")
            and server_index(e.proc[3:]) == s
        ):
            yield from rule.zombie(self, n, e, st)
            return
        finds = rule.finds
        resolved: dict[str, list[int]] = {}
        for p in kind.params:
            if p in finds:
                found = RESOLVED[finds[p]](self, n, e, st)
                if not found:
                    return
                resolved[p] = found
        combos: list[tuple] = [()]
        for p in kind.params:
            values = resolved.get(p) or [_arg(args[p])]
            combos = [(*c, v) for c in combos for v in values]
        repeat = rule.composed(self, e, st) if rule.composed is not None else 1
        if not repeat:
            return
        expect = rule.expect
        names = (name, *(a for a in rule.alternatives if a in self.kinds))
        if rule.deferred_until:
            yield Candidate(())
            return
        before = rule.prefix(self, e, st) if rule.prefix is not None else ()
        before = (*self.owed(n, e), *before)
        after = rule.after(self, e, st) if rule.after is not None else ()
        if self.log_only and rule.archived_first and self.steps.era == "table":
            yield from self.archived_first(st, before, Action(name, combos[0]))
            return
        if self.log_only and rule.catch_up:
            for combo in combos:
                ships = self.catch_up(e, st, combo)
                if ships is not None:
                    for kind_name in rule.catch_up:
                        if kind_name in self.kinds:
                            yield Candidate((*before, *ships, Action(kind_name, combo)))
            return
        if (
            rule.sent_again is not None
            and id(e) in self.resolver.unpersisted
            and rule.sent_again in self.kinds
        ):
            # sent again later (``relay_answers``): applied, the other cluster not advanced
            names = (rule.sent_again,)
            before = (*before, *(Action(name, combos[0]),) * (repeat - 1))
            repeat = 1
        if rule.path is not None:
            path = rule.path(self, e, st)
            if path:
                check = None if expect is None else _bind(expect, self, n, e, combos[0])
                yield Candidate((*before, *path, *after), check)
            return
        for combo in combos:
            check = None
            if expect is not None:
                check = _bind(expect, self, n, e, combo)
            for kind_name in names:
                yield Candidate((*before, *(Action(kind_name, combo),) * repeat, *after), check)

    def archived_first(
        self, st: Any, before: tuple[Action, ...], action: Action
    ) -> Iterator[Candidate]:
        """A log-only ``cleaner_start`` or ``crash`` of the table era: the WALs moved to oldWALs
        before it (files, not writes: a server archives its rolled WALs, the cleaner deletes from
        oldWALs) are some of those the model could archive (of the crashed server's, for a
        crash); every subset is tried, the largest first (at most ``2 ** MAX_ARCHIVE_CHOICES`` of
        them; past that, all or none). The ZooKeeper era's cleaner writes nothing a log shows,
        so there no archive matters."""
        closed = sorted(
            a
            for a in self.model.enabled_args(st, "archive")
            if action.name != "crash" or a[0] == action.args[0]
        )
        sizes = range(len(closed), -1, -1)
        if len(closed) > MAX_ARCHIVE_CHOICES:
            sizes = range(len(closed), -1, -len(closed))
        for r in sizes:
            for subset in combinations(closed, r):
                archive = tuple(Action("archive", a) for a in subset)
                yield Candidate((*before, *archive, action))

    def catch_up(self, e: Event, st: Any, combo: tuple) -> tuple[Action, ...] | None:
        """The batches source ``combo = (server, source)`` ships, one entry each, to reach what
        a log-only event says it reached: a written position (``detail.entry``: the entries the
        log tells apart up to it), or the end of its WAL (``advance``, ``finish``). None when
        the source is at another WAL, past that point, or cannot ship."""
        s, i = combo
        sh = st.servers[s].shippers[i]
        wal_name = e.detail.get("wal")
        if not sh.wals or (wal_name and self.resolver.wal_key(wal_name) != sh.wals[0]):
            return None
        wal = st.wals[self.cfg.slot(sh.wals[0])]
        target = e.detail["entry"] if e.name == "persist" else len(wal.entries)
        ships: list[Action] = []
        for _ in range(target - sh.pos):
            sinks = sorted(
                k for s2, i2, k in self.model.enabled_args(st, "ship") if (s2, i2) == (s, i)
            )
            if not sinks:
                return None
            ships.append(Action("ship", (s, i, sinks[0])))
            st = self.model.step(st, ships[-1])
        return tuple(ships) if target >= sh.pos else None

    def relay_applies(self, e: Event, st: Any) -> Iterator[Candidate]:
        """``relay_apply`` for each unanswered edit (``unanswered``), the next edit its other
        cluster sends us once past those it does not (ours, which loop prevention keeps from
        coming back: ``relay_home`` steps that apply nothing); on a server dead in the model,
        ``zombie_relay_apply`` (the edit may have gone to another server since)."""
        s = server_index(e.proc[3:])
        actions: list[Action] = []
        zombie = "zombie_relay_apply" in self.kinds and not st.servers[s].alive
        for uid in self.unanswered(e):
            want = self.resolver.uids.get(uid)
            if want is None:
                return
            c = want[0]
            relay = st.relays[c] if c < len(st.relays) else ()
            if not relay:
                return
            at = [i for i, x in enumerate(relay.log) if x.uid == want]
            if not at:
                return
            if zombie:  # a request it received before its session expired (``zombie_relay_apply``)
                actions.append(Action("zombie_relay_apply", (c, s, at[0])))
                continue
            j = self.cfg.outbound(c).index(0)
            skipped = relay.log[relay.shipped[j] : at[0]]
            if at[0] < relay.shipped[j] or any(rules.edit_replicable(x, 0) for x in skipped):
                return
            steps = (*(Action("relay_home", (c, s)),) * len(skipped), Action("relay_apply", (c, s)))
            for a in steps:
                st = self.model.step(st, a)
            actions.extend(steps)
        yield Candidate(tuple(actions))

    def lost_ship(self, e: Event, st: Any) -> Iterator[Candidate]:
        """A batch the sink applied but its sender never recorded (``lost_batches``): the sender
        stopped (killed, or paused until its session expired) after the sink applied the batch
        and before it heard back and wrote its line. Its ``ship`` steps, as many as it takes a
        source of that server for the peer to reach the batch's edits, are matched here. A
        dead sender's batch (a zombie's) is the observation's (``_sink_apply``)."""
        if _sink_apply(self, e, st) is None:
            yield Candidate(())
            return
        cluster = int(e.proc.split("-", 1)[1])
        try:
            s = server_index(e.detail.get("source") or "")
        except ValueError:
            return
        if s >= len(st.servers) or not st.servers[s].alive:
            return

        def applied(before: Any, after: Any) -> str | None:
            return _sink_apply(self, e, after)

        sinks = {k for (srv, _i, k) in self.model.enabled_args(st, "ship") if srv == s}
        for i, sh in enumerate(st.servers[s].shippers):
            if sh.peer + 1 != cluster:
                continue
            for k in sorted(sinks):
                for n in range(1, self.cfg.edits_per_wal + 1):
                    yield Candidate((Action("ship", (s, i, k)),) * n, applied)

    def lost_delete(self, restart: Action, st: Any) -> Iterator[Candidate]:
        """The master deletes a cleaner run's WALs one at a time, each file before its
        ``wal_deleted`` line: killed in between, it deleted one WAL that no line records. So a
        master restart in the middle of a run's deletes may follow one more of them."""
        if restart.name != "master_restart" or "cleaner_delete_wal" not in self.kinds:
            return
        if st.cleaner.phase != DELETING:
            return
        for key in st.cleaner.candidates:
            yield Candidate((Action("cleaner_delete_wal", key), restart))

    def owed(self, n: int, e: Event) -> tuple[Action, ...]:
        """The step of a deferred event this event's family owes before it (``DEFERRED``)."""
        return self.resolver.owed.get(n, ())

    def claim_failed(self, e: Event, st: Any) -> Iterator[Candidate]:
        """A claim whose ``multi`` failed: the claimer's ``claim_commit``, which must claim
        nothing (zk-multi, table); under zk-lock the final delete failed, which the model's
        ``finish_claim`` cannot do, so it does not map."""
        server = server_index(e.proc[3:]) if e.proc.startswith("rs-") else None
        if server is None or "claim_commit" not in self.kinds:
            return

        def claimed_nothing(before: Any, after: Any) -> str | None:
            if _claims(before) == _claims(after):
                return None
            return "the model's claim moved a queue, but the real multi failed"

        yield Candidate((Action("claim_commit", (server,)),), claimed_nothing)


def _arg(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _claims(st: Any) -> Any:
    return st.rows if hasattr(st, "rows") else st.rs


# --- resolved parameters ----------------------------------------------------------------------


def _shipper(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """The model's index of the source the event names by its queue, on the event's server."""
    queue = m.resolver.queue_of.get(n)
    if queue is None:
        return []
    peer, chain = m.resolver.source_of(queue)
    s = e.args["server"]
    shippers = st.servers[s].shippers
    return [i for i, sh in enumerate(shippers) if sh.peer == peer and sh.chain == chain]


def _marked_drop(m: Mapping, e: Event, st: Any) -> int | None:
    """The index, among the queues the event's server marked for its delete after a claim
    (``drop_claimed_queue``), of the queue the event deletes; None when it marked none such.

    The delete is recorded as the claimer's own (``drop_claimed_queue``), or, where the claimer's
    view of the peers still had the peer (it reads them by a watch; the model's claimer reads the
    peers' znode), as the ``finish`` of the source it started, which found the peer gone: HBase
    checks the peer again when it adds the recovered source ("if peer gone/changed: terminate,
    removeQueue(claimedId)")."""
    queue = e.detail.get("queue")
    s = e.args.get("server")
    if not isinstance(queue, str) or not isinstance(s, int) or not hasattr(st, "rs"):
        return None
    peer, chain = m.steps.parse_zk_queue_id(queue)
    drops = st.servers[s].drops
    return drops.index((peer, tuple(chain))) if (peer, tuple(chain)) in drops else None


def _listed_queue(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """The index, among the queues the cleaner listed and has not read, of the one the event
    reads (``cleaner_read_queue``)."""
    queue = e.detail.get("queue")
    if not isinstance(queue, str):
        return []
    peer, chain = m.steps.parse_zk_queue_id(queue)
    s = e.args.get("server")
    return [i for i, x in enumerate(st.cleaner.listed) if x == (s, peer, tuple(chain))]


def _dead_queue(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """The index, among the dead server's queue znodes, of the queue the event names: the old
    queue id (``claim_read``) or the claimed copy's id (``copy_queue``)."""
    d = e.args["dead"]
    node = st.rs[d]
    if not node:
        return []
    text = e.detail["queue"]
    peer, chain = m.steps.parse_zk_queue_id(text)
    out = []
    for i, q in enumerate(node.queues):
        if q.peer != peer:
            continue
        if q.chain == chain or m.design.rule_claimed_chain(q.chain, d) == chain:
            out.append(i)
    return out


def _child(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """The index of the claim child for the row the event names; a dropped child
    (``claim_lost``) recorded without its row is any child whose target is dead."""
    d = e.args["dead"]
    row = e.detail.get("row")
    if row is None:
        children = st.scps[d].children
        return [i for i, c in enumerate(children) if not st.servers[c.target].alive]
    peer, _owner, source = m.steps.parse_row_key(row)
    t = e.args.get("server")
    return [
        i
        for i, c in enumerate(st.scps[d].children)
        if c.peer == peer and c.source == source and (t is None or c.target == t)
    ]


def _targets(m: Mapping, n: int, e: Event, st: Any) -> list[tuple[int, ...]]:
    """``arqp_claim``'s targets in the model's queue order: the event names which row went to
    which server."""
    rows = e.detail.get("rows") or []
    targets = e.args["targets"]
    if not rows:
        return [tuple(targets)]
    d = e.args["dead"]
    by_row = {}
    for row, t in zip(rows, targets, strict=False):
        peer, _owner, source = m.steps.parse_row_key(row)
        by_row[(peer, source)] = t
    queues = m.design.claim_queues(st, d)
    out = []
    for q in queues[: len(targets)]:
        t = by_row.get((q.peer, q.source))
        if t is None:
            return [tuple(targets)]
        out.append(t)
    return [tuple(out)]


def _no_queue(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """None: the queue is one the claimer marked for its delete, found by ``_marked_drop``
    (``drop_claimed_queue``'s ``first``) or already gone."""
    return []


RESOLVED: dict[str, Callable[[Mapping, int, Event, Any], list]] = {
    "shipper": _shipper,
    "dead_queue": _dead_queue,
    "listed_queue": _listed_queue,
    "marked_queue": _no_queue,
    "child": _child,
    "targets": _targets,
}
"""The searches of a parameter the cluster names by a real name (a ``Param``'s ``find``): each
gives the values it stands for in the model's state."""


def _relay_steps(m: Mapping, e: Event, st: Any) -> int:
    """How many model ``relay_home`` steps bring the edit the event names home: the other
    cluster's log holds, before it, edits it does not ship to us (ours, which loop prevention
    keeps from coming back), and the model steps over each of them."""
    c = e.args["cluster"]
    relay = st.relays[c]
    want = m.resolver.uids.get(e.detail.get("uid"))
    if not relay or want is None:
        return 0
    j = m.cfg.outbound(c).index(0)
    done = relay.shipped[j]
    for i in range(done, len(relay.log)):
        if relay.log[i].uid == want:
            return i + 1 - done
    return 0


def _zombie_put(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """An edit a region server appended after its session expired, before the split took its
    WAL's lease: HBase's zombie writer can (``zombie_put``)."""
    a = e.args
    combo = (a["server"], a["group"], a["kind"])
    yield Candidate((Action("zombie_put", combo),), _bind(_put_uid, m, n, e, combo))


def _zombie_ship(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """A batch a region server's source had in flight when its session expired: the edits the
    filter kept reach the peer (``zombie_ship`` each); nothing is written to storage."""
    queue = m.resolver.queue_of.get(n)
    if queue is None:
        return
    peer, _chain = m.resolver.source_of(queue)
    actions = []
    for uid in e.detail.get("uids") or []:
        model = m.resolver.uids.get(uid)
        if model is None or model[0] != 0:
            return
        _origin, s, g, seq, i = model
        actions.append(Action("zombie_ship", (s, g, seq, i, peer)))
    yield Candidate(tuple(actions))


def _zombie_persist(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """Table era: an offset a region server's source wrote after its session expired (the
    table's client needs no session): ``zombie_persist`` of that queue's row; an ``advance``
    writes the end of its WAL."""
    if "zombie_persist" not in m.kinds:
        return
    queue = m.resolver.queue_of.get(n)
    d = e.detail
    at = m.resolver.entry_at.get(d.get("wal", ""), {})
    if e.name == "advance":
        at = {None: FULL}
    if queue is None or "wal" not in d or d.get("position") not in at:
        return
    peer, chain = m.resolver.source_of(queue)
    _ws, g, seq = m.resolver.wal_key(d["wal"])
    source = chain[0] if chain else NO_SOURCE
    args = (e.args["server"], peer, source, g, seq, at[d.get("position")])
    yield Candidate((Action("zombie_persist", args),))


def _zombie_step(kind: str, *params: str) -> Callable[..., Iterator[Candidate]]:
    """A zombie's step whose arguments are the event's own."""

    def candidates(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
        if kind in m.kinds:
            yield Candidate((Action(kind, tuple(e.args[k] for k in params)),))

    candidates.__name__ = kind
    return candidates


PEER_PROC_NEXT: dict[tuple[str, str], str] = {
    ("add", "pre"): "storage",
    ("add", "storage"): "refresh",
    ("add", "refresh"): "wait",
    ("add", "wait"): "done",
    ("remove", "pre"): "refresh",
    ("remove", "refresh"): "wait",
    ("remove", "wait"): "remove_all",
    ("remove", "remove_all"): "done",
}
"""The reference master's peer procedure: the stage each recorded stage moves on to."""


def _peer_proc_reached(proc: Any, stage: str) -> bool:
    """Has the model's procedure reached the point the master's ``stage`` stands for? The
    classes of ``txnprocs.peer_phase``, save that the master's refresh and wait stand for the
    model's REFRESH itself (the procedure steps on to POST only when the master has done
    waiting)."""
    if stage == "done":
        return not proc
    if not proc:
        return False
    if stage in ("refresh", "wait"):
        return proc.stage == (AP_REFRESH if proc.kind == ADD else RP_REFRESH)
    return peer_phase(proc) == PHASE_OF_STAGE[stage]


def _peer_proc_path(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """The model's ``peer_proc`` steps a recorded stage of a peer procedure is: those that take
    the model's procedure to where the master's next stage stands (``_peer_proc_reached``);
    none for the stage that only sends the refreshes. Where several are enabled (the rows
    ``removeAllQueues`` may delete next), the first is taken: with nothing between them, every
    order ends in the same state."""
    p = e.args["peer"]
    proc = st.pprocs[p]
    if not proc:
        return ()
    op = "add" if proc.kind == ADD else "remove"
    target = PEER_PROC_NEXT.get((op, e.detail.get("stage", "")))
    if target is None:
        return ()
    for a in _dead_refreshes(m, e, st):  # the entry's ``prefix``
        st = m.model.step(st, a)
    path: list[Action] = []
    while not _peer_proc_reached(st.pprocs[p], target):
        if len(path) >= MAX_PROC_STEPS or not st.pprocs[p]:
            return ()
        step = next(
            (a for a in m.model.enabled_args(st, "peer_proc") if a[0] == p),
            None,
        )
        if step is None:
            return ()  # a refresh is still outstanding: the stage does not follow from here
        action = Action("peer_proc", step)
        st = m.model.step(st, action)
        path.append(action)
    return tuple(path)


MAX_PROC_STEPS = 256
"""A bound on one recorded stage's model steps (a pass deletes one row per step)."""


def _refresh_sent(m: Mapping, e: Event, st: Any) -> bool:
    """The master's stage that only sends the refresh requests: the model's storage update
    already named the servers to refresh, so the stage changes nothing the model has."""
    proc = st.pprocs[e.args["peer"]] if hasattr(st, "pprocs") else None
    return bool(proc) and e.detail.get("stage") == "refresh"


def _dead_refreshes(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """The master refreshes only the servers alive when it sends the requests; the model's
    refresh of a server that died since it named it just finishes (``do_refresh``). Before the
    procedure waits on its refreshes, the model finishes those."""
    p = e.args["peer"]
    proc = st.pprocs[p]
    if not proc or not proc.refresh:
        return ()
    return tuple(
        Action("refresh", (p, s))
        for s in range(m.cfg.servers)
        if proc.refresh >> s & 1 and not st.servers[s].alive
    )


def _absent_reads(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """The cleaner lists ``/rs`` and reads the znodes it finds; the model reads every server's
    slot, an absent znode adding nothing. Before the real cleaner's decision, the model reads the
    ones it has not read that add nothing: absent, or holding no queue (a server killed while it
    started, whose znode the model's join made but the real one never did, say); and when the
    cversion moved (a server's znode created after the listing, say), every one it has not read:
    the run is read again, whatever it saw. A znode with queues that the real cleaner did not
    read stays unread, and the decision does not fit. (Reading a server is listing its queues,
    then reading each, ``_queue_reads``.)"""
    c = st.cleaner
    reads = [Action("cleaner_read_queue", (x[0], 0)) for x in c.listed] if c.changed else []
    for s in range(m.cfg.servers):
        queues = st.rs[s].queues if st.rs[s] else ()
        if not c.read >> s & 1 and (not queues or c.changed):
            reads += [Action("cleaner_read", (s,)), *_reads_of(m, st, s)]
    return tuple(reads)


def _queue_reads(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """zk-multi's cleaner lists a server's queues (``cleaner_read``), then reads them one by one
    (``cleaner_read_queue``). A trace recorded before the queue reads were lines of their own
    records one ``cleaner_read`` with the WALs of them all: the model reads them all with it."""
    if "queues" in e.detail or "cleaner_read_queue" not in m.kinds:
        return ()
    return _reads_of(m, st, e.args["server"])


def _reads_of(m: Mapping, st: Any, s: int) -> tuple[Action, ...]:
    """The reads of every queue of server ``s``, once the cleaner has listed them (none where
    the design's cleaner reads a server in one step)."""
    if "cleaner_read_queue" not in m.kinds:
        return ()
    node = st.rs[s]
    return (Action("cleaner_read_queue", (s, 0)),) * len(node.queues if node else ())


def _claimed_already(m: Mapping, e: Event, st: Any) -> bool:
    """zk-multi: a claim request whose queue the claimer no longer finds (another server took it
    first) reads nothing and claims nothing; the model's claim starts only from a queue that is
    there, so the step changes nothing the model has."""
    return e.args.get("queue") == -1


def _split_archives(m: Mapping, e: Event, st: Any) -> bool:
    """Table era: the master's split moves a dead server's WALs to oldWALs one by one; the
    model's ``scp_split`` moves them all, with the SCP's state, which the master records next."""
    if not hasattr(st, "scps") or e.proc != "master":
        return False
    s = e.args["server"]
    return not st.servers[s].alive and st.scps[s].stage == SCP_SPLIT


def _empty_claim_removed(m: Mapping, e: Event, st: Any) -> bool:
    """Table era: a claimed queue with no WAL left to replicate starts no source; the claimer
    removes it in a transaction of its own (``finish`` with no source), which the model's
    ``claim_commit`` does with the claim. The row must be gone in the model."""
    if e.args.get("shipper") != -1 or not hasattr(st, "rows"):
        return False
    peer, owner, source = m.steps.parse_row_key(e.detail["row"])
    return not any(r.peer == peer and r.owner == owner and r.source == source for r in st.rows)


def _removed_peer_queue_dropped(m: Mapping, e: Event, st: Any) -> bool:
    """ZooKeeper era: a claimed queue of a removed peer deleted (by its claimer, or by the source
    its claimer started before it saw the removal, ``finish``) that the model has already
    deleted: the claimer's reaction to the removal (``peer_sync``) took every queue of the peer.
    The queue must be gone in the model and its peer removed. (A batch that source shipped first
    would not fit: the model has no per-server view of the peers yet.)"""
    queue = e.detail.get("queue")
    s = e.args.get("server")
    if not hasattr(st, "rs") or not isinstance(queue, str) or not isinstance(s, int):
        return False
    peer, chain = m.steps.parse_zk_queue_id(queue)
    if not chain or st.peers[peer] != REMOVED:
        return False
    node = st.rs[s]
    return not (node and any(q.peer == peer and q.chain == tuple(chain) for q in node.queues))


def _teardown_archive(m: Mapping, e: Event, st: Any) -> bool:
    """After the run's end the driver stops the region servers, which the model has no step
    for (a clean stop), and the master archives the last WALs of servers the model has alive."""
    if e.proc != "master" or id(e) not in m.teardown:
        return False
    return st.servers[e.args["server"]].alive


def _refresh_unneeded(m: Mapping, e: Event, st: Any) -> bool:
    """A refresh the master sent to a server that joined after the model's procedure named the
    servers to refresh (the model names them with the storage update; HBase's master lists the
    online servers at its REFRESH stage, a step later). The server read the peers in storage when
    it started: an add finds the peer known and a removal finds it unknown, and
    ``RSM.addPeer``/``removePeer`` do nothing (the model's ``rs_add_peer`` and
    ``rs_remove_peer`` alike)."""
    if not hasattr(st, "pprocs"):
        return False
    p, s = e.args.get("peer"), e.args.get("server")
    if not isinstance(p, int) or not isinstance(s, int) or not st.pprocs[p]:
        return False
    proc, srv = st.pprocs[p], st.servers[s]
    if proc.refresh >> s & 1 or not srv.alive:
        return False
    return bool(srv.known >> p & 1) == (proc.kind == ADD)


def _zombie_killed(m: Mapping, e: Event, st: Any) -> bool:
    """A second crash line of one incarnation, the model having it dead: the driver killed the
    process of a server whose session had expired (a zombie, still writing what nothing
    fences); its death was the expiry, the first line."""
    s = e.args.get("server")
    return id(e) in m.resolver.crashed_again and not st.servers[s].alive


def _unrecorded_join(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """A server killed while it started: the driver chose it among the live servers (its live
    znode was there), but it died before it recorded ``join`` (its replication znode, or its
    line). The table era's join is the live znode: it had joined, and the model takes the join
    before the crash. (The ZooKeeper era's is the replication znode, which it may never have
    made: ``died_starting``, see ``Mapping._candidates``.)"""
    s = e.args.get("server")
    if not isinstance(s, int) or "join" not in m.kinds or s in m.resolver.joined:
        return ()
    srv = st.servers[s]
    started = srv.started if hasattr(srv, "started") else bool(st.wals[m.cfg.slot((s, 0, 0))])
    return () if srv.alive or started else (Action("join", (s,)),)


# --- what an action event says about its outcome ------------------------------------------


def _bind(fn: Callable, m: Mapping, n: int, e: Event, args: tuple) -> Callable[[Any, Any], Any]:
    return lambda before, after: fn(m, n, e, args, before, after)


def _put_uid(m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any) -> str | None:
    """The entry a put appended is the one the event names (the WAL's order is the file's)."""
    uid = e.detail.get("uid")
    want = m.resolver.uids.get(uid)
    if want is None:
        return None
    s, g = args[0], args[1]
    key = (s, g, after.servers[s].current[g])
    got = after.wals[m.cfg.slot(key)].entries[-1].uid
    return None if got == want else f"the model appended {got}, the event {uid}"


def _ship_uids(m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any) -> str | None:
    """A batch ships exactly the edits the event names (those the filter kept)."""
    d = e.detail
    if "uids" not in d:
        return None
    s, i = args[0], args[1]
    sh = before.servers[s].shippers[i]
    wal = before.wals[m.cfg.slot(sh.wals[0])]
    read = wal.entries[sh.pos : sh.pos + int(d.get("read", 1))]
    target = sh.peer + 1
    got = [x.uid for x in read if m.design.rule_ships(x, target)]
    want = [m.resolver.uids.get(u) for u in d["uids"]]
    return None if got == want else f"the model's batch ships {got}, the event {d['uids']}"


def _cleaner_candidates(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """The log cleaner's run considers exactly the archived WALs the event lists."""
    d = e.detail
    if "wals" not in d or not hasattr(after.cleaner, "candidates"):
        return None
    want = sorted(m.resolver.wal_key(w) for w in d["wals"])
    got = sorted(after.cleaner.candidates)
    return None if got == want else f"the model's cleaner lists {got}, the event {want}"


def _cleaner_retry(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """zk-multi's cleaner reads everything again exactly when the cversion of ``/rs`` moved."""
    retry = e.detail.get("retry")
    if retry is None or not hasattr(before.cleaner, "changed"):
        return None
    if bool(retry) == before.cleaner.changed:
        return None
    moved = "moved" if before.cleaner.changed else "held"
    return f"the event says retry={retry}, the model's cversion {moved}"


def _persist_position(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """The position written is the one the model's source reached: the event's byte offset is
    as many entries into the WAL as the batches before it read (an offset moving backwards, or
    one no batch reached, disagrees)."""
    d = e.detail
    if "position" not in d or "wal" not in d:
        return None
    at = m.resolver.entry_at.get(d["wal"], {0: 0})
    if d["position"] not in at:
        return (
            f"the event writes position {d['position']} of {d['wal']}, which no batch of the "
            f"trace reached (the furthest is {max(at)})"
        )
    sh = before.servers[args[0]].shippers[args[1]]
    want = at[d["position"]]
    return None if sh.pos == want else f"the model's source is at entry {sh.pos}, the event {want}"


def _clean_lookup(m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any) -> str | None:
    """zk-lock's lookup cached exactly the queued WALs the event lists (read at some point of
    its zxid window: a WAL a roll queued meanwhile is in it or not, as the real read saw it)."""
    cached = e.detail.get("cached")
    if cached is None or not hasattr(after.cleaner, "cache"):
        return None
    want = sorted({m.resolver.wal_key(w) for w in cached})
    got = sorted(after.cleaner.cache)
    return None if got == want else f"the model's lookup cached {got}, the event {want}"


def _cleaner_read_wals(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """zk-multi's cleaner found, among the run's candidates, exactly the queued WALs the event
    lists in the server's queues (read at some point of its zxid window)."""
    wals = e.detail.get("wals")
    if wals is None or not hasattr(before.cleaner, "candidates"):
        return None
    candidates = set(before.cleaner.candidates)
    want = sorted({m.resolver.wal_key(w) for w in wals} & candidates)
    node = before.rs[args[0]]
    got = sorted(set(queue_wal_keys(node.queues if node else ())) & candidates)
    return None if got == want else f"the model's cleaner finds {got} there, the event {want}"


def _cleaner_listed(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """zk-multi's cleaner listed exactly the queues the event names at the server (or, in a
    trace recorded before the queue reads were lines of their own, found the WALs it lists)."""
    queues = e.detail.get("queues")
    if queues is None:
        return _cleaner_read_wals(m, n, e, args, before, after)
    s = args[0]
    want = sorted((s, p, tuple(c)) for p, c in map(m.steps.parse_zk_queue_id, queues))
    got = sorted(after.cleaner.listed)
    return None if got == want else f"the model's cleaner lists {got} there, the event {want}"


def _cleaner_queue_wals(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """zk-multi's cleaner found, among the run's candidates, exactly the WALs the event lists in
    the queue it read (none if the queue is gone since the listing)."""
    wals = e.detail.get("wals") or []
    want = sorted({m.resolver.wal_key(w) for w in wals} & set(before.cleaner.candidates))
    got = sorted(m.design.listed_wals(before, args[1]))
    return None if got == want else f"the model's cleaner finds {got} in it, the event {want}"


# --- observations -------------------------------------------------------------------------------


def lost_batches(events: list[Event]) -> set[int]:
    """The ``sink_apply`` events (by id) of a sink whose edits the sending region server never
    recorded shipping there, and after which it recorded no batch to that peer at all (it
    stopped before it heard back): no ``ship`` line of the sender's process to that peer names
    them (one to another peer may: the same edit goes to every peer it is owed to), and no later
    step of a source of that process for that peer shows it heard back."""
    shipped: dict[tuple[str, str], set[str]] = {}
    last: dict[tuple[str, str], int] = {}
    queues: dict[tuple[str, Any, Any], str] = {}
    """A source (process, pid, number) -> its queue, from the lines that name it."""
    for n, e in enumerate(events):
        d = e.detail
        source = (e.proc, e.pid, e.args.get("shipper"))
        if d.get("queue") and source[2] is not None:
            queues.setdefault(source, str(d["queue"]))
        if e.name == "ship" and e.proc.startswith("rs-"):
            key = (e.proc[3:], str(d.get("queue") or "").split("-", 1)[0])
            shipped.setdefault(key, set()).update(d.get("uids") or [])
        if e.name in ("ship", "persist", "advance", "finish") and e.proc.startswith("rs-"):
            # a source's later step (its position written, say) comes after it heard back
            key = (e.proc[3:], queues.get(source, str(d.get("queue") or "")).split("-", 1)[0])
            last[key] = n
    out = set()
    for n, e in enumerate(events):
        d = e.detail
        if e.name != "sink_apply" or not e.proc.startswith("sink-") or not d.get("source"):
            continue
        key = (d["source"], str(int(e.proc.split("-", 1)[1]) + 1))  # cluster c: peer id c+1
        if not set(d.get("uids") or []) <= shipped.get(key, set()) and last.get(key, -1) < n:
            out.add(id(e))
    return out


def relay_answers(events: list[Event]) -> tuple[dict[int, list[str]], set[int]]:
    """Which applications of an edit coming home the other cluster heard of, and which of its
    sends it kept. A region server of ours applies the edit (``sink_apply``) and answers; the
    other cluster records the answer (``relay_home``, naming the server) and then persists how
    far it has sent. Two ways an edit is applied and sent again: our server dies before it
    answers (no ``relay_home`` answers its application), or the other cluster restarts after the
    answer and before it persisted its position (a ``relay_home`` the same edit's later one
    follows). Returns, per ``sink_apply`` event (by id), the edits no ``relay_home`` answers
    (each answers the latest unanswered application of its edit by the server it names), and
    the ``relay_home`` events (by id) whose edit is sent again: both are ``relay_apply`` steps,
    the other cluster's position unmoved."""
    waiting: dict[tuple[str, int], list[int]] = {}
    early: dict[tuple[str, int], int] = {}
    last: dict[str, int] = {}
    unpersisted: set[int] = set()
    for e in events:
        d = e.detail
        if e.name == "sink_apply" and e.proc.startswith("rs-"):
            s = server_index(e.proc[3:])
            for u in d.get("uids") or []:
                if early.get((u, s)):
                    early[(u, s)] -= 1  # its answer was merged ahead of it
                else:
                    waiting.setdefault((u, s), []).append(id(e))
        elif e.name == "relay_home" and isinstance(d.get("uid"), str):
            u, s = d["uid"], e.args.get("server")
            if u in last:
                unpersisted.add(last[u])
            last[u] = id(e)
            if waiting.get((u, s)):
                waiting[(u, s)].pop()
            else:
                early[(u, s)] = early.get((u, s), 0) + 1
    unanswered: dict[int, list[str]] = {}
    for (u, _s), ids in waiting.items():
        for i in ids:
            unanswered.setdefault(i, []).append(u)
    return unanswered, unpersisted


def _sink_apply(m: Mapping, e: Event, st: Any) -> str | None:
    """The edits a sink (or, for an edit coming home, a region server of ours) applied are
    applied in the model too."""
    d = e.detail
    cluster = int(e.proc.split("-", 1)[1]) if e.proc.startswith("sink-") else 0
    applied = set(st.sinks[cluster].applied)
    source = d.get("source")
    if cluster and source:
        try:
            s = server_index(source)
        except ValueError:
            s = None
        if s is not None and s < len(st.servers) and not st.servers[s].alive:
            return None  # a zombie's batch (the entry's ``zombie``): the model has not shipped it
    for uid in d.get("uids") or []:
        model = m.resolver.uids.get(uid)
        if model is None:
            return f"edit {uid} is not one the trace wrote"
        if model not in applied:
            return f"edit {uid} is applied at cluster {cluster}, but not in the model"
    return None


def _wal_deleted(m: Mapping, e: Event, st: Any) -> str | None:
    """A WAL the cleaner deleted is deleted in the model; in the table era, the model's
    ``cleaner_delete`` deletes a run's whole decision in one step, after the real cleaner's
    deletes: a WAL that run may delete counts as deleted."""
    name = e.detail["wal"]
    key = m.resolver.wal_key(name)
    wal = st.wals[m.cfg.slot(key)]
    if wal and wal.place == DELETED:
        return None
    if (
        wal
        and wal.place == ARCHIVED
        and hasattr(st, "cleaner")
        and st.cleaner.phase == C_READY
        and m.design.rule_cleaner_may_delete(m.cfg, st, key)
    ):
        return None
    return f"{name} is deleted, but not in the model"


def _fenced(m: Mapping, e: Event, st: Any) -> str | None:
    """A process that found its session gone is dead in the model."""
    if not e.proc.startswith("rs-"):
        return None
    s = server_index(e.proc[3:])
    if st.servers[s].alive:
        return f"{e['proc'][3:]} was fenced, but is alive in the model"
    return None


# --- what a meta event is when it stands for a step -----------------------------------------


def _fault_acts(m: Mapping, e: Event) -> str | None:
    """A fault whose effect no other event records (``FAULT_STEPS``) is that step, or
    unmodelled where the design has none."""
    step = FAULT_STEPS.get(e.detail.get("fault"))
    if step is None:
        return None
    return "action" if step in m.kinds else "unmodelled"


def _fault_steps(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """The fault's step; a master restart may also follow a deletion no line records
    (``lost_delete``)."""
    fault = Action(FAULT_STEPS[e.detail["fault"]], ())
    yield Candidate((fault,))
    yield from m.lost_delete(fault, st)


def _sink_apply_acts(m: Mapping, e: Event) -> str | None:
    """Edits coming home that no ``relay_home`` answers, or a batch its sender never recorded:
    steps, not only a check."""
    return "action" if m.unanswered(e) or id(e) in m.lost_ships else None


def _sink_apply_steps(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """The sender's ``ship`` steps of a batch it never recorded (``lost_ship``), else the
    ``relay_apply`` steps of the edits coming home (``relay_applies``)."""
    if id(e) in m.lost_ships:
        yield from m.lost_ship(e, st)
    else:
        yield from m.relay_applies(e, st)


def _wal_deleted_acts(m: Mapping, e: Event) -> str | None:
    """A design whose cleaner deletes a run's WALs one by one has the deletion as a step."""
    return "action" if "cleaner_delete_wal" in m.kinds else None


def _wal_delete_step(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """``cleaner_delete_wal`` of the model's WAL key of ``detail.wal``."""
    key = m.resolver.wal_key(e.detail["wal"])
    yield Candidate((Action("cleaner_delete_wal", key),))


def _always(m: Mapping, e: Event) -> str | None:
    return "action"


def _claim_failed(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    return m.claim_failed(e, st)


def _legacy_join_acts(m: Mapping, e: Event) -> str | None:
    """A trace recorded before region servers recorded ``join``: a server's start is its join."""
    return "action" if m.legacy_join and e.proc.startswith("rs-") else None


def _join_at_start(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """``join`` of the server the started process is (``detail.index``)."""
    yield Candidate((Action("join", (e.detail["index"],)),))


# --- steps an action event is in some states, tried first ---------------------------------------


def _died_starting(m: Mapping, e: Event, st: Any) -> Candidate | None:
    """ZooKeeper era: a crash of a server with no join recorded, nor read back from the txn log,
    is ``died_starting``: it never made its replication znode."""
    if "died_starting" in m.kinds and _unrecorded_join(m, e, st):
        return Candidate((Action("died_starting", (e.args["server"],)),))
    return None


def _marked_drop_step(m: Mapping, e: Event, st: Any) -> Candidate | None:
    """A queue its claimer marked for its delete (``_marked_drop``): ``drop_claimed_queue``."""
    if "drop_claimed_queue" not in m.kinds:
        return None
    i = _marked_drop(m, e, st)
    return None if i is None else Candidate((Action("drop_claimed_queue", (e.args["server"], i)),))


# --- steps the model took with another one -------------------------------------------------------


def _finish_done(m: Mapping, e: Event, st: Any) -> bool:
    """An empty claimed queue removed with its claim, or a removed peer's queue already
    dropped."""
    return _empty_claim_removed(m, e, st) or _removed_peer_queue_dropped(m, e, st)


def _archive_done(m: Mapping, e: Event, st: Any) -> bool:
    """An archive the split or the teardown does."""
    return _split_archives(m, e, st) or _teardown_archive(m, e, st)


def _batch_entries(m: Mapping, e: Event, st: Any) -> int:
    """A shipped batch of ``detail.read`` entries is that many model ``ship`` steps of one entry
    each (the model's batch is one entry)."""
    return max(1, int(e.detail.get("read", 1)))


# --- the table -----------------------------------------------------------------------------------

_SHIPPER = Param(
    "shipper", "detail.queue or detail.row: the model's source with that queue", "shipper"
)
_DEAD_QUEUE = Param(
    "queue", "detail.queue: the dead server's queue of that id (ZooKeeper era)", "dead_queue"
)
_ADMIN = ("add_peer", "remove_peer", "disable_peer", "enable_peer")


def _action(event: str, params: tuple[Param, ...], note: str = "", **hooks: Any) -> EventRule:
    return EventRule(event, "action", event, params, note=note, **hooks)


def _meta(event: str, role: str, note: str, action: str | None = None, **hooks: Any) -> EventRule:
    return EventRule(event, "meta", action, role=role, note=note, **hooks)


RULES_LIST: tuple[EventRule, ...] = (
    # --- region servers: joins, writes, rolls, sources ---
    _action("join", args("server"), "a region server's znode (ZooKeeper era) or live znode"),
    _action(
        "put",
        args("server", "group", "kind"),
        "a client edit appended to the server's WAL; ``detail.uid`` names the entry appended",
        expect=_put_uid,
        zombie=_zombie_put,
    ),
    _action(
        "roll",
        args("server", "group"),
        zombie=_zombie_step("zombie_roll", "server", "group"),
    ),
    _action(
        "archive",
        args("server", "group", "seq"),
        "the master's split and the teardown's archives are part of other steps",
        already=_archive_done,
        zombie=_zombie_step("zombie_archive", "server", "group", "seq"),
    ),
    _action(
        "ship",
        (*args("server"), _SHIPPER, *args("sink")),
        "a batch of ``detail.read`` entries; ``detail.uids`` names the edits it ships",
        composed=_batch_entries,
        expect=_ship_uids,
        zombie=_zombie_ship,
    ),
    _action(
        "persist",
        (*args("server"), _SHIPPER),
        "the position written: ``detail.position`` in ``detail.wal``",
        expect=_persist_position,
        zombie=_zombie_persist,
        catch_up=("persist",),
    ),
    _action(
        "advance",
        (*args("server"), _SHIPPER),
        "the source moved past a finished WAL",
        zombie=_zombie_persist,
        catch_up=("advance",),
    ),
    _action(
        "finish",
        (*args("server"), _SHIPPER),
        "a recovered source's queue deleted at its last WAL's end",
        first=_marked_drop_step,
        already=_finish_done,
        catch_up=("finish", "skip_missing"),
    ),
    _action("skip_missing", (*args("server"), _SHIPPER), "a WAL found missing, skipped"),
    _action(
        "refresh",
        args("peer", "server"),
        "a region server's answer to a peer procedure's refresh",
        already=_refresh_unneeded,
        zombie=_zombie_step("zombie_refresh", "peer", "server"),
    ),
    _action("peer_sync", args("server", "peer"), "ZooKeeper era: a server follows the peers"),
    _action(
        "crash",
        args("server"),
        "the driver's record of a server's death (its session ended)",
        first=_died_starting,
        already=_zombie_killed,
        prefix=_unrecorded_join,
        archived_first=True,
    ),
    # --- failover ---
    _action("lock", args("server", "dead"), "zk-lock: the claimer's lock znode"),
    _action("lock_cleaner", args("dead"), "zk-lock: the dead server's lock cleaned"),
    _action(
        "copy_queue",
        (
            *args("server", "dead"),
            Param("queue", "detail.queue: the copied queue's id", "dead_queue"),
        ),
        "zk-lock: one queue copied to the claimer",
    ),
    _action("finish_claim", args("server", "dead"), "zk-lock: the dead server's znode deleted"),
    _action(
        "claim_read",
        (
            *args("server", "dead"),
            _DEAD_QUEUE,
            Param("child", "detail.row: the claim child of that row (table)", "child"),
        ),
        "a claimer reads the queue it claims (ZooKeeper era; ``args.queue`` -1: none left to "
        "read) or the claim child's row (table)",
        already=_claimed_already,
    ),
    _action(
        "claim_commit",
        args("server"),
        "the claim's multi (ZooKeeper era) or conditional mutation (table era)",
        alternatives=("zombie_claim_commit",),
    ),
    _action(
        "drop_claimed_queue",
        (
            *args("server"),
            Param("queue", "detail.queue: a queue the claimer marked", "marked_queue"),
        ),
        "a claimer deletes a claimed queue of a removed peer",
        first=_marked_drop_step,
        already=_removed_peer_queue_dropped,
    ),
    _action("scp_finish", args("dead"), "zk-multi: the dead server's ServerCrashProcedure ends"),
    _action("scp_split", args("dead"), "table: the SCP's split of the dead server's WALs"),
    _action("scp_claim_stage", args("dead"), "table: the SCP's claim stage starts"),
    _action("arqp_read_missing", args("dead"), "table: the claim procedure reads missing queues"),
    _action("arqp_put_missing", args("dead"), "table: the claim procedure adds missing queues"),
    _action(
        "arqp_claim",
        (
            *args("dead"),
            Param("targets", "args.targets, in the model's queue order by detail.rows", "targets"),
        ),
        "table: a CLAIM round; decided by reads (``detail.read``) and written after them",
        at_reads=True,
    ),
    _action(
        "claim_lost",
        (*args("dead"), Param("child", "detail.row: the claim child of that row", "child")),
        "table: a claim child dropped (its target died)",
    ),
    # --- peers ---
    _action("add_peer", args("peer")),
    _action("remove_peer", args("peer")),
    _action("enable_peer", args("peer")),
    _action(
        "disable_peer",
        args("peer"),
        "a region server follows the peer-state znode by a watch, so its sources may ship until "
        "they see the change; the model's sources read the znode itself, so the model takes the "
        "step with the peer's next admin event, which needs it (nothing else does)",
        deferred_until=_ADMIN,
    ),
    _action(
        "peer_proc",
        args("peer"),
        "table: a recorded stage (``detail.stage``) of a peer procedure is the model's steps to "
        "the next stage",
        already=_refresh_sent,
        prefix=_dead_refreshes,
        path=_peer_proc_path,
    ),
    # --- the log cleaner ---
    _action(
        "clean",
        args("server", "group", "seq"),
        "zk-lock: the lookup; ``detail.cached`` names what it cached",
        expect=_clean_lookup,
    ),
    _action(
        "cleaner_start",
        (),
        "``detail.wals``: the archived WALs the run considers",
        expect=_cleaner_candidates,
        archived_first=True,
    ),
    _action(
        "cleaner_read",
        args("server"),
        "the cleaner lists a server's queues (``detail.queues``); the table era's reads every "
        "queue (no parameter)",
        after=_queue_reads,
        expect=_cleaner_listed,
    ),
    _action(
        "cleaner_read_queue",
        (
            *args("server"),
            Param("queue", "detail.queue: a queue the cleaner listed", "listed_queue"),
        ),
        "zk-multi: the cleaner reads one queue (``detail.wals``)",
        expect=_cleaner_queue_wals,
    ),
    _action(
        "cleaner_finish",
        (),
        "zk-multi: the run's decision (``detail.retry``: the cversion of /rs moved)",
        prefix=_absent_reads,
        expect=_cleaner_retry,
    ),
    _action("cleaner_delete", (), "table: the run's decision, its WALs deleted"),
    # --- other clusters and sinks ---
    _action(
        "foreign_put",
        args("cluster"),
        "a client edit at another cluster; one in a LOCAL-scoped family never leaves it",
        context_when=local_foreign,
    ),
    _action(
        "relay_home",
        args("cluster", "server"),
        "an edit of another cluster coming home; the other cluster's edits before it that loop "
        "prevention keeps back are steps too",
        composed=_relay_steps,
        sent_again="relay_apply",
    ),
    _action("sink_down", args("cluster", "sink")),
    _action("sink_up", args("cluster", "sink")),
    # --- meta records ---
    _meta(
        "sink_apply",
        "observation",
        "the edits a sink (or, for an edit coming home, a region server of ours) applied are "
        "applied in the model; an edit coming home no ``relay_home`` answers is "
        "``relay_apply``, a batch its sender never recorded its ``ship`` steps",
        acts_when=_sink_apply_acts,
        candidates=_sink_apply_steps,
        observe=_sink_apply,
    ),
    _meta(
        "wal_deleted",
        "observation",
        "a WAL the cleaner deleted is deleted in the model; zk-multi deletes a run's WALs one by "
        "one: ``cleaner_delete_wal`` of ``detail.wal``'s key",
        action="cleaner_delete_wal",
        acts_when=_wal_deleted_acts,
        candidates=_wal_delete_step,
        observe=_wal_deleted,
    ),
    _meta(
        "fenced",
        "observation",
        "a process that found its session gone is dead in the model",
        observe=_fenced,
    ),
    _meta(
        "claim_failed",
        "action",
        "a claim whose multi failed: the claimer's ``claim_commit``, which must claim nothing",
        action="claim_commit",
        acts_when=_always,
        candidates=_claim_failed,
    ),
    _meta(
        "fault",
        "context",
        "the driver's record of a fault; its effect is the crash, sink_down or restart step, "
        "and a master restart (``detail.fault``) is the model's ``master_restart``",
        action="master_restart",
        acts_when=_fault_acts,
        candidates=_fault_steps,
    ),
    _meta(
        "process_start",
        "context",
        "a process started (a region server joins by creating its znode: ``join``); in a trace "
        "recorded before ``join`` was, a region server's start is its ``join`` of "
        "``detail.index``",
        action="join",
        acts_when=_legacy_join_acts,
        candidates=_join_at_start,
    ),
    _meta(
        "unmodelled",
        "unmodelled",
        "a step the cluster took that its design has no action for; one naming an action "
        "(``detail.action``) the design has now is that action",
        promote=_unmodelled_action,
    ),
    _meta(
        "note",
        "context",
        "a remark for the reader (admin schedule, retries, sends of claim requests); an older "
        "trace's note that a claimed queue was dropped is ``drop_claimed_queue``",
        promote=_drop_note,
    ),
    _meta(
        "process_exit",
        "context",
        "a process ended; a region server's death is the crash the driver records",
    ),
    _meta("session", "context", "a ZooKeeper session id, for the fault injector"),
    _meta(
        "peer_seen",
        "context",
        "a region server read a peer's new state; the model's sources read the peer state when "
        "they ship",
    ),
    _meta("run_end", "context", "the driver's end of run"),
    _meta(
        "wal_truncated",
        "context",
        "a torn tail cut off while splitting; the model's WALs hold whole entries",
    ),
    _meta(
        "unacked_put",
        "context",
        "a client write no answer came back for; the edit is the ``put`` the server records if "
        "it appended it",
    ),
)

RULES: dict[str, EventRule] = {r.event: r for r in RULES_LIST}
"""The mapping: one entry per event kind."""

DEFERRED: dict[str, tuple[str, ...]] = {
    r.event: r.deferred_until for r in RULES_LIST if r.deferred_until
}
AT_READS = frozenset(r.event for r in RULES_LIST if r.at_reads)

DEFAULT_FINDS = {
    "shipper": "shipper",
    "queue": "dead_queue",
    "child": "child",
    "targets": "targets",
}
"""How an action event of a kind with no entry (one the reference cluster never records) names
a parameter the model numbers differently."""


_PLAIN = EventRule(
    "", "action", None, params=tuple(Param(p, find=f) for p, f in DEFAULT_FINDS.items())
)
"""The entry of an action event whose kind has none (``NOT_RECORDED``): its model action, the
parameters from ``args``, the real names found as ``DEFAULT_FINDS`` says."""


ELSEWHERE = "recorded as another event: "
NOT_RECORDED: dict[str, str] = {
    "died_starting": ELSEWHERE + "a ``crash`` of a server that never recorded its ``join``",
    "master_restart": ELSEWHERE + "a ``fault`` of kind ``master-restart``",
    "cleaner_delete_wal": ELSEWHERE + "a ``wal_deleted`` record",
    "relay_apply": ELSEWHERE + "a ``sink_apply`` at a region server of ours that no "
    "``relay_home`` answers, or a ``relay_home`` the other cluster sent again",
    "zombie_put": ELSEWHERE + "a ``put`` by a server the model has dead",
    "zombie_ship": ELSEWHERE + "a ``ship`` by a server the model has dead",
    "zombie_persist": ELSEWHERE + "a ``persist`` or ``advance`` by a server the model has dead",
    "zombie_roll": ELSEWHERE + "a ``roll`` by a server the model has dead",
    "zombie_archive": ELSEWHERE + "an ``archive`` by a server the model has dead",
    "zombie_refresh": ELSEWHERE + "a ``refresh`` by a server the model has dead",
    "zombie_relay_apply": ELSEWHERE + "a ``sink_apply`` at a server the model has dead",
    "zombie_claim_commit": ELSEWHERE + "a ``claim_commit`` landing after its claimer died",
    "claim_redeliver": "taken without an event (``UNRECORDED``): " + UNRECORDED["claim_redeliver"],
    "restart": "the reference cluster starts a dead server again as a new incarnation, which "
    "joins under a new server name (``join``)",
    "register_wal": "a hazard the seeds argue against: the reference cluster queues a WAL "
    "before it is used",
    "roll_zk_fail": "the reference cluster injects no failed ZooKeeper write",
    "reselect_sinks": "the reference cluster keeps its sink subset",
    "toggle_replication": "the reference cluster never flips the replication state znode",
    "update_peer": "the reference cluster's workload does not update a peer's configuration",
    "chore_clean": "the reference cluster's zk-lock cleaner runs passes (``clean``), not the "
    "master's chore",
    "lose_failover_event": "the reference cluster loses no failover trigger",
    "persist_write_fail": "the reference cluster injects no failed write to hbase:replication",
    "refresh_write_fail": "the reference cluster injects no failed write to hbase:replication",
    "put_seq_ids": "the reference cluster runs no serial peer",
    "peer_proc_start": "the reference cluster's peer procedures are recorded from their first "
    "stage (``add_peer``, ``remove_peer``, ``peer_proc``)",
    "open_region": "the reference cluster has no regions to reassign (no serial peer)",
    "open_table": "the bootstrap of hbase:replication (``table-naive``) is not the cluster's",
    "transit_peer": "the reference cluster runs no synchronous replication",
    "remote_put": "the reference cluster runs no synchronous replication",
    "remote_ship": "the reference cluster runs no synchronous replication",
    "remote_clean": "the reference cluster runs no synchronous replication",
    "remote_downgrade": "the reference cluster runs no synchronous replication",
    "replay_wal": "the reference cluster runs no synchronous replication",
    "arqp_remove": "the reference cluster does not run ReplicationSyncUp, whose marker it follows",
    "relay_ship": "the reference cluster's other clusters relay no edit onward to a third",
    "cluster_down": "the reference cluster does not stop as a whole for ReplicationSyncUp",
    "cluster_up": "the reference cluster does not stop as a whole for ReplicationSyncUp",
    "syncup_start": "the reference cluster does not run ReplicationSyncUp",
    "syncup_ship": "the reference cluster does not run ReplicationSyncUp",
    "syncup_finish": "the reference cluster does not run ReplicationSyncUp",
    "syncup_fail": "the reference cluster does not run ReplicationSyncUp",
    "migration_step": "the reference cluster runs no ZooKeeper-to-table migration",
    "migrate_server": "the reference cluster runs no ZooKeeper-to-table migration",
    "migrate_hfile_refs": "the reference cluster runs no ZooKeeper-to-table migration",
    "upgrade": "the reference cluster runs no rolling upgrade",
    "legacy_position_write": "the reference cluster runs no ZooKeeper-to-table migration",
    "bulk_load": "the reference cluster does no bulk load",
    "bulk_load_commit": "the reference cluster does no bulk load",
    "bulk_load_refs": "the reference cluster does no bulk load",
    "hfile_archive": "the reference cluster does no bulk load",
    "hfile_clean": "the reference cluster does no bulk load",
}
"""The model actions of the reference cluster's designs that no event of their own records, each
with the reason: an action event naming one is matched by its model action as it is (the
parameters from ``args``, the real names found as ``DEFAULT_FINDS`` says)."""


# --- the table, printed -------------------------------------------------------------------------

HOOKS = (
    ("first", "first tries"),
    ("already", "done with another step when"),
    ("zombie", "by a dead server"),
    ("prefix", "before it"),
    ("after", "after it"),
    ("composed", "repeated"),
    ("path", "steps"),
    ("expect", "checks"),
    ("observe", "checks"),
    ("candidates", "steps"),
    ("acts_when", "a step when"),
    ("context_when", "context when"),
    ("promote", "promoted by"),
)
"""The procedural parts of an entry, as the table names them."""


def _hook_name(fn: Any) -> str:
    return getattr(fn, "__name__", repr(fn)).lstrip("_")


def table_rows(rule: EventRule) -> tuple[str, str, str, str]:
    """(event, model action, parameters, notes) of one entry, as markdown cells."""
    event = f"`{rule.event}`" + (" (meta)" if rule.kind == "meta" else "")
    action = f"`{rule.action}`" if rule.action else "none"
    if rule.alternatives:
        action += " or " + ", ".join(f"`{a}`" for a in rule.alternatives)
    if rule.sent_again:
        action += f"; `{rule.sent_again}` when sent again"
    if rule.catch_up:
        action += (
            " (log-only: after its batches, " + " or ".join(f"`{a}`" for a in rule.catch_up) + ")"
        )
    params = "; ".join(
        f"`{p.name}` ← {p.where}" + (f" (`{p.find}`)" if p.find else "") for p in rule.params
    )
    notes = [rule.note.replace("``", "`")] if rule.note else []
    if rule.kind == "meta":
        notes.insert(0, f"*{rule.role}*")
    flags = [
        (rule.deferred_until, "deferred until the next " + ", ".join(rule.deferred_until)),
        (rule.at_reads, "taken at its reads"),
        (rule.archived_first, "log-only: archives tried first"),
    ]
    notes += [text for on, text in flags if on]
    hooks = [
        f"{label}: `{_hook_name(getattr(rule, name))}`"
        for name, label in HOOKS
        if getattr(rule, name) is not None
    ]
    if hooks:
        notes.append("; ".join(hooks))
    return event, action, params or "none", ". ".join(notes)


def table_markdown() -> str:
    """The mapping as markdown: one row per event kind (``RULES``), then the model actions no
    event of their own records (``NOT_RECORDED``)."""
    lines = [
        "| event | model action | parameters ← where from | notes |",
        "|---|---|---|---|",
    ]
    for rule in RULES_LIST:
        cells = (c.replace("|", "\\|") for c in table_rows(rule))
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Model actions no event of their own records:",
        "",
        "| model action | why |",
        "|---|---|",
    ]
    for name, why in sorted(NOT_RECORDED.items()):
        lines.append(f"| `{name}` | {why.replace('``', '`')} |")
    return "\n".join(lines) + "\n"
