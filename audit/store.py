"""The DuckDB store: the tables ``audit ingest`` fills, one transaction per file, and read-only queries over them.

Only whole files are ever in the database: a file's rows (hands, seats, actions, pots, awards, findings, parse
errors and its ``files`` row) go in with one ``INSERT … SELECT`` per table from Arrow tables, inside one
transaction, so a crash or a kill leaves the database as it was before that file. A file is known by the SHA-256
of its bytes: ingesting it again adds nothing. Row keys are derived from the file's hash and line numbers, never
from insertion order, so any number of worker processes gives the same database.

This module never imports click (the commands are in ``audit.cli_store``) and imports duckdb and pyarrow lazily
through ``Store.open``, so the CLI starts fast.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError
from audit.textout import shorten

if TYPE_CHECKING:  # pragma: no cover
    import duckdb

DEFAULT_DB = "audit.duckdb"
SCHEMA_VERSION = "1"

# Every table, its columns and DuckDB types: the one definition that the DDL, the Arrow schemas built by
# ``audit.ingest`` and the Parquet export all follow. ``hand_key`` is "<first 16 hex digits of the file's
# SHA-256>:<line of the hand's first line>", the same in every run.
_KEY = (("hand_key", "VARCHAR"), ("file_sha", "VARCHAR"), ("hand_id", "VARCHAR"))
SCHEMA: dict[str, tuple[tuple[str, str], ...]] = {
    "files": (
        ("file_sha", "VARCHAR"), ("path", "VARCHAR"), ("size", "BIGINT"), ("ingested_at", "TIMESTAMP"),
        ("default_profile", "VARCHAR"), ("hands", "INTEGER"), ("parse_errors", "INTEGER"),
        ("findings", "INTEGER"), ("audit_version", "VARCHAR"),
    ),
    "hands": (
        ("hand_key", "VARCHAR"), ("file_sha", "VARCHAR"), ("file", "VARCHAR"), ("line", "INTEGER"),
        ("end_line", "INTEGER"), ("hand_id", "VARCHAR"), ("session", "VARCHAR"), ("profile", "VARCHAR"),
        ("dialect", "VARCHAR"), ("game", "VARCHAR"), ("betting", "VARCHAR"), ("currency", "VARCHAR"),
        ("table_name", "VARCHAR"), ("started_at", "TIMESTAMP"), ("started_at_text", "VARCHAR"),
        ("button_seat", "INTEGER"), ("seats", "INTEGER"), ("players", "INTEGER"), ("pot_total", "BIGINT"),
        ("rake", "BIGINT"), ("carried", "BIGINT"), ("redeal", "BOOLEAN"),
    ),
    "seats": _KEY + (
        ("seat", "INTEGER"), ("player", "VARCHAR"), ("line", "INTEGER"), ("sitting_out", "BOOLEAN"),
        ("dealt_in", "BOOLEAN"), ("start_stack", "BIGINT"), ("end_stack", "BIGINT"), ("contributed", "BIGINT"),
        ("should_receive", "BIGINT"), ("received", "BIGINT"),
    ),
    "actions": _KEY + (
        ("seq", "INTEGER"), ("line", "INTEGER"), ("street", "VARCHAR"), ("player", "VARCHAR"),
        ("kind", "VARCHAR"), ("amount", "BIGINT"), ("to_amount", "BIGINT"), ("all_in", "BOOLEAN"),
        ("timed_out", "BOOLEAN"), ("took", "DOUBLE"), ("cards", "VARCHAR"), ("detail", "VARCHAR"),
    ),
    "pots": _KEY + (
        ("pot_index", "INTEGER"), ("name", "VARCHAR"), ("amount", "BIGINT"), ("eligible", "VARCHAR[]"),
        ("winners", "VARCHAR[]"),
    ),
    "awards": _KEY + (
        ("pot_index", "INTEGER"), ("pot", "VARCHAR"), ("player", "VARCHAR"), ("should_award", "BIGINT"),
        ("collected", "BIGINT"),
    ),
    "findings": _KEY + (
        ("seq", "INTEGER"), ("file", "VARCHAR"), ("session", "VARCHAR"), ("rule", "VARCHAR"),
        ("severity", "VARCHAR"), ("player", "VARCHAR"), ("street", "VARCHAR"), ("line", "INTEGER"),
        ("message", "VARCHAR"), ("expected", "VARCHAR"), ("actual", "VARCHAR"),
    ),
    "parse_errors": _KEY + (
        ("file", "VARCHAR"), ("session", "VARCHAR"), ("profile", "VARCHAR"), ("line", "INTEGER"),
        ("col", "INTEGER"), ("first_line", "INTEGER"), ("end_line", "INTEGER"), ("message", "VARCHAR"),
    ),
}
PRIMARY_KEYS = {"files": "file_sha"}
"""``hands.hand_key`` is unique by construction (the file's hash and a line), and no index checks it: an index
must be held in memory whole while a file's transaction commits, so it would make a large file's ingest take
memory in proportion to the file and to the database (databases made before this held one on ``hand_key``)."""
DATA_TABLES = tuple(t for t in SCHEMA if t != "files")
"""Tables whose rows belong to a file (``file_sha``) and that ``Store.write_file`` fills from Arrow tables."""

# Sorting used by the export and by tests that compare databases (insertion order is file order anyway).
ORDER_BY = {
    "files": "path, file_sha", "hands": "file_sha, line", "seats": "file_sha, hand_key, seat",
    "actions": "file_sha, hand_key, seq", "pots": "file_sha, hand_key, pot_index",
    "awards": "file_sha, hand_key, pot_index, player", "findings": "file_sha, seq",
    "parse_errors": "file_sha, first_line",
}


def default_db() -> str:
    """The database of every command that takes ``--db``: ``$AUDIT_DB``, else ``audit.duckdb`` here."""
    return os.environ.get("AUDIT_DB") or DEFAULT_DB


def hand_key(file_sha: str, line: int) -> str:
    """The stable row key of the hand (or unreadable block) starting at ``line`` of the file ``file_sha``."""
    return f"{file_sha[:16]}:{line}"


def create_table_sql(table: str) -> str:
    """``CREATE TABLE IF NOT EXISTS`` for one table of ``SCHEMA``."""
    cols = [f"{name} {typ}" for name, typ in SCHEMA[table]]
    if table in PRIMARY_KEYS:
        cols.append(f"PRIMARY KEY ({PRIMARY_KEYS[table]})")
    return f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(cols)})"


@dataclass
class FileRows:
    """Everything one file adds to the database, keyed by table name (``DATA_TABLES``): Arrow tables in memory
    (``tables``), or Arrow IPC stream files a worker process wrote (``spill``), read back a batch at a time."""

    sha256: str
    path: str
    size: int
    default_profile: str
    tables: dict[str, Any] = field(default_factory=dict)  # table name -> pyarrow.Table
    hands: int = 0
    parse_errors: int = 0
    findings: int = 0
    skipped_hands: int = 0  # hands of games the audit does not cover (a finding each, no hand row)
    spill: dict[str, str] = field(default_factory=dict)  # table name -> Arrow IPC stream file
    notices: list[str] = field(default_factory=list)  # said on stderr: a command-line option the file overrode


# DuckDB settings for every database the tool opens, given when the connection is made (before the first
# query): no file, URL or extension outside the database, and no way to turn that back on. A crafted .duckdb
# file can hold views that read local files and types that make DuckDB download an extension.
LOCKED: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}
EXPORT_MANIFEST = "audit-export.json"
"""The file ``audit export`` writes into its folder: what it wrote there, so a later export may replace it."""


def check_db_name(name: str) -> str:
    """``name`` if it names a database file; ``AuditError`` for an empty name or an in-memory database, which
    would take the files and keep nothing."""
    if not name.strip():
        raise AuditError("--db is empty (is a shell variable unset?); name the database file, e.g. --db audit.duckdb")
    if name.startswith(":memory:"):
        raise AuditError(f"--db {name}: an in-memory database keeps nothing; name a database file")
    return name


@dataclass
class Store:
    """An open database. ``Store.open(path)`` for writing (creates it), ``read_only=True`` for queries."""

    con: duckdb.DuckDBPyConnection
    path: str
    read_only: bool

    @classmethod
    def open(cls, path: str | os.PathLike[str], read_only: bool = False, threads: int | None = None,
             memory_limit: str | None = None) -> Store:
        """Open (and for writing, create) the database at ``path``; ``AuditError`` with a clear reason if not.

        Every database is opened locked down (``LOCKED``) and its tables are checked in DuckDB's catalogue
        before anything of it runs: a database this tool did not write is refused, whatever it holds."""
        import duckdb
        name = check_db_name(str(path))
        if read_only and not Path(name).is_file():
            raise AuditError(f"{name}: no such database (create it with 'audit ingest PATH... --db {name}')")
        if Path(name).is_dir():
            raise AuditError(f"{name}: is a folder, not a database file")
        config = dict(LOCKED)
        if threads is not None:
            config["threads"] = threads
        if memory_limit is not None:
            config["memory_limit"] = memory_limit
        try:
            con = duckdb.connect(name, read_only=read_only, config=config)
        except duckdb.Error as exc:
            raise AuditError(open_error(name, exc)) from None
        store = cls(con, name, read_only)
        try:
            store.verify_schema(create=not read_only)
        except BaseException:
            con.close()
            raise
        return store

    def close(self) -> None:
        self.con.close()

    def one(self, sql: str, params: list[Any] | None = None) -> tuple[Any, ...] | None:
        """The first row of a query (read whole: DuckDB wants a result finished before the next statement)."""
        rows = self.con.execute(sql, params or []).fetchall()
        return tuple(rows[0]) if rows else None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ schema
    def verify_schema(self, create: bool = False) -> None:
        """Check the tables in DuckDB's catalogue (never by running a view, which could do anything): the tables
        of ``SCHEMA`` and ``audit_meta`` are tables with exactly our columns, and the database defines no SQL
        function of its own (a macro can shadow a built-in one and change what a report computes). With
        ``create``, make an empty database ours and add the tables that are missing (one transaction)."""
        found = self._catalogue()
        if found is None:
            raise self._foreign("it defines SQL functions of its own", create)
        tables, others = found
        if not tables and not others and create:
            self._create(new=True)
            return
        if "audit_meta" not in tables:
            held = ", ".join(sorted(set(tables) | others)[:5]) or "nothing"
            raise self._foreign(f"it holds {held}", create)
        wanted = {name: [(col, typ) for col, typ in SCHEMA[name]] for name in SCHEMA}
        wanted["audit_meta"] = [("key", "VARCHAR"), ("value", "VARCHAR")]
        for name, columns in wanted.items():
            if name not in tables and name not in others and create and name != "audit_meta":
                continue  # added below
            if tables.get(name) != columns:
                raise self._foreign(f"its table {name!r} is missing or has other columns", create)
        row = self.one("SELECT value FROM audit_meta WHERE key = 'schema_version'")
        if row is None or row[0] != SCHEMA_VERSION:
            raise AuditError(f"{self.path}: the database has schema version {row[0] if row else 'none'}; this "
                             f"audit reads and writes version {SCHEMA_VERSION}; ingest into a new database")
        if create and any(name not in tables for name in SCHEMA):
            self._create(new=False)

    def has_index(self, table: str) -> bool:
        """Whether ``table`` carries a primary key or unique index (a database made by audit 0.1.0: ``hands``)."""
        db = self.one("SELECT system.main.current_database()")
        return self.one("SELECT count(*) FROM system.main.duckdb_constraints() WHERE database_name = ? "
                        "AND schema_name = 'main' AND table_name = ? AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')",
                        [db[0] if db else "", table]) != (0,)

    def _foreign(self, why: str, writing: bool) -> AuditError:
        what = "this database was not written by" if writing else "this is not a database written by"
        return AuditError(f"{self.path}: {what} 'audit ingest' ({why}); name another file with --db")

    def _catalogue(self) -> tuple[dict[str, list[tuple[str, str]]], set[str]] | None:
        """The base tables of the database with their (column, type) lists, and the names of its views and
        other objects; ``None`` when it defines SQL functions. Only DuckDB's own catalogue functions run,
        named in full (``system.main``): a macro in the file could shadow an unqualified name."""
        con = self.con
        db_row = self.one("SELECT system.main.current_database()")
        db = db_row[0] if db_row else ""
        if self.one("SELECT count(*) FROM system.main.duckdb_functions() WHERE database_name = ? AND NOT internal",
                    [db]) != (0,):
            return None
        tables: dict[str, list[tuple[str, str]]] = {
            r[0]: [] for r in con.execute("SELECT table_name FROM system.main.duckdb_tables() WHERE database_name = ? "
                                          "AND schema_name = 'main'", [db]).fetchall()}
        generated: set[str] = set()
        for table, column, typ, is_generated in con.execute(
                "SELECT table_name, column_name, data_type, is_generated FROM system.main.duckdb_columns() "
                "WHERE database_name = ? AND schema_name = 'main' ORDER BY table_name, column_index", [db]).fetchall():
            if table in tables:
                tables[table].append((column, typ))
                if is_generated:
                    generated.add(table)
        for table in generated:
            tables[table].append(("<generated>", "a computed column"))  # never equal to a table of ours
        others = {r[0] for r in con.execute(
            "SELECT view_name FROM system.main.duckdb_views() WHERE database_name = ? AND NOT internal", [db]).fetchall()}
        return tables, others

    def _create(self, new: bool) -> None:
        """Create ``audit_meta`` (for a new database) and every missing table, in one transaction."""
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            if new:
                con.execute("CREATE TABLE audit_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
                con.execute("INSERT INTO audit_meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
            for table in SCHEMA:
                con.execute(create_table_sql(table))
            con.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    # ------------------------------------------------------------------ writing
    def known_files(self) -> set[str]:
        """SHA-256 of every file already in the database."""
        return {r[0] for r in self.con.execute("SELECT file_sha FROM files").fetchall()}

    def has_file(self, sha256: str) -> bool:
        return self.one("SELECT 1 FROM files WHERE file_sha = ?", [sha256]) is not None

    def begin_file(self, sha256: str) -> bool:
        """Open the transaction of one file; ``False`` (and no transaction) if the file is already stored."""
        self.con.execute("BEGIN TRANSACTION")
        if self.has_file(sha256):
            self.con.execute("ROLLBACK")
            return False
        return True

    def append(self, table: str, data: Any) -> None:
        """Rows for ``table`` inside the open transaction: a ``pyarrow.Table``, record batch or batch reader."""
        names = [name for name, _ in SCHEMA[table]]
        if list(data.schema.names) != names:
            raise AuditError(f"internal: the {table} rows do not have the table's columns")
        # INSERT INTO <table> SELECT * FROM <arrow scan>: registering a view per table instead would change the
        # catalog inside every file's transaction, three times slower.
        self.con.from_arrow(data).insert_into(table)

    def add_files_row(self, rows: FileRows, ingested_at: Any = None) -> None:
        """The file's ``files`` row, inside the open transaction."""
        import datetime as dt

        when = ingested_at or dt.datetime.now().replace(microsecond=0)
        self.con.execute("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [rows.sha256, rows.path, rows.size, when, rows.default_profile, rows.hands,
                          rows.parse_errors, rows.findings, _version()])

    def commit_file(self, rows: FileRows, ingested_at: Any = None) -> None:
        """Add the file's ``files`` row and commit its transaction."""
        self.add_files_row(rows, ingested_at)
        self.con.execute("COMMIT")

    def append_file(self, rows: FileRows, ingested_at: Any = None) -> None:
        """Every row of one file, its ``files`` row last, inside the caller's open transaction (not committed):
        ``write_file`` without its transaction, for a caller that adds rows of its own to it (``audit serve``)."""
        for table in DATA_TABLES:
            frame = rows.tables.get(table)
            if frame is not None and frame.num_rows:
                self.append(table, frame)
            spilled = rows.spill.get(table)
            if spilled is not None:
                self.append_spilled(table, spilled)
        self.add_files_row(rows, ingested_at)

    def rollback(self) -> None:
        """Undo the open transaction (nothing if the connection already lost it)."""
        try:
            self.con.execute("ROLLBACK")
        except Exception:  # pragma: no cover - the connection is gone; the transaction died with it
            pass

    def write_file(self, rows: FileRows, ingested_at: Any = None) -> bool:
        """Add one file's rows in one transaction; ``False`` (nothing written) if the file is already there."""
        if not self.begin_file(rows.sha256):
            return False
        try:
            self.append_file(rows, ingested_at)
            self.con.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
        return True

    def write_files(self, batch: list[FileRows], ingested_at: Any = None) -> list[bool]:
        """Several files' rows in one transaction, one insert per table for them all (a commit and an insert
        cost DuckDB about the same for ten rows as for ten thousand): each file whole, and all of them or none.
        Returns, per file, ``False`` for one already stored (nothing of it written)."""
        if len(batch) == 1:
            return [self.write_file(batch[0], ingested_at)]
        import itertools

        import pyarrow as pa

        maps: list[Any] = []
        self.con.execute("BEGIN TRANSACTION")
        try:
            shas = [rows.sha256 for rows in batch]
            known = {r[0] for r in self.con.execute("SELECT file_sha FROM files WHERE list_contains(?, file_sha)",
                                                    [shas]).fetchall()}
            new = [rows for rows in batch if rows.sha256 not in known]
            for table in DATA_TABLES:
                parts: list[Any] = []
                for rows in new:
                    frame = rows.tables.get(table)
                    if frame is not None and frame.num_rows:
                        parts.append(frame.to_reader())
                    spilled = rows.spill.get(table)
                    if spilled is not None:
                        maps.append(pa.memory_map(spilled))
                        parts.append(pa.ipc.open_stream(maps[-1]))
                if parts:
                    self.append(table, pa.RecordBatchReader.from_batches(
                        parts[0].schema, itertools.chain.from_iterable(parts)))
            for rows in new:
                self.add_files_row(rows, ingested_at)
            self.con.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
        finally:
            for source in maps:
                source.close()
        return [rows.sha256 not in known for rows in batch]

    def append_spilled(self, table: str, path: str) -> None:
        """The rows a worker wrote to an Arrow IPC stream file, read a batch at a time."""
        import pyarrow as pa

        with pa.memory_map(path) as source:
            self.append(table, pa.ipc.open_stream(source))

    # ------------------------------------------------------------------ reading
    def reader(self, sql: str, batch_rows: int = 10_000) -> tuple[list[str], Any]:
        """Run one query; its column names and a ``pyarrow.RecordBatchReader`` that streams the rows (SQL
        errors become ``AuditError``, an interrupted query ``duckdb.InterruptException``)."""
        import duckdb
        import pyarrow as pa
        try:
            relation = self.con.sql(sql)
            if relation is None:
                return [], pa.RecordBatchReader.from_batches(pa.schema([]), [])
            return list(relation.columns), relation.to_arrow_reader(batch_rows)
        except duckdb.InterruptException:
            raise
        except duckdb.Error as exc:
            raise AuditError(f"the query failed: {shorten(str(exc), 600)}") from None

    def query(self, sql: str) -> Any:
        """Run one query and return its whole result as a ``pyarrow.Table`` (small results: tests, notebooks)."""
        _, batches = self.reader(sql)
        return batches.read_all()

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        out: dict[str, int] = {}
        for table in SCHEMA:
            row = self.one(f"SELECT count(*) FROM {table}")
            out[table] = int(row[0]) if row else 0
        return out

    # ------------------------------------------------------------------ export
    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, int]:
        """Write every table as Parquet under ``directory/<table>/``, partitioned by session date
        (``session_date=YYYY-MM-DD``: the date of the session's first hand, or of the hand itself outside a
        session); ``files`` is one unpartitioned file. Returns rows written per table.

        Nothing of the user's is ever removed: the export is written to a new folder beside ``directory`` and
        renamed into place. ``directory`` may be missing, empty, or a previous export (its manifest lists every
        file in it, and only those are removed); anything else is refused before anything is written."""
        target = Path(os.path.realpath(directory))  # through a link: the folder it names is the one replaced
        previous = _export_target(target)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.export-", dir=target.parent))
        except OSError as exc:
            raise AuditError(f"{directory}: cannot write beside it ({exc.strerror})") from None
        try:
            written, files = self._write_export(staging)
            manifest = {"written_by": "audit export", "version": _version(), "database": self.path,
                        "tables": written, "files": sorted(files)}
            (staging / EXPORT_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
            _move_into_place(staging, target, previous)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)  # our own new folder: nothing of the user's is in it
            raise
        return written

    def _write_export(self, out: Path) -> tuple[dict[str, int], list[str]]:
        """Every table under ``out``; rows per table, and the files written (relative to ``out``). The database
        stays locked down: its rows stream as Arrow batches to a fresh in-memory DuckDB that writes the files."""
        import duckdb

        dates = ("WITH session_dates AS (SELECT hand_key, file_sha, session, "
                 "CAST(min(started_at) OVER (PARTITION BY file_sha, coalesce(session, hand_key)) AS DATE) "
                 "AS session_date FROM hands), "
                 "by_session AS (SELECT file_sha, session, min(session_date) AS session_date FROM session_dates "
                 "WHERE session IS NOT NULL GROUP BY ALL) ")
        writer = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
        written: dict[str, int] = {}
        try:
            for table in SCHEMA:
                target = out / table
                target.mkdir()
                order = ORDER_BY[table]
                if table == "files":
                    select = f"SELECT * FROM files ORDER BY {order}"
                elif table in ("findings", "parse_errors"):
                    select = (dates + f"SELECT t.*, coalesce(d.session_date, s.session_date) AS session_date "
                              f"FROM {table} t LEFT JOIN session_dates d USING (hand_key) "
                              f"LEFT JOIN by_session s ON s.file_sha = t.file_sha AND s.session = t.session "
                              f"ORDER BY {', '.join('t.' + c.strip() for c in order.split(','))}")
                else:
                    select = (dates + f"SELECT t.*, d.session_date FROM {table} t "
                              f"LEFT JOIN session_dates d USING (hand_key) "
                              f"ORDER BY {', '.join('t.' + c.strip() for c in order.split(','))}")
                row = self.one(f"SELECT count(*) FROM {table}")
                n = int(row[0]) if row else 0
                written[table] = n
                writer.register("source", self.con.sql(select).to_arrow_reader(50_000))
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


def _move_into_place(staging: Path, target: Path, previous: list[str] | None) -> None:
    """Rename the finished export ``staging`` to ``target``. A previous export there is first renamed aside,
    then only the files its manifest listed are removed (and the folders they leave empty)."""
    if previous is None:
        os.rename(staging, target)  # a missing or empty folder: replaced in one step (an empty one, atomically)
        return
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


def open_error(name: str, exc: BaseException) -> str:
    """Why the database ``name`` could not be opened, in plain words: another program holding it (DuckDB lets one
    process write a file; ``audit serve`` keeps its database open) is said as such, not as a lock error."""
    import re

    text = str(exc)
    if "Could not set lock" in text or "Conflicting lock" in text:
        pid = re.search(r"\(PID (\d+)\)", text)
        holder = f" (process {pid.group(1)})" if pid else ""
        return (f"{name}: the database is in use by another program{holder}, such as 'audit serve' or another "
                "'audit ingest'; DuckDB lets only one program use a database file at a time. Upload through the "
                "service, or stop it and try again")
    return f"{name}: cannot open the database ({_first_line(exc)})"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _version() -> str:
    from audit import __version__
    return __version__
