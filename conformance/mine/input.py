"""The mining job's inputs read as Spark binary files and parsed in the executors.

The driver only lists which files each unit needs (``unit_files``): a run's trace (JSON lines
or Parquet) and the ZooKeeper transaction logs ``validate`` reads beside it, or a ZooKeeper data
directory's logs. Spark reads their bytes (``SparkContext.binaryFiles``, so any file system
Hadoop reads will do), groups them by unit, and the executor that gets a unit lays its files out
as they were (in a temporary folder of its own) and runs ``mine.mine_run`` on them: the same
reading and the same verdict as ``replcheck validate`` of the original path, whose name every
row and reason carries (``_renamed``).

A unit Spark cannot be asked for by name is read by path in the executor instead, as before:
a path that does not exist or cannot be read (so that the job goes on and the run is
quarantined with validate's reason, instead of Spark failing the job), and a path with a
character Hadoop reads as a glob or a list (``,{}[]*?\\``) or that it cannot hold (``:``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from replcheck.conformance.mine.rows import mine_run

HADOOP_UNSAFE = frozenset(",{}[]*?\\:")
TXN_LOGS = "zk-txnlog"


def unit_files(unit: dict[str, str]) -> dict[str, Any] | None:
    """What Spark must read for ``unit``: ``{"root", "files", "unit"}``, the folder the files
    are laid out under again, their paths, and the unit's path relative to that folder; or
    None when the unit is to be read by path (see the module docstring)."""
    from replcheck.conformance.trace.reader import TraceFault, trace_path

    path = Path(unit["path"])
    try:
        if unit["kind"] == "zkdata":
            root, rel, tree = path, ".", path
            found, dirs = _tree(tree)
            files = [p for p in found if p.name.startswith("log.")]
        elif unit["kind"] == "run":
            trace = trace_path(path)
            root = path if path.is_dir() else path.parent
            rel = "." if path.is_dir() else path.name
            tree = trace.parent / TXN_LOGS
            found, dirs = _tree(tree)
            files = [trace, *found]
        else:
            return None
    except (TraceFault, OSError):
        return None
    if not files or not all(_nameable(f) and os.access(f, os.R_OK) for f in files):
        return None
    return {
        "root": str(root),
        "files": [str(f) for f in files],
        "dirs": [os.path.relpath(d, root) for d in dirs],
        "unit": rel,
    }


def _tree(folder: Path) -> tuple[list[Path], list[Path]]:
    """The files under ``folder``, and the folders (itself included), in one walk: the folders
    too, so that a unit is laid out again with the same tree (a data directory's server
    folders, an empty log folder). Nothing when ``folder`` is not one."""
    if not folder.is_dir():
        return [], []
    files, dirs = [], [folder]
    for p in sorted(folder.rglob("*")):
        (dirs if p.is_dir() else files if p.is_file() else []).append(p)
    return files, dirs


def _nameable(path: Path) -> bool:
    return not (HADOOP_UNSAFE & set(os.path.abspath(path)))


def key(uri_or_path: str) -> str:
    """One name for a file, from the driver's path or from the URI Spark gives back."""
    if "://" in uri_or_path or uri_or_path.startswith("file:"):
        uri_or_path = unquote(urlparse(uri_or_path).path)
    return os.path.normpath(os.path.abspath(uri_or_path))


def mine_wave(sc: Any, wave: list[dict[str, str]], partitions: int) -> list[dict[str, Any]]:
    """Mine one wave of units; results in the wave's order."""
    plans = [unit_files(u) for u in wave]
    owner = {key(f): i for i, p in enumerate(plans) if p for f in p["files"]}
    jobs = []
    if owner:
        files = sorted({f for p in plans if p for f in p["files"]})
        units = {i: (wave[i], p) for i, p in enumerate(plans) if p}
        jobs.append(
            sc.binaryFiles(",".join(files), minPartitions=partitions)
            .map(lambda kv: (owner.get(key(kv[0]), -1), (kv[0], kv[1])))
            .groupByKey(partitions)
            .map(lambda kv: (kv[0], mine_bytes(*units.get(kv[0], ({}, {})), kv[1])))
        )
    by_path = [(i, u) for i, (u, p) in enumerate(zip(wave, plans, strict=True)) if not p]
    if by_path:
        jobs.append(sc.parallelize(by_path, min(partitions, len(by_path))).mapValues(mine_run))
    got = dict(sc.union(jobs).collect() if len(jobs) > 1 else jobs[0].collect())
    return [got[i] if i in got else _undelivered(wave[i]) for i in range(len(wave))]


def mine_bytes(
    unit: dict[str, str], plan: dict[str, Any], files: Iterable[tuple[str, bytes]]
) -> dict[str, Any]:
    """Lay ``files`` (URI, bytes) out again under a temporary folder, mine the unit there, and
    give every path back its original name. Never raises (``mine_run``'s promise)."""
    if not unit:
        return _undelivered({"path": "?"}, "a file Spark read belongs to no unit")
    got = {key(uri): data for uri, data in files}
    wanted = {f: key(f) for f in plan["files"]}
    missing = [f for f, k in wanted.items() if k not in got]
    if missing:
        return _undelivered(unit, f"{missing[0]}: Spark did not deliver it")
    root = key(plan["root"])
    with tempfile.TemporaryDirectory(prefix="replcheck-unit-") as tmp:
        base = Path(tmp) / "unit"
        for d in plan["dirs"]:
            (base / d).mkdir(parents=True, exist_ok=True)
        for k in wanted.values():
            dest = base / os.path.relpath(k, root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(got[k])
        path = base if plan["unit"] == "." else base / plan["unit"]
        out = mine_run({"path": str(path), "kind": unit["kind"]})
    out["runs"]["read"] = "binary files"
    return _renamed(out, str(base), str(Path(plan["root"])))


def _renamed(value: Any, base: str, root: str) -> Any:
    """``value`` with the temporary folder ``base`` named ``root`` again (as the unit's path was
    given: ``runs/run-001``, or nothing for a trace file in the working folder)."""
    if isinstance(value, str):
        prefix = "" if root == "." else root + os.sep
        return value.replace(base + os.sep, prefix).replace(base, root)
    if isinstance(value, dict):
        return {k: _renamed(v, base, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, base, root) for v in value]
    return value


def _undelivered(unit: dict[str, str], why: str = "no result came back") -> dict[str, Any]:
    from replcheck.conformance.mine.rows import empty_result

    out = empty_result(unit["path"])
    reason = f"{unit['path']}: {why}"
    out["runs"].update(reason=reason, verdict=f"bad input: {reason}")
    out["quarantine"] = [{"run": unit["path"], "file": unit["path"], "reason": reason}]
    return out
