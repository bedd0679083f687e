"""The master's log cleaner in each ZooKeeper-era design, in the protocol text's form
(``model/engine/step.py``):

* ``zk-multi`` (HBASE-12865's fix, reference section 3a): a run lists the archived WALs
  (``cleaner_start``), reads each server's znode by listing its queues (``cleaner_read``) and
  reading each of them (``cleaner_read_queue``), and, if the cversion of ``/rs`` did not move
  meanwhile, decides which listed WALs no queue named (``cleaner_finish``; else it reads again);
  the files go one by one (``cleaner_delete_wal``). A master restart (``master_restart``, a
  recorded run's) abandons a run in progress: the snapshot was in the master's memory.
* ``zk-lock`` (seed 003): a WAL past its TTL is looked up in every queue, the found ones cached,
  and deleted if not found (``clean``; the lookup is the layout's ``clean_wal``). A master
  restart loses the cache. With ``cleaner_chore`` the lookup is the chore's pass over oldWALs
  (``chore_clean``, fair), as HBase 0.94's ``ReplicationLogCleaner`` ran under the master's
  ``LogCleaner``: the cache lives across the chore's runs, a cached WAL is kept without a
  lookup, and only a miss (a WAL not in the cache) refreshes it.

The layout provides the cleaner's slots (``phase``, ``changed``, ``cand``, ``seen``, ``cache``,
``read``, ``lst``), ``queued_anywhere`` and ``may_delete``.
"""

from __future__ import annotations

from typing import Any

from replcheck.model.common.cleaner_runs import run_left, spend_run
from replcheck.model.common.state import ARCHIVED, DELETED, DELETING, IDLE, READING
from replcheck.model.engine.names import named
from replcheck.model.engine.step import Ctx, step
from replcheck.model.engine.text import any_of


def _listed(text: Any, st: Any, get: Any, a: tuple) -> tuple[int, int]:
    """(server, the queue's index in the run's listing)."""
    s, p, ci = a
    return (s, st.cleaner.listed.index((s, p, text.chains[ci])))


def _wal_key(text: Any, st: Any, get: Any, a: tuple) -> tuple[int, int, int]:
    return text.key[a[0]]


def _lookups(text: Any) -> list[tuple[int]]:
    """The WALs the unscheduled lookup (``clean``) may take: every one, unless the cleaner runs
    as the chore (then ``chore_clean`` takes them)."""
    return [] if text.cfg.cleaner_chore else [(w,) for w in text.W]


def _chore_lookups(text: Any) -> list[tuple[int]]:
    """The WALs the chore's pass takes: every one, with ``cleaner_chore``."""
    return [(w,) for w in text.W] if text.cfg.cleaner_chore else []


def _restarts(text: Any) -> list[tuple[()]]:
    """The master restart's one instance, where the configuration has master restarts (a
    recorded run's: they are not counted down)."""
    return [()] if text.cfg.master_restarts else []


