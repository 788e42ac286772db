"""``audit ingest`` and ``audit export``: the DuckDB store (audit.store.db, audit.store.ingest, audit.cli.store)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.store.ingest import IngestJob, audit_file_rows, hash_file, parse_started_at
from audit.store.db import Store
from audit.store.schema import ORDER_BY, SCHEMA, hand_key

from conftest import at_least, needs_shared

SHARED = Path(__file__).resolve().parents[2] / "shared"
CASES = SHARED / "cases"
STARS = SHARED / "real-hands" / "pokerstars"
CLEAN = at_least(20, sorted(CASES.glob("generated*/clean-*.txt")), shared=True)

pytestmark = needs_shared


def invoke(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def count(db: Path, table: str) -> int:
    return int(rows(db, f"SELECT count(*) FROM {table}")[0][0])


def counts(db: Path) -> dict[str, int]:
    return {table: count(db, table) for table in SCHEMA}


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table in a stable order, without the one column that depends on the clock."""
    out = {}
    for table, cols in SCHEMA.items():
        names = ", ".join(c for c, _ in cols if c != "ingested_at")
        out[table] = rows(db, f"SELECT {names} FROM {table} ORDER BY {ORDER_BY[table]}")
    return out


def hands_in(paths: list[Path]) -> int:
    return sum(len(re.findall(r"^Hand #", p.read_text(encoding="utf-8"), re.M)) for p in paths)


def renumbered(copies: int, sources: list[Path] = CLEAN) -> str:
    """The clean generated sessions again and again, with fresh hand ids and session names (a big valid file)."""
    texts = [p.read_text(encoding="utf-8") for p in sources]
    out: list[str] = []
    number = 0
    for copy in range(copies):
        for text in texts:
            def hand(_: re.Match[str]) -> str:
                nonlocal number
                number += 1
                return f"Hand #{number}"
            text = re.sub(r"Hand #\d+", hand, text)
            out.append(re.sub(r"^Session: (.*)$", rf"Session: \1-c{copy}", text, flags=re.M))
    return "\n".join(out)


def check_whole_files(db: Path) -> None:
    """Every row belongs to a file in ``files``, and each file has exactly the rows it announced."""
    for table in SCHEMA:
        if table == "files":
            continue
        orphans = rows(db, f"SELECT count(*) FROM {table} WHERE file_sha NOT IN (SELECT file_sha FROM files)")
        assert orphans == [(0,)], table
    mismatch = rows(db, """
        SELECT f.path FROM files f
        WHERE f.hands <> (SELECT count(*) FROM hands h WHERE h.file_sha = f.file_sha)
           OR f.findings <> (SELECT count(*) FROM findings x WHERE x.file_sha = f.file_sha)
           OR f.parse_errors <> (SELECT count(*) FROM parse_errors p WHERE p.file_sha = f.file_sha)""")
    assert mismatch == []


@pytest.fixture(scope="module")
def cases_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("store") / "cases.duckdb"
    result = invoke("ingest", str(CASES), "--db", str(db))
    assert result.exit_code == 0, result.output
    return db


# ---------------------------------------------------------------------------------------------- ingest
def test_ingest_stores_every_hand_and_prints_one_summary_line(cases_db: Path) -> None:
    files = at_least(60, sorted(CASES.rglob("*.txt")))
    assert count(cases_db, "files") == len(files)
    assert count(cases_db, "hands") == hands_in(files)
    assert count(cases_db, "parse_errors") == 0
    check_whole_files(cases_db)
    for table in ("seats", "actions", "pots", "awards", "findings"):
        assert count(cases_db, table) > 0, table


def test_summary_line(tmp_path: Path) -> None:
    result = invoke("ingest", str(CASES / "edge"), "--db", str(tmp_path / "x.duckdb"))
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert re.match(r"5 files ingested: 5 hands, 1 finding, 0 unreadable hands in [\d.]+ s", lines[0]), lines


