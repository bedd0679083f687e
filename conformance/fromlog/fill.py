"""Steps a killed process took but did not live to record, read back from the run's ZooKeeper
transaction logs.

A region server writes a queue position to ZooKeeper and then its trace line; killed between the
two, it leaves a change no event records, and the validator would reject the run where a later
event needs it (a recovered source that starts past it). The run folder keeps every ZooKeeper
server's transaction logs (``zk-txnlog/``), which hold that write with its zxid. For the
ZooKeeper-era designs, this module turns each such write whose zxid no trace event names into the
event its process would have written, and puts it in the trace at its zxid:

* a position written to a queue's WAL znode, or a group's offset to a table-era queue row (set,
  or the row created by its first offset): ``persist`` (a row's offset ``-1``, the WAL fully
  replicated: ``advance``); a WAL a source finished deleted from its queue: ``advance``, or
  ``finish`` with the queue's znode. The source is the one the process's lines name with that
  queue; a source no line names (a claimer killed just after its claim) gets a number the
  process never used;
* a server's queue for a peer created (``/rs/<server>/<peer id>`` with its first WAL, the
  transaction a region server makes when it starts a source for a peer, killed just after it
  started, say): ``peer_sync``;
* a new WAL of the server's own created in its queues (``/rs/<server>/<peer id>/<WAL>``, the
  ZooKeeper era's roll): ``roll``;
* a dead server's znode deleted with its ``lock`` (zk-lock's claimer, done copying its queues):
  ``finish_claim``, by the process whose ``lock`` took that server;
* a claim's one multi (zk-multi: the claimed queue created under the claimer, the dead server's
  deleted), made by a claimer killed or expired before it wrote the line: ``claim_commit``;
* a starting server's join: its replication znode (``/hbase/replication/rs/<server>``, the
  ZooKeeper era) or its live znode (``/hbase/rs/<server>``, the table era, where that is the
  join), created by a server killed or paused before it wrote the line: ``join``;
* the master's answer to an admin request in the ZooKeeper era (the request's znode deleted with
  the peer's znode created or deleted, or its state set), made by a master killed (restarted)
  before it wrote the line: ``add_peer``, ``remove_peer``, ``enable_peer``, ``disable_peer``;
* the table era's master writes, made by a master killed before the line: each is the step
  log-only validation reads it as (``txntrace_table.steps_of``): a peer procedure's first or
  next stage, a peer enabled or disabled, an SCP's stage moved on (``scp_split`` to
  ``arqp_claim``, the claims it sends), a claim to a dead target dropped, the cleaner's
  barrier set or released.

Nothing else is filled in: every other missing zxid stays missing (the validator reports what it
cannot follow).

A region server also appends an edit to its WAL and then writes its ``put`` line, and in the table
era creates a new WAL and then writes its ``roll`` line; killed between the two, it leaves a write
no line records, which whoever reads that WAL later meets (a claimer's recovered source). The file
is usually gone by the time the run is judged (the cleaner deleted it), but the lines after it
tell: ``lost_writes`` puts those writes in after the server's last line.

The logs also say exactly when each server's session expired (its ``closeSession``, the session
named in the run's ``sessions/``): that is when the rest of the cluster sees it die, the model's
``crash``. A ``crash`` event whose recorded window holds that zxid gets it as its window
(``detail.read``, see ``conformance/validate/core.py``), which orders it among the storage events.
A region server whose session ended with no fault aimed at it (a process starved of the CPU past
its session timeout) died all the same: a ``closeSession`` that deletes a server's live znode,
for a server no ``crash`` event names, is put in as a ``crash`` with that window (by process
``zookeeper``: no process of the run saw it, so it keeps no process's order).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from replcheck.conformance.cluster.common import LIVE
from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.fromlog import table as txntrace_table
from replcheck.conformance.hbase.names import seq_of_timestamp, server_index, server_name
from replcheck.conformance.zookeeper.txnlog import OpCode

Event = dict[str, Any]


def crash_windows(events: list[Event], run: Path, committed: list[Any]) -> dict[int, list[int]]:
    """Event index -> ``[zxid - 1, zxid]`` of the ``closeSession`` that ended the crashed
    server's session, for each ``crash`` event that records the window the driver saw the expiry
    in (a run recorded before crashes were recorded at the expiry has none: its crash lines keep
    the driver's order, which is not the expiries') and whose server's session the run folder
    names. The exact zxid lies in the recorded window, or the window is left as recorded."""
    closed = {t.session: t.zxid for t in committed if t.type == OpCode.closeSession}
    out = {}
    for n, e in enumerate(events):
        if e["name"] != "crash" or not isinstance((e.get("args") or {}).get("server"), int):
            continue
        path = run / "sessions" / f"{server_name(e['args']['server'])}.json"
        try:
            session = json.loads(path.read_text())["session"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        recorded = (e.get("detail") or {}).get("read")
        if session in closed and isinstance(recorded, list) and len(recorded) == 2:
            lo, hi = recorded
            if isinstance(lo, int) and isinstance(hi, int) and lo < closed[session] <= hi:
                out[n] = [closed[session] - 1, closed[session]]
    return out


def unrecorded_crashes(events: list[Event], committed: list[Any]) -> list[Event]:
    """A ``crash`` for each region server whose live znode a ``closeSession`` deleted and that
    no ``crash`` event names (see the module docstring); ``detail.read`` is ``[zxid - 1, zxid]``."""
    crashed = {(e.get("args") or {}).get("server") for e in events if e["name"] == "crash"}
    procs = {e["proc"] for e in events}
    driver = next((e for e in events if e["proc"] == "driver"), None)
    if driver is None:
        return []
    # after the run's end the driver stops the servers: their sessions close, and no one died
    end = min((e["t"] for e in events if e["name"] == "run_end"), default=float("inf"))
    out = []
    for txn in committed:
        if txn.type != OpCode.closeSession or txn.record is None or txn.time / 1000.0 >= end:
            continue
        for path in txn.record.paths or []:
            head, _, name = (path or "").rpartition("/")
            if not (head.endswith(LIVE) and f"rs-{name}" in procs):
                continue
            s = server_index(name)
            if s in crashed:
                continue
            crashed.add(s)
            out.append(
                {
                    "v": driver.get("v", 1),
                    "proc": "zookeeper",  # a lane of its own: the driver did not see it
                    "pid": driver["pid"],
                    "seq": None,
                    "t": txn.time / 1000.0,
                    "kind": "action",
                    "name": "crash",
                    "args": {"server": s},
                    "zxid": None,
                    "design": driver.get("design"),
                    "detail": {"read": [txn.zxid - 1, txn.zxid], "from": "txn-log"},
                }
            )
    return out


def lost_steps(events: list[Event], run: Path, committed: list[Any] | None = None) -> list[Event]:
    """The events the run's transaction logs show and its trace lacks (see the module
    docstring)."""
    if committed is None:
        committed = txnread.committed(txnread.logs(run), txnread.chroot(run))
    if not committed:
        return []
    traced = {e["zxid"] for e in events if e.get("zxid") is not None}
    traced.update(
        e["detail"]["write"]
        for e in events
        if isinstance((e.get("detail") or {}).get("write"), int)  # a step named at its reads
    )
    source: dict[tuple[str, str], Event] = {}
    """(process, queue) -> the process's last event naming the queue (its source number)."""
    proc_event: dict[str, Event] = {}
    """process -> an event of it (its pid, version and design)."""
    for e in events:
        proc_event.setdefault(e["proc"], e)
        q = (e.get("detail") or {}).get("queue")
        if q and isinstance((e.get("args") or {}).get("shipper"), int):
            source[(e["proc"], q)] = e
    design = next((e["design"] for e in events if e.get("design")), "")
    era = "table" if str(design).startswith("table") else "zk"
    joined = {e["proc"] for e in events if e["name"] == "join"}
    locker = {
        server_name(e["args"]["dead"]): e
        for e in events
        if e["name"] == "lock" and isinstance((e.get("args") or {}).get("dead"), int)
    }
    """Per dead server, the ``lock`` of the zk-lock claimer that took it last."""
    numbers: dict[str, int] = {}
    """process -> the next source number none of its events uses."""
    for e in events:
        n = (e.get("args") or {}).get("shipper")
        if isinstance(n, int):
            numbers[e["proc"]] = max(numbers.get(e["proc"], 0), n + 1)
    seen: set[int] = set()
    out = []

    def source_of(server: str, queue: str) -> Event | None:
        """The event that names the source of ``server``'s ``queue``; for a source no line
        names (a claimer killed after its claim and its source's first write, before either
        line), a number of the process's own that no event of it uses."""
        proc = f"rs-{server}"
        if (proc, queue) not in source and proc in proc_event:
            n = numbers.get(proc, 0)
            numbers[proc] = n + 1
            like = proc_event[proc]
            source[(proc, queue)] = {**like, "args": {"shipper": n}}
        return source.get((proc, queue))

    def event(like: Event, txn: Any, name: str, args: dict, detail: dict) -> Event:
        seen.add(txn.zxid)
        return {
            "v": like.get("v", 1),
            "proc": like["proc"],
            "pid": like["pid"],
            "seq": None,
            "t": txn.time / 1000.0,
            "kind": "action",
            "name": name,
            "args": args,
            "zxid": txn.zxid,
            "design": like.get("design"),
            "detail": {**detail, "from": "txn-log"},
        }

    master = _master_steps(committed, traced) if era == "table" and "master" in proc_event else {}
    for txn in committed:
        if txn.zxid in traced or txn.zxid in seen:
            continue
        if txn.zxid in master:
            for name, args, detail in master[txn.zxid]:
                out.append(event(proc_event["master"], txn, name, args, detail))
            continue
        server = txnread.joined(txn, era)
        if server is not None and f"rs-{server}" in proc_event.keys() - joined:
            like = proc_event[f"rs-{server}"]
            out.append(event(like, txn, "join", {"server": server_index(server)}, {}))
            continue
        admin = txnread.admin_op(txn) if era == "zk" and "master" in proc_event else None
        if admin is not None:
            out.append(event(proc_event["master"], txn, admin[0], {"peer": admin[1]}, {}))
            continue
        created = txnread.queue_created(txn)
        if created is not None and f"rs-{created[0]}" in proc_event:
            server, peer = created
            like = proc_event[f"rs-{server}"]
            args = {"server": server_index(server), "peer": peer}
            out.append(event(like, txn, "peer_sync", args, {}))
            continue
        claim = txnread.claimed(txn) if era == "zk" else None
        if claim is not None and f"rs-{claim[0]}" in proc_event:
            like = proc_event[f"rs-{claim[0]}"]
            detail = {"queue": claim[1], "old": claim[2]}
            out.append(event(like, txn, "claim_commit", {"server": server_index(claim[0])}, detail))
            continue
        dead = txnread.claim_finished(txn) if era == "zk" else None
        if dead is not None and dead in locker:
            like = locker[dead]
            args = {"server": like["args"]["server"], "dead": server_index(dead)}
            out.append(event(like, txn, "finish_claim", args, {}))
            continue
        rolled = txnread.rolled(txn) if era == "zk" else None
        if rolled is not None and f"rs-{rolled[0]}" in proc_event:
            like = proc_event[f"rs-{rolled[0]}"]
            args = {"server": server_index(rolled[0]), "group": 0}
            out.append(event(like, txn, "roll", args, {"wal": rolled[1]}))
            continue
        done = txnread.wal_done(txn) if era == "zk" else None
        like = source_of(done[0], done[1]) if done is not None else None
        if done is not None and like is not None:
            server, queue, wal, gone = done
            args = {"server": server_index(server), "shipper": like["args"]["shipper"]}
            name = "finish" if gone else "advance"
            out.append(event(like, txn, name, args, {"wal": wal, "queue": queue}))
            continue
        for server, queue, wal, position in txnread.positions(txn, era):
            like = source_of(server, queue)
            if like is None:
                continue
            args = {"server": server_index(server), "shipper": like["args"]["shipper"]}
            if era == "table" and position < 0:
                out.append(event(like, txn, "advance", args, {"wal": wal, "queue": queue}))
            else:
                detail = {"position": position, "wal": wal, "queue": queue}
                out.append(event(like, txn, "persist", args, detail))
            break
    return out


