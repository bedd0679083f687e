"""Drawing states the way the seeds draw znode layouts. Pure: every function returns a string (or a
JSON-ready dict) and does no I/O.

* ``render_state(cfg, state)``: the ``/hbase/replication/rs/`` tree exactly as seed 000 draws it
  (queue znodes named ``2-1.1.1.2,60020,123456790``, WAL znodes with their position, the ``lock``
  child and who holds it, dead servers marked), then compact sections: peers and the replication
  state znode, WAL files, in-memory sources, sink clusters, relays, the log cleaner, budgets;
* ``render_rs_tree(cfg, state)``: the tree alone;
* ``render_diff(cfg, before, after)``: what one step changed, one line per changed fact;
* ``describe_action(design, action, cfg, state)``: an action with its parameters named
  (``ship(server=1.1.1.1,60020,123456780, shipper=0, sink=0)``);
* ``state_dict(cfg, state)``: the state as plain JSON data, with the same names.

Every name comes from ``rules`` (``server_name``, ``wal_name``, ``queue_id``, ``peer_id``), so a
drawing reads like the design doc and matches what the reference cluster writes.

A table-era state (``TState``) is drawn by ``render_table``: every public function here hands it
over, so counterexamples from any checker draw either era.
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import SequenceMatcher

from . import rules
from .action import Action
from .config import Config
from .design import Design
from .state import (
    DELETING,
    IDLE,
    KIND_NAMES,
    NO_LOCK,
    PEER_STATUS_NAMES,
    READING,
    WAL_PLACE_NAMES,
    Edit,
    Queue,
    Server,
    Shipper,
    State,
    Uid,
    WalKey,
    bits,
)
from .table_state import TState

RS_ROOT = "/hbase/replication/rs/"
PEERS_ROOT = "/hbase/replication/peers/"
STATE_ZNODE = "/hbase/replication/state"

_PHASES = {IDLE: "idle", READING: "reading", DELETING: "deleting"}


# --- small names -----------------------------------------------------------------------------


def _server(cfg: Config, s: int) -> str:
    if 0 <= s < cfg.servers:
        return rules.server_name(cfg, s)
    return f"<server {s}>"


def _peer(p: int) -> str:
    return rules.peer_id(p)


def _kind(kind: int) -> str:
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind{kind}"


def _cluster(cfg: Config, c: int) -> str:
    """``cluster 0 (source)``, ``cluster 1 (peer 2)``, or ``cluster 3`` beyond the peers."""
    if c == 0:
        return "cluster 0 (source)"
    if c <= cfg.peers:
        return f"cluster {c} (peer {_peer(c - 1)})"
    return f"cluster {c}"


def _mask(mask: int) -> str:
    return "{" + ",".join(map(str, bits(mask))) + "}"


def _list(items: list[str], empty: str = "-") -> str:
    return " ".join(items) if items else empty


def edit_label(cfg: Config, uid: Uid, *, qualified: bool = False) -> str:
    """An edit's name: ``e<index>`` within its WAL (qualified: ``<wal name>:e<index>``) for edits
    written at the source cluster, ``c<cluster>.e<n>`` for the n-th edit written at another."""
    if uid and uid[0] == 0 and len(uid) == 5:
        _zero, s, g, seq, index = uid
        if qualified:
            return f"{rules.wal_name(cfg, (s, g, seq))}:e{index}"
        return f"e{index}"
    if len(uid) == 2:
        return f"c{uid[0]}.e{uid[1]}"
    return "edit" + ".".join(map(str, uid))


def _edit(cfg: Config, e: Edit) -> str:
    text = f"{edit_label(cfg, e.uid)}:{_kind(e.kind)}"
    if e.cluster_ids != (0,):
        text += "[ids " + ",".join(map(str, e.cluster_ids)) + "]"
    if e.owed:
        text += "->" + ",".join(_peer(p) for p in bits(e.owed))
    return text


def _applied(
    cfg: Config, uids: tuple[Uid, ...], wal_name: Callable[[Config, WalKey], str] = rules.wal_name
) -> str:
    """Applied edit ids, grouped by WAL: ``1.1.1.1,60020.1234:e0,e1 c1.e0``; ``wal_name`` is the
    era's WAL file name."""
    groups: dict[str, list[str]] = {}
    for uid in uids:
        if uid and uid[0] == 0 and len(uid) == 5:
            groups.setdefault(wal_name(cfg, uid[1:4]), []).append(f"e{uid[4]}")
        else:
            groups.setdefault(edit_label(cfg, uid), [])
    return _list([f"{k}:{','.join(v)}" if v else k for k, v in groups.items()])


