"""``audit export --parquet DIR``: every table as Parquet, partitioned by session date, never over a user's files.

``DIR/<table>/session_date=YYYY-MM-DD/*.parquet`` for every table but ``files`` (one unpartitioned file), and
``DIR/audit-export.json`` listing what was written. The partition column is a date in every table: a row's
session date is the date of its session's first hand, else its hand's own date (an unreadable hand's, when its
first line holds one), else the date of the file's first dated hand, else the day the file was ingested, so no
table lands in a partition without a date and every table reads back with a DATE ``session_date``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from audit.errors import AuditError
from audit.store.schema import ORDER_BY, SCHEMA

if TYPE_CHECKING:  # pragma: no cover
    from audit.store.db import Store

EXPORT_MANIFEST = "audit-export.json"
"""The file ``audit export`` writes into its folder: what it wrote there, so a later export may replace it."""

# Every row's date: by hand_key (a hand, an unsupported hand, an unreadable block), by session, by file.
_DATES = """
WITH hand_dates AS (
    SELECT hand_key, min(d) AS d FROM (
        SELECT hand_key, session_date AS d FROM hand_details
        UNION ALL
        SELECT p.hand_key, coalesce(s.session_date, CAST(p.started_at AS DATE)) FROM parse_errors AS p
        LEFT JOIN session_details AS s ON s.file_sha = p.file_sha AND s.session = p.session)
    GROUP BY hand_key),
file_dates AS (
    SELECT f.file_sha, coalesce(min(h.play_date), CAST(any_value(f.ingested_at) AS DATE)) AS d
    FROM files AS f LEFT JOIN hand_details AS h ON h.file_sha = f.file_sha
    GROUP BY f.file_sha)
