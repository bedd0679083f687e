"""Exploration over the compiled back ends: the flat text traced (``model/engine/terms.py``), then
searched by the fixed C program (``specs/cvm.c``) or by generated Python
(``model/engine/pygen.py``).

    result = explore_compiled("zk-multi", STANDARD["std"])          # C where a compiler is
    result = explore_compiled("table", STANDARD["t-std"], backend="python")

Both back ends search breadth first, so a first violation is a shortest one. A search stores per
distinct state its parent and the instance that reached it, so any state's behaviour is replayed
from the initial state through the plain interpreter of the same flat text and decoded into the
explicit model's states (``behaviour``), which the renderers draw as today.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from math import factorial
from typing import Any

from replcheck.model import Config
from replcheck.model.engine.pygen import compile_python
from replcheck.model.engine.terms import Program, trace
from replcheck.model.engine.text import FPY, FlatModel, Tx
from replcheck.specs.explore import (
    LIVENESS_BYTES_PER_EDGE,
    LIVENESS_STOPPED,
    liveness_fits,
    memory_mib,
)

Progress = Callable[[int, int, int], None]
"""(distinct states, frontier, depth)."""

EDGE_COPY_BYTES = 120
"""What a transition copied out of the C search holds in Python: three list slots and their
integers."""

CHUNK = 20_000
"""States expanded per call into C: between calls the search shows progress, checks its limits
and lets Ctrl-C through."""

KERNELS_AFTER = 1.0
"""CPU seconds a C search interprets the step table before the model's kernels are built beside
it: a search that ends sooner never waits for, or pays for, a C compiler."""

_SAID: set[str] = set()


def say_once(message: str) -> None:
    if message not in _SAID:
        _SAID.add(message)
        print(f"replcheck: {message}", file=sys.stderr)


@dataclass
class CompiledExploration:
    design: str
    config: str
    backend: str
    """``c`` or ``python``."""
    how: str
    """How the back end was obtained (the C library cached or compiled, or why Python)."""
    fm: FlatModel
    program: Program
    states: int = 0
    transitions: int = 0
    depth: int = 0
    complete: bool = False
    stopped: str = ""
    seconds: float = 0.0
    """CPU seconds of the search."""
    search_seconds: float = 0.0
    """Of ``seconds``, those spent in the search itself (not tracing the text, generating and
    loading its program, or building the C kernels)."""
    bytes: int = 0
    """Memory the search's tables held at the end (C back end)."""
    parent: list[int] = field(default_factory=list)
    via: list[int] = field(default_factory=list)
    first_violation: dict[str, int] = field(default_factory=dict)
    """Invariant -> the first state (breadth-first) that breaks it."""
    step_violation: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Step property -> (state, instance) of the first step that breaks it."""
    images: int = 1
    """The most fingerprints of one state's images compared to name its class (generated
    Python with symmetry chooses a class's image by the least fingerprint): the collision
    bound counts every pair of them."""
    fingerprints: int = 0
    """Fingerprints the search stored (generated Python, with symmetry, also keeps one per
    state as reached); 0: one per state."""
    renamings: int = 1
    """Renamings of servers the search identified states under (1: no symmetry)."""
    symmetry: bool = False
    """Was symmetry reduction asked for and allowed (``Design.names_ordered`` refuses it)?"""
    renamings_built: int = 0
    """The renamings whose maps the search asked for, each the first time it wanted it (none
    is built up front where the layout is closed under every renaming)."""
    kernels: str = ""
    """C back end: how the model's generated kernels were obtained, or why the step table was
    interpreted."""
    edges: tuple[list[int], list[int], list[int]] | None = None
    """With liveness: every transition as (from, to, instance), ``to`` the class's state."""
    goal_bits: list[int] = field(default_factory=list)
    """With liveness: per state, bit ``j`` set when goal ``j`` holds."""
    liveness_stopped: str = ""
    """Why the liveness phase cannot run though the search ended (``explore.LIVENESS_STOPPED``:
    the memory limit left no room to copy the transitions out of the C search); empty: it
    can."""

    @property
    def collision_probability(self) -> float:
        """An upper bound on the chance that two distinct states (classes, with symmetry) shared
        a 64-bit fingerprint, so that one was never explored: n(n-1)/2 pairs, each 2^-64 (both
        back ends store fingerprints), over every fingerprint stored; a class named by the
        least of up to ``images`` fingerprints shares it with another when any of the images'
        do."""
        n = self.fingerprints or self.states
        return n * (n - 1) / 2 / 2.0**64 * self.images**2

    def instances_to(self, v: int) -> list[int]:
        """The instances taken from the initial state to state ``v``."""
        out = []
        while v > 0:
            out.append(self.via[v])
            v = self.parent[v]
        out.reverse()
        return out

    def flat_states(self, instances: list[int]) -> list[dict[tuple, Any]]:
        """The plain flat states of a behaviour, replayed through the plain interpreter."""
        return self.flat_states_from(dict(self.fm.init), instances)

    def flat_states_from(
        self, start: dict[tuple, Any], instances: list[int]
    ) -> list[dict[tuple, Any]]:
        """``flat_states`` from another state than the initial one."""
        cur = start
        out = [cur]
        for i in instances:
            inst = self.fm.instances[i]
            if not inst.guard(FPY, cur.__getitem__):
                raise AssertionError(f"{inst.label()} is not enabled where the search took it")
            tx = Tx(FPY, cur)
            inst.apply(FPY, tx)
            cur = {**cur, **tx.new}
            out.append(cur)
        return out

    def behaviour(self, v: int, extra: int | None = None) -> list[Any]:
        """The explicit model's states from the initial state to state ``v`` (then through
        instance ``extra``, for a step property's violation)."""
        instances = self.instances_to(v) + ([] if extra is None else [extra])
        return [self.fm.decode(st) for st in self.flat_states(instances)]

    def violation_depths(self) -> dict[str, int]:
        """Per property broken, the length of its shortest counterexample."""
        out = {p: len(self.instances_to(v)) for p, v in self.first_violation.items()}
        for p, (u, _i) in self.step_violation.items():
            out[p] = len(self.instances_to(u)) + 1
        return out


