"""What both eras share: the state's value types, the decision rules written once, the edits and
their properties, and the steps that are the same in both (crashes, sinks, zombie WAL writers,
relays)."""
