"""The master of the source cluster:
``python -m replcheck.conformance.cluster.master --run-dir D --zk HOSTS --design NAME``.

It splits a dead server's logs (torn tails truncated, files moved to oldWALs), runs the
ServerCrashProcedure's claim stage (``zk-multi``: one claim per queue sent to a live server;
``table``: ADD_MISSING_QUEUES then CLAIM rounds, reference section 4), removes the stale ``lock``
znodes of ``zk-lock`` (HBASE-16144's chore), executes admin commands (peers added, removed,
enabled, disabled; in the table era as AddPeerProcedure and RemovePeerProcedure, section 5), and
runs the log cleaner with its design's rule (section 6 / 3a / seed 003). Every procedure keeps its
state in ZooKeeper, so a master killed mid-procedure and started again carries on where it was.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

from kazoo.exceptions import NodeExistsError
from replcheck.conformance.cluster.common import (
    ADMIN,
    BARRIER,
    CLAIMS,
    CVERSION_PREFIX,
    DISABLED,
    ENABLED,
    LIVE,
    MASTER,
    PEERS,
    QUEUES,
    REFRESH,
    SCP,
    SERVERS,
    TABLE,
    TxnFailed,
    ZkProcess,
    dumps,
    log,
    old_wal_dir,
    orphaned,
    row_key_of,
    row_znode,
    wal_dir,
)
from replcheck.conformance.fromlog.procs import ADD_PAST_PRE
from replcheck.conformance.hbase import wal as walfile
from replcheck.conformance.hbase.names import CFG, Steps, peer_id, peer_index, server_index
from replcheck.conformance.hbase.values import decode_peer_state
from replcheck.model.table import rules as table_rules
from replcheck.model.table.state import BEGIN, NO_SOURCE, Row

PLACEHOLDER_GROUP = -1


class Master(ZkProcess):
    def __init__(self, args: argparse.Namespace) -> None:
        self.steps = Steps(args.design)
        self.args = args
        self.rng = random.Random(args.seed * 31 + 7)
        super().__init__(args.zk, Path(args.run_dir), "master", args.design, args.session_timeout)
        self.trace.meta("process_start")
        self.ensure(LIVE, QUEUES, PEERS, TABLE, SERVERS, SCP, CLAIMS, REFRESH, ADMIN)
        self.create_fence(MASTER, wait=True)  # a restarted master waits for the old session
        if self.steps.era == "table":
            self.replay_barrier()
        self.clean_cache: set[str] = set()
        """zk-lock's cleaner: the WALs its last lookup found queued (kept in memory)."""
        self.scp_lock = threading.RLock()
        """Held by each write of an SCP's state and by the table cleaner from its barrier's start
        to its read of the live-or-SCP-unfinished servers. HBase keeps both in the master's
        memory and reads them one after the other; the model takes them as one step. Without
        it an SCP could finish between the two, and the cleaner would read a server set later
        than its start (soak run seed 60069)."""

    # --- helpers ----------------------------------------------------------------------------------

    def live(self) -> set[str]:
        return set(self.children(LIVE))

    def peers(self) -> list[int]:
        return sorted(peer_index(p) for p in self.children(PEERS))

    def scp_state(self, server: str) -> dict[str, Any] | None:
        return self.get_json(f"{SCP}/{server}")

    def unfinished_scps(self) -> set[str]:
        out = set()
        for s in self.children(SCP):
            st = self.scp_state(s)
            if st and st.get("stage") != "done":
                out.add(s)
        return out

    def unrecovered(self) -> tuple[set[str], dict[str, dict[str, Any] | None]]:
        """The live servers, and each registered server that is not live and whose SCP has not
        finished, with its SCP's state (``None``: not created yet).

        The registered servers are read before the live ones: a starting server creates its live
        znode before registering, so a server seen registered and not live is really dead (read
        the other way round, a server starting in between looks dead)."""
        servers = self.children(SERVERS)
        live = self.live()
        dead: dict[str, dict[str, Any] | None] = {}
        for server in servers:
            if server in live:
                continue
            state = self.scp_state(server)
            if not (state and state.get("stage") == "done"):
                dead[server] = state
        return live, dead

    def live_or_scp_unfinished(self) -> set[str]:
        """The servers the log cleaner counts as live or SCP-unfinished.

        HBase's master expires a server and schedules its SCP in one step
        (``ServerManager.expireServer``), so a dead server is never neither. Here the session
        expires first and the master creates the SCP on its next pass, so a registered server
        that is not live and has no finished SCP counts as SCP-unfinished: its SCP is due (soak
        run seed 7991: a cleaner run in that window deleted the WALs of a dead server that had
        no queue row yet for a peer)."""
        live, dead = self.unrecovered()
        return live | set(dead)

    def set_scp(self, server: str, state: dict[str, Any], extra=None) -> int:
        path = f"{SCP}/{server}"
        exists = self.get(path) is not None

        def ops(t: Any) -> None:
            if exists:
                t.set_data(path, dumps(state))
            else:
                t.create(path, dumps(state))
            if extra:
                extra(t)

        with self.scp_lock:
            return self.txn(ops)

    # --- splitting a dead server's logs -----------------------------------------------------------

    def split_logs(self, dead: str) -> None:
        """Every WAL of the dead server goes to oldWALs, a torn tail cut off first. The server's
        WAL folder is first renamed to ``-splitting``, as ``MasterWalManager`` does, so a zombie
        cannot roll to a new WAL the split would miss."""
        d = server_index(dead)
        src = wal_dir(self.run_dir, dead)
        splitting = src.with_name(src.name + "-splitting")
        if src.exists() and not splitting.exists():
            src.rename(splitting)
        if not splitting.exists():
            return
        old_wal_dir(self.run_dir).mkdir(parents=True, exist_ok=True)
        for path in sorted(splitting.glob("*")):
            cut = walfile.take(path, old_wal_dir(self.run_dir) / path.name)
            if cut:
                self.trace.meta("wal_truncated", wal=path.name, bytes=cut)
            seq = self.steps.parse_wal(path.name)[2]
            self.trace.emit("archive", {"server": d, "group": 0, "seq": seq}, wal=path.name)
        splitting.rmdir()

    # --- the ServerCrashProcedure ----------------------------------------------------------------

    def crash_procedures(self) -> None:
        _live, dead = self.unrecovered()
        for server, state in dead.items():
            if state is None:
                self.hooks.point("scp_start", dead=server_index(server))
                self.set_scp(server, {"stage": "split"})
                continue
            if self.steps.base == "zk-lock":
                self.split_logs(server)
                self.hooks.point("scp_split", dead=server_index(server))
                self.set_scp(server, {"stage": "done"})
            elif self.steps.base == "zk-multi":
                self.scp_zk(server, state)
            else:
                self.scp_table(server, state)

    def outstanding(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Claims sent and not yet done: request path -> (target, data)."""
        out = {}
        for target in self.children(CLAIMS):
            for req in self.children(f"{CLAIMS}/{target}"):
                data = self.get_json(f"{CLAIMS}/{target}/{req}")
                if data:
                    out[f"{CLAIMS}/{target}/{req}"] = (target, data)
        return out

    def dispatch(self, target: str, data: dict[str, Any]) -> int:
        self.ensure(f"{CLAIMS}/{target}")
        path = f"{CLAIMS}/{target}/claim-"
        return self.txn(lambda t: t.create(path, dumps(data), sequence=True))

    def reap_lost_claims(self, dead: str, live: set[str]) -> set[str]:
        """Claims whose target died are dropped (``FailedRemoteDispatchException``); returns what
        is still in flight for ``dead``."""
        busy = set()
        for path, (target, data) in self.outstanding().items():
            if data["dead"] != dead:
                continue
            if target not in live:
                try:
                    zxid = self.txn(lambda t, p=path: t.delete(p))
                except TxnFailed:
                    continue
                if self.steps.era == "table":
                    self.trace.emit(
                        "claim_lost",
                        {"dead": server_index(dead), "child": data.get("child", 0)},
                        zxid=zxid,
                        row=data.get("row"),
                        target=target,
                    )
                else:
                    self.trace.emit("note", kind="meta", zxid=zxid, what="claim target died")
                continue
            busy.add(data.get("queue") or data.get("row"))
        return busy

    def scp_zk(self, dead: str, state: dict[str, Any]) -> None:
        """zk-multi: split, then send each queue to a live server until none is left, then
        ``removeReplicatorIfQueueIsEmpty``."""
        if state["stage"] == "split":
            self.split_logs(dead)
            self.set_scp(dead, {"stage": "claim"})
            self.hooks.point("scp_split", dead=server_index(dead))
            return
        live = self.live()
        queues = [q for q in self.children(f"{QUEUES}/{dead}") if q != "lock"]
        if not queues:
            base = f"{QUEUES}/{dead}"
            exists = self.get(base) is not None

            def finish(t: Any) -> None:
                if exists:
                    t.delete(base)

            self.hooks.point("scp_finish", dead=server_index(dead))
            zxid = self.set_scp(dead, {"stage": "done"}, extra=finish)
            self.trace.emit("scp_finish", {"dead": server_index(dead)}, zxid=zxid)
            return
        busy = self.reap_lost_claims(dead, live)
        targets = sorted(live)
        if not targets:
            return
        for q in queues:
            if q not in busy:
                target = self.rng.choice(targets)
                zxid = self.dispatch(target, {"dead": dead, "queue": q})
                self.trace.emit(
                    "note",
                    kind="meta",
                    zxid=zxid,
                    what="claim sent",
                    dead=dead,
                    queue=q,
                    target=target,
                )

    def rows(self) -> list[tuple[str, dict[str, str]]]:
        """Every queue row, as one consistent read: an HBase region scanner reads at one MVCC
        read point, so a scan never misses a row that a claim moved (deleted and re-created
        under a new key in one atomic mutation) while it ran. Here the rows are znodes read one
        by one, so the read is repeated until the table's cversion (bumped by every row created
        or deleted) did not move during it."""
        while True:
            before = self.retry(lambda: self.zk.exists(TABLE)).cversion
            out = []
            for name in self.children(TABLE):
                data = self.get_json(f"{TABLE}/{name}")
                if data is not None:
                    out.append((row_key_of(name), data.get("queue", {})))
            if self.retry(lambda: self.zk.exists(TABLE)).cversion == before:
                return out

    def scp_table(self, dead: str, state: dict[str, Any]) -> None:
        """SCP (split, CLAIM_REPLICATION_QUEUES) and AssignReplicationQueuesProcedure
        (ADD_MISSING_QUEUES, CLAIM rounds), reference section 4."""
        d = server_index(dead)
        stage = state["stage"]
        if stage == "split":
            self.split_logs(dead)
            zxid = self.set_scp(dead, {"stage": "claim_stage"})
            self.trace.emit("scp_split", {"dead": d}, zxid=zxid)
            self.hooks.point("scp_split", dead=d)
        elif stage == "claim_stage":
            zxid = self.set_scp(dead, {"stage": "add_missing"})
            self.trace.emit("scp_claim_stage", {"dead": d}, zxid=zxid)
        elif stage == "add_missing":
            existing = set()
            for key, _ in self.rows():
                peer, owner, source = self.steps.parse_row_key(key)
                if owner == d and source == NO_SOURCE:
                    existing.add(peer)
            missing = [p for p in self.peers() if p not in existing]
            zxid = self.set_scp(dead, {"stage": "put_missing", "missing": missing})
            self.trace.emit("arqp_read_missing", {"dead": d}, zxid=zxid, missing=missing)
        elif stage == "put_missing":
            rows = [self.steps.row_key(p, d) for p in state.get("missing", [])]

            def ops(t: Any) -> None:
                for r in rows:  # BEGIN under the crashed server's name (no WAL group matches)
                    t.create(row_znode(r), dumps({"queue": {dead: ":0"}}))

            try:
                zxid = self.set_scp(dead, {"stage": "claim", "round": 0}, extra=ops)
            except TxnFailed:  # a row appeared meanwhile: read again
                zxid = self.set_scp(dead, {"stage": "add_missing"})
            self.trace.emit("arqp_put_missing", {"dead": d}, zxid=zxid, rows=rows)
        elif stage == "claim":
            # The round is decided by its reads (online servers, peers, rows) and written after
            # them: a server that joins or dies in between is not in the master's view. The
            # event is the step at its reads (``read``), its write named apart (``write``).
            live, read = self.served(self.live)
            if self.reap_lost_claims(dead, live):
                return
            (peers, rows), read2 = self.served(lambda: (set(self.peers()), self.rows()))
            read = [read[0], read2[1]]
            queues = []
            for key, _ in rows:
                peer, owner, _src = self.steps.parse_row_key(key)
                if owner == d and peer in peers:
                    queues.append(key)
            if not queues:
                zxid = self.set_scp(dead, {"stage": "done"})
                self.trace.emit("arqp_claim", {"dead": d, "targets": []}, read=read, write=zxid)
                return
            targets = sorted(live)
            self.rng.shuffle(targets)
            n = min(len(queues), len(targets))
            if not n:
                return
            rnd = state.get("round", 0) + 1

            def ops(t: Any) -> None:
                for i in range(n):
                    path = f"{CLAIMS}/{targets[i]}/claim-"
                    data = {"dead": dead, "row": queues[i], "child": i}
                    t.create(path, dumps(data), sequence=True)

            for tgt in targets[:n]:
                self.ensure(f"{CLAIMS}/{tgt}")
            zxid = self.set_scp(dead, {"stage": "claim", "round": rnd}, extra=ops)
            idx = [server_index(t) for t in targets[:n]]
            self.trace.emit(
                "arqp_claim",
                {"dead": d, "targets": idx},
                read=read,
                write=zxid,
                rows=queues[:n],
            )

    # --- zk-lock: HBASE-16144's lock cleaner chore ------------------------------------------------

    def lock_cleaner(self) -> None:
        nodes = self.children(QUEUES)
        live = self.live()  # read after the nodes, as in crash_procedures
        for dead in nodes:
            got = self.get(f"{QUEUES}/{dead}/lock")
            if got is None or dead in live or got[0].decode() in live:
                continue
            try:
                zxid = self.txn(lambda t, p=f"{QUEUES}/{dead}/lock": t.delete(p))
            except TxnFailed:
                continue
            self.trace.emit("lock_cleaner", {"dead": server_index(dead)}, zxid=zxid)

    # --- admin --------------------------------------------------------------------------------

    def admin(self) -> None:
        for req in self.children(ADMIN):
            path = f"{ADMIN}/{req}"
            data = self.get_json(path)
            if data is None:
                continue
            why = None if "stage" in data else self.refused(data["op"], data["peer"])
            if why:
                with contextlib.suppress(TxnFailed):
                    self.txn(lambda t, path=path: t.delete(path))
                self.trace.meta(
                    "note", what=f"admin {data['op']} refused: {why}", peer=data["peer"]
                )
                return
            if self.steps.era == "table" and data["op"] in ("add_peer", "remove_peer"):
                self.peer_procedure(path, data)
            else:
                self.admin_zk(path, data)
            return  # one command at a time, in order

    def refused(self, op: str, p: int) -> str | None:
        """Why a new peer command is refused before anything is written, as HBase's
        ``ReplicationPeerManager`` checks it (``preAddPeer``, ``preRemovePeer``,
        ``preEnablePeer``, ``preDisablePeer``): a peer added twice, a command for a peer that
        does not exist, a peer enabled or disabled that already is."""
        pz = f"{PEERS}/{peer_id(p)}"
        exists = self.get(pz) is not None
        if op == "add_peer":
            return "the peer exists" if exists else None
        if not exists:
            return "no such peer"
        if op in ("enable_peer", "disable_peer"):
            raw = self.get(f"{pz}/peer-state")
            want = ENABLED if op == "enable_peer" else DISABLED
            if raw is not None and decode_peer_state(raw[0]) == want:
                return f"the peer is {want} already"
        return None

    def admin_zk(self, path: str, data: dict[str, Any]) -> None:
        """The shell's peer commands write the peers znode (seed 002, 'The Peers znode')."""
        op, p = data["op"], data["peer"]
        pz = f"{PEERS}/{peer_id(p)}"

        def ops(t: Any) -> None:
            if op == "add_peer":
                t.create(pz, self.steps.peer_value(p + 1, data["sinks"], self.ident))
                t.create(f"{pz}/peer-state", self.steps.peer_state_value(ENABLED, self.ident))
            elif op == "remove_peer":
                t.delete(f"{pz}/peer-state")
                t.delete(pz)
            else:
                state = ENABLED if op == "enable_peer" else DISABLED
                t.set_data(f"{pz}/peer-state", self.steps.peer_state_value(state, self.ident))
            t.delete(path)

        try:
            zxid = self.txn(ops)
        except TxnFailed as exc:
            self.trace.meta("note", what=f"admin {op} failed", error=str(exc))
            with contextlib.suppress(TxnFailed):
                self.txn(lambda t: t.delete(path))
            return
        self.trace.emit(op, {"peer": p}, zxid=zxid)

    def replay_barrier(self) -> None:
        """HBase's ReplicationLogCleanerBarrier lives in the master's memory: a new master's is
        NOT_RUNNING, and each AddPeerProcedure replayed past PRE disables it again
        (``afterReplay``). The cluster keeps it in a znode, so a starting master writes it so,
        marked ``replayed`` (the log reads that write as part of the restart, no step); a run
        of the last master's cleaner left RUNNING is over with that master."""
        adds = 0
        for req in self.children(ADMIN):
            data = self.get_json(f"{ADMIN}/{req}") or {}
            if data.get("op") == "add_peer" and data.get("stage") in ADD_PAST_PRE:
                adds += 1
        state = {"state": "DISABLED", "n": adds} if adds else {"state": "NOT_RUNNING", "n": 0}
        value = dumps({**state, "replayed": True})
        if self.get(BARRIER) is None:
            with contextlib.suppress(NodeExistsError):
                self.zk.create(BARRIER, value)
                return
        self.txn(lambda t: t.set_data(BARRIER, value))

    def barrier(self) -> tuple[dict[str, Any], int]:
        raw, stat = self.get(BARRIER)
        return json.loads(raw), stat.version

    def peer_procedure(self, path: str, data: dict[str, Any]) -> None:
        """AddPeerProcedure (the fence on add: the cleaner barrier, then storage, then a refresh
        that makes every live server persist an initial offset) and RemovePeerProcedure (storage,
        refresh, wait for the claim procedures recorded once, removeAllQueues twice)."""
        p, stage = data["peer"], data.get("stage", "submitted")
        pz = f"{PEERS}/{peer_id(p)}"
        rdir = f"{REFRESH}/{peer_id(p)}"

        def step(new_stage: str, extra=None, **more: Any) -> int:
            new = {**data, **more, "stage": new_stage}

            def ops(t: Any) -> None:
                if new_stage == "done":
                    t.delete(path)
                else:
                    t.set_data(path, dumps(new))
                if extra:
                    extra(t)

            return self.txn(ops)

        if stage == "submitted":
            zxid = step("pre")
            self.trace.emit(data["op"], {"peer": p}, zxid=zxid)
            return
        if data["op"] == "add_peer":
            if stage == "pre":
                b, version = self.barrier()
                if b["state"] == "RUNNING":
                    return  # suspend with backoff
                nb = {"state": "DISABLED", "n": b["n"] + 1 if b["state"] == "DISABLED" else 1}
                zxid = step("storage", lambda t: t.set_data(BARRIER, dumps(nb), version=version))
            elif stage == "storage":

                def ops(t: Any) -> None:
                    t.create(pz, dumps({"cluster": p + 1, "sinks": data["sinks"]}))
                    t.create(f"{pz}/peer-state", ENABLED.encode())

                zxid = step("refresh", ops)
            elif stage == "refresh":
                zxid = self.send_refresh(step, rdir, "add")
                if zxid is None:
                    return
            elif stage == "wait":
                if not self.refresh_done(rdir):
                    return
                b, version = self.barrier()
                n = max(b["n"] - 1, 0)
                nb = {"state": "DISABLED" if n else "NOT_RUNNING", "n": n}
                zxid = step("done", lambda t: t.set_data(BARRIER, dumps(nb), version=version))
            else:
                return
        else:
            if stage == "pre":
                recorded = sorted(self.unfinished_scps())

                def ops(t: Any) -> None:
                    t.delete(f"{pz}/peer-state")
                    t.delete(pz)

                zxid = step("refresh", ops, recorded=recorded)
            elif stage == "refresh":
                zxid = self.send_refresh(step, rdir, "remove")
                if zxid is None:
                    return
            elif stage == "wait":
                if not self.refresh_done(rdir):
                    return
                if set(data.get("recorded", [])) & self.unfinished_scps():
                    return  # checkAssignReplicationQueuesFinished: suspend
                zxid = self.remove_all_queues(p, step, "remove_all")
            elif stage == "remove_all":  # removeAllQueues twice (reference section 5)
                zxid = self.remove_all_queues(p, step, "done")
            else:
                return
            if zxid is None:
                return
        self.trace.emit("peer_proc", {"peer": p}, zxid=zxid, stage=stage)

    def remove_all_queues(self, p: int, step, next_stage: str) -> int | None:
        """One pass of ``removeAllQueues``: every row of the peer, deleted in the same ``multi``
        as the procedure's next state (retried next time if a row moved meanwhile)."""
        prefix = f"{peer_id(p)}-"
        rows = [key for key, _ in self.rows() if key.startswith(prefix)]

        def ops(t: Any) -> None:
            for key in rows:
                t.delete(row_znode(key))

        try:
            return step(next_stage, ops)
        except TxnFailed:
            return None

    def send_refresh(self, step, rdir: str, op: str) -> int | None:
        live = sorted(self.live())
        self.ensure(rdir)

        def ops(t: Any) -> None:
            for s in live:
                t.create(f"{rdir}/{s}", dumps({"op": op}))

        try:
            return step("wait", ops)
        except TxnFailed:
            return None

    def refresh_done(self, rdir: str) -> bool:
        """Every refresh answered, or its server died (``FailedRemoteDispatchException``)."""
        live = self.live()
        pending = [s for s in self.children(rdir) if s in live]
        for s in self.children(rdir):
            if s not in live:
                with contextlib.suppress(TxnFailed):
                    self.txn(lambda t, p=f"{rdir}/{s}": t.delete(p))
        return not pending

    # --- the log cleaner ----------------------------------------------------------------------

    def candidates(self) -> list[Path]:
        horizon = time.time() - self.args.wal_ttl
        d = old_wal_dir(self.run_dir)
        return [p for p in sorted(d.glob("*")) if p.stat().st_mtime < horizon] if d.exists() else []

    def read_queues(self, server: str) -> set[str]:
        """The WALs a server's queue znodes name, read as HBase's ``getAllWALs`` reads them: the
        server's queues listed (``getAllQueues``), then each queue's WALs (``getWALsInQueue``;
        none for a queue gone since the listing), each read recorded with the zxids it was
        served between."""
        real = server.startswith("1.1.1.")
        queues, read = self.served(
            lambda: [q for q in self.children(f"{QUEUES}/{server}") if q != "lock"]
        )
        if real:
            args = {"server": server_index(server)}
            self.trace.emit("cleaner_read", args, read=read, queues=sorted(queues))
        found: set[str] = set()
        for i, q in enumerate(queues):
            wals, read = self.served(lambda q=q: set(self.children(f"{QUEUES}/{server}/{q}")))
            found.update(wals)
            if real:
                at = {**args, "queue": i}
                self.trace.emit("cleaner_read_queue", at, read=read, queue=q, wals=sorted(wals))
        return found

    def zk_queued(self) -> dict[str, list[str]]:
        """Every queued WAL, as one consistent read: WAL name -> the queue znodes naming it.

        The model's ``zk-lock`` cleaner looks every queue up in one step (docs/findings.md). Read
        znode by znode, a claim could move a queue from a server not yet read to one already
        read (the race HBASE-12865 is about, seen for real in soak run seed 7032); the move ends
        by deleting the dead server's node, which moves the cversion of ``/rs``, so the read is
        repeated until that cversion did not move during it. A roll or a queue's end changes a
        queue without moving it: the read is also repeated until two reads in a row found the
        same queues (then the queues were what both found, at some point between them)."""
        previous = None
        while True:
            before = self.retry(lambda: self.zk.exists(QUEUES)).cversion
            out: dict[str, list[str]] = {}
            for server in self.children(QUEUES):
                if server.startswith(CVERSION_PREFIX):
                    continue
                for q in self.children(f"{QUEUES}/{server}"):
                    if q == "lock":
                        continue
                    for w in self.children(f"{QUEUES}/{server}/{q}"):
                        out.setdefault(w, []).append(f"{server}/{q}")
            stable = self.retry(lambda: self.zk.exists(QUEUES)).cversion == before
            if stable and out == previous:
                return out
            previous = out if stable else None

    def table_snapshot(self) -> tuple[list[Row], int, list[int]]:
        """preClean: live-or-SCP-unfinished servers first, then peers and every queue row."""
        live = 0
        for s in self.live_or_scp_unfinished():
            live |= 1 << server_index(s)
        peers = self.peers()
        rows = []
        for key, offsets in self.rows():
            peer, owner, source = self.steps.parse_row_key(key)
            offs = []
            for group, value in offsets.items():
                wal, _, pos = value.rpartition(":")
                if not wal:
                    offs.append((PLACEHOLDER_GROUP, *BEGIN))
                    continue
                key_ = self.steps.parse_wal(wal)
                g = 0 if table_rules.wal_group_id(CFG, key_) == group else PLACEHOLDER_GROUP
                offs.append((g, key_[2], int(pos)))
            rows.append(Row(peer, owner, source, tuple(sorted(offs))))
        return rows, live, peers

    def needed_now(self, wal: str) -> dict[str, Any]:
        """A fresh read after a deletion: which queues still needed the WAL (for the end-state
        checker). Table era: a row of an existing peer for the WAL's server (its own, or one
        claimed from it) whose offset says the WAL is still to be replicated
        (``should_replicate``), or, for a server that is really alive, a peer it has no row for
        yet (``missing-queue``). The cleaner's own rule is not the judge: it is conservative on
        purpose (an SCP-unfinished server whose rows were already claimed counts as having a
        missing queue), and a read taken after the deletion can differ from its snapshot."""
        if self.steps.era == "zk":
            return {"queued": self.zk_queued().get(wal, [])}
        rows, _live, peers = self.table_snapshot()
        key = self.steps.parse_wal(wal)
        server, group = key[0], key[1]
        needing = [
            f"rule:{table_rules.queue_id(CFG, r.peer, r.owner, r.source)}"
            for r in rows
            if r.peer in peers
            and (r.source if r.source != NO_SOURCE else r.owner) == server
            and table_rules.should_replicate(table_rules.group_offset(r, group), key)
        ]
        alive = {server_index(s) for s in self.live()}
        missing = server in alive and any(
            not any(r.peer == p and r.owner == server and r.source == NO_SOURCE for r in rows)
            for p in peers
        )
        return {"queued": needing or (["rule:missing-queue"] if missing else [])}

    def delete_wal(self, path: Path) -> None:
        path.unlink(missing_ok=True)
        self.trace.meta("wal_deleted", wal=path.name, **self.needed_now(path.name))

    def cleaner(self) -> None:
        files = self.candidates()
        if not files:
            return
        if self.steps.base == "zk-lock":
            for f in files:
                if f.name in self.clean_cache:
                    continue  # seed 003: "it will first use its cache": kept without a lookup
                if self.steps.flag("cleaner_skips_lookup"):
                    # the mutant deletes by TTL alone: no lookup, its cache left as it was
                    queued, read = sorted(self.clean_cache), None
                else:
                    queued, read = self.served(self.zk_queued)
                    self.clean_cache = set(queued)
                key = self.steps.parse_wal(f.name)
                keys = tuple(self.steps.parse_wal(w) for w in queued)
                delete = self.steps.zk_may_delete(key, keys)
                self.trace.emit(
                    "clean",
                    {"server": key[0], "group": 0, "seq": key[2]},
                    wal=f.name,
                    delete=delete,
                    read=read,
                    cached=sorted(queued),
                )
                self.hooks.point("cleaner_read", i=1)
                if delete:
                    self.delete_wal(f)
        elif self.steps.base == "zk-multi":
            # the cversion of /rs read at the run's start and after each pass, with the zxids
            # it was served between: the model's start and finish are those reads (a pass read
            # again starts from the cversion the last one ended with)
            v0, read = self.served(lambda: self.retry(lambda: self.zk.exists(QUEUES)).cversion)
            self.trace.emit("cleaner_start", {}, wals=[f.name for f in files], read=read)
            for _attempt in range(5):
                seen: set[str] = set()
                listed = [s for s in self.children(QUEUES) if not s.startswith(CVERSION_PREFIX)]
                for i, server in enumerate(listed, 1):
                    seen.update(self.read_queues(server))
                    rest = set(listed[i:])
                    cands = {self.steps.parse_wal(f.name)[0] for f in files}

                    def unchanged(v: int = v0) -> bool:
                        return self.retry(lambda: self.zk.exists(QUEUES)).cversion == v

                    self.hooks.point(
                        "cleaner_read",
                        i=i,
                        read=sorted(server_index(s) for s in listed[:i] if s.startswith("1.1.1.")),
                        unread=sorted(server_index(s) for s in rest if s.startswith("1.1.1.")),
                        candidates=sorted(cands),
                        unchanged=unchanged,
                        rest_dead=lambda r=rest, c=cands: (
                            bool(r)
                            and not r & self.live()
                            and all(s.startswith("1.1.1.") and server_index(s) in c for s in r)
                            and unchanged()
                        ),
                    )
                v1, read = self.served(lambda: self.retry(lambda: self.zk.exists(QUEUES)).cversion)
                self.trace.emit("cleaner_finish", {}, retry=v0 != v1, read=read)
                if v0 == v1:
                    break
                v0 = v1
            else:
                return
            keys = tuple(self.steps.parse_wal(w) for w in seen)
            for f in files:
                if self.steps.zk_may_delete(self.steps.parse_wal(f.name), keys):
                    self.delete_wal(f)
        else:
            b, version = self.barrier()
            if b["state"] != "NOT_RUNNING":
                return  # an AddPeerProcedure holds the barrier
            with self.scp_lock:  # the barrier's start and the server read as one step
                zxid = self.txn(
                    lambda t: t.set_data(
                        BARRIER, dumps({"state": "RUNNING", "n": 0}), version=version
                    )
                )
                (rows, live, peers), read = self.served(self.table_snapshot)
            self.trace.emit("cleaner_start", {}, zxid=zxid)
            self.trace.emit("cleaner_read", {}, rows=len(rows), peers=peers, read=read)
            self.hooks.point("cleaner_read", i=1)
            # CleanerChore lists oldWALs after preClean (the barrier and the snapshot): a WAL
            # archived meanwhile is considered in this run
            for f in self.candidates():
                if self.steps.table_may_delete(rows, live, peers, self.steps.parse_wal(f.name)):
                    self.delete_wal(f)
            b, version = self.barrier()
            zxid = self.txn(
                lambda t: t.set_data(
                    BARRIER, dumps({"state": "NOT_RUNNING", "n": 0}), version=version
                )
            )
            self.trace.emit("cleaner_delete", {}, zxid=zxid)

    def run(self) -> None:
        threading.Thread(target=self.cleaner_chore, name="cleaner", daemon=True).start()
        while not self.stopping.is_set() and not orphaned():
            time.sleep(0.15)
            self.guarded("admin", self.admin)
            self.guarded("crash procedures", self.crash_procedures)
            if self.steps.base == "zk-lock":
                self.guarded("lock cleaner", self.lock_cleaner)

    def cleaner_chore(self) -> None:
        """The log cleaner on a thread of its own, as HBase's ``LogCleaner`` chore runs beside
        the procedures (a cleaner pass held up does not hold up a ServerCrashProcedure)."""
        while not self.stopping.is_set() and not orphaned():
            time.sleep(self.args.cleaner_interval)
            self.guarded("log cleaner", self.cleaner)
            self.hooks.point("cleaner_pass")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="replcheck.conformance.cluster.master")
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--zk", required=True)
    ap.add_argument("--design", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--session-timeout", type=float, default=4.0)
    ap.add_argument("--cleaner-interval", type=float, default=1.0)
    # HBase chains a TTL cleaner before the replication cleaner; the model's cleaner considers
    # every archived WAL, so by default the reference cluster has no TTL and its runs stay
    # behaviours of the model (docs/validate.md).
    ap.add_argument("--wal-ttl", type=float, default=0.0)
    args = ap.parse_args(argv)
    master = Master(args)
    log(f"master up ({args.design})")
    master.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
