"""A mutant changes one step without copying it (``model/engine/step.py``'s ``before`` and
``after``): the step keeps its arguments, instances, label and fairness, and every engine runs
the wrapped body."""

from __future__ import annotations

from typing import Any

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.catalogue import text_class
from replcheck.model.engine.step import Ctx, after, before, kinds_of
from replcheck.model.registry import register
from replcheck.model.table.designs import Table
from replcheck.model.table.wal import Wals


class _NeverRolls(Wals):
    @before(Wals.roll)
    def roll(self, t: Ctx, s: int, g: int, q: int) -> None:
        t.require(False)


class _PutClosesTheWal(Wals):
    @after(Wals.put)
    def put(self, t: Ctx, s: int, g: int, kind: int, q: int, j: int) -> None:
        t.wal_closed[self.slot(s, g, q)] = True


def _mutant(name: str, overrides: str, text: type) -> Any:
    cls = type(
        "M",
        (Table,),
        {
            "name": name,
            "mutant_of": "table",
            "overrides": overrides,
            "bug": "a test's wrapped step",
            "configs": ("t-std",),
            "text": text,
        },
    )
    register(cls)
    return get_design(name)


def _enabled(design: Any, kind: str) -> list[Any]:
    model = Model(design, STANDARD["t-std"])
    return [a for a in model.enabled(model.init()) if a[0] == kind]


def test_a_guard_added_before_a_step_keeps_its_instances_and_disables_them() -> None:
    base = Model(get_design("table"), STANDARD["t-std"])
    mutant = Model(_mutant("table/test-never-rolls", "roll", _NeverRolls), STANDARD["t-std"])
    cfg = STANDARD["t-std"]
    kinds = {k.name: k for k in kinds_of(text_class(base.design, cfg))}
    assert {k.name: k for k in kinds_of(text_class(mutant.design, cfg))}["roll"] == kinds["roll"]
    assert _enabled(base.design, "roll") and not _enabled(mutant.design, "roll")


@pytest.mark.parametrize("engine", ["default", "plain"])
def test_a_write_added_after_a_step_runs_with_the_steps_arguments(engine: str) -> None:
    design = _mutant("table/test-put-closes", "put", _PutClosesTheWal)
    model = Model(design, STANDARD["t-std"])
    if engine == "plain":
        from replcheck.model.engine.plain import PlainModel

        model = PlainModel(design, STANDARD["t-std"])
    (put, *_) = [a for a in model.enabled(model.init()) if a[0] == "put"]
    base = Model(get_design("table"), STANDARD["t-std"])
    assert put in base.enabled(base.init())  # the same instance, the same arguments
    after_put = model.step(model.init(), put)
    assert model.enabled(after_put) != base.enabled(base.step(base.init(), put))
