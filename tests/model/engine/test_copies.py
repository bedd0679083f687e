"""The copy slots' normal form (``model/engine/copies.py``): every packed state a step reaches is
the one packed form of its readable state, so an engine that compares packed states counts what the
readable engines count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from replcheck.model import STANDARD
from replcheck.model.engine.catalogue import flat_layout
from replcheck.model.engine.copies import CopySlots, sort_copies, sort_plain
from replcheck.model.engine.text import FPY, Tx

CASES = [
    # a mutant whose claims leave two or three recovered sources for one queue in copy slots:
    # (design, configuration, states reached, of them with two copies of a group in use)
    ("table/add-missing-rerun", "t-race", 3308, 450),
    ("table/unguarded-claim", "t-race", 1664, 192),
    ("zk-lock/claim-without-chain", "std", 3035, 198),
]


def _reachable(fm, limit: int):
    frozen = tuple(sorted(fm.init.items()))
    seen = {frozen}
    frontier = [fm.init]
    while frontier and len(seen) < limit:
        nxt = []
        for v in frontier:
            for _inst, w in fm.successors(v):
                key = tuple(sorted(w.items()))
                if key not in seen:
                    seen.add(key)
                    nxt.append(w)
        frontier = nxt
    return [dict(k) for k in seen]


@pytest.mark.parametrize(("name", "config", "reached", "in_two"), CASES)
def test_every_reached_packed_state_is_its_readable_states_one_form(
    name: str, config: str, reached: int, in_two: int
) -> None:
    layout = flat_layout(name, STANDARD[config])
    fm = layout.model()
    groups = layout.copy_groups()
    states = _reachable(fm, 3000)
    for v in states:
        assert fm.encode(fm.decode(v)) == v
    # pinned: the spaces hold shippers in more than one copy, where the order could differ
    in_two_copies = sum(any(sum(bool(v[c[0]]) for c in g) > 1 for g in groups) for v in states)
    assert (len(states), in_two_copies) == (reached, in_two)


def test_copies_are_ordered_present_first_then_by_value() -> None:
    class Two(CopySlots):
        def copy_groups(self):
            return [[[("on", m), ("pos", m)] for m in range(3)]]

        def sorts(self):
            return {
                **{("on", m): "b" for m in range(3)},
                **{("pos", m): ("i", 0, 9) for m in range(3)},
            }

    v = {
        ("on", 0): False,
        ("pos", 0): 0,
        ("on", 1): True,
        ("pos", 1): 7,
        ("on", 2): True,
        ("pos", 2): 3,
    }
    assert Two().normalized(dict(v)) == {
        ("on", 0): True,
        ("pos", 0): 3,
        ("on", 1): True,
        ("pos", 1): 7,
        ("on", 2): False,
        ("pos", 2): 0,
    }
    # after a step, only the groups it wrote are sorted
    tx = Tx(None, v)
    Two().normal_form(FPY, tx)
    assert tx.new == {}


@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(0, 3), st.booleans(), st.integers(-1, 2)).map(
            lambda c: c if c[0] else (False, 0, False, -1)  # an absent copy holds the defaults
        ),
        min_size=2,
        max_size=4,
    )
)
def test_the_plain_sort_is_the_networks(copies: list[tuple]) -> None:
    """``sort_plain`` (plain values) and ``sort_copies`` (the compare-and-swap network every
    other engine runs) put any group in the same order."""
    sorts = {("on", 0): "b", ("pos", 0): ("i", 0, 3), ("w", 0): "b", ("q", 0): ("i", -1, 2)}
    group = [[(name, m) for name in ("on", "pos", "w", "q")] for m in range(len(copies))]
    each = {k: sorts[(k[0], 0)] for copy in group for k in copy}
    v = {
        k: x
        for copy, values in zip(group, copies, strict=True)
        for k, x in zip(copy, values, strict=True)
    }
    a, b = Tx(FPY, v), Tx(FPY, v)
    sort_plain(FPY, a, group, each)
    sort_copies(FPY, b, group, each)
    assert {**v, **a.new} == {**v, **b.new}
