"""zk-multi's claimer and log cleaner (``model/zk/multi.py``, ``model/zk/common.py``) step by
step: the writes and reads HBase makes apart are steps apart."""

from __future__ import annotations

from replcheck.model import Model, get_design
from replcheck.model.common.state import READING
from replcheck.model.engine.action import Action

from replcheck.matrix import resolve_config
from replcheck.report import parse_actions


def _run(config: str, actions: str) -> tuple[Model, list]:
    model = Model(get_design("zk-multi"), resolve_config(config))
    states = [model.init()]
    for action in parse_actions(actions):
        assert action in model.enabled(states[-1]), action
        states.append(model.step(states[-1], action))
    return model, states


def test_a_claimed_queue_of_a_removed_peer_waits_in_the_claimers_znode_for_its_delete() -> None:
    """Reference section 4: after the claim's ``multi``, "if getPeer(peerId) is not oldPeer:
    removeQueue(claimedId)", a write of its own: a cleaner reading in between finds the queue."""
    actions = (
        "crash(0); remove_peer(0); archive(0, 0, 0); claim_read(1, 0, 0); claim_commit(1); "
        "cleaner_start(); cleaner_read(1)"
    )
    model, states = _run("peers:cleaner_runs=1", actions)
    claimed = states[5]
    srv = claimed.servers[1]
    assert srv.drops == ((0, (0,)),)
    assert not [sh for sh in srv.shippers if sh.chain]
    assert any(q.chain == (0,) for q in claimed.rs[1].queues)
    listed = states[-1].cleaner.listed
    i = listed.index((1, 0, (0,)))
    read = model.step(states[-1], Action("cleaner_read_queue", (1, i)))
    assert (0, 0, 0) in read.cleaner.seen
    dropped = model.step(read, Action("drop_claimed_queue", (1, 0)))
    assert dropped.servers[1].drops == ()
    assert not any(q.chain for q in dropped.rs[1].queues)


def test_the_cleaner_reads_the_queues_it_listed_as_they_are_when_it_reads_each() -> None:
    """``getAllQueues`` then ``getWALsInQueue`` per queue: a recovered queue that ends between
    the listing and its read gives nothing, and a queue made after the listing is not read."""
    actions = (
        "crash(0); archive(0, 0, 0); claim_read(1, 0, 0); claim_commit(1); cleaner_start(); "
        "cleaner_read(1)"
    )
    model, states = _run("std", actions)
    listing = states[-1]
    assert listing.cleaner.phase == READING
    assert sorted(listing.cleaner.listed) == [(1, 0, ()), (1, 0, (0,))]
    assert Action("cleaner_read", (0,)) not in model.enabled(listing)
    assert Action("cleaner_finish", ()) not in model.enabled(listing)
    recovered = next(i for i, sh in enumerate(listing.servers[1].shippers) if sh.chain == (0,))
    ended = model.step(listing, Action("finish", (1, recovered)))
    assert not any(q.chain for q in ended.rs[1].queues)
    i = ended.cleaner.listed.index((1, 0, (0,)))
    read = model.step(ended, Action("cleaner_read_queue", (1, i)))
    assert read.cleaner.seen == () and read.cleaner.listed == ((1, 0, ()),)
