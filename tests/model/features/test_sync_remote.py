"""Sync replication's remote side (``replcheck.model.features.sync_remote``): cluster 0 starts as
the STANDBY; the ACTIVE's remote WALs, their replay when cluster 0 becomes DOWNGRADE_ACTIVE (the
rename that fences the ACTIVE, one replay per WAL, the snapshot), RemovePeer's clean-up, and the
mutants' counterexamples. The flat form is held against the model on the whole state space."""

from __future__ import annotations

import pytest
from layout_agreement import check_states
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.features.sync_procedure import (
    IN_DIR,
    IN_REPLAY,
    IN_SNAPSHOT,
    NO_FILE,
    RS_RENAME,
)
from replcheck.model.features.sync_remote import SyncRemote
from replcheck.model.table.compose import table_flat_class
from replcheck.model.table.state import DOWNGRADE_ACTIVE, NONE, STANDBY, RemoteWals
from replcheck.specs.explore import explore
from test_table_sync import act, broken, run

REMOTE = STANDARD["t-sync-remote"]
CYCLE = STANDARD["t-sync-remote-cycle"]

PROMOTE = "transit_peer(0,2) peer_proc(0) peer_proc(0) refresh(0,0) refresh(0,1) peer_proc(0)"
"""STANDBY -> DOWNGRADE_ACTIVE up to REPLAY_REMOTE_WAL_IN_PEER (the stage-0 refreshes done)."""
REPLAY = "peer_proc(0) peer_proc(0) replay_wal(0,1) peer_proc(0)"
"""RecoverStandbyProcedure: rename, dispatch, the replay of remote WAL 1, the snapshot."""
FINISH = "peer_proc(0) refresh(0,0) refresh(0,1) peer_proc(0) peer_proc(0)"
"""TRANSIT, the stage-1 refreshes, POST."""
WRITES = "remote_put(0,0) remote_put(0,1) remote_ship(0,0) remote_clean(0,0)"
"""The ACTIVE acknowledges two edits, replicates the first and deletes its remote copy."""


def test_the_feature_is_picked_for_remote_configurations() -> None:
    for name in ("table", "table-doc"):
        assert issubclass(table_flat_class(name, REMOTE), SyncRemote)
        assert not issubclass(table_flat_class(name, STANDARD["t-sync"]), SyncRemote)


def test_cluster_0_starts_as_the_standby() -> None:
    st = Model(get_design("table"), REMOTE).init()
    assert st.sync == ((STANDBY, NONE),)
    assert st.remote_dir == 1
    assert st.remote == (RemoteWals(0, (NO_FILE, NO_FILE), 0, False, False, RS_RENAME, 0),)
    assert all(srv.views == ((STANDBY, NONE),) for srv in st.servers)
    assert Model(get_design("table"), STANDARD["t-sync"]).init().remote == ()


def test_the_promotion_replays_what_was_not_replicated() -> None:
    model = Model(get_design("table"), REMOTE)
    st = run(model, f"{WRITES} {PROMOTE} peer_proc(0)")
    assert st.remote[0].files == (NO_FILE, IN_REPLAY)
    assert st.remote_dir == 0 and st.remote[0].replay_dir
    assert act("remote_clean(0,1)") not in model.enabled(st)
    st = run(model, f"{WRITES} {PROMOTE} {REPLAY} {FINISH}")
    assert st.sync == ((DOWNGRADE_ACTIVE, NONE),)
    assert st.pprocs == ((),)
    rem = st.remote[0]
    assert (rem.acked, rem.applied, rem.files) == (2, 0b11, (NO_FILE, IN_SNAPSHOT))
    assert rem.snapshot_dir and not rem.replay_dir and rem.children == 0
    assert broken(model, st) == []


def test_the_rename_fences_the_active() -> None:
    model = Model(get_design("table"), REMOTE)
    st = run(model, f"remote_put(0,0) {PROMOTE}")
    assert act("remote_put(0,1)") in model.enabled(st)
    st = run(model, f"remote_put(0,0) {PROMOTE} peer_proc(0)")
    assert act("remote_put(0,1)") not in model.enabled(st)
    assert st.remote[0].files == (IN_REPLAY, NO_FILE)


def test_a_promotion_without_the_replay_loses_an_acknowledged_edit() -> None:
    model = Model(get_design("table/sync-replay-skipped"), REMOTE)
    st = run(model, f"{WRITES} {PROMOTE} {FINISH}")
    assert st.sync == ((DOWNGRADE_ACTIVE, NONE),)
    assert st.remote[0].applied == 0b01
    assert broken(model, st) == ["acked_edits_replayed"]


def test_a_remote_wal_deleted_before_it_is_replicated_is_not_replayed() -> None:
    scenario = f"remote_put(0,0) remote_clean(0,0) {PROMOTE} peer_proc(0) peer_proc(0) peer_proc(0)"
    model = Model(get_design("table/sync-remote-removed-early"), REMOTE)
    st = run(model, f"{scenario} {FINISH}")
    assert st.remote[0].files == (NO_FILE, NO_FILE)
    assert broken(model, st) == ["acked_edits_replayed"]
    with pytest.raises(AssertionError, match="is not enabled"):
        run(Model(get_design("table"), REMOTE), scenario)


