"""Generate the reference pages of docs/ from the code and the manifest, so they cannot drift:

python -m replcheck.docs            # rewrite docs/properties.md and docs/mutants.md
"""

from __future__ import annotations

import sys
from pathlib import Path

from replcheck.model import ALL_PROPERTIES, DESIGNS, mutants, table_properties
from replcheck.model.registry import BUILTIN
from replcheck.specs import manifest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def properties_page() -> str:
    lines = [
        "# Properties",
        "",
        "Generated from `model/properties.py` and `model/table_properties.py` by",
        "`python -m replcheck.docs`.",
        "Invariants hold in every reachable state; step properties across every transition;",
        "liveness properties on every weakly fair behaviour once the environment's budgets",
        "(crashes, outages, admin commands) are spent.",
        "",
    ]
    lines += ["## The ZooKeeper era (`zk-lock`, `zk-multi`)", ""]
    for prop in ALL_PROPERTIES:
        lines += [f"### `{prop.name}` ({prop.kind})", "", prop.doc, ""]
    lines += [
        "## The table era (`table`, `table-doc`, `table-naive`)",
        "",
        "Each quotes the sentence of seed 004 it protects.",
        "",
    ]
    for prop in table_properties.ALL_PROPERTIES:
        lines += [f"### `{prop.name}` ({prop.kind})", "", prop.doc, ""]
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
    for name in (m for m in mutants() if m in BUILTIN):
        cls = DESIGNS[name]
        for config in cls.configs:
            entry = pinned.get((name, config), {})
            lengths = entry.get("counterexample_lengths", {})
            caught = ", ".join(f"`{p}` ({n})" for p, n in sorted(lengths.items())) or "-"
            lines.append(f"| `{name}` | `{cls.overrides}` | {config} | {caught} | {cls.bug} |")
    return "\n".join(lines) + "\n"


PAGES = {"properties.md": properties_page, "mutants.md": mutants_page}


def main() -> int:
    for filename, page in PAGES.items():
        (DOCS / filename).write_text(page())
        print(f"wrote docs/{filename}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
