"""Sync replication in the flat table model (``model/features/sync_layout.py``) against the explicit
model (``model/features/sync_procedure.py``), on plain values: on every state checked, the flat form
round-trips, the flat steps lead to exactly the explicit successors, every flat invariant gives the
explicit verdict, and the flat step property gives the explicit verdict on every transition. The
fast case checks a breadth-first prefix; the slow ones also check states spread over the whole
state space (the transition's later steps, the drains and the mutants' violations lie deeper than
any small prefix reaches). Then the two engines (exploration and bounded model checking over this
flat model) must find the same first violations."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest
from layout_agreement import agree, check_states
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.features.sync_layout import SyncFlat
from replcheck.model.features.sync_replication import SyncNoRefusal
from replcheck.model.table.compose import table_flat_class, table_flat_model
from replcheck.specs.explore import explore

SYNC_DESIGNS = ("table", "table-doc", "table/sync-no-refusal")


def agree_spread(name: str, config: str, stride: int) -> tuple[int, set[str]]:
    """Every ``stride``-th state of the whole (unreduced) state space, in breadth-first order."""
    model = Model(get_design(name), STANDARD[config])
    ex = explore(model, symmetry=False)
    return check_states(name, config, ex.states[::stride])


def test_flat_sync_steps_and_verdicts_match_the_model() -> None:
    agree("table", "t-sync", 150)


def test_the_sync_feature_is_picked_for_sync_configurations() -> None:
    for name in SYNC_DESIGNS:
        cls = table_flat_class(name, STANDARD["t-sync"])
        assert issubclass(cls, SyncFlat) and "sync" in cls.handles
        assert not issubclass(table_flat_class(name, STANDARD["t-std"]), SyncFlat)
    assert issubclass(table_flat_class("table/sync-no-refusal"), SyncNoRefusal)


@pytest.mark.slow
@pytest.mark.parametrize("name", SYNC_DESIGNS)
def test_every_sync_design_and_mutant_matches_on_a_prefix(name: str) -> None:
    agree(name, "t-sync", 400)


SPREAD = [
    ("table", "t-sync", 20, set()),
    ("table-doc", "t-sync", 20, set()),
    ("table/sync-no-drain", "t-sync", 20, {"no_stale_edit_replicated"}),
    ("table/sync-no-refusal", "t-sync", 20, {"no_stale_edit_replicated"}),
    ("table", "t-sync-back", 50, {"no_stale_edit_replicated"}),
    ("table-doc", "t-sync-back", 50, {"no_stale_edit_replicated"}),
]
"""(design, configuration, stride, the invariants the explicit model breaks on the states
checked): every design and mutant is checked on one state in 20 of ``t-sync`` (about 1,000 to
1,400 of 20,000 to 29,000), and the designs on one in 50 of ``t-sync-back`` (the round trip
DA -> STANDBY -> DA; about 1,400 to 1,900 of 68,000 to 94,000). The samples reach every step of
the transition, the drains and the states breaking ``no_stale_edit_replicated`` (the manifest's
verdicts: the mutants under ``t-sync``, the pinned finding under ``t-sync-back``)."""


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config", "stride", "broken"), SPREAD)
def test_sync_matches_across_the_state_space(
    name: str, config: str, stride: int, broken: set[str]
) -> None:
    n, found = agree_spread(name, config, stride)
    assert n > 900
    assert found == broken


# --- the two engines ---------------------------------------------------------------------------

CROSS_CHECK_DEPTH = 6
"""Exploration finds the mutants' first violations at depth 15 (``sync-no-drain``) and 22
(``sync-no-refusal``), and none at all for ``table`` / ``table-doc`` (32 deep). Bounded model
checking from the initial state costs about twice as much per added depth here (depth 8 took
minutes), so those depths are out of reach in a test: up to depth 6 both engines must agree that
nothing breaks (no violation the flat encoding would invent early). The violations
themselves are checked by ``test_bmc_finds_each_violation_where_exploration_does``, which
unrolls the last steps before each."""


@pytest.mark.slow
@pytest.mark.parametrize("name", SYNC_DESIGNS)
def test_engines_agree_on_sync(name: str) -> None:
    pytest.importorskip("z3")
    from replcheck.specs.crosscheck import cross_check

    cc = cross_check(name, STANDARD["t-sync"], CROSS_CHECK_DEPTH)
    assert cc.agree, cc.to_dict()


DEEP_STEPS = 10
"""How many steps bounded model checking unrolls from a state on exploration's shortest path to
a violation (about a minute each on a loaded machine; 13 steps took about two)."""


DEEP = [
    ("table/sync-no-drain", "t-sync"),
    ("table/sync-no-refusal", "t-sync"),
    ("table", "t-sync-back"),
    ("table-doc", "t-sync-back"),
]
"""Each mutant where it breaks ``no_stale_edit_replicated`` (depths 15 and 22), and the designs'
pinned DA -> STANDBY -> DA finding (depths 30 and 31)."""


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config"), DEEP)
def test_bmc_finds_each_violation_where_exploration_does(name: str, config: str) -> None:
    """Started ``DEEP_STEPS`` steps before the violation on a shortest path to it (so no
    violation is reachable sooner), bounded model checking over the flat model finds
    ``no_stale_edit_replicated`` broken exactly ``DEEP_STEPS`` steps later, and nothing else (no
    other property is ever broken in these configurations), and its counterexample is a
    behaviour of the explicit model."""
    pytest.importorskip("z3")
    from replcheck.specs.bmc import bmc, normalize

    cfg = STANDARD[config]
    model = Model(get_design(name), cfg)
    ex = explore(model, symmetry=False)
    v = ex.first_violation["no_stale_edit_replicated"]
    path = ex.path(v)
    assert len(path) - 1 == ex.depth[v] > DEEP_STEPS
    start = path[-1 - DEEP_STEPS][1]
    fm = table_flat_model(name, cfg)
    res = bmc(replace(fm, init=fm.encode(start)), DEEP_STEPS)
    assert res.reached == DEEP_STEPS and not res.timed_out
    assert res.first == {"no_stale_edit_replicated": DEEP_STEPS}
    steps = res.counterexamples["no_stale_edit_replicated"].steps
    assert normalize(steps[0][1]) == normalize(start)
    for (_a, before), (_b, after) in pairwise(steps):
        successors = {normalize(model.step(before, x)) for x in model.enabled(before)}
        assert normalize(after) in successors
    stale = next(p for p in model.invariants if p.name == "no_stale_edit_replicated")
    assert not stale.check(cfg, steps[-1][1])
