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

from difflib import SequenceMatcher

from replcheck.model.common import rules
from replcheck.model.common.state import (
    DELETING,
    IDLE,
    NO_LOCK,
    PEER_STATUS_NAMES,
    READING,
    WAL_PLACE_NAMES,
    Queue,
    Server,
    Shipper,
    State,
    WalKey,
    bits,
)
from replcheck.model.config import Config
from replcheck.model.engine.action import Action
from replcheck.model.engine.design import Design
from replcheck.model.render import table as render_table
from replcheck.model.render.names import (
    PEERS_ROOT,
    RS_ROOT,
    applied_text,
    budget_name,
    cluster_label,
    edit_dict,
    edit_label,
    edit_text,
    kind_label,
    list_text,
    mask_label,
    peer_label,
    relays_json,
    server_label,
    sink_lines,
    sinks_json,
)
from replcheck.model.table.state import TState

STATE_ZNODE = "/hbase/replication/state"

_PHASES = {IDLE: "idle", READING: "reading", DELETING: "deleting"}


# --- small names -----------------------------------------------------------------------------


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
    peers = ",".join(peer_label(p) for p in bits(srv.known)) or "-"
    text = f"current {current}; peers {peers}"
    gone = getattr(srv, "gone", 0)
    if gone:
        text += "; removal handled for " + ",".join(peer_label(p) for p in bits(gone))
    if cfg.sink_servers > 1:
        chosen = " ".join(f"{peer_label(p)}:{mask_label(srv.sinks[p])}" for p in bits(srv.known))
        text += f"; sinks {chosen or '-'}"
    return text


def _cleaner(cfg: Config, st: State) -> str:
    c = st.cleaner
    parts = [_PHASES.get(c.phase, f"phase {c.phase}")]
    if c.candidates:
        parts.append("candidates " + list_text([_wal(cfg, k) for k in c.candidates]))
    if c.phase == READING or c.read:
        read = [server_label(cfg, s) for s in bits(c.read)]
        parts.append("read " + list_text(read))
    if c.listed:
        listed = [f"{server_label(cfg, s)}/{rules.queue_id(cfg, p, ch)}" for s, p, ch in c.listed]
        parts.append("to read " + list_text(listed))
    if c.seen:
        parts.append("seen " + list_text([_wal(cfg, k) for k in c.seen]))
    if c.changed:
        parts.append("cversion of /rs moved")
    if c.cache:
        parts.append("cache " + list_text([_wal(cfg, k) for k in c.cache]))
    return "; ".join(parts)


def _budget(st: State) -> str:
    return ", ".join(f"{budget_name(k)} {v}" for k, v in st.budget._asdict().items())


# --- the tree ----------------------------------------------------------------------------------


def render_rs_tree(cfg: Config, st: State) -> str:
    """``/hbase/replication/rs/`` as seed 000 draws it, dead servers marked ``[dead]``. For a
    table-era state: the ``hbase:replication`` table (and any ZooKeeper queues left)."""
    if isinstance(st, TState):
        return render_table.render_queue_table(cfg, st)
    lines = [RS_ROOT]
    for s, node in enumerate(st.rs):
        if not node:
            continue
        srv = st.servers[s] if s < len(st.servers) else None
        mark = ""
        if srv is not None and not srv.alive:
            mark = "   [dead, failover pending]" if st.failover >> s & 1 else "   [dead]"
        lines.append(f"  {server_label(cfg, s)}/{mark}")
        if node.lock != NO_LOCK:
            holder = server_label(cfg, node.lock)
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
            lines.append(f"{PEERS_ROOT}{peer_label(p)}/peer-state: {name}")
        else:
            lines.append(f"{PEERS_ROOT}{peer_label(p)}: ({name.lower()})")
    lines.append(f"{STATE_ZNODE}: {'true' if st.replication_on else 'false'}")

    lines.append("")
    lines.append("WAL files:")
    for wal in st.wals:
        if not wal:
            continue
        state = "closed" if wal.closed else "open"
        entries = list_text([edit_text(cfg, e) for e in wal.entries], "(no edits)")
        place = WAL_PLACE_NAMES[wal.place]
        lines.append(f"  {_wal(cfg, wal.key)}  {place:<7} {state:<6} {entries}")

    lines.append("sources (in memory):")
    for s, srv in enumerate(st.servers):
        lines.append(f"  {server_label(cfg, s)}: {_server_summary(cfg, st, s, srv)}")
        if not srv.alive:
            continue
        for i, sh in enumerate(srv.shippers):
            lines.append(f"    [{i}] {_shipper(cfg, sh)}")
        for claim in srv.claim:
            pos = list_text([f"{_wal(cfg, k)}@{p}" for k, p in claim.queue.wals])
            lines.append(
                f"    claim read: {_queue_id(cfg, claim.queue)} of {server_label(cfg, claim.dead)}"
                f" (positions {pos})"
            )
        if srv.unregistered:
            unreg = list_text([_wal(cfg, k) for k in srv.unregistered])
            lines.append(f"    WALs in use but in no queue: {unreg}")
        if srv.drops:
            drops = list_text([rules.queue_id(cfg, p, c) for p, c in srv.drops])
            lines.append(f"    claimed queues to delete (peer gone): {drops}")

    lines += sink_lines(cfg, st)

    lines.append(f"log cleaner: {_cleaner(cfg, st)}")
    lines.append(f"budgets left: {_budget(st)}")
    return lines


