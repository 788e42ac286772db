"""The transaction policy: how a run's files go into the database, each whole.

A large file's rows go into its own transaction as they are made, ``APPEND_ROWS`` of a table at a time: memory
stays bounded however large the file, and a failure or a kill leaves the database as it was before that file.
Small files (under ``SMALL_FILE_BYTES``) are written several to a transaction (``BATCH_BYTES`` of them at most),
each whole: DuckDB's commit and each insert cost about the same for ten hands as for thousands. Every
transaction is opened, committed and undone by ``Transaction``; results are given in job order, once their
transaction has committed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from audit.errors import AuditError
from audit.store.db import FileRows, Store
from audit.store.ingest.files import audit_file_rows
from audit.store.ingest.inputs import unlink_quietly
from audit.store.ingest.jobs import FileFailure, IngestJob, file_failure
from audit.store.ingest.progress import ProgressKeeper

APPEND_ROWS = 20_000
"""Rows of one table handed to DuckDB at a time, inside the file's transaction (fewer, larger inserts cost less
CPU; 20,000 rows of actions take about 3 MB)."""
DUCKDB_MEMORY = "80MB"
"""DuckDB's memory while ingesting: a large file's uncommitted rows beyond it wait in DuckDB's temporary files.
Not for a database made by audit 0.1.0, whose index on ``hands`` must fit in memory whole when a file commits.

