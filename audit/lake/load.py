"""``audit ingest --db FILE --from-lake DIR``: the lake's complete input files into a database, each in one
transaction as ``audit ingest`` writes them, skipping those the database holds (by SHA-256). The rows are copied
as they are (``ingested_at`` and ``audit_version`` too), a batch at a time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from audit.errors import AuditError, Interrupted
from audit.lake.layout import COMMIT_TABLE, Lake, open_lake
from audit.store.db import Store, check_db_name
from audit.store.ingest import APPEND_ROWS, DUCKDB_MEMORY, IngestSummary, Tell
from audit.store.schema import DATA_TABLES, arrow_schema
from audit.textout import counted


def load_lake(lake_dir: str, db: str, tell: Tell | None = None) -> IngestSummary:
    """Load every input file complete in the lake ``lake_dir`` that the database ``db`` does not hold yet (each
    one ``tell``-ed as ``stored``, as ``audit.store.ingest.ingest`` does)."""
    start = time.perf_counter()
    check_db_name(db)
    lake = open_lake(lake_dir)
    database = os.path.realpath(db)
    if database.startswith(str(lake.root) + os.sep):
        raise AuditError(f"{db}: the database would be inside the lake {lake_dir}; name a file outside it")
    summary = IngestSummary(db, files=len(lake.committed))
    store = Store.open(db, memory_limit=DUCKDB_MEMORY)
    if store.has_index("hands"):  # a database made by audit 0.1.0: its index must fit in memory whole
        store.close()
        store = Store.open(db)
    with store:
        known = store.known_files()
        try:
            for sha in sorted(lake.committed - known):
                row = _load_file(store, lake, sha)
                if row is None:
                    summary.already += 1
                    continue
                summary.ingested += 1
                summary.hands += int(row["hands"])
                summary.parse_errors += int(row["parse_errors"])
                summary.findings += int(row["findings"])
                if tell is not None:
                    tell("stored", f"ingested {row['path']}: {counted(int(row['hands']), 'hand')}, "
                                   f"{counted(int(row['findings']), 'finding')}")
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted; {counted(summary.ingested, 'file')} loaded, each whole (the database "
                              "holds only whole files)") from None
    summary.already += len(lake.committed & known)
    summary.seconds = time.perf_counter() - start
    return summary


def _load_file(store: Store, lake: Lake, sha: str) -> dict[str, Any] | None:
    """One input file's rows in one transaction; its ``files`` row (``None``: the database had it already)."""
    import duckdb
    import pyarrow as pa

    files = _parquet(lake.path(COMMIT_TABLE, sha), COMMIT_TABLE).read()
    if files.num_rows != 1 or files.column("file_sha")[0].as_py() != sha:
        raise AuditError(f"{lake.path(COMMIT_TABLE, sha)}: not the files row of {sha}; nothing more was loaded")
    sources = {table: _parquet(lake.path(table, sha), table) for table in DATA_TABLES}
    if not store.begin_file(sha):
        return None
    try:
        for table, source in sources.items():
            batches = source.iter_batches(batch_size=APPEND_ROWS)
            store.append(table, pa.RecordBatchReader.from_batches(source.schema_arrow, batches))
        store.append(COMMIT_TABLE, files)
        store.link_file(sha, files.column("ingested_at")[0].as_py(), files.column("default_profile")[0].as_py())
        store.con.execute("COMMIT")
    except duckdb.Error as exc:
        store.rollback()
        if isinstance(exc, duckdb.InterruptException) or "interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise AuditError(f"{store.path}: loading {sha} from the lake failed ({exc}); the database holds the files "
                         "loaded before it") from None
    except BaseException:
        store.rollback()
        raise
    return {name: files.column(name)[0].as_py() for name in files.column_names}


def _parquet(path: Path, table: str) -> Any:
    """The lake's Parquet file of ``table`` at ``path``, checked to have exactly the table's columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pq.ParquetFile(path)
    except FileNotFoundError:
        raise AuditError(f"{path}: missing from the lake (its input file is marked complete); ingest that file "
                         "into the lake again, or remove its files row") from None
    except (OSError, pa.ArrowException) as exc:
        raise AuditError(f"{path}: cannot be read as Parquet ({exc}); nothing more was loaded") from None
    if not source.schema_arrow.remove_metadata().equals(arrow_schema(table)):
        raise AuditError(f"{path}: its columns are not those of the {table} table; nothing more was loaded")
    return source
