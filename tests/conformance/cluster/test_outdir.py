"""``outdir``: of several processes taking one output folder at once, exactly one takes it."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from replcheck.conformance.cluster import outdir


def _take(args: tuple[str, object]) -> str:
    folder, barrier = args
    barrier.wait()  # type: ignore[attr-defined]
    try:
        outdir.take(Path(folder))
    except outdir.OutDirError as exc:
        return f"refused: {exc}"
    return "taken"


def test_one_of_many_takes_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "out"  # not there yet: created by the takers
    n = 6
    ctx = multiprocessing.get_context("fork")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(n)
        with ctx.Pool(n) as pool:
            got = pool.map(_take, [(str(out), barrier)] * n)
    assert got.count("taken") == 1, got
    for g in got:
        if g != "taken":
            assert str(out) in g and ("taken by" in g or "not empty" in g), g


def test_a_used_or_foreign_folder_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "x").write_text("x")
    with pytest.raises(outdir.OutDirError, match="is not empty"):
        outdir.take(used)
    assert [p.name for p in used.iterdir()] == ["x"]  # its lock went again
    a_file = tmp_path / "f"
    a_file.write_text("x")
    with pytest.raises(outdir.OutDirError, match="not a folder"):
        outdir.take(a_file)
    with pytest.raises(outdir.OutDirError, match="cannot create"):
        outdir.take(a_file / "out")


def test_the_lock_goes_with_the_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with outdir.claim(out):
        assert (out / outdir.LOCK).exists()
        with pytest.raises(outdir.OutDirError, match="taken by another run"):
            outdir.check(out)
        (out / "result").write_text("x")
    assert [p.name for p in out.iterdir()] == ["result"]
    with pytest.raises(outdir.OutDirError, match="is not empty"):
        outdir.check(out)
