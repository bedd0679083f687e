"""``replcheck record``: several recorded runs of one design, one folder per run.

Each run folder holds ``trace.jsonl`` (the merged trace), ``verdict.json`` (the end-state verdict
and the run's numbers), ``trace/`` (each process's own events), ``logs/`` (each process's output),
``zk-txnlog/`` (the ZooKeeper transaction logs, copied from the ensemble's data-log directories),
``zk-chroot`` (the run's subtree of the ensemble), ``sessions/`` (the region servers' sessions),
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

from replcheck.conformance.cluster import outdir
from replcheck.conformance.cluster.run import FAULT_KINDS, RunResult, RunSpec, record_run
from replcheck.conformance.hbase.names import Steps


def parse_faults(text: str) -> tuple[str, ...]:
    """``kill,pause,...`` -> a tuple of fault kinds; ``none`` or empty -> no faults. An unknown
    fault, or one named twice (each is injected once per run), is a ``ValueError``."""
    if text.strip() in ("", "none"):
        return ()
    faults = tuple(f.strip() for f in text.split(",") if f.strip())
    bad = [f for f in faults if f not in FAULT_KINDS]
    if bad:
        raise ValueError(f"--faults: unknown fault {bad[0]!r}; known: {', '.join(FAULT_KINDS)}")
    twice = sorted({f for f in faults if faults.count(f) > 1})
    if twice:
        raise ValueError(
            f"--faults: {', '.join(twice)} named more than once; each fault is injected once per "
            "run: name it once"
        )
    return faults


def check_design(name: str) -> None:
    """Raise ``DesignError`` (one line) unless the reference cluster can run ``name``."""
    Steps(name)


class Terminated(BaseException):
    """SIGTERM arrived while recording (a ``BaseException``, like ``KeyboardInterrupt``, so that
    no ``except Exception`` swallows it on the way out)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


OutputNotEmpty = outdir.OutDirError
"""The output folder already holds files, or another run holds it: a run must never read
another run's files (``outdir``)."""


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """While recording, turn SIGTERM into ``Terminated`` so that every ``finally`` runs and stops
    the processes and the ZooKeeper a run started. (A SIGKILLed driver cannot clean up: every
    child is tethered to it and dies with it, see ``lifeline``; ``replcheck zk stop --dir OUT``
    clears what a driver left where that is not available.)"""

    def handler(signum: int, _frame: object) -> None:
        raise Terminated(signum)

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
    failing to start) is reported and skipped instead of ending the whole recording.

    ``out`` must be new or empty, and is taken for the recording (``outdir.claim``; an
    ``OutDirError`` otherwise, before anything starts): a recording never reads, merges or
    overwrites another's files, and two recordings started at once into one folder cannot both
    take it. Interrupted (Ctrl-C, SIGTERM), the summary of the runs that
    finished is still written, marked ``interrupted`` and ``complete: false``, and the
    interruption is raised again."""
    say = progress or (lambda msg: print(msg, file=sys.stderr, flush=True))
    out = out.resolve()  # the children's command lines name it: ``lifeline.leftovers`` finds them
    with outdir.claim(out):
        return _record(spec, runs, out, say, keep_going)


def _record(
    spec: RunSpec, runs: int, out: Path, say: Callable[[str], None], keep_going: bool
) -> list[RunResult]:
    """``record`` in the folder it took."""
    results: list[RunResult] = []
    errors: list[str] = []
    interrupted: str | None = None
    stopped: str | None = None
    try:
        with stop_on_sigterm():
            _record_runs(spec, runs, out, say, keep_going, results, errors)
    except KeyboardInterrupt:
        interrupted = "SIGINT"
        raise
    except Terminated as exc:
        interrupted = signal.Signals(exc.signum).name
        raise
    except BaseException as exc:
        stopped = f"{type(exc).__name__}: {exc}"
        raise
    finally:  # also when interrupted: the runs that finished are summed up
        summary = summarize(spec, results)
        summary["errors"] = errors + ([stopped] if stopped else [])
        summary["runs_requested"] = runs
        summary["interrupted"] = interrupted
        summary["complete"] = interrupted is None and stopped is None and not errors
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return results


def check_out(out: Path) -> None:
    """Raise ``OutputNotEmpty`` unless ``out`` is new or an empty folder: the early check, before
    anything starts (``record`` takes the folder atomically, ``outdir.claim``)."""
    outdir.check(out)


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
            f"faults {dict(result.faults)}; conformance: "
            f"{result.conformance.get('verdict', 'not validated')} ({time.monotonic() - t0:.0f}s)"
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
        "incomplete_traces": sum(1 for r in results if r.torn_lines),
        "conformance": dict(Counter(r.conformance.get("status", "not validated") for r in results)),
        "faults": dict(faults),
        "faults_skipped": dict(sum((r.skipped for r in results), Counter())),
        "totals": dict(totals),
        "per_run": [{"run": str(r.run_dir.name), **r.summary()} for r in results],
    }
