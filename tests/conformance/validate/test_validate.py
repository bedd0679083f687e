"""Steps real runs take that their lines do not show, each with the trace that showed it (see
``test_data/validate/README.md``), and an edit of it the validator must still reject."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replcheck.conformance.validate.core import Bounds, validate_events, validate_log, validate_path

DATA = Path(__file__).resolve().parents[3] / "test_data" / "validate"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(tmp_path: Path, events: list[dict], name: str = "trace.jsonl") -> Path:
    out = tmp_path / name
    out.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in events))
    return out


def test_a_master_restart_between_a_cleaner_runs_deletes() -> None:
    """zk-multi's cleaner decided three WALs, deleted one (its line), a second without a line
    (killed just after the delete) and a restart abandoned the third, which the next run lists."""
    events = _lines(DATA / "zk-multi-restart-mid-deletes.jsonl")
    restart = [e for e in events if (e.get("detail") or {}).get("fault") == "master-restart"]
    assert len(restart) == 1
    v = validate_path(DATA / "zk-multi-restart-mid-deletes.jsonl")
    assert v.status == "accepted", v.headline()


def test_without_the_restart_the_abandoned_delete_is_a_divergence(tmp_path: Path) -> None:
    events = [
        e
        for e in _lines(DATA / "zk-multi-restart-mid-deletes.jsonl")
        if (e.get("detail") or {}).get("fault") != "master-restart"
    ]
    v = validate_path(_write(tmp_path, events))
    assert v.status == "rejected" and v.reason == "divergence", v.headline()


def test_a_server_killed_while_it_started_adds_nothing_to_the_cleaners_read() -> None:
    v = validate_path(DATA / "zk-multi-killed-while-starting.jsonl")
    assert v.status == "accepted", v.headline()


def test_a_read_of_a_server_with_queues_is_not_made_up(tmp_path: Path) -> None:
    """Only a server whose znode holds no queue may go unread by the real cleaner: drop the
    record of a read of one with queues and the cleaner's decision no longer fits."""
    events = _lines(DATA / "zk-multi-killed-while-starting.jsonl")
    n = next(
        i for i, e in enumerate(events) if e["name"] == "cleaner_read" and e["args"]["server"] == 0
    )
    v = validate_path(_write(tmp_path, events[:n] + events[n + 1 :]))
    assert v.status == "rejected" and v.reason == "divergence", v.headline()


def _lost_batch(events: list[dict]) -> int:
    """The line of the batch the paused sender wrote after its pause: take it away and its
    batch is one the sender never recorded."""
    return next(
        i
        for i, e in enumerate(events)
        if e["name"] == "ship"
        and e["proc"] == "rs-1.1.1.5,60020,123456820"
        and e["detail"]["uids"] == ["0.4.3.27"]
    )


def test_a_batch_its_stopped_sender_never_recorded(tmp_path: Path) -> None:
    events = _lines(DATA / "zk-multi-lost-peer-sync" / "trace.jsonl")
    n = _lost_batch(events)
    assert events[n + 1]["name"] == "fenced"  # the sender never wrote another step
    run = tmp_path / "run"
    run.mkdir()
    _write(run, events[:n] + events[n + 1 :])
    (run / "zk-txnlog").symlink_to(DATA / "zk-multi-lost-peer-sync" / "zk-txnlog")
    v = validate_path(run)
    assert v.status == "accepted", v.headline()


def test_a_sink_cannot_apply_an_edit_no_source_ships(tmp_path: Path) -> None:
    """The same batch, but the sink says it applied the sender's LOCAL edit."""
    events = _lines(DATA / "zk-multi-lost-peer-sync" / "trace.jsonl")
    n = _lost_batch(events)
    events = events[:n] + events[n + 1 :]
    apply = next(
        e for e in events if e["name"] == "sink_apply" and e["detail"].get("uids") == ["0.4.3.27"]
    )
    local = next(
        e["detail"]["uid"]
        for e in events
        if e["name"] == "put"
        and e["proc"] == "rs-1.1.1.5,60020,123456820"
        and e["detail"]["family"] == "l"
    )
    apply["detail"]["uids"] = [local]
    run = tmp_path / "run"
    run.mkdir()
    _write(run, events)
    (run / "zk-txnlog").symlink_to(DATA / "zk-multi-lost-peer-sync" / "zk-txnlog")
    v = validate_path(run)
    assert v.status == "rejected", v.headline()


