"""Hostile znode names and data, from a ZooKeeper transaction log and a run folder, in every HTML
page that can show them: ``replay --html`` of a run folder and ``mine``'s summary page.

The run folder is a recorded run (``test_data/validate``) whose folder name, trace, transaction
log (written back with ``conformance.zookeeper.txnwrite``, with hostile creates appended) and
``zk-chroot`` carry markup, a right-to-left override and a very long name; a ZooKeeper data
directory is written whole with hostile names. Each page is opened in a headless Chromium: no
script of theirs runs, nothing is requested, and the markup shows as text.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from headless import Browser, open_browser
from replcheck.conformance.mine.html import render_html
from replcheck.conformance.mine.job import build_tables, summarize
from replcheck.conformance.mine.rows import discover, mine_run
from replcheck.conformance.zookeeper.records import ACL, CreateTxn, OpCode, SetDataTxn, Txn
from replcheck.conformance.zookeeper.txnlog import read_log
from replcheck.conformance.zookeeper.txnwrite import write_log

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "test_data" / "validate" / "zk-multi-lost-claim-commit"
"""A recorded zk-multi run with one ZooKeeper server's log and a chroot."""

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '"><img src=x onerror=window.__pwned=2>'
RLO = "\u202e"
LONG = "L" * 3000
HOSTILE_WAL = f"1.1.1.2,60020.{SCRIPT}{IMG}{RLO}gol.{LONG}"
HOSTILE_RS = f"rs-{SCRIPT}{IMG}{RLO}{LONG}"
WORLD = (ACL(31, "world", "anyone"),)


