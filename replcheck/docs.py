"""Generate the reference pages of docs/ from the code and the manifest, so they cannot drift:

python -m replcheck.docs            # rewrite docs/properties.md, docs/mutants.md and
                                    # docs/counterexamples/ (one drawn counterexample per mutant),
                                    # and the generated sections (below)
python -m replcheck.docs --fast     # only the pages that need no exploration, and the sections
python -m replcheck.docs --sections # only the generated sections of hand-written files

A generated section is the text between two marker lines of a hand-written file (``SECTIONS``):
the command overview of ``README.md`` and of ``replcheck/cli.py``'s docstring, read from the
argument parser itself, the table of exit statuses in ``docs/gate.md``, read from
``replcheck.exits``, the table of trace events to model actions in ``docs/validate.md``, read
from ``replcheck.conformance.validate.mapping``, every command with its options in
``docs/commands.md``, read from the parser, and the state spaces of ``docs/bench.md``, read from
``specs/manifest.json`` (which the tests hold to a fresh exploration).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from replcheck.model import (
    DESIGNS,
    STANDARD,
    Model,
    designs,
    get_design,
    mutants,
)
from replcheck.model.registry import BUILTIN
from replcheck.report import render_counterexample
from replcheck.specs import check, manifest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def properties_page() -> str:
    lines = [
        "# Properties",
        "",
        "Generated from the protocol text's properties (`model/zk/properties.py`,",
        "`model/table/properties.py` and `model/common/edit_properties.py`, each written once and",
        "checked by every engine) by `python -m replcheck.docs`.",
        "Invariants hold in every reachable state; step properties across every transition;",
        "liveness properties on every weakly fair behaviour once the environment's budgets",
        "(crashes, outages, admin commands) are spent.",
        "",
    ]
    lines += ["## The ZooKeeper era (`zk-lock`, `zk-multi`)", ""]
    for prop in Model(get_design("zk-lock"), STANDARD["std"]).properties:
        lines += [f"### `{prop.name}` ({prop.kind})", "", prop.doc, ""]
    lines += [
        "## The table era (`table`, `table-doc`, `table-naive`)",
        "",
        "Each quotes the sentence of seed 004 it protects.",
        "",
    ]
    table = get_design("table")
    seen = {prop.name for prop in Model(table, STANDARD["t-std"]).properties}
    for prop in Model(table, STANDARD["t-std"]).properties:
        lines += [f"### `{prop.name}` ({prop.kind})", "", prop.doc, ""]
    extra: dict[str, tuple[Any, list[str]]] = {}
    for config in type(table).configs:
        for prop in Model(table, STANDARD[config]).properties:
            if prop.name not in seen:
                extra.setdefault(prop.name, (prop, []))[1].append(config)
    if extra:
        lines += ["## Checked only where a configuration's feature is modelled", ""]
    for prop, configs in extra.values():
        where = ", ".join(f"`{c}`" for c in configs)
        lines += [f"### `{prop.name}` ({prop.kind}; {where})", "", prop.doc, ""]
    return "\n".join(lines)


def mutants_page() -> str:
    pinned = {(e["design"], e["config"]): e for e in manifest.load()}
    lines = [
        "# The mutant catalogue",
        "",
        "Generated from the registry and `specs/manifest.json` by `python -m replcheck.docs`.",
        "Each mutant overrides one named step of a design. *Caught by* lists the properties",
        "exhaustive exploration finds broken, with the length of the shortest counterexample.",
        "See any of them drawn step by step with",
        "`replcheck explore --design NAME --config CONFIG`.",
        "",
        "| mutant | overrides | config | caught by (steps) | bug |",
        "|---|---|---|---|---|",
    ]
    for name in builtin_mutants():
        cls = DESIGNS[name]
        for config in cls.configs:
            entry = pinned.get((name, config), {})
            lengths = entry.get("counterexample_lengths", {})
            caught = ", ".join(f"`{p}` ({n})" for p, n in sorted(lengths.items())) or "-"
            link = f"[`{name}`](counterexamples/{counterexample_file(name)})"
            lines.append(f"| {link} | `{cls.overrides}` | {config} | {caught} | {cls.bug} |")
    return "\n".join(lines) + "\n"


def builtin_mutants() -> list[str]:
    return [m for m in mutants() if m in BUILTIN]


def counterexample_file(mutant: str) -> str:
    return mutant.replace("/", "--") + ".md"


def counterexample_page(mutant: str) -> str:
    """The mutant's shortest counterexample on its first configuration, drawn step by step:
    a broken invariant or step property if there is one (the shortest of them), else a
    liveness property."""
    cls = DESIGNS[mutant]
    config = cls.configs[0]
    model = Model(DESIGNS[mutant](), STANDARD[config])
    result = check(model)
    cexes = sorted(
        result.counterexamples.values(),
        key=lambda c: (c.kind not in ("invariant", "step"), c.length, c.property),
    )
    lines = [
        f"# `{mutant}` on `{config}`",
        "",
        f"Generated by `python -m replcheck.docs`; reproduce with "
        f"`replcheck explore --design {mutant} --config {config}`.",
        "",
        f"**Overrides** `{cls.overrides}` of `{cls.mutant_of}`. **Bug:** {cls.bug}",
        "",
        "**Broken:** "
        + (", ".join(f"`{c.property}` ({c.length} steps)" for c in cexes) or "nothing"),
        "",
    ]
    if cexes:
        lines += ["```", render_counterexample(model, cexes[0]).rstrip(), "```"]
    return "\n".join(lines) + "\n"


def proofs_page() -> str:
    """``docs/proofs.md``: every Z3 proof about the decision rules, what it means for a reviewer,
    and which mutants are rule-level (from ``specs/proofs.py``; verdicts and times are in
    ``bench/results/proofs.md`` and ``replcheck prove``)."""
    from replcheck.specs import proofs

    lines = [
        "# Proofs about the decision rules",
        "",
        "Generated from `specs/proofs.py` by `python -m replcheck.docs`. Run them with",
        "`replcheck prove` (`--all` adds the mutants, `--json` for data); verdicts and times are",
        "in `bench/results/proofs.md`.",
        "",
        "The rules that decide safety (shouldReplicate, the log cleaner's rules, the claim",
        "guards, AddPeer's fence, queue-id and WAL-name formats and parsers) are written once, in",
        "dual form (`model/engine/logic.py`): the explicit model runs them on plain values, and "
        "these",
        "proofs build the very same rules over Z3 terms (`specs/z3ops.py`). A proof is Z3's",
        "`unsat` for the negation of the property, for all values of its inputs (integers are",
        "unbounded, names are strings of any length); a refutation comes with a concrete",
        "counterexample, which the tests re-evaluate with the plain rules.",
        "",
    ]
    for proof in proofs.PROOFS:
        era = {"zk": "ZooKeeper era", "table": "table era", "any": "both eras"}[proof.era]
        lines += [f"## `{proof.name}`: {proof.title}", ""]
        lines += [proof.meaning, ""]
        lines.append(f"- protects: {proof.protects}")
        lines.append(f"- designs: {era}")
        rules = ", ".join(f"`{r}`" for r in proof.rules) or "module-level rules only"
        lines.append(f"- design rules used: {rules}")
        lines.append(f"- bounds: {proof.bound}")
        if proof.expect == proofs.REFUTED:
            lines.append("- expected: **refuted** (it shows why the naming rule exists)")
        lines.append("")
    lines += [
        "## Mutants",
        "",
        "A mutant is *rule-level* when the step it overrides is a pure decision rule in dual",
        "form; the proofs of that rule must refute it with a counterexample. The others break a",
        "protocol step or decide from a scan of the state; exploration catches them.",
        "",
        "| mutant | overrides | rule-level | refuted by |",
        "|---|---|---|---|",
    ]
    for name in (m for m in mutants() if m in BUILTIN):
        cls = DESIGNS[name]
        if proofs.rule_level(cls):
            by = [
                p.name
                for p in proofs.proofs_for(cls)
                if cls.overrides in p.rules and p.expect == proofs.PROVED
            ]
            lines.append(f"| `{name}` | `{cls.overrides}` | yes | {', '.join(by)} |")
        else:
            why = proofs.non_rule_level_reason(cls)
            lines.append(f"| `{name}` | `{cls.overrides}` | no | - ({why}) |")
    return "\n".join(lines) + "\n"


def bmc_page() -> str:
    """``docs/bmc.md``: bounded model checking, the cross-check with exploration, and induction
    with its named lemmas (from ``specs/bmc.py``, ``model/zk/designs.py`` and
    ``specs/lemmas_zk.py``, ``specs/lemmas_table.py``; numbers are in ``bench/results/bmc.md``)."""
    from replcheck.model.engine import catalogue
    from replcheck.model.table import compose as table_compose
    from replcheck.model.table import layout as table_layout
    from replcheck.model.zk import designs as zk_designs
    from replcheck.model.zk.layout import FlatError
    from replcheck.specs import bmc, crosscheck, lemmas_table, lemmas_zk

    def para(doc: str | None) -> str:
        return " ".join((doc or "").split())

    lines = [
        "# Bounded model checking and induction",
        "",
        "Generated from `specs/bmc.py`, `model/zk/designs.py`, `model/table/layout.py`,",
        "`specs/lemmas_zk.py` and `specs/lemmas_table.py` by `python -m replcheck.docs`. Run",
        "with `replcheck prove --depth N` (bounded model checking beside exploration) and",
        "`replcheck prove --induction [--design D]`; `replcheck check",
        "--checkers explore,fuzz,proofs,bmc` adds the column `bmc_agrees` and `FAIL(b)` cells to",
        "the matrix. Times and depths are in `bench/results/bmc.md`.",
        "",
        "## What it checks",
        "",
        para(bmc.__doc__),
        "",
        "## The transition relation it unrolls",
        "",
        para(zk_designs.__doc__),
        "",
        para(table_layout.__doc__),
        "",
        "| design or mutant | flat form | small configuration |",
        "|---|---|---|",
    ]
    for name in (n for n in (*designs(), *mutants()) if n in BUILTIN):
        cfg = crosscheck.default_config(name)
        try:
            cls = catalogue.flat_class(name, cfg)
            catalogue.flat_model(name, cfg)
        except FlatError as exc:
            why = str(exc).split(": ", 1)[-1]
            lines.append(f"| `{name}` | none yet: {why} | `{cfg.name}` |")
            continue
        design_cls = type(get_design(name))
        if not design_cls.is_mutant():
            own = f"`{cls.__name__}`"
        else:
            base = catalogue.flat_class(design_cls.mutant_of or "", cfg).__name__
            what = design_cls.overrides or ", ".join(design_cls.adds)
            how = "text" if design_cls.text is not None else "dual-form rule"
            own = f"`{base}` with the mutant's {how} (`{what}`)"
        lines.append(f"| `{name}` | {own} | `{cfg.name}` |")
    lines += [
        "",
        "## The cross-check",
        "",
        para(crosscheck.__doc__),
        "",
        "## Induction",
        "",
        para(bmc.induct_invariants.__doc__),
        "",
        para(lemmas_zk.__doc__),
        "",
        "| lemma | designs | why it holds |",
        "|---|---|---|",
    ]
    found: dict[str, tuple[list[str], str]] = {}
    for design in lemmas_zk.INDUCTION_DESIGNS:
        z = catalogue.flat_class(design)(get_design(design), STANDARD["std"])
        for name, lemma in lemmas_zk.zk_lemmas(z).items():
            found.setdefault(name, ([], para(lemma.check.__doc__)))[0].append(design)
    for name, (users, why) in found.items():
        lines.append(f"| `{name}` | {', '.join(users)} | {why} |")
    lines += [
        "",
        "### The table era",
        "",
        para(lemmas_table.__doc__),
        "",
        "| lemma | designs | why it holds |",
        "|---|---|---|",
    ]
    found = {}
    for design in lemmas_table.INDUCTION_DESIGNS:
        cfg = STANDARD[lemmas_table.INDUCTION_CONFIG]
        z = table_compose.table_flat_class(design, cfg)(get_design(design), cfg)
        for name, lemma in lemmas_table.table_lemmas(z).items():
            found.setdefault(name, ([], para(lemma.check.__doc__)))[0].append(design)
    for name, (users, why) in found.items():
        lines.append(f"| `{name}` | {', '.join(users)} | {why} |")
    return "\n".join(lines) + "\n"


PAGES = {
    "properties.md": properties_page,
    "mutants.md": mutants_page,
    "proofs.md": proofs_page,
    "bmc.md": bmc_page,
}
"""Pages generated without exploring anything (checked by the fast tests)."""


def all_pages(fast: bool = False) -> dict[str, str]:
    pages = {filename: page() for filename, page in PAGES.items()}
    if not fast:
        for mutant in builtin_mutants():
            pages[f"counterexamples/{counterexample_file(mutant)}"] = counterexample_page(mutant)
    return pages


# --- generated sections of hand-written files -------------------------------------------------


def commands() -> list[tuple[str, str]]:
    """(name, one-line help) of every ``replcheck`` subcommand, in the parser's order."""
    from replcheck.cli import build_parser

    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return [(name, helps.get(name, "")) for name in action.choices]
    raise AssertionError("replcheck has no subcommands")