def _master_steps(committed: list[Any], traced: set[int]) -> dict[int, list[tuple]]:
    """The table era's master writes no line names, as the steps log-only validation reads
    them (``txntrace_table.steps_of``: an SCP's or a peer procedure's stage moved on, claims
    sent or dropped, the cleaner's barrier), by zxid; each read against the znodes before it."""
    out: dict[int, list[tuple]] = {}
    tree: dict[str, bytes | None] = {}
    for txn in committed:
        if txn.zxid not in traced and txnread.writer(txn) == "master":
            got = [s for s in txntrace_table.steps_of(txn, "master", tree) if s[0] != "unmodelled"]
            if got:
                out[txn.zxid] = got
        txnread.apply(tree, txnread.ops(txn))
    return out


def _wal_owner(wal: str, procs: Iterable[str]) -> str | None:
    """The region server process whose WAL this is: a table-era name starts with the server's
    urlencoded name, a ZooKeeper-era one with its address."""
    for proc in procs:
        if not proc.startswith("rs-"):
            continue
        server = proc[3:]
        if wal.startswith(server.replace(",", "%2C") + ".") or (
            "%2C" not in wal and wal.startswith(server.split(",")[0] + ",")
        ):
            return proc
    return None


def _seq(wal: str) -> int:
    """A WAL's place in its server's sequence, from its name's timestamp (``-1``: not ours)."""
    ts = wal.rsplit(".", 1)[-1]
    return seq_of_timestamp(int(ts)) if ts.isdigit() else -1


