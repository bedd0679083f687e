"""Steps both eras share word for word: the other clusters of a master-master or cyclic topology
(seed 002: edits "have not originated from the target slave cluster" nor "already been consumed
by" it), and a sink cluster applying a batch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, TypeVar

from . import rules
from .action import ActionKind
from .config import Config
from .state import Edit, set_at

S = TypeVar("S", bound=NamedTuple)

K = ActionKind

RELAY_KINDS: tuple[ActionKind, ...] = (
    K("foreign_put", ("cluster",), False, "a client edit written at another cluster"),
    K("relay_ship", ("cluster", "target"), True, "another cluster replicates its next edit onward"),
    K("relay_home", ("cluster", "server"), True, "another cluster replicates an edit into ours"),
    K(
        "relay_apply",
        ("cluster", "server"),
        False,
        "a server of ours applies a relayed edit and dies before answering: it is sent again",
    ),
)


class Relays:
    """``foreign_put``, ``relay_ship``, ``relay_home`` and ``deliver`` for any state with
    ``sinks``, ``relays``, ``servers`` (``alive``) and ``budget.foreign``; the design supplies
    ``append`` (an edit written to a server's current WAL)."""

    def append(self, cfg: Config, st: S, s: int, g: int, kind: int, ids: Any, uid: Any = None) -> S:
        raise NotImplementedError

    def deliver(self, cfg: Config, st: S, cluster: int, edits: list[Edit]) -> S:
        """A sink cluster applies a batch, keeping the edits' cluster ids and adding its own; a
        cluster that replicates onward also writes it to its own log."""
        if not edits:
            return st
        sink = st.sinks[cluster]
        applied, dups = set(sink.applied), set(sink.duplicates)
        relay = st.relays[cluster]
        log = list(relay.log) if relay else None
        for e in edits:
            if e.uid in applied:
                dups.add(e.uid)
                continue
            applied.add(e.uid)
            if log is not None:
                log.append(e._replace(cluster_ids=(*e.cluster_ids, cluster), owed=0))
        st = st._replace(
            sinks=set_at(
                st.sinks,
                cluster,
                sink._replace(applied=tuple(sorted(applied)), duplicates=tuple(sorted(dups))),
            )
        )
        if log is not None:
            st = st._replace(relays=set_at(st.relays, cluster, relay._replace(log=tuple(log))))
        return st

    def en_foreign_put(self, cfg: Config, st: S) -> Iterator[tuple]:
        if st.budget.foreign:
            for c in range(1, cfg.clusters):
                if st.relays[c]:
                    yield (c,)

    def do_foreign_put(self, cfg: Config, st: S, c: int) -> S:
        relay = st.relays[c]
        n = sum(1 for e in relay.log if e.uid[0] == c)
        edit = Edit((c, n), 0, (c,), 0)
        st = st._replace(budget=st.budget._replace(foreign=st.budget.foreign - 1))
        return st._replace(relays=set_at(st.relays, c, relay._replace(log=(*relay.log, edit))))

    def _relay_next(self, cfg: Config, st: S, c: int, d: int) -> tuple[int, Edit] | None:
        relay = st.relays[c]
        if not relay:
            return None
        j = cfg.outbound(c).index(d)
        if relay.shipped[j] >= len(relay.log):
            return None
        return j, relay.log[relay.shipped[j]]

    def _relay_advance(self, st: S, c: int, j: int) -> S:
        relay = st.relays[c]
        shipped = set_at(relay.shipped, j, relay.shipped[j] + 1)
        return st._replace(relays=set_at(st.relays, c, relay._replace(shipped=shipped)))

    def en_relay_ship(self, cfg: Config, st: S) -> Iterator[tuple]:
        for c, d in cfg.topology:
            if d != 0 and self._relay_next(cfg, st, c, d) and not st.sinks[d].down:
                yield (c, d)

    def do_relay_ship(self, cfg: Config, st: S, c: int, d: int) -> S:
        """Another cluster replicates as the seeds say: same filter, cluster ids kept."""
        j, edit = self._relay_next(cfg, st, c, d)
        if rules.edit_replicable(edit, d):
            st = self.deliver(cfg, st, d, [edit])
        return self._relay_advance(st, c, j)

    def en_relay_home(self, cfg: Config, st: S) -> Iterator[tuple]:
        for c, d in cfg.topology:
            if d == 0 and self._relay_next(cfg, st, c, 0):
                for s, srv in enumerate(st.servers):
                    if srv.alive:
                        yield (c, s)

    def do_relay_home(self, cfg: Config, st: S, c: int, s: int) -> S:
        """An edit replicated into the source cluster is applied by one of its region servers and
        so written to that server's WAL, cluster ids preserved."""
        j, edit = self._relay_next(cfg, st, c, 0)
        if rules.edit_replicable(edit, 0):
            ids = (*edit.cluster_ids, 0)
            st = self.deliver(cfg, st, 0, [edit])
            st = self.append(cfg, st, s, 0, edit.kind, ids, uid=edit.uid)
        return self._relay_advance(st, c, j)

    def en_relay_apply(self, cfg: Config, st: S) -> Iterator[tuple]:
        """Only with the configuration's ``zombies`` (work in flight when a server dies)."""
        if cfg.zombies:
            yield from self.en_relay_home(cfg, st)

    def do_relay_apply(self, cfg: Config, st: S, c: int, s: int) -> S:
        """The edit is applied and written to the server's WAL, but the other cluster never hears
        so: it stays the next to send (a later ``relay_home`` applies it again elsewhere)."""
        _j, edit = self._relay_next(cfg, st, c, 0)
        if rules.edit_replicable(edit, 0):
            st = self.deliver(cfg, st, 0, [edit])
            st = self.append(cfg, st, s, 0, edit.kind, (*edit.cluster_ids, 0), uid=edit.uid)
        return st
