"""Every manifest entry must be reproduced exactly by a fresh exploration."""

from __future__ import annotations

import pytest
from replcheck.model import DESIGNS
from replcheck.specs import manifest

ENTRIES = manifest.load()
SLOW_STATES = 3000


def _param(entry: dict) -> object:
    marks = [pytest.mark.slow] if entry["states"] > SLOW_STATES else []
    return pytest.param(entry, id=f"{entry['design']}@{entry['config']}", marks=marks)


@pytest.mark.parametrize("entry", [_param(e) for e in ENTRIES])
def test_entry_reproduces(entry: dict) -> None:
    got = manifest.compute(entry["design"], entry["config"])
    assert manifest.compare(entry, got) == []


def test_manifest_covers_every_design_and_mutant() -> None:
    pinned = {(e["design"], e["config"]) for e in ENTRIES}
    assert pinned == set(manifest.targets())


def test_correct_designs_pass_except_pinned_findings() -> None:
    for e in ENTRIES:
        if DESIGNS[e["design"]].is_mutant():
            continue
        failed = [p for p, v in e["verdicts"].items() if v != "pass"]
        assert bool(failed) == ("finding" in e), (e["design"], e["config"], failed)


def test_every_mutant_is_caught() -> None:
    for e in ENTRIES:
        if DESIGNS[e["design"]].is_mutant():
            assert "fail" in e["verdicts"].values(), e["design"]
