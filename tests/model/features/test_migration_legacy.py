"""The legacy ``region_replica_replication`` peer during the migration
(``model/features/legacy_peer.py``): its queue znodes at the start, PREPARE's branch on the peer,
MIGRATE keeping the znodes and CLEAN_UP deleting them, the base's verdicts and counts, the two
HBASE-29169 mutants caught by ``no_abort_by_removed_queue``, where an abort comes from, and the
engines' agreement."""

from __future__ import annotations

import pytest
from model_agreement import agree
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.text import FlatError
from replcheck.model.features.legacy_peer import (
    DeletesLegacyQueue,
    IgnoresLegacyPeer,
    LegacyPeerMigration,
)
from replcheck.model.render.names import server_label
from replcheck.model.render.table import render_queue_table, render_table_state
from replcheck.model.table.compose import table_flat_class, table_flat_model
from replcheck.model.table.state import (
    MIG_CLEAN_UP,
    MIG_DONE,
    MIG_MIGRATE,
    MIG_WAIT_UPGRADING,
    LegacyReplicaPeer,
)
from replcheck.specs.compiled import explore_compiled
from replcheck.specs.crosscheck import cross_check
from replcheck.specs.explore import check
from walks import PREPARED, names, run

LEGACY, IDLE = "t-migrate-legacy", "t-migrate-legacy-idle"


def test_every_alive_old_server_starts_with_its_legacy_queue() -> None:
    model, st = run("table", LEGACY)
    assert st.legacy == LegacyReplicaPeer(True, 0b11, 0)
    assert "legacy_position_write" not in names(model, st)


def test_migrate_keeps_the_legacy_queue_and_writes_no_row_for_it() -> None:
    model, st = run("table", LEGACY, *PREPARED, "migrate_server(0)")
    assert st.migration.stage == MIG_MIGRATE
    assert all(owner != 0 for owner, _q in st.zk)
    assert st.legacy == LegacyReplicaPeer(True, 0b11, 0)
    assert {row.owner for row in st.rows} == {0}
    assert "legacy_position_write" not in names(model, st)


def test_prepare_with_only_the_legacy_peer_waits_for_the_upgrade() -> None:
    model, st = run("table", IDLE, "migration_step()", "migration_step()")
    assert st.migration.stage == MIG_WAIT_UPGRADING
    assert "migration_step" not in names(model, st)
    model, st = run("table", IDLE, "migration_step()", "migration_step()", "upgrade(0,2)")
    assert "migration_step" not in names(model, st)  # server 1 is still a 2.x server
    steps = ("migration_step()",) * 2 + ("upgrade(0,2)", "upgrade(1,3)")
    _model, st = run("table", IDLE, *steps, *("migration_step()",) * 3)
    assert st.migration.stage == MIG_CLEAN_UP
    assert st.legacy == LegacyReplicaPeer(True, 0b11, 0)
    _model, st = run("table", IDLE, *steps, *("migration_step()",) * 4)
    assert st.migration.stage == MIG_DONE
    assert st.legacy == LegacyReplicaPeer(False, 0, 0)


def test_the_drawing_shows_the_legacy_queue_until_clean_up() -> None:
    model, st = run("table", LEGACY, *PREPARED, "migrate_server(0)")
    server0 = server_label(model.cfg, 0)
    drawn = render_queue_table(model.cfg, st)
    assert f"  {server0}/\n    region_replica_replication/" in drawn
    _model, st = run("table/HBASE-29169", LEGACY, *PREPARED, "migrate_server(0)")
    assert f"  {server0}/" not in render_queue_table(model.cfg, st)
    _model, st = run(
        "table/HBASE-29169", LEGACY, *PREPARED, "migrate_server(0)", "legacy_position_write(0)"
    )
    assert "aborted as their region_replica_replication queue znode was removed" in (
        render_table_state(model.cfg, st)
    )


STATES = {("table", LEGACY): 2616, ("table", IDLE): 452, ("table-doc", LEGACY): 10092}
SLOW = {("table-doc", LEGACY), "table/HBASE-29169"}
"""Over 20 s each (``table-doc``'s 10,092 states; the mutant's 5,574)."""


