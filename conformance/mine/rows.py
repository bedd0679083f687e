"""Mining recorded runs: what one run says, as rows of the mining tables (docs/mine.md).

``mine_run(path)`` is the unit of work of ``replcheck mine``: it judges one run with
``validate.validate_path`` (the one definition of every rule; mining reports exactly what
``replcheck validate PATH`` reports) and reads from the same run the statistics a verdict does not
hold: which model actions its events took (coverage), how its claims raced, how long its
failovers took, how old shipped edits were and how long the queues grew. It never raises: an input
that cannot be read is a ``bad-input`` run, quarantined with its reason and file:offset, and the
other runs go on.

``discover(paths)`` turns the command line's paths into units: a run folder (one holding
``trace.jsonl`` or ``trace.parquet``), a trace file (``*.jsonl``, ``*.parquet``), a raw ZooKeeper
data directory (``log.<zxid>`` files, in it or in its ``version-2``), or a folder of any of these
(searched recursively).
"""

from __future__ import annotations

import os
import traceback
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

SCHEMA = "replcheck-mine/1"
TRACE_SUFFIXES = (".jsonl", ".parquet")
"""Trace files: JSON lines, or Parquet (``trace_parquet``)."""

CLAIM_STARTS = ("claim_read", "lock", "arqp_claim")
"""Events that start a claim of a dead server's queues (zk-multi, zk-lock, table)."""
CLAIM_WINS = ("claim_commit", "finish_claim", "arqp_claim")
"""Events that record a claim taken: its queues have their new owner."""
FAILOVER_DONE = ("scp_finish", "finish_claim", "arqp_claim")
"""Events, each naming the dead server (``args.dead``), after which its queues are claimed."""


FAULT_ACTIONS = {"master-restart": "master_restart"}
"""Faults recorded as context events that the mapping matches with a model action."""


def discover(paths: list[str]) -> list[dict[str, str]]:
    """The units of work for ``paths``, in order: ``{"path", "kind"}`` with kind ``run`` (a
    trace file or a run folder), ``zkdata`` (a ZooKeeper data directory without a trace) or
    ``missing`` (a path that does not exist: mined as a bad-input run, as validate reports it)."""
    units: list[dict[str, str]] = []
    for text in paths:
        _discover(Path(text), units, depth=0)
    return units


def _discover(path: Path, units: list[dict[str, str]], *, depth: int) -> None:
    """A path named on the command line is a unit whatever it holds (validate says what is wrong
    with it); in a folder, loose ``*.jsonl`` traces count only directly in the named folder."""
    top = depth == 0
    if path.is_file():
        if top or (depth == 1 and path.suffix in TRACE_SUFFIXES):
            units.append({"path": str(path), "kind": "run"})
        return
    if not path.is_dir():
        units.append({"path": str(path), "kind": "missing"})
        return
    if any((path / f"trace{suffix}").exists() for suffix in TRACE_SUFFIXES):
        units.append({"path": str(path), "kind": "run"})
        return
    if _is_zk_data(path):
        units.append({"path": str(path), "kind": "zkdata"})
        return
    try:
        children = sorted(os.scandir(path), key=lambda d: d.name)
    except OSError:
        units.append({"path": str(path), "kind": "run"})  # validate says why it cannot read it
        return
    found = len(units)
    for child in children:
        if child.is_dir() or child.name.endswith(TRACE_SUFFIXES):
            _discover(Path(child.path), units, depth=depth + 1)
    if top and len(units) == found:
        units.append({"path": str(path), "kind": "run"})  # nothing to mine: validate says so


def _is_zk_data(path: Path) -> bool:
    for cand in (path, path / "version-2"):
        if cand.is_dir() and any(n.startswith("log.") for n in os.listdir(cand)):
            return True
    return False


def mine_run(unit: dict[str, str]) -> dict[str, Any]:
    """Every row one unit contributes to the mining tables (see ``empty_result``). Never
    raises: an unexpected error is quarantined with its reason, like a corrupt input."""
    if ".zip" + os.sep in __file__:
        try:
            return _unpacked().mine_run(unit)
        except Exception as exc:
            out = empty_result(unit["path"])
            reason = f"{unit['path']}: cannot unpack the shipped project: {exc}"
            out["runs"].update(reason=reason, verdict=f"bad input: {reason}")
            out["quarantine"] = [{"run": unit["path"], "file": __file__, "reason": reason}]
            return out
    path = unit["path"]
    out = empty_result(path)
    try:
        _mine_trace(Path(path), out, zk_data=unit.get("kind") == "zkdata")
    except Exception as exc:  # the per-run function never raises (docs/mine.md)
        where = traceback.extract_tb(exc.__traceback__)[-1]
        reason = f"{path}: internal error {type(exc).__name__}: {exc} (at {where.name})"
        out["runs"].update(status="bad-input", reason=reason, verdict=f"bad input: {reason}")
        out["quarantine"] = [{"run": path, "file": path, "reason": reason}]
    return out


