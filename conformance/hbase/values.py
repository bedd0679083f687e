"""The values HBase 2.x and the reference cluster store in the replication znodes, decoded.

HBase writes every value through ``RecoverableZooKeeper.appendMetaData``: the byte ``0xFF``, a
4-byte big-endian id length, the id (``pid@host`` and an 8-byte salt), then the data. Replication
data is a protobuf message after the magic ``PBUF`` (``ProtobufUtil.prependPBMagic``):
``ReplicationHLogPosition`` (``int64 position = 1``) for a WAL's position (``ZKUtil
.positionToByteArray``), ``ReplicationState`` (``enum State {ENABLED = 0; DISABLED = 1}``, field
1) for ``peer-state``, ``ReplicationPeer`` (``string clusterkey = 1``) for a peer, and
``ReplicationLock`` (``string lock_owner = 1``) for the old ``lock`` znode. The reference
cluster's ``zk-multi`` writes positions and peer states as HBase 2.x does (``hbase_value``,
``encode_position``, ``encode_peer_state``); its other designs write plain text (a decimal
position, ``ENABLED``), and every design a peer as JSON. Every decoder takes either.
"""

from __future__ import annotations

import json
import os
from typing import Any

META_MAGIC = 0xFF
PB_MAGIC = b"PBUF"
PEER_STATES = {0: "ENABLED", 1: "DISABLED"}
"""``ReplicationProtos.ReplicationState.State``."""


def hbase_value(data: bytes, ident: str) -> bytes:
    """``ZKMetadata.appendMetaData``, as ``RecoverableZooKeeper`` applies it to every value it
    creates or sets: ``0xFF``, the length of the id and an 8-byte salt, the id (the process's
    identifier), the salt, then the data. Empty data is written as it is."""
    if not data:
        return data
    idb = ident.encode() + os.urandom(8)
    return bytes([META_MAGIC]) + len(idb).to_bytes(4, "big") + idb + data


def _varint_bytes(v: int) -> bytes:
    v &= (1 << 64) - 1  # an int64 as protobuf writes it (a negative one in ten bytes)
    out = bytearray()
    while True:
        byte, v = v & 0x7F, v >> 7
        out.append(byte | (0x80 if v else 0))
        if not v:
            return bytes(out)


def encode_position(position: int) -> bytes:
    """``ZKUtil.positionToByteArray``: ``PBUF`` and ``ReplicationHLogPosition`` (field 1, a
    varint; required, so written even when 0)."""
    return PB_MAGIC + b"\x08" + _varint_bytes(position)


