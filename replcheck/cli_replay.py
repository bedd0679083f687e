"""``replcheck replay``: one failing behaviour, for an engineer (docs/replay.md).

    replcheck replay SOURCE [--design NAME] [--config SPEC] [--property NAME]
                     [--step] [--at N] [--html FILE] [--export-test FILE] [--itf FILE]
                     [--shrink-seconds S] [--full]

SOURCE is a recorded trace (a ``trace.jsonl`` or a run folder), a counterexample printed by
``explore``, ``fuzz`` or ``check`` (their ``--json`` output, or their text output saved to a
file), the JSON of ``show --json``, or an action string as ``show --actions`` takes it
(``replay_source``). Replay prints the verdict and the divergence or violation as ``validate``
(a trace) or ``explore`` (a counterexample) print it, then writes what was asked:

* ``--html FILE``: a self-contained page with a timeline of every process (``replay_html``);
* ``--itf FILE``: the behaviour in the ITF trace format of Apalache and Quint (``conformance.itf``);
* ``--export-test FILE``: a pytest regression test of the shortest failing prefix, shrunk by
  delta debugging (``replay_export``); Ctrl-C while it shrinks writes the smallest test found
  so far, says on stderr and in the test's docstring that it is not minimal, and exits 130;
* ``--step``: a step debugger, started at ``--at N`` or at the failure (``replay_debug``).

Exit status: ``replcheck.exits.COMMANDS["replay"]`` (``replcheck replay --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.exits import Exit, epilog


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def _step(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a step number: {text!r}") from None


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="replay one behaviour (a trace, a counterexample, actions): debugger, HTML, test, ITF",
        description="Replay a recorded trace, a checker's counterexample or an action string "
        "through the model, print where it fails, and open it in a step debugger, an HTML "
        "timeline, a pytest regression test or an ITF trace (docs/replay.md).",
        epilog=epilog("replay"),
    )
    p.add_argument("source", metavar="SOURCE", help="trace, run folder, counterexample, actions")
    p.add_argument("--design", metavar="NAME", help="the design (actions; or to read a trace as)")
    p.add_argument("--config", metavar="SPEC", help="the configuration of an action string")
    p.add_argument(
        "--property", metavar="NAME", help="which counterexample, when the output holds several"
    )
    p.add_argument("--step", action="store_true", help="open the step debugger")
    p.add_argument(
        "--at", type=_step, metavar="N", help="the step the debugger and the page start at"
    )
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML page")
    p.add_argument("--itf", metavar="FILE", help="write the behaviour as an ITF trace (JSON)")
    p.add_argument(
        "--export-test", metavar="FILE", help="write a pytest test of the shortest failing prefix"
    )
    p.add_argument(
        "--shrink-seconds",
        type=_seconds,
        default=300.0,
        metavar="S",
        help="stop shrinking a trace after S seconds (default: 300); the test is then not minimal",
    )
    p.add_argument("--full", action="store_true", help="draw the states of a rejection in full")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from replcheck.replay_source import Request, SourceError, open_source

    outputs = [(f, getattr(args, f.lstrip("-").replace("-", "_"))) for f in OUTPUTS]
    for flag, path in outputs:
        if path:
            check_writable(flag, path)
    try:
        b = open_source(Request(args.source, args.design, args.config, args.property))
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    if args.at is not None and not 0 <= args.at < len(b.steps):
        raise UsageError(
            f"--at {args.at}: out of range; the behaviour has steps 0..{len(b.steps) - 1}"
        )
    report = render_report(b, full=args.full)
    sys.stdout.write(report + "\n")
    sys.stdout.flush()
    if args.itf:
        write_itf(b, Path(args.itf))
    if args.html:
        write_html(Path(args.html), [(b, report)], b.source, at=args.at)
        sys.stderr.write(f"replay: wrote {args.html}\n")
    if args.export_test and not _export(b, Path(args.export_test), args.shrink_seconds):
        return Exit.INTERRUPTED
    if args.step:
        from replcheck.replay_debug import Debugger, start_at

        Debugger(b, args.at if args.at is not None else start_at(b)).cmdloop()
    return exit_status(b)


OUTPUTS = ("--html", "--itf", "--export-test")


def exit_status(b: Any) -> Exit:
    """A trace the model could not judge is undecided (4); a rejected trace or a broken property
    fails (1); anything else passes."""
    status = b.verdict.status if b.verdict is not None else "accepted"
    if status == "undecided":
        return Exit.UNDECIDED
    if b.failure is not None or status != "accepted":
        return Exit.FAIL
    return Exit.OK


def check_writable(flag: str, path: str) -> None:
    """Refuse, before anything runs, an output file that could not be written afterwards."""

    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag} {path}: is a folder")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: no folder {parent}")
    existed = target.exists()
    try:
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write: {exc.strerror}") from None
    if not existed:
        target.unlink(missing_ok=True)


# --- the report -----------------------------------------------------------------------------------


def render_report(b: Any, *, full: bool = False) -> str:
    """What ``validate`` prints of a trace, or what ``explore`` prints of a counterexample."""
    from replcheck.cli_validate import render_text
    from replcheck.report import render_counterexample

    if b.verdict is not None:
        return render_text(b.verdict, full=full)
    head = f"{b.source}: {b.design}@{b.cfg.name}: {b.headline}"
    f = b.failure
    if f is None:
        actions = "; ".join(str(s.action) for s in b.steps[1:]) or "(none)"
        return f"{head}\nactions: {actions}"
    return head + "\n\n" + render_counterexample(b.model, counterexample(b))


def counterexample(b: Any) -> Any:
    """A behaviour of actions as the checkers' ``Counterexample`` (up to its failure)."""
    from replcheck.specs.results import Counterexample

    f = b.failure
    end = f.step if f.kind == "property" and f.step is not None else len(b.steps) - 1
    kind = next(p.kind for p in b.model.properties if p.name == f.property)
    steps = [(s.action, s.state) for s in b.steps[: end + 1]]
    return Counterexample(f.property, kind, steps, loop_start=b.loop_start, stuck=b.stuck)


