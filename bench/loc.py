"""Lines of code of the protocol and its checkers at two commits, for the move to one protocol
text (docs/bench.md, "One protocol text: lines of code").

    python bench/loc.py BEFORE AFTER

For each commit: the lines of ``model/*.py`` and of ``specs/*.py`` (the hand-written flat mirrors,
``specs/flat_*.py``, apart), and of the tests of both; and how many times a step is defined: as
an explicit ``do_`` method (``model/``), as a flat mirror's instance builder (a method of
``specs/flat_*.py`` that returns an ``Instance``), and as a ``@step`` of the protocol text.
Counts are read from git, so the working tree is not touched.
"""

from __future__ import annotations

import re
import subprocess
import sys

PARTS = (
    ("model/ (protocol, properties, drawing, configurations)", r"^model/[^/]+\.py$"),
    ("specs/flat_*.py (hand-written flat mirrors and their layouts)", r"^specs/flat_[^/]+\.py$"),
    ("specs/ other (engines: explore, Z3, generated Python, C)", r"^specs/(?!flat_)[^/]+\.py$"),
    ("tests/model and tests/specs", r"^tests/(model|specs)/[^/]+\.py$"),
)

STEP_DEFS = (
    ("explicit steps (`def do_*` in model/)", r"^model/", re.compile(r"^\s+def do_\w+\(", re.M)),
    (
        "flat mirrors' step builders (`-> Instance` in specs/flat_*)",
        r"^specs/flat_",
        re.compile(r"^\s+def \w+\([^)]*\)\s*->\s*Instance:", re.M),
    ),
    ("protocol text steps (`@step` in model/)", r"^model/", re.compile(r"^\s+@step\b", re.M)),
)


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def measure(rev: str) -> dict[str, int]:
    files = [f for f in _git("ls-tree", "-r", "--name-only", rev).splitlines() if f.endswith(".py")]
    text = {f: _git("show", f"{rev}:{f}") for f in files}
    out: dict[str, int] = {}
    for name, pattern in PARTS:
        rx = re.compile(pattern)
        out[name] = sum(t.count("\n") for f, t in text.items() if rx.search(f))
    for name, where, rx in STEP_DEFS:
        w = re.compile(where)
        out[name] = sum(len(rx.findall(t)) for f, t in text.items() if w.search(f))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python bench/loc.py BEFORE AFTER", file=sys.stderr)
        return 2
    try:
        before, after = (measure(r) for r in argv)
    except subprocess.CalledProcessError as e:
        print(f"bench/loc.py: git: {e.stderr.strip().splitlines()[-1]}", file=sys.stderr)
        return 2
    print(f"| what | {argv[0]} | {argv[1]} | change |")
    print("|---|---:|---:|---:|")
    for name in before:
        b, a = before[name], after[name]
        print(f"| {name} | {b:,} | {a:,} | {a - b:+,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
