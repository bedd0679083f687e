"""replcheck.specs: checkers over the model. Each returns a ``CheckResult`` value."""

from replcheck.specs.explore import Exploration, check, explore, liveness_counterexample
from replcheck.specs.results import FAIL, PASS, UNKNOWN, CheckResult, Counterexample

__all__ = [
    "FAIL",
    "PASS",
    "UNKNOWN",
    "CheckResult",
    "Counterexample",
    "Exploration",
    "check",
    "explore",
    "liveness_counterexample",
]
