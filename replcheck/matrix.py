"""The design × property matrix: every design and mutant, under each of its configurations, through
every checker, with the gate's verdict.

    from replcheck.matrix import run_matrix
    matrix = run_matrix(["zk-lock", "zk-lock/ships-local-scope"], checkers=("explore",))
    print(matrix.render())
    raise SystemExit(matrix.exit_code)

Rows are ``design@config``: a design is checked under the configurations its class lists in
``configs`` (a mutant lists those where it must be caught), unless ``configs`` overrides them.
Columns are the model's properties. A cell is ``ok``, ``FAIL(e)``/``FAIL(h)``/``FAIL(e,h)`` (which
checkers found the failure: ``e`` exhaustive exploration, ``h`` Hypothesis fuzzing), ``?`` when no
checker could decide, or ``-`` when the column is no question for the row (another era's property,
a liveness property its configuration skips). A failure pinned as a known finding is drawn
``FAIL(e)*``. The ``proofs`` checker adds one column, ``proofs`` (``rule_proofs``): the Z3 proofs
about the design's decision rules (``specs/proofs.py``), ``FAIL(z)`` when one is refuted — for a
rule-level mutant, its broken rule.

The gate's rule:

* a correct design must fail no property, except those pinned in ``expected_failures``
  (``{(design, config): {property, ...}}``, the known findings a manifest pins);
* a mutant must be caught by at least one checker, *held against its base design*: for every
  mutant row ``m@C`` the base design is checked under the same ``C`` with the same checkers (the
  run's own row when it has one, else a *base reference row*, run once however many mutants need
  it, shown with the designs as ``reference`` and counted in the summary only as a reference). A
  property failing in ``m@C`` is credited to the mutant only when the base row *passed* it
  (decided: not failed, pinned or not, and not undecided); a failure its base row also has is
  drawn ``FAIL(e)~``. A base row that fails unexpectedly or whose checker raised fails the gate,
  in one line naming it; a mutant nothing caught while some failure was left undecided by its
  base (or its own verdicts are) is ``UNDECIDED``, not ``MISSED``;
* a checker that raises makes the row an error (the gate fails); a checker that is not available
  (the fuzzing module is missing) is skipped with a note;
* undecided is never green: a correct design with a property no checker decided (a state or
  memory limit, a proof Z3 could not decide or cannot read) is ``UNDECIDED``, not green; a mutant
  no checker caught while some of its verdicts are undecided is ``UNDECIDED``, not ``MISSED``. A
  base reference row was not asked: what it leaves undecided counts only through its mutants.

``exit_code`` is 0 when every row meets its expectation with its verdicts decided, 1 when some row
breaks it, 4 (``Exit.UNDECIDED``) when none breaks it but some is undecided, 130 when the run was
interrupted (the matrix then holds the rows that finished). The summary line says ``PASS``,
``FAIL``, ``PARTIAL (not a pass)`` or ``INTERRUPTED (not a pass)``.

A configuration that does not apply to a design (``Config.misfit``: it sets a bound only the
other era's designs read) is refused for a design named explicitly, and skipped with a note when
every design was asked for.

Configurations are named as in ``replcheck.model.STANDARD``, or derived with overrides, see
``resolve_config``.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from replcheck.exits import Exit
from replcheck.model import DESIGNS, Config, Model, get_design
from replcheck.model.config import DEFAULT_CONFIG, resolve_config
from replcheck.model.registry import base_design
from replcheck.progress import Progress, quiet
from replcheck.specs import FAIL, PASS, CheckResult, check

CHECKERS: tuple[str, ...] = ("explore", "fuzz", "proofs", "bmc")
"""Checker names, in the order their letters appear in a cell."""

DEFAULT_CHECKERS: tuple[str, ...] = ("explore", "fuzz", "proofs")
"""What ``replcheck check`` runs unless told: ``bmc`` (bounded model checking of every
ZooKeeper-era row, a minute or two per row) is asked for by name."""

LETTERS: dict[str, str] = {"explore": "e", "fuzz": "h", "proofs": "z", "bmc": "b"}
"""The letter a checker signs a ``FAIL`` cell with (``h`` for Hypothesis, ``z`` for the Z3
proofs, ``b`` for bounded model checking)."""

PROOFS_COLUMN = "rule_proofs"
"""The matrix column of the Z3 proofs about a design's decision rules (``specs/proofs.py``): ``ok``
when every proof came out as expected, ``FAIL(z)`` when one is refuted (for a mutant: its broken
rule is refuted), ``?`` when Z3 could not decide one."""

SHORT_NAMES: dict[str, str] = {
    "no_lost_edit": "lost-edit",
    "no_wal_deleted_while_queued": "wal-deleted",
    "single_owner": "1-owner",
    "single_source": "1-source",
    "no_edit_at_origin": "at-origin",
    "only_global_non_catalog": "scope",
    "sink_in_order": "in-order",
    "positions_monotone": "monotone",
    "edits_delivered": "delivered",
    "dead_queues_claimed": "claimed",
    "removed_peer_queues_deleted": "peer-gc",
    PROOFS_COLUMN: "proofs",
}
"""Column headers for the standard properties; any other property is headed by its own name."""

NOT_APPLICABLE = "n/a"
"""The verdict of a column that is no question for a row (another era's property, a liveness
property its configuration skips)."""

ExpectedFailures = Mapping[tuple[str, str], Iterable[str]]


# --- configurations ----------------------------------------------------------------------------


def manifest_expected_failures() -> dict[tuple[str, str], frozenset[str]]:
    """Known findings pinned in ``specs/manifest.json``: for each entry of a correct design that
    carries a ``finding``, the properties its verdicts pin as failing. Empty when there is no
    manifest (or it cannot be read)."""
    try:
        from replcheck.specs import manifest

        entries = manifest.load()
    except Exception:  # no manifest yet, or one being rewritten: nothing pinned
        return {}
    out: dict[tuple[str, str], frozenset[str]] = {}
    for e in entries:
        if not isinstance(e, dict) or not e.get("finding"):
            continue
        cls = DESIGNS.get(str(e.get("design")))
        if cls is None or cls.is_mutant():
            continue
        verdicts = e.get("verdicts") or {}
        failing = frozenset(p for p, v in verdicts.items() if v == FAIL)
        if failing:
            out[(str(e.get("design")), str(e.get("config")))] = failing
    return out


def check_fits(name: str, cfg: Config) -> None:
    """Raise ``ValueError`` (one line) when ``cfg`` does not apply to the design ``name``: it sets
    a bound only the other era's designs read, so a run would check nothing it was asked."""
    why = cfg.misfit(type(get_design(name)).era)
    if why:
        raise ValueError(f"{name}: {why}")


