"""Where everything of a lake lies, how a lake is recognised, and the Parquet schema of each table.

A lake is a folder::

    DIR/audit-lake.json                          what wrote it: layout and schema version, every table's columns
    DIR/<table>/part=<hh>/<sha256>.parquet       one file per table per input file (hh: the SHA-256's first two
                                                 hex digits, a Hive partition that keeps folders small)
    DIR/_tmp/                                    files being written (never read; a killed run's are swept later)

The tables and their columns are those of the database (``audit.store.schema.SCHEMA``), in the same order and
with the Arrow types ``audit ingest`` builds its rows in (``audit.store.schema.arrow_schema``). An input file's rows count once ``files/part=<hh>/<sha>.parquet``
exists: it is renamed into place last, after the data files of every other table.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.store.schema import SCHEMA, SCHEMA_VERSION

MANIFEST = "audit-lake.json"
"""The file that marks a folder as a lake, at its top."""
WRITTEN_BY = "audit ingest --lake"
LAYOUT_VERSION = 1
"""Bumped when the folders or file names change (not the columns: those are ``SCHEMA_VERSION``)."""
PARTITION = "part"
"""The Hive partition column of every table: the first two hex digits of ``file_sha``, as text."""
TEMP = "_tmp"
"""Where files are written before they are renamed into place (``_``: hidden from Hive-style readers)."""
COMMIT_TABLE = "files"
"""The table whose file, renamed into place last, marks an input file complete."""
STALE_TEMP_SECONDS = 3600
"""A temporary folder untouched this long belongs to a run that was killed; the next run removes it."""
_SHA_FILE = re.compile(r"[0-9a-f]{64}\.parquet")
_TEMP_FOLDER = re.compile(r"(?:[0-9a-f]{16}|fetched|run)-[\w]+")
"""The folders writers make under ``_tmp`` (``Lake.temp_folder``): an input file's SHA-256 prefix, ``fetched``
(a URL not hashed yet) or ``run`` (a run's copies of standard input), then a unique suffix."""
_PART_FOLDER = re.compile(rf"{PARTITION}=[0-9a-f]{{2}}")
_GLOB_CHARACTERS = set("*?[]{}")


def partition(sha256: str) -> str:
    """The partition folder of a file's rows: ``part=<first two hex digits>``."""
    return f"{PARTITION}={sha256[:2]}"


def manifest() -> dict[str, Any]:
    """What ``audit-lake.json`` says: enough for any engine to read the lake without this tool."""
    return {
        "written_by": WRITTEN_BY,
        "layout": LAYOUT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "partitioning": {"column": PARTITION, "type": "string",
                         "value": "the first two hexadecimal digits of file_sha"},
        "file_names": "<table>/part=<hh>/<file_sha>.parquet, one per table for each input file",
        "complete": f"a file's rows count once {COMMIT_TABLE}/part=<hh>/<file_sha>.parquet exists",
        "tables": {table: [[name, typ] for name, typ in cols] for table, cols in SCHEMA.items()},
    }


@dataclass(frozen=True)
class Lake:
    """An existing lake folder (``open_lake``), with the input files complete in it when it was opened."""

    root: Path
    committed: frozenset[str]

    def path(self, table: str, sha256: str) -> Path:
        """Where ``table``'s rows of the input file ``sha256`` lie once complete."""
        return self.root / table / partition(sha256) / f"{sha256}.parquet"

    def is_committed(self, sha256: str) -> bool:
        """Whether the input file ``sha256`` is in the lake now (its ``files`` file exists)."""
        return self.path(COMMIT_TABLE, sha256).is_file()

    def pattern(self, table: str) -> str:
        """The glob pattern of every Parquet file of ``table`` (for ``read_parquet``)."""
        return str(self.root / table / "*" / "*.parquet")

    def has_files(self, table: str) -> bool:
        """Whether any Parquet file of ``table`` is in place."""
        return any(True for _ in (self.root / table).glob("*/*.parquet"))

    def temp_folder(self, prefix: str) -> Path:
        """A new folder under ``_tmp`` for one writer (named from ``prefix``, made unique; see ``_TEMP_FOLDER``)."""
        folder = self.root / TEMP
        folder.mkdir(exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=folder))


def lake_root(path: str | os.PathLike[str]) -> Path:
    """The folder a ``--lake`` value names (through links), refused when DuckDB could not read it by pattern."""
    text = str(path)
    if not text.strip():
        raise AuditError("--lake is empty (is a shell variable unset?); name the lake's folder")
    if "://" in text:
        raise AuditError(f"{text}: a lake is a folder every worker can reach (a shared file system), not a URL")
    root = Path(os.path.realpath(text))
    if _GLOB_CHARACTERS & set(str(root)):
        raise AuditError(f"{text}: a lake's path may not hold any of * ? [ ] {{ }} (the lake is read through a "
                         "file pattern); name another folder")
    return root


