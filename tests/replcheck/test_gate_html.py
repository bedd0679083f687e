"""``check --html FILE``: the gate on one offline page (``replcheck.gate_html``), everything
escaped, checked in a real headless Chromium as the replay page is."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from headless import Browser, open_browser

from replcheck.cli import main
from replcheck.gate_html import page_data, render_page
from replcheck.matrix import manifest_expected_failures, run_matrix

HOSTILE = "<img src=x onerror=window.__pwned=1>"
SCRIPT = "</script><script>window.__pwned=2</script>"

HOSTILE_MUTANT = f"""\
from replcheck.model.zk.mutants import ShipsLocalScope


class Hostile(ShipsLocalScope):
    name = "zk-lock/{HOSTILE}"
    bug = "{SCRIPT}"
    rule_ships = ShipsLocalScope.__dict__["rule_ships"]
"""


def data_of(text: str) -> dict:
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S)
    assert m is not None
    return json.loads(m.group(1))


def assert_escaped(text: str) -> None:
    """Nothing from outside is markup: no tag of it, two scripts (the data and the page's)."""
    assert "<img" not in text and "window.__pwned=2</script>" not in text
    assert text.count("<script") == 2
    assert not re.search(r'(src|href)="?(https?:)?//', text)  # loads nothing
    assert "default-src 'none'" in text


def test_the_page_escapes_names_errors_notes_and_reasons(tmp_path: Path, capsys) -> None:
    """A design file's hostile names, a checker's hostile error, a hostile pinned reason."""
    design = tmp_path / "hostile.py"
    design.write_text(HOSTILE_MUTANT)
    page = tmp_path / "gate.html"
    argv = ["check", "--design-file", str(design), "--checkers", "explore", "--jobs", "1"]
    assert main([*argv, "--html", str(page)]) == 0
    _out, err = capsys.readouterr()
    assert f"replcheck: wrote {page}" in err
    text = page.read_text()
    assert_escaped(text)
    data = data_of(text)
    labels = [r["label"] for r in data["rows"]]
    assert labels == ["zk-lock@filtering", f"zk-lock/{HOSTILE}@filtering"]
    (drawing,) = data["drawings"]
    assert drawing["behaviour"]["headline"] == "only_global_non_catalog breaks at step 2 of 2"
    assert HOSTILE in drawing["behaviour"]["source"]

    def boom(model, _progress):
        raise RuntimeError(SCRIPT)

    matrix = run_matrix(["zk-lock"], ["filtering"], ("boom",), extra_checkers={"boom": boom})
    matrix.notes.append(HOSTILE)
    matrix.rows[0].expected = frozenset({"no_lost_edit"})
    text = render_page(matrix, findings={("zk-lock", "filtering"): SCRIPT})
    assert_escaped(text)
    data = data_of(text)
    assert any(SCRIPT in p for p in data["problems"]) and HOSTILE in data["notes"]
    assert data["pinned"][0]["reason"] == SCRIPT


def test_the_page_compares_with_the_manifest_and_gives_each_finding_its_reason() -> None:
    pins = manifest_expected_failures()
    configs = ["filtering", "double-failure"]
    matrix = run_matrix(["zk-lock"], configs, ("explore",), expected_failures=pins)
    data = page_data(matrix)
    by_label = {r["label"]: r for r in data["rows"]}
    assert by_label["zk-lock@filtering"]["manifest"] == {"status": "agrees", "detail": []}
    (finding,) = data["pinned"]
    assert finding["label"] == "zk-lock@double-failure"
    assert finding["failing"] == ["single_owner", "single_source"]
    assert "HBASE-12241" in finding["reason"]
    # each failing cell links to a drawing of its counterexample
    links = by_label["zk-lock@double-failure"]["links"]
    assert set(links) == {"single_owner", "single_source"}
    assert data["drawings"][links["single_owner"]]["property"] == "single_owner"

    limited = run_matrix(["zk-lock"], ["filtering"], ("explore",), max_states=50)
    (row,) = page_data(limited)["rows"]
    assert row["manifest"]["status"] == "not compared"
    assert row["stopped"] == {"explore": "state limit"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from open_browser()


@pytest.fixture(scope="module")
def gate_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small red gate: a hostile mutant caught in one configuration and missed in the other,
    its base with a pinned finding."""
    folder = tmp_path_factory.mktemp("gate")
    design = folder / "hostile.py"
    design.write_text(HOSTILE_MUTANT)
    page = folder / "gate.html"
    argv = ["check", "--design-file", str(design), "--design", "zk-lock", "--design"]
    argv += [f"zk-lock/{HOSTILE}", "--config", "filtering", "--config", "double-failure"]
    code = main([*argv, "--checkers", "explore", "--jobs", "1", "--html", str(page)])
    assert code == 1
    return page


def _rows(browser: Browser) -> list[str]:
    return browser.evaluate(
        "Array.from(document.querySelectorAll('#matrix tbody tr')).map(r => r.dataset.label)"
    )


def _columns(browser: Browser) -> list[str]:
    return browser.evaluate(
        "Array.from(document.querySelectorAll('#matrix thead th.prop'))"
        ".map(th => th.dataset.property)"
    )


def _type(browser: Browser, selector: str, value: str, event: str = "input") -> None:
    browser.evaluate(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
        f"e.value = {json.dumps(value)}; e.dispatchEvent(new Event({json.dumps(event)})); }})()"
    )


@pytest.mark.browser
def test_the_page_filters_rows_and_columns(browser: Browser, gate_page: Path) -> None:
    browser.open(gate_page)
    assert browser.evaluate("document.body.dataset.ready") == "1"
    assert browser.errors() == []
    assert browser.evaluate("window.__pwned === undefined")
    verdict = browser.evaluate("document.getElementById('verdict').textContent")
    assert verdict.startswith("FAIL: correct designs green: 2/2; mutants caught: 1/2")
    assert len(_rows(browser)) == 4
    _type(browser, "#row-filter", "double")
    assert _rows(browser) == ["zk-lock@double-failure", f"zk-lock/{HOSTILE}@double-failure"]
    _type(browser, "#row-filter", "")
    _type(browser, "#status-filter", "caught", "change")
    assert _rows(browser) == [f"zk-lock/{HOSTILE}@filtering"]
    _type(browser, "#status-filter", "not-green", "change")
    assert _rows(browser) == [f"zk-lock/{HOSTILE}@double-failure"]
    _type(browser, "#status-filter", "", "change")
    everything = _columns(browser)
    _type(browser, "#col-filter", "single")
    assert _columns(browser) == ["single_owner", "single_source"]
    _type(browser, "#col-filter", "")
    browser.evaluate("document.getElementById('col-failing').click()")
    failing = _columns(browser)
    assert set(failing) == {"single_owner", "single_source", "only_global_non_catalog"}
    assert len(everything) > len(failing)
    browser.evaluate("document.getElementById('col-failing').click()")
    # the pinned finding and its reason; the manifest
    findings = browser.evaluate("document.querySelector('#findings tbody').textContent")
    assert "zk-lock@double-failure" in findings and "HBASE-12241" in findings
    manifest = browser.evaluate("document.getElementById('manifest-summary').textContent")
    assert manifest.startswith("2 agrees")
    assert browser.errors() == []


@pytest.mark.browser
def test_a_failing_cell_opens_its_counterexample_drawing(browser: Browser, gate_page: Path) -> None:
    browser.open(gate_page)
    selector = "#matrix tr[data-label$='@filtering'] td.fail a"
    assert browser.evaluate(f"document.querySelectorAll({json.dumps(selector)}).length") == 1
    browser.click(selector)
    frame = "document.getElementById('drawing').contentDocument"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if browser.evaluate(f"!!({frame} && {frame}.body && {frame}.body.dataset.ready)"):
            break
        time.sleep(0.1)
    href = browser.evaluate(f"document.querySelector({json.dumps(selector)}).getAttribute('href')")
    assert re.fullmatch(r"#cex-\d+", href) and browser.evaluate("location.hash") == href
    assert browser.evaluate("document.getElementById('drawing-box').hidden") is False
    headline = browser.evaluate(f"{frame}.getElementById('headline').textContent")
    assert headline == f"zk-lock/{HOSTILE}@filtering: only_global_non_catalog breaks at step 2 of 2"
    assert browser.evaluate(f"{frame}.querySelectorAll('tr.broken').length") == 1
    assert browser.evaluate("window.__pwned === undefined")
    assert browser.evaluate(f"{frame}.defaultView.__pwned === undefined")
    assert browser.errors() == []
    browser.click("#drawing-close")
    assert browser.evaluate("document.getElementById('drawing-box').hidden") is True