REMOVE_PEER = (
    "remove_peer(0) peer_proc(0) peer_proc(0) refresh(0,0) refresh(0,1) peer_proc(0) "
    "peer_proc(0) peer_proc(0) peer_proc(0) peer_proc(0)"
)
"""RemovePeerProcedure to its end (two passes of ``removeAllQueues`` over no row)."""
PROMOTED = f"remote_put(0,0) {PROMOTE} peer_proc(0) peer_proc(0) replay_wal(0,0) peer_proc(0)"


@pytest.mark.parametrize(
    ("design", "left"), [("table", []), ("table/sync-remove-keeps-snapshot", [IN_SNAPSHOT])]
)
def test_remove_peer_deletes_the_remote_wal_directories(design: str, left: list[int]) -> None:
    model = Model(get_design(design), CYCLE)
    st = run(model, f"{PROMOTED} {FINISH} {REMOVE_PEER}")
    assert st.removed_done == 1 and st.remote_dir == 0
    assert [f for f in st.remote[0].files if f != NO_FILE] == left
    assert st.remote[0].snapshot_dir == bool(left)
    assert broken(model, st) == (["no_remote_wals_after_removal"] if left else [])


def test_a_remote_wal_is_written_only_while_cluster_0_is_standby() -> None:
    model = Model(get_design("table"), CYCLE)
    st = run(model, f"{PROMOTE} {REPLAY.replace(' replay_wal(0,1)', '')} {FINISH}")
    assert st.sync == ((DOWNGRADE_ACTIVE, NONE),)
    assert act("remote_put(0,0)") not in model.enabled(st)
    assert st.remote[0].files == (NO_FILE,) and st.remote[0].acked == 0
    assert IN_DIR not in st.remote[0].files


SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    ("name", "config", "fails"),
    [
        pytest.param("table", "t-sync-remote", set(), marks=SLOW),
        pytest.param("table-doc", "t-sync-remote", set(), marks=SLOW),
        pytest.param(
            "table/sync-replay-skipped", "t-sync-remote", {"acked_edits_replayed"}, marks=SLOW
        ),
        pytest.param(
            "table/sync-remote-removed-early", "t-sync-remote", {"acked_edits_replayed"}, marks=SLOW
        ),
        ("table", "t-sync-remote-cycle", set()),
        (
            "table/sync-remove-keeps-snapshot",
            "t-sync-remote-cycle",
            {"no_remote_wals_after_removal"},
        ),
    ],
)
def test_flat_and_model_agree_on_the_state_space(name: str, config: str, fails: set[str]) -> None:
    """Every state of ``t-sync-remote-cycle``'s whole (unreduced) space, every 4th of
    ``t-sync-remote``'s: the flat form round-trips, its steps lead to the model's successors, and
    its invariants give the model's verdicts."""
    ex = explore(Model(get_design(name), STANDARD[config]), symmetry=False)
    states = ex.states if config == "t-sync-remote-cycle" else ex.states[::4]
    n, found = check_states(name, config, states)
    assert n == len(states) and found == fails


BACK_TO_STANDBY = (
    "transit_peer(0,3) peer_proc(0) peer_proc(0) refresh(0,0) refresh(0,1) peer_proc(0) "
    "peer_proc(0) peer_proc(0) peer_proc(0) peer_proc(0) refresh(0,0) refresh(0,1) peer_proc(0) "
    "peer_proc(0) refresh(0,0) refresh(0,1) peer_proc(0) peer_proc(0) peer_proc(0)"
)
"""DOWNGRADE_ACTIVE -> STANDBY to its end: ``removeAllQueues``, the drains, the peer enabled
again and CREATE_DIR_FOR_REMOTE_WAL."""
DOWNGRADED = (
    f"{PROMOTE} peer_proc(0) peer_proc(0) peer_proc(0) {FINISH} {BACK_TO_STANDBY} "
    "remote_put(0,0) remote_downgrade(0) remote_ship(0,0)"
)
"""Promoted with nothing to replay, back to STANDBY (the remote WAL directory made again); the
peer's cluster writes one edit, goes ACTIVE -> DOWNGRADE_ACTIVE and replicates the edit."""


@pytest.mark.parametrize(("design", "cleaned"), [("table", True), ("table/HBASE-20434", False)])
def test_a_replicated_remote_wal_is_deleted_in_downgrade_active(design: str, cleaned: bool) -> None:
    model = Model(get_design(design), CYCLE)
    st = run(model, DOWNGRADED)
    assert st.sync == ((STANDBY, NONE),) and st.pprocs == ((),)
    rem = st.remote[0]
    assert (rem.downgraded, rem.files, rem.applied) == (True, (IN_DIR,), 1)
    assert act("remote_put(0,0)") not in model.enabled(st)
    assert (act("remote_clean(0,0)") in model.enabled(st)) == cleaned


@pytest.mark.slow
def test_bmc_finds_the_skipped_replay_where_exploration_does() -> None:
    """Bounded model checking over the flat model finds ``acked_edits_replayed`` broken at the
    depth exploration does (8 steps), and nothing sooner."""
    pytest.importorskip("z3")
    from replcheck.specs.crosscheck import cross_check

    cc = cross_check("table/sync-replay-skipped", REMOTE, 8)
    assert cc.agree, cc.to_dict()
    assert cc.to_dict()["bmc"] == {"acked_edits_replayed": 8}
