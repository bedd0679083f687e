"""Renaming servers on packed states (``model/engine/packsym.py``), the one renaming every engine
uses: held against the steps themselves (a renamed state's successors are the renamed successors),
so the declared slot and value maps need no second renaming to be checked against."""

from __future__ import annotations

from itertools import permutations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine import packsym
from replcheck.model.engine.canonical import Renamings
from replcheck.model.engine.catalogue import flat_layout
from replcheck.model.engine.terms import trace
from replcheck.specs.explore import explore

CONFIGS = [
    ("zk-multi", "cleaner-race", None),
    ("zk-lock", "double-failure", 600),
    ("zk-multi", "peers", 600),
    ("zk-multi", "multiwal", 600),
    ("table", "t-race", None),
    ("table", "t-sync", 600),
    ("table", "t-syncup", 600),
    ("table", "t-multiwal", 600),
    ("table", "t-master-restart", 600),
    ("table", "t-std", 3000),
    # removeAllQueues row by row: any row may go next, so renaming commutes with it (it took
    # the row-key order, so the servers' names, once)
    ("table", "t-sync", 12000),
    # its round counts the queues its re-run adds (it sent them to servers in server order)
    ("table/add-missing-rerun", "t-race", 600),
]


@pytest.mark.parametrize(
    ("name", "config", "perm", "kind", "limit"),
    [
        ("table", "t-migrate-chain", (0, 2, 1, 3), "arqp_claim", 600),
        ("table", "t-migrate-rolling", (0, 1, 3, 2), "upgrade", 600),
        ("zk-lock/claim-without-chain", "std", (1, 0), "finish_claim", 600),
    ],
)
def test_steps_that_single_out_servers_by_name(
    name: str, config: str, perm: tuple, kind: str, limit: int
) -> None:
    """Pinned findings (docs/findings.md, "Steps that single out servers by name"): some steps
    are not symmetric under every renaming the layout is closed under, so symmetry reduction
    on these configurations may merge states whose futures differ.

    * AssignReplicationQueuesProcedure's CLAIM round sends the first ``min(queues, targets)``
      of a dead server's queues (``listAllQueueIds``, ordered by queue id, so by the names of
      the servers in it); the rest wait for the next round. Where a dead server holds claimed
      queues of two sources and fewer targets than queues (``t-migrate-chain``), which queue
      waits depends on the sources' names. A round that could send any of them has as many
      instances as choices of queues and targets, which the configurations of recorded runs
      (six server incarnations, two peers) cannot afford.
    * The rolling upgrade starts the spare servers in order (``upgrade`` requires every lower
      spare started), a reduction written by hand that renaming two spares undoes.
    * ``zk-lock/claim-without-chain``'s claims keep the old queue name, so a claimed queue
      merges with the claimer's own, whose WALs are then listed in the servers' order. The
      mutant says so (``names_ordered``), and every engine explores it without symmetry.

    Each test fails once its step no longer depends on names: then move the configuration into
    ``CONFIGS``."""
    model = Model(get_design(name), STANDARD[config])
    assert perm in model._renamings().closed()
    assert bool(model.design.names_ordered) == (kind == "finish_claim")
    differ = set()
    for st in explore(model, symmetry=False, max_states=limit).states:
        other = model.rename(st, perm)
        mine = {model.rename(t, perm): a for a, t in model.successors(st)}
        theirs = {t: a for a, t in model.successors(other)}
        differ |= {a.name for t, a in theirs.items() if t not in mine}
        differ |= {a.name for t, a in mine.items() if t not in theirs}
    assert differ == {kind}


@pytest.mark.parametrize(("name", "config", "limit"), CONFIGS)
def test_every_renaming_commutes_with_the_steps(name: str, config: str, limit: int | None) -> None:
    """Symmetry reduction is sound only if renaming servers maps behaviours to behaviours: for
    every state of a state space and every renaming the layout is closed under, the renamed
    state's successors are the renamed successors, it breaks the same invariants, and the
    inverse renaming gives the state back. A kind declared wrongly (a server-valued slot left
    unrenamed, a slot moved to the wrong server) or a step that singles out a server by name
    breaks one of these."""
    cfg = STANDARD[config]
    model = Model(get_design(name), cfg)
    ren = model._renamings()
    perms = ren.closed()[1:]
    assert perms, "no renaming to check"
    ex = explore(model, symmetry=False, max_states=limit)
    moved = 0
    for st in ex.states:
        after = {t for _a, t in model.successors(st)}
        broken = {p.name for p in model.invariants if not p.check(cfg, st)}
        for p in perms:
            other = model.rename(st, p)
            moved += other != st
            inverse = tuple(sorted(range(cfg.servers), key=p.__getitem__))
            assert model.rename(other, inverse) == st, p
            assert {t for _a, t in model.successors(other)} == {model.rename(t, p) for t in after}
            assert {q.name for q in model.invariants if not q.check(cfg, other)} == broken
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
    ren = Renamings(layout, "table", trace(layout.model()))
    assert not ren.complete
    assert ren.closed() == [(0, 1, 2)] and ren.every() == []
    assert all(ren.maps(p) is None for p in permutations(range(3)) if p != (0, 1, 2))
