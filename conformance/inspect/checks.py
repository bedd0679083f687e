"""What one consistent read of the replication znodes can judge (``replcheck inspect``).

Each check takes a :class:`~replcheck.conformance.inspect.view.ReplicationView` and yields
:class:`Finding` s; its docstring quotes the seed or reference sentence it protects. A
**violation** is a state no correct run passes through; a **warning** is a state a correct run
passes through on its way somewhere (a removed peer's queues before they are dropped, a dead
server's queues while its recovery is not visible in ZooKeeper), reported as
DumpReplicationQueues reports it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from replcheck.conformance.inspect.view import ReplicationView, server_parts, wal_of

VIOLATION, WARNING = "violation", "warning"


@dataclass(frozen=True)
class Finding:
    check: str
    severity: str
    path: str
    message: str

    def line(self) -> str:
        return f"{self.severity.upper()} {self.check}: {self.path}: {self.message}"


def _rs(view: ReplicationView, *parts: str) -> str:
    return "/".join((f"{view.base}/replication/rs", *parts))


def recovery_of(view: ReplicationView, server: str) -> str | None:
    """How a dead server's queues are being recovered, as the tree shows it (None: nothing
    shows that they are)."""
    rep = next((r for r in view.replicators if r.server == server), None)
    if rep is not None and rep.lock is not None:
        return f"locked by {rep.lock}"
    if any(d == server for _t, d, _q in view.claims):
        return "claims sent"
    stage = view.scp.get(server)
    if stage is not None and stage != "done":
        return f"SCP {stage}"
    if view.registered is not None and server in view.registered and stage is None:
        return "SCP due"
    return None


def dead_server_queues(view: ReplicationView) -> Iterator[Finding]:
    """Seed 000: "When a failure happens, they all race to create a znode called lock inside the
    unavailable Region Server znode that contains its queues. The Region Server that creates it
    successfully then transfers all the queues to its own znode"; reference section 3a (the
    SCP-driven design): "``ClaimReplicationQueuesProcedure``: ``queues =
    storage.getAllQueues(crashed)``; if empty → ``removeReplicatorIfQueueIsEmpty``, done".

    A queue of a server that is neither live nor being recovered. ``zk-multi``: the server's
    ServerCrashProcedure is done (it finishes only once no queue is left), or the master never
    registered the server (it will never schedule one): a violation. ``zk-lock``: the survivors
    claim any dead server's queues, so only a cluster with no live server leaves them (a
    warning). HBase 2.x keeps its procedures in the master's store, not in ZooKeeper: the tool's
    own "dead regionservers" notice (a warning)."""
    for rep in view.replicators:
        if rep.live or not rep.queues:
            continue
        path = _rs(view, rep.server)
        n = len(rep.queues)
        how = recovery_of(view, rep.server)
        if view.layout == "hbase":
            if rep.lock is not None:  # a copy under way (the pre-SCP design)
                continue
            yield Finding(
                "dead_server_queues", WARNING, path,
                f"{n} queue(s) of a dead region server; its recovery (ServerCrashProcedure) is "
                "in the master's procedure store, not in ZooKeeper",
            )  # fmt: skip
        elif view.layout == "zk-lock" or (view.layout == "reference" and how is None):
            if not view.live:
                yield Finding(
                    "dead_server_queues", WARNING, path,
                    f"{n} queue(s) of a dead server and no live server to claim them",
                )  # fmt: skip
            elif view.layout == "reference" and view.scp.get(rep.server) == "done":
                yield Finding(
                    "dead_server_queues", WARNING, path,
                    f"{n} queue(s) left after the server's SCP finished: a violation under "
                    "zk-multi, a claim still to come under zk-lock (give --layout)",
                )  # fmt: skip
        elif how is None:
            why = (
                "its ServerCrashProcedure is done"
                if view.scp.get(rep.server) == "done"
                else "it was never registered, so no ServerCrashProcedure will claim them"
            )
            yield Finding(
                "dead_server_queues", VIOLATION, path,
                f"{n} queue(s) of a server that is neither live nor being recovered: {why}",
            )  # fmt: skip


def claimed_from_live_server(view: ReplicationView) -> Iterator[Finding]:
    """Seed 000: "The recovered znodes are then renamed with the slave cluster ID appended to
    the name of the server that failed"; reference section 3a: "each claim **appends** ``"-" +
    sourceServerName``".

    A recovered queue names only servers that died before it was claimed: never a live server
    (a server name carries its start code, so a restarted server has a new name), never the
    queue's own owner (it was alive to claim it), and never one server twice."""
    for rep in view.replicators:
        for q in rep.queues:
            path = _rs(view, rep.server, q.queue_id)
            seen: set[str] = set()
            for d in q.dead:
                if d in view.live:
                    yield Finding(
                        "claimed_from_live_server", VIOLATION, path,
                        f"claimed from {d}, which is live",
                    )  # fmt: skip
                elif d == rep.server:
                    yield Finding(
                        "claimed_from_live_server", VIOLATION, path,
                        "names its own owner as a dead server it was claimed from",
                    )  # fmt: skip
                if d in seen:
                    yield Finding(
                        "claimed_from_live_server", VIOLATION, path,
                        f"names {d} twice: a server dies once",
                    )  # fmt: skip
                seen.add(d)


