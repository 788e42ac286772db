"""``audit ingest``: audit files and store what the audit learnt, one file per transaction.

Each file is audited whole (read → parse → replay → session checks, as ``audit check`` does) into Arrow tables
(``FileRows``), then written by the main process in one transaction (``Store.write_file``). With ``workers > 1``
whole files are audited in worker processes and their tables come back to the main process, which writes them
in the order the files were named: the database is the same as a single-process run's, because every key is
derived from the file's SHA-256 and line numbers.

A file is hashed before it is audited; a hash already in the database (or seen earlier in the same run) is
skipped without auditing. The worker hashes the bytes it actually parses, and that hash is the one stored.
"""

from __future__ import annotations

import hashlib
import io
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO, TextIO, cast

from audit.errors import AuditError
from audit.pipeline import Audited, audit_blocks
from audit.read import iter_lines, split_blocks
from audit.rows import RowBuilder, parse_started_at
from audit.store import DATA_TABLES, SCHEMA, FileRows, Store

BATCH_HANDS = 250
"""Rows are turned into Arrow record batches every this many hands, so memory holds compact columns, not
millions of Python tuples, while a large file waits for its single transaction."""

__all__ = ["FileBuilder", "IngestJob", "IngestSummary", "audit_file_rows", "ingest", "parse_started_at"]


# ---------------------------------------------------------------------------------------------- reading
class _HashingReader:
    """A binary stream that hashes and counts the bytes read through it (and reports progress)."""

    def __init__(self, raw: BinaryIO, progress: Callable[[int], None] | None = None) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()
        self.size = 0
        self.progress = progress

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.sha.update(data)
        self.size += len(data)
        if self.progress is not None and data:
            self.progress(len(data))
        return data

    def drain(self) -> None:
        """Read (and hash) whatever the parser left unread."""
        while self.read(1 << 20):
            pass


def hash_file(path: str) -> tuple[str, int]:
    """SHA-256 (hex) and size of a file's bytes."""
    sha = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
            size += len(chunk)
    return sha.hexdigest(), size


# ---------------------------------------------------------------------------------------------- rows
class _Table:
    """One table of a file as Arrow record batches, one batch per ``BATCH_HANDS`` hands."""

    def __init__(self, name: str) -> None:
        import pyarrow as pa

        self.name = name
        self.schema = pa.schema([(col, _arrow_type(typ)) for col, typ in SCHEMA[name]])
        self.batches: list[Any] = []

    def add_columns(self, columns: list[Any]) -> None:
        """A record batch from one list of values per column (no batch for empty columns)."""
        import pyarrow as pa

        if columns and len(columns[0]):
            arrays = [pa.array(col, type=f.type) for col, f in zip(columns, self.schema)]
            self.batches.append(pa.RecordBatch.from_arrays(arrays, schema=self.schema))

    def table(self) -> Any:
        import pyarrow as pa

        return pa.Table.from_batches(self.batches, schema=self.schema)


def _arrow_type(duck: str) -> Any:
    import pyarrow as pa

    types = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
             "TIMESTAMP": pa.timestamp("us"), "DATE": pa.date32(), "DOUBLE": pa.float64(),
             "VARCHAR[]": pa.list_(pa.string())}
    return types[duck]


_WIDTHS = {name: len(SCHEMA[name]) for name in DATA_TABLES}


class FileBuilder:
    """The rows of one file (``audit.rows``, compiled) as Arrow tables, a record batch every ``BATCH_HANDS``."""

    def __init__(self, sha256: str, file: str) -> None:
        self.rows = RowBuilder(sha256, file)
        self.tables = {name: _Table(name) for name in DATA_TABLES}
        self._since_flush = 0

    def add(self, audited: Audited) -> None:
        """Add one item of ``audit_file``'s output."""
        self.rows.add(audited)
        self._since_flush += 1
        if self._since_flush >= BATCH_HANDS:
            self.flush()

    def flush(self) -> None:
        for name, columns in self.rows.take_columns(_WIDTHS).items():
            self.tables[name].add_columns(columns)
        self._since_flush = 0

    def finish(self, path: str, size: int, default_profile: str) -> FileRows:
        self.flush()
        b = self.rows
        return FileRows(b.sha, path, size, default_profile,
                        {name: t.table() for name, t in self.tables.items()}, b.hands, b.parse_errors,
                        b.findings, b.skipped_hands)


