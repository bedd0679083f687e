"""replcheck.conformance: the real system (embedded ZooKeeper, the reference cluster, faults,
traces and their validation against the model). Not built yet: this package is empty."""
