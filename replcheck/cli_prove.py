"""``replcheck prove``: proofs for all values about the model's decision rules (Z3).

    replcheck prove [--design NAME ...] [--all] [--proof NAME ...] [--timeout S] [--json]

Without ``--design``, every correct design's rules; ``--all`` adds every mutant (a rule-level
mutant must be refuted by a proof of the rule it breaks). Exit status: 0 when every proof
of a correct design came out as expected and every rule-level mutant was refuted, 1 otherwise,
2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


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
    p = sub.add_parser("prove", help="prove the decision rules for all values (Z3)")
    p.add_argument(
        "--design", action="append", metavar="NAME", help="design or mutant name (repeatable)"
    )
    p.add_argument("--all", action="store_true", help="every design and every mutant")
    p.add_argument("--proof", action="append", metavar="NAME", help="only this proof (repeatable)")
    p.add_argument(
        "--timeout",
        type=_positive(float),
        default=None,
        metavar="S",
        help="seconds per Z3 query (default 30)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_prove)


def cmd_prove(args: argparse.Namespace) -> int:
    from replcheck.cli import UsageError
    from replcheck.model import DESIGNS, designs, mutants
    from replcheck.specs import proofs

    names = list(args.design or [])
    if args.all:
        names = [*names, *designs(), *mutants()]
    for n in names:
        if n not in DESIGNS:
            raise UsageError(f"unknown design {n!r}; known: {', '.join(sorted(DESIGNS))}")
    only = list(args.proof or [])
    for n in only:
        if n not in proofs.BY_NAME:
            raise UsageError(f"unknown proof {n!r}; known: {', '.join(proofs.BY_NAME)}")
    timeout = args.timeout if args.timeout is not None else proofs.DEFAULT_TIMEOUT
    results = proofs.prove(names or None, timeout=timeout, only=only)
    ok = all(d.ok for d in results)
    if args.json:
        data: dict[str, Any] = {
            "ok": ok,
            "timeout": timeout,
            "designs": [d.to_dict() for d in results],
        }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(render(results) + "\n")
    return 0 if ok else 1


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
    verdict = "PASS" if good == len(results) else "FAIL"
    lines.append(f"{verdict}: {good}/{len(results)} designs and mutants as expected")
    return "\n".join(lines)
