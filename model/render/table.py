"""Drawing table-era states (seed 004; reference sections 1, 2, 8). Pure: every function returns a
string (or JSON-ready data) and does no I/O. ``render/draw.py`` dispatches here for a ``TState``.

* ``render_table_state(cfg, st)``: the ``hbase:replication`` table row by row (queue rows keyed
  ``<peerId>-<owner>[/<source>]``, one ``queue:<WAL group>`` column per group holding
  ``<wal>:<offset>``; the per-peer ``sid`` and ``hfileref`` rows), then peers, region servers and
  their sources, WAL files, the master's procedures, ZooKeeper queues not yet migrated, sinks and
  budgets;
* ``render_queue_table(cfg, st)``: the table alone (and the ZooKeeper queues, when any are left);
* ``render_table_diff(cfg, before, after)``: what one step changed, one line per changed fact;
* ``describe_table_action(design, action, cfg, st)``: an action with its parameters named;
* ``table_state_dict(cfg, st)``: the state as plain JSON data;
* ``dump(cfg, st, distributed)``: what ``DumpReplicationQueues`` prints for the state, in its
  default format (read from ``hbase:replication``) or its ``--distributed`` one. A ZooKeeper-era
  ``State`` gets the 2.x tool's output (the replication znodes, or the queues per region server).

Names come from ``rules`` and ``table_rules``: server names ``host,port,startcode``, WAL files
``<urlencoded server name>[.<provider>].<timestamp>`` (``table_rules.wal_file_name``), WAL group
ids and row keys (``table_rules.queue_id``). A peer's cluster key is the fake
``zk1:2181:/hbase-<cluster>`` (``cluster_key``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from difflib import SequenceMatcher

from replcheck.model.common import rules
from replcheck.model.common.state import (
    ARCHIVED,
    DISABLED,
    ENABLED,
    LIVE_DIR,
    NO_LOCK,
    PEER_STATUS_NAMES,
    REMOVED,
    WAL_PLACE_NAMES,
    Queue,
    Shipper,
    State,
    Uid,
    WalKey,
    bits,
)
from replcheck.model.config import Config
from replcheck.model.engine.action import Action
from replcheck.model.engine.design import Design
from replcheck.model.engine.logic import PY
from replcheck.model.features import sync_procedure as table_sync
from replcheck.model.features.legacy_peer import LEGACY_PEER
from replcheck.model.render import features as render_features
from replcheck.model.render.names import (
    HFILE_REFS_ROOT,
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
from replcheck.model.table import rules as table_rules
from replcheck.model.table.common import PLACEHOLDER_GROUP
from replcheck.model.table.state import (
    AP_ENABLE,
    AP_POST,
    AP_PRE,
    AP_REFRESH,
    AP_REOPEN,
    AP_SEQ_ID,
    AP_STORAGE,
    ARQP_ADD_MISSING,
    ARQP_PUT_MISSING,
    ARQP_REMOVE,
    BARRIER_DISABLED,
    BARRIER_NAMES,
    BEGIN_SEQ,
    C_IDLE,
    C_READY,
    C_SERVERS,
    FULL,
    HFILE_REF,
    MIG_NAMES,
    NO_SOURCE,
    NONE,
    PROC_NAMES,
    REMOVE,
    RP_POST,
    RP_PRE,
    RP_REFRESH,
    RP_REMOVE_ALL,
    RP_STORAGE,
    SCP_NONE,
    SCP_STAGE_NAMES,
    SID,
    SYNC_NAMES,
    TRANSIT,
    Child,
    PeerProc,
    Row,
    Scp,
    TServer,
    TState,
)

TABLE = "hbase:replication"
SYNCUP_DIR = "ReplicationSyncUp"
NOT_STARTED_POSITION = "0 (not started or nothing to replicate)"

_ADD_STAGES = {
    AP_PRE: "PRE_PEER_MODIFICATION",
    AP_STORAGE: "UPDATE_PEER_STORAGE",
    AP_REFRESH: "REFRESH_PEER_ON_RS",
    AP_POST: "POST_PEER_MODIFICATION",
    AP_REOPEN: "SERIAL_PEER_REOPEN_REGIONS",
    AP_SEQ_ID: "SERIAL_PEER_UPDATE_LAST_PUSHED_SEQ_ID",
    AP_ENABLE: "SERIAL_PEER_SET_PEER_ENABLED",
}
_REMOVE_STAGES = {
    RP_PRE: "PRE_PEER_MODIFICATION",
    RP_STORAGE: "UPDATE_PEER_STORAGE",
    RP_REFRESH: "REFRESH_PEER_ON_RS",
    RP_POST: "POST_PEER_MODIFICATION",
    RP_REMOVE_ALL: "POST_PEER_MODIFICATION(removeAllQueues)",
}
_CLEANER_PHASES = {C_IDLE: "idle", C_SERVERS: "servers read", C_READY: "snapshot read"}


# --- names ----------------------------------------------------------------------------------------


def cluster_key(peer: int) -> str:
    """The (fake) cluster key of a peer: ``zk1:2181:/hbase-<cluster>``; peer ``p`` is cluster
    ``p + 1``."""
    return f"zk1:2181:/hbase-{peer + 1}"


def wal(cfg: Config, key: WalKey) -> str:
    """A WAL file's name as the table era writes it (``table_rules.wal_file_name``)."""
    return table_rules.wal_file_name(cfg, key)


def row_key(cfg: Config, row: Row) -> str:
    """The row key of a queue row: ``ReplicationQueueId.toString()``."""
    return table_rules.queue_id(cfg, row.peer, row.owner, row.source)


def wals_belong_to(row: Row) -> int:
    """``getServerWALsBelongTo()``: the source server of a recovered queue, else the owner."""
    return row.source if row.source != NO_SOURCE else row.owner


def qualifier(cfg: Config, row: Row, group: int) -> str:
    """The ``queue`` family qualifier of a group's offset: the WAL group id; the ADD_MISSING_QUEUES
    placeholder is written under the crashed server's own name (copied along by claims)."""
    server = wals_belong_to(row)
    if group == PLACEHOLDER_GROUP:
        return rules.server_name(cfg, server)
    return table_rules.wal_group_id(cfg, (server, group, 0))


def offset_wal(cfg: Config, row: Row, group: int, seq: int) -> str:
    """``ReplicationGroupOffset.getWal()``: the WAL file name, ``""`` for BEGIN."""
    if seq == BEGIN_SEQ:
        return ""
    return wal(cfg, (wals_belong_to(row), max(group, 0), seq))


def offset_text(cfg: Config, row: Row, group: int, seq: int, pos: int) -> str:
    """``ReplicationGroupOffset.toString()``: ``<wal>:<offset>`` (BEGIN is ``:0``)."""
    return f"{offset_wal(cfg, row, group, seq)}:{pos}"