def render_state(cfg: Config, st: State) -> str:
    """The rs tree, then the compact sections (a table-era state: ``render_table_state``)."""
    if isinstance(st, TState):
        return render_table.render_table_state(cfg, st)
    return render_rs_tree(cfg, st) + "\n\n" + "\n".join(_sections(cfg, st))


# --- differences -------------------------------------------------------------------------------


def state_facts(cfg: Config, st: State) -> dict[str, str]:
    """The state as ``{key: value}`` facts, the unit ``render_diff`` compares. Keys are stable
    names: znode paths, ``WAL <name>``, ``server <name> ...``, ``source <server>: <queue id>``,
    ``budget <name>`` and so on."""
    if isinstance(st, TState):
        return render_table.table_facts(cfg, st)
    facts: dict[str, str] = {}
    for s, node in enumerate(st.rs):
        if not node:
            continue
        root = f"{RS_ROOT}{server_label(cfg, s)}"
        facts[root] = "znode"
        if node.lock != NO_LOCK:
            facts[f"{root}/lock"] = f"held by {server_label(cfg, node.lock)}"
        for q in node.queues:
            qpath = f"{root}/{_queue_id(cfg, q)}"
            facts[qpath] = "queue"
            for key, pos in q.wals:
                facts[f"{qpath}/{_wal(cfg, key)}"] = f"position {pos}"
    for p, status in enumerate(st.peers):
        facts[f"{PEERS_ROOT}{peer_label(p)}"] = PEER_STATUS_NAMES[status]
    facts[STATE_ZNODE] = "true" if st.replication_on else "false"
    for wal in st.wals:
        if wal:
            name = f"WAL {_wal(cfg, wal.key)}"
            facts[name] = f"{WAL_PLACE_NAMES[wal.place]}, {'closed' if wal.closed else 'open'}"
            facts[f"{name} edits"] = list_text([edit_text(cfg, e) for e in wal.entries], "(none)")
    for s, srv in enumerate(st.servers):
        name = server_label(cfg, s)
        if not srv.alive:
            pending = ", failover pending" if st.failover >> s & 1 else ""
            facts[f"server {name}"] = f"dead{pending}"
            continue
        facts[f"server {name}"] = "live"
        current = ", ".join(_wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current))
        facts[f"server {name} current WAL"] = current
        facts[f"server {name} peers"] = ",".join(peer_label(p) for p in bits(srv.known)) or "-"
        gone = getattr(srv, "gone", 0)
        if gone:
            facts[f"server {name} removals handled"] = ",".join(peer_label(p) for p in bits(gone))
        if cfg.sink_servers > 1:
            for p in bits(srv.known):
                facts[f"server {name} sinks of peer {peer_label(p)}"] = mask_label(srv.sinks[p])
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
            pos = list_text([f"{_wal(cfg, k)}@{p}" for k, p in claim.queue.wals])
            facts[f"claim read by {name}"] = (
                f"{_queue_id(cfg, claim.queue)} of {server_label(cfg, claim.dead)} ({pos})"
            )
        if srv.drops:
            facts[f"claimed queues {name} will delete"] = list_text(
                [rules.queue_id(cfg, p, c) for p, c in srv.drops]
            )
        if srv.unregistered:
            facts[f"WALs of {name} in no queue"] = list_text(
                [_wal(cfg, k) for k in srv.unregistered]
            )
    for c, sink in enumerate(st.sinks):
        label = cluster_label(cfg, c)
        if sink.applied:
            facts[f"{label} applied"] = applied_text(cfg, sink.applied)
        if sink.duplicates:
            facts[f"{label} applied twice"] = applied_text(cfg, sink.duplicates)
        if sink.down:
            facts[f"{label} sink servers down"] = mask_label(sink.down)
    for c, relay in enumerate(st.relays):
        if relay:
            facts[f"cluster {c} log"] = list_text([edit_text(cfg, e) for e in relay.log])
            for d, n in zip(cfg.outbound(c), relay.shipped, strict=False):
                facts[f"cluster {c} shipped to {d}"] = str(n)
    facts["log cleaner"] = _cleaner(cfg, st)
    for field, value in st.budget._asdict().items():
        facts[f"budget {budget_name(field)}"] = str(value)
    return facts