def _reached(events: list[Event]) -> dict[str, int]:
    """Per WAL, how many entries the recorded batches read up to (each ``ship`` says its bytes
    and how many entries they held; the first starts at byte 0)."""
    batches = []
    for e in events:
        d = e.get("detail") or {}
        if e["name"] == "ship" and {"wal", "start", "end", "read"} <= d.keys():
            batches.append((d["wal"], d["start"], d["end"], int(d["read"])))
    at: dict[str, dict[int, int]] = {wal: {0: 0} for wal, *_ in batches}
    changed = True
    while changed:
        changed = False
        for wal, start, end, read in batches:
            if start in at[wal] and end not in at[wal]:
                at[wal][end] = at[wal][start] + read
                changed = True
    return {wal: max(ends.values()) for wal, ends in at.items()}


def lost_writes(events: list[Event]) -> tuple[list[Event], int]:
    """The trace with the writes a region server made and did not live to record put in, right
    after its last line (see the module docstring); and how many. From what later lines say:

    * an edit of ours (``0.<server>.<WAL seq>.<n>``) a ``ship`` names and no line wrote: its
      ``put`` (GLOBAL: it was shipped);
    * entries the batches read past the last recorded one of a WAL and no ``ship`` names (its
      filter kept nothing): a LOCAL ``put`` each, which no peer is sent;
    * in the table era, where a roll writes no storage, a WAL of the server that a later line
      names (the master's split archives it, a recovered source ships it) and no ``roll``
      created: its ``roll``. (A ZooKeeper-era roll is read back from the transaction logs.)"""
    named: set[str] = set()
    recorded: dict[str, int] = {}
    rolled: set[str] = set()
    last: dict[str, int] = {}
    table = False
    for n, e in enumerate(events):
        d = e.get("detail") or {}
        last[e["proc"]] = n
        table = table or str(e.get("design", "")).startswith("table")
        if e["name"] == "put" or (e["name"] == "sink_apply" and e["proc"].startswith("rs-")):
            named.update(str(u) for u in [d.get("uid"), *(d.get("uids") or [])] if u)
            if isinstance(d.get("wal"), str):
                recorded[d["wal"]] = recorded.get(d["wal"], 0) + 1
                rolled.add(d["wal"])
        if e["name"] == "roll" and isinstance(d.get("wal"), str):
            rolled.add(d["wal"])
    lost: dict[str, list[tuple[int, str]]] = {}
    """Per WAL, its lost edits: (the server's count of edits before it, uid)."""
    for e in events:
        d = e.get("detail") or {}
        if e["name"] != "ship" or not isinstance(d.get("wal"), str):
            continue
        for uid in d.get("uids") or []:
            parts = str(uid).split(".")
            if uid in named or len(parts) != 4 or parts[0] != "0" or not parts[3].isdigit():
                continue
            named.add(uid)
            lost.setdefault(d["wal"], []).append((int(parts[3]), uid))
    for wal, reached in _reached(events).items():
        short = reached - recorded.get(wal, 0) - len(lost.get(wal, ()))
        for k in range(max(0, short)):
            lost.setdefault(wal, []).append((-1, f"lost.{wal}.{k}"))
    walls = set(lost)
    if table:
        for e in events:
            wal = (e.get("detail") or {}).get("wal")
            if isinstance(wal, str) and wal not in rolled and _seq(wal) > 0:
                walls.add(wal)
    after: dict[int, list[Event]] = {}
    for wal in sorted(walls, key=_seq):
        proc = _wal_owner(wal, last)
        if proc is None:
            continue
        like = events[last[proc]]
        server = server_index(proc[3:])

        def made(
            name: str, args: dict, detail: dict, like: Event = like, proc: str = proc
        ) -> Event:
            return _from_lines(like, proc, name, args, detail)

        out = after.setdefault(last[proc], [])
        if table and wal not in rolled:
            rolled.add(wal)
            out.append(made("roll", {"server": server, "group": 0}, {"wal": wal}))
        before = sum(
            c for w, c in recorded.items() if _wal_owner(w, [proc]) and _seq(w) <= _seq(wal)
        )
        for i, (n, uid) in enumerate(sorted(lost.get(wal, ()), key=lambda x: x[0] < 0)):
            kind = 0 if n >= 0 else 1
            if n < 0:
                uid = f"0.{server}.{_seq(wal)}.{before + i}"
            detail = {"uid": uid, "wal": wal, "owed": []}
            out.append(made("put", {"server": server, "group": 0, "kind": kind}, detail))
    for n, made_put in _lost_foreign_puts(events):
        after.setdefault(n, []).append(made_put)
    result: list[Event] = []
    for n, e in enumerate(events):
        result.append(e)
        result.extend(after.get(n, ()))
    return result, len(result) - len(events)


