"""A design: a named bundle of action kinds, an initial state and decision rules behind one
interface.

Each action kind is a step of the protocol text (``model/engine/step.py``), which every engine runs
(``model/engine/text_model.py``). Decision rules a design may get wrong (how it filters edits,
parses queue ids, names a claimed queue) are methods of the design in dual form
(``model/engine/logic.py``), which the text reads. A *mutant* is a subclass that overrides exactly
one named step or rule (a text step through its ``text``, which may also add new steps: ``adds``)
and says which bug it reproduces; a reviewer's own design or mutant is a subclass in a file of their
own.
"""

from __future__ import annotations

from typing import ClassVar

from replcheck.model.common.state import State
from replcheck.model.config import Config
from replcheck.model.engine.action import ActionKind


class Design:
    name: ClassVar[str] = "abstract"
    era: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    kinds: ClassVar[tuple[ActionKind, ...]] = ()

    # Set on mutants only.
    mutant_of: ClassVar[str | None] = None
    overrides: ClassVar[str | None] = None
    """The one named step (method) the mutant overrides."""
    adds: ClassVar[tuple[str, ...]] = ()
    """The names a mutant's ``text`` adds beside (or instead of) its override: new ``@step``s
    (actions), and any gate or helper they need. Each must be new to the base design's text."""
    bug: ClassVar[str] = ""
    """What goes wrong, with the HBase issue it reproduces when there is one."""
    configs: ClassVar[tuple[str, ...]] = ()
    """The standard configurations this design or mutant is checked under by default."""
    text: ClassVar[type | None] = None
    """The protocol text's class this design or mutant brings (``model/engine/step.py``): a design's
    own steps, or a mutant's one override of a step, gate or rule written in the text. It is
    placed before the base design's text, so every engine reads the override."""
    names_ordered: ClassVar[str] = ""
    """Why a step of this design depends on the order of the servers' names, where one does:
    renaming servers is then not a symmetry of it, and every engine explores it without
    symmetry reduction (which would merge states whose futures differ)."""

    def __init__(self) -> None:
        self._kind = {k.name: k for k in self.kinds}

    def init(self, cfg: Config) -> State:
        raise NotImplementedError

    def kind(self, name: str) -> ActionKind:
        return self._kind[name]

    @classmethod
    def is_mutant(cls) -> bool:
        return cls.mutant_of is not None
