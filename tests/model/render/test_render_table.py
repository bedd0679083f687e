"""Drawing table-era states and DumpReplicationQueues' output (``replcheck.model.render.table``,
reached through ``replcheck.model.render.draw`` for a ``TState``)."""

from __future__ import annotations

import ast
import json
from collections import deque

import pytest
from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.common.state import Queue
from replcheck.model.render.draw import (
    describe_action,
    render_diff,
    render_rs_tree,
    render_state,
    rs_changed,
    state_dict,
)
from replcheck.model.render.table import dump, render_table_state, table_state_dict
from replcheck.model.table.state import MIG_MIGRATE, Migration, SyncUp
from replcheck.specs import Counterexample

from replcheck.report import render_counterexample

S1 = "1.1.1.1,60020,123456780"
S2 = "1.1.1.2,60020,123456790"
G1 = "1.1.1.1%2C60020%2C123456780"  # S1's WAL group id (URL-encoded server name)
W1_0 = f"{G1}.1234"  # S1's first WAL file
W1_1 = f"{G1}.1265"  # S1's second WAL file
NORMAL = f"2-{S1}"
RECOVERED = f"2-{S2}/{S1}"

SHIPPED = ("put(0,0,0)", "ship(0,0,0)", "persist(0,0)")
CRASH_TO_CLAIM = (
    "crash(0)",
    "scp_split(0)",
    "scp_claim_stage(0)",
    "arqp_read_missing(0)",
    "arqp_put_missing(0)",
)
CLAIM = ("arqp_claim(0,(1,))", "claim_read(1,0,0)", "claim_commit(1)")


def act(text: str) -> Action:
    """``name(1,2)`` or ``name(1,(2,))`` as an Action (a parenthesised argument is a tuple)."""
    name, _, rest = text.partition("(")
    args = ast.literal_eval(f"({rest[:-1]},)") if rest[:-1].strip() else ()
    return Action(name, args)


def run(model: Model, *actions: str):
    """Apply actions in order, each required to be enabled; return every state."""
    states = [model.init()]
    for text in actions:
        a = act(text)
        assert a in model.enabled(states[-1]), f"{a} is not enabled"
        states.append(model.step(states[-1], a))
    return states


@pytest.fixture
def table() -> Model:
    return Model(get_design("table"), STANDARD["t-std"])


def test_initial_state(table: Model) -> None:
    st = table.init()
    text = render_state(table.cfg, st)
    assert text == render_table_state(table.cfg, st)
    lines = text.splitlines()
    assert lines[0] == "hbase:replication  (region open)"
    assert lines[1] == "  (empty)"
    assert "  2: ENABLED; cluster key zk1:2181:/hbase-1" in lines
    assert f"  {S1}: live, version 3; current {W1_0}; peers 2" in lines
    assert f"    [0] {NORMAL}: reading {W1_0} at 0" in lines
    for section in ("peers:", "region servers:", "WAL files:", "master: up", "sinks:"):
        assert section in lines
    assert f"  {W1_0}  WALs    open   (no edits)" in lines
    assert "  log cleaner barrier: NOT_RUNNING" in lines
    assert any(line.startswith("budgets left: crashes 1") for line in lines)


def test_first_persist_creates_the_row(table: Model) -> None:
    *_, st = run(table, *SHIPPED)
    lines = render_state(table.cfg, st).splitlines()
    i = lines.index(f"  row {NORMAL}")
    assert lines[i + 1] == f"    queue:{G1} = {W1_0}:1"
    # The peer's row of the sid family sorts before its queue rows, as in a scan.
    assert lines.index("  row 2") < i
    assert "    sid:<encoded region> = last pushed sequence id" in lines


def test_crash_and_scp_write_the_placeholder_row(table: Model) -> None:
    states = run(table, *CRASH_TO_CLAIM)
    st = states[-1]
    tree = render_rs_tree(table.cfg, st).splitlines()
    assert f"  row {NORMAL}   [owner dead]" in tree
    assert f"    queue:{S1} = :0   (BEGIN: ADD_MISSING_QUEUES placeholder)" in tree
    lines = render_state(table.cfg, st).splitlines()
    assert f"  {S1}: dead, version 3" in lines
    assert (
        f"  ServerCrashProcedure {S1}: CLAIM_REPLICATION_QUEUES > "
        "AssignReplicationQueuesProcedure CLAIM"
    ) in lines
    assert f"  {W1_0}  oldWALs closed (no edits)" in lines
    diff = render_diff(table.cfg, states[-2], st).splitlines()
    assert f"+ row {NORMAL}: queue" in diff
    assert f"+ row {NORMAL} queue:{S1}: :0" in diff
    assert rs_changed(states[-2], st)
    assert not rs_changed(states[-3], states[-2])


