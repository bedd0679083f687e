"""``replcheck replay --html FILE`` (and ``explore --html FILE``): one self-contained page.

The page works offline: its script, style and data are inline, and it loads nothing. It shows a
timeline with one lane per process (every trace event, faults, zxids, hidden steps, the events
the behaviour never reached greyed out), and for the selected step the znode tree or the
``hbase:replication`` rows with the lines the step changed marked, and the step's diff. The
divergence or the broken property is highlighted in the timeline and above the state.

Everything that comes from outside (znode names, event arguments, process names) is data: it is
written into the page as JSON inside a ``<script type="application/json">`` element, with ``<``,
``>`` and ``&`` escaped so no text can close the element, and the script puts it in the page
with ``textContent`` only, never as markup.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from replcheck.conformance.validate.replay import Behaviour, event_text
from replcheck.conformance.zookeeper.escape import printable
from replcheck.model.render.draw import render_diff, render_state

FAULTS = frozenset(
    {"fault", "crash", "sink_down", "sink_up", "master_restart", "lose_failover_event"}
)
"""Events and actions drawn as faults."""


class _Pool:
    """Each distinct text once; a reference is its index."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.index: dict[Any, int] = {}

    def add(self, item: Any) -> int:
        key = json.dumps(item) if not isinstance(item, str) else item
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(item)
        return self.index[key]


def behaviour_data(b: Behaviour, report: str = "", at: int | None = None) -> dict[str, Any]:
    """What the page needs of one behaviour, as JSON data. The page opens at step ``at``, or
    else at the failure: the step that breaks a property, the event that did not fit."""
    lines, states, diffs = _Pool(), _Pool(), _Pool()
    lanes = b.lanes()
    lane_of = {name: i for i, name in enumerate(lanes)}
    by_state: dict[int, int] = {}
    rows: list[dict[str, Any]] = []
    failure = b.failure
    for step in b.steps:
        key = id(step.state)
        if key not in by_state:
            text = render_state(b.cfg, step.state)
            by_state[key] = states.add([lines.add(x) for x in text.split("\n")])
        diff = ""
        if step.index and step.action is not None:
            diff = render_diff(b.cfg, b.steps[step.index - 1].state, step.state)
        row: dict[str, Any] = {
            "step": step.index,
            "lane": lane_of.get(step.lane, -1),
            "label": str(step.action) if step.action else _event_name(b, step.event) or "init",
            "described": b.described(step.index),
            "state": by_state[key],
            "diff": diffs.add(diff),
            "kind": _kind(b, step.event, step.action, step.hidden),
        }
        _event_fields(b, step.event, row)
        if failure is not None and failure.step == step.index:
            row["broken"] = failure.property
        rows.append(row)
    last_state = rows[-1]["state"]
    matched = b.matched_events()
    for n, e in enumerate(b.events):
        if n in matched:
            continue
        row = {
            "step": None,
            "lane": lane_of[e["proc"]],
            "label": _event_name(b, n),
            "described": event_text(e),
            "state": last_state,
            "diff": diffs.add(""),
            "kind": "unmatched",
        }
        _event_fields(b, n, row)
        if failure is not None and failure.kind == "divergence" and failure.event == n:
            row["kind"] = "divergence"
        rows.append(row)
    start = len(b.steps) - 1
    if failure is not None and failure.step is not None:
        start = failure.step
    elif failure is not None and failure.kind == "divergence":
        start = next((i for i, r in enumerate(rows) if r["kind"] == "divergence"), start)
    if at is not None:
        start = at
    return {
        "source": b.source,
        "design": b.design,
        "config": b.cfg.name,
        "headline": b.headline,
        "failed": failure is not None,
        "lanes": lanes,
        "lines": lines.items,
        "states": states.items,
        "diffs": diffs.items,
        "rows": rows,
        "start": start,
        "start_is_row": at is None and failure is not None and failure.kind == "divergence",
        "report": report,
    }


