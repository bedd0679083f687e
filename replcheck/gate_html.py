"""``replcheck check --html FILE``: the gate on one self-contained page, for a CI owner who wants
to see why it is red.

The page works offline: its script, style and data are inline, and it loads nothing. It shows

* the verdict (the summary line), the errors, the base problems, the credit notes and the notes;
* the design × property matrix, its rows filterable by name and by result and its columns by
  name (and to those with a failure among the rows shown), sortable by time or states; each row
  with its time (and each checker's), its states, the base row a mutant was held against and its
  comparison with the manifest;
* every ``FAIL`` cell a link (``#cex-N``) to its counterexample drawn as ``replay --html`` draws
  it: the timeline, the state after each step and the step's diff, in a frame on the same page;
* every pinned finding with its reason (the manifest's ``finding``);
* the comparison with the manifest (``specs/manifest.json``): per row whose configuration it
  pins, whether exploration found the same states, transitions, depth and verdicts.

Everything that comes from outside (design and configuration names from a design file, property
names, notes, counterexample states) is data: it is written as JSON inside a
``<script type="application/json">`` element, ``<``, ``>`` and ``&`` escaped so no text can
close the element, and the script puts it in the page with ``textContent`` only, never as
markup. A counterexample's drawing is the replay page, filled in with its data the same way.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replcheck.matrix import LETTERS, SHORT_NAMES

if TYPE_CHECKING:
    from replcheck.matrix import Matrix, Row

CHECKER_ORDER = ("explore", "bmc", "fuzz", "proofs")
"""Whose counterexample a cell links to when several checkers found one."""


# --- the manifest -------------------------------------------------------------------------------


def manifest_entries() -> dict[tuple[str, str], dict[str, Any]]:
    """The manifest's entries by ``(design, config)``; empty when it cannot be read."""
    try:
        from replcheck.specs import manifest

        entries = manifest.load()
    except Exception:  # no manifest, or one being rewritten: nothing to compare with
        return {}
    return {(str(e.get("design")), str(e.get("config"))): e for e in entries if isinstance(e, dict)}


def compare_with_manifest(row: Row, entries: dict[tuple[str, str], dict[str, Any]]) -> dict:
    """``{"status": "agrees" | "differs" | "not pinned" | "not compared", "detail": [...]}``:
    whether the row's exploration found what the manifest pins for its design and
    configuration."""
    entry = entries.get((row.design, row.config))
    if entry is None:
        return {"status": "not pinned", "detail": []}
    result = row.results.get("explore")
    if result is None:
        return {"status": "not compared", "detail": ["exhaustive exploration did not run"]}
    stats = result.stats
    if not stats.get("complete"):
        why = stats.get("stopped") or "incomplete"
        return {"status": "not compared", "detail": [f"exploration stopped: {why}"]}
    if not stats.get("symmetry", True):
        return {
            "status": "not compared",
            "detail": ["explored without symmetry reduction; the manifest pins reduced counts"],
        }
    from replcheck.specs import manifest

    got = {
        "states": stats.get("states"),
        "transitions": stats.get("transitions"),
        "depth": stats.get("depth"),
        "complete": stats.get("complete"),
        "verdicts": dict(result.verdicts),
        "counterexample_lengths": {p: c.length for p, c in result.counterexamples.items()},
    }
    diffs = manifest.compare(entry, got)
    return {"status": "differs" if diffs else "agrees", "detail": diffs}


# --- counterexamples ------------------------------------------------------------------------------


