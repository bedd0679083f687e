"""The layout at two commits, side by side (docs/bench.md, "The layout"):

    python bench/layout.py BEFORE AFTER

For each commit: the files and lines of each folder of the packages (``model/``, ``specs/``,
``conformance/``, ``replcheck/``, one level of subfolders), the largest files and functions, and
the import graph's cycles and imports against the layering, as ``tests/test_layering.py``
reads them (every import statement, lazy ones included). Sources are read from git, so the
working tree is not touched.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def _layering() -> Any:
    """``tests/test_layering.py``, whose reading of the import graph this measures."""
    spec = importlib.util.spec_from_file_location("_layering", ROOT / "tests" / "test_layering.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _folder(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) + "/" if len(parts) > 2 else parts[0] + "/ (root)"


def measure(rev: str) -> dict[str, Any]:
    """What ``rev`` holds: folders, largest files and functions, cycles, layering."""
    lay = _layering()
    files = [f for f in _git("ls-tree", "-r", "--name-only", rev).splitlines()]
    mods: dict[str, tuple[str, str, bool]] = {}
    for f in files:
        named = lay.module_name(f)
        if named is not None:
            mods[named[0]] = (f, _git("show", f"{rev}:{f}"), named[1])
    folders: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    sizes: list[tuple[int, str]] = []
    functions: list[tuple[int, str]] = []
    for path, text, _init in mods.values():
        lines = text.count("\n")
        folders[_folder(path)] += lines
        counts[_folder(path)] += 1
        sizes.append((lines, path))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((n, f"{path}:{node.name}"))
    g = lay.graph(mods)
    cycles = lay.cycles(g)
    return {
        "folders": {k: (counts[k], folders[k]) for k in folders},
        "files": sorted(sizes, reverse=True)[:10],
        "functions": sorted(functions, reverse=True)[:10],
        "modules": len(mods),
        "cycles": len(cycles),
        "in_cycles": sum(len(c) for c in cycles),
        "against_layers": len(lay.against_layers(g)),
    }


def render(before: str, after: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    out = [
        f"| | {before} | {after} |",
        "|---|---:|---:|",
        f"| modules | {a['modules']} | {b['modules']} |",
        f"| import cycles (groups of modules importing each other) | {a['cycles']} | "
        f"{b['cycles']} |",
        f"| imports against the layering | {a['against_layers']} | {b['against_layers']} |",
        "",
        f"| folder | files, lines at {before} | files, lines at {after} |",
        "|---|---:|---:|",
    ]
    for k in sorted(set(a["folders"]) | set(b["folders"])):
        fa, fb = a["folders"].get(k), b["folders"].get(k)
        cell_a = f"{fa[0]}, {fa[1]:,}" if fa else "-"
        cell_b = f"{fb[0]}, {fb[1]:,}" if fb else "-"
        out.append(f"| `{k}` | {cell_a} | {cell_b} |")
    for what in ("files", "functions"):
        out += ["", f"| largest {what} at {before} | lines | largest {what} at {after} | lines |"]
        out.append("|---|---:|---|---:|")
        for (na, wa), (nb, wb) in zip(a[what], b[what], strict=True):
            out.append(f"| `{wa}` | {na} | `{wb}` | {nb} |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python bench/layout.py BEFORE AFTER", file=sys.stderr)
        return 2
    try:
        a, b = (measure(rev) for rev in argv)
    except subprocess.CalledProcessError as e:
        print(f"bench/layout.py: {e.stderr.strip() or e}", file=sys.stderr)
        return 2
    print(render(*argv, a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
