"""``replcheck``: the command line.

Commands (``replcheck COMMAND --help`` for each one's options and exit statuses):

.. begin generated: commands (python -m replcheck.docs --sections; do not edit)
    replcheck check     run every design and mutant through the checkers
    replcheck explore   exhaustive exploration of one design
    replcheck fuzz      Hypothesis stateful testing of one design
    replcheck show      draw the initial state, or where a sequence of actions leads
    replcheck dump      what DumpReplicationQueues prints after a sequence of actions
    replcheck list      list designs, mutants and configurations
    replcheck zk        start, stop or query an embedded ZooKeeper (from the pyspark jars)
    replcheck record    run the reference cluster on a real ZooKeeper with faults and record traces
    replcheck prove     prove the decision rules for all values (Z3)
    replcheck validate  replay recorded traces through the model: accepted, rejected, or undecided
    replcheck convert   convert a trace between JSON lines and Parquet
    replcheck zklog     print ZooKeeper transaction logs and snapshots (multis decoded); replay
                        digests
    replcheck replay    replay one behaviour (a trace, a counterexample, actions): debugger, HTML,
                        test, ITF
    replcheck inspect   draw and check a cluster's replication znodes (live or offline), read-only
    replcheck mine      mine many recorded runs with Spark: verdicts, coverage, races, latencies
    replcheck conform   property-based conformance: Hypothesis drives the real cluster, the model
                        judges
.. end generated: commands

``check`` runs the design × property matrix (``replcheck.matrix``) over every design and mutant by
default, each under the configurations its class lists, taking the known findings pinned in
``specs/manifest.json`` (entries carrying a ``finding``) as expected failures; ``explore`` runs
exhaustive exploration and draws the shortest counterexample of every failed property; ``fuzz``
runs Hypothesis stateful testing and shows the minimal failing program; ``show`` draws the initial
state, or the states a sequence of actions leads through; ``dump`` replays a sequence of actions and
prints what HBase's ``DumpReplicationQueues`` would print in the state reached (its default format
read from ``hbase:replication``, or ``--distributed``; ``--tree`` draws the whole state instead; a
ZooKeeper-era design gets the 2.x tool's output read from the znodes); ``list`` names the designs,
mutants and configurations, and with ``--steps`` every override point of each named design's
protocol text (its steps, gates, decision rules and the helpers they call, with their
docstrings: ``model/engine/overrides.py``).

These subcommands, and ``prove``, take ``--design NAME`` (repeatable), ``--design-file PATH``
(repeatable: a reviewer's Python file of designs/mutants, loaded before names are resolved; when
given without ``--design``, only the designs it defines are run; a file that exits while loaded, or
names a design like one already registered, is refused); all but ``dump`` take ``--config SPEC``
(repeatable), ``--json`` and ``--progress`` (progress on stderr even when it is not a terminal:
states, queued, depth, states/s and memory). ``record`` and ``zk`` refuse ``--design-file``: the
reference cluster runs only its built-in designs, and ZooKeeper none.

Without ``--design``: ``check`` runs everything; ``explore``, ``fuzz`` and ``show`` use the first
correct design. Without ``--config``: ``check`` uses each design's own configurations; the others
use the design's first listed configuration.

Configurations (``--config``): a standard name (``std``, ``race``, ``double-failure``, ``peers``,
``filtering``, ``master-master``, ``cyclic``, ``sink-outage``, ``zk-faults``, ``hyphen-hosts``,
``multiwal``); or ``NAME:key=value,...`` to override fields of one, e.g.
``std:servers=3,crashes=2``; or ``key=value,...`` on top of ``std``. Other value forms:
``edit_kinds=GLOBAL+LOCAL``, ``topology=1>0+2>0``, ``hyphen_hosts=true`` (see
``replcheck.matrix.resolve_config``).

Actions (``show --actions``): ``name(arg, ...)`` separated by ``;`` or newlines, arguments the
small integers the model uses (server, peer, group indexes); ``replcheck list`` names every action's
parameters, and a drawn state numbers the sources. ``dump --actions`` also takes ``,`` between
actions and a tuple argument in parentheses or brackets: ``crash(0), arqp_claim(0, (1,))``.

Exit status: one table for every command, ``replcheck.exits`` (each command's ``--help`` says
what each status means for it; ``docs/gate.md`` has the table): 0 ok, 1 red (a property failed, a
mutant was missed, a trace was rejected), 2 bad input (reported as one line ``replcheck: error:
...`` on stderr before anything runs), 3 internal error (a checker or a design's step raised: one
line; set ``REPLCHECK_TRACEBACK=1`` to see it), 4 partial (nothing failed, but something asked was
left undecided: a state, memory or time limit, a checker that cannot judge a design; the last line
says ``PARTIAL``, ``UNDECIDED`` or ``TIMEOUT``), 130 interrupted (Ctrl-C, or SIGTERM; what was
done is reported, the last line says ``INTERRUPTED``).

Undecided is never green: ``check`` prints ``PASS`` and exits 0 only when every verdict it was asked
for was decided. See ``docs/gate.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import importlib.metadata
import json
import os
import random
import signal
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn, TypeVar

from replcheck.cli_base import InternalError, Parser, UsageError, guard, internal, one_line
from replcheck.exits import Exit, epilog, summary
from replcheck.matrix import (
    CHECKERS,
    DEFAULT_CHECKERS,
    JOBS_PER_CPU,
    WORKER_MIB,
    call_fuzz,
    check_fits,
    default_jobs,
    design_configs,
    load_fuzz,
    manifest_expected_failures,
    max_jobs,
    resolve_config,
    run_matrix,
)
from replcheck.model import (
    STANDARD,
    Config,
    Model,
    RegistryError,
    State,
    designs,
    get_design,
    load_design_file,
    mutants,
)
from replcheck.model.engine.action import Action
from replcheck.model.render.draw import describe_action, render_diff, render_state, state_dict
from replcheck.model.render.table import dump as dump_queues
from replcheck.paths import where
from replcheck.progress import Progress
from replcheck.report import (
    SCHEMA,
    matrix_dict,
    parse_actions,
    render_counterexample,
    render_junit,
    render_result,
    results_dict,
    to_json,
)
from replcheck.specs.results import CheckResult

HYPOTHESIS_COMMANDS = frozenset({"check", "fuzz", "conform"})
"""Commands that run Hypothesis: its storage goes to the cache folder while they run
(``replcheck.paths.hypothesis_storage``), never the current folder."""

CI_SEED = 0
"""The seed ``fuzz --profile ci`` uses unless given one: the ci profile runs the same examples
every time."""

T = TypeVar("T")


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--design", action="append", metavar="NAME", help="design or mutant name (repeatable)"
    )
    p.add_argument(
        "--config",
        action="append",
        metavar="SPEC",
        help="configuration: a standard name, or NAME:key=value,... overrides (repeatable)",
    )
    p.add_argument(
        "--design-file",
        action="append",
        metavar="PATH",
        help="load designs/mutants from a Python file first (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--progress", action="store_true", help="report progress on stderr even when not a TTY"
    )


def _max_states(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _version() -> str:
    try:
        return importlib.metadata.version("replcheck")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    from replcheck.counterexamples import HELP as SAVED

    parser = Parser(
        prog="replcheck",
        description="Check designs of HBase replication queue tracking against their invariants.",
        epilog=summary(),
    )
    parser.add_argument("--version", action="version", version=f"replcheck {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    p = sub.add_parser(
        "check",
        help="run every design and mutant through the checkers",
        description="Run the design x property matrix: every design and mutant (or those named), "
        "each under the configurations its class lists, through the checkers, taking the known "
        "findings pinned in specs/manifest.json as expected failures. Green when every correct "
        "design passes with every verdict decided and every mutant is caught (docs/gate.md). "
        "Writes the report to stdout (--matrix: the whole matrix; --json: JSON), its last line "
        "the verdict (PASS, FAIL, PARTIAL or INTERRUPTED); progress and errors go to stderr; "
        "--junit and --html write their files, checked writable before anything runs. "
        "SIGTERM stops it as Ctrl-C does. Example: `replcheck check --design zk-lock --config "
        "filtering --checkers explore --jobs 1`",
        epilog=epilog("check"),
    )
    _add_common(p)
    p.add_argument(
        "--checkers",
        default=",".join(DEFAULT_CHECKERS),
        metavar="LIST",
        help=f"comma-separated checkers, of {','.join(CHECKERS)} "
        f"(default: {','.join(DEFAULT_CHECKERS)})",
    )
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML to FILE")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="write the gate as one offline HTML page to FILE: the matrix (rows and columns "
        "filterable), each failing cell's counterexample drawn, the pinned findings with their "
        "reasons, the time per row, the comparison with the manifest",
    )
    p.add_argument(
        "--matrix",
        action="store_true",
        help="print the whole design x property matrix (one column per property) instead of "
        "the report that fits in 100 columns",
    )
    p.add_argument(
        "--show-counterexamples", action="store_true", help="draw every counterexample found"
    )
    p.add_argument("--max-states", type=_max_states, metavar="N", help="bound each exploration")
    p.add_argument(
        "--max-memory",
        type=_max_states,
        metavar="MIB",
        help="stop an exploration when its process's memory passes MIB (its row is then "
        "undecided: a partial verdict)",
    )
    p.add_argument(
        "--jobs",
        type=_max_states,
        default=None,
        metavar="N",
        help=f"worker processes (default: one per CPU; at most {JOBS_PER_CPU} per CPU, and no "
        f"more than the memory available holds at {WORKER_MIB} MiB each: more is refused)",
    )
    p.add_argument("--no-symmetry", action="store_true", help="explore without symmetry reduction")
    p.add_argument(
        "--profile", default="ci", choices=("ci", "dev", "thorough"), help="fuzz profile"
    )
    p.add_argument(
        "--expected-failures",
        metavar="FILE",
        help='JSON {"design@config": ["property", ...]}: more pinned known findings',
    )
    p.add_argument(
        "--no-manifest",
        action="store_true",
        help="ignore the known findings pinned in specs/manifest.json",
    )
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "explore",
        help="exhaustive exploration of one design",
        description="Explore every reachable state of a design under a configuration (the first "
        "correct design and its first configuration by default), check every property, and draw "
        "the shortest counterexample of each that fails, with a pytest reproducer. Writes the "
        "verdicts and counterexamples to stdout (--json: JSON), its last line the verdict (PASS, "
        "FAIL, PARTIAL saying what stopped it, or INTERRUPTED); progress and errors go to "
        "stderr; --html writes one page. --max-states and --max-memory bound every phase, the "
        "liveness phase included; SIGTERM stops it as Ctrl-C does. " + SAVED + " Example: "
        "`replcheck explore --design zk-lock --config std:wals_per_server=1`",
        epilog=epilog("explore"),
    )
    _add_common(p)
    p.add_argument("--no-symmetry", action="store_true", help="no symmetry reduction")
    p.add_argument("--max-states", type=_max_states, metavar="N", help="stop after N states")
    p.add_argument("--no-liveness", action="store_true", help="skip the liveness properties")
    p.add_argument(
        "--engine",
        default="explicit",
        choices=("explicit", "plain", "c", "python"),
        help="explicit: the explicit-state explorer over readable states (the protocol text's "
        "steps where it covers the configuration); plain: the same explorer on the protocol "
        "text run on plain values, with no generated program (model/engine/plain.py); c: the flat "
        "text on the compiled C search (generated Python where no C compiler is); python: "
        "generated Python",
    )
    p.add_argument(
        "--kernels",
        default="auto",
        choices=("auto", "always", "never"),
        help="--engine c: evaluate the model through generated C kernels built beside a search "
        "that runs past a second (auto), built before it starts (always), or interpret the step "
        "table (never)",
    )
    p.add_argument("--html", metavar="FILE", help="draw the counterexamples on one HTML page")
    p.add_argument(
        "--max-memory",
        type=_max_states,
        metavar="MIB",
        help="stop when the process's resident memory passes MIB (a partial verdict)",
    )
    p.set_defaults(func=cmd_explore)

    p = sub.add_parser(
        "fuzz",
        help="Hypothesis stateful testing of one design",
        description="Hypothesis stateful testing of a design, its rules generated from the "
        "model's actions: the minimal failing program of every safety property that fails, and "
        "the seed that repeats it (evidence, not proof; no liveness), written to stdout (--json: "
        "JSON), its last line the verdict; progress and errors go to stderr. Hypothesis keeps its "
        f"example database and caches in {where('hypothesis')}, or in "
        "$HYPOTHESIS_STORAGE_DIRECTORY. " + SAVED,
        epilog=epilog("fuzz"),
    )
    _add_common(p)
    p.add_argument("--profile", default="ci", choices=("ci", "dev", "thorough"))
    p.add_argument("--seed", type=int, metavar="N", help="random seed")
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser(
        "show",
        help="draw the initial state, or where a sequence of actions leads",
        description="Draw a design's initial state as the seeds draw it, or the states a "
        "sequence of actions leads through, each step's change and the invariants it breaks, "
        "to stdout (--json: the states as JSON). An action that is not enabled is refused in "
        "one line on stderr naming the enabled ones. Writes no file. Example: `replcheck show "
        '--design zk-lock --actions "crash(1); lock(0, 1)"`',
        epilog=epilog("show"),
    )
    _add_common(p)
    p.add_argument("--actions", metavar="TEXT", help='e.g. "crash(1); lock(0, 1)"')
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "dump",
        help="what DumpReplicationQueues prints after a sequence of actions",
        description="Replay a sequence of actions and print what HBase's DumpReplicationQueues "
        "would print in the state reached (read from hbase:replication, or --distributed; the "
        "2.x tool's output from the znodes for a ZooKeeper-era design), or --tree the whole "
        "state, to stdout. An action that is not enabled is refused in one line on stderr "
        "naming the enabled ones. Writes no file. Without --design, the first correct design "
        '(a ZooKeeper-era one). Example: `replcheck dump --design table --actions "crash(0), '
        "scp_split(0), scp_claim_stage(0), arqp_read_missing(0), arqp_put_missing(0), "
        'arqp_claim(0, (1,))"`',
        epilog=epilog("dump"),
    )
    p.add_argument("--design", action="append", metavar="NAME", help="design or mutant name")
    p.add_argument(
        "--config", action="append", metavar="SPEC", help="configuration (NAME[:key=value,...])"
    )
    p.add_argument(
        "--design-file",
        action="append",
        metavar="PATH",
        help="load designs/mutants from a Python file first (repeatable)",
    )
    p.add_argument(
        "--actions",
        metavar="TEXT",
        help='actions separated by "," or ";", a tuple argument in parentheses, e.g. '
        '"crash(1), lock(0, 1)" (the first correct design\'s; the example above: the table '
        "era's)",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--distributed",
        action="store_true",
        help="the queues per replicator with the WALs each still needs (DumpReplicationQueues "
        "--distributed)",
    )
    fmt.add_argument("--tree", action="store_true", help="draw the whole state instead")
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser(
        "list",
        help="list designs, mutants and configurations",
        description="Name the designs, mutants and standard configurations and every design's "
        "actions; with --steps, every override point of each named design's protocol text "
        "(docs/reviewers.md). Writes the list to stdout (--json: JSON); an unknown design or "
        "configuration is refused in one line on stderr. Writes no file. Example: `replcheck "
        "list --design zk-multi --steps`",
        epilog=epilog("list"),
    )
    _add_common(p)
    p.add_argument(
        "--steps",
        action="store_true",
        help="every override point of each --design's protocol text: its steps, gates, decision "
        "rules and the helpers they call, with their docstrings",
    )
    p.set_defaults(func=cmd_list)

    for module in COMMAND_MODULES:
        importlib.import_module(module).add_commands(sub)
    return parser


COMMAND_MODULES: tuple[str, ...] = (
    "replcheck.cli_zk",
    "replcheck.cli_record",
    "replcheck.cli_prove",
    "replcheck.cli_validate",
    "replcheck.cli_convert",
    "replcheck.cli_zklog",
    "replcheck.cli_replay",
    "replcheck.cli_inspect",
    "replcheck.cli_mine",
    "replcheck.cli_conform",
)
"""Modules that add their own subcommands: each has ``add_commands(sub)``, which adds parsers
whose ``func`` returns an exit status and raises ``UsageError`` for bad input."""


# --- resolving input --------------------------------------------------------------------------


def _load_files(args: argparse.Namespace) -> list[str]:
    loaded: list[str] = []
    for path in args.design_file or []:
        loaded.extend(load_design_file(path))
    return loaded


def _names(args: argparse.Namespace, loaded: list[str], default: list[str] | None) -> list[str]:
    names = list(dict.fromkeys(args.design or loaded or default or []))
    for name in names:
        get_design(name)  # RegistryError: unknown design
    return names


def _configs(args: argparse.Namespace) -> list[Config] | None:
    if not args.config:
        return None
    return [resolve_config(c) for c in args.config]


def _pairs(args: argparse.Namespace) -> list[tuple[str, Config]]:
    """(design, config) pairs for the single-design commands."""
    loaded = _load_files(args)
    first = designs()[:1]
    names = _names(args, loaded, first)
    if not names:
        raise UsageError("no design to run; give --design")
    configs = _configs(args)
    pairs = []
    for name in names:
        for cfg in configs or [resolve_config(design_configs(name)[0])]:
            check_fits(name, cfg)
            pairs.append((name, cfg))
    return pairs


def _progress(args: argparse.Namespace) -> Progress:
    return Progress(enabled=True if args.progress else None)


def _guard(what: str, fn: Callable[[], T]) -> T:
    """Run a checker; turn whatever it raises into a one-line ``InternalError``."""
    return guard(what, fn)


def _print(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


# --- commands -----------------------------------------------------------------------------------


def _read_expected(path: str) -> dict[tuple[str, str], set[str]]:
    from replcheck.conformance.trace import jsontext

    try:
        data = jsontext.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except jsontext.JsonTextError as exc:
        raise UsageError(f"{path}:{exc.line}: {exc.why}") from None
    out: dict[tuple[str, str], set[str]] = {}
    items = data.items() if isinstance(data, dict) else None
    if items is None:
        raise UsageError(f'{path}: expected an object {{"design@config": ["property", ...]}}')
    for key, props in items:
        design, at, config = str(key).rpartition("@")
        if not at or not design or not isinstance(props, list):
            raise UsageError(f'{path}: entry {key!r}: expected "design@config": [properties]')
        out[(design, config)] = {str(p) for p in props}
    return out


def _check_writable(path: str, flag: str) -> None:
    """Refuse, before anything runs, an output file that could not be written afterwards: an
    empty path, a folder, a path under a missing folder or a file, one not writable."""
    if not path.strip():
        raise UsageError(f"{flag}: an empty path: name the file to write")
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag}: {path} is a directory")
    existed = target.exists()
    try:
        with open(target, "a"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write {path}: {exc.strerror or exc}") from None
    if not existed:
        target.unlink(missing_ok=True)


def cmd_check(args: argparse.Namespace) -> int:
    limit, why = max_jobs()
    if args.jobs is not None and args.jobs > limit:
        raise UsageError(f"--jobs {args.jobs}: at most {limit} on this machine ({why})")
    jobs = args.jobs if args.jobs is not None else default_jobs()
    loaded = _load_files(args)
    names = _names(args, loaded, None) or None
    configs = _configs(args)
    checkers = tuple(c.strip() for c in args.checkers.split(",") if c.strip())
    if not checkers:
        raise UsageError("--checkers: name at least one checker")
    for c in checkers:
        if c not in CHECKERS:
            raise UsageError(f"--checkers: unknown checker {c!r}; known: {', '.join(CHECKERS)}")
    expected: dict[tuple[str, str], set[str]] = {}
    if not args.no_manifest:
        for key, props in manifest_expected_failures().items():
            expected.setdefault(key, set()).update(props)
    if args.expected_failures:
        for key, props in _read_expected(args.expected_failures).items():
            expected.setdefault(key, set()).update(props)
    if args.junit is not None:
        _check_writable(args.junit, "--junit")
    if args.html is not None:
        _check_writable(args.html, "--html")
    matrix = run_matrix(
        names,
        configs,
        checkers,
        _progress(args),
        expected_failures=expected,
        max_states=args.max_states,
        max_memory=args.max_memory,
        symmetry=not args.no_symmetry,
        profile=args.profile,
        jobs=jobs,
    )
    if args.junit is not None:
        try:
            Path(args.junit).write_text(render_junit(matrix))
        except OSError as exc:
            raise UsageError(f"cannot write {args.junit}: {exc.strerror or exc}") from None
    if args.html is not None:
        from replcheck.gate_html import write_page

        try:
            write_page(Path(args.html), matrix)
        except OSError as exc:
            raise UsageError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    if args.json:
        _print(to_json(matrix_dict(matrix)))
        if matrix.exit_code not in (Exit.OK, Exit.FAIL):  # stdout is JSON: say it on stderr
            sys.stderr.write(f"replcheck: {matrix.summary()}\n")
        return matrix.exit_code
    if args.matrix:
        _print(matrix.render())
    else:
        from replcheck.gate_text import render_text

        _print(render_text(matrix))
    if args.show_counterexamples:
        shown = False
        for row in matrix.rows:
            for prop in row.failures:
                for checker in row.failed_by(prop):
                    cex = row.results[checker].counterexamples.get(prop)
                    if cex is None:
                        continue
                    _print(f"\n### {row.label} ({checker})")
                    _print(render_counterexample(row.model, cex))
                    shown = True
        if shown:  # the verdict is the last line, always
            _print("\n" + matrix.summary())
    return matrix.exit_code


def cmd_explore(args: argparse.Namespace) -> int:
    from replcheck.specs import check

    if args.html is not None:
        _check_writable(args.html, "--html")
    pairs = _pairs(args)
    _needs_flat_form(args.engine, pairs)
    progress = _progress(args)
    results = []
    for name, cfg in pairs:
        if args.engine == "plain":
            from replcheck.model.engine.plain import PlainModel

            model = PlainModel(get_design(name), cfg)
        else:
            model = Model(get_design(name), cfg)
        progress.task(f"{name}@{cfg.name} explore")
        if args.engine in ("explicit", "plain"):
            run = lambda model=model: check(  # noqa: E731
                model,
                symmetry=not args.no_symmetry,
                max_states=args.max_states,
                progress=progress,
                liveness=not args.no_liveness,
                max_memory=args.max_memory,
                partial_on_interrupt=True,
            )
        else:
            run = lambda name=name, cfg=cfg: _check_compiled(args, name, cfg, progress)  # noqa: E731
        result = _guard(f"explore {name}@{cfg.name}", run)
        progress.done()
        results.append((result, model))
        if result.stats.get("stopped") == "interrupted":
            break
    progress.close()
    if args.json:
        _print(to_json(results_dict(results)))
    else:
        _print("\n\n".join(_with_reproducers(r, m, "explore") for r, m in results))
    if args.html is not None:
        from replcheck.cli_replay import write_results_html

        write_results_html(Path(args.html), results)
    return _verdict(
        [r for r, _m in results], len(pairs), "undecided properties are not a pass", args.json
    )


def _check_compiled(args: argparse.Namespace, name: str, cfg: Config, progress: Any) -> Any:
    """``explore --engine c|python``: the flat text, traced and searched (``specs/compiled``)."""
    from replcheck.specs.compiled_check import check_compiled

    return check_compiled(
        name,
        cfg,
        backend="auto" if args.engine == "c" else "python",
        symmetry=not args.no_symmetry,
        liveness=not args.no_liveness,
        max_states=args.max_states,
        max_memory=args.max_memory,
        progress=progress,
        partial_on_interrupt=True,
        kernels=args.kernels,
    )


def _needs_flat_form(engine: str, pairs: list[tuple[str, Config]]) -> None:
    """A compiled engine runs the flat text: refuse, before any search, a design or
    configuration that has none."""
    if engine == "explicit":
        return
    from replcheck.model.engine.catalogue import flat_layout
    from replcheck.model.zk.layout import FlatError

    for name, cfg in pairs:
        try:
            flat_layout(name, cfg).properties()
        except FlatError as err:
            raise UsageError(
                f"{name}@{cfg.name}: no flat form for --engine {engine}: {err}"
            ) from None


def _with_reproducers(result: CheckResult, model: Model, engine: str) -> str:
    """A result as text, each counterexample followed by its pytest test and where it is saved
    (``replcheck.counterexamples``)."""
    from replcheck.counterexamples import reproducer

    text = render_result(result, model)
    for cex in result.counterexamples.values():
        text += "\n\n" + reproducer(model, cex, engine)
    return text


def _verdict(
    results: list,
    asked: int,
    why: str,
    quiet_line: bool = False,
    ignore: frozenset[str] = frozenset(),
    passed: str = "PASS: every property decided, none fails",
) -> int:
    """The exit status of ``explore``/``fuzz``, and unless ``quiet_line`` (JSON on stdout) the
    last line saying it: a failure is 1; an interrupted run 130; a run that left some property
    undecided is partial (4), never a pass."""
    failed = [f"{r.design}@{r.config}" for r in results if r.violated]
    stopped = {str(r.stats.get("stopped")) for r in results if r.stats.get("stopped")}
    undecided = sum(
        1
        for r in results
        for p, v in r.verdicts.items()
        if v not in ("pass", "fail") and p not in ignore
    )
    if failed:
        line, code = f"FAIL: some property fails in {', '.join(failed)}", Exit.FAIL
    elif "interrupted" in stopped or len(results) < asked:
        line = (
            f"INTERRUPTED (not a pass): {len(results)} of {asked} run(s) finished, "
            f"{undecided} verdict(s) undecided"
        )
        code = Exit.INTERRUPTED
    elif undecided:
        how = f" (stopped at the {', '.join(sorted(stopped))})" if stopped else ""
        line, code = f"PARTIAL: {undecided} verdict(s) undecided{how}; {why}", Exit.UNDECIDED
    else:
        line, code = passed, Exit.OK
    if quiet_line:
        if code not in (Exit.OK, Exit.FAIL):
            sys.stderr.write(f"replcheck: {line}\n")
    else:
        _print(line)
    return code


def cmd_fuzz(args: argparse.Namespace) -> int:
    pairs = _pairs(args)
    fn, why = load_fuzz()
    if fn is None:
        raise UsageError(why)
    results = []
    progress = _progress(args)
    # Always a seed, printed with the result, so that a failure can be repeated with --seed:
    # ci's fixed one (the same examples every run), or a fresh one for dev and thorough.
    seed = args.seed
    if seed is None:
        seed = CI_SEED if args.profile == "ci" else random.SystemRandom().getrandbits(32)
    for name, cfg in pairs:
        model = Model(get_design(name), cfg)
        progress.task(f"{name}@{cfg.name} fuzz ({args.profile}, seed {seed})")
        try:
            result = _guard(
                f"fuzz {name}@{cfg.name}",
                lambda model=model: call_fuzz(fn, model, args.profile, seed),
            )
        except InternalError as exc:
            if "does not take a seed" in str(exc):
                raise UsageError("--seed: this fuzzer does not take a seed") from None
            raise
        except KeyboardInterrupt:  # the designs fuzzed so far, then the verdict says why
            progress.close()
            sys.stderr.write(f"replcheck: fuzzing {name}@{cfg.name} interrupted (seed {seed})\n")
            break
        progress.done()
        results.append((result, model))
    progress.close()
    if args.json:
        _print(to_json(results_dict(results)))
    else:
        from replcheck.counterexamples import reproducer

        blocks = []
        for result, model in results:
            text = render_result(result, model, counterexamples=False)
            for prop, cex in result.counterexamples.items():
                program = "\n".join(
                    f"  {i}. {a}   {describe_action(model.design, a, model.cfg, before)}"
                    for i, ((_a0, before), (a, _s)) in enumerate(
                        zip(cex.steps, cex.steps[1:], strict=False), start=1
                    )
                    if a is not None
                )
                text += f"\n\nminimal program breaking {prop}:\n{program or '  (empty)'}\n"
                text += "\n" + render_counterexample(model, cex)
                text += "\n\n" + reproducer(model, cex, "fuzz")
            blocks.append(text)
        _print("\n\n".join(blocks))
    liveness = frozenset(p.name for _r, m in results for p in m.liveness)
    return _verdict(
        [r for r, _m in results],
        len(pairs),
        "fuzzing stopped",
        args.json,
        ignore=liveness,
        passed=f"PASS: no safety property failed (seed {seed}; evidence, not proof: fuzzing "
        "does not check liveness)",
    )


def _violations(model: Model, st: State) -> list[str]:
    return [p.name for p in model.invariants if not p.check(model.cfg, st)]


def _check_step(model: Model, name: str, n: int, action: Action, st: State) -> None:
    """Raise a one-line ``UsageError`` unless ``action`` (the ``n``-th) is a known action of the
    design, with the right number of arguments, enabled in ``st``."""
    try:
        kind = model.design.kind(action.name)
    except KeyError:
        known = ", ".join(k.name for k in model.design.kinds)
        raise UsageError(
            f"step {n}: {name} has no action {action.name!r}; actions: {known}"
        ) from None
    if len(kind.params) != len(action.args):
        raise UsageError(
            f"step {n}: {action} takes {len(kind.params)} arguments "
            f"({', '.join(kind.params) or 'none'})"
        )
    enabled = _guard(f"enabled {name}@{model.cfg.name}", lambda: model.enabled(st))
    if action not in enabled:
        shown = ", ".join(map(str, enabled[:12])) + (" ..." if len(enabled) > 12 else "")
        raise UsageError(f"step {n}: {action} is not enabled here; enabled: {shown or 'nothing'}")


def cmd_dump(args: argparse.Namespace) -> int:
    pairs = _pairs(args)
    if len(pairs) != 1:
        raise UsageError("dump: give one --design and one --config")
    ((name, cfg),) = pairs
    actions = parse_actions(args.actions) if args.actions else []
    model = Model(get_design(name), cfg)
    st = _guard(f"init {name}@{cfg.name}", model.init)
    for n, action in enumerate(actions, start=1):
        _check_step(model, name, n, action, st)
        st = _guard(f"step {n} {action}", lambda st=st, a=action: model.step(st, a))
    if args.tree:
        _print(render_state(cfg, st))
    else:
        _print(_guard("dump", lambda: dump_queues(cfg, st, distributed=args.distributed)))
    return Exit.OK


def cmd_show(args: argparse.Namespace) -> int:
    pairs = _pairs(args)
    actions = parse_actions(args.actions) if args.actions else []
    documents, blocks = [], []
    for name, cfg in pairs:
        model = Model(get_design(name), cfg)
        st = _guard(f"init {name}@{cfg.name}", model.init)
        steps: list[dict[str, object]] = [
            {"action": None, "described": None, "state": state_dict(cfg, st)}
        ]
        lines = [f"{name}@{cfg.name}", "", "== initial state ==", render_state(cfg, st)]
        for n, action in enumerate(actions, start=1):
            _check_step(model, name, n, action, st)
            described = describe_action(model.design, action, cfg, st)
            after = _guard(f"step {n} {action}", lambda st=st, a=action, m=model: m.step(st, a))
            lines += ["", f"== step {n}: {action}  ->  {described} =="]
            lines.append("  " + render_diff(cfg, st, after).replace("\n", "\n  "))
            lines += ["", render_state(cfg, after)]
            bad = _violations(model, after)
            if bad:
                lines.append(f"!! invariants violated here: {', '.join(bad)}")
            st = after
            steps.append(
                {"action": str(action), "described": described, "state": state_dict(cfg, st)}
            )
        documents.append(
            {
                "schema": "replcheck-state/1",
                "design": name,
                "config": cfg.name,
                "config_params": cfg.to_dict(),
                "steps": steps,
            }
        )
        blocks.append("\n".join(lines))
    if args.json:
        data = documents[0] if len(documents) == 1 else {"documents": documents}
        _print(json.dumps(data, indent=2, default=str))
    else:
        _print("\n\n".join(blocks))
    return Exit.OK


def cmd_list(args: argparse.Namespace) -> int:
    loaded = _load_files(args)
    if args.steps:
        return _list_steps(args, loaded)
    from replcheck.model import DESIGNS

    wanted = set(_names(args, loaded if args.design_file else [], None))
    _configs(args)  # an unknown configuration is bad input here too
    rows = []
    for name in [*designs(), *mutants()]:
        if wanted and name not in wanted:
            continue
        cls = DESIGNS[name]
        rows.append(
            {
                "name": name,
                "mutant_of": cls.mutant_of,
                "configs": list(cls.configs),
                "summary": cls.bug if cls.mutant_of else cls.summary,
                "actions": [f"{k.name}({', '.join(k.params)})" for k in cls.kinds],
            }
        )
    if args.json:
        configs = {n: c.to_dict() for n, c in STANDARD.items()}
        _print(to_json({"schema": SCHEMA, "designs": rows, "configs": configs}))
        return Exit.OK
    lines = ["designs:"]
    for r in rows:
        if not r["mutant_of"]:
            lines.append(f"  {r['name']}  [{', '.join(r['configs'])}]")
            lines.append(
                textwrap.fill(
                    str(r["summary"]), 100, initial_indent=" " * 6, subsequent_indent=" " * 6
                )
            )
    lines.append("mutants:")
    for r in rows:
        if r["mutant_of"]:
            lines.append(f"  {r['name']}  [{', '.join(r['configs'])}]")
            lines.append(
                textwrap.fill(
                    str(r["summary"]), 100, initial_indent=" " * 6, subsequent_indent=" " * 6
                )
            )
    lines.append("configs:")
    for n, c in STANDARD.items():
        d = c.to_dict()
        base = Config().to_dict()
        diff = ", ".join(f"{k}={v}" for k, v in d.items() if k != "name" and v != base.get(k))
        lines.append(f"  {n}: {diff or 'defaults'}")
    lines.append("actions (per design):")
    for r in rows:
        if not r["mutant_of"]:
            lines.append(f"  {r['name']}: {'; '.join(r['actions'])}")
    _print("\n".join(lines))
    return Exit.OK


def _list_steps(args: argparse.Namespace, loaded: list[str]) -> int:
    """``list --steps``: every override point of each design's protocol text
    (``model/engine/overrides.py``), under the configurations given or the design's own."""
    from replcheck.model.engine.overrides import KINDS, list_points

    names = _names(args, loaded if args.design_file else [], None)
    if not names:
        raise UsageError("list --steps: name the designs (--design NAME or --design-file PATH)")
    given = _configs(args)
    listings = []
    for name in names:
        cfgs = given or [resolve_config(c) for c in design_configs(name)]
        for cfg in cfgs:
            check_fits(name, cfg)
        listing = list_points(get_design(name), cfgs)
        if not listing.configs:
            why = listing.uncovered[0][1]
            raise UsageError(f"{name}: no protocol text under {listing.uncovered[0][0]}: {why}")
        listings.append(listing)
    if args.json:
        _print(to_json({"schema": SCHEMA, "overrides": [x.to_dict() for x in listings]}))
        return Exit.OK
    lines: list[str] = []

    def wrap(text: str, indent: int) -> None:
        lines.append(
            textwrap.fill(text, 100, initial_indent=" " * indent, subsequent_indent=" " * indent)
        )

    total = dict.fromkeys(KINDS, 0)
    for listing in listings:
        counts = listing.counts()
        for k in KINDS:
            total[k] += counts[k]
        wrap(
            f"{listing.design}: {len(listing.points)} override points in the text of "
            f"{', '.join(listing.configs)}",
            0,
        )
        for cfg, why in listing.uncovered:
            wrap(f"(no text under {cfg}: {why})", 2)
        group = None
        for p in listing.points:
            if (p.owner, p.module) != group:
                group = (p.owner, p.module)
                where = (
                    "the design class: override it in the mutant's own class"
                    if p.in_design
                    else "protocol text"
                )
                wrap(f"{p.owner}  {p.module}  ({where})", 2)
            flags = []
            if p.kind == "step":
                flags.append("fair" if p.fair else "not fair")
            if p.in_design:
                flags.append("dual form" if p.dual else "plain method")
            if p.configs != listing.configs:
                flags.append(f"only under {', '.join(p.configs)}")
            head = f"{p.kind:<6} {p.signature()}" + (f"  [{'; '.join(flags)}]" if flags else "")
            wrap(head, 4)
            wrap(p.doc or "(no docstring)", 11)
    n = sum(total.values())
    lines.append(
        f"{n} override points in {len(listings)} design{'s' if len(listings) != 1 else ''}: "
        + ", ".join(f"{total[k]} {k}s" for k in KINDS)
    )
    _print("\n".join(lines))
    return Exit.OK


