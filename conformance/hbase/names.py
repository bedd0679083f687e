"""The model's names and decision rules as the reference cluster uses them.

Names (server names, WAL file names, queue ids, row keys) come from ``replcheck.model.common.rules``
and ``replcheck.model.table.rules``; server ``i`` of the cluster is the model's server ``i``, peer
``p`` is peer id ``p + 2`` and cluster ``p + 1``. Decisions (which edits a peer gets, what the log
cleaner may delete) call the design object's rule methods, so a mutant's override switches the
same step on the real cluster. Mutants whose bug is not a rule method are listed in
``FLAGGED`` and switch a named step of the cluster instead.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from replcheck.conformance.hbase.values import (
    decode_peer,
    encode_peer,
    encode_peer_state,
    encode_position,
    hbase_value,
    peer_configuration,
    protobuf_of,
    strip_metadata,
)
from replcheck.model import get_design
from replcheck.model.common import rules
from replcheck.model.common.state import CATALOG, GLOBAL, LOCAL, Edit
from replcheck.model.config import Config
from replcheck.model.engine.design import Design
from replcheck.model.table import rules as table_rules
from replcheck.model.table.state import NO_SOURCE, Row

SINKS_KEY = "replcheck.sinks"
"""The peer configuration key that names the reference cluster's sink addresses."""

MAX_SERVERS = 32
CFG = Config(name="reference-cluster", servers=MAX_SERVERS)
"""The name space of the reference cluster: up to ``MAX_SERVERS`` region-server incarnations."""

DESIGNS = ("zk-lock", "zk-multi", "table")

FLAGGED: dict[str, str] = {
    "zk-lock/cleaner-skips-lookup": "cleaner_skips_lookup",
    "zk-multi/HBASE-12865": "claim_skips_cversion",
    "zk-multi/HBASE-8099": "start_failed_claim",
    "zk-multi/recovered-restarts-at-zero": "recovered_from_zero",
}
"""Mutants whose bug is a step (not a rule method): the cluster switch each one turns on."""

RULE_MUTANTS = (
    "zk-lock/ships-local-scope",
    "zk-lock/no-loop-prevention",
    "table/cleaner-offset-wal-done",
    "table/cleaner-missing-queue-deletes",
)
"""Mutants whose overridden rule method the cluster calls directly."""

SUPPORTED_MUTANTS = tuple(sorted((*FLAGGED, *RULE_MUTANTS)))


class DesignError(ValueError):
    """An unknown design, or a mutant the reference cluster cannot switch."""


WRITE_KINDS = {"global": ("t1", "g"), "local": ("t1", "l"), "catalog": ("hbase:meta", "info")}
"""A planned write's kind -> the (table, family) it goes to (``kind_of`` gives its scope)."""


def kind_of(table: str, family: str) -> int:
    """An edit's kind from where it was written: the catalog table is CATALOG; family ``l`` is
    scoped LOCAL; every other family is GLOBAL (seed 002)."""
    if table == "hbase:meta":
        return CATALOG
    return LOCAL if family == "l" else GLOBAL


def server_name(i: int) -> str:
    return rules.server_name(CFG, i)


def server_index(name: str) -> int:
    i = rules.parse_server_name(CFG, name)
    if i is None:
        raise ValueError(f"not a region server of the reference cluster: {name!r}")
    return i


def peer_id(p: int) -> str:
    return rules.peer_id(p)


def peer_index(pid: str) -> int:
    return int(pid) - 2


def seq_of_timestamp(ts: int) -> int:
    return (ts - 1234) // 31


