"""A reviewer's mutant that wraps a step and adds a flag to the state.

    F=docs/examples/my_wrapped_step.py
    replcheck list    --design-file $F --steps
    replcheck explore --design-file $F --design zk-lock/cleaner-trusts-first-look
    replcheck explore --design-file $F --design zk-lock/cleaner-trusts-first-look --engine c
    replcheck check   --design-file $F

The log cleaner of zk-lock looks an archived WAL up in every queue before it deletes it. What if
it remembered that it had looked a WAL up once, and deleted it at its next look without looking
again? The bug needs one flag per WAL, which no variable of the design holds:

* ``looked = added(("wal",), BOOL, False, ...)`` declares it, with its default; every engine
  carries it (the plain interpreter, generated Python and C lay out its slots, the readable state
  holds it in ``extra``, symmetry renames the WAL it is indexed by);
* ``clean = wrap(after=...)`` is the cleaner's ``clean`` step as the design has it (its params,
  fairness, instances and label), with one write after its body: the flag set;
* ``clean_looked`` is a new step (named in ``adds``): a WAL looked up once is deleted.

The mutant is a Design subclass, its override a class named ``text`` inside it deriving from the
component that defines what it changes (``LockCleaner``, ``model/zk/cleaners.py``); the override
is placed on top of the design's text by the names it defines, whatever class it derives from.
"""

from typing import Any

from replcheck.model.common.state import ARCHIVED, DELETED
from replcheck.model.engine.mutation import added, wrap
from replcheck.model.engine.names import BOOL
from replcheck.model.engine.step import Ctx, step
from replcheck.model.zk.cleaners import LockCleaner
from replcheck.model.zk.lock import ZkLock


def _mark(self: Any, t: Ctx, w: int) -> None:
    """The cleaner remembers it looked the WAL up."""
    t.looked[w] = True


class CleanerTrustsFirstLook(ZkLock):
    name = "zk-lock/cleaner-trusts-first-look"
    mutant_of = "zk-lock"
    overrides = "clean"
    adds = ("clean_looked",)
    configs = ("std",)
    bug = (
        "The log cleaner deletes an archived WAL it looked up once without looking it up again: "
        "a WAL still queued at the first look is deleted at the second; seed 003: the cleaner "
        "deletes a log only if no queue holds it."
    )

    class text(LockCleaner):
        looked = added(("wal",), BOOL, False, "the log cleaner looked the WAL up once")

        clean = wrap(after=_mark)

        @step(
            params=("server", "group", "seq"),
            fair=False,
            each=lambda text: [(w,) for w in text.W],
            label=lambda text, st, get, a: text.key[a[0]],
        )
        def clean_looked(self, t: Ctx, w: int) -> None:
            """log cleaner: a WAL looked up before is deleted without a lookup"""
            t.require(t.wal_exists[w], t.wal_place[w] == ARCHIVED, t.looked[w])
            t.wal_place[w] = DELETED
