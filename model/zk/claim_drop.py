"""A ZooKeeper-era claimer's second write, in the protocol text's form (``model/engine/step.py``).

A claimer that finds, after its claim, that the claimed queue's peer is gone starts no source for
it and deletes the queue in a write of its own (reference section 4: "if getPeer(peerId) is not
oldPeer: removeQueue(claimedId)"; HBASE-17077). Between the claim and the delete the queue is in
the claimer's znode, where a log cleaner reading at that moment finds it, and where a claimer
that dies in between leaves it for the next one.

The layout marks such a queue with the slot ``drop_claimed[server, peer, queue]`` when the claim
starts its sources (``start_recovered``) and provides ``drop_queue``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.step import Ctx, step


def _drops(text: Any) -> list[tuple[int, int, int]]:
    return [(s, p, ci) for s in text.S for p in text.P for ci in text.CH]


def _index(text: Any, st: Any, get: Any, a: tuple) -> tuple:
    """The action's arguments: the server and the queue's place among its marked ones."""
    s, p, ci = a
    return (s, st.servers[s].drops.index((p, text.chains[ci])))


class ClaimDrops:
    """``drop_claimed_queue`` (the layout provides ``S``, ``P``, ``CH``, ``chains`` and
    ``drop_queue``)."""

    S: range
    P: range
    CH: range
    chains: list[tuple[int, ...]]
    drop_queue: Any

    @step(params=("server", "queue"), fair=True, each=_drops, label=_index)
    def drop_claimed_queue(self, t: Ctx, s: int, p: int, ci: int) -> None:
        """a claimer deletes a claimed queue whose peer is gone (removeQueue)"""
        t.require(t.drop_claimed[s, p, ci])
        t.drop_claimed[s, p, ci] = False
        self.drop_queue(t.ops, t, True, s, p, ci)