def columns(cfg: Config, row: Row) -> list[tuple[str, int, int, int]]:
    """The row's ``queue`` columns as ``(qualifier, group, seq, pos)``, in qualifier (byte)
    order, as a Get returns them."""
    return sorted((qualifier(cfg, row, g), g, seq, pos) for g, seq, pos in row.offsets)


def sorted_rows(cfg: Config, rows: Iterable[Row]) -> list[Row]:
    """Rows in row-key (byte) order, as a scan returns them."""
    return sorted(rows, key=lambda r: row_key(cfg, r).encode())


def _shipper_queue(cfg: Config, s: int, sh: Shipper) -> str:
    return table_rules.queue_id(cfg, sh.peer, s, sh.chain[0] if sh.chain else NO_SOURCE)


def _child_queue(cfg: Config, dead: int, child: Child) -> str:
    return table_rules.queue_id(cfg, child.peer, dead, child.source)


def _servers(cfg: Config, mask: int) -> str:
    return list_text([server_label(cfg, s) for s in bits(mask)])


def _peers(mask: int) -> str:
    return ",".join(peer_label(p) for p in bits(mask)) or "-"


def _wal_place(cfg: Config, st: TState, key: WalKey) -> str:
    """``WALs``/``oldWALs``/``deleted``, or ``missing`` when the WAL was never created."""
    slot = cfg.slot(key) if key[1] >= 0 else -1
    w = st.wals[slot] if 0 <= slot < len(st.wals) else ()
    return WAL_PLACE_NAMES[w.place] if w else "missing"


def _server_status(st: TState, s: int) -> str:
    srv = st.servers[s]
    if srv.alive:
        return "live"
    return "dead" if srv.started else "not started"


def _sync(pair: tuple[int, int]) -> str:
    state, new = pair
    name = SYNC_NAMES[state] if 0 <= state < len(SYNC_NAMES) else str(state)
    return name + (f" -> {SYNC_NAMES[new]}" if new != NONE and 0 <= new < len(SYNC_NAMES) else "")


def _applied(cfg: Config, uids: tuple[Uid, ...]) -> str:
    """Applied edit ids grouped by WAL file: ``<wal>:e0,e1 c1.e0``."""
    return applied_text(cfg, uids, wal)


def _qualified_edit(cfg: Config, uid: Uid) -> str:
    if uid and uid[0] == 0 and len(uid) == 5:
        return f"{wal(cfg, uid[1:4])}:e{uid[4]}"
    return edit_label(cfg, uid)


# --- the table --------------------------------------------------------------------------------


def _column_note(cfg: Config, st: TState, row: Row, group: int, seq: int, pos: int) -> str:
    if group == PLACEHOLDER_GROUP:
        return "   (BEGIN: ADD_MISSING_QUEUES placeholder)"
    if seq == BEGIN_SEQ:
        return "   (BEGIN)"
    key = (wals_belong_to(row), group, seq)
    notes = ["fully replicated"] if pos == FULL else []
    place = _wal_place(cfg, st, key)
    if pos != FULL and place in ("deleted", "missing"):
        notes.append(f"!! WAL {place}")
    return f"   ({'; '.join(notes)})" if notes else ""


def _row_note(cfg: Config, st: TState, row: Row) -> str:
    notes = []
    if row.source != NO_SOURCE:
        notes.append(f"recovered: WALs of {server_label(cfg, row.source)}")
    status = _server_status(st, row.owner)
    if status != "live":
        notes.append(f"owner {status}")
    if st.peers[row.peer] not in (ENABLED, DISABLED):
        notes.append(f"peer {PEER_STATUS_NAMES[st.peers[row.peer]].lower()}")
    return f"   [{', '.join(notes)}]" if notes else ""


def render_queue_table(cfg: Config, st: TState) -> str:
    """``hbase:replication`` scanned row by row: the per-peer row (families ``sid`` and
    ``hfileref``) sorts before the peer's queue rows."""
    state = "region open" if st.table_online else "region CLOSED: no reads or writes"
    lines = [f"{TABLE}  ({state})"]
    entries: list[tuple[bytes, list[str]]] = []
    for p, mask in enumerate(st.sid):
        value = render_features.sid_cell(st, p)
        if not mask and not value:
            continue
        cells = []
        if value:
            cells.append(f"    {value}  (last pushed sequence id)")
        elif mask & SID:
            cells.append("    sid:<encoded region> = last pushed sequence id")
        if mask & HFILE_REF and st.hfile:
            cells.append(f"    hfileref:{render_features.HFILE}  (bulk-loaded, to replicate)")
        elif mask & HFILE_REF:
            cells.append("    hfileref:<hfile>  (hfile references to replicate)")
        entries.append((peer_label(p).encode(), [f"  row {peer_label(p)}", *cells]))
    for row in st.rows:
        key = row_key(cfg, row)
        block = [f"  row {key}{_row_note(cfg, st, row)}"]
        for q, g, seq, pos in columns(cfg, row):
            text = offset_text(cfg, row, g, seq, pos)
            block.append(f"    queue:{q} = {text}{_column_note(cfg, st, row, g, seq, pos)}")
        entries.append((key.encode(), block))
    for _key, block in sorted(entries, key=lambda e: e[0]):
        lines.extend(block)
    if not entries:
        lines.append("  (empty)")
    if st.zk or _legacy_znodes(st):
        lines += ["", render_zk_queues(cfg, st)]
    if st.zk_hfile:
        lines += ["", render_zk_hfile_refs(st)]
    return "\n".join(lines)


def render_zk_hfile_refs(st: TState) -> str:
    """The 2.x hfile references still in ZooKeeper (``model/features/migrate_hfile.py``), drawn as
    ``/hbase/replication/hfile-refs/<peer>/<hfile>``."""
    lines = [f"{HFILE_REFS_ROOT}   (ZooKeeper, not yet migrated)"]
    for p in bits(st.zk_hfile):
        lines += [f"  {peer_label(p)}/", f"    {render_features.HFILE}"]
    return "\n".join(lines)


def _legacy_znodes(st: TState) -> list[int]:
    """The servers whose legacy ``region_replica_replication`` queue znode exists."""
    return bits(st.legacy.znodes) if st.legacy else []


def render_zk_queues(cfg: Config, st: TState) -> str:
    """The ZooKeeper queues still to migrate, drawn as seed 000 draws ``/hbase/replication/rs``,
    and the legacy ``region_replica_replication`` queues the migration keeps until CLEAN_UP."""
    lines = [f"{RS_ROOT}   (ZooKeeper, not yet migrated)"]
    by_owner: dict[int, list[Queue]] = {}
    for owner, q in st.zk:
        by_owner.setdefault(owner, []).append(q)
    legacy = _legacy_znodes(st)
    for owner in sorted({*by_owner, *legacy}):
        mark = "" if st.servers[owner].alive else f"   [{_server_status(st, owner)}]"
        lines.append(f"  {server_label(cfg, owner)}/{mark}")
        if owner in legacy:
            lines.append(f"    {LEGACY_PEER}/   (legacy peer's queue, not migrated)")
        for q in by_owner.get(owner, []):
            lines.append(f"    {rules.queue_id(cfg, q.peer, q.chain)}/")
            for key, pos in q.wals:
                lines.append(f"      {rules.wal_name(cfg, key)}  (position {pos})")
    return "\n".join(lines)


