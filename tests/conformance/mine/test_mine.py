"""``conformance.mine``: the per-run function of ``replcheck mine``, without Spark: it gives
validate's verdict, never raises, quarantines corrupt input with its file and offset, and its
statistics count what the trace records."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from mine_corpus import CORRUPT_AT, VALIDATE, make_corpus
from replcheck.conformance.mine.html import render_html
from replcheck.conformance.mine.job import build_tables, package_zip, summarize
from replcheck.conformance.mine.rows import branches, coverage, discover, latencies, mine_run, races
from replcheck.conformance.validate.core import validate_log, validate_path


def test_discover_finds_runs_traces_and_zookeeper_folders(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path)
    zk = tmp_path / "zkdata"
    (zk / "version-2").mkdir(parents=True)
    log = next((corpus / "zk-lock-lost-persist").glob("zk-txnlog/*/log.*"))
    (zk / "version-2" / log.name).write_bytes(log.read_bytes())
    units = discover([str(corpus), str(zk), str(tmp_path / "missing")])
    kinds = {Path(u["path"]).name: u["kind"] for u in units}
    assert kinds == {
        "corrupt-txnlog": "run",
        "garbage.jsonl": "run",
        "rejected.jsonl": "run",
        "teardown.parquet": "run",
        "table-claim-lost-without-row.jsonl": "run",
        "torn.jsonl": "run",
        "zk-lock-lost-persist": "run",
        "zkdata": "zkdata",
        "missing": "missing",
    }
    # A run folder is one unit: the files inside it are not traces of their own.
    assert not any("zk-txnlog" in u["path"] for u in units)


def test_every_unit_gets_the_verdict_validate_gives_it(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path)
    for unit in discover([str(corpus), str(tmp_path / "missing")]):
        got = mine_run(unit)["runs"]
        want = validate_path(Path(unit["path"]))
        assert (got["run"], got["status"], got["reason"], got["event"]) == (
            want.path,
            want.status,
            want.reason,
            want.event,
        ), unit
        assert got["verdict"] == want.headline()
        checked = want.detail.get("txn_log_checked")  # held against the run's txn logs
        assert [got["txn_log_writes"], got["txn_log_zxids"]] == (checked or [None, None])
        assert (got["events"], got["actions"], got["matched"]) == (
            want.events,
            want.actions,
            want.matched,
        )


def test_corrupt_inputs_are_quarantined_with_file_and_offset(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path)
    torn = mine_run({"path": str(corpus / "torn.jsonl"), "kind": "run"})
    assert torn["runs"]["status"] == "bad-input"
    assert torn["quarantine"][0]["reason"].startswith(f"{corpus / 'torn.jsonl'}:101:")
    assert torn["races"] == [] and torn["latencies"] == [] and torn["coverage"] == {}

    corrupt = mine_run({"path": str(corpus / "corrupt-txnlog"), "kind": "run"})
    # A damaged log is bad input for the whole run, as validate has it: quarantined once, with
    # the first damaged copy's file and offset, and no verdict on the system.
    (r,) = [q["reason"] for q in corrupt["quarantine"]]
    assert "zk-txnlog/server" in r and "bad checksum" in r
    offset = int(r.split(": byte ")[1].split(":")[0])
    assert offset <= CORRUPT_AT  # the entry holding the flipped byte
    assert corrupt["runs"]["status"] == "bad-input"
    assert validate_path(corpus / "corrupt-txnlog").status == "bad-input"


def test_the_per_run_function_never_raises(tmp_path: Path) -> None:
    unreadable = tmp_path / "locked"
    unreadable.mkdir()
    (unreadable / "trace.jsonl").write_text("{}\n")
    os.chmod(unreadable / "trace.jsonl", 0)
    cases = [
        {"path": str(tmp_path / "nowhere"), "kind": "missing"},
        {"path": str(unreadable), "kind": "run"},
        {"path": str(tmp_path), "kind": "zkdata"},  # no logs at all
        {"path": str(VALIDATE / "README.md"), "kind": "run"},
    ]
    try:
        for unit in cases:
            out = mine_run(unit)
            if os.geteuid() == 0 and unit["path"] == str(unreadable):
                continue  # root reads it anyway
            assert out["runs"]["status"] in ("bad-input", "undecided"), unit
            assert out["runs"]["status"] != "bad-input" or out["quarantine"], unit
    finally:
        os.chmod(unreadable / "trace.jsonl", 0o644)


def _event(name: str, t: float, kind: str = "action", proc: str = "rs-a", **kw: object) -> dict:
    return {
        "name": name,
        "kind": kind,
        "proc": proc,
        "t": t,
        "zxid": None,
        "args": kw.pop("args", {}),
        "detail": kw.pop("detail", {}),
    }


def test_statistics_count_what_the_events_record() -> None:
    events = [
        _event("put", 1.0, detail={"uid": "u1"}),
        _event("put", 1.5, detail={"uid": "u2"}),
        _event("ship", 2.0, args={"server": 0}, detail={"uids": ["u1"]}),
        _event("crash", 3.0, proc="driver", args={"server": 0}),
        _event("lock", 3.5, proc="rs-b", args={"dead": 0, "server": 1}),
        _event("lock", 3.6, proc="rs-c", args={"dead": 0, "server": 2}),
        _event("finish_claim", 4.25, proc="rs-b", args={"dead": 0, "server": 1}),
        _event("crash", 5.0, proc="driver", args={"server": 1}),
    ]
    rows = latencies("r", "zk-lock", events)
    by = {(r["metric"], r["value"]) for r in rows}
    assert ("ship_age_s", 1.0) in by  # u1 put at 1.0, shipped at 2.0
    assert ("queue_length", 1.0) in by  # u2 written, not shipped
    assert ("failover_s", 1.25) in by  # crash at 3.0, claimed at 4.25
    assert ("failover_unclaimed", 1.0) in by  # server 1 was never claimed
    race = races("r", "zk-lock", events)
    assert race["claims_started"] == 2 and race["max_claimers"] == 2
    assert race["claims_won"] == 1 and race["max_claim_rounds"] == 2
    restart = _event("fault", 6.5, kind="meta", proc="driver", detail={"fault": "master-restart"})
    cov = coverage("zk-lock", [*events, _event("bogus", 6.0), restart])
    assert cov["lock"] == 2 and cov["(unmapped) bogus"] == 1 and cov["master_restart"] == 1
    assert "crash" in cov and "fault" not in cov


def test_coverage_counts_the_steps_of_the_behaviour_found() -> None:
    """A model step no event names (an edit coming home applied twice: ``relay_apply``, matched
    from a ``relay_home`` line) is exercised; each model action counts its steps in the
    behaviour, as many as validation took."""
    run = VALIDATE / "zk-multi-relay-sent-again-after-restart"
    got = mine_run({"path": str(run / "trace.jsonl")})["coverage"]
    want = validate_path(run)
    steps = Counter(a.name for a in want.behaviour)
    assert got["relay_apply"] == steps["relay_apply"] == 1
    assert {k: got[k] for k in steps} == dict(steps)


def test_coverage_has_a_zero_row_for_every_action_never_taken(tmp_path: Path) -> None:
    results = [mine_run({"path": str(VALIDATE / "zk-lock-teardown-archive.jsonl")})]
    tables = build_tables(results)
    rows = {r["action"]: r for r in tables["coverage"] if r["design"] == "zk-lock"}
    assert set(branches("zk-lock")) <= set(rows)
    never = {a for a, r in rows.items() if r["in_model"] and r["events"] == 0}
    taken = set(results[0]["coverage"])
    assert never and not (never & taken)
    assert never == set(branches("zk-lock")) - taken
    summary = summarize(tables, planned=1, interrupted=False)
    steps = {a for a in rows if rows[a]["kind"] == "step branch"}
    assert summary["never_exercised"]["zk-lock"] == sorted(never - steps)
    assert summary["step_branches"]["zk-lock"] == {
        "taken": len(steps - never),
        "total": len(steps),
    }
    # the steps' branches: every one the universe names has its row, some taken and some not
    assert steps == {a for a in branches("zk-lock") if ".py:" in a}
    assert steps & taken and steps & never


def test_the_page_escapes_what_came_from_the_inputs(tmp_path: Path) -> None:
    hostile = tmp_path / "<img src=x onerror=alert(1)>.jsonl"
    hostile.write_text("not json\n")
    results = [mine_run({"path": str(hostile), "kind": "run"})]
    tables = build_tables(results)
    page = render_html(summarize(tables, planned=1, interrupted=False), tables)
    assert "<img" not in page and "&lt;img src=x" in page
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_the_shipped_zip_holds_the_packages_and_the_schema(tmp_path: Path) -> None:
    import zipfile

    names = set(zipfile.ZipFile(package_zip(tmp_path / "p.zip")).namelist())
    for want in (
        "replcheck/cli.py",
        "replcheck/model/__init__.py",
        "replcheck/specs/__init__.py",
        "replcheck/conformance/mine/rows.py",
        "replcheck/traces/schema/v1/event.schema.json",
    ):
        assert want in names
    assert not any("__pycache__" in n for n in names)


@pytest.mark.parametrize("n", [1, 3])
def test_partitions_never_exceed_the_runs(n: int) -> None:
    from replcheck.conformance.mine.job import partitions_for, waves

    assert partitions_for(n, 8) == n
    assert partitions_for(1000, 2) == 8
    units = [{"path": str(i)} for i in range(100)]
    assert [u for w in waves(units, n) for u in w] == units


def test_a_zookeeper_data_directory_is_judged_from_its_logs(tmp_path: Path) -> None:
    """A raw data directory gets the verdict ``validate --zk-logs`` gives it, and the coverage
    of the behaviour found."""
    zk = tmp_path / "zkdata"
    shutil.copytree(VALIDATE / "zk-multi-lost-peer-sync" / "zk-txnlog" / "server1", zk)
    (unit,) = discover([str(zk)])
    assert unit["kind"] == "zkdata"
    got = mine_run(unit)
    want = validate_log(zk)
    assert want.status == "accepted"
    row = got["runs"]
    assert (row["status"], row["verdict"], row["events"]) == ("accepted", "accepted", want.events)
    actions = Counter(a.name for a in want.behaviour)
    assert {k: got["coverage"][k] for k in actions} == dict(actions)
    assert actions["persist"] > 0 and got["races"][0]["txns"] > 0


def test_a_run_whose_txn_log_is_damaged_is_mined_as_bad_input(tmp_path: Path) -> None:
    """``mine`` reads a run folder as ``validate`` does: a flipped byte in its ZooKeeper log is
    bad input naming the file and offset, never an internal error or a verdict."""
    run = tmp_path / "zk-multi-lost-advance"
    shutil.copytree(VALIDATE / run.name, run)
    log = run / "zk-txnlog" / "server1" / "log.100000001"
    data = bytearray(log.read_bytes())
    data[len(data) // 4] ^= 0xFF
    log.write_bytes(bytes(data))
    (unit,) = discover([str(run)])
    row = mine_run(unit)["runs"]
    assert row["status"] == "bad-input", row
    assert "internal error" not in row["reason"] and "log.100000001: byte " in row["reason"]
