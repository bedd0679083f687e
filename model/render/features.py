"""Drawing the state of two table-era features as ``render_table`` draws the rest: serial
replication (``model/features/serial.py``: the ``sid`` family's cells, the region with its ranges,
what a serial peer has applied) and bulk loads (``model/features/hfile_refs.py``: the hfile and its
marker)."""

from __future__ import annotations

from collections.abc import Callable

from replcheck.model.config import Config
from replcheck.model.features.hfile_refs import HF_NAMES
from replcheck.model.render.names import peer_label, server_label
from replcheck.model.table.state import TState

REGION = "5e3a1c0f9b7d4e2a8c6b0d1f3e5a7c9b"
"""The encoded name of the one region the model's client writes to (an MD5 in hex, as HBase's
encoded region names are)."""


HFILE = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
"""The name of the one bulk-loaded hfile (HBase names store files by a UUID in hex)."""


def hfile_text(cfg: Config, st: TState, wal: Callable[[Config, tuple], str]) -> str:
    """The bulk-loaded hfile's stage, its server and its marker's WAL entry."""
    hf = st.hfile
    text = HF_NAMES[hf.stage]
    if hf.server >= 0:
        text += f", loaded by {server_label(cfg, hf.server)}"
    if hf.marker:
        w, j = hf.marker
        key = next(x.key for x in st.wals if x and cfg.slot(x.key) == w)
        text += f", marker {wal(cfg, key)}:e{j}"
    return text


def hfile_lines(cfg: Config, st: TState, wal: Callable[[Config, tuple], str]) -> list[str]:
    """The bulk-loaded hfile, for ``render_table_state``."""
    if not st.hfile or not st.hfile.stage:
        return []
    return [f"bulk-loaded hfile {HFILE}: {hfile_text(cfg, st, wal)}"]


def hfile_facts(cfg: Config, st: TState, wal: Callable[[Config, tuple], str]) -> dict[str, str]:
    """The same as facts, for ``render_table_diff``."""
    if not st.hfile or not st.hfile.stage:
        return {}
    return {f"hfile {HFILE}": hfile_text(cfg, st, wal)}


def sid_cell(st: TState, p: int) -> str | None:
    """Peer ``p``'s ``sid`` cell for the region, or None (no value stored)."""
    if not st.serial or st.serial.pushed[p] < 0:
        return None
    return f"sid:{REGION} = {st.serial.pushed[p]}"


def region_text(cfg: Config, st: TState) -> str:
    """Where the region is open, its ranges' barriers (``rep_barrier``) and next sequence id."""
    rg = st.serial
    host = rg.hosts[-1]
    state = "open" if st.servers[host].alive else "closed (its server is dead)"
    ranges = ", ".join(
        f"[{b}, ...) on {server_label(cfg, h)}" for h, b in zip(rg.hosts, rg.barriers, strict=True)
    )
    return f"{state}; ranges {ranges}; next sequence id {rg.next_seq}"


def seq_text(cfg: Config, st: TState, wal: Callable[[Config, tuple], str]) -> str:
    """The region's sequence ids by WAL entry."""
    key = {cfg.slot(w.key): w.key for w in st.wals if w}
    parts = [f"{wal(cfg, key[w])}:e{j}={n}" for w, j, n in st.serial.seqs if w in key]
    return " ".join(parts) or "(none)"


def order_text(st: TState, p: int) -> str:
    """What the serial peer ``p`` has applied, by range."""
    rg = st.serial
    applied = rg.top[p] >= 0
    text = f"latest range applied {rg.top[p]}" if applied else "no edit of the region applied"
    if rg.back >> p & 1:
        text += "; an edit of an earlier range applied after it"
    return text


def serial_lines(cfg: Config, st: TState, wal: Callable[[Config, tuple], str]) -> list[str]:
    """The region and the serial peers' order, for ``render_table_state``."""
    if not st.serial:
        return []
    lines = [
        f"region {REGION}: {region_text(cfg, st)}",
        f"  sequence ids: {seq_text(cfg, st, wal)}",
    ]
    for p in range(cfg.serial_peers):
        lines.append(f"  serial peer {peer_label(p)}: {order_text(st, p)}")
    return lines


def serial_facts(cfg: Config, st: TState, wal: Callable[[Config, tuple], str]) -> dict[str, str]:
    """The same as facts, for ``render_table_diff``."""
    if not st.serial:
        return {}
    out = {
        f"region {REGION}": region_text(cfg, st),
        f"region {REGION} sequence ids": seq_text(cfg, st, wal),
    }
    for p in range(cfg.peers):
        cell = sid_cell(st, p)
        if cell:
            out[f"row {peer_label(p)} sid:{REGION}"] = cell.split(" = ")[1]
    for p in range(cfg.serial_peers):
        out[f"serial peer {peer_label(p)}"] = order_text(st, p)
    return out