def test_claim_moves_the_row_to_a_recovered_queue(table: Model) -> None:
    states = run(table, *SHIPPED, "roll(0,0)", *CRASH_TO_CLAIM, *CLAIM)
    before, st = states[-2], states[-1]
    lines = render_state(table.cfg, st).splitlines()
    assert f"  row {RECOVERED}   [recovered: WALs of {S1}]" in lines
    assert f"    queue:{G1} = {W1_0}:1" in lines
    assert f"  row {NORMAL}" not in "\n".join(lines)
    assert (
        f"    [1] {RECOVERED} (recovered, WALs of {S1}): reading {W1_0} at 1; then {W1_1}"
    ) in lines
    diff = render_diff(table.cfg, before, st).splitlines()
    assert f"- row {NORMAL} (and all under it)" in diff
    assert not any(line.startswith(f"- row {NORMAL} queue:") for line in diff)
    assert f"+ row {RECOVERED}: recovered queue" in diff
    assert f"+ row {RECOVERED} queue:{G1}: {W1_0}:1" in diff
    assert render_diff(table.cfg, st, st) == "(no change)"


def test_claim_read_is_drawn_on_the_target(table: Model) -> None:
    *_, st = run(table, *CRASH_TO_CLAIM, *CLAIM[:2])
    lines = render_state(table.cfg, st).splitlines()
    assert f"    claim read: {NORMAL} (offsets read: {S1}=:0)" in lines
    assert f"    ClaimReplicationQueueRemoteProcedure {NORMAL} -> {S2}" in lines


def test_describe_action_names_servers_targets_and_children(table: Model) -> None:
    states = run(table, *CRASH_TO_CLAIM, CLAIM[0])
    design, cfg = table.design, table.cfg
    text = describe_action(design, act(CLAIM[0]), cfg, states[-2])
    assert text == f"arqp_claim(dead={S1}, targets=[{S2}])"
    text = describe_action(design, act(CLAIM[1]), cfg, states[-1])
    assert text == f"claim_read(server={S2}, dead={S1}, child=0 ({NORMAL} -> {S2}))"
    text = describe_action(design, Action("archive", (0, 0, 0)), cfg, None)
    assert text == f"archive(wal={W1_0})"
    text = describe_action(design, act("ship(0,0,0)"), cfg, table.init())
    assert text == f"ship(server={S1}, shipper=0 ({NORMAL}), sink=0)"


def test_dump_default_format(table: Model) -> None:
    *_, st = run(table, *SHIPPED)
    lines = dump(table.cfg, st).splitlines()
    assert lines[0] == "Dumping replication peers and configurations:"
    assert "Peer: 2" in lines
    assert "    State: ENABLED" in lines
    assert "    Cluster Name: zk1:2181:/hbase-1" in lines
    i = lines.index("Dumping replication info via replication table.")
    assert lines[i + 1 :] == [
        "peers:",
        "peers/2: zk1:2181:/hbase-1",
        "peers/2/peer-state: ENABLED",
        "rs:",
        f"rs/{G1}/2/{W1_0}: 1",
        "hfile-refs:",
    ]


def test_dump_default_format_shows_begin_as_an_empty_wal(table: Model) -> None:
    *_, st = run(table, *CRASH_TO_CLAIM)
    assert f"rs/{S1}/2/: 0" in dump(table.cfg, st).splitlines()


def test_dump_distributed_before_the_claim(table: Model) -> None:
    *_, st = run(table, *CRASH_TO_CLAIM)
    lines = dump(table.cfg, st, distributed=True).splitlines()
    i = lines.index(f"Dumping replication queue info for RegionServer: [{S1}]")
    assert lines[i + 1 : i + 8] == [
        f"    Queue id: {NORMAL}",
        "    PeerID: 2",
        "    Recovered: false",
        "    No dead RegionServer found in this queue.",
        "    Was deleted: false",
        "    Number of WALs in replication queue: 1",
        f"    Replication position for {W1_0}: 0 (not started or nothing to replicate)",
    ]
    j = lines.index(
        "Found 1 dead regionservers, restart one regionserver to transfer the queues of dead "
        "regionservers"
    )
    assert lines[j + 1] == f"    {S1}"
    assert "    PeerId: 2 , sizeOfLogQueue: 1" in lines
    assert lines[-1] == "    Total size of WALs on HDFS: 0"


