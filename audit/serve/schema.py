"""The service's own tables, beside the store's in the same database: one definition, from which the service
creates them (``create_sql``), checks a database it opens against DuckDB's catalogue (``SERVICE_COLUMNS``) and
writes their rows (``insert_sql``). ``audit.store.schema`` is the store's.

- ``uploads``: one row per club and log: ``club``, ``sha256`` of the bytes, the ``name`` given, ``size``,
  ``received_at``, the ``profile`` asked for, ``file_sha`` (the key of the log's rows in the store's tables),
  ``wrote_rows`` (always true: every upload has rows of its own; a database of an earlier audit said here which
  of the uploads sharing rows wrote them), the counts the upload answered, and ``content``: the bytes of an upload
  an earlier audit stored (empty for a new upload, whose bytes are in ``upload_parts``).
- ``upload_parts``: the bytes of each upload, to explain the log's hands later: ``club``, ``sha256``, ``seq``
  (0, 1, …) and ``part``, the bytes in order in parts of ``audit.serve.db.PART_SIZE`` (the last one shorter).
  Many small rows, not one large cell: when DuckDB checkpoints, it rewrites a changed column of a row group whole
  and in memory, so one cell per upload would make the service's memory peak grow with every log it holds (and a
  memory limit make the checkpoint fail); parts keep the peak flat and let the service run under a DuckDB memory
  limit. The table has no key: its rows go in with their ``uploads`` row, whose key refuses a second copy.
- ``tokens``: ``token_id``, ``club``, ``token_hash`` (SHA-256 of the token; the token itself is never stored),
  ``created_at``.
- ``live_tables`` and ``live_entries``: the live table (``audit.serve.routers.tables``): each table's opening
  request (``config``, JSON), its ``version`` and whether it is ``closed``; and its entries in order (``seq``),
  each the JSON of one entry. A table is its opening request and its entries: a restart replays them.

Every column is ``NOT NULL``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import duckdb


@dataclass(frozen=True)
class ServiceTable:
    """One table of the service: its columns (name, type as DuckDB's catalogue names it), its primary key and
    the columns whose every value is unique."""

    name: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...] = ()
    unique: tuple[str, ...] = ()

    def create_sql(self) -> str:
        """``CREATE TABLE IF NOT EXISTS`` with the table's columns and constraints."""
        parts = [f"{name} {typ} NOT NULL" for name, typ in self.columns]
        if self.key:
            parts.append(f"PRIMARY KEY ({', '.join(self.key)})")
        parts += [f"UNIQUE ({name})" for name in self.unique]
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({', '.join(parts)})"

    def insert_sql(self) -> str:
        """``INSERT INTO`` the table, a parameter for each column in order."""
        return f"INSERT INTO {self.name} VALUES ({', '.join('?' for _ in self.columns)})"


SERVICE_TABLES = {table.name: table for table in (
    ServiceTable("uploads", (("club", "VARCHAR"), ("sha256", "VARCHAR"), ("name", "VARCHAR"), ("size", "BIGINT"),
                             ("received_at", "TIMESTAMP"), ("profile", "VARCHAR"), ("file_sha", "VARCHAR"),
                             ("wrote_rows", "BOOLEAN"), ("hands", "INTEGER"), ("violations", "INTEGER"),
                             ("warnings", "INTEGER"), ("errors", "INTEGER"), ("content", "BLOB")),
                 key=("club", "sha256")),
    ServiceTable("upload_parts", (("club", "VARCHAR"), ("sha256", "VARCHAR"), ("seq", "INTEGER"), ("part", "BLOB"))),
    ServiceTable("tokens", (("token_id", "VARCHAR"), ("club", "VARCHAR"), ("token_hash", "VARCHAR"),
                            ("created_at", "TIMESTAMP")),
                 key=("token_id",), unique=("token_hash",)),
    ServiceTable("live_tables", (("club", "VARCHAR"), ("table_id", "VARCHAR"), ("config", "VARCHAR"),
                                 ("version", "INTEGER"), ("closed", "BOOLEAN"), ("opened_at", "TIMESTAMP")),
                 key=("club", "table_id")),
    ServiceTable("live_entries", (("club", "VARCHAR"), ("table_id", "VARCHAR"), ("seq", "INTEGER"),
                                  ("entry", "VARCHAR")),
                 key=("club", "table_id", "seq")),
)}
"""The service's tables by name."""

SERVICE_COLUMNS = {name: list(table.columns) for name, table in SERVICE_TABLES.items()}
"""Each table's columns as DuckDB's catalogue lists them (``audit.serve.db.check_service_tables``)."""

LIVE_TABLES = ("live_tables", "live_entries")


def create_tables(con: duckdb.DuckDBPyConnection, names: tuple[str, ...] = tuple(SERVICE_TABLES)) -> None:
    """The tables ``names`` (every one of the service's by default), where missing, in the caller's transaction."""
    for name in names:
        con.execute(SERVICE_TABLES[name].create_sql())
