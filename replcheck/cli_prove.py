"""``replcheck prove``: proofs for all values about the model's decision rules (Z3).

    replcheck prove [--design NAME ...] [--all] [--proof NAME ...] [--timeout S] [--json]
    replcheck prove --depth N [--design NAME ...] [--all] [--config NAME] [--timeout S] [--json]
    replcheck prove --induction [--design zk-multi|zk-lock|table|table-doc] [--timeout S] [--json]

Without ``--depth`` or ``--induction``: the proofs about the decision rules. Without
``--design``, every correct design's rules; ``--all`` adds every mutant (a rule-level mutant must
be refuted by a proof of the rule it breaks).

``--depth N``: bounded model checking of the transition relation (``specs/bmc.py``) of each
ZooKeeper-era design or mutant under a small configuration (a mutant's first, else ``std``, or
``--config``), depth 0 to N, reporting the first depth at which each property breaks, side by side
with exhaustive exploration's; ``--timeout`` bounds each design's search in seconds. A search
stopped at the time limit agreeing up to the depth it reached is ``TIMEOUT``: its own verdict,
undecided beyond that depth, never a pass.

``--induction``: induction for each invariant of ``zk-multi`` and ``zk-lock`` under ``std`` with
the named strengthening lemmas of ``specs/lemmas_zk.py``, and of ``table`` and ``table-doc`` under
``t-std`` with those of ``specs/lemmas_table.py`` (every one of them without ``--design``),
reporting the counterexample to induction where the step case fails.

Exit status: ``replcheck.exits.COMMANDS["prove"]`` (``replcheck prove --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
from typing import Any

from replcheck.cli_base import UsageError, guard, internal
from replcheck.exits import Exit, epilog


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError("must be positive")
        return value

    return parse


def add_commands(sub: Any) -> None:
    """Add ``prove`` to the CLI's subcommands."""
    from replcheck.counterexamples import HELP as SAVED

    p = sub.add_parser(
        "prove",
        help="prove the decision rules for all values (Z3)",
        description="Prove with Z3, for all values, what the decision rules promise, and refute "
        "the rule-level mutants with a counterexample (docs/proofs.md); --depth N: bounded "
        "model checking of the transition relation beside exhaustive exploration; --induction: "
        "the invariants inductive with named strengthening lemmas (docs/bmc.md). Writes one "
        "line per proof (or per design and depth, or per invariant) to stdout (--json: JSON), "
        "its last line the verdict (PASS, FAIL, UNDECIDED, TIMEOUT or INTERRUPTED); progress "
        "(--depth: a line per depth off a terminal) and errors go to stderr. " + SAVED + " "
        "Example: `replcheck prove --design zk-multi --proof zk-wal-done`",
        epilog=epilog("prove"),
    )
    p.add_argument(
        "--design", action="append", metavar="NAME", help="design or mutant name (repeatable)"
    )
    p.add_argument(
        "--design-file",
        action="append",
        metavar="PATH",
        help="load designs/mutants from a Python file first (repeatable); without --design, "
        "prove the designs it defines",
    )
    p.add_argument("--all", action="store_true", help="every design and every mutant")
    p.add_argument("--proof", action="append", metavar="NAME", help="only this proof (repeatable)")
    p.add_argument(
        "--timeout",
        type=_positive(float),
        default=None,
        metavar="S",
        help="rule proofs: seconds per Z3 query (default 30); with --depth: seconds for each "
        "design's whole bounded search, which then reports the depth it reached (default: no "
        "limit); with --induction: seconds per Z3 query of each invariant's induction step "
        "(default 120). A time limit gives an undecided verdict (exit 4), never a pass",
    )
    p.add_argument(
        "--depth",
        type=_positive(int),
        metavar="N",
        help="bounded model checking to depth N instead of the rule proofs",
    )
    p.add_argument("--config", metavar="NAME", help="with --depth: the standard configuration")
    p.add_argument(
        "--induction", action="store_true", help="induction with strengthening lemmas instead"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_prove)


