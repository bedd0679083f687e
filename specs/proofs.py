"""Proofs for all values about the model's own decision rules, with Z3.

Each proof takes the dual-form rules (``model/engine/logic.py``) a design or mutant actually uses,
builds them over Z3 terms (``specs/z3ops.py``) and asks Z3 whether the negation of the property is
satisfiable: ``unsat`` is a proof for every value of the symbolic inputs (timestamps, offsets,
positions, peer sets, server liveness, names); ``sat`` comes with a model, the concrete
counterexample; a timeout or an undecided query is ``unknown``. Nothing is hard-coded: a verdict
is what the solver answered.

A property is written once too, in the same dual form: ``build(ops, vars, rules)`` returns
(assumptions, claim). With ``Z3`` and symbolic variables it is the query; with ``PY`` and the
counterexample's values it evaluates the property on plain values through the model's plain
rules, which is how ``confirm`` checks that a counterexample really breaks the plain rule (the two
backends agree).

    from replcheck.specs.proofs import prove_design
    for r in prove_design("table"):
        print(r.proof, r.verdict, r.seconds)

Structural bounds (stated in each proof's ``bound``): a WAL's cleaner decision looks at up to
``PEER_SLOTS`` peers (listed or not); ZooKeeper-era queue ids chain up to ``MAX_CHAIN`` dead
servers. Values are unbounded: integers are mathematical integers, names are strings of any
length over the stated alphabets.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, NamedTuple

import z3
from replcheck.model import DESIGNS
from replcheck.model.common import rules
from replcheck.model.common.state import GLOBAL
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import PY, Ops, generic_of
from replcheck.model.table import rules as table_rules
from replcheck.model.table.rules import NO_TIMESTAMP, QueueView
from replcheck.model.table.state import BARRIER_DISABLED, NOT_RUNNING, RUNNING
from replcheck.specs.z3ops import Z3Ops, ZStr, fresh_context, zstr_ok, zstr_read, zstr_var
from replcheck.specs.z3ops import check as z3_check

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"

PEER_SLOTS = 3
"""Peers a cleaner decision is proved over (each listed or not, with or without a queue)."""
MAX_CHAIN = 3
"""Dead servers a ZooKeeper-era recovered queue id is proved over (0..MAX_CHAIN)."""
DEFAULT_TIMEOUT = 30.0
"""Seconds per Z3 query."""

HOST_CHARS = "a-z0-9.-"
"""A host name: DNS characters (letters, digits, ``-``, ``.``); HBase lower-cases host names."""
READABLE = "a-z0-9.-"
"""The characters a counterexample search uses (so a counterexample reads like a name)."""
PEER_CHARS = "!-~"
"""A peer id: printable ASCII; HBase's naming rule then forbids ``-`` (``preAddPeer``)."""


# --- variables: symbolic for Z3, or a counterexample's values for plain Python --------------------


class SymVars:
    """Fresh Z3 constants, remembered by name so a model can be read back."""

    def __init__(self, cap: int | None = None) -> None:
        self.terms: dict[str, Any] = {}
        self.constraints: list[z3.BoolRef] = []
        self.cap = cap
        """Strings of at most this many characters (a counterexample search), or any."""

    def int(self, name: str) -> z3.ArithRef:
        return self._new(name, z3.Int)

    def bool(self, name: str) -> z3.BoolRef:
        return self._new(name, z3.Bool)

    def str(self, name: str) -> ZStr:
        if name not in self.terms:
            term = self.terms[name] = zstr_var(name, self.cap)
            self.constraints.append(zstr_ok(term))
            if self.cap is not None:  # a search: readable characters (a subset of any alphabet)
                self.constraints.append(Z3Ops().chars_in(term, READABLE) | (term.length == 0))
        return self.terms[name]

    def _new(self, name: str, make: Callable[[str], Any]) -> Any:
        if name not in self.terms:
            self.terms[name] = make(name)
        return self.terms[name]

    def values(self, model: z3.ModelRef) -> dict[str, object]:
        """The model's value of every variable, as plain Python values."""
        out: dict[str, object] = {}
        for name, term in self.terms.items():
            if isinstance(term, ZStr):
                out[name] = zstr_read(model, term)
                continue
            v = model.eval(term, model_completion=True)
            if z3.is_bool(v):
                out[name] = z3.is_true(v)
            elif z3.is_int_value(v):
                out[name] = v.as_long()
        return out


class ValueVars:
    """The same interface over a counterexample's values (plain Python)."""

    def __init__(self, values: dict[str, object]) -> None:
        self.values = values

    def int(self, name: str) -> int:
        return int(self.values.get(name, 0))  # type: ignore[arg-type]

    def bool(self, name: str) -> bool:
        return bool(self.values.get(name, False))

    def str(self, name: str) -> str:
        return str(self.values.get(name, ""))


Vars = SymVars | ValueVars


class RuleSet:
    """The dual-form rules a design (or mutant) class uses, by the name of its ``rule_*`` method."""

    def __init__(self, cls: type[Design]) -> None:
        self.cls = cls

    def has(self, name: str) -> bool:
        return generic_of(self.cls, name) is not None

    def __call__(self, name: str) -> Callable[..., Any]:
        rule = generic_of(self.cls, name)
        if rule is None:
            raise KeyError(f"{self.cls.name} has no dual-form rule {name}")
        return rule


Build = Callable[[Ops, Any, RuleSet], tuple[Any, Any]]


@dataclass(frozen=True)
class Proof:
    """A property of the decision rules, to be proved for all values."""

    name: str
    era: str
    """``zk``, ``table`` or ``any``: which designs' rules it is about."""
    title: str
    meaning: str
    """What a proof (or a refutation) tells a reviewer."""
    protects: str
    """The seed or reference sentence the property protects."""
    rules: tuple[str, ...]
    """The design methods whose dual-form rules it uses (module-level rules are shared)."""
    build: Build | tuple[Build, ...]
    """The property, or one build per case (each its own query, e.g. one per chain length)."""
    bound: str = "none: all values"
    expect: str = PROVED
    """``refuted`` for a proof that documents why a naming rule exists (it must fail without)."""

    @property
    def cases(self) -> tuple[Build, ...]:
        return self.build if isinstance(self.build, tuple) else (self.build,)


