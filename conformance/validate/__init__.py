"""Trace validation: a recorded run replayed through the model, event by event."""
