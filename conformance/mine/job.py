"""The Spark job of ``replcheck mine`` (docs/mine.md), and its ``spark-submit`` entry point.

The driver plans (``mine.discover`` lists the units), ships the project's code to the executors
(a zip of the packages, ``package_zip``), and sums; Spark reads each unit's files as binary
files and an executor runs ``mine.mine_run`` on one unit at a time (``mine_input``: read,
replay through the model, statistics). The tables are written as Parquet
by Spark: ``runs``, ``violations``, ``coverage``, ``races``, ``latencies`` and ``quarantine``,
with ``summary.json`` and a self-contained ``index.html`` (``mine_html``) beside them.

    replcheck mine --package DIR     # writes DIR/replcheck.zip and DIR/mine_submit.py
    spark-submit --master spark://HOST:PORT --py-files DIR/replcheck.zip \\
        DIR/mine_submit.py PATH... --out DIR [--partitions N]

(executors need ``PYSPARK_PYTHON`` to name a Python 3.11 with the project's dependencies; the
project itself comes in the zip.)
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from replcheck.conformance.mine.input import mine_wave
from replcheck.conformance.mine.rows import SCHEMA, branches, coverage_kind, discover

TABLES = ("runs", "violations", "coverage", "races", "latencies", "quarantine")

PACKAGES = {"replcheck": "replcheck", "model": "replcheck/model", "specs": "replcheck/specs"}
PACKAGES["conformance"] = "replcheck/conformance"
"""Source folder (relative to the project) -> where it goes in the zip (pyproject's
``package-dir``)."""


def project_root() -> Path:
    """The folder holding the packages: the parent of ``conformance/``."""
    return Path(__file__).resolve().parents[2]


def package_zip(dest: Path) -> Path:
    """Write the project's packages to ``dest`` (a zip for ``--py-files`` / ``addPyFile``),
    laid out as installed: ``replcheck/``, ``replcheck/model/``, ``replcheck/specs/``,
    ``replcheck/conformance/``."""
    sources = {
        "replcheck": _package_dir("replcheck.cli"),
        "model": _package_dir("replcheck.model"),
        "specs": _package_dir("replcheck.specs"),
        "conformance": _package_dir("replcheck.conformance"),
    }
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for key, target in PACKAGES.items():
            src = sources[key]
            for f in sorted(src.rglob("*")):
                if f.is_dir() or "__pycache__" in f.parts or f.suffix == ".pyc":
                    continue
                rel = f.relative_to(src)
                if key == "replcheck" and rel.parts and rel.parts[0] in PACKAGES:
                    continue
                z.write(f, f"{target}/{rel.as_posix()}")
        # Files the packages read beside their code: the trace schema (conformance/trace/schema.py
        # finds it three folders above itself).
        schema = project_root() / "traces" / "schema"
        for f in sorted(schema.rglob("*")):
            if f.is_file():
                z.write(f, f"replcheck/traces/schema/{f.relative_to(schema).as_posix()}")
    return dest


SUBMIT_SCRIPT = """\"\"\"The spark-submit entry point of replcheck mine (from --package).\"\"\"

import sys

from replcheck.cli_mine import submit_main

sys.exit(submit_main())
"""


def write_package(folder: Path) -> tuple[Path, Path]:
    """``folder/replcheck.zip`` (``package_zip``) and ``folder/mine_submit.py``, the script
    spark-submit runs: everything a cluster needs besides a Python with the dependencies."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "mine_submit.py"
    script.write_text(SUBMIT_SCRIPT, encoding="utf-8")
    return package_zip(folder / "replcheck.zip"), script


def _package_dir(name: str) -> Path:
    """The folder of module ``name``'s file (for a package, its ``__init__.py``)."""
    import importlib

    return Path(importlib.import_module(name).__file__ or "").resolve().parent


def partitions_for(units: int, parallelism: int) -> int:
    """Partitions for ``units`` runs on ``parallelism`` cores: about four per core, so a slow
    run does not leave the other cores idle at the end, and never more than one per run."""
    return max(1, min(units, 4 * max(parallelism, 1)))


def waves(units: list[dict[str, str]], partitions: int) -> Iterator[list[dict[str, str]]]:
    """The units in waves of ``WAVE`` runs per partition: each wave is one Spark job, so a
    Ctrl-C keeps every wave mined before it (the partial report), at the cost of cores idle
    while a wave's last runs finish."""
    size = max(1, WAVE * partitions)
    for i in range(0, len(units), size):
        yield units[i : i + size]


