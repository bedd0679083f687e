"""The trace format: events, their schema, reading them strictly, Parquet and ITF, mutations."""
