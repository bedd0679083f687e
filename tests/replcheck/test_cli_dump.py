"""``replcheck dump``: DumpReplicationQueues' output after a sequence of actions."""

from __future__ import annotations

import pytest
from replcheck.model import Action

from replcheck.cli import main
from replcheck.report import parse_actions

S1 = "1.1.1.1,60020,123456780"
S2 = "1.1.1.2,60020,123456790"
G1 = "1.1.1.1%2C60020%2C123456780"
W1_0 = f"{G1}.1234"
CRASH_AND_CLAIM = (
    "put(0,0,0), ship(0,0,0), persist(0,0), crash(0), scp_split(0), scp_claim_stage(0), "
    "arqp_read_missing(0), arqp_put_missing(0), arqp_claim(0, (1,)), claim_read(1, 0, 0), "
    "claim_commit(1)"
)
TABLE = ("dump", "--design", "table", "--config", "t-std")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *needles: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("replcheck: error: ")
    for n in needles:
        assert n in lines[0]


def test_initial_state_default_format(capsys) -> None:
    code, out, err = run(capsys, *TABLE)
    assert code == 0, err
    lines = out.splitlines()
    i = lines.index("peers:")
    assert lines[i:] == [
        "peers:",
        "peers/2: zk1:2181:/hbase-1",
        "peers/2/peer-state: ENABLED",
        "rs:",
        "hfile-refs:",
    ]


def test_crash_and_claim_default_format(capsys) -> None:
    code, out, err = run(capsys, *TABLE, "--actions", CRASH_AND_CLAIM)
    assert code == 0, err
    assert f"rs/{G1}/2/{W1_0}: 1" in out.splitlines()


def test_crash_and_claim_distributed(capsys) -> None:
    code, out, err = run(capsys, *TABLE, "--actions", CRASH_AND_CLAIM, "--distributed")
    assert code == 0, err
    lines = out.splitlines()
    assert f"Dumping replication queue info for RegionServer: [{S2}]" in lines
    assert f"    Queue id: 2-{S2}/{S1}" in lines
    assert "    Recovered: true" in lines
    assert f"    Dead RegionServer: {S1}" in lines
    assert f"    Replication position for {W1_0}: 1" in lines
    assert "    PeerId: 2 , sizeOfLogQueue: 1" in lines


def test_before_the_claim_the_row_key_is_the_crashed_server(capsys) -> None:
    actions = (
        "crash(0); scp_split(0); scp_claim_stage(0); arqp_read_missing(0); arqp_put_missing(0)"
    )
    code, out, _err = run(capsys, *TABLE, "--actions", actions, "--distributed")
    assert code == 0
    assert f"    Queue id: 2-{S1}" in out.splitlines()
    assert "    No dead RegionServer found in this queue." in out.splitlines()


def test_tree_draws_the_whole_state(capsys) -> None:
    code, out, _err = run(capsys, *TABLE, "--actions", CRASH_AND_CLAIM, "--tree")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "hbase:replication  (region open)"
    assert f"  row 2-{S2}/{S1}   [recovered: WALs of {S1}]" in lines
    assert "region servers:" in lines


def test_zookeeper_era_design(capsys) -> None:
    code, out, _err = run(capsys, "dump", "--design", "zk-lock", "--config", "std")
    assert code == 0
    assert f"/hbase/replication/rs/{S1}/2/1.1.1.1,60020.1234: 0" in out.splitlines()
    code, out, _err = run(capsys, "dump", "--design", "zk-lock", "--config", "std", "--tree")
    assert code == 0
    assert out.splitlines()[0] == "/hbase/replication/rs/"


@pytest.mark.parametrize(
    ("actions", "needles"),
    [
        ("crash(0), frob(1)", ["step 2", "no action 'frob'"]),
        ("crash(0), claim_commit(1)", ["step 2", "claim_commit(1) is not enabled here"]),
        ("crash(0); scp_split(0); crash(1)", ["step 3", "crash(1) is not enabled"]),
        ("crash(0, 1)", ["step 1", "takes 1 arguments"]),
        ("crash(0", ["malformed action", "item 1"]),
        ("crash(0), arqp_claim(0, (x,))", ["malformed action", "item 2"]),
    ],
)
def test_bad_actions_exit_2_with_one_line(capsys, actions: str, needles: list[str]) -> None:
    code, out, err = run(capsys, *TABLE, "--actions", actions)
    assert code == 2
    assert out == ""
    assert_one_line_error(err, *needles)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        ([*TABLE, "--distributed", "--tree"], "not allowed with argument"),
        (["dump", "--design", "nope"], "unknown design 'nope'"),
        (["dump", "--design", "table", "--config", "t-nope"], "unknown config 't-nope'"),
        (["dump", "--design", "table", "--design", "zk-lock"], "one --design and one --config"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv: list[str], needle: str) -> None:
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert_one_line_error(err, needle)


def test_parse_actions() -> None:
    expected = [Action("crash", (0,)), Action("arqp_claim", (0, (1, 2))), Action("cleaner_start")]
    assert parse_actions("crash(0), arqp_claim(0, (1, 2)), cleaner_start()") == expected
    assert parse_actions("crash(0); arqp_claim(0,[1,2])\ncleaner_start") == expected
    assert parse_actions("; ".join(map(str, expected))) == expected
    assert parse_actions("arqp_claim(0, (1,))") == [Action("arqp_claim", (0, (1,)))]
    assert parse_actions("arqp_claim(0, ())") == [Action("arqp_claim", (0, ()))]
    assert parse_actions(" ") == []
