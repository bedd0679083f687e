"""A composed text cannot lose a step (``model/engine/composition.py``): a name two classes of a
composition define is refused unless the upper one extends the lower (``super()``), the lower
is a hook, or the upper declares ``@replaces``; a step is never hidden by a helper."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from replcheck.model import DESIGNS, STANDARD, Model, get_design
from replcheck.model.engine import catalogue
from replcheck.model.engine.composition import (
    CompositionError,
    check_composition,
    problems,
    replaces,
)
from replcheck.model.engine.step import Ctx, step, steps_of
from replcheck.model.registry import register
from replcheck.model.table.cleaner import LogCleaner
from replcheck.model.table.compose import FEATURES
from replcheck.model.table.designs import Table
from replcheck.model.table.layout import TableFlat, config_features


def _each(text: Any) -> list[tuple]:
    return [(0,)]


class Wal:
    @step(params=("server",), fair=False, each=_each)
    def roll(self, t: Ctx, s: int) -> None:
        """log roll"""

    def encode(self, s: int) -> int:
        return s + 1

    def hook(self) -> bool:
        """A place left to fill."""
        return True


class SyncHelper:
    def roll(self, ops: Any, t: Any, cond: Any, s: int, g: int) -> None:
        """A helper with the step's name."""


class Extends:
    def encode(self, s: int) -> int:
        return super().encode(s) * 2  # type: ignore[misc]

    def hook(self) -> bool:
        return False


class Replaces:
    def encode(self, s: int) -> int:
        return 7


class Declares:
    @replaces(Wal)
    def encode(self, s: int) -> int:
        return 7


class Other:
    def encode(self, s: int) -> int:
        return super().encode(s)  # type: ignore[misc]


class DeclaresStale:
    @replaces(Wal)
    def encode(self, s: int) -> int:
        return 7


def test_a_helper_hiding_a_step_is_refused_naming_both() -> None:
    """The sync replication helper ``roll`` once hid the WAL feature's step in every sync
    configuration: now the composition itself is refused."""
    composed = type("Composed", (SyncHelper, Wal), {})
    with pytest.raises(CompositionError) as got:
        check_composition(composed)
    message = str(got.value)
    assert "\n" not in message
    assert "roll" in message and "SyncHelper" in message and "Wal" in message
    assert "hides the step" in message
    # a mutant's text may replace on purpose, but never hide a step
    assert problems(composed, {SyncHelper})


def test_a_replacement_must_extend_or_declare() -> None:
    assert problems(type("A", (Extends, Wal), {})) == []
    assert problems(type("B", (Declares, Wal), {})) == []
    (found,) = problems(type("C", (Replaces, Wal), {}))
    assert found.startswith("encode: the method of Replaces") and "@replaces(Wal)" in found
    # a mutant's own text replaces on purpose
    assert problems(type("D", (Replaces, Wal), {}), {Replaces}) == []


def test_a_declaration_names_what_it_replaces_so_a_feature_put_between_is_seen() -> None:
    (found,) = problems(type("E", (DeclaresStale, Other, Wal), {}))
    assert "declares it replaces Wal's" in found and "Other" in found


def test_a_hook_may_be_filled_without_calling_it() -> None:
    assert not [p for p in problems(type("F", (Extends, Wal), {})) if p.startswith("hook")]


def test_every_design_composes_under_every_configuration() -> None:
    """Every registered design and mutant, under every standard configuration its era can
    compose: no name is hidden or replaced unannounced."""
    checked = 0
    for name, cls in DESIGNS.items():
        compose = catalogue.TEXTS.get(getattr(cls, "era", ""))
        if compose is None:
            continue
        for cfg in STANDARD.values():
            design = cls()
            try:
                text = compose(design, cfg)
            except catalogue.FlatError:
                continue
            mutant = catalogue._mutant_texts(design, text, compose, cfg)
            assert problems(text, mutant) == [], (name, cfg.name)
            checked += 1
    assert checked >= len(DESIGNS)


ONLY_TRACED: dict[str, dict[str, Any]] = {"joins": {"joins": 1}, "zombies": {"zombies": True}}
"""Features no standard configuration uses, which trace validation switches on (servers joining a
recorded run, zombie servers of one): each on the standard configuration."""


def _step_names(cls: type) -> set[str]:
    return {s.name for s in steps_of(cls)}


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_every_step_of_a_feature_is_in_every_configuration_that_enables_it(feature: str) -> None:
    """Each step the feature's mixin defines, and each step of the era's base text, is a step
    of every design (and mutant) composed under a configuration that uses the feature."""
    module = FEATURES[feature]
    want = _step_names(module.FEATURE) | _step_names(TableFlat)
    configs = [c for c in STANDARD.values() if feature in dict(config_features(c))]
    if feature in ONLY_TRACED:
        configs.append(
            dataclasses.replace(STANDARD["t-std"], name="traced", **ONLY_TRACED[feature])
        )
    assert configs, f"no configuration uses {feature}"
    for name, cls in DESIGNS.items():
        if getattr(cls, "era", "") != "table":
            continue
        for cfg in configs:
            if cls.is_mutant() and cfg.name not in cls.configs:
                continue
            try:
                text = catalogue.text_class(cls(), cfg)
            except CompositionError:
                raise
            except catalogue.FlatError:
                continue  # a design with no text under this configuration (table-naive's)
            missing = want - _step_names(text)
            assert not missing, (name, cfg.name, sorted(missing))


def test_a_wal_rolls_under_sync_replication_when_a_slot_is_spare() -> None:
    """With three WAL slots (one kept for the roll ``drainSources`` takes), a sync
    configuration's servers roll their WALs as in every other configuration."""
    cfg = dataclasses.replace(STANDARD["t-sync"], name="t-sync-3-wals", wals_per_server=3)
    model = Model(get_design("table"), cfg)
    assert [a for a in model.enabled(model.init()) if a[0] == "roll"]
    two = Model(get_design("table"), STANDARD["t-sync"])
    assert not [a for a in two.enabled(two.init()) if a[0] == "roll"]


class _CleanerNeverRuns(LogCleaner):
    def cleaner_run_ok(self, t: Any) -> Any:
        return False


class _NeverRuns(Table):
    name = "table/test-cleaner-never-runs"
    mutant_of = "table"
    overrides = "cleaner_run_ok"
    bug = "a reviewer's cleaner that never gets through oldWALs"
    configs = ("t-std", "t-chore")
    text = _CleanerNeverRuns


def test_a_mutants_override_a_feature_replaces_is_refused_not_explored_as_the_base() -> None:
    """A reviewer's text deriving from a base component lands below the feature mixins: under
    ``t-chore``, whose ``cleaner_input`` feature replaces ``cleaner_run_ok``, the override
    would change nothing. It is refused there, naming the feature to derive from."""
    register(_NeverRuns)
    design = get_design(_NeverRuns.name)
    catalogue.text_class(design, STANDARD["t-std"])  # reached: the base's hook is replaced
    with pytest.raises(CompositionError) as got:
        catalogue.text_class(design, STANDARD["t-chore"])
    assert "never runs here" in str(got.value) and "CleanerInput" in str(got.value)
