"""``audit ingest``: audit files and store what the audit learnt, one file per transaction.

Each file is audited whole (read → parse → replay → session checks, as ``audit check`` does) and its rows go to
DuckDB as they are made, a batch at a time, inside the file's one transaction (``Store.begin_file`` …
``Store.commit_file``): memory stays bounded however large the file, and a failure or a kill leaves the database
as it was before that file. With ``workers > 1`` whole files are audited in worker processes, which write their
rows to Arrow stream files in a temporary folder; the main process reads them back a batch at a time and writes
the files in the order they were named: the database is the same as a single-process run's, because every key is
derived from the file's SHA-256 and line numbers.

A file is hashed before it is audited; a hash already in the database (or seen earlier in the same run) is
skipped without auditing. The bytes parsed are hashed again as they are read, and that hash must match.
Standard input, a pipe or a device is first copied to the temporary folder (hashed on the way, and refused
at its first bytes if they are not text), so that it is read like a file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Generic, TypeVar, cast

from audit.errors import AuditError, InputError, Interrupted, NotAHandHistory
from audit.pipeline import Audited, audit_blocks
from audit.read import iter_lines, open_input, split_blocks
from audit.store.db import FileRows, Store, check_db_name
from audit.store.rows import KEYED, RowBuilder, Runs, parse_started_at
from audit.store.schema import DATA_TABLES, SCHEMA, arrow_schema
from audit.textout import counted
from audit.workers import WorkerDied, cores, fork_workers, how_it_ended, start_workers, stop_workers

BATCH_HANDS = 250
"""Rows are turned into Arrow record batches every this many hands (compact columns, not Python tuples)."""
APPEND_ROWS = 20_000
"""Rows of one table handed to DuckDB at a time, inside the file's transaction (fewer, larger inserts cost less
CPU; 20,000 rows of actions take about 3 MB)."""
DUCKDB_MEMORY = "80MB"
"""DuckDB's memory while ingesting: a large file's uncommitted rows beyond it wait in DuckDB's temporary files
(bench/bigfile.py --ingest: a 1 GB file in one transaction stays under 300 MB in all: 283 MB at 80 MB; at 96 MB,
until issue 31's third round, 297 MB before that round and 301 MB after it, at the same CPU time). Not for a database made by
audit 0.1.0, whose index on ``hands`` must fit in memory whole when a file commits."""
SPILL_COMPRESSED = 32 << 20
"""A worker compresses the rows it spills (lz4: a fifth of the disk) for an input file larger than this; a smaller
file's rows go uncompressed, which saves the two processes 9% of their CPU time (bench/ingest.py, 2,000-hand
files) for a few megabytes of temporary disk."""
MAX_WORKERS = 64
QUEUED = 2
"""Files a worker holds at most: the one it audits and the next (``WorkerPool.run``)."""
"""The most ``--workers`` accepted; a run uses at most one worker per core (and per file)."""
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
SPILL_BYTES = 128 * 1024
"""A worker writes the rows of a file this large to Arrow stream files, which the main process reads in place
(mapped, not copied): over the pipe, a file of 1,000 hands is 6 MB of pickled Arrow tables, copied five times
between the two processes, and a worker cannot send it while the main process writes the database. A smaller
file's rows come back over the pipe: a few files on disk per file would cost more than its audit."""
MAX_STREAM = 1 << 30
"""The most bytes read from standard input, a pipe or a device (``ingest --max-stream``): each is copied to a
temporary file before it is audited, and an endless one (``yes | audit ingest -``) would fill the disk."""

__all__ = ["FileBuilder", "FileFailure", "IngestJob", "IngestProgress", "IngestSummary", "WorkerDied", "WorkerPool",
           "audit_file_rows", "ingest", "parse_started_at", "plan_jobs", "run_job"]


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


class TooLong(AuditError):
    """A stream longer than ``--max-stream``: the run stops before anything is stored."""


def spool(source: BinaryIO, name: str, folder: str, limit: int | None = None) -> tuple[str, str, int]:
    """Copy a stream that cannot be read twice (standard input, a pipe, a device) to a file in ``folder``:
    (its path, SHA-256, size). Its first bytes are checked first: binary data is refused at once (``/dev/zero``
    would otherwise be copied forever); a stream longer than ``limit`` bytes is ``TooLong`` (the copy
    removed)."""
    from audit.read import _sniff_encoding

    sha = hashlib.sha256()
    size = 0
    fd, path = tempfile.mkstemp(prefix="input-", suffix=".txt", dir=folder)
    with os.fdopen(fd, "wb") as out:
        first = True
        while True:
            try:
                chunk = source.read(1 << 20)
            except OSError as exc:
                raise InputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
            if not chunk:
                break
            if first:
                _sniff_encoding(chunk[:4096], name)
                first = False
            sha.update(chunk)
            size += len(chunk)
            if limit is not None and size > limit:
                out.close()
                _unlink(path)
                raise TooLong(f"{name}: longer than {_size(limit)} (--max-stream); nothing was stored. Save it "
                              "to a file and ingest the file, or raise --max-stream")
            try:
                out.write(chunk)
            except OSError as exc:  # the machine's fault (a full disk), not the input's: the run stops
                raise AuditError(f"{name}: copying it to {folder} failed ({exc.strerror or exc})") from None
    return path, sha.hexdigest(), size