# --- the rest of the state ----------------------------------------------------------------------


def _peer_line(cfg: Config, st: TState, p: int) -> str:
    status = PEER_STATUS_NAMES[st.peers[p]]
    if st.peers[p] == REMOVED and st.removed_done >> p & 1:
        status += " (RemovePeerProcedure finished)"
    parts = [status]
    if p < cfg.sync_peers or st.sync[p] != (NONE, NONE):
        parts.append(f"sync {_sync(st.sync[p])}")
        parts.append("remote WAL dir " + ("present" if st.remote_dir >> p & 1 else "absent"))
    if st.peers[p] in (ENABLED, DISABLED):
        parts.append(f"cluster key {cluster_key(p)}")
    return f"  {peer_label(p)}: {'; '.join(parts)}"


def remote_facts(cfg: Config, st: TState) -> list[tuple[str, str]]:
    """Each sync peer's remote side on cluster 0 (``model/features/sync_remote.py``), as (what,
    state): its remote WALs, the ``-replay`` and ``-snapshot`` directories and
    RecoverStandbyProcedure's step."""
    out = []
    for p, rem in enumerate(st.remote):
        name = f"peer {peer_label(p)}"
        if rem.downgraded:
            out.append((f"{name} cluster", "ACTIVE -> DOWNGRADE_ACTIVE (writes no remote WAL)"))
        for k, place in enumerate(rem.files):
            if k >= rem.acked:
                continue
            applied = "applied at cluster 0" if rem.applied >> k & 1 else "not applied"
            out.append((f"{name} remote WAL {k}", f"{table_sync.FILE_NAMES[place]}; {applied}"))
        dirs = [
            f"<peerId>-{d}"
            for d, on in (("replay", rem.replay_dir), ("snapshot", rem.snapshot_dir))
            if on
        ]
        if dirs:
            out.append((f"{name} remote WAL dirs", " ".join(dirs)))
        pending = [str(k) for k in range(len(rem.files)) if rem.children >> k & 1]
        if rem.recover or pending:
            step = table_sync.RS_NAMES[rem.recover]
            kids = f"; replays pending: {' '.join(pending)}" if pending else ""
            out.append((f"{name} RecoverStandbyProcedure", step + kids))
    return out


def _source_line(cfg: Config, s: int, i: int, sh: Shipper) -> str:
    name = _shipper_queue(cfg, s, sh)
    group = f", group {sh.group}" if cfg.wal_groups > 1 else ""
    kind = f" (recovered, WALs of {server_label(cfg, sh.chain[0])})" if sh.chain else ""
    if not sh.wals:
        return f"    [{i}] {name}{kind}{group}: no WAL"
    head = f"reading {wal(cfg, sh.wals[0])} at {sh.pos}"
    rest = [wal(cfg, k) for k in sh.wals[1:]]
    then = f"; then {' '.join(rest)}" if rest else ""
    return f"    [{i}] {name}{kind}{group}: {head}{then}"


def _claim_text(cfg: Config, claim: tuple[Child, tuple[tuple[int, int, int], ...]]) -> str:
    child, read = claim
    dead = child.target  # a claim in progress keeps the crashed owner in ``target``
    row = Row(child.peer, dead, child.source, read)
    offsets = list_text(
        [f"{qualifier(cfg, row, g)}={offset_text(cfg, row, g, s, p)}" for g, s, p in read]
    )
    return f"{_child_queue(cfg, dead, child)} (offsets read: {offsets})"


def _server_line(cfg: Config, st: TState, s: int, srv: TServer) -> str:
    status = _server_status(st, s)
    text = f"  {server_label(cfg, s)}: {status}, version {srv.version}"
    if not srv.alive:
        return text
    current = " ".join(wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current))
    text += f"; current {current}; peers {_peers(srv.known)}"
    if cfg.sink_servers > 1:
        chosen = " ".join(f"{peer_label(p)}:{mask_label(srv.sinks[p])}" for p in bits(srv.known))
        text += f"; sinks {chosen or '-'}"
    return text


def _server_lines(cfg: Config, st: TState) -> list[str]:
    lines = ["region servers:"]
    for s, srv in enumerate(st.servers):
        lines.append(_server_line(cfg, st, s, srv))
        if not srv.alive:
            continue
        for i, sh in enumerate(srv.shippers):
            lines.append(_source_line(cfg, s, i, sh))
        for claim in srv.claim:
            lines.append(f"    claim read: {_claim_text(cfg, claim)}")
        if cfg.sync_peers:
            views = " ".join(f"{peer_label(p)}:{_sync(v)}" for p, v in enumerate(srv.views))
            lines.append(f"    sync views: {views}")
        if srv.drained:
            lines.append(f"    drained for STANDBY: {_peers(srv.drained)}")
    return lines


def _wal_lines(cfg: Config, st: TState) -> list[str]:
    lines = ["WAL files:"]
    for w in st.wals:
        if not w:
            continue
        state = "closed" if w.closed else "open"
        entries = list_text([edit_text(cfg, e) for e in w.entries], "(no edits)")
        lines.append(f"  {wal(cfg, w.key)}  {WAL_PLACE_NAMES[w.place]:<7} {state:<6} {entries}")
    return lines + [f"  {name}  oldWALs {what}" for name, what in other_files(cfg, st)]


def other_files(cfg: Config, st: TState) -> list[tuple[str, str]]:
    """The files of oldWALs that are no server's replicated WAL
    (``model/features/cleaner_input.py``): (name, what it is)."""
    out = []
    for s in range(cfg.servers):
        if st.others >> s & 1:
            prefix = table_rules.format_wal_group_id(
                PY, rules.host(cfg, s), str(rules.PORT), str(rules.start_code(s)), ""
            )
            meta = table_rules.format_wal_file_name(PY, prefix, "1000") + ".meta"
            out.append((meta, "meta WAL (never replicated)"))
    if st.others >> cfg.servers & 1:
        out.append(("README.txt", "not a WAL's name"))
    return out


def scp_text(cfg: Config, scp: Scp) -> str:
    """An SCP's stage, with its AssignReplicationQueuesProcedure's when it is in the claim stage."""
    name = SCP_STAGE_NAMES[scp.stage] if 0 <= scp.stage < len(SCP_STAGE_NAMES) else str(scp.stage)
    if ARQP_ADD_MISSING <= scp.stage <= ARQP_REMOVE:
        name = f"CLAIM_REPLICATION_QUEUES > AssignReplicationQueuesProcedure {name}"
    if scp.stage == ARQP_PUT_MISSING:
        name += f"; peers missing a queue {_peers(scp.peers)}"
    return name