WAVE = 8
"""Runs per partition in one wave (one Spark job)."""


class MasterError(ValueError):
    """``--master`` names no Spark master, or one that does not answer: the user's input (one
    line naming the master; ``replcheck mine`` exits 2)."""


LOCAL_MASTER = re.compile(r"local(\[(\*|\d+)(,\s*\d+)?\])?|local-cluster\[\d+,\s*\d+,\s*\d+\]")
"""The in-process masters: ``local``, ``local[N]``, ``local[*]``, ``local[N,F]``,
``local-cluster[N,C,M]``."""
OTHER_MASTERS = ("yarn", "k8s://", "mesos://")
"""Masters Spark reaches through a resource manager: passed on unchecked."""


def check_master(master: str, timeout: float = 3.0) -> None:
    """Raise ``MasterError`` (one line naming ``master``) unless it is a master URL Spark knows
    and, for a standalone master (``spark://HOST:PORT[,HOST:PORT...]``), one of its hosts
    accepts a connection on its port within ``timeout`` seconds."""
    if LOCAL_MASTER.fullmatch(master) or master == "yarn" or master.startswith(OTHER_MASTERS):
        return
    if not master.startswith("spark://"):
        raise MasterError(
            f"--master {master}: not a Spark master URL (local[N], local[*], spark://HOST:PORT, "
            "yarn, k8s://...)"
        )
    errors = []
    for hostport in master[len("spark://") :].split(","):
        host, _, port = hostport.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise MasterError(f"--master {master}: expected spark://HOST:PORT")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
                return
        except OSError as exc:
            errors.append(f"{hostport}: {exc.strerror or exc}")
    raise MasterError(f"--master {master}: no Spark master answers ({'; '.join(errors)})")


SPARK_LOG = "spark.log"
"""Where, in the output folder, the Spark JVM's own output goes (its log lines and Java stack
traces): the terminal gets the command's one line instead."""