# ---------------------------------------------------------------------------------------------- rows
class _Table:
    """One table of a file: its Arrow schema, and the record batches kept when nothing takes them."""

    def __init__(self, name: str, sha256: str = "", file: str = "") -> None:
        self.name = name
        self.schema = arrow_schema(name)
        self.batches: list[Any] = []
        names = self.schema.names
        # actions.card_list is made here from actions.cards (Arrow's string kernels: a Python list per line
        # cost a tenth of the rows' time)
        self.card_list = names.index("card_list") if name == "actions" else -1
        self.cards = names.index("cards") if name == "actions" else -1
        self.keyed = name in KEYED  # hand_key, file_sha and hand_id come as runs (``audit.store.rows.Runs``)
        self.sha256 = sha256
        self.file = file

    def batch(self, columns: list[Any], runs: Runs | None = None) -> Any:
        """A record batch from one list of values per column (``None`` for empty columns); for a ``KEYED`` table
        the key columns from ``runs``, for ``hands`` the file's hash and name (``RowBuilder.take_parts``).

        The values that repeat on every row are made by Arrow, not from a Python list each: the file's hash
        (``pa.repeat``) and each hand's key and id (a run-end encoded array, decoded), the same string arrays
        as before (a third of the batch's time was these columns)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        fields = list(self.schema)
        if self.keyed:
            assert runs is not None
            n = runs.rows
            if not n:
                return None
            first: list[Any] = [_repeated(runs, runs.keys, fields[0].type),
                                pa.repeat(pa.scalar(self.sha256, type=fields[1].type), n),
                                _repeated(runs, runs.hand_ids, fields[2].type)]
        elif self.name == "hands":
            n = len(columns[0]) if columns else 0
            if not n:
                return None
            first = [pa.array(columns[0], type=fields[0].type), pa.repeat(pa.scalar(self.sha256, type=fields[1].type), n),
                     pa.repeat(pa.scalar(self.file, type=fields[2].type), n)]
        else:
            if not columns or not len(columns[0]):
                return None
            first = []
        arrays = first + [pa.array(col, type=f.type) for col, f in zip(columns[len(first):], fields[len(first):])]
        if self.card_list >= 0:
            cards = pc.replace_substring(arrays[self.cards], pattern=" | ", replacement=" ")
            arrays[self.card_list] = pc.split_pattern(cards, pattern=" ")
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def table(self) -> Any:
        import pyarrow as pa

        return pa.Table.from_batches(self.batches, schema=self.schema)


def _repeated(runs: Runs, values: list[str], typ: Any) -> Any:
    """``values`` (one per run of ``runs``) repeated once per row, as a plain Arrow array of type ``typ``. A run-end
    encoded array decoded by Arrow, where the runs are long enough to pay for its fixed cost (the actions: two
    dozen rows a hand); a Python list of every row's value for short runs (seats, pots, awards). The run-end
    array is made from its parts without the validation ``RunEndEncodedArray.from_arrays`` runs (90 µs a call):
    ``Runs`` holds positive, rising ends by construction."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if runs.rows < 8 * len(runs.ends):
        return pa.array(runs.expand(values), type=typ)
    ree = pa.Array.from_buffers(pa.run_end_encoded(pa.int32(), typ), runs.rows, [None],
                                children=[pa.array(runs.ends, type=pa.int32()), pa.array(values, type=typ)])
    return pc.run_end_decode(ree)


_WIDTHS = {name: len(SCHEMA[name]) for name in DATA_TABLES}
Sink = Callable[[str, Any], None]
"""Takes one record batch of a table as soon as it is made: ``sink(table name, batch)``."""


