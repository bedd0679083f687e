"""The exit statuses of every ``replcheck`` command: one table, read by every command module,
by each subcommand's ``--help`` and by the generated table in ``docs/gate.md``.

A status means the same in every command:

* 0 ``OK``: done, and everything asked was decided and met its expectation;
* 1 ``FAIL``: red: a property failed, a trace was rejected, the gate is red, ZooKeeper does not
  serve;
* 2 ``BAD_INPUT``: bad input, refused in one line ``replcheck: error: ...`` on stderr;
* 3 ``INTERNAL``: an internal error: a checker, a design's code or the system under test could not
  run (one line; ``REPLCHECK_TRACEBACK=1`` shows the traceback where a checker raised);
* 4 ``UNDECIDED``: partial: nothing failed, but something asked was left undecided. Never green;
* 130 ``INTERRUPTED``: interrupted (SIGINT, Ctrl-C; SIGTERM too, but for the commands that exit
  143 on it): what was done is reported, never a pass;
* 143 ``TERMINATED``: stopped by SIGTERM (``record``, ``conform``, ``mine``), as 130.

:data:`COMMANDS` says, per command, what each status it can exit with means for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum


class Exit(IntEnum):
    """An exit status of ``replcheck``."""

    OK = 0
    FAIL = 1
    BAD_INPUT = 2
    INTERNAL = 3
    UNDECIDED = 4
    INTERRUPTED = 130
    TERMINATED = 143


WORDS: Mapping[Exit, str] = {
    Exit.OK: "ok",
    Exit.FAIL: "red",
    Exit.BAD_INPUT: "bad input",
    Exit.INTERNAL: "internal error",
    Exit.UNDECIDED: "partial (undecided: never green)",
    Exit.INTERRUPTED: "interrupted",
    Exit.TERMINATED: "terminated",
}
"""What each status means in every command, in a few words."""


def for_signal(signum: int) -> Exit:
    """The status of a command stopped by the signal ``signum`` (SIGINT or SIGTERM)."""
    return Exit(128 + signum)


BAD_INPUT = "bad input, refused in one line on stderr"
INTERNAL = "a checker or a design's code raised (one line; REPLCHECK_TRACEBACK=1 shows it)"
INTERRUPTED = "interrupted (Ctrl-C or SIGTERM): what was done is reported, never a pass"

COMMON: Mapping[Exit, str] = {
    Exit.BAD_INPUT: BAD_INPUT,
    Exit.INTERNAL: INTERNAL,
    Exit.INTERRUPTED: INTERRUPTED,
}
"""What 2, 3 and 130 mean for a command that says nothing more about them: every command may
refuse bad input, meet a design file that exits while it runs, or be interrupted."""

COMMANDS: Mapping[str, Mapping[Exit, str]] = {
    "check": {
        Exit.OK: "every correct design passes (apart from the findings pinned in the manifest) "
        "with every verdict decided, and every mutant is caught",
        Exit.FAIL: "the gate is red: a property fails, a mutant is missed, a base row is broken, "
        "or a checker raised (the row is an ERROR)",
        Exit.UNDECIDED: "nothing failed, but some verdict was left undecided (a state, memory or "
        "time limit, a checker that cannot judge a design), the last line says PARTIAL",
        Exit.INTERRUPTED: "interrupted (Ctrl-C or SIGTERM): the rows that finished, then "
        "INTERRUPTED",
    },
    "explore": {
        Exit.OK: "every property decided, none fails",
        Exit.FAIL: "some property fails (as it must for a mutant)",
        Exit.UNDECIDED: "nothing fails, but some property was left undecided (a state or memory "
        "limit, in the search or its liveness phase), the last line says PARTIAL and what "
        "stopped it",
        Exit.INTERRUPTED: "interrupted (Ctrl-C or SIGTERM): the partial report, then INTERRUPTED",
    },
    "fuzz": {
        Exit.OK: "no safety property failed (evidence, not proof; fuzzing does not check liveness)",
        Exit.FAIL: "some safety property failed: the minimal failing program is printed",
        Exit.UNDECIDED: "nothing failed, but some safety property was left undecided",
        Exit.INTERRUPTED: "interrupted: the runs that finished and the seed, then INTERRUPTED",
    },
    "show": {Exit.OK: "done: the states drawn"},
    "dump": {Exit.OK: "done: the queues printed"},
    "list": {Exit.OK: "done"},
    "prove": {
        Exit.OK: "every proof came out as expected and every rule-level mutant was refuted "
        "(--depth: the engines agree; --induction: every invariant proved)",
        Exit.FAIL: "a proof came out wrong, a rule-level mutant was not refuted, the engines "
        "disagree, or a correct design breaks a property it is not pinned to break",
        Exit.UNDECIDED: "nothing came out wrong, but something was left undecided (a Z3 time "
        "limit or unknown, a rule Z3 cannot read), the last line says UNDECIDED or TIMEOUT",
        Exit.INTERRUPTED: "interrupted at once: what was proved, then INTERRUPTED",
    },
    "zk": {
        Exit.OK: "done (status: the ensemble serves)",
        Exit.FAIL: "not serving, or failed to start",
    },
    "record": {
        Exit.OK: "every run's end state is correct and the model accepts every run's trace",
        Exit.FAIL: "some run lost an edit, shipped a LOCAL or catalog edit, looped an edit back "
        "to its origin or deleted a WAL a queue still needed (as a mutant should), or the model "
        "rejects a run's trace",
        Exit.INTERNAL: "the cluster could not run (one line)",
        Exit.UNDECIDED: "no violation, but some run's trace was cut (a torn line) or the model "
        "could not judge it",
        Exit.INTERRUPTED: "SIGINT: summary.json sums up the runs that finished and says "
        "interrupted and complete: false",
        Exit.TERMINATED: "SIGTERM: as for SIGINT",
    },
    "validate": {
        Exit.OK: "every trace accepted",
        Exit.FAIL: "some trace rejected",
        Exit.BAD_INPUT: "bad input (a malformed or torn line, an unknown event or design, zxids "
        "going backwards, a missing file, a damaged ZooKeeper log: the file and byte offset), "
        "with the valid prefix still reported",
        Exit.UNDECIDED: "none rejected, but some trace undecided (the search's node budget ran "
        "out, no action event, events with no model counterpart, a trace without its run_end "
        "that may be cut)",
    },
    "convert": {
        Exit.OK: "written",
        Exit.BAD_INPUT: "bad input, or a trace with a fault: nothing written",
    },
    "zklog": {
        Exit.OK: "done (--replay: every digest compared matched)",
        Exit.FAIL: "--replay found a digest that does not match",
        Exit.BAD_INPUT: "bad input (not a ZooKeeper log or snapshot, an unknown version, a bad "
        "checksum, a torn file), naming the file and byte offset, after every transaction "
        "before it was printed",
    },
    "replay": {
        Exit.OK: "the behaviour fails nowhere (an accepted trace, actions that break nothing)",
        Exit.FAIL: "the behaviour fails (a rejected trace, a broken property)",
        Exit.UNDECIDED: "the trace is undecided: the model could not judge it",
    },
    "inspect": {
        Exit.OK: "no violation (warnings allowed)",
        Exit.FAIL: "a violation",
        Exit.BAD_INPUT: "bad input (an unreachable ZooKeeper, a missing file, no replication "
        "znodes)",
    },
    "mine": {
        Exit.OK: "every run accepted",
        Exit.FAIL: "some run rejected, or nothing mined",
        Exit.BAD_INPUT: "bad input: an unusable --out, a --master that does not answer, or some "
        "input quarantined",
        Exit.UNDECIDED: "none rejected, but some run undecided",
        Exit.INTERRUPTED: "interrupted: the runs mined by then are written and summed, the last "
        "line says the job is not complete",
        Exit.TERMINATED: "SIGTERM: as for SIGINT",
    },
    "conform": {
        Exit.OK: "no failure found",
        Exit.FAIL: "a failure found: the shrunk plan is printed as a pytest test",
        Exit.UNDECIDED: "some run could not finish, so not every plan drawn was judged",
        Exit.INTERRUPTED: "interrupted: the runs so far are reported, the search is not complete",
        Exit.TERMINATED: "SIGTERM: as for SIGINT",
    },
}
"""Per command, what each status it can exit with means for it, beyond :data:`COMMON`."""


def meanings(command: str) -> dict[Exit, str]:
    """Every status ``command`` can exit with, in order, and what it means for it."""
    merged = {**COMMON, **COMMANDS[command]}
    return {code: merged[code] for code in sorted(merged)}


def epilog(command: str) -> str:
    """The ``Exit status: ...`` paragraph of ``command``'s ``--help``."""
    parts = [f"{int(code)} {text}" for code, text in meanings(command).items()]
    return "Exit status: " + "; ".join(parts) + ". See docs/gate.md."


def summary() -> str:
    """One line naming every status: the top-level ``--help``'s epilog."""
    words = ", ".join(f"{int(code)} {WORDS[code]}" for code in Exit)
    return (
        f"Exit status: {words}. Each command's --help says what they mean for it; see docs/gate.md."
    )


def markdown_table() -> str:
    """The per-command table of ``docs/gate.md``: every status each command can exit with, and
    what it means for it."""
    lines = ["| command | status | meaning |", "|---|---|---|"]
    for command in COMMANDS:
        name = f"`{command}`"
        for code, text in meanings(command).items():
            lines.append(f"| {name} | {int(code)} | {text.replace('|', chr(92) + '|')} |")
            name = ""
    return "\n".join(lines) + "\n"
