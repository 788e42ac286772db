"""``audit ingest``: audit files and store what the audit learnt, each file whole.

Each file is audited whole (read → parse → replay → session checks, as ``audit check`` does) and its rows go to
DuckDB inside a transaction that holds only whole files (``writing``): a failure or a kill leaves the database as
it was before that file. With ``workers > 1`` whole files are audited in worker processes (``pool``), which write
a large file's rows to Arrow stream files in a temporary folder; the main process reads them back a batch at a
time and writes the files in the order they were named: the database is the same as a single-process run's,
because every key is derived from the file's SHA-256 and line numbers.

A file is hashed before it is audited (``jobs``); a hash already in the database (or seen earlier in the same run)
is skipped without auditing. The bytes parsed are hashed again as they are read, and that hash must match
(``files``). Standard input, a pipe or a device is first copied to the temporary folder (hashed on the way, and
refused at its first bytes if they are not text: ``inputs``), so that it is read like a file. The rows become
Arrow record batches in ``batches``; what the run says goes out through ``progress``'s callbacks.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from audit.errors import Interrupted
from audit.store.db import Store, check_db_name
from audit.store.ingest.batches import BATCH_HANDS, FileBuilder, Sink
from audit.store.ingest.files import SPILL_BYTES, SPILL_COMPRESSED, audit_file_rows, run_job
from audit.store.ingest.inputs import MAX_STREAM, TooLong, hash_file, spool
from audit.store.ingest.jobs import MAX_WORKERS, FileFailure, IngestJob, plan_jobs, profile_label, usable_workers
from audit.store.ingest.pool import STORED_BEFORE, IngestPool, answers, start_ingest_pool, submit
from audit.store.ingest.progress import IngestProgress, IngestSummary, ProgressKeeper, Tell, silent
from audit.store.ingest.writing import (
    APPEND_ROWS, DUCKDB_MEMORY, SMALL_FILE_BYTES, Result, write_answers, write_in_process,
)
from audit.store.rows import parse_started_at
from audit.textout import counted
from audit.workers import WorkerDied, may_fork

__all__ = ["APPEND_ROWS", "BATCH_HANDS", "DUCKDB_MEMORY", "MAX_STREAM", "MAX_WORKERS", "SMALL_FILE_BYTES",
           "SPILL_BYTES", "SPILL_COMPRESSED", "FileBuilder", "FileFailure", "IngestJob", "IngestProgress",
           "IngestSummary", "Sink", "Tell", "TooLong", "WorkerDied", "audit_file_rows", "hash_file", "ingest",
           "parse_started_at", "plan_jobs", "profile_label", "run_job", "spool", "usable_workers"]


def ingest(paths: list[str], db: str, profile: str = "home-open", options: tuple[tuple[str, str], ...] = (),
           workers: int = 1, progress: Callable[[IngestProgress], None] | None = None,
           tell: Tell | None = None, max_stream: int = MAX_STREAM) -> IngestSummary:
    """Audit ``paths`` and store them in the database ``db``; returns what was done.

    A named path that does not exist, or a folder that cannot be listed, raises ``InputError`` before anything
    is written. A file that cannot be read is skipped (and ``tell``-ed); the others still go in. A worker that
    dies stops the run (``WorkerDied``) and Ctrl-C stops it (``Interrupted``): the database then holds the files
    before the one being written, each whole. ``progress`` is called as hands are read (about every 250 hands,
    and as each file ends).
    """
    from audit.profile import load_profile
    from audit.read import expand_paths

    start = time.perf_counter()
    load_profile(profile).with_options(list(options))  # a bad profile or option stops the run before any work
    files = expand_paths(paths)
    run = _Run(files, profile, options, workers, progress, tell or silent, IngestSummary(db, files=len(files)),
               max_stream)
    # The workers are forked first, before DuckDB and Arrow are loaded here: they start at once, sharing what this
    # process imported (the parse, the engine and its ranking tables), while this process opens the database.
    # A run whose files turn out to be stored already (or fewer than the workers) leaves them idle.
    if usable_workers(workers, len(files)) > 1 and may_fork():
        from audit.dialects.house import house_line_parser

        house_line_parser()  # the house format's tables, loaded once for every worker
        run.pool = start_ingest_pool(usable_workers(workers, len(files)), run_job, fork=True, then=STORED_BEFORE)
    try:
        run.in_database(db)
    finally:
        if run.pool is not None:
            run.pool.close()
    run.summary.seconds = time.perf_counter() - start
    return run.summary


@dataclass
class _Run:
    """One ``ingest``: what it was asked, what it did (``summary``), and the workers forked for it (``pool``),
    whose first jobs may have been planned (``jobs``) and sent before the database was opened."""

    files: list[str]
    profile: str
    options: tuple[tuple[str, str], ...]
    workers: int
    progress: Callable[[IngestProgress], None] | None
    tell: Tell
    summary: IngestSummary
    max_stream: int
    pool: IngestPool | None = None
    jobs: list[IngestJob] | None = None
    scratch: str = ""  # this run's own folder: spooled input, the workers' rows

    def in_database(self, db: str) -> None:
        """The run, from its own temporary folder to the database opened and every file written."""
        self.scratch = tempfile.mkdtemp(prefix="audit-ingest-")
        try:
            if self.pool is not None and _new_database(db, self.files):
                # A new database holds no file: the files are hashed and the workers given their first ones before
                # it is created, which (DuckDB's import, the tables, the views) takes a tenth of the run
                self.jobs = self.plan(set())
                if usable_workers(self.workers, len(self.jobs)) > 1:
                    submit(self.pool, self.jobs, self.scratch)
            with _open_for_ingest(db) as store:
                self.write(store)
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def plan(self, known: set[str]) -> list[IngestJob]:
        return plan_jobs(self.files, known, self.profile, self.options, self.summary, spool_dir=self.scratch,
                         max_stream=self.max_stream)

    def write(self, store: Store) -> None:
        """Plan what is not stored yet (unless planned already), then write each file, counting and telling what
        became of it."""
        submitted = self.jobs is not None
        jobs = self.jobs if self.jobs is not None else self.plan(store.known_files())
        for failure in self.summary.failed:
            self.tell("skipped", failure.message)
        count = usable_workers(self.workers, len(jobs))
        if count < self.workers and len(jobs) > count:
            self.tell("note", f"using {counted(count, 'worker')} (one per core this machine gives the ingest)")
        keeper = ProgressKeeper(jobs, self.progress, in_order=count > 1)
        spawned: IngestPool | None = None
        current = ""
        try:
            if count <= 1:
                results = write_in_process(store, jobs, keeper)
            else:
                if self.pool is None:
                    self.pool = spawned = start_ingest_pool(count, run_job, fork=False, then=STORED_BEFORE)
                results = self._written(store, jobs, submitted)
            for job, out in results:
                current = job.path
                self.summary.add(out, self.tell, f"the database holds the files before {job.path}")
                current = ""
                keeper.finished(job, out)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted; {counted(self.summary.ingested, 'file')} ingested, each whole"
                              f"{f', {current} not' if current else ''} (the database holds only whole files)") from None
        finally:
            if spawned is not None:
                spawned.close()
                self.pool = None

    def _written(self, store: Store, jobs: list[IngestJob], submitted: bool) -> Iterator[Result]:
        """The workers' answers written in job order (sent to them now, unless they were before)."""
        assert self.pool is not None
        if not submitted:
            submit(self.pool, jobs, self.scratch)
        return write_answers(store, jobs, answers(self.pool))


def _open_for_ingest(db: str) -> Store:
    """The database opened for the run: one DuckDB thread, since the audit (this process or the workers) has the
    cores and DuckDB's own threads only add their overhead (bench/ingest.py, 100,000 hands, 2 workers: 36.7 ->
    34.3 CPU s; 20,000 hands in this process: 4.6 -> 4.2 CPU s, and no slower by the clock); DuckDB's memory
    limited to ``DUCKDB_MEMORY``, except for a database made by audit 0.1.0, whose index on ``hands`` must fit in
    memory whole."""
    store = Store.open(db, threads=1, memory_limit=DUCKDB_MEMORY)
    if store.has_index("hands"):
        store.close()
        store = Store.open(db, threads=1)
    return store


def _new_database(db: str, files: list[str]) -> bool:
    """Whether the database ``db`` is yet to be created (nothing there, not even its write-ahead log) and every
    input a plain file: those can be read before the database is opened, and a database that then cannot be
    created stops the run the same way (only later)."""
    check_db_name(db)
    if os.path.lexists(db) or os.path.lexists(db + ".wal"):
        return False
    return all(path != "-" and os.path.isfile(path) for path in files)
