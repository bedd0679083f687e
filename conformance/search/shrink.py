"""A structural shrink of a failing plan, after Hypothesis's: whole steps, servers and writes.

Hypothesis shrinks the choices a plan was drawn from, one at a time: it first makes each write as
simple as it can (a GLOBAL put), which on the real cluster costs a run per write, before it
deletes any. With a budget of real runs, that can end with a failing plan no smaller than the
first. ``shrink`` then cuts the plan by its structure, biggest cuts first, and keeps a cut when a
real run of the smaller plan still fails the same way (``same``): every step at once, then each
step, the replacements' writes, the last server, each incarnation's writes halved and then cut to
one, and master-master replication. It repeats until no cut is kept or the runs run out; the
result is 1-minimal over these cuts when they did not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from replcheck.conformance.search.plan import Plan, Write


def cuts(plan: Plan) -> Iterator[Plan]:
    """Smaller plans, the biggest cuts first."""
    if plan.steps:
        yield replace(plan, steps=())
        for i in range(len(plan.steps)):
            yield replace(plan, steps=plan.steps[:i] + plan.steps[i + 1 :])
    if len(plan.writes) > plan.servers:
        yield replace(plan, writes=plan.writes[: plan.servers])
    if plan.servers > 1:
        yield replace(
            plan, servers=plan.servers - 1, writes=_without(plan.writes, plan.servers - 1)
        )
    for i, ws in enumerate(plan.writes):
        if len(ws) > 1:
            half = len(ws) // 2
            yield _with(plan, i, ws[:half])
            yield _with(plan, i, ws[half:])
            yield _with(plan, i, ws[:1])
        if len(ws) == 1:
            yield _with(plan, i, ())
    if plan.master_master:
        yield replace(plan, master_master=False)


def _with(plan: Plan, i: int, ws: tuple[Write, ...]) -> Plan:
    return replace(plan, writes=(*plan.writes[:i], ws, *plan.writes[i + 1 :]))


def _without(writes: tuple, i: int) -> tuple:
    return writes[:i] + writes[i + 1 :] if i < len(writes) else writes


def weight(plan: Plan) -> tuple[int, ...]:
    """What ``shrink`` makes smaller: steps, then writes, then servers, then replication back."""
    s = plan.size()
    return (s["faults"] + s["peer_ops"], s["writes"], s["servers"], int(plan.master_master))


def shrink(plan: Plan, fails: Callable[[Plan], bool | None], runs: int) -> tuple[Plan, int, bool]:
    """The smallest plan ``fails`` still holds for, starting from ``plan`` (which fails): the
    plan, the runs it took, and whether it ended because the runs ran out. ``fails`` returns None
    when a run could not finish (the cut is not kept)."""
    used = 0
    tried: set[str] = set()
    progress = True
    while progress:
        progress = False
        for cand in cuts(plan):
            key = cand.dumps()
            if key in tried or weight(cand) >= weight(plan):
                continue
            if used >= runs:
                return plan, used, True
            tried.add(key)
            used += 1
            if fails(cand):
                plan, progress = cand, True
                break
    return plan, used, False
