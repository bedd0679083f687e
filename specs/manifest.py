"""The manifest: per design (or mutant) and standard configuration, what exhaustive exploration
must find — distinct states, transitions, depth, and the verdict of every property. Tests check
every entry, so a change to the model that changes a state space or a verdict is seen.

An entry whose correct design fails a property carries a ``finding`` (see docs/findings.md): the
verdict is pinned, not hidden.

    python -m replcheck.specs.manifest --check     # compare every entry, exit 1 on a difference
    python -m replcheck.specs.manifest --write     # recompute and rewrite the file
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from replcheck.model import DESIGNS, STANDARD, Model, get_design
from replcheck.model.registry import BUILTIN
from replcheck.specs.explore import check

PATH = Path(__file__).with_name("manifest.json")

_SYNC_BACK = (
    "A round trip DA -> STANDBY -> DA replicates DOWNGRADE_ACTIVE-era data: a server crashing "
    "during DA->S gets a BEGIN queue after REMOVE_ALL_REPLICATION_QUEUES; its claim, read during "
    "DA->S, commits after S->DA's first refresh, when the claimer's view (STANDBY, "
    "DOWNGRADE_ACTIVE) no longer refuses recovered sources. Seed 004's extra wait does not help. "
    "See docs/findings.md."
)

_SYNCUP_ABANDON = (
    "A ReplicationSyncUp run that dies part-way leaves its info file and the marker files it "
    "wrote before replicating those servers' queues; HBase's master cannot tell it from a "
    "finished run, so an operator who starts the cluster without running the tool again to its "
    "end loses the edits: REMOVE_QUEUES drops the marked servers' queues. See docs/findings.md."
)

_HFILE_ADD = (
    "A bulk load racing a new peer: preCommitStoreFile adds a reference only for the sources its "
    "server has, the new peer's source is created before the marker is written, so the marker is "
    "owed to the new peer and no reference keeps its hfile from the hfile cleaner "
    "(bulk_loaded_hfile_kept). See docs/findings.md."
)

_MIGRATE_HFILE = (
    "A 2.x bulk load's hfile during the migration: its reference is in ZooKeeper until MIGRATE's "
    "hfile-refs task, but the 3.x master's ReplicationHFileCleaner reads only hbase:replication "
    "and nothing fences it, so an archived hfile whose marker is still owed may be deleted "
    "before the reference is copied (bulk_loaded_hfile_kept). See docs/findings.md."
)

FINDINGS: dict[tuple[str, str], str] = {
    ("table", "t-migrate-hfile"): _MIGRATE_HFILE,
    ("table-doc", "t-migrate-hfile"): _MIGRATE_HFILE,
    ("table", "t-hfile-add"): _HFILE_ADD,
    ("table-doc", "t-hfile-add"): _HFILE_ADD,
    ("table-naive", "t-bootstrap"): (
        "Seed 004's 'deadlock', expected: the naive table design records every new WAL in "
        "hbase:replication before writing to it, so the table's region can never open."
    ),
    ("table", "t-sync-back"): _SYNC_BACK,
    ("table", "t-syncup-abandon"): _SYNCUP_ABANDON,
    ("table-doc", "t-syncup-abandon"): _SYNCUP_ABANDON,
    ("table-doc", "t-sync-back"): _SYNC_BACK,
    ("zk-lock", "chore"): (
        "Seed 003's cache, kept across the chore's runs as HBase 0.94's ReplicationLogCleaner "
        "keeps it, is refreshed only by a miss: a WAL found queued once is kept, with no lookup, "
        "until some other file of oldWALs misses the cache, so once no new WAL is archived it "
        "is kept for ever (unneeded_wals_deleted). See docs/findings.md."
    ),
    ("zk-lock", "double-failure"): (
        "The seeds' lock-and-copy claim is not safe when the claimer dies mid-claim: once the lock "
        "of the dead claimer is cleaned (HBASE-16144's fix), a second survivor copies the same "
        "queue again, so two sources replicate one WAL (HBASE-12241). See docs/findings.md."
    ),
}


def targets() -> list[tuple[str, str]]:
    """Every (design, config) the manifest pins: each registered design and mutant under each of
    its configurations."""
    return [(name, c) for name, cls in DESIGNS.items() if name in BUILTIN for c in cls.configs]


def compute(name: str, config: str) -> dict[str, object]:
    model = Model(get_design(name), STANDARD[config])
    result = check(model)
    entry: dict[str, object] = {
        "design": name,
        "config": config,
        "mode": "explore+symmetry",
        "states": result.stats["states"],
        "transitions": result.stats["transitions"],
        "depth": result.stats["depth"],
        "complete": result.stats["complete"],
        "verdicts": result.verdicts,
        "counterexample_lengths": {p: c.length for p, c in result.counterexamples.items()},
    }
    if (name, config) in FINDINGS:
        entry["finding"] = FINDINGS[(name, config)]
    return entry


def _compute(args: tuple[str, str]) -> dict[str, object]:
    return compute(*args)


def compute_all(jobs: int = 2) -> list[dict[str, object]]:
    todo = targets()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_compute, todo))


def load() -> list[dict[str, object]]:
    return json.loads(PATH.read_text())["entries"]


def write(entries: list[dict[str, object]]) -> None:
    doc = {
        "about": "Pinned results of exhaustive exploration; see specs/manifest.py.",
        "entries": entries,
    }
    PATH.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def compare(pinned: dict[str, object], got: dict[str, object]) -> list[str]:
    """What differs between a pinned entry and a fresh run (empty when they agree)."""
    keys = ("states", "transitions", "depth", "complete", "verdicts", "counterexample_lengths")
    return [
        f"{k}: pinned {pinned.get(k)!r}, got {got.get(k)!r}"
        for k in keys
        if pinned.get(k) != got.get(k)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m replcheck.specs.manifest")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="recompute and rewrite the manifest")
    mode.add_argument(
        "--check", action="store_true", help="compare every entry, exit 1 if any differs"
    )
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    entries = compute_all(args.jobs)
    if args.write:
        write(entries)
        print(f"wrote {len(entries)} entries to {PATH.name}")
        return 0
    pinned = {(e["design"], e["config"]): e for e in load()}
    bad = 0
    for got in entries:
        key = (got["design"], got["config"])
        diff = compare(pinned[key], got) if key in pinned else ["not in the manifest"]
        for line in diff:
            bad += 1
            print(f"{key[0]}@{key[1]}: {line}")
    for key in pinned.keys() - {(e["design"], e["config"]) for e in entries}:
        bad += 1
        print(f"{key[0]}@{key[1]}: pinned but no longer a target")
    print("manifest agrees" if not bad else f"{bad} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
