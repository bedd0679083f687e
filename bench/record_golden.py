"""Record the golden corpus's traces (traces/golden/): one run of each correct design under each
fault kind, and one run of each cluster mutant under every fault, then validate each and write
its verdict into ``traces/golden/manifest.json`` with its provenance.

    python bench/record_golden.py [--designs zk-multi,zk-lock] [--mutants all|none|NAME,...]
                                  [--edits 20] [--seed 9000] [--only NAME]

A run is written to ``traces/golden/<name>.jsonl`` (its merged trace); the manifest keeps, per
trace, the command that recorded it, the end-state verdict, and the validator's verdict. The
hand-made invalid traces are not files: the manifest names a valid trace and an edit from
``replcheck.conformance.trace.mutate.HAND_MADE``, and the tests apply it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "traces" / "golden"
MANIFEST = GOLDEN / "manifest.json"
FAULTS = ("kill", "pause", "expire", "sink-down", "master-restart", "zk-leader")


def record(design: str, faults: str, seed: int, edits: int, name: str) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "replcheck.cli",
        "record",
        "--design",
        design,
        "--runs",
        "1",
        "--seed",
        str(seed),
        "--edits",
        str(edits),
        "--faults",
        faults,
    ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "runs"
        proc = subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True)
        runs = sorted(p for p in out.glob("run-*") if p.is_dir())
        if not runs:
            raise SystemExit(f"{name}: no run recorded: {proc.stderr.strip()[-300:]}")
        run = runs[0]
        shutil.copy(run / "trace.jsonl", GOLDEN / f"{name}.jsonl")
        verdict = json.loads((run / "verdict.json").read_text())
    shown = " ".join(c for c in cmd[3:])
    return {
        "design": design,
        "faults": faults,
        "seed": seed,
        "recorded_with": f"replcheck {shown} --out DIR",
        "end_state_ok": bool(verdict["run"]["ok"]),
        "end_state": {
            k: verdict["run"].get(k)
            for k in ("lost", "premature_deletions", "shipped_local", "returned_to_origin")
        },
    }


def main() -> int:
    from replcheck.conformance.hbase.names import SUPPORTED_MUTANTS
    from replcheck.conformance.validate.core import validate_path

    ap = argparse.ArgumentParser()
    ap.add_argument("--designs", default="zk-multi,zk-lock,table")
    ap.add_argument("--mutants", default="all")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--seed", type=int, default=9000)
    ap.add_argument("--only")
    ap.add_argument(
        "--pin",
        action="store_true",
        help="record nothing: validate every trace and hand-made edit again and pin the verdicts",
    )
    args = ap.parse_args()
    if args.pin:
        return pin()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"traces": {}}
    plan = []
    seed = args.seed
    for design in [d for d in args.designs.split(",") if d]:
        for fault in FAULTS:
            plan.append((f"{design}-{fault}", design, fault, seed))
            seed += 1
    mutants = (
        SUPPORTED_MUTANTS
        if args.mutants == "all"
        else [m for m in args.mutants.split(",") if m and m != "none"]
    )
    for m in mutants:
        plan.append((m.replace("/", "--"), m, ",".join(FAULTS), seed))
        seed += 1
    for name, design, faults, s in plan:
        if (args.only and name != args.only) or (
            not args.only and (GOLDEN / f"{name}.jsonl").exists()
        ):
            continue  # recorded already (--only NAME records one again)
        print(f"recording {name} ...", flush=True)
        entry = record(design, faults, s, args.edits, name)
        v = validate_path(GOLDEN / f"{name}.jsonl")
        entry["verdict"] = v.headline()
        entry["status"] = v.status
        entry["reason"] = v.reason
        manifest["traces"][name] = entry
        print(
            f"  {name}: end state {'ok' if entry['end_state_ok'] else 'VIOLATION'}; {v.headline()}"
        )
        MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


EDIT_BASES = ("zk-multi-kill", "zk-lock-kill")
"""The valid traces the hand-made edits are applied to."""


def pin() -> int:
    from replcheck.conformance.trace import mutate as tracemut
    from replcheck.conformance.validate.core import validate_events, validate_path

    manifest = json.loads(MANIFEST.read_text())
    for name, entry in sorted(manifest["traces"].items()):
        v = validate_path(GOLDEN / f"{name}.jsonl")
        entry.update(verdict=v.headline(), status=v.status, reason=v.reason, event=v.event)
        print(f"{name}: {v.headline()} ({v.nodes} nodes, {v.seconds:.1f} s)", flush=True)
    edits = manifest.setdefault("edits", {})
    for base in EDIT_BASES:
        if base not in manifest["traces"]:
            continue
        events = tracemut.load(GOLDEN / f"{base}.jsonl")
        for edit_name, make in tracemut.HAND_MADE.items():
            try:
                edit = make(events)
            except (LookupError, StopIteration):
                continue
            v = validate_events(
                [{**e, "_line": i + 1} for i, e in enumerate(tracemut.apply_edit(events, edit))],
                events[0]["design"],
            )
            edits[f"{base}+{edit_name}"] = {
                "base": base,
                "edit": edit_name,
                "doc": " ".join((make.__doc__ or "").split()),
                "verdict": v.headline(),
                "status": v.status,
                "reason": v.reason,
                "event": v.event,
            }
            print(f"{base}+{edit_name}: {v.headline()} ({v.nodes} nodes)", flush=True)
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    write_readme(manifest)
    return 0


README_HEAD = """# The golden corpus

Recorded traces of the reference cluster (`replcheck record`), each pinned to the verdict
`replcheck validate` gives it, in `manifest.json` with the command that recorded it; and
hand-made invalid traces, each an edit (`replcheck.conformance.trace.mutate.HAND_MADE`) of a valid
one, pinned too. `tests/conformance/validate/test_golden.py` replays every one.
`bench/record_golden.py` records missing traces (`--only NAME` records one again) and `--pin`
validates everything again and rewrites the manifest and this page. How validation works:
[docs/validate.md](../../docs/validate.md).

Every trace below was recorded with 3 region servers, 20 edits each, master-master replication
with cluster 1, a second peer added and removed, and peer `2` disabled and enabled again.
"""


def write_readme(manifest: dict) -> None:
    lines = [README_HEAD, "## Recorded traces", ""]
    lines.append("| trace | design | faults | seed | end state | verdict |")
    lines.append("|---|---|---|---|---|---|")
    for name, t in sorted(manifest["traces"].items()):
        end = "ok" if t["end_state_ok"] else f"violation {t['end_state']}"
        lines.append(
            f"| `{name}.jsonl` | {t['design']} | {t['faults']} | {t['seed']} | {end} | "
            f"{t['verdict']} |"
        )
    lines += ["", "## Hand-made invalid traces", ""]
    lines.append("| edit | of | what it does | verdict |")
    lines.append("|---|---|---|---|")
    for _, t in sorted(manifest.get("edits", {}).items()):
        lines.append(f"| {t['edit']} | `{t['base']}` | {t['doc']} | {t['verdict']} |")
    (GOLDEN / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
