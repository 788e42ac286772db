"""``audit report`` and ``audit sql``: every report on a database built from the shared cases; read-only SQL."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.store.formats import render_table
from audit.store.ingest import ingest
from audit.store.reports import load_reports
from audit.resources import data_dir

from conftest import needs_shared

SHARED = Path(__file__).resolve().parents[2] / "shared"
CASES = SHARED / "cases"
STARS = SHARED / "real-hands" / "pokerstars"

pytestmark = needs_shared

# The columns of every report, in order: a new report needs a line here (test_every_report_is_listed_here).
COLUMNS = {
    "violations-by-rule": ["rule", "severity", "findings", "hands", "files", "players", "pct_of_hands"],
    "violations-by-player": ["player", "hands_played", "violations", "warnings", "hands_with_findings",
                             "violations_per_100_hands", "commonest_rule"],
    "violations-by-table-week": ["table_name", "week", "hands", "violations", "warnings", "hands_with_violations",
                                 "violations_per_100_hands"],
    "chips-misallocated": ["player", "unit", "hands", "received_too_much", "received_too_little", "net", "rules",
                           "corrected_at_table"],
    "parse-errors": ["file", "line", "col", "hand_id", "session", "first_line", "end_line", "message"],
    "standings-disputes": ["file", "session", "started_at", "hands", "disagreements", "details", "first_line"],
    "disputed-hands": ["file", "line", "hand_id", "session", "table_name", "started_at", "findings", "violations",
                       "warnings", "rules"],
    "violation-rate-by-profile": ["profile", "dialect", "hands", "violations", "violations_per_100_hands",
                                  "warnings_per_100_hands", "pct_hands_with_violation"],
    "sessions": ["file", "session", "profile", "table_name", "hands", "players", "first_hand", "last_hand",
                 "violations", "standings_disagree"],
    "files": ["path", "size", "file_sha", "ingested_at", "default_profile", "hands", "parse_errors", "findings"],
    "rule-profile-week": ["rule", "severity", "profile", "week", "findings", "hands", "hands_played",
                          "findings_per_100_hands"],
    "misawarded-pots": ["file", "hand_id", "session", "table_name", "started_at", "unit", "pot", "pot_amount",
                        "winners", "collected", "should_have", "rules", "messages", "corrected_before"],
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared cases, plus the real site hands when present, and one file with an unreadable hand."""
    folder = tmp_path_factory.mktemp("reports")
    broken = folder / "broken.txt"
    broken.write_text((CASES / "edge" / "odd-chip-three-way.txt").read_text(encoding="utf-8")
                      + "\nHand #X1 - 2026/11/28 21:30:00\nTable 'T' Seat #1 is the button\n"
                        "Seat 1: Ana (100 in chips)\nAna: dances the tango\n", encoding="utf-8")
    path = folder / "cases.duckdb"
    paths = [str(CASES), str(broken)] + ([str(STARS)] if STARS.is_dir() else [])
    summary = ingest(paths, str(path))
    assert summary.ingested > 60 and not summary.failed
    return path


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def report_rows(db: Path, name: str) -> list[dict[str, Any]]:
    result = run("report", name, "--db", str(db), "--format", "jsonl")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


# ---------------------------------------------------------------------------------------------- the files
def test_every_report_is_listed_here() -> None:
    assert sorted(load_reports()) == sorted(COLUMNS)
    assert len(COLUMNS) >= 8


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_report_file_has_title_and_description(name: str) -> None:
    head = (data_dir("reports") / f"{name}.sql").read_text(encoding="utf-8").splitlines()[:2]
    assert re.match(r"-- title: \S", head[0]) and re.match(r"-- description: \S", head[1]), head