def test_a_removed_peers_source_may_lose_the_wals_the_cleaner_no_longer_keeps() -> None:
    """The cleaner read the peers after a RemovePeerProcedure's storage update and deleted WALs
    the removed peer's source, not yet stopped by its refresh, still had queued: nothing owed
    is lost, and the run is a behaviour of the model with every property holding."""
    v = validate_path(DATA / "table-removed-peer-source")
    assert v.status == "accepted", v.headline()
    assert v.detail["crashes_from_txn_log"] == 3


def test_an_edit_written_to_two_wals_says_nothing_of_either_wals_order() -> None:
    """Edit ``1.10`` came home to a server that died before answering (written to its WAL) and
    was sent again to another: a claimer shipped it from the dead server's WAL to a peer before
    that peer had the other WAL's earlier edits. ``sink_in_order`` holds."""
    v = validate_path(DATA / "table-edit-in-two-wals")
    assert v.status == "accepted", v.headline()


def test_the_master_log_cleaner_is_a_lane_of_its_own() -> None:
    """The cleaner chore runs beside the master's procedures: the order of a cleaner event and a
    procedure event in the master's file says nothing (only zxids and read windows order them)."""
    from replcheck.conformance.trace.events import lane

    def ev(name: str, proc: str = "master") -> dict:
        return {"name": name, "proc": proc, "args": {}, "pid": 1}

    assert lane(ev("cleaner_read")) == lane(ev("wal_deleted")) == ("master", "cleaner")
    assert lane(ev("scp_finish")) == lane(ev("remove_peer")) == ("master",)
    assert lane(ev("cleaner_read", "rs-1.1.1.1,60020,123456780")) != ("master", "cleaner")


def test_a_zombie_ships_a_batch_it_read_before_its_wal_was_deleted() -> None:
    """A paused server's shipper had read a batch of its first WAL; the claimer shipped the rest,
    the cleaner deleted the WAL, then the zombie woke and sent the batch (a duplicate)."""
    v = validate_path(DATA / "zk-lock-zombie-ships-deleted-wal.jsonl")
    assert v.status == "accepted", v.headline()


def test_a_claimer_behind_a_peer_removal_drops_the_queue_it_copied() -> None:
    """zk-lock: the claimer copied a queue of a peer removed just before, started its source,
    and the source found the peer gone and deleted the queue; the model drops it at the claim."""
    v = validate_path(DATA / "zk-lock-claimer-behind-peer-removal.jsonl")
    assert v.status == "accepted", v.headline()


@pytest.mark.parametrize(
    "run",
    [
        "zk-multi-relay-sent-again-after-restart",
        "table-relay-sent-again-to-same-server",
    ],
)
def test_an_edit_coming_home_is_applied_again_after_the_other_cluster_restarts(run: str) -> None:
    """The other cluster was stopped after one of our servers applied an edit it sent, before it
    persisted how far it had sent (with or without the answer's line): restarted, it sent the
    edit again. The first application is ``relay_apply``, the other cluster's position unmoved."""
    v = validate_path(DATA / run)
    assert v.status == "accepted", v.headline()
    assert [a.name for a in v.behaviour].count("relay_apply") == 1


def test_a_queue_created_just_before_an_expiry_is_read_back_before_the_crash() -> None:
    """zk-multi: a server created its queue and lost its session before the queue's line; the
    write is read back from the log and placed before the crash whose session ended after it."""
    v = validate_path(DATA / "zk-multi-lost-queue-before-expiry")
    assert v.status == "accepted", v.headline()
    assert v.detail["from_txn_log"] == 1


@pytest.mark.parametrize(
    "run",
    ["table-joined-between-claim-reads-and-write", "table-died-between-claim-reads-and-write"],
)
@pytest.mark.parametrize("logs", [False, True], ids=["trace", "zk-logs"])
def test_a_claim_round_is_taken_at_its_reads(run: str, logs: bool) -> None:
    """table: a server joined (or died) between the master's reads for a CLAIM round and the
    round's write; the round is the model's step at its reads, from the trace and from the log."""
    v = validate_log(DATA / run, "table") if logs else validate_path(DATA / run)
    assert v.status == "accepted", v.headline()
    assert "arqp_claim" in [a.name for a in v.behaviour]


