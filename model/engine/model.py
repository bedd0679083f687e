"""``Model``: a design under a configuration, the one object every checker takes.

    model = Model(get_design("zk-multi"), STANDARD["std"])
    s0 = model.init()
    for action in model.enabled(s0):
        s1 = model.step(s0, action)

``canonical`` maps a state to the representative of its class under renaming of region servers
(they are interchangeable), which is what symmetry reduction stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from replcheck.model.common.state import State
from replcheck.model.config import Config
from replcheck.model.engine.action import Action
from replcheck.model.engine.design import Design
from replcheck.model.engine.properties import Property


class Model:
    """The interface every checker, drawing and validator takes. A design's steps are the
    protocol text's; ``Model(design, cfg)`` is the engine that runs them under ``cfg``
    (``model/engine/choice.py``'s ``text_engine``: ``TextModel``'s generated program, or
    ``PlainModel``, the plain interpreter)."""

    def __new__(cls, design: Design, cfg: Config) -> Model:
        if cls is Model:
            got = _ENGINES[0](cfg, design) if _ENGINES else None
            if got is None:
                raise ValueError(f"{design.name}: no protocol text for this design")
            cls = got
        return super().__new__(cls)

    def __init__(self, design: Design, cfg: Config) -> None:
        self.design = design
        self.cfg = cfg
        self.invariants: tuple[Property, ...] = ()
        self.step_properties: tuple[Property, ...] = ()
        self.liveness: tuple[Property, ...] = ()
        """The text's properties (``model/engine/text_checks.py``), set by the engine that runs
        it."""
        self.fair_kinds = frozenset(k.name for k in design.kinds if k.fair)

    @property
    def properties(self) -> tuple[Property, ...]:
        return self.invariants + self.step_properties + self.liveness

    def init(self) -> State:
        return self.design.init(self.cfg)

    def enabled(self, st: State) -> list[Action]:
        raise NotImplementedError

    def enabled_args(self, st: State, name: str) -> list[tuple]:
        """The arguments of every enabled action of kind ``name``."""
        raise NotImplementedError

    def is_enabled(self, st: State, action: Action) -> bool:
        """Is ``action`` enabled in ``st`` (what a recorded event asks of a state)?"""
        return action.args in self.enabled_args(st, action.name)

    def step(self, st: State, action: Action) -> State:
        raise NotImplementedError

    def successors(self, st: State) -> Iterator[tuple[Action, State]]:
        """Every enabled action from ``st`` with the state it leads to."""
        raise NotImplementedError

    def successors_from_any(self, st: State) -> Iterator[tuple[Action, State]]:
        """``successors`` from a state that may be one no run reaches (an induction's): a step
        that cannot be taken there leads nowhere."""
        raise NotImplementedError

    def canonical(self, st: State) -> State:
        """The representative of the state's class under renaming of region servers (they are
        interchangeable), which symmetry reduction stores: the engine's, by the packed
        renamings every engine shares (``model/engine/canonical.py``)."""
        raise NotImplementedError


UNREADABLE = (AttributeError, IndexError, KeyError, TypeError, ValueError)
"""What reading a state no run reaches (an induction's) can raise."""


_ENGINES: list[Callable[[Config, Design], type[Model] | None]] = []
"""The function that picks the engine of a design's text (``model/engine/choice.py``)."""


def use_engines(choose: Callable[[Config, Design], type[Model] | None]) -> None:
    """Make ``choose`` the function ``Model(design, cfg)`` asks for the engine of a design."""
    _ENGINES[:] = [choose]
