"""The ZooKeeper era (seeds 000-003; reference section 3): ``zk-lock`` and ``zk-multi``, their
layout, steps, properties and mutants."""
