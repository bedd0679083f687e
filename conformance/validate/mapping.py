"""Trace events to model actions, written once for the three designs the reference cluster runs.

Every event of a trace has one role:

* **action**: a step of the model. It maps to one model action, or to a declared composition of
  them (``COMPOSED``), whose arguments come from the event's ``args`` in the model's convention,
  except where the cluster names a thing the model numbers differently (``RESOLVED``): a source
  (``shipper``), a dead server's queue (``queue``) or a claim child (``child``) is found in the
  model's state by the real name the event carries (queue id, row key);
* **observation**: a ``meta`` event that states a fact the model's state must agree with when it
  is matched (``OBSERVATIONS``): an edit a sink applied, a WAL the cleaner deleted, a server that
  found itself fenced (a design that deletes a cleaner run's WALs one by one, zk-multi, has the
  deletion as its step ``cleaner_delete_wal``);
* **context**: a ``meta`` event that says nothing the model has a notion of (``CONTEXT``, each
  with the reason);
* **unmodelled**: a step the cluster took that its design has no action for. The validator lists
  them; a trace with one is never accepted.

``Resolver`` precomputes, once per trace, what the events name: the model key of every WAL file
name, the model identity of every edit uid, and each process's source numbers with their queues.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from replcheck.conformance.fromlog.procs import PHASE_OF_STAGE, peer_phase
from replcheck.conformance.hbase.names import Steps, server_index
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

Event = dict[str, Any]

CONTEXT: dict[str, str] = {
    "process_start": "a process started (a region server joins by creating its znode: ``join``)",
    "process_exit": "a process ended; a region server's death is the crash the driver records",
    "session": "a ZooKeeper session id, for the fault injector",
    "fault": "the driver's record of a fault; its effect is the crash, sink_down or restart step",
    "note": "a remark for the reader (admin schedule, retries, sends of claim requests)",
    "peer_seen": "a region server read a peer's new state; the model's sources read the peer "
    "state when they ship",
    "run_end": "the driver's end of run",
    "wal_truncated": "a torn tail cut off while splitting; the model's WALs hold whole entries",
}
"""Meta events that state nothing the model has a notion of, each with the reason."""

UNRECORDED: dict[str, str] = {
    "claim_redeliver": "a restarted master's claim child is sent again without an event",
}
"""The model steps the reference cluster takes without recording an event, with the reason. Every
other step of a design is either recorded by an event or never taken by the cluster (the
replication state toggle, sink re-selection, the bootstrap, SyncUp, the migration)."""

LOG_ONLY_HIDDEN: dict[str, str] = {
    "claim_read": "a claimer reads the dead server's queue before its claim's multi; reads are not "
    "in a ZooKeeper log",
    "cleaner_read": "the table era's log cleaner reads the queues between its barrier's two writes",
}
"""The model steps a log-only trace (``txntrace``) leaves hidden, with the reason: everything
else either writes ZooKeeper or is composed from what the writes say (``CATCH_UP``)."""

MAX_ARCHIVE_CHOICES = 6

CATCH_UP: dict[str, tuple[str, ...]] = {
    "persist": ("persist",),
    "advance": ("advance",),
    "finish": ("finish", "skip_missing"),
}
"""Log-only source steps that the batches reaching their point come before (``catch_up``), and
the model steps each may be (a queue deleted at its last WAL's end, or at a WAL found missing)."""

DEFERRED: dict[str, str] = {
    "disable_peer": "a region server follows the peer-state znode by a watch, so its sources may "
    "ship until they see the change; the model's sources read the znode itself, so the model "
    "takes the step with the peer's next admin event, which needs it (nothing else does)",
}
"""Events the model matches by no step, taking their step before the next event of their
family for the same arguments (``DEFERRED_FAMILY``), with the reason."""

DEFERRED_FAMILY: dict[str, tuple[str, ...]] = {
    "disable_peer": ("add_peer", "remove_peer", "disable_peer", "enable_peer"),
}
"""Per deferred event, the events before which its step is taken."""

ALTERNATIVES: dict[str, tuple[str, ...]] = {"claim_commit": ("zombie_claim_commit",)}
"""Events the model splits by circumstance: a claim mutation landing after its claimer died is
``zombie_claim_commit``."""

DROP_NOTE = "claimed queue dropped"
"""How a trace recorded before the claimer's delete was a step of its own (``drop_claimed_queue``)
says that step: a ``note`` with this text and the queue."""

FAULT_NOTES = {"master-restart": "master_restart"}


"""``fault`` events whose effect is a model step the cluster records nowhere else."""


@dataclass(frozen=True)
class Candidate:
    """One way an event maps onto the model: a sequence of actions, and what their outcome must
    be to agree with what the event says (``expect(before, after)``: a problem, or None)."""

    actions: tuple[Action, ...]
    expect: Callable[[Any, Any], str | None] | None = None


def local_foreign(e: Event) -> bool:
    """A client edit at another cluster in a LOCAL-scoped family: it never leaves that cluster, so
    ours never sees it (the model's edits at other clusters are all GLOBAL)."""
    return e["name"] == "foreign_put" and (e.get("detail") or {}).get("scope") == LOCAL


def promote(events: list[Event], design: Design) -> list[Event]:
    """A trace recorded while its design had no action for a step holds the step as an
    ``unmodelled`` event naming the action; once the design has the action, the event is it.
    A step decided by reads and written after them is taken at its reads (``at_reads``)."""
    kinds = {k.name for k in design.kinds}
    out = []
    for e in events:
        d = e.get("detail") or {}
        if e["name"] == "unmodelled" and d.get("action") in kinds:
            e = {**e, "kind": "action", "name": d["action"], "args": d.get("action_args") or {}}
        elif e["name"] == "note" and d.get("what") == DROP_NOTE and "drop_claimed_queue" in kinds:
            args = {"server": server_index(e["proc"][3:]), "queue": -1}
            e = {**e, "kind": "action", "name": "drop_claimed_queue", "args": args}
        out.append(e)
    return at_reads(out)


DECIDED_AT_READS = ("arqp_claim",)
"""Steps the master decides by its reads and writes after them: a CLAIM round reads the online
servers, the peers and the dead server's rows, then sends the claims. HBase's
AssignReplicationQueuesProcedure reads the master's online-server list in memory and persists
its children after; a server that joins or dies in between is not in the round's view. The
model's ``arqp_claim`` reads and writes in one step: the step is where the reads were served."""


def at_reads(events: list[Event]) -> list[Event]:
    """Each ``DECIDED_AT_READS`` event as the step at its reads: its ``read`` window (the zxids
    its reads were served between), its write named apart (``write``) and no longer a storage
    event. A line that names only its write (a trace recorded before the master named its
    reads, or a step read from a ZooKeeper log) gets the widest window its lane allows: after
    the procedure's previous write (the master reads after it), before its own."""
    last: dict[tuple[str, Any], int] = {}
    out = []
    for e in events:
        d = e.get("detail") or {}
        dead = (e.get("args") or {}).get("dead")
        z = e.get("zxid")
        if e["name"] in DECIDED_AT_READS and isinstance(z, int):
            if d.get("read"):
                e = {**e, "zxid": None, "detail": {**d, "write": z}}
            else:  # the widest window: when the reads were served is not known
                read = [last.get((e["proc"], dead), 0), z - 1]
                e = {**e, "zxid": None, "detail": {**d, "read": read, "write": z, "widest": True}}
        write = e.get("zxid") if e.get("zxid") is not None else d.get("write")
        if isinstance(dead, int) and isinstance(write, int) and e["name"] != "claim_lost":
            last[(e["proc"], dead)] = write  # a dropped claim is written after the round's reads
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
            e["args"]["server"]
            for e in events
            if e["name"] == "join" and isinstance((e.get("args") or {}).get("server"), int)
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
            a = e.get("args") or {}
            if e["name"] == "join" and isinstance(a.get("server"), int):
                self.joins.setdefault(a["server"], []).append(n)
                down.discard(a["server"])
            elif e["name"] == "add_peer" and isinstance(a.get("peer"), int):
                self.adds.setdefault(a["peer"], []).append(n)
            elif e["name"] == "process_start" and e["proc"].startswith("rs-"):
                down.discard((e.get("detail") or {}).get("index"))
            elif e["name"] == "crash" and isinstance(a.get("server"), int):
                if a["server"] in down:
                    self.crashed_again.add(id(e))
                down.add(a["server"])
        self.unanswered, self.unpersisted = relay_answers(events)
        """Per other cluster, its GLOBAL client edits so far: the model numbers only those."""
        for n, e in enumerate(events):
            d = e.get("detail") or {}
            if e["name"] == "put" or (
                e["name"] == "sink_apply" and e["proc"].startswith("rs-") and "wal" in d
            ):
                key = self.wal_key(d["wal"])
                counts[key] = counts.get(key, 0) + 1
                if e["name"] == "put":
                    puts.append((d["uid"], key))
            if e["name"] == "foreign_put" and not local_foreign(e):
                c = e["args"]["cluster"]
                self.uids.setdefault(d.get("uid"), (c, foreign.get(c, 0)))
                foreign[c] = foreign.get(c, 0) + 1
            if e["name"] == "ship" and {"wal", "start", "end", "read"} <= d.keys():
                batches.append((d["wal"], d["start"], d["end"], int(d["read"])))
            if e.get("args", {}).get("shipper", -1) >= 0:  # -1: no source (a claim with no WAL)
                num = (e["proc"], e["pid"], e["args"]["shipper"])
                q = d.get("queue") or d.get("row")
                if q and numbers.get(num, q) != q:
                    raise TraceFault(
                        f"line {e.get('_line', n + 1)}: source {num[2]} of {num[0]} names queue "
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
        """Event index -> the deferred step it takes first (``DEFERRED``)."""
        pending: dict[tuple, Action] = {}
        for n, e in enumerate(events):
            for kind, family in DEFERRED_FAMILY.items():
                if e["kind"] != "action" or e["name"] not in family:
                    continue
                key = (kind, tuple(sorted(e["args"].items())))
                if key in pending:
                    self.owed[n] = (pending.pop(key),)
                if e["name"] == kind:
                    pending[key] = Action(kind, tuple(e["args"].values()))
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
        ends = [n for n, e in enumerate(events) if e["name"] == "run_end"]
        self.teardown = {id(e) for e in events[ends[0] + 1 :]} if ends else set()
        """Events after the driver's end of run, while it stops the processes."""
        self.legacy_join = "join" in self.kinds and not any(e["name"] == "join" for e in events)
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
        if local_foreign(e):
            return "context"
        if e["kind"] == "action":
            return "action"
        name = e["name"]
        if name == "unmodelled":
            return "unmodelled"
        if name == "fault" and (e.get("detail") or {}).get("fault") in FAULT_NOTES:
            return "action" if FAULT_NOTES[e["detail"]["fault"]] in self.kinds else "unmodelled"
        if self.unanswered(e) or id(e) in self.lost_ships:
            return "action"
        if name == "wal_deleted" and "cleaner_delete_wal" in self.kinds:
            return "action"
        if name in OBSERVATIONS:
            return "observation"
        if name == "claim_failed":
            return "action"
        if name == "process_start" and self.legacy_join and e["proc"].startswith("rs-"):
            return "action"
        return "context"

    def unanswered(self, e: Event) -> list[str]:
        """The edits coming home that a region server of ours applied (``sink_apply``) and that
        no ``relay_home`` answers (``relay_answers``): the edit was sent again
        (``relay_apply``)."""
        if "relay_apply" not in self.kinds:
            return []
        unanswered = self.resolver.unanswered.get(id(e), [])
        return [u for u in (e.get("detail") or {}).get("uids") or [] if u in unanswered]

    def why_unmodelled(self, e: Event) -> str:
        d = e.get("detail") or {}
        if e["name"] == "unmodelled" and "why" in d:
            return str(d["why"])  # a log-only trace's write no model step makes (``txntrace``)
        if e["name"] == "unmodelled":
            what = f"{d.get('action', '?')}{d.get('action_args', {})}"
            return f"{what}: no such action in {self.design.name}"
        return f"{e['name']} {d.get('fault', '')}: no such action in {self.design.name}"

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
        if not hasattr(st, "pprocs") or "shipper" not in (e.get("args") or {}):
            return None
        queue = self.resolver.queue_of.get(n)
        s = e["args"].get("server")
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
        name = e["name"]
        if name == "crash" and "died_starting" in self.kinds and _unrecorded_join(self, e, st):
            # ZooKeeper era: no join recorded, nor read back from the txn log: it never made
            # its replication znode
            yield Candidate((Action("died_starting", (e["args"]["server"],)),))
            return
        if name in ("finish", "drop_claimed_queue") and "drop_claimed_queue" in self.kinds:
            i = _marked_drop(self, e, st)
            if i is not None:
                yield Candidate((Action("drop_claimed_queue", (e["args"]["server"], i)),))
                return
        if e["kind"] == "meta":
            if name == "sink_apply" and id(e) in self.lost_ships:
                yield from self.lost_ship(e, st)
            elif name == "sink_apply":
                yield from self.relay_applies(e, st)
            elif name == "fault":
                fault = Action(FAULT_NOTES[e["detail"]["fault"]], ())
                yield Candidate((fault,))
                yield from self.lost_delete(fault, st)
            elif name == "claim_failed":
                yield from self.claim_failed(e, st)
            elif name == "process_start":
                yield Candidate((Action("join", (e["detail"]["index"],)),))
            elif name == "wal_deleted":
                key = self.resolver.wal_key(e["detail"]["wal"])
                yield Candidate((Action("cleaner_delete_wal", key),))
            return
        kind = self.kinds[name]
        args = e["args"]
        if name in ALREADY and ALREADY[name](self, e, st):
            yield Candidate(())
            return
        s = args.get("server")
        if (
            name in ZOMBIE
            and not st.servers[s].alive
            and st.wals[self.cfg.slot((s, 0, 0))]
            and e["proc"].startswith("rs-")
            and server_index(e["proc"][3:]) == s
        ):
            yield from ZOMBIE[name](self, n, e, st)
            return
        resolved: dict[str, list[int]] = {}
        for p in kind.params:
            if p in RESOLVED:
                found = RESOLVED[p](self, n, e, st)
                if not found:
                    return
                resolved[p] = found
        combos: list[tuple] = [()]
        for p in kind.params:
            values = resolved.get(p) or [_arg(args[p])]
            combos = [(*c, v) for c in combos for v in values]
        repeat = COMPOSED[name](self, e, st) if name in COMPOSED else 1
        if not repeat:
            return
        expect = EXPECT.get(name)
        names = (name, *(a for a in ALTERNATIVES.get(name, ()) if a in self.kinds))
        if name in DEFERRED:
            yield Candidate(())
            return
        before = PREFIX[name](self, e, st) if name in PREFIX else ()
        before = (*self.owed(n, e), *before)
        after = AFTER[name](self, e, st) if name in AFTER else ()
        if self.log_only and name in ("cleaner_start", "crash") and self.steps.era == "table":
            yield from self.archived_first(st, before, Action(name, combos[0]))
            return
        if self.log_only and name in CATCH_UP:
            for combo in combos:
                ships = self.catch_up(e, st, combo)
                if ships is not None:
                    for kind_name in CATCH_UP[name]:
                        if kind_name in self.kinds:
                            yield Candidate((*before, *ships, Action(kind_name, combo)))
            return
        if (
            name == "relay_home"
            and id(e) in self.resolver.unpersisted
            and "relay_apply" in self.kinds
        ):
            # sent again later (``relay_answers``): applied, the other cluster not advanced
            names = ("relay_apply",)
            before = (*before, *(Action("relay_home", combos[0]),) * (repeat - 1))
            repeat = 1
        if name in PATHS:
            path = PATHS[name](self, e, st)
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
        wal_name = (e.get("detail") or {}).get("wal")
        if not sh.wals or (wal_name and self.resolver.wal_key(wal_name) != sh.wals[0]):
            return None
        wal = st.wals[self.cfg.slot(sh.wals[0])]
        target = e["detail"]["entry"] if e["name"] == "persist" else len(wal.entries)
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
        s = server_index(e["proc"][3:])
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
        cluster = int(e["proc"].split("-", 1)[1])
        try:
            s = server_index((e.get("detail") or {}).get("source") or "")
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
        server = server_index(e["proc"][3:]) if e["proc"].startswith("rs-") else None
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
    s = e["args"]["server"]
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
    queue = (e.get("detail") or {}).get("queue")
    s = e["args"].get("server")
    if not isinstance(queue, str) or not isinstance(s, int) or not hasattr(st, "rs"):
        return None
    peer, chain = m.steps.parse_zk_queue_id(queue)
    drops = st.servers[s].drops
    return drops.index((peer, tuple(chain))) if (peer, tuple(chain)) in drops else None


def _listed_queue(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """The index, among the queues the cleaner listed and has not read, of the one the event
    reads (``cleaner_read_queue``)."""
    queue = (e.get("detail") or {}).get("queue")
    if not isinstance(queue, str):
        return []
    peer, chain = m.steps.parse_zk_queue_id(queue)
    s = e["args"].get("server")
    return [i for i, x in enumerate(st.cleaner.listed) if x == (s, peer, tuple(chain))]


def _dead_queue(m: Mapping, n: int, e: Event, st: Any) -> list[int]:
    """The index, among the dead server's queue znodes, of the queue the event names: the old
    queue id (``claim_read``) or the claimed copy's id (``copy_queue``)."""
    d = e["args"]["dead"]
    node = st.rs[d]
    if not node:
        return []
    text = e["detail"]["queue"]
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
    d = e["args"]["dead"]
    row = (e.get("detail") or {}).get("row")
    if row is None:
        children = st.scps[d].children
        return [i for i, c in enumerate(children) if not st.servers[c.target].alive]
    peer, _owner, source = m.steps.parse_row_key(row)
    t = e["args"].get("server")
    return [
        i
        for i, c in enumerate(st.scps[d].children)
        if c.peer == peer and c.source == source and (t is None or c.target == t)
    ]


def _targets(m: Mapping, n: int, e: Event, st: Any) -> list[tuple[int, ...]]:
    """``arqp_claim``'s targets in the model's queue order: the event names which row went to
    which server."""
    rows = e.get("detail", {}).get("rows") or []
    targets = e["args"]["targets"]
    if not rows:
        return [tuple(targets)]
    d = e["args"]["dead"]
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


RESOLVED: dict[str, Callable[[Mapping, int, Event, Any], list]] = {
    "shipper": _shipper,
    "queue": lambda m, n, e, st: _QUEUE_OF.get(e["name"], _dead_queue)(m, n, e, st),
    "child": _child,
    "targets": _targets,
}
"""Parameters the cluster names by a real name, found in the model's state."""

_QUEUE_OF: dict[str, Callable[[Mapping, int, Event, Any], list]] = {
    "drop_claimed_queue": lambda m, n, e, st: [],
    "cleaner_read_queue": _listed_queue,
}
"""Events whose ``queue`` is not a dead server's queue (``_dead_queue``): a claimer's marked
queue (found by ``_marked_drop``), a queue the cleaner listed."""


def _relay_steps(m: Mapping, e: Event, st: Any) -> int:
    """How many model ``relay_home`` steps bring the edit the event names home: the other
    cluster's log holds, before it, edits it does not ship to us (ours, which loop prevention
    keeps from coming back), and the model steps over each of them."""
    c = e["args"]["cluster"]
    relay = st.relays[c]
    want = m.resolver.uids.get((e.get("detail") or {}).get("uid"))
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
    a = e["args"]
    combo = (a["server"], a["group"], a["kind"])
    yield Candidate((Action("zombie_put", combo),), _bind(EXPECT["put"], m, n, e, combo))


def _zombie_ship(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """A batch a region server's source had in flight when its session expired: the edits the
    filter kept reach the peer (``zombie_ship`` each); nothing is written to storage."""
    queue = m.resolver.queue_of.get(n)
    if queue is None:
        return
    peer, _chain = m.resolver.source_of(queue)
    actions = []
    for uid in (e.get("detail") or {}).get("uids") or []:
        model = m.resolver.uids.get(uid)
        if model is None or model[0] != 0:
            return
        _origin, s, g, seq, i = model
        actions.append(Action("zombie_ship", (s, g, seq, i, peer)))
    yield Candidate(tuple(actions))


def _args(e: Event, *names: str) -> tuple:
    return tuple(e["args"][k] for k in names)


def _zombie_persist(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
    """Table era: an offset a region server's source wrote after its session expired (the
    table's client needs no session): ``zombie_persist`` of that queue's row; an ``advance``
    writes the end of its WAL."""
    if "zombie_persist" not in m.kinds:
        return
    queue = m.resolver.queue_of.get(n)
    d = e.get("detail") or {}
    at = m.resolver.entry_at.get(d.get("wal", ""), {})
    if e["name"] == "advance":
        at = {None: FULL}
    if queue is None or "wal" not in d or d.get("position") not in at:
        return
    peer, chain = m.resolver.source_of(queue)
    _ws, g, seq = m.resolver.wal_key(d["wal"])
    source = chain[0] if chain else NO_SOURCE
    args = (e["args"]["server"], peer, source, g, seq, at[d.get("position")])
    yield Candidate((Action("zombie_persist", args),))


def _zombie_step(kind: str, *params: str) -> Callable[..., Iterator[Candidate]]:
    """A zombie's step whose arguments are the event's own."""

    def candidates(m: Mapping, n: int, e: Event, st: Any) -> Iterator[Candidate]:
        if kind in m.kinds:
            yield Candidate((Action(kind, tuple(e["args"][k] for k in params)),))

    return candidates


ZOMBIE: dict[str, Callable[[Mapping, int, Event, Any], Iterator[Candidate]]] = {
    "put": _zombie_put,
    "ship": _zombie_ship,
    "persist": _zombie_persist,
    "advance": _zombie_persist,
    "roll": _zombie_step("zombie_roll", "server", "group"),
    "archive": _zombie_step("zombie_archive", "server", "group", "seq"),
    "refresh": _zombie_step("zombie_refresh", "peer", "server"),
}
"""Steps a region server takes after the model has it dead (HBase's zombie: until the split
takes its WALs' leases its writer can append, and a batch in flight still lands)."""


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
    p = e["args"]["peer"]
    proc = st.pprocs[p]
    if not proc:
        return ()
    op = "add" if proc.kind == ADD else "remove"
    target = PEER_PROC_NEXT.get((op, (e.get("detail") or {}).get("stage", "")))
    if target is None:
        return ()
    for a in _dead_refreshes(m, e, st):  # the event's prefix (``PREFIX``)
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
    proc = st.pprocs[e["args"]["peer"]] if hasattr(st, "pprocs") else None
    return bool(proc) and (e.get("detail") or {}).get("stage") == "refresh"


def _dead_refreshes(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """The master refreshes only the servers alive when it sends the requests; the model's
    refresh of a server that died since it named it just finishes (``do_refresh``). Before the
    procedure waits on its refreshes, the model finishes those."""
    p = e["args"]["peer"]
    proc = st.pprocs[p]
    if not proc or not proc.refresh:
        return ()
    return tuple(
        Action("refresh", (p, s))
        for s in range(m.cfg.servers)
        if proc.refresh >> s & 1 and not st.servers[s].alive
    )


COMPOSED: dict[str, Callable[[Mapping, Event, Any], int]] = {
    "ship": lambda m, e, st: max(1, int((e.get("detail") or {}).get("read", 1))),
    "relay_home": _relay_steps,
}
"""Events that are several model steps of one kind. A shipped batch of ``read`` entries is that
many model ``ship`` steps of one entry each (the model's batch is one entry). An edit relayed
home is as many model ``relay_home`` steps as it takes the other cluster to reach it
(``_relay_steps``)."""

PATHS: dict[str, Callable[[Mapping, Event, Any], tuple[Action, ...]]] = {
    "peer_proc": _peer_proc_path,
}
"""Events that are several model steps worked out one by one: a recorded stage of a peer
procedure is the model's steps to the next stage (``_peer_proc_path``)."""


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
    if "queues" in (e.get("detail") or {}) or "cleaner_read_queue" not in m.kinds:
        return ()
    return _reads_of(m, st, e["args"]["server"])


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
    return e["args"].get("queue") == -1


def _split_archives(m: Mapping, e: Event, st: Any) -> bool:
    """Table era: the master's split moves a dead server's WALs to oldWALs one by one; the
    model's ``scp_split`` moves them all, with the SCP's state, which the master records next."""
    if not hasattr(st, "scps") or e["proc"] != "master":
        return False
    s = e["args"]["server"]
    return not st.servers[s].alive and st.scps[s].stage == SCP_SPLIT


def _empty_claim_removed(m: Mapping, e: Event, st: Any) -> bool:
    """Table era: a claimed queue with no WAL left to replicate starts no source; the claimer
    removes it in a transaction of its own (``finish`` with no source), which the model's
    ``claim_commit`` does with the claim. The row must be gone in the model."""
    if e["args"].get("shipper") != -1 or not hasattr(st, "rows"):
        return False
    peer, owner, source = m.steps.parse_row_key(e["detail"]["row"])
    return not any(r.peer == peer and r.owner == owner and r.source == source for r in st.rows)


def _removed_peer_queue_dropped(m: Mapping, e: Event, st: Any) -> bool:
    """ZooKeeper era: a claimed queue of a removed peer deleted (by its claimer, or by the source
    its claimer started before it saw the removal, ``finish``) that the model has already
    deleted: the claimer's reaction to the removal (``peer_sync``) took every queue of the peer.
    The queue must be gone in the model and its peer removed. (A batch that source shipped first
    would not fit: the model has no per-server view of the peers yet.)"""
    queue = (e.get("detail") or {}).get("queue")
    s = e["args"].get("server")
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
    if e["proc"] != "master" or id(e) not in m.teardown:
        return False
    return st.servers[e["args"]["server"]].alive


def _refresh_unneeded(m: Mapping, e: Event, st: Any) -> bool:
    """A refresh the master sent to a server that joined after the model's procedure named the
    servers to refresh (the model names them with the storage update; HBase's master lists the
    online servers at its REFRESH stage, a step later). The server read the peers in storage when
    it started: an add finds the peer known and a removal finds it unknown, and
    ``RSM.addPeer``/``removePeer`` do nothing (the model's ``rs_add_peer`` and
    ``rs_remove_peer`` alike)."""
    if not hasattr(st, "pprocs"):
        return False
    p, s = e["args"].get("peer"), e["args"].get("server")
    if not isinstance(p, int) or not isinstance(s, int) or not st.pprocs[p]:
        return False
    proc, srv = st.pprocs[p], st.servers[s]
    if proc.refresh >> s & 1 or not srv.alive:
        return False
    return bool(srv.known >> p & 1) == (proc.kind == ADD)


AFTER: dict[str, Callable[[Mapping, Event, Any], tuple[Action, ...]]] = {
    "cleaner_read": _queue_reads,
}
"""Events whose step the model follows at once with steps of its own (each says why)."""


ALREADY: dict[str, Callable[[Mapping, Event, Any], bool]] = {
    "refresh": _refresh_unneeded,
    "finish": lambda m, e, st: (
        _empty_claim_removed(m, e, st) or _removed_peer_queue_dropped(m, e, st)
    ),
    "drop_claimed_queue": lambda m, e, st: _removed_peer_queue_dropped(m, e, st),
    "archive": lambda m, e, st: _split_archives(m, e, st) or _teardown_archive(m, e, st),
    "claim_read": _claimed_already,
    "peer_proc": _refresh_sent,
    "crash": lambda m, e, st: _zombie_killed(m, e, st),
}
"""Events whose step the model takes as part of another one: matched by no model step when the
state shows it done, or when the model does it with the event that follows (each says which)."""


def _zombie_killed(m: Mapping, e: Event, st: Any) -> bool:
    """A second crash line of one incarnation, the model having it dead: the driver killed the
    process of a server whose session had expired (a zombie, still writing what nothing
    fences); its death was the expiry, the first line."""
    s = e["args"].get("server")
    return id(e) in m.resolver.crashed_again and not st.servers[s].alive


def _unrecorded_join(m: Mapping, e: Event, st: Any) -> tuple[Action, ...]:
    """A server killed while it started: the driver chose it among the live servers (its live
    znode was there), but it died before it recorded ``join`` (its replication znode, or its
    line). The table era's join is the live znode: it had joined, and the model takes the join
    before the crash. (The ZooKeeper era's is the replication znode, which it may never have
    made: ``died_starting``, see ``Mapping._candidates``.)"""
    s = e["args"].get("server")
    if not isinstance(s, int) or "join" not in m.kinds or s in m.resolver.joined:
        return ()
    srv = st.servers[s]
    started = srv.started if hasattr(srv, "started") else bool(st.wals[m.cfg.slot((s, 0, 0))])
    return () if srv.alive or started else (Action("join", (s,)),)


PREFIX: dict[str, Callable[[Mapping, Event, Any], tuple[Action, ...]]] = {
    "crash": _unrecorded_join,
    "cleaner_finish": _absent_reads,
    "peer_proc": _dead_refreshes,
}
"""Events before which the model takes steps the cluster has no event for, by design of the
abstraction (each function says why)."""


# --- what an action event says about its outcome ------------------------------------------


def _bind(fn: Callable, m: Mapping, n: int, e: Event, args: tuple) -> Callable[[Any, Any], Any]:
    return lambda before, after: fn(m, n, e, args, before, after)


def _put_uid(m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any) -> str | None:
    """The entry a put appended is the one the event names (the WAL's order is the file's)."""
    uid = (e.get("detail") or {}).get("uid")
    want = m.resolver.uids.get(uid)
    if want is None:
        return None
    s, g = args[0], args[1]
    key = (s, g, after.servers[s].current[g])
    got = after.wals[m.cfg.slot(key)].entries[-1].uid
    return None if got == want else f"the model appended {got}, the event {uid}"


def _ship_uids(m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any) -> str | None:
    """A batch ships exactly the edits the event names (those the filter kept)."""
    d = e.get("detail") or {}
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
    d = e.get("detail") or {}
    if "wals" not in d or not hasattr(after.cleaner, "candidates"):
        return None
    want = sorted(m.resolver.wal_key(w) for w in d["wals"])
    got = sorted(after.cleaner.candidates)
    return None if got == want else f"the model's cleaner lists {got}, the event {want}"


def _cleaner_retry(
    m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any
) -> str | None:
    """zk-multi's cleaner reads everything again exactly when the cversion of ``/rs`` moved."""
    retry = (e.get("detail") or {}).get("retry")
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
    d = e.get("detail") or {}
    at = m.resolver.entry_at.get(d.get("wal", ""), {})
    if "position" not in d or d["position"] not in at:
        return None
    sh = before.servers[args[0]].shippers[args[1]]
    want = at[d["position"]]
    return None if sh.pos == want else f"the model's source is at entry {sh.pos}, the event {want}"


def _clean_lookup(m: Mapping, n: int, e: Event, args: tuple, before: Any, after: Any) -> str | None:
    """zk-lock's lookup cached exactly the queued WALs the event lists (read at some point of
    its zxid window: a WAL a roll queued meanwhile is in it or not, as the real read saw it)."""
    cached = (e.get("detail") or {}).get("cached")
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
    wals = (e.get("detail") or {}).get("wals")
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
    queues = (e.get("detail") or {}).get("queues")
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
    wals = (e.get("detail") or {}).get("wals") or []
    want = sorted({m.resolver.wal_key(w) for w in wals} & set(before.cleaner.candidates))
    got = sorted(m.design.listed_wals(before, args[1]))
    return None if got == want else f"the model's cleaner finds {got} in it, the event {want}"


EXPECT: dict[str, Callable[..., str | None]] = {
    "cleaner_read": _cleaner_listed,
    "cleaner_read_queue": _cleaner_queue_wals,
    "clean": _clean_lookup,
    "persist": _persist_position,
    "cleaner_finish": _cleaner_retry,
    "put": _put_uid,
    "ship": _ship_uids,
    "cleaner_start": _cleaner_candidates,
}
"""Action events whose detail says what the step did, checked against the model's step."""


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
        d = e.get("detail") or {}
        source = (e["proc"], e.get("pid"), (e.get("args") or {}).get("shipper"))
        if d.get("queue") and source[2] is not None:
            queues.setdefault(source, str(d["queue"]))
        if e["name"] == "ship" and e["proc"].startswith("rs-"):
            key = (e["proc"][3:], str(d.get("queue") or "").split("-", 1)[0])
            shipped.setdefault(key, set()).update(d.get("uids") or [])
        if e["name"] in ("ship", "persist", "advance", "finish") and e["proc"].startswith("rs-"):
            # a source's later step (its position written, say) comes after it heard back
            key = (e["proc"][3:], queues.get(source, str(d.get("queue") or "")).split("-", 1)[0])
            last[key] = n
    out = set()
    for n, e in enumerate(events):
        d = e.get("detail") or {}
        if e["name"] != "sink_apply" or not e["proc"].startswith("sink-") or not d.get("source"):
            continue
        key = (d["source"], str(int(e["proc"].split("-", 1)[1]) + 1))  # cluster c: peer id c+1
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
        d = e.get("detail") or {}
        if e["name"] == "sink_apply" and e["proc"].startswith("rs-"):
            s = server_index(e["proc"][3:])
            for u in d.get("uids") or []:
                if early.get((u, s)):
                    early[(u, s)] -= 1  # its answer was merged ahead of it
                else:
                    waiting.setdefault((u, s), []).append(id(e))
        elif e["name"] == "relay_home" and isinstance(d.get("uid"), str):
            u, s = d["uid"], (e.get("args") or {}).get("server")
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
    d = e.get("detail") or {}
    cluster = int(e["proc"].split("-", 1)[1]) if e["proc"].startswith("sink-") else 0
    applied = set(st.sinks[cluster].applied)
    source = d.get("source")
    if cluster and source:
        try:
            s = server_index(source)
        except ValueError:
            s = None
        if s is not None and s < len(st.servers) and not st.servers[s].alive:
            return None  # a zombie's batch (``ZOMBIE``): the model has not shipped it
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
    name = e["detail"]["wal"]
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
    if not e["proc"].startswith("rs-"):
        return None
    s = server_index(e["proc"][3:])
    if st.servers[s].alive:
        return f"{e['proc'][3:]} was fenced, but is alive in the model"
    return None


OBSERVATIONS: dict[str, Callable[[Mapping, Event, Any], str | None]] = {
    "sink_apply": _sink_apply,
    "wal_deleted": _wal_deleted,
    "fenced": _fenced,
}
"""Meta events checked against the model's state when they are matched."""