class FileBuilder:
    """The rows of one file (``audit.store.rows``, compiled) as Arrow record batches, one every ``BATCH_HANDS`` hands,
    handed to ``sink`` as they are made (kept, without a sink)."""

    def __init__(self, sha256: str, file: str, sink: Sink | None = None,
                 on_hands: Callable[[int], None] | None = None) -> None:
        self.rows = RowBuilder(sha256, file)
        self.tables = {name: _Table(name, sha256, file) for name in DATA_TABLES}
        self.sink = sink
        self.on_hands = on_hands  # told the hands read, at every flush
        self._since_flush = 0
        self._hands_told = 0

    def add(self, audited: Audited) -> None:
        """Add one item of ``audit_file``'s output."""
        self.rows.add(audited)
        self._since_flush += 1
        if self._since_flush >= BATCH_HANDS:
            self.flush()

    def flush(self) -> None:
        cols, runs = self.rows.take_parts(_WIDTHS)
        for name, columns in cols.items():
            table = self.tables[name]
            batch = table.batch(columns, runs.get(name))
            if batch is None:
                continue
            if self.sink is None:
                table.batches.append(batch)
            else:
                self.sink(name, batch)
        self._since_flush = 0
        if self.on_hands is not None:
            read = self.rows.hands + self.rows.parse_errors + self.rows.skipped_hands
            self.on_hands(read - self._hands_told)
            self._hands_told = read

    def finish(self, path: str, size: int, default_profile: str) -> FileRows:
        self.flush()
        b = self.rows
        tables = {} if self.sink is not None else {name: t.table() for name, t in self.tables.items()}
        return FileRows(b.sha, path, size, default_profile, tables, b.hands, b.parse_errors, b.findings,
                        b.skipped_hands)


class _StoreSink:
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


class _SpillSink:
    """A worker's batches, written to one Arrow stream file per table (``prefix<table>.arrows``), compressed
    for a large file only (``SPILL_COMPRESSED``)."""

    def __init__(self, prefix: str, compress: bool = False) -> None:
        self.prefix = prefix
        self.compress = compress
        self.writers: dict[str, Any] = {}
        self.paths: dict[str, str] = {}

    def __call__(self, table: str, batch: Any) -> None:
        import pyarrow as pa

        writer = self.writers.get(table)
        if writer is None:
            path = f"{self.prefix}{table}.arrows"
            compression = "lz4" if self.compress and pa.Codec.is_available("lz4") else None
            writer = pa.ipc.new_stream(path, batch.schema, options=pa.ipc.IpcWriteOptions(compression=compression))
            self.writers[table] = writer
            self.paths[table] = path
        writer.write_batch(batch)

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()
        self.writers.clear()

    def discard(self) -> None:
        self.close()
        for path in self.paths.values():
            _unlink(path)


def _size(n: int) -> str:
    """``n`` bytes as a person writes it: ``1 GB``, ``512 KB``, ``1,000 bytes``."""
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------- jobs
@dataclass(frozen=True)
class IngestJob:
    """One file to audit: its name (``-``: standard input), the profile for files without a ``Profile:`` line,
    and where its bytes are (``source``: a spooled copy; else ``data`` in memory, else ``path`` itself)."""

    path: str
    profile: str
    options: tuple[tuple[str, str], ...] = ()
    data: bytes | None = None
    size: int = 0
    sha256: str = ""  # hashed by the planner; the bytes parsed are checked against it
    source: str = ""


@dataclass(frozen=True)
class FileFailure:
    """A file that could not be audited: skipped and reported, or (``fatal``) the reason the run stopped."""

    path: str
    message: str
    internal: bool = False  # not the file's fault: a bug to report (the run exits 2)
    fatal: bool = False  # not the file's fault: the machine (a full disk); the run stops
    not_log: bool = False  # no hand history at all (a README a shell glob gave): said, and no failure


def file_failure(path: str, exc: AuditError) -> FileFailure:
    """Why the file at ``path`` was left out: it cannot be read as a log, or it is no hand history at all."""
    return FileFailure(path, str(exc), not_log=isinstance(exc, NotAHandHistory))


def profile_label(name: str, options: Iterable[tuple[str, str]]) -> str:
    """``qdan`` or ``qdan (joker=wild)``: the profile given on the command line, as stored in ``files``."""
    opts = ", ".join(f"{k}={v}" for k, v in options)
    return f"{name} ({opts})" if opts else name


def audit_file_rows(job: IngestJob, progress: Callable[[int], None] | None = None,
                    sink: Sink | None = None, on_hands: Callable[[int], None] | None = None) -> FileRows:
    """Audit one file into the rows of every table (raises ``AuditError`` if it cannot be read at all).

    The rows are keyed by ``job.sha256`` (hashed first when not given) and handed to ``sink`` as they are made
    (kept in the returned ``FileRows`` without one); the bytes parsed are hashed as they are read, and a file
    that changed in between is refused rather than stored under the wrong hash. ``progress`` is told the bytes
    read, ``on_hands`` the hands read (every few hundred).
    """
    import io

    from audit.profile import load_profile

    profile = load_profile(job.profile).with_options(list(job.options))
    name = "<stdin>" if job.path == "-" else job.path
    sha = job.sha256
    if job.data is not None:
        raw: BinaryIO = io.BytesIO(job.data)
        sha = sha or hashlib.sha256(job.data).hexdigest()
    else:
        source = job.source or job.path
        try:
            sha = sha or hash_file(source)[0]
        except OSError as exc:
            raise AuditError(f"{name}: cannot be read ({exc.strerror})") from None
        raw = open_input(source, name)
    builder = FileBuilder(sha, name, sink, on_hands)
    notices: list[str] = []
    with raw:
        reader = _HashingReader(raw, progress)
        blocks = split_blocks(iter_lines(cast(BinaryIO, reader), name), name)
        for audited in audit_blocks(blocks, profile, notices=notices):
            builder.add(audited)
        reader.drain()
    if reader.sha.hexdigest() != sha:
        raise AuditError(f"{name}: the file changed while it was being read; ingest it again")
    rows = builder.finish(name, reader.size, profile_label(job.profile, job.options))
    rows.notices = notices
    return rows


