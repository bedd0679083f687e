"""``TextModel``: the ``Model`` of a design whose steps are taken from the protocol text
(``model/engine/step.py``, ``model/engine/text.py``), the only place a design's steps are written.

Its interface is ``Model``'s: states are the readable ``TState`` values every property, drawing
and checker reads, and actions carry the arguments traces and drawings know them by. Underneath,
each state is laid out in the text's slots (``encode``) and packed, the text's steps run as
generated straight-line Python on plain values (``model/engine/pygen.py``: guards short-circuit, and
instances that begin with the same conjunct are tested under one test of it), and the successor
is read back (``decode``). The program is traced and generated once per design and
configuration in a process. An instance's own arguments are structural (which shipper slot,
which claim child key); a step's ``label`` turns them into the action's (the shipper's index on
its server, the child's index in its SCP) by reading the view.

Every design's steps and properties are the text's (``text_engine`` picks the engine;
``model/engine/text_checks.py`` the properties' checks). A recorded run's (servers joining, zombies,
relay clusters: ``recorded_in_text``) runs on the plain interpreter, as does any table-era
configuration with relay clusters; a design or configuration the text cannot read is refused in
one line (``NotCovered``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any

from replcheck.model.config import Config
from replcheck.model.engine.action import Action
from replcheck.model.engine.design import Design
from replcheck.model.engine.model import Model
from replcheck.model.engine.names import var
from replcheck.model.engine.step import Reader, TextError, labels_of

Label = Callable[[Any, Any, Callable, tuple], tuple]


class NotCovered(ValueError):
    """The text does not yet cover the configuration a design whose steps are only in the text
    is asked to run under; the message is one line for the user."""


def recorded_in_text(design: Any) -> type | None:
    """The text class a recorded run of ``design`` is replayed through (servers joining,
    zombies and the relay clusters, on plain values: ``model/engine/plain.py``), or None for a
    design the text has no form of."""
    era = getattr(design, "era", "")
    if era not in ("zk", "table"):
        return None
    from replcheck.model.engine.catalogue import RegistryError, text_class
    from replcheck.model.engine.text import FlatError

    try:
        return text_class(design, RECORDED if era == "table" else None)
    except (FlatError, RegistryError):
        return None


RECORDED = Config(
    name="recorded",
    servers=2,
    joins=2,
    zombies=True,
    topology=((1, 0),),
    foreign_edits=1,
    sink_outages=1,
)
"""The features every recorded run's configuration has (``conformance/validate/core.py``'s
``derive_config``), which choose a table-era text's components."""


_NONE = object()


class _View:
    """A packed state read by key (a Boolean slot as a bool), for the parts decoded."""

    __slots__ = ("bools", "packed", "slot")

    def __init__(self, packed: tuple, slot: dict[tuple, int], bools: Any) -> None:
        self.packed, self.slot, self.bools = packed, slot, bools

    def __getitem__(self, k: tuple) -> Any:
        i = self.slot[k]
        x = self.packed[i]
        return bool(x) if self.bools[i] else x


CACHE = 1 << 16
"""How many decoded states a ``TextModel`` remembers before it forgets them all."""

GOALS = 1 << 22
"""How many states' goals a ``TextModel`` remembers before it forgets them all."""

_PROGRAMS: dict[tuple, tuple[Any, Any, Any]] = {}
"""(design class, configuration) -> (flat model, traced program, generated code)."""


def _decodes_by_parts(cls: type) -> bool:
    """Does the layout read its state in parts (``ByParts``), with no feature of it decoding
    more after them (its own ``decode``)?"""
    from replcheck.model.engine.text import ByParts

    return next(c for c in cls.__mro__ if "decode" in vars(c)) is ByParts


