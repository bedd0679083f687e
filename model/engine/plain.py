"""``PlainModel``: the protocol text run on plain values, with no generated program.

``TextModel`` (``model/engine/text_model.py``) traces the text's instances and runs them as
generated straight-line Python: fast per state, but generating costs time that grows with the layout
(seconds at 2,000 slots, a minute at 6,000). ``PlainModel`` runs the same instances' guards and
updates directly (``Ctx`` over a dict of slot values, guards stopping at their first false
conjunct), so it serves a layout of any size at once: what ``TextModel`` leaves to the explicit
steps, and what a replay, ``show`` or a fuzzer's single run needs.

A state's slots are held sparsely (``Slots``: what was written; every other slot reads its
default), so a successor copies what its parent holds, not the layout. Only the instances that
can be enabled are tried: steps are indexed by what they first read
(``model/engine/plain_index.py``). A layout past ``TEXT_SLOTS`` runs here (``text_engine``); so do
``explore --engine plain`` and ``validate --engine plain``.

Everything else is ``TextModel``'s: the readable states, the actions' labels, decoding by parts,
refusing a successor that overflows the layout (``NotCovered``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from replcheck.model.engine.action import Action
from replcheck.model.engine.logic import PY
from replcheck.model.engine.names import var
from replcheck.model.engine.plain_index import Index, Listed, Slots, written
from replcheck.model.engine.step import gated, gates_of, instance, steps_of
from replcheck.model.engine.text import FPY, Tx, is_true, recording
from replcheck.model.engine.text_model import NotCovered, TextModel, _distinct


class _Kinds:
    """A text's instances and their indexes, kind by kind, each built when first asked for:
    a trace's events ask a handful of kinds, and a kind's instances are listed and indexed
    without the others' (nor the flat model's properties and initial state)."""

    def __init__(self, text: Any) -> None:
        self.text = text
        self.steps = {st.name: st for st in steps_of(type(text))}
        others = text.instances() if hasattr(text, "instances") else []
        self.others: dict[str, list[Any]] = {}
        for inst in others:
            self.others.setdefault(inst.name, []).append(inst)
        self.gates = gates_of(type(text))
        self.names = [*self.others, *(n for n in self.steps if n not in self.others)]
        self._instances: dict[str, list[Any]] = {}
        self._indexes: dict[str, Index] = {}
        self._by_args: dict[str, dict[tuple, list[int]]] = {}
        self._sorts: dict[tuple, Any] | None = None
        self.flat_props: dict[str, Any] | None = None
        """The text's properties by name, and the slot names each reads (``footprint``)."""
        self.footprints: dict[str, frozenset[str] | None] = {}

    def instances(self, name: str) -> Any:
        """The instances of kind ``name``, in the text's order (``instances_of``): a list, or
        for a ``@step`` a ``Listed`` that builds each one when first asked for."""
        got = self._instances.get(name)
        if got is None:
            st = self.steps.get(name)
            if name in self.others or st is None:
                mine = list(self.others.get(name, ()))
                if st is not None:
                    mine += [instance(self.text, st, tuple(a)) for a in st.each(self.text)]
                got = [gated(self.text, self.gates, i) for i in mine]
            else:
                text, gates = self.text, self.gates

                def make(args: tuple, st: Any = st) -> Any:
                    return gated(text, gates, instance(text, st, args))

                got = Listed(name, [tuple(a) for a in st.each(text)], make)
            self._instances[name] = got
        return got

    def by_args(self, name: str) -> dict[tuple, list[int]]:
        """The instances of kind ``name`` by their structural arguments, in the text's order:
        an action of a kind with no label names its instances without any index."""
        got = self._by_args.get(name)
        if got is None:
            insts = self.instances(name)
            args = insts.args if isinstance(insts, Listed) else [i.args for i in insts]
            got = self._by_args[name] = {}
            for i, a in enumerate(args):
                got.setdefault(tuple(a), []).append(i)
        return got

    def index(self, name: str) -> Index:
        got = self._indexes.get(name)
        if got is None:
            if self._sorts is None:
                self._sorts = self.text.sorts()
            got = self._indexes[name] = Index(
                self.text, self.instances(name), self.text.shared_defaults(), self._sorts
            )
        return got


_TEXTS: dict[tuple, _Kinds] = {}
"""(design class, configuration) -> its instances and indexes by kind (the last few asked)."""