def _program(name: str, cfg: Config) -> tuple[Any, FlatModel, Program]:
    from replcheck.model.engine.catalogue import flat_layout

    layout = flat_layout(name, cfg)
    fm = layout.model()
    return layout, fm, trace(fm)


def explore_compiled(
    name: str,
    cfg: Config,
    *,
    backend: str = "auto",
    symmetry: bool = False,
    liveness: bool = False,
    max_states: int | None = None,
    max_memory: int | None = None,
    progress: Progress | None = None,
    partial_on_interrupt: bool = False,
    kernels: str = "auto",
) -> CompiledExploration:
    """Breadth-first search of design ``name`` under ``cfg``, on the C back end (``backend="c"``,
    or ``auto`` where a compiler is) or generated Python; with ``symmetry``, one state per class
    of renamings of region servers (``model/engine/packsym.py``); with ``liveness``, every
    transition and every state's goals are kept for ``liveness_counterexample``. The C search
    evaluates the model by interpreting its step table, or through its generated kernels
    (``specs/ckern.py``): ``kernels="auto"`` builds them beside a search that has run
    ``KERNELS_AFTER`` seconds and switches to them once they are loaded, ``always`` before it
    starts, ``never`` not at all."""
    layout, fm, prog = _program(name, cfg)
    from replcheck.model import get_design

    ordered = get_design(name).names_ordered
    if symmetry and ordered and cfg.servers > 1:
        say_once(f"{name}: no symmetry reduction ({ordered})")
    symmetry = symmetry and not ordered
    ren = None
    if symmetry and cfg.servers > 1:
        from replcheck.model.engine.canonical import Renamings

        ren = Renamings(layout, type(get_design(name)).era, prog)
        if not ren.complete:
            left = factorial(cfg.servers) - len(ren.closed())
            say_once(
                f"{name}@{cfg.name}: {left} renamings of servers leave the layout, so symmetry "
                "uses the others only"
            )
    lib = None
    how = "generated Python, as asked"
    if backend in ("auto", "c"):
        from replcheck.specs.cvm import library

        lib, how = library()
        if lib is None:
            if backend == "c":
                raise RuntimeError(how)
            say_once(how)
    res = CompiledExploration(name, cfg.name, "c" if lib else "python", how, fm, prog)
    res.symmetry = symmetry
    res.renamings = (
        1 if ren is None else len(ren.closed()) if not ren.complete else factorial(cfg.servers)
    )
    started = time.process_time()
    try:
        if lib is not None:
            _run_c(lib, res, ren, liveness, (max_states, max_memory), progress, kernels)
        else:
            _run_python(res, ren, liveness, (max_states, max_memory), progress)
    except KeyboardInterrupt:
        if not partial_on_interrupt:
            raise
        res.stopped = "interrupted"
    res.seconds = time.process_time() - started
    res.complete = not res.stopped
    return res


