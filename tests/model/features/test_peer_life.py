"""The peer's whole lifecycle in the table era (``model/features/peer_life.py``): what
``refreshSources`` does to a server's sources, a procedure waiting in the peer's queue, and a peer
added again under its id. Each test walks the model from its initial state to the situation it asks
about (a breadth-first search over the model's own steps), then takes one step and reads the
result."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from replcheck.model import STANDARD, Action, Model, get_design
from replcheck.model.common.state import ABSENT, DISABLED, ENABLED, REMOVED
from replcheck.model.table import rules as table_rules
from replcheck.model.table.state import DISABLE, NO_SOURCE, REMOVE, TState


def _find(
    model: Model,
    want: Callable[[TState, Action], bool],
    start: TState | None = None,
    only: tuple[str, ...] = (),
    limit: int = 60_000,
) -> tuple[TState, Action]:
    """The first state (breadth first from ``start``, taking only the steps named ``only`` if
    given) with an enabled action ``want`` accepts."""
    first = model.init() if start is None else start
    seen = {first}
    todo = deque([first])
    while todo and len(seen) < limit:
        st = todo.popleft()
        for action in model.enabled(st):
            if want(st, action):
                return st, action
            if only and action.name not in only:
                continue
            nxt = model.step(st, action)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    raise AssertionError("no such state within the search's limit")


def _recovered(st: TState, s: int) -> list:
    return [sh for sh in st.servers[s].shippers if sh.chain]


def _refresh_of(model: Model, kind: str) -> tuple[TState, Action]:
    """A refresh on server 0 of a procedure of ``kind`` (``update_peer`` or ``disable_peer``),
    submitted once server 0 runs a recovered source: the claim first, then only the
    procedure's own steps."""

    def claimed(st: TState, action: Action) -> bool:
        return action.name == kind and bool(_recovered(st, 0))

    st, action = _find(model, claimed)
    st = model.step(st, action)

    def refresh(st: TState, action: Action) -> bool:
        return action.name == "refresh" and action.args == (0, 0) and bool(_recovered(st, 0))

    return _find(model, refresh, start=st, only=("peer_proc",))


def _stored_start(st: TState, sh) -> int:
    """Where ``getStartOffset`` starts the shipper's first WAL from its queue's row."""
    row = next(r for r in st.rows if r.owner == 0 and r.source == sh.chain[0])
    offset = next(((q, pos) for g, q, pos in row.offsets if g == sh.group), None)
    return table_rules.start_position(offset, sh.wals[0])


def test_refresh_sources_starts_the_sources_again_from_the_stored_offsets() -> None:
    """A configuration update makes the survivor create its recovered source again over the
    same WALs, from the offset in storage; the queue's row stays."""
    model = Model(get_design("table"), STANDARD["t-peer-update"])
    st, action = _refresh_of(model, "update_peer")
    before = _recovered(st, 0)
    after = model.step(st, action)
    again = _recovered(after, 0)
    assert [sh.wals for sh in again] == [sh.wals for sh in before]
    assert [sh.pos for sh in again] == [_stored_start(st, sh) for sh in before]
    assert after.refreshed == 1
    assert any(r.source != NO_SOURCE for r in after.rows)


def test_a_disable_refreshes_the_sources_as_an_update_does() -> None:
    model = Model(get_design("table"), STANDARD["t-peer-update"])
    st, action = _refresh_of(model, "disable_peer")
    assert st.peers[0] == DISABLED
    after = model.step(st, action)
    before = _recovered(st, 0)
    assert [sh.pos for sh in _recovered(after, 0)] == [_stored_start(st, sh) for sh in before]


def test_hbase_24871_loses_the_recovered_queue_on_refresh() -> None:
    """The mutant's refreshed recovered source has no WAL: it ends and removes its queue."""
    model = Model(get_design("table/HBASE-24871"), STANDARD["t-peer-update"])
    st, action = _refresh_of(model, "update_peer")
    after = model.step(st, action)
    assert _recovered(after, 0) == []
    assert not any(r.source != NO_SOURCE for r in after.rows)


def test_a_command_for_a_busy_peer_waits_for_the_lock_then_starts() -> None:
    model = Model(get_design("table"), STANDARD["t-peer-readd"])

    def busy(st: TState, action: Action) -> bool:
        proc = st.pprocs[0]
        return action.name == "disable_peer" and bool(proc) and proc.kind == REMOVE

    st, action = _find(model, busy)
    queued = model.step(st, action)
    assert queued.queued == (DISABLE + 1,)
    assert queued.pprocs[0].kind == REMOVE
    assert Action("peer_proc_start", (0,)) not in model.enabled(queued)

    def lock_free(st: TState, action: Action) -> bool:
        return action.name == "peer_proc_start"

    st, action = _find(model, lambda s, a: lock_free(s, a) and s.queued == (DISABLE + 1,))
    assert not st.pprocs[0]
    started = model.step(st, action)
    assert started.queued == (0,)
    assert started.pprocs[0].kind == DISABLE


def test_the_waiting_procedure_checks_the_peer_as_it_is_when_it_starts() -> None:
    """A disable that waited behind the removal fails in PRE (the peer is gone by then); the
    mutant that checks only at submission stores the removed peer again."""

    def disable_pre_after_removal(st: TState, action: Action) -> bool:
        proc = st.pprocs[0]
        return (
            action.name == "peer_proc"
            and bool(proc)
            and proc.kind == DISABLE
            and proc.stage == 0
            and st.peers[0] == REMOVED
        )

    model = Model(get_design("table"), STANDARD["t-peer-readd"])
    st, action = _find(model, disable_pre_after_removal)
    after = model.step(st, action)
    assert not after.pprocs[0]
    assert after.peers[0] == REMOVED

    mutant = Model(get_design("table/peer-checked-at-submission"), STANDARD["t-peer-readd"])
    st, action = _find(mutant, disable_pre_after_removal)
    for _ in range(2):  # PRE, then UPDATE_PEER_STORAGE
        st = mutant.step(st, action)
    assert st.peers[0] == DISABLED


def test_a_peer_added_again_is_owed_nothing_its_predecessor_was() -> None:
    """Re-adding peer 2 after its removal: the edit written for the first peer is owed to no
    one any more, and every live server has a source for the new peer."""
    model = Model(get_design("table"), STANDARD["t-peer-readd"])

    def readd_storage(st: TState, action: Action) -> bool:
        proc = st.pprocs[0]
        owed = [e for w in st.wals if w for e in w.entries if e.owed & 1]
        return (
            action.name == "peer_proc"
            and bool(proc)
            and proc.kind == 0  # ADD
            and proc.stage == 1  # UPDATE_PEER_STORAGE
            and st.peers[0] == REMOVED
            and bool(owed)
        )

    st, action = _find(model, readd_storage)
    assert st.removed_done == 1
    after = model.step(st, action)
    assert after.peers[0] == ENABLED
    assert not any(e.owed & 1 for w in after.wals if w for e in w.entries)
    assert ABSENT not in after.peers
