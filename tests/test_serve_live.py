"""``audit serve`` as a real process on a free loopback port: the same rows as ``audit ingest``, 20 clients at
once, a kill in the middle of uploads, a client that goes away or stalls, a clean stop on SIGTERM.

Every request loop here is bounded in count and time and talks to 127.0.0.1 only."""

from __future__ import annotations

import hashlib
import re
import signal
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from audit.store.schema import ORDER_BY, SCHEMA
from conftest import at_least, AUDIT, SHARED, needs_shared
from servehelp import LiveServer, check_whole, counts, rows

CASES = SHARED / "cases"
STARS = SHARED / "real-hands" / "pokerstars"
CLIENTS = 20
LOAD_FILES = 400

# twenty clients at once, kills, stalls and signals on real servers: slow (left out by `make test-fast`)
pytestmark = [needs_shared, pytest.mark.slow]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, bytes]]:
    """400 distinct simulated sessions of about ten hands, each its own log."""
    out = subprocess.run([AUDIT, "simulate", "--profile", "home-open", "--sessions", str(LOAD_FILES), "--seed", "11"],
                         capture_output=True, check=True).stdout
    parts = [b"Session: " + p for p in out.split(b"Session: ") if p.strip()]
    assert len(parts) == LOAD_FILES
    return [(f"session-{i:03}.txt", p) for i, p in enumerate(parts)]