def _wal(cfg: Config, key: WalKey) -> str:
    return rules.wal_name(cfg, key)


def _wal_status(cfg: Config, st: State, key: WalKey) -> str:
    """``WALs``/``oldWALs``/``deleted``/``missing``: where the WAL file is."""
    slot = cfg.slot(key)
    wal = st.wals[slot] if 0 <= slot < len(st.wals) else ()
    if not wal:
        return "missing"
    return WAL_PLACE_NAMES[wal.place]


def _queue_id(cfg: Config, q: Queue | Shipper) -> str:
    return rules.queue_id(cfg, q.peer, q.chain)


def _shipper(cfg: Config, sh: Shipper) -> str:
    name = _queue_id(cfg, sh)
    group = f", group {sh.group}" if cfg.wal_groups > 1 else ""
    if not sh.wals:
        return f"queue {name}{group}: no WAL"
    head = f"reading {_wal(cfg, sh.wals[0])} at {sh.pos}"
    rest = [_wal(cfg, k) for k in sh.wals[1:]]
    then = f"; then {' '.join(rest)}" if rest else ""
    return f"queue {name}{group}: {head}{then}"


def _server_summary(cfg: Config, st: State, s: int, srv: Server) -> str:
    if not srv.alive:
        pending = ", failover pending" if st.failover >> s & 1 else ""
        return f"dead{pending}"
    current = ", ".join(_wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current))
    peers = ",".join(_peer(p) for p in bits(srv.known)) or "-"
    text = f"current {current}; peers {peers}"
    gone = getattr(srv, "gone", 0)
    if gone:
        text += "; removal handled for " + ",".join(_peer(p) for p in bits(gone))
    if cfg.sink_servers > 1:
        chosen = " ".join(f"{_peer(p)}:{_mask(srv.sinks[p])}" for p in bits(srv.known))
        text += f"; sinks {chosen or '-'}"
    return text


def _cleaner(cfg: Config, st: State) -> str:
    c = st.cleaner
    parts = [_PHASES.get(c.phase, f"phase {c.phase}")]
    if c.candidates:
        parts.append("candidates " + _list([_wal(cfg, k) for k in c.candidates]))
    if c.phase == READING or c.read:
        read = [_server(cfg, s) for s in bits(c.read)]
        parts.append("read " + _list(read))
    if c.seen:
        parts.append("seen " + _list([_wal(cfg, k) for k in c.seen]))
    if c.changed:
        parts.append("cversion of /rs moved")
    if c.cache:
        parts.append("cache " + _list([_wal(cfg, k) for k in c.cache]))
    return "; ".join(parts)


_BUDGET_NAMES = {
    "crashes": "crashes",
    "outages": "sink outages",
    "admin": "admin ops",
    "zk_faults": "zk faults",
    "foreign": "foreign edits",
    "puts": "puts",
    "cleaner_runs": "cleaner runs",
}


def _budget(st: State) -> str:
    return ", ".join(f"{_budget_name(k)} {v}" for k, v in st.budget._asdict().items())


def _budget_name(field: str) -> str:
    return _BUDGET_NAMES.get(field, field.replace("_", " "))


# --- the tree ----------------------------------------------------------------------------------


def _table():
    """``render_table``, imported on first use (it imports this module's helpers)."""
    from . import render_table

    return render_table


def render_rs_tree(cfg: Config, st: State) -> str:
    """``/hbase/replication/rs/`` as seed 000 draws it, dead servers marked ``[dead]``. For a
    table-era state: the ``hbase:replication`` table (and any ZooKeeper queues left)."""
    if isinstance(st, TState):
        return _table().render_queue_table(cfg, st)
    lines = [RS_ROOT]
    for s, node in enumerate(st.rs):
        if not node:
            continue
        srv = st.servers[s] if s < len(st.servers) else None
        mark = ""
        if srv is not None and not srv.alive:
            mark = "   [dead, failover pending]" if st.failover >> s & 1 else "   [dead]"
        lines.append(f"  {_server(cfg, s)}/{mark}")
        if node.lock != NO_LOCK:
            holder = _server(cfg, node.lock)
            dead = ""
            if 0 <= node.lock < len(st.servers) and not st.servers[node.lock].alive:
                dead = ", dead"
            lines.append(f"    lock  (held by {holder}{dead})")
        for q in node.queues:
            lines.append(f"    {_queue_id(cfg, q)}/")
            for key, pos in q.wals:
                where = _wal_status(cfg, st, key)
                warn = f"  !! WAL {where}" if where in ("deleted", "missing") else ""
                lines.append(f"      {_wal(cfg, key)}  (position {pos}){warn}")
    if len(lines) == 1:
        lines.append("  (empty)")
    return "\n".join(lines)


