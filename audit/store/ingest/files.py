"""One file audited into its rows, as this process does it (``audit_file_rows``) and as a worker does it
(``run_job``, whose rows go to Arrow stream files the main process reads in place)."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from typing import Any, BinaryIO, cast

from audit.errors import AuditError
from audit.pipeline import audit_blocks
from audit.read import iter_lines, open_input, split_blocks
from audit.store.db import FileRows
from audit.store.ingest.batches import FileBuilder, Sink
from audit.store.ingest.inputs import HashingReader, hash_file, unlink_quietly
from audit.store.ingest.jobs import FileFailure, IngestJob, file_failure, profile_label

SPILL_BYTES = 128 * 1024
"""A worker writes the rows of a file this large to Arrow stream files, which the main process reads a batch at a
time (``audit.store.db.open_spilled``): over the pipe, a file of 1,000 hands is 6 MB of pickled Arrow tables,
copied five times between the two processes, and a worker cannot send it while the main process writes the
database. A smaller file's rows come back over the pipe: a few files on disk per file would cost more than its
audit."""
SPILL_COMPRESSED = 32 << 20
"""A worker compresses the rows it spills (lz4: a fifth of the disk) for an input file larger than this; a smaller
file's rows go uncompressed, which saves the two processes 9% of their CPU time (bench/ingest.py, 2,000-hand
files) for a few megabytes of temporary disk."""


def audit_file_rows(job: IngestJob, progress: Callable[[int], None] | None = None,
                    sink: Sink | None = None, on_hands: Callable[[int], None] | None = None) -> FileRows:
    """Audit one file into the rows of every table (raises ``AuditError`` if it cannot be read at all).

    The rows are keyed by ``job.sha256`` (hashed first when not given) and handed to ``sink`` as they are made
    (kept in the returned ``FileRows`` without one); the bytes parsed are hashed as they are read, and a file
    that changed in between is refused rather than stored under the wrong hash. ``progress`` is told the bytes
    read, ``on_hands`` the hands read (every few hundred).
    """
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
        reader = HashingReader(raw, progress)
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
    """A worker's task: a file's rows (written to Arrow stream files named ``spill_prefix…`` when given), or
    why it was skipped (never raises)."""
    sink = (SpillSink(spill_prefix, job.size > SPILL_COMPRESSED)
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


class SpillSink:
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
            unlink_quietly(path)