def design_configs(name: str) -> tuple[str, ...]:
    """The configurations a design or mutant lists (``std`` if it lists none)."""
    cls = type(get_design(name))
    return tuple(cls.configs) or (DEFAULT_CONFIG,)


# --- checkers -------------------------------------------------------------------------------------

Checker = Callable[[Model, Progress], CheckResult]


def load_fuzz() -> tuple[Callable[..., CheckResult] | None, str]:
    """``replcheck.specs.fuzz.fuzz``, or ``None`` and why it is not available."""
    try:
        module = importlib.import_module("replcheck.specs.fuzz")
    except ImportError as exc:
        return None, f"fuzzing skipped: replcheck.specs.fuzz is not available ({exc})"
    except Exception as exc:  # a module being written may fail to import in other ways
        return None, f"fuzzing skipped: replcheck.specs.fuzz failed to import ({exc!r})"
    fn = getattr(module, "fuzz", None)
    if not callable(fn):
        return None, "fuzzing skipped: replcheck.specs.fuzz has no fuzz()"
    return fn, ""


def load_proofs() -> tuple[Callable[[Model], CheckResult] | None, str]:
    """``proofs_result``, or ``None`` and why the proofs are not available (no Z3)."""
    try:
        importlib.import_module("replcheck.specs.proofs")
    except ImportError as exc:
        return None, f"proofs skipped: replcheck.specs.proofs is not available ({exc})"
    return proofs_result, ""