class MultiCleaner:
    """zk-multi's cversion-checked snapshot (the layout provides ``S``, ``P``, ``CH``, ``W``,
    ``key`` and ``may_delete``)."""

    S: range
    P: range
    CH: range
    W: range
    key: list[tuple[int, int, int]]
    may_delete: Any
    cfg: Any

    def listing(self, ops: Any, get: Any) -> Any:
        """Some server's queues are listed and not all read yet."""
        return any_of(
            ops,
            (named(get).cleaner_listed[s, p, ci] for s in self.S for p in self.P for ci in self.CH),
        )

    @step(params=(), fair=False, each=_restarts)
    def master_restart(self, t: Ctx) -> None:
        """the master restarts: a cleaner run in progress is lost"""
        t.cleaner_snapshot_phase = IDLE
        t.cleaner_rs_changed = False
        for w in self.W:
            t.cleaner_candidate[w] = False
            t.cleaner_seen[w] = False
            t.cleaner_cache[w] = False
        for s in self.S:
            t.cleaner_read_rs[s] = False
            for p in self.P:
                for ci in self.CH:
                    t.cleaner_listed[s, p, ci] = False

    @step(params=(), fair=True, each=lambda text: [()])
    def cleaner_start(self, t: Ctx) -> None:
        """log cleaner: list oldWALs, begin the snapshot"""
        ops = t.ops
        archived = ops.or_(*(ops.and_(t.wal_exists[w], t.wal_place[w] == ARCHIVED) for w in self.W))
        t.require(*run_left(t, self.cfg), t.cleaner_snapshot_phase == IDLE, archived)
        spend_run(t, self.cfg)
        t.cleaner_snapshot_phase = READING
        t.cleaner_rs_changed = False
        for w in self.W:
            t.cleaner_candidate[w] = ops.and_(t.wal_exists[w], t.wal_place[w] == ARCHIVED)
            t.cleaner_seen[w] = False
            t.cleaner_cache[w] = False
        for s in self.S:
            t.cleaner_read_rs[s] = False

    @step(params=("server",), fair=True, each=lambda text: [(s,) for s in text.S])
    def cleaner_read(self, t: Ctx, s: int) -> None:
        """log cleaner: list the queues of one /rs/<server>"""
        ops = t.ops
        t.require(t.cleaner_snapshot_phase == READING)
        t.require(ops.not_(t.cleaner_read_rs[s]))
        t.require(ops.not_(self.listing(ops, t.get)))
        t.cleaner_read_rs[s] = True
        for p in self.P:
            for ci in self.CH:
                t.cleaner_listed[s, p, ci] = t.queue_znode[s, p, ci]

    @step(
        params=("server", "queue"),
        fair=True,
        each=lambda text: [(s, p, ci) for s in text.S for p in text.P for ci in text.CH],
        label=_listed,
    )
    def cleaner_read_queue(self, t: Ctx, s: int, p: int, ci: int) -> None:
        """log cleaner: read the WALs of one listed queue"""
        ops = t.ops
        t.require(t.cleaner_listed[s, p, ci])
        t.cleaner_listed[s, p, ci] = False
        for w in self.W:
            found = ops.and_(
                t.cleaner_candidate[w], t.queue_znode[s, p, ci], t.queue_has_wal[s, p, ci, w]
            )
            t.cleaner_seen[w] = ops.or_(t.cleaner_seen[w], found)

    @step(params=(), fair=True, each=lambda text: [()])
    def cleaner_finish(self, t: Ctx) -> None:
        """log cleaner: retry if the cversion moved, else decide"""
        ops = t.ops
        t.require(t.cleaner_snapshot_phase == READING)
        t.require(*(t.cleaner_read_rs[s] for s in self.S))
        t.require(ops.not_(self.listing(ops, t.get)))
        changed = t.cleaner_rs_changed
        keep = ops.not_(changed)
        seen = {w: t.cleaner_seen[w] for w in self.W}
        doomed = {
            w: ops.and_(
                keep,
                t.cleaner_candidate[w],
                t.wal_place[w] == ARCHIVED,
                self.may_delete(ops, w, seen),
            )
            for w in self.W
        }
        for s in self.S:
            t.cleaner_read_rs[s] = False
        for w in self.W:
            t.cleaner_seen[w] = False
            t.when(keep).cleaner_candidate[w] = doomed[w]
        t.cleaner_rs_changed = False
        deleting = ops.ite(ops.or_(*doomed.values()), DELETING, IDLE)
        t.cleaner_snapshot_phase = ops.ite(changed, READING, deleting)

    @step(
        params=("server", "group", "index"),
        fair=True,
        each=lambda text: [(w,) for w in text.W],
        label=_wal_key,
    )
    def cleaner_delete_wal(self, t: Ctx, w: int) -> None:
        """log cleaner: delete one WAL the run decided it may delete"""
        ops = t.ops
        t.require(t.cleaner_candidate[w])
        t.require(t.cleaner_snapshot_phase == DELETING)
        t.wal_place[w] = DELETED
        t.cleaner_candidate[w] = False
        rest = ops.or_(*(t.cleaner_candidate[v] for v in self.W if v != w))
        t.cleaner_snapshot_phase = ops.ite(rest, DELETING, IDLE)


class LockCleaner:
    """zk-lock's lookup with a cache (the layout provides ``W``, ``queued_anywhere`` and
    ``may_delete``).

    HBase 0.94's ``ReplicationLogCleaner.isLogDeletable`` holds the cache (``hlogs``) for as
    long as the master runs: a WAL in it is kept with no lookup ("At some point in the future
    we will refresh the list and it will be gone"); a miss clears it and reads the queues again
    (``refreshHLogsAndSearch``). So the cache is refreshed per miss, never per chore run; the
    per-run read came later (``getDeletableFiles`` reading ``loadWALsFromQueues`` once per
    run, zk-multi's cleaner)."""

    W: range
    queued_anywhere: Any
    may_delete: Any

    @step(params=(), fair=False, each=_restarts)
    def master_restart(self, t: Ctx) -> None:
        """the master restarts: the cleaner's cache is lost"""
        for w in self.W:
            t.cleaner_cache[w] = False

    @step(
        params=("server", "group", "seq"),
        fair=False,
        each=_lookups,
        label=_wal_key,
    )
    def clean(self, t: Ctx, w: int) -> None:
        """log cleaner: TTL passed, look the WAL up"""
        t.require(t.wal_exists[w], t.wal_place[w] == ARCHIVED, t.ops.not_(t.cleaner_cache[w]))
        self.clean_wal(t.ops, t.writes(), w)

    chore_clean = step(
        params=("server", "group", "seq"), fair=True, each=_chore_lookups, label=_wal_key
    )(clean.body)
    """The chore's pass (``cleaner_chore``): ``clean``'s lookup, taken whenever a WAL past its
    TTL is not in the cache, for ever (HBase's ``LogCleaner`` chore asks the delegate of every
    file of oldWALs on each run; a cached one is kept with no lookup)."""

    def clean_wal(self, ops: Any, tx: Any, w: int) -> None:
        """Seed 003: look every queue up (caching what was found); delete if not found."""
        queued = {x: self.queued_anywhere(ops, tx.__getitem__, x) for x in self.W}
        for x in self.W:
            tx.cleaner_cache[x] = queued[x]
        tx.when(self.may_delete(ops, w, queued)).wal_place[w] = DELETED