class TextModel(Model):
    def __init__(self, design: Design, cfg: Config) -> None:
        super().__init__(design, cfg)
        from replcheck.model.engine.catalogue import RegistryError, text_class
        from replcheck.model.engine.text import FlatError

        try:
            cls = text_class(design, cfg)
        except (FlatError, RegistryError) as e:
            why = str(e).removeprefix(f"{design.name}: ")
            raise NotCovered(f"{design.name} under {cfg.name}: {why}") from None
        self.text = cls(design, cfg)
        self._key = (type(design), cfg)
        self.labels: dict[str, Label] = {**getattr(self.text, "labels", {}), **labels_of(cls)}
        self._rank = {k.name: i for i, k in enumerate(design.kinds)}
        """Actions are offered kind by kind in the design's order, as ``list`` shows them (so
        every engine's search takes the same one of several equally short paths)."""
        self._last: tuple[Any, list[tuple[Action, tuple]]] | None = None
        self._slot: dict[tuple, int] | None = None
        self._decoded: dict[tuple, Any] = {}
        """Packed state -> its readable state, for the states this model decoded (bounded by
        ``CACHE``): a successor reached again is not decoded again."""
        self._packed: dict[int, tuple[Any, tuple]] = {}
        """``id`` of a readable state this model gave -> (the state, its packed form)."""
        self._part_list: list[tuple[tuple, Any, Any, dict]] | None = None
        self._parts_known = False
        """Whether ``_part_list`` is settled (None then: this layout decodes whole states)."""
        self._checked: tuple[Any, frozenset[str]] | None = None
        """The last state whose invariants were checked, and those it breaks."""
        self._stepped: tuple[Any, Any, frozenset[str]] | None = None
        """The last step whose step properties were checked, and those it breaks."""
        self._built: tuple[Any, Any, Any] | None = None
        """``_program()``'s, once built (looking it up hashes the configuration)."""
        self._goals: dict[int, tuple[Any, int]] = {}
        """``id`` of a readable state -> (it, the bit set of the goals it reaches): a liveness
        check asks every state once per goal (bounded by ``GOALS``)."""
        self._set_properties()

    def _set_properties(self) -> None:
        """The text's properties (``model/engine/text_checks.py``), checked by this engine."""
        from replcheck.model.engine.text_checks import properties_of

        self.invariants, self.step_properties, self.liveness = properties_of(
            self.text.properties(), self._state_verdict, self._step_verdict
        )
        self._goal_names = frozenset(p.name for p in self.liveness)
        self._goal_bit: dict[str, int] = {}

    def _state_verdict(self, st: Any, name: str) -> bool:
        """Does ``st`` satisfy invariant or goal ``name``? Every invariant of a state is
        checked in one call of the generated program, every goal in another."""
        if name in self._goal_names:
            got = self._goals.get(id(st))
            if got is None or got[0] is not st:
                got = self._reached(st, self._pack(st))
            return bool(got[1] >> self._goal_bit[name] & 1)
        last = self._checked
        if last is None or last[0] is not st:
            _flat, program, code = self._program()
            packed = self._pack(st)
            names = program.invariants
            broken = frozenset(names[j][0] for j in code.invariants(packed))
            last = self._checked = (st, broken)
            if self._goal_names:
                # what a liveness check asks next of every state an exploration kept: worked
                # out while the packed state is at hand
                self._reached(st, packed)
        return name not in last[1]

    def _reached(self, st: Any, packed: tuple) -> tuple[Any, int]:
        """(``st``, the bit set of the goals it reaches), remembered."""
        _flat, program, code = self._program()
        if not self._goal_bit:
            self._goal_bit = {n: j for j, (n, _node) in enumerate(program.goals)}
        if len(self._goals) >= GOALS:
            self._goals.clear()
        got = self._goals[id(st)] = (st, code.goals(packed))
        return got

    def _step_verdict(self, before: Any, after: Any, name: str) -> bool:
        last = self._stepped
        if last is None or last[0] is not before or last[1] is not after:
            _flat, program, code = self._program()
            names = program.step_properties
            got = code.step_violations(self._pack(before), self._pack(after))
            last = self._stepped = (before, after, frozenset(names[j][0] for j in got))
        return name not in last[2]

    def _program(self) -> tuple[Any, Any, Any]:
        """The flat model, its traced program and the generated code, built at first use."""
        got = self._built
        if got is not None:
            return got
        if self._key not in _PROGRAMS:
            from replcheck.model.engine.pygen import compile_python
            from replcheck.model.engine.terms import trace

            flat = self.text.model()
            program = trace(flat)
            _PROGRAMS[self._key] = (flat, program, compile_python(program))
        got = self._built = _PROGRAMS[self._key]
        return got

    @property
    def flat(self) -> Any:
        return self._program()[0]

    def reader(self, st: Any) -> Reader:
        """The state's slots, for a rule or a view read outside a step."""
        return Reader(self.text.encode(st).__getitem__)

    def _slots(self, program: Any) -> dict[tuple, int]:
        """Slot index by key (a label reads the packed state through it: Boolean slots read as
        0 or 1)."""
        if self._slot is None:
            self._slot = program.slot
        return self._slot

    def _pack(self, st: Any) -> tuple:
        """The packed form of a readable state: remembered for the states this model decoded
        (the explorer expands the successors it was given), encoded otherwise."""
        hit = self._packed.get(id(st))
        if hit is not None and hit[0] is st:
            return hit[1]
        flat, program, _code = self._program()
        packed = program.pack(flat.encode(st))
        self._remember(packed, st)
        return packed

    def _remember(self, packed: tuple, st: Any) -> None:
        if len(self._decoded) >= CACHE:
            self._decoded.clear()
            self._packed.clear()
            for _part, _pick, _read, cache in self._part_list or ():
                cache.clear()
        self._decoded[packed] = st
        self._packed[id(st)] = (st, packed)

    def _enabled(self, st: Any) -> list[tuple[Action, tuple]]:
        last = self._last
        if last is not None and (last[0] is st or last[0] == st):
            return last[1]
        flat, program, code = self._program()
        packed = self._pack(st)
        slot = self._slots(program)

        def get(k: tuple) -> Any:
            return packed[slot[k]]

        instances = flat.instances
        out = []
        for i, nxt in sorted(code.successors(packed), key=lambda inxt: inxt[0]):
            inst = instances[i]
            label = self.labels.get(inst.name)
            args = label(self.text, st, get, inst.args) if label else inst.args
            out.append((Action(inst.name, args), nxt))
        # Kind by kind in the design's order, each kind's in the text's instance order (not
        # the generated program's, which groups instances by their first conjunct).
        out.sort(key=lambda an: self._rank.get(an[0].name, len(self._rank)))
        _distinct(a for a, _t in out)
        self._last = (st, out)
        return out

    def enabled(self, st: Any) -> list[Action]:
        return [a for a, _t in self._enabled(st)]

    def _decode(self, action: Action, packed: Any) -> Any:
        """The readable successor (decoded once while remembered); a layout too small for it
        (its ``overflow`` slot set) is refused, never read back as some other state. A layout
        that reads its state in parts (``decode_parts``) has each part read only when its slots
        hold values no state decoded before had there (a step changes few parts)."""
        st = self._decoded.get(packed)
        if st is not None:
            return st
        flat, program, _code = self._program()
        parts = self._parts(program)
        slot = self._slots(program)
        if packed[slot[var.overflow()]]:
            raise NotCovered(
                f"{self.design.name} under {self.cfg.name}: {action} overflows the text's layout"
            )
        if parts is None:
            st = flat.decode(program.unpack(packed))
        else:
            got = {}
            view = None
            for part, pick, read, cache in parts:
                at = pick(packed)
                value = cache.get(at, _NONE)
                if value is _NONE:
                    if view is None:
                        view = _View(packed, slot, program.bools)
                    value = cache[at] = read(view)
                got[part] = value
            st = self.text.assemble(got)
        self._remember(packed, st)
        return st

    def _parts(self, program: Any) -> list[tuple[tuple, Any, Any, dict]] | None:
        """Per part of the layout's readable state (``decode_parts``): its name, a getter of
        its slots' values, its reader and what it read for the values seen (forgotten with the
        decoded states, ``CACHE``); None for a layout that reads its state whole."""
        if self._parts_known:
            return self._part_list
        self._parts_known = True
        if not _decodes_by_parts(type(self.text)):
            return None
        keys = program.keys
        owned: dict[tuple, list[int]] = {}
        for i, k in enumerate(keys):
            part = self.text.part_of(k)
            if part is None and k != var.overflow():
                return None  # a feature's slot the parts do not read: decode whole states
            owned.setdefault(part, []).append(i)
        out = []
        for part, read in self.text.decode_parts():
            at = owned.get(part, [])
            pick = (
                (lambda s: ())
                if not at
                else (lambda s, i=at[0]: s[i])
                if len(at) == 1
                else itemgetter(*at)
            )
            out.append((part, pick, read, {}))
        self._part_list = out
        return out

    def canonical(self, st: Any) -> Any:
        """The representative of the state's class under renaming of region servers, by the
        packed renamings (``model/engine/canonical.py``): each image is the state's slots renamed
        and read back (``rename``)."""
        from replcheck.model.engine.canonical import canonical

        ren = self._renamings()
        if ren is None or self.design.names_ordered:
            return st
        return canonical(st, ren, self._signature(st), lambda perm: self.rename(st, perm))

    def _renamings(self) -> Any:
        """The layout's renamings (``model/engine/canonical.py``) over ``_shape()``, built at first
        use; None with one server."""
        got = self.__dict__.get("_ren", _NONE)
        if got is _NONE:
            got = None
            if self.cfg.servers > 1:
                from replcheck.model.engine.canonical import Renamings

                got = Renamings(self.text, self.design.era, self._shape())
            self._ren = got
            self._images: dict[tuple[int, ...], Any] = {}
        return got

    def _shape(self) -> Any:
        """The slots the renamings map: the traced program's."""
        return self._program()[1]

    def _signature(self, st: Any) -> list[tuple]:
        """Each server's signature (``Renamings.signature_slots``), read off the packed state."""
        getters = self.__dict__.get("_signatures")
        if getters is None:
            getters = self._signatures = self._ren.getters()
        packed = self._pack(st)
        return [get(packed) for get in getters]

    def rename(self, st: Any, perm: tuple[int, ...]) -> Any:
        """``st`` with server ``s`` called ``perm[s]`` everywhere it is named (a renaming the
        layout is closed under)."""
        self._renamings()
        return self._renamed(self._pack(st), perm)

    def _renamed(self, packed: tuple, perm: tuple[int, ...]) -> Any:
        """The readable state of ``packed`` with server ``s`` called ``perm[s]``."""
        image = self._images.get(perm)
        if image is None:
            from replcheck.model.engine.pygen import compile_images

            maps = self._ren.maps(perm)
            assert maps is not None, perm
            image = self._images[perm] = compile_images([maps])[0]
        return self._decode(Action("rename", perm), image(packed))

    def enabled_args(self, st: Any, name: str) -> list[tuple]:
        return [a.args for a, _t in self._enabled(st) if a.name == name]

    def step(self, st: Any, action: Action) -> Any:
        for a, nxt in self._enabled(st):
            if a == action:
                return self._decode(a, nxt)
        raise ValueError(f"{self.design.name}: {action} is not enabled here")

    def successors(self, st: Any) -> Iterator[tuple[Action, Any]]:
        for a, nxt in self._enabled(st):
            yield a, self._decode(a, nxt)

    def successors_from_any(self, st: Any) -> Iterator[tuple[Action, Any]]:
        """``successors``, where a step that overflows the layout (from a state no run reaches,
        such as an induction's) leads nowhere."""
        for a, nxt in self._enabled(st):
            try:
                yield a, self._decode(a, nxt)
            except NotCovered:
                continue


def _distinct(actions: Any) -> None:
    """Two instances enabled in one state must not be known by one action (a step's ``label``
    that drops what tells them apart): a trace or an explorer taking the action would reach
    only one of their successors."""
    seen: set[Action] = set()
    for a in actions:
        if a in seen:
            raise TextError(f"two instances enabled in one state are both labelled {a}")
        seen.add(a)
