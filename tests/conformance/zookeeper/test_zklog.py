"""The ZooKeeper log and snapshot readers and the digest replay, on files a real ZooKeeper wrote.

A module fixture runs three standalone ZooKeepers (snapshots uncompressed, gzip and snappy), each
with a small snapCount (so logs roll and snapshots are taken), TTL nodes enabled and a fast
container check, and drives each with kazoo through every kind of transaction. The readers are
then held against ZooKeeper's own TxnLogToolkit and SnapshotFormatter, run from the same jars on
the same files, and the replay against the digest ZooKeeper logged with every transaction.
"""

from __future__ import annotations

import base64
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter, namedtuple
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kazoo.client import KazooClient
from kazoo.exceptions import NodeExistsError, NoNodeError
from kazoo.protocol.serialization import Create2, long_struct
from kazoo.security import OPEN_ACL_UNSAFE, make_acl, make_digest_acl
from replcheck.conformance.zookeeper.digest import DataTree, replay
from replcheck.conformance.zookeeper.server import Ensemble, classpath, jars_dir, java_executable
from replcheck.conformance.zookeeper.snapshot import read_snapshot, snapshot_files
from replcheck.conformance.zookeeper.txnlog import (
    OpCode,
    SetDataTxn,
    Txn,
    ZkLogError,
    log_files,
    op_name,
    read_log,
    read_logs,
)

from replcheck.cli import main

pytestmark = pytest.mark.zookeeper

MASK64 = (1 << 64) - 1
COMPRESSIONS = ("", "gz", "snappy")


# --- driving a real ZooKeeper -------------------------------------------------------------------


class CreateContainer(Create2):
    """kazoo has no call for createContainer (op 19); its request is a create2's."""

    type = 19


class CreateTTL(namedtuple("CreateTTL", "path data acl flags ttl")):
    """createTTL (op 21): a create2's request and the TTL."""

    type = 21

    def serialize(self) -> bytearray:
        b = bytearray(Create2(self.path, self.data, self.acl, self.flags).serialize())
        b.extend(long_struct.pack(self.ttl))
        return b

    deserialize = Create2.deserialize


def _call(client: KazooClient, request: object) -> object:
    result = client.handler.async_result()
    client._call(request, result)
    return result.get(timeout=10)


_HOLDER = textwrap.dedent(
    """
    import sys, time
    from kazoo.client import KazooClient
    c = KazooClient(hosts=sys.argv[1], timeout=1.0)
    c.start()
    c.create("/expiring", b"mine", ephemeral=True)
    print("ready", flush=True)
    time.sleep(120)
    """
)