_UNPACKED: list[Any] = []


def _unpacked() -> Any:
    """This module, imported from the shipped zip unpacked to a folder of its own. Spark ships
    the project as a zip (``--py-files``); the project reads files that sit beside its code
    (the trace schema), which a zip on ``sys.path`` cannot give, so each executor unpacks it
    once (to a folder of the temporary directory named by the zip's content, so jobs shipping the
    same code share it) and imports the project from there."""
    if _UNPACKED:
        return _UNPACKED[0]
    import hashlib
    import importlib
    import sys
    import tempfile
    import zipfile

    archive = __file__[: __file__.index(".zip" + os.sep) + 4]
    with open(archive, "rb") as f:  # by content: every job shipping the same code shares it
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    dest = Path(tempfile.gettempdir()) / f"replcheck-mine-{key}"
    if not dest.is_dir():
        part = Path(tempfile.mkdtemp(prefix="replcheck-mine-part-"))
        with zipfile.ZipFile(archive) as z:
            z.extractall(part)
        try:
            part.rename(dest)
        except OSError:  # another worker process unpacked it first
            import shutil

            shutil.rmtree(part, ignore_errors=True)
    for name in [m for m in sys.modules if m == "replcheck" or m.startswith("replcheck.")]:
        del sys.modules[name]
    sys.path.insert(0, str(dest))
    module = importlib.import_module("replcheck.conformance.mine.rows")
    if ".zip" + os.sep in (module.__file__ or ""):
        raise ImportError(f"{dest}: the unpacked project was not imported")
    _UNPACKED.append(module)
    return module


def empty_result(path: str) -> dict[str, Any]:
    """The shape of ``mine_run``'s answer: one ``runs`` row, and lists of the other tables'
    rows (``coverage``: action -> events; the driver adds the zero rows)."""
    return {
        "runs": {
            "run": path,
            "design": "?",
            "status": "bad-input",
            "reason": "",
            "verdict": "",
            "event": None,
            "matched": 0,
            "events": 0,
            "actions": 0,
            "search_nodes": 0,
            "seconds": 0.0,
            "started": None,
            "faults": "",
            "from_txn_log": 0,
            "txn_log_zxids": None,
            "txn_log_writes": None,
            "read": "path",
        },
        "violations": [],
        "coverage": {},
        "races": [],
        "latencies": [],
        "quarantine": [],
    }


def _mine_trace(path: Path, out: dict[str, Any], *, zk_data: bool = False) -> None:
    from replcheck.conformance.trace.reader import TraceFault, read_trace
    from replcheck.conformance.validate.core import validate_log, validate_path

    v = validate_log(path) if zk_data else validate_path(path)
    row = out["runs"]
    row.update(
        run=v.path,
        design=v.design,
        status=v.status,
        reason=v.reason,
        verdict=v.headline(),
        event=v.event,
        matched=v.matched,
        events=v.events,
        actions=v.actions,
        search_nodes=v.nodes,
        seconds=round(v.seconds, 3),
        from_txn_log=int(v.detail.get("from_txn_log", 0)),
    )
    row["txn_log_writes"], row["txn_log_zxids"] = v.detail.get("txn_log_checked", [None, None])
    if v.status == "bad-input":
        out["quarantine"].append({"run": v.path, "file": _file_of(v.reason), "reason": v.reason})
        return  # no statistics from a quarantined run
    if v.status == "rejected":
        d = v.detail
        out["violations"].append(
            {
                "run": v.path,
                "design": v.design,
                "property": v.reason,
                "event": v.event,
                "line": d.get("event_line"),
                "proc": d.get("proc"),
                "zxid": d.get("zxid"),
                "text": d.get("event_text"),
                "action": d.get("action"),
            }
        )
    if zk_data:
        _mine_zk_data(path, v, out)
        return
    try:
        trace = read_trace(path)
    except TraceFault:
        return  # the verdict already says why: no statistics from an unreadable trace
    events = trace.events
    run = str(trace.path)
    if events:
        row["started"] = float(events[0].get("t", 0.0))
    faults = Counter(
        str((e.get("detail") or {}).get("fault")) for e in events if e["name"] == "fault"
    )
    row["faults"] = ",".join(f"{k}={n}" for k, n in sorted(faults.items()))
    out["coverage"] = coverage(v.design, events, v.behaviour)
    if v.behaviour and v.model is not None:
        from replcheck.conformance.mine.branch_cov import exercised

        out["coverage"].update(exercised(v.design, v.model, v.behaviour))
    race = races(run, v.design, events)
    folder = Path(trace.path).parent
    if (folder / "zk-txnlog").is_dir():
        _txn_stats(folder / "zk-txnlog", race, out)
    out["races"].append(race)
    out["latencies"].extend(latencies(run, v.design, events))