# --- the whole state -------------------------------------------------------------------------


def _sections(cfg: Config, st: State) -> list[str]:
    lines: list[str] = []
    for p, status in enumerate(st.peers):
        name = PEER_STATUS_NAMES[status]
        if name in ("ENABLED", "DISABLED"):
            lines.append(f"{PEERS_ROOT}{_peer(p)}/peer-state: {name}")
        else:
            lines.append(f"{PEERS_ROOT}{_peer(p)}: ({name.lower()})")
    lines.append(f"{STATE_ZNODE}: {'true' if st.replication_on else 'false'}")

    lines.append("")
    lines.append("WAL files:")
    for wal in st.wals:
        if not wal:
            continue
        state = "closed" if wal.closed else "open"
        entries = _list([_edit(cfg, e) for e in wal.entries], "(no edits)")
        place = WAL_PLACE_NAMES[wal.place]
        lines.append(f"  {_wal(cfg, wal.key)}  {place:<7} {state:<6} {entries}")

    lines.append("sources (in memory):")
    for s, srv in enumerate(st.servers):
        lines.append(f"  {_server(cfg, s)}: {_server_summary(cfg, st, s, srv)}")
        if not srv.alive:
            continue
        for i, sh in enumerate(srv.shippers):
            lines.append(f"    [{i}] {_shipper(cfg, sh)}")
        for claim in srv.claim:
            pos = _list([f"{_wal(cfg, k)}@{p}" for k, p in claim.queue.wals])
            lines.append(
                f"    claim read: {_queue_id(cfg, claim.queue)} of {_server(cfg, claim.dead)}"
                f" (positions {pos})"
            )
        if srv.unregistered:
            unreg = _list([_wal(cfg, k) for k in srv.unregistered])
            lines.append(f"    WALs in use but in no queue: {unreg}")

    lines += sink_lines(cfg, st)

    lines.append(f"log cleaner: {_cleaner(cfg, st)}")
    lines.append(f"budgets left: {_budget(st)}")
    return lines


def render_state(cfg: Config, st: State) -> str:
    """The rs tree, then the compact sections (a table-era state: ``render_table_state``)."""
    if isinstance(st, TState):
        return _table().render_table_state(cfg, st)
    return render_rs_tree(cfg, st) + "\n\n" + "\n".join(_sections(cfg, st))


# --- differences -------------------------------------------------------------------------------