def proofs_result(model: Model) -> CheckResult:
    """The Z3 proofs about the rules of ``model``'s design, as one verdict in the column
    ``PROOFS_COLUMN`` (the proofs depend on the design, not on the configuration; designs that
    share rules share the answers)."""
    from replcheck.specs import proofs
    from replcheck.specs.results import UNKNOWN

    cls = type(model.design)
    dp = proofs.prove([cls.name])[0]
    refuted = dp.caught if dp.mutant_of else dp.refuted
    if not dp.results:  # no proof is about this design's rules: no question, not a pass
        result = CheckResult("proofs", cls.name, model.cfg.name, {})
        result.stats = {"proofs": 0, "note": "no proof is about this design's rules"}
        return result
    if refuted:
        verdict = FAIL
    elif any(r.verdict == proofs.UNKNOWN for r in dp.results):
        verdict = UNKNOWN
    else:
        verdict = PASS
    result = CheckResult("proofs", cls.name, model.cfg.name, {PROOFS_COLUMN: verdict})
    result.stats = {
        "proofs": len(dp.results),
        "refuted": refuted,
        "unknown": [r.proof for r in dp.results if r.verdict == proofs.UNKNOWN],
        "rule_level": dp.rule_level,
        "seconds": round(sum(r.seconds for r in dp.results), 3),
    }
    return result


def call_fuzz(
    fn: Callable[..., CheckResult], model: Model, profile: str, seed: int | None = None
) -> CheckResult:
    """Call ``fuzz(model, profile=...)``, passing ``seed`` only when the function takes one."""
    kwargs: dict[str, object] = {"profile": profile}
    if seed is not None:
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}
        if "seed" not in params and not any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
        ):
            raise ValueError("this fuzzer does not take a seed")
        kwargs["seed"] = seed
    return fn(model, **kwargs)


# --- the matrix -----------------------------------------------------------------------------------


