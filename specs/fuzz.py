"""Random testing of any ``Model`` with Hypothesis's stateful testing.

    from replcheck.model import Model, STANDARD, get_design
    from replcheck.specs.fuzz import fuzz
    result = fuzz(Model(get_design("zk-lock/append-before-register"), STANDARD["std"]))
    result.verdicts["no_lost_edit"]             # "fail"
    result.counterexamples["no_lost_edit"]      # the shrunk behaviour, replayed step by step
    result.stats["programs"]["no_lost_edit"]    # a pasteable pytest test reproducing it

The rules are not a second copy of the protocol: ``machine_for(model)`` builds a
``RuleBasedStateMachine`` with one rule per action kind of ``model.design.kinds``, named after the
kind. A rule may run when some action of its kind is enabled; it draws an integer and takes the
enabled instance at that index (modulo how many there are), so Hypothesis shrinks a failing
behaviour both by dropping actions and by moving to the first enabled instance of a kind. Each
rule applies ``model.step`` and checks every step property on the transition; an ``@invariant``
checks every state invariant after every step (and in the initial state).

Each step's rule is drawn by the machine itself (``_choose_step``), not by Hypothesis's default,
which filters all rules by their preconditions and by its swarm flags (each example switches a
random subset of the rules off) and discards the example when the flags switch off every rule
that is enabled. With some forty action kinds of which a handful are enabled at a time, that
discarded most examples of the table-era designs after a few steps (their examples averaged under
six actions, and races that need ten to twenty never came up). The machine draws the kind
uniformly among the enabled kinds that the example's own swarm keeps (each kind left out with a
probability drawn per example, shrinking towards none), and among all enabled kinds when the swarm
keeps none of them: so an example runs until the model is stuck or the step budget is spent.

When the model gets stuck (no action at all is enabled) the first rule does nothing, a stuttering
step, since Hypothesis insists that some rule can always run; the invariants are not checked again.

Profiles (``PROFILES``; also registered with Hypothesis as ``replcheck-ci``, ``replcheck-dev`` and
``replcheck-thorough``, namespaced so that they do not replace Hypothesis's built-in ``ci``
profile or a test suite's own):

* ``ci``: 200 examples of up to 40 steps, derandomized (the same examples on every run), no
  example database unless one is given;
* ``dev``: 1,000 examples of up to 50 steps, random, with a persistent example database in
  ``database_dir()`` (in the user's cache folder, never the current one), which replays earlier
  failures first;
* ``thorough``: 10,000 examples of up to 80 steps, random, with the same database.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from string import Template
from typing import TYPE_CHECKING, ClassVar

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from replcheck.model import DESIGNS, STANDARD, Action, ActionKind, Model, Property, State
from replcheck.specs.results import FAIL, PASS, UNKNOWN, CheckResult, Counterexample

if TYPE_CHECKING:
    from hypothesis.stateful import Rule

__all__ = [
    "DATABASE_DIR",
    "PROFILES",
    "ModelMachine",
    "NotEnabled",
    "PropertyViolation",
    "counterexample_program",
    "database_dir",
    "fuzz",
    "machine_for",
    "minimize",
    "replay",
]


def database_dir() -> str:
    """Where ``dev`` and ``thorough`` keep their example database: ``replcheck`` in Hypothesis's
    storage folder when ``$HYPOTHESIS_STORAGE_DIRECTORY`` names one, else
    ``replcheck/hypothesis/replcheck`` in the user's cache folder (``$XDG_CACHE_HOME``, by default
    ``~/.cache``). Never the current folder. Not created until a run stores an example."""
    home = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    if not home:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        home = os.path.join(cache, "replcheck", "hypothesis")
    return os.path.join(home, "replcheck")


DATABASE_DIR = database_dir()
"""``database_dir()`` when this module was imported (each run asks ``database_dir()`` again)."""

INDEX_BOUND = 720_720
"""Rules draw ``0 <= i < INDEX_BOUND`` and take enabled instance ``i % n``. 720720 is divisible by
every ``n`` up to 16, so the modulo itself favours no instance when a kind has at most 16 enabled
(Hypothesis still favours small draws, and shrinks towards 0, the first instance)."""

_SUPPRESSED = (HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large)
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)


def _profile(max_examples: int, steps: int, derandomize: bool, db: bool) -> settings:
    return settings(
        max_examples=max_examples,
        stateful_step_count=steps,
        derandomize=derandomize,
        database=DirectoryBasedExampleDatabase(database_dir()) if db else None,
        deadline=None,
        verbosity=Verbosity.quiet,
        suppress_health_check=_SUPPRESSED,
        phases=_PHASES,
        report_multiple_bugs=True,
        print_blob=False,
    )


PROFILES: dict[str, settings] = {
    "ci": _profile(200, 40, derandomize=True, db=False),
    "dev": _profile(1_000, 50, derandomize=False, db=True),
    "thorough": _profile(10_000, 80, derandomize=False, db=True),
}
for _name, _settings in PROFILES.items():
    settings.register_profile(f"replcheck-{_name}", _settings)


# --- failures -------------------------------------------------------------------------------------


class PropertyViolation(AssertionError):
    """A property failed during a fuzzing run. ``actions`` is the behaviour from the initial state
    that broke it. Each property gets its own subclass (see ``machine_for``), so Hypothesis tells
    violations of different properties apart and shrinks each on its own."""

    property: ClassVar[str] = ""
    kind: ClassVar[str] = ""

    def __init__(self, message: str, actions: Sequence[Action]) -> None:
        super().__init__(message)
        self.actions: list[Action] = list(actions)


def _violation_classes(props: Sequence[Property]) -> dict[str, type[PropertyViolation]]:
    out: dict[str, type[PropertyViolation]] = {}
    for prop in props:
        cls_name = "".join(part.title() for part in prop.name.split("_")) + "Violated"
        out[prop.name] = type(
            cls_name,
            (PropertyViolation,),
            {"property": prop.name, "kind": prop.kind, "__module__": __name__},
        )
    return out


# --- the state machine ----------------------------------------------------------------------------


@dataclass
class _Tally:
    """Counts shared by every machine instance of one run."""

    examples: int = 0
    steps: int = 0


class ModelMachine(RuleBasedStateMachine):
    """Base class of the machines ``machine_for`` builds: it holds one behaviour of the model.
    Subclasses add one rule per action kind and set the class attributes below."""

    _model: ClassVar[Model]
    _violations: ClassVar[dict[str, type[PropertyViolation]]]
    _tally: ClassVar[_Tally]

    def __init__(self) -> None:
        super().__init__()
        self._state: State = self._model.init()
        self._trace: list[Action] = []
        self._by_kind: dict[str, list[Action]] | None = None
        self._checked: State | None = None
        self._tally.examples += 1
        self._swarm_level: int | None = None
        self._left_out: dict[str, bool] = {}
        if hasattr(self, "_rules_strategy"):
            # Hypothesis's own choice of rule (filter every rule by its precondition and by its
            # swarm flags) discards the example whenever the flags leave out every enabled kind.
            self._rules_strategy = _choose_step(self)

    @classmethod
    def _rules_by_kind(cls) -> tuple[dict[str, Rule], list[str]]:
        """The rules by kind name, and the kind names in the design's order."""
        found = cls.__dict__.get("_rules_cache")
        if found is None:
            rules = {r.function.__name__: r for r in cls.setup_state().rules}
            found = (rules, [k.name for k in cls._model.design.kinds])
            cls._rules_cache = found
        return found

    def _left_out_by_swarm(self, draw, kind: str) -> bool:
        """Whether this example's swarm leaves ``kind`` out, decided the first time it matters:
        each kind independently with probability ``level / SWARM_LEVELS``, the level drawn once
        per example. Both draws shrink towards 0, that is towards leaving nothing out."""
        out = self._left_out.get(kind)
        if out is None:
            if self._swarm_level is None:
                self._swarm_level = draw(_SWARM_DRAW)
            out = self._swarm_level > 0 and draw(_SWARM_DRAW) >= SWARM_LEVELS - self._swarm_level
            self._left_out[kind] = out
        return out

    def _enabled(self) -> dict[str, list[Action]]:
        """The enabled actions of the current state, by kind (computed once per state)."""
        if self._by_kind is None:
            by_kind: dict[str, list[Action]] = {}
            for action in self._model.enabled(self._state):
                by_kind.setdefault(action.name, []).append(action)
            self._by_kind = by_kind
        return self._by_kind

    def _may(self, kind: str) -> bool:
        """Precondition of ``kind``'s rule: one of its actions is enabled, or nothing is.
        (``_choose_step`` keeps to it; it matters if Hypothesis chooses the rules itself.)"""
        enabled = self._enabled()
        return bool(enabled.get(kind)) or not enabled

    def _take(self, kind: str, index: int) -> None:
        choices = self._enabled().get(kind)
        if not choices:
            return  # the model is stuck: stutter
        action = choices[index % len(choices)]
        before = self._state
        try:
            after = self._model.step(before, action)
        except Exception as exc:
            exc.add_note(f"replcheck: while taking {action} after {self._trace}")
            exc.replcheck_actions = [*self._trace, action]  # type: ignore[attr-defined]
            raise
        self._trace.append(action)
        self._state = after
        self._by_kind = None
        self._tally.steps += 1
        cfg = self._model.cfg
        for prop in self._model.step_properties:
            if not prop.check(cfg, before, after):
                self._fail(prop)

    def _fail(self, prop: Property) -> None:
        n = len(self._trace)
        raise self._violations[prop.name](
            f"{prop.name} violated after {n} action{'s' * (n != 1)}: {prop.doc}", self._trace
        )

    @invariant()
    def _invariants_hold(self) -> None:
        if self._state is self._checked:
            return  # a stuttering step: nothing to check again
        self._checked = self._state
        cfg = self._model.cfg
        for prop in self._model.invariants:
            if not prop.check(cfg, self._state):
                self._fail(prop)


