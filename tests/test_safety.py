"""Issue 13, "nothing lost, nobody in": the user's files are never lost, no input keeps a file out of the database
or hangs the tool, a hostile database or log cannot reach outside the database or into the terminal.

Every data-loss test creates the user's files first and checks they are still there, byte for byte.
"""

from __future__ import annotations

import hashlib
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
from click.testing import CliRunner, Result

from audit.cli import main
from conftest import AUDIT, SHARED, WORKER_KILLED, children, needs_shared

pytestmark = needs_shared

CASES = SHARED / "cases"
CLEAN = CASES / "generated" / "clean-001.txt"
EDGE = CASES / "edge"
STARS = SHARED / "real-hands" / "pokerstars"


def run(*args: str, input: bytes | str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path -> SHA-256 of its bytes), and every folder (-> "dir")."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def users_folder(folder: Path) -> dict[str, str]:
    """A folder of the user's, with sub-folders named like the export's tables."""
    for rel, text in {"files/contract.txt": "the lease\n", "hands/notes.md": "# my notes\n",
                      "findings/old.csv": "a,b\n1,2\n", "photo.jpg": "\xff\xd8 not really", "todo.txt": "milk\n"}.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="latin-1")
    return snapshot(folder)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("safety") / "cases.duckdb"
    result = run("ingest", str(CASES / "edge"), str(CASES / "generated"), "--db", str(path))
    assert result.exit_code == 0, result.output
    return path


def clean_hand(number: str = "4501") -> str:
    text = CLEAN.read_text(encoding="utf-8")
    return text.split("\n\n")[1].strip("\n").replace("Hand #4501", f"Hand #{number}") + "\n"