@dataclass
class Row:
    """One design or mutant under one configuration, and what every checker said."""

    design: str
    config: str
    mutant_of: str | None
    model: Model
    results: dict[str, CheckResult] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    expected: frozenset[str] = frozenset()
    """Properties pinned to fail here (for a mutant: those pinned on the mutant itself; its base
    design's failures are its base row's, see ``credited``)."""
    seconds: float = 0.0
    times: dict[str, float] = field(default_factory=dict)
    """Seconds each checker took on this row."""
    reference: bool = False
    """A base design's row no one asked for, run only so that the mutants checked in its
    configuration are held against it: it counts as a reference, not as a correct design."""
    base_design: str | None = None
    """For a mutant: the correct design it is held against (``mutant_of``, followed to a correct
    design)."""
    base: Row | None = field(default=None, repr=False)
    """For a mutant: its base design's row in the same configuration, with the same checkers
    (``None`` when that row did not run: the run was interrupted first)."""

    @property
    def label(self) -> str:
        return f"{self.design}@{self.config}"

    @property
    def is_mutant(self) -> bool:
        return self.mutant_of is not None

    @property
    def against(self) -> str | None:
        """For a mutant: the label of the base row it is held against."""
        return f"{self.base_design}@{self.config}" if self.base_design else None

    def failed_by(self, prop: str) -> list[str]:
        """The checkers that found ``prop`` failing, in ``CHECKERS`` order."""
        names = sorted(self.results, key=lambda c: (*CHECKERS, c).index(c))
        return [c for c in names if self.results[c].verdicts.get(prop) == FAIL]

    def applies(self, prop: str) -> bool:
        """Is ``prop`` a question for this row: one of its model's properties (the
        configuration's skipped liveness properties are not), or a column a checker answered?"""
        if any(p.name == prop for p in self.model.properties):
            return True
        return any(prop in r.verdicts for r in self.results.values())

    def verdict(self, prop: str) -> str:
        """``fail`` if any checker failed it, ``pass`` if one passed it, ``n/a`` if it is no
        question for this row, else ``unknown``."""
        if self.failed_by(prop):
            return FAIL
        if any(r.verdicts.get(prop) == PASS for r in self.results.values()):
            return PASS
        return "unknown" if self.applies(prop) else NOT_APPLICABLE

    def cell(self, prop: str) -> str:
        found = self.failed_by(prop)
        if found:
            letters = ",".join(LETTERS.get(c, c[:1]) for c in found)
            if prop in self.expected:
                mark = "*"
            elif self.is_mutant and prop not in self.credited:
                mark = "~"
            else:
                mark = ""
            return f"FAIL({letters}){mark}"
        verdict = self.verdict(prop)
        return {PASS: "ok", NOT_APPLICABLE: "-"}.get(verdict, "?")

    @property
    def questions(self) -> list[str]:
        """Every property this row was asked: the model's, then the columns checkers added."""
        props = [p.name for p in self.model.properties]
        extra = {p for r in self.results.values() for p in r.verdicts} - set(props)
        return [*props, *sorted(extra)]

    @property
    def failures(self) -> list[str]:
        """Every property some checker found failing."""
        return [p for p in self.questions if self.failed_by(p)]

    @property
    def undecided(self) -> list[str]:
        """Properties no checker decided: a correct design is not green while any is left."""
        return [p for p in self.questions if self.verdict(p) == "unknown"]

    @property
    def unexpected(self) -> list[str]:
        """Failures not pinned as known findings: what breaks a design (a mutant is caught only
        by those of them its base row passed: ``credited``)."""
        return [p for p in self.failures if p not in self.expected]

    def base_verdict(self, prop: str) -> str:
        """For a mutant: its base row's verdict on ``prop`` (``unknown`` when no base row ran)."""
        if self.base is None:
            return "unknown"
        return self.base.verdict(prop)

    @property
    def credited(self) -> list[str]:
        """For a mutant: the failures that catch it, those its base row passed (decided, not
        failed, not undecided) in the same configuration. Empty for a correct design."""
        if not self.is_mutant:
            return []
        return [p for p in self.unexpected if self.base_verdict(p) == PASS]

    @property
    def not_credited(self) -> dict[str, str]:
        """For a mutant: each unpinned failure that does not catch it, and why (its base row
        fails it too, left it undecided, does not ask it, or did not run)."""
        if not self.is_mutant:
            return {}
        why = {
            FAIL: "its base fails it too",
            "unknown": "its base left it undecided",
            NOT_APPLICABLE: "it is no question for its base",
        }
        out = {}
        for p in self.unexpected:
            verdict = self.base_verdict(p)
            if verdict == PASS:
                continue
            out[p] = "its base row did not run" if self.base is None else why[verdict]
        return out

    @property
    def caught(self) -> bool:
        return bool(self.credited)

    @property
    def ok(self) -> bool:
        """Does the row meet its expectation, every verdict it needs decided? (A reference row
        was not asked: only what it fails, or a checker that raised, counts against it.)"""
        if self.is_mutant:
            return self.caught
        if self.reference:
            return not self.unexpected and not self.errors
        return not self.unexpected and not self.errors and not self.undecided

    @property
    def left_open(self) -> list[str]:
        """What leaves a row's verdict open: its own undecided properties and, for a mutant, the
        failures its base row left undecided (or that row did not run)."""
        if self.reference:
            return []
        mine = list(self.undecided)
        if self.is_mutant:
            mine += [p for p in self.unexpected if self.base_verdict(p) == "unknown"]
        return mine

    @property
    def failed(self) -> bool:
        """Does the row break its expectation (not merely leave it undecided)?"""
        if self.is_mutant:
            return not self.caught and (bool(self.errors) or not self.left_open)
        return bool(self.unexpected or self.errors)

    @property
    def status(self) -> str:
        if self.is_mutant:
            if self.caught:
                return "caught"
            return "ERROR" if self.errors else ("UNDECIDED" if self.left_open else "MISSED")
        if self.errors and not self.unexpected:
            return "ERROR"
        if self.unexpected:
            return "RED"
        if self.reference:
            return "reference"
        return "UNDECIDED" if self.undecided else "green"

    @property
    def states(self) -> int | None:
        r = self.results.get("explore")
        value = r.stats.get("states") if r else None
        return value if isinstance(value, int) else None