# --- outputs --------------------------------------------------------------------------------------


def write_itf(b: Any, path: Path) -> None:
    from replcheck.conformance.trace.itf import to_itf

    path.write_text(json.dumps(to_itf(b), indent=1) + "\n", encoding="utf-8")
    sys.stderr.write(f"replay: wrote {path}\n")


def write_html(path: Path, items: list[tuple[Any, str]], title: str, at: int | None = None) -> None:
    """One page for one or more behaviours, each with its report."""
    from replcheck.replay_html import behaviour_data, write_page

    data = [
        behaviour_data(b, report, at if i == 0 else None) for i, (b, report) in enumerate(items)
    ]
    write_page(path, data, f"replcheck replay: {title}")


def write_results_html(path: Path, results: list[tuple[Any, Any]]) -> None:
    """``explore --html``: every counterexample of every result on one page."""
    from replcheck.conformance.validate.replay import ReplayError, from_actions
    from replcheck.report import render_counterexample

    items = []
    for result, model in results:
        for prop, cex in result.counterexamples.items():
            try:
                b = from_actions(
                    result.design,
                    model.cfg,
                    cex.actions(),
                    source=f"{result.checker} {result.design}@{result.config}",
                    kind="counterexample",
                    prop=prop,
                    loop_start=cex.loop_start,
                    stuck=cex.stuck,
                )
            except ReplayError as exc:
                sys.stderr.write(f"replcheck: {prop}: not drawn: {exc}\n")
                continue
            items.append((b, render_counterexample(model, cex)))
    if not items:
        sys.stderr.write(f"replcheck: no counterexample to draw; {path} not written\n")
        return
    write_html(path, items, "counterexamples")
    sys.stderr.write(f"replcheck: wrote {path}\n")


def _export(b: Any, path: Path, seconds: float) -> bool:
    """Write the regression test; False when Ctrl-C stopped the shrinking (the test written is
    then the smallest found so far, not minimal, and stderr says so)."""
    from replcheck.replay_export import NothingToExport, export

    def progress(tries: int, left: int) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\rreplay: shrinking: {tries} validations, {left} events left  ")
            sys.stderr.flush()

    try:
        exported = export(b, seconds=seconds, progress=progress)
    except NothingToExport as exc:
        raise UsageError(f"--export-test: {exc}") from None
    finally:
        if sys.stderr.isatty():
            sys.stderr.write("\n")
    path.write_text(exported.text, encoding="utf-8")
    if exported.interrupted:
        sys.stderr.write(
            f"replay: interrupted while shrinking: wrote {path}, the smallest test found so far, "
            f"NOT minimal: {exported.summary}\n"
        )
        return False
    sys.stderr.write(f"replay: wrote {path}: {exported.summary}\n")
    return True