def test_dump_distributed_after_the_claim(table: Model) -> None:
    *_, st = run(table, *SHIPPED, "roll(0,0)", *CRASH_TO_CLAIM, *CLAIM)
    text = dump(table.cfg, st, distributed=True)
    lines = text.splitlines()
    i = lines.index(f"Dumping replication queue info for RegionServer: [{S2}]")
    assert lines[i + 1 : i + 9] == [
        f"    Queue id: {RECOVERED}",
        "    PeerID: 2",
        "    Recovered: true",
        f"    Dead RegionServer: {S1}",
        "    Was deleted: false",
        "    Number of WALs in replication queue: 2",
        f"    Replication position for {W1_0}: 1",
        f"    Replication position for {W1_1}: 0 (not started or nothing to replicate)",
    ]
    assert "dead regionservers" not in text  # S1 owns no queue any more
    assert f"rs/{G1}/2/{W1_0}: 1" in dump(table.cfg, st).splitlines()


def test_dump_distributed_skips_a_fully_replicated_wal(table: Model) -> None:
    *_, st = run(table, *SHIPPED, "roll(0,0)", "advance(0,0)")
    lines = dump(table.cfg, st, distributed=True).splitlines()
    assert "    Number of WALs in replication queue: 1" in lines
    assert f"    Replication position for {W1_1}: 0 (not started or nothing to replicate)" in lines
    assert f"rs/{G1}/2/{W1_0}: -1" in dump(table.cfg, st).splitlines()


def test_dump_reports_queues_of_a_removed_peer_as_deleted() -> None:
    model = Model(get_design("table"), STANDARD["t-std"].with_overrides(admin_ops=1))
    *_, st = run(model, *SHIPPED, "remove_peer(0)", "peer_proc(0)", "peer_proc(0)")
    lines = dump(model.cfg, st, distributed=True).splitlines()
    assert "Peer: 2" not in lines
    assert "    Was deleted: true" in lines
    i = lines.index(
        "Found 1 deleted queues, run hbck -fixReplication in order to remove the deleted "
        "replication queues"
    )
    assert lines[i + 1] == f"    {S1}/{NORMAL}"
    default = dump(model.cfg, st).splitlines()
    assert not any(line.startswith("peers/2") for line in default)
    assert f"rs/{G1}/2/{W1_0}: 1" in default


def test_multiwal_names_groups_by_provider() -> None:
    model = Model(get_design("table"), STANDARD["t-multiwal"])
    *_, st = run(model, "put(0,1,0)", "ship(0,1,0)", "persist(0,1)")
    group = f"{G1}.regiongroup-1"
    assert f"    queue:{group} = {group}.1234:1" in render_state(model.cfg, st).splitlines()
    assert f"rs/{group}/2/{group}.1234: 1" in dump(model.cfg, st).splitlines()


def test_zookeeper_era_dump() -> None:
    model = Model(get_design("zk-lock"), STANDARD["std"])
    st = model.init()
    for a in (Action("crash", (1,)), Action("lock", (0, 1))):
        st = model.step(st, a)
    lines = dump(model.cfg, st).splitlines()
    assert "/hbase/replication/peers/2/peer-state: ENABLED" in lines
    assert f"/hbase/replication/rs/{S2}/lock: {S1}" in lines
    assert f"/hbase/replication/rs/{S1}/2/1.1.1.1,60020.1234: 0" in lines
    distributed = dump(model.cfg, st, distributed=True).splitlines()
    assert "    Queue znode: 2" in distributed
    assert f"    {S2}" in distributed


def test_counterexamples_draw_table_states(table: Model) -> None:
    states = run(table, *CRASH_TO_CLAIM)
    steps = [(None, states[0])] + [
        (act(a), s) for a, s in zip(CRASH_TO_CLAIM, states[1:], strict=True)
    ]
    cex = Counterexample("no_lost_edit", "invariant", steps)
    text = render_counterexample(table, cex)
    assert "hbase:replication  (region open)" in text
    assert f"scp_split(dead={S1})" in text
    assert f"  row {NORMAL}   [owner dead]" in text


def _reachable(model: Model, limit: int):
    seen = {model.init()}
    todo = deque(seen)
    while todo and len(seen) < limit:
        st = todo.popleft()
        for a in model.enabled(st):
            nxt = model.step(st, a)
            yield st, a, nxt
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)