@dataclass
class Matrix:
    rows: list[Row]
    checkers: tuple[str, ...]
    """The checkers that ran (a skipped one is absent, with a note)."""
    properties: list[str]
    notes: list[str] = field(default_factory=list)
    expected_failures: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    @property
    def designs(self) -> list[Row]:
        """The correct designs' rows that were asked for (not the base reference rows)."""
        return [r for r in self.rows if not r.is_mutant and not r.reference]

    @property
    def references(self) -> list[Row]:
        """Base rows run only so that mutants are held against them."""
        return [r for r in self.rows if r.reference]

    @property
    def mutants(self) -> list[Row]:
        return [r for r in self.rows if r.is_mutant]

    interrupted: bool = False
    """Stopped by the user before every row ran: the verdict is partial."""

    @property
    def ok(self) -> bool:
        return bool(self.rows) and not self.interrupted and all(r.ok for r in self.rows)

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.rows)

    @property
    def partial(self) -> bool:
        """Nothing failed, but something asked was left undecided (or never ran)."""
        return not self.ok and not self.failed

    @property
    def exit_code(self) -> int:
        """0 every expectation met and decided; 1 one broken; 4 nothing broken but something
        left undecided (``Exit.UNDECIDED``); 130 interrupted."""
        if self.interrupted and not self.failed:
            return Exit.INTERRUPTED
        if self.failed:
            return Exit.FAIL
        return Exit.OK if self.ok else Exit.UNDECIDED

    def base_problems(self) -> list[str]:
        """One line per base row that mutants are held against and that fails unexpectedly or
        whose checker raised: the gate fails, and the mutants' credit rests on a broken base."""
        held: dict[int, list[Row]] = {}
        for m in self.mutants:
            if m.base is not None:
                held.setdefault(id(m.base), []).append(m)
        lines = []
        for base in self.rows:
            mutants = held.get(id(base))
            if not mutants or base.ok:
                continue
            kind = "base reference row" if base.reference else "base row"
            names = ", ".join(m.design for m in mutants)
            if base.unexpected:
                what = f"fails {', '.join(base.unexpected)} (not pinned)"
            else:
                what = (
                    "could not be checked (" + ", ".join(f"{c} raised" for c in base.errors) + ")"
                )
            lines.append(
                f"{kind} {base.label} {what}: the mutant(s) held against it ({names}) "
                "rest on a broken base; the gate fails"
            )
        return lines

    def credit_notes(self) -> list[str]:
        """One line per mutant row not caught although it fails something: which failures its
        base row did not let it claim, and why."""
        lines = []
        for m in self.mutants:
            if m.caught or not m.not_credited:
                continue
            why = "; ".join(f"{p}, {reason}" for p, reason in m.not_credited.items())
            lines.append(f"{m.label} ({m.status}, held against {m.against}): {why}")
        return lines

    def summary(self) -> str:
        """One line: are the correct designs green, is every mutant caught."""
        d, m, refs = self.designs, self.mutants, self.references
        green = sum(r.ok for r in d)
        caught = sum(r.ok for r in m)
        parts = []
        if d:
            parts.append(f"correct designs green: {green}/{len(d)}")
        if m:
            parts.append(f"mutants caught: {caught}/{len(m)}")
        if refs:
            broken = sum(not r.ok for r in refs)
            parts.append(
                f"base reference rows: {len(refs)}" + (f" ({broken} failing)" if broken else "")
            )
        errors = sum(bool(r.errors) for r in self.rows)
        if errors:
            parts.append(f"checker errors: {errors}")
        undecided = [r for r in self.rows if r.status == "UNDECIDED"]
        if undecided:
            parts.append(f"undecided: {len(undecided)} row(s)")
        if self.interrupted:
            parts.append("interrupted before every row ran")
        if not self.rows:
            return ("INTERRUPTED" if self.interrupted else "PARTIAL") + ": nothing was checked"
        if self.ok:
            verdict = "PASS"
        elif self.failed:
            verdict = "FAIL"
        elif self.interrupted:
            verdict = "INTERRUPTED (not a pass)"
        else:
            verdict = "PARTIAL (not a pass)"
        return f"{verdict}: " + "; ".join(parts)

    def render(self) -> str:
        """The table, its legend, notes and the summary line."""
        headers = [SHORT_NAMES.get(p, p) for p in self.properties]
        label_w = max([len("design@config"), *(len(r.label) for r in self.rows)])
        against = any(r.is_mutant for r in self.rows)
        body = []
        for r in self.rows:
            cells = [r.cell(p) for p in self.properties]
            states = f"{r.states:,}" if r.states is not None else "-"
            line = [r.label, *cells, states, f"{r.seconds:.1f}s", r.status]
            if against:
                line.append(r.against or "")
            body.append(line)
        head = ["design@config", *headers, "states", "time", "result"]
        if against:
            head.append("held against")
        widths = [label_w] + [
            max(len(h), *(len(b[i]) for b in body)) if body else len(h)
            for i, h in enumerate(head[1:], start=1)
        ]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
        lines.append("  ".join("-" * w for w in widths))
        for i, b in enumerate(body):
            if i and self.rows[i].is_mutant and not self.rows[i - 1].is_mutant:
                lines.append("")
            lines.append("  ".join(c.ljust(w) for c, w in zip(b, widths, strict=True)).rstrip())
        lines.append("")
        letters = ", ".join(f"{LETTERS.get(c, c[:1])} = {c}" for c in self.checkers)
        legend_marks = f"checkers: {letters or 'none'}; ? = undecided; - = does not apply; "
        legend_marks += "* = pinned known finding"
        if against:
            legend_marks += "; ~ = not credited to the mutant: its base row does not pass it"
        lines.append(legend_marks)
        if self.references:
            lines.append(
                "reference = a base design's row no one asked for, run in its mutants' "
                "configuration to hold them against it (not counted as a correct design)"
            )
        legend = [f"{SHORT_NAMES[p]} = {p}" for p in self.properties if p in SHORT_NAMES]
        if legend:
            lines.append("columns: " + ", ".join(legend))
        for r in self.rows:
            for checker, err in r.errors.items():
                lines.append(f"error: {r.label} {checker}: {err}")
        lines.extend(f"error: {p}" for p in self.base_problems())
        lines.extend(f"not credited: {n}" for n in self.credit_notes())
        lines.extend(f"note: {n}" for n in self.notes)
        lines.append(self.summary())
        return "\n".join(lines)


