"""replcheck.model: the protocol, written once. Pure, deterministic, no I/O.

from replcheck.model import Model, get_design, STANDARD
model = Model(get_design("zk-multi"), STANDARD["std"])
"""

from .action import Action, ActionKind
from .config import STANDARD, Config
from .design import Design
from .model import Model
from .properties import Property
from .registry import (
    DESIGNS,
    RegistryError,
    designs,
    get_design,
    load_design_file,
    mutants,
    register,
)
from .state import State

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
