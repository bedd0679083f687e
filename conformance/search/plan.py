"""A run of the reference cluster as data: what it writes, which peer operations, which faults.

A ``Plan`` is everything a run does that is not the processes' own interleaving, so the same plan
replays the same run: how many region servers; each server incarnation's writes, in order (puts
and deletes on a GLOBAL family, a LOCAL family or the catalog table); whether the peer cluster
replicates back (master-master); and one ordered list of *steps*, each a peer operation or a
fault, with its *trigger*: once the cluster has written ``after`` edits, and, for a fault aimed
at a protocol step, at the next visit to a hook point (``hooks.POINTS``), where the visiting
process is held while the fault is injected.

Faults are those of the fault injector (``cluster.FAULT_KINDS``) and ``stall``: the held process
waits at its point until the next claim commits (a slow thread; HBase's chores and procedures
run on their own threads). ``victim`` picks the server a server fault hits: an index into the
live servers other than the held one, in name order (taken modulo their number), or ``HELD``,
the held region server itself.

Peer operations are applied in plan order, and one that does not make sense where it stands (a
second add, a remove of a peer that is not there, enabling an enabled peer) is skipped, so that
every sub-plan a shrinker makes is still a plan. Peer 0 (id 2) is added before the workload.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from replcheck.conformance.cluster.hooks import POINTS
from replcheck.conformance.cluster.run import FAULT_KINDS
from replcheck.conformance.hbase.names import WRITE_KINDS

OPS = ("put", "delete")
PEER_OPS = ("add_peer", "remove_peer", "disable_peer", "enable_peer")
PLAN_FAULTS = (*FAULT_KINDS, "stall")
SERVER_FAULTS = ("kill", "pause", "expire")
HELD = -1
"""``Step.victim``: the region server held at the fault's point (``Cluster.victim``)."""
REST_DEAD = -1
"""``Step.i``: hold the cleaner once every server of its pass still to read is dead."""


@dataclass(frozen=True)
class Write:
    kind: str = "global"
    op: str = "put"


@dataclass(frozen=True)
class Step:
    """A peer operation (``op``, ``peer``) or a fault (``fault``, ``victim``)."""

    after: int = 0
    """Edits the cluster has written (all servers) before the step is taken."""
    op: str = ""
    peer: int = 0
    fault: str = ""
    victim: int = 0
    at: str = ""
    """A hook point the fault is aimed at ("" for none)."""
    i: int = 0
    """For ``cleaner_read``: which read of the pass (from 1); 0 for any; ``REST_DEAD`` for the
    first read after which every server still to read is dead (``hooks``)."""

    def describe(self) -> str:
        what = f"{self.op} {self.peer}" if self.op else self.fault
        if self.fault in SERVER_FAULTS:
            what += " of the held server" if self.victim == HELD else f" of server #{self.victim}"
        read = "the rest dead" if self.i == REST_DEAD else f"read {self.i}"
        aim = f" at {self.at}" + (f" ({read})" if self.i else "") if self.at else ""
        return f"after {self.after} edits{aim}: {what}"


