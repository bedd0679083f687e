"""The catalogue of designs: each by its name, and the protocol text that runs it.

The registry (``model/registry.py``) fills ``DESIGNS`` with the built-in designs and mutants and
a reviewer's own; each era's composition fills ``TEXTS`` (``model/zk/designs.py``,
``model/table/compose.py``). The engine reads both here and imports no design: the layering
goes one way, engine below the eras below the registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.composition import check_composition
from replcheck.model.engine.design import Design
from replcheck.model.engine.text import FlatError, FlatModel

DESIGNS: dict[str, type[Design]] = {}
"""Every registered design and mutant by name (``model/registry.py`` registers them)."""

TEXTS: dict[str, Callable[[Any, Config | None], type[Any]]] = {}
"""Per era, the function composing a design's text under a configuration."""


class RegistryError(ValueError):
    """A design that cannot be registered or found; the message is one line for the user."""


def get_design(name: str) -> Design:
    try:
        return DESIGNS[name]()
    except KeyError:
        known = ", ".join(sorted(DESIGNS))
        raise RegistryError(f"unknown design {name!r}; known: {known}") from None


def base_design(name: str) -> str:
    """The correct design ``name`` is a mutant of, through every ``mutant_of`` (``name`` itself
    for a correct design or a name the registry does not know)."""
    seen = set()
    while name in DESIGNS and name not in seen:
        seen.add(name)
        base = DESIGNS[name].mutant_of
        if not base:
            break
        name = base
    return name


def designs() -> list[str]:
    """Correct designs, in registration order."""
    return [n for n, c in DESIGNS.items() if not c.is_mutant()]


def mutants() -> list[str]:
    return [n for n, c in DESIGNS.items() if c.is_mutant()]


def text_class(design: Any, cfg: Config | None = None) -> type[Any]:
    """The text class of a design object under ``cfg`` (by default the design's first
    configuration), composed by its era; ``FlatError`` when there is none."""
    compose = TEXTS.get(getattr(type(design), "era", ""))
    if compose is None:
        raise FlatError(f"{design.name}: no protocol text for this design")
    cls = compose(design, cfg)
    if cls not in _COMPOSED_OK:
        check_composition(cls, _mutant_texts(design, cls, compose, cfg))
        _COMPOSED_OK.add(cls)
    return cls


_COMPOSED_OK: set[type] = set()
"""The composed texts ``check_composition`` let through."""


def _mutant_texts(design: Any, cls: type, compose: Callable, cfg: Config | None) -> set[type]:
    """The classes of mutant ``design``'s text ``cls`` that its correct design's text under
    ``cfg`` does not have: the mutant's own, which replace on purpose (none for a correct
    design)."""
    base = type(design).mutant_of
    root = base_design(base) if base else None
    if root is None or root not in DESIGNS:
        return set()
    return set(cls.__mro__) - set(compose(DESIGNS[root](), cfg).__mro__)


def flat_class(name: str, cfg: Config | None = None) -> type[Any]:
    """The text class of registered design (or mutant) ``name`` under ``cfg``."""
    return text_class(get_design(name), cfg)


def flat_layout(name: str, cfg: Config) -> Any:
    """The flat form of design (or mutant) ``name`` under ``cfg``: its layout and steps."""
    if cfg.joins or cfg.zombies:
        what = "servers joining" if cfg.joins else "zombie servers"
        raise FlatError(f"config {cfg.name!r}: {what} not in the flat model")
    return flat_class(name, cfg)(get_design(name), cfg)


def flat_model(name: str, cfg: Config) -> FlatModel:
    """The flat model of design (or mutant) ``name`` under ``cfg``."""
    return flat_layout(name, cfg).model()