def _param(*key: str) -> object:
    slow = key in SLOW or key[0] in SLOW
    return pytest.param(*key, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize(("name", "config"), [_param(*k) for k in sorted(STATES)])
def test_the_designs_pass_every_property(name: str, config: str) -> None:
    r = check(Model(get_design(name), STANDARD[config]))
    assert r.violated == []
    assert "no_abort_by_removed_queue" in r.verdicts
    assert r.stats["states"] == STATES[(name, config)]


MUTANTS = {
    "table/HBASE-29169": (
        LEGACY,
        "migration_step() migration_step() migration_step() migrate_server(0) "
        "legacy_position_write(0)",
    ),
    "table/HBASE-29169-no-peers": (
        IDLE,
        "migration_step() migration_step() migration_step() migration_step() "
        "legacy_position_write(0)",
    ),
}


@pytest.mark.parametrize("name", [_param(n) for n in sorted(MUTANTS)])
def test_each_mutant_is_caught_by_the_new_invariant(name: str) -> None:
    config, actions = MUTANTS[name]
    design = get_design(name)
    assert design.configs == (config,)
    r = check(Model(design, STANDARD[config]), liveness=False)
    assert r.violated == ["no_abort_by_removed_queue"]
    assert " ".join(map(str, r.counterexamples["no_abort_by_removed_queue"].actions())) == actions


REMOVER = {
    "table": None,
    "table/HBASE-29169": ("migrate_server", None),
    "table/HBASE-29169-no-peers": ("migration_step", MIG_CLEAN_UP),
}
"""Which step removes the legacy queue znode of a running 2.x server: none in the base; in each
mutant only the one whose rule it overrides (MIGRATE's iterator; CLEAN_UP reached from a PREPARE
that did not wait)."""


@pytest.mark.parametrize(("name", "config"), [(n, c) for n in REMOVER for c in (LEGACY, IDLE)])
def test_an_abort_comes_only_through_the_overridden_rule(name: str, config: str) -> None:
    """Over every transition within ten steps: a legacy znode vanishes under an alive 2.x server
    only by the mutant's step, and a server aborts only after that (its bit set by
    ``legacy_position_write`` alone)."""
    model = Model(get_design(name), STANDARD[config])
    seen = frontier = {model.init()}
    removed = aborted = 0
    for _ in range(10):
        nxt = set()
        for st in frontier:
            for action, after in model.successors(st):
                lost = st.legacy.znodes & ~after.legacy.znodes
                under = [s for s in range(len(after.servers)) if lost >> s & 1]
                if any(after.servers[s].alive and after.servers[s].version == 2 for s in under):
                    removed += 1
                    assert REMOVER[name] is not None, f"{action} removed a legacy znode in {name}"
                    step, stage = REMOVER[name]
                    assert action.name == step
                    assert stage is None or st.migration.stage == stage
                if after.legacy.aborted != st.legacy.aborted:
                    aborted += 1
                    assert action.name == "legacy_position_write"
                    assert not st.legacy.znodes >> action.args[0] & 1
                nxt.add(after)
        frontier = nxt - seen
        seen |= frontier
    caught = REMOVER[name] is not None and name in MUTANTS and MUTANTS[name][0] == config
    assert (removed > 0) == caught, (name, config, removed)  # the base removes none
    assert (aborted > 0) == caught, (name, config, aborted)  # and no server aborts


def test_the_mutants_texts_extend_the_legacy_peers() -> None:
    for name, text, config in [
        ("table/HBASE-29169", DeletesLegacyQueue, LEGACY),
        ("table/HBASE-29169-no-peers", IgnoresLegacyPeer, IDLE),
    ]:
        mro = table_flat_class(name, STANDARD[config]).__mro__
        assert mro.index(text) < mro.index(LegacyPeerMigration)
    assert table_flat_class("table", STANDARD[LEGACY]).__mro__[1] is LegacyPeerMigration


def test_states_outside_the_legacy_layout_are_refused() -> None:
    cfg = STANDARD[LEGACY]
    fm = table_flat_model("table", cfg)
    init = Model(get_design("table"), cfg).init()
    with pytest.raises(FlatError, match="no legacy peer record"):
        fm.encode(init._replace(legacy=()))
    with pytest.raises(FlatError, match="had no legacy queue"):
        fm.encode(init._replace(legacy=LegacyReplicaPeer(True, 0b111, 0)))


ENGINES = {LEGACY: (2616, 9139), IDLE: (452, 1388)}


@pytest.mark.parametrize("config", sorted(ENGINES))
@pytest.mark.parametrize("backend", ["c", "python"])
def test_the_compiled_engines_agree_on_the_counts(config: str, backend: str) -> None:
    r = explore_compiled("table", STANDARD[config], backend=backend, symmetry=True)
    assert (r.states, r.transitions) == ENGINES[config]
    assert r.complete


IDLE_STATES = 934
"""``table@t-migrate-legacy-idle`` without symmetry."""


def test_the_plain_interpreter_agrees_with_the_generated_program() -> None:
    """From every state of ``t-migrate-legacy-idle`` (no symmetry), the same successors."""
    assert agree("table", IDLE) == IDLE_STATES


# Bounded model checking (Z3, from the same text) against exploration, to depth 6 (each run takes
# about 30 s): nothing on ``table``, and each mutant's abort at depth 5, as exploration finds it.
CROSS = [
    ("table", LEGACY),
    ("table/HBASE-29169", LEGACY),
    ("table/HBASE-29169-no-peers", IDLE),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "config"), CROSS)
def test_bounded_model_checking_agrees_with_exploration(name: str, config: str) -> None:
    cc = cross_check(name, STANDARD[config], 6)
    assert cc.agree, cc.to_dict()
    assert cc.to_dict()["bmc"] == ({} if name == "table" else {"no_abort_by_removed_queue": 5})
