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

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError

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
PRIMARY_KEYS = {"files": "file_sha", "hands": "hand_key"}
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
    """Everything one file adds to the database: Arrow tables keyed by table name (``DATA_TABLES``)."""

    sha256: str
    path: str
    size: int
    default_profile: str
    tables: dict[str, Any] = field(default_factory=dict)  # table name -> pyarrow.Table
    hands: int = 0
    parse_errors: int = 0
    findings: int = 0
    skipped_hands: int = 0  # hands of games the audit does not cover (a finding each, no hand row)


@dataclass
class Store:
    """An open database. ``Store.open(path)`` for writing (creates it), ``read_only=True`` for queries."""

    con: duckdb.DuckDBPyConnection
    path: str
    read_only: bool

    @classmethod
    def open(cls, path: str | os.PathLike[str], read_only: bool = False) -> Store:
        """Open (and for writing, create) the database at ``path``; ``AuditError`` with a clear reason if not."""
        import duckdb
        name = str(path)
        if read_only and name != ":memory:" and not Path(name).is_file():
            raise AuditError(f"{name}: no such database (create it with 'audit ingest PATH... --db {name}')")
        try:
            con = duckdb.connect(name, read_only=read_only)
        except duckdb.Error as exc:
            raise AuditError(open_error(name, exc)) from None
        store = cls(con, name, read_only)
        if read_only:
            store._check_version()
        else:
            store.create_schema()
        return store

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ schema
    def create_schema(self) -> None:
        """Create the tables that are missing (one transaction); refuse a database of another schema."""
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() "
                "AND table_schema = 'main'").fetchall()}
            if tables and "audit_meta" not in tables:
                raise AuditError(f"{self.path}: this database was not written by 'audit ingest' (it holds "
                                 f"{', '.join(sorted(tables)[:5])}); name a new file with --db")
            con.execute("CREATE TABLE IF NOT EXISTS audit_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
            row = con.execute("SELECT value FROM audit_meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                con.execute("INSERT INTO audit_meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
            elif row[0] != SCHEMA_VERSION:
                raise AuditError(f"{self.path}: the database has schema version {row[0]}, this audit writes "
                                 f"version {SCHEMA_VERSION}; ingest into a new database")
            for table in SCHEMA:
                con.execute(create_table_sql(table))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _check_version(self) -> None:
        try:
            row = self.con.execute("SELECT value FROM audit_meta WHERE key = 'schema_version'").fetchone()
        except Exception:
            raise AuditError(f"{self.path}: this is not a database written by 'audit ingest'") from None
        if row is None or row[0] != SCHEMA_VERSION:
            raise AuditError(f"{self.path}: the database has schema version {row[0] if row else 'none'}; "
                             f"this audit reads version {SCHEMA_VERSION}")

    # ------------------------------------------------------------------ writing
    def known_files(self) -> set[str]:
        """SHA-256 of every file already in the database."""
        return {r[0] for r in self.con.execute("SELECT file_sha FROM files").fetchall()}

    def has_file(self, sha256: str) -> bool:
        return self.con.execute("SELECT 1 FROM files WHERE file_sha = ?", [sha256]).fetchone() is not None

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

    def append_file(self, rows: FileRows, ingested_at: Any = None) -> None:
        """Every row of one file, its ``files`` row last, inside the open transaction (not committed)."""
        import datetime as dt

        for table in DATA_TABLES:
            frame = rows.tables.get(table)
            if frame is not None and frame.num_rows:
                self.append(table, frame)
        when = ingested_at or dt.datetime.now().replace(microsecond=0)
        self.con.execute("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [rows.sha256, rows.path, rows.size, when, rows.default_profile, rows.hands,
                          rows.parse_errors, rows.findings, _version()])

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

    # ------------------------------------------------------------------ reading
    def lock_down(self) -> None:
        """For queries a user types: no files outside the database, and no way to turn that back on."""
        self.con.execute("SET enable_external_access = false")
        self.con.execute("SET lock_configuration = true")

    def query(self, sql: str) -> Any:
        """Run one query and return its result as a ``pyarrow.Table``; SQL errors become ``AuditError``."""
        import duckdb
        try:
            relation = self.con.sql(sql)
            if relation is None:
                import pyarrow as pa
                return pa.table({})
            return relation.to_arrow_table()
        except duckdb.Error as exc:
            raise AuditError(f"the query failed: {exc}") from None

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        out: dict[str, int] = {}
        for table in SCHEMA:
            row = self.con.execute(f"SELECT count(*) FROM {table}").fetchone()
            out[table] = int(row[0]) if row else 0
        return out

    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, int]:
        """Write every table as Parquet under ``directory/<table>/``, partitioned by session date
        (``session_date=YYYY-MM-DD``: the date of the session's first hand, or of the hand itself outside a
        session); ``files`` is one unpartitioned file. Returns rows written per table."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        dates = ("WITH session_dates AS (SELECT hand_key, file_sha, session, "
                 "CAST(min(started_at) OVER (PARTITION BY file_sha, coalesce(session, hand_key)) AS DATE) "
                 "AS session_date FROM hands), "
                 "by_session AS (SELECT file_sha, session, min(session_date) AS session_date FROM session_dates "
                 "WHERE session IS NOT NULL GROUP BY ALL) ")
        written: dict[str, int] = {}
        for table in SCHEMA:
            target = out / table
            if target.exists():
                shutil.rmtree(target)
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
            row = self.con.execute(f"SELECT count(*) FROM {table}").fetchone()
            n = int(row[0]) if row else 0
            written[table] = n
            quoted = str(target).replace("'", "''")
            if table == "files" or n == 0:
                self.con.execute(f"COPY ({select}) TO '{quoted}/data_0.parquet' (FORMAT PARQUET)")
            else:
                self.con.execute(f"COPY ({select}) TO '{quoted}' (FORMAT PARQUET, PARTITION_BY (session_date), "
                                 "OVERWRITE_OR_IGNORE)")
        return written


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
