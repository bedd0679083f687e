"""``replcheck replay --step``: a step debugger over one behaviour.

Every step of the behaviour is a position: the initial state is step 0, then one step per model
action or per event the model consumes without a step. At each position the debugger shows the
step (its event, process and zxid, the action with its parameters named) and what it changed;
``state`` draws the state, ``enabled`` lists what the model allows there. Moving: ``next``,
``back``, ``goto`` a step, ``event`` (a trace event by its number), ``zxid``, ``proc`` (a
process's next event). ``break`` stops ``continue`` at an action or event name, or where a
property breaks. An empty line repeats the last command.
"""

from __future__ import annotations

import cmd
import textwrap
from typing import IO

from replcheck.conformance.validate.replay import Behaviour, event_text
from replcheck.model.render.draw import render_diff, render_state

HELP = """\
  next [N]  (n)       go N steps forward (default 1)
  back [N]  (b)       go N steps back
  goto STEP (g)       go to a step number
  event N   (e)       go to the step of trace event N (as validate numbers them)
  zxid Z    (z)       go to the step of the event with zxid Z (0x... or decimal)
  proc NAME (p)       go to the next step of a process (a prefix of its name, e.g. rs-1.1.1.2)
  state     (s)       draw the state at this step
  diff      (d)       what this step changed
  enabled   (a)       the actions the model allows in this state
  list      (l)       the steps around this one
  break action NAME | break prop NAME    stop `continue` there; `break` alone lists them
  delete [N]          delete breakpoint N (or all)
  continue  (c)       go forward to the next breakpoint (or the end)
  verdict   (v)       the verdict again
  quit      (q)       leave (Ctrl-D too)"""


