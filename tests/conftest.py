"""Fixtures shared by every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from replcheck.model import DESIGNS


@pytest.fixture(autouse=True)
def registry() -> Iterator[None]:
    """Undo whatever a test registers (a design file, a throwaway design), so that tests sharing
    a worker process never see each other's designs."""
    saved = dict(DESIGNS)
    yield
    DESIGNS.clear()
    DESIGNS.update(saved)


@pytest.fixture(autouse=True)
def counterexamples_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines save each counterexample they print (``replcheck.counterexamples``): into the
    test's own folder, never the checkout."""
    monkeypatch.setenv("REPLCHECK_COUNTEREXAMPLES", str(tmp_path / "replcheck-counterexamples"))