class Steps:
    """One design's (or mutant's) names and decisions."""

    def __init__(self, name: str) -> None:
        base = name.split("/", 1)[0]
        if base not in DESIGNS:
            raise DesignError(f"unknown design {name!r}; known: {', '.join(DESIGNS)}")
        if "/" in name and name not in SUPPORTED_MUTANTS:
            raise DesignError(
                f"mutant {name!r} has no switch in the reference cluster; supported: "
                + ", ".join(SUPPORTED_MUTANTS)
            )
        try:
            self.design = get_design(name)
        except Exception as exc:
            raise DesignError(str(exc)) from None
        self.name = name
        self.base = base
        self.era = "table" if base == "table" else "zk"
        self.flags = {FLAGGED[name]} if name in FLAGGED else set()

    @classmethod
    def for_model(cls, design: Design) -> Steps:
        """Names and decisions of any design or mutant the model knows, for reading its traces
        (no cluster switch is needed to read names)."""
        self = cls.__new__(cls)
        self.design = design
        self.name = design.name
        self.base = design.name.split("/", 1)[0]
        self.era = "table" if design.era == "table" else "zk"
        self.flags = set()
        return self

    def flag(self, step: str) -> bool:
        return step in self.flags

    # --- values --------------------------------------------------------------------------------

    @property
    def queued_value(self) -> bytes:
        """A WAL znode's value when the WAL is queued: zk-multi's is empty (``addWAL`` creates
        it with ``EMPTY_BYTE_ARRAY``, which gets no metadata prefix), zk-lock's the text ``0``."""
        return b"" if self.base == "zk-multi" else b"0"

    def position_value(self, position: int, ident: str) -> bytes:
        """A WAL znode's position as the design stores it: zk-multi as HBase 2.x does (the
        metadata prefix, ``PBUF``, ``ReplicationHLogPosition``), the others as decimal text."""
        if self.base == "zk-multi":
            return hbase_value(encode_position(position), ident)
        return str(position).encode()

    def copied_value(self, raw: bytes, ident: str) -> bytes:
        """A value copied from one znode to another (a claim's WAL positions): zk-multi as
        ``claimQueue`` does, the data as read (``removeMetaData``) written with this process's
        metadata; the others as they were."""
        if self.base == "zk-multi":
            return hbase_value(strip_metadata(raw), ident)
        return raw

    def peer_value(self, cluster: int, sinks: list[str], ident: str) -> bytes:
        """A peer znode's value: zk-multi as HBase 2.x does (``ReplicationPeer``: the cluster
        key ``zk1:2181:/hbase-<cluster>``, the sinks in its configuration as ``SINKS_KEY``), the
        others as JSON."""
        if self.base == "zk-multi":
            key = f"zk1:2181:/hbase-{cluster}"
            return hbase_value(encode_peer(key, {SINKS_KEY: ",".join(sinks)}), ident)
        return json.dumps({"cluster": cluster, "sinks": sinks}, sort_keys=True).encode()

    @staticmethod
    def peer_info(raw: bytes) -> dict[str, Any] | None:
        """``{"cluster", "sinks"}`` of a peer znode's value, in either form (None: unreadable)."""
        try:
            if protobuf_of(raw) is not None:
                key = decode_peer(raw)
                sinks = [s for s in peer_configuration(raw).get(SINKS_KEY, "").split(",") if s]
                return {"cluster": int(key.rsplit("-", 1)[1]), "sinks": sinks}
            got = json.loads(raw)
        except (ValueError, IndexError):
            return None
        return got if isinstance(got, dict) else None

    def peer_state_value(self, state: str, ident: str) -> bytes:
        """A ``peer-state`` znode's value: zk-multi as HBase 2.x does, the others as text."""
        if self.base == "zk-multi":
            return hbase_value(encode_peer_state(state), ident)
        return state.encode()

    # --- names ---------------------------------------------------------------------------------

    def wal_name(self, server: int, seq: int) -> str:
        """``address,port.timestamp`` (ZooKeeper era, seed 000) or
        ``<urlencoded server name>.<timestamp>`` (table era, reference section 6)."""
        key = (server, 0, seq)
        if self.era == "zk":
            return rules.wal_name(CFG, key)
        return table_rules.wal_file_name(CFG, key)

    def parse_wal(self, name: str) -> tuple[int, int, int]:
        """The model's WAL key ``(server, group, seq)`` of a WAL file name."""
        if self.era == "table":
            _group, server, ts = table_rules.parse_wal_file_name(name)
            return (server_index(server), 0, seq_of_timestamp(ts))
        prefix, _, ts = name.rpartition(".")
        host = prefix.split(",", 1)[0]
        for i in range(MAX_SERVERS):
            if rules.host(CFG, i) == host:
                return (i, 0, seq_of_timestamp(int(ts)))
        raise ValueError(f"not a WAL of the reference cluster: {name!r}")

    def zk_queue_id(self, peer: int, chain: tuple[int, ...]) -> str:
        return rules.queue_id(CFG, peer, chain)

    def parse_zk_queue_id(self, text: str) -> tuple[int, tuple[int, ...]]:
        """(peer, chain of dead servers) of a ZooKeeper-era queue znode name."""
        pid, dead = self.design.rule_parse_queue_id(CFG, text)
        return peer_index(pid), tuple(server_index(d) for d in dead)

    def row_key(self, peer: int, owner: int, source: int = NO_SOURCE) -> str:
        return table_rules.queue_id(CFG, peer, owner, source)

    def parse_row_key(self, key: str) -> tuple[int, int, int]:
        pid, owner, source = table_rules.parse_queue_id(key)
        src = server_index(source) if source else NO_SOURCE
        return peer_index(pid), server_index(owner), src

    # --- decisions -------------------------------------------------------------------------------

    def ships(self, kind: int, cluster_ids: list[int], target: int) -> bool:
        """The source's filter (seed 002), as the design's ``rule_ships`` decides."""
        return self.design.rule_ships(Edit((0,), kind, tuple(cluster_ids), 0), target)

    def zk_may_delete(self, key: tuple[int, int, int], queued: tuple) -> bool:
        """The ZooKeeper-era cleaner: "if it's not found, the log will be deleted" (seed 003)."""
        if self.flag("cleaner_skips_lookup"):
            return True
        return rules.may_delete_wal(key, queued)

    def table_may_delete(
        self, rows: list[Row], live: int, peers: list[int], key: tuple[int, int, int]
    ) -> bool:
        """``ReplicationLogCleaner.filter`` (reference section 6) via the design's
        ``rule_cleaner_may_delete`` over the cleaner's snapshot."""
        mask = sum(1 << p for p in peers)
        snap = SimpleNamespace(cleaner=SimpleNamespace(rows=tuple(rows), live=live, peers=mask))
        return self.design.rule_cleaner_may_delete(CFG, snap, key)

    def should_replicate(self, offset: tuple[int, int] | None, key: tuple[int, int, int]) -> bool:
        return table_rules.should_replicate(offset, key)
