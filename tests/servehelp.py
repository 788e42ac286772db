"""Helpers for the tests of ``audit serve``: a real server process on a free loopback port, plain HTTP requests
to it, multipart bodies, and the checks that a database holds only whole logs."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import duckdb

from audit.serve.db import stored_bytes
from audit.store.schema import SCHEMA
from conftest import AUDIT
from test_store import check_whole_files

START_SECONDS = 60


class LiveServer:
    """``audit serve --port 0`` as a child process; ``url`` once it prints where it listens."""

    def __init__(self, db: Path, *args: str, log: Path | None = None) -> None:
        self.db = db
        self.log = log or db.with_suffix(".serve.log")
        self.out = db.with_suffix(".serve.out")
        with open(self.out, "w") as out, open(self.log, "w") as err:
            self.proc = subprocess.Popen([AUDIT, "serve", "--db", str(db), "--port", "0", *args], stdout=out,
                                         stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + START_SECONDS
        self.port = 0
        while time.monotonic() < deadline:
            text = self.out.read_text()
            if "http://" in text:
                self.port = int(text.split("http://127.0.0.1:")[1].split("/")[0])
                break
            if self.proc.poll() is not None:
                raise AssertionError(f"audit serve exited {self.proc.returncode}: {self.log.read_text()}")
            time.sleep(0.05)
        else:
            self.proc.kill()
            raise AssertionError(f"audit serve did not start in {START_SECONDS} s: {self.log.read_text()}")
        self.origin = f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
                timeout: float = 120) -> tuple[int, dict[str, str], bytes]:
        """One request on a fresh connection: status, headers (lower-case names), body."""
        con = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            con.request(method, path, body=body, headers=headers or {})
            response = con.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            con.close()

    def json(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        status, _, data = self.request(method, path, body, headers)
        assert status == 200, (status, data[:500])
        return json.loads(data)

    def upload(self, files: list[tuple[str, bytes]], token: str | None = None) -> list[dict[str, Any]]:
        """Upload logs as multipart/form-data; the ``uploads`` of the answer."""
        body, ctype = multipart(files)
        headers = {"Content-Type": ctype, **({"Authorization": f"Bearer {token}"} if token else {})}
        result: list[dict[str, Any]] = self.json("POST", "/api/v1/uploads", body, headers)["uploads"]
        return result

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Send ``sig`` and wait for the process to end; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)


def multipart(files: list[tuple[str, bytes]], fields: dict[str, str] | None = None) -> tuple[bytes, str]:
    """A multipart/form-data body with each log as a ``file`` field; its bytes and Content-Type."""
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value in (fields or {}).items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, data in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                     f"Content-Type: text/plain\r\n\r\n".encode() + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def rows(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params or []).fetchall()


def counts(db: Path) -> dict[str, int]:
    """Rows per table of the store."""
    return {table: int(rows(db, f"SELECT count(*) FROM {table}")[0][0]) for table in SCHEMA}


def check_chains(db: Path) -> None:
    """Every club's chain holds, link by link, and every stored log has its link (``audit verify``)."""
    from audit.trust.verify import verify_database

    report = verify_database(str(db))
    assert not report.breaks, [b.line() for b in report.breaks[:5]]
    linked = rows(db, "SELECT count(*) FROM chain_links WHERE kind IN ('upload', 'file')")[0][0]
    assert linked == rows(db, "SELECT count(*) FROM files")[0][0]


def check_whole(db: Path) -> None:
    """Only whole logs (``test_store.check_whole_files``), every upload points at a stored log and keeps its
    bytes, and every chain is whole: each upload and entry has its link, as ``audit verify`` walks them."""
    check_whole_files(db)
    check_chains(db)
    assert rows(db, "SELECT count(*) FROM uploads WHERE file_sha NOT IN (SELECT file_sha FROM files)") == [(0,)]
    with duckdb.connect(str(db), read_only=True) as con:
        for club, sha256, size in con.execute("SELECT club, sha256, size FROM uploads").fetchall():
            data = stored_bytes(con, club, sha256)
            assert data is not None and len(data) == size and hashlib.sha256(data).hexdigest() == sha256, (club, sha256)


Club = tuple[LiveServer, dict[str, str]]
"""A real service with one club's token: the server and the headers its JSON requests carry."""


def start_club(db: Path, club: str = "north") -> Club:
    """A service on ``db`` (created here) with a token of ``club``; stop it with ``club[0].stop()``."""
    from audit.serve.db import ServiceDB
    from audit.serve.tokens import add_token

    service_db = ServiceDB(str(db))
    token = add_token(service_db.con, club)[1]
    service_db.close()
    return LiveServer(db), {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


def api_call(club: Club, method: str, path: str, body: Any = None, want: int = 200) -> Any:
    """``method path`` with ``body`` as JSON; asserts the status ``want`` and answers the JSON."""
    server, headers = club
    status, _, raw = server.request(method, path, None if body is None else json.dumps(body).encode(), headers)
    assert status == want, (status, raw[:300])
    return json.loads(raw)
