"""replcheck.model: the protocol, written once. Pure, deterministic, no I/O.

from replcheck.model import Model, get_design, STANDARD
model = Model(get_design("zk-multi"), STANDARD["std"])
"""

from replcheck.model.common.state import State
from replcheck.model.config import STANDARD, Config
from replcheck.model.engine import choice as _choice  # noqa: F401 - installs Model's engines
from replcheck.model.engine.action import Action, ActionKind
from replcheck.model.engine.design import Design
from replcheck.model.engine.model import Model
from replcheck.model.engine.properties import Property
from replcheck.model.registry import (
    DESIGNS,
    RegistryError,
    designs,
    get_design,
    load_design_file,
    mutants,
    register,
)

__all__ = [
    "DESIGNS",
    "STANDARD",
    "Action",
    "ActionKind",
    "Config",
    "Design",
    "Model",
    "Property",
    "RegistryError",
    "State",
    "designs",
    "get_design",
    "load_design_file",
    "mutants",
    "register",
]