def _expire_a_session(hosts: str) -> None:
    """A client in another process makes an ephemeral node and is killed: its session expires."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, hosts], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == b"ready"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _drive(zk: Ensemble, *, full: bool) -> None:
    c = KazooClient(hosts=zk.connect_string, timeout=5.0)
    c.start(timeout=30)
    try:
        c.create("/app", b"config")
        c.create("/app/seq-", b"s1", sequence=True)
        c.create("/app/seq-", b"s2", sequence=True)
        c.create("/app/eph", b"e", ephemeral=True)
        c.create("/app/c2", b"create2", include_data=True)
        _call(c, CreateContainer("/box", b"", OPEN_ACL_UNSAFE, 4))
        c.create("/box/item", b"x")
        c.delete("/box/item")  # the container is empty again: the ContainerManager deletes it
        _call(c, CreateTTL("/ttl-short", b"t", OPEN_ACL_UNSAFE, 5, 200))
        _call(c, CreateTTL("/ttl-long", b"t", OPEN_ACL_UNSAFE, 6, 3_600_000))
        c.set("/app", b"config-2")
        c.set("/app", b"")
        c.set_acls("/app/c2", [make_digest_acl("admin", "secret", all=True),
                               make_acl("world", "anyone", read=True)])  # fmt: skip
        c.create("/bin", bytes(range(256)))
        c.create("/n\u00e9\u00e6-\u65e5\u672c", "d\u00e4ta".encode())
        t = c.transaction()
        t.create("/multi-ok", b"1")
        t.set_data("/app", b"from-multi")
        t.check("/app", 3)
        t.delete("/app/c2")
        assert not any(isinstance(r, Exception) for r in t.commit())
        t = c.transaction()
        t.create("/multi-bad", b"2")
        t.set_data("/app", b"never", version=99)
        t.create("/multi-bad-2")
        assert all(isinstance(r, Exception) for r in t.commit())
        with pytest.raises(NodeExistsError):
            c.create("/app", b"again")  # a standalone error record
        with pytest.raises(NoNodeError):
            c.delete("/nothing")
        other = KazooClient(hosts=zk.connect_string, timeout=5.0)
        other.start(timeout=30)
        other.create("/app/other-eph", b"o", ephemeral=True)
        other.stop()  # closeSession deletes its ephemeral node
        other.close()
        for i in range(120 if full else 60):  # enough to roll logs and take snapshots
            c.create(f"/load/n{i}", b"%d" % i, makepath=True)
            if i % 3 == 0:
                c.set(f"/load/n{i}", b"again")
            if i % 5 == 0:
                c.delete(f"/load/n{i}")
        if full:
            _expire_a_session(zk.connect_string)
        deadline = time.monotonic() + 20
        while (c.exists("/box") or c.exists("/ttl-short") or c.exists("/expiring")) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.2)
    finally:
        c.stop()
        c.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Compression method → the server folder of a stopped ZooKeeper that ran the workload."""
    out = {}
    for method in COMPRESSIONS:
        props = {
            "zookeeper.snapCount": "50",
            "zookeeper.extendedTypesEnabled": "true",
            "znode.container.checkIntervalMs": "100",
        }
        if method:
            props["zookeeper.snapshot.compression.method"] = method
        zk = Ensemble(tmp_path_factory.mktemp(f"zk-{method or 'plain'}"), system_properties=props)
        zk.start(timeout=90)
        try:
            _drive(zk, full=method == "")
        finally:
            zk.stop()
        out[method] = zk.server_dir(1)
    return out


# --- ZooKeeper's own tools ----------------------------------------------------------------------

_JAVA_OPTS = [
    "-Xmx256m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Duser.timezone=UTC",
    "-Duser.language=en",
    "-Duser.country=US",
    "-Dfile.encoding=UTF-8",
    "-Dsun.stdout.encoding=UTF-8",
    "-Dstdout.encoding=UTF-8",
]


def _zk_tool(main_class: str, *args: str) -> str:
    jars = jars_dir()
    extra = [str(p) for p in jars.glob("commons-cli-*.jar")] + [
        str(p) for p in jars.glob("jackson-core-*.jar")
    ]
    cp = os.pathsep.join([classpath(), *extra])
    proc = subprocess.run(
        [java_executable(), *_JAVA_OPTS, "-cp", cp, main_class, *args],
        capture_output=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k not in ("CLASSPATH", "JAVA_TOOL_OPTIONS")},
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return proc.stdout.decode("utf-8")


def _hex(v: int) -> str:
    return format(v & MASK64, "x")


def _jstr(b: bytes | None) -> str:
    return "" if not b else b.decode("utf-8", "replace")


def _escape(s: str | None) -> str:
    if s is None:
        return ""
    table = {"\0": "%00", "\n": "%0A", "\r": "%0D", ",": "%2C", "}": "%7D", "%": "%25"}
    return "'" + "".join(table.get(ch, ch) for ch in s)


def _acl_record(a: object) -> str:
    return f"{a.perms},s{{{_escape(a.scheme)},{_escape(a.id)}}}"  # type: ignore[attr-defined]


def _acl_list(acl: list | None) -> str:
    return "[" + ", ".join(_acl_record(a) + "\n" for a in acl or []) + "]"


