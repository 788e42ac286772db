"""Reading a lake: an in-memory DuckDB whose views, named and typed like the database's tables, read the lake's
Parquet files where they lie (``read_parquet(…, hive_partitioning = true)``), with the database's analyst views
(``audit.store.schema.VIEWS``: ``finding_details``, ``hand_details``, …) over them, so every report and query
runs over a lake as over a database. Only the rows of complete input files are seen (their ``file_sha`` is in
``files``).

DuckDB may read the lake's folder and nothing else (``allowed_directories``, external access off, settings locked
before the first query), and its temporary folder is the process's private one. ``allowed_directories`` lets DuckDB
write where it may read, so what keeps the lake whole is that only a read runs on it: ``audit.store.sql`` refuses
every other statement (``COPY``, ``EXPLAIN ANALYZE COPY`` …) before it reaches DuckDB, and the locked settings keep
profiling and logging from writing files.
"""

from __future__ import annotations

import os
from typing import Any

from audit.errors import AuditError
from audit.lake.layout import COMMIT_TABLE, PARTITION, Lake, open_lake
from audit.store.db import Store, private_temp
from audit.store.schema import SCHEMA, VIEWS, view_sql


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def table_view_sql(lake: Lake, table: str) -> str:
    """``CREATE VIEW <table>`` over the lake: the table's columns, in order, with the database's types."""
    columns = ", ".join(f"CAST({name} AS {typ}) AS {name}" for name, typ in SCHEMA[table])
    if not lake.has_files(table):
        nothing = ", ".join(f"NULL AS {name}" for name, _ in SCHEMA[table])
        return f"CREATE VIEW {table} AS SELECT {columns} FROM (SELECT {nothing}) WHERE false"
    source = (f"read_parquet({_literal(lake.pattern(table))}, hive_partitioning = true, "
              f"hive_types = {{'{PARTITION}': VARCHAR}})")
    complete = "" if table == COMMIT_TABLE else f" WHERE file_sha IN (SELECT file_sha FROM {COMMIT_TABLE})"
    return f"CREATE VIEW {table} AS SELECT {columns} FROM {source}{complete}"


def connect(lake: Lake, threads: int | None = None, scratch: str | None = None) -> Any:
    """A DuckDB connection that may read ``lake``'s folder only, with a view per table and the analyst views;
    ``scratch``: its temporary folder (else DuckDB's default, ``.tmp/`` in the working folder)."""
    import duckdb

    config: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                              "allow_community_extensions": False}
    if threads is not None:
        config["threads"] = threads
    if scratch is not None:
        config["temp_directory"] = scratch
    con = duckdb.connect(config=config)
    try:
        con.execute(f"SET allowed_directories = [{_literal(str(lake.root) + os.sep)}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        for table in SCHEMA:
            con.execute(table_view_sql(lake, table))
        for name in VIEWS:  # the analyst views, over the lake's tables as over a database's
            con.execute(view_sql(name))
    except duckdb.Error as exc:
        con.close()
        text = str(exc).strip().splitlines()
        raise AuditError(f"{lake.root}: the lake cannot be read ({text[0] if text else type(exc).__name__})") from None
    return con


def open_lake_store(path: str) -> Store:
    """The lake at ``path`` as a read-only ``Store`` (``reader``, ``query``, ``counts`` work as on a database)."""
    lake = open_lake(path)
    return Store(connect(lake, scratch=private_temp()), path, read_only=True)

