"""Issue 41, a terminal that fits: ``-f line`` and ``--columns`` on ``report`` and ``sql``, a table too wide for
the terminal written as ``line`` by itself, ``SHOW TABLES`` naming each view once, ``audit sql`` with no database
in memory, parameters that do not match the query in one line, and the service's "did you mean" for a report."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from audit.cli import main
import termhelp
from conftest import AUDIT

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DEMO = FIXTURES / "demo"


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fit") / "demo.duckdb"
    result = run("ingest", str(DEMO), "--db", str(path), "-q")
    assert result.exit_code == 0, result.output
    return path


def on_a_terminal(args: list[str], columns: int) -> tuple[str, int]:
    """``audit ARGS`` with its standard output on a pseudo-terminal ``columns`` wide (and ``COLUMNS`` so): what
    the terminal showed (line ends as ``\\n``) and the exit status."""
    shown, _, status = termhelp.on_a_terminal(args, "stdout", columns, env={**os.environ, "COLUMNS": str(columns)})
    return shown.replace("\r\n", "\n"), status


def line_rows(text: str) -> list[dict[str, str]]:
    """The rows of ``-f line`` output, each ``column = value`` line a key and its value."""
    body, _, count = text.rstrip("\n").rpartition("\n\n")
    assert count.startswith("(") and count.endswith(")"), text
    rows = []
    for block in body.split("\n\n"):
        row = {}
        for line in block.splitlines():
            name, sep, value = line.partition(" =")
            assert sep, line
            row[name.strip()] = value[1:]
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------- -f line
def test_line_gives_one_column_per_line_and_a_blank_line_between_rows(db: Path) -> None:
    result = run("report", "chips-misallocated", "--db", str(db), "-f", "line")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "             player = " + lines[0].split(" = ")[1]  # names right-aligned, as DuckDB's
    rows = line_rows(result.stdout)
    assert len(rows) == 2 and lines[-1] == "(2 rows)"
    assert all(list(r) == ["player", "unit", "hands", "received_too_much", "received_too_little", "net",
                           "rules", "corrected_at_table"] for r in rows)
    assert {r["player"] for r in rows} == {"Маша", "O'Neil"}
    one = run("sql", "SELECT 1 AS n, 'a\tb' AS tab, NULL AS nothing", "--db", str(db), "-f", "line")
    assert one.stdout == "      n = 1\n    tab = a\\tb\nnothing =\n\n(1 row)\n"
    none = run("sql", "SELECT 1 AS n WHERE false", "--db", str(db), "-f", "line")
    assert none.exit_code == 0 and none.stdout == "(0 rows)\n"


def test_columns_keeps_those_columns_in_that_order(db: Path) -> None:
    result = run("report", "misawarded-pots", "--db", str(db), "--columns", "hand_id, file,corrected_before",
                 "-f", "csv")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "hand_id,file,corrected_before" and len(lines) == 3
    assert all(line.startswith("387708,") for line in lines[1:])
    wrong = run("sql", "SELECT 1 AS player, 2 AS net", "--db", str(db), "--columns", "net,palyer")
    assert wrong.exit_code == 2 and wrong.stderr.count("\n") == 1
    assert "no column 'palyer'; did you mean 'player'?" in wrong.stderr
    assert run("sql", "SELECT 1 AS n", "--db", str(db), "--columns", " , ").exit_code == 2
    near_miss = run("sql", "SELECT 1 AS player, 2 AS net", "--db", str(db), "--columns", "net,player", "-f", "csv")
    assert near_miss.stdout == "net,player\n2,1\n"


# ---------------------------------------------------------------------------------------------- fitting
def test_a_table_too_wide_for_the_terminal_is_written_as_line(db: Path) -> None:
    shown, status = on_a_terminal(["report", "misawarded-pots", "--db", str(db)], columns=100)
    assert status == 0, shown
    rows = line_rows(shown)
    assert len(rows) == 2 and rows[0]["hand_id"] == "387708"
    assert rows[0]["messages"].endswith("the first tied winner left of the button.\"]")  # nothing cut
    # asked for by name, the table stays a table, fitted to the terminal
    table, status = on_a_terminal(["report", "misawarded-pots", "--db", str(db), "-f", "table"], columns=100)
    assert status == 0 and table.split()[:2] == ["file", "hand_id"]
    assert "…" in table.splitlines()[2]  # cut to fit (as far as the headings allow)
    # a table that fits stays a table
    narrow, status = on_a_terminal(["report", "misawarded-pots", "--db", str(db), "--columns", "hand_id,pot"],
                                   columns=100)
    assert status == 0 and narrow.splitlines()[:3] == ["hand_id  pot", "-------  ---", "387708   pot"]


# ---------------------------------------------------------------------------------------------- sql
def test_show_tables_names_each_table_and_view_once(db: Path) -> None:
    result = run("sql", "SHOW TABLES", "--db", str(db), "-f", "csv")
    names = result.stdout.splitlines()[1:]
    assert result.exit_code == 0 and len(names) == len(set(names))
    assert {"hands", "player_hands", "pot_details", "streets"} <= set(names)


def test_sql_with_no_database_runs_in_memory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AUDIT_DB"}
    done = subprocess.run([AUDIT, "sql", "SELECT 1 + 1 AS two", "-f", "csv"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "two\n2\n", done.stderr
    assert not list(tmp_path.iterdir())  # no database file made
    refused = subprocess.run([AUDIT, "sql", "CREATE TABLE t AS SELECT 1"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "read-only" in refused.stderr
    no_table = subprocess.run([AUDIT, "sql", "SELECT * FROM hands"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
    assert no_table.returncode == 2 and no_table.stderr.count("\n") == 1 and "--db" in no_table.stderr
    # a --db named (or $AUDIT_DB) that does not exist is still said so
    named = subprocess.run([AUDIT, "sql", "SELECT 1", "--db", "missing.duckdb"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
    assert named.returncode == 2 and "no such database" in named.stderr


def test_a_parameter_the_query_does_not_take_is_one_line(db: Path) -> None:
    extra = run("sql", "SELECT 1", "--db", str(db), "-p", "x", "1")
    assert extra.exit_code == 2 and "Binder Error" not in extra.stderr
    assert extra.stderr == "audit: -p x: the query has no parameter $x (the parameters it takes: none)\n"
    missing = run("sql", "SELECT $day AS d", "--db", str(db))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1 and "-p day VALUE" in missing.stderr
    given = run("sql", "SELECT $day AS d", "--db", str(db), "-p", "day", "x", "-f", "csv")
    assert given.exit_code == 0 and given.stdout == "d\nx\n"


# ---------------------------------------------------------------------------------------------- the service
@pytest.fixture()
def service(tmp_path: Path) -> Iterator[object]:
    from fastapi.testclient import TestClient

    from audit.serve.app import Settings, create_app

    with TestClient(create_app(Settings(db=str(tmp_path / "serve.duckdb"))), base_url="http://127.0.0.1:8000",
                    client=("127.0.0.1", 50123)) as c:
        yield c


def test_the_service_says_did_you_mean_as_the_command_line_does(service: object, db: Path) -> None:
    from fastapi.testclient import TestClient

    assert isinstance(service, TestClient)
    near = service.get("/api/v1/reports/misawarded-pot")
    assert near.status_code == 404
    assert near.json()["detail"] == ("no report named 'misawarded-pot'; did you mean 'misawarded-pots'? "
                                     "(GET /api/v1/reports lists them)")
    cli = run("report", "misawarded-pot", "--db", str(db))
    assert "no report named 'misawarded-pot'; did you mean 'misawarded-pots'?" in cli.stderr
    far = service.get("/api/v1/reports/zzzz")
    assert far.status_code == 404 and "did you mean" not in far.json()["detail"]
