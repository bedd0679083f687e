"""WAL framing: length + CRC32 records, torn tails detected and truncated."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from replcheck.conformance.hbase import wal


def write(path: Path, n: int) -> list[int]:
    w = wal.WalWriter(path)
    ends = [w.append({"uid": f"e{i}", "kind": 0, "ids": [0]}) for i in range(n)]
    w.close()
    return ends


def test_round_trip_and_positions(tmp_path: Path) -> None:
    path = tmp_path / "w"
    ends = write(path, 5)
    scan = wal.scan(path)
    assert [r.edit["uid"] for r in scan.records] == [f"e{i}" for i in range(5)]
    assert [r.end for r in scan.records] == ends
    assert not scan.torn and scan.end == path.stat().st_size
    # reading from a recorded position and with a limit
    more = wal.scan(path, ends[1], limit=2)
    assert [r.edit["uid"] for r in more.records] == ["e2", "e3"] and more.end == ends[3]


def test_partial_record_is_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "w"
    ends = write(path, 3)
    wal.tear(path, {"uid": "torn", "kind": 0, "ids": [0]}, keep=10)
    scan = wal.scan(path)
    assert [r.edit["uid"] for r in scan.records] == ["e0", "e1", "e2"]
    assert scan.torn and scan.end == ends[-1]
    assert wal.recover(path) == 10
    assert path.stat().st_size == ends[-1]
    assert wal.recover(path) is None  # whole now
    # appending after recovery gives a readable file again
    w = wal.WalWriter(path)
    w.append({"uid": "after", "kind": 0, "ids": [0]})
    w.close()
    assert [e["uid"] for e in wal.records(path)] == ["e0", "e1", "e2", "after"]


def test_corrupt_checksum_and_short_header(tmp_path: Path) -> None:
    path = tmp_path / "w"
    ends = write(path, 2)
    data = bytearray(path.read_bytes())
    data[ends[0] + wal.HEADER.size + 2] ^= 0xFF  # flip a byte of the second payload
    path.write_bytes(bytes(data))
    scan = wal.scan(path)
    assert len(scan.records) == 1 and scan.torn and scan.end == ends[0]
    path.write_bytes(bytes(data[: ends[0]]) + struct.pack(">I", 7))  # half a header
    assert wal.scan(path).torn
    assert wal.recover(path) == 4


def test_a_wal_is_created_only_in_an_existing_folder(tmp_path: Path) -> None:
    """A split renames the WAL folder away; a zombie's roll must not bring it back."""
    with pytest.raises(FileNotFoundError):
        wal.WalWriter(tmp_path / "gone" / "w")
    assert not (tmp_path / "gone").exists()