def _file_of(reason: str) -> str:
    """The file a bad-input reason names (its text up to the first ``:``)."""
    return reason.split(":", 1)[0] if ":" in reason else reason


def coverage(
    design: str, events: list[dict[str, Any]], behaviour: list[Any] | None = None
) -> dict[str, int]:
    """Per model action of ``design``, its steps in ``behaviour`` (the behaviour validation found,
    or its longest matched prefix: the steps no event names, a composition's, a zombie's, a
    hidden one's, counted as taken); without one, the action events that name it (names the
    design has no action for are counted under ``(unmapped) NAME``; a fault the mapping matches
    with a model action counts as that action, ``FAULT_ACTIONS``). And the branches that name an
    alternative: a claim that lost (``claim_failed``), a cleaner pass that retried
    (``cleaner_finish[retry]``)."""
    from replcheck.model import DESIGNS

    kinds = _kinds(design) if design in DESIGNS else set()
    counts: Counter[str] = Counter(a.name for a in behaviour or ())
    for e in events:
        fault = (e.get("detail") or {}).get("fault") if e["name"] == "fault" else None
        if fault in FAULT_ACTIONS and FAULT_ACTIONS[fault] in kinds:
            if not behaviour:  # a fault the mapping matches with a model action
                counts[FAULT_ACTIONS[fault]] += 1
            continue
        if e["kind"] != "action" and e["name"] != "unmodelled":
            continue
        name = e["name"]
        if name == "unmodelled":
            name = str((e.get("detail") or {}).get("action", "?"))
            counts[f"(unmodelled) {name}"] += 1
            continue
        if name not in kinds:
            counts[f"(unmapped) {name}"] += 1
        elif not behaviour:
            counts[name] += 1
        retry = (e.get("detail") or {}).get("retry")
        if name == "cleaner_finish" and retry is not None:
            counts[f"cleaner_finish[retry={bool(retry)}]"] += 1
    return dict(counts)


def coverage_kind(key: str) -> str:
    """What a coverage key counts: a model ``action``, a ``recorded branch`` (one the events
    name, ``cleaner_finish[retry=True]``) or a ``step branch`` (``branch_cov``: a way the model's
    step went, ``claim_commit[zk/multi.py:91 then: ...]``)."""
    if "[" not in key:
        return "action"
    return "step branch" if ".py:" in key else "recorded branch"


def _kinds(design: str) -> set[str]:
    from replcheck.model import get_design

    return {k.name for k in get_design(design).kinds}


def branches(design: str) -> list[str]:
    """Every coverage key a run of ``design`` can exercise: its model actions, the recorded
    branches ``coverage`` counts, and the branches of the model's steps (``branch_cov``): the
    zero rows of the coverage table."""
    from replcheck.conformance.mine.branch_cov import names

    kinds = sorted(_kinds(design))
    extra = []
    if "cleaner_finish" in kinds:
        extra = ["cleaner_finish[retry=False]", "cleaner_finish[retry=True]"]
    return kinds + extra + names(design)