def normalize_expected(expected: ExpectedFailures | None) -> dict[tuple[str, str], frozenset[str]]:
    return {(d, c): frozenset(props) for (d, c), props in (expected or {}).items()}


def run_matrix(
    names: Sequence[str] | None = None,
    configs: Sequence[str | Config] | None = None,
    checkers: Sequence[str] = DEFAULT_CHECKERS,
    progress: Progress | None = None,
    *,
    expected_failures: ExpectedFailures | None = None,
    max_states: int | None = None,
    max_memory: int | None = None,
    symmetry: bool = True,
    profile: str = "ci",
    extra_checkers: Mapping[str, Checker] | None = None,
    jobs: int = 1,
) -> Matrix:
    """Run every named design and mutant (default: all registered) under its configurations
    (or ``configs`` for all) through ``checkers``. Bad names and configurations raise
    ``RegistryError``/``ValueError`` before anything runs; a checker that raises is recorded as an
    error of its row. ``extra_checkers`` adds named checkers ``(model, progress) -> CheckResult``.
    ``jobs`` > 1 runs rows in that many forked worker processes (the registry, including designs
    loaded from files, is inherited); rows come back in plan order.
    """
    from replcheck.model import designs, mutants

    progress = progress or quiet()
    expected = normalize_expected(expected_failures)
    explicit = names is not None
    if names is None:
        names = [*designs(), *mutants()]
    extra = dict(extra_checkers or {})
    for c in checkers:
        if c not in CHECKERS and c not in extra:
            raise ValueError(f"unknown checker {c!r}; known: {', '.join([*CHECKERS, *extra])}")
    override = [resolve_config(c) for c in configs] if configs else None

    notes: list[str] = []
    plan: list[tuple[str, Config]] = []
    planned: set[tuple[str, str]] = set()
    for name in dict.fromkeys(names):
        get_design(name)  # raises RegistryError for an unknown name
        for cfg in override or [resolve_config(c) for c in design_configs(name)]:
            if explicit:
                check_fits(name, cfg)
            elif cfg.misfit(type(get_design(name)).era):
                continue  # every design was asked for: this one is no question for cfg
            if (name, cfg.name) not in planned:  # a configuration named twice runs once
                planned.add((name, cfg.name))
                plan.append((name, cfg))
    if override and not explicit:
        skipped = len(names) - len({n for n, _c in plan})
        if skipped:
            notes.append(
                f"{skipped} design(s) of the other era skipped: the configuration "
                "does not apply to them"
            )
    if not plan:
        raise ValueError("no design to which the configuration applies")
    plan, references = with_references(plan)

    runners: dict[str, Checker] = {}
    for c in checkers:
        if c == "explore":
            runners[c] = lambda m, p: check(
                m, symmetry=symmetry, max_states=max_states, progress=p, max_memory=max_memory
            )
        elif c == "fuzz":
            fn, why = load_fuzz()
            if fn is None:
                notes.append(why)
                progress.note(why)
                continue
            runners[c] = lambda m, _p, fn=fn: call_fuzz(fn, m, profile)
        elif c == "bmc":
            from replcheck.specs.crosscheck import bmc_check

            runners[c] = lambda m, _p: bmc_check(m)
        elif c == "proofs":
            prove, why = load_proofs()
            if prove is None:
                notes.append(why)
                progress.note(why)
                continue
            runners[c] = lambda m, _p, prove=prove: prove(m)
        else:
            runners[c] = extra[c]

    rows = [_row_for(name, cfg, expected, (name, cfg.name) in references) for name, cfg in plan]
    if jobs > 1 and not extra and len(plan) > 1:
        return _run_parallel(plan, rows, runners, notes, expected, progress, jobs)

    done: list[Row] = []
    interrupted = False
    try:
        for i, row in enumerate(rows, start=1):
            _run_row(row, runners, progress, f"[{i}/{len(plan)}] ")
            done.append(row)
    except KeyboardInterrupt:  # a partial matrix of the rows that finished
        interrupted = True
        notes.append(f"interrupted after {len(done)} of {len(rows)} row(s)")
    progress.close()
    return _finish(done, runners, notes, expected, interrupted)


