"""ZooKeeper itself: the embedded server, and readers of its transaction logs and snapshots."""
