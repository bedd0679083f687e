"""Rendering results: text for people, JSON for tools, JUnit XML for CI. Results stay values
(``replcheck.specs.CheckResult``); nothing here runs a checker.

Text
----
``render_result`` prints a checker's statistics and one verdict line per property;
``render_counterexample`` tells a counterexample step by step: the initial state drawn as seed 000
draws znode layouts, then for every step the action (as typed, and with its parameters named), what
it changed, and the ``/hbase/replication/rs`` tree again whenever the step changed it. The state
where a liveness loop starts, and the last state, are drawn in full; a loop is marked where it
starts and where it closes, a stuck state is marked ``stuck``.

JSON (schema ``replcheck-results/1``)
-------------------------------------
::

    {
      "schema": "replcheck-results/1",
      "results": [                        # one per (checker, design, config)
        {
          "checker": "explore",           # or "fuzz", ...
          "design": "zk-lock",            # design or mutant name
          "mutant_of": null,              # the base design of a mutant
          "config": "std",                # configuration name (or its override spec)
          "config_params": {...},         # Config fields, when the model is known, else null
          "verdicts": {"no_lost_edit": "pass" | "fail" | "unknown", ...},
          "violated": ["..."],            # properties whose verdict is "fail"
          "stats": {"states": 77746, ...},  # checker statistics (JSON scalars)
          "counterexamples": [
            {
              "property": "single_source",
              "kind": "invariant" | "step" | "liveness",
              "length": 4,                # number of actions
              "actions": ["crash(0)", "lock(1, 0)", ...],   # parseable by parse_actions
              "described": ["crash(server=1.1.1.1,60020,123456780)", ...],  # when known
              "loop_start": null | 3,     # liveness: the loop starts after this many actions
              "stuck": false,             # liveness: nothing is enabled in the last state
              "note": ""
            }
          ]
        }
      ],
      "matrix": {                         # only from `replcheck check`
        "checkers": ["explore", "fuzz"], "properties": ["no_lost_edit", ...],
        "rows": [{"design": ..., "config": ..., "mutant_of": ..., "status": "green" | "RED" |
                  "UNDECIDED" | "caught" | "MISSED" | "ERROR" | "reference", "ok": true,
                  "undecided": ["prop", ...], "cells": {"prop": "ok" | "FAIL(e,h)" | "?" | "-"},
                  "failed_by": {"prop": ["explore"]}, "expected_failures": [...],
                  "errors": {"fuzz": "..."}, "seconds": 1.2,
                  "reference": false,     # a base row run only to hold mutants against
                  "held_against": null | {"design": "zk-lock", "config": "std",  # mutants
                      "label": "zk-lock@std", "reference": false, "status": "green"},
                  "credited": ["prop"],   # a mutant's failures its base row passed
                  "not_credited": {"prop": "its base fails it too"}}],
        "notes": [...], "references": ["zk-lock@std:servers=3"],
        "base_problems": ["base reference row ... fails ...; the gate fails"],
        "ok": true, "partial": false, "interrupted": false, "exit_code": 0,
        "summary": "PASS: ..."
      }
    }

Keys are only ever added to this schema, never renamed or removed, within version 1.

JUnit XML
---------
``render_junit(matrix)``: one ``testsuite`` per design or mutant, ``classname="<design>@<config>"``,
one ``testcase`` per expected verdict per checker, each with that checker's own time (a checker's
time on a row is shared among the verdicts it decided there, so the times add up to the run's).

* A correct design: ``<property> [<checker>]`` for every property the checker decided; it fails
  (``<failure>`` with the counterexample) when the checker found the property failing and it is
  not a pinned known finding. A property no checker decided is a ``<property> [undecided]`` case
  that fails with ``type="undecided"``: undecided is never a pass.
* A mutant: ``caught by <checker>`` per checker (``<skipped>`` when that checker did not catch it,
  the counterexample in ``<system-out>`` when it did), and one verdict case ``caught`` that fails
  once when no checker caught it (``mutant-missed``, or ``undecided`` when verdicts were left
  open, its own or its base row's). The ``caught`` case names the base row the mutant was held
  against (``held against zk-lock@std``, its ``<system-out>`` or failure message) and what was
  credited or not.
* A base reference row (run only to hold mutants against): ``<property> [<checker>] (base
  reference)``, failing as a correct design's would; what it leaves undecided is no case of its
  own (it was not asked), it shows in its mutants' ``caught``.
* A checker that raised adds ``<checker> run`` with an ``<error>``.
"""