def state_facts(cfg: Config, st: State) -> dict[str, str]:
    """The state as ``{key: value}`` facts, the unit ``render_diff`` compares. Keys are stable
    names: znode paths, ``WAL <name>``, ``server <name> ...``, ``source <server>: <queue id>``,
    ``budget <name>`` and so on."""
    if isinstance(st, TState):
        return _table().table_facts(cfg, st)
    facts: dict[str, str] = {}
    for s, node in enumerate(st.rs):
        if not node:
            continue
        root = f"{RS_ROOT}{_server(cfg, s)}"
        facts[root] = "znode"
        if node.lock != NO_LOCK:
            facts[f"{root}/lock"] = f"held by {_server(cfg, node.lock)}"
        for q in node.queues:
            qpath = f"{root}/{_queue_id(cfg, q)}"
            facts[qpath] = "queue"
            for key, pos in q.wals:
                facts[f"{qpath}/{_wal(cfg, key)}"] = f"position {pos}"
    for p, status in enumerate(st.peers):
        facts[f"{PEERS_ROOT}{_peer(p)}"] = PEER_STATUS_NAMES[status]
    facts[STATE_ZNODE] = "true" if st.replication_on else "false"
    for wal in st.wals:
        if wal:
            name = f"WAL {_wal(cfg, wal.key)}"
            facts[name] = f"{WAL_PLACE_NAMES[wal.place]}, {'closed' if wal.closed else 'open'}"
            facts[f"{name} edits"] = _list([_edit(cfg, e) for e in wal.entries], "(none)")
    for s, srv in enumerate(st.servers):
        name = _server(cfg, s)
        if not srv.alive:
            pending = ", failover pending" if st.failover >> s & 1 else ""
            facts[f"server {name}"] = f"dead{pending}"
            continue
        facts[f"server {name}"] = "live"
        current = ", ".join(_wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current))
        facts[f"server {name} current WAL"] = current
        facts[f"server {name} peers"] = ",".join(_peer(p) for p in bits(srv.known)) or "-"
        gone = getattr(srv, "gone", 0)
        if gone:
            facts[f"server {name} removals handled"] = ",".join(_peer(p) for p in bits(gone))
        if cfg.sink_servers > 1:
            for p in bits(srv.known):
                facts[f"server {name} sinks of peer {_peer(p)}"] = _mask(srv.sinks[p])
        seen: dict[str, int] = {}
        for sh in srv.shippers:
            label = _queue_id(cfg, sh) + (f" group {sh.group}" if cfg.wal_groups > 1 else "")
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                label += f" (#{seen[label]})"
            if sh.wals:
                rest = " ".join(_wal(cfg, k) for k in sh.wals[1:])
                value = f"at {sh.pos} of {_wal(cfg, sh.wals[0])}" + (
                    f"; then {rest}" if rest else ""
                )
            else:
                value = "no WAL"
            facts[f"source {name} [{label}]"] = value
        for claim in srv.claim:
            pos = _list([f"{_wal(cfg, k)}@{p}" for k, p in claim.queue.wals])
            facts[f"claim read by {name}"] = (
                f"{_queue_id(cfg, claim.queue)} of {_server(cfg, claim.dead)} ({pos})"
            )
        if srv.unregistered:
            facts[f"WALs of {name} in no queue"] = _list([_wal(cfg, k) for k in srv.unregistered])
    for c, sink in enumerate(st.sinks):
        label = _cluster(cfg, c)
        if sink.applied:
            facts[f"{label} applied"] = _applied(cfg, sink.applied)
        if sink.duplicates:
            facts[f"{label} applied twice"] = _applied(cfg, sink.duplicates)
        if sink.down:
            facts[f"{label} sink servers down"] = _mask(sink.down)
    for c, relay in enumerate(st.relays):
        if relay:
            facts[f"cluster {c} log"] = _list([_edit(cfg, e) for e in relay.log])
            for d, n in zip(cfg.outbound(c), relay.shipped, strict=False):
                facts[f"cluster {c} shipped to {d}"] = str(n)
    facts["log cleaner"] = _cleaner(cfg, st)
    for field, value in st.budget._asdict().items():
        facts[f"budget {_budget_name(field)}"] = str(value)
    return facts


