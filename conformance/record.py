"""``replcheck record``: several recorded runs of one design, one folder per run.

Each run folder holds ``trace.jsonl`` (the merged trace), ``verdict.json`` (the end-state verdict
and the run's numbers), ``trace/`` (each process's own events), ``logs/`` (each process's output),
``zk-txnlog/`` (the ZooKeeper transaction logs, copied from the ensemble's data-log directories),
the WALs and the sink stores. ``summary.json`` in the output folder sums the runs up.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from .cluster import FAULT_KINDS, RunResult, RunSpec, record_run
from .steps import Steps


def parse_faults(text: str) -> tuple[str, ...]:
    """``kill,pause,...`` -> a tuple of fault kinds; ``none`` or empty -> no faults."""
    if text.strip() in ("", "none"):
        return ()
    faults = tuple(f.strip() for f in text.split(",") if f.strip())
    bad = [f for f in faults if f not in FAULT_KINDS]
    if bad:
        raise ValueError(f"unknown fault {bad[0]!r}; known: {', '.join(FAULT_KINDS)}")
    return faults


def check_design(name: str) -> None:
    """Raise ``DesignError`` (one line) unless the reference cluster can run ``name``."""
    Steps(name)


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """While recording, turn SIGTERM into ``SystemExit`` so that every ``finally`` runs and stops
    the processes and the ZooKeeper a run started. (A SIGKILLed driver cannot clean up: its
    region servers exit when their sessions end, its ZooKeeper needs ``replcheck zk stop``.)"""

    def handler(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def record(
    spec: RunSpec,
    runs: int,
    out: Path,
    progress: Callable[[str], None] | None = None,
    keep_going: bool = False,
) -> list[RunResult]:
    """Record ``runs`` runs, seeds ``spec.seed``, ``spec.seed + 1``, ...; write
    ``out/summary.json``. With ``keep_going`` a run that cannot finish (ZooKeeper or a process
    failing to start) is reported and skipped instead of ending the whole recording."""
    say = progress or (lambda msg: print(msg, file=sys.stderr, flush=True))
    out.mkdir(parents=True, exist_ok=True)
    results = []
    errors: list[str] = []
    try:
        with stop_on_sigterm():
            _record_runs(spec, runs, out, say, keep_going, results, errors)
    finally:  # also when interrupted: the runs that finished are summed up
        summary = summarize(spec, results)
        summary["errors"] = errors
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return results


def _record_runs(
    spec: RunSpec,
    runs: int,
    out: Path,
    say: Callable[[str], None],
    keep_going: bool,
    results: list[RunResult],
    errors: list[str],
) -> None:
    for n in range(runs):
        seed = spec.seed + n
        run_dir = out / f"run-{n:03d}-seed{seed}"
        say(f"[{n + 1}/{runs}] {spec.design} seed {seed} -> {run_dir}")
        t0 = time.monotonic()
        try:
            result = record_run(
                replace(spec, seed=seed), run_dir, progress=lambda m, n=n: say(f"  [{n + 1}] {m}")
            )
        except Exception as exc:
            if not keep_going:
                raise
            say(f"[{n + 1}/{runs}] ERROR: the run could not finish: {type(exc).__name__}: {exc}")
            errors.append(f"{run_dir.name}: {type(exc).__name__}: {exc}")
            continue
        s = result.summary()
        say(
            f"[{n + 1}/{runs}] {'ok' if s['ok'] else 'VIOLATION'}: {s['edits_written']} edits, "
            f"{s['delivered']}/{s['owed_deliveries']} owed deliveries, {s['lost']} lost, "
            f"{s['duplicates']} duplicates, {s['premature_deletions']} premature deletions, "
            f"faults {dict(result.faults)} ({time.monotonic() - t0:.0f}s)"
        )
        results.append(result)


def summarize(spec: RunSpec, results: list[RunResult]) -> dict[str, Any]:
    faults: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for r in results:
        faults.update(r.faults)
        for k, v in r.summary().items():
            if isinstance(v, bool):
                totals[k] += int(v)
            elif isinstance(v, int | float):
                totals[k] += v
    return {
        "design": spec.design,
        "runs": len(results),
        "failed_runs": sum(1 for r in results if not r.verdict.ok),
        "faults": dict(faults),
        "faults_skipped": dict(sum((r.skipped for r in results), Counter())),
        "totals": dict(totals),
        "per_run": [{"run": str(r.run_dir.name), **r.summary()} for r in results],
    }