def _run_c(
    lib: Any,
    res: CompiledExploration,
    ren: Any,
    liveness: bool,
    limits: tuple[int | None, int | None],
    progress: Any,
    kernels: str,
) -> None:
    from replcheck.model.engine.canonical import CLOSED_FROM_ALL
    from replcheck.specs.ckern import Build
    from replcheck.specs.cvm import MAX_SERVERS, Search, lower

    max_states, max_memory = limits
    search = Search(lib, lower(res.program, ren), record_edges=liveness)
    if ren is not None and search.table.renamings.count == 1:
        say_once(
            f"{res.design}@{res.config}: the C search renames at most {MAX_SERVERS} servers "
            "(and a layout closed under only some renamings up to "
            f"{CLOSED_FROM_ALL}), so it explores without symmetry"
        )
        res.renamings = 1
    build: Build | None = None

    def images() -> dict[int, Any]:
        """The renamings the search has built so far, which the kernels get code for."""
        ren = search.table.renamings
        return dict(ren.maps) if ren is not None else {}

    used = False
    res.kernels = (
        "the step table interpreted, as asked"
        if kernels == "never"
        else f"the step table interpreted: the search took less than {KERNELS_AFTER:.0f} s"
    )
    if kernels == "always":
        build = Build(res.program, images())
        if build.wait() is not None:
            search.use_kernels(build.lib)
            used = True
        else:
            say_once(build.how)
        res.kernels = build.how
    started = time.process_time()
    try:
        while True:
            t0 = time.process_time()
            code = search.run(CHUNK)
            res.search_seconds += time.process_time() - t0
            res.states = search.stat("states")
            if (
                kernels == "auto"
                and build is None
                and time.process_time() - started > KERNELS_AFTER
            ):
                build = Build(res.program, images())
            if build is not None and not used and build.poll() is not None:
                search.use_kernels(build.lib)
                used = True
                res.kernels = f"{build.how}, used from state {res.states:,}"
            if progress is not None:
                progress(res.states, search.stat("frontier"), search.stat("depth"))
            if code == 1:
                break
            if code < 0:
                res.stopped = "memory limit"
                break
            if max_states is not None and res.states >= max_states:
                res.stopped = "state limit"
                break
            if max_memory is not None and memory_mib() > max_memory:
                res.stopped = "memory limit"
                break
    finally:
        if build is not None:
            build.close()
            if not used:
                res.kernels = build.how
        res.states = search.stat("states")
        res.renamings_built = search.renamings_built
        res.transitions = search.stat("transitions")
        res.depth = search.stat("depth")
        res.bytes = search.stat("bytes")
        res.parent = search.array("parent", res.states)
        res.via = search.array("via", res.states)
        p = res.program
        for j, v in enumerate(search.array("first_inv", len(p.invariants))):
            if v >= 0:
                res.first_violation[p.invariants[j][0]] = v
        us = search.array("step_u", len(p.step_properties))
        ins = search.array("step_i", len(p.step_properties))
        for j, (u, i) in enumerate(zip(us, ins, strict=True)):
            if u >= 0:
                res.step_violation[p.step_properties[j][0]] = (u, i)
        if liveness and not res.stopped:
            # the transitions copied out of the C search are the liveness phase's first cost:
            # past the memory limit they are not copied, and the phase does not start
            n = search.stat("edges")
            if liveness_fits(limits[1], n, EDGE_COPY_BYTES + LIVENESS_BYTES_PER_EDGE):
                res.edges = (search.array("eu", n), search.array("ev", n), search.array("ei", n))
                res.goal_bits = search.array("gbits", res.states)
            else:
                res.liveness_stopped = LIVENESS_STOPPED
        search.close()