The main process's memory is bounded by design, whatever the number and size of the files: this limit, the
libraries it has loaded (DuckDB's and Arrow's code, about 75 MB resident), and the rows on their way in, at most
``APPEND_ROWS`` of a table from a file streamed in this process, one record batch at a time of a worker's spill
(never mapped: ``audit.store.db.open_spilled``), ``APPEND_BYTES`` of small files' rows. A worker holds one file's
current ``BATCH_HANDS`` hands. Measured peaks (``/usr/bin/time``, its largest process): one 1 GB file 278 MB
(``bench/bigfile.py --ingest --gb 1.0``); 10 files of 47,000 hands with 2 workers 243 MB, the main process
(``audit ingest DIR --workers 2`` over ``bench/ingest.py --hands 470000 --hands-per-file 47000 --keep DIR``'s
corpus; 318 MB while the spills were mapped, each file's whole spill resident until its commit)."""
SMALL_FILE_BYTES = 2 * 1024 * 1024
"""A file this small is written together with the small files next to it, in one transaction (``BATCH_BYTES`` of
them at most): DuckDB's commit and each insert cost about the same for ten hands as for thousands, and each commit
is a checkpoint that compresses the tables' last row groups again (20 logs of 1 MB: the main process's CPU time
2.5 s with 256 KB and 1 MB, 1.65 s with 2 MB and 4 MB, 1.35 s with 2 MB and 8 MB; its peak memory 209, 224 and
247 MB; ``bench/ingest.py --hands 20000 --hands-per-file 1000``)."""
BATCH_BYTES = 8 * 1024 * 1024
APPEND_BYTES = 1024 * 1024
"""Small files' rows go into their batch's transaction this many bytes of files at a time (one insert per table
for them all: an insert costs DuckDB about the same for ten hands as for a thousand)."""

Result = tuple[IngestJob, FileRows | FileFailure | None]
"""A job and what became of it: its rows (committed), why it was skipped, or ``None``: already stored."""


class Transaction:
    """The one way the ingest opens, commits and undoes a transaction of whole files (one streamed in, or
    several small ones), with DuckDB's failures said as the run reports them (``errors``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.open = False

    def begin_file(self, sha256: str) -> bool:
        """Open the transaction of one file; ``False`` (and no transaction) if the file is stored already."""
        self.open = self.store.begin_file(sha256)
        return self.open

    def begin(self) -> None:
        if not self.open:
            self.store.con.execute("BEGIN TRANSACTION")
            self.open = True

    def commit(self, last: FileRows | None = None) -> None:
        """Commit, after ``last``'s ``files`` row (a file whose rows were streamed in)."""
        if last is not None:
            self.store.add_files_row(last)
        self.store.con.execute("COMMIT")
        self.open = False

    def undo(self) -> None:
        """Roll back the open transaction, if one is."""
        if self.open:
            self.open = False
            self.store.rollback()

    @contextmanager
    def errors(self, path: str, undo: Callable[[], None] | None = None) -> Iterator[None]:
        """DuckDB's failures while writing ``path`` (alone or as the first of a batch): ``undo`` (the transaction
        rolled back) first; Ctrl-C as such; any other DuckDB failure an ``AuditError`` naming ``path``."""
        import duckdb

        undo = undo or self.undo
        try:
            yield
        except duckdb.Error as exc:
            undo()
            if interrupted(exc):
                raise KeyboardInterrupt from None
            raise AuditError(f"{self.store.path}: writing {path} failed ({exc}); the database holds the files "
                             "before it") from None
        except RuntimeError as exc:
            undo()
            if interrupted(exc):
                raise KeyboardInterrupt from None
            raise
        except BaseException:
            undo()
            raise


def write_in_process(store: Store, jobs: list[IngestJob], keeper: ProgressKeeper) -> Iterator[Result]:
    """Audit each job in this process: a large file's rows go to the database as they are made, inside the file's
    transaction; small files' rows are kept and written several files to a transaction (``Batch``)."""
    batch = Batch(store)
    try:
        for i, job in enumerate(jobs):
            keeper.state.current = job.path
            if job.size < SMALL_FILE_BYTES:
                yield from batch.add(job, _audited(job, keeper), ends_batch(jobs, i))
            else:
                yield from batch.flush()
                yield job, write_streamed(store, job, keeper)
        yield from batch.flush()
    finally:
        batch.abort()  # a batch left open by Ctrl-C or a failure that stops the run: rolled back


def write_answers(store: Store, jobs: list[IngestJob],
                  answers: Iterator[tuple[IngestJob, FileRows | FileFailure]]) -> Iterator[Result]:
    """The workers' results, written here in job order: a large file in a transaction of its own, small files
    several to a transaction."""
    batch = Batch(store)
    try:
        for i, (job, out) in enumerate(answers):
            yield from batch.add(job, out, job.size >= SMALL_FILE_BYTES or ends_batch(jobs, i))
        yield from batch.flush()
    finally:
        batch.abort()  # a batch left open by Ctrl-C or a failure that stops the run: rolled back


def _audited(job: IngestJob, keeper: ProgressKeeper) -> FileRows | FileFailure:
    """A small file's rows, kept in memory (``FileFailure``: why it was skipped)."""
    try:
        return audit_file_rows(job, keeper.on_bytes, None, keeper.on_hands)
    except Exception as exc:
        return _failure(job, exc)


def write_streamed(store: Store, job: IngestJob, keeper: ProgressKeeper) -> FileRows | FileFailure | None:
    """A large file audited in this process into its own transaction, its rows written as they are made
    (``None``: stored already)."""
    transaction = Transaction(store)
    if not transaction.begin_file(job.sha256):
        return None
    sink = StoreSink(store)
    with transaction.errors(job.path):
        try:
            out = audit_file_rows(job, keeper.on_bytes, sink, keeper.on_hands)
            sink.close()
        except Exception as exc:
            transaction.undo()
            return _failure(job, exc)
        transaction.commit(out)
    return out


def _failure(job: IngestJob, exc: Exception) -> FileFailure:
    """What an exception auditing ``job`` in this process makes of the file: skipped (``AuditError``: it cannot
    be read; any other: a bug, reported). Ctrl-C inside DuckDB, DuckDB's own failures and the machine's
    (``OSError``: a full disk, a closed stderr) are raised again: they stop the run."""
    import duckdb

    if isinstance(exc, AuditError):
        return file_failure(job.path, exc)
    if interrupted(exc) or isinstance(exc, (OSError, duckdb.Error)):
        raise exc
    return FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)


