"""``--max-memory`` bounds the liveness phase of every engine, not only the search: past the
limit the phase refuses to start, or stops, and its verdicts are undecided (never a pass, never a
``MemoryError``)."""

from __future__ import annotations

import importlib

import pytest
from replcheck.model import Model, get_design
from replcheck.specs import compiled_check
from replcheck.specs.results import PASS, UNKNOWN

from replcheck.matrix import resolve_config

CFG = "std:wals_per_server=1"

explore = importlib.import_module("replcheck.specs.explore")
"""The module (``replcheck.specs.explore`` is also the name of its function)."""


class Rising:
    """A memory reading that stays low while the search runs and passes the limit once the
    liveness phase has started: the phase must stop part way, not only refuse to start."""

    def __init__(self, after: int) -> None:
        self.calls = 0
        self.after = after

    def __call__(self) -> int:
        self.calls += 1
        return 10 if self.calls <= self.after else 10_000


@pytest.mark.parametrize("backend", ["c", "python"])
def test_the_compiled_liveness_phase_refuses_to_start_past_the_limit(backend: str) -> None:
    result = compiled_check.check_compiled(
        "zk-lock", resolve_config(CFG), backend=backend, max_memory=1
    )
    model = Model(get_design("zk-lock"), resolve_config(CFG))
    assert result.stats["complete"] is True  # the search ended: safety is decided
    assert result.verdicts["no_lost_edit"] == PASS
    for p in model.liveness:
        assert result.verdicts[p.name] == UNKNOWN
    assert "memory limit" in str(result.stats["stopped"])


def test_the_explicit_liveness_phase_stops_past_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = Model(get_design("zk-lock"), resolve_config(CFG))
    monkeypatch.setattr(explore, "memory_mib", Rising(after=1))
    monkeypatch.setattr(explore, "MEMORY_EVERY", 1)
    result = explore.check(model, max_memory=100)
    assert result.verdicts["no_lost_edit"] == PASS
    assert all(result.verdicts[p.name] == UNKNOWN for p in model.liveness)
    assert "memory limit" in str(result.stats["stopped"])


def test_the_compiled_liveness_phase_stops_part_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The estimate let the phase start; the process's memory then passed the limit."""
    monkeypatch.setattr(compiled_check, "memory_mib", Rising(after=2))
    monkeypatch.setattr(compiled_check, "MEMORY_EVERY", 1)
    monkeypatch.setattr(explore, "memory_mib", Rising(after=2))
    monkeypatch.setattr(explore, "MEMORY_EVERY", 1)
    result = compiled_check.check_compiled(
        "zk-lock", resolve_config(CFG), backend="python", max_memory=100
    )
    assert result.verdicts["no_lost_edit"] == PASS
    assert UNKNOWN in result.verdicts.values()
    assert "memory limit" in str(result.stats["stopped"])


def test_a_memory_error_in_the_liveness_phase_is_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(compiled_check, "fair_lasso", no_memory)
    result = compiled_check.check_compiled(
        "zk-lock", resolve_config(CFG), backend="python", max_memory=100_000
    )
    assert result.verdicts["no_lost_edit"] == PASS
    assert UNKNOWN in result.verdicts.values()
    assert "memory" in str(result.stats["stopped"])
