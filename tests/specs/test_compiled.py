"""The compiled back ends (``model/engine/terms.py``, ``pygen.py``, ``cvm.c``/``cvm.py``,
``compiled.py``, ``compiled_check.py``) against the explicit model, over whole state spaces:
the C search, the generated-Python search and the explicit explorer find the same states,
transitions, depth and shortest violations; with symmetry the C search reproduces the manifest,
verdicts and counterexample lengths included, and every counterexample replays through the
explicit model."""

from __future__ import annotations

import json

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.terms import TraceError, trace
from replcheck.specs.compiled import explore_compiled
from replcheck.specs.compiled_check import check_compiled
from replcheck.specs.explore import explore
from replcheck.specs.manifest import PATH as MANIFEST

WHOLE = [
    ("zk-multi", "cleaner-race"),
    ("zk-lock", "race"),
    ("zk-multi", "master-master"),
    ("table", "t-race"),
    ("table", "t-bootstrap"),
    ("table-naive", "t-bootstrap"),
    ("zk-multi/HBASE-12865", "cleaner-race"),
    ("zk-multi/HBASE-8099", "race"),
    ("zk-lock/HBASE-3515", "zk-faults"),
    ("table/HBASE-27213", "t-remove-peer"),
    ("table/syncup-no-add-missing", "t-syncup"),
    # two and three recovered sources of one queue in copy slots (``model/engine/copies.py``)
    ("table/unguarded-claim", "t-race"),
    ("table/add-missing-rerun", "t-race"),
]


def explicit_summary(name: str, config: str) -> tuple:
    ex = explore(Model(get_design(name), STANDARD[config]), symmetry=False)
    lengths = {p: ex.depth[v] for p, v in ex.first_violation.items()}
    for p, (u, _a, _n) in ex.step_violation.items():
        lengths[p] = ex.depth[u] + 1
    return len(ex.states), ex.transitions, ex.max_depth, lengths


def compiled_summary(name: str, config: str, backend: str) -> tuple:
    res = explore_compiled(name, STANDARD[config], backend=backend)
    assert res.backend == backend
    lengths = res.violation_depths()
    assert "encoding_capacity" not in lengths
    return res.states, res.transitions, res.depth, lengths


@pytest.mark.parametrize(("name", "config"), WHOLE)
def test_c_python_and_explicit_agree_on_whole_state_spaces(name: str, config: str) -> None:
    want = explicit_summary(name, config)
    assert compiled_summary(name, config, "c") == want
    assert compiled_summary(name, config, "python") == want


def manifest_entries() -> list[dict]:
    return json.loads(MANIFEST.read_text())["entries"]


def _entry_result(entry: dict) -> tuple:
    r = check_compiled(entry["design"], STANDARD[entry["config"]], backend="c")
    lengths = {p: c.length for p, c in r.counterexamples.items()}
    return (r.stats["states"], r.stats["transitions"], r.stats["depth"], r.verdicts, lengths)


@pytest.mark.slow
def test_the_c_search_reproduces_every_manifest_entry() -> None:
    """Every entry exactly: with every step symmetric under renaming servers (or symmetry off
    where a design's step reads the servers' name order, ``Design.names_ordered``), the reduced
    count does not depend on which state of a class a search expands."""
    differ = {}
    for entry in manifest_entries():
        got = _entry_result(entry)
        want = (
            entry["states"],
            entry["transitions"],
            entry["depth"],
            entry["verdicts"],
            entry["counterexample_lengths"],
        )
        if got != want:
            differ[(entry["design"], entry["config"])] = (got, want)
    assert differ == {}


def test_a_count_over_many_conditions_compiles() -> None:
    """``single_source`` on three servers and two crashes counts hundreds of shippers: the
    generated Python writes the count as one ``sum`` rather than additions nested as deep as the
    count is long, which the compiler refused ("too many nested parentheses")."""
    from replcheck.model.engine.catalogue import flat_model
    from replcheck.model.engine.pygen import compile_python

    from replcheck.matrix import resolve_config

    cfg = resolve_config("std:servers=3,crashes=2")
    model = Model(get_design("zk-multi"), cfg)
    fm = flat_model("zk-multi", cfg)
    program = trace(fm)
    code = compile_python(program)
    init = program.pack(fm.init)
    assert code.invariants(init) == []
    got = sorted(code.successors(init))
    assert sorted(program.names[i] for i, _t in got) == sorted(
        a.name for a in model.enabled(model.init())
    )
    assert {fm.decode(program.unpack(t)) for _i, t in got} == {
        model.step(model.init(), a) for a in model.enabled(model.init())
    }