def _drawing(row: Row, prop: str) -> tuple[dict[str, Any] | None, str]:
    """The replay page's data for the counterexample of ``prop`` in ``row`` (the first checker
    of ``CHECKER_ORDER`` that has one), or ``None`` and why there is none."""
    from replcheck.conformance.validate.replay import from_actions
    from replcheck.replay_html import behaviour_data
    from replcheck.report import render_counterexample

    found = row.failed_by(prop)
    for checker in sorted(found, key=lambda c: (*CHECKER_ORDER, c).index(c)):
        cex = row.results[checker].counterexamples.get(prop)
        if cex is None:
            continue
        try:
            b = from_actions(
                row.design,
                row.model.cfg,
                cex.actions(),
                source=f"{checker} {row.label}",
                kind="counterexample",
                prop=prop,
                loop_start=cex.loop_start,
                stuck=cex.stuck,
            )
            report = render_counterexample(row.model, cex)
            data = behaviour_data(b, report)
        except Exception as exc:  # a replay error, or any other: a drawing never hides the verdict
            return None, f"not drawn: {type(exc).__name__}: {exc}"
        data["checker"] = checker
        return data, ""
    return None, "no counterexample recorded"


# --- the page -----------------------------------------------------------------------------------


def page_data(matrix: Matrix, findings: dict[tuple[str, str], str] | None = None) -> dict:
    """What the page shows, as JSON data. ``findings`` maps ``(design, config)`` to the reason a
    finding is pinned (default: the manifest's ``finding`` texts)."""
    entries = manifest_entries()
    if findings is None:
        findings = {k: str(e["finding"]) for k, e in entries.items() if e.get("finding")}
    drawings: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    pinned: list[dict[str, Any]] = []
    for i, row in enumerate(matrix.rows):
        links: dict[str, int] = {}
        why_not: dict[str, str] = {}
        for prop in row.failures:
            data, why = _drawing(row, prop)
            if data is None:
                why_not[prop] = why
                continue
            links[prop] = len(drawings)
            drawings.append({"row": i, "property": prop, "behaviour": data})
        stopped = {
            c: str(r.stats["stopped"]) for c, r in row.results.items() if r.stats.get("stopped")
        }
        rows.append(
            {
                "label": row.label,
                "design": row.design,
                "config": row.config,
                "mutant_of": row.mutant_of,
                "status": row.status,
                "reference": row.reference,
                "held_against": row.against,
                "cells": {p: row.cell(p) for p in matrix.properties},
                "links": links,
                "not_drawn": why_not,
                "credited": row.credited,
                "not_credited": row.not_credited,
                "pinned": sorted(row.expected),
                "seconds": round(row.seconds, 3),
                "times": {c: round(t, 3) for c, t in row.times.items()},
                "states": row.states,
                "errors": dict(row.errors),
                "stopped": stopped,
                "manifest": compare_with_manifest(row, entries),
            }
        )
        if row.expected and not row.is_mutant:
            reason = findings.get((row.design, row.config))
            pinned.append(
                {
                    "row": i,
                    "label": row.label,
                    "properties": sorted(row.expected),
                    "failing": [p for p in sorted(row.expected) if p in row.failures],
                    "reason": reason or "pinned by --expected-failures (no reason given)",
                }
            )
    return {
        "summary": matrix.summary(),
        "exit_code": int(matrix.exit_code),
        "ok": matrix.ok,
        "checkers": list(matrix.checkers),
        "letters": {c: LETTERS.get(c, c[:1]) for c in matrix.checkers},
        "properties": list(matrix.properties),
        "short": {p: SHORT_NAMES.get(p, p) for p in matrix.properties},
        "rows": rows,
        "pinned": pinned,
        "drawings": drawings,
        "problems": [
            *(f"error: {r.label} {c}: {e}" for r in matrix.rows for c, e in r.errors.items()),
            *(f"error: {p}" for p in matrix.base_problems()),
            *(f"not credited: {n}" for n in matrix.credit_notes()),
        ],
        "notes": list(matrix.notes),
        "seconds": round(sum(r.seconds for r in matrix.rows), 3),
    }


def render_page(matrix: Matrix, findings: dict[tuple[str, str], str] | None = None) -> str:
    """The page (see the module docstring)."""
    from replcheck.replay_html import json_for_script, page_template

    data = page_data(matrix, findings)
    data["replay_page"] = page_template("replcheck check: counterexample")
    data["replay_slot"] = "@DATA@"
    parts = {
        "TITLE": html.escape(f"replcheck check: {matrix.summary()}"),
        "STYLE": _STYLE,
        "SCRIPT": _SCRIPT,
        "DATA": json_for_script(data),
    }
    # one pass: no part is searched for another's placeholder
    return re.sub(r"@(TITLE|STYLE|SCRIPT|DATA)@", lambda m: parts[m.group(1)], _TEMPLATE)


