"""The table-era design ``table`` (and its mutants) as a flat model (``model/engine/text.py``): the
transition relation that bounded model checking and induction read, as ``model/zk/layout.py`` is
for the ZooKeeper era.

The state of ``model/table/state.py`` is laid out over fixed slots that the configuration bounds:

* WAL slots (``Config.slot``): existence, length, closed, place, and per entry its kind and the
  peers it is owed to (an entry's identity is fixed by its slot: only client puts append);
* queue rows keyed ``(peer, owner, source)`` (``source`` -1 for a normal queue), each with one
  column per WAL group (``-1``, ADD_MISSING_QUEUES' placeholder group, included): present, WAL
  sequence, position; the log cleaner's snapshot has the same shape;
* shipper slots ``(server, peer, source, group, copy)``: a shipper's in-memory WAL list is always
  an ascending run of one server's WALs of one group, so it is a bit per sequence, the head being
  the lowest;
* per server up to two pending claims (``claim_redeliver`` appends a second);
* per crashed server its ServerCrashProcedure stage, the peers ADD_MISSING_QUEUES read, and its
  claim children keyed ``(peer, source)`` (a round's children are a subsequence of the dead
  server's queues in row-key order, so their order is implied by the keys);
* per peer its procedure, with ``removeAllQueues``' cursor as a pass number and a bit per row key.

Every unused slot holds a fixed default, so each explicit state has exactly one flat form. Fields
that no supported configuration ever changes (sync-replication views and states, markers, the
migration, ReplicationSyncUp, the bootstrap flag, relays) are not variables: ``encode`` checks they
hold their initial values and ``decode`` restores them.

Timestamps enter the dual-form rules as WAL sequences: ``wal_timestamp`` and ``offset_timestamp``
are strictly increasing in the sequence and BEGIN's "no timestamp" is -1 either way, and the rules
only compare timestamps, so the verdicts are the same while every integer stays small (``bmc.py``
uses 8-bit bit-vectors).

The steps are in ``table/text.py``, the properties in ``table/properties.py``;
``table_flat_class`` / ``table_flat_model`` are the entry points.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

from replcheck.model.common.edit_space import EditSpace
from replcheck.model.common.state import Edit, Shipper, Sink
from replcheck.model.config import Config
from replcheck.model.engine.copies import CopySlots
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import generic_of
from replcheck.model.engine.step import instances_of, variables_of
from replcheck.model.engine.text import ByParts, FlatModel, FlatProperty
from replcheck.model.table.state import (
    ADD,
    NO_SOURCE,
    REMOVE,
    SID,
    Child,
    PeerProc,
    Row,
    Scp,
    TBudget,
    TCleaner,
    TServer,
    TState,
)
from replcheck.model.table.text import TableSteps
from replcheck.model.zk.layout import FlatError

COPIES = 2
"""Shipper slots per (server, peer, source, group): a correct design needs one; a claim applied
twice (the unguarded-claim mutant) starts a second recovered source on the same server. A text
that starts more sets ``shipper_copies``."""
CLAIMS = 2
"""Pending claims per server: one, and a second dispatched by ``claim_redeliver``."""
BUDGET = ("crashes", "outages", "admin", "puts", "cleaner_runs", "master_restarts")
"""The budgets that change in the base flat model (``foreign``, ``restarts`` and ``storage_faults``
are constant there; a feature class may move a budget from ``constant_budgets`` to ``budgets``)."""


CONSTANT_FIELDS = (
    "sync",
    "remote_dir",
    "migration",
    "zk",
    "master_up",
    "syncup",
    "markers",
    "info",
    "table_online",
    "stale",
    "relays",
    "others",
    "remote",
    "legacy",
    "zk_hfile",
)
"""The state fields the base flat model holds constant."""
CONSTANT_SERVER_FIELDS = ("started", "version", "sinks", "views", "drained")
"""The server fields the base flat model holds constant."""


@cache
def _constant(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The state and server fields ``cls`` holds constant: the base's, less those a class of its
    hierarchy encodes (``encoded_fields``, ``encoded_server_fields``, a ``Var``)."""

    def declared(name: str) -> set[str]:
        return {f for c in cls.__mro__ for f in vars(c).get(name, ())}

    fields = declared("encoded_fields") | {var.field for var in variables_of(cls)}
    server = declared("encoded_server_fields")
    return (
        tuple(f for f in CONSTANT_FIELDS if f not in fields),
        tuple(f for f in CONSTANT_SERVER_FIELDS if f not in server),
    )


