"""What a run says: the counts of ``IngestSummary`` (and its last line), ``IngestProgress`` as the run goes, and
``Tell``, the callback for its messages. Progress and messages leave the run through callbacks, so the CLI, the
lake and the service each say them their own way."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from audit.errors import AuditError
from audit.store.db import FileRows
from audit.store.ingest.jobs import FileFailure, IngestJob
from audit.textout import counted

Tell = Callable[[str, str], None]
"""Receives what a run has to say, as ``(kind, text)``: ``skipped`` (a file that could not be audited, and why),
``note`` (an option a file overrides, the workers used) and ``stored`` (a file committed, with its counts)."""


def silent(kind: str, text: str) -> None:
    """A ``Tell`` that says nothing."""


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
    STORE = "database"  # where the files went, as the summary names it

    def add(self, out: FileRows | FileFailure | None, tell: Tell, kept: str) -> None:
        """Count what became of one file (its rows stored, why it was skipped, or ``None``: stored already) and
        ``tell`` it. A ``fatal`` failure stops the run: ``AuditError``, ending with ``kept`` (what is kept)."""
        if out is None:
            self.already += 1
        elif isinstance(out, FileFailure):
            if out.fatal:
                raise AuditError(f"{out.message}; {kept}")
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


class ProgressKeeper:
    """A run's ``IngestProgress``, kept as bytes and hands are read and as files finish, and handed to
    ``progress`` (``None``: nobody asks, and nothing is counted as it is read)."""

    def __init__(self, jobs: list[IngestJob], progress: Callable[[IngestProgress], None] | None,
                 in_order: bool) -> None:
        """``in_order``: the files are audited ahead by workers and stored in order, so the file named as the
        current one is the one the database waits for."""
        self.jobs = jobs
        self.progress = progress
        self.in_order = in_order
        self.state = IngestProgress(len(jobs), bytes_total=sum(j.size for j in jobs))
        if in_order and jobs:
            self.state.current = jobs[0].path
        self._bytes = self._hands = 0  # those of whole files (the file being read's are running)
        if progress is not None:
            progress(self.state)

    @property
    def on_bytes(self) -> Callable[[int], None] | None:
        return self._read_bytes if self.progress is not None else None

    @property
    def on_hands(self) -> Callable[[int], None] | None:
        return self._read_hands if self.progress is not None else None

    def _read_bytes(self, n: int) -> None:
        self.state.bytes_done += n

    def _read_hands(self, n: int) -> None:
        self.state.hands += n
        assert self.progress is not None
        self.progress(self.state)

    def finished(self, job: IngestJob, out: FileRows | FileFailure | None) -> None:
        """One more file done, whatever became of it."""
        if self.progress is None:
            return
        state = self.state
        self._bytes += job.size
        if isinstance(out, FileRows):
            self._hands += out.hands + out.parse_errors + out.skipped_hands
        state.done += 1
        state.current = self.jobs[state.done].path if self.in_order and state.done < len(self.jobs) else ""
        state.bytes_done, state.hands = self._bytes, self._hands
        self.progress(state)
