"""Every engine's counterexample as a paste-ready pytest test, saved where ``replay`` opens it.

``explore``, ``fuzz``, ``prove --depth`` (bounded model checking) and ``prove --induction`` call
``reproducer`` (``induction_reproducer`` for a counterexample to induction) for each
counterexample they print as text. It returns the text to print under it:

* for a broken safety property, a pytest test (``specs.fuzz.counterexample_program``) that builds
  the model (the design and the configuration, overrides included), takes the actions one by one
  and asserts the property holds until the last one and breaks there: it passes as long as the
  counterexample is one, the way Hypothesis prints a falsifying example;
* the path of a JSON file (schema ``replcheck-counterexample/1``: engine, design, configuration
  and its fields, property, actions, and for a counterexample to induction the state it starts
  from) saved in ``counterexamples`` in the user's cache folder (``replcheck.paths``: never the
  current folder), or in the folder named by ``$REPLCHECK_COUNTEREXAMPLES`` (``off`` saves
  nothing). The first save of a run says on stderr where they go. ``replcheck replay PATH``
  opens it, apart from a counterexample to induction, which may start where the model never goes.

A liveness counterexample (a lasso or a stuck state) is saved, with no test printed: replay's
``--export-test`` writes one. JSON output (``--json``) saves nothing: it can be replayed itself.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from replcheck.model import Action, Model, State
from replcheck.paths import cache_home, say, where
from replcheck.report import counterexample_dict
from replcheck.specs.results import Counterexample

SCHEMA = "replcheck-counterexample/1"
DIR_ENV = "REPLCHECK_COUNTEREXAMPLES"
HELP = (
    "Each counterexample is also saved as JSON for `replcheck replay`, in the folder "
    f"$REPLCHECK_COUNTEREXAMPLES names, by default {where('counterexamples')}; "
    "REPLCHECK_COUNTEREXAMPLES=off saves none."
)
"""What the help of every command that saves counterexamples says about where."""
SAFETY = ("invariant", "step")

ENGINES = {
    "explore": "exhaustive exploration (replcheck explore)",
    "fuzz": "Hypothesis (replcheck fuzz)",
    "bmc": "bounded model checking (replcheck prove --depth)",
    "induction": "induction (replcheck prove --induction)",
}


def directory() -> Path | None:
    """Where counterexamples are saved, or None when ``$REPLCHECK_COUNTEREXAMPLES`` is ``off``."""
    value = os.environ.get(DIR_ENV, "")
    if value == "off":
        return None
    return Path(value) if value else cache_home() / "counterexamples"


_SAID: set[Path] = set()
"""The folders this process already said on stderr it saves counterexamples in."""


def program(model: Model, cex: Counterexample, engine: str, start: State | None = None) -> str:
    """The pytest test pinning a safety counterexample (see the module docstring)."""
    from replcheck.specs.fuzz import counterexample_program  # Hypothesis: only when asked

    config = model.cfg.name
    if start is None:
        header = (
            f"A counterexample found by {ENGINES[engine]}:\n"
            f"{model.design.name} under {config} breaks {cex.property} at its last action.\n"
            "This test passes while it does."
        )
    else:
        header = (
            f"A counterexample to induction found by {ENGINES[engine]}:\n"
            f"in {model.design.name} under {config}, the step below from START breaks "
            f"{cex.property}.\n"
            "START satisfies what the induction assumed, but it MAY BE UNREACHABLE from the\n"
            "initial state: this shows the invariant is not inductive as strengthened, not that\n"
            "the design can break it. This test passes while the step breaks it."
        )
    return counterexample_program(
        model, cex.actions(), cex.property, start=start, header=header
    ).rstrip()


def save(model: Model, cex: Counterexample, engine: str, start: State | None = None) -> Path:
    """Write the counterexample as JSON (see the module docstring); ``OSError`` if it cannot be.
    The file is named after the engine, the design, the configuration and the property, so a run
    that finds the same counterexample again replaces it."""
    folder = directory()
    if folder is None:
        raise OSError("saving is off ($REPLCHECK_COUNTEREXAMPLES=off)")
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "engine": engine,
        "design": model.design.name,
        "config": model.cfg.name,
        "config_params": model.cfg.to_dict(),
        **counterexample_dict(cex, model),
        "start": None if start is None else repr(start),
    }
    name = "--".join([engine, model.design.name, model.cfg.name, cex.property])
    path = folder / (re.sub(r"[^A-Za-z0-9_.-]+", "-", name) + ".json")
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    if folder not in _SAID:
        _SAID.add(folder)
        say("counterexamples saved as JSON", folder, f"${DIR_ENV}")
    return path


def reproducer(model: Model, cex: Counterexample, engine: str, start: State | None = None) -> str:
    """The text to print under a counterexample: its test (safety only) and where it is saved."""
    lines = []
    if cex.kind in SAFETY:
        lines += [
            f"reproduce {cex.property} with this pytest test:",
            program(model, cex, engine, start),
            "",
        ]
    if directory() is not None:
        try:
            path = save(model, cex, engine, start)
        except OSError as exc:
            lines.append(f"counterexample not saved: {exc}")
        else:
            if start is None:
                lines.append(f"saved: {path} (open it with: replcheck replay {path})")
            else:
                lines.append(f"saved: {path} (replay cannot open it: it starts from START)")
    return "\n".join(lines)


def induction_reproducer(model: Model, result: Any) -> str:
    """``reproducer`` for a counterexample to induction (a ``specs.bmc.InductionResult`` whose
    verdict is ``not inductive``), or one line saying why there is none."""
    cti = result.cti or {}
    broken = [
        p for p in cti.get("broken_after_step", ()) if p in {q.name for q in model.properties}
    ]
    if result.states is None:
        return "no reproducer: the counterexample's states are not ones the model holds"
    if not broken:
        return "no reproducer: the step breaks only strengthening lemmas, not a model property"
    from replcheck.model.engine.model import UNREADABLE
    from replcheck.specs.bmc import step_to

    before, after = result.states
    try:
        model.enabled(before)
    except UNREADABLE:
        return "no reproducer: the counterexample's state is not one the model can read"

    prop = result.property if result.property in broken else broken[0]
    kind, check = next((p.kind, p) for p in model.properties if p.name == prop)
    found = step_to(model, before, after) if after is not None else None
    if found is None:  # the step's effect differs in some detail the property does not read
        name = str(cti.get("step", "")).partition("(")[0]
        for action, nxt in model.successors_from_any(before):
            holds = (
                check.check(model.cfg, before, nxt)
                if kind == "step"
                else check.check(model.cfg, nxt)
            )
            if action.name == name and not holds:
                found = action, nxt
                break
        else:
            return f"no reproducer: the explicit model takes no step like {cti.get('step')} there"
    steps: list[tuple[Action | None, State]] = [(None, before), found]
    cex = Counterexample(prop, kind, steps)
    if not _replays(program(model, cex, "induction", before)):
        return f"no reproducer: from the state as printed, the step does not break {prop}"
    return reproducer(model, cex, "induction", start=before)


def _replays(source: str) -> bool:
    """Does the printed test pass (its last step breaks the property from its ``START``)?"""
    namespace: dict[str, Any] = {}
    try:
        exec(compile(source, "<reproducer>", "exec"), namespace)
        for name, fn in list(namespace.items()):
            if name.startswith("test_") and callable(fn):
                fn()
    except (AssertionError, AttributeError, IndexError, KeyError, TypeError, ValueError):
        return False
    return True
