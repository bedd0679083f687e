"""The gate's report for a person (``replcheck.gate_text``): what ``check`` prints by default fits
in 100 columns and one screen, one line per design and mutant; only what is not green is shown
in full; the last line is the verdict."""

from __future__ import annotations

import pytest
from replcheck.model import DESIGNS, designs, mutants
from replcheck.specs import FAIL, PASS, CheckResult

from replcheck.gate_text import WIDTH, compact_count, compact_seconds, fit, render_text
from replcheck.matrix import run_matrix

RED_ROW = ("table-doc", "t-std")
"""A row no mutant is held against."""


def fake(model, _progress) -> CheckResult:
    """A checker deciding every property at once: a correct design passes them all (but
    ``RED_ROW`` fails ``no_lost_edit``), a mutant fails its first one."""
    props = [p.name for p in model.properties]
    verdicts = dict.fromkeys(props, PASS)
    if type(model.design).is_mutant():
        verdicts[props[0]] = FAIL
    elif (model.design.name, model.cfg.name) == RED_ROW:
        verdicts["no_lost_edit"] = FAIL
    result = CheckResult("explore", model.design.name, model.cfg.name, verdicts)
    result.stats = {"states": 123_456, "complete": True}
    return result


@pytest.fixture(scope="module")
def whole_gate():
    """Every design and mutant under every configuration it lists: the default gate's rows."""
    return run_matrix(None, checkers=("fake",), extra_checkers={"fake": fake})


def test_the_whole_gate_fits_in_100_columns_and_one_screen(whole_gate) -> None:
    text = render_text(whole_gate)
    lines = text.splitlines()
    assert len(whole_gate.rows) > 150  # the gate's rows, as many as the full matrix has lines
    assert max(len(line) for line in lines[:-1]) <= WIDTH
    assert lines[-1].startswith("FAIL: correct designs green: ")
    # one line per design and per mutant, the rest a few lines
    names = [*designs(), *mutants()]
    assert len(lines) <= len(names) + 25
    for name in designs():
        assert sum(1 for line in lines if line.startswith(f"{name} ")) == 1, name
    start = next(i for i, line in enumerate(lines) if line.startswith("mutant "))
    mutant_lines = [x for x in lines[start:] if x.startswith("  ") and x.split()[1] == "caught"]
    assert len(mutant_lines) == len(mutants())
    for name in mutants():
        base = DESIGNS[name].mutant_of
        while DESIGNS[base].mutant_of:
            base = DESIGNS[base].mutant_of
        assert f"  {name.removeprefix(base + '/')} " in "\n".join(mutant_lines), name


def test_green_rows_collapse_to_counts_and_red_ones_are_shown_in_full(whole_gate) -> None:
    lines = render_text(whole_gate).splitlines()
    table = next(line for line in lines if line.startswith("table-doc "))
    rows = [r for r in whole_gate.rows if r.design == "table-doc"]
    assert table.split()[1] == "RED"
    assert f"{len(rows)} configs: {len(rows) - 1} green, 1 RED" in table
    zk = next(line for line in lines if line.startswith("zk-lock "))
    assert zk.split()[1] == "green"
    # only the red row is in full, with its failing cell
    at = lines.index("not green, in full (1 row):")
    assert lines[at + 1].startswith("table-doc@t-std  RED  ")
    assert lines[at + 2] == "    FAIL(f): no_lost_edit"
    assert not any(line.startswith("zk-lock@") for line in lines)
    # a mutant's line: the property that caught it, with the checker's letter
    one = next(line for line in lines if line.startswith("  HBASE-8099 "))
    assert one.split()[1:4] == ["caught", "no_lost_edit", "(f)"]


def test_check_prints_the_report_and_matrix_prints_every_cell(capsys) -> None:
    from replcheck.cli import main

    argv = ["check", "--design", "zk-lock/ships-local-scope", "--checkers", "explore"]
    assert main([*argv, "--jobs", "1"]) == 0
    report = capsys.readouterr().out.splitlines()
    assert main([*argv, "--jobs", "1", "--matrix"]) == 0
    matrix = capsys.readouterr().out.splitlines()
    assert report[-1] == matrix[-1] == "PASS: mutants caught: 1/1; base reference rows: 1"
    assert matrix[0].startswith("design@config") and "FAIL(e)" in "\n".join(matrix)
    assert "  ships-local-scope  caught  only_global_non_catalog (e)  filtering" in "\n".join(
        report
    )


@pytest.mark.parametrize(
    ("n", "text"),
    [
        *((None, "-"), (812, "812"), (9_999, "9,999"), (77_746, "77.7k"), (123_456, "123k")),
        *((1_234_567, "1.23M"), (987_654_321, "987M")),
    ],
)
def test_compact_count(n, text) -> None:
    assert compact_count(n) == text


def test_compact_seconds() -> None:
    assert [compact_seconds(s) for s in (0.04, 12.34, 185, 7380)] == [
        "0.0s",
        "12.3s",
        "3m05s",
        "2h03m",
    ]


def test_fit_cuts_the_flexible_columns_in_turn() -> None:
    rows = [["name", "x" * 80, "y" * 40], ["n", "short", "z"]]
    lines = fit(rows, flex=((1, 8), (2, 8)), width=60)
    assert max(len(line) for line in lines) <= 60
    assert lines[0].startswith("name  ") and "..." in lines[0]
    assert lines[0].endswith("y" * 40)  # the first column named gave up enough