def write_page(path: Path, matrix: Matrix) -> None:
    """Write the page to ``path`` and say so on stderr."""
    path.write_text(render_page(matrix), encoding="utf-8")
    sys.stderr.write(f"replcheck: wrote {path}\n")


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>@TITLE@</title>
<style>@STYLE@</style>
</head>
<body>
<header>
  <div id="verdict"></div>
  <div id="facts" class="note"></div>
</header>
<section id="problems-box"><ul id="problems"></ul></section>
<section>
  <h2>the matrix</h2>
  <div id="filters">
    <label>rows <input id="row-filter" type="search" placeholder="design@config contains"></label>
    <label>result <select id="status-filter">
      <option value="">any</option>
      <option value="not-green">not green (red, missed, undecided, error)</option>
    </select></label>
    <label>columns <input id="col-filter" type="search" placeholder="property contains"></label>
    <label><input id="col-failing" type="checkbox"> only columns with a failure</label>
    <label>order <select id="order">
      <option value="plan">as run</option>
      <option value="time">slowest first</option>
      <option value="states">most states first</option>
    </select></label>
    <span id="shown" class="note"></span>
  </div>
  <div id="matrix-box"><table id="matrix"><thead></thead><tbody></tbody></table></div>
  <p class="note">cells: ok; FAIL(letters): the checkers that found it failing
    (<span id="letters"></span>), a link to its counterexample; * a pinned known finding;
    ~ not credited to the mutant (its base row does not pass it); ? undecided; - not a question
    for the row</p>
</section>
<section id="drawing-box" hidden>
  <h2 id="drawing-title"></h2>
  <p><a id="drawing-close" href="#">close</a></p>
  <iframe id="drawing" title="counterexample"></iframe>
</section>
<section>
  <h2>pinned findings</h2>
  <table id="findings"><thead><tr><th>row</th><th>properties</th><th>reason</th></tr></thead>
  <tbody></tbody></table>
</section>
<section>
  <h2>the manifest</h2>
  <p id="manifest-summary"></p>
  <ul id="manifest-differs"></ul>
</section>
<script type="application/json" id="data">@DATA@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""

_STYLE = """
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.35 system-ui, sans-serif; color: #1b1f24; background: #fff; }
header { padding: 8px 12px; border-bottom: 1px solid #ccd; background: #f5f6f8; }
#verdict { font-weight: 600; font-size: 16px; }
#verdict.red { color: #b3261e; } #verdict.green { color: #116329; }
#verdict.partial { color: #7d4e00; }
section { padding: 4px 12px; }
h2 { font-size: 14px; margin: 10px 0 4px; }
.note { color: #667; font-size: 12px; }
#problems li { color: #8c1d18; }
#filters { display: flex; gap: 14px; flex-wrap: wrap; align-items: center; margin: 4px 0; }
#matrix-box { overflow: auto; max-height: 70vh; border: 1px solid #dde; }
table { border-collapse: separate; border-spacing: 0; font-size: 12px; }
th, td { padding: 2px 6px; border-right: 1px solid #eef; border-bottom: 1px solid #f3f3f6;
  white-space: nowrap; text-align: left; }
thead th { position: sticky; top: 0; background: #eef0f4; border-bottom: 1px solid #bbc;
  z-index: 1; }
td.label, th.label { position: sticky; left: 0; background: #fff; z-index: 1; }
th.label { z-index: 2; background: #eef0f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.fail { background: #fde7e5; } td.fail a { color: #8c1d18; font-weight: 600; }
td.pinned { background: #fff3d6; } td.uncredited { background: #f1ecf7; }
td.undecided { background: #fff8c4; } td.na { color: #bbc; }
tr.RED td.status, tr.MISSED td.status, tr.ERROR td.status { color: #b3261e; font-weight: 600; }
tr.UNDECIDED td.status { color: #7d4e00; font-weight: 600; }
tr.green td.status, tr.caught td.status { color: #116329; }
tr.target td { outline: 2px solid #2f6fde; }
#findings td { white-space: normal; vertical-align: top; max-width: 70ch; }
#drawing { width: 100%; height: 80vh; border: 1px solid #ccd; }
"""