def test_a_claim_round_taken_at_its_write_does_not_fit() -> None:
    """The same trace with the round's reads placed at its write (the window closed on it): the
    model's round reads two online servers there and sends both queues, not one."""
    lines = (DATA / "table-joined-between-claim-reads-and-write" / "trace.jsonl").read_text()
    events = [json.loads(x) for x in lines.splitlines()]
    for e in events:
        if e["name"] == "arqp_claim":
            e["detail"] = {**e.get("detail", {}), "read": [e["zxid"] - 1, e["zxid"] - 1]}
    v = validate_events(events, "table")
    assert (v.status, v.reason, v.event) == ("rejected", "divergence", 212), v.headline()


def test_a_mutant_run_is_judged_by_its_bug_past_what_the_cluster_did_around_it() -> None:
    """A conform run of zk-multi/recovered-restarts-at-zero: a paused server, woken, writes an
    edit coming home that the other cluster had since given to another server (line 92); a
    server's session expires with no fault aimed at it (the machine was loaded), which only the
    txn log records, while another is killed, so every server is down at once. Past all three,
    the run is rejected for the mutant's own bug: a recovered source's position going back."""
    v = validate_path(DATA / "zk-multi-mutant-all-servers-down")
    assert (v.status, v.reason, v.event) == ("rejected", "positions_monotone", 159), v.headline()
    assert v.detail["from_txn_log"] == 1


def test_a_server_started_during_an_add_peer_knows_the_peer_before_its_refresh() -> None:
    """table: server 3 went live between AddPeer's PRE and its storage update, then read the peers
    (the new one in storage) and shipped to it before the refresh the procedure sent it."""
    v = validate_path(DATA / "table-joined-during-add-peer.jsonl")
    assert v.status == "accepted", v.headline()


def test_a_zombies_append_after_its_wal_was_finished_is_a_lost_edit() -> None:
    """zk-lock: found by conform (docs/findings.md); the model's verdict, pinned."""
    v = validate_path(DATA / "zk-lock-zombie-append-after-recovered-finish")
    assert (v.status, v.reason, v.event) == ("rejected", "no_lost_edit", 87), v.headline()


def test_a_batch_lost_to_one_peer_while_the_same_edit_reached_another() -> None:
    """The server sent edit 0.0.1.15 to both peers; the second peer's sink applied it and the
    server was killed before that batch's line. The first peer's batch names the edit: the
    lost batch is told by the peer it went to, not by the edit alone."""
    run = DATA / "zk-multi-lost-ship-to-one-peer"
    events = _lines(run / "trace.jsonl")
    ships = [
        e["detail"]["queue"]
        for e in events
        if e["name"] == "ship"
        and "0.0.1.15" in e["detail"]["uids"]
        and e["proc"] == "rs-1.1.1.1,60020,123456780"
    ]
    assert ships == ["3"]  # no line of the batch to peer 2
    v = validate_path(run)
    assert v.status == "accepted", v.headline()


def test_a_write_whose_line_came_late_is_put_before_the_read_that_saw_it() -> None:
    """A joining server queued itself for a peer (zxid 0x100000133) and was paused before its
    line; the cleaner's next read, served after that zxid, listed the queue. The late line's
    step happened before the read: the search must reach it first, whatever its stamp."""
    run = DATA / "zk-multi-paused-line-seen-by-a-read"
    events = _lines(run / "trace.jsonl")
    n = next(i for i, e in enumerate(events) if e["zxid"] == 0x100000133)
    read = next(
        i
        for i, e in enumerate(events)
        if e["name"] == "cleaner_read" and e["detail"]["read"][0] >= 0x100000133
    )
    assert events[n]["t"] > events[read]["t"] + 1.0  # stamped well after the read
    v = validate_path(run)
    assert v.status == "accepted", v.headline()