def _quiet_gateway(log: Path) -> None:
    """Start the Spark JVM (PySpark's gateway) with its standard output and error appended to
    ``log``, unless one is running already; ``getOrCreate`` then uses it."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway is not None:
            return
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as sink:  # the JVM keeps its own copy of the descriptor
            gateway = launch_gateway(popen_kwargs={"stdout": sink, "stderr": sink})
        SparkContext._gateway = gateway
        SparkContext._jvm = gateway.jvm


def run_job(
    paths: list[str],
    out: Path,
    *,
    master: str | None = None,
    partitions: int | None = None,
    on_run: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Mine ``paths`` with Spark (``master``, or spark-submit's, or ``local[*]``) into ``out``;
    returns the summary. A Ctrl-C stops the job: what was mined by then is written, and the
    summary says ``interrupted``."""
    from pyspark.sql import SparkSession

    t0 = time.monotonic()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = (
        SparkSession.builder.appName("replcheck mine")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if master:
        builder = builder.master(master)
    elif not _under_spark_submit():
        builder = builder.master("local[*]")
    # Started from a thread of its own, PySpark installs no Ctrl-C handler of its own (which
    # would cancel the jobs from inside the JVM call it interrupts and break the gateway).
    path_before = list(sys.path)
    if not _under_spark_submit():
        _quiet_gateway(out / SPARK_LOG)
    spark = _in_thread(builder.getOrCreate, on_interrupt=lambda s: s.stop())
    started = time.monotonic()
    try:
        sc = spark.sparkContext
        sc.setLogLevel("ERROR")
        with tempfile.TemporaryDirectory(prefix="replcheck-mine-") as tmp:
            if not _under_spark_submit():  # spark-submit ships it with --py-files
                sc.addPyFile(str(package_zip(Path(tmp) / "replcheck.zip")))
            units = discover(paths)
            n = partitions or partitions_for(len(units), sc.defaultParallelism)
            results: list[dict[str, Any]] = []
            interrupted = False
            mined = time.monotonic()
            try:
                for wave in waves(units, n):
                    for r in _mine_wave(sc, wave, min(n, len(wave))):
                        results.append(r)
                        if on_run is not None:
                            on_run(r)
            except KeyboardInterrupt:
                interrupted = True
            mined = time.monotonic() - mined
        tables = build_tables(results)
        write_tables(spark, tables, out)
        summary = summarize(tables, planned=len(units), interrupted=interrupted)
        summary["master"] = sc.master
        summary["partitions"] = n
        summary["seconds"] = {
            "startup": round(started - t0, 3),
            "mining": round(mined, 3),
            "total": round(time.monotonic() - t0, 3),
        }
    finally:
        spark.stop()
        _forget_shipped(path_before)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    from replcheck.conformance.mine.html import render_html

    (out / "index.html").write_text(render_html(summary, tables), encoding="utf-8")
    return summary


def _forget_shipped(path_before: list[str]) -> None:
    """Take off ``sys.path`` what the Spark context put there in this process (its files folder
    and the zip ``addPyFile`` shipped, which the stopped context deletes): an import after the
    job must not look for them."""
    added = [p for p in sys.path if p not in path_before]
    sys.path[:] = [p for p in sys.path if p in path_before]
    for p in added:
        sys.path_importer_cache.pop(p, None)


def _mine_wave(sc: Any, wave: list[dict[str, str]], partitions: int) -> list[dict[str, Any]]:
    """One wave's results. A Ctrl-C cancels the job (the wave is lost, the waves before it
    kept) and ``KeyboardInterrupt`` goes on up."""
    return list(
        _in_thread(
            lambda: mine_wave(sc, wave, partitions),
            on_interrupt=lambda _rows: None,
            cancel=sc.cancelAllJobs,
        )
    )


def _in_thread(
    fn: Callable[[], Any],
    *,
    on_interrupt: Callable[[Any], None],
    cancel: Callable[[], None] | None = None,
) -> Any:
    """``fn()`` run in a thread of its own, so that a Ctrl-C reaches this thread between two
    waits, never inside a call to the JVM. On Ctrl-C: ``cancel()``, wait for ``fn`` to end, hand
    its result (if any) to ``on_interrupt``, and raise ``KeyboardInterrupt``."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    thread = threading.Thread(target=work, name="replcheck-mine", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        if cancel is not None:
            cancel()
        thread.join()
        if "value" in box:
            on_interrupt(box["value"])
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def _under_spark_submit() -> bool:
    """Was this driver started by spark-submit (which then names the master)?"""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def build_tables(results: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The rows of every table from the per-run results (sums for ``coverage``, with a zero
    row for every model action or branch of a design that no run exercised)."""
    tables: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    events: Counter[tuple[str, str]] = Counter()
    runs: Counter[tuple[str, str]] = Counter()
    accepted: Counter[tuple[str, str]] = Counter()
    designs: set[str] = set()
    for r in results:
        row = r["runs"]
        tables["runs"].append(row)
        for t in ("violations", "races", "latencies", "quarantine"):
            tables[t].extend(r[t])
        design = row["design"]
        if design == "?" or not r["coverage"]:
            continue
        designs.add(design)
        for action, n in r["coverage"].items():
            events[design, action] += n
            runs[design, action] += 1
            accepted[design, action] += row["status"] == "accepted"
    known: dict[str, set[str]] = defaultdict(set)
    for d in designs:
        try:
            known[d] = set(branches(d))
        except KeyError:
            known[d] = set()
    keys = set(events) | {(d, a) for d in designs for a in known[d]}
    for design, action in sorted(keys):
        tables["coverage"].append(
            {
                "design": design,
                "action": action,
                "kind": coverage_kind(action),
                "in_model": action in known[design],
                "events": events[design, action],
                "runs": runs[design, action],
                "accepted_runs": accepted[design, action],
            }
        )
    tables["runs"].sort(key=lambda r: r["run"])
    return tables


SCHEMAS: dict[str, list[tuple[str, str]]] = {
    "runs": [
        ("run", "string"),
        ("design", "string"),
        ("status", "string"),
        ("reason", "string"),
        ("verdict", "string"),
        ("event", "long"),
        ("matched", "long"),
        ("events", "long"),
        ("actions", "long"),
        ("search_nodes", "long"),
        ("seconds", "double"),
        ("started", "double"),
        ("faults", "string"),
        ("from_txn_log", "long"),
        ("txn_log_zxids", "long"),
        ("txn_log_writes", "long"),
        ("read", "string"),
    ],
    "violations": [
        ("run", "string"),
        ("design", "string"),
        ("property", "string"),
        ("event", "long"),
        ("line", "long"),
        ("proc", "string"),
        ("zxid", "long"),
        ("text", "string"),
        ("action", "string"),
    ],
    "coverage": [
        ("design", "string"),
        ("action", "string"),
        ("kind", "string"),
        ("in_model", "boolean"),
        ("events", "long"),
        ("runs", "long"),
        ("accepted_runs", "long"),
    ],
    "races": [
        ("run", "string"),
        ("design", "string"),
        ("claims_started", "long"),
        ("claims_won", "long"),
        ("claims_lost", "long"),
        ("max_claim_rounds", "long"),
        ("max_claimers", "long"),
        ("cleaner_retries", "long"),
        ("txns", "long"),
        ("multis", "long"),
        ("failed_multis", "long"),
    ],
    "latencies": [
        ("run", "string"),
        ("design", "string"),
        ("metric", "string"),
        ("value", "double"),
    ],
    "quarantine": [("run", "string"), ("file", "string"), ("reason", "string")],
}


def write_tables(spark: Any, tables: dict[str, list[dict[str, Any]]], out: Path) -> None:
    """Each table as Parquet (``out/<table>/``), with the declared schema even when empty."""
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    for name in TABLES:
        schema = StructType(
            [StructField(c, _parse_datatype_string(t), True) for c, t in SCHEMAS[name]]
        )
        rows = [tuple(_cell(r.get(c), t) for c, t in SCHEMAS[name]) for r in tables[name]]
        df = spark.createDataFrame(rows, schema)
        df.coalesce(1).write.mode("overwrite").parquet(str(out / name))


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "string":
        return str(value)
    if kind == "long":
        return int(value)
    if kind == "double":
        return float(value)
    return bool(value)


def summarize(
    tables: dict[str, list[dict[str, Any]]], *, planned: int, interrupted: bool
) -> dict[str, Any]:
    """What ``replcheck mine`` prints and ``summary.json`` holds: counts of runs by status and
    design, violations by property, coverage's never-exercised list, race and latency
    statistics, and the quarantine."""
    runs = tables["runs"]
    status = Counter(r["status"] for r in runs)
    by_design: dict[str, Counter[str]] = defaultdict(Counter)
    for r in runs:
        by_design[r["design"]][r["status"]] += 1
    never: dict[str, list[str]] = defaultdict(list)
    steps: dict[str, dict[str, int]] = defaultdict(lambda: {"taken": 0, "total": 0})
    for c in tables["coverage"]:
        if c["kind"] == "step branch":
            if c["in_model"]:
                steps[c["design"]]["total"] += 1
                steps[c["design"]]["taken"] += c["events"] > 0
        elif c["in_model"] and c["events"] == 0:
            never[c["design"]].append(c["action"])
    dist: dict[str, list[float]] = defaultdict(list)
    for row in tables["latencies"]:
        dist[row["metric"]].append(row["value"])
    races = tables["races"]
    return {
        "schema": SCHEMA,
        "planned": planned,
        "mined": len(runs),
        "interrupted": interrupted,
        "status": {s: status.get(s, 0) for s in ("accepted", "rejected", "undecided", "bad-input")},
        "designs": {d: dict(c) for d, c in sorted(by_design.items())},
        "events": sum(r["events"] for r in runs),
        "read": dict(Counter(r.get("read", "path") for r in runs)),
        "violations": dict(Counter(v["property"] for v in tables["violations"])),
        "never_exercised": {d: sorted(a) for d, a in sorted(never.items())},
        "step_branches": {d: dict(n) for d, n in sorted(steps.items())},
        "races": {
            k: sum(r[k] for r in races)
            for k in ("claims_started", "claims_won", "claims_lost", "failed_multis", "multis")
        },
        "latencies": {m: quantiles(v) for m, v in sorted(dist.items())},
        "quarantine": tables["quarantine"],
    }


def quantiles(values: list[float]) -> dict[str, float]:
    """count, min, median, p90, p99, max of ``values`` (nearest rank)."""
    v = sorted(values)

    def rank(q: float) -> float:
        return round(v[min(len(v) - 1, int(q * len(v)))], 4)

    return {
        "count": len(v),
        "min": round(v[0], 4),
        "p50": rank(0.5),
        "p90": rank(0.9),
        "p99": rank(0.99),
        "max": round(v[-1], 4),
    }