# ============================================================================================ 1. export
def test_export_refuses_a_folder_holding_the_users_files(db: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    before = users_folder(home)
    result = run("export", "--db", str(db), "--parquet", str(home))
    assert result.exit_code == 2, result.output
    assert "did not write" in result.stderr and "nothing was touched" in result.stderr
    assert snapshot(home) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # no half-written export beside it


def test_export_to_the_working_folder_refused(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = users_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert run("export", "--db", str(db), "--parquet", ".").exit_code == 2
    assert snapshot(tmp_path) == before


def test_export_replaces_only_an_earlier_export(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "lake"
    assert run("export", "--db", str(db), "--parquet", str(out)).exit_code == 0
    manifest = json.loads((out / "audit-export.json").read_text(encoding="utf-8"))
    assert manifest["written_by"] == "audit export" and "hands" in manifest["tables"]
    assert run("export", "--db", str(db), "--parquet", str(out)).exit_code == 0  # an earlier export: replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lake"]
    mine = out / "hands" / "my-analysis.txt"
    mine.write_text("keep me\n", encoding="utf-8")
    before = snapshot(out)
    result = run("export", "--db", str(db), "--parquet", str(out))
    assert result.exit_code == 2 and "did not write" in result.stderr
    assert snapshot(out) == before


def test_export_into_an_empty_folder_and_a_new_one(db: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run("export", "--db", str(db), "--parquet", str(empty)).exit_code == 0
    assert (empty / "hands").is_dir() and (empty / "audit-export.json").is_file()
    assert run("export", "--db", str(db), "--parquet", str(tmp_path / "a" / "b")).exit_code == 0


def test_a_failed_export_leaves_the_earlier_one_whole(db: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from audit.store import Store

    out = tmp_path / "lake"
    assert run("export", "--db", str(db), "--parquet", str(out)).exit_code == 0
    before = snapshot(out)
    real = Store._write_export

    def half(self: Store, folder: Path) -> Any:
        real(self, folder)  # every table written, then the disk fills up
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Store, "_write_export", half)
    result = run("export", "--db", str(db), "--parquet", str(out))
    assert result.exit_code == 2 and "No space left on device" in result.stderr
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lake"]


def test_export_never_runs_the_databases_views(tmp_path: Path) -> None:
    """A crafted database whose ``hands`` is a view reading a local file: refused, the file's text goes nowhere."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-PASSWORD\n", encoding="utf-8")
    crafted = tmp_path / "crafted.duckdb"
    good = tmp_path / "good.duckdb"
    assert run("ingest", str(EDGE / "odd-chip-three-way.txt"), "--db", str(good)).exit_code == 0
    with duckdb.connect(str(crafted)) as con:
        con.execute(f"ATTACH '{good}' AS good (READ_ONLY)")
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'good'").fetchall():
            con.execute(f"CREATE TABLE main.{table} AS SELECT * FROM good.{table}")
        con.execute("DROP TABLE main.hands")
        con.execute(f"CREATE VIEW main.hands AS SELECT content AS hand_id FROM read_text('{secret}')")
    out = tmp_path / "lake"
    result = run("export", "--db", str(crafted), "--parquet", str(out))
    assert result.exit_code == 2 and "not a database written by 'audit ingest'" in result.stderr
    assert not out.exists() and "TOP-SECRET" not in result.output


# ============================================================================================ 2. --output
def test_output_over_the_database_refused(db: Path) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for args in (["sql", "SELECT 1 AS x"], ["report", "files"]):
        for fmt in ("csv", "json", "table", "parquet"):
            result = run(*args, "--db", str(db), "--format", fmt, "--output", str(db))
            assert result.exit_code == 2 and "this is the database" in result.stderr, result.output
    wal = Path(str(db) + ".wal")
    result = run("sql", "SELECT 1 AS x", "--db", str(db), "--output", str(wal))
    assert result.exit_code == 2 and "write-ahead log" in result.stderr and not wal.exists()
    link = db.parent / "link.duckdb"
    link.symlink_to(db)
    assert run("sql", "SELECT 1 AS x", "--db", str(db), "--output", str(link)).exit_code == 2
    assert run("sql", "SELECT count(*) AS n FROM hands", "--db", str(db), "--format", "csv").exit_code == 0
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_explain_output_over_the_log_refused(tmp_path: Path) -> None:
    log = tmp_path / "dispute.txt"
    log.write_bytes(CLEAN.read_bytes())
    before = log.read_bytes()
    for fmt in ("html", "json", "text"):
        result = run("explain", str(log), "--format", fmt, "--output", str(log))
        assert result.exit_code == 2 and "the log being explained" in result.stderr
    result = run("explain", str(log), "--format", "html", "--output", str(tmp_path / "." / "dispute.txt"))
    assert result.exit_code == 2
    assert log.read_bytes() == before


def test_an_output_that_fails_midway_leaves_the_old_file(db: Path, tmp_path: Path) -> None:
    """--timeout stops a query while its rows stream out: the earlier file is untouched, nothing half-written."""
    out = tmp_path / "report.csv"
    out.write_text("last week's report\n", encoding="utf-8")
    result = run("sql", "SELECT a.range AS x FROM range(1000000000) a", "--db", str(db), "--format", "csv",
                 "--output", str(out), "--timeout", "1")
    assert result.exit_code == 2 and "ran longer than --timeout 1 s" in result.stderr
    assert out.read_text(encoding="utf-8") == "last week's report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.csv"]


def test_output_written_through_a_rename(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "n.csv"
    out.write_text("old\n", encoding="utf-8")
    inode = out.stat().st_ino
    assert run("sql", "SELECT 7 AS n", "--db", str(db), "--format", "csv", "--output", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8") == "n\n7\n"
    assert out.stat().st_ino != inode  # a new file renamed over the old one, never rewritten in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.csv"]


# ============================================================================================ 3. numbers, seats
def test_a_number_beyond_the_store_keeps_only_its_hand_out(tmp_path: Path) -> None:
    """One amount of 2^63 in one hand: that hand is a PARSE_ERROR (as in check), the other hands are stored."""
    log = tmp_path / "game.txt"
    log.write_text(clean_hand("1").replace("bets 5", f"bets {2**63}") + "\n" + clean_hand("2") + "\n"
                   + clean_hand("3"), encoding="utf-8")
    db = tmp_path / "x.duckdb"
    result = run("ingest", str(log), "--db", str(db))
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT hand_id FROM hands ORDER BY line").fetchall() == [("2",), ("3",)]
        ((hid, message),) = con.execute("SELECT hand_id, message FROM parse_errors").fetchall()
    assert hid == "1" and "larger than the audit can store" in message
    checked = run("check", str(log), "--format", "json")
    assert [json.loads(x)["rule"] for x in checked.stdout.splitlines()] == ["PARSE_ERROR"]


@pytest.mark.skipif(not STARS.is_dir(), reason="the shared real hands are missing")
def test_a_site_amount_beyond_the_store_is_a_parse_error(tmp_path: Path) -> None:
    source = STARS / "5-Carddraw-FL-USD-0.10-0.20-201106.sidepot.txt"
    text = source.read_text(encoding="utf-8-sig")
    first = text.index("in chips)")
    start = text.rfind("$", 0, first)
    log = tmp_path / "site.txt"
    log.write_text(text[:start] + "$92233720368547758.08" + text[first - 1:], encoding="utf-8")
    db = tmp_path / "x.duckdb"
    result = run("ingest", str(log), "--db", str(db))
    assert result.exit_code == 0 and "internal error" not in result.output, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM parse_errors").fetchall() == [(1,)]
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == text.count("PokerStars ") - 1


def test_seats_outside_one_to_ten_are_findings(tmp_path: Path) -> None:
    hand = clean_hand().replace("Seat 3:", "Seat 11:").replace("Seat 1:", "Seat 0:")
    log = tmp_path / "seats.txt"
    log.write_text(hand, encoding="utf-8")
    result = run("check", str(log), "--format", "json")
    seats = [json.loads(x) for x in result.stdout.splitlines() if '"SEAT_COUNT"' in x]
    assert sorted(r["actual"] for r in seats) == ["0", "11"], result.output
    assert all("numbered 1 to 10" in r["message"] for r in seats)
    db = tmp_path / "x.duckdb"
    assert run("ingest", str(log), "--db", str(db)).exit_code == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM findings WHERE rule = 'SEAT_COUNT'").fetchall() == [(2,)]


# ============================================================================================ 4. workers, Ctrl-C
def renumbered(copies: int) -> str:
    texts = [p.read_text(encoding="utf-8") for p in sorted(CASES.glob("generated*/clean-*.txt"))]
    out, number = [], 0
    for copy in range(copies):
        for text in texts:
            def hand(_: re.Match[str]) -> str:
                nonlocal number
                number += 1
                return f"Hand #{number}"
            text = re.sub(r"Hand #\d+", hand, text)
            out.append(re.sub(r"^Session: (.*)$", rf"Session: \1-c{copy}", text, flags=re.M))
    return "\n".join(out)


def stored_files(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        bad = con.execute("SELECT count(*) FROM hands WHERE file_sha NOT IN (SELECT file_sha FROM files)").fetchall()
        assert bad == [(0,)]
        return [r[0] for r in con.execute("SELECT path FROM files ORDER BY path").fetchall()]


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("big")
    small = folder / "a-small.txt"
    small.write_bytes((CASES / "generated" / "clean-003.txt").read_bytes())
    files = [small]
    for name in ("b-big.txt", "c-big.txt", "d-big.txt"):
        path = folder / name
        path.write_text(renumbered(copies=12).replace("Session: ", f"Session: {name}-"), encoding="utf-8")
        files.append(path)
    return files


def test_a_killed_worker_stops_the_run_with_a_message(big_files: list[Path], tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    proc = subprocess.Popen([AUDIT, "ingest", *map(str, big_files), "--db", str(db), "--workers", "2", "-v"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        while line and not line.startswith("ingested "):
            line = proc.stderr.readline()
        assert line.startswith(f"ingested {big_files[0]}"), line  # the workers are now on the big files
        workers = children(proc.pid)
        assert workers, "no worker processes"
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = line + err
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    killed = re.findall(WORKER_KILLED.removeprefix("audit: ") + r"; the files before it are stored\. Run the ingest "
                        r"again \(with fewer --workers if memory is short\)", err)
    assert killed, err
    # Which big files a worker finished before the kill depends on the machine's load (a worker can finish
    # b-big.txt while the first file is written): what must hold is that the small file is stored, the file a
    # worker died on is not, and every file stored is stored whole.
    stored = stored_files(db)
    assert str(big_files[0]) in stored
    assert not set(killed) & set(stored), (killed, stored)
    with duckdb.connect(str(db), read_only=True) as con:
        counts = dict(con.execute("SELECT f.path, count(h.hand_key) FROM files f LEFT JOIN hands h "
                                  "ON h.file_sha = f.file_sha GROUP BY f.path").fetchall())
    for path in stored:
        assert counts[path] == Path(path).read_text(encoding="utf-8").count("Hand #"), path


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_exits_130_without_tracebacks(big_files: list[Path], tmp_path: Path, workers: str) -> None:
    db = tmp_path / "x.duckdb"
    proc = subprocess.Popen([AUDIT, "ingest", *map(str, big_files), "--db", str(db), "--workers", workers, "-v"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        while line and not line.startswith("ingested "):
            line = proc.stderr.readline()
        assert line.startswith("ingested "), line
        time.sleep(0.1)  # into the big files (about 0.8 s of work left with 2 workers on a fast machine)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (proc.returncode, line, err, out)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "audit: interrupted" in err
    assert str(big_files[0]) in stored_files(db)


def test_ctrl_c_in_check_exits_130() -> None:
    """Stopped while it waits for standard input (seen in /proc: a read on file 0)."""
    proc = subprocess.Popen([AUDIT, "check", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None
        proc.stdin.write(clean_hand())
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not Path(f"/proc/{proc.pid}/syscall").read_text().startswith("0 0x0 "):
            assert time.monotonic() < deadline, "the command never read its input"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err == "audit: interrupted\n", (proc.returncode, err)


def test_workers_are_capped() -> None:
    result = run("ingest", str(EDGE), "--workers", "100000", "--db", "x.duckdb")
    assert result.exit_code == 2 and "100000" in result.output


def test_more_workers_than_cores_uses_the_cores(tmp_path: Path) -> None:
    from audit.store.ingest import usable_workers

    cores = len(os.sched_getaffinity(0))
    assert usable_workers(64, 1000) == cores and usable_workers(64, 1) == 1
    result = run("ingest", str(CASES / "generated"), "--workers", "64", "--db", str(tmp_path / "x.duckdb"))
    assert result.exit_code == 0, result.output
    assert f"using {cores} worker" in result.stderr


def test_a_database_made_by_0_1_0_is_still_ingested_into(tmp_path: Path) -> None:
    """0.1.0 made ``hands`` with a primary key: such a database is written to without the memory limit."""
    db = tmp_path / "old.duckdb"
    assert run("ingest", str(EDGE / "odd-chip-three-way.txt"), "--db", str(db)).exit_code == 0
    with duckdb.connect(str(db)) as con:
        con.execute("ALTER TABLE hands ADD PRIMARY KEY (hand_key)")
    assert run("ingest", str(EDGE), "--db", str(db)).exit_code == 0
    assert len(stored_files(db)) == len(list(EDGE.glob("*.txt")))


# ============================================================================================ 5. memory, stdin, pipes
PEAK = """
import sys
from audit.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
for line in open("/proc/self/status"):
    if line.startswith("VmHWM"):
        print("PEAK", int(line.split()[1]) // 1024, code, file=sys.stderr)
"""


def peak_mb(args: list[str], stdin: Path | None = None) -> int:
    """Peak memory (MB) of one ``audit`` command run in a fresh process."""
    with open(stdin or os.devnull, "rb") as source:
        run_ = subprocess.run([sys.executable, "-c", PEAK, *args], stdin=source, capture_output=True, text=True,
                              timeout=600)
    found = re.search(r"PEAK (\d+) (\S+)", run_.stderr)
    assert found and found.group(2) in ("0", "None"), run_.stderr
    return int(found.group(1))


def test_ingest_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    """A 10x larger file (about 12 MB, in one transaction) takes nearly no more memory: rows go to DuckDB in
    batches as they are made (bench/bigfile.py --ingest measures a 1 GB file)."""
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    small.write_text(renumbered(copies=6), encoding="utf-8")
    large.write_text(renumbered(copies=60), encoding="utf-8")
    base = peak_mb(["ingest", str(small), "--db", str(tmp_path / "s.duckdb")])
    grown = peak_mb(["ingest", str(large), "--db", str(tmp_path / "l.duckdb")])
    piped = peak_mb(["ingest", "-", "--db", str(tmp_path / "p.duckdb")], stdin=large)
    assert grown - base < 60, (base, grown)
    assert piped - base < 60, (base, piped)
    with duckdb.connect(str(tmp_path / "p.duckdb"), read_only=True) as con:
        assert con.execute("SELECT DISTINCT file FROM hands").fetchall() == [("<stdin>",)]
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(large.read_text().count("Hand #"),)]


def test_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    db = tmp_path / "x.duckdb"
    for args in (["check", "/dev/zero"], ["ingest", "/dev/zero", "--db", str(db)]):
        done = subprocess.run([AUDIT, *args], capture_output=True, text=True, timeout=60)
        assert "/dev/zero: this is not a text file" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert stored_files(db) == []


def test_a_pipe_nobody_writes_to_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    db = tmp_path / "x.duckdb"
    for args in (["check", str(fifo)], ["explain", str(fifo)], ["ingest", str(fifo), "--db", str(db)]):
        done = subprocess.run([AUDIT, *args], capture_output=True, text=True, timeout=60)
        assert "Traceback" not in done.stderr
        assert "no program is writing to it" in done.stderr or "not a file" in done.stderr, done.stderr


def test_a_pipe_with_a_writer_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    db = tmp_path / "x.duckdb"
    for args in (["check", str(fifo)], ["ingest", str(fifo), "--db", str(db)]):
        writer = subprocess.Popen(["sh", "-c", f"cat {CLEAN} > {fifo}"])  # waits in open() for a reader
        time.sleep(0.3)
        done = subprocess.run([AUDIT, *args], capture_output=True, text=True, timeout=60)
        writer.wait(timeout=60)
        assert done.returncode == 0, done.stderr
    assert stored_files(db) == [str(fifo)]
    # a writer already writing, as `audit check <(zcat log.gz)` gives
    done = subprocess.run(["bash", "-c", f"{AUDIT} check <(cat {CLEAN})"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "2 hands checked in 1 file" in done.stdout, done.stderr


# ============================================================================================ 6. unreadable folders
@pytest.mark.parametrize("command", ["check", "ingest"])
def test_an_unreadable_sub_folder_stops_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    command: str) -> None:
    """Root reads every folder, so the refusal is made by os.scandir, which os.walk lists folders with."""
    logs = tmp_path / "logs"
    (logs / "locked").mkdir(parents=True)
    (logs / "a.txt").write_bytes(CLEAN.read_bytes())
    (logs / "locked" / "b.txt").write_bytes(CLEAN.read_bytes())
    real = os.scandir

    def refuse(path: Any = ".") -> Any:
        if str(path) == str(logs / "locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refuse)
    db = tmp_path / "x.duckdb"
    result = run(command, str(logs), *(["--db", str(db)] if command == "ingest" else []))
    assert result.exit_code == 2, result.output
    assert f"{logs / 'locked'}: this folder cannot be read (Permission denied)" in result.stderr
    assert not db.exists()


# ============================================================================================ 7. --db
@pytest.mark.parametrize("name", ["", " ", ":memory:", ":memory:x"])
def test_a_database_that_keeps_nothing_is_refused(tmp_path: Path, name: str) -> None:
    for args in (["ingest", str(EDGE)], ["sql", "SELECT 1"], ["report", "files"], ["export", "--parquet",
                                                                                  str(tmp_path / "pq")]):
        result = run(*args, "--db", name)
        assert result.exit_code == 2, (args, result.output)
        assert "--db" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "pq").exists()


# ============================================================================================ 8. hostile databases
def crafted(tmp_path: Path, name: str, *statements: str) -> Path:
    """A database written by ``audit ingest``, then changed by ``statements`` (run with duckdb itself)."""
    path = tmp_path / name
    assert run("ingest", str(EDGE / "odd-chip-three-way.txt"), "--db", str(path)).exit_code == 0
    with duckdb.connect(str(path)) as con:
        for statement in statements:
            con.execute(statement)
    return path


@pytest.fixture()
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text("TOP-SECRET-PASSWORD\n", encoding="utf-8")
    return path


def test_a_meta_view_reading_a_local_file_is_refused_before_it_runs(tmp_path: Path, secret: Path) -> None:
    path = tmp_path / "meta.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(f"CREATE VIEW audit_meta AS SELECT 'schema_version' AS key, content AS value "
                    f"FROM read_text('{secret}')")
    for args in (["sql", "SELECT 1"], ["report", "files"], ["export", "--parquet", str(tmp_path / "pq")],
                 ["ingest", str(EDGE / "odd-chip-three-way.txt")]):
        result = run(*args, "--db", str(path))
        assert result.exit_code == 2, result.output
        assert "TOP-SECRET" not in result.output and "written by 'audit ingest'" in result.stderr


def test_a_view_of_the_database_cannot_read_local_files(tmp_path: Path, secret: Path) -> None:
    path = crafted(tmp_path, "view.duckdb", f"CREATE VIEW leak AS SELECT content FROM read_text('{secret}')")
    result = run("sql", "SELECT * FROM leak", "--db", str(path))
    assert result.exit_code == 2 and "TOP-SECRET" not in result.output
    assert "disabled by configuration" in result.stderr
    result = run("export", "--db", str(path), "--parquet", str(tmp_path / "pq"))
    assert result.exit_code == 0
    exported = b"".join(p.read_bytes() for p in (tmp_path / "pq").rglob("*") if p.is_file())
    assert b"TOP-SECRET" not in exported


@pytest.mark.parametrize("statement", [
    "CREATE MACRO lower(x) AS 'pwned'",
    "CREATE MACRO duckdb_tables() AS TABLE SELECT 'hands' AS table_name",
    "DROP TABLE pots; CREATE VIEW pots AS SELECT * FROM awards",
    "ALTER TABLE hands ADD COLUMN extra INTEGER",
    "DROP TABLE seats; CREATE TABLE seats AS SELECT * FROM awards",
], ids=["macro", "catalogue-macro", "view-for-table", "extra-column", "other-columns"])
def test_a_changed_schema_is_refused_from_the_catalogue(tmp_path: Path, statement: str) -> None:
    path = crafted(tmp_path, "changed.duckdb", *statement.split("; "))
    for args in (["sql", "SELECT 1"], ["report", "files"], ["ingest", str(EDGE / "uncalled-bet-returned.txt")]):
        result = run(*args, "--db", str(path))
        assert result.exit_code == 2 and "written by 'audit ingest'" in result.stderr, (args, result.output)


def test_a_generated_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "generated.duckdb"
    good = crafted(tmp_path, "good.duckdb")
    with duckdb.connect(str(path)) as con:
        con.execute(f"ATTACH '{good}' AS good (READ_ONLY)")
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'good'").fetchall():
            con.execute(f"CREATE TABLE main.{table} AS SELECT * FROM good.{table}")
        con.execute("DROP TABLE main.files")
        con.execute("CREATE TABLE main.files (file_sha VARCHAR, path VARCHAR, size BIGINT, ingested_at TIMESTAMP, "
                    "default_profile VARCHAR, hands INTEGER, parse_errors INTEGER, findings INTEGER, "
                    "audit_version VARCHAR GENERATED ALWAYS AS ('pwned'))")
    result = run("report", "files", "--db", str(path))
    assert result.exit_code == 2 and "written by 'audit ingest'" in result.stderr


def test_no_extension_is_installed_or_loaded_and_settings_stay_locked(db: Path) -> None:
    settings = run("sql", "SELECT current_setting('autoinstall_known_extensions') AS i, "
                          "current_setting('autoload_known_extensions') AS l, "
                          "current_setting('enable_external_access') AS e", "--db", str(db), "--format", "jsonl")
    assert json.loads(settings.stdout) == {"i": False, "l": False, "e": False}
    for query in ("PRAGMA enable_external_access", "SELECT * FROM read_csv('/etc/hostname')"):
        result = run("sql", query, "--db", str(db))
        assert result.exit_code == 2, result.output


# ============================================================================================ 9. terminal escapes
ESCAPE = "\x1b[2J\x1b]0;pwned\x07\u202eevil\x9b31m"


def test_escapes_in_names_reach_no_terminal(tmp_path: Path) -> None:
    hand = clean_hand().replace("Table 'Casa Pepe'", f"Table 'Casa{ESCAPE}'").replace("bets 5", "bets 5x")
    folder = tmp_path / f"logs{ESCAPE}"
    folder.mkdir()
    log = folder / "game.txt"
    log.write_text(hand + f"\nHand #9 - 2026/11/28 21:00:00\nTable 'A{ESCAPE}' Seat #1 is the button\n",
                   encoding="utf-8")
    outputs = [run("check", str(log)), run("explain", str(log))]
    db = tmp_path / "x.duckdb"
    outputs.append(run("ingest", str(log), "--db", str(db), "-v"))
    outputs.append(run("sql", "SELECT table_name, file FROM hands", "--db", str(db)))
    outputs.append(run("report", "parse-errors", "--db", str(db)))
    outputs.append(run("check", str(log), "--format", "json"))
    for result in outputs:
        text = result.stdout + result.stderr
        for raw in ("\x1b", "\x07", "\u202e", "\x9b"):
            assert raw not in text, (result.output, raw)
    assert "\\x1b[2J" in outputs[0].stdout and "\\u202e" in outputs[0].stdout
    assert json.loads(outputs[-1].stdout.splitlines()[0])["file"] == str(log)  # JSON: the same value, escaped


# ============================================================================================ 10. audit sql
def test_two_columns_of_one_name_stay_apart(db: Path) -> None:
    query = ("SELECT h.line, f.line FROM hands h JOIN findings f USING (hand_key) WHERE h.line <> f.line "
             "ORDER BY 1, 2 LIMIT 3")
    rows = [json.loads(x) for x in run("sql", query, "--db", str(db), "--format", "jsonl").stdout.splitlines()]
    assert rows and all(set(r) == {"line", "line_1"} and r["line"] != r["line_1"] for r in rows)
    csv = run("sql", query, "--db", str(db), "--format", "csv").stdout.splitlines()
    assert csv[0] == "line,line_1" and csv[1] == f"{rows[0]['line']},{rows[0]['line_1']}"
    table = run("sql", query, "--db", str(db)).stdout.splitlines()
    assert table[0].split() == ["line", "line_1"] and table[2].split() == [str(rows[0]["line"]),
                                                                            str(rows[0]["line_1"])]


def strict_json(line: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")
    return json.loads(line, parse_constant=refuse)


def test_nan_and_infinity_are_never_written_into_json(db: Path, tmp_path: Path) -> None:
    result = run("sql", "SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, ['-inf'::DOUBLE, 1.5] AS c, 2.5 AS d",
                 "--db", str(db), "--format", "json")
    assert strict_json(result.stdout) == [{"a": None, "b": None, "c": [None, 1.5], "d": 2.5}]
    result = run("sql", "SELECT 'nan'::DOUBLE AS a, ['-inf'::DOUBLE, 1.5] AS c", "--db", str(db), "--format", "jsonl")
    assert strict_json(result.stdout) == {"a": None, "c": [None, 1.5]}
    log = tmp_path / "took.txt"
    log.write_text(clean_hand().replace("Tere: bets 5", f"Tere: bets 5 (took 1{'0' * 400}s)") + "\n"
                   + clean_hand("4600").replace("Tere: bets 5", f"Tere: bets 5 (took {'9' * 100}.5s)"),
                   encoding="utf-8")
    for args in (["explain", str(log), "--format", "json"], ["check", str(log), "--format", "json"]):
        for line in run(*args).stdout.splitlines():
            strict_json(line)


def test_timeout_stops_a_runaway_query(db: Path) -> None:
    start = time.monotonic()
    result = run("sql", "SELECT count(*) FROM range(1000000000000) a", "--db", str(db), "--timeout", "0.5")
    assert result.exit_code == 2 and "ran longer than --timeout 0.5 s" in result.stderr
    assert time.monotonic() - start < 30
    assert run("sql", "SELECT 1 AS x", "--db", str(db), "--timeout", "30").exit_code == 0


def test_results_are_streamed(db: Path) -> None:
    """2,000,000 rows: memory stays low (they are written as they come, never all held)."""
    query = "SELECT range AS n, 'player-' || range AS name, range * 1.5 AS x FROM range(2000000)"
    assert peak_mb(["sql", query, "--db", str(db), "--format", "json", "--output", os.devnull]) < 250


def test_formula_cells_escaped_in_csv_on_request(db: Path) -> None:
    query = ("SELECT '=HYPERLINK(\"http://x\")' AS a, '+1' AS b, '@SUM(A1)' AS c, -5 AS n, 'Ana' AS d, "
             "'-=Ace=-' AS e")
    plain = run("sql", query, "--db", str(db), "--format", "csv").stdout.splitlines()
    assert plain[1] == '"=HYPERLINK(""http://x"")",+1,@SUM(A1),-5,Ana,-=Ace=-'
    safe = run("sql", query, "--db", str(db), "--format", "csv", "--escape-formulas").stdout.splitlines()
    assert safe[1] == '"\'=HYPERLINK(""http://x"")",\'+1,\'@SUM(A1),-5,Ana,\'-=Ace=-'
    assert run("report", "files", "--db", str(db), "--format", "csv", "--escape-formulas").exit_code == 0


# ============================================================================================ messages
def test_closed_stdout_and_full_disk_are_one_line_exit_2(tmp_path: Path) -> None:
    for shell in (f"{AUDIT} check {CLEAN} >&-", f"{AUDIT} check {CLEAN} > /dev/full",
                  f"{AUDIT} sql 'SELECT 1' --db {tmp_path / 'none.duckdb'} --output {tmp_path / 'no' / 'x.csv'}"):
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (shell, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("audit: "), (shell, done.stderr)
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(["bash", "-c", f"{AUDIT} check {CLEAN} > /dev/full"], capture_output=True, text=True)
    assert "No space left on device" in done.stderr


def test_an_unwritable_output_folder_is_one_line(db: Path, tmp_path: Path) -> None:
    result = run("sql", "SELECT 1 AS x", "--db", str(db), "--output", str(tmp_path / "missing" / "x.csv"))
    assert result.exit_code == 2 and "cannot be written (No such file or directory)" in result.stderr
    result = run("explain", str(CLEAN), "--output", str(tmp_path / "missing" / "x.html"))
    assert result.exit_code == 2 and "cannot be written" in result.stderr


def test_echoed_input_is_cut_to_a_readable_length(db: Path) -> None:
    long = "x" * 5000
    for args in (["report", long, "--db", str(db)], ["sql", f"SELECT {long}", "--db", str(db)],
                 ["check", str(CLEAN), "--profile", long], ["check", str(CLEAN), "--option", f"ante={long}"]):
        result = run(*args)
        assert result.exit_code == 2
        assert 0 < len(result.stderr) < 1000, (args[0], len(result.stderr))


def test_dot_slash_dash_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "-").write_bytes(CLEAN.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert "2 hands checked in 1 file" in run("check", "./-", input="").stdout
    db = tmp_path / "x.duckdb"
    assert run("ingest", "./-", "--db", str(db), input="").exit_code == 0
    assert stored_files(db) == ["./-"]
    assert "Hand #4501" in run("explain", "./-", input="").stdout


def test_an_empty_profile_is_refused(tmp_path: Path) -> None:
    for args in (["check", str(CLEAN)], ["explain", str(CLEAN)], ["ingest", str(CLEAN), "--db",
                                                                    str(tmp_path / "x.duckdb")]):
        result = run(*args, "--profile", "")
        assert result.exit_code == 2 and "--profile is empty" in result.stderr, result.output
    assert not (tmp_path / "x.duckdb").exists()


def test_an_option_the_files_profile_line_overrides_is_named(tmp_path: Path) -> None:
    log = tmp_path / "qdan.txt"
    log.write_text("Profile: qdan\n\n" + clean_hand(), encoding="utf-8")
    for args in (["check", str(log)], ["explain", str(log)], ["ingest", str(log), "--db", str(tmp_path / "x.db")]):
        result = run(*args, "--option", "draw-limit=3")
        assert f"{log}:1: the file names its own profile (qdan), so --option draw-limit=3 does not apply" \
            in result.stderr, result.output
    bare = tmp_path / "bare.txt"
    bare.write_text(clean_hand(), encoding="utf-8")
    plain = run("check", str(bare), "--option", "draw-limit=3")
    assert plain.exit_code == 0 and "does not apply" not in plain.stderr
