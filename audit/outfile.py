"""Files a command writes (``--output``): never over the database, its write-ahead log or an input of the same
command (a file it reads, or anything inside a folder it reads), through links and ``..`` too, and always through a
temporary file renamed into place, so a failed or interrupted write leaves the old file whole."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from audit.errors import AuditError


def same_file(a: str, b: str) -> bool:
    """Whether the paths ``a`` and ``b`` name one file (through links and ``..`` too); a missing file is
    compared by its resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def database_files(db: str) -> dict[str, str]:
    """The files of a DuckDB database that an output must never replace, with what each is."""
    return {db: "the database", db + ".wal": "the database's write-ahead log"}


def refuse_clobber(output: str, protected: dict[str, str]) -> None:
    """``AuditError`` (nothing written) when ``output`` is one of ``protected`` (path → what it is: the
    command's inputs), lies inside one that is a folder, or is a folder itself. Paths are compared as the files
    they name (``os.path.samefile``: links, ``..``, hard links) and by their resolved path (a file not made yet)."""
    final = os.path.realpath(output)
    protected = {path: what for path, what in protected.items() if path != "-"}
    for path, what in protected.items():
        if same_file(output, path):
            raise AuditError(f"{output}: this is {what}; write the output to another file (nothing was written)")
    for path, what in protected.items():
        folder = os.path.realpath(path)
        if os.path.isdir(folder) and final.startswith(folder.rstrip(os.sep) + os.sep):
            raise AuditError(f"{output}: this is inside {what} ({path}); an output never goes where the command "
                             "reads: write it elsewhere (nothing was written)")
    if os.path.isdir(output):
        raise AuditError(f"{output}: is a folder; name a file for --output")


@contextmanager
def atomic_output(output: str, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle on a new temporary file beside ``output``, renamed to ``output`` when the block ends without
    an error (removed otherwise). ``output`` may be a link: the file it points to is replaced. Something that is
    not a plain file (``/dev/stdout``, a pipe, a terminal) is written directly: it cannot be replaced."""
    final = os.path.realpath(output)
    if os.path.exists(final) and not stat.S_ISREG(os.stat(final).st_mode):
        try:
            direct: IO[Any] = open(final, "wb") if binary else open(final, "w", encoding="utf-8", newline="")
        except OSError as exc:
            raise AuditError(f"{output}: cannot be written ({exc.strerror})") from None
        with direct:
            yield direct
        return
    folder = os.path.dirname(final)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(final)}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise AuditError(f"{output}: cannot be written ({exc.strerror})") from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # what open() would have given a new file (mkstemp makes it private)
        handle: IO[Any] = (os.fdopen(fd, "wb") if binary
                           else os.fdopen(fd, "w", encoding="utf-8", newline=""))
        with handle:
            yield handle
        os.replace(temp, final)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
