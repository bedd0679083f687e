"""Generated Python's search functions (``specs/pygen.py``'s ``search_source``) against its whole
successor function and against renaming states slot by slot (``packsym.apply``), on every
reachable state of small configurations: the enabled set carried through each instance's frame
is the set evaluated afresh, each fingerprint a step carries is the one computed from scratch,
an image's fingerprint is the Zobrist fingerprint of the image itself, and the least of a
state's fingerprints names its class exactly as its least image does."""

from __future__ import annotations

from collections import deque

import pytest
from replcheck.model import STANDARD, get_design
from replcheck.specs.canonical import Renamings
from replcheck.specs.compiled import _program
from replcheck.specs.packsym import apply
from replcheck.specs.pygen import compile_python, compile_search


def bits(m: int) -> list[int]:
    return [i for i in range(m.bit_length()) if m >> i & 1]


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("table", "t-bootstrap"),
        ("zk-lock", "cleaner-race"),
        ("zk-multi", "cleaner-race"),
        pytest.param("table", "t-double", marks=pytest.mark.slow),
    ],
)
def test_frames_and_fingerprints_agree_with_whole_states(name: str, config: str) -> None:
    cfg = STANDARD[config]
    layout, _fm, prog = _program(name, cfg)
    ren = Renamings(layout, type(get_design(name)).era, prog)
    assert ren.is_group()
    maps = ren.every()
    code = compile_python(prog)
    plain = compile_search(prog)
    images = compile_search(prog, maps)

    def zobrist(s: tuple[int, ...]) -> int:
        return plain.fingerprints(s)

    s0 = tuple(prog.init)
    seen = {s0}
    todo = deque([s0])
    least: dict[tuple[int, ...], int] = {}
    while todo:
        s = todo.popleft()
        whole = code.successors(s)
        m = plain.enabled(s)
        assert bits(m) == sorted(i for i, _t in whole)
        f, fs = plain.fingerprints(s), images.fingerprints(s)
        assert fs[0] == f
        for q, one in enumerate(maps, start=1):
            assert fs[q] == zobrist(apply(one, s))
        key = min(fs)
        image = min([s] + [apply(one, s) for one in maps])
        assert least.setdefault(image, key) == key
        for i, t in whole:
            assert plain.fire[i](s, f) == (t, plain.fingerprints(t))
            assert images.fire[i](s, fs) == (t, images.fingerprints(t))
            assert plain.refresh[i](t, m) == plain.enabled(t)
            if t not in seen:
                seen.add(t)
                todo.append(t)
    # one key per class, and a different key for each
    assert len(set(least.values())) == len(least)
    assert len(seen) > len(least) > 1


def test_the_least_image_names_classes_where_the_renamings_are_not_a_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search's other way of naming a class (its least image's fingerprint, used where
    the renamings a layout is closed under are not a group) finds the classes the images'
    fingerprints do, on a configuration where both apply."""
    from replcheck.specs.compiled import explore_compiled

    cfg = STANDARD["t-race"]
    by_images = explore_compiled("table", cfg, backend="python", symmetry=True)
    assert by_images.images > 1
    monkeypatch.setattr(Renamings, "is_group", lambda self: False)
    by_least = explore_compiled("table", cfg, backend="python", symmetry=True)
    assert by_least.images == 1
    got = (by_least.states, by_least.transitions, by_least.depth)
    assert got == (by_images.states, by_images.transitions, by_images.depth)
