"""Typed views of the table era's slot layout (``model/table/layout.py`` lays the slots out), for
steps, rules and properties written with ``model/engine/step.py``."""

from __future__ import annotations

from typing import Any

from replcheck.model.common.families import (
    BUDGET,
    CURRENT_WAL,
    KNOWS_PEER,
    SERVER_ALIVE,
    SHIPPER,
    SHIPPER_POS,
    WAL_CLOSED,
    WAL_EXISTS,
    WAL_LENGTH,
    WAL_PLACE,
)
from replcheck.model.engine.step import View, slot
from replcheck.model.features.families import REPLICATION_TABLE_ONLINE
from replcheck.model.table.families import (
    PEER_PROC,
    PEER_PROC_KIND,
    PEER_PROC_RECORDED,
    PEER_PROC_REFRESH,
    PEER_PROC_STAGE,
    QUEUE_HAS_OFFSET,
    QUEUE_OFFSET_POS,
    QUEUE_OFFSET_WAL,
    QUEUE_ROW,
    SCP_STAGE_,
)


class TableText:
    """The names the table era's text classes read from the layout (``model/table/layout.py``
    builds them; the helpers are ``StepBase``'s): every component's text class derives from
    this one declaration."""

    cfg: Any
    design: Any
    S: range
    P: range
    G: range
    Q: range
    W: range
    E: int
    K: range
    CL: range
    SRC: range
    OG: Any
    key: list[tuple[int, int, int]]
    rkeys: list[tuple]
    sh_keys: list[tuple]
    init_state: Any
    rule: dict[str, Any]
    refuse: list[bool]
    slot: Any
    clear: Any
    storage: Any
    set_offset: Any
    remove_row: Any
    row_keys: Any
    scp_keys: Any
    claim_keys: Any
    wal_keys: Any
    wal_owner: Any
    uid: Any
    entry: Any
    write_entry: Any
    as_stored: Any
    replicable: Any
    deliver: Any
    kill: Any
    start_server: Any
    add_shipper: Any
    pop_claim: Any
    shipper_keys: Any
    shipper_ok: Any
    head_is: Any
    head_slot: Any
    more_after: Any
    readable: Any
    scp_unfinished: Any
    barrier_enable: Any
    proc_keys: Any
    cursor_steps: Any
    arqp_unfinished: Any
    rs_add_peer: Any
    rs_remove_peer: Any
    cleaner_reset: Any
    _put_row: Any
    _get_rows: Any


def each_server(text: Any) -> list[tuple[int]]:
    """One instance per region server (a step's ``each``)."""
    return [(s,) for s in text.S]


class Server(View):
    """Region server ``s``: ``Server(t, s)``."""

    alive = slot(SERVER_ALIVE)
    current = slot(CURRENT_WAL, by="group")
    """The sequence of the WAL each group currently writes."""
    knows = slot(KNOWS_PEER, by="peer")
    """The peers the server has been told of (RefreshPeerProcedure reached it)."""


class Row(View):
    """A queue row of ``hbase:replication``, ``Row(t, peer, owner, source)`` (``source``
    ``NO_SOURCE`` for a normal queue): whether it exists, and per WAL group column whether the
    column is there and the offset it holds (WAL sequence, position)."""

    exists = slot(QUEUE_ROW)
    has = slot(QUEUE_HAS_OFFSET, by="group")
    seq = slot(QUEUE_OFFSET_WAL, by="group")
    pos = slot(QUEUE_OFFSET_POS, by="group")


class Region(View):
    """The region of ``hbase:replication``: ``Region(t)``."""

    online = slot(REPLICATION_TABLE_ONLINE)


class WalFile(View):
    """WAL slot ``w`` (``Config.slot``): ``WalFile(t, w)``."""

    exists = slot(WAL_EXISTS)
    entries = slot(WAL_LENGTH)
    closed = slot(WAL_CLOSED)
    place = slot(WAL_PLACE)


class Crash(View):
    """The ServerCrashProcedure of server ``d``: ``Crash(t, d)``."""

    stage = slot(SCP_STAGE_)


class ShipperSlot(View):
    """Shipper slot ``(server, peer, source, group, copy)``: ``ShipperSlot(t, *sk)``."""

    present = slot(SHIPPER)
    pos = slot(SHIPPER_POS)


class PeerProc(View):
    """The peer procedure of peer ``p`` (one at a time): ``PeerProc(t, p)``: whether one is
    persisted, its kind (``ADD``, ``REMOVE``, sync's ``TRANSIT``) and stage, the servers whose
    RefreshPeerProcedure child is still out, and the servers RemovePeerProcedure recorded."""

    present = slot(PEER_PROC)
    kind = slot(PEER_PROC_KIND)
    stage = slot(PEER_PROC_STAGE)
    refresh = slot(PEER_PROC_REFRESH, by="server")
    recorded = slot(PEER_PROC_RECORDED, by="server")


class Budget(View):
    """A budget of the configuration by name: ``Budget(t, "crashes").left``."""

    left = slot(BUDGET)
