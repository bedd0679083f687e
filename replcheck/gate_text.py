"""The gate's report for a person: what ``replcheck check`` prints unless asked for ``--matrix``.

It fits in :data:`WIDTH` columns. One line per design and per mutant says its result, its
configurations, the property that caught it (a mutant), its states and its time; the rows of a
design that are green collapse into counts on that line. Only what is red or undecided (or whose
checker raised) is shown in full, one block per ``design@config`` row: every cell that is not
``ok``, and for a mutant the base row it was held against. Errors, base problems, credit notes and
notes follow, then the legend; the last line is the verdict (``Matrix.summary``), as in the full
matrix (``Matrix.render``, ``check --matrix``), ``--json`` and the JUnit file, which keep every
cell.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from replcheck.matrix import LETTERS

if TYPE_CHECKING:
    from replcheck.matrix import Matrix, Row

WIDTH = 100
"""The widest line of the report (the verdict line excepted: it is never cut)."""

_DESIGN_ORDER = ("ERROR", "RED", "UNDECIDED", "green", "reference")
_COUNT_ORDER = ("green", "RED", "UNDECIDED", "ERROR")
_MUTANT_ORDER = ("ERROR", "MISSED", "UNDECIDED", "caught")
ELLIPSIS = "..."


def compact_count(n: int | None) -> str:
    """``n`` states in at most six characters: ``812``, ``9,999``, ``77.7k``, ``1.23M``; ``-``
    when unknown."""
    if n is None:
        return "-"
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k" if n < 100_000 else f"{n // 1000}k"
    return f"{n / 1_000_000:.2f}M" if n < 100_000_000 else f"{n // 1_000_000}M"


def compact_seconds(s: float) -> str:
    """A duration in at most seven characters: ``0.4s``, ``12.3s``, ``3m05s``, ``2h03m``."""
    if s < 100:
        return f"{s:.1f}s"
    m, sec = divmod(round(s), 60)
    if m < 60:
        return f"{m}m{sec:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def _cut(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(0, width - len(ELLIPSIS))] + ELLIPSIS


def fit(
    rows: Sequence[Sequence[str]], flex: Sequence[tuple[int, int]], width: int = WIDTH
) -> list[str]:
    """``rows`` as aligned columns two spaces apart, no line wider than ``width``: while too
    wide, the columns of ``flex`` give up width in turn, each ``(column, floor)`` down to its
    floor before the next, their cells cut with ``...``."""
    if not rows:
        return []
    n = len(rows[0])
    widths = [max(len(r[i]) for r in rows) for i in range(n)]
    for column, floor in flex:
        excess = sum(widths) + 2 * (n - 1) - width
        if excess <= 0:
            break
        widths[column] = max(floor, widths[column] - excess)
    lines = []
    for r in rows:
        cells = [_cut(c, w).ljust(w) for c, w in zip(r, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return lines


def _wrap(text: str, indent: int = 4) -> list[str]:
    return textwrap.wrap(
        text,
        WIDTH,
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]


def _worst(statuses: Sequence[str], order: Sequence[str]) -> str:
    for s in order:
        if s in statuses:
            return s
    return statuses[0] if statuses else "-"


def _groups(rows: Sequence[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(r.design, []).append(r)
    return out


def _states(rows: Sequence[Row]) -> int | None:
    known = [r.states for r in rows if r.states is not None]
    return sum(known) if known else None


def _letters(row: Row, prop: str) -> str:
    return ",".join(LETTERS.get(c, c[:1]) for c in row.failed_by(prop))


def _design_configs(rows: Sequence[Row]) -> str:
    """``24 configs: 23 green, 1 RED (3 with a pinned finding)``."""
    asked = [r for r in rows if not r.reference]
    refs = len(rows) - len(asked)
    counts: dict[str, int] = {}
    for r in asked:
        counts[r.status] = counts.get(r.status, 0) + 1
    parts = [f"{counts[s]} {s}" for s in _COUNT_ORDER if counts.get(s)]
    text = f"{len(asked)} config{'s' if len(asked) != 1 else ''}" if asked else ""
    if parts:
        text += ": " + ", ".join(parts)
    pinned = sum(1 for r in asked if r.expected & set(r.failures))
    if pinned:
        text += f" ({pinned} with a pinned finding)"
    if refs:
        text += ("; " if text else "") + f"{refs} base reference row{'s' if refs != 1 else ''}"
    return text


def _caught_by(rows: Sequence[Row]) -> str:
    """The property that caught a mutant (and the checkers' letters), ``+N`` for more."""
    found: list[str] = []
    for r in rows:
        for p in r.credited:
            text = f"{p} ({_letters(r, p)})"
            if text not in found:
                found.append(text)
    if not found:
        if any(r.errors for r in rows):
            return "a checker raised"
        return "nothing credited"
    more = f" +{len(found) - 1}" if len(found) > 1 else ""
    return found[0] + more


def _full(row: Row) -> list[str]:
    """A row that is not green, in full: its cells that are not ``ok`` (nor ``-``), grouped by
    what they say, why a checker stopped, and for a mutant the base row it was held against."""
    by_cell: dict[str, list[str]] = {}
    questions = row.questions
    for p in questions:
        cell = row.cell(p)
        if cell not in ("ok", "-"):
            by_cell.setdefault(cell, []).append(p)
    head = f"{row.label}  {row.status}  {compact_count(row.states)} states  "
    lines = [head + compact_seconds(row.seconds)]
    for cell, props in sorted(by_cell.items(), key=lambda kv: kv[0] == "?"):
        what = "undecided" if cell == "?" else cell
        if cell == "?" and len(props) == len(questions) > 1:
            lines += _wrap(f"    {what}: all {len(props)} properties", 6)
        else:
            lines += _wrap(f"    {what}: {', '.join(props)}", 6)
    for checker, result in row.results.items():
        stopped = result.stats.get("stopped")
        if stopped:
            lines += _wrap(f"    {checker} stopped: {stopped}", 6)
    for prop, why in row.not_credited.items():
        lines += _wrap(f"    not credited: {prop}, {why}", 6)
    if row.is_mutant:
        lines += _wrap(f"    held against {row.against}", 6)
    for checker, err in row.errors.items():
        lines += _wrap(f"    {checker} raised: {err}", 6)
    return lines


def render_text(matrix: Matrix) -> str:
    """The report (see the module docstring)."""
    groups = _groups(matrix.rows)
    lines: list[str] = []
    designs = {d: rs for d, rs in groups.items() if not rs[0].is_mutant}
    mutants = {d: rs for d, rs in groups.items() if rs[0].is_mutant}
    checkers = ", ".join(matrix.checkers) or "none"
    total = sum(r.seconds for r in matrix.rows)
    lines += _wrap(
        f"replcheck check: {len(matrix.rows)} rows, {len(designs)} design(s) and {len(mutants)} "
        f"mutant(s); checkers: {checkers}; {compact_seconds(total)} of checking",
        2,
    )
    if designs:
        lines.append("")
        table = [["design", "result", "configurations", "states", "time"]]
        for name, rs in designs.items():
            status = _worst([r.status for r in rs], _DESIGN_ORDER)
            table.append(
                [
                    name,
                    status,
                    _design_configs(rs),
                    compact_count(_states(rs)),
                    compact_seconds(sum(r.seconds for r in rs)),
                ]
            )
        lines += fit(table, flex=((2, 24), (0, 12), (2, 8)))
    by_base: dict[str, dict[str, list[Row]]] = {}
    for name, rs in mutants.items():
        by_base.setdefault(rs[0].base_design or "?", {})[name] = rs
    if by_base:
        table = [["mutant", "result", "caught by", "configuration", "states", "time"]]
        titles: dict[int, str] = {}
        for base, group in by_base.items():
            caught = sum(1 for rs in group.values() if all(r.caught for r in rs))
            titles[len(table)] = f"mutants of {base}: {caught}/{len(group)} caught"
            for name, rs in group.items():
                short = name[len(base) + 1 :] if name.startswith(base + "/") else name
                table.append(
                    [
                        "  " + short,
                        _worst([r.status for r in rs], _MUTANT_ORDER),
                        _caught_by(rs),
                        ", ".join(r.config for r in rs),
                        compact_count(_states(rs)),
                        compact_seconds(sum(r.seconds for r in rs)),
                    ]
                )
        lines.append("")
        # the mutant's name is cut last: the property and the configuration first
        flex = ((2, 24), (3, 12), (2, 12), (0, 12), (3, 8), (2, 8))
        for i, line in enumerate(fit(table, flex=flex)):
            if i in titles:
                lines.append(titles[i])
            lines.append(line)
    shown = [r for r in matrix.rows if r.status in ("RED", "MISSED", "UNDECIDED", "ERROR")]
    if shown:
        lines.append("")
        lines.append(f"not green, in full ({len(shown)} row{'s' if len(shown) != 1 else ''}):")
        for r in shown:
            lines += _full(r)
    extra: list[str] = []
    for p in matrix.base_problems():
        extra += _wrap(f"error: {p}")
    for n in matrix.notes:
        extra += _wrap(f"note: {n}")
    if extra:
        lines.append("")
        lines += extra
    lines.append("")
    letters = ", ".join(f"{LETTERS.get(c, c[:1])} = {c}" for c in matrix.checkers)
    legend = f"caught by: the property a mutant fails and its base passes ({letters or 'none'})."
    legend += " States: explored (k thousands, M millions). Every cell: check --matrix, --json, "
    legend += "--junit, --html."
    lines += _wrap(legend, 0)
    lines.append(matrix.summary())
    return "\n".join(lines)