def test_interface_columns(cases_db: Path) -> None:
    with duckdb.connect(str(cases_db), read_only=True) as con:
        def columns(table: str) -> dict[str, str]:
            return {r[0]: r[1] for r in con.execute(f"DESCRIBE {table}").fetchall()}
        hands = columns("hands")
        for col in ("hand_id", "session", "file", "profile", "table_name", "started_at", "button_seat", "players",
                    "pot_total", "dialect"):
            assert col in hands, col
        assert hands["started_at"] == "TIMESTAMP"
        findings = columns("findings")
        for col in ("file", "session", "hand_id", "rule", "severity", "player", "street", "line", "message",
                    "expected", "actual"):
            assert col in findings, col
        assert set(columns("files")) >= {"path", "file_sha", "size", "ingested_at"}


def test_findings_are_those_of_audit_check(cases_db: Path) -> None:
    result = invoke("check", str(CASES), "--format", "json", "--fail-on", "never")
    expected = [(r["file"], r["hand"], r["rule"], r["line"], r["player"], r["severity"], r["session"])
                for r in map(json.loads, result.output.splitlines())]
    stored = rows(cases_db, "SELECT file, hand_id, rule, line, player, severity, session FROM findings")
    assert sorted(stored, key=repr) == sorted(expected, key=repr)


def test_hand_rows_keyed_by_file_hash_and_line(cases_db: Path) -> None:
    path = CASES / "edge" / "odd-chip-three-way.txt"
    (sha, line, key, started, hid, profile, dialect, players), = rows(cases_db, f"""
        SELECT file_sha, line, hand_key, started_at, hand_id, profile, dialect, players
        FROM hands WHERE file = '{path}'""")
    import hashlib
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()
    assert key == hand_key(sha, line) == f"{sha[:16]}:{line}"
    assert (hid, profile, dialect, players) == ("E9", "home-open", "house", 5)
    assert started == dt.datetime(2026, 11, 28, 21, 10, 0)
    assert rows(cases_db, "SELECT count(*) = count(DISTINCT hand_key) FROM hands") == [(True,)]


def test_awards_and_seats_hold_should_versus_received(cases_db: Path) -> None:
    # the mutated POT_WINNER case pays the pot to the wrong player: the seats and awards show it
    wrong = rows(cases_db, """
        SELECT count(*) FROM seats s JOIN findings f ON f.hand_key = s.hand_key AND f.rule = 'POT_WINNER'
        WHERE s.received <> s.should_receive""")
    assert wrong[0][0] > 0
    bad_awards = rows(cases_db, "SELECT count(*) FROM awards WHERE should_award <> collected")
    assert bad_awards[0][0] > 0
    # in a clean file every player received what the rules gave him
    clean = rows(cases_db, """
        SELECT count(*) FROM seats s JOIN hands h USING (hand_key)
        WHERE h.file LIKE '%/clean-%' AND s.received <> s.should_receive""")
    assert clean == [(0,)]


def test_actions_in_file_order_with_streets(cases_db: Path) -> None:
    got = rows(cases_db, """
        SELECT a.street, a.player, a.kind, a.amount, a.to_amount, a.all_in FROM actions a JOIN hands h USING (hand_key)
        WHERE h.hand_id = '4502' AND h.file LIKE '%generated/clean-001.txt' AND a.kind IN ('bet', 'raise', 'call', 'check')
        ORDER BY a.seq""")
    assert got == [
        ("first", "Carla", "bet", 2, 2, False), ("first", "Tere", "call", 2, 0, False),
        ("second", "Carla", "check", 0, 0, False), ("second", "Tere", "bet", 7, 7, False),
        ("second", "Carla", "raise", 98, 105, True), ("second", "Tere", "call", 82, 0, True),
    ]


def test_reingest_adds_nothing(cases_db: Path, tmp_path: Path) -> None:
    before = dump(cases_db)
    result = invoke("ingest", str(CASES), "--db", str(cases_db))
    assert result.exit_code == 0
    assert "0 files ingested" in result.output and f"{len(before['files'])} already in the database" in result.output
    assert dump(cases_db) == before
    # the same bytes under another name are the same file
    copy = tmp_path / "renamed.txt"
    copy.write_bytes((CASES / "edge" / "odd-chip-three-way.txt").read_bytes())
    assert "0 files ingested (1 already" in invoke("ingest", str(copy), "--db", str(cases_db)).output
    assert dump(cases_db) == before


