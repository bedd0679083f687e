"""Every engine's counterexample as a paste-ready pytest test, saved for ``replay``
(``replcheck/counterexamples.py``): the test each engine prints passes under pytest (it asserts
the violation) and fails once the violation is gone, and ``replcheck replay`` opens the saved file
and reports the same property (apart from a counterexample to induction, which it refuses)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from replcheck.model import STANDARD, Model, get_design

from replcheck.cli import main
from replcheck.counterexamples import DIR_ENV, SCHEMA, induction_reproducer

MUTANT, CONFIG, PROP = "zk-lock/ships-local-scope", "filtering", "only_global_non_catalog"


def _program(out: str, prop: str = PROP) -> str:
    """The pytest test printed for ``prop``."""
    lines = out.splitlines()
    start = lines.index(f"reproduce {prop} with this pytest test:") + 1
    end = next(
        i
        for i in range(start, len(lines))
        if lines[i].startswith(("saved:", "counterexample not saved"))
    )
    return "\n".join(lines[start:end]).strip() + "\n"


def _saved(out: str) -> Path:
    (line,) = [ln for ln in out.splitlines() if ln.startswith("saved: ") and PROP in ln]
    return Path(line.removeprefix("saved: ").split(" (", 1)[0])


def _pytest(
    tmp_path: Path, source: str, name: str = "test_reproducer.py"
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _without_last_action(source: str) -> str:
    """The same test with its last action dropped: the property no longer breaks."""
    lines = source.splitlines()
    last = max(i for i, ln in enumerate(lines) if ln.strip().startswith("Action("))
    return "\n".join(lines[:last] + lines[last + 1 :]) + "\n"


def _check_printed_and_saved(
    out: str, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _program(out)
    assert f"def test_zk_lock_ships_local_scope_{PROP}():" in source
    ran = _pytest(tmp_path, source)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    broken = _pytest(tmp_path, _without_last_action(source), "test_weakened.py")
    assert broken.returncode == 1 and f"{PROP} holds at the end" in broken.stdout, broken.stdout

    path = _saved(out)
    # in the user's cache folder, never the current one
    assert path.parent == tmp_path / "cache" / "replcheck" / "counterexamples"
    assert path.is_file() and list(tmp_path.glob("replcheck-counterexamples")) == []
    data = json.loads(path.read_text(encoding="utf-8"))
    assert (data["schema"], data["engine"], data["design"], data["config"]) == (
        SCHEMA,
        engine,
        MUTANT,
        CONFIG,
    )
    assert data["property"] == PROP and data["actions"] and data["start"] is None
    assert data["config_params"] == STANDARD[CONFIG].to_dict() | {
        k: list(v) for k, v in STANDARD[CONFIG].to_dict().items() if isinstance(v, tuple)
    }

    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    replayed = capsys.readouterr().out
    assert replayed.splitlines()[0].startswith(f"{path}: {MUTANT}@{CONFIG}: {PROP} breaks at step ")
    assert f"counterexample: {PROP} (invariant)" in replayed


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in ``tmp_path`` with the default folder (``counterexamples`` in the cache folder,
    here ``tmp_path/cache``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def test_explore_prints_and_saves_a_reproducer(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explore", "--design", MUTANT, "--config", CONFIG]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].startswith("FAIL:")  # the verdict stays last
    _check_printed_and_saved(out, "explore", here, capsys)


def test_fuzz_prints_and_saves_a_reproducer(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("hypothesis")
    assert main(["fuzz", "--design", MUTANT, "--config", CONFIG]) == 1
    _check_printed_and_saved(capsys.readouterr().out, "fuzz", here, capsys)


def test_bmc_prints_and_saves_a_reproducer(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("z3")
    assert main(["prove", "--depth", "3", "--design", MUTANT]) == 0
    out = capsys.readouterr().out
    assert f"bmc {MUTANT}@{CONFIG}: counterexample of {PROP}" in out
    assert out.rstrip().splitlines()[-1].startswith("PASS: the engines agree")
    _check_printed_and_saved(out, "bmc", here, capsys)


def test_induction_prints_a_reproducer_from_its_state(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("z3")
    from replcheck.model.engine.catalogue import flat_class
    from replcheck.specs.bmc import induct

    z = flat_class("zk-multi")(get_design("zk-multi"), STANDARD["std"])
    fm = z.model()
    single_owner = next(p for p in fm.invariants if p.name == "single_owner")
    model = Model(get_design("zk-multi"), STANDARD["std"])
    # Z3 picks the counterexample; which one depends on what the process asked Z3 before and on
    # its random seeds. From some state no run reaches, the model cannot take the step, or the
    # printed state does not replay it ("no reproducer", checked by running the test it would
    # print): ask again under other seeds (three in eight were replayable when measured) for one
    # it can, and put the seeds back for the rest of the process.
    import z3

    try:
        for seed in range(16):
            z3.set_param("smt.random_seed", seed)
            z3.set_param("sat.random_seed", seed)
            r = induct(fm, single_owner, [], timeout=120)
            assert r.verdict == "not inductive" and r.states is not None
            out = induction_reproducer(model, r)
            if "reproduce single_owner with this pytest test:" in out:
                break
    finally:
        z3.set_param("smt.random_seed", 0)
        z3.set_param("sat.random_seed", 0)
    source = _program(out, "single_owner")
    assert "START = State(" in source and "MAY BE UNREACHABLE" in source
    assert model.init() != r.states[0]  # it does not start from the initial state
    ran = _pytest(here, source)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    broken = _pytest(here, _without_last_action(source), "test_weakened.py")
    assert broken.returncode == 1 and "single_owner holds at the end" in broken.stdout

    from replcheck.cli_prove import _induction_reproducers  # what prove --induction prints

    printed = "\n".join(_induction_reproducers([r]))
    assert "induction zk-multi@std: counterexample to single_owner" in printed
    assert _program(printed, "single_owner") == source

    (line,) = [ln for ln in out.splitlines() if ln.startswith("saved: ")]
    path = Path(line.removeprefix("saved: ").split(" (", 1)[0])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["engine"] == "induction" and data["property"] == "single_owner" and data["start"]
    capsys.readouterr()
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "counterexample to induction" in err and len(err.strip().splitlines()) == 1


def test_saving_can_be_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(DIR_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["explore", "--design", MUTANT, "--config", CONFIG]) == 1
    out = capsys.readouterr().out
    assert f"reproduce {PROP} with this pytest test:" in out and "saved:" not in out
    assert list(tmp_path.iterdir()) == [] or not (tmp_path / "cache" / "replcheck").exists()


def test_json_output_saves_nothing(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--design", MUTANT, "--config", CONFIG, "--json"]) == 1
    json.loads(capsys.readouterr().out)
    assert not (here / "cache" / "replcheck" / "counterexamples").exists()


def test_a_configuration_with_overrides_is_rebuilt_field_by_field(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"{CONFIG}:crashes=0"
    assert main(["explore", "--design", MUTANT, "--config", spec, "--no-liveness"]) == 1
    out = capsys.readouterr().out
    source = _program(out)
    assert "Config(" in source and "crashes=0," in source and "STANDARD" not in source
    ran = _pytest(here, source)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    path = _saved(out)
    assert json.loads(path.read_text(encoding="utf-8"))["config_params"]["crashes"] == 0
    assert main(["replay", str(path)]) == 1
    assert f"{MUTANT}@{spec}: {PROP} breaks at step " in capsys.readouterr().out
