"""Exploration stopped early says why, and leaves what it did not reach undecided: a state limit,
a memory limit, Ctrl-C (a partial result only when the caller asks for one)."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.specs.explore import check, explore
from replcheck.specs.results import UNKNOWN


def model() -> Model:
    return Model(get_design("zk-multi"), STANDARD["std"])


def interrupt(_states: int, _queued: int, _depth: int) -> None:
    raise KeyboardInterrupt


def test_a_state_limit_is_said_and_leaves_verdicts_undecided() -> None:
    result = check(model(), max_states=300)
    assert result.stats["stopped"] == "state limit" and result.stats["complete"] is False
    assert set(result.verdicts.values()) == {UNKNOWN}


def test_a_memory_limit_is_said() -> None:
    ex = explore(model(), max_memory=1)
    assert ex.stopped == "memory limit" and not ex.complete


def test_ctrl_c_gives_a_partial_result_only_when_asked() -> None:
    result = check(model(), progress=interrupt, partial_on_interrupt=True)
    assert result.stats["stopped"] == "interrupted" and result.stats["complete"] is False
    assert set(result.verdicts.values()) == {UNKNOWN}
    with pytest.raises(KeyboardInterrupt):
        check(model(), progress=interrupt)


def test_a_complete_run_says_nothing_stopped_it() -> None:
    result = check(Model(get_design("zk-lock"), STANDARD["race"]))
    assert result.stats["complete"] is True and result.stats["stopped"] is None