def run_job(job: IngestJob, spill_prefix: str | None = None) -> FileRows | FileFailure:
    """Worker entry point: a file's rows (written to Arrow stream files named ``spill_prefix…`` when given), or
    why it was skipped (never raises)."""
    sink = (_SpillSink(spill_prefix, job.size > SPILL_COMPRESSED)
            if spill_prefix is not None and job.size >= SPILL_BYTES else None)
    try:
        rows = audit_file_rows(job, sink=sink)
        if sink is not None:
            sink.close()
            rows.spill = dict(sink.paths)
        return rows
    except AuditError as exc:
        out = file_failure(job.path, exc)
    except OSError as exc:  # writing the rows failed (a full disk): the machine's fault, not the file's
        out = FileFailure(job.path, f"writing the rows of {job.path} to {exc.filename or 'a temporary file'} "
                                    f"failed ({exc.strerror or exc})", fatal=True)
    except Exception as exc:  # a bug must not lose the other files; it is reported and the run exits 2
        out = FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)
    if sink is not None:
        sink.discard()
    return out


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
    not_logs: int = 0  # files that are no hand history (said, left out, and no failure)
    seconds: float = 0.0
    STORE = "database"  # where the files went, as the summary names it

    def add(self, out: FileRows | FileFailure | None, tell: Tell, kept: str) -> None:
        """Count what became of one file (its rows stored, why it was skipped, or ``None``: stored already) and
        ``tell`` it. A ``fatal`` failure stops the run: ``AuditError``, ending with ``kept`` (what is kept)."""
        if out is None:
            self.already += 1
        elif isinstance(out, FileFailure):
            if out.fatal:
                raise AuditError(f"{out.message}; {kept}")
            if out.not_log:
                self.not_logs += 1
                tell("note", out.message)
                return
            self.failed.append(out)
            tell("skipped", out.message if not out.internal
                 else f"{out.path}: an internal error (please report it): {out.message}")
        else:
            for note in out.notices:
                tell("note", note)
            self.ingested += 1
            self.hands += out.hands
            self.parse_errors += out.parse_errors
            self.findings += out.findings
            self.skipped_hands += out.skipped_hands
            tell("stored", f"ingested {out.path}: {counted(out.hands, 'hand')}, {counted(out.findings, 'finding')}")

    def line(self) -> str:
        """The one-line summary printed at the end."""
        extra = [f"{self.already} already in the {self.STORE}"] if self.already else []
        if self.failed:
            extra.append(f"{len(self.failed)} skipped")
        if self.not_logs:
            extra.append(f"{self.not_logs} not {'a hand history' if self.not_logs == 1 else 'hand histories'}")
        if self.skipped_hands:
            extra.append(f"{counted(self.skipped_hands, 'hand')} of another game")
        note = f" ({', '.join(extra)})" if extra else ""
        rate = f", {self.hands / self.seconds:,.0f} hands/s" if self.seconds > 0 and self.hands else ""
        return (f"{counted(self.ingested, 'file')} ingested{note}: {counted(self.hands, 'hand')}, "
                f"{counted(self.findings, 'finding')}, {counted(self.parse_errors, 'unreadable hand')} in "
                f"{self.seconds:.1f} s{rate} -> {self.db}")


@dataclass
class IngestProgress:
    """How far a run is, as given to ``ingest(progress=...)`` (several times a second at most)."""

    files: int  # files to audit (those not already in the database)
    done: int = 0  # files finished
    hands: int = 0  # hands read so far, the current file's included
    bytes_done: int = 0
    bytes_total: int = 0
    current: str = ""  # the file being read ("" between files)
    started: float = field(default_factory=time.monotonic)

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float:
        """Hands per second so far."""
        seconds = self.seconds
        return self.hands / seconds if seconds > 0 else 0.0


Tell = Callable[[str, str], None]
"""Receives what a run has to say, as ``(kind, text)``: ``skipped`` (a file that could not be audited, and why),
``note`` (an option a file overrides, the workers used) and ``stored`` (a file committed, with its counts)."""


def _silent(kind: str, text: str) -> None:
    pass


