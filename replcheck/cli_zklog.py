"""``replcheck zklog``: print ZooKeeper transaction logs and snapshots, multis decoded.

    replcheck zklog PATH [--json] [--replay [--snapshot FILE]]

PATH is a transaction log (``log.<zxid>``), a snapshot (``snapshot.<zxid>[.gz|.snappy]``) or a
data directory (every log in it, in zxid order). A transaction prints as ZooKeeper's
TxnLogToolkit prints it (time, session, cxid, zxid, type, then the record), with each op of a
multi decoded. ``--json`` prints one JSON object a line instead. ``--replay`` rebuilds the data
tree from the directory's earliest snapshot (or ``--snapshot FILE``) and checks the tree digest
logged with every transaction (``docs/zklog.md``).

Exit status: ``replcheck.exits.COMMANDS["zklog"]`` (``replcheck zklog --help``, docs/gate.md).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from replcheck.cli_base import UsageError
from replcheck.conformance.zookeeper.escape import printable
from replcheck.exits import Exit, epilog

ERROR_CODES = {
    0: "OK",
    -1: "SYSTEMERROR",
    -2: "RUNTIMEINCONSISTENCY",
    -3: "DATAINCONSISTENCY",
    -4: "CONNECTIONLOSS",
    -5: "MARSHALLINGERROR",
    -6: "UNIMPLEMENTED",
    -7: "OPERATIONTIMEOUT",
    -8: "BADARGUMENTS",
    -12: "UNKNOWNSESSION",
    -13: "NEWCONFIGNOQUORUM",
    -14: "RECONFIGINPROGRESS",
    -100: "APIERROR",
    -101: "NONODE",
    -102: "NOAUTH",
    -103: "BADVERSION",
    -108: "NOCHILDRENFOREPHEMERALS",
    -110: "NODEEXISTS",
    -111: "NOTEMPTY",
    -112: "SESSIONEXPIRED",
    -113: "INVALIDCALLBACK",
    -114: "INVALIDACL",
    -115: "AUTHFAILED",
    -118: "SESSIONMOVED",
    -119: "NOTREADONLY",
    -120: "EPHEMERALONLOCALSESSION",
    -121: "NOWATCHER",
    -122: "REQUESTTIMEOUT",
    -123: "RECONFIGDISABLED",
    -124: "SESSIONCLOSEDREQUIRESASLAUTH",
    -125: "QUOTAEXCEEDED",
    -127: "THROTTLEDOP",
}
"""``KeeperException.Code`` names, for error records."""


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "zklog",
        help="print ZooKeeper transaction logs and snapshots (multis decoded); replay digests",
        description="Print a ZooKeeper 3.9 transaction log, snapshot or data directory as "
        "TxnLogToolkit does, with every op of a multi decoded; --replay rebuilds the data tree "
        "and checks ZooKeeper's tree digest after every transaction (docs/zklog.md).",
        epilog=epilog("zklog"),
    )
    p.add_argument("path", metavar="PATH", help="a log.<zxid> file, a snapshot, or a data dir")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    p.add_argument(
        "--replay",
        action="store_true",
        help="rebuild the data tree and check the logged tree digest of every transaction",
    )
    p.add_argument("--snapshot", metavar="FILE", help="with --replay: start from this snapshot")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from replcheck.conformance.zookeeper.txnlog import ZkLogError, read_log, read_logs

    path = Path(args.path)
    if args.snapshot and not args.replay:
        raise UsageError("--snapshot: only with --replay")
    if not path.exists():
        raise ZkLogError(f"{path}: no such file or directory")
    if args.replay:
        if not path.is_dir():
            raise UsageError("--replay: give a data directory")
        return _replay(path, args)
    out = sys.stdout
    if path.is_dir():
        txns: Iterable[Any] = read_logs(path)
    elif path.name.startswith("snapshot."):
        return _snapshot(path, args.json)
    else:
        txns = read_log(path)
    for txn in txns:
        out.write((json.dumps(txn_json(txn)) if args.json else txn_text(txn)) + "\n")
    return Exit.OK


def _replay(path: Path, args: argparse.Namespace) -> int:
    from replcheck.conformance.zookeeper.digest import replay

    r = replay(path, snapshot=args.snapshot)
    counts: Counter[str] = Counter()
    first_bad = None
    for step in r:
        counts[step.check] += 1
        if step.check == "mismatch" and first_bad is None:
            first_bad = step
        if args.json:
            row = txn_json(step.txn)
            row.update(replayed_digest=step.digest, check=step.check, err=step.err)
            sys.stdout.write(json.dumps(row) + "\n")
        else:
            sys.stdout.write(f"{txn_text(step.txn)}  [digest {step.check}]\n")
    start = r.snapshot.name if r.snapshot else "the empty tree"
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no transactions"
    bad = counts["mismatch"] or r.snapshot_check == "mismatch"
    word = "FAIL" if bad else "PASS"
    sys.stderr.write(
        f"zklog: {word}: replayed from {start} (its digest: {r.snapshot_check}): {summary}\n"
    )
    if first_bad is not None:
        t = first_bad.txn
        sys.stderr.write(
            f"zklog: first mismatch: {t.file}: byte {t.offset}: zxid {t.zxid:#x} "
            f"{t.type_name}: logged {t.digest.tree_digest if t.digest else None}, "
            f"rebuilt {first_bad.digest}\n"
        )
    return Exit.FAIL if bad else Exit.OK


def _snapshot(path: Path, as_json: bool) -> int:
    from replcheck.conformance.zookeeper.snapshot import read_snapshot

    out = sys.stdout
    with read_snapshot(path) as snap:
        head = {
            "file": str(path),
            "zxid": snap.zxid,
            "dbid": snap.dbid,
            "compression": snap.compression or None,
            "sessions": {f"{k:#x}": v for k, v in snap.sessions.items()},
            "acls": {str(k): _value(v) for k, v in snap.acls.items()},
        }
        if as_json:
            out.write(json.dumps(head) + "\n")
        else:
            z = f"{snap.zxid:#x}" if snap.zxid is not None else "?"
            out.write(
                f"ZooKeeper snapshot {path.name}: zxid {z}, dbid {snap.dbid}, "
                f"{len(snap.sessions)} sessions, {len(snap.acls)} ACL lists\n"
            )
            for sid, timeout in snap.sessions.items():
                out.write(f"session {sid:#x} timeout {timeout}\n")
        for n in snap.nodes():
            if as_json:
                out.write(
                    json.dumps(
                        {
                            "path": n.path or "/",
                            **_value(n.stat),
                            "acl": n.acl,
                            "data": _value(n.data),
                        }
                    )
                    + "\n"
                )
            else:
                s = n.stat
                out.write(
                    printable(
                        f"{n.path or '/'} czxid {s.czxid:#x} mzxid {s.mzxid:#x} "
                        f"pzxid {s.pzxid:#x} ctime {_time(s.ctime)} mtime {_time(s.mtime)} "
                        f"version {s.version} cversion {s.cversion} aversion {s.aversion} "
                        f"ephemeralOwner {s.ephemeral_owner & 0xFFFFFFFFFFFFFFFF:#x} "
                        f"acl {n.acl} data {_data(n.data)}"
                    )
                    + "\n"
                )
        d = snap.digest
        tail = {"digest": _value(d), "last_zxid": snap.last_zxid, "seals": snap.seals}
        if as_json:
            out.write(json.dumps(tail) + "\n")
        else:
            dz = f"zxid {d.zxid:#x} digest {d.digest}" if d else "none"
            out.write(f"digest: {dz}; checksum seals verified: {snap.seals}\n")
    return Exit.OK


# --- rendering ----------------------------------------------------------------------------------


def _time(ms: int) -> str:
    try:
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")
    except (OverflowError, OSError, ValueError):
        return str(ms)


def _data(b: bytes | None) -> str:
    if b is None:
        return "null"
    try:
        return json.dumps(b.decode("utf-8"), ensure_ascii=False)
    except UnicodeDecodeError:
        return "0x" + b.hex()


def _perms(p: int) -> str:
    return "".join(c for bit, c in ((4, "c"), (8, "d"), (1, "r"), (2, "w"), (16, "a")) if p & bit)


def _acl(a: Any) -> str:
    return f"{a.scheme}:{a.id}:{_perms(a.perms)}"


def describe(rec: Any) -> str:
    """A record's fields in one line (the part TxnLogToolkit prints after the type)."""
    if rec is None:
        return ""
    name = type(rec).__name__
    if name == "MultiTxn":
        ops = "; ".join(f"{s.type_name} {describe(s.record)}".rstrip() for s in rec.txns)
        return ("FAILED " if rec.failed else "") + f"[{ops}]"
    if name == "ErrorTxn":
        return f"err {rec.err} {ERROR_CODES.get(rec.err, '?')}"
    parts = []
    for f in fields(rec):
        v = getattr(rec, f.name)
        if f.name == "path":
            parts.append(str(v))
        elif f.name == "data":
            parts.append(_data(v))
        elif f.name == "acl":
            parts.append("[" + ",".join(_acl(a) for a in v or ()) + "]")
        elif f.name == "paths":
            parts.append("paths [" + ",".join(str(x) for x in v or ()) + "]")
        elif f.name == "ephemeral":
            parts.append("ephemeral" if v else "persistent")
        else:
            parts.append(f"{f.name} {v}")
    return " ".join(parts)