def _field(num: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint_bytes(num << 3 | 2) + _varint_bytes(len(payload)) + payload


def encode_peer(cluster_key: str, configuration: dict[str, str]) -> bytes:
    """A peer znode's value as ``ReplicationPeerConfigUtil.toByteArray`` writes it: ``PBUF`` and
    ``ReplicationPeer`` with its cluster key (1), its configuration as ``NameStringPair``s (4),
    bandwidth 0 (7), replicate_all true (8) and serial false (11)."""
    msg = _field(1, cluster_key.encode())
    for name, value in configuration.items():
        msg += _field(4, _field(1, name.encode()) + _field(2, value.encode()))
    msg += b"\x38\x00" + b"\x40\x01" + b"\x58\x00"
    return PB_MAGIC + msg


def peer_configuration(raw: bytes) -> dict[str, str]:
    """The ``configuration`` pairs of a ``ReplicationPeer`` value (empty for a plain value)."""
    data = strip_metadata(raw)
    if not data.startswith(PB_MAGIC):
        return {}
    out = {}
    for num, value in all_fields(data[len(PB_MAGIC) :]):
        if num == 4 and isinstance(value, bytes):
            pair = fields(value)
            name, val = pair.get(1, b""), pair.get(2, b"")
            if isinstance(name, bytes) and isinstance(val, bytes):
                out[name.decode("utf-8", "replace")] = val.decode("utf-8", "replace")
    return out


def encode_peer_state(state: str) -> bytes:
    """``ZKReplicationPeerStorage``'s ``ENABLED_ZNODE_BYTES``/``DISABLED_ZNODE_BYTES``:
    ``PBUF`` and ``ReplicationState`` (field 1, the enum)."""
    code = {v: k for k, v in PEER_STATES.items()}[state]
    return PB_MAGIC + b"\x08" + _varint_bytes(code)


def strip_metadata(raw: bytes) -> bytes:
    """``RecoverableZooKeeper.removeMetaData``: drop ``0xFF``, the id length and the id."""
    if not raw or raw[0] != META_MAGIC:
        return raw
    if len(raw) < 5:
        raise ValueError(f"metadata prefix cut short ({len(raw)} bytes)")
    n = int.from_bytes(raw[1:5], "big", signed=True)
    if n < 0 or 5 + n > len(raw):
        raise ValueError(f"metadata id length {n} does not fit in {len(raw)} bytes")
    return raw[5 + n :]


def _varint(b: bytes, o: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        if o >= len(b) or shift > 63:
            raise ValueError("protobuf varint cut short")
        c = b[o]
        o += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, o


def fields(msg: bytes) -> dict[int, Any]:
    """The fields of a protobuf message (the last value of each), by number."""
    return dict(all_fields(msg))


def all_fields(msg: bytes) -> list[tuple[int, Any]]:
    """Every (number, value) of a protobuf message, in order (a repeated field once per
    value)."""
    out: list[tuple[int, Any]] = []
    o = 0
    while o < len(msg):
        key, o = _varint(msg, o)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, o = _varint(msg, o)
        elif wire == 1:
            value, o = msg[o : o + 8], o + 8
        elif wire == 2:
            n, o = _varint(msg, o)
            value, o = msg[o : o + n], o + n
        elif wire == 5:
            value, o = msg[o : o + 4], o + 4
        else:
            raise ValueError(f"protobuf wire type {wire} not expected")
        if o > len(msg):
            raise ValueError("protobuf field cut short")
        out.append((num, value))
    return out


def protobuf_of(raw: bytes) -> dict[int, Any] | None:
    """The protobuf fields of a value with the ``PBUF`` magic, or None for a plain value."""
    data = strip_metadata(raw)
    if not data.startswith(PB_MAGIC):
        return None
    return fields(data[len(PB_MAGIC) :])


def decode_position(raw: bytes) -> int:
    """A WAL znode's position: ``ZKUtil.parseWALPositionFrom`` (``ReplicationHLogPosition``,
    field 1, an int64 varint) or the reference cluster's decimal text; no data is 0 (a WAL
    queued and not yet shipped from)."""
    pb = protobuf_of(raw)
    if pb is not None:
        if 1 not in pb:
            raise ValueError("ReplicationHLogPosition without its position")
        v = pb[1]
        return v - (1 << 64) if v >> 63 else v
    text = strip_metadata(raw).decode("ascii", "replace").strip()
    if not text:
        return 0
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"not a position: {text[:40]!r}") from None


def decode_peer_state(raw: bytes) -> str:
    """``peer-state``: a ``ReplicationState`` (field 1: 0 ENABLED, 1 DISABLED) or the text."""
    pb = protobuf_of(raw)
    if pb is not None:
        state = pb.get(1, 0)  # proto2 default: the enum's first value
        if state not in PEER_STATES:
            raise ValueError(f"unknown peer state {state}")
        return PEER_STATES[state]
    text = strip_metadata(raw).decode("ascii", "replace").strip()
    if text not in ("ENABLED", "DISABLED"):
        raise ValueError(f"not a peer state: {text[:40]!r}")
    return text


def decode_peer(raw: bytes) -> str:
    """A peer znode's cluster key: ``ReplicationPeer.clusterkey`` (field 1), the reference
    cluster's JSON (``{"cluster": c}`` is ``zk1:2181:/hbase-<c>``), or the text."""
    pb = protobuf_of(raw)
    if pb is not None:
        key = pb.get(1, b"")
        return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)
    text = strip_metadata(raw).decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    if isinstance(obj, dict) and "cluster" in obj:
        return f"zk1:2181:/hbase-{obj['cluster']}"
    return text


def decode_lock(raw: bytes) -> str:
    """A ``lock`` znode's holder: ``ReplicationLock.lockOwner`` (field 1) or the plain name."""
    pb = protobuf_of(raw)
    if pb is not None:
        owner = pb.get(1, b"")
        return owner.decode("utf-8", "replace") if isinstance(owner, bytes) else str(owner)
    return strip_metadata(raw).decode("utf-8", "replace")