def plan_jobs(files: list[str], known: set[str], profile: str, options: tuple[tuple[str, str], ...],
              summary: IngestSummary, stdin: BinaryIO | None = None, spool_dir: str | None = None,
              max_stream: int = MAX_STREAM) -> list[IngestJob]:
    """Jobs for the files not yet in the database (by content hash); unreadable files go to ``summary``.

    Standard input, pipes and devices are copied to ``spool_dir`` first (read in memory without one), up to
    ``max_stream`` bytes each (``TooLong`` past it: the run stops before anything is stored)."""
    jobs: list[IngestJob] = []
    seen = set(known)
    for path in files:
        data: bytes | None = None
        source = ""
        try:
            if path == "-":
                stream = stdin or sys.stdin.buffer
                if spool_dir is None:
                    data = stream.read(max_stream + 1)
                    if len(data) > max_stream:
                        raise TooLong(f"<stdin>: longer than {_size(max_stream)} (--max-stream); nothing was "
                                      "stored")
                    sha, size = hashlib.sha256(data).hexdigest(), len(data)
                else:
                    source, sha, size = spool(stream, "<stdin>", spool_dir, max_stream)
            elif not stat.S_ISREG(os.stat(path).st_mode) and spool_dir is not None:
                with open_input(path, path) as stream:
                    source, sha, size = spool(stream, path, spool_dir, max_stream)
            else:
                sha, size = hash_file(path)
        except InputError as exc:
            summary.failed.append(FileFailure(path, str(exc)))
            continue
        except OSError as exc:
            summary.failed.append(FileFailure(path, f"{path}: cannot be read ({exc.strerror})"))
            continue
        if sha in seen:
            summary.already += 1
            if source:
                _unlink(source)
            continue
        seen.add(sha)
        jobs.append(IngestJob(path, profile, options, data, size, sha, source))
    return jobs


def usable_workers(asked: int, files: int) -> int:
    """Worker processes for a run: at most one per core this process may use, and one per file."""
    return max(1, min(asked, cores(), files, MAX_WORKERS))


Outcome = TypeVar("Outcome")


class WorkerPool(Generic[Outcome]):
    """Worker processes that audit whole files, one at a time each, and answer over a pipe: ``task(job, spill
    prefix)`` runs in the worker for each job (``run_job`` for the database, a lake writer for ``--lake``).

    A worker that ends without answering (killed by the out-of-memory killer or ``kill -9``) is noticed at once
    (``WorkerDied``), where a ``multiprocessing.Pool`` would wait for it forever. The workers ignore Ctrl-C: the
    main process stops them, so no worker prints a traceback of its own."""

    def __init__(self, workers: int, task: Callable[[IngestJob, str], Outcome], fork: bool = False) -> None:
        """``fork``: forked from this process (``can_fork`` must hold), so that they start at once with every
        module imported and the ranking tables built; else spawned, each a fresh interpreter that imports them
        again (a process that has loaded DuckDB or Arrow, or runs threads, must not be forked: a fork would copy
        their locks and thread pools half-held)."""
        if fork:
            self.procs, self.conns = fork_workers(workers, _worker_main, task)
            return
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.procs, self.conns = start_workers(ctx, workers, _worker_main, task)

    @staticmethod
    def can_fork() -> bool:
        """Whether this process may fork its workers: one thread, and neither DuckDB nor Arrow loaded yet."""
        import threading

        return (hasattr(os, "fork") and threading.active_count() == 1
                and not any(name in sys.modules for name in ("duckdb", "pyarrow")))

    def run(self, jobs: list[IngestJob], spill_dir: str,
            ahead: int) -> Iterator[tuple[IngestJob, Outcome]]:
        """The jobs' results in job order (``submit``, then ``results``)."""
        self.submit(jobs, spill_dir, ahead)
        return self.results()

    def submit(self, jobs: list[IngestJob], spill_dir: str, ahead: int) -> None:
        """Send the workers their first files now (``results`` sends the others): they start auditing while this
        process does something else (opens the database). At most ``ahead`` files are sent out or wait to be
        given; each worker is sent its next file while it audits the current one (``QUEUED``)."""
        self._jobs, self._spill_dir, self._ahead = jobs, spill_dir, ahead
        self._results: dict[int, Outcome] = {}
        self._sent: dict[int, list[int]] = {w: [] for w in range(len(self.procs))}  # worker -> its jobs, oldest first
        self._live = list(range(len(self.procs)))
        self._dead_at = len(jobs)  # the first job whose worker died
        self._death = ""
        self._next_job = self._next_out = 0
        self._send()

    def _send(self) -> None:
        """Files to the workers that hold fewer than ``QUEUED``: every worker its first file before any its
        second, and a second only while the files left outnumber the workers (at the end, a file waiting behind
        another could have gone to a worker left idle)."""
        jobs, sent, live = self._jobs, self._sent, self._live
        for depth in range(1, QUEUED + 1):
            for w in live:
                if (len(sent[w]) < depth and self._next_job < min(self._dead_at, len(jobs))
                        and self._next_job - self._next_out < self._ahead
                        and (depth == 1 or len(jobs) - self._next_job > len(live))):
                    sent[w].append(self._next_job)
                    try:
                        self.conns[w].send((jobs[self._next_job], os.path.join(self._spill_dir,
                                                                               f"{self._next_job}-")))
                    except OSError:
                        pass  # the worker is gone: its sentinel says so in ``results``
                    self._next_job += 1

    def results(self) -> Iterator[tuple[IngestJob, Outcome]]:
        """The results of the jobs ``submit`` was given, in job order. When a worker dies, the files before its
        file are still given, then ``WorkerDied`` names it.

        The files to send are sent before each result is given: the caller writes the database between results,
        and a worker that had to wait for its next file meanwhile sat idle (a fifth of the workers' time, 20 files
        of 1,000 hands, when each file was sent once the result before it had been written)."""
        from multiprocessing.connection import wait

        jobs, results, sent, live = self._jobs, self._results, self._sent, self._live
        while self._next_out < len(jobs):
            if self._next_out == self._dead_at:
                raise WorkerDied(self._death)
            self._send()
            if self._next_out in results:
                yield jobs[self._next_out], results.pop(self._next_out)
                self._next_out += 1
                continue
            busy = [w for w in live if sent[w]]
            if not busy:  # pragma: no cover - every job before the dead one is with a live worker or done
                raise WorkerDied(self._death)
            ready = wait([self.conns[w] for w in busy] + [self.procs[w].sentinel for w in busy])
            for w in busy:
                conn = self.conns[w]
                if conn in ready or conn.poll():
                    try:
                        results[sent[w][0]] = conn.recv()
                        sent[w].pop(0)
                        continue
                    except (EOFError, OSError):
                        pass
                if self.procs[w].sentinel in ready or not self.procs[w].is_alive():
                    index = sent[w][0]
                    sent[w] = []
                    live.remove(w)
                    self.procs[w].join(timeout=5)  # its exit status
                    if index < self._dead_at:
                        self._dead_at, self._death = index, _death(jobs[index].path, self.procs[w].exitcode)

    def close(self) -> None:
        """Stop every worker (they hold nothing that needs saving) and wait for them."""
        stop_workers(self.procs, self.conns)


