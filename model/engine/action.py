"""Actions: a named step with parameters, the one unit every checker and every trace speaks."""

from __future__ import annotations

from typing import NamedTuple


class Action(NamedTuple):
    """One atomic step of the real system: a ZooKeeper operation or ``multi``, one client write,
    one shipped batch, one procedure step. ``args`` are small integers (server, peer, group, ...)
    named by the design's ``ActionKind``."""

    name: str
    args: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})"


class ActionKind(NamedTuple):
    """What a design says about one kind of action."""

    name: str
    params: tuple[str, ...]
    fair: bool
    """Weakly fair: a behaviour that keeps it enabled must eventually take it. Environment actions
    (client writes, crashes, admin commands, faults) are not fair."""
    doc: str