def test_list_names_every_report_with_its_description() -> None:
    result = run("report", "--list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == sorted(COLUMNS)
    reports = load_reports()
    for line in lines:
        name = line.split()[0]
        assert reports[name].description in line


# ---------------------------------------------------------------------------------------------- every report
@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_report_runs_and_has_its_columns(db: Path, name: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.parquet"
    result = run("report", name, "--db", str(db), "--format", "parquet", "--output", str(out))
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table.column_names == COLUMNS[name]
    assert table.num_rows > 0, f"{name} is empty on the shared cases"


def test_violations_by_rule_counts_every_finding(db: Path) -> None:
    got = report_rows(db, "violations-by-rule")
    assert sum(r["findings"] for r in got) == query(db, "SELECT count(*) FROM findings")[0][0]
    by_rule = {r["rule"]: r for r in got}
    assert by_rule["POT_WINNER"]["severity"] == "violation"
    assert got[0]["severity"] == "violation"


def test_rate_by_profile_covers_every_hand(db: Path) -> None:
    got = report_rows(db, "violation-rate-by-profile")
    assert sum(r["hands"] for r in got) == query(db, "SELECT count(*) FROM hands")[0][0]
    home = next(r for r in got if r["profile"] == "home-open")
    assert home["violations_per_100_hands"] == pytest.approx(100 * home["violations"] / home["hands"], abs=0.01)
    if STARS.is_dir():
        assert {"house", "site"} <= {r["dialect"] for r in got}


def test_standings_disputes_are_the_sessions_with_standings_findings(db: Path) -> None:
    got = report_rows(db, "standings-disputes")
    expected = query(db, "SELECT DISTINCT file, session FROM findings WHERE rule = 'STANDINGS'")
    assert sorted((r["file"], r["session"]) for r in got) == sorted(expected)
    assert all(r["disagreements"] >= 1 and "announced" in r["details"] for r in got)


def test_chips_misallocated_names_the_wrong_pots(db: Path) -> None:
    got = report_rows(db, "chips-misallocated")
    rules = {rule for r in got for rule in r["rules"]}
    assert rules <= {"POT_WINNER", "POT_AMOUNT", "ODD_CHIP", "UNCALLED_BET", "CHIPS_NOT_CONSERVED", "RAKE", "PAROLE"}
    assert "POT_WINNER" in rules
    assert all(r["net"] == r["received_too_much"] - r["received_too_little"] for r in got)


def test_disputed_hands_are_ordered_by_findings(db: Path) -> None:
    got = report_rows(db, "disputed-hands")
    counts = [r["findings"] for r in got]
    assert counts == sorted(counts, reverse=True) and len(got) <= 50
    top = query(db, "SELECT count(*) FROM findings WHERE hand_key IS NOT NULL GROUP BY hand_key ORDER BY 1 DESC "
                    "LIMIT 1")
    assert counts[0] == top[0][0]


def test_parse_errors_report_points_at_the_line(db: Path) -> None:
    got = report_rows(db, "parse-errors")
    mine = [r for r in got if r["file"].endswith("broken.txt")]
    assert len(mine) == 1 and mine[0]["hand_id"] == "X1" and "\n" not in mine[0]["message"]


def test_unknown_report_and_missing_name_exit_2(db: Path) -> None:
    result = run("report", "no-such-report", "--db", str(db))
    assert result.exit_code == 2 and "no report named 'no-such-report'" in result.stderr
    assert run("report", "--db", str(db)).exit_code == 2


# ---------------------------------------------------------------------------------------------- formats
def test_formats(db: Path, tmp_path: Path) -> None:
    sql = "SELECT rule, count(*) AS n, min(line) AS first FROM findings GROUP BY rule ORDER BY n DESC, rule"
    expected = query(db, sql)
    as_csv = run("sql", sql, "--db", str(db), "--format", "csv")
    assert as_csv.exit_code == 0
    parsed = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert parsed[0] == ["rule", "n", "first"]
    assert [(r[0], int(r[1]), int(r[2])) for r in parsed[1:]] == expected
    as_json = run("sql", sql, "--db", str(db), "--format", "json")
    assert [tuple(row.values()) for row in json.loads(as_json.stdout)] == expected
    as_jsonl = run("sql", sql, "--db", str(db), "--format", "jsonl")
    assert [tuple(json.loads(line).values()) for line in as_jsonl.stdout.splitlines()] == expected
    as_table = run("sql", sql, "--db", str(db))
    lines = as_table.stdout.splitlines()
    assert lines[0].split() == ["rule", "n", "first"] and lines[-1] == f"({len(expected)} rows)"
    out = tmp_path / "x.csv"
    assert run("sql", sql, "--db", str(db), "--format", "csv", "--output", str(out)).stdout == ""
    assert out.read_text(encoding="utf-8") == as_csv.stdout
    parquet = run("sql", sql, "--db", str(db), "--format", "parquet")
    assert parquet.exit_code == 2 and "--output" in parquet.stderr


def test_json_turns_dates_and_lists_into_json(db: Path) -> None:
    result = run("sql", "SELECT started_at, ['a', 'b'] AS l, DATE '2026-01-02' AS d, 1.5::DECIMAL(4,2) AS x "
                        "FROM hands LIMIT 1", "--db", str(db), "--format", "json")
    (row,) = json.loads(result.stdout)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", row["started_at"])
    assert row["l"] == ["a", "b"] and row["d"] == "2026-01-02" and row["x"] == 1.5


def test_render_table_aligns_numbers_right() -> None:
    text = render_table(["name", "n"], [["a", 1], ["bbb", 100], [None, None]])
    assert text.splitlines() == ["name    n", "----  ---", "a       1", "bbb   100", "", "(3 rows)"]


# ---------------------------------------------------------------------------------------------- read-only sql
@pytest.mark.parametrize("statement", [
    "INSERT INTO files (file_sha) VALUES ('x')",
    "DELETE FROM hands",
    "UPDATE hands SET rake = 1",
    "DROP TABLE findings",
    "CREATE TABLE t AS SELECT 1",
    "ALTER TABLE hands ADD COLUMN x INTEGER",
    "ATTACH 'other.duckdb' AS other",
    "COPY hands TO 'hands.csv'",
    "SELECT 1; DELETE FROM hands",
    "CHECKPOINT",
    "SET enable_external_access = true",
])
def test_writes_through_sql_are_refused(db: Path, statement: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    before = query(db, "SELECT (SELECT count(*) FROM hands), (SELECT count(*) FROM findings), "
                       "(SELECT count(*) FROM files)")
    result = run("sql", statement, "--db", str(db))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("audit: "), result.stderr
    assert "read-only" in result.stderr or "one statement" in result.stderr
    assert query(db, "SELECT (SELECT count(*) FROM hands), (SELECT count(*) FROM findings), "
                     "(SELECT count(*) FROM files)") == before
    assert list(tmp_path.iterdir()) == []


def test_sql_cannot_reach_files_outside_the_database(db: Path) -> None:
    result = run("sql", "SELECT * FROM read_csv('/etc/hostname')", "--db", str(db))
    assert result.exit_code == 2 and "disabled" in result.stderr


def test_sql_reads(db: Path) -> None:
    result = run("sql", "SELECT count(*) AS n FROM hands WHERE dialect = 'house'", "--db", str(db), "--format",
                 "csv")
    assert result.exit_code == 0
    assert int(result.stdout.splitlines()[1]) == query(db, "SELECT count(*) FROM hands WHERE dialect = 'house'")[0][0]
    assert run("sql", "DESCRIBE hands", "--db", str(db)).exit_code == 0
    assert run("sql", "EXPLAIN SELECT * FROM hands", "--db", str(db)).exit_code == 0


def test_sql_errors_exit_2_with_the_reason(db: Path, tmp_path: Path) -> None:
    bad = run("sql", "SELEC 1", "--db", str(db))
    assert bad.exit_code == 2 and "syntax error" in bad.stderr
    missing = run("sql", "SELECT 1", "--db", str(tmp_path / "none.duckdb"))
    assert missing.exit_code == 2 and "no such database" in missing.stderr
    assert not (tmp_path / "none.duckdb").exists()