class TableFlat(CopySlots, ByParts, EditSpace, TableSteps):
    """Builds the flat model of the ``table`` design (or a mutant) under a configuration.

    A configuration feature the base leaves out (``FEATURES``) is added by a mixin placed before
    this class: it names the features it ``handles``, declares the state and server fields it
    encodes (``encoded_fields``, ``encoded_server_fields``; a ``Var`` of the text is one too),
    takes budgets out of ``constant_budgets``, and extends ``sorts``, ``encode``, ``decode``,
    ``instances`` and ``properties`` through ``super()``."""

    handles: frozenset[str] = frozenset()
    """The configuration features (keys of ``check_config``'s list) this class encodes."""
    encoded_fields: tuple[str, ...] = ()
    """The fields of ``CONSTANT_FIELDS`` a feature mixin holds in variables (each mixin its own;
    the classes of the hierarchy add up)."""
    encoded_server_fields: tuple[str, ...] = ()
    """The same for ``CONSTANT_SERVER_FIELDS``."""
    shipper_copies: int = COPIES

    @property
    def constant_fields(self) -> tuple[str, ...]:
        """State fields that are not variables: ``encode`` checks them, ``decode`` restores them."""
        return _constant(type(self))[0]

    @property
    def constant_server_fields(self) -> tuple[str, ...]:
        """Server fields that are not variables."""
        return _constant(type(self))[1]

    budgets: tuple[str, ...] = BUDGET
    constant_budgets: tuple[str, ...] = ("foreign", "restarts", "storage_faults")

    def __init__(self, design: Design, cfg: Config) -> None:
        check_config(cfg, self.handles)
        self.variables = variables_of(type(self))
        """The readable state's fields the text declares one slot for (``model/engine/step.py``)."""
        self.design = design
        self.cls = type(design)
        self.cfg = cfg
        c = cfg
        self.S = range(c.servers)
        self.P = range(c.peers)
        self.G = range(c.wal_groups)
        self.OG = range(-1, c.wal_groups)
        """Offset columns: the WAL groups and ADD_MISSING_QUEUES' placeholder group -1."""
        self.Q = range(c.wals_per_server)
        self.W = range(c.wal_slots)
        self.SRC = range(-1, c.servers)
        self.K = range(c.sink_subset)
        self.CL = range(1, c.clusters)
        self.key: list[tuple[int, int, int]] = [(0, 0, 0)] * c.wal_slots
        for s in self.S:
            for g in self.G:
                for q in self.Q:
                    self.key[c.slot((s, g, q))] = (s, g, q)
        self.edit_space([(0, *self.key[w], j) for w in self.W for j in range(c.edits_per_wal)])
        self.E = self.wal_entries()
        self.sink_clusters = [0, *self.CL] if self.home_edges else list(self.CL)
        """The clusters whose sinks apply edits: ours too where a relay cluster sends home."""
        self.rkeys = [(p, o, src) for p in self.P for o in self.S for src in self.SRC]
        """Row keys in row-key order."""
        self.sh_keys = [
            (s, p, src, g, m)
            for s in self.S
            for p in self.P
            for src in self.SRC
            for g in self.G
            for m in range(self.shipper_copies)
        ]
        self.init_state: TState = design.init(cfg)
        self.passes = design.rule_remove_passes()
        self.refuse = [design.rule_refuse_recovered(self.init_state.servers[0], p) for p in self.P]
        """``rule_refuse_recovered`` reads only the server's sync-replication views, which are
        constant here: its verdict per peer."""
        self.rule = {
            name: generic_of(self.cls, name)
            for name in (
                "rule_ships",
                "rule_cleaner_live",
                "rule_cleaner_may_delete",
                "rule_claim_guarded",
                "rule_fence_add",
                "rule_claim_peer_known",
            )
        }
        missing = [n for n, r in self.rule.items() if r is None]
        if missing:
            raise FlatError(f"{design.name}: {missing[0]} is not a dual-form rule here")

    # --- variables ------------------------------------------------------------------------------

    def sorts(self) -> dict[tuple, Any]:
        c = self.cfg
        S, Q, E, P = c.servers, c.wals_per_server, self.E, c.peers
        out: dict[tuple, Any] = {}

        def i(lo: int, hi: int) -> tuple:
            return ("i", lo, hi)

        def row(prefix: str, rk: tuple) -> None:
            out[(prefix + "ex", *rk)] = "b"
            for og in self.OG:
                out[(prefix + "has", *rk, og)] = "b"
                out[(prefix + "seq", *rk, og)] = i(-1, Q - 1)
                out[(prefix + "pos", *rk, og)] = i(-1, E)

        for s in self.S:
            out[("alive", s)] = "b"
            for g in self.G:
                out[("cur", s, g)] = i(0, Q - 1)
            for p in self.P:
                out[("known", s, p)] = "b"
            for m in range(CLAIMS):
                out[("cl", s, m)] = "b"
                out[("clp", s, m)] = i(0, P - 1)
                out[("cls", s, m)] = i(-1, S - 1)
                out[("cld", s, m)] = i(0, S - 1)
                for og in self.OG:
                    out[("clhas", s, m, og)] = "b"
                    out[("clseq", s, m, og)] = i(-1, Q - 1)
                    out[("clpos", s, m, og)] = i(-1, E)
            out[("stage", s)] = i(0, 7)
            for p in self.P:
                out[("scpp", s, p)] = "b"
                for src in self.SRC:
                    out[("ch", s, p, src)] = "b"
                    out[("cht", s, p, src)] = i(0, S - 1)
            out[("clive", s)] = "b"
        for sk in self.sh_keys:
            out[("sh", *sk)] = "b"
            out[("shpos", *sk)] = i(0, E)
            for q in self.Q:
                out[("shw", *sk, q)] = "b"
        for w in self.W:
            self.wal_sorts(out, w)
            for j in range(E):
                out[("wkind", w, j)] = i(-1, 2)
                for p in self.P:
                    out[("wowed", w, j, p)] = "b"
        for rk in self.rkeys:
            row("r", rk)
            row("cr", rk)
        for p in self.P:
            out[("peer", p)] = i(0, 3)
            out[("sid", p)] = "b"
            out[("rdone", p)] = "b"
            out[("cpeers", p)] = "b"
            out[("pp", p)] = "b"
            out[("ppk", p)] = i(0, 1)
            out[("pps", p)] = i(0, 4)
            out[("ppc", p)] = "b"
            out[("ppn", p)] = i(0, max(self.passes - 1, 0))
            for s in self.S:
                out[("ppref", p, s)] = "b"
                out[("pprec", p, s)] = "b"
                for src in self.SRC:
                    out[("ppkey", p, s, src)] = "b"
        for cl in self.sink_clusters:
            for u in self.U:
                out[("app", cl, u)] = "b"
                out[("dup", cl, u)] = "b"
        for cl in self.CL:
            for k in range(c.sink_servers):
                out[("down", cl, k)] = "b"
        out[("bar",)] = i(0, 2)
        out[("barn",)] = i(0, P + 1)
        out[("cph",)] = i(0, 2)
        out[("overflow",)] = "b"
        for name, top in zip(self.budgets, self._budget0(), strict=True):
            out[("b", name)] = i(0, top)
        for var in self.variables:
            out[var.key] = var.sort
        return out

    def _budget0(self) -> tuple[int, ...]:
        b = self.init_state.budget
        return tuple(getattr(b, name) for name in self.budgets)

    # --- explicit <-> flat ----------------------------------------------------------------------

    def _constants(self, st: TState) -> None:
        """The fields the flat form does not hold must have their initial values."""
        i0 = self.init_state
        for name in self.constant_fields:
            if getattr(st, name) != getattr(i0, name):
                raise FlatError(f"{name} changed: the flat table model keeps it constant")
        if 0 not in self.sink_clusters and st.sinks[0] != i0.sinks[0]:
            raise FlatError("the source cluster's sink changed")
        for name in self.constant_budgets:
            if getattr(st.budget, name) != getattr(i0.budget, name):
                raise FlatError(f"the {name} budget changed: the flat table model keeps it")
        for srv, srv0 in zip(st.servers, i0.servers, strict=True):
            for name in self.constant_server_fields:
                if getattr(srv, name) != getattr(srv0, name):
                    raise FlatError(f"server {name} changed: the flat table model keeps it")

    def _put_row(self, v: dict, prefix: str, row: Row) -> None:
        rk = (row.peer, row.owner, row.source)
        v[(prefix + "ex", *rk)] = True
        for g, seq, pos in row.offsets:
            v[(prefix + "has", *rk, g)] = True
            v[(prefix + "seq", *rk, g)] = seq
            v[(prefix + "pos", *rk, g)] = pos

    def encode(self, st: TState) -> dict[tuple, Any]:
        c = self.cfg
        self._constants(st)
        v = self.defaults()
        for s, srv in enumerate(st.servers):
            v[("alive", s)] = srv.alive
            for g, q in enumerate(srv.current):
                v[("cur", s, g)] = q
            for p in self.P:
                v[("known", s, p)] = bool(srv.known >> p & 1)
            used: dict[tuple, int] = {}
            for sh in sorted(srv.shippers):
                src = sh.chain[0] if sh.chain else NO_SOURCE
                if len(sh.chain) > 1:
                    raise FlatError("a shipper with a chain longer than one server")
                base = (s, sh.peer, src, sh.group)
                m = used.get(base, 0)
                used[base] = m + 1
                if m >= self.shipper_copies:
                    raise FlatError(
                        f"more than {self.shipper_copies} shippers for one queue and group"
                    )
                sk = (*base, m)
                v[("sh", *sk)] = True
                v[("shpos", *sk)] = sh.pos
                owner = self.wal_owner(s, src)
                seqs = [key[2] for key in sh.wals]
                if seqs != sorted(set(seqs)) or any(
                    key[:2] != (owner, sh.group) for key in sh.wals
                ):
                    raise FlatError("a shipper's WAL list is not an ascending run of one group")
                for q in seqs:
                    v[("shw", *sk, q)] = True
            if len(srv.claim) > CLAIMS:
                raise FlatError(f"more than {CLAIMS} pending claims")
            for m, (child, read) in enumerate(srv.claim):
                v[("cl", s, m)] = True
                v[("clp", s, m)] = child.peer
                v[("cls", s, m)] = child.source
                v[("cld", s, m)] = child.target
                for g, seq, pos in read:
                    v[("clhas", s, m, g)] = True
                    v[("clseq", s, m, g)] = seq
                    v[("clpos", s, m, g)] = pos
        for wal in st.wals:
            if not wal:
                continue
            w = c.slot(wal.key)
            self.encode_wal(v, w, wal)
            for j, e in enumerate(wal.entries):
                self._put_entry(v, w, j, e)
        for row in st.rows:
            self._put_row(v, "r", row)
        for p in self.P:
            v[("peer", p)] = st.peers[p]
            if st.sid[p] not in (0, SID):
                raise FlatError("an hfileref row: not in the flat table model")
            v[("sid", p)] = st.sid[p] == SID
            v[("rdone", p)] = bool(st.removed_done >> p & 1)
            proc = st.pprocs[p]
            if proc:
                if proc.kind not in (ADD, REMOVE) or proc.target:
                    raise FlatError("a sync-replication procedure: not in the flat table model")
                v[("pp", p)] = True
                v[("ppk", p)] = proc.kind
                v[("pps", p)] = proc.stage
                for s in self.S:
                    v[("ppref", p, s)] = bool(proc.refresh >> s & 1)
                    v[("pprec", p, s)] = bool(proc.recorded >> s & 1)
                if proc.cursor:
                    n, keys = proc.cursor
                    v[("ppc", p)] = True
                    v[("ppn", p)] = n
                    for o, src in keys:
                        v[("ppkey", p, o, src)] = True
        for d, scp in enumerate(st.scps):
            v[("stage", d)] = scp.stage
            for p in self.P:
                v[("scpp", d, p)] = bool(scp.peers >> p & 1)
            for child in scp.children:
                if v[("ch", d, child.peer, child.source)]:
                    raise FlatError("two claim children of one queue")
                v[("ch", d, child.peer, child.source)] = True
                v[("cht", d, child.peer, child.source)] = child.target
        v[("bar",)], v[("barn",)] = st.barrier
        cl = st.cleaner
        v[("cph",)] = cl.phase
        for s in self.S:
            v[("clive", s)] = bool(cl.live >> s & 1)
        for p in self.P:
            v[("cpeers", p)] = bool(cl.peers >> p & 1)
        for row in cl.rows:
            self._put_row(v, "cr", row)
        for cl_ in self.sink_clusters:
            sink = st.sinks[cl_]
            for uid in sink.applied:
                v[("app", cl_, self.uid_index[uid])] = True
            for uid in sink.duplicates:
                v[("dup", cl_, self.uid_index[uid])] = True
            for k in range(c.sink_servers if cl_ else 0):
                v[("down", cl_, k)] = bool(sink.down >> k & 1)
        self.encode_relays(v, st.relays)
        for name in self.budgets:
            v[("b", name)] = getattr(st.budget, name)
        for var in self.variables:
            v[var.key] = getattr(st, var.field)
        return self.normalized(v)

    def copy_groups(self) -> list[list[list[tuple]]]:
        """A server's shippers of one peer, source and WAL group, one per copy slot."""
        bases = sorted({sk[:4] for sk in self.sh_keys})
        return [
            [
                [("sh", *b, m), ("shpos", *b, m), *(("shw", *b, m, q) for q in self.Q)]
                for m in range(self.shipper_copies)
            ]
            for b in bases
        ]

    def _put_entry(self, v: dict[tuple, Any], w: int, j: int, e: Edit) -> None:
        """Entry ``j`` of WAL slot ``w``: without relay clusters, our client's edit
        (``model/features/relays.py`` holds any)."""
        if e.uid != (0, *self.key[w], j) or e.cluster_ids != (0,):
            raise FlatError("a WAL entry that is not a local client put")
        v[("wkind", w, j)] = e.kind
        for p in self.P:
            v[("wowed", w, j, p)] = bool(e.owed >> p & 1)

    def _entry(self, v: Any, w: int, j: int) -> Edit:
        owed = sum(1 << p for p in self.P if v[("wowed", w, j, p)])
        return Edit((0, *self.key[w], j), v[("wkind", w, j)], (0,), owed)

    def _get_rows(self, v: Any, prefix: str) -> tuple[Row, ...]:
        rows = []
        for rk in self.rkeys:
            if v[(prefix + "ex", *rk)]:
                offsets = tuple(
                    (g, v[(prefix + "seq", *rk, g)], v[(prefix + "pos", *rk, g)])
                    for g in self.OG
                    if v[(prefix + "has", *rk, g)]
                )
                rows.append(Row(*rk, offsets))
        return tuple(rows)

    PARTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "server": (
            "alive", "cur", "known", "sh", "shpos", "shw", "cl", "clp", "cls", "cld", "clhas",
            "clseq", "clpos", "started",
        ),
        "wal": ("wex", "wn", "wclosed", "wplace", "wkind", "wowed", "wu", "wids"),
        "pproc": ("pp", "ppc", "ppkey", "ppn", "ppk", "pps", "ppref", "pprec"),
        "scp": ("stage", "scpp", "ch", "cht"),
        "rows": ("rex", "rhas", "rseq", "rpos"),
        "sinks": ("app", "dup", "down"),
        "cleaner": ("cph", "clive", "cpeers", "crex", "crhas", "crseq", "crpos"),
        "rest": ("sid", "peer", "rdone", "bar", "barn", "b"),
        "relays": ("rlen", "rship", "ru", "rkind", "rids"),
    }  # fmt: skip
    """The readable state's parts and the slots (by key name) each is read from; a server's, a
    WAL's, a peer procedure's and an SCP's are one part per index (the key's second element);
    the text's variables (``Var``) are read with the rest. ``overflow`` is in none."""

    INDEXED: ClassVar[tuple[str, ...]] = ("server", "wal", "pproc", "scp")

    def part_of(self, k: tuple) -> tuple | None:
        """``ByParts.part_of``; the text's variables (``Var``) are read with the rest, and a
        feature's slot no part knows is None (``TextModel`` then decodes whole states)."""
        if any(var.key == k for var in self.variables):
            return ("rest",)
        return super().part_of(k)

    def decode_parts(self) -> list[tuple[tuple, Any]]:
        """Each part of the readable state and its reader (``model/zk/layout.py`` has the same)."""
        out: list[tuple[tuple, Any]] = []
        out += [(("server", s), lambda v, s=s: self._server(v, s)) for s in self.S]
        out += [(("wal", w), lambda v, w=w: self._wal(v, w)) for w in self.W]
        out += [(("pproc", p), lambda v, p=p: self._pproc(v, p)) for p in self.P]
        out += [(("scp", d), lambda v, d=d: self._scp(v, d)) for d in self.S]
        out += [(("rows",), lambda v: self._get_rows(v, "r")), (("sinks",), self._sinks)]
        out += [(("cleaner",), self._cleaner), (("rest",), self._rest)]
        out += [(("relays",), self._relays)]
        return out

    def assemble(self, got: dict[tuple, Any]) -> TState:
        """The readable state from its parts (``decode_parts``)."""
        rest = dict(got[("rest",)])
        return self.init_state._replace(
            servers=tuple(got[("server", s)] for s in self.S),
            wals=tuple(got[("wal", w)] for w in self.W),
            rows=got[("rows",)],
            scps=tuple(got[("scp", d)] for d in self.S),
            pprocs=tuple(got[("pproc", p)] for p in self.P),
            cleaner=got[("cleaner",)],
            sinks=got[("sinks",)],
            relays=got[("relays",)],
            **rest,
        )

    def _server(self, v: Any, s: int) -> TServer:
        shippers = []
        for sk in self.sh_keys:
            if sk[0] != s or not v[("sh", *sk)]:
                continue
            _s, p, src, g, _m = sk
            owner = self.wal_owner(s, src)
            wals = tuple((owner, g, q) for q in self.Q if v[("shw", *sk, q)])
            chain = () if src == NO_SOURCE else (src,)
            shippers.append(Shipper(p, chain, g, wals, v[("shpos", *sk)]))
        claim = tuple(
            (
                Child(v[("clp", s, m)], v[("cls", s, m)], v[("cld", s, m)]),
                tuple(
                    (g, v[("clseq", s, m, g)], v[("clpos", s, m, g)])
                    for g in self.OG
                    if v[("clhas", s, m, g)]
                ),
            )
            for m in range(CLAIMS)
            if v[("cl", s, m)]
        )
        srv0 = self.init_state.servers[s]
        return TServer(
            alive=v[("alive", s)],
            started=srv0.started,
            version=srv0.version,
            current=tuple(v[("cur", s, g)] for g in self.G),
            known=sum(1 << p for p in self.P if v[("known", s, p)]),
            shippers=tuple(sorted(shippers)),
            sinks=srv0.sinks,
            claim=claim,
            views=srv0.views,
            drained=srv0.drained,
        )

    def _wal(self, v: Any, w: int) -> Any:
        if not v[("wex", w)]:
            return ()
        entries = tuple(self._entry(v, w, j) for j in range(v[("wn", w)]))
        return self.decode_wal(v, w, entries)

    def _pproc(self, v: Any, p: int) -> Any:
        if not v[("pp", p)]:
            return ()
        cursor: tuple = ()
        if v[("ppc", p)]:
            keys = tuple((o, src) for o in self.S for src in self.SRC if v[("ppkey", p, o, src)])
            cursor = (v[("ppn", p)], keys)
        return PeerProc(
            v[("ppk", p)],
            v[("pps", p)],
            sum(1 << s for s in self.S if v[("ppref", p, s)]),
            sum(1 << s for s in self.S if v[("pprec", p, s)]),
            cursor,
            0,
        )

    def _scp(self, v: Any, d: int) -> Scp:
        return Scp(
            v[("stage", d)],
            sum(1 << p for p in self.P if v[("scpp", d, p)]),
            tuple(
                Child(p, src, v[("cht", d, p, src)])
                for p in self.P
                for src in self.SRC
                if v[("ch", d, p, src)]
            ),
        )

    def _sinks(self, v: Any) -> tuple[Sink, ...]:
        def sink(cl: int) -> Sink:
            if cl not in self.sink_clusters:
                return self.init_state.sinks[cl]
            return Sink(
                *self.sink_edits(v, cl),
                sum(1 << k for k in range(self.cfg.sink_servers) if cl and v[("down", cl, k)]),
            )

        return tuple(sink(cl) for cl in range(self.cfg.clusters))

    def _cleaner(self, v: Any) -> TCleaner:
        return TCleaner(
            v[("cph",)],
            sum(1 << s for s in self.S if v[("clive", s)]),
            sum(1 << p for p in self.P if v[("cpeers", p)]),
            self._get_rows(v, "cr"),
        )

    def _rest(self, v: Any) -> tuple[tuple[str, Any], ...]:
        """The state's other fields, as (field, value) pairs: the text's variables too."""
        b0 = self.init_state.budget
        budget = TBudget(
            **{name: v[("b", name)] for name in self.budgets},
            **{name: getattr(b0, name) for name in self.constant_budgets},
        )
        return (
            ("sid", tuple(SID if v[("sid", p)] else 0 for p in self.P)),
            ("peers", tuple(v[("peer", p)] for p in self.P)),
            ("removed_done", sum(1 << p for p in self.P if v[("rdone", p)])),
            ("barrier", (v[("bar",)], v[("barn",)])),
            ("budget", budget),
            *((var.field, v[var.key]) for var in self.variables),
        )

    # --- the model ------------------------------------------------------------------------------

    def properties(self) -> list[FlatProperty]:
        """The flat invariants and step property (a feature mixin extends them)."""
        from replcheck.model.table.properties import table_properties

        return table_properties(self)

    def model(self) -> FlatModel:
        return FlatModel(
            design=self.design.name,
            config=self.cfg.name,
            sorts=self.sorts(),
            init=self.encode(self.init_state),
            instances=instances_of(self),
            properties=self.properties(),
            decode=self.decode,
            encode=self.encode,
        )


