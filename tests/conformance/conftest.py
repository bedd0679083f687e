"""Fixtures that run a real ZooKeeper (from the pyspark jars) for the conformance tests.

``zookeeper`` is one standalone server per test session (per xdist worker), shared by the tests
that use it: they must not stop it, and should write under a path of their own. A test that needs
an ensemble to itself (to kill servers) takes ``zookeeper_ensemble``: three fresh servers. Mark
tests that use either with ``@pytest.mark.zookeeper``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from kazoo.client import KazooClient
from replcheck.conformance.zookeeper.server import Ensemble

START_TIMEOUT = 90.0
"""Generous: on a two-core machine a test run may be busy with other workers."""


@pytest.fixture(scope="session")
def zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ensemble]:
    """A standalone ZooKeeper shared by the session; stopped at its end."""
    ensemble = Ensemble(tmp_path_factory.mktemp("zookeeper"), servers=1)
    ensemble.start(timeout=START_TIMEOUT)
    try:
        yield ensemble
    finally:
        ensemble.stop()


@pytest.fixture
def zookeeper_ensemble(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ensemble]:
    """A fresh 3-server ZooKeeper ensemble for one test, which may stop or kill its servers."""
    ensemble = Ensemble(tmp_path_factory.mktemp("zookeeper-ensemble"), servers=3)
    ensemble.start(timeout=START_TIMEOUT)
    try:
        yield ensemble
    finally:
        ensemble.stop()


@pytest.fixture
def zk_root(zookeeper: Ensemble) -> str:
    """A connect string chrooted to a fresh path of the shared ZooKeeper, for one process of the
    reference cluster started in the test."""
    root = f"/replcheck-test/{uuid.uuid4().hex}"
    zk = KazooClient(hosts=zookeeper.connect_string, timeout=10.0)
    zk.start(timeout=30)
    zk.ensure_path(root)
    zk.stop()
    zk.close()
    return f"{zookeeper.connect_string}{root}"
