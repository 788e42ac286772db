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

import datetime as dt
import hashlib
import io
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO, TextIO, cast

from audit.errors import AuditError
from audit.findings import Finding
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score,
    Show, StandPat, SummaryTotal, Uncalled,
)
from audit.pipeline import Audited, audit_blocks
from audit.read import iter_lines, split_blocks
from audit.store import DATA_TABLES, SCHEMA, FileRows, Store, hand_key

BATCH_HANDS = 250
"""Rows are turned into Arrow record batches every this many hands, so memory holds compact columns, not
millions of Python tuples, while a large file waits for its single transaction."""

_NO_HAND_ROW = ("PARSE_ERROR", "UNSUPPORTED_GAME")
_STARTED = re.compile(r"(\d{4})[/-](\d{1,2})[/-](\d{1,2})\D{1,3}(\d{1,2}):(\d{2})(?::(\d{2}))?")


def parse_started_at(text: str | None) -> dt.datetime | None:
    """``"2026/12/01 22:14:48"`` (or a site's ``2011/06/26 - 21:35:49 ET``) as a naive datetime; ``None`` if
    the text holds no readable date and time."""
    if not text:
        return None
    m = _STARTED.search(text)
    if m is None:
        return None
    y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
    try:
        return dt.datetime(y, mo, d, h, mi, s)
    except ValueError:
        return None


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
    """Rows of one table as tuples, turned into Arrow record batches every ``BATCH_HANDS`` hands."""

    def __init__(self, name: str) -> None:
        import pyarrow as pa

        self.name = name
        self.schema = pa.schema([(col, _arrow_type(typ)) for col, typ in SCHEMA[name]])
        self.rows: list[tuple[Any, ...]] = []
        self.batches: list[Any] = []

    def flush(self) -> None:
        import pyarrow as pa

        if not self.rows:
            return
        columns = list(zip(*self.rows))
        arrays = [pa.array(col, type=f.type) for col, f in zip(columns, self.schema)]
        self.batches.append(pa.RecordBatch.from_arrays(arrays, schema=self.schema))
        self.rows = []

    def table(self) -> Any:
        import pyarrow as pa

        self.flush()
        return pa.Table.from_batches(self.batches, schema=self.schema)


def _arrow_type(duck: str) -> Any:
    import pyarrow as pa

    types = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
             "TIMESTAMP": pa.timestamp("us"), "DATE": pa.date32(), "DOUBLE": pa.float64(),
             "VARCHAR[]": pa.list_(pa.string())}
    return types[duck]


def _join(cards: Iterable[str] | None) -> str | None:
    return None if cards is None else " ".join(cards)


def _action_row(item: Any, street: str) -> tuple[Any, ...] | None:
    """(line, street, player, kind, amount, to_amount, all_in, timed_out, took, cards, detail) of a body item."""
    kind = type(item)
    if kind is Action:
        a = cast(Action, item)
        return (a.line, street, a.player, a.kind, a.amount, a.to, a.all_in, a.timed_out, a.took, None, None)
    if kind is Dealt:
        d = cast(Dealt, item)
        return (d.line, street, d.player, "dealt", None, None, None, None, None,
                " | ".join(" ".join(g) for g in d.groups), None)
    if kind is Post:
        p = cast(Post, item)
        return (p.line, street, p.player, f"post {p.kind}", p.amount, None, p.all_in, None, None, None, None)
    if kind is Discard:
        di = cast(Discard, item)
        return (di.line, street, di.player, "discard", di.count, None, None, None, di.took, _join(di.cards), None)
    if kind is StandPat:
        s = cast(StandPat, item)
        return (s.line, street, s.player, "stand pat", None, None, None, s.timed_out, s.took, None, None)
    if kind is Show:
        sh = cast(Show, item)
        return (sh.line, street, sh.player, "show", None, None, None, None, None, _join(sh.cards), sh.description)
    if kind is Collect:
        c = cast(Collect, item)
        return (c.line, street, c.player, "collect", c.amount, None, None, None, None, None, c.pot)
    if kind is Uncalled:
        u = cast(Uncalled, item)
        return (u.line, street, u.player, "uncalled returned", u.amount, None, None, None, None, None, None)
    if kind is Muck:
        m = cast(Muck, item)
        return (m.line, street, m.player, "muck", None, None, None, None, None, None, None)
    if kind is Parole:
        pa_ = cast(Parole, item)
        return (pa_.line, street, pa_.player, f"parole {pa_.kind}", None, None, None, None, pa_.took, None, None)
    if kind is NoPlay:
        n = cast(NoPlay, item)
        return (n.line, street, n.player, n.kind, None, None, None, None, None, None, None)
    if kind is DeckLine:
        dl = cast(DeckLine, item)
        return (dl.line, street, None, "deck", None, None, None, None, None, _join(dl.cards), None)
    if kind is Reshuffle:
        r = cast(Reshuffle, item)
        return (r.line, street, None, "reshuffle", None, None, None, None, None, _join(r.cards), None)
    if kind is Score:
        sc = cast(Score, item)
        return (sc.line, street, sc.player, "score", sc.points, None, None, None, None, None, None)
    if kind is Event:
        e = cast(Event, item)
        return (e.line, street, e.player, "event", None, None, None, None, None, None,
                f"{e.kind}: {e.text}" if e.text else e.kind)
    return None  # Marker, SummaryTotal: they shape the hand row and the street column instead