# --- entry point ----------------------------------------------------------------------------------


def run() -> NoReturn:
    """The process's entry point (``replcheck``, ``python -m replcheck``): ``main``, then exit.
    An interrupted run exits at once, skipping the finalizers of half-built solver objects (Z3's
    print tracebacks while the interpreter shuts down). Hypothesis keeps its storage in the
    user's cache folder, not in the current one (``replcheck.paths``)."""
    from replcheck.paths import keep_hypothesis_out_of_cwd

    keep_hypothesis_out_of_cwd()
    code = main()
    if code == Exit.INTERRUPTED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    parser = build_parser()
    with _watch_ctrl_c() as seen:
        code = _main(parser, argv)
    if seen and code not in (Exit.INTERRUPTED, Exit.TERMINATED):
        # Ctrl-C arrived but was swallowed on the way (Python ignores an exception raised in a
        # finalizer, ``__del__``): whatever was printed is not the verdict of a whole run.
        _print("INTERRUPTED (not a pass): Ctrl-C arrived during the run")
        return Exit.INTERRUPTED
    return code


@contextlib.contextmanager
def _watch_ctrl_c() -> Iterator[list[bool]]:
    """While the command runs, remember that SIGINT arrived (and raise ``KeyboardInterrupt``, as
    Python does); the list holds ``True`` once it did. SIGTERM (a CI job's time limit, ``kill``)
    is taken as Ctrl-C: the command stops with what it did reported, exit 130. A command that
    exits SIGTERM's own status (``record``, ``conform``, ``mine``) sets its own handler while it
    runs."""
    seen: list[bool] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if signum in (signal.SIGINT, signal.SIGTERM):
            seen.append(True)
        elif not seen:
            return
        if _in_finalizer(frame):
            # Python would print and drop an exception raised inside ``__del__`` (Z3 frees its
            # objects in finalizers all the time) and the run would go on: raise it again a
            # moment later, outside the finalizer.
            signal.setitimer(signal.ITIMER_REAL, 0.02)
            return
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
        previous_alarm = signal.signal(signal.SIGALRM, handler)
        previous_term = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield seen
        return
    try:
        yield seen
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGALRM, previous_alarm)
        signal.signal(signal.SIGTERM, previous_term)