def test_workers_give_the_same_database(tmp_path: Path) -> None:
    one, two = tmp_path / "one.duckdb", tmp_path / "two.duckdb"
    paths = [str(CASES / "generated"), str(CASES / "edge"), str(CASES / "profiles")]
    r1 = invoke("ingest", *paths, "--db", str(one), "--workers", "1")
    r2 = invoke("ingest", *paths, "--db", str(two), "--workers", "2")
    assert r1.exit_code == 0 and r2.exit_code == 0, (r1.output, r2.output)
    d1, d2 = dump(one), dump(two)
    assert {t: len(v) for t, v in d1.items()} == {t: len(v) for t, v in d2.items()}
    assert d1 == d2
    assert rows(one, "SELECT path FROM files ORDER BY rowid") == rows(two, "SELECT path FROM files ORDER BY rowid")
    # the command itself forks its workers (this test process has DuckDB loaded, so the run above spawned them)
    forked = tmp_path / "forked.duckdb"
    probe = ("import sys\nfrom audit.store.ingest import ingest\nfrom audit.workers import may_fork\nassert may_fork()\n"
             "summary = ingest(sys.argv[2:], sys.argv[1], workers=2)\nassert not summary.failed, summary.failed\n")
    subprocess.run([sys.executable, "-c", probe, str(forked), *paths], check=True)
    assert dump(forked) == d1
    assert rows(forked, "SELECT path FROM files ORDER BY rowid") == rows(one, "SELECT path FROM files ORDER BY rowid")


def test_unreadable_file_is_skipped_and_the_others_go_in(tmp_path: Path) -> None:
    bad = tmp_path / "binary.txt"
    bad.write_bytes(b"Hand #1\x00\x01\x02" * 10)
    good = CASES / "edge" / "uncalled-bet-returned.txt"
    db = tmp_path / "x.duckdb"
    result = CliRunner().invoke(main, ["ingest", str(bad), str(good), "--db", str(db)])
    assert result.exit_code == 1  # a cron job sees it; the other file is stored
    assert "binary.txt" in result.stderr and "not a text file" in result.stderr
    assert "1 file ingested (1 skipped)" in result.stdout
    assert rows(db, "SELECT path FROM files") == [(str(good),)]


def test_missing_path_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    result = CliRunner().invoke(main, ["ingest", str(tmp_path / "nope.txt"), "--db", str(db)])
    assert result.exit_code == 2
    assert "nope.txt: no such file or folder" in result.stderr
    assert not db.exists()


def test_db_defaults_to_env_then_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AUDIT_DB", raising=False)
    file = str(CASES / "edge" / "uncalled-bet-returned.txt")
    assert invoke("ingest", file).exit_code == 0
    assert (tmp_path / "audit.duckdb").is_file()
    env_db = tmp_path / "env.duckdb"
    assert invoke("ingest", file, env={"AUDIT_DB": str(env_db)}).exit_code == 0
    assert count(env_db, "hands") == 1
    result = invoke("sql", "SELECT count(*) AS n FROM hands", "--format", "csv", env={"AUDIT_DB": str(env_db)})
    assert result.output == "n\n1\n"


