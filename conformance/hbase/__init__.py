"""HBase's names and bytes: WAL files, the model's names as the cluster writes them, stored
values."""
