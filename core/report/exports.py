"""Write export rows (`core.report.export_rows`) as JSON Lines or Parquet.

JSONL is one plain record per line (`core.payloads.json_lines`), written a batch at a time so an export of every
program never holds all of its text at once. Parquet needs pyarrow (the `parquet` extra); its schema comes from the
kind's columns, so every file of a kind has the same types whatever values it holds (a column that is null
everywhere is still an integer column). A file is written beside its target and renamed into place when complete.
"""
from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import IO, Any

from core.errors import UsageError
from core.extras import require
from core.payloads import json_lines
from core.report.export_rows import BOOL, COLUMNS, FILES, FLOAT, GRAPH, INT, STRING, STRINGS, Row

FORMATS = ("jsonl", "parquet")
BATCH = 500  # rows per JSONL write and per Parquet row group


def write_rows(kind: str, rows: Iterable[Row], path: str | Path, fmt: str) -> int:
    """Write `rows` of `kind` to `path` as `fmt` (jsonl or parquet); the number of rows written."""
    sink = RowFile(kind, Path(path), fmt)
    try:
        for batch in batches(rows):
            sink.add(batch)
        sink.close()
    finally:
        sink.discard()
    return sink.count


class RowFile:
    """One export file being written: rows go in by batches, `close()` puts it in place; `discard()` removes
    what an unfinished one left (after `close()` it does nothing)."""

    def __init__(self, kind: str, target: Path, fmt: str):
        if fmt not in FORMATS:
            raise UsageError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})")
        self.kind, self.target, self.fmt, self.count = kind, target, fmt, 0
        self.partial = target.with_name(f".{target.name}.partial")
        self._writer: Any = None
        self._stream: IO[str] | None = None
        self._schema: Any = None
        try:
            if fmt == "jsonl":
                self._stream = self.partial.open("w", encoding="utf-8", newline="\n")
            else:
                parquet = require("pyarrow.parquet", "parquet", "Parquet exports")
                self._schema = arrow_schema(kind)
                self._writer = parquet.ParquetWriter(str(self.partial), self._schema)
        except OSError as error:
            raise UsageError(f"{target}: cannot write: {error.strerror or error}") from None

    def add(self, rows: list[Row]) -> None:
        try:
            if self._stream is not None:
                self._stream.write(json_lines(rows))
            else:
                pa = require("pyarrow", "parquet", "Parquet exports")
                self._writer.write_table(pa.Table.from_pylist(rows, schema=self._schema))
        except OSError as error:
            raise UsageError(f"{self.target}: cannot write: {error.strerror or error}") from None
        self.count += len(rows)

    def close(self) -> None:
        try:
            if self._stream is not None:
                self._stream.close()
            else:
                if not self.count:  # a file with the schema and no rows, still readable
                    self._writer.write_table(self._schema.empty_table())
                self._writer.close()
            os.replace(self.partial, self.target)
        except OSError as error:
            raise UsageError(f"{self.target}: cannot write: {error.strerror or error}") from None

    def discard(self) -> None:
        if self._stream is not None:
            self._stream.close()
        elif self._writer is not None and self.partial.exists():
            self._writer.close()
        self.partial.unlink(missing_ok=True)


def write_jsonl(rows: Iterable[Row], stream: IO[str]) -> int:
    """The rows as JSON Lines on an open text stream (a file or stdout); the number written."""
    count = 0
    for batch in batches(rows):
        stream.write(json_lines(batch))
        count += len(batch)
    return count


def parquet_available() -> bool:
    """Whether pyarrow is installed (without importing it)."""
    return importlib.util.find_spec("pyarrow") is not None


def arrow_schema(kind: str) -> Any:
    """The pyarrow schema of a kind's rows (pyarrow imported here; the `parquet` extra)."""
    pa = require("pyarrow", "parquet", "Parquet exports")
    graph = pa.list_(pa.struct([("caller", pa.string()), ("callees", pa.list_(pa.string()))]))
    files = pa.list_(pa.struct([("path", pa.string()), ("text", pa.string()), ("problem", pa.string())]))
    types = {STRING: pa.string(), INT: pa.int64(), FLOAT: pa.float64(), BOOL: pa.bool_(),
             STRINGS: pa.list_(pa.string()), GRAPH: graph, FILES: files}
    return pa.schema([(column.name, types[column.type]) for column in COLUMNS[kind]])


def batches(rows: Iterable[Row]) -> Iterator[list[Row]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, BATCH)):
        yield batch
