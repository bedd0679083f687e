"""A design: a named bundle of action kinds, an initial state and decision rules behind one
interface.

Each action kind ``k`` is a step of the protocol text (``model/step.py``; every kind of the
ZooKeeper era), or, for the table-era steps not moved there yet, two methods: ``en_k(cfg, st)``
yields the argument tuples for which it is enabled, and ``do_k(cfg, st, *args)`` returns the next
state. Decision rules a design may get wrong (how it filters edits, parses queue ids, names a
claimed queue) are methods too. A *mutant* is a subclass that overrides exactly one named step or
rule (a text step through its ``text``) and says which bug it reproduces; a reviewer's own design
or mutant is a subclass in a file of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from .action import Action, ActionKind
from .config import Config
from .state import State


class Design:
    name: ClassVar[str] = "abstract"
    era: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    kinds: ClassVar[tuple[ActionKind, ...]] = ()

    # Set on mutants only.
    mutant_of: ClassVar[str | None] = None
    overrides: ClassVar[str | None] = None
    """The one named step (method) the mutant overrides."""
    bug: ClassVar[str] = ""
    """What goes wrong, with the HBase issue it reproduces when there is one."""
    configs: ClassVar[tuple[str, ...]] = ()
    """The standard configurations this design or mutant is checked under by default."""
    text: ClassVar[type | None] = None
    """The protocol text's class this design or mutant brings (``model/step.py``): a design's
    own steps, or a mutant's one override of a step, gate or rule written in the text. It is
    placed before the base design's text, so every engine reads the override."""

    def __init__(self) -> None:
        explicit = [k for k in self.kinds if hasattr(self, "en_" + k.name)]
        self._en = tuple((k.name, getattr(self, "en_" + k.name)) for k in explicit)
        self._en_of = dict(self._en)
        self._do = {k.name: getattr(self, "do_" + k.name) for k in explicit}
        self._kind = {k.name: k for k in self.kinds}

    def init(self, cfg: Config) -> State:
        raise NotImplementedError

    def enabled(self, cfg: Config, st: State) -> Iterator[Action]:
        for name, gen in self._en:
            for args in gen(cfg, st):
                yield Action(name, args)

    def enabled_args(self, cfg: Config, st: State, name: str) -> Iterator[tuple]:
        """The arguments for which kind ``name`` is enabled in ``st``: ``enabled`` for one kind.
        A kind whose step is only in the protocol text (``model/step.py``) has none here: the
        ``Model`` of a configuration that uses it takes its steps from the text."""
        gen = self._en_of.get(name)
        if gen is not None:
            yield from gen(cfg, st)

    def step(self, cfg: Config, st: State, action: Action) -> State:
        try:
            do = self._do[action.name]
        except KeyError:
            raise ValueError(f"design {self.name!r} has no action {action.name!r}") from None
        return do(cfg, st, *action.args)

    def kind(self, name: str) -> ActionKind:
        return self._kind[name]

    @classmethod
    def is_mutant(cls) -> bool:
        return cls.mutant_of is not None
