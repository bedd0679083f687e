"""Results are values: a verdict per property, statistics, and counterexamples. Rendering them as
text, JSON or JUnit XML is the front door's job (``replcheck.report``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from replcheck.model import Action, State

PASS, FAIL, UNKNOWN = "pass", "fail", "unknown"


@dataclass
class Counterexample:
    """A behaviour that breaks a property: ``steps`` from the initial state, each the action taken
    and the state it led to (the first has no action). For liveness, the behaviour loops back to
    ``steps[loop_start]`` forever, or, when ``stuck``, nothing more can happen."""

    property: str
    kind: str
    steps: list[tuple[Action | None, State]]
    loop_start: int | None = None
    stuck: bool = False
    note: str = ""

    @property
    def length(self) -> int:
        return len(self.steps) - 1

    def actions(self) -> list[Action]:
        return [a for a, _ in self.steps[1:] if a is not None]


@dataclass
class CheckResult:
    checker: str
    design: str
    config: str
    verdicts: dict[str, str] = field(default_factory=dict)
    counterexamples: dict[str, Counterexample] = field(default_factory=dict)
    stats: dict[str, object] = field(default_factory=dict)

    @property
    def violated(self) -> list[str]:
        return [p for p, v in self.verdicts.items() if v == FAIL]

    @property
    def ok(self) -> bool:
        return not self.violated