def _toolkit_body(t: Txn) -> str:
    """What TxnLogToolkit's getFormattedTxnStr prints for a record."""
    r = t.record
    name = type(r).__name__
    if name == "CreateTxn":
        eph = "true" if r.ephemeral else "false"
        return f"{r.path},{_jstr(r.data)},{_acl_list(r.acl)},{eph},{r.parent_cversion}"
    if name == "SetDataTxn":
        return f"{r.path},{_jstr(r.data)},{r.version}"
    if name == "CreateContainerTxn":
        return f"{r.path},{_jstr(r.data)},{_acl_list(r.acl)},{r.parent_cversion}"
    if name == "CreateTTLTxn":
        return f"{r.path},{_jstr(r.data)},{_acl_list(r.acl)},{r.parent_cversion},{r.ttl}"
    if name == "MultiTxn":
        return ";".join(f"{op_name(s.type)}:{_jstr(s.data)}" for s in r.txns)
    # any other record: jute's toString (ToStringOutputArchive), one line
    if name == "DeleteTxn":
        return _escape(r.path) + "\n"
    if name == "SetACLTxn":
        acl = ",".join("s{" + _acl_record(a) + "}" for a in r.acl or [])
        return f"{_escape(r.path)},v{{{acl}}},{r.version}\n"
    if name == "ErrorTxn":
        return f"{r.err}\n"
    if name == "CreateSessionTxn":
        return f"{r.timeout}\n"
    if name == "CloseSessionTxn":
        return "v{" + ",".join(_escape(p) for p in r.paths or []) + "}\n"
    raise AssertionError(f"no TxnLogToolkit rendering for {name}")


def _toolkit_date(ms: int) -> str:
    d = datetime.fromtimestamp(ms / 1000, UTC)
    hour = d.hour % 12 or 12
    return f"{d.month}/{d.day}/{d:%y}, {hour}:{d:%M:%S} {'AM' if d.hour < 12 else 'PM'} UTC"


def _toolkit_dump(path: Path) -> str:
    """What TxnLogToolkit prints for a log file, from our reader's transactions."""
    with open(path, "rb") as f:
        dbid = int.from_bytes(f.read(16)[8:], "big", signed=True)
    out = [f"ZooKeeper Transactional Log File with dbid {dbid} txnlog format version 2\n"]
    txns = list(read_log(path))
    for t in txns:
        line = (
            f"{_toolkit_date(t.time)} session 0x{_hex(t.session)} cxid 0x{_hex(t.cxid)} "
            f"zxid 0x{_hex(t.zxid)} {op_name(t.type)} {_toolkit_body(t)}"
        )
        out.append(line if line.endswith("\n") else line + "\n")
    out.append(f"EOF reached after {len(txns)} txns.\n")
    return "".join(out)


_DATE = re.compile(r"^(\d+/\d+/\d+, \d+:\d+:\d+)\s([AP]M UTC) session ", re.MULTILINE)


def _records(text: str) -> list[str]:
    text = _DATE.sub(r"\1 \2 session ", text)  # a narrow no-break space in newer JDKs
    starts = [m.start() for m in _DATE.finditer(text)] + [len(text)]
    return [text[: starts[0]]] + [text[a:b] for a, b in itertools.pairwise(starts)]


def test_reader_matches_txnlogtoolkit_on_every_log(runs: dict[str, Path]) -> None:
    files = log_files(runs[""])
    assert len(files) >= 3, "the workload was meant to roll the log"
    for path in files:
        java = _records(
            _zk_tool("org.apache.zookeeper.server.persistence.TxnLogToolkit", str(path))
        )
        ours = _records(_toolkit_dump(path))
        assert len(ours) == len(java), path
        for a, b in zip(ours, java, strict=True):
            assert a == b, path


def test_every_transaction_type_is_in_the_logs(runs: dict[str, Path]) -> None:
    txns = list(read_logs(runs[""]))
    types = Counter(t.type_name for t in txns)
    expected = "create create2 createContainer createTTL delete deleteContainer setData setACL"
    for name in [*expected.split(), "createSession", "closeSession", "error", "multi"]:
        assert types[name], name
    subs = Counter(s.type_name for t in txns if t.type == OpCode.multi for s in t.record.txns)
    for name in ("create", "setData", "check", "delete", "error"):
        assert subs[name], name
    zxids = [t.zxid for t in txns]
    assert zxids == sorted(set(zxids)) and zxids[0] == 1
    assert zxids == list(range(1, len(zxids) + 1)), "a transaction is missing"


