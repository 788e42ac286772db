"""Reading an input file for the ingest: its hash and size, a reader that hashes the bytes the parser reads, and
a stream that cannot be read twice (standard input, a pipe, a device) copied to a file first."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from typing import BinaryIO

from audit.errors import AuditError, InputError

MAX_STREAM = 1 << 30
"""The most bytes read from standard input, a pipe or a device (``ingest --max-stream``): each is copied to a
temporary file before it is audited, and an endless one (``yes | audit ingest -``) would fill the disk."""


class HashingReader:
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
                unlink_quietly(path)
                raise TooLong(f"{name}: longer than {size_text(limit)} (--max-stream); nothing was stored. Save "
                              "it to a file and ingest the file, or raise --max-stream")
            try:
                out.write(chunk)
            except OSError as exc:  # the machine's fault (a full disk), not the input's: the run stops
                raise AuditError(f"{name}: copying it to {folder} failed ({exc.strerror or exc})") from None
    return path, sha.hexdigest(), size


def size_text(n: int) -> str:
    """``n`` bytes as a person writes it: ``1 GB``, ``512 KB``, ``1,000 bytes``."""
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"


def unlink_quietly(path: str) -> None:
    """Remove a temporary file of the run (gone already: nothing to do)."""
    try:
        os.unlink(path)
    except OSError:
        pass
