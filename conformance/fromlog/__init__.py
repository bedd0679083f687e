"""Runs read back from ZooKeeper transaction logs: steps, procedures, names, and agreement."""
