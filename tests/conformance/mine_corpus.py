"""A small corpus for the mining tests: accepted runs (one of them a Parquet trace), a rejected
run, a torn trace, a file that is no trace, and a run whose ZooKeeper transaction logs fail their
checksums."""

from __future__ import annotations

import shutil
from pathlib import Path

from replcheck.conformance.trace import parquet as trace_parquet
from replcheck.conformance.trace.reader import read_trace

ROOT = Path(__file__).resolve().parents[2]
VALIDATE = ROOT / "test_data" / "validate"
REJECTED = ROOT / "test_data" / "soak" / "zk-multi-run-059-seed7059"
CORRUPT_AT = 5000
"""The byte flipped in each server's txn log (inside an entry: its checksum no longer holds)."""


def make_corpus(folder: Path) -> Path:
    """Copy the corpus into ``folder/corpus`` and return that folder."""
    corpus = folder / "corpus"
    corpus.mkdir(parents=True)
    for name in ("table-claim-lost-without-row.jsonl", "zk-lock-lost-persist"):
        src = VALIDATE / name
        if src.is_dir():
            shutil.copytree(src, corpus / name)
        else:
            shutil.copy(src, corpus / name)
    shutil.copy(REJECTED / "trace.jsonl", corpus / "rejected.jsonl")
    lines = (VALIDATE / "zk-lock-teardown-archive.jsonl").read_bytes().splitlines(keepends=True)
    (corpus / "torn.jsonl").write_bytes(b"".join(lines[:100]) + lines[100][:37])
    (corpus / "garbage.jsonl").write_bytes(b"\x00\xffnot a trace\n")
    teardown = read_trace(VALIDATE / "zk-lock-teardown-archive.jsonl").events
    trace_parquet.write(
        [{k: v for k, v in e.items() if k != "_line"} for e in teardown],
        corpus / "teardown.parquet",
    )
    bad = corpus / "corrupt-txnlog"
    shutil.copytree(VALIDATE / "zk-lock-lost-persist", bad)
    for log in sorted(bad.glob("zk-txnlog/*/log.*")):
        data = bytearray(log.read_bytes())
        data[CORRUPT_AT] ^= 0xFF
        log.write_bytes(bytes(data))
    return corpus
