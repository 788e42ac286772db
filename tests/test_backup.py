"""``audit backup``: a consistent copy of the database while ``audit serve`` writes to it (through the service's
writer), or directly when nothing holds it; restored, it holds every upload acknowledged before it began."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from audit.read import expand_paths
from conftest import AUDIT, FIXTURES
from servehelp import LiveServer, check_whole, rows

CLIENTS = 20
PER_CLIENT = 3


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, bytes]]:
    """Distinct simulated sessions of about ten hands, each its own log."""
    out = subprocess.run([AUDIT, "simulate", "--profile", "home-open", "--sessions", str(CLIENTS * PER_CLIENT),
                          "--seed", "28"], capture_output=True, check=True).stdout
    parts = [b"Session: " + p for p in out.split(b"Session: ") if p.strip()]
    assert len(parts) == CLIENTS * PER_CLIENT
    return [(f"session-{i:03}.txt", p) for i, p in enumerate(parts)]


def backup(db: Path, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([AUDIT, "backup", "--db", str(db), str(dest)], capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # a load test: twenty clients uploading to a real server
def test_a_backup_during_twenty_clients_uploads_holds_every_acknowledged_upload(
        tmp_path: Path, sessions: list[tuple[str, bytes]]) -> None:
    db = tmp_path / "club.duckdb"
    server = LiveServer(db)
    acknowledged: list[tuple[float, str]] = []  # (when the answer came, sha256)
    lock = threading.Lock()

    def client(n: int) -> None:
        for name, data in sessions[n * PER_CLIENT:(n + 1) * PER_CLIENT]:
            [answer] = server.upload([(name, data)])
            assert answer["status"] == "stored", answer
            with lock:
                acknowledged.append((time.monotonic(), hashlib.sha256(data).hexdigest()))

    dest = tmp_path / "backups" / "club-backup.duckdb"
    dest.parent.mkdir()
    try:
        with ThreadPoolExecutor(CLIENTS) as pool:
            futures = [pool.submit(client, n) for n in range(CLIENTS)]
            deadline = time.monotonic() + 120
            while len(acknowledged) < CLIENTS and time.monotonic() < deadline:
                time.sleep(0.05)
            began = time.monotonic()
            with lock:
                before = {sha for when, sha in acknowledged if when < began}
            taken = backup(db, dest)
            for f in futures:
                f.result(timeout=300)
        assert taken.returncode == 0, taken.stderr
        assert "by the service that holds it" in taken.stderr
        assert len(acknowledged) == CLIENTS * PER_CLIENT and before
        assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600
        assert not [p for p in dest.parent.iterdir() if p != dest]  # no partial file left beside it
    finally:
        assert server.stop() == 0
    assert not Path(str(db) + ".control").exists()  # the control socket goes with the service
    # Restore as README says: the copy in the database's place (the service stopped), then use it.
    restored = tmp_path / "restored" / "club.duckdb"
    restored.parent.mkdir()
    shutil.copy(dest, restored)
    stored = {r[0] for r in rows(restored, "SELECT sha256 FROM uploads")}
    assert before <= stored, f"{len(before - stored)} acknowledged upload(s) missing from the backup"
    check_whole(restored)
    served = LiveServer(restored)
    try:
        assert len(served.json("GET", "/api/v1/uploads")) == len(stored)
    finally:
        assert served.stop() == 0


def test_a_backup_with_no_service_and_what_it_refuses(tmp_path: Path) -> None:
    db = tmp_path / "club.duckdb"
    subprocess.run([AUDIT, "ingest", str(FIXTURES / "demo"), "--db", str(db), "-q"], check=True)
    logs = len(expand_paths([str(FIXTURES / "demo")]))  # the demo's logs, each one file row
    dest = tmp_path / "copy.duckdb"
    done = backup(db, dest)
    assert done.returncode == 0 and "directly (no service holds it)" in done.stderr, done.stderr
    assert rows(dest, "SELECT count(*) FROM files") == [(logs,)]
    again = backup(db, dest)
    assert again.returncode == 2 and again.stderr.splitlines() == [
        f"audit: {dest}: already exists; a backup never replaces a file: name a new one"]
    assert rows(dest, "SELECT count(*) FROM files") == [(logs,)]
    missing = backup(tmp_path / "none.duckdb", tmp_path / "x.duckdb")
    assert missing.returncode == 2 and "no such database" in missing.stderr
    assert not (tmp_path / "x.duckdb").exists()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('open', flush=True); sys.stdin.read()", str(db)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:  # a program that holds the file and takes no backup requests: refused, never a torn copy
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        refused = backup(db, tmp_path / "y.duckdb")
        assert refused.returncode == 2 and "in use by another program" in refused.stderr, refused.stderr
        assert len(refused.stderr.splitlines()) == 1 and not (tmp_path / "y.duckdb").exists()
    finally:
        holder.communicate("", timeout=30)
