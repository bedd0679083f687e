"""The bootstrap of ``hbase:replication`` (``model/features/bootstrap.py``), the first component
written only in the protocol text: its steps through ``Model`` and the design that deadlocks."""

from __future__ import annotations

from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.action import Action
from replcheck.model.engine.text_model import TextModel
from replcheck.model.features.bootstrap import dependency_cycle
from replcheck.specs.explore import check

CFG = STANDARD["t-bootstrap"]


def test_a_bootstrap_configuration_takes_its_steps_from_the_text() -> None:
    model = Model(get_design("table"), CFG)
    assert isinstance(model, TextModel)
    s0 = model.init()
    assert not s0.table_online
    assert model.enabled(s0) == [
        Action("put", (0, 0, 0)),
        Action("put", (1, 0, 0)),
        Action("open_table", (0,)),
        Action("open_table", (1,)),
    ]
    s1 = model.step(s0, Action("open_table", (1,)))
    assert s1.table_online and s1._replace(table_online=False) == s0
    assert Action("open_table", (0,)) not in model.enabled(s1)


def test_the_naive_design_deadlocks_and_the_offset_design_does_not() -> None:
    naive = check(Model(get_design("table-naive"), CFG))
    assert naive.violated == ["system_table_served"]
    assert naive.counterexamples["system_table_served"].stuck
    assert dependency_cycle(Model(get_design("table-naive"), CFG))
    assert check(Model(get_design("table"), CFG)).ok
    assert dependency_cycle(Model(get_design("table"), CFG)) == []


def test_with_the_region_open_a_naive_wal_is_written_only_once_registered() -> None:
    model = Model(get_design("table-naive"), CFG)
    start = model.init()._replace(table_online=True)
    names = {a.name for a in model.enabled(start)}
    assert "put" not in names and Action("register_wal", (0, 0)) in model.enabled(start)
    after = model.step(start, Action("register_wal", (0, 0)))
    assert Action("register_wal", (0, 0)) not in model.enabled(after)
    assert [a for a in model.enabled(after) if a.name == "put"] == [Action("put", (0, 0, 0))]


def test_the_explicit_design_has_no_bootstrap_steps_left() -> None:
    design = get_design("table-naive")
    assert not hasattr(design, "en_open_table") and not hasattr(design, "do_register_wal")
    assert {"open_table", "register_wal"} <= {k.name for k in design.kinds}


def test_every_engine_reads_the_one_text_and_keeps_the_explicit_models_counts() -> None:
    """7,228 states, 20,760 transitions, depth 22: the counts of the explicit bootstrap steps
    this text replaced (measured on them before they were deleted), with symmetry."""
    from replcheck.specs.compiled_check import check_compiled

    cfg = CFG.with_overrides(wals_per_server=2, edits=2, crashes=1)
    want = (7228, 20760, 22)
    explicit = check(Model(get_design("table"), cfg))
    assert (
        explicit.stats["states"],
        explicit.stats["transitions"],
        explicit.stats["depth"],
    ) == want
    for backend in ("c", "python"):
        r = check_compiled("table", cfg, backend=backend)
        assert (r.stats["states"], r.stats["transitions"], r.stats["depth"]) == want, backend
        assert r.verdicts == explicit.verdicts
