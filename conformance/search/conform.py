"""Property-based conformance: Hypothesis draws runs of the real cluster, the model judges them.

A run is a ``plan.Plan``. ``plans(profile)`` draws one: the region servers, each incarnation's
writes (puts and deletes on GLOBAL, LOCAL and catalog families), master-master or not, and the
steps: peer operations and faults, each after some edits, a fault possibly aimed at a hook point
(``hooks.AIMED``) and hitting the held server or another one. The property, ``judge``: the run
passes when ``replcheck validate`` accepts its trace and its end state is clean. ``search`` runs
the property under Hypothesis. Each example is a real run, kept as a run folder; on a failure
Hypothesis shrinks the plan, every shrink step a real run again, and the smallest plan that
failed is printed as a pytest test that replays it on the real cluster.

The cluster is not deterministic (plans fix what happens, not every interleaving), so a plan is
run once per search and its verdict remembered: Hypothesis replays what it already tried from
that memory, and the final shrunk plan is run once more to say whether it fails again. The
search has a budget of real runs (``Profile.runs``); past it, new plans are not run (they are
rejected, so a shrink stops where it got to) and the report says the budget ended it.

Coverage feedback: every run's model actions (``mine.coverage``) are counted, and Hypothesis's
``target`` is given, per run, the sum over the actions and branches the run exercised of
``1 / (1 + runs that exercised it before)``: plans that reach what earlier runs did not are
favoured.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, reject, settings, target
from hypothesis import seed as hseed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Flaky, Unsatisfiable
from replcheck.conformance.cluster.hooks import AIMED
from replcheck.conformance.hbase.names import WRITE_KINDS
from replcheck.conformance.search.plan import (
    HELD,
    OPS,
    PEER_OPS,
    PLAN_FAULTS,
    REST_DEAD,
    SERVER_FAULTS,
    Plan,
    Profile,
    Step,
    Write,
)
from replcheck.conformance.search.shrink import shrink, weight

# --- strategies ----------------------------------------------------------------------------------


VICTIMS = st.integers(0, 2)
"""Which other live server a server fault hits (``Cluster.victim``)."""


def writes() -> st.SearchStrategy[Write]:
    return st.builds(Write, st.sampled_from(tuple(WRITE_KINDS)), st.sampled_from(OPS))


@st.composite
def steps(draw: Any, max_after: int) -> Step:
    after = draw(st.integers(0, max_after))
    if draw(st.integers(0, 2)) == 0:
        return Step(after=after, op=draw(st.sampled_from(PEER_OPS)), peer=draw(st.integers(0, 1)))
    fault = draw(st.sampled_from(PLAN_FAULTS))
    at = draw(st.sampled_from(("", *AIMED)))
    if fault == "stall" and not at:
        at = "cleaner_read"
    victim = draw(st.integers(HELD, 2)) if at else draw(VICTIMS)
    i = draw(st.integers(0, 3)) if at == "cleaner_read" else 0
    return Step(after=after, fault=fault, victim=victim, at=at, i=i)


DISABLE_LANDS = 0.6
"""Seconds, about, from a plan's disable of a peer to every live server seeing it (the step
waits for that): the edits written meanwhile may still be shipped."""


@st.composite
def windows(
    draw: Any, ws: list[list[Write]], rate: float = 10.0, server_reads: bool = True
) -> list[Step]:
    """A race the seeds and the reference name, set up step by step: a backlog (the peer
    disabled, so that WALs wait in their queues, until some edits after the death; for
    ``claim-in-cleaner-pass``, always, and until the aimed steps are over), a server's death, and
    a fault aimed inside the window that death opens:

    * ``claim-in-cleaner-pass``: the cleaner stalls after its first read of a pass (zk-lock's
      lookup, the table era's snapshot, zk-multi's first server), or (``REST_DEAD``, zk-multi,
      which reads server by server) once every server it has still to read is dead: the dead
      server is then the last by name, and its claimer is held at its read until the cleaner
      is held having read the claimer and not the dead server, while the dead server's queues
      are claimed (HBASE-12865's race);
    * ``claimer-dies``: the server that read a claim dies before its ``multi`` (HBASE-8099's);
    * ``death-before-scp``: before the dead server's queues are claimed, at the start of its
      ServerCrashProcedure or just after its split, a second failure (a server, or the
      master), or the procedure held while the cleaner runs a whole pass (the dead server's
      WALs, split or not, with queues not yet claimed nor, in the table era, added where
      missing).

    ``ws``: each first incarnation's writes, written at ``rate`` edits a second each. A backlog
    needs edits to lose: its death comes once each server has written ``t`` of its edits, ``t``
    past those written before the disable lands (``DISABLE_LANDS``), and the victim's writes
    are lengthened, if need be, to owe the peer one edit written in between (a GLOBAL put).
    """
    servers, total = len(ws), sum(len(w) for w in ws)
    kind = draw(st.sampled_from(("claim-in-cleaner-pass", "claimer-dies", "death-before-scp")))
    backlog = kind == "claim-in-cleaner-pass"
    out = []
    if backlog or draw(st.booleans()):
        out.append(Step(after=0, op="disable_peer", peer=0))
    death = Step(after=0, fault=draw(st.sampled_from(SERVER_FAULTS)), victim=draw(VICTIMS))
    i = 0
    if backlog:
        i = draw(st.sampled_from((REST_DEAD, 1))) if server_reads else 1
        if i == REST_DEAD:
            death = replace(death, victim=servers - 1)  # the last the cleaner reads
        lands = math.ceil(DISABLE_LANDS * rate)
        t = draw(st.integers(lands + 1, lands + 3))
        mine = ws[death.victim % servers]
        mine += [Write("global", "put")] * (t - len(mine))
        if not any(w.kind == "global" for w in mine[lands:t]):
            mine[t - 1] = Write("global", "put")
        after = sum(min(len(w), t) for w in ws)
    else:
        after = draw(st.integers(0, total))
    death = replace(death, after=after)
    # the aimed step first: its point is armed before the death that opens the window
    if i == REST_DEAD:
        # the claimer waits at its read until the cleaner is held, so the pass cannot miss
        out.append(Step(after=after, fault="stall", at="claim_read"))
    if backlog:
        out += [Step(after=after, fault="stall", at="cleaner_read", i=i), death]
    elif kind == "claimer-dies":
        second = draw(st.sampled_from(SERVER_FAULTS))
        out += [Step(after=after, fault=second, victim=HELD, at="claim_read"), death]
    else:
        second = draw(st.sampled_from((*SERVER_FAULTS, "master-restart", "stall")))
        at = draw(st.sampled_from(("scp_start", "scp_split")))
        out += [Step(after=after, fault=second, victim=draw(VICTIMS), at=at), death]
    if out[0].op and not backlog:  # no backlog: no writes were added, ``total`` holds
        out.append(Step(after=draw(st.integers(after, max(after, total))), op="enable_peer"))
    # a backlog stays: the run enables a peer the plan leaves disabled once every aimed step is
    # over, the cleaner's pass included (``plan_run``), so that no source ships the moved WAL
    # before the cleaner's decision (an enable at the last write came before it under load)
    return out


@st.composite
def plans(draw: Any, profile: Profile, server_reads: bool = True) -> Plan:
    """A plan; ``server_reads``: the design's cleaner reads the queues server by server
    (zk-multi), so ``REST_DEAD`` windows can be aimed at it."""
    servers = draw(st.integers(2, profile.max_servers))
    each = st.lists(writes(), min_size=1, max_size=profile.max_writes)
    ws = draw(st.lists(each, min_size=servers, max_size=servers))
    total = sum(len(w) for w in ws)
    # a window may lengthen a server's writes (its backlog): drawn steps' triggers stay reachable
    groups = draw(
        st.lists(
            st.one_of(steps(total).map(lambda s: [s]), windows(ws, profile.rate, server_reads)),
            max_size=profile.max_steps,
        )
    )
    drawn = [s for g in groups for s in g]
    replacements = sum(1 for s in drawn if s.fault in SERVER_FAULTS)
    ws += draw(st.lists(each, max_size=replacements))
    return Plan(
        servers=servers,
        writes=tuple(tuple(w) for w in ws),
        master_master=draw(st.booleans()),
        steps=tuple(sorted(drawn, key=lambda s: s.after)),
    )


# --- the property --------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One real run of a plan."""

    plan: Plan
    run_dir: Path
    passed: bool
    why: str
    seconds: float
    coverage: dict[str, int] = field(default_factory=dict)
    startup: float = 0.0
    """Seconds of ``seconds`` spent starting ZooKeeper and the cluster."""
    error: str = ""
    """The run could not finish (ZooKeeper or a process did not start): no verdict."""
    score: float = 0.0
    """What the run added to the search's coverage (``target``)."""
    labels: frozenset[str] = frozenset()
    """How it failed: the property (or ``divergence``) and the end-state counts that failed."""

    def same_failure(self, other: Outcome) -> bool:
        """Fails as ``other`` did: a property or end-state count in common (a divergence
        alone counts only when the other was a divergence too)."""
        return not self.passed and not self.error and bool(self.labels & other.labels)


def judge(design: str, plan: Plan, run_dir: Path, seed: int = 0, rate: float = 10.0) -> Outcome:
    """Run ``plan`` once on the real cluster and judge it."""
    from replcheck.conformance.mine.rows import coverage
    from replcheck.conformance.search.run import run_plan
    from replcheck.conformance.trace.reader import read_trace

    t0 = time.monotonic()
    try:
        result = run_plan(design, plan, run_dir, seed=seed, rate=rate)
    except Exception as exc:
        why = f"{type(exc).__name__}: {exc}"
        return Outcome(plan, run_dir, False, why, time.monotonic() - t0, error=why)
    c = result.conformance
    problems = []
    if c.get("status") != "accepted":
        problems.append(f"conformance: {c.get('verdict', 'not validated')}")
    if not result.verdict.ok:
        bad = {k: v for k, v in result.verdict.summary().items() if k in BAD and v}
        problems.append(f"end state: {bad}")
    try:
        cov = coverage(design.split("/")[0], read_trace(run_dir / "trace.jsonl").events)
    except Exception:
        cov = {}
    why = "; ".join(problems) or "ok"
    labels = set()
    if c.get("status") != "accepted":
        labels.add(str(c.get("reason") or c.get("status")))
    labels |= {k for k, v in result.verdict.summary().items() if k in BAD and v}
    return Outcome(
        plan,
        run_dir,
        not problems,
        why,
        time.monotonic() - t0,
        cov,
        result.startup_seconds,
        labels=frozenset(labels),
    )


BAD = ("lost", "shipped_local", "returned_to_origin", "premature_deletions")
"""The end-state counts that fail a run."""


class Failed(AssertionError):
    """A plan whose run the model or the end-state check rejected."""


@dataclass
class Report:
    design: str
    profile: str
    seed: int
    outcomes: list[Outcome]
    first: Outcome | None
    """The first failing run."""
    smallest: Outcome | None
    """The smallest plan that failed (the shrink's result)."""
    again: Outcome | None
    """The smallest plan run once more."""
    budget_hit: bool
    interrupted: bool = False
    seconds: float = 0.0
    cut_runs: int = 0
    """Of the runs, those of the structural shrink."""

    @property
    def errors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error]

    @property
    def found(self) -> bool:
        return self.smallest is not None

    def to_json(self) -> dict[str, Any]:
        def one(o: Outcome | None) -> dict[str, Any] | None:
            if o is None:
                return None
            return {"run": str(o.run_dir), "why": o.why, "size": o.plan.size()}

        return {
            "design": self.design,
            "profile": self.profile,
            "seed": self.seed,
            "runs": len(self.outcomes),
            "failing_runs": sum(1 for o in self.outcomes if not o.passed and not o.error),
            "runs_not_finished": [f"{o.run_dir.name}: {o.error}" for o in self.errors],
            "found": self.found,
            "first": one(self.first),
            "smallest": one(self.smallest),
            "smallest_plan": self.smallest.plan.to_json() if self.smallest else None,
            "reproduced": None if self.again is None else not self.again.passed,
            "budget_hit": self.budget_hit,
            "cut_runs": self.cut_runs,
            "interrupted": self.interrupted,
            "seconds": round(self.seconds, 1),
            "run_seconds": [round(o.seconds, 1) for o in self.outcomes],
            "startup_seconds": [round(o.startup, 1) for o in self.outcomes],
            "coverage": dict(sum((Counter(o.coverage) for o in self.outcomes), Counter())),
        }


def search(
    design: str,
    profile: Profile,
    out: Path,
    seed: int = 0,
    database: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Search for a plan the real cluster fails on (see the module docstring)."""
    say = progress or (lambda _m: None)
    out.mkdir(parents=True, exist_ok=True)
    tried: dict[str, Outcome] = {}
    outcomes: list[Outcome] = []
    seen: Counter[str] = Counter()
    budget = {"hit": False}
    t0 = time.monotonic()

    def run(plan: Plan) -> Outcome:
        key = json.dumps(plan.to_json(), sort_keys=True)
        if key in tried:
            return tried[key]
        if len(outcomes) >= profile.runs:
            budget["hit"] = True
            reject()
        n = len(outcomes)
        say(f"[run {n + 1}/{profile.runs}] {describe(plan)}")
        o = judge(design, plan, out / f"run-{n:03d}", seed=seed, rate=profile.rate)
        o.score = sum(1.0 / (1 + seen[k]) for k in o.coverage)
        seen.update(o.coverage.keys())
        tried[key] = o
        outcomes.append(o)
        verdict = "could not finish" if o.error else "pass" if o.passed else "FAIL"
        say(f"[run {n + 1}/{profile.runs}] {verdict}: {o.why} ({o.seconds:.0f}s)")
        return o

    @settings(
        max_examples=profile.examples,
        deadline=None,
        database=(
            DirectoryBasedExampleDatabase(str(database / design.replace("/", "_")))
            if database
            else None
        ),
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
        print_blob=False,
        report_multiple_bugs=False,
    )
    @given(plans(profile, server_reads=design.split("/")[0] == "zk-multi"))
    def prop(plan: Plan) -> None:
        o = run(plan)
        if o.error:
            reject()  # no verdict: the report says the search is undecided
        target(o.score, label="new model actions")
        if not o.passed:
            raise Failed(o.why)

    interrupted = False
    try:
        hseed(seed)(prop)()
    except (Failed, Flaky, Unsatisfiable):
        pass  # a failure (reported below), or every plan past the budget rejected
    except KeyboardInterrupt:
        interrupted = True
    failing = [o for o in outcomes if not o.passed and not o.error]
    first = failing[0] if failing else None
    smallest = min(failing, key=lambda o: weight(o.plan)) if failing else None
    cut_runs, cut_budget_hit = 0, False
    if smallest is not None and not interrupted:
        say(f"structural shrink of {describe(smallest.plan)}")
        goal = smallest

        def fails(plan: Plan) -> bool | None:
            n = len(outcomes)
            o = judge(design, plan, out / f"run-{n:03d}", seed=seed, rate=profile.rate)
            outcomes.append(o)
            kept = o.same_failure(goal)
            say(f"[cut {n + 1}] {'kept' if kept else 'not kept'}: {describe(plan)}: {o.why}")
            return None if o.error else kept

        try:
            plan, cut_runs, cut_budget_hit = shrink(smallest.plan, fails, profile.cuts)
        except KeyboardInterrupt:
            interrupted = True
        else:
            smallest = next(o for o in reversed(outcomes) if o.plan == plan and not o.passed)
    again = None
    if smallest is not None and not interrupted:
        say("running the smallest failing plan once more")
        try:
            again = judge(design, smallest.plan, out / "again", seed=seed, rate=profile.rate)
        except KeyboardInterrupt:
            interrupted = True
    return Report(
        design,
        profile.name,
        seed,
        outcomes,
        first,
        smallest,
        again,
        budget["hit"] or cut_budget_hit,
        interrupted,
        time.monotonic() - t0,
        cut_runs,
    )


def describe(plan: Plan) -> str:
    s = plan.size()
    steps_ = "; ".join(x.describe() for x in plan.steps) or "no steps"
    return (
        f"{s['servers']} servers, {s['writes']} writes, "
        f"{'master-master' if plan.master_master else 'one-way'}: {steps_}"
    )


def as_pytest(design: str, plan: Plan, why: str) -> str:
    """A pytest test that replays ``plan`` on the real cluster and fails as the search did."""
    name = "test_conform_" + "".join(c if c.isalnum() else "_" for c in design).strip("_")
    body = plan.python().replace("\n", "\n    ")
    return (
        f"# replcheck conform: {design} failed: {why}\n"
        "import pytest\n\n"
        "from replcheck.conformance.search.conform import check_plan\n"
        "from replcheck.conformance.search.plan import Plan, Step, Write\n\n\n"
        "@pytest.mark.slow\n@pytest.mark.zookeeper\n"
        f"def {name}(tmp_path):\n"
        f"    plan = {body}\n"
        f'    check_plan({json.dumps(design)}, plan, tmp_path / "run")\n'
    )


def check_plan(design: str, plan: Plan, run_dir: Path, seed: int = 0) -> None:
    """Run ``plan``; fail (AssertionError) unless the model accepts it and the end state is
    clean. The test ``as_pytest`` prints calls this."""
    o = judge(design, plan, run_dir, seed=seed)
    assert o.passed, f"{o.why} (run folder {o.run_dir})"
