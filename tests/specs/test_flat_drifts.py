"""Two places where the flat text and the explicit model once disagreed, each found by comparing
the two over a whole state space (the breadth-first prefixes the older agreement tests used never
reached them):

* ``table/restart-forgets-barrier`` on ``t-migrate``: the explicit mutant forgot the migration
  procedure's hold on the cleaner barrier at a master restart as well as the AddPeerProcedures';
  in HBase the migration's ``afterReplay`` is separate code, so both now keep it;
* ``table/add-missing-rerun`` on ``t-syncup``: the SyncUp feature's empty claim round overwrote
  the mutant's outcome with DONE, ending the SCP while a claim child was outstanding.
"""

from __future__ import annotations

from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.table.state import ARQP_CLAIM, BARRIER_DISABLED
from replcheck.specs.compiled import explore_compiled
from replcheck.specs.explore import explore


def test_restart_forgets_barrier_keeps_the_migrations_hold() -> None:
    """The mutant forgets the AddPeerProcedures' disables at a master restart, not the
    migration's: after DISABLE_CLEANER and a restart the barrier is still disabled, once."""
    model = Model(get_design("table/restart-forgets-barrier"), STANDARD["t-migrate"])
    st = model.init()
    for action in (Action("migration_step", ()), Action("master_restart", ())):
        st = model.step(st, action)
    assert st.barrier == (BARRIER_DISABLED, 1)


def test_restart_forgets_barrier_agrees_on_the_migration() -> None:
    name, cfg = "table/restart-forgets-barrier", STANDARD["t-migrate"]
    ex = explore(Model(get_design(name), cfg), symmetry=False)
    res = explore_compiled(name, cfg, backend="c")
    assert (res.states, res.transitions) == (len(ex.states), ex.transitions)
    assert set(res.first_violation) - {"encoding_capacity"} == set(ex.first_violation)


def test_add_missing_rerun_claims_after_the_rerun_under_syncup() -> None:
    """The round after the first claim re-runs ADD_MISSING_QUEUES and claims the queue it adds
    again: the SCP goes on with that child outstanding, it does not end."""
    name, cfg = "table/add-missing-rerun", STANDARD["t-syncup"]
    model = Model(get_design(name), cfg)
    st = model.init()
    path = [
        ("crash", (0,)),
        ("scp_split", (0,)),
        ("scp_claim_stage", (0,)),
        ("arqp_read_missing", (0,)),
        ("arqp_put_missing", (0,)),
        ("arqp_claim", (0, (1,))),
        ("claim_read", (1, 0, 0)),
        ("claim_commit", (1,)),
    ]
    for name_, args in path:
        action = Action(name_, args)
        assert action in model.enabled(st)
        st = model.step(st, action)
    rounds = [a for a in model.enabled(st) if a.name == "arqp_claim"]
    # the round counts the queue its re-run adds, so it sends it to the one online server
    assert rounds == [Action("arqp_claim", (0, (1,)))]
    nxt = model.step(st, rounds[0])
    assert nxt.scps[0].stage == ARQP_CLAIM and len(nxt.scps[0].children) == 1