KEEP = 8
"""How many designs and configurations ``_TEXTS`` keeps (a process that validates run after run
must not hold every run's)."""


class PlainModel(TextModel):
    """The text on plain values (see the module docstring)."""

    def __init__(self, design: Any, cfg: Any) -> None:
        super().__init__(design, cfg)
        self._flat: Any = None
        self._values: dict[int, tuple[Any, dict[tuple, Any], dict[tuple, Any] | None]] = {}
        """``id`` of a readable state this model gave -> (the state, its slot values, its parts
        as decoded: None for a layout read whole)."""
        self._readers: dict[tuple, Any] | None = None
        self._part_of: dict[tuple, tuple | None] = {}
        self._last_kinds: tuple[Any, dict[str, list[tuple[Action, int]]]] | None = None
        """A state and the enabled actions of each kind asked of it (``_enabled_kind``)."""
        self._found: tuple[Any, Action, int | None] | None = None
        """The last action looked for (``_find``): the state, the action, its instance."""
        self._from: dict[int, tuple[Any, Any, frozenset[str]]] = {}
        """``id`` of a successor this model gave -> (it, its parent, the slot names the step
        wrote)."""
        self._verdicts: dict[int, tuple[Any, dict[str, tuple[bool, set[str]]]]] = {}
        """``id`` of a readable state -> (it, its properties' verdicts as far as asked)."""

    @property
    def flat(self) -> Any:
        if self._flat is None:
            self._flat = self.text.model()
        return self._flat

    def _set_properties(self) -> None:
        """The text's properties on plain values; a step property's footprint (``footprint``)."""
        from replcheck.model.engine.text_checks import footprint, properties_of, wanted

        kinds = self._kinds()
        if kinds.flat_props is None:
            kinds.flat_props = {p.name: p for p in wanted(self.text.properties())}
            kinds.footprints = {
                n: footprint(p) for n, p in kinds.flat_props.items() if p.kind == "step"
            }
        self._flat_props = kinds.flat_props
        self._footprints = kinds.footprints
        self.invariants, self.step_properties, self.liveness = properties_of(
            list(self._flat_props.values()), self._state_verdict, self._step_verdict
        )

    def _known(self, st: Any) -> dict[str, tuple[bool, set[str]]]:
        """``st``'s verdicts as far as asked, each with the slot names its evaluation read."""
        got = self._verdicts.get(id(st))
        if got is not None and got[0] is st:
            return got[1]
        if len(self._verdicts) >= 1 << 16:
            self._verdicts.clear()
        mine: dict[str, tuple[bool, set[str]]] = {}
        self._verdicts[id(st)] = (st, mine)
        return mine

    def _state_verdict(self, st: Any, name: str) -> bool:
        """Invariant or goal ``name`` on ``st``: its parent's verdict where the step to ``st``
        wrote no slot of a name the parent's evaluation read (every slot it read then holds
        what it held, so the evaluation would go the same way); evaluated otherwise, the names
        it reads recorded."""
        known = self._known(st)
        got = known.get(name)
        if got is None:
            origin = self._from.get(id(st))
            if origin is not None and origin[0] is st:
                parent = self._verdicts.get(id(origin[1]))
                if parent is not None and parent[0] is origin[1]:
                    had = parent[1].get(name)
                    if had is not None and had[1].isdisjoint(origin[2]):
                        got = had
            if got is None:
                get = recording(self.reader_values(st))
                verdict = is_true(self._flat_props[name].check(PY, get))
                got = (verdict, get.reads)  # type: ignore[attr-defined]
            known[name] = got
        return got[0]

    def _step_verdict(self, before: Any, after: Any, name: str) -> bool:
        """A step that wrote no slot of a name the step property reads (its ``footprint``)
        changed nothing it judges: it holds (a step property is a property of a change, as
        TLA+'s ``[A]_v`` is). Evaluated otherwise."""
        origin = self._from.get(id(after))
        reads = self._footprints.get(name)
        if (
            origin is not None
            and origin[0] is after
            and origin[1] is before
            and reads is not None
            and reads.isdisjoint(origin[2])
        ):
            return True
        p = self._flat_props[name]
        b = self.reader_values(before).__getitem__
        return is_true(p.check(PY, b, self.reader_values(after).__getitem__))

    def _kinds(self) -> _Kinds:
        got = _TEXTS.get(self._key)
        if got is None:
            while len(_TEXTS) >= KEEP:
                del _TEXTS[next(iter(_TEXTS))]
            got = _TEXTS[self._key] = _Kinds(self.text)
        return got

    def reader_values(self, st: Any) -> dict[tuple, Any]:
        """The slot values of a readable state (remembered for the states this model gave)."""
        return self._memo(st)[0]

    def _memo(self, st: Any) -> tuple[dict[tuple, Any], dict[tuple, Any] | None]:
        """(slot values, parts as decoded) of a readable state: remembered for the states this
        model gave, encoded otherwise (its parts then read afresh when needed)."""
        hit = self._values.get(id(st))
        if hit is not None and hit[0] is st:
            return hit[1], hit[2]
        defaults = self.text.shared_defaults()
        values = Slots(
            defaults,
            ((k, v) for k, v in self.text.encode(st).items() if written(v, defaults[k])),
        )
        self._keep(st, values, None)
        return values, None

    def _keep(self, st: Any, values: dict[tuple, Any], parts: dict[tuple, Any] | None) -> None:
        if len(self._values) >= 1 << 16:
            self._values.clear()
        self._values[id(st)] = (st, values, parts)

    def _enabled(self, st: Any) -> list[tuple[Action, int]]:
        last = self._last
        if last is not None and (last[0] is st or last[0] == st):
            return last[1]
        kinds = self._kinds()
        names = sorted(kinds.names, key=lambda n: self._rank.get(n, len(self._rank)))
        out = [an for name in names for an in self._enabled_kind(st, name)]
        self._last = (st, out)
        return out

    def _enabled_kind(self, st: Any, name: str) -> list[tuple[Action, int]]:
        """``_enabled`` for one action kind: only its instances are tried (what a trace's
        event asks of a state)."""
        last = self._last
        if last is not None and (last[0] is st or last[0] == st):
            return [an for an in last[1] if an[0].name == name]
        seen = self._last_kinds
        if seen is None or not (seen[0] is st or seen[0] == st):
            seen = self._last_kinds = (st, {})
        got = seen[1].get(name)
        if got is None:
            got = seen[1][name] = self._run(st, name)
        return got

    def _run(self, st: Any, name: str) -> list[tuple[Action, int]]:
        """The enabled actions among ``index``'s candidates in ``st``, with their instances
        (whose writes are worked out only for a step taken)."""
        values = self.reader_values(st)
        get = values.__getitem__
        kinds = self._kinds()
        instances = kinds.instances(name)
        out = []
        for i in kinds.index(name).candidates(values, self.text.shared_defaults()):
            inst = instances[i]
            if not is_true(inst.guard(FPY, get)):
                continue
            label = self.labels.get(inst.name)
            args = label(self.text, st, get, inst.args) if label else inst.args
            out.append((Action(inst.name, args), i))
        _distinct(a for a, _i in out)
        return out

    def _successor(self, st: Any, action: Action, i: int) -> Any:
        """The readable successor by instance ``i`` (of the action's kind); a layout that reads
        its state in parts (``decode_parts``) has only the parts whose slots the step wrote
        read again."""
        old, parts = self._memo(st)
        tx = Tx(FPY, old)
        self._kinds().instances(action.name)[i].apply(FPY, tx)
        new = tx.new
        if new.get(var.overflow()):
            raise NotCovered(
                f"{self.design.name} under {self.cfg.name}: {action} overflows the text's layout"
            )
        values = Slots(old.defaults, old)
        defaults = old.defaults
        wrote = frozenset(k[0] for k in new)
        for k, v in new.items():  # only what differs from the default is held
            if written(v, defaults[k]):
                values[k] = v
            elif k in values:
                del values[k]
        readers = self._part_readers()
        if readers is None:
            nxt = self.text.decode(values)
            self._keep(nxt, values, None)
            self._came(nxt, st, wrote)
            return nxt
        if parts is None:
            got = {part: read(values) for part, read in readers.items()}
        else:
            got = dict(parts)
            part_of = self._part_of
            for part in {part_of[k] if k in part_of else self._part(k) for k in new}:
                if part is not None:
                    got[part] = readers[part](values)
        nxt = self.text.assemble(got)
        self._keep(nxt, values, got)
        self._came(nxt, st, wrote)
        return nxt

    def _came(self, nxt: Any, st: Any, wrote: frozenset[str]) -> None:
        if len(self._from) >= 1 << 16:
            self._from.clear()
        self._from[id(nxt)] = (nxt, st, wrote)

    def _part(self, k: tuple) -> tuple | None:
        """The part slot ``k`` is read into (``part_of``, remembered)."""
        got = self._part_of[k] = self.text.part_of(k)
        return got

    def _part_readers(self) -> dict[tuple, Any] | None:
        """Each part's reader (``decode_parts``), or None for a layout read whole."""
        if self._readers is None:
            from replcheck.model.engine.text_model import _decodes_by_parts

            self._readers = (
                dict(self.text.decode_parts()) if _decodes_by_parts(type(self.text)) else {}
            )
        return self._readers or None

    def _shape(self) -> Any:
        """The slots the renamings map: the layout's, with no program generated."""
        from replcheck.model.engine.canonical import Shape

        return Shape(self.text.sorts())

    def _signature(self, st: Any) -> list[tuple]:
        values = self._memo(st)[0]
        return [tuple(values[k] for k in keys) for keys in self._ren.signature_keys]

    def rename(self, st: Any, perm: tuple[int, ...]) -> Any:
        """``TextModel.rename`` on the state's sparse slots: the slots it holds renamed (and
        those whose value map's flag is set) and read back."""
        self._renamings()
        return self._renamed_values(self._memo(st)[0], perm)

    def _renamed_values(self, values: Slots, perm: tuple[int, ...]) -> Any:
        out = self._ren.sparse(values, perm, lambda: Slots(values.defaults))
        readers = self._part_readers()
        if readers is None:
            nxt = self.text.decode(out)
            self._keep(nxt, out, None)
            return nxt
        got = {part: read(out) for part, read in readers.items()}
        nxt = self.text.assemble(got)
        self._keep(nxt, out, got)
        return nxt

    def enabled_args(self, st: Any, name: str) -> list[tuple]:
        return [a.args for a, _new in self._enabled_kind(st, name)]

    def _find(self, st: Any, action: Action) -> int | None:
        """The instance by which ``action`` is enabled in ``st``, or None. Where the kind's
        enabled actions are not known yet, each candidate's label is worked out first and only
        an instance labelled ``action`` has its guard run (a recorded event names its action:
        most of a kind's instances are other actions)."""
        found = self._found
        if found is not None and found[1] == action and (found[0] is st or found[0] == st):
            return found[2]
        last, seen = self._last, self._last_kinds
        if last is not None and (last[0] is st or last[0] == st):
            known: list[tuple[Action, int]] | None = last[1]
        elif seen is not None and (seen[0] is st or seen[0] == st):
            known = seen[1].get(action.name)
        else:
            known = None
        got = None
        if known is not None:
            got = next((i for a, i in known if a == action), None)
        else:
            values = self.reader_values(st)
            get = values.__getitem__
            kinds = self._kinds()
            instances = kinds.instances(action.name)
            label = self.labels.get(action.name)
            if label is None:  # the action's arguments are its instances'
                got = next(
                    (
                        i
                        for i in kinds.by_args(action.name).get(action.args, ())
                        if is_true(instances[i].guard(FPY, get))
                    ),
                    None,
                )
                self._found = (st, action, got)
                return got
            for i in kinds.index(action.name).candidates(values, self.text.shared_defaults()):
                inst = instances[i]
                try:
                    args = label(self.text, st, get, inst.args)
                except (LookupError, ValueError, TypeError, AttributeError):
                    continue  # a label is defined where its guard holds
                if args == action.args and is_true(inst.guard(FPY, get)):
                    got = i
                    break
        self._found = (st, action, got)
        return got

    def is_enabled(self, st: Any, action: Action) -> bool:
        return self._find(st, action) is not None

    def step(self, st: Any, action: Action) -> Any:
        i = self._find(st, action)
        if i is None:
            raise ValueError(f"{self.design.name}: {action} is not enabled here")
        return self._successor(st, action, i)

    def successors(self, st: Any) -> Iterator[tuple[Action, Any]]:
        for a, i in self._enabled(st):
            yield a, self._successor(st, a, i)

    def successors_from_any(self, st: Any) -> Iterator[tuple[Action, Any]]:
        for a, i in self._enabled(st):
            try:
                yield a, self._successor(st, a, i)
            except NotCovered:
                continue

    def reader(self, st: Any) -> Any:
        from replcheck.model.engine.step import Reader

        return Reader(self.reader_values(st).__getitem__)