def _death(path: str, exitcode: int | None) -> str:
    return (f"the worker process auditing {path} ended without finishing it: {how_it_ended(exitcode)}; the files "
            "before it are stored. Run the ingest again (with fewer --workers if memory is short)")


def _worker_main(conn: Any, task: Callable[[IngestJob, str], object]) -> None:
    """A worker: audit the files the main process sends, one at a time, until the pipe closes."""
    while True:
        try:
            job, prefix = conn.recv()
        except (EOFError, OSError):
            return
        out = task(job, prefix)
        try:
            conn.send(out)
        except OSError:  # the main process is gone (killed): nobody to answer
            return


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
    summary = IngestSummary(db, files=len(files))
    # The workers are forked first, before DuckDB and Arrow are loaded here: they start at once, sharing what this
    # process imported (the parse, the engine and its ranking tables), while this process opens the database.
    # A run whose files turn out to be stored already (or fewer than the workers) leaves them idle.
    pool: WorkerPool[FileRows | FileFailure] | None = None
    if usable_workers(workers, len(files)) > 1 and WorkerPool.can_fork():
        from audit.dialects.house import house_line_parser

        house_line_parser()  # the house format's tables, loaded once for every worker
        pool = WorkerPool(usable_workers(workers, len(files)), run_job, fork=True)
    try:
        _open_and_run(db, files, profile, options, workers, progress, tell, summary, max_stream, pool)
    finally:
        if pool is not None:
            pool.close()
    summary.seconds = time.perf_counter() - start
    return summary


