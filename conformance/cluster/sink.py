"""A sink cluster: ``python -m replcheck.conformance.cluster.sink --run-dir D --cluster C --port
P``.

It receives batches over loopback TCP and applies them to an on-disk store
(``cluster<C>/store/applied.jsonl``), keeping each edit's cluster ids and adding its own (seed 002:
"The UUID of the master RegionServer and the UUIDs of the slaves, which have already consumed the
data, are preserved in the edits when they are applied. This prevents replication loops.").

With ``--relay`` it is the other half of master-master replication: its clients write edits of
its own (``foreign_put``), and it replicates to cluster 0 every edit in its log that cluster 0
should receive, found with the model's ``replicable`` (``relay_home``), sending each to a live
region server of cluster 0 (listed under ``/hbase/rs``).
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

from replcheck.conformance.cluster import wire
from replcheck.conformance.cluster.common import (
    LIVE,
    drop_torn_tail,
    log,
    orphaned,
    store_dir,
    write_atomic,
)
from replcheck.conformance.hbase.names import server_index
from replcheck.conformance.trace.events import TraceWriter
from replcheck.model.common import rules


class Sink:
    def __init__(self, args: argparse.Namespace) -> None:
        self.cluster = args.cluster
        self.run_dir = Path(args.run_dir)
        self.dir = store_dir(self.run_dir, self.cluster)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.relay_log = self.dir / "relay.jsonl"
        for torn in (self.dir / "applied.jsonl", self.relay_log):
            if drop_torn_tail(torn):
                log(f"dropped a torn last line of {torn.name} (killed mid-write)")
        self.store = open(self.dir / "applied.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self.relay_pos = self.dir / "relay.pos"
        self.trace = TraceWriter(self.run_dir / "trace", f"sink-{self.cluster}", args.design)
        self.lock = threading.Lock()
        self.args = args

    def on_request(self, req: dict[str, Any]) -> dict[str, Any]:
        if req.get("op") != "apply":
            return {"ok": False, "error": "unknown op"}
        edits = req["edits"]
        with self.lock:
            for e in edits:
                applied = {**e, "ids": [*e["ids"], self.cluster], "at": self.cluster}
                self.store.write(json.dumps(applied, sort_keys=True) + "\n")
                if self.args.relay and rules.replicable(e["kind"], tuple(applied["ids"]), 0):
                    with open(self.relay_log, "a", encoding="utf-8") as f:
                        f.write(json.dumps(applied, sort_keys=True) + "\n")
            self.store.flush()
        self.trace.meta("sink_apply", source=req.get("source"), uids=[e["uid"] for e in edits])
        return {"ok": True}

    # --- master-master: this cluster's own clients, and replication into cluster 0 -----------

    def foreign_puts(self) -> None:
        rng = random.Random(self.args.seed * 7919 + self.cluster)
        start = self._count_own()
        for n in range(start, self.args.foreign):
            time.sleep(rng.uniform(0.02, 0.1))
            table, family = rng.choice([("t1", "g"), ("t2", "g"), ("t1", "l")])
            kind = 0 if family == "g" else 1
            edit = {
                "uid": f"{self.cluster}.{n}",
                "kind": kind,
                "ids": [self.cluster],
                "table": table,
                "family": family,
                "row": f"r{rng.randrange(100)}",
                "op": "put",
            }
            with self.lock, open(self.relay_log, "a", encoding="utf-8") as f:
                if rules.replicable(kind, tuple(edit["ids"]), 0):
                    f.write(json.dumps(edit, sort_keys=True) + "\n")
            write_atomic(self.dir / "foreign.count", str(n + 1))
            self.trace.emit("foreign_put", {"cluster": self.cluster}, uid=edit["uid"], scope=kind)

    def _count_own(self) -> int:
        """How many edits this cluster's clients already wrote (a restarted sink goes on): the
        count, or past the last of its own edits in the relay log, if the process was killed
        after writing an edit and before counting it (its uid is not given out twice)."""
        path = self.dir / "foreign.count"
        count = int(path.read_text()) if path.exists() else 0
        if self.relay_log.exists():
            for line in self.relay_log.read_text().splitlines():
                try:
                    uid = str(json.loads(line).get("uid", ""))
                except ValueError:
                    continue  # a line torn by the kill
                cluster, _, n = uid.partition(".")
                if cluster == str(self.cluster) and n.isdigit():
                    count = max(count, int(n) + 1)
        return count

    def relay_home(self) -> None:
        from kazoo.client import KazooClient

        zk = KazooClient(hosts=self.args.zk, timeout=10)
        zk.start(timeout=30)
        pos = int(self.relay_pos.read_text()) if self.relay_pos.exists() else 0
        rng = random.Random(self.args.seed)
        while True:
            time.sleep(0.05)
            with self.lock:
                lines = self.relay_log.read_text().splitlines() if self.relay_log.exists() else []
            if pos >= len(lines):
                continue
            edit = json.loads(lines[pos])
            try:
                servers = zk.get_children(LIVE)
                if not servers:
                    continue
                target = rng.choice(servers)
                data = json.loads(zk.get(f"{LIVE}/{target}")[0])
                reply = wire.send(
                    data["sink"], {"op": "relay", "edits": [edit], "source": f"sink-{self.cluster}"}
                )
            except Exception as exc:  # a region server going away: try another one later
                log(f"relay: {type(exc).__name__}: {exc}")
                time.sleep(0.2)
                continue
            if not reply.get("ok"):
                log(f"relay: refused: {reply}")
                continue
            self.trace.emit(
                "relay_home",
                {"cluster": self.cluster, "server": server_index(target)},
                uid=edit["uid"],
                target=target,
            )
            pos += 1
            write_atomic(self.relay_pos, str(pos))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="replcheck.conformance.cluster.sink")
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--cluster", type=int, required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--zk", default="")
    ap.add_argument("--design", default="")
    ap.add_argument("--relay", action="store_true")
    ap.add_argument("--foreign", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sink = Sink(args)
    sink.trace.meta("process_start", port=args.port, cluster=args.cluster)
    server, _port = wire.serve(args.port, sink.on_request)
    if args.relay:
        threading.Thread(target=sink.foreign_puts, daemon=True).start()
        threading.Thread(target=sink.relay_home, daemon=True).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    log(f"sink cluster {args.cluster} on port {args.port}")
    while not stop.wait(0.5) and not orphaned():
        pass
    server.shutdown()
    sink.trace.meta("process_exit", code=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
