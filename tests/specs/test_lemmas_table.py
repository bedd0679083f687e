"""Induction for the table era (``specs/lemmas_table.py``): every strengthening lemma holds on the
reachable states of ``table`` under ``t-std`` (checked on plain values, without Z3), every
invariant is inductive with the lemmas for each design of ``INDUCTION_DESIGNS``; without them, or
for a mutant the lemmas do not describe, induction reports a counterexample; ``replcheck prove
--induction`` refuses a design with no lemmas."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.text import FPY, is_true
from replcheck.model.table.compose import table_flat_class
from replcheck.model.table.layout import TableFlat
from replcheck.specs.explore import explore
from replcheck.specs.lemmas_table import (
    INDUCTION_CONFIG,
    INDUCTION_DESIGNS,
    run_induction,
    table_lemmas,
)

from replcheck.cli import main

PREFIX = 2000
"""States of the breadth-first prefix the lemmas are checked on (the whole space of ``table`` under
``t-std`` has about 33,000 without symmetry reduction; checking them all takes minutes)."""


def _flat(design: str) -> TableFlat:
    cfg = STANDARD[INDUCTION_CONFIG]
    return table_flat_class(design, cfg)(get_design(design), cfg)


def test_every_lemma_holds_on_reachable_states() -> None:
    z = _flat("table")
    fm = z.model()
    lemmas = table_lemmas(z)
    assert lemmas and all(lemma.check.__doc__ for lemma in lemmas.values())
    ex = explore(
        Model(get_design("table"), STANDARD[INDUCTION_CONFIG]), symmetry=False, max_states=PREFIX
    )
    assert len(ex.states) >= PREFIX and not ex.complete
    for st in ex.states:
        get = fm.encode(st).__getitem__
        for name, lemma in lemmas.items():
            assert is_true(lemma.check(FPY, get)), (name, st)


def test_the_lemmas_refuse_a_configuration_they_were_not_written_for() -> None:
    cfg = STANDARD["t-race"]
    z = table_flat_class("table", cfg)(get_design("table"), cfg)
    with pytest.raises(ValueError, match="master restart"):
        table_lemmas(z)


def test_without_lemmas_induction_reports_a_counterexample() -> None:
    pytest.importorskip("z3")
    from replcheck.specs.bmc import induct

    fm = _flat("table").model()
    target = next(p for p in fm.invariants if p.name == "no_lost_edit")
    r = induct(fm, target, [], timeout=600)
    assert r.verdict == "not inductive"
    assert r.cti and "no_lost_edit" in r.cti["broken_after_step"] and r.cti["changed"]


def test_the_lemmas_do_not_prove_a_mutant_safe() -> None:
    """The mutant's cleaner deletes a live server's WAL when the server has no queue row yet:
    the proof breaks at the lemma about what the cleaner's rule lets go."""
    pytest.importorskip("z3")
    from replcheck.specs.bmc import induct

    name = "table/cleaner-missing-queue-deletes"
    cfg = STANDARD[INDUCTION_CONFIG]
    z = table_flat_class(name, cfg)(get_design(name), cfg)
    fm = z.model()
    target = next(p for p in fm.invariants if p.name == "no_lost_edit")
    r = induct(fm, target, list(table_lemmas(z).values()), timeout=600)
    assert r.verdict == "not inductive"
    assert r.cti and "cleaner_keeps_wanted" in r.cti["broken_after_step"]


@pytest.mark.slow
@pytest.mark.parametrize("design", INDUCTION_DESIGNS)
def test_every_invariant_is_inductive_with_the_lemmas(design: str) -> None:
    pytest.importorskip("z3")
    results = run_induction(timeout=600, design=design)
    proved = {r.property for r in results}
    fm = _flat(design).model()
    assert proved == {p.name for p in fm.invariants} - {"encoding_capacity"}
    for r in results:
        assert r.verdict == "inductive", r.to_dict()


def test_prove_induction_refuses_a_design_without_lemmas(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["prove", "--induction", "--design", "table-naive"])
    assert code == 2
    err = capsys.readouterr().err
    assert "table" in err and "zk-multi" in err and "Traceback" not in err


def test_prove_induction_holds_a_mutant_to_its_bases_lemmas_and_says_where_it_is_caught(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HBASE-27214's AddPeerProcedure is not under t-std, where the lemmas are written: its
    invariants are inductive there, and the report says the induction does not judge
    t-add-peer, where the mutant is caught."""
    pytest.importorskip("z3")
    code = main(["prove", "--induction", "--design", "table/HBASE-27214"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (
        "note: the induction is under t-std; table/HBASE-27214 is caught under t-add-peer, "
        "which it does not judge"
    ) in out