def dump(db: Path, served: bool = False) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the store in a stable order, less the file's name (the upload's name, or the path given to
    ``audit ingest``) and the time it went in. ``served``: the rows of each upload are keyed by the upload's own
    key; they are read keyed as ``audit ingest`` keys them (the SHA-256 of the bytes)."""
    out = {}
    for table, cols in SCHEMA.items():
        names = ", ".join(c for c, _ in cols if c not in ("ingested_at", "file", "path"))
        order = ORDER_BY[table].replace("path, ", "")
        source = table
        if served:
            rekey = ["u.sha256 AS file_sha"] + (["left(u.sha256, 16) || substr(t.hand_key, 17) AS hand_key"]
                                                if "hand_key" in dict(cols) else [])
            source = (f"(SELECT t.* REPLACE ({', '.join(rekey)}) FROM {table} t "
                      "JOIN uploads u ON u.file_sha = t.file_sha)")
        out[table] = rows(db, f"SELECT {names} FROM {source} ORDER BY {order}")
    return out


def test_uploads_store_exactly_the_rows_audit_ingest_stores(tmp_path: Path) -> None:
    files = at_least(60, sorted(CASES.rglob("*.txt"))) + at_least(8, sorted(STARS.glob("*.txt")))
    ingested = tmp_path / "ingest.duckdb"
    run = subprocess.run([AUDIT, "ingest", *map(str, files), "--db", str(ingested)], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    server = LiveServer(tmp_path / "serve.duckdb")
    try:
        logs = [(p.name, p.read_bytes()) for p in files]
        first: list[dict[str, Any]] = []
        for i in range(0, len(logs), 10):
            first += server.upload(logs[i:i + 10])
        seen: set[str] = set()
        for (name, data), answer in zip(logs, first):
            sha = hashlib.sha256(data).hexdigest()
            assert answer["sha256"] == sha and answer["name"] == name
            assert answer["status"] == ("duplicate" if sha in seen else "stored"), answer
            seen.add(sha)
        again = server.upload(logs)
        assert {a["status"] for a in again} == {"duplicate"}
        assert [(a["hands"], a["violations"]) for a in again] == [(a["hands"], a["violations"]) for a in first]
        every_route_answers(server, first)
    finally:
        assert server.stop() == 0
    served = tmp_path / "serve.duckdb"
    assert counts(served) == counts(ingested)
    assert dump(served, served=True) == dump(ingested)
    check_whole(served)
    assert rows(served, "SELECT count(*) FROM uploads") == [(len(seen),)]


def every_route_answers(server: LiveServer, uploaded: list[dict[str, Any]]) -> None:
    """Each route of the API and the pages, once, on the real server."""
    import json

    assert server.json("GET", "/healthz") == {"status": "ok"}
    assert "/api/v1/uploads" in server.json("GET", "/openapi.json")["paths"]
    found = next(a for a in uploaded if a["violations"])
    sha = found["sha256"]
    findings = server.json("GET", f"/api/v1/uploads/{sha}/findings")
    assert len([f for f in findings if f["severity"] == "violation"]) == found["violations"]
    hand = findings[0]["hand"]
    assert server.json("GET", f"/api/v1/uploads/{sha}/hands/{hand}/explain?format=json")["hand"] == hand
    status, headers, page = server.request("GET", f"/api/v1/uploads/{sha}/hands/{hand}/explain?lang=es")
    assert status == 200 and "script-src 'sha256-" in headers["content-security-policy"] and b'lang="es"' in page
    checked = server.json("POST", "/api/v1/check", (STARS / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt").read_bytes(),
                          {"Content-Type": "text/plain"})
    assert checked["unreadable"] == [] and isinstance(checked["findings"], list)
    assert {r["name"] for r in server.json("GET", "/api/v1/reports")} >= {"files", "violations-by-rule"}
    assert len(server.json("GET", "/api/v1/reports/files")) == len(server.json("GET", "/api/v1/uploads"))
    status, headers, csv_text = server.request("GET", "/api/v1/reports/violations-by-rule?format=csv")
    assert status == 200 and headers["content-type"].startswith("text/csv") and csv_text.startswith(b"rule,")
    for path in ["/", "/uploads", f"/uploads/{sha}", f"/uploads/{sha}/hands/{hand}", "/static/serve.css"]:
        status, headers, _ = server.request("GET", path, headers={"Accept": "text/html"})
        assert status == 200 and "content-security-policy" in headers, path
    status, headers, _ = server.request("GET", "/signin")
    assert status == 303  # no token defined: nothing to sign in to
    assert json.loads(server.request("GET", "/api/v1/uploads/" + "0" * 64 + "/findings")[2]) == {
        "detail": "no such upload"}


def test_twenty_clients_at_once_each_file_stored_once(tmp_path: Path, sessions: list[tuple[str, bytes]]) -> None:
    server = LiveServer(tmp_path / "load.duckdb")
    answers: list[tuple[int, dict[str, Any] | None]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + 240

    def client(index: int) -> None:
        for name, data in sessions[index::CLIENTS]:
            if time.monotonic() > deadline:
                return
            status, _, body = server.request("POST", f"/api/v1/uploads?name={name}", data,
                                             {"Content-Type": "text/plain"})
            import json
            with lock:
                answers.append((status, json.loads(body)["uploads"][0] if status == 200 else None))

    try:
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(client, range(CLIENTS)))
        assert len(answers) == LOAD_FILES
        assert all(status == 200 and a is not None and a["status"] == "stored" for status, a in answers), \
            [a for a in answers if a[0] != 200][:3]
        listed = server.json("GET", "/api/v1/uploads")
        assert len(listed) == LOAD_FILES and len({u["sha256"] for u in listed}) == LOAD_FILES
        hands = sum(a["hands"] for _, a in answers if a is not None)
        assert hands == sum(len(re.findall(rb"^Hand #", d, re.M)) for _, d in sessions)
    finally:
        assert server.stop() == 0
    db = tmp_path / "load.duckdb"
    assert rows(db, "SELECT count(*), count(DISTINCT file_sha) FROM files") == [(LOAD_FILES, LOAD_FILES)]
    assert rows(db, "SELECT sum(hands) FROM files") == [(hands,)]
    check_whole(db)


def test_a_server_killed_mid_upload_restarts_with_only_whole_logs(tmp_path: Path,
                                                                 sessions: list[tuple[str, bytes]]) -> None:
    db = tmp_path / "killed.duckdb"
    server = LiveServer(db)
    big = [(f"big-{i}.txt", b"".join(d for _, d in sessions[i * 40:(i + 1) * 40])) for i in range(10)]
    stored: list[str] = []

    def client(item: tuple[str, bytes]) -> None:
        try:
            status, _, body = server.request("POST", f"/api/v1/uploads?name={item[0]}", item[1],
                                             {"Content-Type": "text/plain"}, timeout=60)
        except OSError:
            return  # the server died under this upload
        if status == 200 and b'"stored"' in body:
            stored.append(hashlib.sha256(item[1]).hexdigest())

    with ThreadPoolExecutor(5) as pool:
        futures = [pool.submit(client, item) for item in big]
        deadline = time.monotonic() + 60
        while not stored and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)  # more uploads are in flight: some audited, some being written
        server.stop(signal.SIGKILL)
        for f in futures:
            f.result()
    assert stored, "no upload finished before the kill"
    again = LiveServer(db)
    try:
        listed = {u["sha256"] for u in again.json("GET", "/api/v1/uploads")}
        assert set(stored) <= listed and len(listed) < len(big)
        assert {a["status"] for a in again.upload(big)} == {"duplicate", "stored"}
    finally:
        assert again.stop() == 0
    check_whole(db)
    assert rows(db, "SELECT count(*) FROM uploads") == [(len(big),)]


def raw_socket(port: int, head: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(head)
    return sock


def test_a_client_that_goes_away_or_stalls_leaves_nothing_and_holds_nobody(tmp_path: Path,
                                                                            sessions: list[tuple[str, bytes]]) -> None:
    db = tmp_path / "clients.duckdb"
    server = LiveServer(db, "--read-timeout", "1")
    try:
        data = b"".join(d for _, d in sessions[:30])
        head = (f"POST /api/v1/uploads?name=gone.txt HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                f"Content-Type: text/plain\r\nContent-Length: {len(data)}\r\n\r\n").encode()
        gone = raw_socket(server.port, head + data[: len(data) // 3])
        gone.close()  # in the middle of the body
        stalled = raw_socket(server.port, head.replace(b"gone", b"stalled") + data[:1000])
        started = time.monotonic()
        name, log = sessions[100]
        status, _, body = server.request("POST", f"/api/v1/uploads?name={name}", log, {"Content-Type": "text/plain"})
        assert status == 200 and b'"stored"' in body and time.monotonic() - started < 1.0
        answer = b""
        while chunk := stalled.recv(4096):
            answer += chunk
        waited = time.monotonic() - started
        stalled.close()
        assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive in time" in answer
        assert 0.9 < waited < 10
        assert [u["name"] for u in server.json("GET", "/api/v1/uploads")] == [name]
    finally:
        assert server.stop() == 0
    assert rows(db, "SELECT count(*) FROM files") == [(1,)]
    check_whole(db)


def test_sigterm_lets_the_upload_in_flight_finish(tmp_path: Path, sessions: list[tuple[str, bytes]]) -> None:
    db = tmp_path / "term.duckdb"
    server = LiveServer(db)
    data = b"".join(d for _, d in sessions[:200])
    result: list[tuple[int, bytes]] = []
    sender = threading.Thread(target=lambda: result.append(server.request(
        "POST", "/api/v1/uploads?name=inflight.txt", data, {"Content-Type": "text/plain"})[::2]))
    sender.start()
    time.sleep(0.3)
    status = server.stop(signal.SIGTERM)
    sender.join(60)
    assert status == 0
    assert result and result[0][0] == 200 and b'"stored"' in result[0][1]
    check_whole(db)
    assert rows(db, "SELECT name FROM uploads") == [("inflight.txt",)]


def test_a_body_over_the_limit_is_refused_and_worker_processes_audit(tmp_path: Path, sessions: list[tuple[str, bytes]]) -> None:
    server = LiveServer(tmp_path / "limit.duckdb", "--max-upload", "64KB", "--workers", "2")  # audits in processes
    try:
        data = b"".join(d for _, d in sessions[:20])
        status, _, body = server.request("POST", "/api/v1/uploads", data, {"Content-Type": "text/plain"})
        assert status == 413 and b"64 KB" not in body and b"65,536 bytes" in body
        status, _, body = server.request("POST", "/api/v1/uploads", sessions[0][1], {"Content-Type": "text/plain"})
        assert status == 200 and b'"stored"' in body
        out = subprocess.run([AUDIT, "ingest", str(CASES), "--db", str(server.db)], capture_output=True, text=True)
        assert out.returncode == 2 and "in use by another program" in out.stderr and "Traceback" not in out.stderr
    finally:
        assert server.stop() == 0