def render_diff(cfg: Config, before: State, after: State) -> str:
    """What changed: ``+ key: value`` for a new fact, ``- key`` for one gone, ``~ key: old ->
    new`` for one changed, in the order the facts are drawn. ``(no change)`` when nothing did."""
    if isinstance(before, TState) or isinstance(after, TState):
        return _table().render_table_diff(cfg, before, after)
    old, new = state_facts(cfg, before), state_facts(cfg, after)
    order: list[str] = []
    seen: set[str] = set()
    matcher = SequenceMatcher(a=list(old), b=list(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        keys = matcher.a[i1:i2] if tag == "equal" else [*matcher.a[i1:i2], *matcher.b[j1:j2]]
        for key in keys:
            if key not in seen:
                seen.add(key)
                order.append(key)
    gone = [k for k in order if k not in new]
    parents = _prefixes(gone)
    lines: list[str] = []
    for key in order:
        if key not in new:
            if any(key.startswith(g + "/") for g in gone) or _died_with(key, new):
                continue  # drawn with its removed parent, or gone with its dead server
            lines.append(f"- {key}/ (and all under it)" if key + "/" in parents else f"- {key}")
        elif key not in old:
            lines.append(f"+ {key}: {new[key]}")
        elif old[key] != new[key]:
            lines.append(f"~ {key}: {old[key]} -> {new[key]}")
    return "\n".join(lines) if lines else "(no change)"


def _died_with(key: str, new: dict[str, str]) -> bool:
    """``server <name> <detail>`` facts vanish when the server dies; its death says it all."""
    if not key.startswith("server "):
        return False
    for n in range(len("server "), len(key)):
        if key[n] == " " and new.get(key[:n], "").startswith("dead"):
            return True
    return False


def _prefixes(keys: list[str]) -> set[str]:
    """Every proper ``/``-ending prefix of the keys (``/a/b/c`` gives ``/a/`` and ``/a/b/``)."""
    out: set[str] = set()
    for key in keys:
        i = key.find("/", 1)
        while i > 0:
            out.add(key[: i + 1])
            i = key.find("/", i + 1)
    return out


def rs_changed(before: State, after: State) -> bool:
    """Did the step change the ``/hbase/replication/rs`` tree (or who is dead in it)? For a
    table-era state: the queue rows, the ZooKeeper queues or who is alive."""
    if isinstance(before, TState) or isinstance(after, TState):
        return _table().queue_table_changed(before, after)
    return before.rs != after.rs or [s.alive for s in before.servers] != [
        s.alive for s in after.servers
    ]


# --- actions -------------------------------------------------------------------------------------


def _param(
    cfg: Config, design: Design, action: Action, name: str, value: int, st: State | None
) -> str:
    if name in ("server", "dead"):
        return _server(cfg, value)
    if name == "peer":
        return _peer(value)
    if name == "kind":
        return _kind(value)
    if name == "subset":
        return _mask(value)
    if name == "queue" and st is not None:
        params = design.kind(action.name).params
        if "dead" in params:
            d = action.args[params.index("dead")]
            node = st.rs[d] if 0 <= d < len(st.rs) else ()
            if node and 0 <= value < len(node.queues):
                return f"{value} ({_queue_id(cfg, node.queues[value])})"
    if name == "shipper" and st is not None:
        params = design.kind(action.name).params
        if "server" in params:
            s = action.args[params.index("server")]
            if 0 <= s < len(st.servers) and 0 <= value < len(st.servers[s].shippers):
                sh = st.servers[s].shippers[value]
                group = f" group {sh.group}" if cfg.wal_groups > 1 else ""
                return f"{value} ({_queue_id(cfg, sh)}{group})"
    return str(value)


def describe_action(
    design: Design, action: Action, cfg: Config | None = None, state: State | None = None
) -> str:
    """The action with its parameters named, e.g. ``lock(server=1.1.1.1,60020,123456780,
    dead=1.1.1.2,60020,123456790)``. A ``(server, group, seq)`` triple is drawn as ``wal=<name>``.
    With ``state`` (the state the action is taken in), queue and shipper indexes also show the
    queue id they point at. An action the design does not know is drawn as ``str(action)``.
    Table-era designs and states are described by ``render_table.describe_table_action``."""
    cfg = cfg or Config()
    if isinstance(state, TState) or getattr(design, "era", "") == "table":
        return _table().describe_table_action(design, action, cfg, state)
    try:
        params = design.kind(action.name).params
    except KeyError:
        return str(action)
    if len(params) != len(action.args):
        return str(action)
    named = dict(zip(params, action.args, strict=True))
    parts: list[str] = []
    if {"server", "group", "seq"} <= named.keys():
        key = (named["server"], named["group"], named["seq"])
        for p in params:
            if p in ("group", "seq"):
                continue
            if p == "server":
                parts.append(f"wal={_wal(cfg, key)}")
            else:
                parts.append(f"{p}={_param(cfg, design, action, p, named[p], state)}")
    else:
        parts = [f"{p}={_param(cfg, design, action, p, v, state)}" for p, v in named.items()]
    return f"{action.name}({', '.join(parts)})"


# --- JSON ----------------------------------------------------------------------------------------


def _edit_dict(cfg: Config, e: Edit) -> dict[str, object]:
    return {
        "id": edit_label(cfg, e.uid, qualified=True),
        "kind": _kind(e.kind),
        "cluster_ids": list(e.cluster_ids),
        "owed_to": [_peer(p) for p in bits(e.owed)],
    }


def state_dict(cfg: Config, st: State) -> dict[str, object]:
    """The state as JSON data, named as the drawing names it."""
    if isinstance(st, TState):
        return _table().table_state_dict(cfg, st)
    rs: dict[str, object] = {}
    for s, node in enumerate(st.rs):
        if not node:
            continue
        rs[_server(cfg, s)] = {
            "dead": not st.servers[s].alive,
            "lock": _server(cfg, node.lock) if node.lock != NO_LOCK else None,
            "queues": {
                _queue_id(cfg, q): {_wal(cfg, k): pos for k, pos in q.wals} for q in node.queues
            },
        }
    servers = []
    for s, srv in enumerate(st.servers):
        servers.append(
            {
                "name": _server(cfg, s),
                "alive": srv.alive,
                "failover_pending": bool(st.failover >> s & 1),
                "current": [_wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current)],
                "peers": [_peer(p) for p in bits(srv.known)],
                "sources": [
                    {
                        "queue": _queue_id(cfg, sh),
                        "group": sh.group,
                        "wals": [_wal(cfg, k) for k in sh.wals],
                        "position": sh.pos,
                    }
                    for sh in srv.shippers
                ],
                "claims": [
                    {
                        "dead": _server(cfg, c.dead),
                        "queue": _queue_id(cfg, c.queue),
                        "positions": {_wal(cfg, k): p for k, p in c.queue.wals},
                    }
                    for c in srv.claim
                ],
                "unregistered": [_wal(cfg, k) for k in srv.unregistered],
                "sink_subsets": {_peer(p): bits(m) for p, m in enumerate(srv.sinks)},
            }
        )
    c = st.cleaner
    return {
        "rs": rs,
        "peers": {_peer(p): PEER_STATUS_NAMES[status] for p, status in enumerate(st.peers)},
        "replication_on": st.replication_on,
        "wals": [
            {
                "name": _wal(cfg, w.key),
                "server": _server(cfg, w.key[0]),
                "group": w.key[1],
                "place": WAL_PLACE_NAMES[w.place],
                "closed": w.closed,
                "entries": [_edit_dict(cfg, e) for e in w.entries],
            }
            for w in st.wals
            if w
        ],
        "servers": servers,
        "sinks": sinks_json(cfg, st, lambda u: edit_label(cfg, u, qualified=True)),
        "relays": relays_json(cfg, st),
        "cleaner": {
            "phase": _PHASES.get(c.phase, str(c.phase)),
            "candidates": [_wal(cfg, k) for k in c.candidates],
            "read": [_server(cfg, s) for s in bits(c.read)],
            "seen": [_wal(cfg, k) for k in c.seen],
            "cversion_moved": c.changed,
            "cache": [_wal(cfg, k) for k in c.cache],
        },
        "budget": st.budget._asdict(),
    }


def sink_lines(
    cfg: Config, st: State | TState, wal_name: Callable[[Config, WalKey], str] = rules.wal_name
) -> list[str]:
    """What each cluster has applied, and the onward logs of clusters that relay (both eras;
    ``wal_name`` is the era's WAL file name)."""
    lines = ["sinks:"]
    home = any(d == 0 for _c, d in cfg.topology)
    for c, sink in enumerate(st.sinks):
        if c == 0 and not (home or sink.applied):
            continue
        text = f"  {_cluster(cfg, c)}: applied {_applied(cfg, sink.applied, wal_name)}"
        if sink.duplicates:
            text += f"; applied twice {_applied(cfg, sink.duplicates, wal_name)}"
        if sink.down:
            text += f"; sink servers down {_mask(sink.down)}"
        lines.append(text)
    relays = [(c, r) for c, r in enumerate(st.relays) if r]
    if relays:
        lines.append("other clusters:")
        for c, relay in relays:
            log = _list([_edit(cfg, e) for e in relay.log])
            shipped = ", ".join(
                f"to {d}: {n}" for d, n in zip(cfg.outbound(c), relay.shipped, strict=False)
            )
            lines.append(f"  cluster {c}: log {log}; shipped {shipped or '-'}")
    return lines


def sinks_json(
    cfg: Config, st: State | TState, label: Callable[[Uid], str]
) -> list[dict[str, object]]:
    """What each cluster has applied, as data (both eras; ``label`` names an edit)."""
    return [
        {
            "cluster": i,
            "applied": [label(u) for u in k.applied],
            "duplicates": [label(u) for u in k.duplicates],
            "down": bits(k.down),
        }
        for i, k in enumerate(st.sinks)
    ]


def relays_json(cfg: Config, st: State | TState) -> dict[str, object]:
    """The onward logs of clusters that relay, as data (both eras)."""
    return {
        str(i): {
            "log": [_edit_dict(cfg, e) for e in r.log],
            "shipped": dict(zip(map(str, cfg.outbound(i)), r.shipped, strict=False)),
        }
        for i, r in enumerate(st.relays)
        if r
    }
