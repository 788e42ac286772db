"""Issue 17, the CLI in scripts and pipes: closed pipes, file-level problems said once, progress on a terminal only,
closing counts, plurals, ingest's exit status, help with examples and exit statuses, choices with suggestions,
-q and -V, sql from a file or stdin with parameters, every output format, -o, report parameters."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from audit.cli import main
import termhelp
from conftest import AUDIT, SHARED, needs_shared

CASES = SHARED / "cases"
EDGE = CASES / "edge"
CLEAN = CASES / "generated" / "clean-001.txt"
REOPEN = EDGE / "reopen-short-not-reopened.txt"

pytestmark = needs_shared


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def shell(command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``command`` in bash (with ``pipefail`` off, so ``PIPESTATUS`` tells each side's status)."""
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=timeout)


def many_findings(path: Path, hands: int) -> Path:
    """A log of ``hands`` hands of 30 seats that stop after the deal: 21 findings each (about 4 KB of text)."""
    seats = "".join(f"Seat {i}: P{i} (100 in chips)\n" for i in range(1, 31))
    path.write_text("".join(f"Hand #{n} - 2026/11/28 21:00:00\nTable 'T' Seat #1 is the button\n{seats}"
                            "*** DEALING HANDS ***\n\n" for n in range(1, hands + 1)), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scripts") / "cases.duckdb"
    result = run("ingest", str(CASES), "--db", str(path), "-q")
    assert result.exit_code == 0, result.output
    return path


# ---------------------------------------------------------------------------------------------- pipes
@pytest.mark.slow
def test_a_closed_pipe_ends_quietly_with_the_status_so_far(tmp_path: Path) -> None:
    big = many_findings(tmp_path / "big.txt", 1000)  # 21,000 findings, 4 MB of text: far over a pipe's buffer
    db = tmp_path / "big.duckdb"
    assert run("ingest", str(big), "--db", str(db), "-q").exit_code == 0
    for command, status in ((f"{AUDIT} check {big} | head -3", 1),  # findings were printed before the pipe closed
                            (f"{AUDIT} check {big} --format json --fail-on never | head -1", 0),
                            (f"{AUDIT} simulate --sessions 300 | head -2", 0),
                            (f"{AUDIT} report disputed-hands -p limit 100000 --db {db} | head -3", 0),
                            (f"{AUDIT} sql 'SELECT * FROM range(3000000)' -f csv --db {db} | head -2", 0),
                            (f"{AUDIT} explain {CLEAN} | head -1", 0)):
        done = shell(command + "; exit ${PIPESTATUS[0]}")
        assert done.stderr == "" and done.returncode == status, (command, done.returncode, done.stderr)
        assert len(done.stdout.splitlines()) in (1, 2, 3)


# ---------------------------------------------------------------------------------------------- check's text
def test_a_file_that_is_not_a_hand_history_is_named_and_said_once(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("".join(f"shopping list {n}\nmilk\n\n" for n in range(18)), encoding="utf-8")
    result = subprocess.run([AUDIT, "check", str(junk)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0  # nothing was wrong with a log: there is none
    assert result.stderr.splitlines() == [f"audit: note: {junk}: not a hand history (no line of it opens a hand); "
                                          "left out"]
    assert "0 hands checked in 1 file: 0 violations, 0 warnings, 0 errors" in result.stdout
    assert "PARSE_ERROR" not in result.stdout
    # in a log, unreadable blocks are hands that could not be read: said once, counted, one JSON object each
    log = tmp_path / "log.txt"
    log.write_text(REOPEN.read_text(encoding="utf-8") + "\n" + junk.read_text(encoding="utf-8"), encoding="utf-8")
    result = run("check", str(log))
    assert result.exit_code == 1
    out = result.stdout
    assert out.count("this is not the start of a hand") == 1
    assert "the same problem again in 17 more blocks of" in out
    assert "19 hands checked in 1 file:" in out and "18 errors" in out
    rows = [json.loads(x) for x in run("check", str(log), "--format", "json").stdout.splitlines()]
    assert sum(r["rule"] == "PARSE_ERROR" for r in rows) == 18


def test_closing_counts_by_rule_and_by_file_and_plurals(tmp_path: Path) -> None:
    result = run("check", str(REOPEN), str(EDGE / "odd-chip-three-way.txt"))
    lines = result.stdout.splitlines()
    at = lines.index("Findings by rule:")
    assert lines[at:] == [
        "Findings by rule:",
        "  RAISE_NOT_REOPENED  1 violation",
        "Findings by file:",
        f"  {REOPEN}  1 violation",
        "2 hands checked in 2 files: 1 violation, 0 warnings, 0 errors",
    ]
    one = run("check", str(EDGE / "odd-chip-three-way.txt")).stdout.splitlines()
    assert one[-1] == "1 hand checked in 1 file: 0 violations, 0 warnings, 0 errors"
    assert "Findings by rule:" not in one
    spanish = run("check", str(REOPEN), "--lang", "es").stdout
    assert "Incidencias por regla:" in spanish and "1 infracción" in spanish


def test_quiet_and_version(tmp_path: Path) -> None:
    quiet = run("check", str(REOPEN), "-q")
    assert quiet.exit_code == 1 and "checked in" not in quiet.stdout and "RAISE_NOT_REOPENED" in quiet.stdout
    db = tmp_path / "q.duckdb"
    ingested = run("ingest", str(REOPEN), "--db", str(db), "-q")
    assert ingested.exit_code == 0 and ingested.stdout == "" and ingested.stderr == ""
    assert run("ingest", str(CLEAN), "--db", str(db)).stdout.startswith("1 file ingested: 2 hands, 0 findings")
    version = run("-V")
    assert version.exit_code == 0 and re.search(r"version \d+\.\d+", version.stdout)


def test_check_output_file(tmp_path: Path) -> None:
    out = tmp_path / "findings.jsonl"
    result = run("check", str(REOPEN), "--format", "json", "-o", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads(out.read_text(encoding="utf-8"))["rule"] == "RAISE_NOT_REOPENED"
    copy = tmp_path / "game.txt"
    copy.write_bytes(REOPEN.read_bytes())
    refused = run("check", str(copy), "-o", str(copy))
    assert refused.exit_code == 2 and "a log being checked" in refused.stderr
    assert copy.read_bytes() == REOPEN.read_bytes()


# ---------------------------------------------------------------------------------------------- progress
def on_a_terminal(args: list[str], stdin: Path | None = None) -> tuple[str, str, int]:
    """Run ``audit ARGS`` with stderr on a pseudo-terminal (250 columns: whole paths) and stdout on a pipe: (what
    the terminal showed, stdout, exit status)."""
    return termhelp.on_a_terminal(args, "stderr", 250, stdin)


@pytest.mark.slow
def test_progress_shows_on_a_terminal_only(tmp_path: Path) -> None:
    big = tmp_path / "long.txt"
    done = subprocess.run([AUDIT, "simulate", "--sessions", "600", "--seed", "3", "-o", str(big)], timeout=300)
    assert done.returncode == 0
    # the second file is a named pipe whose writer waits half a second: the check lasts longer than the 0.2 s
    # before a rate is shown however fast the machine (on a fast one the big file alone took less)
    late = tmp_path / "late.txt"
    os.mkfifo(late)

    def feed() -> None:
        with open(late, "wb") as pipe:  # (opens once the check opens the pipe to read it)
            time.sleep(0.5)
            pipe.write(CLEAN.read_bytes())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    terminal, out, status = on_a_terminal(["check", str(big), str(late)])
    writer.join(timeout=60)
    assert status == 0
    assert re.search(r"checking \d+/2 files  [\d,]+ hands", terminal), terminal[-500:]
    assert "hands/s" in terminal and str(big) in terminal
    assert terminal.endswith("\r\x1b[K")  # the line is cleared at the end
    assert "\x1b" not in out and "checking" not in out and "hands checked in 2 files" in out
    # -q: nothing; stderr a pipe: nothing
    quiet, _, _ = on_a_terminal(["check", str(big), "-q"])
    assert quiet == ""
    piped = subprocess.run([AUDIT, "check", str(CLEAN)], capture_output=True, text=True, timeout=120)
    assert piped.stderr == ""
    # ingest names the file it reads and counts hands
    db = tmp_path / "p.duckdb"
    terminal, out, status = on_a_terminal(["ingest", str(big), str(CLEAN), "--db", str(db)])
    assert status == 0 and "2 files ingested" in out
    assert re.search(r"ingesting \d/2 files  [\d,]+ hands.*\(\d+%\)", terminal) and str(big) in terminal
    quiet, out, _ = on_a_terminal(["ingest", str(big), "--db", str(tmp_path / "q.duckdb"), "-q"])
    assert quiet == "" and out == ""


# ---------------------------------------------------------------------------------------------- ingest's status
def test_ingest_status_tells_a_skipped_file(tmp_path: Path) -> None:
    bad = tmp_path / "binary.txt"
    bad.write_bytes(b"\x00" * 200)
    db = tmp_path / "x.duckdb"
    done = subprocess.run([AUDIT, "ingest", str(bad), str(CLEAN), "--db", str(db)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert f"audit: skipped {bad}: this is not a text file" in done.stderr
    assert "1 file ingested (1 skipped): 2 hands" in done.stdout
    again = subprocess.run([AUDIT, "ingest", str(CLEAN), "--db", str(db)], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0 and "0 files ingested (1 already in the database)" in again.stdout


# ---------------------------------------------------------------------------------------------- help
def commands() -> list[tuple[str, click.Command]]:
    assert isinstance(main, click.Group)
    return sorted(main.commands.items())


@pytest.mark.parametrize("name", [n for n, _ in commands()] + [""])
def test_every_help_has_examples_and_exit_statuses(name: str) -> None:
    result = run(*([name] if name else []), "--help")
    assert result.exit_code == 0
    text = result.stdout
    if name:
        assert "Examples:" in text and "Exit status:" in text, name
        examples = text.split("Examples:", 1)[1].split("Exit status:", 1)[0]
        assert f"audit {name}" in examples, name
        assert re.search(r"^\s+0\s", text.split("Exit status:", 1)[1], re.M), name
    else:
        assert "Exit status:" in text and "_AUDIT_COMPLETE=bash_source audit" in text


def test_check_help_says_folders_and_stdin() -> None:
    text = " ".join(run("check", "--help").stdout.split())
    assert "a folder means every *.txt file in it (and every *.xml, as Boss Media names its logs), searched " \
        "through the folders inside it" in text
    assert "'-' is standard input" in text


def test_report_help_lists_the_reports() -> None:
    from audit.store.reports import load_reports

    text = run("report", "--help").stdout
    for name in load_reports():
        assert re.search(rf"^\s+{re.escape(name)}\s", text, re.M), name
    assert "from_date" in text and "table_name" in text


def test_choices_suggest_the_name_meant() -> None:
    profile = run("check", str(CLEAN), "--profile", "home_open")
    assert profile.exit_code == 2 and "unknown profile 'home_open'; did you mean 'home-open'?" in profile.stderr
    option = run("check", str(CLEAN), "--option", "jokers=wild")
    assert option.exit_code == 2 and "unknown option 'jokers'; did you mean 'joker'?" in option.stderr
    report = run("report", "violation-by-rule", "--db", "x.duckdb")
    assert report.exit_code == 2 and "did you mean 'violations-by-rule'?" in report.stderr
    far = run("check", str(CLEAN), "--profile", "zzzz")
    assert far.exit_code == 2 and "did you mean" not in far.stderr and "home-open" in far.stderr


def test_shell_completion_offers_profiles_and_options() -> None:
    env = {**os.environ, "_AUDIT_COMPLETE": "bash_complete", "COMP_WORDS": "audit check --profile q", "COMP_CWORD": "3"}
    done = subprocess.run([AUDIT], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,qdan" in done.stdout.splitlines()
    env.update(COMP_WORDS="audit check --option draw-l", COMP_CWORD="3")
    done = subprocess.run([AUDIT], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,draw-limit=" in done.stdout.splitlines()


# ---------------------------------------------------------------------------------------------- sql
def test_sql_from_a_file_stdin_and_parameters(db: Path, tmp_path: Path) -> None:
    query = "SELECT count(*) AS n FROM hand_details WHERE profile = $profile AND play_date >= $day"
    expected = run("sql", query.replace("$profile", "'home-open'").replace("$day", "'2026-06-01'"), "--db", str(db),
                   "-f", "csv").stdout
    assert expected.startswith("n\n") and int(expected.split()[1]) > 0
    file = tmp_path / "q.sql"
    file.write_text(query + ";\n", encoding="utf-8")
    args = ["--db", str(db), "-f", "csv", "-p", "profile", "home-open", "-p", "day", "2026-06-01"]
    assert run("sql", "--query-file", str(file), *args).stdout == expected
    assert run("sql", "-", *args, input=query).stdout == expected
    assert run("sql", "--query-file", "-", *args, input=query).stdout == expected
    missing = run("sql", query, "--db", str(db), "-p", "profile", "home-open")
    assert missing.exit_code == 2 and "day" in missing.stderr
    neither = run("sql", "--db", str(db))
    assert neither.exit_code == 2 and "give a query" in neither.stderr


def test_every_format(db: Path, tmp_path: Path) -> None:
    query = ("SELECT rule, count(*) AS n, list(DISTINCT severity) AS severities, 'a|b' AS pipe FROM findings "
             "GROUP BY rule ORDER BY n DESC, rule LIMIT 3")
    rows = [json.loads(x) for x in run("sql", query, "--db", str(db), "-f", "jsonl").stdout.splitlines()]
    assert len(rows) == 3 and rows[0]["severities"] == ["violation"]
    assert json.loads(run("sql", query, "--db", str(db), "-f", "json").stdout) == rows
    as_csv = list(csv.DictReader(io.StringIO(run("sql", query, "--db", str(db), "-f", "csv").stdout)))
    as_tsv = list(csv.DictReader(io.StringIO(run("sql", query, "--db", str(db), "-f", "tsv").stdout),
                                 delimiter="\t"))
    for table in (as_csv, as_tsv):
        assert [(r["rule"], int(r["n"]), json.loads(r["severities"]), r["pipe"]) for r in table] == [
            (r["rule"], r["n"], r["severities"], r["pipe"]) for r in rows]
    markdown = run("sql", query, "--db", str(db), "-f", "markdown").stdout.splitlines()
    assert markdown[:2] == ["| rule | n | severities | pipe |", "| --- | ---: | --- | --- |"]
    assert markdown[2] == f"| {rows[0]['rule']} | {rows[0]['n']} | [\"violation\"] | a\\|b |" and len(markdown) == 5
    out = tmp_path / "x.parquet"
    assert run("sql", query, "--db", str(db), "-f", "parquet", "-o", str(out)).exit_code == 0
    import pyarrow.parquet as pq
    assert pq.read_table(out).column("rule").to_pylist() == [r["rule"] for r in rows]
    empty = run("sql", "SELECT 1 AS x WHERE false", "--db", str(db), "-f", "json")
    assert json.loads(empty.stdout) == []


def test_the_table_fits_the_width_it_is_given() -> None:
    import pyarrow as pa

    from audit.store.formats import write_result

    batch = pa.record_batch({"file": ["/a/very/long/path/to/a/log/file/of/the/club/friday-night.txt"] * 3,
                             "message": ["Ana raised to 11, but the betting was not re-opened for Ana" * 2] * 3,
                             "n": [1, 22, 333]})
    out = io.StringIO()
    write_result(batch.schema.names, [batch], "table", width=60, out=out)
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 60 for line in lines), lines
    assert lines[0].split() == ["file", "message", "n"] and lines[2].rstrip().endswith("1")
    assert "…" in lines[2] and lines[-1] == "(3 rows)"
    wide = io.StringIO()
    write_result(batch.schema.names, [batch], "table", out=wide)
    assert max(len(line) for line in wide.getvalue().splitlines()) > 100


# ---------------------------------------------------------------------------------------------- reports
def report_rows(db: Path, name: str, *args: str) -> list[dict[str, Any]]:
    result = run("report", name, "--db", str(db), "-f", "json", *args)
    assert result.exit_code == 0, result.output
    got: list[dict[str, Any]] = json.loads(result.stdout)
    return got


def test_reports_take_a_date_range_a_profile_and_a_table(db: Path) -> None:
    def hands(*args: str) -> int:
        return sum(r["hands"] for r in report_rows(db, "violation-rate-by-profile", *args))

    def count(where: str) -> int:
        return int(run("sql", f"SELECT count(*) FROM hand_details WHERE audited AND {where}", "--db", str(db),
                       "-f", "csv").stdout.split()[1])

    assert hands() == count("true")
    assert hands("--from", "2026-06-01") == count("play_date >= DATE '2026-06-01'") > 0
    assert hands("--from", "2026-06-01", "--to", "2026-06-30") == count(
        "play_date BETWEEN DATE '2026-06-01' AND DATE '2026-06-30'")
    assert hands("--profile", "qdan") == count("profile = 'qdan'") > 0
    assert hands("--table", "Casa Pepe") == count("table_name = 'Casa Pepe'") > 0
    assert {r["profile"] for r in report_rows(db, "violation-rate-by-profile", "--profile", "qdan")} == {"qdan"}
    assert len(report_rows(db, "disputed-hands", "-p", "limit", "2")) == 2
    by_param = report_rows(db, "violations-by-rule", "-p", "from_date", "2026-06-01")
    assert by_param == report_rows(db, "violations-by-rule", "--from", "2026-06-01")


def test_report_parameters_are_checked(db: Path) -> None:
    bad_date = run("report", "violations-by-rule", "--db", str(db), "--from", "2026-13-01")
    assert bad_date.exit_code == 2 and "is not a date (write it YYYY-MM-DD)" in bad_date.stderr
    unknown = run("report", "files", "--db", str(db), "--from", "2026-01-01")
    assert unknown.exit_code == 2 and "takes no parameter 'from_date'" in unknown.stderr
    listed = run("report", "--list").stdout
    assert re.search(r"^violations-by-rule .*\[from_date, to_date, profile, table_name\]$", listed, re.M)


def test_python_m_audit_and_sys_executable() -> None:
    done = subprocess.run([sys.executable, "-m", "audit", "-V"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "version" in done.stdout