def txn_text(t: Any) -> str:
    """One line for a transaction, in TxnLogToolkit's order of fields; a control or
    bidirectional character of a path or an ACL printed as its escape (``escape.printable``)."""
    session, cxid = t.session & 0xFFFFFFFFFFFFFFFF, t.cxid & 0xFFFFFFFF
    return printable(
        f"{_time(t.time)} session {session:#x} cxid {cxid:#x} zxid {t.zxid:#x} {t.type_name} "
        f"{describe(t.record)}"
    ).rstrip()


def _value(v: Any) -> Any:
    if isinstance(v, bytes):
        try:
            return {"text": v.decode("utf-8")}
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(v).decode()}
    if is_dataclass(v) and not isinstance(v, type):
        return {f.name: _value(getattr(v, f.name)) for f in fields(v)}
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    return v


def txn_json(t: Any) -> dict[str, Any]:
    """A transaction as JSON: header fields, the record's fields (a multi's ops under ``ops``,
    each with its type and decoded record), the logged digest."""
    row: dict[str, Any] = {
        "file": t.file,
        "offset": t.offset,
        "zxid": t.zxid,
        "session": t.session,
        "cxid": t.cxid,
        "time": t.time,
        "type": t.type_name,
    }
    rec = t.record
    if rec is not None and type(rec).__name__ == "MultiTxn":
        row["failed"] = rec.failed
        row["ops"] = [
            {"type": s.type_name, **(_value(s.record) if s.record else {"raw": _value(s.data)})}
            for s in rec.txns
        ]
    elif rec is not None:
        row.update(_value(rec))
    row["digest"] = _value(t.digest)
    return row
