"""Planning a run: the files named become jobs, each hashed first (a file already stored, or named twice, is no
job), and how many workers the run uses."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

from audit.errors import InputError
from audit.read import open_input
from audit.store.ingest.inputs import MAX_STREAM, TooLong, hash_file, size_text, spool, unlink_quietly
from audit.workers import cores

if TYPE_CHECKING:  # pragma: no cover
    from audit.store.ingest.progress import IngestSummary

MAX_WORKERS = 64
"""The most ``--workers`` accepted; a run uses at most one worker per core (and per file)."""


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


def profile_label(name: str, options: Iterable[tuple[str, str]]) -> str:
    """``qdan`` or ``qdan (joker=wild)``: the profile given on the command line, as stored in ``files``."""
    opts = ", ".join(f"{k}={v}" for k, v in options)
    return f"{name} ({opts})" if opts else name


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
                        raise TooLong(f"<stdin>: longer than {size_text(max_stream)} (--max-stream); nothing was "
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
                unlink_quietly(source)
            continue
        seen.add(sha)
        jobs.append(IngestJob(path, profile, options, data, size, sha, source))
    return jobs


def usable_workers(asked: int, files: int) -> int:
    """Worker processes for a run: at most one per core this process may use, and one per file."""
    return max(1, min(asked, cores(), files, MAX_WORKERS))