def test_standard_input(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    data = (CASES / "edge" / "odd-chip-three-way.txt").read_bytes()
    result = CliRunner().invoke(main, ["ingest", "-", "--db", str(db)], input=data)
    assert result.exit_code == 0, result.output
    assert rows(db, "SELECT file, hand_id FROM hands") == [("<stdin>", "E9")]


@pytest.mark.skipif(not STARS.is_dir(), reason="the shared real hands are missing")
def test_site_hands_are_told_apart_by_dialect(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    assert invoke("ingest", str(STARS), str(CASES / "edge"), "--db", str(db)).exit_code == 0
    got = dict(rows(db, "SELECT dialect, count(*) FROM hands GROUP BY dialect"))
    assert got["house"] == 5 and got["site"] > 0
    assert rows(db, "SELECT DISTINCT profile, currency FROM hands WHERE dialect = 'site'") == [("site", "USD")]
    assert rows(db, "SELECT count(*) FROM hands WHERE started_at IS NULL") == [(0,)]


def test_parse_errors_are_stored_and_the_file_still_goes_in(tmp_path: Path) -> None:
    text = (CASES / "edge" / "odd-chip-three-way.txt").read_text(encoding="utf-8")
    broken = tmp_path / "broken.txt"
    broken.write_text(text + "\nHand #X1 - 2026/11/28 21:30:00\nTable 'T' Seat #1 is the button\n"
                      "Seat 1: Ana (100 in chips)\nAna: dances the tango\n", encoding="utf-8")
    db = tmp_path / "x.duckdb"
    assert invoke("ingest", str(broken), "--db", str(db)).exit_code == 0
    assert count(db, "hands") == 1
    ((hid, first, key, msg),) = rows(db, "SELECT hand_id, first_line, hand_key, message FROM parse_errors")
    assert hid == "X1" and key.endswith(f":{first}") and "line" in msg
    assert rows(db, "SELECT rule, hand_key FROM findings WHERE rule = 'PARSE_ERROR'") == [("PARSE_ERROR", key)]
    check_whole_files(db)


def test_started_at_parsing() -> None:
    assert parse_started_at("2026/12/01 22:14:48") == dt.datetime(2026, 12, 1, 22, 14, 48)
    assert parse_started_at("2011/06/26 - 21:35:49 ET") == dt.datetime(2011, 6, 26, 21, 35, 49)
    assert parse_started_at("2026/13/45 99:00:00") is None
    assert parse_started_at("yesterday") is None
    assert parse_started_at("") is None
    # the house format's fixed layout is read without the pattern: the same values as the pattern gives
    from audit.store.rows import _STARTED

    def by_pattern(text: str) -> dt.datetime | None:
        m = _STARTED.search(text)
        try:
            return None if m is None else dt.datetime(*(int(g) for g in m.groups(default="0")))
        except ValueError:
            return None

    for text in ("2026/12/01 22:14:48", "2026/02/30 10:00:00", "2026/12/01 24:00:00", "0000/01/01 00:00:00",
                 "2026/1２/01 22:14:48", "2026/12/01 22:14:4²", "2026/12/01-22:14:48", "2026-12-01 22:14:48",
                 "2026/12/01 2:14:48 ", "2026/12/0122:14:48x", "२०२६/१२/०१ २२:१४:४८"):
        assert parse_started_at(text) == by_pattern(text), text


# ---------------------------------------------------------------------------------------------- atomicity
def test_a_failed_write_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    first = audit_file_rows(IngestJob(str(CASES / "generated" / "clean-003.txt"), "home-open"))
    second = audit_file_rows(IngestJob(str(CASES / "generated" / "mut-012-POT_WINNER.txt"), "home-open"))
    import pyarrow as pa
    # hands, seats … go in, then the findings INSERT fails: nothing of the second file may stay
    second.tables["findings"] = pa.table({c: pa.array(["not a number"] * 3) for c, _ in SCHEMA["findings"]})
    with Store.open(db) as store:
        assert store.write_file(first)
        before = store.counts()
        with pytest.raises(duckdb.Error):
            store.write_file(second)
        assert store.counts() == before
    check_whole_files(db)


def test_a_killed_ingest_leaves_only_whole_files(tmp_path: Path) -> None:
    small = tmp_path / "a-small.txt"
    small.write_bytes((CASES / "generated" / "clean-003.txt").read_bytes())
    big = tmp_path / "b-big.txt"
    big.write_text(renumbered(copies=12), encoding="utf-8")  # ~2,400 hands: seconds of auditing
    db = tmp_path / "killed.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "audit", "ingest", str(small), str(big), "--db", str(db), "-v"],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        while line and not line.startswith("ingested "):  # skip any warning a library prints
            line = proc.stderr.readline()
        assert line.startswith(f"ingested {small}:"), line  # printed after the first file's COMMIT
        time.sleep(0.1)  # into the big file, which takes seconds to audit
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the ingest finished before it could be killed"
    check_whole_files(db)
    assert rows(db, "SELECT path FROM files") == [(str(small),)]
    assert rows(db, "SELECT position, kind, subject FROM chain_links") == [(1, "file", hash_file(str(small))[0])]
    assert count(db, "hands") == hands_in([small])
    # and the next run takes up where the killed one stopped
    result = invoke("ingest", str(small), str(big), "--db", str(db))
    assert "1 file ingested (1 already in the database)" in result.output
    check_whole_files(db)
    assert count(db, "hands") == hands_in([small, big])


def test_arrow_batches_hold_the_values_the_rows_were_built_from(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The Arrow batches a file's rows are stored from (the hand's key and id, the file's hash and name repeated on
    each row by Arrow, not from a Python value per row) hold the values and types of the rows built as Python
    values (``RowBuilder.take``), on every fixture, shared case and real hand and on simulated sessions, with a
    batch every 7 hands so that batches end inside sessions."""
    import pyarrow as pa

    from audit.simulate import simulate_sessions
    from audit.store import ingest as store_ingest
    from audit.store.rows import RowBuilder
    from audit.store.schema import DATA_TABLES, arrow_schema

    simulated = tmp_path / "simulated.txt"
    simulated.write_text(simulate_sessions("home-open", 6, seed=31), encoding="utf-8")
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    paths = sorted({*CASES.rglob("*.txt"), *SHARED.joinpath("real-hands").rglob("*.txt"), *fixtures.rglob("*.txt")})
    assert len(paths) > 300
    paths.append(simulated)
    monkeypatch.setattr(store_ingest.batches, "BATCH_HANDS", 7)
    seen: list[Any] = []
    add = store_ingest.FileBuilder.add

    def keep(self: Any, audited: Any) -> None:
        seen.append(audited)
        add(self, audited)

    monkeypatch.setattr(store_ingest.FileBuilder, "add", keep)
    totals = dict.fromkeys(DATA_TABLES, 0)
    for path in paths:
        seen.clear()
        got = audit_file_rows(IngestJob(str(path), "home-open"))
        builder = RowBuilder(got.sha256, str(path))
        for audited in seen:
            builder.add(audited)
        expected = builder.take()
        for table in DATA_TABLES:
            frame = got.tables[table]
            assert frame.schema == arrow_schema(table), (path, table)
            names = frame.schema.names
            rows_got = [tuple(row[name] for name in names) for row in frame.to_pylist()]
            want = [tuple(row) for row in expected[table]]
            if table == "actions":  # card_list is made by Arrow from cards
                at = names.index("card_list")
                cards = names.index("cards")
                want = [row[:at] + (None if row[cards] is None else row[cards].replace(" | ", " ").split(" "),)
                        + row[at + 1:] for row in want]
            assert rows_got == want, (path, table)
            assert pa.Table.from_pylist([dict(zip(names, row)) for row in want], schema=frame.schema).equals(frame)
            totals[table] += frame.num_rows
    assert all(totals[t] > 0 for t in ("hands", "seats", "actions", "pots", "awards", "findings", "parse_errors",
                                       "unsupported_hands")), totals


# ---------------------------------------------------------------------------------------------- export
def test_export_parquet_partitioned_by_session_date(cases_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "pq"
    result = invoke("export", "--db", str(cases_db), "--parquet", str(out))
    assert result.exit_code == 0, result.output
    before = counts(cases_db)
    con = duckdb.connect()
    for table in SCHEMA:
        got = con.execute(f"SELECT count(*) FROM read_parquet('{out}/{table}/**/*.parquet', "
                          "hive_partitioning = true)").fetchone()
        assert got is not None and got[0] == before[table], table
    dirs = {p.name for p in (out / "hands").iterdir()}
    assert dirs and all(re.fullmatch(r"session_date=\d{4}-\d{2}-\d{2}", d) for d in dirs), dirs
    # a session's hands share its first hand's date
    spread = con.execute(f"""
        SELECT count(DISTINCT session_date) FROM read_parquet('{out}/hands/**/*.parquet', hive_partitioning = true)
        GROUP BY file_sha, session ORDER BY 1 DESC LIMIT 1""").fetchone()
    assert spread == (1,)
    # exporting again replaces the files
    assert invoke("export", "--db", str(cases_db), "--parquet", str(out)).exit_code == 0
    again = con.execute(f"SELECT count(*) FROM read_parquet('{out}/hands/**/*.parquet')").fetchone()
    assert again == (before["hands"],)


def test_export_of_a_missing_database_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["export", "--db", str(tmp_path / "none.duckdb"), "--parquet",
                                       str(tmp_path / "pq")])
    assert result.exit_code == 2
    assert "no such database" in result.stderr
    assert os.listdir(tmp_path) == []


def test_refuses_a_database_it_did_not_write(tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE payroll (name VARCHAR)")
    result = CliRunner().invoke(main, ["ingest", str(CASES / "edge"), "--db", str(other)])
    assert result.exit_code == 2 and "not written by 'audit ingest'" in result.stderr
    assert rows(other, "SELECT table_name FROM information_schema.tables") == [("payroll",)]
    result = CliRunner().invoke(main, ["sql", "SELECT 1", "--db", str(other)])
    assert result.exit_code == 2 and "not a database written by 'audit ingest'" in result.stderr


def test_small_files_written_together_give_the_database_of_one_transaction_each(tmp_path: Path) -> None:
    paths = [str(p) for p in at_least(12, sorted((CASES / "generated").glob("*.txt")))[:12]]
    apart = tmp_path / "apart.duckdb"
    for path in paths:  # one run, so one transaction, per file
        assert invoke("ingest", path, "--db", str(apart)).exit_code == 0
    for workers in ("1", "2"):
        together = tmp_path / f"together-{workers}.duckdb"
        result = invoke("ingest", *paths, "--db", str(together), "--workers", workers)
        assert result.exit_code == 0 and "12 files ingested" in result.output, result.output
        assert dump(together) == dump(apart)
        check_whole_files(together)


def test_a_batch_of_files_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    paths = sorted((CASES / "generated").glob("*.txt"))[:3]
    batch = [audit_file_rows(IngestJob(str(p), "home-open")) for p in paths]
    with Store.open(str(tmp_path / "x.duckdb")) as store:
        assert store.write_files(batch[:1]) == [True]
        assert store.write_files(batch) == [False, True, True]  # the file already there is left out
        stored = store.known_files()
        broken = audit_file_rows(IngestJob(str(sorted((CASES / "generated").glob("*.txt"))[3]), "home-open"))
        broken.tables["hands"] = broken.tables["hands"].drop_columns(["rake"])
        fine = audit_file_rows(IngestJob(str(sorted((CASES / "generated").glob("*.txt"))[4]), "home-open"))
        with pytest.raises(Exception, match="columns"):
            store.write_files([fine, broken])
        assert store.known_files() == stored  # neither file of the failed batch


_SPILL_MEMORY = r'''
import sys
import pyarrow as pa
import pyarrow.compute as pc
from audit.store.db import Store
from audit.store.schema import arrow_schema

spill, db = sys.argv[1], sys.argv[2]
schema = arrow_schema("seats")
rows = 20_000
with pa.ipc.new_stream(spill, schema) as out:  # 6 MB a batch of real bytes: long strings, no two rows alike
    for b in range(25):
        n = pa.array(range(b * rows, (b + 1) * rows), type=pa.int64())
        text = pc.binary_join_element_wise(pc.cast(n, pa.string()), "x" * 80, "")
        arrays = [pc.cast(n, f.type) if pa.types.is_integer(f.type) else
                  pc.cast(pc.greater(n, -1), f.type) if pa.types.is_boolean(f.type) else
                  pc.cast(text, f.type) for f in schema]
        out.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))


def kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])


with Store.open(db, threads=1, memory_limit="32MB") as store:
    store.con.execute("BEGIN TRANSACTION")
    open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from here
    before = kb("VmRSS")
    store.append_spilled("seats", spill)
    print((kb("VmHWM") - before) // 1024)
    store.con.execute("ROLLBACK")
'''


@pytest.mark.slow
def test_spilled_rows_are_stored_without_holding_the_spill_in_memory(tmp_path: Path) -> None:
    """The rows a worker spilled (here 150 MB of them) go into the open transaction a batch at a time: the main
    process's peak rises by far less than the spill's size, where a memory-mapped spill kept every page it had
    read resident until its file's transaction was done (10 files of 47,000 hands: 318 MB at the peak)."""
    spill = tmp_path / "seats.arrows"
    out = subprocess.run([sys.executable, "-c", _SPILL_MEMORY, str(spill), str(tmp_path / "x.duckdb")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    size_mb = spill.stat().st_size / 2**20
    assert size_mb > 140
    risen = int(out.stdout.split()[-1])
    assert risen < size_mb / 2, (risen, size_mb)