SWARM_LEVELS = 8
"""Swarm levels: an example leaves each action kind out with probability ``level / 8``, its level
drawn from 0 to 7 (see ``_choose_step``)."""

_SWARM_DRAW = st.integers(min_value=0, max_value=SWARM_LEVELS - 1)
_INDEX = st.integers(min_value=0, max_value=INDEX_BOUND - 1)


@st.composite
def _choose_step(draw, machine: ModelMachine) -> tuple[Rule, dict[str, int]]:
    """The next step of ``machine``: the rule of an enabled kind and the index of the instance it
    takes (drawn only when there is a choice). The kind is drawn uniformly among the enabled kinds
    that the example's swarm keeps, or among all enabled kinds when it keeps none of them, so a
    kind left out still runs when nothing else can and no example is ever discarded. When nothing
    at all is enabled the first rule stutters, drawing nothing."""
    enabled = machine._enabled()
    rules, order = machine._rules_by_kind()
    if not enabled:
        return rules[order[0]], {"index": 0}
    kinds = [k for k in order if k in enabled]
    if len(kinds) > 1:
        kinds = [k for k in kinds if not machine._left_out_by_swarm(draw, k)] or kinds
    kind = kinds[draw(st.integers(0, len(kinds) - 1))] if len(kinds) > 1 else kinds[0]
    index = draw(_INDEX) if len(enabled[kind]) > 1 else 0
    return rules[kind], {"index": index}


