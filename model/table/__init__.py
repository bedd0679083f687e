"""The table era (seed 004; reference sections 1, 2, 4-8): ``table`` and ``table-doc``, the
``hbase:replication`` layout, the claim, the SCP, the peer procedures, the cleaner, and their
mutants."""
