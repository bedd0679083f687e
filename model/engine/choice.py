"""Which engine runs a design's text under a configuration: ``TextModel``'s generated program
(``model/engine/text_model.py``) or the plain interpreter (``model/engine/plain.py``).
``Model(design, cfg)`` asks ``text_engine`` (``model/engine/model.py``'s ``use_engines``)."""

from __future__ import annotations

from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.catalogue import RegistryError, text_class
from replcheck.model.engine.model import Model, use_engines
from replcheck.model.engine.plain import PlainModel
from replcheck.model.engine.text import FlatError
from replcheck.model.engine.text_model import TextModel

TEXT_SLOTS = 2000
"""The largest layout (in slots) run as generated Python: its program compiles in
a few seconds (``std:servers=3,crashes=2`` has 1,186 slots; eight servers, 5,997 slots, take a
minute). A larger configuration runs on the plain interpreter (``model/engine/plain.py``)."""


def text_engine(cfg: Config, design: Any) -> type[Model] | None:
    """The ``Model`` that runs ``design``'s text under ``cfg`` (None: a design of no era):
    ``TextModel``'s generated program within ``TEXT_SLOTS``, the plain interpreter
    (``model/engine/plain.py``) beyond, where generating would take longer than the run."""
    era = getattr(design, "era", "")
    if era not in ("zk", "table"):
        return None
    if era == "zk" and (cfg.joins or cfg.zombies):
        return PlainModel  # a recorded run's steps, on plain values over a layout sized from it
    layout = _layout(design, cfg)
    if layout is None:
        return TextModel  # which says, in one line, what the text does not cover
    if era == "table" and layout.relay_clusters:
        # every recorded run has relay clusters: generating its program (zombies, joins and
        # relays, properties and all) takes longer than replaying it
        return PlainModel
    return TextModel if len(layout.sorts()) <= TEXT_SLOTS else PlainModel


def _layout(design: Any, cfg: Config) -> Any:
    """The text's layout of ``design`` under ``cfg``, or None where the text has no form of it."""
    try:
        return text_class(design, cfg)(design, cfg)
    except (FlatError, RegistryError):
        return None


use_engines(text_engine)
