"""Issue 26, point 3: ``audit sql`` and ``audit report`` never write, over a database or over a lake.

Every statement that writes (``COPY``, ``EXPORT``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``, ``CREATE SECRET``,
``PRAGMA`` …), also behind ``EXPLAIN [ANALYZE]`` (which runs its statement) and inside CTEs and subqueries, is
refused with exit 2 and one line, and every file of the database, its ``<db>.tmp/`` folder and the lake is the
same, byte for byte, after the whole list.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from audit.cli import main
from audit.store.sql import explained_statement, refuse_writes
from conftest import SHARED

LOG = SHARED / "cases" / "generated" / "mut-012-POT_WINNER.txt"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> SHA-256 of its bytes), and every folder (-> "dir")."""
    return {path.relative_to(folder).as_posix():
            "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database (with the ``<db>.tmp/`` folder DuckDB would use for temporary files) and a lake of one log."""
    home = tmp_path_factory.mktemp("gate")
    assert run("ingest", str(LOG), "--db", str(home / "club.duckdb"), "-q").exit_code == 0
    (home / "club.duckdb.tmp").mkdir()
    assert run("ingest", str(LOG), "--lake", str(home / "lake"), "-q").exit_code == 0
    return home


def write_paths(home: Path) -> list[str]:
    """Statements that would write into the lake, the database's folder or ``<db>.tmp/``, or change settings."""
    lake = home / "lake"
    victim = next((lake / "findings").rglob("*.parquet"))  # the case: a lake file replaced, a finding gone
    tmp = home / "club.duckdb.tmp"
    out = tmp / "out.csv"
    copy = f"COPY (SELECT 1 AS x) TO '{out}'"
    wipe = f"COPY (SELECT * FROM findings WHERE false) TO '{victim}' (FORMAT parquet)"
    return [
        wipe,
        f"EXPLAIN ANALYZE {wipe}",
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{lake}/findings/extra.parquet' (FORMAT parquet)",
        f"EXPLAIN ANALYZE {copy}",
        f"explain analyse {copy}",
        f"EXPLAIN (ANALYZE) {copy}",
        f"EXPLAIN (ANALYZE, FORMAT json) {copy}",
        f"EXPLAIN /* ( */ ANALYZE {copy}",
        f"EXPLAIN {copy}",
        copy,
        f"COPY (SELECT 1 AS x) TO '{home}/beside.csv'",
        f"COPY hands TO '{tmp}/parts' (FORMAT parquet, PARTITION_BY (table_name))",
        f"EXPORT DATABASE '{tmp}/export'",
        f"ATTACH '{tmp}/new.duckdb' AS new",
        f"ATTACH '{home}/club.duckdb' AS again",
        "DETACH memory",
        "INSTALL httpfs",
        "FORCE INSTALL httpfs",
        "LOAD httpfs",
        "UPDATE EXTENSIONS",
        "SET threads = 1",
        f"SET temp_directory = '{tmp}'",
        "RESET threads",
        "SET VARIABLE x = 1",
        "CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')",
        f"CREATE PERSISTENT SECRET p (TYPE s3, KEY_ID 'a', SECRET 'b', SCOPE '{tmp}')",
        "PRAGMA enable_profiling",
        f"PRAGMA profiling_output = '{out}'",
        "PRAGMA show_tables",
        "PRAGMA force_checkpoint",
        f"IMPORT DATABASE '{tmp}'",
        "COPY FROM DATABASE memory TO other",
        "CHECKPOINT",
        f"CALL enable_logging(storage := 'file', storage_path := '{tmp}')",
        "EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1 AS x",
        "EXPLAIN ANALYZE INSERT INTO findings SELECT * FROM findings",
        "EXPLAIN ANALYZE DELETE FROM findings",
        "EXPLAIN ANALYZE UPDATE files SET size = 0",
        "DELETE FROM findings",
        "DROP VIEW hand_details",
        "CREATE VIEW v AS SELECT 1",
        "CREATE MACRO m() AS 1",
        "PREPARE p AS SELECT 1",
        "BEGIN TRANSACTION",
        "VACUUM",
        "ANALYZE",
        f"SELECT 1; {copy}",
        f"SELECT 1 AS x; EXPLAIN ANALYZE {copy}",
    ]


def hidden_writes(home: Path) -> list[str]:
    """Writes inside a CTE, a subquery or a table function: DuckDB refuses them (a parse error, a locked setting,
    a read-only database), and nothing is written either."""
    tmp = home / "club.duckdb.tmp"
    out = tmp / "hidden.csv"
    return [
        f"WITH c AS (COPY (SELECT 1) TO '{out}') SELECT 1",
        f"WITH c AS (EXPLAIN ANALYZE COPY (SELECT 1) TO '{out}') SELECT * FROM c",
        f"SELECT * FROM (EXPLAIN ANALYZE COPY (SELECT 1) TO '{out}')",
        f"SELECT * FROM (COPY (SELECT 1) TO '{out}')",
        "WITH d AS (DELETE FROM findings RETURNING *) SELECT count(*) FROM d",
        "SELECT * FROM (INSERT INTO findings SELECT * FROM findings RETURNING *)",
        f"SELECT * FROM query('COPY (SELECT 1) TO ''{out}''')",
        f"SELECT * FROM query('EXPLAIN ANALYZE COPY (SELECT 1) TO ''{out}''')",
        f"SELECT * FROM enable_logging(storage := 'file', storage_path := '{tmp}')",
        f"SELECT * FROM enable_profiling(format := 'json', save_location := '{out}')",
        "SELECT * FROM add_grammar_extension('x')",
        f"SELECT * FROM read_text('{home}/club.duckdb')",
    ]


@pytest.mark.parametrize("where", ["db", "lake"])
def test_no_statement_writes(home: Path, where: str) -> None:
    source = ["--db", str(home / "club.duckdb")] if where == "db" else ["--lake", str(home / "lake")]
    before = snapshot(home)
    assert before["club.duckdb.tmp"] == "dir" and any(p.startswith("lake/findings/") for p in before)
    for query in write_paths(home):
        result = run("sql", query, *source)
        assert result.exit_code == 2, (query, result.output)
        lines = result.stderr.strip().splitlines()
        said = "one statement at a time" if ";" in query else "read-only"
        assert len(lines) == 1 and lines[0].startswith("audit: ") and said in lines[0], (query, result.stderr)
        assert "internal error" not in result.stderr
    for query in hidden_writes(home):
        result = run("sql", query, *source)
        assert result.exit_code == 2, (query, result.output)
        assert result.stderr.startswith("audit: ") and "internal error" not in result.stderr, (query, result.stderr)
    assert snapshot(home) == before  # the database, <db>.tmp/ and the lake: every byte as it was
    counted = run("sql", "SELECT count(*) AS n FROM findings", *source, "--format", "json")
    assert counted.exit_code == 0 and json.loads(counted.stdout)[0]["n"] > 0


@pytest.mark.parametrize("where", ["db", "lake"])
def test_reads_still_run(home: Path, where: str) -> None:
    source = ["--db", str(home / "club.duckdb")] if where == "db" else ["--lake", str(home / "lake")]
    before = snapshot(home)
    for query in ("SELECT count(*) AS n FROM hands", "EXPLAIN ANALYZE SELECT count(*) FROM hands",
                  "EXPLAIN (FORMAT json) SELECT 1", "EXPLAIN (SELECT 1)", "explain analyse (SELECT 1) UNION (SELECT 2)",
                  "WITH h AS (SELECT * FROM hands) SELECT count(*) FROM h", "DESCRIBE hands", "SUMMARIZE files",
                  "FROM files SELECT file_sha", "SELECT * FROM pragma_table_info('hands')",
                  "SELECT * FROM (SELECT rule FROM finding_details) AS f"):
        result = run("sql", query, *source, "--format", "csv")
        assert result.exit_code == 0, (query, result.output)
    assert run("report", "violations-by-rule", *source).exit_code == 0
    assert snapshot(home) == before


def test_explained_statement_is_found_by_duckdbs_tokens() -> None:
    assert explained_statement("EXPLAIN ANALYZE COPY t TO 'x'") == "COPY t TO 'x'"
    assert explained_statement("EXPLAIN /* ) */ (ANALYZE, FORMAT json) COPY t TO 'x'") == "COPY t TO 'x'"
    assert explained_statement("EXPLAIN (SELECT 1)") == "(SELECT 1)"
    assert explained_statement("EXPLAIN (FORMAT 'json') (SELECT 1)") == "(SELECT 1)"
    refuse_writes("EXPLAIN ANALYZE SELECT 1")
    for query in ("EXPLAIN ANALYZE COPY (SELECT 1) TO 'x'", "PRAGMA version", "CALL pragma_version()"):
        with pytest.raises(Exception, match="read-only"):
            refuse_writes(query)


def test_the_connection_is_a_second_wall(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the statement check, a read-only connection may not write beside the database (``<db>.tmp/``, DuckDB's
    default temporary folder, which a locked-down DuckDB may write to) nor in ``.tmp/`` here (a lake's default)."""
    import duckdb

    from audit.lake.query import open_lake_store
    from audit.store import Store

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tmp").mkdir()
    before = snapshot(home)
    with Store.open(home / "club.duckdb", read_only=True) as store:
        for target in (home / "club.duckdb.tmp" / "wall.csv", tmp_path / ".tmp" / "wall.csv"):
            with pytest.raises(duckdb.Error, match="Permission|disabled"):
                store.con.execute(f"COPY (SELECT 1 AS x) TO '{target}'")
    with open_lake_store(str(home / "lake")) as lake:
        with pytest.raises(duckdb.Error, match="Permission|disabled"):
            lake.con.execute("COPY (SELECT 1 AS x) TO '.tmp/wall.csv'")
    assert snapshot(home) == before and not any((tmp_path / ".tmp").iterdir())