class StoreSink:
    """Hands a file's batches to the open transaction, ``APPEND_ROWS`` rows of a table at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: dict[str, list[Any]] = {}
        self.rows: dict[str, int] = {}

    def __call__(self, table: str, batch: Any) -> None:
        self.pending.setdefault(table, []).append(batch)
        self.rows[table] = self.rows.get(table, 0) + batch.num_rows
        if self.rows[table] >= APPEND_ROWS:
            self._append(table)

    def _append(self, table: str) -> None:
        import pyarrow as pa

        batches = self.pending.pop(table, [])
        self.rows[table] = 0
        if batches:
            self.store.append(table, pa.Table.from_batches(batches))

    def close(self) -> None:
        for table in list(self.pending):
            self._append(table)


class Batch:
    """Small files' rows written together, in one transaction, in job order (a failure or a large file first
    commits the batch, so that results keep their order). Each file's rows go into the open transaction soon
    after the file comes (``APPEND_BYTES`` of files to an insert), not all at the end: with workers, the main
    process writes while they audit the next files, rather than in one long stretch at each commit during which
    no result is taken and no file sent. A result is given once its transaction has committed."""

    def __init__(self, store: Store) -> None:
        self.transaction = Transaction(store)
        self.store = store
        self.done: list[tuple[IngestJob, FileRows, bool]] = []  # in the open transaction: (job, rows, stored)
        self.waiting: list[tuple[IngestJob, FileRows]] = []  # not in it yet
        self.waiting_size = 0
        self.size = 0  # bytes of the batch's files (done and waiting)

    def add(self, job: IngestJob, out: FileRows | FileFailure, last: bool) -> Iterator[Result]:
        """Add a file's result (``last``: no small file follows it, so commit the batch now)."""
        if isinstance(out, FileFailure):
            yield from self.flush()
            yield job, out
            return
        self.waiting.append((job, out))
        self.waiting_size += job.size
        self.size += job.size
        if last or self.size >= BATCH_BYTES:
            yield from self.flush()
        elif self.waiting_size >= APPEND_BYTES:
            self._append()

    def _append(self) -> None:
        """The waiting files' rows into the open transaction (opened first if need be)."""
        waiting, self.waiting, self.waiting_size = self.waiting, [], 0
        if not waiting:
            return
        first = (self.done or waiting)[0][0].path
        try:
            with self.transaction.errors(first, self.abort):
                self.transaction.begin()
                stored = self.store.append_files([out for _, out in waiting])
        finally:
            _remove_spill(out for _, out in waiting)
        self.done += [(job, out, s) for (job, out), s in zip(waiting, stored)]

    def flush(self) -> Iterator[Result]:
        """Commit the batch's files; each with its result (``None``: already stored)."""
        self._append()
        if not self.transaction.open:
            return
        with self.transaction.errors(self.done[0][0].path, self.abort):
            self.transaction.commit()
        done, self.done, self.size = self.done, [], 0
        for job, out, stored in done:
            yield job, out if stored else None

    def abort(self) -> None:
        """Roll back a transaction left open (Ctrl-C, or the run stopped by a failure), and drop the waiting
        files' rows: the database keeps only the batches committed."""
        self.transaction.undo()
        _remove_spill(out for _, out in self.waiting)
        self.done, self.waiting, self.waiting_size, self.size = [], [], 0, 0


def _remove_spill(files: Iterator[FileRows]) -> None:
    """The Arrow stream files workers wrote for these files' rows (read, or never to be)."""
    for out in files:
        for path in out.spill.values():
            unlink_quietly(path)


def ends_batch(jobs: list[IngestJob], i: int) -> bool:
    """Whether job ``i`` is the last of a run of small files (its batch is written without waiting for more)."""
    return i + 1 == len(jobs) or jobs[i + 1].size >= SMALL_FILE_BYTES


def interrupted(exc: BaseException) -> bool:
    """Whether DuckDB stopped because of Ctrl-C: its client turns the signal into an error of its own."""
    import duckdb

    return isinstance(exc, duckdb.InterruptException) or (
        isinstance(exc, (RuntimeError, duckdb.Error)) and "interrupt" in str(exc).lower())