def _lost_foreign_puts(events: list[Event]) -> list[tuple[int, Event]]:
    """A client edit at another cluster (``<cluster>.<n>``) that a ``relay_home`` names and no
    ``foreign_put`` line wrote (the cluster's process killed between writing the edit and its
    line): its ``foreign_put`` (GLOBAL: it was relayed), right after the line of that cluster's
    edit before it (its clients write in order), or after the process's first line."""
    written: dict[str, int] = {}
    for n, e in enumerate(events):
        if e["name"] == "foreign_put":
            written[str((e.get("detail") or {}).get("uid"))] = n
    out: list[tuple[int, Event]] = []
    for e in events:
        uid = str((e.get("detail") or {}).get("uid"))
        cluster, _, num = uid.partition(".")
        if e["name"] != "relay_home" or uid in written or not num.isdigit():
            continue
        earlier = [
            (int(u.partition(".")[2]), n)
            for u, n in written.items()
            if u.partition(".")[0] == cluster
            and u.partition(".")[2].isdigit()
            and int(u.partition(".")[2]) < int(num)
        ]
        first = next((n for n, x in enumerate(events) if x["proc"] == e["proc"]), 0)
        at = max(earlier)[1] if earlier else first
        like = events[at]
        written[uid] = at
        args = {"cluster": int(cluster)} if cluster.isdigit() else {}
        made = _from_lines(like, e["proc"], "foreign_put", args, {"uid": uid, "scope": 0})
        out.append((at, made))
    return out