def cmd_prove(args: argparse.Namespace) -> int:
    from replcheck.model import DESIGNS, designs, load_design_file, mutants
    from replcheck.specs import proofs

    loaded: list[str] = []
    for path in args.design_file or []:
        loaded.extend(load_design_file(path))
    names = list(args.design or dict.fromkeys(loaded))
    if args.all:
        names = [*names, *designs(), *mutants()]
    for n in names:
        if n not in DESIGNS:
            raise UsageError(f"unknown design {n!r}; known: {', '.join(sorted(DESIGNS))}")
    if args.depth is not None and args.induction:
        raise UsageError("--depth and --induction are two different checks: ask for one")
    if args.depth is not None:
        return cmd_bmc(args, names)
    if args.induction:
        return cmd_induction(args, names)
    if args.config:
        raise UsageError("--config applies to --depth only")
    only = list(args.proof or [])
    for n in only:
        if n not in proofs.BY_NAME:
            raise UsageError(f"unknown proof {n!r}; known: {', '.join(proofs.BY_NAME)}")
    timeout = args.timeout if args.timeout is not None else proofs.DEFAULT_TIMEOUT
    results = []
    interrupted = False
    try:
        for name in names or designs():
            results.extend(
                guard(f"prove {name}", lambda n=name: proofs.prove([n], timeout=timeout, only=only))
            )
    except KeyboardInterrupt:  # the designs proved so far, and no verdict
        interrupted = True
    ok = all(d.ok for d in results) and not interrupted
    code = Exit.OK if ok else Exit.FAIL
    if not ok and all(_undecided(d) for d in results if not d.ok):
        code = Exit.UNDECIDED
    if interrupted and code != Exit.FAIL:
        code = Exit.INTERRUPTED
    if args.json:
        data: dict[str, Any] = {
            "ok": ok,
            "undecided": code == Exit.UNDECIDED,
            "interrupted": interrupted,
            "timeout": timeout,
            "designs": [d.to_dict() for d in results],
        }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        text = render(results)
        if interrupted:  # the verdict line of what ran would read as the whole run's
            text = text.rpartition("\n")[0]
            text += f"\nINTERRUPTED (not a pass): {len(results)} design(s) proved before Ctrl-C"
        sys.stdout.write(text + "\n")
    return code


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _undecided(d: Any) -> bool:
    """A design whose proofs did not all come out as expected only because some were undecided
    (a time limit, a rule Z3 cannot read), none because a proof came out wrong."""
    from replcheck.specs.proofs import UNKNOWN

    wrong = [r for r in d.results if not r.ok and r.proof not in d.caught]
    if d.mutant_of is not None and d.rule_level and not d.caught:
        return any(r.verdict == UNKNOWN for r in d.results) and all(
            r.verdict == UNKNOWN for r in wrong
        )
    return bool(wrong) and all(r.verdict == UNKNOWN for r in wrong)


def render(results: list[Any]) -> str:
    """The proofs as text: per design, one line per proof."""
    lines = []
    for d in results:
        head = d.design + (f" (mutant of {d.mutant_of})" if d.mutant_of else "")
        if d.mutant_of:
            head += ": rule-level" if d.rule_level else ": not rule-level"
            head += f", refuted by {', '.join(d.caught)}" if d.caught else ""
        lines.append(head)
        if d.note:
            lines.append(f"  note: {d.note}")
        for r in d.results:
            mark = "ok " if r.ok or r.proof in d.caught else "BAD"
            line = f"  {mark} {r.verdict:8} {r.proof:26} {r.seconds:6.2f}s  {r.title}"
            lines.append(line.rstrip())
            if r.counterexample:
                values = ", ".join(f"{k}={v!r}" for k, v in r.counterexample.items())
                lines.append(f"        counterexample: {values}")
            if r.reason:
                lines.append(f"        undecided: {r.reason}")
    good = sum(d.ok for d in results)
    open_ = [d for d in results if not d.ok and _undecided(d)]
    if good == len(results):
        verdict = "PASS"
    elif len(open_) == len(results) - good:
        verdict = f"UNDECIDED (not a pass; {len(open_)} left undecided)"
    else:
        verdict = "FAIL"
    lines.append(f"{verdict}: {good}/{len(results)} designs and mutants as expected")
    return "\n".join(lines)