@dataclass
class ProofResult:
    """One proof on one design's rules: the verdict, the counterexample, the time."""

    proof: str
    design: str
    title: str
    meaning: str
    expect: str
    verdict: str
    seconds: float
    counterexample: dict[str, object] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    bound: str = ""
    reason: str = ""
    """Why the solver gave up (``unknown`` only)."""

    @property
    def ok(self) -> bool:
        """Did the proof come out as expected?"""
        return self.verdict == self.expect

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["rules"] = list(self.rules)
        out["ok"] = self.ok
        return out


# --- shared pieces of the properties --------------------------------------------------------------


def _needs(ops: Ops, has_offset: Any, start_ts: Any, pos: Any, wal_ts: Any) -> Any:
    """Seed 004: "all the files before this offset can be deleted, otherwise not": a queue needs a
    WAL unless it has an offset and the WAL is strictly older than the offset's WAL, or is that
    WAL and the offset says it was fully replicated (a negative position). No offset or BEGIN (no
    timestamp): every WAL is needed."""
    return ops.or_(
        ops.not_(has_offset),
        start_ts == NO_TIMESTAMP,
        wal_ts > start_ts,
        ops.and_(wal_ts == start_ts, pos >= 0),
    )


def _timestamps_ok(ops: Ops, wal_ts: Any, start_ts: Any) -> Any:
    """A WAL's timestamp is digits (>= 0); an offset's WAL has one too, or none (BEGIN, -1)."""
    return ops.and_(wal_ts >= 0, ops.or_(start_ts == NO_TIMESTAMP, start_ts >= 0))


class ServerName(NamedTuple):
    host: Any
    port: Any
    start: Any


def _server(ops: Ops, v: Vars, prefix: str) -> tuple[Any, ServerName]:
    """A symbolic server name ``host,port,startcode``: (its assumptions, its parts)."""
    sn = ServerName(v.str(f"{prefix}.host"), v.str(f"{prefix}.port"), v.str(f"{prefix}.start"))
    ok = ops.and_(
        ops.chars_in(sn.host, HOST_CHARS), ops.is_digits(sn.port), ops.is_digits(sn.start)
    )
    return ok, sn


def _name(ops: Ops, sn: ServerName) -> Any:
    return rules.format_server_name(ops, sn.host, sn.port, sn.start)


def _peer(ops: Ops, v: Vars, name: str, hyphens: bool = False) -> tuple[Any, Any]:
    peer = v.str(name)
    ok = ops.chars_in(peer, PEER_CHARS)
    return (ok if hyphens else ops.and_(ok, ops.not_(ops.contains(peer, "-")))), peer


# --- the table era ------------------------------------------------------------------------------


