"""A reviewer's own mutant, in a file outside the package.

    replcheck explore --design-file docs/examples/my_mutant.py --design zk-multi/drop-unread-wal

It asks: what if a source dropped a closed WAL from its queue as soon as a newer WAL was queued,
without first reading it to the end? Subclass the design, override one named step, say what bug it
reproduces and in which standard configurations it must be caught.
"""

from replcheck.model.state import Shipper, Wal
from replcheck.model.zk_multi import ZkMulti


class DropUnreadWal(ZkMulti):
    name = "zk-multi/drop-unread-wal"
    mutant_of = "zk-multi"
    overrides = "rule_wal_done"
    configs = ("std",)
    bug = (
        "The source drops a closed WAL once a newer one is queued, read to the end or not; seed "
        "001 discards a queue item only when the thread 'cannot read more entries from a file'."
    )

    def rule_wal_done(self, sh: Shipper, wal: Wal) -> bool:
        return len(sh.wals) > 1 and wal.closed
