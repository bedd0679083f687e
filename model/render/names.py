"""Names and small pieces every drawing shares, in both eras: servers, peers, edits, clusters and
budgets as the seeds write them, and the sinks' and relays' sections. ``render`` (the ZooKeeper
era) and ``render_table`` (the table era) both import from here; neither imports the other's
private helpers."""

from __future__ import annotations

from collections.abc import Callable

from replcheck.model.common import rules
from replcheck.model.common.state import KIND_NAMES, Edit, State, Uid, WalKey, bits
from replcheck.model.config import Config
from replcheck.model.table.state import TState

RS_ROOT = "/hbase/replication/rs/"
PEERS_ROOT = "/hbase/replication/peers/"
HFILE_REFS_ROOT = "/hbase/replication/hfile-refs/"


def server_label(cfg: Config, s: int) -> str:
    if 0 <= s < cfg.servers:
        return rules.server_name(cfg, s)
    return f"<server {s}>"


def peer_label(p: int) -> str:
    return rules.peer_id(p)


def kind_label(kind: int) -> str:
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind{kind}"


def cluster_label(cfg: Config, c: int) -> str:
    """``cluster 0 (source)``, ``cluster 1 (peer 2)``, or ``cluster 3`` beyond the peers."""
    if c == 0:
        return "cluster 0 (source)"
    if c <= cfg.peers:
        return f"cluster {c} (peer {peer_label(c - 1)})"
    return f"cluster {c}"


def mask_label(mask: int) -> str:
    return "{" + ",".join(map(str, bits(mask))) + "}"


def list_text(items: list[str], empty: str = "-") -> str:
    return " ".join(items) if items else empty


def edit_label(cfg: Config, uid: Uid, *, qualified: bool = False) -> str:
    """An edit's name: ``e<index>`` within its WAL (qualified: ``<wal name>:e<index>``) for edits
    written at the source cluster, ``c<cluster>.e<n>`` for the n-th edit written at another."""
    if uid and uid[0] == 0 and len(uid) == 5:
        _zero, s, g, seq, index = uid
        if qualified:
            return f"{rules.wal_name(cfg, (s, g, seq))}:e{index}"
        return f"e{index}"
    if len(uid) == 2:
        return f"c{uid[0]}.e{uid[1]}"
    return "edit" + ".".join(map(str, uid))


def edit_text(cfg: Config, e: Edit) -> str:
    text = f"{edit_label(cfg, e.uid)}:{kind_label(e.kind)}"
    if e.cluster_ids != (0,):
        text += "[ids " + ",".join(map(str, e.cluster_ids)) + "]"
    if e.owed:
        text += "->" + ",".join(peer_label(p) for p in bits(e.owed))
    return text


def applied_text(
    cfg: Config, uids: tuple[Uid, ...], wal_name: Callable[[Config, WalKey], str] = rules.wal_name
) -> str:
    """Applied edit ids, grouped by WAL: ``1.1.1.1,60020.1234:e0,e1 c1.e0``; ``wal_name`` is the
    era's WAL file name."""
    groups: dict[str, list[str]] = {}
    for uid in uids:
        if uid and uid[0] == 0 and len(uid) == 5:
            groups.setdefault(wal_name(cfg, uid[1:4]), []).append(f"e{uid[4]}")
        else:
            groups.setdefault(edit_label(cfg, uid), [])
    return list_text([f"{k}:{','.join(v)}" if v else k for k, v in groups.items()])


BUDGET_NAMES = {
    "crashes": "crashes",
    "outages": "sink outages",
    "admin": "admin ops",
    "zk_faults": "zk faults",
    "foreign": "foreign edits",
    "puts": "puts",
    "cleaner_runs": "cleaner runs",
}


def budget_name(field: str) -> str:
    return BUDGET_NAMES.get(field, field.replace("_", " "))


def edit_dict(cfg: Config, e: Edit) -> dict[str, object]:
    return {
        "id": edit_label(cfg, e.uid, qualified=True),
        "kind": kind_label(e.kind),
        "cluster_ids": list(e.cluster_ids),
        "owed_to": [peer_label(p) for p in bits(e.owed)],
    }


def sink_lines(
    cfg: Config, st: State | TState, wal_name: Callable[[Config, WalKey], str] = rules.wal_name
) -> list[str]:
    """What each cluster has applied, and the onward logs of clusters that relay (both eras;
    ``wal_name`` is the era's WAL file name)."""
    lines = ["sinks:"]
    home = any(d == 0 for _c, d in cfg.topology)
    for c, sink in enumerate(st.sinks):
        if c == 0 and not (home or sink.applied):
            continue
        text = f"  {cluster_label(cfg, c)}: applied {applied_text(cfg, sink.applied, wal_name)}"
        if sink.duplicates:
            text += f"; applied twice {applied_text(cfg, sink.duplicates, wal_name)}"
        if sink.down:
            text += f"; sink servers down {mask_label(sink.down)}"
        lines.append(text)
    relays = [(c, r) for c, r in enumerate(st.relays) if r]
    if relays:
        lines.append("other clusters:")
        for c, relay in relays:
            log = list_text([edit_text(cfg, e) for e in relay.log])
            shipped = ", ".join(
                f"to {d}: {n}" for d, n in zip(cfg.outbound(c), relay.shipped, strict=False)
            )
            lines.append(f"  cluster {c}: log {log}; shipped {shipped or '-'}")
    return lines


def sinks_json(
    cfg: Config, st: State | TState, label: Callable[[Uid], str]
) -> list[dict[str, object]]:
    """What each cluster has applied, as data (both eras; ``label`` names an edit)."""
    return [
        {
            "cluster": i,
            "applied": [label(u) for u in k.applied],
            "duplicates": [label(u) for u in k.duplicates],
            "down": bits(k.down),
        }
        for i, k in enumerate(st.sinks)
    ]


def relays_json(cfg: Config, st: State | TState) -> dict[str, object]:
    """The onward logs of clusters that relay, as data (both eras)."""
    return {
        str(i): {
            "log": [edit_dict(cfg, e) for e in r.log],
            "shipped": dict(zip(map(str, cfg.outbound(i)), r.shipped, strict=False)),
        }
        for i, r in enumerate(st.relays)
        if r
    }