class Debugger(cmd.Cmd):
    prompt = "(replay) "
    ruler = ""

    def __init__(
        self, b: Behaviour, at: int, stdin: IO[str] | None = None, stdout: IO[str] | None = None
    ) -> None:
        super().__init__(stdin=stdin, stdout=stdout)
        if stdin is not None:
            self.use_rawinput = False
        self.b = b
        self.at = at
        self.breaks: list[tuple[str, str]] = []
        props = [p.name for p in b.model.properties]
        self.props = set(props)
        self.intro = (
            f"{b.source}: {b.headline}\n{len(b.steps) - 1} steps; 'help' lists the commands.\n"
            + self.where()
        )

    # --- output ---------------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.stdout.write(text.rstrip("\n") + "\n")
        self.stdout.flush()

    def head(self, n: int) -> str:
        """One line for step ``n``."""
        b, step = self.b, self.b.steps[n]
        parts = [f"step {n}/{len(b.steps) - 1}"]
        if step.event is not None:
            e = b.events[step.event]
            parts.append(f"event {step.event} (line {e.get('_line')}) {e['proc']}")
            if e.get("zxid") is not None:
                parts.append(f"zxid {e['zxid']:#x}")
        elif step.hidden:
            parts.append("hidden step")
        elif n:
            parts.append(step.lane)
        text = "  ".join(parts) + ": " + b.described(n)
        if b.failure is not None and b.failure.step == n:
            text += f"   !! breaks {b.failure.property}"
        return text

    def where(self) -> str:
        n = self.at
        lines = [self.head(n)]
        if n and self.b.steps[n].action is not None:
            diff = render_diff(self.b.cfg, self.b.steps[n - 1].state, self.b.steps[n].state)
            lines.append(textwrap.indent(diff, "    "))
        if n == len(self.b.steps) - 1:
            lines.append(self.ending())
        return "\n".join(lines)

    def ending(self) -> str:
        f = self.b.failure
        if f is None:
            return "-- the end of the behaviour: " + self.b.headline
        if f.kind == "divergence" and f.event is not None:
            e = self.b.events[f.event]
            return (
                f"-- the end of the matched prefix: event {f.event} (line {e.get('_line')}) did "
                f"not fit: {event_text(e)}"
            )
        return f"-- {self.b.headline}"

    def move(self, n: int) -> None:
        if not 0 <= n < len(self.b.steps):
            self.say(f"no step {n}: steps are 0..{len(self.b.steps) - 1}")
            return
        self.at = n
        self.say(self.where())

    # --- commands -------------------------------------------------------------------------------

    def emptyline(self) -> bool:
        if self.lastcmd:
            return self.onecmd(self.lastcmd)
        return False

    def default(self, line: str) -> bool:
        self.say(f"unknown command {line.split()[0]!r}; 'help' lists the commands")
        return False

    def do_help(self, arg: str) -> None:
        self.say(HELP)

    def _count(self, arg: str) -> int | None:
        try:
            return int(arg) if arg.strip() else 1
        except ValueError:
            self.say(f"not a number: {arg.strip()!r}")
            return None

    def do_next(self, arg: str) -> None:
        k = self._count(arg)
        if k is not None:
            self.move(min(self.at + k, len(self.b.steps) - 1))

    def do_back(self, arg: str) -> None:
        k = self._count(arg)
        if k is not None:
            self.move(max(self.at - k, 0))

    def do_goto(self, arg: str) -> None:
        k = self._count(arg)
        if k is not None:
            self.move(k)

    def do_event(self, arg: str) -> None:
        k = self._count(arg)
        if k is None:
            return
        for s in self.b.steps:
            if s.event == k:
                self.move(s.index)
                return
        if not 0 <= k < len(self.b.events):
            self.say(f"no event {k}: events are 0..{len(self.b.events) - 1}")
        else:
            self.say(f"event {k} was not matched: the behaviour stops before it ({self.ending()})")

    def do_zxid(self, arg: str) -> None:
        try:
            z = int(arg.strip(), 0)
        except ValueError:
            self.say(f"not a zxid: {arg.strip()!r} (0x... or decimal)")
            return
        for s in self.b.steps:
            if self.b.zxid(s.index) == z:
                self.move(s.index)
                return
        for n, e in enumerate(self.b.events):
            if e.get("zxid") == z:
                self.say(f"zxid {z:#x} is event {n}, which was not matched: {self.ending()}")
                return
        self.say(f"no event has zxid {z:#x}")

    def do_proc(self, arg: str) -> None:
        name = arg.strip()
        if not name:
            self.say("processes: " + ", ".join(self.b.lanes()))
            return
        for s in self.b.steps[self.at + 1 :]:
            if s.lane.startswith(name):
                self.move(s.index)
                return
        known = [lane for lane in self.b.lanes() if lane.startswith(name)]
        why = "no later step" if known else "no process named so"
        self.say(f"{why}: {name!r}; processes: {', '.join(self.b.lanes())}")

    def do_state(self, arg: str) -> None:
        self.say(render_state(self.b.cfg, self.b.steps[self.at].state))

    def do_diff(self, arg: str) -> None:
        n = self.at
        if n == 0:
            self.say("the initial state: nothing before it")
            return
        self.say(render_diff(self.b.cfg, self.b.steps[n - 1].state, self.b.steps[n].state))

    def do_enabled(self, arg: str) -> None:
        st = self.b.steps[self.at].state
        enabled = self.b.model.enabled(st)
        self.say(f"{len(enabled)} actions enabled:")
        for a in enabled:
            self.say(f"  {a}")

    def do_list(self, arg: str) -> None:
        lo, hi = max(0, self.at - 5), min(len(self.b.steps), self.at + 6)
        for n in range(lo, hi):
            self.say(("> " if n == self.at else "  ") + self.head(n))

    def do_break(self, arg: str) -> None:
        words = arg.split()
        if not words:
            if not self.breaks:
                self.say("no breakpoints")
            for i, (what, name) in enumerate(self.breaks, 1):
                self.say(f"  {i}: {what} {name}")
            return
        if len(words) != 2 or words[0] not in ("action", "prop"):
            self.say("break action NAME, or break prop NAME")
            return
        what, name = words
        if what == "prop" and name not in self.props:
            self.say(f"no property {name!r}; properties: {', '.join(sorted(self.props))}")
            return
        self.breaks.append((what, name))
        self.say(f"breakpoint {len(self.breaks)}: {what} {name}")

    def do_delete(self, arg: str) -> None:
        if not arg.strip():
            self.breaks.clear()
            self.say("deleted every breakpoint")
            return
        k = self._count(arg)
        if k is None or not 1 <= k <= len(self.breaks):
            self.say(f"no breakpoint {arg.strip()}")
            return
        del self.breaks[k - 1]
        self.say(f"deleted breakpoint {k}")

    def hits(self, n: int) -> str | None:
        step = self.b.steps[n]
        names = {step.action.name} if step.action else set()
        if step.event is not None:
            names.add(self.b.events[step.event]["name"])
        broken: list[str] | None = None
        for what, name in self.breaks:
            if what == "action" and name in names:
                return f"action {name}"
            if what == "prop":
                broken = self.b.broken(n) if broken is None else broken
                if name in broken:
                    return f"{name} breaks"
        return None

    def do_continue(self, arg: str) -> None:
        for n in range(self.at + 1, len(self.b.steps)):
            why = self.hits(n)
            if why:
                self.say(f"stopped: {why}")
                self.move(n)
                return
        self.say("no breakpoint ahead: at the end")
        self.move(len(self.b.steps) - 1)

    def do_verdict(self, arg: str) -> None:
        self.say(f"{self.b.source}: {self.b.headline}")

    def do_quit(self, arg: str) -> bool:
        return True

    def do_EOF(self, arg: str) -> bool:
        self.say("")
        return True

    do_n, do_b, do_g, do_e, do_z, do_p = do_next, do_back, do_goto, do_event, do_zxid, do_proc
    do_s, do_d, do_a, do_l, do_c, do_v, do_q = (
        do_state,
        do_diff,
        do_enabled,
        do_list,
        do_continue,
        do_verdict,
        do_quit,
    )


def start_at(b: Behaviour) -> int:
    """Where the debugger starts: the step that breaks a property, else the last step."""
    if b.failure is not None and b.failure.step is not None:
        return b.failure.step
    return len(b.steps) - 1
