"""The HTML summary of ``replcheck mine``: one self-contained, offline page (no script, no
external resource) with inline SVG plots: latency distributions, coverage per design,
violations per property, runs over time. Every text taken from the inputs is escaped (``esc``):
markup as text, control and bidirectional characters as their escapes."""

from __future__ import annotations

import html
from collections import Counter, defaultdict
from typing import Any

from replcheck.conformance.zookeeper.escape import printable

STATUS_COLOURS = {
    "accepted": "#2e7d32",
    "rejected": "#c62828",
    "undecided": "#ef6c00",
    "bad-input": "#6a1b9a",
}
BAR = "#1565c0"
NEVER = "#c62828"


def esc(value: Any) -> str:
    """``value`` as HTML text, quotes included; a control or bidirectional character (a run's
    znode names and files are anybody's text) shown as its escape, as the terminal shows it
    (``escape.printable``), so U+202E cannot reverse what follows it on the page."""
    return html.escape(printable(str(value)), quote=True)


def bars(title: str, items: list[tuple[str, float]], *, colours: list[str] | None = None) -> str:
    """A horizontal bar chart (one row per item, its label and value beside the bar)."""
    if not items:
        return f"<h3>{esc(title)}</h3><p class='empty'>nothing to plot</p>"
    width, row, label_w = 720, 18, 260
    top = max(v for _, v in items) or 1.0
    height = row * len(items) + 10
    parts = [
        f"<h3>{esc(title)}</h3>",
        f'<svg class="plot" role="img" aria-label="{esc(title)}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
    ]
    for i, (label, value) in enumerate(items):
        y = 5 + i * row
        w = 0 if value <= 0 else max(2.0, (width - label_w - 80) * value / top)
        colour = colours[i] if colours else BAR
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end" font-size="12">'
            f"{esc(label)}</text>"
            f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{row - 5}" '
            f'fill="{colour}"><title>{esc(label)}: {esc(_num(value))}</title></rect>'
            f'<text x="{label_w + w + 5:.1f}" y="{y + 13}" font-size="12">{esc(_num(value))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def step_branches(design: str, rows: list[dict[str, Any]]) -> str:
    """Per action, the share of its step's branches (``branch_cov``) the runs took, and the
    list of those they never took."""
    taken: Counter[str] = Counter()
    total: Counter[str] = Counter()
    never: list[str] = []
    for c in rows:
        if not c["in_model"]:
            continue
        action = c["action"].split("[", 1)[0]
        total[action] += 1
        if c["events"]:
            taken[action] += 1
        else:
            never.append(c["action"])
    order = sorted(total, key=lambda a: (taken[a] / total[a], a))
    share = [(f"{a} ({taken[a]}/{total[a]})", 100.0 * taken[a] / total[a]) for a in order]
    items = "".join(f"<li>{esc(n)}</li>" for n in sorted(never))
    return (
        bars(
            f"{design}: branches of each action's step taken, % "
            f"({sum(taken.values())} of {sum(total.values())})",
            share,
            colours=[NEVER if taken[a] == 0 else BAR for a in order],
        )
        + f"<details><summary>{len(never)} branches of {esc(design)}'s steps never taken"
        + f"</summary><ul class='never'>{items}</ul></details>"
    )


def histogram(title: str, values: list[float], *, bins: int = 20) -> str:
    """A histogram of ``values`` with its range on the axis."""
    if not values:
        return f"<h3>{esc(title)}</h3><p class='empty'>no samples</p>"
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / span * bins))] += 1
    width, height, pad = 720, 160, 30
    top = max(counts)
    bw = (width - 2 * pad) / bins
    parts = [
        f"<h3>{esc(title)}</h3>",
        f'<svg class="plot" role="img" aria-label="{esc(title)}" width="{width}" '
        f'height="{height + 20}" viewBox="0 0 {width} {height + 20}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{pad}" y1="{height}" x2="{width - pad}" y2="{height}" stroke="#444"/>',
    ]
    for i, c in enumerate(counts):
        h = (height - 20) * c / top
        x = pad + i * bw
        a, b = lo + i * span / bins, lo + (i + 1) * span / bins
        parts.append(
            f'<rect x="{x:.1f}" y="{height - h:.1f}" width="{bw - 1:.1f}" height="{h:.1f}" '
            f'fill="{BAR}"><title>{esc(_num(a))} to {esc(_num(b))}: {c}</title></rect>'
        )
    parts.append(
        f'<text x="{pad}" y="{height + 15}" font-size="12">{esc(_num(lo))}</text>'
        f'<text x="{width - pad}" y="{height + 15}" font-size="12" text-anchor="end">'
        f"{esc(_num(hi))}</text>"
        f'<text x="{width / 2}" y="{height + 15}" font-size="12" text-anchor="middle">'
        f"{len(values)} samples; tallest bar {top}</text></svg>"
    )
    return "".join(parts)