@pytest.mark.parametrize(
    "config", [c for c in get_design("table").configs if c in STANDARD] or ["t-std"]
)
def test_every_drawing_works_on_reachable_states(config: str) -> None:
    """Draw, diff, describe, dump and serialise the first few hundred reachable states."""
    model = Model(get_design("table"), STANDARD[config])
    cfg = model.cfg
    for st, a, nxt in _reachable(model, 150):
        assert render_state(cfg, nxt)
        assert render_diff(cfg, st, nxt)
        assert describe_action(model.design, a, cfg, st).startswith(a.name + "(")
        assert dump(cfg, nxt) and dump(cfg, nxt, distributed=True)
        json.dumps(state_dict(cfg, nxt))


def test_state_dict_is_json(table: Model) -> None:
    *_, st = run(table, *SHIPPED, "roll(0,0)", *CRASH_TO_CLAIM, *CLAIM)
    data = json.loads(json.dumps(state_dict(table.cfg, st)))
    assert data == json.loads(json.dumps(table_state_dict(table.cfg, st)))
    assert data["era"] == "table"
    assert data["table"]["queue"] == {RECOVERED: {G1: f"{W1_0}:1"}}
    assert data["table"]["sid"] == ["2"]
    assert data["servers"][0]["status"] == "dead"
    assert data["servers"][1]["sources"][1] == {
        "queue": RECOVERED,
        "recovered": True,
        "source": S1,
        "group": 0,
        "wals": [W1_0, W1_1],
        "position": 1,
    }
    assert data["master"]["scps"][S1]["stage"] == "CLAIM"
    assert data["peers"]["2"]["cluster_key"] == "zk1:2181:/hbase-1"


def test_remove_peer_procedure_is_drawn_while_it_scans() -> None:
    model = Model(get_design("table"), STANDARD["t-std"].with_overrides(admin_ops=1))
    removal = ("remove_peer(0)", "peer_proc(0)", "peer_proc(0)", "refresh(0,1)")
    states = run(model, *SHIPPED, "crash(0)", *removal, *("peer_proc(0)",) * 3)
    lines = render_state(model.cfg, states[-2]).splitlines()
    assert (
        "  peer 2: RemovePeerProcedure POST_PEER_MODIFICATION(removeAllQueues); "
        "removeAllQueues pass 1: rows not read yet"
    ) in lines
    lines = render_state(model.cfg, states[-1]).splitlines()
    assert (
        "  peer 2: RemovePeerProcedure POST_PEER_MODIFICATION(removeAllQueues); "
        f"removeAllQueues pass 1: rows read, still to delete {NORMAL}"
    ) in lines
    assert "  2: REMOVED" in lines
    proc = state_dict(model.cfg, states[-1])["master"]["peer_procedures"]["2"]
    assert proc["remove_all_queues"] == {"pass": 1, "rows_to_delete": [NORMAL]}


def test_migration_syncup_and_zookeeper_queues_are_drawn(table: Model) -> None:
    """Parts of the state no standard configuration reaches yet, set by hand."""
    cfg = table.cfg
    *_, st = run(table, *SHIPPED)
    row = st.rows[0]
    st = st._replace(
        zk=((1, Queue(0, (), (((1, 0, 0), 0),))),),
        migration=Migration(MIG_MIGRATE, 1, 2),
        syncup=SyncUp(True, (row,), ((0, (0, 0, 0), 1),)),
        markers=1,
        info=True,
        master_up=False,
        table_online=False,
        stale=((0, ((0, 0, 0, 0, 0),)),),
    )
    lines = render_state(cfg, st).splitlines()
    assert lines[0] == "hbase:replication  (region CLOSED: no reads or writes)"
    i = lines.index("/hbase/replication/rs/   (ZooKeeper, not yet migrated)")
    assert lines[i + 1 : i + 4] == [f"  {S2}/", "    2/", "      1.1.1.2,60020.1234  (position 0)"]
    assert "master: DOWN (procedures persisted)" in lines
    assert (
        f"  migration from ZooKeeper: MIGRATE; peers it disabled 2; servers migrated {S2}" in lines
    )
    assert (
        f"  ReplicationSyncUp: running; offline view of rows {NORMAL}; still to replicate "
        f"2:{W1_0}@1"
    ) in lines
    assert f"    file ReplicationSyncUp/{S1}  (marker: drop its queues)" in lines
    assert "    file ReplicationSyncUp/info" in lines
    assert f"history: never to replicate to 2: {W1_0}:e0" in lines
    data = json.loads(json.dumps(state_dict(cfg, st)))
    assert data["zk"] == {S2: {"2": {"1.1.1.2,60020.1234": 0}}}
    assert data["master"]["migration"] == {"stage": "MIGRATE", "disabled": ["2"], "migrated": [S2]}
    diff = render_diff(cfg, table.init(), st)
    assert f"+ /hbase/replication/rs/{S2}/2: znode" in diff.splitlines()
