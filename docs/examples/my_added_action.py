"""A reviewer's mutants that add to the protocol text: a new action, and a new choice in a step.

    F=docs/examples/my_added_action.py
    replcheck list    --design-file $F --steps
    replcheck explore --design-file $F --design zk-multi/tool-drops-dead-queue
    replcheck explore --design-file $F --design zk-lock/cleaner-may-skip-lookup --engine c
    replcheck fuzz    --design-file $F --design zk-multi/tool-drops-dead-queue
    replcheck prove   --design-file $F --design zk-multi/tool-drops-dead-queue --depth 4
    replcheck check   --design-file $F

``ToolDropsDeadQueue`` adds an action: an operator's repair tool (think of HBCK's replication
fix, which deletes the queues of peers that no longer exist) that also deletes the queue of a
region server that died and whose queues nobody has claimed yet. Its text class defines the new
``@step`` and nothing else; the mutant declares it in ``adds`` and overrides nothing. The
registry refuses an added name the base text already has, and a text that defines anything it
does not declare.

``CleanerMaySkipLookup`` adds a choice inside a step: it overrides zk-lock's ``clean`` with one
more parameter, ``lookup`` (1: look every queue up, as the base does; 0: trust the TTL alone).
Each WAL's step now has two instances, and every engine explores both: the choice is a
structural argument, listed by ``each`` and fixed in each instance, so the body may branch on it
in Python. ``label`` gives the action the arguments traces know it by, the new one last.

Both read and write the state by its families' names (``t.queue_znode[d, p, 0]``,
``t.wal_place[w] = DELETED``), declared in ``model/zk/families.py`` and
``model/common/families.py``.
"""

from typing import Any

from replcheck.model.common.state import ARCHIVED, DELETED
from replcheck.model.engine.step import Ctx, step
from replcheck.model.zk.claims import MultiClaims
from replcheck.model.zk.cleaners import LockCleaner
from replcheck.model.zk.lock import ZkLock
from replcheck.model.zk.multi import ZkMulti


class RepairTool(MultiClaims):
    @step(
        params=("dead", "peer"),
        fair=False,
        each=lambda text: [(d, p) for d in text.S for p in text.P],
    )
    def tool_drop_queue(self, t: Ctx, d: int, p: int) -> None:
        """a repair tool deletes a dead server's unclaimed queue of a peer"""
        t.require(t.ops.not_(t.server_alive[d]), t.queue_znode[d, p, 0])
        self.drop_queue(t.ops, t.writes(), True, d, p, 0)


class ToolDropsDeadQueue(ZkMulti):
    name = "zk-multi/tool-drops-dead-queue"
    mutant_of = "zk-multi"
    adds = ("tool_drop_queue",)
    text = RepairTool
    configs = ("std",)
    bug = (
        "A repair tool deletes the replication queue of a dead region server before anyone "
        "claimed it; seed 000: a dead server's queues are 'transferred' to a live one, so the "
        "edits in its WALs that were not shipped yet are never replicated."
    )


def _clean_each(text: Any) -> list[tuple[int, int]]:
    return [(w, lookup) for w in text.W for lookup in (0, 1)]


def _clean_label(text: Any, st: Any, get: Any, a: tuple) -> tuple[int, int, int, int]:
    return (*text.key[a[0]], a[1])


class SkipsLookup(LockCleaner):
    @step(
        params=("server", "group", "seq", "lookup"),
        fair=False,
        each=_clean_each,
        label=_clean_label,
    )
    def clean(self, t: Ctx, w: int, lookup: int) -> None:
        """log cleaner: TTL passed; look the WAL up, or trust the TTL alone"""
        t.require(t.wal_exists[w], t.wal_place[w] == ARCHIVED, t.ops.not_(t.cleaner_cache[w]))
        if lookup:
            self.clean_wal(t.ops, t.writes(), w)
        else:
            t.wal_place[w] = DELETED


class CleanerMaySkipLookup(ZkLock):
    name = "zk-lock/cleaner-may-skip-lookup"
    mutant_of = "zk-lock"
    overrides = "clean"
    text = SkipsLookup
    configs = ("std",)
    bug = (
        "The log cleaner sometimes deletes a WAL past its TTL without looking the queues up; "
        "seed 003: 'archived logs passed their TTL may still be in a queue'."
    )
