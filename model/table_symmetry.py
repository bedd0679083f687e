"""Symmetry reduction for the table era: region servers are interchangeable, so a state is stored
as the least of its renamings among those that order servers by a rename-invariant signature
(the same scheme as ``model.Model.canonical`` for the ZooKeeper era)."""

from __future__ import annotations

from .config import Config
from .model import least_renaming
from .state import Shipper, Sink
from .table_state import NO_SOURCE, Child, Row, SyncUp, TServer, TState, row_key


def _sig(cfg: Config, st: TState, s: int) -> tuple:
    srv = st.servers[s]
    base = cfg.slot((s, 0, 0))
    own = tuple(
        (len(w.entries), w.closed, w.place) if w else ()
        for w in st.wals[base : base + cfg.wal_groups * cfg.wals_per_server]
    )
    rows = sorted((r.peer, r.source == NO_SOURCE, r.offsets) for r in st.rows if r.owner == s)
    scp = st.scps[s]
    return (
        srv.alive,
        srv.started,
        srv.version,
        srv.current,
        srv.known,
        tuple((sh.peer, len(sh.chain), sh.group, len(sh.wals), sh.pos) for sh in srv.shippers),
        len(srv.claim),
        srv.views,
        srv.drained,
        own,
        tuple(rows),
        (scp.stage, scp.peers, len(scp.children)),
        st.markers >> s & 1,
    )


def canonical(cfg: Config, st: TState) -> TState:
    sig = [_sig(cfg, st, s) for s in range(cfg.servers)]
    return least_renaming(st, sig, lambda perm: rename(cfg, st, perm))


def rename(cfg: Config, st: TState, perm: tuple[int, ...]) -> TState:
    """The same state with server ``s`` called ``perm[s]`` everywhere it is named."""

    def sv(s: int) -> int:
        return s if s == NO_SOURCE else perm[s]

    def key(k):
        return (perm[k[0]], k[1], k[2])

    def uid(u):
        return (0, perm[u[1]], *u[2:]) if u[0] == 0 else u

    def mask(m: int) -> int:
        out = 0
        for s in range(cfg.servers):
            if m >> s & 1:
                out |= 1 << perm[s]
        return out

    def row(r: Row) -> Row:
        return Row(r.peer, sv(r.owner), sv(r.source), r.offsets)

    def rows(rs) -> tuple[Row, ...]:
        return tuple(sorted((row(r) for r in rs), key=row_key))

    def shipper(sh: Shipper) -> Shipper:
        return Shipper(
            sh.peer,
            tuple(sv(c) for c in sh.chain),
            sh.group,
            tuple(key(k) for k in sh.wals),
            sh.pos,
        )

    def child(c: Child) -> Child:
        return Child(c.peer, sv(c.source), sv(c.target))

    servers: list = [None] * cfg.servers
    scps: list = [None] * cfg.servers
    for s, srv in enumerate(st.servers):
        servers[perm[s]] = srv._replace(
            shippers=tuple(sorted(shipper(sh) for sh in srv.shippers)),
            claim=tuple((child(c), read) for c, read in srv.claim),
        )
        scp = st.scps[s]
        scps[perm[s]] = scp._replace(children=tuple(child(c) for c in scp.children))
    wals: list = [()] * len(st.wals)
    for w in st.wals:
        if w:
            k = key(w.key)
            wals[cfg.slot(k)] = w._replace(
                key=k, entries=tuple(e._replace(uid=uid(e.uid)) for e in w.entries)
            )
    pprocs = []
    for proc in st.pprocs:
        if proc:
            cursor = proc.cursor
            if cursor:
                n, keys = cursor
                cursor = (n, tuple((sv(o), sv(src)) for o, src in keys))
            proc = proc._replace(
                refresh=mask(proc.refresh), recorded=mask(proc.recorded), cursor=cursor
            )
        pprocs.append(proc)
    c = st.cleaner
    mig = st.migration
    su = st.syncup
    return st._replace(
        servers=tuple(servers),
        wals=tuple(wals),
        rows=rows(st.rows),
        scps=tuple(scps),
        pprocs=tuple(pprocs),
        cleaner=c._replace(live=mask(c.live), rows=rows(c.rows)),
        migration=mig._replace(migrated=mask(mig.migrated)) if mig else mig,
        zk=tuple(
            sorted(
                (
                    perm[o],
                    q._replace(
                        chain=tuple(perm[d] for d in q.chain),
                        wals=tuple(
                            sorted(
                                ((key(k), p) for k, p in q.wals),
                                key=lambda kp: (kp[0][1], kp[0][2], kp[0][0]),
                            )
                        ),
                    ),
                )
                for o, q in st.zk
            )
        ),
        syncup=SyncUp(
            su.running, rows(su.view), tuple(sorted((p, key(k), pos) for p, k, pos in su.work))
        ),
        markers=mask(st.markers),
        stale=tuple((p, tuple(sorted(uid(u) for u in uids))) for p, uids in st.stale),
        sinks=tuple(
            Sink(
                tuple(sorted(uid(u) for u in k.applied)),
                tuple(sorted(uid(u) for u in k.duplicates)),
                k.down,
            )
            for k in st.sinks
        ),
    )


__all__ = ["TServer", "canonical", "rename"]
