"""What ``replcheck replay SOURCE`` can open, and how it becomes one behaviour.

A SOURCE is, in the order it is recognised:

* a **recorded trace**: a ``trace.jsonl`` (one JSON event per line) or a run folder holding one;
* a **counterexample** printed by a checker: the JSON of ``explore --json``, ``fuzz --json`` or
  ``check --json`` (schema ``replcheck-results/1``: actions with their design and
  configuration), the JSON of ``show --json`` (``replcheck-state/1``), or their text output
  saved to a file (the ``counterexample:`` and ``actions:`` lines under the
  ``<checker> <design>@<config>:`` or ``### <design>@<config>`` line that names them), or the
  file an engine saved in ``replcheck-counterexamples/`` (``replcheck-counterexample/1``; one
  that starts from a counterexample to induction's state is refused);
* an **action string**, as ``show --actions`` takes it (``"crash(0); lock(1, 0)"``), replayed in
  ``--design`` under ``--config``.

A ZooKeeper data directory (``version-2`` with transaction logs and snapshots) is recognised and
refused for now: ``KINDS`` is where its reader goes, turning it into trace events that
``conformance.replay.from_events`` replays like a trace.

Bad input raises ``SourceError`` with one line naming the file (and line, where there is one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import jsontext
from replcheck.conformance.trace.reader import TRACE_FILE, TraceFault
from replcheck.conformance.validate.replay import (
    Behaviour,
    ReplayError,
    from_actions,
    from_trace,
    unknown_property,
)
from replcheck.counterexamples import SCHEMA as SAVED
from replcheck.matrix import check_fits, design_configs, resolve_config
from replcheck.model import Config, designs, get_design
from replcheck.report import SCHEMA, parse_actions


class SourceError(Exception):
    """The source cannot be opened; the message is one line."""


@dataclass
class Request:
    """What the command line says about the source."""

    source: str
    design: str | None = None
    config: str | None = None
    prop: str | None = None


@dataclass
class Found:
    """One counterexample found in a checker's output."""

    design: str | None
    config: Config | None
    prop: str | None
    kind: str
    actions: str
    loop_start: int | None = None
    stuck: bool = False


def open_source(req: Request) -> Behaviour:
    """The behaviour of a SOURCE (see the module docstring)."""
    path = Path(req.source)
    try:
        for _name, matches, opener in KINDS:
            if matches(path, req.source):
                return opener(path, req)
    except (TraceFault, ReplayError) as exc:
        raise SourceError(str(exc)) from None
    raise SourceError(
        f"{req.source}: no such file or folder, and not an action string like "
        "'crash(0); lock(1, 0)'"
    )


# --- the kinds --------------------------------------------------------------------------------


def _is_zk_data_dir(path: Path, _text: str) -> bool:
    return path.is_dir() and (
        (path / "version-2").is_dir() or any(path.glob("log.*")) or any(path.glob("snapshot.*"))
    )


def _zk_data_dir(path: Path, req: Request) -> Behaviour:
    raise SourceError(
        f"{path}: a ZooKeeper data directory: replay cannot read its transaction logs yet"
    )


def _is_run_folder(path: Path, _text: str) -> bool:
    return path.is_dir()


def _run_folder(path: Path, req: Request) -> Behaviour:
    if not (path / TRACE_FILE).is_file():
        raise SourceError(f"{path}: a folder without {TRACE_FILE}: not a recorded run")
    return _trace(path / TRACE_FILE, req)


def _is_file(path: Path, _text: str) -> bool:
    return path.is_file()


