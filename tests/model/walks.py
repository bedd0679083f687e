"""Hand-written behaviours for the model's tests: a design under a standard configuration, walked
through actions written as ``replcheck`` prints them, each checked to be enabled first."""

from __future__ import annotations

from typing import Any

from replcheck.model import STANDARD, Model, get_design

from replcheck.report import parse_actions


def run(name: str, config: str, *actions: str) -> tuple[Model, Any]:
    """Design ``name`` under ``config`` after ``actions`` (e.g. ``"migrate_server(0)"``)."""
    model = Model(get_design(name), STANDARD[config])
    st = model.init()
    for action in parse_actions("; ".join(actions)):
        assert action in model.enabled(st), (action, model.enabled(st))
        st = model.step(st, action)
    return model, st


def names(model: Model, st: Any) -> set[str]:
    """The kinds of the actions enabled in ``st``."""
    return {a.name for a in model.enabled(st)}


PREPARED = ("migration_step()",) * 3
"""DISABLE_CLEANER, PREPARE, DISABLE_PEER: the migration is at MIGRATE."""
