"""Branch coverage of the model's steps (``conformance.branch_cov``): the branches are the ``if``
statements the steps go through, found in the model's source, and a replayed behaviour counts
each one the way its step really went."""

from __future__ import annotations

import linecache
from collections import Counter
from pathlib import Path

import pytest
from replcheck.conformance import branch_cov
from replcheck.conformance.validate import validate_path
from replcheck.model import STANDARD, Action, get_design
from replcheck.model.model import ExplicitModel

DATA = Path(__file__).resolve().parents[2] / "test_data" / "validate"


@pytest.mark.parametrize("design", ["zk-multi", "zk-lock", "table"])
def test_every_point_is_an_if_statement_of_a_step(design: str) -> None:
    points = branch_cov.universe(design)
    assert set(points) == {k.name for k in get_design(design).kinds}
    for action, found in points.items():
        for p in found:
            text = linecache.getline(p.file, p.line).strip()
            assert text.startswith(("if ", "elif ")), (action, p)
            assert p.body > p.test_end >= p.line


def test_the_claim_commit_step_reaches_the_claim_check_through_its_helpers() -> None:
    names = branch_cov.names("zk-multi")
    claim = [n for n in names if n.startswith("claim_commit[zk_multi.py:")]
    assert any("not self.claim_applies(st, s, claim)" in n for n in claim)
    # found through ``self.start_recovered``, a helper two calls down
    assert any(n.startswith("claim_commit[") and "zk_common.py" in n for n in names)


def test_each_step_goes_one_way_through_each_if_it_reaches() -> None:
    """zk-multi, ``race``: two survivors read the dead server's queue; the first ``multi``
    moves it, the second fails ("someone else took the log"). The claim check goes ``else``
    for the first and ``then`` for the second, once each."""
    model = ExplicitModel(get_design("zk-multi"), STANDARD["race"])
    behaviour = [
        Action("crash", (0,)),
        Action("claim_read", (1, 0, 0)),
        Action("claim_read", (2, 0, 0)),
        Action("claim_commit", (1,)),
        Action("claim_commit", (2,)),
    ]
    hits = branch_cov.exercised("zk-multi", model, behaviour)
    check = {n.split(" ")[1]: k for n, k in hits.items() if "not self.claim_applies" in n}
    assert check == {"then:": 1, "else:": 1}
    # without the second claim, only the way the first went
    hits = branch_cov.exercised("zk-multi", model, behaviour[:4])
    check = {n.split(" ")[1]: k for n, k in hits.items() if "not self.claim_applies" in n}
    assert check == {"else:": 1}


def test_a_replayed_run_counts_every_claim_check_once() -> None:
    v = validate_path(DATA / "zk-multi-mutant-all-servers-down")
    hits = branch_cov.exercised(v.design, v.model, v.behaviour)
    commits = sum(1 for a in v.behaviour if a.name == "claim_commit")
    assert commits == sum(k for n, k in hits.items() if "not self.claim_applies" in n) == 2


def test_a_branch_is_counted_for_the_action_whose_step_took_it() -> None:
    design = "zk-multi"
    model = ExplicitModel(get_design(design), STANDARD["std"])
    st = model.init()
    first = next(iter(model.enabled(st)))
    hits = branch_cov.exercised(design, model, [first])
    assert hits and {n.split("[", 1)[0] for n in hits} == {first.name}
    assert set(hits) <= set(branch_cov.names(design))
    assert hits == branch_cov.exercised(design, model, [first])  # the same replay, the same counts
    assert branch_cov.exercised(design, model, []) == Counter()
    assert isinstance(first, Action)