def _file(path: Path, req: Request) -> Behaviour:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 text (byte offset {exc.start})") from None
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc.strerror}") from None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = jsontext.loads(text)
        except jsontext.JsonTextError as exc:
            if exc.kind != "syntax":  # JSON text no reader takes, document or trace alike
                raise SourceError(f"{path}:{exc.line}: {exc.why}") from None
            data = None  # one JSON object per line: a trace
        if isinstance(data, dict) and ("kind" not in data or data.get("schema") == SAVED):
            return _counterexample(path, req, _from_json(path, data))
        return _trace(path, req)
    if not stripped:
        raise SourceError(f"{path}:1: empty: not a trace or a counterexample")
    return _counterexample(path, req, _from_text(path, text))


def _is_action_string(path: Path, text: str) -> bool:
    return not path.exists() and bool(re.match(r"\s*[A-Za-z_]\w*\s*\(", text))


def _action_string(path: Path, req: Request) -> Behaviour:
    try:
        actions = parse_actions(req.source)
    except ValueError as exc:
        raise SourceError(f"actions: {exc}") from None
    design = req.design or designs()[0]
    get_design(design)  # RegistryError: an unknown design
    _known_property(req.prop, [design])
    cfg = _config(design, req.config)
    return _replay(design, cfg, actions, source="actions", kind="actions", prop=req.prop)


KINDS: list[tuple[str, Callable[[Path, str], bool], Callable[[Path, Request], Behaviour]]] = [
    ("zookeeper data directory", _is_zk_data_dir, _zk_data_dir),
    ("run folder", _is_run_folder, _run_folder),
    ("trace or counterexample file", _is_file, _file),
    ("action string", _is_action_string, _action_string),
]
"""(name, does it match, open it), tried in order."""


# --- traces ---------------------------------------------------------------------------------------


def _trace(path: Path, req: Request) -> Behaviour:
    if req.config:
        raise SourceError(f"{path}: a trace's configuration comes from its events; drop --config")
    if req.design:
        get_design(req.design)
    return from_trace(path, req.design, prop=req.prop)


# --- counterexamples ------------------------------------------------------------------------------


def _from_json(path: Path, data: dict[str, Any]) -> list[Found]:
    schema = data.get("schema")
    try:
        if schema == SCHEMA:
            return [
                Found(
                    r["design"],
                    _config_of(r.get("config_params"), r.get("config")),
                    c["property"],
                    str(c.get("kind", "")),
                    "; ".join(c["actions"]),
                    c.get("loop_start"),
                    bool(c.get("stuck")),
                )
                for r in data["results"]
                for c in r.get("counterexamples") or []
            ]
        if schema == SAVED:
            if data.get("start") is not None:
                raise SourceError(
                    f"{path}: a counterexample to induction starts from a state that may be "
                    "unreachable, and replay starts from the initial state: run its pytest test"
                )
            cfg = _config_of(data.get("config_params"), data.get("config"))
            return [
                Found(
                    data["design"],
                    cfg,
                    data["property"],
                    str(data.get("kind", "")),
                    "; ".join(data["actions"]),
                    data.get("loop_start"),
                    bool(data.get("stuck")),
                )
            ]
        if schema == "replcheck-state/1":
            actions = [s["action"] for s in data["steps"] if s.get("action")]
            cfg = _config_of(data.get("config_params"), data.get("config"))
            return [Found(data["design"], cfg, None, "actions", "; ".join(actions))]
    except (KeyError, TypeError) as exc:
        raise SourceError(f"{path}: a {schema} document without {exc}") from None
    if "results" in data and "depth" in data:
        raise SourceError(
            f"{path}: prove --depth JSON holds first depths, not actions: replay the "
            "counterexample of explore --json for the same design"
        )
    raise SourceError(f"{path}:1: JSON, but not {SCHEMA}, {SAVED}, replcheck-state/1 or a trace")


_HEAD = re.compile(r"^(?:### (\S+)@(\S+) \(\w+\)|(?:explore|fuzz|bmc) (\S+)@(\S+):)")
_CEX = re.compile(r"^counterexample: (\w+) \((\w+)\), (\d+) steps")
_LOOP = re.compile(r"^>> loop start: from here \(after step (\d+)\)")


