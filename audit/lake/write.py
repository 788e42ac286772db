"""One input file into the lake, on whichever process or machine runs it: read, audited and turned into rows
exactly as ``audit ingest`` does (``audit.store.ingest.audit_file_rows``), each table's rows streamed to a Parquet file
in the lake's ``_tmp`` folder, then every file renamed into place, ``files`` last.

A worker killed at any point leaves either nothing visible (its files are still under ``_tmp``) or whole Parquet
files of a file not yet complete (no ``files`` row: readers leave them out, and the next run writes them again
under the same names). Two runs writing the same input file write the same rows.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.lake.layout import COMMIT_TABLE, Lake
from audit.store.db import FileRows
from audit.store.ingest import FileFailure, IngestJob, audit_file_rows, file_failure, spool
from audit.store.schema import DATA_TABLES, arrow_schema

ROW_GROUP_ROWS = 64_000
"""Rows of a table gathered before they are written as one Parquet row group (bounded memory, few row groups)."""
COMPRESSION = "zstd"
PART = ".parquet.part"
"""The suffix of a file being written (no pattern for ``*.parquet`` takes it for a finished one)."""

Outcome = FileRows | FileFailure | None
"""What became of one input file: its rows (now complete in the lake), why it was skipped, or ``None``: it was
already complete in the lake."""


def is_url(path: str) -> bool:
    """Whether an input names a file through fsspec (``s3://bucket/key``, ``file:///…``) rather than a path."""
    return "://" in path


class _ParquetSink:
    """A file's record batches, written to one Parquet file per table in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.writers: dict[str, Any] = {}
        self.pending: dict[str, list[Any]] = {}
        self.rows: dict[str, int] = {}

    def __call__(self, table: str, batch: Any) -> None:
        self._writer(table)  # the file exists from the table's first rows on
        self.pending.setdefault(table, []).append(batch)
        self.rows[table] = self.rows.get(table, 0) + batch.num_rows
        if self.rows[table] >= ROW_GROUP_ROWS:
            self._write(table)

    def _writer(self, table: str) -> Any:
        import pyarrow.parquet as pq

        writer = self.writers.get(table)
        if writer is None:
            writer = pq.ParquetWriter(self.folder / f"{table}{PART}", arrow_schema(table), compression=COMPRESSION)
            self.writers[table] = writer
        return writer

    def _write(self, table: str) -> None:
        import pyarrow as pa

        batches = self.pending.pop(table, [])
        self.rows[table] = 0
        writer = self._writer(table)
        if batches:
            writer.write_table(pa.Table.from_batches(batches, schema=writer.schema))

    def finish(self) -> None:
        """Write what is left and close every file; a table without rows still gets its (empty) file, so a
        complete input file always has one file in every table."""
        for table in DATA_TABLES:
            self._write(table)
        self.close()

    def close(self) -> None:
        writers, self.writers = self.writers, {}
        for writer in writers.values():
            writer.close()


def files_table(rows: FileRows, ingested_at: dt.datetime) -> Any:
    """The ``files`` row of an input file, as ``Store.commit_file`` writes it to a database."""
    import pyarrow as pa

    from audit import __version__

    values: dict[str, Any] = {
        "file_sha": rows.sha256, "path": rows.path, "size": rows.size, "ingested_at": ingested_at,
        "default_profile": rows.default_profile, "hands": rows.hands, "parse_errors": rows.parse_errors,
        "findings": rows.findings, "audit_version": __version__,
    }
    schema = arrow_schema(COMMIT_TABLE)
    return pa.table({name: [values[name]] for name in schema.names}, schema=schema)


def write_file(lake: Lake, job: IngestJob) -> Outcome:
    """Audit ``job`` into ``lake`` (``None`` if it is complete there already); raises like ``audit_file_rows``."""
    import pyarrow.parquet as pq

    if job.sha256 and lake.is_committed(job.sha256):
        return None
    folder = lake.temp_folder(job.sha256[:16] or "fetched")
    try:
        if is_url(job.path):
            job = _fetch(job, folder)
            if lake.is_committed(job.sha256):
                return None
        sink = _ParquetSink(folder)
        try:
            rows = audit_file_rows(job, sink=sink)
            sink.finish()
        finally:
            sink.close()
        pq.write_table(files_table(rows, dt.datetime.now().replace(microsecond=0)),
                       folder / f"{COMMIT_TABLE}{PART}", compression=COMPRESSION)
        for table in DATA_TABLES + (COMMIT_TABLE,):
            target = lake.path(table, rows.sha256)
            target.parent.mkdir(exist_ok=True)
            os.replace(folder / f"{table}{PART}", target)
        return rows
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _fetch(job: IngestJob, folder: Path) -> IngestJob:
    """A file named by an fsspec URL, copied (and hashed on the way) into ``folder``."""
    try:
        import fsspec
    except ImportError:  # pragma: no cover - fsspec comes with dask
        raise AuditError(f"{job.path}: reading URLs needs fsspec: pip install 'audit[s3]'") from None
    try:
        with fsspec.open(job.path, "rb") as stream:
            source, sha, size = spool(stream, job.path, str(folder))
    except ImportError as exc:
        raise AuditError(f"{job.path}: reading this URL needs {exc.name or 'a package'}: pip install "
                         "'audit[s3]' (for s3://)") from None
    except FileNotFoundError:
        raise AuditError(f"{job.path}: no such file") from None
    except OSError as exc:
        raise AuditError(f"{job.path}: cannot be read ({exc.strerror or exc})") from None
    return replace(job, source=source, sha256=sha, size=size)


@dataclass(frozen=True)
class LakeWriter:
    """The task each worker runs, for one input file: ``LakeWriter(lake folder)(job)``. Picklable (Dask sends it
    to its workers, the worker pool to its processes); never raises: a file that cannot be read, a failure to
    write the lake (``fatal``: the run stops) or a bug (``internal``) comes back as a ``FileFailure``."""

    root: str

    def __call__(self, job: IngestJob, scratch: str = "") -> Outcome:
        lake = Lake(Path(self.root), frozenset())
        try:
            return write_file(lake, job)
        except AuditError as exc:
            return file_failure(job.path, exc)
        except OSError as exc:  # writing the lake failed (a full disk, a folder we may not write)
            return FileFailure(job.path, f"writing the rows of {job.path} to the lake failed ({exc.filename or ''}: "
                                         f"{exc.strerror or exc})", fatal=True)
        except Exception as exc:  # a bug must not lose the other files; it is reported and the run exits 2
            return FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)
