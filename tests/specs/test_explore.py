from __future__ import annotations

from replcheck.model import STANDARD, Model, get_design
from replcheck.specs import FAIL, PASS, check, explore


def small(name: str, config: str = "std", **over: object) -> Model:
    return Model(get_design(name), STANDARD[config].with_overrides(**over))


def test_symmetry_reduction_keeps_verdicts_and_shrinks_the_space() -> None:
    for name in ("zk-multi", "zk-multi/HBASE-8099"):
        model = small(name, "race")
        with_sym = check(model, symmetry=True)
        without = check(model, symmetry=False)
        assert with_sym.verdicts == without.verdicts
        assert with_sym.stats["states"] < without.stats["states"]


def test_shortest_counterexample_replays_and_is_shortest() -> None:
    model = small("zk-lock/append-before-register")
    result = check(model)
    cex = result.counterexamples["no_lost_edit"]
    state = model.init()
    for action in cex.actions():
        assert action in model.enabled(state)
        state = model.step(state, action)
    assert state == cex.steps[-1][1]
    prop = next(p for p in model.invariants if p.name == "no_lost_edit")
    assert not prop.check(model.cfg, state)
    # Breadth-first: no state at a smaller depth breaks the invariant.
    ex = explore(model)
    bad = [ex.depth[v] for v, s in enumerate(ex.states) if not prop.check(model.cfg, s)]
    assert min(bad) == cex.length


def test_liveness_counterexample_is_a_stuck_state_or_a_fair_loop() -> None:
    model = small("zk-lock/HBASE-16144", "double-failure")
    result = check(model)
    assert result.verdicts["dead_queues_claimed"] == FAIL
    cex = result.counterexamples["dead_queues_claimed"]
    assert cex.stuck or cex.loop_start is not None
    last = cex.steps[-1][1]
    assert not any(a.name in model.fair_kinds for a in model.enabled(last)) or not cex.stuck


def test_budget_limited_exploration_reports_unknown_not_pass() -> None:
    result = check(small("zk-multi"), max_states=50)
    assert result.stats["complete"] is False
    assert PASS not in result.verdicts.values()