def _from_text(path: Path, text: str) -> list[Found]:
    """Counterexamples in a checker's text output (``explore``, ``fuzz``, ``check
    --show-counterexamples``)."""
    found: list[Found] = []
    design = config = None
    for n, line in enumerate(text.splitlines(), 1):
        if m := _HEAD.match(line):
            design = m.group(1) or m.group(3)
            config = m.group(2) or m.group(4)
        elif m := _CEX.match(line):
            found.append(Found(design, None, m.group(1), m.group(2), ""))
            found[-1].config = _config_of(None, config, f"{path}:{n}") if config else None
        elif line.startswith("actions: ") and found and not found[-1].actions:
            acts = line.removeprefix("actions: ").strip()
            found[-1].actions = "" if acts == "(none)" else acts
        elif (m := _LOOP.match(line)) and found:
            found[-1].loop_start = int(m.group(1))
        elif line.startswith("!! stuck:") and found:
            found[-1].stuck = True
    if not found:
        raise SourceError(
            f"{path}:1: not a trace, and no 'counterexample:' line of a checker's output in it"
        )
    return found


def _known_property(prop: str | None, names: list[str]) -> None:
    """Refuse a ``--property`` that is no property of any of the designs ``names``."""
    if prop is None or not names:
        return  # no design named yet: a counterexample without one is refused later
    for name in names:
        get_design(name)  # RegistryError: an unknown design
    unknown = unknown_property(prop, names)
    if unknown:
        raise SourceError(unknown)


def _counterexample(path: Path, req: Request, found: list[Found]) -> Behaviour:
    named = {f.design or req.design for f in found} - {None}
    _known_property(req.prop, sorted(str(d) for d in named))
    if req.prop:
        found = [f for f in found if f.prop == req.prop] or _no_such(path, req.prop, found)
    cex = found[0]
    design = cex.design or req.design
    if design is None:
        raise SourceError(f"{path}: the counterexample names no design; give --design")
    if req.design and req.design != design:
        raise SourceError(f"{path}: a counterexample of {design}, not of {req.design}")
    cfg = _config(design, req.config) if req.config else cex.config or _config(design, None)
    try:
        actions = parse_actions(cex.actions)
    except ValueError as exc:
        raise SourceError(f"{path}: {exc}") from None
    kind = "actions" if cex.kind == "actions" else "counterexample"
    return _replay(design, cfg, actions, source=str(path), kind=kind, prop=cex.prop, found=cex)


def _no_such(path: Path, prop: str, found: list[Found]) -> list[Found]:
    names = ", ".join(sorted({f.prop or "?" for f in found}))
    raise SourceError(f"{path}: no counterexample of {prop}; it holds: {names}")


def _replay(
    design: str,
    cfg: Config,
    actions: list,
    *,
    source: str,
    kind: str,
    prop: str | None,
    found: Found | None = None,
) -> Behaviour:
    get_design(design)  # RegistryError: an unknown design
    try:
        check_fits(design, cfg)
        return from_actions(
            design,
            cfg,
            actions,
            source=source,
            kind=kind,
            prop=prop,
            loop_start=found.loop_start if found else None,
            stuck=found.stuck if found else False,
        )
    except (ReplayError, ValueError) as exc:
        raise SourceError(f"{source}: {exc}") from None


def _config(design: str, spec: str | None) -> Config:
    try:
        return resolve_config(spec or design_configs(design)[0])
    except ValueError as exc:
        raise SourceError(f"--config: {exc}") from None


def _config_of(params: Any, spec: Any, where: str = "") -> Config:
    """A counterexample's configuration: its fields when the output has them, else its spec."""
    try:
        if isinstance(params, dict):
            return Config(**{k: _tuples(v) for k, v in params.items()})
        return resolve_config(str(spec))
    except (TypeError, ValueError) as exc:
        raise SourceError(f"{where or 'config'}: {exc}") from None


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v
