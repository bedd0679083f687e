"""Two commands timed side by side, as whole processes: the way every ratio in docs/bench.md and
bench/results/ is taken.

    python bench/side_by_side.py -n 3 --vs 'COMMAND B' -- COMMAND A [ARG ...]
    python bench/side_by_side.py -n 5 -- COMMAND [ARG ...]

After ``--warmup`` runs of each (not counted), A and B run in turn, A B A B ..., ``-n`` times
each, so a drift in the machine's speed touches both alike. Each run's CPU time (user + system)
and peak memory are the kernel's accounting of the finished process and the children it waited for
(``wait4``); wall time is measured around it. It prints, per figure, the minimum, median and
maximum of A and of B, and the ratio A/B taken pair by pair: quote the median ratio. A command's
own output is discarded; its exit status is printed, not acted on. ``--timeout`` bounds the
whole call: the run under way is stopped (its process group) and the finished pairs are
printed. Ctrl-C does the same.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time


def run_once(argv: list[str], deadline: float) -> tuple[float, float, float, int] | None:
    """(cpu s, wall s, peak MiB, exit status) of one run, or None if the deadline came first."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                return None
            time.sleep(0.01)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        os.wait4(proc.pid, 0)
        raise
    wall = time.perf_counter() - t0
    # ru_maxrss (KiB on Linux): the largest resident set of the process or a child it waited for
    cpu = usage.ru_utime + usage.ru_stime
    peak = usage.ru_maxrss / 1024
    return cpu, wall, peak, os.waitstatus_to_exitcode(status)


def _row(name: str, xs: list[float]) -> str:
    if not xs:
        return f"{name:>12}  (no runs)"
    return (
        f"{name:>12}  min {min(xs):9.3f}  median {statistics.median(xs):9.3f}  max {max(xs):9.3f}"
    )


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("bench/side_by_side.py: give the command after --", file=sys.stderr)
        return 2
    cut = argv.index("--")
    p = argparse.ArgumentParser(prog="bench/side_by_side.py")
    p.add_argument("-n", type=int, default=5, help="counted runs of each command")
    p.add_argument("--warmup", type=int, default=1, help="runs of each not counted, first")
    p.add_argument("--vs", help="the second command (B), split as a shell splits words")
    p.add_argument("--timeout", type=float, default=3600, help="seconds for the whole call")
    args = p.parse_args(argv[:cut])
    a = argv[cut + 1 :]
    if not a or args.n < 1:
        print("bench/side_by_side.py: no command, or -n below 1", file=sys.stderr)
        return 2
    cmds = {"A": a}
    if args.vs:
        cmds["B"] = shlex.split(args.vs)
    deadline = time.monotonic() + args.timeout
    got: dict[str, list[tuple[float, float, float, int]]] = {k: [] for k in cmds}
    ended = "finished"
    try:
        for i in range(args.warmup + args.n):
            for k, c in cmds.items():
                r = run_once(c, deadline)
                if r is None:
                    raise TimeoutError
                if i >= args.warmup:
                    got[k].append(r)
    except TimeoutError:
        ended = "TIMEOUT: the runs finished before it are printed"
    except KeyboardInterrupt:
        ended = "INTERRUPTED: the runs finished before it are printed"
    print(f"cpus: {os.cpu_count()}; loadavg at the end: {os.getloadavg()[0]:.2f}")
    for k, c in cmds.items():
        print(f"{k}: {shlex.join(c)}  ({len(got[k])} runs; exit {sorted({r[3] for r in got[k]})})")
        for j, name in enumerate(("cpu s", "wall s", "peak MiB")):
            print(_row(name, [r[j] for r in got[k]]))
    if "B" in cmds:
        pairs = list(zip(got["A"], got["B"], strict=False))
        print(f"A/B, pair by pair ({len(pairs)} pairs):")
        for j, name in enumerate(("cpu", "wall", "peak")):
            print(_row(name, [x[j] / y[j] for x, y in pairs if y[j] > 0]))
    print(ended)
    return 0 if ended == "finished" else 3


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
