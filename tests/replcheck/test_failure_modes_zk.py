"""A run folder whose record of its ZooKeeper is damaged is bad input, never a verdict.

``validate RUN`` holds the trace against the transaction logs of ``zk-txnlog/`` and reads back
from them the writes a killed process did not record. A log with a flipped byte, a log cut in
the middle of an entry, a wrong magic number, an empty ``zk-txnlog`` or a bogus ``zk-chroot``
used to give a verdict on the system (a divergence, or a pass with the log silently left out);
each is now exit 2 with the file and the byte offset. A zero-filled tail, which ZooKeeper
leaves in every log it preallocated, is no damage: the run keeps its verdict.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from replcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "test_data" / "validate"
ONE_SERVER = DATA / "table-joined-between-claim-reads-and-write"
"""A recorded run with one ZooKeeper server's log (``zk-txnlog/server1/log.1``), accepted."""
THREE_SERVERS = DATA / "zk-multi-lost-advance"
"""A recorded run of a three-server ensemble, accepted."""


def _log(run: Path) -> Path:
    return sorted(run.glob("zk-txnlog/*/log.*"))[0]


def _flip(run: Path) -> str:
    log = _log(run)
    data = bytearray(log.read_bytes())
    data[5000] ^= 0xFF
    log.write_bytes(bytes(data))
    return f"{log}: byte "


def _cut(run: Path) -> str:
    log = _log(run)
    log.write_bytes(log.read_bytes()[:20000])
    return f"{log}: byte "


def _zero_inside(run: Path) -> str:
    """A preallocated log whose last entries were never written whole: zeros from the middle of
    an entry on (a record cut in the middle, not a clean end)."""
    log = _log(run)
    data = log.read_bytes()
    log.write_bytes(data[:20000] + bytes(len(data) - 20000 + 65536))
    return f"{log}: byte "


def _magic(run: Path) -> str:
    log = _log(run)
    log.write_bytes(b"ZKLX" + log.read_bytes()[4:])
    return f"{log}: byte 0: not a ZooKeeper transaction log"


def _version(run: Path) -> str:
    log = _log(run)
    data = log.read_bytes()
    log.write_bytes(data[:4] + (3).to_bytes(4, "big") + data[8:])
    return f"{log}: byte 4: unknown transaction log format version 3"


def _no_logs(run: Path) -> str:
    for log in run.glob("zk-txnlog/*/log.*"):
        log.unlink()
    return f"{run / 'zk-txnlog'}: no ZooKeeper transaction log"


def _chroot(text: bytes, needle: str) -> Callable[[Path], str]:
    def damage(run: Path) -> str:
        (run / "zk-chroot").write_bytes(text)
        return f"{run / 'zk-chroot'}: byte {needle}"

    return damage


DAMAGE: dict[str, Callable[[Path], str]] = {
    "a flipped byte": _flip,
    "cut in the middle of an entry": _cut,
    "zeros from the middle of an entry": _zero_inside,
    "a wrong magic number": _magic,
    "an unknown format version": _version,
    "no log in zk-txnlog": _no_logs,
    "zk-chroot of another run": _chroot(b"/replcheck-runs/run-999-not-this-one\n", "0: "),
    "zk-chroot not a path": _chroot(b"replcheck-runs/x\n", "0: "),
    "zk-chroot with a control character": _chroot(b"/replcheck-runs/a\x07b\n", "17: "),
    "zk-chroot with an empty component": _chroot(b"/replcheck-runs//x\n", "16: "),
    "zk-chroot not UTF-8": _chroot(b"/replcheck-runs/\xff\n", "16: not UTF-8"),
    "zk-chroot empty": _chroot(b"\n", "1: empty"),
}


@pytest.mark.parametrize("run", [ONE_SERVER, THREE_SERVERS], ids=["one-server", "three-servers"])
@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_run_folder_is_bad_input_naming_file_and_offset(
    run: Path, damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    where = DAMAGE[damage](copy)
    code = main(["validate", str(copy)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 2, out + err
    lines = out.strip().splitlines()
    assert len(lines) == 1, out  # one line: the bad input, no report of a search
    assert lines[0].startswith(f"{copy}: bad input: {where}"), lines[0]
    for verdict in ("accepted", "rejected", "undecided", "divergence"):
        assert verdict not in lines[0]
    assert err.strip().splitlines()[-1].startswith("validate: BAD INPUT"), err


@pytest.mark.parametrize("run", [ONE_SERVER, THREE_SERVERS], ids=["one-server", "three-servers"])
def test_a_zero_filled_tail_is_the_end_of_a_log_not_damage(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ZooKeeper preallocates its logs (64 MiB of zeros by default): every log of a live server
    ends in zeros after its last entry."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    for log in copy.glob("zk-txnlog/*/log.*"):
        log.write_bytes(log.read_bytes() + bytes(1 << 20))
    code = main(["validate", str(copy)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert ": accepted (" in out and "zxids found in the txn log" in out


def test_validate_zk_logs_of_a_damaged_ensemble_member_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--zk-logs`` of a three-server run, one server's log damaged: the two others would still
    make a majority, but damage is never read past."""
    copy = tmp_path / "run"
    shutil.copytree(THREE_SERVERS, copy)
    where = _flip(copy)
    code = main(["validate", "--zk-logs", str(copy)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert f"bad input: {where}" in out and "bad checksum" in out


def test_the_library_raises_one_error_type_with_file_and_offset(tmp_path: Path) -> None:
    from replcheck.conformance.fromlog import read as txnread
    from replcheck.conformance.fromlog.agree import agreement
    from replcheck.conformance.trace.reader import read_trace

    copy = tmp_path / "run"
    shutil.copytree(ONE_SERVER, copy)
    _flip(copy)
    with pytest.raises(txnread.TxnLogDamaged) as caught:
        txnread.committed(txnread.logs(copy), txnread.chroot(copy))
    assert caught.value.file == str(_log(copy)) and caught.value.offset == 4792
    assert str(caught.value).startswith(f"{_log(copy)}: byte 4792: bad checksum")
    with pytest.raises(txnread.TxnLogDamaged):
        agreement(read_trace(copy).events, copy)
