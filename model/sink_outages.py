"""Steps both eras share word for word: sink region servers of the peer clusters going down and
coming back (seed 002: "If the slave RegionServer is still not available ...")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple, TypeVar

from .config import Config
from .state import bits, set_at

S = TypeVar("S", bound=NamedTuple)


class SinkOutages:
    """``sink_down`` / ``sink_up`` for any state with ``sinks`` and ``budget.outages``."""

    def en_sink_down(self, cfg: Config, st: S) -> Iterator[tuple]:
        if st.budget.outages:
            for c in range(1, cfg.clusters):
                for k in range(cfg.sink_servers):
                    if not st.sinks[c].down >> k & 1:
                        yield (c, k)

    def do_sink_down(self, cfg: Config, st: S, c: int, k: int) -> S:
        sink = st.sinks[c]
        st = st._replace(budget=st.budget._replace(outages=st.budget.outages - 1))
        return st._replace(sinks=set_at(st.sinks, c, sink._replace(down=sink.down | 1 << k)))

    def en_sink_up(self, cfg: Config, st: S) -> Iterator[tuple]:
        for c in range(1, cfg.clusters):
            for k in bits(st.sinks[c].down):
                yield (c, k)

    def do_sink_up(self, cfg: Config, st: S, c: int, k: int) -> S:
        sink = st.sinks[c]
        return st._replace(sinks=set_at(st.sinks, c, sink._replace(down=sink.down & ~(1 << k))))