def _from_lines(like: Event, proc: str, name: str, args: dict, detail: dict) -> Event:
    """A step of ``proc`` that later lines tell of and no line records, put in beside ``like``
    (its pid, time and design): no zxid, in ``proc``'s order."""
    return {
        "v": like.get("v", 1),
        "proc": proc,
        "pid": like["pid"],
        "seq": None,
        "t": like["t"],
        "kind": "action",
        "name": name,
        "args": args,
        "zxid": None,
        "design": like.get("design"),
        "detail": {**detail, "from": "later lines"},
    }


def fill(
    events: list[Event], run: Path, committed: list[Any] | None = None
) -> tuple[list[Event], int, int]:
    """The trace with the lost events (``lost_steps``, ``unrecorded_crashes``) put in at their
    zxids and the crashes' windows set (``crash_windows``); how many events were put in, and how
    many windows set. ``committed``: the run's committed transactions, if already read."""
    if committed is None:
        committed = txnread.committed(txnread.logs(run), txnread.chroot(run))
    windows = crash_windows(events, run, committed)
    events = [
        {**e, "detail": {**(e.get("detail") or {}), "read": windows[n]}} if n in windows else e
        for n, e in enumerate(events)
    ]
    lost = lost_steps(events, run, committed) + unrecorded_crashes(events, committed)
    lost.sort(key=_at)
    out: list[Event] = []
    i = 0
    for e in events:
        z = e.get("zxid")
        read = (e.get("detail") or {}).get("read")
        if z is None and e["name"] == "crash" and isinstance(read, list) and len(read) == 2:
            z = read[1]  # a crash's session ended at its window's end: what its logs hold before
        while i < len(lost) and z is not None and _at(lost[i]) < z:
            out.append(lost[i])
            i += 1
        out.append(e)
    out.extend(lost[i:])
    return _after_own_lines(out, {id(e) for e in lost}), len(lost), len(windows)