def proc_text(cfg: Config, st: TState, p: int, proc: PeerProc) -> str:
    """A peer procedure: its kind, step, and what it waits for."""
    kind = PROC_NAMES[proc.kind] if 0 <= proc.kind < len(PROC_NAMES) else f"proc{proc.kind}"
    names = _REMOVE_STAGES if proc.kind == REMOVE else {} if proc.kind == TRANSIT else _ADD_STAGES
    parts = [f"{kind} {names.get(proc.stage, f'stage {proc.stage}')}"]
    if proc.kind == TRANSIT:
        parts.append(f"to {_sync((proc.target, NONE))}")
    if proc.refresh:
        parts.append(f"RefreshPeerProcedure pending on {_servers(cfg, proc.refresh)}")
    if proc.recorded:
        parts.append(f"waits for the claims of {_servers(cfg, proc.recorded)}")
    if proc.kind == REMOVE and proc.stage == RP_REMOVE_ALL:
        parts.append(removal_text(cfg, p, proc.cursor))
    return "; ".join(parts)


def _removal_cursor(cursor: tuple) -> tuple[int, list[tuple[int, int]] | None]:
    """``removeAllQueues``' cursor as (pass, row keys still to delete, or None before the pass
    read them)."""
    if not cursor:
        return 0, None
    n, *rest = cursor
    if len(rest) == 1 and isinstance(rest[0], tuple):
        return n, [tuple(k) for k in rest[0]]  # (pass, ((owner, source), ...))
    return n, None


def removal_text(cfg: Config, p: int, cursor: tuple) -> str:
    """Where ``removeAllQueues`` is: its pass and the rows it read and has still to delete."""
    n, keys = _removal_cursor(cursor)
    if keys is None:
        return f"removeAllQueues pass {n + 1}: rows not read yet"
    left = list_text([table_rules.queue_id(cfg, p, o, s) for o, s in keys], "none")
    return f"removeAllQueues pass {n + 1}: rows read, still to delete {left}"


def _cleaner_text(cfg: Config, st: TState) -> str:
    c = st.cleaner
    parts = [_CLEANER_PHASES.get(c.phase, f"phase {c.phase}")]
    if c.phase != C_IDLE:
        parts.append(f"live or SCP-unfinished servers {_servers(cfg, c.live)}")
    if c.phase == C_READY:
        keys = list_text([row_key(cfg, r) for r in sorted_rows(cfg, c.rows)], "(none)")
        parts.append(f"peers {_peers(c.peers)}; rows {keys}")
    return "; ".join(parts)


def _barrier_text(st: TState) -> str:
    state, n = st.barrier
    name = BARRIER_NAMES[state] if 0 <= state < len(BARRIER_NAMES) else str(state)
    return name + (f" ({n} disabler{'s' if n != 1 else ''})" if state == BARRIER_DISABLED else "")


def _migration_text(cfg: Config, st: TState) -> str:
    m = st.migration
    if not m:
        return "none"
    name = MIG_NAMES[m.stage] if 0 <= m.stage < len(MIG_NAMES) else str(m.stage)
    migrated = _servers(cfg, m.migrated)
    return f"{name}; peers it disabled {_peers(m.disabled)}; servers migrated {migrated}"


def _syncup_text(cfg: Config, st: TState) -> str:
    su = st.syncup
    if not su.running:
        return "died part-way (rerun it with -f)" if su.failed else "not running"
    view = list_text([row_key(cfg, r) for r in sorted_rows(cfg, su.view)], "(none)")
    work = list_text([f"{peer_label(p)}:{wal(cfg, k)}@{pos}" for p, k, pos in su.work], "(none)")
    return f"running; offline view of rows {view}; still to replicate {work}"


def _master_lines(cfg: Config, st: TState) -> list[str]:
    lines = [f"master: {'up' if st.master_up else 'DOWN (procedures persisted)'}"]
    for d, scp in enumerate(st.scps):
        if scp.stage == SCP_NONE:
            continue
        lines.append(f"  ServerCrashProcedure {server_label(cfg, d)}: {scp_text(cfg, scp)}")
        for child in scp.children:
            lines.append(
                f"    ClaimReplicationQueueRemoteProcedure {_child_queue(cfg, d, child)}"
                f" -> {server_label(cfg, child.target)}"
            )
    for p, proc in enumerate(st.pprocs):
        if proc:
            lines.append(f"  peer {peer_label(p)}: {proc_text(cfg, st, p, proc)}")
    for p, kind in enumerate(st.queued):
        if kind:
            waiting = PROC_NAMES[kind - 1]
            lines.append(f"  peer {peer_label(p)}: {waiting} waits for the peer's lock")
    lines.append(f"  log cleaner barrier: {_barrier_text(st)}")
    lines.append(f"  log cleaner: {_cleaner_text(cfg, st)}")
    lines.append(f"  migration from ZooKeeper: {_migration_text(cfg, st)}")
    if st.syncup.running or st.syncup.failed or st.markers or st.info:
        lines.append(f"  ReplicationSyncUp: {_syncup_text(cfg, st)}")
        for s in bits(st.markers):
            lines.append(f"    file {SYNCUP_DIR}/{server_label(cfg, s)}  (marker: drop its queues)")
        if st.info:
            lines.append(f"    file {SYNCUP_DIR}/info")
    return lines


def _history(cfg: Config, st: TState) -> str:
    parts = []
    if st.removed_done:
        parts.append(f"peers removed {_peers(st.removed_done)}")
    for p, uids in st.stale:
        parts.append(f"never to replicate to {peer_label(p)}: {_applied(cfg, uids)}")
    if st.legacy and st.legacy.aborted:
        aborted = _servers(cfg, st.legacy.aborted)
        parts.append(f"aborted as their {LEGACY_PEER} queue znode was removed: {aborted}")
    return "; ".join(parts)


def _budget(cfg: Config, st: TState) -> str:
    """The budgets left (failed storage writes only where the configuration has them)."""
    return ", ".join(
        f"{budget_name(k)} {v}"
        for k, v in st.budget._asdict().items()
        if k != "storage_faults" or cfg.storage_faults
    )


def render_table_state(cfg: Config, st: TState) -> str:
    """The table, then peers, region servers, WAL files, the master, sinks and budgets."""
    lines = [render_queue_table(cfg, st), "", "peers:"]
    lines += [_peer_line(cfg, st, p) for p in range(len(st.peers))]
    lines += [f"  {what}: {state}" for what, state in remote_facts(cfg, st)]
    lines += _server_lines(cfg, st)
    lines += _wal_lines(cfg, st)
    lines += _master_lines(cfg, st)
    lines += render_features.serial_lines(cfg, st, wal)
    lines += render_features.hfile_lines(cfg, st, wal)
    lines += sink_lines(cfg, st, wal)
    history = _history(cfg, st)
    if history:
        lines.append(f"history: {history}")
    lines.append(f"budgets left: {_budget(cfg, st)}")
    return "\n".join(lines)


