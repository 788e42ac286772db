"""Whether the demo may make its database afresh: ``python scripts/demo_db.py DB FOLDER``.

Exit 0 when ``DB`` is missing, or is the demo's own: a DuckDB file no program has open that holds only the logs
of ``FOLDER`` (every stored file's SHA-256 is one of theirs; no club upload, no token, no row in a table of
anyone else's). Exit 1, with the reason on stderr, otherwise: the demo then leaves the file alone (bench/demo.sh).
It never deletes anything itself."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import duckdb

from audit.store.schema import CHAIN_TABLE, SCHEMA

OURS = set(SCHEMA) | {CHAIN_TABLE, "audit_meta"}
"""The store's tables, which hold the demo's logs (and club local's chain of them); any other table (the service's ``uploads``, ``tokens``,
``upload_parts``, the live tables', or anyone's) must be empty: then replacing the file loses nothing."""
SERVICE = ("uploads", "tokens")


def why_not_ours(db: Path, folder: Path) -> str | None:
    """None when the demo may replace ``db``; else why not, in a few words."""
    if not db.exists():
        return None
    demo = {hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*.txt")}
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error as exc:  # another program holds it (DuckDB's file lock), or it is not a database
        return f"it cannot be opened on its own ({str(exc).splitlines()[0]})"
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()").fetchall()]
        for table in tables:
            if table in OURS or con.execute(f'SELECT count(*) FROM "{table}"').fetchone() == (0,):
                continue
            return f"it holds {table} of the service" if table in SERVICE else f"it holds rows of its own in {table!r}"
        if "files" in tables:
            stored = {r[0] for r in con.execute("SELECT file_sha FROM files").fetchall()}
            if stored - demo:
                return f"it holds {len(stored - demo)} log(s) that are not the demo's"
        return None
    finally:
        con.close()


if __name__ == "__main__":
    reason = why_not_ours(Path(sys.argv[1]), Path(sys.argv[2]))
    if reason is not None:
        print(f"{sys.argv[1]}: {reason}", file=sys.stderr)
    sys.exit(0 if reason is None else 1)
