"""Steps both eras share word for word: what a region server does after its session expired and
before the master's split takes its WALs' leases (a *zombie*). HBase's zombie writer can still
append to its current WAL until lease recovery fences it, and a batch its source had in flight
still reaches the sink. The model's dead server otherwise takes no step; these two are enabled
only by the configuration's ``zombies`` (trace validation sets it), so no checker's state space
changes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, TypeVar

from . import rules
from .action import ActionKind
from .config import Config
from .state import ARCHIVED, DISABLED, ENABLED, LIVE_DIR, Wal, set_at

S = TypeVar("S", bound=NamedTuple)

K = ActionKind

ZOMBIE_KINDS: tuple[ActionKind, ...] = (
    K(
        "zombie_put",
        ("server", "group", "kind"),
        False,
        "a dead server's writer appends an edit before the split takes its WAL's lease",
    ),
    K(
        "zombie_roll",
        ("server", "group"),
        False,
        "a dead server's writer rolls to a new WAL before the split takes its WALs' leases",
    ),
    K(
        "zombie_archive",
        ("server", "group", "seq"),
        False,
        "a dead server moves a WAL it rolled away from to oldWALs before the split",
    ),
    K(
        "zombie_ship",
        ("server", "group", "seq", "entry", "peer"),
        False,
        "an edit in a dead server's batch in flight reaches the peer",
    ),
    K(
        "zombie_relay_apply",
        ("cluster", "server", "entry"),
        False,
        "a dead server's sink handler writes an edit the other cluster had sent it",
    ),
)


class Zombies:
    """A zombie's steps for any state with ``servers`` (``alive``, ``current``, ``known``),
    ``wals``, ``peers`` and ``budget.puts``; the design supplies ``append``, ``deliver``,
    ``with_server`` and ``with_wal``."""

    def _unsplit(self, cfg: Config, st: S, key: tuple[int, int, int]) -> Any:
        """The dead server's WAL ``key`` while it is still where its writer left it."""
        if st.servers[key[0]].alive:
            return None
        wal = st.wals[cfg.slot(key)]
        return wal if wal and wal.place == LIVE_DIR else None

    def en_zombie_put(self, cfg: Config, st: S) -> Iterator[tuple]:
        if not cfg.zombies or not st.budget.puts:
            return
        for s, srv in enumerate(st.servers):
            for g, seq in enumerate(srv.current):
                wal = self._unsplit(cfg, st, (s, g, seq))
                if wal and len(wal.entries) < cfg.edits_per_wal:
                    for kind in cfg.edit_kinds:
                        yield (s, g, kind)

    def do_zombie_put(self, cfg: Config, st: S, s: int, g: int, kind: int) -> S:
        """The edit is in the WAL, so the recovered queues of every peer in storage owe it."""
        srv = st.servers[s]
        stored = sum(1 << p for p, status in enumerate(st.peers) if status in (ENABLED, DISABLED))
        st = st._replace(budget=st.budget._replace(puts=st.budget.puts - 1))
        st = self.append(cfg, self.with_server(st, s, srv._replace(known=stored)), s, g, kind, (0,))
        return self.with_server(st, s, srv)

    def en_zombie_roll(self, cfg: Config, st: S) -> Iterator[tuple]:
        if not cfg.zombies:
            return
        for s, srv in enumerate(st.servers):
            for g, seq in enumerate(srv.current):
                if seq + 1 < cfg.wals_per_server and self._unsplit(cfg, st, (s, g, seq)):
                    yield (s, g)

    def do_zombie_roll(self, cfg: Config, st: S, s: int, g: int) -> S:
        """The new WAL is in the dead server's WAL directory, where the split will find it; no
        source of the dead server is left to queue it."""
        srv = st.servers[s]
        seq = srv.current[g] + 1
        st = self.with_wal(cfg, st, Wal((s, g, seq), (), True, LIVE_DIR))
        return self.with_server(st, s, srv._replace(current=set_at(srv.current, g, seq)))

    def en_zombie_archive(self, cfg: Config, st: S) -> Iterator[tuple]:
        if not cfg.zombies:
            return
        for wal in st.wals:
            if wal and self._unsplit(cfg, st, wal.key):
                s, g, seq = wal.key
                if seq < st.servers[s].current[g]:
                    yield wal.key

    def do_zombie_archive(self, cfg: Config, st: S, s: int, g: int, seq: int) -> S:
        wal = st.wals[cfg.slot((s, g, seq))]
        return self.with_wal(cfg, st, wal._replace(place=ARCHIVED))

    def en_zombie_ship(self, cfg: Config, st: S) -> Iterator[tuple]:
        """Any edit of a WAL, to a peer that should receive it, once some server is dead: its
        sources (normal or recovered) may have had a batch of any of their WALs in flight, read
        before the log cleaner deleted the WAL if it since has (a reader holds what it read)."""
        if not cfg.zombies or all(srv.alive for srv in st.servers):
            return
        for wal in st.wals:
            if wal:
                for i, e in enumerate(wal.entries):
                    for p in range(cfg.peers):
                        if rules.edit_replicable(e, p + 1):
                            yield (*wal.key, i, p)

    def do_zombie_ship(self, cfg: Config, st: S, s: int, g: int, seq: int, i: int, p: int) -> S:
        edit = st.wals[cfg.slot((s, g, seq))].entries[i]
        return self.deliver(cfg, st, p + 1, [edit])

    def en_zombie_relay_apply(self, cfg: Config, st: S) -> Iterator[tuple]:
        """An edit another cluster sent us (it is in its log, sent or next to send) that a dead
        server's sink handler had received before its session expired: it writes it to its WAL
        while the split has not taken it, and answers no one (the other cluster, timed out, may
        have given it to another server already)."""
        if not cfg.zombies:
            return
        for s, srv in enumerate(st.servers):
            if srv.alive or not srv.current or not self._unsplit(cfg, st, (s, 0, srv.current[0])):
                continue
            for c in range(1, cfg.clusters):
                relay = st.relays[c]
                if not relay or 0 not in cfg.outbound(c):
                    continue
                sent = relay.shipped[cfg.outbound(c).index(0)]
                for i, edit in enumerate(relay.log[: sent + 1]):
                    if rules.edit_replicable(edit, 0):
                        yield (c, s, i)

    def do_zombie_relay_apply(self, cfg: Config, st: S, c: int, s: int, i: int) -> S:
        """The edit is applied here and written to the dead server's WAL (its recovered queues
        owe it to the peers in storage, as a zombie's own put)."""
        edit = st.relays[c].log[i]
        srv = st.servers[s]
        stored = sum(1 << p for p, status in enumerate(st.peers) if status in (ENABLED, DISABLED))
        st = self.deliver(cfg, st, 0, [edit])
        ids = (*edit.cluster_ids, 0)
        st = self.with_server(st, s, srv._replace(known=stored))
        st = self.append(cfg, st, s, 0, edit.kind, ids, uid=edit.uid)
        return self.with_server(st, s, srv)