from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from replcheck.model import Action, Model, State
from replcheck.model.render.draw import describe_action, render_diff, render_rs_tree, render_state
from replcheck.model.render.draw import rs_changed as _rs_changed
from replcheck.specs import FAIL, PASS, CheckResult, Counterexample

if TYPE_CHECKING:
    from replcheck.matrix import Matrix, Row

SCHEMA = "replcheck-results/1"

_MARK = {PASS: "ok", FAIL: "FAIL"}

# --- actions as text ---------------------------------------------------------------------------

_NAMED = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*", re.DOTALL)
_INT = re.compile(r"-?\d+")
_CLOSE = {"(": ")", "[": "]"}


def _split_top(text: str, seps: str) -> list[str]:
    """``text`` split at the characters of ``seps`` that are outside any parentheses/brackets."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in seps:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _parse_arg(item: str, n: int, arg: str) -> int | tuple[int, ...]:
    if _INT.fullmatch(arg):
        return int(arg)
    if arg[:1] in _CLOSE and arg[-1:] == _CLOSE[arg[0]]:
        inner = [x.strip() for x in arg[1:-1].split(",")]
        if inner and not inner[-1]:
            inner.pop()  # (1,) as Python writes a one-tuple
        if all(_INT.fullmatch(x) for x in inner):
            return tuple(int(x) for x in inner)
    raise ValueError(
        f"malformed action {item!r} (item {n}): {arg!r} is not an integer or a tuple of integers"
    )


def parse_actions(text: str) -> list[Action]:
    """Actions as the commands take them (``show``/``dump --actions``, a JSON counterexample):
    ``name(arg, ...)`` separated by ``;``, newlines or ``,`` (outside parentheses), an argument
    an integer or a tuple of integers in parentheses or brackets (``arqp_claim(0, (1, 2))``,
    ``arqp_claim(0, [1])``): what ``str(action)`` prints.
    Raises ``ValueError`` naming the malformed item."""
    out: list[Action] = []
    items = [i.strip() for i in _split_top(text, ";\n,")]
    for n, item in enumerate((i for i in items if i), start=1):
        m = _NAMED.fullmatch(item)
        if not m:
            raise ValueError(f"malformed action {item!r} (item {n}): expected name(arg, ...)")
        args = m.group(2)
        values: list[int | tuple[int, ...]] = []
        if args and args.strip():
            values = [_parse_arg(item, n, a.strip()) for a in _split_top(args, ",")]
        out.append(Action(m.group(1), tuple(values)))  # type: ignore[arg-type]
    return out


def _describe(model: Model | None, action: Action, before: State | None) -> str:
    if model is None:
        return str(action)
    return describe_action(model.design, action, model.cfg, before)


def _property(model: Model, name: str):
    for p in model.properties:
        if p.name == name:
            return p
    return None


# --- text ---------------------------------------------------------------------------------------


def _stats_line(result: CheckResult) -> str:
    s = dict(result.stats)
    parts: list[str] = []
    if "states" in s:
        parts.append(f"{s.pop('states'):,} states")
    if "transitions" in s:
        parts.append(f"{s.pop('transitions'):,} transitions")
    if "depth" in s:
        parts.append(f"depth {s.pop('depth')}")
    if "complete" in s:
        # say what stopped it: a limit (state, memory, depth), Ctrl-C or SIGTERM
        stopped = s.get("stopped")
        if s.pop("complete"):
            parts.append("complete" + (", liveness undecided" if stopped else ""))
        else:
            why = {"interrupted": "interrupted"}.get(str(stopped), f"{stopped} reached")
            parts.append(f"INCOMPLETE ({why if stopped else 'stopped early'})")
    if "symmetry" in s:
        parts.append("symmetry " + ("on" if s.pop("symmetry") else "off"))
    seconds = s.pop("seconds", None)
    parts.extend(
        f"{k} {v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{k} {v}"
        for k, v in s.items()
        if v is None or isinstance(v, bool | int | float | str)
    )
    if seconds is not None:
        parts.append(f"{seconds} s")
    return ", ".join(parts)


def render_result(
    result: CheckResult, model: Model | None = None, *, counterexamples: bool = True
) -> str:
    """A checker's statistics and verdicts; with ``model``, each counterexample told in full."""
    lines = [f"{result.checker} {result.design}@{result.config}: {_stats_line(result)}"]
    width = max((len(p) for p in result.verdicts), default=0)
    for prop, verdict in result.verdicts.items():
        mark = _MARK.get(verdict, "?")
        text = f"  {mark:<4}  {prop.ljust(width)}"
        cex = result.counterexamples.get(prop)
        if cex is not None:
            how = "stuck" if cex.stuck else ("loop" if cex.loop_start is not None else "")
            text += f"  counterexample: {cex.length} steps" + (f" ({how})" if how else "")
        lines.append(text.rstrip())
    verdict = "violated: " + ", ".join(result.violated) if result.violated else "no failure"
    lines.append(f"  {verdict}")
    if counterexamples and model is not None:
        for cex in result.counterexamples.values():
            lines.append("")
            lines.append(render_counterexample(model, cex))
    return "\n".join(lines)