def _make_rule(kind: ActionKind):
    name = kind.name

    def take(self: ModelMachine, index: int) -> None:
        self._take(name, index)

    take.__name__ = take.__qualname__ = name
    take.__doc__ = kind.doc
    enabled = precondition(lambda self: self._may(name))
    return enabled(rule(index=_INDEX)(take))


def machine_for(model: Model) -> type[ModelMachine]:
    """A ``RuleBasedStateMachine`` class for ``model``: one rule per action kind of the design,
    named after it, plus an invariant checking every state invariant of the model."""
    taken = set(dir(ModelMachine))
    attrs: dict[str, object] = {
        "_model": model,
        "_violations": _violation_classes(model.invariants + model.step_properties),
        "_tally": _Tally(),
        "__module__": __name__,
        "__doc__": f"Fuzzing {model.design.name} under config {model.cfg.name}.",
        # Keeps each model's examples apart in the example database.
        "_hypothesis_internal_add_digest": json.dumps(
            [model.design.name, model.cfg.to_dict()], sort_keys=True
        ).encode(),
    }
    for kind in model.design.kinds:
        if not kind.name.isidentifier() or kind.name.startswith("_") or kind.name in taken:
            raise ValueError(
                f"design {model.design.name!r}: action kind {kind.name!r} cannot name a rule"
            )
        attrs[kind.name] = _make_rule(kind)
    cls_name = "Fuzz_" + re.sub(r"\W+", "_", f"{model.design.name}__{model.cfg.name}")
    return type(cls_name, (ModelMachine,), attrs)


