"""Bounded model checking and induction (``specs/bmc.py``, ``specs/crosscheck.py``,
``specs/lemmas_zk.py``): the two engines agree on every ZooKeeper-era design and mutant to its
deepest first violation and on every table-era one to a shallow depth (deeper for some), each
counterexample replays through the explicit model, and induction proves the invariants of
``zk-multi`` and ``zk-lock`` under ``std`` with their lemmas and reports a counterexample to
induction without them."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("z3")

from replcheck.model import STANDARD, get_design, mutants
from replcheck.model.engine.catalogue import flat_class, flat_model
from replcheck.specs.bmc import induct
from replcheck.specs.crosscheck import cross_check, cross_check_from_path
from replcheck.specs.lemmas_zk import run_induction, zk_lemmas

from replcheck.cli import main

ZK_MUTANTS = [m for m in mutants() if type(get_design(m)).era == "zk"]


@pytest.mark.parametrize(
    "name", ["zk-lock/ships-local-scope", "zk-lock/no-loop-prevention", "zk-lock/HBASE-3515"]
)
def test_engines_agree_on_quick_mutants(name: str) -> None:
    cc = cross_check(name)
    assert cc.explored, "the mutant must break something within the depth"
    assert cc.agree, cc.to_dict()
    for prop, cex in cc.bmc.counterexamples.items():
        assert cex.length == cc.bounded[prop]
        assert cex.steps[0][0] is None and all(a is not None for a, _ in cex.steps[1:])


ZK_DEEP = {"zk-lock/restart-adopts-queues": 6, "zk-lock/HBASE-12865": 6}
"""ZooKeeper-era mutants whose first violation lies too deep for the unrolling in CI: the engines
are held to agree up to this depth (``restart-adopts-queues`` breaks ``positions_monotone`` at 12,
and unrolling its ``restarts`` configuration that far takes about half an hour; ``HBASE-12865``
on ``chore`` breaks ``no_wal_deleted_while_queued`` at 11: depth 6 takes 31 s, depth 8 two and a
half minutes, and 11 did not finish in 17)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["zk-lock", "zk-multi", *ZK_MUTANTS])
def test_engines_agree_on_every_zk_design_and_mutant(name: str) -> None:
    cc = cross_check(name, depth=ZK_DEEP.get(name))
    assert cc.agree, cc.to_dict()
    assert cc.depth == ZK_DEEP.get(name, cc.depth)


TABLE_CROSS_CHECKED = [
    "table",
    "table-naive",
    "table/HBASE-27214",
    "table/cleaner-missing-queue-deletes",
]
"""Table-era designs and mutants cross-checked here to exploration's deepest first violation. The
feature configurations' own are in ``test_<feature>.py``; the deepest ones (a first
violation past depth 12) are checked by hand with ``replcheck prove --depth`` (docs/bench.md)."""

TABLE_ERA = [n for n in ("table", "table-doc", "table-naive", *mutants()) if n.startswith("table")]
SHALLOW = 4
"""Every table-era design and mutant: the engines agree to this depth (most bugs lie deeper; this
catches an encoding that goes wrong early on any configuration)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLE_ERA)
def test_engines_agree_on_every_table_era_design_and_mutant_to_a_shallow_depth(name: str) -> None:
    cc = cross_check(name, depth=SHALLOW)
    assert cc.agree, cc.to_dict()


DEEP_TABLE_MUTANTS = [
    "table/unguarded-claim",
    "table/restart-forgets-barrier",
    "table/HBASE-28155",
    "table/HBASE-27213",
    "table/add-missing-rerun",
    "table/remove-all-one-pass",
    "table/HBASE-17077",
    "table/remove-peer-keeps-recovered",
]
"""Table-era mutants whose bugs lie deeper (10-24 steps) than bounded model checking reaches from
the initial state in a test's time: checked from 8 steps before the violation on exploration's
shortest path (``cross_check_from_path``)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", DEEP_TABLE_MUTANTS)
def test_bmc_finds_each_deep_table_era_violation_where_exploration_does(name: str) -> None:
    dc = cross_check_from_path(name)
    assert dc.violation_depth > dc.steps
    assert dc.agree, dc.to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLE_CROSS_CHECKED)
def test_engines_agree_on_table_era_designs_and_mutants(name: str) -> None:
    cc = cross_check(name)
    assert cc.agree, cc.to_dict()


@pytest.mark.slow
@pytest.mark.parametrize("design", ["zk-multi", "zk-lock"])
def test_every_invariant_is_inductive_with_its_lemmas(design: str) -> None:
    results = run_induction(timeout=600, design=design)
    assert len(results) == 8
    for r in results:
        assert r.verdict == "inductive", r.to_dict()


def test_without_lemmas_induction_reports_a_counterexample() -> None:
    cls = flat_class("zk-multi")
    z = cls(get_design("zk-multi"), STANDARD["std"])
    fm = z.model()
    single_owner = next(p for p in fm.invariants if p.name == "single_owner")
    r = induct(fm, single_owner, [], timeout=120)
    assert r.verdict == "not inductive"
    assert r.cti and "single_owner" in r.cti["broken_after_step"] and r.cti["changed"]
    lemmas = zk_lemmas(z)
    assert all(lemma.check.__doc__ for lemma in lemmas.values())


def test_the_bounded_encoding_starts_where_the_model_starts() -> None:
    fm = flat_model("zk-lock", STANDARD["std"])
    assert fm.decode(fm.init) == get_design("zk-lock").init(STANDARD["std"])
    assert not fm.in_range(fm.init)


def test_prove_depth_reports_both_engines(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["prove", "--depth", "3", "--design", "zk-lock/ships-local-scope", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"]
    (r,) = out["results"]
    assert r["bmc"] == r["explore"] == {"only_global_non_catalog": 2}


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["prove", "--depth", "2", "--design", "table", "--config", "zk-faults"],
            "does not apply to a table-era design",
        ),
        (["prove", "--depth", "0"], "must be positive"),
        (["prove", "--depth", "2", "--induction"], "ask for one"),
        (["prove", "--depth", "2", "--config", "nope"], "unknown configuration"),
    ],
)
def test_prove_depth_bad_input(argv: list[str], needle: str, capsys) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bmc_joins_the_check_matrix() -> None:
    from replcheck.matrix import run_matrix

    matrix = run_matrix(["zk-lock/ships-local-scope"], checkers=("explore", "bmc"))
    base, row = matrix.rows  # the mutant is held against its base, checked the same way
    assert (base.label, base.reference) == ("zk-lock@filtering", True)
    assert base.cell("only_global_non_catalog") == "ok" and base.cell("bmc_agrees") == "ok"
    assert row.cell("only_global_non_catalog") == "FAIL(e,b)" and row.status == "caught"
    assert row.cell("bmc_agrees") == "ok"
    assert "bmc_agrees" in matrix.render()
    # The table era too, on a feature configuration (the bootstrap: its whole space is 4 deep).
    table = run_matrix(["table"], configs=["t-bootstrap"], checkers=("bmc",))
    assert table.rows[0].results["bmc"].verdicts == {"bmc_agrees": "pass"}