def test_failed_multi_keeps_the_types_before_the_failure(runs: dict[str, Path]) -> None:
    (multi,) = [
        t
        for t in read_logs(runs[""])
        if t.type == OpCode.multi and t.record.txns[0].path == "/multi-bad"
    ]
    ops = multi.record.txns
    assert [s.type_name for s in ops] == ["create", "error", "error"]
    assert [s.record.err for s in ops[1:]] == [-103, -2]  # BADVERSION, then RUNTIMEINCONSISTENCY
    assert multi.record.failed and multi.digest is not None


def test_standalone_errors_have_no_path_and_no_digest(runs: dict[str, Path]) -> None:
    errors = [t for t in read_logs(runs[""]) if t.type == OpCode.error]
    assert {t.record.err for t in errors} == {-110, -101}
    assert all(t.path is None and t.digest is None for t in errors)
    others = [t for t in read_logs(runs[""]) if t.type != OpCode.error]
    assert all(t.digest is not None and t.digest.version == 2 for t in others)


def test_session_closed_and_expired_delete_their_ephemerals(runs: dict[str, Path]) -> None:
    txns = list(read_logs(runs[""]))
    closes = [t for t in txns if t.type == OpCode.closeSession]
    paths = sorted(p for t in closes for p in t.record.paths)
    assert paths == ["/app/eph", "/app/other-eph", "/expiring"]
    creators = {t.session for t in txns if t.type == OpCode.createSession}
    assert {t.session for t in closes} == creators


# --- snapshots -----------------------------------------------------------------------------------