DEATH_LINES = ("fenced", "process_exit")
"""A process's lines that come after its session ended: every write it committed, read back
or not, came before them."""


def _after_write(line: Event, write: Event) -> bool:
    """Was ``line`` (a line of the process whose ``write`` was read back) written after the
    write committed? Its process's session had ended (``DEATH_LINES``), or a read it records
    was served after the write's zxid."""
    if line["name"] in DEATH_LINES:
        return True
    read = (line.get("detail") or {}).get("read")
    z = write.get("zxid")
    return isinstance(read, list) and bool(read) and isinstance(z, int) and read[0] >= z


def _after_own_lines(events: list[Event], lost: set[int]) -> list[Event]:
    """``events`` with each write read back from the log before the lines its process wrote
    after it (``_after_write``), and every line of the process from the first of those on: the
    write keeps its place in zxid order, and the lines it preceded follow it (a server that
    committed, lost its session and wrote ``fenced`` before the write's own line)."""
    out = list(events)
    for write in [e for e in events if id(e) in lost]:
        proc = write["proc"]
        w = next(n for n, e in enumerate(out) if e is write)
        start = next(
            (
                n
                for n, e in enumerate(out[:w])
                if e["proc"] == proc and id(e) not in lost and _after_write(e, write)
            ),
            None,
        )
        if start is None:
            continue
        tail = [n for n in range(start, w) if out[n]["proc"] == proc and id(out[n]) not in lost]
        if any(out[n].get("zxid") is not None or out[n]["name"] == "process_start" for n in tail):
            continue  # a later incarnation's lines, or writes: not lines after this write
        moved = [out[n] for n in tail]
        keep = [e for n, e in enumerate(out) if n not in set(tail)]
        at = next(n for n, e in enumerate(keep) if e is write)
        out = [*keep[: at + 1], *moved, *keep[at + 1 :]]
    return out


def _at(e: Event) -> int:
    """Where a read-back event goes: at its zxid, or a crash just before its session's end."""
    return e["zxid"] if e["zxid"] is not None else e["detail"]["read"][1]