def over_time(runs: list[dict[str, Any]], *, bins: int = 30) -> str:
    """Runs by the time they started, stacked by status."""
    title = "Runs over time (by start, stacked by status)"
    timed = [r for r in runs if r.get("started") is not None]
    if not timed:
        return f"<h3>{esc(title)}</h3><p class='empty'>no run has a start time</p>"
    lo = min(r["started"] for r in timed)
    hi = max(r["started"] for r in timed)
    span = (hi - lo) or 1.0
    stacks: list[Counter[str]] = [Counter() for _ in range(bins)]
    for r in timed:
        stacks[min(bins - 1, int((r["started"] - lo) / span * bins))][r["status"]] += 1
    width, height, pad = 720, 160, 30
    top = max(sum(s.values()) for s in stacks) or 1
    bw = (width - 2 * pad) / bins
    parts = [
        f"<h3>{esc(title)}</h3>",
        f'<svg class="plot" role="img" aria-label="runs over time" width="{width}" '
        f'height="{height + 20}" viewBox="0 0 {width} {height + 20}" '
        'xmlns="http://www.w3.org/2000/svg">',
    ]
    for i, s in enumerate(stacks):
        y = float(height)
        for status, colour in STATUS_COLOURS.items():
            h = (height - 20) * s[status] / top
            if h:
                y -= h
                parts.append(
                    f'<rect x="{pad + i * bw:.1f}" y="{y:.1f}" width="{bw - 1:.1f}" '
                    f'height="{h:.1f}" fill="{colour}"><title>{esc(status)}: {s[status]}'
                    "</title></rect>"
                )
    parts.append(
        f'<text x="{pad}" y="{height + 15}" font-size="12">0 s</text>'
        f'<text x="{width - pad}" y="{height + 15}" font-size="12" text-anchor="end">'
        f"{esc(_num(span))} s after the first run started</text></svg>"
    )
    legend = " ".join(
        f'<span style="color:{c}">&#9632;</span> {esc(s)}' for s, c in STATUS_COLOURS.items()
    )
    parts.append(f"<p>{legend}</p>")
    return "".join(parts)


def _num(v: float) -> str:
    return f"{v:.3g}" if isinstance(v, float) and not float(v).is_integer() else f"{v:g}"


def render_html(summary: dict[str, Any], tables: dict[str, list[dict[str, Any]]]) -> str:
    """The whole page."""
    st = summary["status"]
    head = ", ".join(f"{n} {esc(s)}" for s, n in st.items())
    body = [
        "<h1>replcheck mine</h1>",
        f"<p>{summary['mined']} of {summary['planned']} runs mined ({head}); "
        f"{summary['events']} events."
        + (
            " <strong>Interrupted: not every run was mined.</strong>"
            if summary["interrupted"]
            else ""
        )
        + "</p>",
        "<h2>Verdicts</h2>",
        bars(
            "Runs per status",
            [(s, float(n)) for s, n in st.items()],
            colours=list(STATUS_COLOURS.values()),
        ),
        bars(
            "Violations per property",
            sorted(((p, float(n)) for p, n in summary["violations"].items()), key=lambda x: -x[1]),
        ),
        over_time(tables["runs"]),
        "<h2>Coverage per design</h2>",
        "<p>Model actions the runs took (their steps in the behaviours validation found, "
        "recorded branches by the events naming them), and the branches of "
        "the model's steps those behaviours went through; "
        f'<span style="color:{NEVER}">red rows are never exercised</span>.</p>',
    ]
    per_design: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in tables["coverage"]:
        per_design[c["design"]].append(c)
    for design, rows in sorted(per_design.items()):
        steps = [c for c in rows if c.get("kind") == "step branch"]
        rows = [c for c in rows if c.get("kind") != "step branch"]
        rows = sorted(rows, key=lambda c: (-c["events"], c["action"]))
        body.append(
            bars(
                f"{design}: steps per action",
                [(c["action"], float(c["events"])) for c in rows],
                colours=[NEVER if c["events"] == 0 else BAR for c in rows],
            )
        )
        never = summary["never_exercised"].get(design, [])
        body.append(
            f"<p class='never'>never exercised in {esc(design)}: "
            f"{esc(', '.join(never) or 'none')}</p>"
        )
        if steps:
            body.append(step_branches(design, steps))
    body.append("<h2>Latencies</h2>")
    dist: dict[str, list[float]] = defaultdict(list)
    for row in tables["latencies"]:
        dist[row["metric"]].append(row["value"])
    for metric, values in sorted(dist.items()):
        q = summary["latencies"].get(metric, {})
        stats = ", ".join(f"{k} {_num(v)}" for k, v in q.items())
        body.append(histogram(f"{metric} ({stats})", values))
    body.append("<h2>Races</h2><table><tr><th>statistic</th><th>total</th></tr>")
    for k, v in summary["races"].items():
        body.append(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>")
    body.append("</table>")
    body.append("<h2>Runs not accepted</h2><table><tr><th>run</th><th>verdict</th></tr>")
    for r in tables["runs"]:
        if r["status"] != "accepted":
            body.append(f"<tr><td>{esc(r['run'])}</td><td>{esc(r['verdict'])}</td></tr>")
    body.append("</table>")
    body.append("<h2>Quarantine</h2><table><tr><th>run</th><th>file</th><th>reason</th></tr>")
    for q in tables["quarantine"]:
        body.append(
            f"<tr><td>{esc(q['run'])}</td><td>{esc(q['file'])}</td><td>{esc(q['reason'])}</td></tr>"
        )
    body.append("</table>")
    style = (
        "body{font-family:sans-serif;margin:2em;max-width:1000px}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
        "font-size:13px;text-align:left}.never{color:#c62828}.empty{color:#777}"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>replcheck mine</title>"
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
