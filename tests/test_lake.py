"""``audit ingest --lake`` (Dask and the worker pool), ``report``/``sql --lake`` and ``ingest --from-lake``
(audit.lake): the same rows as a database of the same files, whatever kills what."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from test_store import renumbered

from audit.cli import main
from audit.lake.layout import MANIFEST, TEMP, open_lake
from audit.lake.query import open_lake_store
from audit.store import Store
from audit.store.reports import load_reports
from audit.store.schema import SCHEMA
from audit.trust.verify import verify_database
from conftest import AUDIT, SHARED, WORKER_KILLED, needs_shared

CASES = SHARED / "cases"
REAL = SHARED / "real-hands"
BROKEN = """Hand #1 - 2026-12-01 20:00:00
Table: Kitchen
Seat 1: Ana (100)
Seat 2: Bo (100)
Ana: antes 1
Bo: antes 1
*** DEAL ***
Ana: raises to what
"""
pytestmark = needs_shared


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def table_rows(store: Store, table: str, clock: bool = False) -> list[tuple[Any, ...]]:
    """Every row of ``table``, sorted; without ``files.ingested_at`` (the clock) unless ``clock``."""
    names = ", ".join(c for c, _ in SCHEMA[table] if clock or c != "ingested_at")
    return sorted(store.con.execute(f"SELECT {names} FROM {table}").fetchall(), key=repr)


def every_table(store: Store, clock: bool = False) -> dict[str, list[tuple[Any, ...]]]:
    return {table: table_rows(store, table, clock) for table in SCHEMA}


def database(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with Store.open(db, read_only=True) as store:
        return every_table(store)


def lake_tables(lake: Path, clock: bool = False) -> dict[str, list[tuple[Any, ...]]]:
    with open_lake_store(str(lake)) as store:
        return every_table(store, clock)


def parquet_files(lake: Path) -> dict[str, float]:
    """Every Parquet file in place (not under ``_tmp``), with its modification time."""
    return {str(p.relative_to(lake)): p.stat().st_mtime for p in lake.glob("*/part=*/*.parquet")}


def big_inputs(folder: Path, count: int, copies: int) -> list[Path]:
    """``count`` files of the clean sessions repeated ``copies`` times (distinct bytes, ~200 hands per copy)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(count):
        path = folder / f"big-{i}.txt"
        path.write_text(renumbered(copies).replace("Session: ", f"Session: b{i}-"), encoding="utf-8")
        out.append(path)
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The shared cases, the real hands and a file with an unreadable hand."""
    folder = tmp_path_factory.mktemp("inputs")
    (folder / "broken.txt").write_text(BROKEN, encoding="utf-8")
    return [str(CASES), str(REAL), str(folder)]


@pytest.fixture(scope="module")
def filled(inputs: list[str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a lake filled by ``--dask local:2``, a database filled by ``ingest --db``) from the same files."""
    folder = tmp_path_factory.mktemp("lake")
    lake, db = folder / "lake", folder / "db.duckdb"
    result = run("ingest", *inputs, "--lake", str(lake), "--dask", "local:2")
    assert result.exit_code == 0, result.output
    assert run("ingest", *inputs, "--db", str(db)).exit_code == 0
    return lake, db


# ---------------------------------------------------------------------------------------------- same rows
@pytest.mark.slow
def test_dask_lake_holds_the_rows_of_the_database(filled: tuple[Path, Path]) -> None:
    lake, db = filled
    got, want = lake_tables(lake), database(db)
    assert {t: len(r) for t, r in got.items()} == {t: len(r) for t, r in want.items()}
    for table in SCHEMA:
        assert got[table] == want[table], table
    assert want["parse_errors"] and want["findings"] and len(want["files"]) > 80


@pytest.mark.slow
def test_every_table_has_one_file_per_input_file_named_by_its_sha(filled: tuple[Path, Path]) -> None:
    lake, db = filled
    shas = {row[0] for row in database(db)["files"]}
    for table in SCHEMA:
        names = {p.name for p in (lake / table).glob("part=*/*.parquet")}
        assert names == {f"{sha}.parquet" for sha in shas}, table
        for path in (lake / table).glob("part=*/*.parquet"):
            assert path.parent.name == f"part={path.stem[:2]}"
            assert pq.read_schema(path).names == [c for c, _ in SCHEMA[table]]
    assert not any((lake / TEMP).iterdir())  # nothing left being written