def _indent(text: str, prefix: str = "  ") -> str:
    return textwrap.indent(text, prefix)


def render_counterexample(model: Model, cex: Counterexample) -> str:
    """A counterexample step by step, drawn as the seeds draw znode layouts."""
    cfg = model.cfg
    prop = _property(model, cex.property)
    lines = [f"counterexample: {cex.property} ({cex.kind}), {cex.length} steps"]
    if prop is not None and prop.doc:
        lines.append(textwrap.fill(prop.doc, 100, initial_indent="  ", subsequent_indent="  "))
    actions = cex.actions()
    lines.append("actions: " + ("; ".join(map(str, actions)) if actions else "(none)"))
    if cex.note:
        lines.append(f"note: {cex.note}")
    steps = cex.steps
    last = len(steps) - 1
    looping = cex.loop_start is not None and not cex.stuck
    for i, (action, st) in enumerate(steps):
        lines.append("")
        if i == 0 or action is None:
            lines.append("== initial state ==" if i == 0 else f"== step {i} ==")
            lines.append(render_state(cfg, st))
        else:
            before = steps[i - 1][1]
            lines.append(f"== step {i}: {action}  ->  {_describe(model, action, before)} ==")
            lines.append(_indent(render_diff(cfg, before, st)))
            if i == cex.loop_start or (i == last and not looping):
                lines += ["", render_state(cfg, st)]  # where the loop starts, and the end
            elif _rs_changed(before, st):
                lines += ["", render_rs_tree(cfg, st)]
        if looping and i == cex.loop_start:
            lines.append(f">> loop start: from here (after step {i}) the behaviour repeats forever")
    lines.append("")
    if cex.stuck:
        lines.append(
            f"!! stuck: no action is enabled in this state, and {cex.property} never holds"
        )
    elif looping:
        lines.append(
            f"<< loop end: back to the state after step {cex.loop_start} (up to renaming of "
            f"servers); this repeats forever and {cex.property} never holds"
        )
    elif cex.kind == "step":
        lines.append(f"!! {cex.property} does not hold across step {last}")
    else:
        lines.append(f"!! {cex.property} does not hold in this state")
    return "\n".join(lines)


# --- JSON -----------------------------------------------------------------------------------------


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    return str(value)


def counterexample_dict(cex: Counterexample, model: Model | None = None) -> dict[str, object]:
    """A counterexample as JSON data: its actions, as typed and (with ``model``) described."""
    out: dict[str, object] = {
        "property": cex.property,
        "kind": cex.kind,
        "length": cex.length,
        "actions": [str(a) for a in cex.actions()],
    }
    if model is not None:
        described = []
        for i in range(1, len(cex.steps)):
            action = cex.steps[i][0]
            if action is not None:
                described.append(_describe(model, action, cex.steps[i - 1][1]))
        out["described"] = described
    out["loop_start"] = cex.loop_start
    out["stuck"] = cex.stuck
    out["note"] = cex.note
    return out


def result_dict(result: CheckResult, model: Model | None = None) -> dict[str, object]:
    """A result as JSON data (one entry of the schema's ``results``)."""
    mutant_of = type(model.design).mutant_of if model is not None else None
    order = [p.name for p in model.properties] if model is not None else []
    names = sorted(
        result.counterexamples,
        key=lambda p: (p not in order, order.index(p) if p in order else 0, p),
    )
    return {
        "checker": result.checker,
        "design": result.design,
        "mutant_of": mutant_of,
        "config": result.config,
        "config_params": _jsonable(model.cfg.to_dict()) if model is not None else None,
        "verdicts": dict(result.verdicts),
        "violated": result.violated,
        "stats": _jsonable(dict(result.stats)),
        "counterexamples": [counterexample_dict(result.counterexamples[p], model) for p in names],
    }


