"""``TextModel``: the ``Model`` of a design whose steps are taken from the protocol text
(``model/step.py``, ``model/text.py``) rather than from explicit ``en_``/``do_`` methods.

Its interface is ``Model``'s: states are the readable ``TState`` values every property, drawing
and checker reads, and actions carry the arguments traces and drawings know them by. Underneath,
each state is laid out in the text's slots (``encode``), every instance's guard and update run
on plain values, and the slots are read back (``decode``). An instance's own arguments are
structural (which shipper slot, which claim child key); a step's ``label`` turns them into the
action's (the shipper's index on its server, the child's index in its SCP) by reading the view.

Today a configuration takes its steps from the text when it uses a component already written
only there (``model/bootstrap.py``: the bootstrap of ``hbase:replication``, ``table-naive``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .action import Action
from .config import Config
from .design import Design
from .model import Model
from .step import Reader, labels_of
from .text import FPY, Instance, Tx, is_true

Label = Callable[[Any, Any, Callable, tuple], tuple]


class NotCovered(ValueError):
    """The text does not yet cover the configuration a design whose steps are only in the text
    is asked to run under; the message is one line for the user."""


class TextModel(Model):
    def __init__(self, design: Design, cfg: Config) -> None:
        super().__init__(design, cfg)
        from replcheck.specs.flat_table import table_flat_class
        from replcheck.specs.flat_zk import FlatError

        try:
            cls = table_flat_class(design.name, cfg)
        except FlatError as e:
            raise NotCovered(f"{design.name} under {cfg.name}: {e}") from None
        self.text = cls(design, cfg)
        self.flat = self.text.model()
        self.labels: dict[str, Label] = {**getattr(self.text, "labels", {}), **labels_of(cls)}
        self._last: tuple[Any, dict, list[tuple[Action, Instance]]] | None = None

    def reader(self, st: Any) -> Reader:
        """The state's slots, for a rule or a view read outside a step."""
        return Reader(self.flat.encode(st).__getitem__)

    def _enabled(self, st: Any) -> tuple[dict, list[tuple[Action, Instance]]]:
        last = self._last
        if last is not None and (last[0] is st or last[0] == st):
            return last[1], last[2]
        values = self.flat.encode(st)
        get = values.__getitem__
        out = []
        for inst in self.flat.instances:
            if is_true(inst.guard(FPY, get)):
                label = self.labels.get(inst.name)
                args = label(self.text, st, get, inst.args) if label else inst.args
                out.append((Action(inst.name, args), inst))
        self._last = (st, values, out)
        return values, out

    def enabled(self, st: Any) -> list[Action]:
        return [a for a, _i in self._enabled(st)[1]]

    def step(self, st: Any, action: Action) -> Any:
        values, out = self._enabled(st)
        for a, inst in out:
            if a == action:
                return self._apply(values, inst)
        raise ValueError(f"{self.design.name}: {action} is not enabled here")

    def _apply(self, values: dict, inst: Instance) -> Any:
        tx = Tx(FPY, values)
        inst.apply(FPY, tx)
        nxt = dict(values)
        nxt.update(tx.new)
        return self.flat.decode(nxt)

    def successors(self, st: Any) -> Iterator[tuple[Action, Any]]:
        values, out = self._enabled(st)
        for a, inst in out:
            yield a, self._apply(values, inst)