@pytest.mark.slow
def test_manifest_documents_the_layout(filled: tuple[Path, Path]) -> None:
    lake, _ = filled
    manifest = json.loads((lake / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["written_by"] == "audit ingest --lake" and manifest["layout"] == 1
    assert manifest["tables"]["hands"] == [[c, t] for c, t in SCHEMA["hands"]]
    assert manifest["partitioning"]["column"] == "part"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(load_reports()))
def test_every_report_gives_the_same_rows_over_the_lake(filled: tuple[Path, Path], name: str) -> None:
    lake, db = filled

    def rows(*where: str) -> list[str]:
        result = run("report", name, *where, "--format", "jsonl")
        assert result.exit_code == 0, result.output
        lines = [json.loads(line) for line in result.output.splitlines()]
        return sorted(json.dumps({k: v for k, v in r.items() if k != "ingested_at"}, sort_keys=True) for r in lines)

    over_db = rows("--db", str(db))
    assert over_db, f"the report {name} is empty on the shared cases: the comparison would prove nothing"
    assert rows("--lake", str(lake)) == over_db


@pytest.mark.slow
def test_every_analyst_view_gives_the_same_rows_over_the_lake(filled: tuple[Path, Path]) -> None:
    from audit.store.schema import VIEWS

    lake, db = filled

    def view_rows(store: Store, view: str) -> list[str]:
        return sorted(repr(r) for r in store.con.execute(f"SELECT * FROM {view}").fetchall())

    with Store.open(db, read_only=True) as on_db, open_lake_store(str(lake)) as on_lake:
        for view in VIEWS:
            want = view_rows(on_db, view)
            assert want, view
            assert view_rows(on_lake, view) == want, view


@pytest.mark.slow
def test_from_lake_loads_the_same_rows_clock_included(filled: tuple[Path, Path], tmp_path: Path) -> None:
    lake, _ = filled
    db = tmp_path / "loaded.duckdb"
    first = run("ingest", "--db", str(db), "--from-lake", str(lake))
    assert first.exit_code == 0, first.output
    files = len(lake_tables(lake)["files"])
    assert f"{files} files ingested" in first.output
    with Store.open(db, read_only=True) as store:
        assert every_table(store, clock=True) == lake_tables(lake, clock=True)
        # each file loaded is a link of club local's chain, at the time its row says
        assert store.con.execute("SELECT count(*) FROM chain_links c JOIN files f ON c.subject = f.file_sha AND "
                                 "c.received_at = f.ingested_at AND c.club = 'local'").fetchone() == (files,)
    assert verify_database(str(db)).breaks == []
    again = run("ingest", "--db", str(db), "--from-lake", str(lake))
    assert f"0 files ingested ({files} already in the database)" in again.output


@pytest.mark.slow
def test_rerun_adds_nothing_and_sends_no_work(filled: tuple[Path, Path], inputs: list[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import distributed

    def no_cluster(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a cluster was started with nothing to send")

    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    lake, _ = filled
    before = parquet_files(lake)
    result = run("ingest", *inputs, "--lake", str(lake), "--dask", "local:2")
    assert result.exit_code == 0, result.output
    assert f"0 files ingested ({len(before) // len(SCHEMA)} already in the lake)" in result.output
    assert parquet_files(lake) == before


@pytest.mark.slow
def test_worker_pool_fills_the_same_lake(filled: tuple[Path, Path], inputs: list[str], tmp_path: Path) -> None:
    lake, db = filled
    pooled = tmp_path / "pooled"
    result = run("ingest", *inputs, "--lake", str(pooled), "--workers", "2")
    assert result.exit_code == 0, result.output
    assert lake_tables(pooled) == database(db)


# ---------------------------------------------------------------------------------------------- kills
def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([AUDIT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _wait_for_commits(lake: Path, proc: subprocess.Popen[str], at_least: int) -> None:
    deadline = time.monotonic() + 120
    while len(list(lake.glob("files/*/*.parquet"))) < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no file was completed in two minutes"
        time.sleep(0.02)


def _workers(proc: subprocess.Popen[str]) -> list[psutil.Process]:
    """The Dask worker processes of a local cluster started by ``proc``."""
    return [p for p in psutil.Process(proc.pid).children(recursive=True)
            if any("spawn_main" in part for part in p.cmdline())]


def _busy_worker(proc: subprocess.Popen[str], lake: Path) -> psutil.Process:
    """A worker process in the middle of a file: it holds one of the lake's temporary files open."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for worker in _workers(proc):
            try:
                if any(TEMP in Path(f.path).relative_to(lake).parts for f in worker.open_files()
                       if f.path.startswith(str(lake))):
                    return worker
            except psutil.Error:
                continue
        time.sleep(0.01)
    raise AssertionError("no worker was seen writing a file")


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.slow
def test_a_killed_worker_gives_its_file_to_another(tmp_path: Path) -> None:
    files = big_inputs(tmp_path / "in", count=6, copies=4)
    lake, db = tmp_path / "lake", tmp_path / "db.duckdb"
    proc = _start(["ingest", str(tmp_path / "in"), "--lake", str(lake), "--dask", "local:2"])
    try:
        _wait_for_commits(lake, proc, 1)
        victim = _busy_worker(proc, lake)
        victim.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=240)
    finally:
        _stop(proc)
    assert proc.returncode == 0, err
    assert f"{len(files)} files ingested" in out
    assert len(list(lake.glob("files/*/*.parquet"))) == len(files)
    assert run("ingest", str(tmp_path / "in"), "--db", str(db)).exit_code == 0
    got = lake_tables(lake)
    assert got == database(db)
    assert len({row[0] for row in got["hands"]}) == len(got["hands"])  # every hand once


def test_a_killed_pool_worker_stops_the_run_with_the_same_sentence(tmp_path: Path) -> None:
    """Without Dask the lake is filled by the ingest's worker pool: a worker killed there is said in the sentence
    of ``check`` and ``ingest`` (``WORKER_KILLED``), with what the lake keeps; the file it held is not in it."""
    files = big_inputs(tmp_path / "in", count=6, copies=4)
    lake = tmp_path / "lake"
    proc = _start(["ingest", str(tmp_path / "in"), "--lake", str(lake), "--workers", "2"])
    try:
        _busy_worker(proc, lake).send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        _stop(proc)
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    died = re.fullmatch(WORKER_KILLED + r"; every file complete in the lake is whole, and running the same command "
                        r"again adds the rest \(with fewer --workers if memory is short\)\n", err)
    assert died, err
    assert died.group(1) in {str(f) for f in files}
    hands = _hands_per_file(lake)
    assert died.group(1) not in hands
    for path, count in hands.items():
        assert count == Path(path).read_text(encoding="utf-8").count("Hand #"), path


def _hands_per_file(lake: Path) -> dict[str, int]:
    """Each file complete in the lake, with the hands it holds there."""
    with open_lake_store(str(lake)) as store:
        return dict(store.con.execute("SELECT f.path, count(h.hand_key) FROM files f LEFT JOIN hands h "
                                      "ON h.file_sha = f.file_sha GROUP BY f.path").fetchall())


@pytest.mark.slow
def test_a_killed_run_leaves_no_partial_file_and_the_next_completes_it(tmp_path: Path) -> None:
    big_inputs(tmp_path / "in", count=6, copies=4)
    lake, db = tmp_path / "lake", tmp_path / "db.duckdb"
    proc = _start(["ingest", str(tmp_path / "in"), "--lake", str(lake), "--dask", "local:2"])
    try:
        _wait_for_commits(lake, proc, 1)
        _busy_worker(proc, lake)  # a file is being written: the kill lands in the middle of it
    finally:
        _stop(proc)
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    committed = open_lake(lake).committed
    assert 0 < len(committed) < 6, "the run was not killed half-way"
    for path in lake.rglob("*.parquet"):  # every file in place is whole, and no other has that name
        assert pq.read_metadata(path).num_columns == len(SCHEMA[path.parent.parent.name])
    leftovers = [p for p in lake.rglob("*") if p.is_file() and not p.name.endswith(".parquet")
                 and p.name != MANIFEST]
    assert all(TEMP in p.relative_to(lake).parts for p in leftovers)
    half = lake_tables(lake)
    assert {row[0] for row in half["files"]} == committed
    assert {row[1] for row in half["hands"]} == committed  # only whole files are seen
    result = run("ingest", str(tmp_path / "in"), "--lake", str(lake), "--dask", "local:2")
    assert result.exit_code == 0, result.output
    assert f"{6 - len(committed)} files ingested ({len(committed)} already in the lake)" in result.output
    assert run("ingest", str(tmp_path / "in"), "--db", str(db)).exit_code == 0
    assert lake_tables(lake) == database(db)


@pytest.mark.slow
def test_ctrl_c_stops_the_cluster_and_says_one_line(tmp_path: Path) -> None:
    big_inputs(tmp_path / "in", count=4, copies=4)
    lake = tmp_path / "lake"
    proc = _start(["ingest", str(tmp_path / "in"), "--lake", str(lake), "--dask", "local:2"])
    try:
        _wait_for_commits(lake, proc, 1)
        workers = _workers(proc)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to every process of the command
        out, err = proc.communicate(timeout=60)
    finally:
        _stop(proc)
    assert proc.returncode == 130, err
    assert err == ("audit: interrupted; every file completed in the lake is whole, and running the same command "
                   "again adds the rest\n")
    assert workers and not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    committed = open_lake(lake).committed
    assert {row[0] for row in lake_tables(lake)["files"]} == committed


@pytest.mark.slow
def test_rows_of_an_incomplete_file_are_not_seen_and_the_next_run_writes_them(filled: tuple[Path, Path],
                                                                             tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(filled[0], lake)
    marker = next(lake.glob("files/*/*.parquet"))  # as if the run was killed before its last rename
    marker.unlink()
    sha = marker.stem
    with open_lake_store(str(lake)) as store:
        assert store.one("SELECT count(*) FROM hands WHERE file_sha = ?", [sha]) == (0,)
        assert store.one("SELECT count(*) FROM findings WHERE file_sha = ?", [sha]) == (0,)
    assert (lake / "hands" / f"part={sha[:2]}" / f"{sha}.parquet").is_file()
    path = filled[1]
    with Store.open(path, read_only=True) as db:
        row = db.one("SELECT path FROM files WHERE file_sha = ?", [sha])
    assert row is not None
    result = run("ingest", row[0], "--lake", str(lake))
    assert result.exit_code == 0 and "1 file ingested" in result.output, result.output
    assert lake_tables(lake) == database(path)


# ---------------------------------------------------------------------------------------------- refusals
def test_a_folder_holding_other_files_is_refused_untouched(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("mine", encoding="utf-8")
    (home / "hands").mkdir()
    result = run("ingest", str(CASES / "generated" / "clean-003.txt"), "--lake", str(home))
    assert result.exit_code == 2 and "not a lake's" in result.output
    assert sorted(p.name for p in home.iterdir()) == ["hands", "notes.txt"] and not any((home / "hands").iterdir())


@pytest.mark.slow
def test_a_lake_with_a_stranger_inside_is_refused(filled: tuple[Path, Path], tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(filled[0], lake)
    stranger = lake / "hands" / "part=00" / "mine.parquet"
    stranger.parent.mkdir(exist_ok=True)
    stranger.write_bytes(b"PAR1")
    before = parquet_files(lake)
    for args in (["ingest", str(CASES), "--lake", str(lake)], ["report", "files", "--lake", str(lake)],
                 ["ingest", "--db", str(tmp_path / "x.duckdb"), "--from-lake", str(lake)]):
        result = run(*args)
        assert result.exit_code == 2 and "part=00/mine.parquet" in result.output, args
    assert parquet_files(lake) == before and not (tmp_path / "x.duckdb").exists()


@pytest.mark.slow
def test_from_lake_refuses_a_file_of_other_columns(filled: tuple[Path, Path], tmp_path: Path) -> None:
    import pyarrow as pa

    lake = tmp_path / "lake"
    shutil.copytree(filled[0], lake)
    victim = sorted(lake.glob("findings/*/*.parquet"))[-1]
    pq.write_table(pa.table({"hand_key": ["x"], "rule": ["made up"]}), victim)
    db = tmp_path / "x.duckdb"
    result = run("ingest", "--db", str(db), "--from-lake", str(lake))
    assert result.exit_code == 2 and "its columns are not those of the findings table" in result.output
    with Store.open(db, read_only=True) as store:  # the files loaded before it are whole; it is not there
        assert store.one("SELECT count(*) FROM files WHERE file_sha = ?", [victim.stem]) == (0,)
        assert store.one("SELECT count(*) FROM hands WHERE file_sha = ?", [victim.stem]) == (0,)
        assert store.one("SELECT count(*) FROM findings WHERE rule = 'made up'") == (0,)


def test_a_lake_of_another_schema_is_refused(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    assert run("ingest", str(CASES / "generated" / "clean-003.txt"), "--lake", str(lake)).exit_code == 0
    manifest = json.loads((lake / MANIFEST).read_text(encoding="utf-8"))
    manifest["schema_version"] = "0"
    (lake / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    result = run("sql", "SELECT 1", "--lake", str(lake))
    assert result.exit_code == 2 and "schema version 0" in result.output


def test_lake_options_that_do_not_go_together(tmp_path: Path) -> None:
    one = str(CASES / "generated" / "clean-003.txt")
    lake = str(tmp_path / "lake")
    for args, says in ((["ingest", one, "--dask", "local"], "add --lake"),
                       (["ingest", one, "--lake", lake, "--db", str(tmp_path / "x.duckdb")], "not both"),
                       (["ingest", one, "--db", str(tmp_path / "x.duckdb"), "--from-lake", lake], "no PATHS"),
                       (["ingest", "--lake", lake], "name the files"),
                       (["ingest", one, "--lake", lake, "--dask", "local:0"], "1 to 64"),
                       (["ingest", one, "--lake", lake, "--dask", "somewhere"], "scheduler's address"),
                       (["ingest", one, "--lake", "s3://bucket/lake"], "not a URL"),
                       (["report", "files", "--lake", str(tmp_path / "none")], "no such lake"),
                       (["ingest", "--db", str(tmp_path / "x.duckdb"), "--from-lake", one], "is a file")):
        result = run(*args)
        assert result.exit_code == 2 and says in result.output, (args, result.output)
    assert not (tmp_path / "lake").exists() and not (tmp_path / "x.duckdb").exists()


def test_dask_missing_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    result = run("ingest", str(CASES), "--lake", str(tmp_path / "lake"), "--dask", "local:2")
    assert result.exit_code == 2
    assert "pip install 'audit[dask]'" in result.output
    assert not (tmp_path / "lake").exists()


@pytest.mark.slow
def test_queries_over_the_lake_read_nothing_else(filled: tuple[Path, Path], tmp_path: Path) -> None:
    lake, _ = filled
    secret = tmp_path / "secret.csv"
    secret.write_text("a\nTOP-SECRET\n", encoding="utf-8")
    result = run("sql", f"SELECT * FROM read_csv('{secret}')", "--lake", str(lake))
    assert result.exit_code == 2 and "TOP-SECRET" not in result.output
    inside = run("sql", "SELECT 1", "--lake", str(lake), "--format", "csv", "--output", str(lake / "out.csv"))
    assert inside.exit_code == 2 and "inside the lake" in inside.output and not (lake / "out.csv").exists()


def test_an_empty_lake_answers_with_no_rows(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "hands").mkdir(parents=True)
    assert run("ingest", str(tmp_path / "nothing-here"), "--lake", str(lake)).exit_code == 2  # missing input
    assert sorted(p.name for p in lake.iterdir()) == ["hands"]  # refused before the lake was made
    shutil.rmtree(lake)
    empty = tmp_path / "empty-input"
    empty.mkdir()
    assert run("ingest", str(empty), "--lake", str(lake)).exit_code == 0
    result = run("sql", "SELECT count(*) AS n FROM hands", "--lake", str(lake), "--format", "json")
    assert result.exit_code == 0 and json.loads(result.output) == [{"n": 0}]


def test_files_named_by_url_are_read_through_fsspec(tmp_path: Path) -> None:
    source = CASES / "generated" / "mut-012-POT_WINNER.txt"
    url = source.as_uri()
    lake, by_path = tmp_path / "lake", tmp_path / "by-path"
    result = run("ingest", url, "--lake", str(lake))
    assert result.exit_code == 0 and "1 file ingested" in result.output, result.output
    assert run("ingest", str(source), "--lake", str(by_path)).exit_code == 0
    got, want = lake_tables(lake), lake_tables(by_path)
    assert got["files"][0][1] == url and want["files"][0][1] == str(source)
    assert [r[0] for r in got["files"]] == [r[0] for r in want["files"]]  # the same SHA-256
    assert got["findings"] == [r[:4] + (url,) + r[5:] for r in want["findings"]]
    again = run("ingest", url, "--lake", str(lake))  # hashed by the worker, skipped there
    assert "0 files ingested (1 already in the lake)" in again.output



@pytest.mark.slow
def test_what_a_killed_run_left_being_written_is_swept_later(tmp_path: Path) -> None:
    one = str(CASES / "generated" / "clean-003.txt")
    lake = tmp_path / "lake"
    assert run("ingest", one, "--lake", str(lake)).exit_code == 0
    old, fresh = lake / TEMP / "0123456789abcdef-old1", lake / TEMP / "fedcba9876543210-new1"
    for folder in (old, fresh):
        folder.mkdir()
        (folder / "hands.parquet").write_bytes(b"PAR1 half")
    two_hours_ago = time.time() - 7200
    os.utime(old / "hands.parquet", (two_hours_ago, two_hours_ago))
    os.utime(old, (two_hours_ago, two_hours_ago))
    assert run("ingest", one, "--lake", str(lake)).exit_code == 0
    assert not old.exists() and fresh.exists()  # a live writer's folder may be the fresh one
    (lake / TEMP / "mine.txt").write_text("mine", encoding="utf-8")
    result = run("ingest", one, "--lake", str(lake))
    assert result.exit_code == 2 and "_tmp/mine.txt" in result.output and (lake / TEMP / "mine.txt").exists()


@pytest.fixture()
def scheduler(tmp_path: Path) -> Iterator[str]:
    """A Dask scheduler with one worker, in a process of its own (as on a real cluster): its address."""
    script = ("import sys\nfrom distributed import LocalCluster\n"
              "cluster = LocalCluster(n_workers=1, threads_per_worker=1, scheduler_port=0, dashboard_address=None)\n"
              "print(cluster.scheduler_address, flush=True)\nsys.stdin.read()\ncluster.close()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_a_running_scheduler_named_by_its_address(scheduler: str, tmp_path: Path) -> None:
    assert scheduler.startswith("tcp://")
    lake, db = tmp_path / "lake", tmp_path / "db.duckdb"
    inputs = [str(CASES / "generated"), str(REAL / "pokerstars")]
    result = run("ingest", *inputs, "--lake", str(lake), "--dask", scheduler)
    assert result.exit_code == 0, result.output
    assert run("ingest", *inputs, "--db", str(db)).exit_code == 0
    assert lake_tables(lake) == database(db)


def test_a_scheduler_that_does_not_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import audit.lake.run

    monkeypatch.setattr(audit.lake.run, "CONNECT_SECONDS", 1)
    result = run("ingest", str(CASES / "generated" / "clean-003.txt"), "--lake", str(tmp_path / "lake"),
                 "--dask", "tcp://127.0.0.1:9")
    assert result.exit_code == 2 and "cannot reach the Dask scheduler" in result.output
    assert not list((tmp_path / "lake").glob("*/*/*.parquet"))


def test_progress_counts_files_and_hands(tmp_path: Path) -> None:
    from audit.lake.run import ingest_lake
    from audit.store.ingest import IngestProgress

    seen: list[tuple[int, int, int]] = []

    def progress(p: IngestProgress) -> None:
        seen.append((p.done, p.files, p.hands))

    summary = ingest_lake([str(CASES / "generated")], str(tmp_path / "lake"), progress=progress)
    assert seen[0] == (0, summary.ingested, 0)
    assert seen[-1] == (summary.ingested, summary.ingested, summary.hands + summary.parse_errors
                        + summary.skipped_hands)
    assert [done for done, _, _ in seen] == list(range(summary.ingested + 1))
