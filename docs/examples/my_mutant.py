"""A reviewer's own mutant, in a file outside the package.

    replcheck explore --design-file docs/examples/my_mutant.py --design zk-multi/drop-unread-wal
    replcheck prove   --design-file docs/examples/my_mutant.py
    replcheck check   --design-file docs/examples/my_mutant.py

It asks: what if a source dropped a closed WAL from its queue as soon as a newer WAL was queued,
without first reading it to the end? Subclass the design, override one named step, say what bug it
reproduces and in which standard configurations it must be caught.

The overridden rule is written in dual form (``model.logic``): once, over ``ops``, so that the
model runs it on plain values and Z3 reads the same text. ``prove`` then refutes it with a
counterexample. The ZooKeeper era's steps are the protocol text's, which reads a rule only in
dual form: a rule overridden by a plain Python method is refused there, in one line.
"""

from replcheck.model.common.state import Shipper, Wal
from replcheck.model.engine.logic import PY, Ops, dual
from replcheck.model.zk.multi import ZkMulti


def drop_unread_rule(ops: Ops, newer_queued, closed, pos, length):
    """The broken rule: closed and superseded is enough; how far it was read is ignored."""
    return ops.and_(newer_queued, closed)


class DropUnreadWal(ZkMulti):
    name = "zk-multi/drop-unread-wal"
    mutant_of = "zk-multi"
    overrides = "rule_wal_done"
    configs = ("std",)
    bug = (
        "The source drops a closed WAL once a newer one is queued, read to the end or not; seed "
        "001 discards a queue item only when the thread 'cannot read more entries from a file'."
    )

    @dual(drop_unread_rule)
    def rule_wal_done(self, sh: Shipper, wal: Wal) -> bool:
        return drop_unread_rule(PY, len(sh.wals) > 1, wal.closed, sh.pos, len(wal.entries))