def with_references(
    plan: Sequence[tuple[str, Config]],
) -> tuple[list[tuple[str, Config]], set[tuple[str, str]]]:
    """``plan`` with a base reference row for every mutant row ``(m, C)`` whose base design the
    plan does not already check under ``C``, and the keys ``(design, config name)`` of those
    rows. They go just before the first mutant row that needs one, so that a base is listed
    with the designs and no row is planned twice."""
    planned = {(n, c.name) for n, c in plan}
    refs: dict[tuple[str, str], tuple[str, Config]] = {}
    first: int | None = None
    for i, (name, cfg) in enumerate(plan):
        if not DESIGNS[name].is_mutant():
            continue
        key = (base_design(name), cfg.name)
        if key not in planned and key not in refs:
            refs[key] = (key[0], cfg)
            first = i if first is None else first
    if first is None:
        return list(plan), set()
    return [*plan[:first], *refs.values(), *plan[first:]], set(refs)


def link_bases(rows: Iterable[Row]) -> None:
    """Point every mutant row at its base design's row in the same configuration (left
    ``None`` when that row did not run)."""
    rows = list(rows)
    by_key = {(r.design, r.config): r for r in rows if not r.is_mutant}
    for r in rows:
        if r.is_mutant:
            r.base = by_key.get((r.base_design, r.config))


def _finish(
    rows: list[Row],
    runners: Mapping[str, Checker],
    notes: list[str],
    expected: dict[tuple[str, str], frozenset[str]],
    interrupted: bool,
) -> Matrix:
    link_bases(rows)
    matrix = Matrix(rows, tuple(runners), _property_names(rows), notes, expected)
    matrix.interrupted = interrupted
    return matrix


def _row_for(name: str, cfg: Config, expected: dict, reference: bool = False) -> Row:
    """A row to run. A mutant's pins are its own only: its base design's failures are read from
    the base row it is held against."""
    design = get_design(name)
    model = Model(design, cfg)
    mutant_of = type(design).mutant_of
    pinned = frozenset(expected.get((name, cfg.name), ()))
    base = base_design(name) if mutant_of else None
    return Row(
        name, cfg.name, mutant_of, model, expected=pinned, reference=reference, base_design=base
    )


def _property_names(rows: list[Row]) -> list[str]:
    """The model's properties, then the columns only a checker's results add (the proofs)."""
    names: list[str] = []
    for row in rows:
        for p in row.model.properties:
            if p.name not in names:
                names.append(p.name)
    for row in rows:
        for r in row.results.values():
            for p in r.verdicts:
                if p not in names:
                    names.append(p)
    return names


def _run_row(row: Row, runners: Mapping[str, Checker], progress: Progress, prefix: str) -> None:
    """Run every checker over one row, recording results, errors and time."""
    for checker, run in runners.items():
        progress.task(f"{prefix}{row.label} {checker}")
        started = time.perf_counter()
        try:
            result = run(row.model, progress)
        except (Exception, SystemExit) as exc:  # a checker or a design raised: record, go on
            row.errors[checker] = f"{type(exc).__name__}: {exc}"
            progress.done("error")
            continue
        finally:
            took = time.perf_counter() - started
            row.seconds += took
            row.times[checker] = row.times.get(checker, 0.0) + took
        row.results[checker] = result
        progress.done(", ".join(result.violated) or "no failure")


