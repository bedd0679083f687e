"""zk-lock's log cleaner as the master's chore (``model/zk/cleaners.py``, ``cleaner_chore``): the
cache lives across the chore's runs and only a miss refreshes it, so a WAL found queued once is
kept for ever once no other file misses (the finding pinned for ``zk-lock@chore``); a chore that
reads every queue once per run instead, with no cversion check (``zk-lock/HBASE-12865``), deletes
a WAL whose queue a claim moved between two of its reads."""

from __future__ import annotations

from replcheck.model import STANDARD, Model, get_design
from replcheck.model.common.state import ARCHIVED, DELETED
from replcheck.model.engine.action import Action

CHORE = STANDARD["chore"]

# The finding's 12 steps: server 0's first WAL is archived and looked up after its edit shipped
# (a miss: the whole cache is read again, and the dead server's WAL, queued in the recovered
# queue, is cached); then the recovered source finishes and deletes that queue.
STALE = [
    Action("put", (0, 0, 0)),
    Action("roll", (0, 0)),
    Action("crash", (1,)),
    Action("archive", (0, 0, 0)),
    Action("archive", (1, 0, 0)),
    Action("ship", (0, 0, 0)),
    Action("advance", (0, 0)),
    Action("lock", (0, 1)),
    Action("copy_queue", (0, 1, 0)),
    Action("finish_claim", (0, 1)),
    Action("chore_clean", (0, 0, 0)),
    Action("finish", (0, 1)),
]

# HBASE-12865's 11 steps: the run reads the claimer's znode before the copy and the dead
# server's after its deletion.
MISSED = [
    Action("crash", (0,)),
    Action("archive", (0, 0, 0)),
    Action("lock", (1, 0)),
    Action("cleaner_start", ()),
    Action("cleaner_read", (1,)),
    Action("copy_queue", (1, 0, 0)),
    Action("finish_claim", (1, 0)),
    Action("cleaner_read_queue", (1, 0)),
    Action("cleaner_read", (0,)),
    Action("cleaner_finish", ()),
    Action("cleaner_delete_wal", (0, 0, 0)),
]


def _run(model: Model, actions: list[Action]) -> list:
    """The states along ``actions``, each action enabled where it is taken."""
    st = model.init()
    out = [st]
    for a in actions:
        assert a in model.enabled(st), (a, model.enabled(st))
        st = model.step(st, a)
        out.append(st)
    return out


def _wal(st: object, key: tuple) -> object:
    return next(w for w in st.wals if w and w.key == key)


def _kinds(model: Model, st: object) -> set[str]:
    return {a.name for a in model.enabled(st)}


def _queued(st: object) -> set:
    return {k for node in st.rs if node for q in node.queues for k, _ in q.wals}


def test_the_chore_takes_the_lookup_only_under_cleaner_chore() -> None:
    std = Model(get_design("zk-lock"), STANDARD["std"])
    chore = Model(get_design("zk-lock"), CHORE)
    steps = _run(chore, STALE[:5])
    assert "chore_clean" in _kinds(chore, steps[-1])
    assert "clean" not in _kinds(chore, steps[-1])
    st = _run(std, STALE[:5])[-1]
    assert "clean" in _kinds(std, st)
    assert "chore_clean" not in _kinds(std, st)
    names = {p.name for p in chore.liveness}
    assert "unneeded_wals_deleted" in names
    assert "unneeded_wals_deleted" not in {p.name for p in std.liveness}


def test_a_wal_cached_as_queued_is_kept_once_nothing_misses() -> None:
    model = Model(get_design("zk-lock"), CHORE)
    states = _run(model, STALE)
    before, last = states[-2], states[-1]
    dead_wal = next(k for k in last.cleaner.cache if k[0] == 1)
    assert dead_wal in _queued(before)  # cached when the miss read the queues
    assert dead_wal not in _queued(last)  # its queue is finished
    assert _wal(last, dead_wal).place == ARCHIVED
    assert model.enabled(last) == []  # no file misses the cache: nothing refreshes it
    # the lookup the miss made deleted the WAL it was asked about
    assert _wal(last, STALE[3].args).place == DELETED


def test_the_cache_alone_keeps_the_wal() -> None:
    """The cache, not the lookup, keeps the WAL: the same state with the cache lost (as a
    master restart loses it) lets the chore look the WAL up again and delete it."""
    model = Model(get_design("zk-lock"), CHORE)
    last = _run(model, STALE)[-1]
    fresh = last._replace(cleaner=last.cleaner._replace(cache=()))
    looked = [a for a in model.enabled(fresh) if a.name == "chore_clean"]
    assert looked
    after = model.step(fresh, looked[0])
    assert all(w.place != ARCHIVED for w in after.wals if w and w.key[0] == 1)


def test_a_per_run_read_without_the_cversion_check_deletes_a_claimed_wal() -> None:
    model = Model(get_design("zk-lock/HBASE-12865"), CHORE)
    states = _run(model, MISSED)
    before, last = states[-2], states[-1]
    assert _wal(last, (0, 0, 0)).place == DELETED
    assert (0, 0, 0) in _queued(before) and (0, 0, 0) in _queued(last)
    assert "chore_clean" not in _kinds(model, states[1])
    assert "cleaner_start" not in _kinds(Model(get_design("zk-lock"), CHORE), states[3])
