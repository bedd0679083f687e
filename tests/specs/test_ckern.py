"""The generated C kernels (``specs/ckern.py``) against the interpreted step table of ``cvm.c``,
over whole state spaces: the same states in the same breadth-first order, the same parents, the
same first violations, the same liveness edges; switched to in the middle of a search; and a
compiler that is missing, fails, or is still running when the search ends."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from replcheck.model import STANDARD
from replcheck.model.engine.canonical import Renamings
from replcheck.specs import ckern, compiled
from replcheck.specs.compiled import explore_compiled

from replcheck.matrix import resolve_config


def summary(r: compiled.CompiledExploration) -> tuple:
    return (
        r.states,
        r.transitions,
        r.depth,
        r.parent,
        r.via,
        r.first_violation,
        r.step_violation,
        r.edges,
        r.goal_bits,
    )


@pytest.mark.parametrize(
    ("name", "spec", "symmetry", "liveness"),
    [
        ("zk-multi/HBASE-12865", "cleaner-race", True, False),  # an invariant broken
        ("table/HBASE-27213", "t-remove-peer", False, False),
        ("table-naive", "t-bootstrap", True, True),  # liveness edges and goals
        ("zk-multi", "race:servers=3", True, False),  # renamings ordered by signature
        ("table", "t-sync", True, False),
    ],
)
def test_the_kernels_search_what_the_step_table_searches(
    name: str, spec: str, symmetry: bool, liveness: bool
) -> None:
    cfg = resolve_config(spec)
    runs = {
        k: explore_compiled(name, cfg, backend="c", symmetry=symmetry, liveness=liveness, kernels=k)
        for k in ("always", "never")
    }
    assert runs["never"].kernels == "the step table interpreted, as asked"
    assert runs["always"].kernels in ("loaded", "cached") or runs["always"].kernels.startswith(
        "compiled in"
    )
    assert summary(runs["always"]) == summary(runs["never"])


def test_a_search_switches_to_the_kernels_where_it_is(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(ckern, "_LOADED", {})
    monkeypatch.setattr(compiled, "KERNELS_AFTER", 0.0)
    monkeypatch.setattr(compiled, "CHUNK", 200)
    cfg = STANDARD["std"]
    layout, _fm, prog = compiled._program("zk-multi", cfg)
    # built into the cache first, so that the search finds them after its first chunk: with
    # code for the one other renaming of two servers, which the first state has asked for
    swap = Renamings(layout, "zk", prog).maps((1, 0))
    assert ckern.Build(prog, {1: swap}).wait() is not None
    monkeypatch.setattr(ckern, "_LOADED", {})
    auto = explore_compiled("zk-multi", cfg, backend="c", symmetry=True, kernels="auto")
    never = explore_compiled("zk-multi", cfg, backend="c", symmetry=True, kernels="never")
    assert summary(auto) == summary(never)
    assert auto.kernels.startswith("cached, used from state "), auto.kernels
    used_from = int(auto.kernels.rsplit(" ", 1)[1].replace(",", ""))
    assert 0 < used_from < auto.states


def test_a_short_search_builds_no_kernels() -> None:
    r = explore_compiled("zk-multi", STANDARD["race"], backend="c", kernels="auto")
    assert r.kernels.startswith("the step table interpreted: the search took less than")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _running(pid: int) -> bool:
    """Is ``pid`` a process that is not a zombie?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_compiler_still_running_when_the_search_ends_is_stopped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(ckern, "_LOADED", {})
    # three servers' kernels: a compile of many seconds, which a leftover compiler outlives
    _layout, _fm, prog = compiled._program("zk-multi", resolve_config("std:servers=3"))
    build = ckern.Build(prog)
    assert build.proc is not None and build.poll() is None
    proc = build.proc
    children: list[int] = []
    for _ in range(100):  # the driver starts its compiler proper (cc1)
        children = _children(proc.pid)
        if children:
            break
        time.sleep(0.05)
    assert children, "the compiler driver started nothing to stop"
    build.close()
    assert proc.returncode is not None  # killed and reaped
    # and nothing it started outlives it
    for _ in range(100):
        alive = [pid for pid in children if _running(pid)]
        if not alive:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the compiler's processes {alive} outlived the search")
    assert build.how == "not compiled: the search ended first"
    assert not list((tmp_path / "replcheck").iterdir())  # neither a library nor its folder


def test_kernels_that_do_not_compile_leave_the_step_table_interpreted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from replcheck.specs import cvm

    assert cvm.library()[0] is not None  # the search itself, loaded before the compiler goes
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(ckern, "_LOADED", {})
    monkeypatch.setattr(compiled, "_SAID", set())
    monkeypatch.setenv("CC", "false")  # a compiler that refuses every file
    r = explore_compiled("zk-multi", STANDARD["race"], backend="c", kernels="always")
    assert r.kernels.startswith("the kernels did not compile"), r.kernels
    assert (r.states, r.transitions) == (1246, 3603)
    assert "interpreting the step table" in capsys.readouterr().err
    assert not list((tmp_path / "replcheck").glob("kern-*.so"))


def test_the_kernels_are_cached_by_content(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(ckern, "_LOADED", {})
    _layout, _fm, prog = compiled._program("zk-multi", STANDARD["race"])
    first = ckern.Build(prog)
    assert first.wait() is not None and first.how.startswith("compiled in"), first.how
    monkeypatch.setattr(ckern, "_LOADED", {})
    again = ckern.Build(prog)
    assert again.lib is not None and again.how == "cached"
    assert len(list((tmp_path / "replcheck").glob("kern-*.so"))) == 1