def queue_table_changed(before: TState, after: TState) -> bool:
    """Did the step change the table's queue rows, the ZooKeeper queues, or who is alive?"""
    return (
        before.rows != after.rows
        or before.zk != after.zk
        or before.legacy != after.legacy
        or before.zk_hfile != after.zk_hfile
        or before.table_online != after.table_online
        or [s.alive for s in before.servers] != [s.alive for s in after.servers]
    )


# --- differences ----------------------------------------------------------------------------------

Facts = dict[str, tuple[str, str | None]]
"""``{key: (value, parent key)}``: a fact and the fact it is drawn under (``None`` at the top)."""


def _facts(cfg: Config, st: TState) -> Facts:
    facts: Facts = {TABLE: ("region open" if st.table_online else "region closed", None)}
    for p, mask in enumerate(st.sid):
        for bit, family in ((SID, "sid"), (HFILE_REF, "hfileref")):
            if mask & bit:
                facts[f"row {peer_label(p)} {family}"] = ("cells", None)
    for row in st.rows:
        key = f"row {row_key(cfg, row)}"
        facts[key] = ("recovered queue" if row.source != NO_SOURCE else "queue", None)
        for q, g, seq, pos in columns(cfg, row):
            facts[f"{key} queue:{q}"] = (offset_text(cfg, row, g, seq, pos), key)
    for owner, q in st.zk:
        key = f"{RS_ROOT}{server_label(cfg, owner)}/{rules.queue_id(cfg, q.peer, q.chain)}"
        facts[key] = ("znode", None)
        for k, pos in q.wals:
            facts[f"{key}/{rules.wal_name(cfg, k)}"] = (f"position {pos}", key)
    for s in _legacy_znodes(st):
        facts[f"{RS_ROOT}{server_label(cfg, s)}/{LEGACY_PEER}"] = ("znode", None)
    for p in bits(st.zk_hfile):
        facts[f"{HFILE_REFS_ROOT}{peer_label(p)}/{render_features.HFILE}"] = ("znode", None)
    if st.legacy:
        stored = "in storage" if st.legacy.stored else "deleted"
        facts[f"peer {LEGACY_PEER}"] = (f"{stored} (legacy, not loaded by 3.x)", None)
    for p in range(len(st.peers)):
        facts[f"peer {peer_label(p)}"] = (_peer_line(cfg, st, p).split(": ", 1)[1], None)
    for what, state in remote_facts(cfg, st):
        facts[what] = (state, None)
    for s, srv in enumerate(st.servers):
        name = f"server {server_label(cfg, s)}"
        facts[name] = (f"{_server_status(st, s)}, version {srv.version}", None)
        if not srv.alive:
            continue
        current = " ".join(wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current))
        facts[f"{name} current WAL"] = (current, name)
        facts[f"{name} peers"] = (_peers(srv.known), name)
        seen: dict[str, int] = {}
        for sh in srv.shippers:
            label = _shipper_queue(cfg, s, sh) + (
                f" group {sh.group}" if cfg.wal_groups > 1 else ""
            )
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                label += f" (#{seen[label]})"
            text = _source_line(cfg, s, 0, sh).split(": ", 1)[1]
            facts[f"{name} source [{label}]"] = (text, name)
        for claim in srv.claim:
            facts[f"{name} claim read"] = (_claim_text(cfg, claim), name)
        if cfg.sync_peers:
            for p, view in enumerate(srv.views):
                facts[f"{name} sync view of {peer_label(p)}"] = (_sync(view), name)
        if srv.drained:
            facts[f"{name} drained for STANDBY"] = (_peers(srv.drained), name)
        if cfg.sink_servers > 1:
            for p in bits(srv.known):
                facts[f"{name} sinks of peer {peer_label(p)}"] = (mask_label(srv.sinks[p]), name)
    for w in st.wals:
        if w:
            name = f"WAL {wal(cfg, w.key)}"
            place = f"{WAL_PLACE_NAMES[w.place]}, {'closed' if w.closed else 'open'}"
            facts[name] = (place, None)
            facts[f"{name} edits"] = (
                list_text([edit_text(cfg, e) for e in w.entries], "(none)"),
                name,
            )
    facts["master"] = ("up" if st.master_up else "down", None)
    for d, scp in enumerate(st.scps):
        if scp.stage == SCP_NONE:
            continue
        name = f"SCP {server_label(cfg, d)}"
        facts[name] = (scp_text(cfg, scp), None)
        for child in scp.children:
            key = f"{name} claim {_child_queue(cfg, d, child)}"
            facts[key] = (f"-> {server_label(cfg, child.target)}", name)
    for p, proc in enumerate(st.pprocs):
        if proc:
            facts[f"peer procedure {peer_label(p)}"] = (proc_text(cfg, st, p, proc), None)
    for p, kind in enumerate(st.queued):
        if kind:
            facts[f"peer procedure {peer_label(p)} queued"] = (PROC_NAMES[kind - 1], None)
    facts["log cleaner barrier"] = (_barrier_text(st), None)
    facts["log cleaner"] = (_cleaner_text(cfg, st), None)
    facts["migration"] = (_migration_text(cfg, st), None)
    facts["ReplicationSyncUp"] = (_syncup_text(cfg, st), None)
    for s in bits(st.markers):
        facts[f"file {SYNCUP_DIR}/{server_label(cfg, s)}"] = ("marker", None)
    if st.info:
        facts[f"file {SYNCUP_DIR}/info"] = ("present", None)
    for c, sink in enumerate(st.sinks):
        label = cluster_label(cfg, c)
        if sink.applied:
            facts[f"{label} applied"] = (_applied(cfg, sink.applied), None)
        if sink.duplicates:
            facts[f"{label} applied twice"] = (_applied(cfg, sink.duplicates), None)
        if sink.down:
            facts[f"{label} sink servers down"] = (mask_label(sink.down), None)
    for c, relay in enumerate(st.relays):
        if relay:
            facts[f"cluster {c} log"] = (list_text([edit_text(cfg, e) for e in relay.log]), None)
            for d, n in zip(cfg.outbound(c), relay.shipped, strict=False):
                facts[f"cluster {c} shipped to {d}"] = (str(n), None)
    for key, value in render_features.serial_facts(cfg, st, wal).items():
        facts[key] = (value, None)
    for key, value in render_features.hfile_facts(cfg, st, wal).items():
        facts[key] = (value, None)
    history = _history(cfg, st)
    if history:
        facts["history"] = (history, None)
    for field, value in st.budget._asdict().items():
        facts[f"budget {budget_name(field)}"] = (str(value), None)
    return facts


def table_facts(cfg: Config, st: TState) -> dict[str, str]:
    """The state as ``{key: value}`` facts, the unit ``render_table_diff`` compares."""
    return {k: v for k, (v, _parent) in _facts(cfg, st).items()}