# ---------------------------------------------------------------------------------------------- jobs
@dataclass(frozen=True)
class IngestJob:
    """One file to audit: its path (``-``: the bytes in ``data``), the profile for files without one."""

    path: str
    profile: str
    options: tuple[tuple[str, str], ...] = ()
    data: bytes | None = None
    size: int = 0
    sha256: str = ""  # hashed by the planner; the worker checks the bytes it parses against it


@dataclass(frozen=True)
class FileFailure:
    """A file that could not be audited at all: skipped, reported on stderr."""

    path: str
    message: str
    internal: bool = False  # not the file's fault: a bug to report


def profile_label(name: str, options: Iterable[tuple[str, str]]) -> str:
    """``qdan`` or ``qdan (joker=wild)``: the profile given on the command line, as stored in ``files``."""
    opts = ", ".join(f"{k}={v}" for k, v in options)
    return f"{name} ({opts})" if opts else name


def audit_file_rows(job: IngestJob, progress: Callable[[int], None] | None = None) -> FileRows:
    """Audit one file into the rows of every table (raises ``AuditError`` if it cannot be read at all).

    The rows are keyed by ``job.sha256`` (hashed first when not given); the bytes parsed are hashed as they are
    read, and a file that changed in between is refused rather than stored under the wrong hash.
    """
    from audit.profile import load_profile

    profile = load_profile(job.profile).with_options(list(job.options))
    name = "<stdin>" if job.path == "-" else job.path
    sha = job.sha256
    if job.data is not None:
        raw: BinaryIO = io.BytesIO(job.data)
        sha = sha or hashlib.sha256(job.data).hexdigest()
    else:
        try:
            sha = sha or hash_file(job.path)[0]
            raw = open(job.path, "rb")
        except OSError as exc:
            raise AuditError(f"{name}: cannot be read ({exc.strerror})") from None
    builder = FileBuilder(sha, name)
    with raw:
        reader = _HashingReader(raw, progress)
        for audited in audit_blocks(split_blocks(iter_lines(cast(BinaryIO, reader), name), name), profile):
            builder.add(audited)
        reader.drain()
    if reader.sha.hexdigest() != sha:
        raise AuditError(f"{name}: the file changed while it was being read; ingest it again")
    return builder.finish(name, reader.size, profile_label(job.profile, job.options))


def run_job(job: IngestJob) -> FileRows | FileFailure:
    """Worker entry point: a file's rows, or why it was skipped (never raises)."""
    try:
        return audit_file_rows(job)
    except AuditError as exc:
        return FileFailure(job.path, str(exc))
    except Exception as exc:  # a bug must not lose the other files; it is reported and the run exits 2
        return FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)


# ---------------------------------------------------------------------------------------------- the run
@dataclass
class IngestSummary:
    """What one ``audit ingest`` did."""

    db: str
    files: int = 0  # files named (after folders were expanded)
    ingested: int = 0
    already: int = 0  # already in the database (same bytes), or named twice
    failed: list[FileFailure] = field(default_factory=list)
    hands: int = 0
    parse_errors: int = 0
    findings: int = 0
    skipped_hands: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        """The one-line summary printed at the end."""
        extra = [f"{self.already} already in the database"] if self.already else []
        if self.failed:
            extra.append(f"{len(self.failed)} skipped")
        note = f" ({', '.join(extra)})" if extra else ""
        rate = f", {self.hands / self.seconds:,.0f} hands/s" if self.seconds > 0 and self.hands else ""
        return (f"{self.ingested} file{'s' if self.ingested != 1 else ''} ingested{note}: {self.hands:,} hands, "
                f"{self.findings:,} findings, {self.parse_errors:,} unreadable hands in {self.seconds:.1f} s"
                f"{rate} -> {self.db}")


def plan_jobs(files: list[str], known: set[str], profile: str, options: tuple[tuple[str, str], ...],
              summary: IngestSummary, stdin: BinaryIO | None = None) -> list[IngestJob]:
    """Jobs for the files not yet in the database (by content hash); unreadable files go to ``summary``."""
    jobs: list[IngestJob] = []
    seen = set(known)
    for path in files:
        data: bytes | None = None
        try:
            if path == "-":
                data = (stdin or sys.stdin.buffer).read()
                sha, size = hashlib.sha256(data).hexdigest(), len(data)
            else:
                sha, size = hash_file(path)
        except OSError as exc:
            summary.failed.append(FileFailure(path, f"{path}: cannot be read ({exc.strerror})"))
            continue
        if sha in seen:
            summary.already += 1
            continue
        seen.add(sha)
        jobs.append(IngestJob(path, profile, options, data, size, sha))
    return jobs