# --- replaying and reproducing ------------------------------------------------------------------


class NotEnabled(ValueError):
    """A replayed action is not enabled in the state it is taken from."""


def replay(model: Model, actions: Sequence[Action], prop: Property) -> Counterexample | None:
    """Take ``actions`` from the initial state, each of which must be enabled when taken (else
    ``NotEnabled``), and return the behaviour up to the first state (or, for a step property,
    transition) that breaks ``prop``; ``None`` if none does."""
    cfg = model.cfg
    state = model.init()
    steps: list[tuple[Action | None, State]] = [(None, state)]
    if prop.kind == "invariant" and not prop.check(cfg, state):
        return Counterexample(prop.name, prop.kind, steps)
    for i, action in enumerate(actions):
        if action not in model.enabled(state):
            raise NotEnabled(f"action {i} ({action}) is not enabled when it is taken")
        after = model.step(state, action)
        steps.append((action, after))
        if prop.kind == "step" and not prop.check(cfg, state, after):
            return Counterexample(prop.name, prop.kind, steps)
        if prop.kind == "invariant" and not prop.check(cfg, after):
            return Counterexample(prop.name, prop.kind, steps)
        state = after
    return None


MINIMIZE_REPLAYS = 2_000
"""At most this many replays are spent on ``minimize`` per counterexample."""


