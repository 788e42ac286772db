"""An open database: ``Store.open`` locks it down and checks it is ours, then writes files in and reads rows out.

Only whole files are ever in the database: a file's rows (hands, seats, actions, pots, awards, findings, parse
errors, unsupported hands and its ``files`` row) go in inside one transaction, so a crash or a kill leaves the
database as it was before that file. A file is known by the SHA-256 of its bytes: ingesting it again adds
nothing. Row keys are derived from the file's hash and line numbers, never from insertion order, so any number of
worker processes gives the same database.

This module never imports click (the commands are in ``audit.cli``) and imports duckdb, pyarrow and polars only
when they are used, so the CLI starts fast.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from audit.errors import AuditError
from audit.store.schema import (
    CHAIN_SCHEMA, CHAIN_TABLE, DATA_TABLES, ORDER_BY, SCHEMA, SCHEMA_VERSION, TABLES, UPGRADE_FROM_1, UPGRADE_FROM_2,
    VIEWS, create_chain_sql, create_table_sql, hand_key, table_comment_sql, view_comment_sql, view_sql,
)
from audit.textout import shorten

if TYPE_CHECKING:  # pragma: no cover
    import duckdb
    import polars

__all__ = ["DATA_TABLES", "ORDER_BY", "SCHEMA", "Catalogue", "FileRows", "Store", "check_db_name", "hand_key"]

Params = dict[str, object]
"""Named query parameters: ``$name`` in the SQL."""


class Catalogue(NamedTuple):
    """A database's tables and views as DuckDB's catalogue lists them (``Store.catalogue``)."""

    tables: dict[str, list[tuple[str, str]]]  # base table -> its (column, DuckDB type) in order
    others: set[str]  # views


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
    skipped_hands: int = 0  # hands of games the audit does not cover (a finding and an unsupported_hands row each)
    spill: dict[str, str] = field(default_factory=dict)  # table name -> Arrow IPC stream file
    notices: list[str] = field(default_factory=list)  # said on stderr: a command-line option the file overrode


def open_spilled(path: str) -> Any:
    """A worker's Arrow stream file, opened to be read a batch at a time into memory that is freed once DuckDB has
    taken the batch. Not mapped: a mapped file's pages stay in this process's resident memory until it is closed,
    which for a file of 47,000 hands added its whole spill (about 75 MB) to the main process's peak (318 MB; 10 such
    files, ``--workers 2``: see ``audit.store.ingest.writing.DUCKDB_MEMORY``)."""
    import pyarrow as pa

    return pa.OSFile(path, "rb")


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

_ADDED_IN = {version: {table: {name for name, _, comment in columns if f"New in schema {version}" in comment}
                        for table, columns in TABLES.items()} for version in ("2", "3")}
_META_COLUMNS = [("key", "VARCHAR"), ("value", "VARCHAR")]


def _columns(version: str) -> dict[str, list[tuple[str, str]]]:
    """The tables (and their columns) of a database of schema ``version``."""
    out = {name: list(cols) for name, cols in SCHEMA.items()}
    for later in [v for v in _ADDED_IN if int(v) > int(version)]:
        out = {name: [c for c in cols if c[0] not in _ADDED_IN[later][name]] for name, cols in out.items()}
    if version == "1":
        out.pop("unsupported_hands", None)
    else:
        out[CHAIN_TABLE] = list(CHAIN_SCHEMA)
    out["audit_meta"] = list(_META_COLUMNS)
    return out


def _views_digest() -> str:
    """A digest of the views and comments this version writes (stored in ``audit_meta``: rewritten on change)."""
    text = "\n".join(view_sql(name) + "\n" + "\n".join(view_comment_sql(name)) for name in VIEWS)
    return hashlib.sha256("\n".join([text, *table_comment_sql()]).encode()).hexdigest()


def check_db_name(name: str) -> str:
    """``name`` if it names a database file; ``AuditError`` for an empty name or an in-memory database, which
    would take the files and keep nothing, and for a path (or its write-ahead log) that is there but is not a
    plain file: a folder, a FIFO (opening one waits for a writer forever), a device or a socket."""
    if not name.strip():
        raise AuditError("--db is empty (is a shell variable unset?); name the database file, e.g. --db audit.duckdb")
    if name.startswith(":memory:"):
        raise AuditError(f"--db {name}: an in-memory database keeps nothing; name a database file")
    for path in (name, name + ".wal"):
        try:
            mode = os.stat(path).st_mode  # through a link: what it points to
        except OSError:
            continue  # missing (created later), or a dangling link: DuckDB says why when it opens it
        if not stat.S_ISREG(mode):
            what = NOT_A_FILE.get(stat.S_IFMT(mode), "not a plain file")
            log = "" if path == name else "its write-ahead log "
            raise AuditError(f"{name}: {log}is {what}, not a database file; name a database file with --db")
    return name


NOT_A_FILE = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO (a named pipe)", stat.S_IFCHR: "a device",
              stat.S_IFBLK: "a device", stat.S_IFSOCK: "a socket"}
"""What a ``--db`` that is not a plain file is, in words."""


@dataclass
class Store:
    """An open database. ``Store.open(path)`` for writing (creates it), ``read_only=True`` for queries.

    In a notebook::

        from audit import Store
        with Store.open("audit.duckdb", read_only=True) as store:
            store.frame("SELECT rule, count(*) AS n FROM finding_details GROUP BY rule")   # a polars.DataFrame
            store.frame("violations-by-player", from_date="2026-11-01")                   # a report, by name
    """

    con: duckdb.DuckDBPyConnection
    path: str
    read_only: bool
    upgraded_from: str | None = None  # the schema version this open upgraded (``None``: it was current)

    @classmethod
    def open(cls, path: str | os.PathLike[str], read_only: bool = False, threads: int | None = None,
             memory_limit: str | None = None) -> Store:
        """Open (and for writing, create) the database at ``path``; ``AuditError`` with a clear reason if not.

        Every database is opened locked down (``LOCKED``) and its tables are checked in DuckDB's catalogue
        before anything of it runs: a database this tool did not write is refused, whatever it holds. A database
        of an earlier schema is upgraded when opened for writing (columns, tables and views are only added).

        Opened read-only, DuckDB's temporary folder is this process's private one (``private_temp``) instead of
        ``<db>.tmp/`` beside the database, which a locked-down DuckDB may write to."""
        import duckdb
        name = check_db_name(str(path))
        if read_only and not Path(name).is_file():
            raise AuditError(f"{name}: no such database (create it with 'audit ingest PATH... --db {name}')")
        config = dict(LOCKED)
        if threads is not None:
            config["threads"] = threads
        if memory_limit is not None:
            config["memory_limit"] = memory_limit
        if read_only:
            config["temp_directory"] = private_temp()
        try:
            con = duckdb.connect(name, read_only=read_only, config=config)
        except duckdb.Error as exc:
            raise AuditError(open_error(name, exc)) from None
        store = cls(con, name, read_only)
        try:
            store.verify_schema(create=not read_only)
            store._views()
        except BaseException:
            con.close()
            raise
        return store

    @classmethod
    def in_memory(cls) -> Store:
        """An empty database in memory, locked down as a file is (``audit sql`` with no database): it holds no
        table of audit's, and nothing a query does outlives it."""
        import duckdb

        config = dict(LOCKED)
        config["temp_directory"] = private_temp()
        return cls(duckdb.connect(":memory:", config=config), ":memory:", True)

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
        ``create``, make an empty database ours, upgrade one of an earlier schema and add the tables that are
        missing (one transaction)."""
        found = self.catalogue()
        if found is None:
            raise self._foreign("it defines SQL functions of its own", create)
        tables, others = found
        if not tables and not others and create:
            self._create(new=True)
            return
        if "audit_meta" not in tables:
            held = ", ".join(sorted(set(tables) | others)[:5]) or "nothing"
            raise self._foreign(f"it holds {held}", create)
        if tables["audit_meta"] != _META_COLUMNS:
            raise self._foreign("its table 'audit_meta' has other columns", create)
        row = self.one("SELECT value FROM audit_meta WHERE key = 'schema_version'")
        version = row[0] if row else None
        if version not in ("1", "2", SCHEMA_VERSION):
            raise AuditError(f"{self.path}: the database has schema version {version or 'none'}; this audit reads "
                             f"and writes version {SCHEMA_VERSION}; ingest into a new database")
        for name, columns in _columns(version).items():
            if name not in tables and name not in others and (create or name == CHAIN_TABLE):
                continue  # added below (a database read before it had a chain: audit verify says so)
            if tables.get(name) != columns:
                raise self._foreign(f"its table {name!r} is missing or has other columns", create)
        if version != SCHEMA_VERSION and not create:
            raise AuditError(f"{self.path}: the database was written by an earlier audit (schema version {version}); "
                             f"bring it up to date with 'audit upgrade --db {self.path}' (it only adds columns, "
                             "tables and views; nothing is removed)")
        if create and (version != SCHEMA_VERSION or any(name not in tables for name in (*SCHEMA, CHAIN_TABLE))):
            self._create(new=False, upgrade_from=version if version != SCHEMA_VERSION else None)

    def has_index(self, table: str) -> bool:
        """Whether ``table`` carries a primary key or unique index (a database made by audit 0.1.0: ``hands``)."""
        db = self.one("SELECT system.main.current_database()")
        return self.one("SELECT count(*) FROM system.main.duckdb_constraints() WHERE database_name = ? "
                        "AND schema_name = 'main' AND table_name = ? AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')",
                        [db[0] if db else "", table]) != (0,)

    def has_chain(self) -> bool:
        """Whether the database has its chain table (one written before chains has not, until opened for writing)."""
        return self.one("SELECT count(*) FROM system.main.duckdb_tables() WHERE schema_name = 'main' AND "
                        "table_name = ? AND database_name = system.main.current_database()", [CHAIN_TABLE]) != (0,)

    def _foreign(self, why: str, writing: bool) -> AuditError:
        what = "this database was not written by" if writing else "this is not a database written by"
        return AuditError(f"{self.path}: {what} 'audit ingest' ({why}); name another file with --db")

    def catalogue(self) -> Catalogue | None:
        """What the database holds, from DuckDB's catalogue alone (nothing the file holds runs): its base tables
        with their (column, type) lists, and the names of its views; ``None`` when it defines SQL functions of
        its own. Only DuckDB's own catalogue functions run, named in full (``system.main``): a macro in the file
        could shadow an unqualified name. A table with a computed column lists one more, never a table of ours."""
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
        return Catalogue(tables, others)

    def _create(self, new: bool, upgrade_from: str | None = None) -> None:
        """Create ``audit_meta`` (for a new database), upgrade an earlier schema, create every missing table and
        comment them, in one transaction."""
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            if new:
                con.execute("CREATE TABLE audit_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
                con.execute("INSERT INTO audit_meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
            if upgrade_from == "1":
                for statement in UPGRADE_FROM_1:
                    con.execute(statement)
            if upgrade_from in ("1", "2"):
                for statement in UPGRADE_FROM_2:
                    con.execute(statement)
                con.execute("UPDATE audit_meta SET value = ? WHERE key = 'schema_version'", [SCHEMA_VERSION])
            for table in SCHEMA:
                con.execute(create_table_sql(table))
            if new or not self.has_chain():
                from audit.trust.chain import adopt_files

                con.execute(create_chain_sql())
                adopt_files(con)
            con.execute("DELETE FROM audit_meta WHERE key = 'views'")  # the views and comments are written next
            con.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
        self.upgraded_from = upgrade_from

    def _views(self) -> None:
        """The analyst views (``audit.store.schema.VIEWS``). For writing: kept in the database with their comments
        (for any tool that opens it), rewritten when this version's differ. For reading: the same views as
        temporary views of this connection, which come first in name look-ups, so that reports always read the
        views as this version defines them, whatever the file holds."""
        if self.read_only:
            for name in VIEWS:
                self.con.execute(view_sql(name, temporary=True))
            self._drop_same_views()
            return
        digest = _views_digest()
        if self.one("SELECT value FROM audit_meta WHERE key = 'views'") == (digest,):
            return
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            for name in VIEWS:
                con.execute(view_sql(name))
                for statement in view_comment_sql(name):
                    con.execute(statement)
            for statement in table_comment_sql():
                con.execute(statement)
            con.execute("INSERT OR REPLACE INTO audit_meta VALUES ('views', ?)", [digest])
            con.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    def _drop_same_views(self) -> None:
        """Drop each temporary view whose text is exactly the database's own view of that name (as DuckDB writes
        both back), so that ``SHOW TABLES`` names each view once; a view the file holds in another form (an
        earlier version's, or anyone's) stays shadowed by this version's."""
        db_row = self.one("SELECT system.main.current_database()")
        rows = self.con.execute(
            "SELECT database_name, view_name, sql FROM system.main.duckdb_views() WHERE NOT internal "
            "AND schema_name = 'main' AND database_name IN (?, 'temp')", [db_row[0] if db_row else ""]).fetchall()
        texts = {(database == "temp", name): (text or "").rstrip(";") for database, name, text in rows}
        for name in VIEWS:
            temporary = texts.get((True, name))
            if temporary is not None and temporary.replace("CREATE TEMP VIEW", "CREATE VIEW", 1) == \
                    texts.get((False, name)):
                self.con.execute(f"DROP VIEW temp.main.{name}")

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

    def add_files_row(self, rows: FileRows, ingested_at: Any = None, link: bool = True) -> None:
        """The file's ``files`` row, inside the open transaction, and its link in club local's chain (``link``
        False: the caller links it, as the service links an upload in its club's chain)."""
        import datetime as dt

        when = ingested_at or dt.datetime.now().replace(microsecond=0)
        self.con.execute("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [rows.sha256, rows.path, rows.size, when, rows.default_profile, rows.hands,
                          rows.parse_errors, rows.findings, _version()])
        if link:
            self.link_file(rows.sha256, when, rows.default_profile)

    def link_file(self, sha256: str, ingested_at: Any, profile: str) -> None:
        """The link of a file ``audit ingest`` stored, in club local's chain, inside the open transaction."""
        from audit.trust.chain import LOCAL_CLUB, append_link

        append_link(self.con, LOCAL_CLUB, "file", sha256, ingested_at, profile, content_sha256=sha256)

    def commit_file(self, rows: FileRows, ingested_at: Any = None) -> None:
        """Add the file's ``files`` row and commit its transaction."""
        self.add_files_row(rows, ingested_at)
        self.con.execute("COMMIT")

    def append_file(self, rows: FileRows, ingested_at: Any = None, link: bool = True) -> None:
        """Every row of one file, its ``files`` row last, inside the caller's open transaction (not committed):
        ``write_file`` without its transaction, for a caller that adds rows of its own to it (``audit serve``)."""
        for table in DATA_TABLES:
            frame = rows.tables.get(table)
            if frame is not None and frame.num_rows:
                self.append(table, frame)
            spilled = rows.spill.get(table)
            if spilled is not None:
                self.append_spilled(table, spilled)
        self.add_files_row(rows, ingested_at, link)

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
        self.con.execute("BEGIN TRANSACTION")
        try:
            stored = self.append_files(batch, ingested_at)
            self.con.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
        return stored

    def append_files(self, batch: list[FileRows], ingested_at: Any = None) -> list[bool]:
        """``write_files`` inside the caller's open transaction (not committed), which may hold other files
        already: several files' rows, one insert per table for them all, each file's ``files`` row after its
        rows. Returns, per file, ``False`` for one already stored (nothing of it written)."""
        import itertools

        import pyarrow as pa

        maps: list[Any] = []
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
                        maps.append(open_spilled(spilled))
                        parts.append(pa.ipc.open_stream(maps[-1]))
                if len(parts) == 1:
                    self.append(table, parts[0])
                elif parts:
                    self.append(table, pa.RecordBatchReader.from_batches(
                        parts[0].schema, itertools.chain.from_iterable(parts)))
            for rows in new:
                self.add_files_row(rows, ingested_at)
        finally:
            for source in maps:
                source.close()
        return [rows.sha256 not in known for rows in batch]

    def append_spilled(self, table: str, path: str) -> None:
        """The rows a worker wrote to an Arrow IPC stream file, read a batch at a time."""
        import pyarrow as pa

        with open_spilled(path) as source:
            self.append(table, pa.ipc.open_stream(source))

    # ------------------------------------------------------------------ reading
    def reader(self, sql: str, params: Params | None = None, batch_rows: int = 10_000,
               as_text: Callable[[Any], bool | str] | None = None) -> tuple[list[str], Any]:
        """Run one query (``$name`` parameters from ``params``); its column names and a
        ``pyarrow.RecordBatchReader`` that streams the rows (SQL errors become ``AuditError``, an interrupted
        query ``duckdb.InterruptException``). A column whose DuckDB type ``as_text`` holds comes as DuckDB's own
        text of its values (``CAST … AS VARCHAR``): a type the output cannot carry (``audit.store.formats``); where
        ``as_text`` gives an SQL expression of ``{c}`` instead, the column comes as that expression's text."""
        import duckdb
        import pyarrow as pa
        try:
            relation = self.con.sql(sql, params=params) if params else self.con.sql(sql)
            if relation is None:
                return [], pa.RecordBatchReader.from_batches(pa.schema([]), [])
            names = list(relation.columns)
            texts = [as_text(t) for t in relation.types] if as_text is not None else []
            if any(texts):
                relation = relation.project(", ".join(
                    f"{_as_text(f'#{i}', text)} AS {_quoted(name)}"
                    for i, (name, text) in enumerate(zip(names, texts), start=1)))
            return names, relation.to_arrow_reader(batch_rows)
        except duckdb.InterruptException:
            raise
        except duckdb.Error as exc:
            raise AuditError(f"the query failed: {shorten(str(exc), 600)}") from None

    def query(self, sql: str, params: Params | None = None) -> Any:
        """Run one query and return its whole result as a ``pyarrow.Table`` (small results: tests, notebooks)."""
        _, batches = self.reader(sql, params)
        return batches.read_all()

    def frame(self, sql_or_report: str, **params: object) -> polars.DataFrame:
        """A query's rows as a ``polars.DataFrame`` (from DuckDB's Arrow result, without converting row by row).

        ``sql_or_report`` is a report's name (``audit report --list``: its parameters are ``from_date``,
        ``to_date``, ``profile``, ``table``, and any it declares) or SQL with ``$name`` parameters. The same rows
        as ``audit sql`` and ``audit report`` give."""
        import polars as pl

        from audit.store.reports import load_reports, report_params

        reports = load_reports()
        if sql_or_report in reports:
            chosen = reports[sql_or_report]
            sql, bound = chosen.sql, report_params(chosen, {k: v for k, v in params.items()})
        else:
            sql, bound = sql_or_report, dict(params)
        table = self.query(sql, bound or None)
        frame = pl.from_arrow(table, rechunk=False)
        assert isinstance(frame, pl.DataFrame)
        return frame

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        out: dict[str, int] = {}
        for table in SCHEMA:
            row = self.one(f"SELECT count(*) FROM {table}")
            out[table] = int(row[0]) if row else 0
        return out

    # ------------------------------------------------------------------ export
    def export_parquet(self, directory: str | os.PathLike[str]) -> dict[str, int]:
        """Write every table as Parquet under ``directory/<table>/``, partitioned by session date (see
        ``audit.store.export``); returns rows written per table. Nothing of the user's is ever removed."""
        from audit.store.export import export_parquet

        return export_parquet(self, directory)

    def _write_export(self, out: Path) -> tuple[dict[str, int], list[str]]:
        """Every table under ``out``: rows per table, and the files written (relative to ``out``)."""
        from audit.store.export import write_tables

        return write_tables(self, out)


