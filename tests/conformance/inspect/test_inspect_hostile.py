"""``replcheck inspect`` on a tree whose names and values are hostile: a position no WAL can
have is flagged, and control and bidirectional characters reach the terminal as escapes.

The data directory is a transaction log written with ``conformance.zookeeper.txnwrite``, read
back as a ZooKeeper copy is (``--data-dir``), so the whole path a hostile name takes — reader,
replay, view, checks, drawings — is the one a real cluster's copy takes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from replcheck.conformance.inspect.checks import VIOLATION, WARNING, check
from replcheck.conformance.inspect.view import build_view, read_data_dir
from replcheck.conformance.zookeeper.escape import printable
from replcheck.conformance.zookeeper.records import ACL, CreateTxn, OpCode, Txn
from replcheck.conformance.zookeeper.txnwrite import write_log

from replcheck import cli

S1 = "1.1.1.1,60020,123456780"
RS = f"/hbase/replication/rs/{S1}/2"
RLO = "\u202e"
ESC = "\x1b]0;owned\x07\x1b[2J"
HUGE = "12345678901234567890123456"  # 26 digits
WORLD = (ACL(31, "world", "anyone"),)


def data_dir(tmp_path: Path, nodes: dict[str, bytes], ephemeral: set[str] = frozenset()) -> Path:
    """A data directory whose one log creates ``nodes`` (parents first, as a client would)."""
    txns: list[Txn] = []
    made: set[str] = {"/"}

    def create(path: str, data: bytes) -> None:
        parent = path.rsplit("/", 1)[0] or "/"
        if parent not in made:
            create(parent, b"")
        if path in made:
            return
        made.add(path)
        zxid = len(txns) + 1
        rec = CreateTxn(path, data, WORLD, path in ephemeral, 1)
        txns.append(Txn("", 0, 0x77, zxid, zxid, 1_700_000_000_000, OpCode.create, rec, None))

    for path, data in nodes.items():
        create(path, data)
    write_log(tmp_path / "zk" / "version-2" / "log.1", txns, preallocate=1024)
    return tmp_path / "zk"


def hostile(tmp_path: Path) -> Path:
    return data_dir(
        tmp_path,
        {
            f"/hbase/rs/{S1}": b"",
            "/hbase/replication/peers/2": b"zk1:2181:/hbase",
            "/hbase/replication/peers/2/peer-state": b"ENABLED",
            f"{RS}/1.1.1.1,60020.1234": HUGE.encode(),
            f"{RS}/1.1.1.1,60020.99{RLO}gol.evil": b"10",
            f"{RS}/1.1.1.1,60020.77{ESC}": b"2000000000000",  # 2 TB: past 1 TiB
            f"{RS}/1.1.1.1,60020.55": b"4096",
        },
        {f"/hbase/rs/{S1}"},
    )


def test_a_position_no_wal_can_have_is_flagged(tmp_path: Path) -> None:
    nodes, _ = read_data_dir(hostile(tmp_path), "/hbase")
    found = [f for f in check(build_view(nodes, "/hbase")) if f.check == "implausible_position"]
    bad = {f.path.rsplit("/", 1)[1]: f for f in found}
    assert set(bad) == {"1.1.1.1,60020.1234", f"1.1.1.1,60020.77{ESC}"}
    assert bad["1.1.1.1,60020.1234"].severity == VIOLATION
    assert "26 digits" in bad["1.1.1.1,60020.1234"].message
    assert bad[f"1.1.1.1,60020.77{ESC}"].severity == WARNING


@pytest.mark.parametrize("fmt", ["tree", "znodes", "distributed", "all"])
def test_control_and_bidi_characters_are_escaped_in_every_drawing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    code = cli.main(["inspect", "--data-dir", str(hostile(tmp_path)), "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 1, err  # the 26-digit position is a violation
    for text in (out, err):
        assert RLO not in text and "\x1b" not in text and "\x07" not in text
        assert all(c == "\n" or c >= " " for c in text)
    assert "1.1.1.1,60020.99\\u202egol.evil" in out
    assert "1.1.1.1,60020.77\\x1b]0;owned\\x07\\x1b[2J" in out
    assert "VIOLATION implausible_position" in out and HUGE in out
    assert err.startswith("inspect: FAIL: 1 violation(s)")


def test_json_keeps_the_names_as_they_are(tmp_path: Path, capsys) -> None:
    """JSON escapes by itself (``\\u202e`` in the text, the name whole once parsed)."""
    import json

    code = cli.main(["inspect", "--data-dir", str(hostile(tmp_path)), "--json"])
    out, _ = capsys.readouterr()
    assert code == 1 and RLO not in out and "\x1b" not in out
    names = {
        w["name"] for r in json.loads(out)["replicators"] for q in r["queues"] for w in q["wals"]
    }
    assert f"1.1.1.1,60020.99{RLO}gol.evil" in names


def test_zklog_text_escapes_the_same_way(tmp_path: Path, capsys) -> None:
    code = cli.main(["zklog", str(hostile(tmp_path))])
    out, _ = capsys.readouterr()
    assert code == 0
    assert RLO not in out and "\x1b" not in out
    assert printable(f"{RS}/1.1.1.1,60020.99{RLO}gol.evil") in out


def test_the_one_escaping_function() -> None:
    assert printable(f"a{RLO}b\u2066c\u200fd") == "a\\u202eb\\u2066c\\u200fd"
    assert printable("x\r\ny\tz\x7f\x9b") == "x\\x0d\\x0ay\\x09z\\x7f\\x9b"
    assert printable("n\u00e9\u00e6-\u65e5\u672c \U0001f600 <script>") == (
        "n\u00e9\u00e6-\u65e5\u672c \U0001f600 <script>"
    )