def _run_python(
    res: CompiledExploration,
    ren: Any,
    liveness: bool,
    limits: tuple[int | None, int | None],
    progress: Any,
) -> None:
    """Breadth-first search on generated Python (``pygen.compile_search``): each frontier
    state carries the set of instances enabled in it, and a new state's set is its parent's
    with only the guards its step can change evaluated again. The visited set keeps a 64-bit
    fingerprint per state, not the state: Zobrist's, which a step updates from the slots it
    writes (``pygen.PySearch``).

    With symmetry, a class is named by a fingerprint of one of its images, and each state as
    reached is remembered by its own fingerprint too, so a state reached again is not renamed
    again. Where the layout is closed under every renaming, the image is the least by
    fingerprint among those that list the servers in order of their signatures
    (``canonical.least_renaming``, the readable engines' own choice of renamings): each is an
    image's fingerprint computed without building the image, by a function generated for that
    renaming the first time it is asked for. Where the layout is closed under only some
    renamings, the class is named by the fingerprint of its least image under them."""
    from replcheck.model.engine.canonical import least_renaming
    from replcheck.model.engine.pygen import compile_renamings, compile_search

    max_states, max_memory = limits
    code = compile_python(res.program)
    p = res.program
    srch = compile_search(p)
    fp = srch.fingerprints
    complete = ren is not None and ren.complete
    renamings = compile_renamings(ren.every()) if ren is not None and not complete else []
    getters = ren.getters() if complete else []
    image_fps: dict[tuple[int, ...], Any] = {}

    def image_fp(perm: tuple[int, ...]) -> Any:
        got = image_fps.get(perm)
        if got is None:
            got = image_fps[perm] = srch.image_fingerprint(ren.maps(perm))
        return got

    def canon(s: tuple[int, ...]) -> tuple[int, ...]:
        best = s
        for r in renamings:
            t = r(s, best)
            if t is not None:
                best = t
        return best

    def class_key(t: tuple[int, ...], h: int) -> int:
        """The fingerprint that names ``t``'s class (``h`` is ``t``'s own)."""
        if not complete:
            return fp(canon(t))
        compared = 1

        def image(perm: tuple[int, ...]) -> int:
            nonlocal compared
            compared += 1
            return image_fp(perm)(t)

        key = least_renaming(h, [g(t) for g in getters], image)
        if compared > res.images:
            res.images = compared
        return key

    reduce = ren is not None
    s0 = tuple(p.init)
    f0 = srch.fingerprints(s0)
    index = {class_key(s0, f0) if reduce else f0: 0}
    raw: dict[int, int] = {f0: 0} if reduce else {}
    """With symmetry: the fingerprint of each state as reached (before renaming) -> its class."""
    res.parent, res.via = [-1], [-1]
    depth = [0]
    frontier = deque([(s0, 0, srch.enabled(s0), f0)])

    eu: list[int] = []
    ev: list[int] = []
    ei: list[int] = []

    live = set(range(len(p.invariants)))

    def broken(js: list[int], v: int) -> None:
        for j in js:
            res.first_violation.setdefault(p.invariants[j][0], v)
            live.discard(j)

    broken(code.invariants(s0), 0)
    if liveness:
        res.goal_bits.append(code.goals(s0))
    after, fire, refresh, stepv = code.after, srch.fire, srch.refresh, srch.stepv
    parent, via = res.parent, res.via
    ticks = 0
    transitions = 0
    t0 = time.process_time()
    while frontier:
        if max_states is not None and len(index) >= max_states:
            res.stopped = "state limit"
            break
        s, u, m, f = frontier.popleft()
        transitions += m.bit_count()
        x = m
        while x:
            low = x & -x
            x ^= low
            i = low.bit_length() - 1
            t, h = fire[i](s, f)
            sv = stepv[i]
            if sv is not None:
                for j in sv(s, t):
                    res.step_violation.setdefault(p.step_properties[j][0], (u, i))
            if reduce:
                # a state already reached as itself needs no renaming to be found again
                v = raw.get(h, -1)
                if v < 0:
                    key = class_key(t, h)
                    v = raw[h] = index.get(key, -1)
            else:
                key = h
                v = index.get(key, -1)
            if v < 0:
                v = index[key] = len(parent)
                if reduce:
                    raw[h] = v
                parent.append(u)
                via.append(i)
                depth.append(depth[u] + 1)
                if live:
                    broken(after[i](t, live), v)
                if liveness:
                    res.goal_bits.append(code.goals(t))
                frontier.append((t, v, refresh[i](t, m), h))
            if liveness:
                eu.append(u), ev.append(v), ei.append(i)
        ticks += 1
        if ticks % 4096 == 0:
            if progress is not None:
                progress(len(index), len(frontier), depth[u])
            if max_memory is not None and memory_mib() > max_memory:
                res.stopped = "memory limit"
                break
    res.search_seconds = time.process_time() - t0
    res.transitions += transitions
    res.fingerprints = len(index) + len(raw)
    res.renamings_built = len(image_fps)
    res.states = len(index)
    res.depth = max(depth)
    if liveness:
        res.edges = (eu, ev, ei)