def command_lines(width: int, indent: str = "") -> list[str]:
    """``replcheck NAME  help`` per subcommand, the help wrapped to ``width`` columns."""
    rows = commands()
    left = max(len(f"replcheck {name}") for name, _help in rows) + 2
    lines: list[str] = []
    for name, text in rows:
        head = f"{indent}replcheck {name}".ljust(len(indent) + left)
        lines += textwrap.wrap(
            text, width, initial_indent=head, subsequent_indent=" " * len(head)
        ) or [head.rstrip()]
    return lines


def readme_commands() -> str:
    """The command overview of ``README.md``."""
    return "```\n" + "\n".join(command_lines(100)) + "\n```\n"


def cli_commands() -> str:
    """The command overview of ``replcheck/cli.py``'s docstring."""
    return "\n".join(command_lines(100, "    ")) + "\n"


def gate_exit_statuses() -> str:
    """The table of ``docs/gate.md``: every command's exit statuses (``replcheck.exits``)."""
    from replcheck import exits

    return exits.markdown_table()


def validate_event_mapping() -> str:
    """The table of ``docs/validate.md``: how each kind of trace event maps onto the model
    (``conformance/validate/mapping.py``'s ``RULES``)."""
    from replcheck.conformance.validate import mapping

    return mapping.table_markdown()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def commands_reference() -> str:
    """``docs/commands.md``: every ``replcheck`` command, its description and its options, read
    from the parser (what ``replcheck COMMAND --help`` says, as Markdown)."""
    from replcheck.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = ["```", *command_lines(100), "```", ""]
    for name, _help in commands():
        p = sub.choices[name]
        out += [f"## `replcheck {name}`", ""]
        out += [*textwrap.wrap(" ".join((p.description or "").split()), 100), ""]
        rows = []
        for action in p._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if action.option_strings:
                flag = ", ".join(action.option_strings)
                if action.nargs != 0:
                    flag += f" {action.metavar or action.dest.upper()}"
            else:
                flag = action.metavar or action.dest
            what = action.help or ""
            if action.choices and not isinstance(action, argparse._SubParsersAction):
                what += (" " if what else "") + f"(one of: {', '.join(map(str, action.choices))})"
            rows.append(f"| `{_cell(flag)}` | {_cell(what)} |")
        if rows:
            out += ["| argument | what it does |", "|---|---|", *rows, ""]
        out += [
            f"Exit statuses: `replcheck {name} --help`, or [the table](gate.md#exit-status).",
            "",
        ]
    return "\n".join(out)


