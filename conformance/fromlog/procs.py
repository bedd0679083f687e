"""The table era's master procedures, as a ZooKeeper log rebuilds them and as the model holds them.

The reference cluster persists what HBase's master keeps in its procedure store in ZooKeeper
(``txntrace_table``): a ServerCrashProcedure's stage under ``/replcheck/scp/<server>`` (with the
peers ADD_MISSING_QUEUES read as missing), the claims it sent under
``/replcheck/claims/<target>``, a peer procedure's stage in its request under
``/replcheck/admin``, and the log cleaner's barrier. After each storage step the validator holds
these against the model's ``scps``, ``pprocs`` and ``barrier``, as it holds the queue rows
(``txntrace.model_storage``), so a step the model allows must also leave the procedures where
the log shows them.

Two of the cluster's stages stand for more than one of the model's, and are compared by their
class (``peer_phase``): the master sends a peer procedure's refreshes in a stage of its own and
waits in another, where the model names the servers with the storage update and waits in POST;
``removeAllQueues`` is one ``multi`` per pass in the cluster and one row per step in the model.

An SCP's stage is read from its znode, with two moments the log tells only by other writes: the
model schedules the SCP with the crash (HBase's master expires a server and schedules its SCP in
one step), where the cluster's master writes it on its next pass, so a server's death reads as
SPLIT until then; and a restarted server's SCP is gone in the model (``restart``), where the
cluster leaves its finished znode, so a server's live znode created reads as no SCP.
"""

from __future__ import annotations

from typing import Any

from replcheck.conformance.cluster.common import ADMIN, BARRIER, CLAIMS, LIVE, SCP
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.hbase.names import server_index
from replcheck.conformance.trace.event import Event
from replcheck.model.table.state import (
    ADD,
    AP_PRE,
    AP_STORAGE,
    ARQP_ADD_MISSING,
    ARQP_CLAIM,
    ARQP_PUT_MISSING,
    BARRIER_DISABLED,
    BARRIER_NAMES,
    NOT_RUNNING,
    PROC_NAMES,
    REMOVE,
    RP_REMOVE_ALL,
    RP_STORAGE,
    RUNNING,
    SCP_CLAIM_STAGE,
    SCP_DONE,
    SCP_NONE,
    SCP_SPLIT,
    SCP_STAGE_NAMES,
)

SCP_STAGE = {
    "split": SCP_SPLIT,
    "claim_stage": SCP_CLAIM_STAGE,
    "add_missing": ARQP_ADD_MISSING,
    "put_missing": ARQP_PUT_MISSING,
    "claim": ARQP_CLAIM,
    "done": SCP_DONE,
}
"""The cluster's name of an SCP's persisted stage -> the model's stage."""

BARRIER_STATE = {"NOT_RUNNING": NOT_RUNNING, "RUNNING": RUNNING, "DISABLED": BARRIER_DISABLED}

PHASE_OF_STAGE = {
    "pre": "pre",
    "storage": "storage",
    "refresh": "refresh",
    "wait": "refresh",
    "remove_all": "remove_all",
}
"""A peer procedure's recorded stage -> its class (see the module docstring)."""

ADD_PAST_PRE = ("storage", "refresh", "wait")
"""An AddPeerProcedure's recorded stages past PRE: a new master disables the barrier once for each
(``afterReplay``; ``Master.replay_barrier``)."""

Procedures = tuple[tuple, tuple, tuple[int, int]]
"""(SCPs, peer procedures, barrier): per server with an SCP, ``(server, stage, missing peers,
claims sent)`` with each claim ``(peer, source, target)``; per peer with a running procedure,
``(peer, kind, phase)``; the barrier's ``(state, count)``."""


def peer_phase(proc: Any) -> str:
    """The class of the model's peer procedure ``proc`` (see the module docstring)."""
    if proc.kind == ADD:
        return (
            "pre" if proc.stage == AP_PRE else "storage" if proc.stage == AP_STORAGE else "refresh"
        )
    if proc.kind == REMOVE:
        if proc.stage <= RP_STORAGE:
            return "pre"
        if proc.stage == RP_REMOVE_ALL and proc.cursor and proc.cursor[0] >= 1:
            return "remove_all"
        return "refresh"
    return "transit"


def model_procedures(st: Any) -> Procedures:
    scps = tuple(
        (
            s,
            scp.stage,
            scp.peers if scp.stage == ARQP_PUT_MISSING else 0,
            tuple(sorted((c.peer, c.source, c.target) for c in scp.children)),
        )
        for s, scp in enumerate(st.scps)
        if scp.stage != SCP_NONE
    )
    procs = tuple((p, proc.kind, peer_phase(proc)) for p, proc in enumerate(st.pprocs) if proc)
    return scps, procs, tuple(st.barrier)