def minimize(model: Model, cex: Counterexample, prop: Property) -> Counterexample:
    """Drop actions from a counterexample while it still breaks ``prop`` with every action
    enabled: chunks of half its length first, down to single actions, until no action can go.

    Hypothesis shrinks the choices that pick actions (an index among the enabled actions of a
    kind), so deleting one action can change which instance a later choice picks; removing the
    concrete actions afterwards gets rid of what that leaves behind."""
    actions = cex.actions()
    budget = MINIMIZE_REPLAYS
    size = max(1, len(actions) // 2)
    while budget > 0:
        changed = False
        start = 0
        while start < len(actions) and budget > 0:
            candidate = actions[:start] + actions[start + size :]
            budget -= 1
            try:
                shorter = replay(model, candidate, prop)
            except NotEnabled:
                shorter = None
            if shorter is not None:
                cex, actions, changed = shorter, shorter.actions(), True
            else:
                start += size
        if size == 1 and not changed:
            break
        size = max(1, size // 2)
    return cex


def _literal(value: object) -> str:
    """Python source for a config value, with double-quoted strings."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple):
        inner = ", ".join(_literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _design_source(model: Model) -> tuple[list[str], str]:
    """(statements to run first, expression) that rebuild the model's design in a fresh
    interpreter."""
    cls = type(model.design)
    name = json.dumps(model.design.name)
    if DESIGNS.get(model.design.name) is not cls:
        return [], f"{cls.__qualname__}()"
    path = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if cls.__module__.startswith("replcheck_user_design_") and path:
        # A reviewer's design file (``load_design_file``): load it again.
        return [f"load_design_file({json.dumps(os.path.abspath(path))})"], f"get_design({name})"
    return [], f"get_design({name})"


def _config_source(model: Model) -> str:
    cfg = model.cfg
    if STANDARD.get(cfg.name) == cfg:
        return f"STANDARD[{json.dumps(cfg.name)}]"
    fields = "".join(f"        {k}={_literal(v)},\n" for k, v in cfg.to_dict().items())
    return f"Config(\n{fields}    )"


_PROGRAM = Template(
    """\
${header}${imports}

${loads}${start}
def ${name}():
    model = Model(${design}, ${config})
    state = ${state}
    actions = [
${actions}    ]
    broken = [p.name for p in model.invariants if not p.check(model.cfg, state)]
    ${first}
    for n, action in enumerate(actions, 1):
        assert action in model.enabled(state), f"step {n}: {action} is not enabled"
        before, state = state, model.step(state, action)
        broken = [p.name for p in model.step_properties if not p.check(model.cfg, before, state)]
        broken += [p.name for p in model.invariants if not p.check(model.cfg, state)]
        ${each}
${last}"""
)


def _state_classes(value: object, out: dict[str, str]) -> None:
    """Every named tuple class in ``value``, name to module, for its ``repr`` to be evaluated."""
    if isinstance(value, tuple):
        if hasattr(value, "_fields"):
            out[type(value).__qualname__] = type(value).__module__
        for item in value:
            _state_classes(item, out)


def counterexample_program(
    model: Model,
    actions: Sequence[Action],
    property: str | None = None,
    *,
    start: State | None = None,
    header: str = "",
) -> str:
    """A pasteable pytest test that takes ``actions`` from the initial state of ``model`` (or from
    ``start``), checking that each is enabled.

    With ``property`` the test pins a counterexample: it passes when ``property`` holds until the
    last action and breaks at it (with no actions: in the state it starts from), and fails with an
    ``AssertionError`` the day it no longer breaks so. Without ``property`` it fails at the first
    action that breaks any step property or state invariant, as Hypothesis's falsifying examples
    do. ``start`` (a counterexample to induction) is a state the test builds from its ``repr``
    instead of the initial state; what holds there is assumed, not checked. ``header``, when
    given, becomes the module's docstring.

    The test is named after the design and ``property`` (or the config). A standard config is
    written as ``STANDARD[name]``, any other as ``Config(...)`` with every field of
    ``Config.to_dict()``; a design loaded from a reviewer's file is loaded from that file again,
    and an unregistered one is imported from its module."""
    loads, design = _design_source(model)
    standard = STANDARD.get(model.cfg.name) == model.cfg
    names = {"Action", "Model", "STANDARD" if standard else "Config"}
    imports = []
    if design.startswith("get_design("):
        names.add("get_design")
    else:
        cls = type(model.design)
        imports.append(f"from {cls.__module__} import {cls.__qualname__.split('.')[0]}")
    if loads:
        names.add("load_design_file")
    if start is not None:
        classes: dict[str, str] = {}
        _state_classes(start, classes)
        for module in sorted(set(classes.values())):
            wanted = sorted(n for n, m in classes.items() if m == module)
            imports.append(f"from {module} import {', '.join(wanted)}")
    imports.insert(0, f"from replcheck.model import {', '.join(sorted(names))}")
    name = f"{model.design.name} {property or model.cfg.name}".lower()
    if property is None:
        first = 'assert not broken, f"initially: {broken}"'
        each = 'assert not broken, f"after {action}: {broken}"'
        last = ""
    else:
        prop = json.dumps(property)
        if start is None:
            first = f'assert {prop} not in broken or not actions, "broken initially"'
        else:
            first = "# START may be unreachable: what holds there is assumed, not checked"
        each = f'assert {prop} not in broken or n == len(actions), f"broken at step {{n}}"'
        last = f'    assert {prop} in broken, f"{property} holds at the end: {{broken}}"\n'
    doc = ""
    if header:
        text = header.replace("\\", "\\\\").replace('"""', "'''").rstrip()
        doc = f'"""{text}\n"""\n\n'
    return _PROGRAM.substitute(
        header=doc,
        imports="\n".join(imports),
        loads="".join(f"{line}\n\n" for line in loads),
        start="" if start is None else f"START = {start!r}\n\n",
        name="test_" + re.sub(r"[^0-9a-z]+", "_", name).strip("_"),
        design=design,
        config=_config_source(model),
        state="model.init()" if start is None else "START",
        first=first,
        each=each,
        last=last,
        actions="".join(
            f"        Action({json.dumps(a.name)}, {_literal(tuple(a.args))}),\n" for a in actions
        ),
    )


# --- the checker --------------------------------------------------------------------------------


def _flatten(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [e for sub in exc.exceptions for e in _flatten(sub)]
    return [exc]


def _database(value: str | os.PathLike[str] | ExampleDatabase) -> ExampleDatabase:
    if isinstance(value, ExampleDatabase):
        return value
    return DirectoryBasedExampleDatabase(os.fspath(value))


def fuzz(
    model: Model,
    *,
    profile: str = "ci",
    seed: int | None = None,
    max_examples: int | None = None,
    database: str | os.PathLike[str] | ExampleDatabase | None = None,
) -> CheckResult:
    """Fuzz ``model`` with Hypothesis and give a verdict per property.

    * ``fail``: a counterexample was found, shrunk by Hypothesis, replayed to check it and
      shortened further by dropping actions (``minimize``): ``result.counterexamples[name]``.
      A property that breaks on the way to another's counterexample fails too, with that
      (maybe not minimal) behaviour. For each failed property,
      ``result.stats["programs"][name]`` is a pytest test reproducing it
      (``counterexample_program``).
    * ``pass``: no counterexample was found within the budget, which is evidence, not proof.
    * ``unknown``: liveness properties (fuzzing does not check them), and every safety property
      that did not fail when a failure cut the run short.

    ``profile`` is ``ci``, ``dev`` or ``thorough`` (``PROFILES``); ``max_examples`` overrides its
    number of examples and ``database`` (a directory, or any Hypothesis ``ExampleDatabase``) its
    example database. With ``seed`` the run is random but reproducible (and uses no database
    unless one is given); without it ``ci`` is derandomized and ``dev``/``thorough`` draw a fresh
    seed, reported in ``stats["seed"]`` so the run can be repeated.

    ``stats``: ``examples`` (behaviours run, shrinking included), ``steps`` (actions taken in
    all), ``seconds`` (shrinking and replaying included), ``profile``, ``seed`` (``None`` when
    derandomized), ``max_examples``, ``step_count`` and ``programs`` (property name to the text
    of a pytest test reproducing its counterexample).
    Hypothesis prints nothing. An exception raised by the model itself (a bug in a design) is
    raised again, with a reproducing program added as a note when the behaviour is known.
    """
    try:
        base = PROFILES[profile]
    except KeyError:
        raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}") from None
    changes: dict[str, object] = {}
    if max_examples is not None:
        changes["max_examples"] = max_examples
    if seed is None and not base.derandomize:
        seed = random.SystemRandom().getrandbits(32)
    elif seed is not None:
        changes["derandomize"] = False
        if database is None and base.database is not None:
            # An explicit seed asks for a reproducible run: replaying failures saved in the
            # database would make it depend on earlier runs.
            changes["database"] = None
    if database is not None:
        changes["database"] = _database(database)
    elif "database" not in changes and base.database is not None:
        # A fresh one, so that the folder is the one the environment names for this run.
        changes["database"] = DirectoryBasedExampleDatabase(database_dir())
    run_settings = settings(base, **changes)  # type: ignore[arg-type]

    machine = machine_for(model)
    if seed is not None:
        machine = hypothesis_seed(seed)(machine)
    tally = machine._tally
    started = time.perf_counter()
    found: list[BaseException] = []
    try:
        run_state_machine_as_test(machine, settings=run_settings)
    except Exception as exc:
        found = _flatten(exc)

    errors = [e for e in found if not isinstance(e, PropertyViolation)]
    if errors:
        for err in errors:
            actions = getattr(err, "replcheck_actions", None)
            if actions is not None:
                err.add_note("reproduce with:\n" + counterexample_program(model, actions))
        raise errors[0]
    violations = [e for e in found if isinstance(e, PropertyViolation)]

    result = CheckResult("fuzz", model.design.name, model.cfg.name)
    programs: dict[str, str] = {}
    safety = model.invariants + model.step_properties
    by_name = {p.name: p for p in safety}
    # Each failure's own property first, then whatever else its behaviour breaks.
    for violation in violations:
        prop = by_name[violation.property]
        cex = replay(model, violation.actions, prop)
        if cex is None:
            raise RuntimeError(
                f"fuzz: the behaviour Hypothesis reported for {prop.name} does not break it "
                "when replayed (is the design deterministic?)"
            )
        cex = minimize(model, cex, prop)
        cex.note = f"found by Hypothesis ({profile} profile) and shrunk"
        result.counterexamples[prop.name] = cex
    for violation in violations:
        for prop in safety:
            if prop.name not in result.counterexamples:
                cex = replay(model, violation.actions, prop)
                if cex is not None:
                    cex = minimize(model, cex, prop)
                    cex.note = f"broken on the way to a counterexample for {violation.property}"
                    result.counterexamples[prop.name] = cex
    for prop in safety:
        if prop.name in result.counterexamples:
            result.verdicts[prop.name] = FAIL
            programs[prop.name] = counterexample_program(
                model, result.counterexamples[prop.name].actions(), prop.name
            )
        else:
            result.verdicts[prop.name] = UNKNOWN if violations else PASS
    for prop in model.liveness:
        result.verdicts[prop.name] = UNKNOWN
    result.stats = {
        "examples": tally.examples,
        "steps": tally.steps,
        "seconds": round(time.perf_counter() - started, 3),
        "profile": profile,
        "seed": seed,
        "max_examples": run_settings.max_examples,
        "step_count": run_settings.stateful_step_count,
        "programs": programs,
    }
    return result
