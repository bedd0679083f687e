"""``replay --html`` and ``explore --html``: one offline page, everything escaped, checked in a
real headless Chromium (Debian's, which ``scripts/run test`` installs)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from headless import Browser, open_browser
from replcheck.conformance.trace import mutate as tracemut

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "traces" / "golden"
TRACE = GOLDEN / "zk-lock--no-loop-prevention.jsonl"
HOSTILE = "<img src=x onerror=window.__pwned=1>"
SCRIPT = "</script><script>window.__pwned=2</script>"


def hostile_trace(tmp_path: Path) -> Path:
    """The golden trace with a note written by a process whose name, and whose note, are
    markup."""
    events = tracemut.load(TRACE)
    note = {
        "v": 1,
        "proc": HOSTILE,
        "pid": 4242,
        "seq": 1,
        "t": events[5]["t"],
        "kind": "meta",
        "name": "note",
        "args": {},
        "detail": {"what": SCRIPT},
        "zxid": None,
        "design": events[5]["design"],
    }
    path = tmp_path / "hostile.jsonl"
    tracemut.dump(tracemut.apply_edit(events, {"op": "insert", "event": 5, "new": note}), path)
    return path


def page_data(text: str) -> dict:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_the_page_is_offline_and_escapes_what_came_from_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    assert main(["replay", str(hostile_trace(tmp_path)), "--html", str(page)]) == 1
    capsys.readouterr()
    text = page.read_text()
    assert "<img" not in text and "window.__pwned=2" not in text.replace("\\u003c", "")
    assert text.count("<script") == 2  # the data and the page's own script, nothing else
    assert not re.search(r'(src|href)="?(https?:)?//', text)  # loads nothing
    assert "default-src 'none'" in text
    data = page_data(text)
    (b,) = data["behaviours"]
    assert HOSTILE in b["lanes"]
    assert b["headline"] == "rejected: no_edit_at_origin at event 28"
    broken = [r for r in b["rows"] if r.get("broken")]
    assert [r["event"] for r in broken] == [28]
    assert "the step that breaks no_edit_at_origin" in b["report"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from open_browser()


def shown(browser: Browser) -> dict:
    return browser.evaluate(
        "({step: document.getElementById('step').textContent,"
        " state: document.getElementById('state').textContent,"
        " diff: document.getElementById('diff').textContent,"
        " banner: document.getElementById('banner').textContent,"
        " selected: document.querySelectorAll('tr.sel').length})"
    )


@pytest.mark.browser
def test_the_page_in_a_browser(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    assert main(["replay", str(hostile_trace(tmp_path)), "--html", str(page)]) == 1
    capsys.readouterr()
    browser.open(page)
    assert browser.evaluate("document.body.dataset.ready") == "1"
    assert browser.errors() == []
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    heads = browser.evaluate("[...document.querySelectorAll('thead th')].map(t => t.textContent)")
    assert HOSTILE in heads

    # It opens at the step that breaks the property, highlighted.
    first = shown(browser)
    assert "this step breaks no_edit_at_origin" in first["banner"]
    assert "event 28" in first["step"] and first["selected"] == 1
    assert browser.evaluate("document.querySelector('tr.sel').classList.contains('broken')")
    browser.screenshot(tmp_path / "failure.png")

    # Clicking a step shows that step's state and what it changed.
    row = browser.evaluate(
        "[...document.querySelectorAll('#lanes tbody tr')].findIndex("
        "tr => tr.textContent.includes('add_peer(0)')) + 1"
    )
    assert row > 0
    browser.click(f"#lanes tbody tr:nth-child({row}) td")
    after = shown(browser)
    assert after["state"] != first["state"]
    assert "add_peer(peer=2)" in after["step"]
    assert "~ /hbase/replication/peers/2: ABSENT -> ENABLED" in after["diff"]
    assert after["banner"] == "" and after["selected"] == 1
    assert browser.evaluate("document.querySelectorAll('#state .mark').length") > 0
    browser.screenshot(tmp_path / "step.png")

    # The hostile note is a row in its process's lane, drawn as text.
    row = browser.evaluate(
        "(() => { const heads = [...document.querySelectorAll('thead th')];"
        f" const lane = heads.findIndex(t => t.textContent === {json.dumps(HOSTILE)});"
        " return [...document.querySelectorAll('#lanes tbody tr')].findIndex("
        "tr => tr.cells[lane].textContent !== '') + 1; })()"
    )
    assert row > 0
    browser.click(f"#lanes tbody tr:nth-child({row}) td")
    assert "note()" in shown(browser)["step"]
    assert browser.errors() == [] and browser.evaluate("typeof window.__pwned") == "undefined"
    shots = os.environ.get("REPLCHECK_SCREENSHOTS")
    if shots:  # keep them to look at
        for name in ("failure.png", "step.png"):
            shutil.copy(tmp_path / name, Path(shots) / name)


@pytest.mark.browser
def test_explore_draws_every_counterexample_on_one_page(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "explore.html"
    args = ["explore", "--design", "zk-lock/cleaner-skips-lookup", "--no-liveness"]
    assert main([*args, "--html", str(page)]) == 1
    capsys.readouterr()
    browser.open(page)
    assert browser.errors() == []
    options = browser.evaluate("[...document.querySelectorAll('option')].map(o => o.textContent)")
    assert len(options) == 2 and all("breaks at step" in o for o in options)
    headline = browser.evaluate("document.getElementById('headline').textContent")
    assert "no_lost_edit breaks at step 4 of 4" in headline
    lanes = browser.evaluate("[...document.querySelectorAll('thead th')].map(t => t.textContent)")
    assert "master" in lanes
    browser.evaluate(
        "(() => { const s = document.querySelector('select'); s.value = '1';"
        " s.dispatchEvent(new Event('change')); })()"
    )
    other = browser.evaluate("document.getElementById('headline').textContent")
    assert other != headline and "no_wal_deleted_while_queued" in other
    before = shown(browser)
    browser.click("#lanes tbody tr:nth-child(1) td")
    assert shown(browser)["state"] != before["state"]
    assert browser.errors() == []