class LogProcedures:
    """The procedures of a log read so far: ``seen`` each transaction's ops in order (a server's
    live znode created is its ``join``), ``crash`` a server at its session's end, then ``now``
    for the storage."""

    def __init__(self, steps: Any) -> None:
        self.steps = steps
        self.stage: dict[int, int] = {}
        self.missing: dict[int, int] = {}
        self.barrier: tuple[int, int] | None = None
        """The barrier a master's death left, until the next write of it (HBase keeps it in
        the master's memory: ``replayed``)."""

    def seen(self, ops: list[tuple[str, str, bytes | None]]) -> None:
        for kind, path, data in ops:
            if path == BARRIER:
                self.barrier = None
            if kind == "create" and path.rpartition("/")[0] == LIVE:
                self.join(server_index(path.rsplit("/", 1)[1]))
            if path.rpartition("/")[0] != SCP:
                continue
            s = server_index(path.rsplit("/", 1)[1])
            if kind == "delete":
                self.stage[s] = SCP_NONE
                continue
            new = txnread.json_object(data)
            self.stage[s] = SCP_STAGE.get(str(new.get("stage")), -1)
            self.missing[s] = sum(1 << int(p) for p in new.get("missing", []) if str(p).isdigit())

    def crash(self, s: int) -> None:
        self.stage[s] = SCP_SPLIT

    def join(self, s: int) -> None:
        self.stage[s] = SCP_NONE

    def master_died(self, tree: dict[str, bytes | None]) -> None:
        """The barrier as the next master starts it: NOT_RUNNING, disabled once for each
        AddPeerProcedure past PRE (the model's ``master_restart``)."""
        adds = sum(
            1
            for path, data in tree.items()
            if path.rpartition("/")[0] == ADMIN
            and (req := txnread.json_object(data)).get("op") == "add_peer"
            and req.get("stage") in ADD_PAST_PRE
        )
        self.barrier = (BARRIER_DISABLED, adds) if adds else (NOT_RUNNING, 0)

    def now(self, tree: dict[str, bytes | None]) -> Procedures:
        claims: dict[int, list[tuple[int, int, int]]] = {}
        procs = []
        for path, data in tree.items():
            if path.startswith(CLAIMS + "/") and path.count("/") == len(CLAIMS.split("/")) + 1:
                sent = txnread.json_object(data)
                if "row" in sent and "dead" in sent:
                    peer, _owner, source = self.steps.parse_row_key(str(sent["row"]))
                    target = server_index(path.split("/")[-2])
                    claims.setdefault(server_index(sent["dead"]), []).append((peer, source, target))
            elif path.rpartition("/")[0] == ADMIN:
                req = txnread.json_object(data)
                phase = PHASE_OF_STAGE.get(str(req.get("stage")))
                if phase is not None and "peer" in req:
                    kind = ADD if req.get("op") == "add_peer" else REMOVE
                    procs.append((int(req["peer"]), kind, phase))
        scps = tuple(
            (
                s,
                stage,
                self.missing.get(s, 0) if stage == ARQP_PUT_MISSING else 0,
                tuple(sorted(claims.get(s, ()))),
            )
            for s, stage in sorted(self.stage.items())
            if stage != SCP_NONE
        )
        return scps, tuple(sorted(procs)), self.barrier or barrier_of(tree.get(BARRIER))


def barrier_of(data: bytes | None) -> tuple[int, int]:
    """The barrier znode's value as the model's ``(state, count)`` (``-1``: unreadable)."""
    barrier = txnread.json_object(data)
    state = BARRIER_STATE.get(str(barrier.get("state")), -1)
    return state, int(barrier.get("n", 0)) if state == BARRIER_DISABLED else 0


def facts(procedures: Procedures) -> set[str]:
    """``procedures`` as one line per fact, for a misfit's report (``txntrace.storage_diff``)."""
    scps, procs, (state, count) = procedures
    out = set()
    for s, stage, missing, claims in scps:
        name = f"SCP of server {s}"
        out.add(
            f"{name} at {SCP_STAGE_NAMES[stage] if 0 <= stage < len(SCP_STAGE_NAMES) else stage}"
        )
        if missing:
            out.add(f"{name}: peers {missing:b} missing a queue")
        out.update(f"{name}: queue of peer {p} (source {src}) sent to {t}" for p, src, t in claims)
    out.update(f"{PROC_NAMES[kind]} of peer {p} at {phase}" for p, kind, phase in procs)
    name = BARRIER_NAMES[state] if 0 <= state < len(BARRIER_NAMES) else "unreadable"
    out.add(f"cleaner barrier {name}" + (f" ({count})" if count else ""))
    return out


class Either(tuple):
    """The procedures a storage event may show in the model, when a step taken at its reads
    (``mapping.at_reads``) may come before it though its write comes after: as the log has them,
    or with that step's SCP as its write left it (``window``)."""


def window(events: list[Event], storage: dict[int, tuple], decided: list[Event]) -> None:
    """Widen ``storage`` (event index -> (peers, rows, procedures)) for each step of
    ``decided`` (the same events after ``mapping.at_reads``, one to one): every storage event
    between the step's reads and its write may see its SCP either way (``Either``)."""
    zxids = [e.zxid for e in events]
    for m, e in enumerate(decided):
        d = e.detail
        if "write" not in d or m not in storage:
            continue
        dead, (first, _last), write = e.args.get("dead"), d["read"], d["write"]
        after = {s[0]: s for s in storage[m][2][0]}.get(dead)
        for n in range(m - 1, -1, -1):
            z = zxids[n]
            if not isinstance(z, int) or n not in storage:
                continue
            if z <= first:
                break
            if z >= write:
                continue
            peers, rows, procs = storage[n]
            options = tuple(procs) if isinstance(procs, Either) else (procs,)
            scps = tuple(s for s in options[0][0] if s[0] != dead)
            moved = (tuple(sorted((*scps, after))) if after else scps, *options[0][1:])
            storage[n] = (peers, rows, Either((*options, moved)))


def fits(model: Procedures, real: Procedures | Either) -> bool:
    """Do the model's procedures fit the log's (``Either``: any of them)?"""
    if isinstance(real, Either):
        return model in real
    return model == real
