"""``replcheck mine`` on a real local Spark (``local[2]``): for every run of a small corpus
(accepted runs, a rejected run, a torn trace, a file that is no trace, a run whose ZooKeeper
logs fail their checksums) the ``runs`` table says exactly what ``replcheck validate`` says
for that run alone, and the job mines every other run past the corrupt ones."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mine_corpus import make_corpus

from replcheck.cli import main

pytestmark = pytest.mark.spark

FIELDS = ("design", "status", "reason", "event", "matched", "events", "actions")


def validate_alone(path: str, capsys: pytest.CaptureFixture[str]) -> dict:
    """What ``replcheck validate --json PATH`` reports."""
    main(["validate", "--json", path])
    return json.loads(capsys.readouterr().out)[0]


def read_table(out: Path, name: str) -> list[dict]:
    """A Parquet table the job wrote, read back with Spark."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    )
    try:
        return [r.asDict() for r in spark.read.parquet(str(out / name)).collect()]
    finally:
        spark.stop()


def test_mining_agrees_with_validating_each_run_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = make_corpus(tmp_path)
    # a name Hadoop would read as a list and a glob: read by path in the executor instead
    odd = corpus / "odd,name[1].jsonl"
    odd.write_bytes((corpus / "table-claim-lost-without-row.jsonl").read_bytes())
    out = tmp_path / "out"
    code = main(["mine", str(corpus), "--master", "local[2]", "--out", str(out), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 2  # corrupt inputs are bad input, never a pass
    # the driver's import path keeps nothing the stopped context deleted (the zip it shipped)
    assert [p for p in sys.path if "userFiles-" in p] == []
    assert summary["planned"] == summary["mined"] == 8
    assert summary["interrupted"] is False

    runs = {r["run"]: r for r in read_table(out, "runs")}
    assert len(runs) == 8
    statuses = set()
    for path, row in runs.items():
        want = validate_alone(path, capsys)
        assert row["verdict"] == want["verdict"], path
        for f in FIELDS:
            assert row[f] == want[f], (path, f)
        statuses.add(row["status"])
    assert {"accepted", "rejected", "bad-input"} <= statuses
    # Spark read every unit's files as binary files, and the executors parsed them
    assert {p for p, r in runs.items() if r["read"] != "binary files"} == {str(odd)}
    assert summary["read"] == {"binary files": 7, "path": 1}
    assert runs[str(odd)]["status"] == "accepted"
    assert runs[str(corpus / "teardown.parquet")]["status"] == "accepted"

    # Each rejection is a violation row with its property and first diverging event.
    violations = read_table(out, "violations")
    rejected = {p for p, r in runs.items() if r["status"] == "rejected"}
    assert {v["run"] for v in violations} == rejected
    for v in violations:
        assert v["property"] == runs[v["run"]]["reason"]
        assert v["event"] == runs[v["run"]]["event"]

    # The corrupt inputs are quarantined with file:line or file:byte offset; the others mined.
    quarantine = read_table(out, "quarantine")
    reasons = " | ".join(q["reason"] for q in quarantine)
    assert "torn.jsonl:101:" in reasons
    assert "garbage.jsonl" in reasons
    assert reasons.count("bad checksum") == 1 and ": byte " in reasons  # the run, once

    # Coverage names what no run took, and the summary lists it.
    coverage = read_table(out, "coverage")
    zero = [c for c in coverage if c["in_model"] and c["events"] == 0]
    never = {(c["design"], c["action"]) for c in zero if c["kind"] != "step branch"}
    assert never
    assert {(d, a) for d, acts in summary["never_exercised"].items() for a in acts} == never
    # and the branches of the model's steps, taken or not, per design
    steps = [c for c in coverage if c["kind"] == "step branch" and c["in_model"]]
    for design, count in summary["step_branches"].items():
        mine = [c for c in steps if c["design"] == design]
        assert count == {"taken": sum(c["events"] > 0 for c in mine), "total": len(mine)}
        assert 0 < count["taken"] < count["total"]
    assert summary["latencies"]["failover_s"]["count"] > 0
    page = (out / "index.html").read_text()
    assert page.count("<svg") >= 4 and "branches of each action&#x27;s step taken" in page