def _should_replicate_agrees(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    has, start, pos, wal = v.bool("has_offset"), v.int("start_ts"), v.int("pos"), v.int("wal_ts")
    got = table_rules.should_replicate_rule(ops, has, start, pos, wal)
    return _timestamps_ok(ops, wal, start), ops.eq(got, _needs(ops, has, start, pos, wal))


def _should_replicate_monotone(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    has, start, pos = v.bool("has_offset"), v.int("start_ts"), v.int("pos")
    older, newer = v.int("wal_ts"), v.int("newer_wal_ts")
    sr = table_rules.should_replicate_rule
    assume = ops.and_(_timestamps_ok(ops, older, start), newer > older)
    return assume, ops.implies(sr(ops, has, start, pos, older), sr(ops, has, start, pos, newer))


class _CleanerCase(NamedTuple):
    """One WAL as the cleaner's rules see it: its timestamp, its server's liveness, a view of
    each peer, what the proof may assume of them, and whether the rule deletes it."""

    wal_ts: Any
    alive: Any
    unfinished: Any
    views: list[QueueView]
    assume: Any
    may_delete: Any


def _cleaner_case(ops: Ops, v: Vars, rs: RuleSet) -> _CleanerCase:
    """The variables both cleaner proofs quantify over, and the design's rules applied to them."""
    wal_ts = v.int("wal_ts")
    alive, unfinished = v.bool("server_alive"), v.bool("server_scp_unfinished")
    views = [
        QueueView(
            v.bool(f"peer{i}.listed"),
            v.bool(f"peer{i}.has_queue"),
            v.bool(f"peer{i}.has_offset"),
            v.int(f"peer{i}.start_ts"),
            v.int(f"peer{i}.pos"),
        )
        for i in range(PEER_SLOTS)
    ]
    assume = ops.and_(*(_timestamps_ok(ops, wal_ts, q.start_ts) for q in views))
    live = rs("rule_cleaner_live")(ops, alive, unfinished)
    has_server = ops.or_(*(q.has_queue for q in views))
    may_delete = rs("rule_cleaner_may_delete")(ops, wal_ts, live, has_server, views)
    return _CleanerCase(wal_ts, alive, unfinished, views, assume, may_delete)


def _cleaner_safety(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    c = _cleaner_case(ops, v, rs)
    wal_ts, alive, unfinished, views = c.wal_ts, c.alive, c.unfinished, c.views
    needed = ops.or_(
        *(
            ops.and_(
                q.listed,
                ops.or_(
                    ops.and_(q.has_queue, _needs(ops, q.has_offset, q.start_ts, q.pos, wal_ts)),
                    # a live or SCP-unfinished server without a queue for the peer will still get
                    # one that needs the WAL (the AddPeer fence's offset, ADD_MISSING's BEGIN)
                    ops.and_(ops.not_(q.has_queue), ops.or_(alive, unfinished)),
                ),
            )
            for q in views
        )
    )
    return c.assume, ops.implies(c.may_delete, ops.not_(needed))


def _cleaner_progress(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    """The other half of ``_cleaner_safety``: what no queue needs, the rule deletes."""
    c = _cleaner_case(ops, v, rs)
    views = c.views
    unneeded = ops.and_(
        *(
            ops.implies(
                ops.and_(q.listed, q.has_queue),
                ops.not_(_needs(ops, q.has_offset, q.start_ts, q.pos, c.wal_ts)),
            )
            for q in views
        )
    )
    every_queue = ops.and_(*(ops.implies(q.listed, q.has_queue) for q in views))
    fully_dead = ops.and_(ops.not_(c.alive), ops.not_(c.unfinished))
    return c.assume, ops.implies(
        ops.and_(unneeded, ops.or_(fully_dead, every_queue)),
        c.may_delete,
    )


def _fence(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    state, n = v.int("barrier_state"), v.int("barrier_disabled_count")
    assume = ops.and_(state >= NOT_RUNNING, state <= BARRIER_DISABLED, n >= 0)
    fence = rs("rule_fence_add")(ops)
    leaves = table_rules.add_peer_may_leave_pre(ops, fence, state)
    disabled, _n = table_rules.barrier_disable_rule(ops, state, n)
    after_pre = ops.ite(fence, disabled, state)
    return assume, ops.implies(
        leaves,
        ops.and_(state != RUNNING, ops.not_(table_rules.cleaner_may_start_rule(ops, after_pre))),
    )


def _claim_once(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    row, read_any, col = v.bool("row_present"), v.bool("read_any"), v.bool("column_present")
    cur_seq, cur_pos = v.int("current_wal"), v.int("current_pos")
    read_seq, read_pos = v.int("read_wal"), v.int("read_pos")
    holds = table_rules.claim_guard_rule(
        ops, row, read_any, col, cur_seq, cur_pos, read_seq, read_pos
    )
    applies = table_rules.claim_applies_rule(ops, rs("rule_claim_guarded")(ops), holds)
    unchanged = ops.and_(row, read_any, col, cur_seq == read_seq, cur_pos == read_pos)
    return True, ops.implies(applies, unchanged)


def _claim_sees_every_column(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    """A row of two WAL groups; the guard reads the first column only."""
    cur = [(v.int(f"group{g}.current_wal"), v.int(f"group{g}.current_pos")) for g in range(2)]
    read = [(v.int(f"group{g}.read_wal"), v.int(f"group{g}.read_pos")) for g in range(2)]
    holds = table_rules.claim_guard_rule(ops, True, True, True, *cur[0], *read[0])
    applies = table_rules.claim_applies_rule(ops, rs("rule_claim_guarded")(ops), holds)
    unchanged = ops.and_(*(c[0] == r[0] for c, r in zip(cur, read, strict=True)))
    unchanged = ops.and_(unchanged, *(c[1] == r[1] for c, r in zip(cur, read, strict=True)))
    return True, ops.implies(applies, unchanged)


def _claim_peer_known(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    known = v.bool("peer_known")
    return True, ops.implies(rs("rule_claim_peer_known")(ops, known), known)


def _table_queue_id(ops: Ops, v: Vars, tag: str, hyphen_peers: bool = False) -> tuple[Any, tuple]:
    ok_p, peer = _peer(ops, v, f"{tag}.peer", hyphen_peers)
    ok_o, owner = _server(ops, v, f"{tag}.owner")
    ok_s, source = _server(ops, v, f"{tag}.source")
    recovered = v.bool(f"{tag}.recovered")
    ok = ops.and_(ok_p, ok_o, ops.implies(recovered, ok_s))
    return ok, (peer, _name(ops, owner), recovered, _name(ops, source))


def _table_format(ops: Ops, x: tuple) -> Any:
    peer, owner, recovered, source = x
    return table_rules.format_queue_id(ops, peer, owner, recovered, source)


def _table_same(ops: Ops, x: tuple, y: tuple) -> Any:
    return ops.and_(
        ops.eq(x[0], y[0]),
        ops.eq(x[1], y[1]),
        ops.eq(x[2], y[2]),
        ops.implies(x[2], ops.eq(x[3], y[3])),
    )


def _table_queue_id_roundtrip(
    ops: Ops, v: Vars, rs: RuleSet, hyphen_peers: bool = False
) -> tuple[Any, Any]:
    ok, x = _table_queue_id(ops, v, "id", hyphen_peers)
    valid, peer, owner, recovered, source = table_rules.parse_queue_id_rule(
        ops, _table_format(ops, x)
    )
    return ok, ops.and_(valid, _table_same(ops, x, (peer, owner, recovered, source)))


def _congruence(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    """The step from a round trip to injectivity, checked by Z3 over uninterpreted functions:
    if ``parse(format(x)) == x`` for every valid ``x``, then ``format(a) == format(b)`` implies
    ``a == b``. (Nothing to evaluate on plain values: it has no counterexample.)"""
    if not isinstance(ops, Z3Ops):
        return True, True
    ids, texts = z3.DeclareSort("QueueId"), z3.DeclareSort("Name")
    fmt = z3.Function("format", ids, texts)
    parse = z3.Function("parse", texts, ids)
    valid = z3.Function("valid", ids, z3.BoolSort())
    x, a, b = z3.Const("x", ids), z3.Const("a", ids), z3.Const("b", ids)
    roundtrip = z3.ForAll([x], z3.Implies(valid(x), parse(fmt(x)) == x))
    return z3.And(roundtrip, valid(a), valid(b)), z3.Implies(fmt(a) == fmt(b), a == b)


def _wal_name_roundtrip(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    ok_s, sn = _server(ops, v, "server")
    multiwal, group, ts = v.bool("multiwal"), v.str("group"), v.str("ts")
    provider = ops.ite(multiwal, ops.concat(".regiongroup-", group), "")
    assume = ops.and_(ok_s, ops.implies(multiwal, ops.is_digits(group)), ops.is_digits(ts))
    group_id = table_rules.format_wal_group_id(ops, sn.host, sn.port, sn.start, provider)
    p = table_rules.parse_wal_file_name_rule(
        ops, table_rules.format_wal_file_name(ops, group_id, ts)
    )
    return assume, ops.and_(
        p.valid_name,
        p.valid_server,
        ops.eq(p.group, group_id),
        ops.eq(p.host, sn.host),
        ops.eq(p.port, sn.port),
        ops.eq(p.start, sn.start),
        ops.eq(p.ts, ts),
    )


# --- the ZooKeeper era ----------------------------------------------------------------------------


class _SymQueue(NamedTuple):
    wals: tuple


def _zk_cleaner_safety(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    def key(tag: str) -> tuple:
        return (v.int(f"{tag}.server"), v.int(f"{tag}.group"), v.int(f"{tag}.seq"))

    wal = key("wal")
    queues = [
        _SymQueue(tuple((key(f"queue{q}.wal{w}"), v.int(f"queue{q}.wal{w}.pos")) for w in range(2)))
        for q in range(2)
    ]
    may_delete = rules.may_delete_wal_rule(ops, wal, rules.queue_wal_keys_rule(queues))
    named = ops.or_(
        *(
            ops.and_(*(a == b for a, b in zip(k, wal, strict=True)))
            for q in queues
            for k, _ in q.wals
        )
    )
    return True, ops.implies(may_delete, ops.not_(named))


def _zk_ids(
    ops: Ops, v: Vars, tag: str, n: int, hyphen_peers: bool = False
) -> tuple[Any, Any, list]:
    ok_p, peer = _peer(ops, v, f"{tag}.peer", hyphen_peers)
    oks, names = [ok_p], []
    for i in range(n):
        ok, sn = _server(ops, v, f"{tag}.dead{i}")
        oks.append(ok)
        names.append(_name(ops, sn))
    return ops.and_(*oks), peer, names


def _parsed_is(ops: Ops, parsed: rules.ParsedZkQueueId, peer: Any, names: Sequence[Any]) -> Any:
    got_peer, slots, more = parsed
    parts = [ops.eq(got_peer, peer), ops.not_(more)]
    for i, (present, name) in enumerate(slots):
        if i < len(names):
            parts += [present, ops.eq(name, names[i])]
        else:
            parts.append(ops.not_(present))
    return ops.and_(*parts)


def _zk_queue_id_roundtrip(
    ops: Ops,
    v: Vars,
    rs: RuleSet,
    hyphen_peers: bool = False,
    chains: Iterable[int] = (),
    parse: Callable[..., Any] | None = None,
) -> tuple[Any, Any]:
    parse = parse or rs("rule_parse_queue_id")
    assumes, claims = [], []
    for n in chains or range(MAX_CHAIN + 1):
        ok, peer, names = _zk_ids(ops, v, "id", n, hyphen_peers)
        text = rules.format_zk_queue_id(ops, peer, names)
        assumes.append(ok)
        claims.append(_parsed_is(ops, parse(ops, text, n + 1), peer, names))
    return ops.and_(*assumes), ops.and_(*claims)


def _zk_claimed_chain(ops: Ops, v: Vars, rs: RuleSet, n: int = 0) -> tuple[Any, Any]:
    parse, claimed = rs("rule_parse_queue_id"), rs("rule_claimed_chain")
    ok_d, dead = _server(ops, v, "dead")
    ok, peer, chain = _zk_ids(ops, v, "queue", n)
    new = claimed(ops, chain, _name(ops, dead))
    text = rules.format_zk_queue_id(ops, peer, list(new))
    expected = [*chain, _name(ops, dead)]
    return ops.and_(ok_d, ok), _parsed_is(ops, parse(ops, text, n + 2), peer, expected)


def _zk_claim_once(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    applies = rs("claim_applies")
    old, same, exists = v.bool("old_queue_present"), v.bool("same_wals"), v.bool("new_queue_exists")
    second_same, second_exists = v.bool("second.same_wals"), v.bool("second.new_queue_exists")
    first = applies(ops, old, same, exists)
    # once the first claim applied, its multi deleted the old queue: the second finds it absent
    second = applies(ops, False, second_same, second_exists)
    return True, ops.and_(ops.implies(first, ops.and_(old, ops.not_(exists))), ops.not_(second))


def _zk_start_position(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    stored = v.int("stored_position")
    return stored >= 0, rs("rule_start_position")(ops, stored) == stored


def _zk_wal_done(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    newer, closed = v.bool("newer_wal_queued"), v.bool("closed")
    pos, length = v.int("position"), v.int("entries")
    done = rs("rule_wal_done")(ops, newer, closed, pos, length)
    return ops.and_(pos >= 0, length >= 0), ops.implies(
        done, ops.and_(newer, closed, pos >= length)
    )


def _zk_drop_claimed(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    removed = v.bool("peer_removed")
    return True, ops.eq(rs("rule_drop_claimed_queue")(ops, removed), removed)


def _ships(ops: Ops, v: Vars, rs: RuleSet) -> tuple[Any, Any]:
    kind, target = v.int("kind"), v.int("target")
    ids = [v.int(f"cluster_id{i}") for i in range(3)]
    ships = rs("rule_ships")(ops, kind, ids, target)
    spec = ops.and_(kind == GLOBAL, *(c != target for c in ids))
    return ops.and_(kind >= 0, kind <= 2), ops.eq(ships, spec)


# --- the catalogue --------------------------------------------------------------------------------

SHOULD_REPLICATE_SENTENCE = (
    'Seed 004: "all the files before this offset can be deleted, otherwise not"; reference 1: '
    '"A negative value means this file has already been fully replicated out".'
)
CLEANER_SENTENCE = (
    'Seed 004: "if there is a missing queue, then we do not delete the file" and "If SCP is not '
    'scheduled or not finished, we should still treat it as a live region server".'
)
NAMES_SENTENCE = (
    "Reference 1: \"peer ids may not contain '-' ... Hostnames may contain '-'\"; \"'/' separates "
    'the two server names (not valid in a hostname)".'
)
ZK_NAMES_SENTENCE = (
    "Reference 3a: recovered queue ids chain dead servers, \"split on '-' only after having seen 2 "
    'commas, to tolerate hyphenated hostnames — HBASE-8207".'
)

PROOFS: tuple[Proof, ...] = (
    Proof(
        "should-replicate-order",
        "table",
        "shouldReplicate agrees with the offset",
        "For any WAL and group offset (any timestamps, any position), shouldReplicate says yes "
        "exactly when the WAL is at or after the offset's WAL in timestamp order and not the "
        "offset's own WAL fully replicated (a negative position); no offset or BEGIN needs all.",
        SHOULD_REPLICATE_SENTENCE,
        (),
        _should_replicate_agrees,
    ),
    Proof(
        "should-replicate-monotone",
        "table",
        "shouldReplicate never skips ahead",
        "If a queue's offset needs a WAL, it needs every newer WAL of the group too: no WAL "
        "between the offset and the newest is ever taken as done.",
        SHOULD_REPLICATE_SENTENCE,
        (),
        _should_replicate_monotone,
    ),
    Proof(
        "cleaner-safety",
        "table",
        "the log cleaner never deletes a needed WAL",
        "For any WAL timestamp, any liveness of its server (online, crashed with SCP unfinished, "
        "fully dead), and any peers (listed in the snapshot or not, each with or without a queue "
        "and a group offset of any timestamp and position): when the cleaner's rule deletes the "
        "WAL, no listed peer's queue still needs it, and no live or SCP-unfinished server lacks a "
        "queue that will still be created to replicate it.",
        CLEANER_SENTENCE,
        ("rule_cleaner_may_delete", "rule_cleaner_live"),
        _cleaner_safety,
        bound=f"up to {PEER_SLOTS} peers per WAL (listed or not); all values otherwise",
    ),
    Proof(
        "cleaner-progress",
        "table",
        "the log cleaner deletes what no queue needs",
        "For any WAL timestamp, any liveness of its server and any peers: when no listed peer's "
        "queue needs the WAL, the cleaner's rule deletes it if its server is fully dead (a "
        "finished queue was removed, and a server with no queue left has nothing to replicate) "
        "or if every listed peer has a queue for it.",
        'Reference 6: filterForDeadRegionServer "m = replicationOffsets.get(sn); if m is None: '
        'DELETE", and for each peer "o is None: continue # queue finished & removed".',
        ("rule_cleaner_may_delete", "rule_cleaner_live"),
        _cleaner_progress,
        bound=f"up to {PEER_SLOTS} peers per WAL (listed or not); all values otherwise",
    ),
    Proof(
        "add-peer-fence",
        "table",
        "AddPeer fences the log cleaner",
        "For any barrier state and any number of AddPeerProcedures holding it: an AddPeerProcedure "
        "leaves PRE only when no cleaner run holds the barrier, and afterwards no cleaner run can "
        "start, so no cleaner works from a peer list that predates the new peer (HBASE-27214).",
        'Reference 5: "prePeerModification: ReplicationLogCleanerBarrier.disable(); if it returns '
        'false (cleaner running) -> suspend with backoff".',
        ("rule_fence_add",),
        _fence,
    ),
    Proof(
        "claim-once",
        "table",
        "a claim applies only to the row it read",
        "claimQueue's delete+put is processed only while the queue row still exists with the "
        "first column unchanged since it was read: a second claim of a queue already moved finds "
        "no row and changes nothing, so a queue is claimed once.",
        'Reference 2: "Delete+Put are atomic; if two RSs race, exactly one wins".',
        ("rule_claim_guarded",),
        _claim_once,
    ),
    Proof(
        "claim-guard-one-column",
        "table",
        "the claim's guard does not see other groups' columns",
        "A known limitation, shown concretely: the guard compares the first column read only, so "
        "a write to another WAL group's column between the read and the mutation is not "
        "detected, and the claim copies the stale offset read (reference 2, inferred). Expected "
        "refuted; the counterexample is such a write.",
        'Reference 2: "(inferred: a concurrent write to a different walGroup column of the old '
        'row between get and mutate is not detected by the single-column guard)".',
        ("rule_claim_guarded",),
        _claim_sees_every_column,
        expect=REFUTED,
        bound="a row of two WAL groups",
    ),
    Proof(
        "claim-peer-known",
        "any",
        "a claim goes ahead only for a known peer",
        "A claimer replicates a claimed queue only for a peer it knows: a removed peer's queue "
        "is not replicated (and its row does not outlive RemovePeerProcedure).",
        'Reference 4: "oldPeer = replicationPeers.getPeer(peerId); if null: return # no claim".',
        ("rule_claim_peer_known",),
        _claim_peer_known,
    ),
    Proof(
        "queue-id-roundtrip",
        "table",
        "queue ids (row keys) parse back",
        "For any peer id without '-', any owner and (for a recovered queue) source server name "
        "with a DNS host name (which may contain '-') and digit port and start code: parsing the "
        "row key ReplicationQueueId.toString() gives back the peer, the owner, whether it is "
        "recovered, and the source.",
        NAMES_SENTENCE,
        (),
        _table_queue_id_roundtrip,
    ),
    Proof(
        "queue-id-injective",
        "table",
        "distinct queues have distinct row keys",
        "No two different queue ids (under HBase's naming rules) share a row key, so one row is "
        "one queue: the parser reads every row key back, and a format with a left inverse is "
        "injective (a congruence query).",
        NAMES_SENTENCE,
        (),
        (_table_queue_id_roundtrip, _congruence),
        bound="from the round trip (the row key parser is a left inverse) and congruence",
    ),
    Proof(
        "queue-id-hyphen-peer",
        "table",
        "HBASE-11394: a peer id with '-' would not parse back",
        "Without the rule that peer ids contain no '-', some row key parses to the wrong peer: "
        "the refutation is the ambiguous name, and why preAddPeer rejects such ids.",
        "Reference 1: \"peer ids may not contain '-' (enforced in "
        'ReplicationPeerManager.preAddPeer)".',
        (),
        partial(_table_queue_id_roundtrip, hyphen_peers=True),
        expect=REFUTED,
    ),
    Proof(
        "wal-name-roundtrip",
        "table",
        "WAL file names parse back",
        "For any server name with a DNS host name, digit port and start code, any provider id "
        "(none, or .regiongroup-N) and any timestamp: parsing the WAL file name gives back its "
        "group (the prefix the cleaner and claim key offsets by), the server name and the "
        "timestamp shouldReplicate compares.",
        'Reference 6: "WAL_FILE_NAME_PATTERN = (.+)\\.(\\d+)(\\.[0-9A-Za-z]+)?"; '
        '"parseServerNameFromWALName(name): URL-decode, ^host,port,startcode".',
        (),
        _wal_name_roundtrip,
        bound="timestamps as their digit strings; all values otherwise",
    ),
    Proof(
        "zk-cleaner-safety",
        "zk",
        "the ZooKeeper-era cleaner never deletes a queued WAL",
        "For any WAL and any queues' WAL znodes, the cleaner's lookup deletes a WAL only when no "
        "queue names it.",
        'Seed 003: "the cleaning thread will lookup every queue until it finds the log ... If '
        "it's not found, the log will be deleted\".",
        (),
        _zk_cleaner_safety,
        bound="2 queues of 2 WAL znodes each (repeats allowed, so 1 to 4 distinct WALs)",
    ),
    Proof(
        "zk-queue-id-roundtrip",
        "zk",
        "recovered queue ids parse back",
        "For any peer id without '-' and a chain of dead server names with DNS host names (which "
        "may contain '-'): parsing the queue znode's name gives back the peer and every dead "
        "server, in claim order.",
        ZK_NAMES_SENTENCE,
        ("rule_parse_queue_id",),
        tuple(partial(_zk_queue_id_roundtrip, chains=(n,)) for n in range(MAX_CHAIN + 1)),
        bound=f"chains of 0 to {MAX_CHAIN} dead servers (one query per length)",
    ),
    Proof(
        "zk-queue-id-injective",
        "zk",
        "distinct recovered queues have distinct names",
        "No two different (peer, chain of dead servers) share a queue znode name: the model's "
        "parser reads every name back (one query per chain length), and a format with a left "
        "inverse is injective (a congruence query).",
        ZK_NAMES_SENTENCE,
        (),
        (
            *(
                partial(_zk_queue_id_roundtrip, chains=(n,), parse=rules.parse_zk_queue_id_rule)
                for n in range(MAX_CHAIN + 1)
            ),
            _congruence,
        ),
        bound=f"chains of 0 to {MAX_CHAIN} dead servers; from the round trip through the "
        "model's parser (a left inverse) and congruence",
    ),
    Proof(
        "zk-queue-id-hyphen-peer",
        "zk",
        "HBASE-11394: a peer id with '-' would not parse back",
        "Without the rule that peer ids contain no '-', some recovered queue name parses to the "
        "wrong peer and dead server: the refutation is the ambiguous name.",
        "Reference 1: \"peer ids may not contain '-'\".",
        ("rule_parse_queue_id",),
        partial(_zk_queue_id_roundtrip, hyphen_peers=True, chains=(1,)),
        expect=REFUTED,
        bound="one dead server",
    ),
    Proof(
        "zk-claimed-chain",
        "zk",
        "a claimed queue's name ends with the dead server",
        "Claiming a queue appends the dead server's name to its id, and the id parses back to the "
        "old chain followed by that server: the claimed queue never keeps (and collides with) its "
        "old name, and its WALs are looked for in the right server's directory.",
        'Seed 000: "The recovered znodes are then renamed with the slave cluster ID appended to '
        'the name of the server that failed".',
        ("rule_claimed_chain", "rule_parse_queue_id"),
        tuple(partial(_zk_claimed_chain, n=n) for n in range(MAX_CHAIN)),
        bound=f"chains of 0 to {MAX_CHAIN - 1} dead servers before the claim (one query each)",
    ),
    Proof(
        "zk-claim-once",
        "zk",
        "of two racing claims, one applies",
        "A claim's multi applies only while the old queue is there and the new one is not; once "
        "one claim applied (the old queue is gone), a second claim of the same queue fails.",
        'Reference 3a: "On NoNode/NodeExists/NotEmpty/BadVersion -> someone else took the log".',
        ("claim_applies",),
        _zk_claim_once,
    ),
    Proof(
        "zk-start-position",
        "zk",
        "a recovered source resumes at the stored position",
        "A recovered source starts its first WAL at the position stored in ZooKeeper, for any "
        "position: it neither re-reads nor writes an older position back.",
        'Seed 003: the WAL znode holds "the latest position that has been replicated".',
        ("rule_start_position",),
        _zk_start_position,
    ),
    Proof(
        "zk-wal-done",
        "zk",
        "a WAL leaves its queue only when closed, read and superseded",
        "A source drops its head WAL from its queue only when it is closed, read to its end and a "
        "newer WAL is queued.",
        'Seed 001: "reading up to the end of the current file does not delete the item in the '
        'queue".',
        ("rule_wal_done",),
        _zk_wal_done,
    ),
    Proof(
        "zk-drop-removed-peer",
        "zk",
        "a claimed queue of a removed peer is dropped",
        "A survivor deletes a claimed queue exactly when its peer has been removed (HBASE-17077).",
        'Reference 3b: "moveQueueUsingMulti (if the peer is gone it just deletes the queue: '
        'HBASE-17077)".',
        ("rule_drop_claimed_queue",),
        _zk_drop_claimed,
    ),
    Proof(
        "ships-filter",
        "any",
        "the source ships exactly the replicable edits",
        "For any edit scope and any clusters that consumed it, a source ships it to a cluster "
        "exactly when it is GLOBAL-scoped and did not come from (or pass through) that cluster.",
        'Seed 002: edits "part of a column family whose schema is scoped GLOBAL", "not part of a '
        'catalog", and that "have not originated from the target slave cluster".',
        ("rule_ships",),
        _ships,
        bound="up to 3 cluster ids per edit (repeats allowed)",
    ),
)
"""Every proof, in the order reports list them."""

BY_NAME: dict[str, Proof] = {p.name: p for p in PROOFS}


# --- running --------------------------------------------------------------------------------------


def applies_to(proof: Proof, cls: type[Design]) -> bool:
    """Is the proof about this design's rules (its era, and every rule it uses is dual-form)?"""
    if proof.era != "any" and proof.era != cls.era:
        return False
    return all(generic_of(cls, r) is not None for r in proof.rules)


def proofs_for(cls: type[Design]) -> list[Proof]:
    return [p for p in PROOFS if applies_to(p, cls)]


def unreadable_rules(proof: Proof, cls: type[Design]) -> list[str]:
    """The rules of ``proof`` that a base of ``cls`` writes in dual form but ``cls`` overrides
    with a plain method Z3 cannot read: the proof is about this design, and cannot judge it."""
    if proof.era != "any" and proof.era != cls.era:
        return []
    return [
        r
        for r in proof.rules
        if generic_of(cls, r) is None and any(generic_of(b, r) is not None for b in cls.__mro__)
    ]


def unjudged(proof: Proof, cls: type[Design]) -> ProofResult:
    """The undecided result of a proof about a rule the design overrides in plain Python."""
    rules = unreadable_rules(proof, cls)
    return ProofResult(
        proof=proof.name,
        design=cls.name,
        title=proof.title,
        meaning=proof.meaning,
        expect=proof.expect,
        verdict=UNKNOWN,
        seconds=0.0,
        counterexample={},
        rules=proof.rules,
        bound=proof.bound,
        reason=f"cannot judge: {cls.name} overrides {', '.join(rules)} with a plain method; write "
        "it in dual form (model.logic.dual) so that Z3 can read it",
    )


def rule_level(cls: type[Design]) -> bool:
    """Is a mutant rule-level: does it override a pure decision rule, in dual form?"""
    return bool(cls.overrides) and generic_of(cls, cls.overrides or "") is not None


def _key(proof: Proof, cls: type[Design], timeout: float) -> tuple:
    return (proof.name, tuple(generic_of(cls, r) for r in proof.rules), timeout)


_CACHE: dict[tuple, ProofResult] = {}


def run(proof: Proof, cls: type[Design], timeout: float = DEFAULT_TIMEOUT) -> ProofResult:
    """Prove ``proof`` about ``cls``'s rules: ``unsat`` of (assumptions and not claim). Designs
    that share the rules share the (cached) answer."""
    key = _key(proof, cls, timeout)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _solve(proof, cls, timeout)
        if cached.verdict != UNKNOWN:  # an answer that ran out of time is asked again
            _CACHE[key] = cached
    out = ProofResult(**{**cached.__dict__, "design": cls.name})
    out.counterexample = dict(cached.counterexample)
    return out


SEARCH_LENGTH = 8
"""The longest strings a quick counterexample search tries (a model found under this bound is a
model of the unbounded query too: it only ever refutes)."""
SEARCH_SHARE = 0.25
"""The share of the timeout a quick counterexample search may take."""


def _query(
    proof: Proof, case: int, cls: type[Design], timeout: float, bounded: bool
) -> tuple[Any, dict[str, object], str]:
    """One Z3 query, in a context of its own: (answer, counterexample values, why unknown)."""
    with fresh_context():
        return _query_here(proof, case, cls, timeout, bounded)


def _query_here(
    proof: Proof, case: int, cls: type[Design], timeout: float, bounded: bool
) -> tuple[Any, dict[str, object], str]:
    v, ops = SymVars(SEARCH_LENGTH if bounded else None), Z3Ops()
    assume, claim = proof.cases[case](ops, v, RuleSet(cls))
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(*v.constraints, *ops.side)
    solver.add(z3.BoolVal(True) if assume is True else assume)
    solver.add(z3.Not(claim) if not isinstance(claim, bool) else z3.BoolVal(not claim))
    answer = z3_check(solver)
    if answer == z3.sat:
        values = v.values(solver.model())
        if len(proof.cases) > 1:
            values["case"] = case
        return answer, values, ""
    return answer, {}, solver.reason_unknown() if answer == z3.unknown else ""


def _solve(proof: Proof, cls: type[Design], timeout: float) -> ProofResult:
    """Every case of the proof: proved when each is ``unsat``; refuted by the first ``sat``. A
    proof expected to be refuted, or about a mutant's rules, first searches for a counterexample
    among short strings; a proof whose full query is undecided searches afterwards."""
    started = time.perf_counter()
    quick_first = proof.expect == REFUTED or (cls.is_mutant() and cls.overrides in proof.rules)
    verdict, cex, reasons = PROVED, {}, []
    for case in range(len(proof.cases)):
        answer = None
        if quick_first:
            answer, cex, _ = _query(proof, case, cls, timeout * SEARCH_SHARE, bounded=True)
            if answer != z3.sat:
                answer = None
        if answer is None:
            answer, cex, why = _query(proof, case, cls, timeout, bounded=False)
            if answer == z3.unknown and not quick_first:
                found, cex, _ = _query(proof, case, cls, timeout * SEARCH_SHARE, bounded=True)
                if found == z3.sat:
                    answer = found
            if answer == z3.unknown:
                reasons.append(f"case {case}: {why}" if len(proof.cases) > 1 else why)
        if answer == z3.sat:
            verdict = REFUTED
            break
        if answer == z3.unknown:
            verdict = UNKNOWN
    return ProofResult(
        proof=proof.name,
        design=cls.name,
        title=proof.title,
        meaning=proof.meaning,
        expect=proof.expect,
        verdict=verdict,
        seconds=time.perf_counter() - started,
        counterexample=cex if verdict == REFUTED else {},
        rules=proof.rules,
        bound=proof.bound,
        reason="; ".join(reasons) if verdict == UNKNOWN else "",
    )


def confirm(proof: Proof, cls: type[Design], counterexample: dict[str, object]) -> bool:
    """Evaluate the property on a counterexample's values with the PLAIN rules (``PY``): True
    when the assumptions hold and the claim fails, i.e. the plain rule really breaks it."""
    build = proof.cases[int(counterexample.get("case", 0))]  # type: ignore[call-overload]
    assume, claim = build(PY, ValueVars(counterexample), RuleSet(cls))
    return bool(assume) and not bool(claim)


def _cls(design: str | type[Design]) -> type[Design]:
    if isinstance(design, str):
        try:
            return DESIGNS[design]
        except KeyError:
            raise KeyError(f"unknown design {design!r}") from None
    return design


def prove_design(
    design: str | type[Design], timeout: float = DEFAULT_TIMEOUT, only: Iterable[str] = ()
) -> list[ProofResult]:
    """Every proof about a design's (or mutant's) rules. A mutant's expectation: proofs that use
    its overridden rule are expected refuted; the others proved (they are its base's)."""
    cls = _cls(design)
    wanted = set(only)
    out = []
    for proof in PROOFS:
        if wanted and proof.name not in wanted:
            continue
        if unreadable_rules(proof, cls):
            out.append(unjudged(proof, cls))
            continue
        if not applies_to(proof, cls):
            continue
        result = run(proof, cls, timeout)
        if cls.is_mutant() and cls.overrides in proof.rules and result.verdict == REFUTED:
            result.expect = REFUTED  # the mutant's broken rule is caught here
        out.append(result)
    return out


@dataclass
class DesignProofs:
    """Every proof about one design's or mutant's rules, and whether they came out as expected."""

    design: str
    mutant_of: str | None
    rule_level: bool
    """For a mutant: does it override a pure decision rule (in dual form)?"""
    results: list[ProofResult]
    note: str = ""

    @property
    def refuted(self) -> list[str]:
        return [r.proof for r in self.results if r.verdict == REFUTED and r.expect == PROVED]

    @property
    def caught(self) -> list[str]:
        """For a mutant: the proofs of its overridden rule that refute it."""
        cls = DESIGNS.get(self.design)
        over = cls.overrides if cls else None
        return [
            r.proof
            for r in self.results
            if r.verdict == REFUTED and over in r.rules and BY_NAME[r.proof].expect == PROVED
        ]

    @property
    def ok(self) -> bool:
        """A correct design: every proof as expected. A rule-level mutant: refuted by a proof of
        its rule, and nothing else broken. Any other mutant: its base's proofs as expected."""
        if self.mutant_of is not None and self.rule_level:
            return bool(self.caught) and all(r.ok or r.proof in self.caught for r in self.results)
        return all(r.ok for r in self.results)

    @property
    def cell(self) -> str:
        """The matrix cell: ``ok``, ``FAIL(z)`` (refuted), or ``?`` (undecided)."""
        if any(r.verdict == REFUTED and r.expect == PROVED for r in self.results) or (
            self.mutant_of and self.caught
        ):
            return "FAIL(z)"
        if any(r.verdict == UNKNOWN for r in self.results):
            return "?"
        return "ok"

    def to_dict(self) -> dict[str, object]:
        return {
            "design": self.design,
            "mutant_of": self.mutant_of,
            "rule_level": self.rule_level,
            "ok": self.ok,
            "refuted": self.caught if self.mutant_of else self.refuted,
            "note": self.note,
            "proofs": [r.to_dict() for r in self.results],
        }


_REASONS = {
    "rule_remove_passes": "how many removeAllQueues passes are needed shows only against claims "
    "running concurrently: a property of the transitions (exploration, BMC)",
    "rule_migration_fences_cleaner": "whether the migration holds the cleaner barrier shows only "
    "in interleavings with a cleaner run: a property of the transitions",
    "rule_removal_pending": "reads which claim procedures are still running from the state",
    "rule_recovered_done": "reads the other shippers registered in the server's state",
    "rule_recovered_wals": "lists WAL files from the state (which files exist where)",
    "rule_syncup_wals": "lists WAL files from the state (which files exist where)",
    "rule_syncup_add_missing": "scans the queue rows and WAL directories in the state",
    "rule_refuse_recovered": "reads the sync-replication states the server knows (not a queue "
    "safety rule; a candidate for a dual form later)",
    "rule_claims_allowed": "reads the migration procedure's progress from the state",
    "rule_rerun_add_missing": "chooses whether every CLAIM round writes the missing queues "
    "again: its harm shows only against a claim that moved a queue away (exploration, BMC)",
    "rule_position_after_switch": "sets where the reader starts the next WAL: its harm shows only "
    "in what the source then ships and persists (exploration, BMC)",
    "rule_position_after_ship": "sets the reader's position after a shipped batch: its harm "
    "shows only in what the source ships next (exploration, BMC)",
    "rule_cleaner_validates_names": "decides whether a run of the cleaner gets through a file "
    "that is not a WAL: its harm shows only over runs repeated for ever (liveness)",
    "rule_syncup_claims": "reads the marker files an earlier ReplicationSyncUp run left in the "
    "state",
    "rule_write_failure_aborts": "chooses the server's reaction to a failed write: its harm "
    "shows only in what the server then never ships (exploration, BMC)",
    "rule_previous_range_pushed": "is a rule of the serial feature's text "
    "(model/features/serial.py), "
    "not a dual-form rule of the design: its harm shows in the order a serial peer applies a "
    "region's edits (exploration, BMC)",
    "rule_refs_before_commit": "chooses whether a bulk load's hfile references come before its "
    "commit: its harm shows only against a compaction and the hfile cleaner in between "
    "(exploration, BMC)",
    "rule_seq_ids_with_offset": "chooses whether the last pushed sequence ids go in the offset's "
    "own mutation: its harm shows only against a crash between two writes (exploration, BMC)",
    "rule_replays_remote_wals": "chooses whether STANDBY -> DOWNGRADE_ACTIVE runs "
    "RecoverStandbyProcedure: its harm shows only in the states the transition then reaches "
    "(exploration, BMC)",
    "rule_remote_wal_removable": "reads from the state whether the ACTIVE replicated the remote "
    "WAL's edit to cluster 0",
}


def non_rule_level_reason(cls: type[Design]) -> str:
    """Why a mutant is not rule-level (it is caught by exploration, not by these proofs)."""
    over = cls.overrides or ""
    if not over and cls.adds:
        return f"adds {', '.join(cls.adds)} to the protocol's transitions, not a decision rule"
    if over in _REASONS:
        return f"{over} {_REASONS[over]}"
    if any(unreadable_rules(p, cls) for p in PROOFS):
        return (
            f"overrides the dual-form rule {over} with a plain method that Z3 cannot read: the "
            "proofs about it cannot judge it (write it with model.logic.dual)"
        )
    if over.startswith(("do_", "en_")):
        return f"overrides the protocol step {over}: a transition, not a decision rule"
    if over.startswith("rule_"):
        return (
            f"{over} decides from a scan of the state (rows, WALs, procedures), not from a "
            "pure decision rule's inputs"
        )
    return f"overrides {over}: part of the protocol's transitions, not a decision rule"


def prove(
    designs: Iterable[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    only: Iterable[str] = (),
) -> list[DesignProofs]:
    """Proofs for each named design and mutant (default: every correct design); ``only``
    restricts them to the named proofs."""
    from replcheck.model import designs as correct

    names = list(designs) if designs is not None else correct()
    wanted = tuple(only)
    out = []
    for name in dict.fromkeys(names):
        cls = _cls(name)
        level = rule_level(cls) if cls.is_mutant() else False
        results = prove_design(cls, timeout, wanted)
        note = "" if not cls.is_mutant() or level else non_rule_level_reason(cls)
        out.append(DesignProofs(cls.name, cls.mutant_of, level, results, note))
    return out