def races(run: str, design: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    """How the run's claims raced: claims started and won, claims that lost their race, the
    most claim rounds one dead server took, the most claimers one dead server had, and cleaner
    passes that retried."""
    started: Counter[int] = Counter()
    claimers: dict[int, set[int]] = defaultdict(set)
    won = lost = retries = 0
    for e in events:
        a = e.get("args") or {}
        name = e["name"]
        dead = a.get("dead")
        if name in CLAIM_STARTS and isinstance(dead, int):
            started[dead] += 1
            if isinstance(a.get("server"), int):
                claimers[dead].add(a["server"])
        if name in CLAIM_WINS and e["kind"] == "action":
            won += 1
        if name == "claim_failed":
            lost += 1
        if name == "cleaner_finish" and (e.get("detail") or {}).get("retry"):
            retries += 1
    return {
        "run": run,
        "design": design,
        "claims_started": sum(started.values()),
        "claims_won": won,
        "claims_lost": lost,
        "max_claim_rounds": max(started.values(), default=0),
        "max_claimers": max((len(s) for s in claimers.values()), default=0),
        "cleaner_retries": retries,
        "txns": 0,
        "multis": 0,
        "failed_multis": 0,
    }


def _txn_stats(folder: Path, race: dict[str, Any], out: dict[str, Any]) -> None:
    """Transactions, multis and failed multis in a run's ZooKeeper transaction logs (the first
    server's logs that read: every server logs the same transactions). A log that cannot be
    read is quarantined with its file and offset; the verdict and the other rows stand."""
    from replcheck.conformance.zookeeper.records import MultiTxn
    from replcheck.conformance.zookeeper.txnlog import ZkLogError

    servers = sorted(p for p in folder.iterdir() if p.is_dir()) or [folder]
    for server in servers:
        txns = multis = failed = 0
        try:
            for t in _read_logs(server):
                txns += 1
                if isinstance(t.record, MultiTxn):
                    multis += 1
                    failed += int(t.record.failed)
        except ZkLogError as exc:
            out["quarantine"].append({"run": race["run"], "file": str(server), "reason": str(exc)})
            continue
        race.update(txns=txns, multis=multis, failed_multis=failed)
        return


def _read_logs(folder: Path) -> Any:
    from replcheck.conformance.zookeeper.txnlog import read_logs

    return read_logs(folder)


def _mine_zk_data(path: Path, v: Any, out: dict[str, Any]) -> None:
    """A raw ZooKeeper data directory: judged from its transaction logs alone (``validate
    --zk-logs``, the design HBase 2.x runs); its coverage is the model actions of the behaviour
    found (or of the longest matched prefix) and their step branches; its transactions, multis
    and failed multis are counted (``races``)."""
    out["coverage"] = dict(Counter(a.name for a in v.behaviour))
    if v.behaviour and v.model is not None:
        from replcheck.conformance.mine.branch_cov import exercised

        out["coverage"].update(exercised(v.design, v.model, v.behaviour))
    race = races(str(path), v.design, [])
    _txn_stats(path, race, out)
    out["races"].append(race)


def latencies(run: str, design: str, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Distributions, one row per sample (``metric``, ``value``):

    * ``failover_s``: from a server's crash to the event after which its queues are claimed
      (``FAILOVER_DONE`` naming it); a crash never followed by one is ``failover_unclaimed``
      (value 1) instead;
    * ``ship_age_s``: at each batch shipped, the age of its last edit (ship time minus put time);
    * ``queue_length``: at each batch shipped, the edits its server wrote and no source of it
      has shipped yet (the server's replication backlog)."""
    rows: list[dict[str, Any]] = []

    def sample(metric: str, value: float) -> None:
        rows.append({"run": run, "design": design, "metric": metric, "value": float(value)})

    crashes: list[tuple[int, float]] = []
    done: dict[int, list[float]] = defaultdict(list)
    put_at: dict[str, float] = {}
    written: Counter[str] = Counter()
    shipped: dict[str, set[str]] = defaultdict(set)
    for e in events:
        a = e.get("args") or {}
        d = e.get("detail") or {}
        t = float(e.get("t", 0.0))
        name = e["name"]
        if name == "crash" and isinstance(a.get("server"), int):
            crashes.append((a["server"], t))
        elif name in FAILOVER_DONE and isinstance(a.get("dead"), int):
            done[a["dead"]].append(t)
        elif name == "put" and isinstance(d.get("uid"), str):
            put_at[d["uid"]] = t
            written[e["proc"]] += 1
        elif name == "ship" and e["kind"] == "action":
            uids = [u for u in d.get("uids") or [] if isinstance(u, str)]
            for u in uids:
                shipped[e["proc"]].add(u)
            if uids and uids[-1] in put_at:
                sample("ship_age_s", t - put_at[uids[-1]])
            sample("queue_length", max(written[e["proc"]] - len(shipped[e["proc"]]), 0))
    for server, t in crashes:
        after = [x for x in done.get(server, []) if x >= t]
        if after:
            sample("failover_s", min(after) - t)
        else:
            sample("failover_unclaimed", 1.0)
    return rows
