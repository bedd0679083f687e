"""Renaming servers on packed states (``specs/packsym.py``) against the explicit model's own
renaming: for every state of a state space and every renaming of its servers, the declared slot
and value maps applied to the state's packed form give the packed form of the explicitly renamed
state."""

from __future__ import annotations

from itertools import permutations

import pytest
from replcheck.model import STANDARD, Model, get_design, table_symmetry
from replcheck.model.model import rename_servers
from replcheck.specs import packsym
from replcheck.specs.explore import explore
from replcheck.specs.flat_zk_designs import flat_layout
from replcheck.specs.terms import trace

CONFIGS = [
    ("zk-multi", "cleaner-race", None),
    ("zk-lock", "double-failure", 600),
    ("zk-multi", "peers", 600),
    ("zk-multi", "multiwal", 600),
    ("table", "t-race", None),
    ("table", "t-sync", 600),
    ("table", "t-syncup", 600),
    ("table", "t-multiwal", 600),
]


@pytest.mark.parametrize(("name", "config", "limit"), CONFIGS)
def test_declared_renaming_is_the_explicit_renaming(
    name: str, config: str, limit: int | None
) -> None:
    cfg = STANDARD[config]
    design = get_design(name)
    era = type(design).era
    layout = flat_layout(name, cfg)
    fm = layout.model()
    prog = trace(fm)
    maps = {
        p: packsym.permutation_maps(layout, era, prog, p) for p in permutations(range(cfg.servers))
    }

    def rename(st, p):
        return rename_servers(cfg, st, p) if era == "zk" else table_symmetry.rename(cfg, st, p)

    ex = explore(Model(design, cfg), symmetry=False, max_states=limit)
    moved = 0
    for st in ex.states:
        packed = prog.pack(fm.encode(st))
        for p, m in maps.items():
            image = packsym.apply(m, packed)
            assert image == prog.pack(fm.encode(rename(st, p))), (p, st)
            moved += image != packed
    assert moved  # some renaming changed some state: the maps were exercised


def test_a_family_without_declared_kinds_is_refused() -> None:
    cfg = STANDARD["race"]
    layout = flat_layout("zk-multi", cfg)
    prog = trace(layout.model())
    prog.keys = [("mystery", 0), *prog.keys[1:]]
    with pytest.raises(packsym.Undeclared, match="mystery"):
        packsym.permutation_maps(layout, "zk", prog, (1, 0, 2))


def test_a_layout_not_closed_under_a_renaming_leaves_it_out() -> None:
    cfg = STANDARD["t-migrate"]
    layout = flat_layout("table", cfg)
    maps, left = packsym.all_maps(layout, "table", trace(layout.model()))
    assert left == 5 and len(maps) == 0
