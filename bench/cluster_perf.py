"""Reference-cluster performance, measured against ZooKeeper in the same run.

    python bench/cluster_perf.py [--design zk-multi] [--edits 300] [--rate 150] [--out bench-perf]

1. The raw ZooKeeper ``setData`` rate: sequential synchronous ``set`` calls on one znode from one
   kazoo client (what a single source's position updates are bounded by).
2. Replication throughput: a run without faults, no master-master traffic; edits applied at the
   peer per second, from the first client edit to the last application (trace timestamps), next
   to the client edit rate; and the catch-up rate: the backlog that built while the peer was
   disabled (the admin schedule disables it from 30% to 65% of the workload), applied after
   ``enable_peer`` (the first second of it).
3. Failover time: a run with one ``kill -9``; from the fault to the first claim of a dead server's
   queue (``claim_commit``, or ``finish_claim`` for ``zk-lock``), set against the session timeout
   (a dead server is only noticed when its session expires).

Not a test: nothing here asserts timing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kazoo.client import KazooClient
from replcheck.conformance.cluster.run import RunSpec, record_run
from replcheck.conformance.trace import events as trace
from replcheck.conformance.zookeeper.server import Ensemble


def setdata_rate(hosts: str, n: int) -> float:
    zk = KazooClient(hosts=hosts, timeout=10)
    zk.start(timeout=30)
    zk.ensure_path("/bench/setdata")
    t0 = time.perf_counter()
    for i in range(n):
        zk.set("/bench/setdata", str(i).encode())
    rate = n / (time.perf_counter() - t0)
    zk.stop()
    zk.close()
    return rate


def throughput(run_dir: Path) -> dict[str, float]:
    events = trace.load(run_dir / "trace.jsonl")
    puts = [e["t"] for e in events if e["name"] == "put"]
    applies = [
        (e["t"], len(e.get("detail", {}).get("uids", [])))
        for e in events
        if e["name"] == "sink_apply" and e["proc"] == "sink-1"
    ]
    n = sum(k for _, k in applies)
    span = max(t for t, _ in applies) - min(puts) if applies and puts else float("nan")
    persists = sum(1 for e in events if e["name"] == "persist")
    out = {
        "puts": len(puts),
        "puts_per_s": round(len(puts) / span, 1),
        "applied": n,
        "seconds": round(span, 2),
        "edits_per_s": round(n / span, 1),
        "persists": persists,
        "persists_per_s": round(persists / span, 1),
    }
    enabled = [
        e["t"]
        for e in events
        if "enable_peer" in (e["name"], e.get("detail", {}).get("action"))  # table: unmodelled
    ]
    after = [(t, k) for t, k in applies if enabled and t >= enabled[0]]
    if after:  # the backlog built while the peer was disabled, drained at full speed
        burst = [(t, k) for t, k in after if t <= after[0][0] + 1.0]
        dt = max(t for t, _ in burst) - enabled[0]
        out["catch_up_first_second_edits"] = sum(k for _, k in burst)
        out["catch_up_edits_per_s"] = round(sum(k for _, k in burst) / max(dt, 1e-3), 1)
    return out


def failover(run_dir: Path) -> dict[str, float] | None:
    events = trace.load(run_dir / "trace.jsonl")
    kill = next((e for e in events if e["name"] == "fault"), None)
    if kill is None:
        return None
    claims = [
        e["t"]
        for e in events
        if e["name"] in ("claim_commit", "finish_claim") and e["t"] > kill["t"]
    ]
    if not claims:
        return None
    return {"fault_to_first_claim_s": round(min(claims) - kill["t"], 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/cluster_perf.py", description=__doc__.split("\n")[0])
    ap.add_argument("--design", default="zk-multi")
    ap.add_argument("--edits", type=int, default=300)
    ap.add_argument("--rate", type=float, default=150.0)
    ap.add_argument("--setdata", type=int, default=2000)
    ap.add_argument("--out", default="bench-perf")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ensemble = Ensemble(out / "zookeeper", servers=1)
    ensemble.start(timeout=90)
    report: dict[str, object] = {"design": args.design}
    try:
        report["zk_setdata_per_s"] = round(setdata_rate(ensemble.connect_string, args.setdata), 1)
        quiet = RunSpec(
            design=args.design,
            seed=1,
            edits=args.edits,
            rate=args.rate,
            batch=50,
            roll_every=100,
            master_master=False,
            second_peer=False,
            drain_timeout=120,
        )
        record_run(quiet, out / "throughput", ensemble=ensemble)
        report["replication"] = throughput(out / "throughput")
        spec = RunSpec(design=args.design, seed=2, faults=("kill",), second_peer=False)
        result = record_run(spec, out / "failover", ensemble=ensemble)
        report["session_timeout_s"] = spec.session_timeout
        report["failover"] = failover(out / "failover")
        report["failover_run_ok"] = result.verdict.ok
    finally:
        ensemble.stop()
    (out / "perf.json").write_text(json.dumps(report, indent=2) + "\n")
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