def _formatter_view(path: Path) -> tuple[dict[str, str], set[str], str, str]:
    """(node path → its SnapshotFormatter block, session lines, count line, last zxid line),
    from our reader."""
    blocks = {}
    owners: Counter[int] = Counter()
    last = 0
    with read_snapshot(path) as snap:
        sessions = dict(snap.sessions)
        for n in snap.nodes():
            s = n.stat
            p = n.path or "/"

            def h(v: int) -> str:
                return format(v & MASK64, "#016x")

            def d(ms: int) -> str:
                return time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(ms // 1000))

            data = base64.b64encode(n.data).decode() if n.data is not None else ""
            blocks[p] = (
                f"{p}\n  cZxid = {h(s.czxid)}\n  ctime = {d(s.ctime)}\n  mZxid = {h(s.mzxid)}\n"
                f"  mtime = {d(s.mtime)}\n  pZxid = {h(s.pzxid)}\n  cversion = {s.cversion}\n"
                f"  dataVersion = {s.version}\n  aclVersion = {s.aversion}\n"
                f"  ephemeralOwner = {h(s.ephemeral_owner)}\n  data = {data}\n"
            )
            owners[s.ephemeral_owner] += 1
            last = max(last, s.mzxid, s.pzxid)
    session_lines = {f"{format(k, '#016x')}, {v}, {owners[k]}" for k, v in sessions.items()}
    count = f"ZNode Details (count={len(blocks) + 1}):"
    return blocks, session_lines, count, f"Last zxid: 0x{_hex(max(last, snap.zxid or 0))}"


def test_snapshots_match_snapshotformatter(runs: dict[str, Path]) -> None:
    for method, folder in runs.items():
        snaps = snapshot_files(folder)
        assert len(snaps) >= 3, method
        assert all(p.name.endswith(f".{method}") for p in snaps if method)
        for path in snaps:
            text = _zk_tool("org.apache.zookeeper.server.SnapshotFormatter", "-d", str(path))
            parts = text.split("----\n")
            count, *node_blocks, sessions, last = parts
            blocks, session_lines, our_count, our_last = _formatter_view(path)
            assert count.strip() == our_count
            assert {b.split("\n", 1)[0]: b for b in node_blocks} == blocks, path
            assert set(sessions.splitlines()[1:]) == session_lines
            assert last.strip() == our_last


def test_snapshot_trailer_is_read_and_checked(runs: dict[str, Path]) -> None:
    for folder in runs.values():
        for path in snapshot_files(folder):
            with read_snapshot(path) as snap:
                nodes = sum(1 for _ in snap.nodes())
                assert snap.seals == 3 and snap.digest is not None and snap.digest.version == 2
                # a fuzzy snapshot: a transaction can be applied between the digest's write and
                # the last processed zxid's (FileSnap.serialize), so the latter may be later
                assert snap.digest.zxid <= snap.last_zxid and snap.last_zxid >= (snap.zxid or 0)
                assert nodes >= 4  # the root, /zookeeper, its quota and config nodes


# --- the digest replay ---------------------------------------------------------------------------


def test_replay_reproduces_every_logged_digest(runs: dict[str, Path]) -> None:
    checked: Counter[str] = Counter()
    for method, folder in runs.items():
        all_txns = list(read_logs(folder))
        for snap in snapshot_files(folder):
            r = replay(folder, snapshot=snap)
            steps = list(r)
            start = int(snap.name.split(".")[1], 16)
            assert [s.txn.zxid for s in steps] == [t.zxid for t in all_txns if t.zxid > start]
            checks = Counter(s.check for s in steps)
            with read_snapshot(snap) as opened:
                sum(1 for _ in opened.nodes())
                fuzzy_end = opened.digest.zxid if opened.digest else 0
            # The snapshot's own digest matches the tree it holds, except where ZooKeeper's own
            # race put the effect of the transaction after the digest's zxid (the one being
            # applied while the digest was read) into the snapshot: ZooKeeper then flags the same
            # mismatch when it loads it. The replay must still come back to every later logged
            # digest, and only that one transaction may find its effect already there.
            raced = r.snapshot_check == "mismatch"
            assert r.snapshot_check in ("match", "none") or raced, (method, snap.name)
            checked[r.snapshot_check] += 1
            mismatched = [s.txn.zxid for s in steps if s.check == "mismatch"]
            assert mismatched == ([fuzzy_end] if raced and fuzzy_end > start else []), (
                method,
                snap.name,
            )
            if raced:
                assert checks["match"] > 0, (method, snap.name)
            nones = [s.txn for s in steps if s.check == "none"]
            assert all(t.type == OpCode.error for t in nones)
            fuzzy = [s for s in steps if s.check == "fuzzy"]
            assert steps[: len(fuzzy)] == fuzzy  # only the first txns after a snapshot are fuzzy
            failed = [s for s in steps if s.txn.type == OpCode.error or _failed_multi(s.txn)]
            # past the snapshot's fuzzy range (and the raced transaction) every txn applies as
            # it did on the server
            end = fuzzy_end + 1 if raced else fuzzy_end
            later = [s for s in steps if s.txn.zxid > end and s not in failed]
            bad = [(hex(s.txn.zxid), s.txn.type, s.err) for s in later if s.err]
            assert not bad, (snap.name, hex(fuzzy_end), r.snapshot_check, bad)
            assert all(s.err < 0 for s in failed), snap.name
    assert checked["match"] >= len(runs), checked


def _failed_multi(t: Txn) -> bool:
    return t.type == OpCode.multi and t.record.failed


def test_replay_from_the_empty_tree_matches(runs: dict[str, Path], tmp_path: Path) -> None:
    for log in log_files(runs[""]):
        shutil.copy(log, tmp_path / log.name)
    steps = list(replay(tmp_path))
    assert Counter(s.check for s in steps)["mismatch"] == 0
    assert len(steps) == len(list(read_logs(runs[""])))


def test_a_wrong_tree_is_caught_by_the_digest(runs: dict[str, Path]) -> None:
    tree = DataTree.empty()
    caught = []
    for txn in read_logs(runs[""]):
        if isinstance(txn.record, SetDataTxn) and txn.record.path == "/app":
            txn.record.data = b"tampered"
        tree.apply(txn)
        if txn.digest is not None and txn.digest.tree_digest != tree.digest:
            caught.append(txn.zxid)
    assert caught, "the digest did not notice a changed value"


# --- bad input -----------------------------------------------------------------------------------


def _read_until_error(path: Path) -> tuple[list[Txn], str | None]:
    got: list[Txn] = []
    try:
        for t in read_log(path):
            got.append(t)
    except ZkLogError as exc:
        return got, str(exc)
    return got, None


@pytest.fixture
def log(runs: dict[str, Path], tmp_path: Path) -> tuple[Path, list[Txn]]:
    """A copy of the first log file and its transactions."""
    src = log_files(runs[""])[0]
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst, list(read_log(dst))


def _patch(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def test_zero_filled_tail_is_the_end_and_no_padding_too(log: tuple[Path, list[Txn]]) -> None:
    path, txns = log
    end = _end_of(path, txns)
    assert path.stat().st_size > end + 12, "ZooKeeper preallocates: the file has a zero tail"
    assert path.read_bytes()[end:].count(0) == path.stat().st_size - end
    with open(path, "r+b") as f:
        f.truncate(end)
    assert _read_until_error(path) == (txns, None)


def _end_of(path: Path, txns: list[Txn]) -> int:
    data = path.read_bytes()
    last = txns[-1].offset
    return last + 12 + int.from_bytes(data[last + 8 : last + 12], "big") + 1


def test_bad_checksum(log: tuple[Path, list[Txn]]) -> None:
    path, txns = log
    k = len(txns) // 2
    at = txns[k].offset
    _patch(path, at + 12 + 20, b"\x7f")  # inside the TxnHeader's zxid
    got, err = _read_until_error(path)
    assert got == txns[:k]
    assert err is not None and err.startswith(f"{path}: byte {at}: bad checksum")
    assert "\n" not in err


def test_torn_tail_cut_inside_an_entry(log: tuple[Path, list[Txn]]) -> None:
    path, txns = log
    k = len(txns) - 2
    at = txns[k].offset
    with open(path, "r+b") as f:
        f.truncate(at + 20)
    got, err = _read_until_error(path)
    assert got == txns[:k]
    assert err is not None and err.startswith(f"{path}: byte {at}: torn tail")


def test_torn_tail_zeroed_inside_a_preallocated_file(log: tuple[Path, list[Txn]]) -> None:
    path, txns = log
    k = len(txns) - 1
    at = txns[k].offset
    size = path.stat().st_size
    _patch(path, at + 30, bytes(size - at - 30))
    got, err = _read_until_error(path)
    assert got == txns[:k]
    assert err is not None and err.startswith(f"{path}: byte {at}: torn tail")


def test_a_tail_shorter_than_an_entry_header(log: tuple[Path, list[Txn]]) -> None:
    path, txns = log
    end = _end_of(path, txns)
    with open(path, "r+b") as f:
        f.truncate(end)
        f.seek(end)
        f.write(b"\x00\x01\x02")
    got, err = _read_until_error(path)
    assert got == txns and err == f"{path}: byte {end}: torn tail: 3 bytes at the end of the " \
        "file are not a whole entry"  # fmt: skip


def test_not_a_log_and_unknown_version(log: tuple[Path, list[Txn]], runs: dict[str, Path]) -> None:
    path, _ = log
    snap = snapshot_files(runs[""])[0]
    got, err = _read_until_error(snap)
    assert got == [] and err is not None
    assert err.startswith(f"{snap}: byte 0: not a ZooKeeper transaction log")
    short = path.with_name("short")
    short.write_bytes(b"ZKLG\0")
    assert _read_until_error(short)[1].startswith(f"{short}: byte 5: not a ZooKeeper")
    _patch(path, 4, (3).to_bytes(4, "big"))
    got, err = _read_until_error(path)
    assert got == [] and err == (
        f"{path}: byte 4: unknown transaction log format version 3 (this reader knows 2)"
    )


def test_missing_or_unreadable_directory(tmp_path: Path) -> None:
    with pytest.raises(ZkLogError, match=f"^{tmp_path / 'nope'}: no such file or directory$"):
        list(read_logs(tmp_path / "nope"))
    with pytest.raises(ZkLogError, match="no ZooKeeper transaction logs"):
        list(read_logs(tmp_path))
    with pytest.raises(ZkLogError, match=f"^{tmp_path}: cannot read: "):
        list(read_log(tmp_path))
    (tmp_path / "file").write_text("x")
    with pytest.raises(ZkLogError, match="not a directory"):
        list(read_logs(tmp_path / "file"))


def _snapshot_until_error(path: Path) -> tuple[int, str | None]:
    n = 0
    try:
        with read_snapshot(path) as snap:
            for _ in snap.nodes():
                n += 1
    except ZkLogError as exc:
        return n, str(exc)
    return n, None


@pytest.mark.parametrize("method", COMPRESSIONS)
def test_truncated_snapshot(runs: dict[str, Path], tmp_path: Path, method: str) -> None:
    src = snapshot_files(runs[method])[-1]
    full, err = _snapshot_until_error(src)
    assert err is None
    for cut in (10, len(src.read_bytes()) // 2, len(src.read_bytes()) - 3):
        dst = tmp_path / src.name
        dst.write_bytes(src.read_bytes()[:cut])
        n, err = _snapshot_until_error(dst)
        assert err is not None and err.startswith(f"{dst}: "), err
        assert "truncated" in err and "\n" not in err
        assert n < full if cut < len(src.read_bytes()) // 2 + 1 else n <= full
        if not method:
            assert err.startswith(f"{dst}: byte {cut}: truncated snapshot")


def test_snapshot_bad_checksum_names_the_seal(runs: dict[str, Path], tmp_path: Path) -> None:
    src = snapshot_files(runs[""])[-1]
    data = bytearray(src.read_bytes())
    with read_snapshot(src) as snap:
        target = next(n for n in snap.nodes() if n.data == b"config" or n.path.startswith("/load"))
    i = data.index(target.path.encode()) + len(target.path)  # into the node's data length/bytes
    data[i + 5] ^= 0x01
    dst = tmp_path / src.name
    dst.write_bytes(bytes(data))
    _, err = _snapshot_until_error(dst)
    seal = len(data) - 67  # the seals and the digest after the tree: 13 + 20 + 13 + 8 + 13
    assert err is not None and err.startswith(f"{dst}: byte {seal}: bad checksum"), err


def test_not_a_snapshot_and_unknown_version(log: tuple[Path, list[Txn]], tmp_path: Path) -> None:
    path, _ = log
    fake = tmp_path / "snapshot.1"
    shutil.copy(path, fake)
    _, err = _snapshot_until_error(fake)
    assert err is not None and err.startswith(f"{fake}: byte 0: not a ZooKeeper snapshot")


def test_cli_prints_up_to_the_fault_then_one_line(
    log: tuple[Path, list[Txn]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, txns = log
    k = 5
    _patch(path, txns[k].offset + 12 + 20, b"\x7f")
    assert main(["zklog", str(path)]) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == k
    assert all(f" zxid {t.zxid:#x} " in line for line, t in zip(lines, txns, strict=False))
    assert err.count("\n") == 1 and f"byte {txns[k].offset}: bad checksum" in err
    assert "Traceback" not in err
    assert main(["zklog", str(path.parent / "missing")]) == 2
    assert capsys.readouterr().err.startswith("replcheck: error: ")


def test_cli_prints_multis_decoded_and_replays(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["zklog", str(runs[""])]) == 0
    out = capsys.readouterr().out
    assert re.search(r"multi FAILED \[create /multi-bad .*; error err -103 BADVERSION; error", out)
    assert main(["zklog", str(runs["snappy"]), "--replay"]) == 0
    captured = capsys.readouterr()
    assert "digest mismatch" not in captured.out and "zklog: PASS" in captured.err
    assert main(["zklog", str(snapshot_files(runs["gz"])[-1]), "--json"]) == 0
    assert '"seals": 3' in capsys.readouterr().out


# --- fuzzing -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_log(runs: dict[str, Path]) -> tuple[bytes, list[Txn]]:
    """The first log, cut 40 bytes after its last entry, and its transactions."""
    path = log_files(runs[""])[0]
    txns = list(read_log(path))
    return path.read_bytes()[: _end_of(path, txns) + 40], txns


mutations = st.lists(
    st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=4
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutations, st.one_of(st.none(), st.integers(0, 1 << 20)))
def test_fuzz_log_reader(fuzz_log: tuple[bytes, list[Txn]], muts: list, cut: int | None) -> None:
    original, txns = fuzz_log
    data = bytearray(original)
    first = len(data)
    for at, byte in muts:
        at %= len(data)
        if data[at] != byte:
            data[at] = byte
            first = min(first, at)
    if cut is not None:
        cut %= len(data) + 1
        del data[cut:]
        first = min(first, cut)
    got = _read_bytes(bytes(data), "log.1", read_log)
    intact = [t for t in txns if _entry_end(original, t) <= first]
    assert [(t.zxid, t.record) for t in got[: len(intact)]] == [(t.zxid, t.record) for t in intact]


def _entry_end(data: bytes, t: Txn) -> int:
    return t.offset + 13 + int.from_bytes(data[t.offset + 8 : t.offset + 12], "big")


def _read_bytes(data: bytes, name: str, reader: object) -> list:
    """Everything the reader yields for these bytes, and only a ZkLogError may stop it."""
    fd, tmp = tempfile.mkstemp(prefix="zkfuzz-")
    os.close(fd)
    path = Path(tmp).with_name(f"{Path(tmp).name}-{name}")
    Path(tmp).rename(path)
    got: list = []
    try:
        path.write_bytes(data)
        try:
            for item in reader(path):  # type: ignore[operator]
                got.append(item)
        except ZkLogError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc)
    finally:
        path.unlink()
    return got


def _snapshot_items(path: Path) -> Iterator[object]:
    with read_snapshot(path) as snap:
        yield from snap.nodes()


@pytest.mark.parametrize("method", COMPRESSIONS)
def test_fuzz_snapshot_reader(runs: dict[str, Path], method: str) -> None:
    src = snapshot_files(runs[method])[-1]
    original = src.read_bytes()

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(mutations, st.one_of(st.none(), st.integers(0, 1 << 20)))
    def run(muts: list, cut: int | None) -> None:
        data = bytearray(original)
        for at, byte in muts:
            data[at % len(data)] = byte
        if cut is not None:
            del data[cut % (len(data) + 1) :]
        _read_bytes(bytes(data), src.name, _snapshot_items)

    run()


def test_an_error_op_carrying_the_bytes_of_its_prepared_record_is_read() -> None:
    """Seen in a reference-cluster run: a failed multi's first op (a setData of the fence znode)
    is typed ``error`` but keeps the SetDataTxn's bytes; ZooKeeper reads an ErrorTxn from the
    first four bytes and ignores the rest."""
    import struct

    from replcheck.conformance.zookeeper.txnlog import decode_record

    path = b"/hbase/rs/1.1.1.4,60020,123456810"
    set_data = (
        struct.pack(">i", len(path)) + path + struct.pack(">i", 2) + b"{}" + struct.pack(">i", 40)
    )
    ops = struct.pack(">ii", -1, len(set_data)) + set_data
    ops += struct.pack(">iii", -1, 4, -101)
    body = struct.pack(">i", 2) + ops
    header = struct.pack(">qiqqi", 7, 313, 0x2000000FF, 1795467207681, OpCode.multi)
    txn = decode_record(header + body + struct.pack(">iq", 2, 12345))
    first, second = txn.record.txns
    assert first.type == OpCode.error and first.data == set_data
    assert first.record.err == len(path)  # what ZooKeeper's ErrorTxn reads from those bytes
    assert second.record.err == -101 and txn.record.failed
