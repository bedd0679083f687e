"""replcheck.conformance: the real system the model is held against.

* ``zk``: an embedded ZooKeeper (3.9.x from the pyspark jars), standalone or a 3-server ensemble;
* the reference cluster: ``master``, ``regionserver`` and ``sink`` processes (``common`` holds the
  znode layout and the fence, ``wal`` the WAL files, ``wire`` the replication RPC, ``steps`` the
  model's names and decision rules as the cluster calls them);
* ``cluster``: one run (workload, admin schedule, fault injector, drain); ``record``: many runs;
* ``lifeline``: children that die with their driver, and clearing what a dead run left;
* ``trace`` (events, merge), ``schema`` (validation against ``traces/schema/v1``), ``endstate``
  (the end-state checker).

See ``docs/cluster.md``.
"""
