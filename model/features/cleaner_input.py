"""The log cleaner's full input in the table era (reference section 6,
``ReplicationLogCleaner.getDeletableFiles``): besides the servers' replicated WALs, oldWALs holds
each server's archived meta WAL (``<server>.<timestamp>.meta``) and, as any directory an operator
can write to, a file whose name is not a WAL's. Neither is ever replicated, and the cleaner
deletes both: ``isMetaFile`` first, and a name ``validateWALFilename`` refuses before the server
is parsed from it (``rule_cleaner_validates_names``). A name that reached
``parseServerNameFromWALName`` unvalidated would throw, failing the whole run, which then
deletes nothing (``cleaner_run_ok``).

Abstractions: every server starts with one archived meta WAL (it hosted ``hbase:meta`` at some
time), and the directory with one file of another name; nothing writes more of either.

The layout's new slots: ``oldwals_meta[s]``, server ``s``'s archived meta WAL is still there;
``oldwals_junk``, the file whose name is not a WAL's is still there (``TState.others``).
"""

from __future__ import annotations

from typing import Any

from replcheck.model.engine.names import var
from replcheck.model.table.state import TState
from replcheck.model.table.views import TableText


class CleanerInput(TableText):
    """The ``cleaner_input`` feature: the other files of oldWALs and what the cleaner does with
    them (the layout's helpers are ``StepBase``'s)."""

    handles = frozenset({"cleaner_input"})
    encoded_fields = ("others",)

    def sorts(self) -> dict[tuple, Any]:
        out: dict[tuple, Any] = super().sorts()  # type: ignore[misc]
        for s in self.S:
            out[var.oldwals_meta(s)] = "b"
        out[var.oldwals_junk()] = "b"
        return out

    def encode(self, st: TState) -> dict[tuple, Any]:
        v: dict[tuple, Any] = super().encode(st)  # type: ignore[misc]
        for s in self.S:
            v[var.oldwals_meta(s)] = bool(st.others >> s & 1)
        v[var.oldwals_junk()] = bool(st.others >> len(self.S) & 1)
        return v

    def decode(self, v: Any) -> TState:
        st: TState = super().decode(v)  # type: ignore[misc]
        bits = [v[var.oldwals_meta(s)] for s in self.S] + [v[var.oldwals_junk()]]
        return st._replace(others=sum(1 << i for i, b in enumerate(bits) if b))

    def rule_cleaner_validates_names(self, ops: Any) -> Any:
        """Does ``getDeletableFiles`` check that a file's name is a WAL's
        (``validateWALFilename``) before it parses the server from it? Yes: a file whose name is
        not is deleted."""
        return True

    def cleaner_run_ok(self, t: Any) -> Any:
        """The run gets through oldWALs unless an unvalidated name made it throw."""
        ops = t.ops
        return ops.or_(self.rule_cleaner_validates_names(ops), ops.not_(t.oldwals_junk))

    def cleaner_delete_others(self, t: Any, ok: Any) -> None:
        """Where the run got through: every meta WAL is deleted (``isMetaFile``), and the file
        whose name is not a WAL's where names are validated."""
        ops = t.ops
        for s in self.S:
            t.when(ok).oldwals_meta[s] = False
        t.when(ops.and_(ok, self.rule_cleaner_validates_names(ops))).oldwals_junk = False


class UnvalidatedNames(CleanerInput):
    """``table/cleaner-unvalidated-names``: names are parsed without being validated first."""

    def rule_cleaner_validates_names(self, ops: Any) -> Any:
        """The server is parsed from every name, a WAL's or not."""
        return False


FEATURE = CleanerInput
"""The text of the ``cleaner_input`` configuration feature (``table/layout.py``'s
``FEATURES``)."""