class FileBuilder:
    """Turns the ``Audited`` items of one file into the rows of every table."""

    def __init__(self, sha256: str, file: str) -> None:
        self.sha = sha256
        self.file = file
        self.tables = {name: _Table(name) for name in DATA_TABLES}
        self.hands = 0
        self.parse_errors = 0
        self.findings = 0
        self.skipped_hands = 0
        self._since_flush = 0

    def add(self, audited: Audited) -> None:
        """Add one item of ``audit_file``'s output."""
        result = audited.result
        key: str | None = None
        if result is not None:
            key = self._hand(result, audited)
        elif audited.failure is not None:
            f = audited.failure
            key = hand_key(self.sha, f.first_line)
            self.tables["parse_errors"].rows.append(
                (key, self.sha, f.hand_id, self.file, audited.session, audited.profile, f.line, f.column,
                 f.first_line, f.end_line, f.message))
            self.parse_errors += 1
        for finding in audited.findings:
            fkey = key
            if fkey is None and finding.rule in _NO_HAND_ROW:
                fkey = hand_key(self.sha, finding.line)
                if audited.failure is None:
                    self._unreplayed(finding, fkey, audited)
            self._finding(finding, fkey)
        self._since_flush += 1
        if self._since_flush >= BATCH_HANDS:
            for t in self.tables.values():
                t.flush()
            self._since_flush = 0

    def _unreplayed(self, finding: Finding, key: str, audited: Audited) -> None:
        """A hand that was read but not replayed: an unsupported game, or one the engine could not follow."""
        if finding.rule == "UNSUPPORTED_GAME":
            self.skipped_hands += 1
            return
        self.tables["parse_errors"].rows.append(
            (key, self.sha, finding.hand, self.file, audited.session, audited.profile, finding.line, None,
             finding.line, None, finding.message))
        self.parse_errors += 1

    def _finding(self, f: Finding, key: str | None) -> None:
        self.tables["findings"].rows.append(
            (key, self.sha, f.hand, self.findings, self.file, f.session, f.rule, f.severity, f.player, f.street,
             f.line, f.message, f.expected, f.actual))
        self.findings += 1

    def _hand(self, result: Any, audited: Audited) -> str:
        hand: Hand = result.hand
        sha = self.sha
        key = hand_key(sha, hand.line)
        hid = hand.hand_id
        game = hand.game
        self.tables["hands"].rows.append(
            (key, sha, self.file, hand.line, hand.end_line, hid, audited.session, result.profile, hand.dialect,
             game.name if game else "5 Card Draw", game.betting if game else None,
             (game.currency or None) if game else None, hand.table, parse_started_at(hand.started_at),
             hand.started_at or None, hand.button, len(hand.seats), len(result.dealt_in), result.pot_total,
             result.rake, hand.carried, result.redeal))
        self.hands += 1
        dealt = set(result.dealt_in)
        seats = self.tables["seats"].rows
        for s in hand.seats:
            p = s.player
            seats.append((key, sha, hid, s.seat, p, s.line, s.sitting_out, p in dealt, s.chips,
                          result.end_stacks.get(p), result.contributions.get(p, 0),
                          result.should_receive.get(p, 0), result.received.get(p, 0)))
        actions = self.tables["actions"].rows
        street = "pre"
        seq = 0
        for item in hand.body:
            kind = type(item)
            if kind is Marker:
                street = cast(Marker, item).street
                continue
            if kind is SummaryTotal:
                continue
            row = _action_row(item, street)
            if row is not None:
                actions.append((key, sha, hid, seq) + row)
                seq += 1
        pots = self.tables["pots"].rows
        awards = self.tables["awards"].rows
        for i, pot in enumerate(result.pots):
            pots.append((key, sha, hid, i, pot["name"], pot["amount"], list(pot["eligible"]),
                         list(pot["winners"])))
            should: dict[str, int] = pot["awards"]
            got: dict[str, int] = pot["collected"]
            order = [p for p in pot["eligible"] if p in should or p in got]
            order += sorted(p for p in set(should) | set(got) if p not in order)
            for p in order:
                awards.append((key, sha, hid, i, pot["name"], p, should.get(p, 0), got.get(p, 0)))
        return key

    def finish(self, path: str, size: int, default_profile: str) -> FileRows:
        return FileRows(self.sha, path, size, default_profile,
                        {name: t.table() for name, t in self.tables.items()}, self.hands, self.parse_errors,
                        self.findings, self.skipped_hands)


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
