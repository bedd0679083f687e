"""Generated Python's search functions (``model/engine/pygen.py``'s ``search_source``) against its
whole successor function and against renaming states slot by slot (``packsym.apply``), on every
reachable state of small configurations: the enabled set carried through each instance's frame
is the set evaluated afresh, each fingerprint a step carries is the one computed from scratch,
an image's fingerprint is the Zobrist fingerprint of the image itself, and the least
fingerprint among the images that order servers by signature names a class exactly as its
least image does."""

from __future__ import annotations

from collections import deque

import pytest
from replcheck.model import STANDARD, get_design
from replcheck.model.engine.canonical import Renamings, least_renaming
from replcheck.model.engine.packsym import apply
from replcheck.model.engine.pygen import compile_python, compile_search
from replcheck.specs.compiled import _program


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
    assert ren.complete
    perms = ren.closed()[1:]
    code = compile_python(prog)
    srch = compile_search(prog)
    image_fps = {perm: srch.image_fingerprint(ren.maps(perm)) for perm in perms}
    getters = ren.getters()

    s0 = tuple(prog.init)
    seen = {s0}
    todo = deque([s0])
    least: dict[tuple[int, ...], int] = {}
    while todo:
        s = todo.popleft()
        whole = code.successors(s)
        m = srch.enabled(s)
        assert bits(m) == sorted(i for i, _t in whole)
        f = srch.fingerprints(s)
        for perm in perms:
            assert image_fps[perm](s) == srch.fingerprints(apply(ren.maps(perm), s))
        key = least_renaming(f, [g(s) for g in getters], lambda perm, s=s: image_fps[perm](s))
        image = min([s] + [apply(ren.maps(perm), s) for perm in perms])
        assert least.setdefault(image, key) == key
        for i, t in whole:
            assert srch.fire[i](s, f) == (t, srch.fingerprints(t))
            assert srch.refresh[i](t, m) == srch.enabled(t)
            if t not in seen:
                seen.add(t)
                todo.append(t)
    # one key per class, and a different key for each
    assert len(set(least.values())) == len(least)
    assert len(seen) > len(least) > 1


def test_the_least_image_names_classes_where_the_layout_is_not_closed_under_every_renaming(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search's other way of naming a class (its least image under every renaming the
    layout is closed under, used where that is not all of them) finds the classes the
    signatures' renamings do, on a configuration where both apply; the signatures' way builds
    a renaming only when first asked for."""
    from replcheck.specs.compiled import explore_compiled

    cfg = STANDARD["t-race"]
    by_signature = explore_compiled("table", cfg, backend="python", symmetry=True)
    assert 0 < by_signature.renamings_built <= 5
    init = Renamings.__init__

    def incomplete(self: Renamings, *args: object) -> None:
        init(self, *args)
        self.complete = False

    monkeypatch.setattr(Renamings, "__init__", incomplete)
    by_least = explore_compiled("table", cfg, backend="python", symmetry=True)
    got = (by_least.states, by_least.transitions, by_least.depth)
    assert got == (by_signature.states, by_signature.transitions, by_signature.depth)
