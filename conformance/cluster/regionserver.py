"""A region server of the source cluster (cluster 0):
``python -m replcheck.conformance.cluster.regionserver --run-dir D --zk HOSTS --design NAME --index
I``.

It has its own ZooKeeper session and its own WAL files; its clients' edits (the workload: puts
and deletes over tables with GLOBAL and LOCAL families and the catalog table) go into the current
WAL; one source per queue reads, filters, ships and records positions; it claims queues as its
design says (``zk-lock``: it races for the ``lock`` znode itself; ``zk-multi`` and ``table``: the
master's ServerCrashProcedure sends it claims). Every step is a trace event named after the model's
action. See ``cluster/common.py`` for the znode layout and the fence.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import random
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from kazoo.exceptions import NodeExistsError, NoNodeError
from replcheck.conformance.cluster import wire
from replcheck.conformance.cluster.common import (
    CLAIMS,
    CVERSION_PREFIX,
    ENABLED,
    LIVE,
    PEERS,
    QUEUES,
    REFRESH,
    SERVERS,
    TABLE,
    TxnFailed,
    ZkProcess,
    dumps,
    locate_wal,
    log,
    old_wal_dir,
    orphaned,
    row_key_of,
    row_znode,
    store_dir,
    wal_dir,
    write_atomic,
)
from replcheck.conformance.hbase import wal as walfile
from replcheck.conformance.hbase.names import (
    CFG,
    WRITE_KINDS,
    Steps,
    kind_of,
    peer_id,
    peer_index,
    server_index,
    server_name,
)
from replcheck.conformance.hbase.values import decode_peer_state, decode_position
from replcheck.model.common import rules
from replcheck.model.table import rules as table_rules
from replcheck.model.table.state import NO_SOURCE

T = TypeVar("T")


def serialized(method: Callable[..., T]) -> Callable[..., T]:
    """Run under the server's lock, so that a storage write and its trace event are not
    interleaved with another thread's: a process's events keep their zxids in order."""

    @functools.wraps(method)
    def wrapper(self: RegionServer, *args: Any, **kwargs: Any) -> T:
        with self.lock:
            return method(self, *args, **kwargs)

    return wrapper


TABLES = (("t1", "g"), ("t1", "l"), ("t2", "g"), ("t2", "l"), ("hbase:meta", "info"))


@dataclass
class Source:
    """A replication source: one queue, one WAL group (HBase's ReplicationSource + shipper)."""

    number: int
    peer: int
    queue: str
    """The queue znode name (ZooKeeper era) or the row key (table era)."""
    wal_server: str
    recovered: bool
    wals: list[str]
    pos: int = 0
    stopped: threading.Event = field(default_factory=threading.Event)


class RegionServer(ZkProcess):
    def __init__(self, args: argparse.Namespace) -> None:
        self.index = args.index
        self.name = server_name(args.index)
        self.steps = Steps(args.design)
        self.args = args
        self.rng = random.Random(args.seed * 1000003 + args.index)
        super().__init__(
            args.zk, Path(args.run_dir), f"rs-{self.name}", args.design, args.session_timeout
        )
        self.trace.meta("process_start", server=self.name, index=self.index)
        self.sources: dict[int, Source] = {}
        self.numbers = itertools.count()
        self.peers: dict[int, dict[str, Any]] = {}
        self.seq = 0
        self.wal_dir = wal_dir(self.run_dir, self.name)
        self.wal_dir.mkdir(parents=True, exist_ok=True)
        self.writer = walfile.WalWriter(self.wal_dir / self.steps.wal_name(self.index, 0))
        self.store = store_dir(self.run_dir, 0)
        self.store.mkdir(parents=True, exist_ok=True)
        self.edits_written = 0
        self.sink_started = False
        """HBase starts the replication sink (``startReplicationService``) after
        ``setupWALAndReplication``, which in the ZooKeeper era creates the server's queue znode
        (the model's ``join``): a batch another cluster sends before then is refused, and it
        tries again."""
        self.sink_server, port = wire.serve(0, self.on_request)
        self.ensure(LIVE, QUEUES, PEERS, TABLE, SERVERS, f"{CLAIMS}/{self.name}", REFRESH)
        self.live_path = f"{LIVE}/{self.name}"
        self.fence_data = dumps({"sink": f"127.0.0.1:{port}"})
        # The session is on record before the server is live, so whoever sees it live (the
        # fault injector's forced expiry) can read it.
        self.session_id = self.zk.client_id[0]
        (self.run_dir / "sessions").mkdir(exist_ok=True)
        sid, pw = self.zk.client_id
        write_atomic(
            self.run_dir / "sessions" / f"{self.name}.json",
            json.dumps({"session": sid, "password": pw.hex()}),
        )
        self.create_fence(self.live_path, wait=False)
        self.ensure(f"{SERVERS}/{self.name}")
        if self.steps.era == "zk":
            # Joining: the server's znode under /hbase/replication/rs (the model's ``join``).
            zxid = self.txn(lambda t: t.create(f"{QUEUES}/{self.name}", b""))
            self.trace.emit("join", {"server": self.index}, zxid=zxid)
        else:
            # Joining: the server's live znode, by which the master counts it online.
            self.trace.emit("join", {"server": self.index}, zxid=self.fence_zxid)
        self.sink_started = True
        self.sync_peers(startup=True)

    @property
    def current_wal(self) -> str:
        return self.writer.path.name

    # --- the fence on client writes -------------------------------------------------------------

    def fence_holds(self) -> bool:
        """Before an edit counts as written, the server must still hold its session: the
        ephemeral znode exists and is ours. (HBase fences a zombie's WAL with HDFS lease recovery;
        here the session is the lease.)"""
        try:
            stat = self.retry(lambda: self.zk.exists(self.live_path), expire_aborts=False)
        except Exception:  # expired, or closed under us: the fence cannot be confirmed
            return False
        return stat is not None and stat.ephemeralOwner == self.session_id

    def check_fence(self) -> None:
        if not self.fence_holds():
            self.abort("ephemeral znode gone: not acknowledging the edit")

    # --- workload ---------------------------------------------------------------------------------

    def planned(self) -> list[tuple[str, str, str]] | None:
        """This incarnation's writes from ``--workload`` (a plan's, ``conformance.plan``):
        (table, family, op) in order; None without one."""
        if not self.args.workload:
            return None
        writes = json.loads(Path(self.args.workload).read_text())
        mine = writes[self.index] if self.index < len(writes) else []
        return [(*WRITE_KINDS[w["kind"]], w["op"]) for w in mine]

    def workload(self) -> None:
        planned = self.planned()
        total = self.args.edits if planned is None else len(planned)
        n = 0
        while n < total and not self.stopping.is_set():
            time.sleep(self.rng.uniform(0.5, 1.5) / max(self.args.rate, 0.1))
            if planned is None:
                table, family = self.rng.choice(TABLES)
                op = "delete" if self.rng.random() < 0.2 else "put"
            else:
                table, family, op = planned[n]
            edit = {
                "table": table,
                "family": family,
                "row": f"r{self.rng.randrange(1000)}",
                "op": op,
                "ids": [0],
                "kind": kind_of(table, family),
            }
            self.write(edit)
            n += 1
            if n % self.args.roll_every == 0:
                self.roll()
        self.trace.meta("note", what="workload done", edits=n)

    def write(self, edit: dict[str, Any], uid: str | None = None) -> None:
        """Append one edit to the current WAL (seed 002: "The edit is appended to the current
        WAL") and record it, under the writer's lock, so the trace has every entry of every WAL
        in the file's order whatever stops the process next; then the fence: a writer whose
        session is gone aborts without acknowledging the client (the entry stays in its WAL and
        is replicated from there). A split WAL cannot be appended to (its lease is taken)."""
        with self.lock:
            uid = uid or f"0.{self.index}.{self.seq}.{self.edits_written}"
            edit = {**edit, "uid": uid}
            try:
                self.writer.append(edit)
            except walfile.LeaseLost:
                lost = True
            else:
                lost = False
                self.edits_written += 1
            wal = self.current_wal
            known = sorted(p for p, info in self.peers.items() if info.get("source"))
            owed = [p for p in known if rules.replicable(edit["kind"], tuple(edit["ids"]), p + 1)]
            if lost:
                pass  # not written: nothing to record
            elif edit["ids"] == [0]:
                self.trace.emit(
                    "put",
                    {"server": self.index, "group": 0, "kind": edit["kind"]},
                    uid=uid,
                    wal=wal,
                    owed=owed,
                    table=edit["table"],
                    family=edit["family"],
                    op=edit["op"],
                )
            else:
                self.trace.meta("sink_apply", uids=[uid], wal=wal, owed=owed, ids=edit["ids"])
        if lost:
            self.abort("WAL split: lease lost, the edit not written")
        if not self.fence_holds():
            self.abort("ephemeral znode gone: not acknowledging the edit")

    def roll(self) -> None:
        """Seed 001: "the new file is added to the queue of each slave cluster znode just before
        it is made available"; a failure to add it aborts the server (HBASE-3515's fix). The file
        is created first, as ``FSHLog.rollWriter`` creates the new writer before it tells the
        listeners (``preLogRoll``): a zombie whose session is gone leaves the new, empty WAL in
        its folder for the split (recorded as its ``roll``). The table era writes nothing on a
        roll (reference section 10)."""
        with self.lock:
            new_seq = self.seq + 1
            new = self.steps.wal_name(self.index, new_seq)
            normal = [
                s for s in self.sources.values() if not s.recovered and not s.stopped.is_set()
            ]
            try:
                writer = walfile.WalWriter(self.wal_dir / new)
            except FileNotFoundError:
                self.abort(f"roll: cannot create {new}: the WAL folder was split")
            args = {"server": self.index, "group": 0}
            zxid = None
            if self.steps.era == "zk" and normal:

                def ops(t: Any) -> None:
                    for s in normal:
                        t.create(f"{QUEUES}/{self.name}/{s.queue}/{new}", self.steps.queued_value)

                try:
                    zxid = self.txn(ops, fenced=lambda: self.trace.emit("roll", args, wal=new))
                except TxnFailed as exc:
                    self.abort(f"roll: cannot queue {new}: {exc}")
            self.trace.emit("roll", args, zxid=zxid, wal=new)
            old = self.writer
            self.writer = writer
            self.seq = new_seq
            old.close()
            for s in normal:
                s.wals.append(new)
            old_wal_dir(self.run_dir).mkdir(parents=True, exist_ok=True)
            shutil.move(str(old.path), str(old_wal_dir(self.run_dir) / old.path.name))
            self.trace.emit(
                "archive", {"server": self.index, "group": 0, "seq": new_seq - 1}, wal=old.path.name
            )

    # --- replication into this cluster (master-master) ----------------------------------------

    def on_request(self, req: dict[str, Any]) -> dict[str, Any]:
        if req.get("op") != "relay":
            return {"ok": False, "error": "unknown op"}
        if not self.sink_started:
            return {"ok": False, "error": "the replication sink has not started"}
        for e in req["edits"]:
            ids = [*e["ids"], 0]
            with open(self.store / f"applied-{self.name}.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps({**e, "ids": ids, "at": 0}, sort_keys=True) + "\n")
            fields = {k: e[k] for k in ("table", "family", "row", "op", "kind")}
            self.write({**fields, "ids": ids}, uid=e["uid"])
        return {"ok": True}

    # --- peers --------------------------------------------------------------------------------

    def read_peers(self) -> dict[int, dict[str, Any]]:
        out = {}
        for pid in self.children(PEERS):
            raw = self.get(f"{PEERS}/{pid}")
            info = self.steps.peer_info(raw[0]) if raw is not None else None
            state = self.get(f"{PEERS}/{pid}/peer-state")
            if info is None or state is None:
                continue
            out[peer_index(pid)] = {**info, "state": decode_peer_state(state[0])}
        return out

    def sync_peers(self, startup: bool = False) -> None:
        """Follow the peers znode: states for everyone; in the ZooKeeper era a new peer gets a
        queue holding the current WAL and a removed peer's queues go (``peer_sync``). In the table
        era peers come and go by RefreshPeerProcedure, except at startup (``RSM.init`` writes
        nothing)."""
        now = self.read_peers()
        for p, info in now.items():
            old = self.peers.get(p)
            self.peers[p] = {**info, "source": old.get("source") if old else False}
            if old is None or old.get("state") != info["state"]:
                # what a plan's peer operation waits for: every live server follows it
                self.trace.meta("peer_seen", peer=p, state=info["state"])
            if old is None and (self.steps.era == "zk" or startup):
                self.add_peer_source(p, write=self.steps.era == "zk")
        for p in list(self.peers):
            if p not in now:
                if self.steps.era == "zk":
                    self.remove_peer_sources(p)
                else:
                    self.peers[p]["state"] = "REMOVED"

    @serialized
    def add_peer_source(self, p: int, write: bool, refresh: str | None = None) -> None:
        with self.lock:
            wal = self.current_wal
            if self.steps.era == "zk":
                queue = peer_id(p)

                def ops(t: Any) -> None:
                    # the peer read with the write, as the model's peer_sync reads it: a peer
                    # removed since this server listed the peers gets no queue (HBase 1.x adds
                    # sources from its own copy of the peers, a view the model does not have)
                    t.check(f"{PEERS}/{queue}", -1)
                    t.create(f"{QUEUES}/{self.name}/{queue}", b"")
                    t.create(f"{QUEUES}/{self.name}/{queue}/{wal}", self.steps.queued_value)

                try:
                    zxid = self.txn(ops)
                except TxnFailed:
                    return
                self.trace.emit("peer_sync", {"server": self.index, "peer": p}, zxid=zxid)
            else:
                queue = self.steps.row_key(p, self.index)
                zxid = None
                if write:
                    zxid = self.set_offset(queue, wal, 0, extra=refresh)
                    self.trace.emit("refresh", {"peer": p, "server": self.index}, zxid=zxid)
            self.peers.setdefault(p, {})["source"] = True
            self.start_source(p, queue, self.name, False, [wal], 0)

    @serialized
    def remove_peer_sources(self, p: int, refresh: str | None = None) -> None:
        """Stop the peer's sources, normal and recovered, and delete its queues."""
        had = bool(self.peers.get(p, {}).get("source"))
        for s in list(self.sources.values()):
            if s.peer == p:
                had = True
                s.stopped.set()
        if self.steps.era == "zk":
            doomed = []
            for q in self.children(f"{QUEUES}/{self.name}"):
                if self.steps.parse_zk_queue_id(q)[0] == p:
                    doomed.append(q)
            if not doomed and not had:
                # a peer this server never added (removed before its queue's check-and-create):
                # nothing to stop, nothing to delete, no step
                self.peers.pop(p, None)
                return
            wals = {q: self.children(f"{QUEUES}/{self.name}/{q}") for q in doomed}

            def ops(t: Any) -> None:
                for q in doomed:
                    for w in wals[q]:
                        t.delete(f"{QUEUES}/{self.name}/{q}/{w}")
                    t.delete(f"{QUEUES}/{self.name}/{q}")

            try:
                zxid = self.txn(ops)
            except TxnFailed as exc:  # its session is gone: a zombie deletes nothing
                self.trace.meta("note", what=f"removal of peer {p} not written", error=str(exc))
            else:
                self.trace.emit("peer_sync", {"server": self.index, "peer": p}, zxid=zxid)
        else:
            prefix = f"{peer_id(p)}-{self.name}"
            rows = [r for r in self.children(TABLE) if row_key_of(r).startswith(prefix)]

            def ops(t: Any) -> None:
                for r in rows:
                    t.delete(f"{TABLE}/{r}")
                if refresh:
                    t.delete(refresh)

            try:
                zxid = self.txn(ops)
            except TxnFailed:
                zxid = None
            self.trace.emit("refresh", {"peer": p, "server": self.index}, zxid=zxid)
        self.peers.pop(p, None)

    # --- table storage ----------------------------------------------------------------------------

    def set_offset(self, row: str, wal: str, pos: int, extra: str | None = None) -> int | None:
        """``setOffset`` without last sequence ids: a plain put, last writer wins, (re)creating
        the row (reference section 2)."""
        group = table_rules.wal_group_id(CFG, self.steps.parse_wal(wal))
        path = row_znode(row)
        got = self.get(path)
        data = json.loads(got[0]) if got and got[0] else {"queue": {}}
        data["queue"][group] = f"{wal}:{pos}"

        def ops(t: Any) -> None:
            if got is None:
                t.create(path, dumps(data))
            else:
                t.set_data(path, dumps(data))
            if extra:
                t.delete(extra)

        try:
            return self.txn(ops)
        except TxnFailed:
            return None

    # --- sources ----------------------------------------------------------------------------------

    def start_source(
        self, peer: int, queue: str, wal_server: str, recovered: bool, wals: list[str], pos: int
    ) -> Source:
        src = Source(next(self.numbers), peer, queue, wal_server, recovered, list(wals), pos)
        self.sources[src.number] = src
        threading.Thread(target=self.run_source, args=(src,), daemon=True).start()
        return src

    def sink_of(self, peer: int) -> str | None:
        info = self.peers.get(peer)
        if not info or info.get("state") != ENABLED or not info.get("sinks"):
            return None
        return self.rng.choice(info["sinks"])

    def args_of(self, src: Source) -> dict[str, int]:
        return {"server": self.index, "shipper": src.number}

    def run_source(self, src: Source) -> None:
        """The source's thread: its loop, started again after an unexpected error (logged)."""
        while not src.stopped.is_set() and not self.stopping.is_set():
            self.guarded(f"source {src.number}", lambda: self.source_loop(src))

    def source_loop(self, src: Source) -> None:
        """Seed 003's read/filter/ship pattern: read a batch, keep the replicable edits, send it,
        then record the position."""
        target = src.peer + 1
        while not src.stopped.is_set() and not self.stopping.is_set():
            if not src.wals:
                return
            wal = src.wals[0]
            path = locate_wal(self.run_dir, src.wal_server, wal)
            if path is None:
                if src.recovered or len(src.wals) > 1:
                    self.drop_head(src, "skip_missing")
                else:
                    time.sleep(0.05)
                continue
            try:
                scan = walfile.scan(path, src.pos, limit=self.args.batch)
            except FileNotFoundError:
                continue
            if scan.records:
                edits = [r.edit for r in scan.records]
                keep = [e for e in edits if self.steps.ships(e["kind"], e["ids"], target)]
                # A source ships only while its server holds its session, as the model's dead
                # server ships nothing (a zombie's in-flight batch is not modelled).
                if not self.fence_holds():
                    self.abort("ephemeral znode gone: not shipping")
                if not self.ship(src, keep):
                    continue
                self.trace.emit(
                    "ship",
                    {**self.args_of(src), "sink": 0},
                    queue=src.queue,
                    wal=wal,
                    start=src.pos,
                    end=scan.end,
                    uids=[e["uid"] for e in keep],
                    read=len(edits),
                )
                src.pos = scan.end
                self.persist(src, wal)
                continue
            closed = src.recovered or wal != self.current_wal
            if closed and len(src.wals) > 1:
                self.drop_head(src, "advance")
            elif closed and src.recovered:
                self.drop_head(src, "finish")
            else:
                time.sleep(0.05)

    def ship(self, src: Source, edits: list[dict[str, Any]]) -> bool:
        """Send a batch until a sink applies it; False if the source stopped meanwhile."""
        if not edits:
            return True
        while not src.stopped.is_set():
            addr = self.sink_of(src.peer)
            if addr is not None:
                try:
                    if wire.send(addr, {"op": "apply", "edits": edits, "source": self.name}).get(
                        "ok"
                    ):
                        return True
                except OSError:
                    pass
            time.sleep(0.2)
        return False

    @serialized
    def persist(self, src: Source, wal: str) -> None:
        if self.steps.era == "zk":
            path = f"{QUEUES}/{self.name}/{src.queue}/{wal}"
            try:
                value = self.steps.position_value(src.pos, self.ident)
                zxid = self.txn(lambda t: t.set_data(path, value))
            except TxnFailed:
                self.trace.meta("note", what="queue gone; source stops", queue=src.queue)
                src.stopped.set()
                return
        else:
            zxid = self.set_offset(src.queue, wal, src.pos)
        self.trace.emit("persist", self.args_of(src), zxid=zxid, wal=wal, position=src.pos)

    @serialized
    def drop_head(self, src: Source, action: str) -> None:
        """``advance`` (a newer WAL is queued), ``finish`` (a recovered queue's last WAL: the
        queue goes, seed 000) or ``skip_missing`` (the WAL is nowhere)."""
        wal = src.wals[0]
        last = len(src.wals) == 1
        zxid = None
        if self.steps.era == "zk":
            qpath = f"{QUEUES}/{self.name}/{src.queue}"

            def ops(t: Any) -> None:
                t.delete(f"{qpath}/{wal}")
                if last and src.recovered:
                    t.delete(qpath)

            try:
                zxid = self.txn(ops)
            except TxnFailed:
                src.stopped.set()
                return
        elif action == "advance":
            zxid = self.set_offset(src.queue, wal, -1)
        elif last and src.recovered:
            with contextlib.suppress(TxnFailed):
                zxid = self.txn(lambda t: t.delete(row_znode(src.queue)))
        if self.steps.era == "table" and action == "skip_missing":
            self.trace.meta("note", what="WAL missing, skipped", wal=wal, queue=src.queue)
        else:
            self.trace.emit(action, self.args_of(src), zxid=zxid, wal=wal, queue=src.queue)
        src.wals.pop(0)
        src.pos = 0
        if not src.wals:
            src.stopped.set()
            self.sources.pop(src.number, None)

    # --- claims sent by the master (zk-multi, table) ----------------------------------------------

    def poll_requests(self) -> None:
        while not self.stopping.is_set():
            time.sleep(0.1)
            self.guarded("requests", self.handle_requests)

    def handle_requests(self) -> None:
        """Follow the peers; run the claims the master sent and (table era) the refreshes."""
        self.sync_peers()
        for req in self.children(f"{CLAIMS}/{self.name}"):
            path = f"{CLAIMS}/{self.name}/{req}"
            data = self.get_json(path)
            if data is None:
                continue
            if self.steps.era == "zk":
                self.claim_zk(path, data)
            else:
                self.claim_table(path, data)
        if self.steps.era == "table":
            for pid in self.children(REFRESH):
                path = f"{REFRESH}/{pid}/{self.name}"
                data = self.get_json(path)
                if data is None:
                    continue
                p = peer_index(pid)
                if data["op"] == "add" and self.peers.get(p, {}).get("source"):
                    # RSM.addPeer: a peer the server already has (it read it in storage when it
                    # started, after the procedure's storage update) adds nothing
                    self.answer_refresh(p, path)
                elif data["op"] == "add":
                    self.peers.setdefault(p, {})
                    self.peers[p].update(self.read_peers().get(p, {}))
                    self.add_peer_source(p, write=True, refresh=path)
                else:
                    self.remove_peer_sources(p, refresh=path)

    def answer_refresh(self, p: int, path: str) -> None:
        try:
            zxid = self.txn(lambda t: t.delete(path))
        except TxnFailed:
            zxid = None
        self.trace.emit("refresh", {"peer": p, "server": self.index}, zxid=zxid)

    def delete_request(self, req: str) -> None:
        """Answer a claim request (a control-plane znode, not replication storage)."""
        with contextlib.suppress(NoNodeError):
            self.retry(lambda: self.zk.delete(req))

    @serialized
    def claim_zk(self, req: str, data: dict[str, Any]) -> None:
        """Reference 3a ``claimQueue``: read the positions outside the ``multi``; one ``multi``
        creates the new queue and its WAL znodes, deletes the old ones and bumps the cversion of
        ``/rs``; a failed ``multi`` means someone else took the queue."""
        dead, queue = data["dead"], data["queue"]
        d = server_index(dead)
        old = f"{QUEUES}/{dead}/{queue}"

        def positions() -> tuple[list[str], dict[str, bytes]]:
            queues = [q for q in self.children(f"{QUEUES}/{dead}") if q != "lock"]
            at = self.children(old)
            return queues, {w: (self.get(f"{old}/{w}") or (b"", None))[0] or b"" for w in at}

        (queues, raw), read = self.served(positions)
        wals = {w: decode_position(value) for w, value in raw.items()}
        qi = queues.index(queue) if queue in queues else -1
        self.trace.emit(
            "claim_read", {"server": self.index, "dead": d, "queue": qi}, queue=queue, read=read
        )
        self.hooks.point("claim_read", dead=d, queue=queue)
        peer, chain = self.steps.parse_zk_queue_id(queue)
        new = self.steps.zk_queue_id(peer, (*chain, d))
        mine = f"{QUEUES}/{self.name}/{new}"

        def ops(t: Any) -> None:
            t.create(mine, b"")
            for w, value in raw.items():
                # copied as read (HBase copies the bytes, the metadata prefix made anew)
                t.create(f"{mine}/{w}", self.steps.copied_value(value, self.ident))
                t.delete(f"{old}/{w}")
            t.delete(old)
            if not self.steps.flag("claim_skips_cversion"):
                t.create(f"{QUEUES}/{CVERSION_PREFIX}{new}", b"")
                t.delete(f"{QUEUES}/{CVERSION_PREFIX}{new}")
            t.delete(req)

        try:
            zxid = self.txn(ops) if qi >= 0 else None
        except TxnFailed as exc:
            zxid = None
            self.trace.meta("claim_failed", queue=queue, error=str(exc))
        if zxid is None:
            self.delete_request(req)
            if self.steps.flag("start_failed_claim") and wals:
                self.start_recovered_zk(peer, new, chain or (d,), wals)
            return
        self.trace.emit("claim_commit", {"server": self.index}, zxid=zxid, queue=new, old=old)
        if peer not in self.peers:
            self.drop_queue_zk(new)
            return
        self.start_recovered_zk(peer, new, (*chain, d), wals)

    def start_recovered_zk(self, peer: int, queue: str, chain, wals: dict[str, int]) -> None:
        if not wals:
            self.drop_queue_zk(queue)
            return
        ordered = sorted(wals, key=lambda w: self.steps.parse_wal(w)[2])
        pos = 0 if self.steps.flag("recovered_from_zero") else wals[ordered[0]]
        self.start_source(peer, queue, server_name(chain[0]), True, ordered, pos)

    @serialized
    def drop_queue_zk(self, queue: str) -> None:
        """Delete a claimed queue whose peer is gone (HBASE-17077's fix) or that has no WAL."""
        path = f"{QUEUES}/{self.name}/{queue}"
        wals = self.children(path)

        def ops(t: Any) -> None:
            for w in wals:
                t.delete(f"{path}/{w}")
            t.delete(path)

        try:
            zxid = self.txn(ops)
        except TxnFailed:
            return
        args = {"server": self.index, "queue": -1}  # found in the model by its name
        self.trace.emit("drop_claimed_queue", args, zxid=zxid, queue=queue)

    @serialized
    def claim_table(self, req: str, data: dict[str, Any]) -> None:
        """``RSM.claimQueue`` (reference section 4): check the peer, ``getOffsets``, then the
        conditional delete+put; on success a recovered source over the dead server's archived
        WALs that ``shouldReplicate``."""
        row, d, child = data["row"], server_index(data["dead"]), data.get("child", 0)
        self.trace.emit("claim_read", {"server": self.index, "dead": d, "child": child}, row=row)
        peer, _owner, source = self.steps.parse_row_key(row)
        got = self.get(row_znode(row))
        self.hooks.point("claim_read", dead=d, queue=row)
        if self.peers.get(peer, {}).get("state") not in (ENABLED, "DISABLED") or got is None:
            self.delete_request(req)
            return
        raw, stat = got
        offsets = json.loads(raw)["queue"]
        src = source if source != NO_SOURCE else d
        new = self.steps.row_key(peer, self.index, src)

        def ops(t: Any) -> None:
            t.check(row_znode(row), stat.version)
            t.delete(row_znode(row))
            t.create(row_znode(new), raw)
            t.delete(req)

        try:
            zxid = self.txn(ops)
        except TxnFailed as exc:
            self.trace.meta("claim_failed", row=row, error=str(exc))
            self.delete_request(req)
            return
        self.trace.emit("claim_commit", {"server": self.index}, zxid=zxid, row=new, old=row)
        source_name = server_name(src)
        group = table_rules.wal_group_id(CFG, (src, 0, 0))
        offset = None
        if group in offsets:
            wal, _, pos = offsets[group].rpartition(":")
            offset = (self.steps.parse_wal(wal)[2], int(pos)) if wal else (-1, 0)
        archived = []
        for f in sorted(old_wal_dir(self.run_dir).glob("*")):
            try:
                key = self.steps.parse_wal(f.name)
            except ValueError:
                continue
            if key[0] == src and self.steps.should_replicate(offset, key):
                archived.append((key[2], f.name))
        archived.sort()
        if not archived:
            try:
                zxid = self.txn(lambda t: t.delete(row_znode(new)))
            except TxnFailed:
                zxid = None
            self.trace.emit("finish", {"server": self.index, "shipper": -1}, zxid=zxid, row=new)
            return
        first = archived[0][0]
        pos = table_rules.start_position(offset, (src, 0, first))
        self.start_source(peer, new, source_name, True, [n for _, n in archived], pos)

    # --- zk-lock: the survivors' race for the lock znode (seeds 000/003) --------------------------

    def failover_loop(self) -> None:
        while not self.stopping.is_set():
            time.sleep(0.3)
            self.guarded("failover", self.failover_round)

    def failover_round(self) -> None:
        """Follow the peers; race for the lock of every dead server that has queues."""
        self.sync_peers()
        # The queue nodes first, then the live servers: a starting server creates its live
        # znode before its queue node, so a node seen here whose server is not live is really
        # dead (read the other way round, a server starting in between looks dead and has its
        # queues taken: soak run seed 7607).
        nodes = self.children(QUEUES)
        live = set(self.children(LIVE))
        for dead in nodes:
            if dead == self.name or dead in live or dead.startswith(CVERSION_PREFIX):
                continue
            if self.get(f"{QUEUES}/{dead}/lock") is not None:
                continue
            time.sleep(self.rng.uniform(0.05, 0.3))
            self.try_claim_all(dead)

    @serialized
    def try_claim_all(self, dead: str) -> None:
        """Seed 000: "they all race to create a znode called lock ... The Region Server that
        creates it successfully then transfers all the queues to its own znode, one at a time ...
        After all queues are transferred, they are deleted from the old location"."""
        d = server_index(dead)
        base = f"{QUEUES}/{dead}"
        try:
            zxid = self.txn(lambda t: t.create(f"{base}/lock", self.name.encode()))
        except TxnFailed:
            return
        self.trace.emit("lock", {"server": self.index, "dead": d}, zxid=zxid)
        queues = [q for q in self.children(base) if q != "lock"]
        self.hooks.point("claim_read", dead=d, queue=",".join(queues))
        copied: list[tuple[int, str, tuple[int, ...], dict[str, int]]] = []
        for qi, q in enumerate(queues):
            wals = {
                w: decode_position((self.get(f"{base}/{q}/{w}") or (b"", None))[0] or b"")
                for w in self.children(f"{base}/{q}")
            }
            peer, chain = self.steps.parse_zk_queue_id(q)
            new = self.steps.zk_queue_id(peer, (*chain, d))
            mine = f"{QUEUES}/{self.name}/{new}"
            have = set(self.children(mine))
            exists = self.get(mine) is not None

            def ops(t: Any, mine=mine, wals=wals, have=have, exists=exists) -> None:
                if not exists:
                    t.create(mine, b"")
                for w, pos in wals.items():
                    if w not in have:
                        t.create(f"{mine}/{w}", str(pos).encode())

            zxid = self.txn(ops)
            self.trace.emit(
                "copy_queue", {"server": self.index, "dead": d, "queue": qi}, zxid=zxid, queue=new
            )
            copied.append((peer, new, (*chain, d), wals))
        all_wals = {q: self.children(f"{base}/{q}") for q in queues}
        for attempt in range(3):
            # HBASE-17077: a claimed queue whose peer is gone from storage is dropped; the peers
            # are read with the deletion (a check of each in the same multi), as the model's
            # finish_claim reads them. (HBase 1.x also asks its own copy of the peers,
            # getConnectedPeer, a view the model does not have.)
            present = {peer for peer, *_ in copied} & set(self.read_peers())

            def delete_all(t: Any, present: set[int] = present) -> None:
                for p in sorted(present):
                    t.check(f"{PEERS}/{peer_id(p)}", -1)
                for q in queues:
                    for w in all_wals[q]:
                        t.delete(f"{base}/{q}/{w}")
                    t.delete(f"{base}/{q}")
                t.delete(f"{base}/lock")
                t.delete(base)

            try:
                zxid = self.txn(delete_all)
                break
            except TxnFailed as exc:
                gone = present - set(self.read_peers())
                if not gone or attempt == 2:
                    self.trace.meta("claim_failed", dead=dead, error=str(exc))
                    return
        self.trace.emit("finish_claim", {"server": self.index, "dead": d}, zxid=zxid)
        for peer, new, chain, wals in copied:
            if peer not in present:
                self.drop_queue_zk(new)
            else:
                self.start_recovered_zk(peer, new, chain, wals)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="replcheck.conformance.cluster.regionserver")
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--zk", required=True)
    ap.add_argument("--design", required=True)
    ap.add_argument("--index", type=int, required=True)
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--workload", help="a JSON file of each incarnation's writes (a plan's)")
    ap.add_argument("--rate", type=float, default=20.0, help="edits per second")
    ap.add_argument("--roll-every", type=int, default=10)
    ap.add_argument("--batch", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--session-timeout", type=float, default=4.0)
    args = ap.parse_args(argv)
    rs = RegionServer(args)
    log(f"region server {rs.name} up ({args.design})")
    target = rs.failover_loop if rs.steps.base == "zk-lock" else rs.poll_requests
    threading.Thread(target=target, daemon=True).start()
    threading.Thread(target=rs.workload, daemon=True).start()
    while not rs.stopping.is_set() and not orphaned():
        time.sleep(0.5)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except (NoNodeError, NodeExistsError) as exc:  # startup raced a shutdown
        log(f"region server: {type(exc).__name__}: {exc}")
        raise SystemExit(1) from None