def open_lake(path: str | os.PathLike[str], create: bool = False) -> Lake:
    """The lake at ``path``, checked whole before anything is read or written: ``audit-lake.json`` must be this
    layout and this schema, and every file in the folder one the lake writes. With ``create``, a missing or empty
    folder becomes a new lake. Anything else is an ``AuditError`` (nothing is touched)."""
    root = lake_root(path)
    if not root.exists():
        if not create:
            raise AuditError(f"{path}: no such lake (fill one with 'audit ingest PATH... --lake {path}')")
        _create(root)
        return Lake(root, frozenset())
    if not root.is_dir():
        raise AuditError(f"{path}: is a file, not a folder; name a new or empty folder, or a lake")
    try:
        empty = not any(True for _ in root.iterdir())
    except OSError as exc:
        raise AuditError(f"{path}: cannot be read ({exc.strerror})") from None
    if empty:
        if not create:
            raise AuditError(f"{path}: the folder is empty, not a lake (fill it with 'audit ingest PATH... "
                             f"--lake {path}')")
        _create(root)
        return Lake(root, frozenset())
    _check_manifest(root, path)
    committed = _check_files(root, path)
    if create:
        for table in SCHEMA:
            (root / table).mkdir(exist_ok=True)
    return Lake(root, frozenset(committed))


def _create(root: Path) -> None:
    try:
        root.mkdir(parents=True, exist_ok=True)
        for table in SCHEMA:
            (root / table).mkdir(exist_ok=True)
        write_atomically(root / MANIFEST, (json.dumps(manifest(), indent=1) + "\n").encode("utf-8"))
    except OSError as exc:
        raise AuditError(f"{exc.filename or root}: cannot create the lake there ({exc.strerror})") from None


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``target``, then rename it to ``target``."""
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, target)
    except BaseException:
        _unlink(temp)
        raise


def _not_a_lake(path: str | os.PathLike[str], why: str) -> AuditError:
    return AuditError(f"{path}: {why}; name a new or empty folder, or a lake written by '{WRITTEN_BY}' (nothing was "
                      "touched)")


def _check_manifest(root: Path, path: str | os.PathLike[str]) -> None:
    try:
        found = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _not_a_lake(path, f"the folder holds files that are not a lake's (it has no {MANIFEST})") from None
    except (OSError, ValueError):
        raise _not_a_lake(path, f"its {MANIFEST} cannot be read") from None
    if not isinstance(found, dict) or found.get("written_by") != WRITTEN_BY:
        raise _not_a_lake(path, f"its {MANIFEST} was not written by '{WRITTEN_BY}'")
    if found.get("layout") != LAYOUT_VERSION:
        raise AuditError(f"{path}: the lake has layout version {found.get('layout')}; this audit reads and writes "
                         f"version {LAYOUT_VERSION}; use a new lake")
    wanted = manifest()["tables"]
    if found.get("schema_version") != SCHEMA_VERSION or found.get("tables") != wanted:
        raise AuditError(f"{path}: the lake has schema version {found.get('schema_version')} (or other columns); "
                         f"this audit reads and writes version {SCHEMA_VERSION}; use a new lake, or load it with "
                         "the audit version that wrote it")


def _check_files(root: Path, path: str | os.PathLike[str]) -> set[str]:
    """Every entry of the lake is one of its own; the input files complete in it."""
    committed: set[str] = set()
    try:
        for entry in os.scandir(root):
            if entry.name == MANIFEST and entry.is_file(follow_symlinks=False):
                continue
            if entry.name == TEMP and entry.is_dir(follow_symlinks=False):
                _check_temp(Path(entry.path), path)
                continue
            if entry.name not in SCHEMA or not entry.is_dir(follow_symlinks=False):
                raise _not_a_lake(path, f"it holds {entry.name!r}, which is not part of a lake")
            for name in _table_files(Path(entry.path), path):
                if entry.name == COMMIT_TABLE:
                    committed.add(name[:64])
    except OSError as exc:
        raise AuditError(f"{exc.filename or path}: cannot be read ({exc.strerror}); nothing was touched") from None
    return committed


def _check_temp(folder: Path, path: str | os.PathLike[str]) -> None:
    for entry in os.scandir(folder):
        if not _TEMP_FOLDER.fullmatch(entry.name) or not entry.is_dir(follow_symlinks=False):
            raise _not_a_lake(path, f"it holds {TEMP}/{entry.name}, which is not part of a lake")


def _table_files(folder: Path, path: str | os.PathLike[str]) -> Iterator[str]:
    for part in os.scandir(folder):
        if not _PART_FOLDER.fullmatch(part.name) or not part.is_dir(follow_symlinks=False):
            raise _not_a_lake(path, f"it holds {folder.name}/{part.name}, which is not part of a lake")
        for entry in os.scandir(part.path):
            if not _SHA_FILE.fullmatch(entry.name) or not entry.is_file(follow_symlinks=False) \
                    or not entry.name.startswith(part.name[-2:]):
                raise _not_a_lake(path, f"it holds {folder.name}/{part.name}/{entry.name}, which is not part of "
                                        "a lake")
            yield entry.name


def sweep_stale_temp(lake: Lake, older_than: float = STALE_TEMP_SECONDS) -> None:
    """Remove what killed runs left under ``_tmp``: writers' folders in which nothing changed for ``older_than``
    seconds (a live writer's files change as it writes them)."""
    folder = lake.root / TEMP
    if not folder.is_dir():
        return
    now = time.time()
    for entry in os.scandir(folder):
        if not _TEMP_FOLDER.fullmatch(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            newest = max([entry.stat(follow_symlinks=False).st_mtime]
                         + [e.stat(follow_symlinks=False).st_mtime for e in os.scandir(entry.path)])
        except OSError:
            continue  # removed by its own writer meanwhile
        if now - newest >= older_than:
            shutil.rmtree(entry.path, ignore_errors=True)


def _unlink(path: str | os.PathLike[str]) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