def _event_name(b: Behaviour, n: int | None) -> str:
    if n is None:
        return ""
    e = b.events[n]
    args = ", ".join(str(v) for v in (e.get("args") or {}).values())
    fault = (e.get("detail") or {}).get("fault") if e["name"] == "fault" else None
    return f"{e['name']}({args})" + (f" {fault}" if isinstance(fault, str) else "")


def _kind(b: Behaviour, n: int | None, action: Any, hidden: bool) -> str:
    if hidden:
        return "hidden"
    name = action.name if action is not None else (b.events[n]["name"] if n is not None else "")
    if name in FAULTS:
        return "fault"
    return "action" if action is not None else ("init" if n is None else "event")


def _event_fields(b: Behaviour, n: int | None, row: dict[str, Any]) -> None:
    if n is None:
        return
    e = b.events[n]
    row["event"] = n
    row["line"] = e.get("_line")
    if e.get("zxid") is not None:
        row["zxid"] = f"{e['zxid']:#x}"


def _json_for_script(data: Any) -> str:
    """JSON that cannot end the ``<script>`` element it sits in."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _shown(value: Any) -> Any:
    """The data with every string's control and bidirectional characters escaped, line by line
    (``escape.printable``): a znode or process name cannot reverse or hide what the page shows."""
    if isinstance(value, str):
        return "\n".join(printable(line) for line in value.split("\n"))
    if isinstance(value, list):
        return [_shown(v) for v in value]
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    return value


def render_page(behaviours: list[dict[str, Any]], title: str) -> str:
    data = _json_for_script({"behaviours": _shown(behaviours)})
    return (
        _TEMPLATE.replace("@TITLE@", html.escape(printable(title)))
        .replace("@STYLE@", _STYLE)
        .replace("@SCRIPT@", _SCRIPT)
        .replace("@DATA@", data)
    )


def page_template(title: str) -> str:
    """The page with everything but its data: ``@DATA@`` stands where the JSON of
    ``{"behaviours": [...]}`` goes, written as ``json_for_script`` writes it (``check --html``
    fills it in the browser, one counterexample at a time)."""
    return (
        _TEMPLATE.replace("@TITLE@", html.escape(title))
        .replace("@STYLE@", _STYLE)
        .replace("@SCRIPT@", _SCRIPT)
    )


json_for_script = _json_for_script


def write_page(path: Path, behaviours: list[dict[str, Any]], title: str) -> None:
    path.write_text(render_page(behaviours, title), encoding="utf-8")


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
  <div id="which"></div>
  <div id="headline"></div>
  <div id="help">click a step, or use ↑ ↓ (j k), Home, End ·
    <span class="key action"><span class="ev">model step</span></span>
    <span class="key event"><span class="ev">event, no model step</span></span>
    <span class="key fault"><span class="ev">fault</span></span>
    <span class="key hidden"><span class="ev">hidden step</span></span>
    <span class="key unmatched"><span class="ev">not reached</span></span>
    <span class="key broken"><span class="ev">divergence or broken property</span></span>
  </div>
</header>
<main>
  <section id="timeline"><table id="lanes"><thead></thead><tbody></tbody></table></section>
  <section id="detail">
    <div id="step"></div>
    <div id="banner"></div>
    <h2>what the step changed</h2>
    <pre id="diff"></pre>
    <h2>the state <span class="note">(lines the step changed are marked)</span></h2>
    <pre id="state"></pre>
    <details><summary>the report</summary><pre id="report"></pre></details>
  </section>
</main>
<script type="application/json" id="data">@DATA@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""

_STYLE = """
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.35 system-ui, sans-serif; color: #1b1f24; background: #fff; }
header { padding: 6px 12px; border-bottom: 1px solid #ccd; background: #f5f6f8; }
#headline { font-weight: 600; font-size: 15px; }
#headline.failed { color: #b3261e; }
#help, .note { color: #667; font-size: 12px; font-weight: normal; }
main { display: flex; height: calc(100vh - 62px); }
#timeline { flex: 0 0 58%; overflow: auto; border-right: 1px solid #ccd; }
#detail { flex: 1; overflow: auto; padding: 6px 12px; }
table { border-collapse: separate; border-spacing: 0; font-size: 12px; }
thead th { position: sticky; top: 0; background: #eef0f4; border-bottom: 1px solid #bbc;
  padding: 3px 6px; text-align: left; vertical-align: bottom; max-width: 130px;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-weight: 600; z-index: 1; }
thead th .sub { display: block; font-weight: normal; color: #667; font-size: 11px; }
td { padding: 1px 6px; border-right: 1px solid #eef; white-space: nowrap; max-width: 150px;
  overflow: hidden; text-overflow: ellipsis; }
td.n { color: #889; text-align: right; font-variant-numeric: tabular-nums; }
td.n, th.n { position: sticky; left: 0; width: 52px; min-width: 52px; max-width: 52px;
  background: #fff; white-space: nowrap; z-index: 1; box-shadow: -2px 0 0 #fff; }
td.n + td.n, th.n + th.n { left: 52px; border-right: 1px solid #ccd; }
th.n { z-index: 2; background: #eef0f4; }
tr { cursor: pointer; }
tr:hover td { background: #f3f6ff; }
tr.sel td { background: #dce6ff; }
.ev { display: inline-block; padding: 0 4px; border-radius: 3px; }
.action .ev { background: #e7f0e7; }
.event .ev { color: #556; }
.fault .ev { background: #ffe2c6; }
.hidden .ev { background: #eee; font-style: italic; }
tr.unmatched td, .key.unmatched { color: #aab; }
.divergence .ev, .broken .ev, tr.divergence td.n, tr.broken td.n {
  background: #b3261e; color: #fff; font-weight: 600; }
.z { color: #789; font-size: 11px; margin-left: 4px; }
#step { font-weight: 600; margin: 4px 0; }
#banner { margin: 6px 0; padding: 6px 8px; border-radius: 4px; display: none; }
#banner.show { display: block; background: #fde7e5; color: #8c1d18; border: 1px solid #f2b8b3; }
h2 { font-size: 13px; margin: 10px 0 4px; }
pre { margin: 0; padding: 6px; background: #f7f7f9; border: 1px solid #e3e3e8;
  font: 12px/1.35 ui-monospace, monospace; white-space: pre; overflow-x: auto; }
pre .add { color: #116329; } pre .del { color: #a40e26; } pre .chg { color: #7d4e00; }
pre .mark { background: #fff3b0; display: inline-block; min-width: 100%; }
select { font: inherit; }
"""

_SCRIPT = r"""
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const MARKS = { "+": "add", "-": "del", "~": "chg" };
  let b = null, rows = [], selected = -1, lastStep = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function stateLines(i) { return b.states[i].map((k) => b.lines[k]); }

  function choose(k) {
    b = data.behaviours[k];
    const head = $("headline");
    head.textContent = b.design + "@" + b.config + ": " + b.headline;
    head.className = b.failed ? "failed" : "";
    $("report").textContent = b.report || "";
    const thead = document.querySelector("#lanes thead");
    const tbody = document.querySelector("#lanes tbody");
    thead.textContent = ""; tbody.textContent = "";
    const hr = el("tr");
    hr.appendChild(el("th", "n", "step"));
    hr.appendChild(el("th", "n", "event"));
    b.lanes.forEach((name) => {
      // a region server's lane: its host, then its start code (the znode's name, shortened)
      const m = /^rs-([^,]+),(\d+),(\d+)$/.exec(name);
      const th = el("th", "", m ? "rs " + m[1] : name);
      if (m) th.appendChild(el("span", "sub", m[3]));
      th.title = name;
      hr.appendChild(th);
    });
    thead.appendChild(hr);
    const frag = document.createDocumentFragment();
    rows = b.rows.map((r, i) => {
      const tr = el("tr", r.kind + (r.broken ? " broken" : ""));
      tr.appendChild(el("td", "n", r.step === null ? "" : String(r.step)));
      tr.appendChild(el("td", "n", r.event === undefined ? "" : String(r.event)));
      for (let j = 0; j < b.lanes.length; j++) {
        const td = el("td");
        if (j === r.lane) {
          const ev = el("span", "ev", r.label);
          td.appendChild(ev);
          if (r.zxid) td.appendChild(el("span", "z", r.zxid));
          td.title = r.described;
        }
        tr.appendChild(td);
      }
      tr.addEventListener("click", () => select(i));
      frag.appendChild(tr);
      return tr;
    });
    tbody.appendChild(frag);
    lastStep = b.rows.filter((x) => x.step !== null).length - 1;
    const start = b.start_is_row ? b.start : b.rows.findIndex((r) => r.step === b.start);
    select(start < 0 ? 0 : start, true);
  }

  function previousState(i) {
    const r = b.rows[i];
    if (r.step === null || r.step === 0) return null;
    return b.rows[i - 1] ? b.rows[i - 1].state : null;
  }

  function select(i, scroll) {
    if (i < 0 || i >= rows.length) return;
    if (selected >= 0 && rows[selected]) rows[selected].classList.remove("sel");
    selected = i;
    const tr = rows[i];
    tr.classList.add("sel");
    const r = b.rows[i];
    if (scroll) (tr.cells[2 + r.lane] || tr).scrollIntoView({ block: "center", inline: "nearest" });
    let where = r.step === null ? "not reached" : "step " + r.step + " of " + lastStep;
    if (r.event !== undefined) {
      where += " · event " + r.event + " (line " + r.line + ") · " + b.lanes[r.lane];
    }
    if (r.zxid) where += " · zxid " + r.zxid;
    if (r.kind === "hidden") where += " · a hidden step (no event records it)";
    $("step").textContent = where + ": " + r.described;
    const banner = $("banner");
    banner.className = "";
    banner.textContent = "";
    if (r.broken) {
      banner.textContent = "this step breaks " + r.broken + ": " + b.headline;
      banner.className = "show";
    } else if (r.kind === "divergence") {
      document.querySelector("details").open = true;
      banner.textContent = "this event did not fit: no behaviour of the model gets past it ("
        + b.headline + "). The state shown is where the matched prefix ends.";
      banner.className = "show";
    } else if (r.kind === "unmatched") {
      banner.textContent = "this event was never reached: the behaviour stops before it.";
      banner.className = "show";
    }
    const diff = $("diff");
    diff.textContent = "";
    const dtext = b.diffs[r.diff];
    if (!dtext) {
      diff.textContent = r.step === 0 ? "(the initial state)"
        : r.step === null ? "(not matched: the model takes no step for it here; the report "
          + "says what it allowed instead)"
        : "(no model step: the state is unchanged)";
    } else {
      dtext.split("\n").forEach((line) => {
        diff.appendChild(el("span", MARKS[line.charAt(0)] || "", line + "\n"));
      });
    }
    const prev = previousState(i);
    const before = prev === null ? null : new Set(stateLines(prev));
    const state = $("state");
    state.textContent = "";
    const frag = document.createDocumentFragment();
    stateLines(r.state).forEach((line) => {
      const changed = before !== null && !before.has(line) && line.trim() !== "";
      frag.appendChild(changed ? el("span", "mark", line) : document.createTextNode(line));
      frag.appendChild(document.createTextNode("\n"));
    });
    state.appendChild(frag);
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.target && ev.target.tagName === "SELECT") return;
    const k = ev.key;
    if (k === "ArrowDown" || k === "j") { select(selected + 1, true); ev.preventDefault(); }
    else if (k === "ArrowUp" || k === "k") { select(selected - 1, true); ev.preventDefault(); }
    else if (k === "Home") { select(0, true); ev.preventDefault(); }
    else if (k === "End") { select(rows.length - 1, true); ev.preventDefault(); }
  });

  const which = $("which");
  if (data.behaviours.length > 1) {
    const sel = el("select");
    data.behaviours.forEach((x, k) => {
      const o = el("option", "", x.design + "@" + x.config + ": " + x.headline);
      o.value = String(k);
      sel.appendChild(o);
    });
    sel.addEventListener("change", () => choose(Number(sel.value)));
    which.appendChild(sel);
  } else if (data.behaviours.length) {
    which.textContent = data.behaviours[0].source;
  }
  if (data.behaviours.length) choose(0);
  document.body.dataset.ready = "1";
})();
"""
