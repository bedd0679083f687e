"""Traces as Parquet: the same events as a merged ``trace.jsonl``, one row per event, in order.

A Parquet trace is for the users who keep their runs in a data lake and mine them with Spark
(docs/mine.md): ``replcheck convert`` writes one from any trace, and ``replcheck validate`` and
``replcheck mine`` read it as they read JSON lines, with the same checks and the same verdict.

The columns (``COLUMNS``) are the event schema's fields (``traces/schema/v1``). ``args`` and
``detail`` are maps whose values differ from event to event, so they are stored as JSON text;
``design``, ``zxid``, ``order`` and ``detail`` may be null. A row is an event, and a problem
with one is told as ``FILE: row N: ...`` (rows count from 1, as lines do); a file that is not
Parquet at all is told with the byte offset where its magic number is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from replcheck.conformance.trace import jsontext

SUFFIX = ".parquet"
MAGIC = b"PAR1"
FORMAT = "replcheck-trace/1"
"""The file's ``replcheck.format`` metadata: a Parquet file without it is not a trace."""

COLUMNS: dict[str, str] = {
    "v": "int32",
    "design": "string",
    "proc": "string",
    "pid": "int64",
    "seq": "int64",
    "t": "float64",
    "kind": "string",
    "name": "string",
    "zxid": "int64",
    "order": "int64",
    "args": "string",
    "detail": "string",
}
JSON_COLUMNS = ("args", "detail")
OPTIONAL = ("design", "zxid", "order", "detail")


class ParquetTraceError(Exception):
    """A Parquet trace that cannot be read; the message names the file and row or offset."""


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [pa.field(name, getattr(pa, kind)(), nullable=True) for name, kind in COLUMNS.items()],
        metadata={b"replcheck.format": FORMAT.encode()},
    )


def write(events: list[dict[str, Any]], out: Path) -> None:
    """Write ``events`` (each a schema-valid event) to ``out`` as a Parquet trace."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for e in events:
        for name in COLUMNS:
            value = e.get(name)
            if name in JSON_COLUMNS and value is not None:
                value = json.dumps(value, sort_keys=True, separators=(",", ":"))
            columns[name].append(value)
    table = pa.table(columns, schema=_schema())
    with writing(out) as tmp:
        pq.write_table(table, tmp, compression="zstd")


@contextmanager
def writing(out: Path) -> Iterator[Path]:
    """A temporary file beside ``out`` to write, put in its place when the block ends; on any
    error (or an interruption) it is removed and ``out`` is left as it was."""
    tmp = out.with_name(f".{out.name}.writing")
    try:
        yield tmp
        tmp.replace(out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def rows(path: Path) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(row number from 1, event) for each row of ``path``, batch by batch; a row that is not an
    event is given as the text of its problem (the caller stops there). A file that cannot be
    read as a Parquet trace raises ``ParquetTraceError``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    _check_magic(path)
    try:
        f = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise ParquetTraceError(f"{path}: not a readable Parquet file: {_one_line(exc)}") from None
    meta = f.schema_arrow.metadata or {}
    if meta.get(b"replcheck.format") != FORMAT.encode():
        raise ParquetTraceError(
            f"{path}: a Parquet file without replcheck.format={FORMAT} metadata: not a trace "
            "(replcheck convert writes one)"
        )
    missing = [c for c in COLUMNS if c not in f.schema_arrow.names]
    if missing:
        raise ParquetTraceError(f"{path}: no column {', '.join(missing)}: not a trace")
    n = 0
    try:
        for batch in f.iter_batches(batch_size=4096, columns=list(COLUMNS)):
            for record in batch.to_pylist():
                n += 1
                yield n, _event(record, path, n)
    except (OSError, pa.ArrowException) as exc:
        raise ParquetTraceError(
            f"{path}: row {n + 1}: cannot read its row group: {_one_line(exc)}"
        ) from None


def _event(record: dict[str, Any], path: Path, n: int) -> dict[str, Any] | str:
    event: dict[str, Any] = {}
    for name, value in record.items():
        if value is None and name in OPTIONAL:
            continue
        if name in JSON_COLUMNS and value is not None:
            try:
                value = jsontext.loads(value)
            except jsontext.JsonTextError as exc:
                return f"{path}: row {n}: {name}: {exc}"
        event[name] = value
    if "zxid" not in event:
        event["zxid"] = None
    return event


def _check_magic(path: Path) -> None:
    """A Parquet file starts and ends with ``PAR1``: say where it does not."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(max(0, size - 4))
            tail = f.read(4)
    except OSError as exc:
        raise ParquetTraceError(f"{path}: cannot read: {exc.strerror}") from None
    if head != MAGIC:
        raise ParquetTraceError(f"{path}: byte offset 0: no Parquet magic number: not Parquet")
    if size < 12 or tail != MAGIC:
        raise ParquetTraceError(
            f"{path}: byte offset {max(0, size - 4)}: no Parquet footer (the file was cut?)"
        )


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