def render_diff(cfg: Config, before: State, after: State) -> str:
    """What changed: ``+ key: value`` for a new fact, ``- key`` for one gone, ``~ key: old ->
    new`` for one changed, in the order the facts are drawn. ``(no change)`` when nothing did."""
    if isinstance(before, TState) or isinstance(after, TState):
        return render_table.render_table_diff(cfg, before, after)
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
        return render_table.queue_table_changed(before, after)
    return before.rs != after.rs or [s.alive for s in before.servers] != [
        s.alive for s in after.servers
    ]


# --- actions -------------------------------------------------------------------------------------


def _param(
    cfg: Config, design: Design, action: Action, name: str, value: int, st: State | None
) -> str:
    if name in ("server", "dead"):
        return server_label(cfg, value)
    if name == "peer":
        return peer_label(value)
    if name == "kind":
        return kind_label(value)
    if name == "subset":
        return mask_label(value)
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
        return render_table.describe_table_action(design, action, cfg, state)
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


def state_dict(cfg: Config, st: State) -> dict[str, object]:
    """The state as JSON data, named as the drawing names it."""
    if isinstance(st, TState):
        return render_table.table_state_dict(cfg, st)
    rs: dict[str, object] = {}
    for s, node in enumerate(st.rs):
        if not node:
            continue
        rs[server_label(cfg, s)] = {
            "dead": not st.servers[s].alive,
            "lock": server_label(cfg, node.lock) if node.lock != NO_LOCK else None,
            "queues": {
                _queue_id(cfg, q): {_wal(cfg, k): pos for k, pos in q.wals} for q in node.queues
            },
        }
    servers = []
    for s, srv in enumerate(st.servers):
        servers.append(
            {
                "name": server_label(cfg, s),
                "alive": srv.alive,
                "failover_pending": bool(st.failover >> s & 1),
                "current": [_wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current)],
                "peers": [peer_label(p) for p in bits(srv.known)],
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
                        "dead": server_label(cfg, c.dead),
                        "queue": _queue_id(cfg, c.queue),
                        "positions": {_wal(cfg, k): p for k, p in c.queue.wals},
                    }
                    for c in srv.claim
                ],
                "unregistered": [_wal(cfg, k) for k in srv.unregistered],
                "claimed_to_delete": [rules.queue_id(cfg, p, c) for p, c in srv.drops],
                "sink_subsets": {peer_label(p): bits(m) for p, m in enumerate(srv.sinks)},
            }
        )
    c = st.cleaner
    return {
        "rs": rs,
        "peers": {peer_label(p): PEER_STATUS_NAMES[status] for p, status in enumerate(st.peers)},
        "replication_on": st.replication_on,
        "wals": [
            {
                "name": _wal(cfg, w.key),
                "server": server_label(cfg, w.key[0]),
                "group": w.key[1],
                "place": WAL_PLACE_NAMES[w.place],
                "closed": w.closed,
                "entries": [edit_dict(cfg, e) for e in w.entries],
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
            "read": [server_label(cfg, s) for s in bits(c.read)],
            "seen": [_wal(cfg, k) for k in c.seen],
            "listed": [
                f"{server_label(cfg, s)}/{rules.queue_id(cfg, p, ch)}" for s, p, ch in c.listed
            ],
            "cversion_moved": c.changed,
            "cache": [_wal(cfg, k) for k in c.cache],
        },
        "budget": st.budget._asdict(),
    }