def config_features(cfg: Config) -> list[tuple[str, str]]:
    """``(feature, what)`` for each feature ``cfg`` uses that the base flat model leaves out."""
    flags = [
        ("sync", cfg.sync_peers, "sync replication peers"),
        ("syncup", cfg.syncup, "ReplicationSyncUp"),
        # before the migration: its mixin extends the migration's hooks
        ("zk_hfile_refs", cfg.zk_hfile_refs, "hfile references in ZooKeeper to migrate"),
        # before the migration: its mixin extends the migration's (and so encodes it too)
        ("legacy_peer", cfg.legacy_peer, "the legacy region_replica_replication peer"),
        ("migration", cfg.migration, "the migration from ZooKeeper"),
        ("bootstrap", cfg.bootstrap, "the bootstrap of hbase:replication"),
        ("restarts", cfg.restarts, "server restarts"),
        ("spare_servers", cfg.spare_servers, "spare servers"),
        ("joins", cfg.joins, "servers joining"),
        ("zombies", cfg.zombies, "zombie servers"),
        ("relays", cfg.topology or cfg.foreign_edits, "relay clusters and foreign edits"),
        ("zk_faults", cfg.zk_faults, "ZooKeeper faults"),
        ("cleaner_input", cfg.cleaner_input, "meta WALs and other files in oldWALs"),
        ("peer_life", cfg.peer_life, "the peer's whole lifecycle and its procedure queue"),
        ("storage_faults", cfg.storage_faults, "failed writes to hbase:replication"),
        ("serial_life", cfg.serial_life, "serial peers added and removed"),
        ("serial", cfg.serial_peers, "serial replication peers"),
        ("bulk_load", cfg.bulk_load, "bulk loads and hfile references"),
        ("sync_remote", cfg.remote_wals, "the remote WALs of sync peers"),
    ]
    return [(feature, what) for feature, flag, what in flags if flag]


def check_config(cfg: Config, handled: frozenset[str] = frozenset()) -> None:
    """Refuse a configuration whose features the flat table model (with the feature mixins
    ``handled``) does not encode."""
    for feature, what in config_features(cfg):
        if feature not in handled:
            raise FlatError(f"config {cfg.name!r}: {what} not in the flat table model")