def result_from_dict(data: dict, model: Model | None = None) -> CheckResult:
    """Rebuild a ``CheckResult`` from ``result_dict`` data. JSON keeps actions, not states: with
    ``model`` the states are recomputed by replaying the actions (``ValueError`` if they do not
    replay); without one every step's state is ``None``."""
    try:
        result = CheckResult(str(data["checker"]), str(data["design"]), str(data["config"]))
        result.verdicts = {str(k): str(v) for k, v in dict(data["verdicts"]).items()}
        result.stats = dict(data.get("stats") or {})
        for c in data.get("counterexamples") or []:
            actions = parse_actions("; ".join(c["actions"]))
            steps: list[tuple[Action | None, State | None]]
            if model is not None:
                steps = _replay(model, actions)
            else:
                steps = [(None, None), *((a, None) for a in actions)]
            result.counterexamples[c["property"]] = Counterexample(
                c["property"],
                c["kind"],
                steps,  # type: ignore[arg-type]
                loop_start=c.get("loop_start"),
                stuck=bool(c.get("stuck", False)),
                note=str(c.get("note", "")),
            )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a replcheck result: missing or malformed {exc}") from None
    return result


def _replay(model: Model, actions: Sequence[Action]) -> list[tuple[Action | None, State]]:
    st = model.init()
    steps: list[tuple[Action | None, State]] = [(None, st)]
    for n, action in enumerate(actions, start=1):
        try:
            st = model.step(st, action)
        except Exception as exc:
            raise ValueError(f"step {n}: {action} does not replay: {type(exc).__name__}") from None
        steps.append((action, st))
    return steps


def results_dict(
    results: Iterable[CheckResult | tuple[CheckResult, Model | None]],
) -> dict[str, object]:
    """The schema's top level for plain results (``explore``/``fuzz`` commands)."""
    out = []
    for item in results:
        result, model = item if isinstance(item, tuple) else (item, None)
        out.append(result_dict(result, model))
    return {"schema": SCHEMA, "results": out}


def row_dict(row: Row) -> dict[str, object]:
    props = row.questions
    return {
        "design": row.design,
        "config": row.config,
        "mutant_of": row.mutant_of,
        "status": row.status,
        "ok": row.ok,
        "undecided": row.undecided,
        "cells": {p: row.cell(p) for p in props},
        "failed_by": {p: row.failed_by(p) for p in props if row.failed_by(p)},
        "expected_failures": sorted(row.expected),
        "errors": dict(row.errors),
        "seconds": round(row.seconds, 3),
        "reference": row.reference,
        "held_against": _held_against(row),
        "credited": row.credited,
        "not_credited": row.not_credited,
    }


def _held_against(row: Row) -> dict[str, object] | None:
    """For a mutant: the base row it is held against (``None`` for a correct design)."""
    if not row.is_mutant:
        return None
    base = row.base
    return {
        "design": row.base_design,
        "config": row.config,
        "label": row.against,
        "reference": base.reference if base is not None else None,
        "status": base.status if base is not None else None,
    }


def matrix_dict(matrix: Matrix) -> dict[str, object]:
    """The schema's top level for a matrix (``check`` command)."""
    results = [(r, row.model) for row in matrix.rows for r in row.results.values()]
    out = results_dict(results)
    out["matrix"] = {
        "checkers": list(matrix.checkers),
        "properties": list(matrix.properties),
        "rows": [row_dict(row) for row in matrix.rows],
        "notes": list(matrix.notes),
        "references": [row.label for row in matrix.references],
        "base_problems": matrix.base_problems(),
        "ok": matrix.ok,
        "partial": matrix.partial,
        "interrupted": matrix.interrupted,
        "exit_code": matrix.exit_code,
        "summary": matrix.summary(),
    }
    return out


def to_json(data: dict[str, object]) -> str:
    return json.dumps(data, indent=2, sort_keys=False)


# --- JUnit XML ------------------------------------------------------------------------------------