def render_table_diff(cfg: Config, before: TState, after: TState) -> str:
    """What changed: ``+ key: value``, ``- key``, ``~ key: old -> new``, in drawing order. A fact
    gone with its parent (a row's columns with the row) or with its server's death is not
    repeated. ``(no change)`` when nothing did."""
    old, new = _facts(cfg, before), _facts(cfg, after)
    matcher = SequenceMatcher(a=list(old), b=list(new), autojunk=False)
    order: list[str] = []
    seen: set[str] = set()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        keys = matcher.a[i1:i2] if tag == "equal" else [*matcher.a[i1:i2], *matcher.b[j1:j2]]
        for key in keys:
            if key not in seen:
                seen.add(key)
                order.append(key)
    gone = {k for k in order if k not in new}
    parents_gone = {old[k][1] for k in gone} - {None}
    lines: list[str] = []
    for key in order:
        if key in gone:
            parent = old[key][1]
            if parent in gone or (parent in new and not new[parent][0].startswith("live")):
                continue  # drawn with its removed parent, or gone with its dead server
            lines.append(f"- {key} (and all under it)" if key in parents_gone else f"- {key}")
        elif key not in old:
            lines.append(f"+ {key}: {new[key][0]}")
        elif old[key][0] != new[key][0]:
            lines.append(f"~ {key}: {old[key][0]} -> {new[key][0]}")
    return "\n".join(lines) if lines else "(no change)"


# --- actions ------------------------------------------------------------------------------------


def _param(cfg: Config, name: str, value: object, named: dict, st: TState | None) -> str:
    if name in ("server", "dead", "target") and isinstance(value, int):
        return server_label(cfg, value)
    if name == "peer" and isinstance(value, int):
        return peer_label(value)
    if name == "kind" and isinstance(value, int):
        return kind_label(value)
    if name == "cluster" and isinstance(value, int):
        return cluster_label(cfg, value)
    if name == "targets" and isinstance(value, tuple):
        return "[" + ", ".join(server_label(cfg, t) for t in value) + "]"
    if name == "row" and isinstance(value, tuple) and isinstance(named.get("peer"), int):
        return table_rules.queue_id(cfg, named["peer"], *value)
    if name == "shipper" and st is not None and isinstance(named.get("server"), int):
        s = named["server"]
        if 0 <= s < len(st.servers) and 0 <= value < len(st.servers[s].shippers):
            sh = st.servers[s].shippers[value]
            group = f" group {sh.group}" if cfg.wal_groups > 1 else ""
            return f"{value} ({_shipper_queue(cfg, s, sh)}{group})"
    if name == "child" and st is not None and isinstance(named.get("dead"), int):
        d = named["dead"]
        if 0 <= d < len(st.scps) and 0 <= value < len(st.scps[d].children):
            child = st.scps[d].children[value]
            queue = _child_queue(cfg, d, child)
            return f"{value} ({queue} -> {server_label(cfg, child.target)})"
    return str(value)


def describe_table_action(
    design: Design, action: Action, cfg: Config, st: TState | None = None
) -> str:
    """The action with its parameters named, e.g. ``arqp_claim(dead=1.1.1.1,60020,123456780,
    targets=[1.1.1.2,60020,123456790])``; a ``(server, group, seq)`` triple is drawn as
    ``wal=<file name>``. With ``st`` (the state the action is taken in), shipper and claim-child
    indexes also show the queue they point at."""
    try:
        params = design.kind(action.name).params
    except KeyError:
        return str(action)
    if action.name == "peer_proc" and len(action.args) == 2:
        # a row removeAllQueues deletes, or a serial peer's reopen's server (``_proc_label``)
        params = (*params, "row" if isinstance(action.args[1], tuple) else "server")
    if len(params) != len(action.args):
        return str(action)
    named = dict(zip(params, action.args, strict=True))
    parts: list[str] = []
    for p in params:
        if {"server", "group", "seq"} <= named.keys() and p in ("group", "seq"):
            continue
        if {"server", "group", "seq"} <= named.keys() and p == "server":
            parts.append(f"wal={wal(cfg, (named['server'], named['group'], named['seq']))}")
        else:
            parts.append(f"{p}={_param(cfg, p, named[p], named, st)}")
    return f"{action.name}({', '.join(parts)})"


# --- JSON ---------------------------------------------------------------------------------------


def _offsets_dict(cfg: Config, row: Row) -> dict[str, str]:
    return {q: offset_text(cfg, row, g, seq, pos) for q, g, seq, pos in columns(cfg, row)}


def _server_dict(cfg: Config, st: TState, s: int, srv: TServer) -> dict[str, object]:
    return {
        "name": server_label(cfg, s),
        "status": _server_status(st, s),
        "alive": srv.alive,
        "started": srv.started,
        "version": srv.version,
        "current": [wal(cfg, (s, g, seq)) for g, seq in enumerate(srv.current)],
        "peers": [peer_label(p) for p in bits(srv.known)],
        "sources": [
            {
                "queue": _shipper_queue(cfg, s, sh),
                "recovered": bool(sh.chain),
                "source": server_label(cfg, sh.chain[0]) if sh.chain else None,
                "group": sh.group,
                "wals": [wal(cfg, k) for k in sh.wals],
                "position": sh.pos,
            }
            for sh in srv.shippers
        ],
        "claims": [
            {
                "queue": _child_queue(cfg, child.target, child),
                "offsets": _offsets_dict(cfg, Row(child.peer, child.target, child.source, read)),
            }
            for child, read in srv.claim
        ],
        "sync_views": {
            peer_label(p): [SYNC_NAMES[a], SYNC_NAMES[b]] for p, (a, b) in enumerate(srv.views)
        },
        "drained": [peer_label(p) for p in bits(srv.drained)],
        "sink_subsets": {peer_label(p): bits(m) for p, m in enumerate(srv.sinks)},
    }


def _removal_dict(cfg: Config, p: int, proc: PeerProc) -> dict[str, object]:
    n, keys = _removal_cursor(proc.cursor)
    rows = None if keys is None else [table_rules.queue_id(cfg, p, o, s) for o, s in keys]
    return {"pass": n + 1, "rows_to_delete": rows}


