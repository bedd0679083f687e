"""The model's tests, in folders as the model's subpackages are (engine, common, zk, table,
features, render); the helpers every folder shares (``walks``, ``footprints``, the agreement
checks) stay here, importable by name from each folder."""
