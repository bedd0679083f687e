"""Plans on the real cluster: the shrunk plan ``replcheck conform`` printed for a cluster mutant
still finds it, and the same plan passes on the correct design (docs/conform.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from replcheck.conformance.search.conform import check_plan, judge
from replcheck.conformance.search.plan import REST_DEAD, Plan, Step, Write

pytestmark = [pytest.mark.slow, pytest.mark.zookeeper]

# Shrunk by `python bench/conform.py --examples 8 --runs 16 --cuts 12` from its first failing
# run (4 servers, 31 writes, a peer added, 6 faults) to one server and one write.
SHIPS_LOCAL = Plan(servers=1, writes=((Write("local", "delete"),),), master_master=False, steps=())


def test_the_shrunk_plan_finds_the_mutant(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="only_global_non_catalog"):
        check_plan("zk-lock/ships-local-scope", SHIPS_LOCAL, tmp_path / "run")


def test_the_shrunk_plan_passes_on_the_correct_design(tmp_path: Path) -> None:
    check_plan("zk-lock", SHIPS_LOCAL, tmp_path / "run")


# HBASE-12865's window, aimed: the peer disabled (a backlog), server #2 killed; its claimer is
# held at its read until the cleaner is held after reading the claimer and before the dead
# server; the claim commits while the cleaner waits. Seed 3: the master sends the claim to a
# server the cleaner reads before the dead one (server #0). The plan leaves the peer disabled:
# the run enables it for the drain once every aimed step is over, the cleaner's pass included,
# so no source ships the moved WAL before the mutant's cleaner has deleted it.
CLAIM_IN_CLEANER_PASS = Plan(
    servers=3,
    writes=tuple(tuple(Write("global", "put") for _ in range(10)) for _ in range(4)),
    steps=(
        Step(after=2, op="disable_peer", peer=0),
        Step(after=18, fault="stall", at="claim_read"),
        Step(after=18, fault="stall", at="cleaner_read", i=REST_DEAD),
        Step(after=18, fault="kill", victim=2),
    ),
)


@pytest.mark.parametrize("design", ["zk-multi/HBASE-12865", "zk-multi"])
def test_the_claim_in_cleaner_pass_window(design: str, tmp_path: Path) -> None:
    out = judge(design, CLAIM_IN_CLEANER_PASS, tmp_path / "run", seed=3)
    log = (tmp_path / "run" / "plan.log").read_text()
    # the cleaner was held having read the claimer and not the dead server, whichever of the
    # two was held first, and the claim committed while it waited
    claimer = int(re.search(r"rs-1\.1\.1\.(\d+),\S* held at claim_read", log)[1]) - 1
    cleaner = json.loads(re.search(r"master held at cleaner_read (\{.*\})", log)[1])
    assert claimer in cleaner["read"] and 2 in cleaner["unread"], log
    assert "stall at cleaner_read let go: a claim committed" in log, log
    if design == "zk-multi":
        assert out.passed, out.why
    else:  # the WAL the claim moved is deleted while the claimer's queue still holds it
        assert not out.passed and out.labels & {"no_wal_deleted_while_queued", "no_lost_edit"}
        assert "premature_deletions" in out.labels, out.why


# Two steps aimed at one point, triggered together: the first kills the claimer held at its
# read; the master sends the claim again, and the second takes that visit, not the process the
# first still holds (before, both took the first's, and a third fault hit it too).
TWO_AT_CLAIM_READ = Plan(
    servers=3,
    writes=tuple(tuple(Write("global", "put") for _ in range(4)) for _ in range(3)),
    steps=(
        Step(after=2, fault="kill", victim=-1, at="claim_read"),
        Step(after=2, fault="kill", victim=-1, at="claim_read"),
        Step(after=2, fault="kill", victim=2),
    ),
)


def test_each_step_aimed_at_a_point_takes_a_visit_of_its_own(tmp_path: Path) -> None:
    out = judge("zk-multi", TWO_AT_CLAIM_READ, tmp_path / "run", seed=1)
    log = (tmp_path / "run" / "plan.log").read_text()
    held = re.findall(r"^step (\d)/3 .*: (rs-\S+) held at claim_read", log, re.M)
    # the second takes a visit of its own: another claimer (the claim sent again), not the one
    # the first still holds while it kills it
    assert [n for n, _ in held] == ["1", "2"] and held[0][1] != held[1][1], log
    assert out.passed, out.why


# A cleaner pass while a crash procedure is held just after its split: server #1 killed, its
# WALs split into oldWALs and its queues neither claimed nor added where missing; its
# replacement joins with the peer disabled, so no queue row is written for it (a table-era row
# is written at a source's first offset), and rolls. The stall lets go once the live servers
# have written their edits and the cleaner has then run a whole pass. The correct cleaner keeps
# a WAL while a queue of its server is missing (seed 004: "if there is a missing queue, then we
# do not delete the file"); the mutant deletes the replacement's archived WAL, and the enable
# finds it gone.
CLEANER_AFTER_SPLIT = Plan(
    servers=2,
    writes=tuple(tuple(Write("global", "put") for _ in range(10)) for _ in range(3)),
    steps=(
        Step(after=0, op="disable_peer", peer=0),
        Step(after=8, fault="stall", at="scp_split"),
        Step(after=8, fault="kill", victim=1),
        Step(after=12, op="enable_peer", peer=0),
    ),
)


@pytest.mark.parametrize("design", ["table/cleaner-missing-queue-deletes", "table", "zk-lock"])
def test_a_cleaner_pass_while_the_crash_procedure_is_held_after_its_split(
    design: str, tmp_path: Path
) -> None:
    out = judge(design, CLEANER_AFTER_SPLIT, tmp_path / "run", seed=2)
    log = (tmp_path / "run" / "plan.log").read_text()
    assert "master held at scp_split" in log, log
    assert "stall at scp_split let go: the cleaner ran a whole pass" in log, log
    if design == "table/cleaner-missing-queue-deletes":
        assert not out.passed and "no_lost_edit" in out.labels, out.why
        assert "premature_deletions" in out.labels, out.why
    else:
        assert out.passed, out.why


# A backlog (peer 0 disabled over most of the writes) while the servers roll and archive their
# WALs: zk-lock's cleaner looks every archived WAL up in the queues and keeps the queued ones;
# the mutant deletes by TTL alone, without the lookup (as the model's mutant: its cache stays as
# it was), and the edits those WALs still owed are lost.
BACKLOG_WHILE_ROLLING = Plan(
    servers=2,
    writes=tuple(tuple(Write("global", "put") for _ in range(30)) for _ in range(2)),
    steps=(Step(after=0, op="disable_peer", peer=0), Step(after=50, op="enable_peer", peer=0)),
)


@pytest.mark.parametrize("design", ["zk-lock/cleaner-skips-lookup", "zk-lock"])
def test_a_backlog_while_the_servers_roll(design: str, tmp_path: Path) -> None:
    out = judge(design, BACKLOG_WHILE_ROLLING, tmp_path / "run")
    if design == "zk-lock":
        assert out.passed, out.why
    else:  # found by the loss itself, not by a lookup the model's mutant does not make
        assert not out.passed and "no_lost_edit" in out.labels, out.why
        assert "premature_deletions" in out.labels, out.why