def _open_and_run(db: str, files: list[str], profile: str, options: tuple[tuple[str, str], ...], workers: int,
                  progress: Callable[[IngestProgress], None] | None, tell: Tell | None, summary: IngestSummary,
                  max_stream: int, pool: WorkerPool[FileRows | FileFailure] | None) -> None:
    scratch = tempfile.mkdtemp(prefix="audit-ingest-")
    try:
        jobs: list[IngestJob] | None = None
        if pool is not None and _new_database(db, files):
            # A new database holds no file: the files are hashed and the workers given their first ones before it
            # is created, which (DuckDB's import, the tables, the views) took a tenth of the run they waited for
            jobs = plan_jobs(files, set(), profile, options, summary, spool_dir=scratch, max_stream=max_stream)
            count = usable_workers(workers, len(jobs))
            if count > 1:
                pool.submit(jobs, scratch, ahead=(QUEUED + 1) * count)
        # One DuckDB thread: the audit (this process or the workers) has the cores, and DuckDB's own threads only
        # add their overhead (bench/ingest.py, 100,000 hands, 2 workers: 36.7 -> 34.3 CPU s; 20,000 hands in this
        # process: 4.6 -> 4.2 CPU s, and no slower by the clock).
        threads = 1
        store = Store.open(db, threads=threads, memory_limit=DUCKDB_MEMORY)
        if store.has_index("hands"):  # a database made by audit 0.1.0: its index on hands must fit in memory whole
            store.close()
            store = Store.open(db, threads=threads)
        with store:
            _run(store, files, profile, options, workers, progress, tell or _silent, summary, scratch, max_stream,
                 pool, jobs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # this run's own folder: spooled input, worker rows


def _new_database(db: str, files: list[str]) -> bool:
    """Whether the database ``db`` is yet to be created (nothing there, not even its write-ahead log) and every
    input a plain file: those can be read before the database is opened, and a database that then cannot be
    created stops the run the same way (only later)."""
    check_db_name(db)
    if os.path.lexists(db) or os.path.lexists(db + ".wal"):
        return False
    return all(path != "-" and os.path.isfile(path) for path in files)


def _run(store: Store, files: list[str], profile: str, options: tuple[tuple[str, str], ...], workers: int,
         progress: Callable[[IngestProgress], None] | None, tell: Tell, summary: IngestSummary,
         scratch: str, max_stream: int = MAX_STREAM, forked: WorkerPool[FileRows | FileFailure] | None = None,
         planned: list[IngestJob] | None = None) -> None:
    """The run with its database open; ``forked``: workers started already (at least as many as needed), which
    the caller stops; ``planned``: the jobs, planned before the database was opened (a new one), and given to
    ``forked`` already when there are several workers."""
    jobs = planned if planned is not None else plan_jobs(files, store.known_files(), profile, options, summary,
                                                         spool_dir=scratch, max_stream=max_stream)
    for failure in summary.failed:
        tell("skipped", failure.message)
    count = usable_workers(workers, len(jobs))
    if count < workers and len(jobs) > count:
        tell("note", f"using {counted(count, 'worker')} (one per core this machine gives the ingest)")
    state = IngestProgress(len(jobs), bytes_total=sum(j.size for j in jobs))
    if count > 1 and jobs:
        state.current = jobs[0].path  # workers: the file the database waits for (files are stored in order)
    on_bytes = on_hands = None
    if progress is not None:
        def on_bytes(n: int) -> None:
            state.bytes_done += n

        def on_hands(n: int) -> None:
            state.hands += n
            progress(state)

        progress(state)
    current = ""
    finished_bytes = finished_hands = 0
    pool: WorkerPool[FileRows | FileFailure] | None = None
    try:
        if count <= 1:
            results = _in_process(store, jobs, on_bytes, on_hands, state)
        elif forked is not None:
            results = _written(store, jobs, forked.results() if planned is not None
                               else forked.run(jobs, scratch, ahead=(QUEUED + 1) * count))
        else:
            pool = WorkerPool(count, run_job)
            results = _written(store, jobs, pool.run(jobs, scratch, ahead=(QUEUED + 1) * count))
        for job, out in results:
            current = job.path
            summary.add(out, tell, f"the database holds the files before {job.path}")
            current = ""
            if progress is not None:  # the counts of whole files (those of the file being read were running)
                finished_bytes += job.size
                if isinstance(out, FileRows):
                    finished_hands += out.hands + out.parse_errors + out.skipped_hands
                state.done += 1
                state.current = jobs[state.done].path if count > 1 and state.done < len(jobs) else ""
                state.bytes_done, state.hands = finished_bytes, finished_hands
                progress(state)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; {counted(summary.ingested, 'file')} ingested, each whole"
                          f"{f', {current} not' if current else ''} (the database holds only whole files)") from None
    finally:
        if pool is not None:
            pool.close()


Result = tuple[IngestJob, FileRows | FileFailure | None]
"""A job and what became of it: its rows (committed), why it was skipped, or ``None``: already stored."""