def queue_of_unknown_peer(view: ReplicationView) -> Iterator[Finding]:
    """Seed 003: "Each region server has one queue for every peer cluster it replicates to.
    These queues are represented by child znodes named using the cluster id of the peer
    cluster"; reference section 8 (DumpReplicationQueues): "queues of unknown peers are
    reported as deleted".

    A queue whose peer is not in ``replication/peers``. Removing a peer deletes its znode first
    and its queues after (each region server its own; a dead server's when they are claimed),
    so a snapshot may catch them in between: a warning, as the tool's "Found N deleted
    queues"."""
    for rep in view.replicators:
        for q in rep.queues:
            if q.peer in view.peers:
                continue
            pending = " (its removal is in progress)" if q.peer in view.removing else ""
            yield Finding(
                "queue_of_unknown_peer", WARNING, _rs(view, rep.server, q.queue_id),
                f"a queue of peer {q.peer}, which does not exist{pending}",
            )  # fmt: skip


def wal_in_two_queues(view: ReplicationView) -> Iterator[Finding]:
    """The property ``single_owner`` (docs/properties.md): seed 000's winner of the lock
    "transfers all the queues to its own znode" and the old ones "are deleted from the old
    location": each WAL is owed to a peer by at most one queue of a live server (a dead server's
    copy being claimed does not count).

    Two queues of live servers holding the same WAL for the same peer: two sources ship it
    (HBASE-12241, what ``zk-lock`` reaches under a double failure)."""
    where: dict[tuple[str, str], list[str]] = {}
    for rep in view.replicators:
        if not rep.live:
            continue
        for q in rep.queues:
            for w in q.wals:
                where.setdefault((q.peer, w.name), []).append(f"{rep.server}/{q.queue_id}")
    for (peer, wal), places in sorted(where.items()):
        if len(places) > 1:
            yield Finding(
                "wal_in_two_queues", VIOLATION, _rs(view),
                f"WAL {wal} is queued for peer {peer} by {len(places)} live servers' queues: "
                + ", ".join(places),
            )  # fmt: skip


def lock_on_live_server(view: ReplicationView) -> Iterator[Finding]:
    """Seed 000: "they all race to create a znode called lock inside the unavailable Region
    Server znode that contains its queues".

    A ``lock`` under a server that is live: its queues are being taken while it still
    replicates them."""
    for rep in view.replicators:
        if rep.lock is not None and rep.live:
            yield Finding(
                "lock_on_live_server", VIOLATION, _rs(view, rep.server, "lock"),
                f"the server is live, and {rep.lock or 'someone'} holds a lock on its queues",
            )  # fmt: skip


def wal_of_other_server(view: ReplicationView) -> Iterator[Finding]:
    """Seed 000: "The znode names in the queues represent the actual file names on HDFS in the
    form address,port.timestamp"; seed 001: "Each of these queues tracks the WALs created by that
    RegionServer".

    A normal queue holds its owner's WALs; a recovered queue the WALs of the first dead server
    its id names (whose WAL directory its source reads, the model's ``queue_wal_owner``)."""
    for rep in view.replicators:
        for q in rep.queues:
            src = q.dead[0] if q.dead else rep.server
            if server_parts(src) is None:
                continue
            for w in q.wals:
                if wal_of(w.name, src) is False:
                    yield Finding(
                        "wal_of_other_server", VIOLATION, _rs(view, rep.server, q.queue_id, w.name),
                        f"not a WAL of {src}",
                    )  # fmt: skip


