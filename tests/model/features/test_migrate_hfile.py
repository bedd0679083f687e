"""The hfile references of a 2.x bulk load through the migration
(``model/features/migrate_hfile.py``): the starting point, MIGRATE's hfile-refs task and what it
waits for, the drawing, the pinned finding (the 3.x hfile cleaner before MIGRATE), the mutant caught
by ``hfile_refs_migrated``, and the engines' agreement."""

from __future__ import annotations

import pytest
from model_agreement import agree
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.engine.text import FlatError
from replcheck.model.features.hfile_refs import HF_DELETED, HF_STORE, BulkLoad
from replcheck.model.features.migrate_hfile import SkipsHFileRefs, ZkHFileRefs
from replcheck.model.render.table import render_queue_table
from replcheck.model.table.compose import table_flat_class, table_flat_model
from replcheck.model.table.state import HFILE_REF, MIG_MIGRATE, TState
from replcheck.specs.compiled import explore_compiled
from replcheck.specs.explore import check
from walks import PREPARED, names
from walks import run as walk

from replcheck.report import parse_actions

CONFIG = "t-migrate-hfile"


def run(name: str, *actions: str) -> tuple[Model, TState]:
    return walk(name, CONFIG, *actions)


def broken(model: Model, st: TState) -> set[str]:
    return {p.name for p in model.invariants if not p.check(model.cfg, st)}


def test_the_bulk_load_starts_in_zookeeper_and_in_the_old_servers_wal() -> None:
    model, st = run("table")
    w, j = st.hfile.marker
    assert st.hfile == BulkLoad(HF_STORE, 0, (w, j))
    marker = st.wals[w].entries[j]
    assert st.wals[w].key[0] == 0 and st.servers[0].version == 2
    assert marker.owed == 0b1
    assert st.zk_hfile == 0b1
    assert not any(x & HFILE_REF for x in st.sid)
    assert "bulk_load" not in names(model, st)


def test_migrate_copies_the_reference_then_deletes_the_znode() -> None:
    model, st = run("table", *PREPARED, "migrate_server(0)")
    assert st.migration.stage == MIG_MIGRATE
    assert "migration_step" not in names(model, st), "MIGRATE ended with a znode left"
    model, st = run("table", *PREPARED, "migrate_server(0)", "migrate_hfile_refs(0)")
    assert st.zk_hfile == 0
    assert st.sid[0] & HFILE_REF
    assert "migration_step" in names(model, st)
    # From now on the 3.x hfile cleaner finds the reference and keeps the archived hfile.
    st = model.step(st, parse_actions("hfile_archive()")[0])
    assert "hfile_clean" not in names(model, st)


def test_the_drawing_shows_the_hfile_refs_znode_until_migrated() -> None:
    model, st = run("table")
    assert "/hbase/replication/hfile-refs/" in render_queue_table(model.cfg, st)
    model, st = run("table", *PREPARED, "migrate_hfile_refs(0)")
    assert "/hbase/replication/hfile-refs/" not in render_queue_table(model.cfg, st)
    assert "hfileref:" in render_queue_table(model.cfg, st)


@pytest.mark.parametrize("name", ["table", "table-doc"])
def test_the_pinned_finding_the_hfile_cleaner_before_migrate(name: str) -> None:
    """The 3.x ReplicationHFileCleaner reads only the table: before MIGRATE copies the
    reference, an archived hfile whose marker is still owed may be deleted."""
    model, st = run(name, "hfile_archive()", "hfile_clean()")
    assert st.hfile.stage == HF_DELETED
    assert broken(model, st) == {"bulk_loaded_hfile_kept"}


STATES = {"table": 141, "table-doc": 273}


@pytest.mark.parametrize("name", sorted(STATES))
def test_the_designs_fail_only_the_pinned_property(name: str) -> None:
    r = check(Model(get_design(name), STANDARD[CONFIG]))
    assert r.violated == ["bulk_loaded_hfile_kept"]
    assert r.verdicts["hfile_refs_migrated"] == "pass"
    assert r.counterexamples["bulk_loaded_hfile_kept"].length == 2
    assert r.stats["states"] == STATES[name]


def test_the_mutant_is_caught_by_hfile_refs_migrated() -> None:
    design = get_design("table/migrate-skips-hfile-refs")
    assert design.configs == (CONFIG,)
    r = check(Model(design, STANDARD[CONFIG]), liveness=False)
    assert sorted(r.violated) == ["bulk_loaded_hfile_kept", "hfile_refs_migrated"]
    actions = " ".join(map(str, r.counterexamples["hfile_refs_migrated"].actions()))
    assert actions == "migration_step() migration_step() migration_step() migrate_hfile_refs(0)"
    model, st = run("table/migrate-skips-hfile-refs", *PREPARED, "migrate_hfile_refs(0)")
    assert st.zk_hfile == 0 and not st.sid[0] & HFILE_REF
    assert broken(model, st) == {"hfile_refs_migrated"}


def test_the_texts_come_before_the_migration_and_the_bulk_load() -> None:
    mro = table_flat_class("table", STANDARD[CONFIG]).__mro__
    assert mro[1] is ZkHFileRefs
    mro = table_flat_class("table/migrate-skips-hfile-refs", STANDARD[CONFIG]).__mro__
    assert mro.index(SkipsHFileRefs) < mro.index(ZkHFileRefs)


def test_states_outside_the_layout_are_refused() -> None:
    cfg = STANDARD[CONFIG]
    fm = table_flat_model("table", cfg)
    init = Model(get_design("table"), cfg).init()
    with pytest.raises(FlatError, match="hfile-refs znode of a peer that had none"):
        fm.encode(init._replace(zk_hfile=0b10))


ENGINES = {
    "table": (141, 283),
    "table-doc": (273, 631),
    "table/migrate-skips-hfile-refs": (141, 307),
}


@pytest.mark.parametrize("name", sorted(ENGINES))
@pytest.mark.parametrize("backend", ["c", "python"])
def test_the_compiled_engines_agree_on_the_counts(name: str, backend: str) -> None:
    r = explore_compiled(name, STANDARD[CONFIG], backend=backend, symmetry=True)
    assert (r.states, r.transitions) == ENGINES[name]
    assert r.complete


NO_SYMMETRY = {"table": 141, "table/migrate-skips-hfile-refs": 141}
"""The states of each without symmetry (one peer and one spare slot: nothing to rename)."""


@pytest.mark.parametrize("name", ["table", "table/migrate-skips-hfile-refs"])
def test_the_plain_interpreter_agrees_with_the_generated_program(name: str) -> None:
    """From every state of ``t-migrate-hfile`` (no symmetry), the same successors."""
    assert agree(name, CONFIG) == NO_SYMMETRY[name]