def _in_process(store: Store, jobs: list[IngestJob], on_bytes: Callable[[int], None] | None,
                on_hands: Callable[[int], None] | None, state: IngestProgress) -> Iterator[Result]:
    """Audit each job in this process: a large file's rows go to the database as they are made, inside the file's
    transaction; small files' rows are kept and written several files to a transaction (``_Batch``)."""
    import duckdb

    batch = _Batch(store)
    try:
        for i, job in enumerate(jobs):
            if job.size < SMALL_FILE_BYTES:
                state.current = job.path
                try:
                    small: FileRows | FileFailure = audit_file_rows(job, on_bytes, None, on_hands)
                except AuditError as exc:
                    small = file_failure(job.path, exc)
                except Exception as exc:
                    if _interrupted(exc) or isinstance(exc, OSError):
                        raise
                    small = FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)
                yield from batch.add(job, small, _ends_batch(jobs, i))
                continue
            if not store.begin_file(job.sha256):
                yield job, None
                continue
            sink = _StoreSink(store)
            state.current = job.path
            out: FileRows | FileFailure
            try:
                out = audit_file_rows(job, on_bytes, sink, on_hands)
                sink.close()
                store.commit_file(out)
            except duckdb.Error as exc:
                store.rollback()
                if _interrupted(exc):
                    raise KeyboardInterrupt from None
                raise _write_failed(store, job.path, exc) from None
            except AuditError as exc:
                store.rollback()
                out = FileFailure(job.path, str(exc))
            except Exception as exc:
                store.rollback()
                if _interrupted(exc):
                    raise KeyboardInterrupt from None
                if isinstance(exc, OSError):
                    raise  # the machine (a full disk, a closed stderr), not the file: the command stops
                out = FileFailure(job.path, f"{type(exc).__name__}: {exc}", internal=True)
            except BaseException:
                store.rollback()
                raise
            yield job, out
        yield from batch.flush()
    finally:
        batch.abort()  # a batch left open by Ctrl-C or a failure that stops the run: rolled back


class _Batch:
    """Small files' rows written together, in one transaction, in job order (a failure or a large file first
    commits the batch, so that results keep their order). Each file's rows go into the open transaction soon
    after the file comes (``APPEND_BYTES`` of files to an insert), not all at the end: with workers, the main
    process writes while they audit the next files, instead of in one long stretch at each commit during which
    no result is taken and no file sent. A result is given once its transaction has committed."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.open = False  # a transaction is open (and holds the files of ``done``)
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
            with self._errors(first):
                if not self.open:
                    self.store.con.execute("BEGIN TRANSACTION")
                    self.open = True
                stored = self.store.append_files([out for _, out in waiting])
        finally:
            for _, out in waiting:
                for path in out.spill.values():
                    _unlink(path)
        self.done += [(job, out, s) for (job, out), s in zip(waiting, stored)]

    def flush(self) -> Iterator[Result]:
        """Commit the batch's files; each with its result (``None``: already stored)."""
        self._append()
        if not self.open:
            return
        with self._errors(self.done[0][0].path):
            self.store.con.execute("COMMIT")
            self.open = False
        done, self.done, self.size = self.done, [], 0
        for job, out, stored in done:
            yield job, out if stored else None

    def abort(self) -> None:
        """Roll back a transaction left open (Ctrl-C, or the run stopped by a failure), and drop the waiting
        files' rows: the database keeps only the batches committed."""
        if self.open:
            self.open = False
            self.store.rollback()
        for _, out in self.waiting:
            for path in out.spill.values():
                _unlink(path)
        self.done, self.waiting, self.waiting_size, self.size = [], [], 0, 0

    @contextmanager
    def _errors(self, path: str) -> Iterator[None]:
        """DuckDB's failures as the run reports them: the transaction rolled back, Ctrl-C as such, any other
        failure an ``AuditError`` naming the batch's first file."""
        import duckdb

        try:
            yield
        except duckdb.Error as exc:
            self.abort()
            if _interrupted(exc):
                raise KeyboardInterrupt from None
            raise _write_failed(self.store, path, exc) from None
        except RuntimeError as exc:
            self.abort()
            if _interrupted(exc):
                raise KeyboardInterrupt from None
            raise
        except BaseException:
            self.abort()
            raise


def _written(store: Store, jobs: list[IngestJob],
             results: Iterator[tuple[IngestJob, FileRows | FileFailure]]) -> Iterator[Result]:
    """The workers' results, written here in job order: a large file in a transaction of its own, small files
    several to a transaction (progress by whole files)."""
    batch = _Batch(store)
    try:
        for i, (job, out) in enumerate(results):
            yield from batch.add(job, out, job.size >= SMALL_FILE_BYTES or _ends_batch(jobs, i))
        yield from batch.flush()
    finally:
        batch.abort()  # a batch left open by Ctrl-C or a failure that stops the run: rolled back


def _ends_batch(jobs: list[IngestJob], i: int) -> bool:
    """Whether job ``i`` is the last of a run of small files (its batch is written without waiting for more)."""
    return i + 1 == len(jobs) or jobs[i + 1].size >= SMALL_FILE_BYTES


def _write_failed(store: Store, path: str, exc: Exception) -> AuditError:
    """What a DuckDB failure while writing ``path`` (alone or as the first of a batch) stops the run with."""
    return AuditError(f"{store.path}: writing {path} failed ({exc}); the database holds the files before it")


def _interrupted(exc: Exception) -> bool:
    """Whether DuckDB stopped because of Ctrl-C: its client turns the signal into an error of its own."""
    import duckdb

    return isinstance(exc, duckdb.InterruptException) or (
        isinstance(exc, (RuntimeError, duckdb.Error)) and "interrupt" in str(exc).lower())
