"""Configuration bounds: negative and absurd values are refused with one line naming the limit,
and a configuration that sets another era's bounds does not apply to a design."""

from __future__ import annotations

from dataclasses import fields

import pytest
from replcheck.model import STANDARD, Config, get_design
from replcheck.model.config import ERA_FIELDS, MAX_BOUND, SHAPE_FIELDS

INT_FIELDS = [
    f.name
    for f in fields(Config)
    if isinstance(getattr(Config(), f.name), int)
    and not isinstance(getattr(Config(), f.name), bool)
]


@pytest.mark.parametrize(
    ("name", "value"),
    [*((n, -1) for n in INT_FIELDS), *((n, 10**20) for n in SHAPE_FIELDS)],
)
def test_no_bound_may_be_negative_nor_a_shape_absurd(name: str, value: int) -> None:
    """Refused in one line naming the bound. (Budgets that only count down may be large: a
    replayed run sets them to what it recorded.)"""
    with pytest.raises(ValueError) as caught:
        Config(**{name: value})
    message = str(caught.value)
    assert name.split("_")[-1] in message and "\n" not in message


def test_the_limit_is_named() -> None:
    with pytest.raises(ValueError, match=f"above {MAX_BOUND}, the most the checkers handle"):
        Config(servers=10**20)
    with pytest.raises(ValueError, match="cleaner_runs must not be negative"):
        Config(cleaner_runs=-1)
    with pytest.raises(ValueError, match="syncup_failures and syncup_abandon need syncup"):
        Config(syncup_failures=1)
    with pytest.raises(ValueError, match="remote_wals needs sync_peers"):
        Config(remote_wals=1)
    with pytest.raises(ValueError, match="legacy_peer needs migration"):
        Config(legacy_peer=True)
    with pytest.raises(ValueError, match="zk_hfile_refs needs migration and bulk_load"):
        Config(servers=2, spare_servers=1, migration=True, zk_hfile_refs=True)
    with pytest.raises(ValueError, match="zk_hfile_refs without legacy_peer"):
        Config(migration=True, bulk_load=True, legacy_peer=True, zk_hfile_refs=True)


@pytest.mark.parametrize("era", ["zk", "table"])
def test_a_configuration_of_the_other_era_does_not_apply(era: str) -> None:
    other = "table" if era == "zk" else "zk"
    for field in ERA_FIELDS[other]:
        value = getattr(Config(), field)
        changed = not value if isinstance(value, bool) else ((1, 0),) if field == "topology" else 1
        if field == "spare_servers":
            cfg = Config(servers=2, spare_servers=1)
        elif field in ("syncup_failures", "syncup_abandon"):  # they qualify a SyncUp run
            cfg = Config(syncup=True, **{field: changed})
        elif field == "remote_wals":  # it qualifies the sync peers
            cfg = Config(sync_peers=1, remote_wals=changed)
        elif field == "legacy_peer":  # it qualifies the migration
            cfg = Config(migration=True, legacy_peer=changed)
        elif field == "zk_hfile_refs":  # it qualifies the migration's bulk load
            cfg = Config(migration=True, bulk_load=True, zk_hfile_refs=changed)
        elif field == "serial_life":  # it qualifies the serial peers
            cfg = Config(serial_peers=1, serial_life=True)
        else:
            cfg = Config(**{field: changed})
        assert field in cfg.misfit(era)
        assert cfg.misfit(other) == ""


def test_every_design_fits_the_configurations_it_lists() -> None:
    from replcheck.model import DESIGNS

    for name, cls in DESIGNS.items():
        era = type(get_design(name)).era
        for config in cls.configs:
            assert STANDARD[config].misfit(era) == "", (name, config)
