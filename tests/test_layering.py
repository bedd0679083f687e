"""The layout shows the architecture, and the layering goes one way (``../shared/DESIGN.md``'s
"Data flows one way: model <- specs, model <- conformance, and replcheck on top of all three").

Every import statement of the project's modules counts, wherever it is: at the top of a module,
inside a function (a lazy import), and ``importlib.import_module`` of a literal name. Only an
import under ``if TYPE_CHECKING:`` is left out: it is an annotation and never runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "model": "replcheck.model",
    "specs": "replcheck.specs",
    "conformance": "replcheck.conformance",
    "replcheck": "replcheck",
}
"""Each top-level folder and the package it is installed as (pyproject's ``package-dir``)."""

LAYER = {"replcheck.model": 0, "replcheck.specs": 1, "replcheck.conformance": 1, "replcheck": 2}
"""Lower layers never import higher ones; specs and conformance never import each other."""


def module_name(path: str) -> tuple[str, bool] | None:
    """The module a file of the checkout (``model/zk/text.py``) is, and whether it is a
    package's ``__init__``; None for a file of no package."""
    parts = list(Path(path).with_suffix("").parts)
    if not path.endswith(".py") or not parts or parts[0] not in PACKAGES:
        return None
    init = parts[-1] == "__init__"
    rest = parts[1:-1] if init else parts[1:]
    return ".".join([PACKAGES[parts[0]], *rest]), init


def sources() -> dict[str, tuple[str, str, bool]]:
    """Every module of the checkout: its name -> (file, source, is a package's ``__init__``)."""
    out: dict[str, tuple[str, str, bool]] = {}
    for folder in PACKAGES:
        for f in sorted((ROOT / folder).rglob("*.py")):
            rel = f.relative_to(ROOT).as_posix()
            named = module_name(rel)
            if named is not None:
                out[named[0]] = (rel, f.read_text(), named[1])
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.AST]:
    """Every import statement and ``import_module`` call, outside ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            yield from (n for stmt in node.orelse for n in _imports_in(stmt))
            continue
        yield from _imports_in(node)


def _imports_in(node: ast.AST) -> Iterator[ast.AST]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
        return
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
        yield node
    yield from _imports(node)


def graph(mods: dict[str, tuple[str, str, bool]] | None = None) -> nx.DiGraph:
    """Module -> the project's modules it imports, each edge with the lines that import it
    (``bench/layout.py`` gives the sources of another commit)."""
    mods = sources() if mods is None else mods
    g = nx.DiGraph()
    for name, (path, text, init) in mods.items():
        g.add_node(name, path=path)
        package = name if init else name.rpartition(".")[0]
        for node in _imports(ast.parse(text, path)):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in mods else base)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.Call) and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    targets = [arg.value]
            for target in targets:
                if target in mods and target != name:
                    g.add_edge(name, target)
                    g.edges[name, target].setdefault("lines", []).append(node.lineno)
    return g


def where(g: nx.DiGraph, a: str, b: str) -> str:
    return f"{g.nodes[a]['path']}:{g.edges[a, b]['lines'][0]} imports {b}"


def cycles(g: nx.DiGraph) -> list[list[tuple[str, str]]]:
    """One cycle (as its edges) of each group of modules that import each other."""
    groups = [c for c in nx.strongly_connected_components(g) if len(c) > 1]
    return [nx.find_cycle(g.subgraph(c)) for c in sorted(groups, key=sorted)]


def against_layers(g: nx.DiGraph) -> list[str]:
    """Each import of a module of the same or a higher layer, in another package."""
    return [
        where(g, a, b) for a, b in g.edges if top(a) != top(b) and LAYER[top(b)] >= LAYER[top(a)]
    ]


def top(name: str) -> str:
    return next(
        (
            p
            for p in ("replcheck.model", "replcheck.specs", "replcheck.conformance")
            if name == p or name.startswith(p + ".")
        ),
        "replcheck",
    )


def test_no_import_cycle_among_the_modules() -> None:
    g = graph()
    found = cycles(g)
    lines = []
    for cycle in found:
        lines.append(" -> ".join(a for a, _b in cycle) + f" -> {cycle[0][0]}")
        lines += [f"    {where(g, a, b)}" for a, b in cycle]
    assert not found, "import cycles:\n" + "\n".join(lines)


def test_the_layers_import_downwards_only() -> None:
    wrong = against_layers(graph())
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_the_graph_sees_lazy_imports_and_skips_annotations(tmp_path: Path) -> None:
    """The checker itself: a lazy import is an edge, an ``if TYPE_CHECKING:`` import is not."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from x import annotated\n"
        "def f():\n    from y import lazy\n    importlib.import_module('z')\n"
    )
    found = [
        getattr(n, "module", None) or n.args[0].value  # type: ignore[attr-defined]
        for n in _imports(ast.parse(source))
    ]
    assert found == ["typing", "y", "z"]


@pytest.mark.parametrize("folder", ["model", "conformance"])
def test_no_module_sits_in_the_package_root_but_the_entry_points(folder: str) -> None:
    """``model/`` and ``conformance/`` hold subpackages named for what they are; at their root
    only the package's entry modules."""
    allowed = {
        "model": {"__init__.py", "config.py", "registry.py"},
        "conformance": {"__init__.py"},
    }[folder]
    loose = sorted(f.name for f in (ROOT / folder).glob("*.py") if f.name not in allowed)
    assert not loose, f"{folder}/ has modules outside its subpackages: {loose}"
