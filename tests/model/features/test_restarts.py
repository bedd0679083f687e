"""Server restarts (``model/features/restarts.py``), written only in the protocol text: the counts
of the explicit steps they replaced, and a restart step by step."""

from __future__ import annotations

import pytest
from replcheck.model import STANDARD, Model, get_design
from replcheck.model.common.state import DISABLED, ENABLED
from replcheck.model.engine.action import Action
from replcheck.model.engine.text_model import TextModel
from replcheck.model.table.state import SCP_DONE
from replcheck.specs.explore import explore

CFG = STANDARD["t-remove-starve"]


@pytest.mark.parametrize(
    ("name", "states", "transitions"),
    [
        ("table", 4296, 11881),
        ("table-doc", 4356, 12001),
        ("table/HBASE-27213-recollect", 4296, 11821),
    ],
)
def test_the_whole_space_is_the_one_the_explicit_steps_had(
    name: str, states: int, transitions: int
) -> None:
    """Without symmetry, the counts the explicit ``crash`` and ``restart`` steps gave (measured
    on them before they were deleted); with symmetry the manifest pins them."""
    model = Model(get_design(name), CFG)
    assert isinstance(model, TextModel)
    ex = explore(model, symmetry=False)
    assert (len(ex.states), ex.transitions) == (states, transitions)


def test_a_server_restarts_once_its_scp_is_done_and_nothing_reads_its_wals() -> None:
    model = Model(get_design("table"), CFG)
    ex = explore(model, symmetry=False)
    where = [st for st in ex.states if Action("restart", (0,)) in model.enabled(st)]
    assert where
    for st in where[:20]:
        assert not st.servers[0].alive and st.scps[0].stage == SCP_DONE
        assert not any(0 in (r.owner, r.source) for r in st.rows)
        after = model.step(st, Action("restart", (0,)))
        srv = after.servers[0]
        assert srv.alive and srv.current == (0,) * CFG.wal_groups
        assert all(not w.entries for w in after.wals if w and w.key[0] == 0)
        stored = [p for p, status in enumerate(after.peers) if status in (ENABLED, DISABLED)]
        assert sorted((sh.peer, sh.group, sh.chain) for sh in srv.shippers) == [
            (p, g, ()) for p in stored for g in range(CFG.wal_groups)
        ]
