"""Fixtures shared by every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from replcheck.model import DESIGNS
from tiers import WHOLE


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``whole`` every test ``tests/tiers.py`` sends to the bench, but the representatives
    CI keeps. On a collection of the whole suite, an entry that names no test, or keeps an id
    that names no parameter, is an error: the table cannot go stale."""
    seen: dict[str, list[str]] = {}
    for item in items:
        base, _, rest = item.nodeid.partition("[")
        keep = WHOLE.get(base)
        if keep is None:
            continue
        param = rest[:-1]
        first = base not in seen
        seen.setdefault(base, []).append(param)
        if param not in keep and not ("FIRST" in keep and first):
            item.add_marker(pytest.mark.whole)
    if [str(a) for a in config.args] not in ([], ["tests"]) or config.option.keyword:
        return
    stale = [k for k in WHOLE if k not in seen]
    stale += [
        f"{k}[{i}]"
        for k, ids in WHOLE.items()
        for i in ids
        if i != "FIRST" and i not in seen.get(k, ())
    ]
    if stale:
        raise pytest.UsageError(f"tests/tiers.py names what the suite does not have: {stale}")


def _restored_registry() -> Iterator[None]:
    saved = dict(DESIGNS)
    yield
    DESIGNS.clear()
    DESIGNS.update(saved)


@pytest.fixture(autouse=True)
def registry() -> Iterator[None]:
    """Undo whatever a test registers (a design file, a throwaway design), so that tests sharing
    a worker process never see each other's designs."""
    yield from _restored_registry()


@pytest.fixture(autouse=True, scope="module")
def module_registry() -> Iterator[None]:
    """The same for a module's own fixtures: a module-scoped fixture that loads a design file
    (the gate page's hostile mutant) outlives every test's undo, and would otherwise leave its
    design to the next module in the worker."""
    yield from _restored_registry()


@pytest.fixture(autouse=True)
def counterexamples_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines save each counterexample they print (``replcheck.counterexamples``): into the
    test's own folder, never the checkout."""
    monkeypatch.setenv("REPLCHECK_COUNTEREXAMPLES", str(tmp_path / "replcheck-counterexamples"))