def test_another_runs_session_closing_in_a_shared_ensemble_is_not_a_crash() -> None:
    """table, recorded on the test suite's shared ZooKeeper right after a zk-lock run: that
    run's servers, stopped, lost their sessions during this one, and their ``closeSession``s
    delete live znodes named like this run's servers, in the zk-lock run's chroot. They are not
    this run's crashes (read as such, the run was rejected at a refresh its live server made)."""
    v = validate_path(DATA / "table-other-run-session-closes")
    assert v.status == "accepted", v.headline()
    assert "from_txn_log" not in v.detail


def test_a_claim_round_whose_reads_waited_out_a_leader_election() -> None:
    """The master read the online servers for a CLAIM round (server 0 alone), a server joined
    (zxid 0x100000041), a ZooKeeper leader election held the round's last read for a second, and
    the round sent its one claim to server 0. The round is the model's step at its reads, and
    it is placed by the last write its reads saw, not by its line stamped after the election:
    the search takes it before the join without spending a reordering."""
    run = DATA / "table-claim-reads-across-leader-election"
    events = _lines(run / "trace.jsonl")
    claim = next(e for e in events if e["name"] == "arqp_claim" and e["args"]["targets"] == [0])
    join = next(e for e in events if e["name"] == "join" and e["zxid"] == 0x100000041)
    lo, hi = claim["detail"]["read"]
    assert lo < join["zxid"] < hi and claim["t"] > join["t"] + 1.0
    v = validate_path(run)
    assert v.status == "accepted", v.headline()


def test_a_relayed_edit_written_before_its_server_joined_is_a_divergence() -> None:
    """zk-lock, a soak run: a restarted server's sink wrote an edit the other cluster relayed
    home (its ``sink_apply``, line 72) before the server's queue znode existed (its ``join``,
    line 82, after a leader election). In the model a server that has not joined takes no step;
    in HBase the sink starts after ``setupWALAndReplication``. A reference-cluster bug, fixed
    (``tests/conformance/cluster/test_regionserver.py``); the trace is rejected there. Its ZooKeeper
    log alone shows no sink's write, so read from the log the run is accepted: a step the log does
    not show."""
    run = DATA / "zk-lock-relay-before-join"
    v = validate_path(run)
    assert (v.status, v.reason, v.event) == ("rejected", "divergence", 71), v.headline()
    events = _lines(run / "trace.jsonl")
    assert events[71]["name"] == "sink_apply" and events[81]["name"] == "join"
    assert events[71]["proc"] == events[81]["proc"]
    assert validate_log(run, "zk-lock").status == "accepted"


def test_a_line_that_changes_nothing_spends_no_reordering() -> None:
    """zk-multi, a soak run: the cleaner's cversion check of its second round (line 111,
    ``retry: false``, read window ``[0x35, 0x36]``) was served before the master's SCP thread
    deleted the dead server's znode (line 110, zxid ``0x36``), so it must be matched first: a
    reordering. The driver's ``admin add_peer`` note (line 117), a line that changes nothing in
    the model, was ready at that point and consumed at once; doing so used to leave the node no
    reordering, and the run was rejected at the check."""
    run = DATA / "zk-multi-cleaner-check-before-scp-delete"
    events = _lines(run / "trace.jsonl")
    assert [events[n]["name"] for n in (109, 110, 116)] == ["scp_finish", "cleaner_finish", "note"]
    v = validate_path(run)
    assert v.status == "accepted", v.headline()
    no_reordering = validate_events(events, "zk-multi", bounds=Bounds(reorder=0))
    assert (no_reordering.status, no_reordering.event) == ("rejected", 110)


def test_a_cleaner_read_between_a_claim_and_its_drop_is_accepted() -> None:
    """zk-multi, a soak run recorded after the last cluster fix: a server claimed a removed
    peer's queue (line 302, one ``multi``) and deleted it in a second write (line 309), as HBase
    does; the master's cleaner read the claimer's queues between the two (line 304). The model
    once took the claim and the drop as one step and rejected the run at line 304; its claimer's
    delete is now a step of its own (``drop_claimed_queue``), the note at line 309."""
    run = DATA / "zk-multi-cleaner-reads-claimed-queue-before-drop"
    events = _lines(run / "trace.jsonl")
    assert [events[n]["name"] for n in (301, 303, 308)] == ["claim_commit", "cleaner_read", "note"]
    assert events[308]["detail"]["what"] == "claimed queue dropped"
    claimed = events[301]["detail"]["queue"]
    assert events[308]["detail"]["queue"] == claimed
    assert events[301]["zxid"] <= events[303]["detail"]["read"][1] < events[308]["zxid"]
    v = validate_path(run)
    assert v.status == "accepted", v.headline()
    assert validate_log(run, "zk-multi").status == "accepted"


