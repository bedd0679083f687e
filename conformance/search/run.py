"""Running a ``plan.Plan`` on the reference cluster: one recorded run, judged like any other.

The cluster starts as ``Cluster`` starts it (sinks, master, peer 0, the plan's region servers,
each incarnation given its writes), then the plan's steps are taken in order. A step waits until
the servers have written its ``after`` edits (counted in their traces); a peer operation is done
once every live server has seen the peer's new state (``peer_seen``). A step aimed at a hook
point then arms it and goes on waiting, on a thread of its own, for a process to be held there
(``hooks``), while the plan's next steps are taken (the death that opens the window it aims at,
say; a later step aimed at the same point arms it once the earlier one has its visit, and waits
for a process to take its own arm); its fault is injected while the process is held (faults take
turns), and the process is let go. A stall keeps its process held until the next claim commits
(a claimer's, until the cleaner is held; a crash procedure's, at its start or after its split,
until the live servers have written their edits and the cleaner has then run a whole pass), or
``STALL_LIMIT`` seconds; a cleaner's stall ends once its pass has deleted what it decided to (the
next pass starts). A claimer stalled at its
read while the cleaner waits for ``REST_DEAD`` narrows the cleaner's wait to the pass that has
read the claimer and not yet the dead server; a crashed server's replacement is not started
while the cleaner waits so (its join would send the cleaner round again). A trigger that does
not come in time (the servers that would write are gone; no process visits the point) skips its
step, and the run's ``plan.log`` says so: the run is still judged. A peer the plan leaves
disabled is enabled before the drain.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from replcheck.conformance.cluster.common import trace_dir
from replcheck.conformance.cluster.hooks import POINTS, Arms
from replcheck.conformance.cluster.run import Cluster, RunResult, RunSpec, record_run
from replcheck.conformance.hbase.names import server_index, server_name
from replcheck.conformance.search.plan import REST_DEAD, Plan, peer_ops_in_order

TRIGGER_LIMIT = 60.0
"""Seconds a step waits for its edits (it stops waiting once every live server has written
all it had to)."""
AIM_LIMIT = 45.0
"""Seconds an aimed step waits, from its trigger, for a process to visit its point."""
STALL_LIMIT = 40.0
"""Seconds a stall holds its process while waiting for a claim to commit (a loaded machine
can take tens of seconds from a held cleaner to the claim it waits for)."""

SEEN = {"disable_peer": "DISABLED", "enable_peer": "ENABLED"}
"""The state a region server sees once a plan's peer operation has reached it."""


def aim_conditions(step: Any) -> dict[str, Any]:
    """What a visit to an aimed step's point must tell (``hooks``)."""
    if step.i == REST_DEAD:
        return {"rest_dead": True}
    return {"i": step.i} if step.i else {}


def spec_for(design: str, plan: Plan, seed: int = 0, **more: Any) -> RunSpec:
    """The ``RunSpec`` that runs ``plan`` (``seed`` only picks rows and timings)."""
    return RunSpec(
        design=design,
        seed=seed,
        servers=plan.servers,
        edits=0,
        faults=tuple(s.fault for s in plan.faults()),
        master_master=plan.master_master,
        second_peer=False,
        zk_servers=plan.zk_servers(),
        plan=plan,
        **more,
    )


def run_plan(
    design: str,
    plan: Plan,
    run_dir: Path,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    **more: Any,
) -> RunResult:
    """Record one run of ``plan`` into ``run_dir`` (its own ZooKeeper)."""
    return record_run(
        spec_for(design, plan, seed, **more),
        run_dir,
        progress=progress,
        cluster_class=PlannedCluster,
    )


