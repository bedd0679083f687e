"""The table era's configuration features, one module each (``model/table/layout.py``'s
``FEATURES``): sync replication, ReplicationSyncUp, the migration, serial peers, bulk loads and
hfile references, the peer's lifecycle, restarts, joins, zombies, relays and the rest."""