"""


def export_parquet(store: Store, directory: str | os.PathLike[str]) -> dict[str, int]:
    """Write every table of ``store`` as Parquet under ``directory``; returns rows written per table.

    Nothing of the user's is ever removed: the export is written to a new folder beside ``directory`` and
    renamed into place. ``directory`` may be missing, empty, or a previous export (its manifest lists every
    file in it, and only those are removed); anything else is refused before anything is written."""
    from audit.store.db import _version

    target = Path(os.path.realpath(directory))  # through a link: the folder it names is the one replaced
    previous = _export_target(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.export-", dir=target.parent))
    except OSError as exc:
        raise AuditError(f"{directory}: cannot write beside it ({exc.strerror})") from None
    try:
        written, files = store._write_export(staging)
        manifest = {"written_by": "audit export", "version": _version(), "database": store.path,
                    "tables": written, "files": sorted(files)}
        (staging / EXPORT_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        _move_into_place(staging, target, previous)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # our own new folder: nothing of the user's is in it
        raise
    return written


def dated_select(table: str) -> str:
    """The rows of ``table`` with their ``session_date`` (a DATE for every row), in ``ORDER_BY`` order."""
    order = ", ".join("t." + c.strip() for c in ORDER_BY[table].split(","))
    columns = {name for name, _ in SCHEMA[table]}
    by_session = ("LEFT JOIN session_details AS s ON s.file_sha = t.file_sha AND s.session = t.session"
                  if "session" in columns else "")
    session_date = "s.session_date, " if by_session else ""
    return (_DATES + f"SELECT t.*, coalesce(hd.d, {session_date}fd.d) AS session_date FROM {table} AS t "
            f"LEFT JOIN hand_dates AS hd ON hd.hand_key = t.hand_key {by_session} "
            f"LEFT JOIN file_dates AS fd ON fd.file_sha = t.file_sha ORDER BY {order}")


def write_tables(store: Store, out: Path) -> tuple[dict[str, int], list[str]]:
    """Every table under ``out``; rows per table, and the files written (relative to ``out``). The database
    stays locked down: its rows stream as Arrow batches to a fresh in-memory DuckDB that writes the files."""
    import duckdb

    writer = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    written: dict[str, int] = {}
    try:
        for table in SCHEMA:
            target = out / table
            target.mkdir()
            select = f"SELECT * FROM files ORDER BY {ORDER_BY['files']}" if table == "files" else dated_select(table)
            row = store.one(f"SELECT count(*) FROM {table}")
            n = int(row[0]) if row else 0
            written[table] = n
            writer.register("source", store.con.sql(select).to_arrow_reader(50_000))
            quoted = str(target).replace("'", "''")
            if table == "files" or n == 0:
                writer.execute(f"COPY source TO '{quoted}/data_0.parquet' (FORMAT PARQUET)")
            else:
                writer.execute(f"COPY source TO '{quoted}' (FORMAT PARQUET, PARTITION_BY (session_date))")
            writer.unregister("source")
    finally:
        writer.close()
    files = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]
    return written, files


def _export_target(target: Path) -> list[str] | None:
    """What is in the export folder now: ``None`` if it is missing or empty, else the files of a previous export
    (relative paths). Anything else in it (a file this tool did not write, or no manifest) is refused."""
    if not target.exists():
        return None
    if not target.is_dir():
        raise AuditError(f"{target}: is a file, not a folder; name a new or empty folder for the export")
    entries: list[tuple[str, bool]] = []  # (path relative to target, is a plain folder)

    def unreadable(exc: OSError) -> None:
        raise AuditError(f"{exc.filename or target}: cannot be read ({exc.strerror}); nothing was exported")

    for root, dirs, names in os.walk(target, onerror=unreadable):
        for name in dirs + names:
            path = os.path.join(root, name)
            entries.append((os.path.relpath(path, target).replace(os.sep, "/"),
                            os.path.isdir(path) and not os.path.islink(path)))
    if not entries:
        return None
    refuse = (f"{target}: the folder holds files that 'audit export' did not write; name a new or empty folder "
              "(nothing was exported, nothing was touched; an export made by audit 0.1.0 has no "
              f"{EXPORT_MANIFEST}: remove it yourself first)")
    try:
        manifest = json.loads((target / EXPORT_MANIFEST).read_text(encoding="utf-8"))
        listed = set(manifest["files"]) if manifest.get("written_by") == "audit export" else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        listed = None
    if listed is None:
        raise AuditError(refuse)
    files: list[str] = []
    for rel, is_folder in entries:
        if is_folder:
            continue
        if rel != EXPORT_MANIFEST and rel not in listed:
            raise AuditError(refuse)
        files.append(rel)
    return files


def _move_contents(staging: Path, target: Path) -> None:
    """Move what ``staging`` holds into the empty folder ``target`` (same file system: renames), the manifest
    first: stopped half-way, ``target`` is an export its manifest describes (a later export replaces it)."""
    names = sorted(os.listdir(staging), key=lambda name: name != EXPORT_MANIFEST)
    for name in names:
        if os.path.lexists(target / name):  # made there since the folder was found empty: never replaced
            raise AuditError(f"{target / name}: appeared while the export was written; nothing of it was replaced")
        os.rename(staging / name, target / name)
    staging.rmdir()


def _move_into_place(staging: Path, target: Path, previous: list[str] | None) -> None:
    """Rename the finished export ``staging`` to ``target``: a missing folder is made so, an empty one keeps
    itself (owner, mode) and takes the export's files. A previous export there is first renamed aside, then only
    the files its manifest listed are removed (and the folders they leave empty)."""
    if previous is None and os.path.isdir(target):
        _move_contents(staging, target)  # an empty folder stays the user's: its owner, mode and links are kept
        return
    if previous is None:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(staging, 0o777 & ~mask)  # a new folder, as mkdir makes it (mkdtemp makes it private)
        os.rename(staging, target)
        return
    kept = os.stat(target)  # the new export takes the folder's mode (and owner, where the user may give it)
    os.chmod(staging, stat.S_IMODE(kept.st_mode))
    try:
        os.chown(staging, kept.st_uid, kept.st_gid)
    except OSError:
        pass
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.previous-", dir=target.parent))
    os.rename(target, aside)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(aside, target)
        raise
    for rel in previous:
        try:
            os.unlink(aside / rel)
        except FileNotFoundError:
            pass
    for folder in sorted((p for p in aside.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            pass  # not empty: something appeared in it since the check, and it stays
    try:
        aside.rmdir()
    except OSError:
        pass