def _hostile_run(tmp: Path) -> Path:
    """The recorded run under a hostile folder name, with a note naming a hostile znode, one
    position's WAL renamed to a hostile name, and hostile creates and data appended to its log
    within the run's chroot."""
    run = tmp / f"run-{IMG}{RLO}"
    shutil.copytree(RUN, run)
    lines = [json.loads(x) for x in (run / "trace.jsonl").read_text().splitlines()]
    for e in lines:
        if e["name"] == "persist" and e.get("detail", {}).get("position") == 182:
            e["detail"]["wal"] = HOSTILE_WAL
        if e["proc"] == "rs-1.1.1.5,60020,123456820":  # a server named by a hostile znode
            e["proc"] = HOSTILE_RS
    note = dict(lines[1])
    note.update(
        detail={"what": IMG, "znode": f"/hbase/replication/rs/{SCRIPT}{RLO}", "data": SCRIPT},
        seq=lines[1]["seq"] + 1000,
    )
    lines.insert(2, note)
    (run / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    chroot = (run / "zk-chroot").read_text().strip()
    log = next(run.glob("zk-txnlog/*/log.*"))
    txns = list(read_log(log))
    last = txns[-1]
    base = f"{chroot}/hbase/replication/rs/1.1.1.2,60020,123456790/2"
    for i, rec in enumerate(
        [
            CreateTxn(f"{base}/{HOSTILE_WAL}", SCRIPT.encode(), WORLD, False, 9),
            SetDataTxn(f"{base}/{HOSTILE_WAL}", f"{IMG}{RLO}".encode(), 0),
        ]
    ):
        op = OpCode.create if isinstance(rec, CreateTxn) else OpCode.setData
        z = last.zxid + 1 + i
        txns.append(Txn("", 0, last.session, last.cxid + 1 + i, z, last.time + i, op, rec, None))
    write_log(log, txns, preallocate=4096)
    return run


def _hostile_chroot_run(tmp: Path) -> Path:
    """The recorded run whose ``zk-chroot`` is markup: bad input, quarantined with its text."""
    run = tmp / "run-chroot"
    shutil.copytree(RUN, run)
    (run / "zk-chroot").write_text(f"/replcheck-runs/{SCRIPT}{IMG}{RLO}{LONG}\n")
    return run


def _hostile_data_dir(tmp: Path) -> Path:
    """A ZooKeeper data directory (no trace: validated from its log) of hostile znodes."""
    paths = [
        "/hbase",
        "/hbase/replication",
        "/hbase/replication/rs",
        f"/hbase/replication/rs/{SCRIPT}",
        f"/hbase/replication/rs/{SCRIPT}/{IMG}{RLO}",
        f"/hbase/replication/rs/{SCRIPT}/{IMG}{RLO}/{LONG}",
    ]
    txns = [
        Txn(
            "",
            0,
            0x42,
            i,
            i + 1,
            1_700_000_000_000,
            OpCode.create,
            CreateTxn(p, SCRIPT.encode(), WORLD, False, 1),
            None,
        )
        for i, p in enumerate(paths)
    ]
    write_log(tmp / "zkdata" / "version-2" / "log.1", txns, preallocate=4096)
    return tmp / "zkdata"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from open_browser(width=1100, height=1600)


def _open(browser: Browser, page: Path) -> None:
    browser.events.clear()
    browser.call("Network.enable", session=True)
    browser.open(page)


def _safe(browser: Browser, page: Path) -> None:
    """Nothing of the inputs ran, loaded or became markup."""
    assert browser.errors() == []
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    assert browser.evaluate("document.querySelectorAll('script:not([type])').length") <= 1
    assert browser.requests() == [page.resolve().as_uri()]


@pytest.mark.browser
def test_replay_html_of_a_hostile_run_folder(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _hostile_run(tmp_path)
    page = tmp_path / "replay.html"
    code = main(["replay", str(run), "--html", str(page)])
    _out, err = capsys.readouterr()
    assert code in (0, 1, 4) and page.is_file(), err
    text = page.read_text(encoding="utf-8")
    assert SCRIPT not in text and "<img" not in text
    _open(browser, page)
    assert browser.evaluate("document.body.dataset.ready") == "1"
    _safe(browser, page)
    shown = browser.evaluate("document.body.innerText")
    assert IMG in shown  # the folder's name, as text
    assert RLO not in shown and "\\u202e" in shown  # the override shown, not obeyed
    heads = browser.evaluate("[...document.querySelectorAll('thead th')].map(t => t.textContent)")
    assert HOSTILE_RS.replace(RLO, "\\u202e") in heads  # the server's lane, named as text
    # The note naming the hostile znode: its step shows the markup as text.
    notes = browser.evaluate(
        "[...document.querySelectorAll('#lanes tbody tr')].map((tr, i) => "
        "tr.textContent.includes('note(') ? i + 1 : 0).filter(i => i)"
    )
    steps = []
    for row in notes:
        browser.click(f"#lanes tbody tr:nth-child({row}) td")
        steps.append(browser.evaluate("document.getElementById('step').textContent"))
        if SCRIPT in steps[-1]:
            break
    assert SCRIPT in steps[-1] and IMG in steps[-1], steps[-1]
    _safe(browser, page)


@pytest.mark.browser
def test_mine_summary_page_of_hostile_runs(browser: Browser, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    _hostile_run(corpus)
    _hostile_chroot_run(corpus)
    _hostile_data_dir(corpus)
    units = discover([str(corpus)])
    assert len(units) == 3, units
    tables = build_tables([mine_run(u) for u in units])
    reasons = " ".join(q["reason"] for q in tables["quarantine"])
    assert SCRIPT in reasons  # the hostile text does reach the page
    assert RLO not in reasons  # escaped where the error was written (escape.printable)
    page = tmp_path / "index.html"
    page.write_text(render_html(summarize(tables, planned=len(units), interrupted=False), tables))
    text = page.read_text(encoding="utf-8")
    assert SCRIPT not in text and "<img" not in text and RLO not in text
    _open(browser, page)
    _safe(browser, page)
    shown = browser.evaluate("document.body.innerText")
    assert SCRIPT in shown and IMG in shown and "\\u202e" in shown