def table_state_dict(cfg: Config, st: TState) -> dict[str, object]:
    """The state as JSON data, named as the drawing names it."""
    c = st.cleaner
    m = st.migration
    zk: dict[str, dict[str, dict[str, int]]] = {}
    for owner, q in st.zk:
        queues = zk.setdefault(server_label(cfg, owner), {})
        queues[rules.queue_id(cfg, q.peer, q.chain)] = {
            rules.wal_name(cfg, k): pos for k, pos in q.wals
        }
    for s in _legacy_znodes(st):
        zk.setdefault(server_label(cfg, s), {})[LEGACY_PEER] = {}
    return {
        "era": "table",
        "table": {
            "online": st.table_online,
            "queue": {row_key(cfg, r): _offsets_dict(cfg, r) for r in sorted_rows(cfg, st.rows)},
            "sid": [peer_label(p) for p, mask in enumerate(st.sid) if mask & SID],
            "hfileref": [peer_label(p) for p, mask in enumerate(st.sid) if mask & HFILE_REF],
        },
        "peers": {
            peer_label(p): {
                "status": PEER_STATUS_NAMES[status],
                "sync": [SYNC_NAMES[st.sync[p][0]], SYNC_NAMES[st.sync[p][1]]],
                "remote_dir": bool(st.remote_dir >> p & 1),
                "cluster_key": cluster_key(p),
            }
            for p, status in enumerate(st.peers)
        },
        "servers": [_server_dict(cfg, st, s, srv) for s, srv in enumerate(st.servers)],
        "wals": [
            {
                "name": wal(cfg, w.key),
                "server": server_label(cfg, w.key[0]),
                "group": w.key[1],
                "place": WAL_PLACE_NAMES[w.place],
                "closed": w.closed,
                "entries": [
                    {**edit_dict(cfg, e), "id": _qualified_edit(cfg, e.uid)} for e in w.entries
                ],
            }
            for w in st.wals
            if w
        ],
        "other_files": [{"name": n, "what": what} for n, what in other_files(cfg, st)],
        "master": {
            "up": st.master_up,
            "scps": {
                server_label(cfg, d): {
                    "stage": SCP_STAGE_NAMES[scp.stage],
                    "peers_missing": [peer_label(p) for p in bits(scp.peers)],
                    "claims": [
                        {"queue": _child_queue(cfg, d, ch), "target": server_label(cfg, ch.target)}
                        for ch in scp.children
                    ],
                }
                for d, scp in enumerate(st.scps)
                if scp.stage != SCP_NONE
            },
            "peer_procedures": {
                peer_label(p): {
                    "procedure": PROC_NAMES[proc.kind],
                    "text": proc_text(cfg, st, p, proc),
                    "stage": proc.stage,
                    "refresh_pending": [server_label(cfg, s) for s in bits(proc.refresh)],
                    "recorded": [server_label(cfg, s) for s in bits(proc.recorded)],
                    "remove_all_queues": _removal_dict(cfg, p, proc)
                    if proc.kind == REMOVE and proc.stage == RP_REMOVE_ALL
                    else None,
                    "target": SYNC_NAMES[proc.target],
                }
                for p, proc in enumerate(st.pprocs)
                if proc
            },
            "barrier": {"state": BARRIER_NAMES[st.barrier[0]], "disablers": st.barrier[1]},
            "cleaner": {
                "phase": _CLEANER_PHASES.get(c.phase, str(c.phase)),
                "live": [server_label(cfg, s) for s in bits(c.live)],
                "peers": [peer_label(p) for p in bits(c.peers)],
                "rows": [row_key(cfg, r) for r in sorted_rows(cfg, c.rows)],
            },
            "migration": None
            if not m
            else {
                "stage": MIG_NAMES[m.stage],
                "disabled": [peer_label(p) for p in bits(m.disabled)],
                "migrated": [server_label(cfg, s) for s in bits(m.migrated)],
            },
            "syncup": {
                "running": st.syncup.running,
                "failed": st.syncup.failed,
                "view": [row_key(cfg, r) for r in sorted_rows(cfg, st.syncup.view)],
                "work": [
                    {"peer": peer_label(p), "wal": wal(cfg, k), "position": pos}
                    for p, k, pos in st.syncup.work
                ],
                "markers": [server_label(cfg, s) for s in bits(st.markers)],
                "info": st.info,
            },
        },
        "zk": zk,
        "sinks": sinks_json(cfg, st, lambda u: _qualified_edit(cfg, u)),
        "relays": relays_json(cfg, st),
        "history": {
            "removed_done": [peer_label(p) for p in bits(st.removed_done)],
            "stale": {
                peer_label(p): [_qualified_edit(cfg, u) for u in uids] for p, uids in st.stale
            },
        },
        "budget": st.budget._asdict(),
    }


# --- DumpReplicationQueues ------------------------------------------------------------------------


def _storage_peers(peers: tuple[int, ...]) -> list[int]:
    """``listReplicationPeers``: the peers in peer storage, by id."""
    return sorted((p for p, s in enumerate(peers) if s in (ENABLED, DISABLED)), key=peer_label)


def _peers_state(peers: tuple[int, ...]) -> list[str]:
    """``dumpPeersState``: one block per peer (replicating all tables: no table-CFs map)."""
    lines = ["Dumping replication peers and configurations:"]
    for p in _storage_peers(peers):
        lines += [
            f"Peer: {peer_label(p)}",
            f"    State: {'ENABLED' if peers[p] == ENABLED else 'DISABLED'}",
            f"    Cluster Name: {cluster_key(p)}",
            "    Replication Endpoint: null",
            "    Peer Table CFs: null",
            "    Peer Namespaces: null",
        ]
    return lines


def _server_order(cfg: Config) -> Callable[[int], tuple[str, int, int]]:
    """``ServerName`` order: host name (case-insensitive), port, start code."""
    return lambda s: (rules.host(cfg, s).lower(), rules.PORT, rules.start_code(s))


def replication_summary(
    deleted: list[str], dead: list[str], sizes: dict[str, int], total: str = "0"
) -> list[str]:
    """``dumpReplicationSummary`` (without ``--hdfs`` the WAL size is never added up: 0)."""
    lines: list[str] = []
    if deleted:
        lines.append(
            f"Found {len(deleted)} deleted queues, run hbck -fixReplication in order to remove "
            "the deleted replication queues"
        )
        lines += [f"    {q}" for q in deleted]
    if dead:
        lines.append(
            f"Found {len(dead)} dead regionservers, restart one regionserver to transfer the "
            "queues of dead regionservers"
        )
        lines += [f"    {rs}" for rs in dead]
    if sizes:
        lines.append("Dumping all peers's number of WALs in replication queue")
        lines += [f"    PeerId: {p} , sizeOfLogQueue: {n}" for p, n in sorted(sizes.items())]
    lines.append(f"    Total size of WALs on HDFS: {total}")
    return lines


def _position(pos: int) -> str:
    return str(pos) if pos > 0 else NOT_STARTED_POSITION


def dump_via_table(cfg: Config, st: TState) -> list[str]:
    """``dumpReplicationViaTable``: peers, then one ``rs/<WAL group>/<peer>/<wal>: <offset>`` line
    per queue row and group (row-key order; the key printed is the WAL group, not the server),
    then the peers with hfile references (the model names no hfile)."""
    lines = ["peers:"]
    for p in _storage_peers(st.peers):
        lines.append(f"peers/{peer_label(p)}: {cluster_key(p)}")
        lines.append(f"peers/{peer_label(p)}/peer-state: {PEER_STATUS_NAMES[st.peers[p]]}")
    lines.append("rs:")
    for row in sorted_rows(cfg, st.rows):
        for q, g, seq, pos in columns(cfg, row):
            lines.append(f"rs/{q}/{peer_label(row.peer)}/{offset_wal(cfg, row, g, seq)}: {pos}")
    lines.append("hfile-refs:")
    for p in sorted((p for p, m in enumerate(st.sid) if m & HFILE_REF), key=peer_label):
        lines.append(f"hfile-refs/{peer_label(p)}/")
    return lines