def _in_finalizer(frame: FrameType | None) -> bool:
    """Is ``frame``, or one of the few frames that called it, a ``__del__`` or a garbage
    collector callback (Hypothesis times the collector with one)? Python prints and drops an
    exception raised there."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    for _ in range(8):
        if frame is None:
            return False
        if frame.f_code.co_name == "__del__" or frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


def _main(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    command = "the command"
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version
            return exc.code if isinstance(exc.code, int) else Exit.OK
        command = str(args.command)
        if args.command in HYPOTHESIS_COMMANDS:
            from replcheck.paths import hypothesis_storage

            with hypothesis_storage():
                return int(args.func(args))
        return int(args.func(args))
    except SystemExit as exc:  # a design's code exited: nothing after it was decided
        sys.stderr.write(
            f"replcheck: internal error: SystemExit({exc.code!r}) raised inside the command "
            "(by a design file?); the run was not finished\n"
        )
        return Exit.INTERNAL
    except (UsageError, RegistryError, ValueError) as exc:
        sys.stderr.write(f"replcheck: error: {one_line(exc)}\n")
        return Exit.BAD_INPUT
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            return Exit.FAIL
        sys.stderr.write(f"replcheck: error: {one_line(exc)}\n")
        return Exit.BAD_INPUT
    except InternalError as exc:
        sys.stderr.write(f"replcheck: internal error: {one_line(exc)}\n")
        return Exit.INTERNAL
    except KeyboardInterrupt:
        sys.stderr.write("replcheck: interrupted\n")
        return Exit.INTERRUPTED
    except Exception as exc:  # whatever no command turned into an error of its own: one line
        sys.stderr.write(f"replcheck: internal error: {one_line(internal(command, exc))}\n")
        return Exit.INTERNAL


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