_SCRIPT = r"""
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const NOT_GREEN = new Set(["RED", "MISSED", "UNDECIDED", "ERROR"]);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function seconds(s) { return s < 100 ? s.toFixed(1) + "s" : Math.round(s) + "s"; }

  // the verdict, the facts, the problems
  const verdict = $("verdict");
  verdict.textContent = data.summary;
  verdict.className = data.ok ? "green" : (data.exit_code === 1 ? "red" : "partial");
  $("facts").textContent = "exit status " + data.exit_code + " · " + data.rows.length
    + " rows · checkers: " + (data.checkers.join(", ") || "none") + " · "
    + seconds(data.seconds) + " of checking";
  $("letters").textContent = data.checkers.map((c) => data.letters[c] + " = " + c).join(", ");
  const problems = $("problems");
  data.problems.concat(data.notes.map((n) => "note: " + n)).forEach((p) => {
    problems.appendChild(el("li", "", p));
  });

  // the status filter's options: every result the rows have
  const statusFilter = $("status-filter");
  Array.from(new Set(data.rows.map((r) => r.status))).sort().forEach((s) => {
    const o = el("option", "", s);
    o.value = s;
    statusFilter.appendChild(o);
  });

  function rowShown(r) {
    const text = $("row-filter").value.trim().toLowerCase();
    if (text && !r.label.toLowerCase().includes(text)) return false;
    const s = statusFilter.value;
    if (s === "not-green") return NOT_GREEN.has(r.status);
    return !s || r.status === s;
  }

  function cellClass(cell) {
    if (cell.startsWith("FAIL")) {
      return cell.endsWith("*") ? "pinned" : cell.endsWith("~") ? "uncredited" : "fail";
    }
    return cell === "?" ? "undecided" : cell === "-" ? "na" : "";
  }

  function render() {
    const shownRows = data.rows.map((r, i) => [r, i]).filter(([r]) => rowShown(r));
    const order = $("order").value;
    if (order === "time") shownRows.sort((a, b) => b[0].seconds - a[0].seconds);
    if (order === "states") shownRows.sort((a, b) => (b[0].states || 0) - (a[0].states || 0));
    const colText = $("col-filter").value.trim().toLowerCase();
    const failing = $("col-failing").checked;
    const cols = data.properties.filter((p) => {
      if (colText && !p.toLowerCase().includes(colText)
          && !data.short[p].toLowerCase().includes(colText)) return false;
      if (failing && !shownRows.some(([r]) => r.cells[p].startsWith("FAIL"))) return false;
      return true;
    });
    const thead = document.querySelector("#matrix thead");
    const tbody = document.querySelector("#matrix tbody");
    thead.textContent = "";
    tbody.textContent = "";
    const hr = el("tr");
    hr.appendChild(el("th", "label", "design@config"));
    hr.appendChild(el("th", "", "result"));
    cols.forEach((p) => {
      const th = el("th", "prop", data.short[p]);
      th.title = p;
      th.dataset.property = p;
      hr.appendChild(th);
    });
    ["states", "time", "held against", "manifest"].forEach((h) => hr.appendChild(el("th", "", h)));
    thead.appendChild(hr);
    const frag = document.createDocumentFragment();
    shownRows.forEach(([r, i]) => {
      const tr = el("tr", r.status);
      tr.id = "row-" + i;
      tr.dataset.label = r.label;
      tr.appendChild(el("td", "label", r.label));
      const st = el("td", "status", r.status);
      const why = Object.entries(r.errors).map(([c, e]) => c + " raised: " + e)
        .concat(Object.entries(r.stopped).map(([c, s]) => c + " stopped: " + s))
        .concat(Object.entries(r.not_credited).map(([p, w]) => p + ": " + w));
      if (why.length) st.title = why.join("\n");
      tr.appendChild(st);
      cols.forEach((p) => {
        const cell = r.cells[p];
        const td = el("td", cellClass(cell));
        td.dataset.property = p;
        if (p in r.links) {
          const a = el("a", "", cell);
          a.href = "#cex-" + r.links[p];
          a.title = "draw the counterexample of " + p;
          td.appendChild(a);
        } else {
          td.textContent = cell;
          if (p in r.not_drawn) td.title = r.not_drawn[p];
        }
        tr.appendChild(td);
      });
      tr.appendChild(el("td", "num", r.states === null ? "-" : r.states.toLocaleString("en")));
      const t = el("td", "num time", seconds(r.seconds));
      t.title = Object.entries(r.times).map(([c, s]) => c + " " + s.toFixed(3) + "s").join("\n");
      tr.appendChild(t);
      tr.appendChild(el("td", "", r.held_against || ""));
      const m = el("td", "manifest", r.manifest.status);
      if (r.manifest.detail.length) m.title = r.manifest.detail.join("\n");
      tr.appendChild(m);
      frag.appendChild(tr);
    });
    tbody.appendChild(frag);
    $("shown").textContent = shownRows.length + " of " + data.rows.length + " rows, "
      + cols.length + " of " + data.properties.length + " columns";
  }
  ["row-filter", "col-filter"].forEach((id) => $(id).addEventListener("input", render));
  ["status-filter", "col-failing", "order"].forEach((id) => {
    $(id).addEventListener("change", render);
  });

  // pinned findings
  const fbody = document.querySelector("#findings tbody");
  data.pinned.forEach((f) => {
    const tr = el("tr");
    tr.appendChild(el("td", "", f.label));
    tr.appendChild(el("td", "", f.properties.join(", ")));
    tr.appendChild(el("td", "", f.reason));
    fbody.appendChild(tr);
  });
  if (!data.pinned.length) {
    const tr = el("tr");
    const td = el("td", "note", "no finding is pinned for these rows");
    td.colSpan = 3;
    tr.appendChild(td);
    fbody.appendChild(tr);
  }

  // the manifest
  const counts = {};
  data.rows.forEach((r) => { counts[r.manifest.status] = (counts[r.manifest.status] || 0) + 1; });
  $("manifest-summary").textContent = ["agrees", "differs", "not compared", "not pinned"]
    .filter((s) => counts[s]).map((s) => counts[s] + " " + s).join(", ");
  data.rows.forEach((r) => {
    if (r.manifest.status !== "differs") return;
    $("manifest-differs").appendChild(el("li", "", r.label + ": " + r.manifest.detail.join("; ")));
  });

  // a counterexample's drawing: the replay page, in a frame, filled in with its data
  function forScript(value) {
    return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g,
      (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }
  function showDrawing() {
    const m = /^#cex-(\d+)$/.exec(location.hash);
    const box = $("drawing-box");
    document.querySelectorAll("tr.target").forEach((tr) => tr.classList.remove("target"));
    if (!m || !data.drawings[Number(m[1])]) {
      box.hidden = true;
      return;
    }
    const d = data.drawings[Number(m[1])];
    const row = data.rows[d.row];
    $("drawing-title").textContent = row.label + ": " + d.property + " ("
      + d.behaviour.checker + "): " + d.behaviour.headline;
    const filled = forScript({ behaviours: [d.behaviour] });
    const page = data.replay_page.replace(data.replay_slot, () => filled);
    const frame = $("drawing");
    frame.dataset.drawing = m[1];
    frame.srcdoc = page;
    box.hidden = false;
    const tr = $("row-" + d.row);
    if (tr) tr.classList.add("target");
    box.scrollIntoView({ block: "start" });
  }
  $("drawing-close").addEventListener("click", (ev) => {
    ev.preventDefault();
    history.replaceState(null, "", location.pathname + location.search);
    showDrawing();
  });
  window.addEventListener("hashchange", showDrawing);

  render();
  showDrawing();
  document.body.dataset.ready = "1";
})();
"""