def queue_wals(cfg: Config, st: TState, row: Row) -> list[WalKey]:
    """The WALs ``dumpQueues`` lists for a queue: those of ``getServerWALsBelongTo()`` in
    ``WALs/`` and ``oldWALs/`` that ``shouldReplicate`` says the queue still needs (by the offset
    of the WAL's group), sorted by timestamp."""
    src = wals_belong_to(row)
    listed = [
        w.key
        for place in (LIVE_DIR, ARCHIVED)
        for w in sorted(
            (w for w in st.wals if w and w.key[0] == src), key=lambda w: wal(cfg, w.key)
        )
        if w.place == place
    ]
    kept = [
        k for k in listed if table_rules.should_replicate(table_rules.group_offset(row, k[1]), k)
    ]
    return sorted(kept, key=table_rules.wal_timestamp)


def dump_distributed(cfg: Config, st: TState) -> list[str]:
    """``dumpQueues`` and ``dumpReplicationSummary``: every replicator (queue owner, in server-name
    order), its queues in row-key order, and the WALs each still needs with its position."""
    peer_ids = {peer_label(p) for p in _storage_peers(st.peers)}
    lines: list[str] = []
    deleted: list[str] = []
    dead: list[str] = []
    sizes: dict[str, int] = {}
    for owner in sorted({r.owner for r in st.rows}, key=_server_order(cfg)):
        name = server_label(cfg, owner)
        if not st.servers[owner].alive:
            dead.append(name)
        for row in sorted_rows(cfg, (r for r in st.rows if r.owner == owner)):
            queue = row_key(cfg, row)
            peer = peer_label(row.peer)
            was_deleted = peer not in peer_ids
            if was_deleted:
                deleted.append(f"{name}/{queue}")
            keys = queue_wals(cfg, st, row)
            lines += [
                f"Dumping replication queue info for RegionServer: [{name}]",
                f"    Queue id: {queue}",
                f"    PeerID: {peer}",
                f"    Recovered: {'true' if row.source != NO_SOURCE else 'false'}",
            ]
            if row.source != NO_SOURCE:
                lines.append(f"    Dead RegionServer: {server_label(cfg, row.source)}")
            else:
                lines.append("    No dead RegionServer found in this queue.")
            lines.append(f"    Was deleted: {'true' if was_deleted else 'false'}")
            lines.append(f"    Number of WALs in replication queue: {len(keys)}")
            sizes[peer] = sizes.get(peer, 0) + len(keys)
            for key in keys:
                offset = table_rules.group_offset(row, key[1])
                pos = offset[1] if offset is not None and offset[0] == key[2] else 0
                lines.append(f"    Replication position for {wal(cfg, key)}: {_position(pos)}")
    summary = replication_summary(deleted, dead, sizes)
    return [*lines, "", *summary] if lines else summary


# --- the ZooKeeper era (DumpReplicationQueues of 2.x) ---------------------------------------------


def _zk_dump(cfg: Config, st: State) -> list[str]:
    """``ZKUtil.getReplicationZnodesDump``: the replication znodes, a WAL znode with its
    position, the ``lock`` znode with its holder."""
    lines = ["Dumping replication znodes via ZooKeeper:", "/hbase/replication: "]
    lines.append(f"{PEERS_ROOT[:-1]}: ")
    for p in _storage_peers(st.peers):
        lines.append(f"{PEERS_ROOT}{peer_label(p)}: {cluster_key(p)}")
        lines.append(f"{PEERS_ROOT}{peer_label(p)}/peer-state: {PEER_STATUS_NAMES[st.peers[p]]}")
    lines.append(f"{RS_ROOT[:-1]}: ")
    for s, node in enumerate(st.rs):
        if not node:
            continue
        root = f"{RS_ROOT}{server_label(cfg, s)}"
        lines.append(f"{root}: ")
        if node.lock != NO_LOCK:
            lines.append(f"{root}/lock: {server_label(cfg, node.lock)}")
        for q in node.queues:
            qpath = f"{root}/{rules.queue_id(cfg, q.peer, q.chain)}"
            lines.append(f"{qpath}: ")
            for key, pos in q.wals:
                lines.append(f"{qpath}/{rules.wal_name(cfg, key)}: {pos}")
    return lines


def _zk_distributed(cfg: Config, st: State) -> list[str]:
    """2.x ``dumpQueues``: per replicator and queue znode, the dead servers its id names and the
    position of every WAL znode."""
    peer_ids = {peer_label(p) for p in _storage_peers(st.peers)}
    lines: list[str] = []
    deleted: list[str] = []
    dead: list[str] = []
    sizes: dict[str, int] = {}
    owners = [s for s, node in enumerate(st.rs) if node]
    for s in sorted(owners, key=_server_order(cfg)):
        name = server_label(cfg, s)
        if not st.servers[s].alive:
            dead.append(name)
        for q in st.rs[s].queues:
            queue = rules.queue_id(cfg, q.peer, q.chain)
            peer = peer_label(q.peer)
            was_deleted = peer not in peer_ids
            if was_deleted:
                deleted.append(f"{name}/{queue}")
            lines += [
                f"Dumping replication queue info for RegionServer: [{name}]",
                f"    Queue znode: {queue}",
                f"    PeerID: {peer}",
                f"    Recovered: {'true' if q.chain else 'false'}",
            ]
            if q.chain:
                dead_names = ", ".join(server_label(cfg, d) for d in q.chain)
                lines.append(f"    Dead RegionServers: [{dead_names}]")
            else:
                lines.append("    No dead RegionServers found in this queue.")
            lines.append(f"    Was deleted: {'true' if was_deleted else 'false'}")
            lines.append(f"    Number of WALs in replication queue: {len(q.wals)}")
            sizes[peer] = sizes.get(peer, 0) + len(q.wals)
            for key, pos in q.wals:
                lines.append(
                    f"    Replication position for {rules.wal_name(cfg, key)}: {_position(pos)}"
                )
    summary = replication_summary(deleted, dead, sizes)
    return [*lines, "", *summary] if lines else summary


def dump(cfg: Config, st: TState | State, distributed: bool = False) -> str:
    """What ``DumpReplicationQueues`` prints: the peers and their configuration, then either the
    queues as read from ``hbase:replication`` (default) or, with ``distributed``, the queues per
    replicator with the WALs each still needs. A ZooKeeper-era state gets the 2.x tool's output:
    the replication znodes, or the queue znodes per replicator. Lines carry no trailing space
    (the tool prints ``peers: `` and ``<znode>: ``; the reference writes ``peers:``)."""
    lines = _peers_state(st.peers)
    lines.append("")
    if isinstance(st, TState):
        if distributed:
            lines += dump_distributed(cfg, st)
        else:
            lines += ["Dumping replication info via replication table.", *dump_via_table(cfg, st)]
    elif distributed:
        lines += _zk_distributed(cfg, st)
    else:
        lines += _zk_dump(cfg, st)
    return "\n".join(line.rstrip() for line in lines)
