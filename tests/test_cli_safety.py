"""Issue 26, the command line's points: an output is never an input of the same command (4); odd column types
reach every format as text (10); ``export`` keeps an empty folder's owner and mode (10); a ``--db`` that is not a
plain file is refused at once (10); ``ingest -`` stops at ``--max-stream`` (11)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import subprocess
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from audit.cli import main
from conftest import AUDIT, SHARED

LOG = SHARED / "cases" / "generated" / "mut-012-POT_WINNER.txt"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(result: Result, says: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("audit: ") and says in lines[0], result.stderr


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-safety") / "club.duckdb"
    assert run("ingest", str(LOG), "--db", str(path), "-q").exit_code == 0
    return path


# ============================================================================================ 4. -o is never an input
def test_check_never_writes_over_or_into_what_it_reads(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    log = logs / "reopen-dispute.txt"
    log.write_bytes(LOG.read_bytes())
    outside = tmp_path / "outside.txt"
    outside.write_bytes(LOG.read_bytes())
    (logs / "linked.txt").symlink_to(outside)  # a log of the folder that lives elsewhere
    (tmp_path / "out-link.txt").symlink_to(log)
    before = {p: digest(p) for p in (log, outside)}
    for output, says in ((logs / "reopen-dispute.txt", "a log being checked"),
                         (logs / "sub" / ".." / "reopen-dispute.txt", "a log being checked"),
                         (tmp_path / "out-link.txt", "a log being checked"),
                         (outside, "a log being checked"),
                         (logs / "new.txt", "inside a folder of logs being checked"),
                         (logs / "sub" / "findings.jsonl", "inside a folder of logs being checked")):
        refused(run("check", str(logs), "-o", str(output), "--jobs", "1"), says)
    assert {p: digest(p) for p in before} == before
    assert not (logs / "new.txt").exists() and not (logs / "sub" / "findings.jsonl").exists()
    refused(run("check", str(log), "-o", str(tmp_path / "out-link.txt"), "--jobs", "1"), "a log being checked")
    assert run("check", str(logs), "-o", str(tmp_path / "report.txt"), "--jobs", "1").exit_code in (0, 1)
    assert (tmp_path / "report.txt").stat().st_size > 0


def test_sql_never_writes_over_its_query_file(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    query = tmp_path / "q.sql"
    query.write_text("SELECT count(*) AS n FROM hands\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "q-link.sql").symlink_to(query)
    for output in ("q.sql", "sub/../q.sql", str(query), "q-link.sql"):
        refused(run("sql", "--query-file", "q.sql", "--db", str(db), "-f", "csv", "-o", output), "the query file")
    refused(run("sql", "--query-file", "q-link.sql", "--db", str(db), "-o", "q.sql"), "the query file")
    assert query.read_text(encoding="utf-8") == "SELECT count(*) AS n FROM hands\n"
    assert run("sql", "--query-file", "q.sql", "--db", str(db), "-f", "csv", "-o", "n.csv").exit_code == 0
    assert (tmp_path / "n.csv").read_text(encoding="utf-8").startswith("n\n")


def test_explain_never_writes_over_its_log(tmp_path: Path) -> None:
    log = tmp_path / "game.txt"
    log.write_bytes(LOG.read_bytes())
    (tmp_path / "link.txt").symlink_to(log)
    (tmp_path / "sub").mkdir()
    for output in (tmp_path / "link.txt", tmp_path / "sub" / ".." / "game.txt"):
        refused(run("explain", str(log), "-o", str(output)), "the log being explained")
    assert digest(log) == digest(LOG)


# ============================================================================================ 10. odd column types
ODD = ("SELECT 1::VARIANT AS v, MAP {'a': 1} AS m, '101'::BIT AS b, '\\xAA'::BLOB AS bl, union_value(k := 7) AS u, "
       "{'a': 1, 'b': 'x'} AS s, 12::BIGNUM AS big, [MAP {'k': 2}] AS lm, {'u': union_value(t := 'z')} AS su, "
       "'infinity'::DATE AS inf, DATE '2026-11-28' AS day")


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "tsv", "table", "markdown", "parquet"])
def test_odd_column_types_in_every_format(db: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"odd.{fmt}"
    result = run("sql", ODD, "--db", str(db), "-f", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    if fmt == "parquet":
        table = pq.read_table(out)
        assert table.column("b").to_pylist() == ["101"] and table.column("u").to_pylist() == ["7"]
        return
    text = out.read_text(encoding="utf-8")
    if fmt.startswith("json"):
        row = json.loads(text)[0] if fmt == "json" else json.loads(text)
        assert row == {"v": "1", "m": "{a=1}", "b": "101", "bl": "aa", "u": "7", "s": {"a": 1, "b": "x"},
                       "big": "12", "lm": "[{k=2}]", "su": "{'u': z}", "inf": "infinity", "day": "2026-11-28"}
    else:
        assert "{a=1}" in text and "101" in text and "[{k=2}]" in text and "infinity" in text and "2026-11-28" in text


# ============================================================================================ 10. export keeps a folder
def test_export_into_an_empty_folder_keeps_it(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shared-export"
    folder.mkdir()
    os.chmod(folder, 0o2751)
    before = folder.stat()
    assert run("export", "--db", str(db), "--parquet", str(folder), "-q").exit_code == 0
    after = folder.stat()
    assert (after.st_ino, stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == \
        (before.st_ino, 0o2751, before.st_uid, before.st_gid)
    assert (folder / "audit-export.json").is_file() and (folder / "hands").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared-export"]  # no staging folder left beside it
    assert run("export", "--db", str(db), "--parquet", str(folder), "-q").exit_code == 0  # replaced: mode kept
    assert stat.S_IMODE(folder.stat().st_mode) == 0o2751
    fresh = tmp_path / "fresh"
    assert run("export", "--db", str(db), "--parquet", str(fresh), "-q").exit_code == 0
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o777 & ~mask  # as mkdir makes it, not private


# ============================================================================================ 10. --db not a file
def test_a_db_that_is_not_a_plain_file_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "club.duckdb"
    os.mkfifo(fifo)
    commands = [["ingest", str(LOG)], ["upgrade"], ["token", "add", "north"], ["token", "list"],
                ["serve", "--port", "0"], ["report", "files"], ["sql", "SELECT 1"],
                ["export", "--parquet", str(tmp_path / "pq")]]
    started = [subprocess.Popen([AUDIT, *args, "--db", str(fifo)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for args in commands]
    try:
        for args, proc in zip(commands, started):
            out, err = proc.communicate(timeout=60)  # before the fix each waited for a writer forever
            assert proc.returncode == 2, (args, out, err)
            assert err.strip().splitlines() == [f"audit: {fifo}: is a FIFO (a named pipe), not a database file; "
                                                "name a database file with --db"], (args, err)
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and not (tmp_path / "pq").exists()
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        refused(run("sql", "SELECT 1", "--db", str(sock_path)), "is a socket")
    refused(run("report", "files", "--db", "/dev/null"), "is a device")
    refused(run("ingest", str(LOG), "--db", str(tmp_path)), "is a folder")
    wal_fifo = tmp_path / "other.duckdb"
    assert run("ingest", str(LOG), "--db", str(wal_fifo), "-q").exit_code == 0
    os.mkfifo(str(wal_fifo) + ".wal")
    refused(run("sql", "SELECT 1", "--db", str(wal_fifo)), "its write-ahead log is a FIFO")


# ============================================================================================ 11. ingest - is capped
def test_endless_standard_input_is_capped(tmp_path: Path) -> None:
    db = tmp_path / "club.duckdb"
    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as sink:
        proc = subprocess.Popen([AUDIT, "ingest", "-", "--db", str(db), "--max-stream", "1MB"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=sink)
    assert proc.stdin is not None
    line = LOG.read_bytes()
    sent = [0]

    def feed() -> None:  # endless, until the command stops reading (at most 64 MB: the old code read them all)
        try:
            while sent[0] < 64 << 20:
                proc.stdin.write(line)  # type: ignore[union-attr]
                sent[0] += len(line)
            proc.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    feeder.join(timeout=10)
    err = errors.read_text(encoding="utf-8")
    assert proc.returncode == 2, err
    assert err.strip().splitlines() == ["audit: <stdin>: longer than 1 MB (--max-stream); nothing was "
                                                 "stored. Save it to a file and ingest the file, or raise "
                                                 "--max-stream"]
    assert sent[0] < 64 << 20
    counted = run("sql", "SELECT count(*) AS n FROM files", "--db", str(db), "-f", "json")
    assert counted.exit_code == 0 and json.loads(counted.stdout) == [{"n": 0}]
    small = run("ingest", "-", "--db", str(db), "--max-stream", "1MB", "-q")
    assert small.exit_code == 0  # an empty input is under any cap
