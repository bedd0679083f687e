"""Z3 proofs about the decision rules (``specs/proofs.py``): every proof of a correct design is
proved, every rule-level mutant is refuted, and each counterexample really breaks the PLAIN rule
(evaluated with ``PY``: the two backends agree)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("z3")

from replcheck.model import DESIGNS, designs, mutants
from replcheck.specs import proofs

from replcheck.cli import main

TIMEOUT = 300.0
"""Seconds per Z3 query: generous on purpose. A test asserts the verdict, not the time (times are
measured in bench/proofs.py); on a CI worker that has built millions of bounded-model-checking
terms in the same process, the round-trip proof once took over 60 s against 4-10 s alone."""


@pytest.mark.parametrize("design", designs())
def test_every_proof_of_a_correct_design_comes_out_as_expected(design: str) -> None:
    results = proofs.prove_design(design, TIMEOUT)
    assert results, design
    for r in results:
        assert r.verdict == r.expect, (r.proof, r.verdict, r.reason)
        if r.verdict == proofs.REFUTED:
            assert proofs.confirm(proofs.BY_NAME[r.proof], DESIGNS[design], r.counterexample)


RULE_LEVEL = [m for m in mutants() if proofs.rule_level(DESIGNS[m])]


def test_the_rule_level_mutants_are_the_expected_ones() -> None:
    assert set(RULE_LEVEL) >= {
        "table/HBASE-27214",
        "table/cleaner-scp-unfinished-dead",
        "table/cleaner-missing-queue-deletes",
        "table/cleaner-offset-wal-done",
        "table/unguarded-claim",
        "zk-lock/HBASE-8207",
        "zk-multi/HBASE-12241",
    }
    for m in mutants():
        if m not in RULE_LEVEL:
            assert proofs.non_rule_level_reason(DESIGNS[m])


@pytest.mark.parametrize("mutant", RULE_LEVEL)
def test_every_rule_level_mutant_is_refuted_by_a_real_counterexample(mutant: str) -> None:
    (dp,) = proofs.prove([mutant], TIMEOUT)
    assert dp.ok and dp.caught, (mutant, [(r.proof, r.verdict) for r in dp.results])
    cls = DESIGNS[mutant]
    for name in dp.caught:
        r = next(r for r in dp.results if r.proof == name)
        assert r.counterexample, name
        # the counterexample breaks the property with the mutant's plain rule ...
        assert proofs.confirm(proofs.BY_NAME[name], cls, r.counterexample), name
        # ... and not with the base design's rule
        base = DESIGNS[cls.mutant_of or ""]
        assert not proofs.confirm(proofs.BY_NAME[name], base, r.counterexample), name


def test_hbase_8207_counterexample_is_an_ambiguous_hyphenated_name() -> None:
    (dp,) = proofs.prove(["zk-lock/HBASE-8207"], TIMEOUT, only=["zk-queue-id-roundtrip"])
    (r,) = dp.results
    assert r.verdict == proofs.REFUTED
    hosts = [v for k, v in r.counterexample.items() if k.endswith(".host")]
    assert any("-" in h for h in hosts)


def test_results_are_data() -> None:
    (dp,) = proofs.prove(["table"], TIMEOUT, only=["cleaner-safety"])
    data = json.loads(json.dumps(dp.to_dict()))
    (p,) = data["proofs"]
    assert p["proof"] == "cleaner-safety" and p["verdict"] == "proved" and p["ok"]
    assert p["meaning"] and p["seconds"] >= 0


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prove_json(capsys) -> None:
    code, out, _err = run(
        capsys, "prove", "--design", "table", "--proof", "cleaner-safety", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["ok"] is True
    assert data["designs"][0]["proofs"][0]["verdict"] == "proved"


def test_cli_prove_mutant_text(capsys) -> None:
    code, out, _err = run(
        capsys, "prove", "--design", "table/unguarded-claim", "--proof", "claim-once"
    )
    assert code == 0
    assert "refuted by claim-once" in out and "counterexample: row_present=" in out


def test_cli_prove_exit_1_when_a_proof_fails(capsys, monkeypatch) -> None:
    # a correct design whose rule is broken: give table the mutant's cleaner liveness rule
    broken = DESIGNS["table/cleaner-scp-unfinished-dead"].rule_cleaner_live
    monkeypatch.setattr(DESIGNS["table"], "rule_cleaner_live", broken)
    monkeypatch.setattr(proofs, "_CACHE", {})
    code, out, _err = run(capsys, "prove", "--design", "table", "--proof", "cleaner-safety")
    assert code == 1 and out.splitlines()[-1].startswith("FAIL")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["prove", "--design", "nope"], "unknown design 'nope'"),
        (["prove", "--proof", "nope"], "unknown proof 'nope'"),
        (["prove", "--timeout", "0"], "must be positive"),
        (["prove", "--timeout", "x"], "not a number"),
    ],
)
def test_cli_prove_bad_input(capsys, argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and message in err


def test_proofs_join_the_check_matrix() -> None:
    from replcheck.matrix import PROOFS_COLUMN, run_matrix

    matrix = run_matrix(["table", "zk-lock/HBASE-8207", "table/HBASE-27213"], checkers=("proofs",))
    cells = {r.design: r.cell(PROOFS_COLUMN) for r in matrix.rows}
    assert cells == {
        "table": "ok",
        "zk-lock": "ok",
        "zk-lock/HBASE-8207": "FAIL(z)",
        "table/HBASE-27213": "ok",
    }
    status = {r.design: r.status for r in matrix.rows}
    # a rule-level mutant is caught by the proofs alone, held against its base's proofs (zk-lock
    # under hyphen-hosts, run as a reference: it was not asked); the other needs exploration,
    # and the design's own properties were asked of no checker that decides them: undecided
    assert status == {
        "table": "UNDECIDED",
        "zk-lock": "reference",
        "zk-lock/HBASE-8207": "caught",
        "table/HBASE-27213": "UNDECIDED",
    }
    assert matrix.exit_code == 4
    table = matrix.render()
    assert "proofs" in table.splitlines()[0] and "z = proofs" in table