@pytest.mark.parametrize(
    ("name", "config"),
    [("zk-multi", "race"), ("table", "t-race"), ("zk-multi/HBASE-12865", "cleaner-race")],
)
def test_small_manifest_entries_reproduce(name: str, config: str) -> None:
    (entry,) = [e for e in manifest_entries() if (e["design"], e["config"]) == (name, config)]
    assert _entry_result(entry) == (
        entry["states"],
        entry["transitions"],
        entry["depth"],
        entry["verdicts"],
        entry["counterexample_lengths"],
    )


def test_a_liveness_counterexample_is_a_fair_cycle_the_explicit_model_takes() -> None:
    r = check_compiled("table-naive", STANDARD["t-bootstrap"], backend="c")
    assert r.verdicts["system_table_served"] == "fail"
    cex = r.counterexamples["system_table_served"]
    assert cex.stuck
    assert not Model(get_design("table-naive"), STANDARD["t-bootstrap"]).enabled(cex.steps[-1][1])


def test_counterexamples_are_the_explicit_models_own_steps() -> None:
    cfg = STANDARD["cleaner-race"]
    r = check_compiled("zk-multi/HBASE-12865", cfg, backend="c")
    n = r.stats["states"]
    assert n > 100
    p = r.stats["fingerprint_collision_probability"]
    assert p == pytest.approx(n * (n - 1) / 2**65, rel=0.05)
    model = Model(get_design("zk-multi/HBASE-12865"), cfg)
    cex = r.counterexamples["no_wal_deleted_while_queued"]
    st = model.init()
    for action, nxt in cex.steps[1:]:
        assert action in model.enabled(st)
        assert model.step(st, action) == nxt
        st = nxt
    inv = {p.name: p for p in model.invariants}["no_wal_deleted_while_queued"]
    assert not inv.check(cfg, st)


def test_symmetry_in_generated_python_matches_c() -> None:
    cfg = STANDARD["t-double"]
    c = explore_compiled("table", cfg, backend="c", symmetry=True)
    py = explore_compiled("table", cfg, backend="python", symmetry=True)
    assert (c.states, c.transitions, c.depth) == (py.states, py.transitions, py.depth)
    assert c.renamings == py.renamings == 6


def test_a_flat_text_that_branches_on_the_state_is_refused() -> None:
    from replcheck.model.engine.text import FlatModel, Instance

    def guard(ops, get):
        return 1 if get(("x",)) else 0  # Python control flow on a state-dependent value

    fm = FlatModel(
        "d",
        "c",
        {("x",): "b"},
        {("x",): False},
        [Instance("a", (), guard, lambda o, t: None)],
        [],
        lambda v: v,
        lambda s: s,
    )
    with pytest.raises(TraceError, match="control flow"):
        trace(fm)


def test_without_a_c_compiler_the_search_says_so_once_and_uses_generated_python(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    from replcheck.specs import compiled, cvm

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setattr(cvm, "_LIB", {})
    monkeypatch.setattr(compiled, "_SAID", set())
    cfg = STANDARD["race"]
    first = explore_compiled("zk-multi", cfg)
    second = explore_compiled("zk-multi", cfg)
    assert first.backend == second.backend == "python"
    err = capsys.readouterr().err
    assert err.count("using generated Python") == 1
    assert (first.states, first.transitions) == (1246, 3603)


def test_the_c_library_is_cached_by_content(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from replcheck.specs import cvm

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(cvm, "_LIB", {})
    lib, how = cvm.library()
    assert lib is not None and how.startswith("compiled")
    monkeypatch.setattr(cvm, "_LIB", {})
    lib, how = cvm.library()
    assert how == "cached"
    assert len(list((tmp_path / "replcheck").glob("cvm-*.so"))) == 1


@pytest.mark.parametrize("spec", ["t-race:servers=4", "race:servers=4"])
def test_renamings_by_signature_find_the_classes_every_renaming_finds(
    monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    from replcheck.specs import cvm

    from replcheck.matrix import resolve_config

    name = "table" if spec.startswith("t-") else "zk-multi"
    cfg = resolve_config(spec)
    results = []
    for first in (2, 99):  # signatures from two servers on, or never
        monkeypatch.setattr(cvm, "SIGNATURES_FROM", first)
        r = explore_compiled(name, cfg, backend="c", symmetry=True, max_states=30_000)
        results.append((r.states, r.transitions, r.depth, r.renamings))
    assert results[0] == results[1]
    assert results[0][3] == 24


def test_an_unwritable_cache_falls_back_to_the_temporary_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    from replcheck.specs import cvm

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(cvm.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(cvm, "_LIB", {})
    assert cvm.cache_dir().parent == tmp_path
    lib, how = cvm.library()
    assert lib is not None and how.startswith("compiled"), how  # built in the fallback folder
    assert list(tmp_path.glob("replcheck-*/cvm-*.so"))
