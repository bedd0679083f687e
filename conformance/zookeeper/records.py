"""The records of ZooKeeper's transaction logs, as ``zookeeper.jute`` defines them: the
transaction types (``ZooDefs.OpCode``), each body (``CreateTxn``, ``SetDataTxn``, ``MultiTxn``,
...), the digest trailer and :class:`Txn`, one logged transaction. ``zklog`` decodes them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ACL",
    "OP_NAMES",
    "CheckVersionTxn",
    "CloseSessionTxn",
    "CreateContainerTxn",
    "CreateSessionTxn",
    "CreateTTLTxn",
    "CreateTxn",
    "DeleteTxn",
    "ErrorTxn",
    "MultiTxn",
    "OpCode",
    "Record",
    "SetACLTxn",
    "SetDataTxn",
    "SubTxn",
    "Txn",
    "TxnDigest",
    "op_name",
]


class OpCode:
    """The transaction types of ``ZooDefs.OpCode`` that appear in transaction logs."""

    create = 1
    delete = 2
    setData = 5
    setACL = 7
    check = 13
    multi = 14
    create2 = 15
    reconfig = 16
    createContainer = 19
    deleteContainer = 20
    createTTL = 21
    createSession = -10
    closeSession = -11
    error = -1


OP_NAMES: dict[int, str] = {
    v: k for k, v in vars(OpCode).items() if isinstance(v, int) and not k.startswith("_")
}
"""Type number → name, as ``Request.op2String`` spells it."""


def op_name(op: int) -> str:
    """The name of a transaction type; ``unknown N`` as ZooKeeper says for any other."""
    return OP_NAMES.get(op, f"unknown {op}")


@dataclass(slots=True, frozen=True)
class ACL:
    """One access-control entry: permission bits and the identity (``scheme:id``)."""

    perms: int
    scheme: str | None
    id: str | None


@dataclass(slots=True)
class CreateTxn:
    """``create`` and ``create2`` (and the creates inside a multi)."""

    path: str | None
    data: bytes | None
    acl: tuple[ACL, ...] | None
    ephemeral: bool
    parent_cversion: int
    """The parent's cversion after the create; -1 in a pre-3.3 record, which had none."""


@dataclass(slots=True)
class CreateTTLTxn:
    path: str | None
    data: bytes | None
    acl: tuple[ACL, ...] | None
    parent_cversion: int
    ttl: int


@dataclass(slots=True)
class CreateContainerTxn:
    path: str | None
    data: bytes | None
    acl: tuple[ACL, ...] | None
    parent_cversion: int


@dataclass(slots=True)
class DeleteTxn:
    """``delete`` and ``deleteContainer``."""

    path: str | None


@dataclass(slots=True)
class SetDataTxn:
    """``setData``, and ``reconfig`` (which ZooKeeper logs as a setData of /zookeeper/config)."""

    path: str | None
    data: bytes | None
    version: int


@dataclass(slots=True)
class CheckVersionTxn:
    path: str | None
    version: int


@dataclass(slots=True)
class SetACLTxn:
    path: str | None
    acl: tuple[ACL, ...] | None
    version: int


@dataclass(slots=True)
class CreateSessionTxn:
    timeout: int


@dataclass(slots=True)
class CloseSessionTxn:
    paths: list[str | None] | None
    """The session's ephemeral nodes, which the close deletes."""


@dataclass(slots=True)
class ErrorTxn:
    """A failed request (standalone: no path, no digest), or a failed op inside a multi."""

    err: int


@dataclass(slots=True)
class SubTxn:
    """One op of a multi: its type, its bytes as logged, and those bytes decoded (None for a type
    ZooKeeper does not put in a multi)."""

    type: int
    data: bytes | None
    record: Record | None

    @property
    def type_name(self) -> str:
        return op_name(self.type)

    @property
    def path(self) -> str | None:
        return getattr(self.record, "path", None)


@dataclass(slots=True)
class MultiTxn:
    """A multi: every op, in order. In a failed multi the ops before the failing one keep their
    own types, the failing op is an error with its code, and the ops after it are errors with
    ``RUNTIMEINCONSISTENCY`` (-2); ZooKeeper applies none of them."""

    txns: list[SubTxn]

    @property
    def failed(self) -> bool:
        return any(t.type == OpCode.error for t in self.txns)


Record = (
    CreateTxn
    | CreateTTLTxn
    | CreateContainerTxn
    | DeleteTxn
    | SetDataTxn
    | CheckVersionTxn
    | SetACLTxn
    | CreateSessionTxn
    | CloseSessionTxn
    | ErrorTxn
    | MultiTxn
)


@dataclass(slots=True)
class TxnDigest:
    """The digest trailer: the digest version and the data tree's digest after the txn."""

    version: int
    tree_digest: int


@dataclass(slots=True)
class Txn:
    """One logged transaction."""

    file: str
    offset: int
    """Byte offset of the entry (its checksum) in the file."""
    session: int
    """The client id (session id) of the TxnHeader."""
    cxid: int
    zxid: int
    time: int
    """Milliseconds since the epoch, the leader's clock."""
    type: int
    record: Record | None
    """The body; None only for a closeSession of the format before 3.6 (which had none)."""
    digest: TxnDigest | None

    @property
    def type_name(self) -> str:
        return op_name(self.type)

    @property
    def path(self) -> str | None:
        """The path the txn names, if its type has one."""
        return getattr(self.record, "path", None)
