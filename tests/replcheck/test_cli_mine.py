"""``replcheck mine``'s command line: bad arguments are one-line errors (exit 2) before Spark
starts; ``--package`` writes what spark-submit needs; the page renders in a real headless
Chromium with its plots."""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from headless import Browser, open_browser
from replcheck.conformance.mine.html import render_html
from replcheck.conformance.mine.job import build_tables, summarize
from replcheck.conformance.mine.rows import discover, mine_run

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "test_data" / "validate" / "zk-lock-teardown-archive.jsonl"
HOSTILE = "<img src=x onerror=window.__pwned=1>"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mine"], "give at least one PATH"),
        (["mine", "{file}x"], "no such file or folder"),
        (["mine", "{empty}"], "no run folder, trace or ZooKeeper data directory"),
        (["mine", "x", "--partitions", "0"], "must be at least 1"),
        (["mine", "{run}", "--out", "{file}"], "not a folder"),
        (["mine", "{run}", "--out", "{full}"], "not empty"),
        (["mine", "--package", "{file}"], "not a folder"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "old").write_text("x")
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    argv = [
        a.format(file=tmp_path / "file", full=tmp_path / "full", empty=tmp_path / "empty", run=RUN)
        for a in argv
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_package_writes_the_zip_and_the_entry_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mine", "--package", str(tmp_path / "pkg")]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [
        str(tmp_path / "pkg" / "replcheck.zip"),
        str(tmp_path / "pkg" / "mine_submit.py"),
    ]
    assert "replcheck/conformance/mine/job.py" in zipfile.ZipFile(printed[0]).namelist()
    compile(Path(printed[1]).read_text(), printed[1], "exec")


PAGE_RUNS = (
    "table-claim-reads-across-leader-election",
    "table-other-run-session-closes",
    "zk-lock-lock-cleaner",
    "zk-lock-relay-before-join",
    "zk-lock-zombie-append-after-recovered-finish",
    "zk-multi-cleaner-reads-queues-one-by-one",
    "zk-multi-lost-claim-commit",
    "zk-multi-lost-write-before-fenced",
    "zk-multi-relay-sent-again-after-restart",
)
"""The golden runs the page is drawn from: each era and verdict, and the quickest to mine (the
whole corpus is mined in tests/conformance/mine)."""


@pytest.fixture
def browser() -> Iterator[Browser]:
    yield from open_browser(width=1100, height=2400)


@pytest.mark.browser
def test_the_summary_page_in_a_browser(browser: Browser, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for run in PAGE_RUNS:
        shutil.copytree(ROOT / "test_data" / "validate" / run, corpus / run)
    (corpus / f"{HOSTILE}.jsonl").write_text("not json\n")
    units = discover([str(corpus)])
    tables = build_tables([mine_run(u) for u in units])
    page = tmp_path / "index.html"
    page.write_text(render_html(summarize(tables, planned=len(units), interrupted=False), tables))
    browser.open(page)
    assert browser.errors() == []
    assert browser.requests() == [] or all(r.startswith("file:") for r in browser.requests())
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    # Every plot is drawn, with bars of some width.
    plots = browser.evaluate("document.querySelectorAll('svg.plot').length")
    assert plots >= 6
    drawn = browser.evaluate(
        "[...document.querySelectorAll('svg.plot')].filter(s => "
        "[...s.querySelectorAll('rect')].some(r => r.getBoundingClientRect().width > 1)).length"
    )
    assert drawn == plots
    text = browser.evaluate("document.body.innerText")
    assert HOSTILE in text and "never exercised in zk-lock" in text
    browser.screenshot(tmp_path / "mine.png")
    shots = os.environ.get("REPLCHECK_SCREENSHOTS")
    if shots:
        shutil.copy(tmp_path / "mine.png", Path(shots) / "mine.png")