def bench_state_spaces() -> str:
    """``docs/bench.md``: the state space of every correct design under each configuration it
    lists, with symmetry reduction, as ``specs/manifest.json`` pins it."""
    rows = ["| design | config | states | transitions | depth |", "|---|---|---:|---:|---:|"]
    for e in manifest.load():
        if DESIGNS.get(str(e["design"])) is None or DESIGNS[str(e["design"])].is_mutant():
            continue
        rows.append(
            f"| {e['design']} | {e['config']} | {int(e['states']):,} | "
            f"{int(e['transitions']):,} | {e['depth']} |"
        )
    return "\n".join(rows) + "\n"


SECTIONS: dict[tuple[str, str], Callable[[], str]] = {
    ("README.md", "commands"): readme_commands,
    ("replcheck/cli.py", "commands"): cli_commands,
    ("docs/gate.md", "exit-statuses"): gate_exit_statuses,
    ("docs/validate.md", "event-mapping"): validate_event_mapping,
    ("docs/commands.md", "reference"): commands_reference,
    ("docs/bench.md", "state-spaces"): bench_state_spaces,
}
"""(file relative to the repository, section name) -> the section's text."""


def markers(filename: str, name: str) -> tuple[str, str]:
    """The lines that open and close the generated section ``name`` of ``filename``: HTML
    comments in Markdown, reStructuredText comments in a docstring."""
    what = f"generated: {name} (python -m replcheck.docs --sections; do not edit)"
    if filename.endswith(".md"):
        return f"<!-- begin {what} -->", f"<!-- end generated: {name} -->"
    return f".. begin {what}", f".. end generated: {name}"


def split_section(text: str, filename: str, name: str) -> tuple[str, str, str]:
    """``text`` as (up to and including the opening marker line, the section, from the closing
    marker line on); ``ValueError`` when the markers are missing."""
    begin, end = markers(filename, name)
    head, found, rest = text.partition(begin + "\n")
    body, found_end, tail = rest.partition(end)
    if not found or not found_end:
        raise ValueError(f"{filename}: no generated section {name!r} ({begin!r} ... {end!r})")
    return head + begin + "\n", body, end + tail


def section(filename: str, name: str) -> str:
    """The generated section ``name`` as ``filename`` has it now."""
    return split_section((ROOT / filename).read_text(), filename, name)[1]


def write_sections() -> list[str]:
    """Rewrite every generated section; the files changed."""
    changed = []
    for (filename, name), make in SECTIONS.items():
        path = ROOT / filename
        head, body, tail = split_section(path.read_text(), filename, name)
        text = make()
        if text != body:
            path.write_text(head + text + tail)
            changed.append(filename)
    return changed


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for filename in write_sections():
        print(f"wrote the generated sections of {filename}", flush=True)
    if "--sections" in args:
        return 0
    for filename, text in all_pages("--fast" in args).items():
        path = DOCS / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote docs/{filename}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
