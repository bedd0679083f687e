"""The reference cluster: master, region servers, sinks, their shared layout, hooks and runs."""
