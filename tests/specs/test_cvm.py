"""The C search's renamings of servers (``specs/cvm.py``): none is built before the search
asks for it, each is built once, and a renaming's rank means the same on both sides."""

from __future__ import annotations

from itertools import permutations
from math import factorial

import pytest
from replcheck.model import get_design
from replcheck.model.engine.canonical import Renamings
from replcheck.model.engine.packsym import sources
from replcheck.specs import cvm
from replcheck.specs.compiled import _program

lib, _how = cvm.library()
needs_c = pytest.mark.skipif(lib is None, reason=f"no C search here: {_how}")


def test_ranks_name_every_renaming_once_with_the_identity_first() -> None:
    for n in range(1, 6):
        got = [cvm.unrank(r, n) for r in range(factorial(n))]
        assert got[0] == tuple(range(n))
        assert sorted(got) == sorted(permutations(range(n)))


def _rank(perm: tuple[int, ...]) -> int:
    """``cvm.c``'s ``rank_of``, written again only to check ``unrank`` against."""
    n, r = len(perm), 0
    for a in range(n):
        r = r * (n - a) + sum(perm[b] < perm[a] for b in range(a + 1, n))
    return r


def test_unrank_inverts_the_c_searchs_rank() -> None:
    for perm in permutations(range(5)):
        assert cvm.unrank(_rank(perm), 5) == perm


@needs_c
@pytest.mark.parametrize(("name", "config"), [("zk-multi", "std:servers=3"), ("table", "t-std")])
def test_renamings_are_built_when_first_asked_for_and_once(
    monkeypatch: pytest.MonkeyPatch, name: str, config: str
) -> None:
    from replcheck.matrix import resolve_config

    cfg = resolve_config(config)
    layout, _fm, prog = _program(name, cfg)
    ren = Renamings(layout, type(get_design(name)).era, prog)
    asked: list[tuple[int, ...]] = []
    maps = ren.maps

    def counting(perm: tuple[int, ...]) -> object:
        asked.append(perm)
        return maps(perm)

    monkeypatch.setattr(ren, "maps", counting)
    table = cvm.lower(prog, ren)
    assert asked == [] and table.renamings.built == 0
    search = cvm.Search(lib, table)
    try:
        while search.run(2_000) == 0 and search.stat("states") < 20_000:
            pass
    finally:
        search.close()
    assert len(asked) == len(set(asked)) == table.renamings.built
    assert set(asked) <= set(permutations(range(cfg.servers))) - {tuple(range(cfg.servers))}
    # what the search was given for each rank it built is that renaming: its runs and renamed
    # slots read every slot from where the renaming's gather says, and rename a value where
    # its value map does
    r = table.renamings
    built = [q for q in range(1, r.count) if r.known[q] == 1]
    assert len(built) == r.built > 0
    for q in built:
        slot_map, vmaps, _conds = maps(cvm.unrank(q, cfg.servers))
        gather: dict[int, int] = {}
        renamed: set[int] = set()
        for k in range(r.nseg[q]):
            to, frm, n = (r.seg[q][3 * k + j] for j in range(3))
            gather.update((to + d, frm + d) for d in range(n))
        for k in range(r.nmap[q]):
            to, frm = r.map[q][4 * k], r.map[q][4 * k + 1]
            gather[to] = frm
            renamed.add(frm)
        assert [gather[i] for i in range(len(slot_map))] == sources(slot_map)
        assert renamed == {i for i, vm in enumerate(vmaps) if vm is not None}


@needs_c
def test_kernels_with_code_for_some_renamings_search_what_the_step_table_searches() -> None:
    """The kernels get code for the renamings the search had built when they were compiled;
    the search builds any other image from its maps. Both ways, the same search."""
    from replcheck.specs import ckern

    from replcheck.matrix import resolve_config

    cfg = resolve_config("race:servers=3")
    layout, _fm, prog = _program("zk-multi", cfg)

    def search(images: list[int] | None) -> tuple:
        ren = Renamings(layout, "zk", prog)
        s = cvm.Search(lib, cvm.lower(prog, ren))
        try:
            if images is not None:
                build = ckern.Build(prog, {q: ren.maps(cvm.unrank(q, 3)) for q in images})
                assert build.wait() is not None, build.how
                s.use_kernels(build.lib)
            while s.run(5_000) == 0:
                pass
            n = s.stat("states")
            return n, s.stat("transitions"), s.array("parent", n), s.array("via", n)
        finally:
            s.close()

    table = search(None)
    assert table[0] > 100
    assert search([1, 4]) == table
    assert search(list(range(1, 6))) == table


@needs_c
@pytest.mark.parametrize(
    ("name", "config"), [("zk-multi", "std:servers=4"), ("table", "t-std:servers=5")]
)
def test_an_initial_state_of_interchangeable_servers_asks_for_two_renamings(
    name: str, config: str
) -> None:
    """Every server of an initial state ties and any order of them leaves it as it is: a swap
    and a rotation show that, and one order stands for all (not ``n!`` of them)."""
    from replcheck.matrix import resolve_config

    cfg = resolve_config(config)
    layout, _fm, prog = _program(name, cfg)
    search = cvm.Search(lib, cvm.lower(prog, Renamings(layout, type(get_design(name)).era, prog)))
    try:
        assert search.renamings_built == 2
    finally:
        search.close()