JOBS_PER_CPU = 4
"""``check --jobs`` takes at most this many worker processes per CPU."""

WORKER_MIB = 256
"""The memory ``check --jobs`` reserves per worker process, in MiB: it takes no more workers
than the memory available holds at that."""


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _available_mib() -> int | None:
    """The memory available for new processes (``MemAvailable``), in MiB; None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def max_jobs() -> tuple[int, str]:
    """The most worker processes this machine holds for ``check --jobs``, and why: at most
    ``JOBS_PER_CPU`` per CPU, and no more than its available memory holds at ``WORKER_MIB``
    each."""
    n = cpus()
    limit, why = JOBS_PER_CPU * n, f"{JOBS_PER_CPU} per CPU, {n} CPU(s)"
    available = _available_mib()
    if available is not None and available // WORKER_MIB < limit:
        limit = max(1, available // WORKER_MIB)
        why = f"{WORKER_MIB} MiB each of the {available:,} MiB of memory available"
    return limit, why


def default_jobs() -> int:
    """``check``'s worker processes when not told: one per CPU, within ``max_jobs``."""
    return min(cpus(), max_jobs()[0])


def _quiet_worker(parent: int) -> None:
    """A forked worker's initializer: it dies with the command (even a SIGKILLed one), and
    quietly. Ctrl-C at a terminal signals the whole process group: the worker ignores it (the
    command stops its workers itself), and takes SIGTERM, which the command sends it, as the
    plain end it is by default (the command's own handlers, inherited by the fork, would raise
    ``KeyboardInterrupt`` in it and print a traceback)."""
    import signal

    from replcheck.conformance.cluster.lifeline import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    die_with_parent(parent)


_WORKER_RUNNERS: Mapping[str, Checker] = {}
"""The parent's checkers, inherited by forked workers (closures cannot be pickled)."""


def _run_job(job: tuple[str, Config]) -> tuple[dict, dict, float, dict]:
    """One row in a worker process: (results, errors, seconds, seconds per checker)."""
    row = _row_for(*job, {})
    _run_row(row, _WORKER_RUNNERS, quiet(), "")
    return row.results, row.errors, row.seconds, row.times


def _stop_pool(pool: Any) -> None:
    """Stop a pool at once: no new rows; the workers are ended (SIGTERM, which ends them
    quietly: ``_quiet_worker``; the rows they were running are not reported) and a worker that
    has not gone within a second is killed. The pool's manager thread then reports the pool
    broken: that is expected here, so it is kept quiet rather than printed as a traceback."""
    import signal
    import threading

    workers = list(getattr(pool, "_processes", {}).values())
    try:  # a second Ctrl-C while the workers stop would lose the rows that came back
        previous_sigint = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        previous_sigint = None
    previous = threading.excepthook
    threading.excepthook = lambda _args: None
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        with contextlib.suppress(ProcessLookupError, TypeError):
            os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 1.0
    for proc in workers:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(2.0)
    threading.excepthook = previous
    if previous_sigint is not None:
        signal.signal(signal.SIGINT, previous_sigint)


def _run_parallel(plan, rows, runners, notes, expected, progress, jobs):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _WORKER_RUNNERS
    _WORKER_RUNNERS = runners
    ctx = multiprocessing.get_context("fork")
    finished: list[Row] = []
    interrupted = False
    # Workers die with the command, even a SIGKILLed one: none goes on exploring alone.
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=ctx, initializer=_quiet_worker, initargs=(os.getpid(),)
    )
    try:
        done = zip(rows, pool.map(_run_job, plan), strict=False)
        for i, (row, (results, errors, seconds, times)) in enumerate(done, start=1):
            row.results.update(results)
            row.errors.update(errors)
            row.seconds = seconds
            row.times.update(times)
            finished.append(row)
            progress.task(f"[{i}/{len(plan)}] {row.label}")
            found = sorted({p for r in results.values() for p in r.violated})
            progress.done(", ".join(found) or "no failure")
    except KeyboardInterrupt:  # the rows that came back make a partial matrix
        interrupted = True
        notes.append(f"interrupted after {len(finished)} of {len(rows)} row(s)")
        _stop_pool(pool)
    else:
        pool.shutdown()
    progress.close()
    return _finish(finished, runners, notes, expected, interrupted)
