"""Branch coverage of the model's steps (``conformance.branch_cov``): the branches are the
decisions the steps a recorded run is replayed through go through (the protocol text's guarded
writes and if-then-elses for the ZooKeeper era, the explicit steps' ``if`` statements for the
table era), found in the source, and a replayed behaviour counts each one the way its step
really went."""

from __future__ import annotations

import linecache
from collections import Counter
from pathlib import Path

import pytest
from replcheck.conformance.mine import branch_cov
from replcheck.conformance.validate.core import validate_path
from replcheck.model import STANDARD, Action, get_design
from replcheck.model.engine.plain import PlainModel

DATA = Path(__file__).resolve().parents[3] / "test_data" / "validate"

CLAIM_CHECK = "cond (drop_queue)"
"""zk-multi's claim check as the text states it: the claim's ``multi`` drops the dead server's
queue only where it applies (``claim_commit`` passes ``applies`` to ``drop_queue``)."""


def _source(p: branch_cov.Point) -> str:
    line, end, col, end_col = p.span  # type: ignore[misc]
    rows = [linecache.getline(p.file, n) for n in range(line, end + 1)]
    rows[-1] = rows[-1][:end_col]
    rows[0] = rows[0][col:]
    return "".join(rows)


@pytest.mark.parametrize("design", ["zk-multi", "zk-lock", "table"])
def test_every_point_is_an_if_statement_or_a_decision_of_a_step(design: str) -> None:
    points = branch_cov.universe(design)
    assert set(points) == {k.name for k in get_design(design).kinds}
    for action, found in points.items():
        for p in found:
            if p.span is None:
                text = linecache.getline(p.file, p.line).strip()
                assert text.startswith(("if ", "elif ")), (action, p)
                assert p.body > p.test_end >= p.line
            else:
                call = _source(p)
                assert ".when(" in call or ".ite(" in call, (action, p, call)
                assert call.endswith(")"), (action, p, call)  # the whole call, to the column
    # both eras' recorded runs go through the text: its helpers, never the explicit steps
    files = {branch_cov._model_path(p.file) for found in points.values() for p in found}
    assert ("zk/text.py" in files) == design.startswith("zk-")
    assert ("table/seams.py" in files) == (design == "table")
    assert "table/common.py" not in files


def test_the_claim_commit_step_reaches_the_claim_check_through_its_helpers() -> None:
    names = branch_cov.names("zk-multi")
    assert any(n.startswith("claim_commit[zk/text.py:") and CLAIM_CHECK in n for n in names)
    # found through ``self.start_recovered`` -> ``self.add_shipper``, a helper two calls down
    assert any(n.startswith("claim_commit[") and "ops.and_(cond, *taken)" in n for n in names)
    # the interpreter's own modules state no protocol: not followed
    assert not any(f"[{m}:" in n for n in names for m in branch_cov.MACHINERY)
    assert len(names) == len(set(names))


RACE = [
    Action("crash", (0,)),
    Action("claim_read", (1, 0, 0)),
    Action("claim_read", (2, 0, 0)),
    Action("claim_commit", (1,)),
    Action("claim_commit", (2,)),
]


def _claim_checks(hits: Counter[str]) -> dict[str, int]:
    first = min(
        (n for n in hits if CLAIM_CHECK in n), key=lambda n: int(n.split(":")[1].split(" ")[0])
    )
    line = first.split(" ")[0]
    return {n.split(" ")[1]: k for n, k in hits.items() if n.startswith(line) and CLAIM_CHECK in n}


def test_each_step_goes_one_way_through_each_decision_it_reaches() -> None:
    """zk-multi, ``race``: two survivors read the dead server's queue; the first ``multi``
    moves it, the second fails ("someone else took the log"). The claim check goes ``then``
    for the first and ``else`` for the second, once each."""
    model = PlainModel(get_design("zk-multi"), STANDARD["race"])
    hits = branch_cov.exercised("zk-multi", model, RACE)
    assert _claim_checks(hits) == {"then:": 1, "else:": 1}
    # without the second claim, only the way the first went
    hits = branch_cov.exercised("zk-multi", model, RACE[:4])
    assert _claim_checks(hits) == {"then:": 1}


def test_guards_are_not_the_step_going_anywhere() -> None:
    """Finding the enabled actions runs every candidate's guard, and a guard runs its step's
    body up to its first write: none of that is counted, only the update of the action taken.
    A crash's update is the same whichever other steps were enabled before it."""
    model = PlainModel(get_design("zk-multi"), STANDARD["race"])
    alone = branch_cov.exercised("zk-multi", model, RACE[:1])
    assert alone and {n.split("[", 1)[0] for n in alone} == {"crash"}
    model.enabled(model.init())  # every guard, run once more: nothing recorded here
    assert branch_cov.exercised("zk-multi", model, RACE[:1]) == alone


def test_a_replayed_run_counts_every_claim_check_once() -> None:
    v = validate_path(DATA / "zk-multi-mutant-all-servers-down")
    assert isinstance(v.model, PlainModel)  # a recorded run of the ZooKeeper era: the text
    hits = branch_cov.exercised(v.design, v.model, v.behaviour)
    commits = sum(1 for a in v.behaviour if a.name == "claim_commit")
    assert commits == sum(_claim_checks(hits).values()) == 2


@pytest.mark.parametrize(
    ("design", "engine", "config"),
    [
        ("zk-multi", PlainModel, "std"),
        ("zk-lock", PlainModel, "std"),
        ("table", PlainModel, "t-std"),
    ],
)
def test_a_branch_is_counted_for_the_action_whose_step_took_it(
    design: str, engine: type, config: str
) -> None:
    model = engine(get_design(design), STANDARD[config])
    st = model.init()
    first = next(iter(model.enabled(st)))
    hits = branch_cov.exercised(design, model, [first])
    assert hits and {n.split("[", 1)[0] for n in hits} == {first.name}
    assert set(hits) <= set(branch_cov.names(design))
    assert hits == branch_cov.exercised(design, model, [first])  # the same replay, the same counts
    assert branch_cov.exercised(design, model, []) == Counter()