class PlannedCluster(Cluster):
    """A ``Cluster`` whose workload and schedule are a plan's."""

    def __init__(self, spec: RunSpec, run_dir: Path, *rest: Any) -> None:
        super().__init__(spec, run_dir, *rest)
        self.plan: Plan = spec.plan
        (run_dir / "plan.json").write_text(self.plan.dumps() + "\n")
        self.workload = run_dir / "workload.json"
        self.workload.write_text(json.dumps([[asdict(w) for w in ws] for ws in self.plan.writes]))
        self.arms = Arms(run_dir)
        self.log = open(run_dir / "plan.log", "a", encoding="utf-8")  # noqa: SIM115
        self.waiting: list[threading.Thread] = []
        """The aimed steps' threads."""
        self.taken: dict[str, threading.Event] = {}
        """Per hook point, set once the last step aimed at it has its visit (or gave up)."""
        self.arm_of: dict[str, int] = {}
        """Per hook point, the arm (``Arms.arm``) the step waiting there waits for (a step that
        narrows it arms it again: HBASE-12865's window)."""
        self.fault_lock = threading.Lock()
        self.cleaner_counting = threading.Event()
        """The cleaner is held at ``cleaner_read`` and its stall has counted the claims so far
        (a claimer let go before that would commit a claim the stall never sees)."""

    def workload_args(self) -> list[str]:
        return ["--workload", str(self.workload)]

    def say(self, msg: str) -> None:
        self.log.write(msg + "\n")
        self.log.flush()
        self.progress(msg)
        self.trace.meta("note", what=f"plan: {msg}")

    def count(self, name: str, procs: str = "rs-*") -> int:
        """How many ``name`` events the traces of ``procs`` (the region servers') hold."""
        needle = f'"name":"{name}"'
        n = 0
        for path in trace_dir(self.run_dir).glob(f"{procs}.jsonl"):
            with contextlib.suppress(OSError):
                n += path.read_text(encoding="utf-8").count(needle)
        return n

    def claims(self) -> int:
        """Claims done so far: a queue's ``multi`` (``claim_commit``), or zk-lock's whole claim
        of a dead server (``finish_claim``, after it copied every queue)."""
        return self.count("claim_commit") + self.count("finish_claim")

    def workloads_done(self) -> bool:
        # a plan's incarnations may write nothing (and so never say ``workload done``)
        return self.count("put") >= self.plan.edits() or super().workloads_done()

    def drive(self) -> None:
        taken = peer_ops_in_order(self.plan.steps)
        disabled: set[int] = set()
        for n, (step, ok) in enumerate(zip(self.plan.steps, taken, strict=True)):
            label = f"step {n + 1}/{len(self.plan.steps)} ({step.describe()})"
            if not ok:
                self.say(f"{label}: skipped, the peer operation does not apply here")
                continue
            self.wait_for(
                f"{step.after} edits",
                lambda s=step: self.count("put") >= s.after or self.workloads_done(),
                TRIGGER_LIMIT,
            )
            if self.count("put") < step.after:
                self.say(f"{label}: skipped, the edits were not written")
                self.skipped[step.fault or step.op] += 1
                continue
            if step.op:
                self.admin(step.op, step.peer)
                if step.op == "disable_peer":
                    disabled.add(step.peer)
                else:
                    disabled.discard(step.peer)
                state = SEEN.get(step.op)
                if state and not self.wait_for(
                    f"every live server to see peer {step.peer} {state}",
                    lambda s=step, w=state: self.seen_by_all(s.peer, w),
                    TRIGGER_LIMIT,
                ):
                    self.say(f"{label}: done, not yet seen {state} by every live server")
                else:
                    self.say(f"{label}: done")
            elif not step.at:
                self.fault(step.fault, pick=step.victim)
                self.say(f"{label}: done")
            else:
                # one arm at a point at a time: a later step arms it once the earlier one has
                # its visit, and waits for a process to take its own arm (not the process the
                # earlier step still holds there)
                prev = self.taken.get(step.at)
                if prev is None or prev.is_set():
                    self.arm_of[step.at] = self.arms.arm(step.at, **aim_conditions(step))
                    prev = None
                taken = self.taken[step.at] = threading.Event()
                args = (label, step, prev, taken)
                t = threading.Thread(target=self.aimed, args=args, daemon=True)
                t.start()
                self.waiting.append(t)
        for t in self.waiting:
            t.join()
        for p in sorted(disabled):
            # as an operator would before waiting for the queues to drain: a peer left disabled
            # holds its edits in its queues, which the end-state check would count as lost
            self.admin("enable_peer", p)
            self.say(f"the plan left peer {p} disabled: enabled for the drain")

    def seen_by_all(self, peer: int, state: str) -> bool:
        """Has every live region server last seen ``peer`` in ``state`` (``peer_seen``)? The
        admin call returns once the request is queued; a server that has not yet read the
        change goes on shipping, and the window the plan aims at may close before it opens."""
        for i, proc in list(self.rs.items()):
            if not proc.alive():
                continue
            last = None
            name = f"rs-{server_name(i)}".replace(",", "_")
            for path in trace_dir(self.run_dir).glob(f"{name}.*.jsonl"):
                with contextlib.suppress(OSError):
                    for line in path.read_text(encoding="utf-8").splitlines():
                        if '"name":"peer_seen"' in line:
                            e = json.loads(line)
                            if e["detail"].get("peer") == peer:
                                last = e["detail"].get("state")
            if last != state:
                return False
        return True

    def fault(self, kind: str, pick: int | None = None, held: int | None = None) -> None:
        with self.fault_lock:  # the plan's thread and its aimed steps' threads take turns
            super().fault(kind, pick, held)

    def before_replacement(self) -> None:
        """A replacement's join moves the cversion of the queues' root, which sends zk-multi's
        cleaner round its pass again: while the cleaner is held, or aimed at, a pass in which a
        claim must be the only move (``REST_DEAD``), the replacement waits."""
        until = time.monotonic() + AIM_LIMIT
        while time.monotonic() < until and self.cleaner_window_open():
            time.sleep(0.05)

    def cleaner_window_open(self) -> bool:
        """Is the cleaner held, or armed for a pass a claim must be the only move in?"""
        if self.arms.held("cleaner_read") is not None:
            return True
        return bool({"unchanged", "rest_dead"} & (self.arms.armed("cleaner_read") or {}).keys())

    def aimed(
        self, label: str, step: Any, prev: threading.Event | None, taken: threading.Event
    ) -> None:
        """An aimed step, on a thread of its own from when its point was armed, or, after an
        earlier step aimed at the same point (``prev``), from when that one has its visit: the
        steps after it (the death that opens its window, say) go on meanwhile."""
        try:
            if prev is not None:
                prev.wait()
                self.arm_of[step.at] = self.arms.arm(step.at, **aim_conditions(step))
            got = self.arms.wait_held(step.at, AIM_LIMIT, lambda: self.arm_of[step.at])
            arm = self.arm_of[step.at]  # ours: a later step arms only once ``taken`` is set
        finally:
            taken.set()
        if got is None:
            self.arms.give_up(step.at, arm)
            self.say(f"{label}: skipped, no process came to {step.at}")
            self.skipped[step.fault] += 1
            return
        proc, visit = got
        self.say(f"{label}: {proc} held at {step.at} {json.dumps(visit, sort_keys=True)}")
        if step.fault == "stall":
            claims = self.claims()
            if step.at == "cleaner_read":
                # the claimer held at its read goes once the cleaner counts claims from here
                self.cleaner_counting.set()
                if visit.get("rest_dead") and len(visit.get("unread") or []) == 1:
                    # held in HBASE-12865's window before the claimer: the SCP's deletion of
                    # the dead server's node would move the cversion and send the pass round
                    self.arms.arm("scp_finish", dead=visit["unread"][0])
            if step.at == "claim_read" and self.arms.armed("cleaner_read") == {"rest_dead": True}:
                # HBASE-12865's window, exactly: the claimer read, the dead server not yet
                dead, claimer = visit.get("dead"), server_index(proc[3:])
                # armed again: the cleaner's step waits for this arm now
                self.arm_of["cleaner_read"] = self.arms.arm(
                    "cleaner_read",
                    read={"has": [claimer]},
                    unread={"has": [dead]},
                    candidates={"has": [dead]},
                    unchanged=True,
                )
                # the SCP's deletion of the dead server's node would move the cversion too
                self.arms.arm("scp_finish", dead=dead)
                self.say(f"{label}: cleaner_read now waits for #{claimer} read, #{dead} not")
            self.stall(step.at, proc, claims)
            return
        held = server_index(proc[3:]) if proc.startswith("rs-") else None
        self.fault(step.fault, pick=step.victim, held=held)
        self.arms.release(step.at, proc)
        self.say(f"{label}: done, {proc} let go")

    def stall(self, point: str, proc: str, claims: int) -> None:
        """Hold until a claim commits; a claimer held at its read is also let go once the
        cleaner is held, before it or after (where that claim hurts, when the arm asked); a
        crash procedure held at its start or after its split (it claims nothing while held)
        once the live servers have written their edits and the cleaner has then run a whole
        pass, its deletions included."""
        until = time.monotonic() + STALL_LIMIT
        if point in ("scp_start", "scp_split"):
            # the window is the cleaner's pass over all the hold leaves in oldWALs: a fault
            # under way (the death's replacement still starting) and the live servers'
            # writes, whose rolls archive WALs, come first
            self.quiet_writers(until)
            # the pass that ends first may have begun before the hold; the next one did not
            ended = self.cleaner_passes(2, until)
            why = "the cleaner ran a whole pass" if ended == 2 else f"{ended} cleaner pass ends"
        else:
            why = "no claim"
            while time.monotonic() < until:
                if self.claims() > claims:
                    why = "a claim committed"
                    break
                # only a claimer waits for the cleaner (HBASE-12865's window)
                if point == "claim_read" and self.cleaner_counting.is_set():
                    why = "the cleaner is held"
                    break
                time.sleep(0.05)
        passes = self.count("cleaner_finish", "master*")
        starts = self.count("cleaner_start", "master*")
        self.arms.release(point, proc)
        self.say(f"stall at {point} let go: {why}")
        scp_held = self.arms.armed("scp_finish") or self.arms.held("scp_finish")
        if point == "cleaner_read" and scp_held:
            # the SCP held at its end waits for the cleaner's pass to end
            self.wait_for(
                "the cleaner's pass",
                lambda: self.count("cleaner_finish", "master*") > passes,
                STALL_LIMIT,
            )
            self.arms.release("scp_finish")
            self.say("scp_finish let go: the cleaner's pass ended")
            # its deletions come after the pass's end (``cleaner_finish``) and before the next
            # pass starts: the aimed step is over, and a peer the plan left disabled may be
            # enabled for the drain, only then (else a source may finish the queue first)
            self.wait_for(
                "the cleaner's deletions",
                lambda: self.count("cleaner_start", "master*") > starts,
                STALL_LIMIT,
            )
            self.say("the cleaner's pass deleted what it decided to")

    def quiet_writers(self, until: float) -> None:
        """Wait, by ``until``, for the fault being injected to be over (a crash's replacement
        is started under the fault lock) and then for every live region server to have
        written its edits: the WALs their rolls archive are in oldWALs from then on."""
        if self.fault_lock.acquire(timeout=max(0.0, until - time.monotonic())):
            self.fault_lock.release()
        if not self.wait_for(
            "the live servers' edits", self.workloads_done, until - time.monotonic()
        ):
            self.say("stall: the live servers had not written their edits in time")

    def cleaner_passes(self, n: int, until: float) -> int:
        """Wait for the cleaner chore to end ``n`` passes (``cleaner_pass``), by ``until``;
        returns how many ended."""
        for done in range(n):
            arm = self.arms.arm("cleaner_pass")
            got = self.arms.wait_held("cleaner_pass", max(0.0, until - time.monotonic()), arm)
            if got is None:
                self.arms.give_up("cleaner_pass", arm)
                return done
            self.arms.release("cleaner_pass", got[0])
        return n

    def stop_all(self) -> None:
        for point in POINTS:
            self.arms.release(point)
        super().stop_all()
        self.log.close()
