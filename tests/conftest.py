"""Fixtures shared by every test."""

from __future__ import annotations

from collections.abc import Iterator

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