def test_a_cleaner_listing_a_claimed_queue_its_claimer_then_drops_is_accepted() -> None:
    """zk-multi, a soak run recorded with the cleaner's queue reads as lines of their own: the
    cleaner listed server 3's queues (line 293) just after its claim of a removed peer's queue
    (line 292), the claimer deleted that queue (line 294), and the cleaner then read the queues
    one by one, the deleted one last, finding nothing in it (line 299). Neither the claimer's
    delete nor the reads of one listing are one step of the model (``drop_claimed_queue``,
    ``cleaner_read_queue``); from the trace and from the log alone the run is accepted."""
    run = DATA / "zk-multi-cleaner-lists-a-claimed-queue-before-its-drop"
    events = _lines(run / "trace.jsonl")
    names = [events[n]["name"] for n in (291, 292, 293, 298)]
    assert names == ["claim_commit", "cleaner_read", "drop_claimed_queue", "cleaner_read_queue"]
    claimed = events[291]["detail"]["queue"]
    assert claimed in events[292]["detail"]["queues"]
    assert events[293]["detail"]["queue"] == claimed == events[298]["detail"]["queue"]
    assert (
        events[292]["detail"]["read"][1] < events[293]["zxid"] <= events[298]["detail"]["read"][0]
    )
    assert events[298]["detail"]["wals"] == []
    v = validate_path(run)
    assert v.status == "accepted", v.headline()
    assert validate_log(run, "zk-multi").status == "accepted"


def test_a_cleaner_read_recorded_as_one_line_per_server_is_read_at_its_listing() -> None:
    """zk-multi, a soak run: the master's cleaner read a server's queues znode by znode (as
    HBase does), one before and one after a recovered queue's end deleted it (lines 233, 234),
    and saw a WAL of the first and none of the second. The model's cleaner reads queue by queue
    now, but this trace, recorded before the cluster wrote a line per queue read, says only when
    the server's read began and ended: the model reads every queue at the listing, so the trace
    stays rejected at the read (line 235; test_data/validate/README.md)."""
    run = DATA / "zk-multi-cleaner-reads-queues-one-by-one"
    events = _lines(run / "trace.jsonl")
    assert [events[n]["name"] for n in (232, 233, 234)] == ["finish", "finish", "cleaner_read"]
    lo, hi = events[234]["detail"]["read"]
    assert lo < events[232]["zxid"] < events[233]["zxid"] <= hi
    assert events[232]["detail"]["wal"] in events[234]["detail"]["wals"]
    assert events[233]["detail"]["wal"] not in events[234]["detail"]["wals"]
    v = validate_path(run)
    assert (v.status, v.reason, v.event) == ("rejected", "divergence", 234), v.headline()
    assert validate_log(run, "zk-multi").status == "accepted"


def test_a_step_that_does_not_fit_the_runs_layout_makes_a_rejection_undecided() -> None:
    """On the plain interpreter the layout is sized from the run: a layout whose WALs hold one
    entry cannot hold the run's second write to a WAL, the search cannot follow it, and the
    trace, which no behaviour then consumes, is undecided (never rejected) and says why."""
    import dataclasses

    from replcheck.conformance.hbase.names import Steps
    from replcheck.conformance.trace.reader import read_trace
    from replcheck.conformance.validate.core import derive_config
    from replcheck.conformance.validate.mapping import promote
    from replcheck.model import get_design
    from replcheck.model.engine.plain import PlainModel

    trace = read_trace(Path("traces/golden/zk-lock-master-restart.jsonl"), None)
    design = get_design(trace.design)
    cfg = derive_config(trace.design, promote(trace.events, design), Steps.for_model(design))
    assert cfg.wal_entries > 1
    small = dataclasses.replace(cfg, wal_entries=1)
    v = validate_events(trace.events, trace.design, cfg=small, engine=PlainModel)
    assert v.status == "undecided"
    assert "did not fit the layout sized from the trace" in v.reason
    assert v.detail["overflows"] > 0
