"""Anti-vacuity for log-only validation: is a run's ZooKeeper log, changed by one transaction,
still accepted?

    python bench/zklog_mutations.py RUN... [--per-run 40] [--seed 1] [--json]

For each run (a run folder, or a ZooKeeper data directory) whose log is accepted as it is
(``validate --zk-logs``, the design its trace names, else zk-multi), draw ``--per-run``
single-transaction edits of its committed transactions that write replication storage, and
validate each edited log the same way:

* ``drop``: the transaction never happened;
* ``duplicate``: it happened twice (the copy right after it);
* ``swap``: it and the next storage write happened the other way round;
* ``position+1``: a position it writes is one byte further (a new entry boundary: the log
  alone cannot tell it from a real offset, so this edit survives by right unless another write
  contradicts it);
* ``position-back``: a position it writes is half what it was (behind what the source reached).

A survivor (an edited log still accepted) is listed with its edit, so each can be explained: an
edit the model cannot tell from a real history (dropping a position that a later one overwrites,
swapping two servers' independent writes) survives by right; any other is a gap. Not a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from replcheck.conformance.fromlog import read as txnread
from replcheck.conformance.fromlog import zk as txntrace
from replcheck.conformance.hbase.names import Steps
from replcheck.conformance.hbase.values import decode_position, encode_position
from replcheck.conformance.trace.reader import read_trace
from replcheck.conformance.validate.core import Bounds, validate_events
from replcheck.conformance.zookeeper.txnlog import OpCode
from replcheck.model import get_design

KINDS = ("drop", "duplicate", "swap", "position+1", "position-back")


def storage_writes(committed: list[Any]) -> list[int]:
    """Indexes of the transactions that write replication storage, or end a session."""
    out = []
    for i, txn in enumerate(committed):
        paths = [txnread.relative(p) for p in txnread.paths(txn)]
        if txn.type == OpCode.closeSession or any(
            p.startswith(("/hbase/replication/", "/hbase/replication-table/", "/replcheck/"))
            for p in paths
        ):
            out.append(i)
    return out


def _set_position(txn: Any, back: bool) -> Any | None:
    """``txn`` with the first position it writes one byte on, or halved (``back``), or None."""

    def moved(record: Any) -> Any | None:
        path = getattr(record, "path", "") or ""
        data = getattr(record, "data", None)
        if "/replication/rs/" in path and data:
            try:
                pos = decode_position(data)
            except ValueError:
                return None
            if pos <= 1:
                return None
            new = pos // 2 if back else pos + 1
            return dataclasses.replace(record, data=encode_position(new))
        if "/replication-table/" in path and data:
            try:
                row = json.loads(data)
                group, value = next(iter(row["queue"].items()))
                wal, _, pos = value.rpartition(":")
                if not wal or int(pos) <= 1:
                    return None
                row["queue"][group] = f"{wal}:{int(pos) // 2 if back else int(pos) + 1}"
            except (ValueError, KeyError, StopIteration, AttributeError):
                return None
            return dataclasses.replace(record, data=json.dumps(row).encode())
        return None

    if txn.type == OpCode.multi:
        subs = list(txn.record.txns)
        for k, sub in enumerate(subs):
            new = moved(sub.record) if sub.record is not None else None
            if new is not None:
                subs[k] = dataclasses.replace(sub, record=new)
                return dataclasses.replace(txn, record=dataclasses.replace(txn.record, txns=subs))
        return None
    new = moved(txn.record) if txn.record is not None else None
    return None if new is None else dataclasses.replace(txn, record=new)


def edit(committed: list[Any], kind: str, i: int, writes: list[int], rng: random.Random):
    """One edited copy of ``committed`` (zxids renumbered so that order is file order), or None
    when the edit does not apply there."""
    out = list(committed)
    if kind == "drop":
        del out[i]
    elif kind == "duplicate":
        out.insert(i + 1, out[i])
    elif kind == "swap":
        later = [j for j in writes if j > i]
        if not later:
            return None
        j = later[0]
        out[i], out[j] = out[j], out[i]
    else:
        moved = _set_position(out[i], back=kind == "position-back")
        if moved is None:
            return None
        out[i] = moved
    return [dataclasses.replace(t, zxid=n + 1) for n, t in enumerate(out)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--per-run", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-nodes", type=int, default=20_000, help="search budget per edited log")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    verdicts: Counter[tuple[str, str]] = Counter()
    survivors = []
    judged = 0
    try:
        for text in args.runs:
            run = Path(text)
            try:
                design = read_trace(run).design or "zk-multi"
            except Exception:  # a data directory without a trace
                design = "zk-multi"
            steps = Steps.for_model(get_design(design))
            dirs, chroot = txntrace.log_dirs(run)
            committed = txnread.committed(dirs, chroot)
            base = txntrace.trace_of(committed, design, steps, text)
            if validate_events(base.events, design, storage=base.storage).status != "accepted":
                print(f"{run}: not accepted as it is; skipped", file=sys.stderr)
                continue
            judged += 1
            writes = storage_writes(committed)
            for _ in range(args.per_run):
                kind = rng.choice(KINDS)
                i = rng.choice(writes)
                changed = edit(committed, kind, i, writes, rng)
                if changed is None:
                    continue
                try:
                    log = txntrace.trace_of(changed, design, steps, text)
                    v = validate_events(
                        log.events,
                        design,
                        storage=log.storage,
                        bounds=Bounds(max_nodes=args.max_nodes),
                    )
                    status = v.status
                except (txntrace.LogTraceError, ValueError, KeyError, IndexError) as exc:
                    status = f"bad-input ({type(exc).__name__})"
                verdicts[(kind, status)] += 1
                print(f"  {kind} at {hex(committed[i].zxid)}: {status}", file=sys.stderr)
                if status == "accepted":
                    survivors.append(
                        {
                            "run": text,
                            "edit": kind,
                            "zxid": hex(committed[i].zxid),
                            "ops": [f"{k} {p}" for k, p, _ in txnread.ops(committed[i])]
                            or txnread.paths(committed[i]),
                        }
                    )
            print(f"{run}: done", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted: the table below is partial", file=sys.stderr)
    table = {f"{k} / {s}": n for (k, s), n in sorted(verdicts.items())}
    if args.json:
        print(json.dumps({"runs": judged, "verdicts": table, "survivors": survivors}, indent=2))
        return 0
    total = sum(verdicts.values())
    caught = total - sum(n for (_k, s), n in verdicts.items() if s == "accepted")
    print(
        f"{judged} runs, {total} edited logs, {caught} not accepted ({caught / max(total, 1):.0%})"
    )
    print("| edit / verdict | logs |\n|---|---|")
    for k, n in table.items():
        print(f"| {k} | {n} |")
    for s in survivors:
        print(f"SURVIVOR {s['edit']} at {s['zxid']} of {s['run']}: {'; '.join(s['ops'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
