"""Read-only inspection of a cluster's replication znodes: read, decode, judge, draw."""