def run_jobs(jobs: list[IngestJob], workers: int,
             progress: Callable[[int], None] | None = None) -> Iterator[tuple[IngestJob, FileRows | FileFailure]]:
    """Audit the jobs, in order: in this process (``workers <= 1``) or in a pool of worker processes.

    ``progress`` is called with byte counts: as each file is read in this process, per finished file with
    workers."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            try:
                out: FileRows | FileFailure = audit_file_rows(job, progress)
            except AuditError as exc:
                out = FileFailure(job.path, str(exc))
            except Exception as exc:
                out = FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)
            yield job, out
        return
    import multiprocessing

    # spawn, not fork: the parent holds a DuckDB connection and Arrow thread pools, which a fork would copy
    # half-locked; the workers only parse, replay and build Arrow tables.
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(min(workers, len(jobs))) as pool:
        for job, out in zip(jobs, pool.imap(run_job, jobs, chunksize=1)):
            if progress is not None:
                progress(job.size)
            yield job, out


def ingest(paths: list[str], db: str, profile: str = "home-open", options: tuple[tuple[str, str], ...] = (),
           workers: int = 1, progress: bool = False, err: IO[str] | None = None,
           verbose: bool = False) -> IngestSummary:
    """Audit ``paths`` and store them in the database ``db``; returns what was done.

    A named path that does not exist raises ``InputError`` before anything is written. A file that cannot be
    read is reported on ``err`` and skipped; the others still go in.
    """
    import duckdb

    from audit.profile import load_profile
    from audit.read import expand_paths

    err = err or sys.stderr
    start = time.perf_counter()
    load_profile(profile).with_options(list(options))  # a bad profile or option stops the run before any work
    files = expand_paths(paths)
    summary = IngestSummary(db, files=len(files))
    with Store.open(db) as store:
        # With workers, one DuckDB thread: the workers have the cores, and DuckDB's own threads only add their
        # overhead (bench/ingest.py, 100,000 hands, 2 workers: 36.7 -> 34.3 CPU s). A later checkpoint
        # (checkpoint_threshold) saved a little more CPU but held the uncheckpointed rows in memory: not taken.
        if workers > 1:
            store.con.execute("SET threads = 1")
        jobs = plan_jobs(files, store.known_files(), profile, options, summary)
        for failure in summary.failed:
            err.write(f"audit: skipped {failure.message}\n")
        bar = _progress_bar(sum(j.size for j in jobs), err) if progress and jobs else None
        tick = bar.update if bar is not None else None
        try:
            for job, out in run_jobs(jobs, workers, tick):
                if isinstance(out, FileFailure):
                    summary.failed.append(out)
                    what = "an internal error (please report it)" if out.internal else "cannot be read"
                    msg = out.message if not out.internal else f"{out.path}: {what}: {out.message}"
                    _clear(bar, err)
                    err.write(f"audit: skipped {msg}\n")
                    continue
                try:
                    written = store.write_file(out)
                except duckdb.Error as exc:
                    raise AuditError(f"{db}: writing {out.path} failed ({exc}); the database holds the files "
                                     "before it") from None
                if not written:
                    summary.already += 1
                    continue
                summary.ingested += 1
                summary.hands += out.hands
                summary.parse_errors += out.parse_errors
                summary.findings += out.findings
                summary.skipped_hands += out.skipped_hands
                if verbose:
                    _clear(bar, err)
                    err.write(f"ingested {out.path}: {out.hands} hands, {out.findings} findings\n")
                    err.flush()
        finally:
            if bar is not None:
                bar.render_finish()
    summary.seconds = time.perf_counter() - start
    return summary


def _progress_bar(total: int, err: IO[str]) -> Any:
    import click

    bar = click.progressbar(length=max(total, 1), label="ingesting", file=cast(TextIO, err), show_eta=True,
                            show_percent=True)
    bar.render_progress()
    return bar


def _clear(bar: Any, err: IO[str]) -> None:
    """Start a fresh line so a message does not land in the middle of the progress bar."""
    if bar is not None:
        err.write("\r\033[K")