def undecodable_value(view: ReplicationView) -> Iterator[Finding]:
    """Seed 003: "The value of these HLog child znodes is the latest position that has been
    replicated"; reference section 3a: "data = PB-magic + position
    (ZKUtil.positionToByteArray)"; seed 003: peer-state znodes "simply contain a boolean value
    (i.e. ENABLED or DISABLED)".

    A position or peer state that does not decode, a negative position, a peer without its
    ``peer-state`` (adding a peer creates both at once)."""
    for rep in view.replicators:
        for q in rep.queues:
            for w in q.wals:
                path = _rs(view, rep.server, q.queue_id, w.name)
                if w.error is not None:
                    yield Finding("undecodable_value", VIOLATION, path, w.error)
                elif w.position is not None and w.position < 0:
                    yield Finding(
                        "undecodable_value", VIOLATION, path, f"negative position {w.position}"
                    )
    for pid, p in sorted(view.peers.items()):
        path = f"{view.base}/replication/peers/{pid}/peer-state"
        if p.error is not None:
            yield Finding("undecodable_value", VIOLATION, path, p.error)
        elif p.state is None:
            yield Finding("undecodable_value", VIOLATION, path, "the peer has no peer-state")


MAX_LONG = (1 << 63) - 1
"""The largest position HBase can hold: a WAL position is a Java ``long``."""
PLAUSIBLE_WAL = 1 << 40
"""1 TiB: far past any WAL. A region server rolls its WAL when it reaches a fraction of the
HDFS block size (``hbase.regionserver.logroll.multiplier``, 0.5 by default, of 256 MiB) or
``hbase.regionserver.maxlogsize``; even a cluster configured for huge blocks writes WALs of a
few GiB."""


def implausible_position(view: ReplicationView) -> Iterator[Finding]:
    """Seed 003: "The value of these HLog child znodes is the latest position that has been
    replicated"; reference section 3a: "data = PB-magic + position
    (ZKUtil.positionToByteArray)": a byte offset in a WAL, a Java ``long``.

    A position past ``Long.MAX_VALUE`` (a decimal text of 20 digits or more) is none HBase can
    have written, nor read back (``Long.parseLong`` fails): a violation. A position past 1 TiB
    is a byte offset in no real WAL (a value written by something else, or bits flipped): a
    warning."""
    for rep in view.replicators:
        for q in rep.queues:
            for w in q.wals:
                if w.position is None or w.position < PLAUSIBLE_WAL:
                    continue
                path = _rs(view, rep.server, q.queue_id, w.name)
                digits = len(str(w.position))
                if w.position > MAX_LONG:
                    yield Finding(
                        "implausible_position", VIOLATION, path,
                        f"position {w.position} ({digits} digits) is past the largest a Java "
                        f"long holds ({MAX_LONG}): HBase cannot have written it",
                    )  # fmt: skip
                else:
                    yield Finding(
                        "implausible_position", WARNING, path,
                        f"position {w.position} is past 1 TiB: a byte offset in no real WAL",
                    )  # fmt: skip


def cversion_leftover(view: ReplicationView) -> Iterator[Finding]:
    """Reference section 3a (``claimQueue``): "one ``multi``: create new queue node; ...
    create+delete ``/rs/cversion_<newQueueId>`` (to bump the cversion of ``/rs``)".

    The bump node is created and deleted in the same ``multi``, so no read ever sees it."""
    for name in view.leftovers:
        yield Finding(
            "cversion_leftover", VIOLATION, _rs(view, name),
            "a claim's cversion bump node outlived its multi",
        )  # fmt: skip


CHECKS: tuple[Callable[[ReplicationView], Iterator[Finding]], ...] = (
    dead_server_queues,
    claimed_from_live_server,
    queue_of_unknown_peer,
    wal_in_two_queues,
    lock_on_live_server,
    wal_of_other_server,
    undecodable_value,
    implausible_position,
    cversion_leftover,
)


def check(view: ReplicationView) -> list[Finding]:
    """Every check's findings, violations first."""
    found = [f for c in CHECKS for f in c(view)]
    return sorted(found, key=lambda f: f.severity != VIOLATION)