def render_junit(matrix: Matrix) -> str:
    """The matrix as JUnit XML (see the module docstring for what passes)."""
    root = ET.Element("testsuites", name="replcheck")
    suites: dict[str, ET.Element] = {}
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    counts: dict[str, dict[str, int]] = {}
    times: dict[str, float] = {}

    def add_case(suite_name: str, classname: str, name: str, seconds: float) -> ET.Element:
        if suite_name not in suites:
            suites[suite_name] = ET.SubElement(root, "testsuite", name=suite_name)
            counts[suite_name] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
            times[suite_name] = 0.0
        counts[suite_name]["tests"] += 1
        times[suite_name] += seconds
        return ET.SubElement(
            suites[suite_name], "testcase", classname=classname, name=name, time=f"{seconds:.3f}"
        )

    def mark(case: ET.Element, suite: str, kind: str, message: str, type_: str, text: str) -> None:
        el = ET.SubElement(case, kind, message=message, type=type_)
        if text:
            el.text = text
        counts[suite][{"failure": "failures", "error": "errors"}[kind]] += 1

    for row in matrix.rows:
        suite = row.design
        ref = " (base reference)" if row.reference else ""
        for checker, result in row.results.items():
            decided = [p for p, v in result.verdicts.items() if v in (PASS, FAIL)]
            if row.is_mutant:
                # One case per checker: did this checker catch the mutant? The verdict itself
                # is the single ``caught`` case below.
                case = add_case(suite, row.label, f"caught by {checker}", row.times.get(checker, 0))
                mine = [p for p in result.violated if p in row.credited]
                if mine:
                    out = ET.SubElement(case, "system-out")
                    out.text = f"caught: {', '.join(mine)}\n\n" + "\n\n".join(
                        _cex_text_by(row, p, checker) for p in mine
                    )
                else:
                    ET.SubElement(case, "skipped", message=f"{checker} did not catch it")
                    counts[suite]["skipped"] += 1
                continue
            each = row.times.get(checker, 0.0) / max(len(decided), 1)
            for prop in decided:
                case = add_case(suite, row.label, f"{prop} [{checker}]{ref}", each)
                if result.verdicts[prop] != FAIL:
                    continue
                if prop in row.expected:
                    out = ET.SubElement(case, "system-out")
                    out.text = "pinned known finding\n\n" + _cex_text_by(row, prop, checker)
                else:
                    mark(
                        case,
                        suite,
                        "failure",
                        f"{prop} fails ({checker})",
                        "property-failed",
                        _cex_text_by(row, prop, checker),
                    )
        if row.is_mutant:
            case = add_case(suite, row.label, "caught", 0.0)
            held = f"held against {row.against}" + (
                " (base reference row)" if row.base is not None and row.base.reference else ""
            )
            not_credited = "; ".join(f"{p}: {why}" for p, why in row.not_credited.items())
            if row.caught:
                out = ET.SubElement(case, "system-out")
                out.text = f"{held}\ncredited: {', '.join(row.credited)}"
                if not_credited:
                    out.text += f"\nnot credited: {not_credited}"
            elif not row.errors:
                bug = getattr(type(row.model.design), "bug", "")
                text = f"{held}\n" + (f"not credited: {not_credited}\n" if not_credited else "")
                if row.left_open:
                    msg = (
                        f"mutant {row.design} not caught in {row.config} ({held}), and "
                        f"{len(row.left_open)} verdict(s) undecided: {', '.join(row.left_open)}"
                    )
                    mark(case, suite, "failure", msg, "undecided", text + bug)
                else:
                    msg = (
                        f"mutant {row.design} not caught in {row.config} ({held}): no property "
                        "fails that its base passes"
                    )
                    mark(case, suite, "failure", msg, "mutant-missed", text + bug)
        elif row.reference:
            pass  # not asked: what it leaves undecided counts only through its mutants
        else:
            for prop in row.undecided:
                case = add_case(suite, row.label, f"{prop} [undecided]", 0.0)
                mark(
                    case,
                    suite,
                    "failure",
                    f"{prop}: no checker reached a verdict (undecided is not a pass)",
                    "undecided",
                    "",
                )
        for checker, err in row.errors.items():
            case = add_case(suite, row.label, f"{checker} run", row.times.get(checker, 0.0))
            mark(case, suite, "error", err, "checker-error", err)

    for name, suite_el in suites.items():
        for key, value in counts[name].items():
            suite_el.set(key, str(value))
            totals[key] += value
        suite_el.set("time", f"{times[name]:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    notes = list(matrix.notes)
    if matrix.interrupted:
        notes.append("interrupted: the matrix is partial")
    if notes:
        props_el = ET.Element("properties")
        for i, note in enumerate(notes):
            ET.SubElement(props_el, "property", name=f"note{i}", value=note)
        for suite_el in suites.values():
            suite_el.insert(0, _copy(props_el))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _cex_text_by(row: Row, prop: str, checker: str) -> str:
    cex = row.results[checker].counterexamples.get(prop)
    if cex is None:
        return f"{checker}: {prop} fails (no counterexample recorded)"
    try:
        return render_counterexample(row.model, cex)
    except Exception as exc:  # a drawing must never hide the verdict
        return f"(could not draw the counterexample: {exc!r}) actions: " + "; ".join(
            map(str, cex.actions())
        )


def _copy(el: ET.Element) -> ET.Element:
    return ET.fromstring(ET.tostring(el))