def cmd_bmc(args: argparse.Namespace, names: list[str]) -> int:
    from replcheck.matrix import check_fits, manifest_expected_failures
    from replcheck.model import STANDARD, designs, get_design
    from replcheck.model.engine.catalogue import flat_class
    from replcheck.model.zk.layout import FlatError
    from replcheck.specs.crosscheck import cross_check

    names = names or [n for n in designs() if type(get_design(n)).era == "zk"]
    cfg = None
    if args.config:
        if args.config not in STANDARD:
            raise UsageError(f"unknown configuration {args.config!r}")
        cfg = STANDARD[args.config]
    if args.all:  # every design that has a flat form
        names = [n for n in names if _has_flat_form(n)]
    for n in names:
        if cfg is not None:
            check_fits(n, cfg)  # ValueError: a configuration of the other era
        try:
            flat_class(n, cfg)
        except FlatError as exc:
            raise UsageError(str(exc)) from None
    pinned = manifest_expected_failures()
    results = []
    ok = True
    interrupted = False
    tty = _isatty(sys.stderr)
    for n in names:

        def progress(k: int, seconds: float, n: str = n) -> None:
            # on a terminal one line redrawn; elsewhere (a CI log, a file) a line per depth
            line = f"bmc {n}: depth {k}/{args.depth} done, {seconds:.1f}s"
            sys.stderr.write(f"\r{line}" if tty else f"{line}\n")
            sys.stderr.flush()

        try:
            cc = cross_check(n, cfg, args.depth, deadline=args.timeout, progress=progress)
        except KeyboardInterrupt:  # the designs checked so far, and no verdict
            interrupted = True
            break
        except ctypes.ArgumentError as exc:
            # Ctrl-C while Z3's bindings convert an argument reaches us wrapped in ctypes' error
            if "KeyboardInterrupt" not in str(exc):
                raise internal(f"prove --depth {n}", exc) from None
            interrupted = True
            break
        except Exception as exc:  # a design's code raised: one line, exit 3
            raise internal(f"prove --depth {n}", exc) from None
        finally:
            if tty:
                sys.stderr.write("\n")
        results.append(cc)
        cls = type(get_design(n))
        allowed = pinned.get((n, cc.config), frozenset())
        broken = set(cc.bounded) - set(allowed)
        if bmc_status(cc) == "disagree" or (not cls.is_mutant() and broken):
            ok = False
    timed_out = [r for r in results if bmc_status(r) == "timeout"]
    code = Exit.FAIL if not ok else (Exit.UNDECIDED if timed_out else Exit.OK)
    if interrupted and code != Exit.FAIL:
        code = Exit.INTERRUPTED
    if args.json:
        data = {
            "ok": code == Exit.OK,
            "undecided": code == Exit.UNDECIDED,
            "interrupted": interrupted,
            "depth": args.depth,
            "results": [{**r.to_dict(), "status": bmc_status(r)} for r in results],
        }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        text = render_bmc(results, failed=not ok)
        head, _nl, verdict = text.rpartition("\n")
        text = "\n".join([head, *_bmc_reproducers(results, cfg), verdict])
        if interrupted:  # the verdict line of what ran would read as the whole run's
            text = text.rpartition("\n")[0]
            text += f"\nINTERRUPTED (not a pass): {len(results)} design(s) checked before Ctrl-C"
        sys.stdout.write(text + "\n")
    return code


def _bmc_reproducers(results: list[Any], cfg: Any) -> list[str]:
    """Each replayed BMC counterexample's pytest test and saved file
    (``replcheck.counterexamples``), after a line naming it."""
    from replcheck.counterexamples import reproducer
    from replcheck.model import Model, get_design
    from replcheck.specs.crosscheck import default_config

    out = []
    for r in results:
        model = Model(get_design(r.design), cfg or default_config(r.design))
        for prop, cex in sorted(r.bmc.counterexamples.items()):
            if r.bmc.replayed.get(prop) and prop in {p.name for p in model.properties}:
                out += ["", f"bmc {r.design}@{r.config}: counterexample of {prop}"]
                out.append(reproducer(model, cex, "bmc"))
    return out


def bmc_status(r: Any) -> str:
    """``agree``: both engines found the same first depths to the full depth; ``timeout``: the
    bounded search stopped at the time limit, agreeing up to the depth it reached (undecided
    beyond it); ``disagree``: the engines differ."""
    if r.agree:
        return "agree"
    reached = r.bmc.reached
    explored = {p: d for p, d in r.explored.items() if d <= reached}
    bounded = {p: d for p, d in r.bounded.items() if d <= reached}
    if r.bmc.timed_out and explored == bounded and all(r.bmc.replayed.values()):
        return "timeout"
    return "disagree"


def _has_flat_form(name: str) -> bool:
    from replcheck.model.engine.catalogue import flat_class
    from replcheck.model.zk.layout import FlatError
    from replcheck.specs.crosscheck import default_config

    try:
        flat_class(name, default_config(name))
    except FlatError:
        return False
    return True


def render_bmc(results: list[Any], failed: bool | None = None) -> str:
    lines = []
    for r in results:
        reached = r.bmc.reached
        head = f"{r.design}@{r.config}: depth {reached}/{r.depth}"
        head += f" in {r.bmc.seconds:.1f}s (exploration exhausts it at depth {r.exhausted_at}"
        head += f", {r.explore_seconds:.1f}s)"
        lines.append(head)
        props = sorted(set(r.explored) | set(r.bounded))
        if not props:
            lines.append("  no property breaks within the depth (both engines)")
        for p in props:
            e, b = r.explored.get(p, "-"), r.bounded.get(p, "-")
            mark = "ok " if e == b else "BAD"
            replay = r.bmc.replayed.get(p)
            note = "" if replay is None else ("  replayed" if replay else "  NOT REPLAYABLE")
            lines.append(f"  {mark} {p:28} first broken at depth: bmc {b}, exploration {e}{note}")
        for note in r.notes:
            lines.append(f"  note: {note}")
        if r.bmc.timed_out:
            lines.append(
                f"  note: stopped at the time limit at depth {r.bmc.reached} of {r.depth}: "
                "undecided beyond it"
            )
    good = sum(r.agree for r in results)
    timed_out = sum(bmc_status(r) == "timeout" for r in results)
    disagree = any(bmc_status(r) == "disagree" for r in results)
    if failed or (failed is None and disagree):
        verdict = "FAIL"
    elif timed_out:
        verdict = f"TIMEOUT (not a pass; {timed_out} stopped at the time limit, agreeing so far)"
    else:
        verdict = "PASS"
    lines.append(f"{verdict}: the engines agree on {good}/{len(results)}")
    return "\n".join(lines)


