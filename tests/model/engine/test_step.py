"""The protocol text's form (``model/engine/step.py``): ``@step``, ``require``, ``@gate`` and views,
read on plain values, on folded plain values and as terms."""

from __future__ import annotations

from typing import Any

import pytest
from replcheck.model.engine.logic import PY
from replcheck.model.engine.step import (
    Ctx,
    TextError,
    View,
    gate,
    instances_of,
    kinds_of,
    slot,
    step,
)
from replcheck.model.engine.text import FPY, Instance, Tx


class Counter(View):
    value = slot("n")
    flags = slot("flag", by="i")


class Text:
    """Two counters; ``bump`` adds one to a counter below 2, ``reset`` zeroes both while the
    switch is on; every ``bump`` waits for the switch too."""

    @step(params=("counter",), fair=True, each=lambda text: [(0,), (1,)])
    def bump(self, t: Ctx, c: int) -> None:
        """add one"""
        n = Counter(t, c).value
        t.require(n < 2)
        Counter(t, c).value = n + 1
        Counter(t, c).flags[n] = True

    @step(params=(), fair=False, each=lambda text: [()])
    def reset(self, t: Ctx) -> None:
        """zero both"""
        t.require(t[("on",)])
        for c in (0, 1):
            Counter(t, c).value = 0

    @gate("bump")
    def switched_on(self, t: Ctx, *args: Any) -> None:
        t.require(t[("on",)])


class Broken(Text):
    @step(params=(), fair=False, each=lambda text: [()])
    def reset(self, t: Ctx) -> None:
        """a guard after a write"""
        Counter(t, 0).value = 0
        t.require(t[("on",)])


STATE = {
    ("on",): True,
    ("n", 0): 2,
    ("n", 1): 0,
    **{("flag", c, i): False for c in (0, 1) for i in (0, 1)},
}


def _enabled(text: Any, state: dict) -> list[str]:
    return [i.label() for i in instances_of(text) if i.guard(FPY, state.__getitem__) is True]


def test_a_step_is_its_guard_and_its_update() -> None:
    assert _enabled(Text(), STATE) == ["bump(1,)", "reset()"]
    assert _enabled(Text(), {**STATE, ("on",): False}) == []
    (bump1,) = [i for i in instances_of(Text()) if i.label() == "bump(1,)"]
    tx = Tx(FPY, STATE)
    bump1.apply(FPY, tx)
    assert tx.new == {("n", 1): 1, ("flag", 1, 0): True}


def test_the_kinds_come_from_the_steps() -> None:
    assert [(k.name, k.params, k.fair, k.doc) for k in kinds_of(Text)] == [
        ("bump", ("counter",), True, "add one"),
        ("reset", (), False, "zero both"),
    ]


def test_an_override_replaces_the_step_of_the_same_name() -> None:
    assert [k.doc for k in kinds_of(Broken)] == ["add one", "a guard after a write"]


def test_a_guard_after_a_write_is_refused() -> None:
    (reset,) = [i for i in instances_of(Broken()) if i.name == "reset"]
    with pytest.raises(TextError):
        reset.apply(FPY, Tx(FPY, STATE))


class Terms:
    """Ops that build readable terms: a guard's conjuncts stay symbolic."""

    def and_(self, *xs: Any) -> str:
        return "(" + " & ".join(map(str, xs)) + ")"


class Sym:
    def __init__(self, name: str) -> None:
        self.name = name

    def __lt__(self, other: int) -> str:
        return f"{self.name}<{other}"

    def __add__(self, other: int) -> str:
        return f"{self.name}+{other}"

    def __str__(self) -> str:
        return self.name


def test_on_terms_the_guard_is_the_conjunction_of_what_is_required() -> None:
    (bump0,) = [i for i in instances_of(Text()) if i.label() == "bump(0,)"]
    guard = bump0.guard(Terms(), lambda k: Sym("on") if k == ("on",) else Sym("n0"))
    assert guard == "(on & n0<2)"
    instance: Instance = bump0
    assert instance.guard(PY, STATE.__getitem__) is False