@dataclass(frozen=True)
class Plan:
    servers: int = 3
    writes: tuple[tuple[Write, ...], ...] = ()
    """Per region-server incarnation, in start order (replacements after the first
    ``servers``); an incarnation with no entry writes nothing."""
    master_master: bool = True
    steps: tuple[Step, ...] = field(default_factory=tuple)

    # --- shape ------------------------------------------------------------------------------

    def edits(self) -> int:
        return sum(len(w) for w in self.writes)

    def faults(self) -> list[Step]:
        return [s for s in self.steps if s.fault]

    def size(self) -> dict[str, int]:
        """What a shrink is measured by."""
        return {
            "servers": self.servers,
            "writes": self.edits(),
            "peer_ops": sum(1 for s in self.steps if s.op),
            "faults": len(self.faults()),
        }

    def zk_servers(self) -> int:
        return 3 if any(s.fault == "zk-leader" for s in self.steps) else 1

    # --- as data ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Plan:
        """The plan ``to_json`` wrote; ``ValueError`` (one line) for anything else."""
        try:
            plan = cls(
                servers=int(data["servers"]),
                writes=tuple(tuple(Write(**w) for w in ws) for ws in data["writes"]),
                master_master=bool(data["master_master"]),
                steps=tuple(Step(**s) for s in data["steps"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a plan: {type(exc).__name__}: {exc}") from None
        plan.check()
        return plan

    def check(self) -> None:
        if not 1 <= self.servers <= 8:
            raise ValueError(f"servers must be 1-8, not {self.servers}")
        for ws in self.writes:
            for w in ws:
                if w.kind not in WRITE_KINDS or w.op not in OPS:
                    raise ValueError(f"unknown write {w}")
        for s in self.steps:
            if bool(s.op) == bool(s.fault):
                raise ValueError(f"a step is a peer operation or a fault: {s}")
            if s.op and (s.op not in PEER_OPS or s.peer not in (0, 1)):
                raise ValueError(f"unknown peer operation {s.op} {s.peer}")
            if s.fault and s.fault not in PLAN_FAULTS:
                raise ValueError(f"unknown fault {s.fault!r}; known: {', '.join(PLAN_FAULTS)}")
            if s.at and s.at not in POINTS:
                raise ValueError(f"unknown hook point {s.at!r}; known: {', '.join(POINTS)}")
            if s.fault == "stall" and not s.at:
                raise ValueError("a stall needs a point to hold at")

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    def python(self) -> str:
        """The plan as Python source (``from replcheck.conformance.search.plan import *``), laid out
        as ``ruff format`` lays it out where its lines fit."""

        def lit(v: object) -> str:
            return json.dumps(v) if isinstance(v, str) else repr(v)

        def group(ws: tuple[Write, ...]) -> str:
            items = [f"Write({lit(w.kind)}, {lit(w.op)})" for w in ws]
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"

        def block(name: str, items: list[str]) -> str:
            if not items:
                return f"    {name}=(),\n"
            if len(items) == 1 and len(f"        {name}=({items[0]},),") <= 100:
                return f"        {name}=({items[0]},),\n"[4:]  # one item: one line
            return f"    {name}=(\n" + "".join(f"        {i},\n" for i in items) + "    ),\n"

        steps = [
            "Step("
            + ", ".join(f"{k}={lit(v)}" for k, v in asdict(s).items() if v != getattr(Step(), k))
            + ")"
            for s in self.steps
        ]
        return (
            f"Plan(\n    servers={self.servers},\n"
            + block("writes", [group(ws) for ws in self.writes])
            + f"    master_master={self.master_master},\n"
            + block("steps", steps)
            + ")"
        )


def peer_ops_in_order(steps: tuple[Step, ...]) -> list[bool]:
    """For each step, whether it is taken: every fault is; a peer operation only if it makes
    sense after the operations taken before it (peer 0 exists and is enabled at the start and is
    never removed, the replication back to us going through it; peer 1 may be added once)."""
    state = {0: "enabled", 1: "absent"}
    added = False
    out = []
    for s in steps:
        if not s.op:
            out.append(True)
            continue
        cur = state[s.peer]
        ok = {
            "add_peer": cur == "absent" and s.peer == 1 and not added,
            "remove_peer": cur != "absent" and s.peer == 1,
            "disable_peer": cur == "enabled",
            "enable_peer": cur == "disabled",
        }[s.op]
        if ok:
            state[s.peer] = {
                "add_peer": "enabled",
                "remove_peer": "absent",
                "disable_peer": "disabled",
                "enable_peer": "enabled",
            }[s.op]
            added = added or s.op == "add_peer"
        out.append(ok)
    return out


@dataclass(frozen=True)
class Profile:
    """How hard ``replcheck conform`` searches (``conform.search``): a CI profile and a
    thorough one, with the same strategies."""

    name: str
    examples: int
    """Plans Hypothesis draws (before shrinking)."""
    runs: int
    """Real runs at most for Hypothesis, its shrinking included."""
    cuts: int
    """Real runs at most for the structural shrink after it (``plan_shrink``)."""
    max_servers: int
    max_writes: int
    """Writes per incarnation at most."""
    max_steps: int
    rate: float = 10.0


PROFILES = {
    "ci": Profile(
        "ci", examples=3, runs=6, cuts=4, max_servers=3, max_writes=6, max_steps=3, rate=20.0
    ),
    "thorough": Profile(
        "thorough", examples=30, runs=60, cuts=30, max_servers=4, max_writes=10, max_steps=5
    ),
}