def lemmas_of(name: str, by_design: dict[str, Any]) -> str | None:
    """The design whose strengthening lemmas ``name``'s induction assumes: its own, or those of
    the design it is a mutant of (a mutant is held to its base's lemmas: a step of its that
    breaks one is its counterexample to induction), or None."""
    from replcheck.model.registry import base_design

    for candidate in (name, base_design(name)):
        if candidate in by_design:
            return candidate
    return None


def cmd_induction(args: argparse.Namespace, names: list[str]) -> int:
    from replcheck.specs import lemmas_table, lemmas_zk

    by_design = {
        **{n: lemmas_zk.run_induction for n in lemmas_zk.INDUCTION_DESIGNS},
        **{n: lemmas_table.run_induction for n in lemmas_table.INDUCTION_DESIGNS},
    }
    names = names or list(by_design)
    runs = []
    for n in names:
        base = lemmas_of(n, by_design)
        if base is None:
            raise UsageError(
                f"--induction has strengthening lemmas for {', '.join(by_design)} and their "
                f"mutants only: {n} is neither"
            )
        runs.append((n, by_design[base]))
    timeout = args.timeout or 120.0
    results = [
        r
        for n, run in runs
        for r in guard(
            f"prove --induction {n}", lambda n=n, run=run: run(timeout=timeout, design=n)
        )
    ]
    ok = all(r.verdict == "inductive" for r in results)
    wrong = [r for r in results if r.verdict not in ("inductive", "unknown")]
    code = Exit.OK if ok else (Exit.FAIL if wrong else Exit.UNDECIDED)
    if args.json:
        data = {
            "ok": ok,
            "undecided": code == Exit.UNDECIDED,
            "results": [r.to_dict() for r in results],
        }
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    else:
        text = render_induction(results)
        head, _nl, verdict = text.rpartition("\n")
        text = "\n".join([head, *_induction_reproducers(results), verdict])
        sys.stdout.write(text + "\n")
    return code


def _induction_reproducers(results: list[Any]) -> list[str]:
    """Each counterexample to induction as a pytest test from the state it starts from, saved
    (``replcheck.counterexamples``)."""
    from replcheck.counterexamples import induction_reproducer
    from replcheck.model import STANDARD, Model, get_design

    out = []
    for r in results:
        if r.verdict == "not inductive":
            model = Model(get_design(r.design), STANDARD[r.config])
            out += ["", f"induction {r.design}@{r.config}: counterexample to {r.property}"]
            out.append(induction_reproducer(model, r))
    return out


def _elsewhere(design: str, config: str) -> list[str]:
    """A note where a mutant is caught in configurations other than the one the lemmas are
    written for: what the induction proved says nothing of those."""
    from replcheck.model import get_design

    d = get_design(design)
    if not d.is_mutant() or config in d.configs:
        return []
    return [
        f"  note: the induction is under {config}; {design} is caught under "
        f"{', '.join(d.configs)}, which it does not judge"
    ]


def render_induction(results: list[Any]) -> str:
    lines = []
    for r in results:
        lines.append(f"{r.verdict:14} {r.property:28} {r.seconds:6.1f}s  ({r.design}@{r.config})")
        if r.cti:
            lines.append(f"  counterexample to induction: the step {r.cti['step']}")
            lines.append(f"  breaks: {', '.join(r.cti['broken_after_step'])}")
            for k, (a, b) in list(r.cti["changed"].items())[:20]:
                lines.append(f"    {k}: {a} -> {b}")
    for design in dict.fromkeys(r.design for r in results):
        lemmas = next(r.lemmas for r in results if r.design == design)
        lines.append(f"{design}: lemmas assumed, each proved inductive with the rest:")
        lines.append(f"  {', '.join(lemmas)}")
        lines.extend(_elsewhere(design, next(r.config for r in results if r.design == design)))
    good = sum(r.verdict == "inductive" for r in results)
    wrong = any(r.verdict not in ("inductive", "unknown") for r in results)
    verdict = "PASS" if good == len(results) else ("FAIL" if wrong else "UNDECIDED (not a pass)")
    lines.append(f"{verdict}: {good}/{len(results)} inductive")
    return "\n".join(lines)