_SCRATCH: dict[int, str] = {}  # process id -> its private temporary folder


def private_temp() -> str:
    """This process's private folder (mode 0700, removed when the process exits) for DuckDB's temporary files
    of a connection that only reads: DuckDB spills a large sort or join there, and a locked-down DuckDB may read
    and write its temporary folder, so it is never a folder of the user's (``<db>.tmp/``, ``.tmp/`` here). One
    folder for every connection of the process: DuckDB opens a file a second time only with the same settings."""
    pid = os.getpid()
    if pid not in _SCRATCH:
        _SCRATCH[pid] = tempfile.mkdtemp(prefix="audit-duckdb-")
        atexit.register(_remove_scratch, pid)
    return _SCRATCH[pid]


def _remove_scratch(pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child, which inherits the handler: the folder is its parent's
        shutil.rmtree(_SCRATCH.pop(pid, ""), ignore_errors=True)


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


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _as_text(column: str, text: bool | str) -> str:
    """The column ``column`` (``#1``) as ``Store.reader`` projects it: as it is, as DuckDB's text of its values
    (``True``), or as the SQL expression ``text`` of ``{c}``."""
    if isinstance(text, str):
        return "(" + text.replace("{c}", column) + ")"
    return f"CAST({column} AS VARCHAR)" if text else column


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _version() -> str:
    from audit import __version__
    return __version__
