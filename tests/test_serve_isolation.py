"""Clubs kept apart by a real ``audit serve`` process (issue 26): no key of a row set is reachable from content a
client chooses, one club's uploads never change what another's stores, a duplicate of another club's bytes is
answered as a new upload, the name ``local`` is reserved, report parameters out of range are refused with a
reason, hand ids may hold ``/``, a database whose service tables are not ours is refused, the database is
private. One server for the module; every request goes to 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import duckdb
import pytest

from audit.serve.db import ServiceDB, upload_key
from audit.serve.tokens import add_token, token_hash
from conftest import AUDIT, FIXTURES
from servehelp import LiveServer, check_whole, rows

DEMO = FIXTURES / "demo"
CLUBS = ("north", "south", "east", "west")
LOCAL_TOKENS = {"local": "audit_" + "L" * 43, "LOCAL": "audit_" + "M" * 43}
"""Tokens of clubs named local, as an earlier audit let `audit token add` make them."""


def without_profile(path: Path) -> bytes:
    """A demo log with its Profile: line taken out, so the profile asked for with the upload applies."""
    return b"".join(line for line in path.read_bytes().splitlines(keepends=True)
                    if not line.startswith(b"Profile:"))


@dataclass
class Served:
    server: LiveServer
    db: Path
    tokens: dict[str, str]
    ingested: Path
    stored: set[tuple[str, str]] = field(default_factory=set)  # (club, sha256) of every upload answered "stored"

    def call(self, club: str, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        token = self.tokens.get(club) or LOCAL_TOKENS[club]
        return self.server.request(method, path, body, {"Authorization": f"Bearer {token}", **(headers or {})})

    def get(self, club: str, path: str) -> Any:
        status, _, data = self.call(club, "GET", path)
        assert status == 200, (status, data[:300])
        return json.loads(data)

    def upload(self, club: str, data: bytes, name: str, profile: str | None = None) -> dict[str, Any]:
        query = f"?name={name}" + (f"&profile={profile}" if profile else "")
        status, _, answer = self.call(club, "POST", "/api/v1/uploads" + query, data, {"Content-Type": "text/plain"})
        assert status == 200, (status, answer[:300])
        (result,) = json.loads(answer)["uploads"]
        if result["status"] == "stored":
            self.stored.add((club, result["sha256"]))
        return dict(result)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("isolation")
    db = folder / "clubs.duckdb"
    first = subprocess.run([AUDIT, "token", "add", CLUBS[0], "--db", str(db)], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    tokens = {CLUBS[0]: first.stdout.strip()}
    ingested = folder / "ingested.txt"  # a log of this machine's user: only club local may see it
    ingested.write_bytes((DEMO / "qdan-redeal.txt").read_bytes())
    run = subprocess.run([AUDIT, "ingest", str(ingested), "--db", str(db)], capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    service_db = ServiceDB(str(db))
    tokens.update({club: add_token(service_db.con, club)[1] for club in CLUBS[1:]})
    for club, token in LOCAL_TOKENS.items():  # planted: the service must refuse them
        service_db.con.execute("INSERT INTO tokens VALUES (?, ?, ?, now()::TIMESTAMP)",
                               [f"tok_{club}", club, token_hash(token)])
    service_db.close()
    server = LiveServer(db)
    try:
        yield Served(server, db, tokens, ingested)
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------- points 1 and 2
def test_the_text_of_a_derived_key_reaches_no_other_clubs_rows(served: Served) -> None:
    """North stores a log under qdan, south the same bytes under home-open; east uploads the 74 bytes an earlier
    audit keyed south's rows by, and must get nothing of them: no hands, players, table or findings."""
    log = without_profile(DEMO / "home-session.txt")
    sha = hashlib.sha256(log).hexdigest()
    assert served.upload("north", log, "norte.txt", "qdan")["status"] == "stored"
    south = served.upload("south", log, "norte.txt")
    assert south["status"] == "stored" and south["hands"] == 5
    text = f"{sha} home-open".encode()
    east = served.upload("east", text, "key.txt")
    assert east["hands"] == 0, east
    seen = [json.dumps(served.get("east", "/api/v1/uploads"), ensure_ascii=False)]
    if east["status"] == "stored":
        seen.append(json.dumps(served.get("east", f"/api/v1/uploads/{east['sha256']}/findings"), ensure_ascii=False))
    for report in ("sessions", "violations-by-player", "files", "disputed-hands"):
        seen.append(json.dumps(served.get("east", f"/api/v1/reports/{report}"), ensure_ascii=False))
    everything = "\n".join(seen)
    for word in ("Club Norte", "Fermín", "Yoli", "美咲", "home-1-002", "norte.txt"):
        assert word not in everything, word
    status, _, _ = served.call("east", "GET", f"/api/v1/uploads/{sha}/findings")
    assert status == 404


def test_one_clubs_uploads_never_change_what_another_clubs_upload_stores(served: Served) -> None:
    """West stores a log under a rare profile, then the text of the key an earlier audit gave the log's rows for
    home-open; south's later home-open upload of the log is stored with all its hands and its own findings."""
    log = without_profile(DEMO / "home-session-odd-chip-dispute.txt")
    sha = hashlib.sha256(log).hexdigest()
    assert served.upload("west", log, "w.txt", "stripped32")["status"] == "stored"
    served.upload("west", f"{sha} home-open".encode(), "key.txt")
    south = served.upload("south", log, "s.txt")
    assert (south["status"], south["hands"], south["errors"]) == ("stored", 10, 0), south
    status, _, checked = served.call("south", "POST", "/api/v1/check?name=s.txt", log, {"Content-Type": "text/plain"})
    assert status == 200
    stored = served.get("south", f"/api/v1/uploads/{sha}/findings")
    assert [(f["rule"], f["hand"], f["line"]) for f in stored] == \
        [(f["rule"], f["hand"], f["line"]) for f in json.loads(checked)["findings"]]
    assert south["violations"] == sum(f["severity"] == "violation" for f in stored) > 0


# ---------------------------------------------------------------------------------------------- point 10
def test_bytes_another_club_stored_are_a_new_upload_with_the_clubs_own_time(served: Served) -> None:
    """South's upload of bytes north stored is audited and stored as any new upload (its own rows: checked
    after the stop), and south's `files` report shows south's time, not north's."""
    log = (DEMO / "reopen-dispute.txt").read_bytes()
    north = served.upload("north", log, "n.txt")
    time.sleep(1.1)  # the times are kept to the second: south's must differ from north's
    south = served.upload("south", log, "s.txt")
    assert south["status"] == north["status"] == "stored"
    assert {k: v for k, v in south.items() if k != "name"} == {k: v for k, v in north.items() if k != "name"}
    (mine,) = [u for u in served.get("south", "/api/v1/uploads") if u["sha256"] == south["sha256"]]
    (theirs,) = [u for u in served.get("north", "/api/v1/uploads") if u["sha256"] == north["sha256"]]
    assert mine["received_at"] != theirs["received_at"]
    (row,) = [r for r in served.get("south", "/api/v1/reports/files") if r["file_sha"] == south["sha256"]]
    assert row["path"] == "s.txt"
    assert row["ingested_at"].replace(" ", "T")[:19] == mine["received_at"][:19]


def test_a_hand_id_with_a_slash_opens_from_the_pages_and_the_api(served: Served) -> None:
    log = (DEMO / "reopen-dispute.txt").read_bytes().replace(b"Hand #E1b", b"Hand #E1/b")
    sha = served.upload("north", log, "slash.txt")["sha256"]
    cookie = {"Cookie": f"audit_token={served.tokens['north']}"}
    status, _, page = served.server.request("GET", f"/uploads/{sha}?lang=en", headers=cookie)
    assert status == 200
    link = f"/uploads/{sha}/hands/{quote('E1/b', safe='')}?lang=en"
    assert f'href="{link}"' in page.decode()
    status, _, hand = served.server.request("GET", link, headers=cookie)
    assert status == 200 and "E1/b" in hand.decode() and "Ana" in hand.decode()
    explained = served.get("north", f"/api/v1/uploads/{sha}/hands/E1%2Fb/explain?format=json")
    assert explained["hand"] == "E1/b"
    status, _, _ = served.call("north", "GET", f"/api/v1/uploads/{sha}/hands/E1%2Fx/explain?format=json")
    assert status == 404


# ---------------------------------------------------------------------------------------------- point 9
@pytest.mark.parametrize("limit", ["-1", "2147483648", str(2 ** 63), "99999999999999999999999"])
def test_a_report_limit_out_of_range_is_refused_with_a_reason(served: Served, limit: str) -> None:
    status, _, body = served.call("north", "GET", f"/api/v1/reports/disputed-hands?limit={limit}")
    assert 400 <= status < 500, (status, body[:300])
    assert "limit" in body.decode() and "internal" not in body.decode()


def test_report_parameters_in_range_or_not(served: Served) -> None:
    assert served.get("north", "/api/v1/reports/disputed-hands?limit=0") == []
    assert len(served.get("north", "/api/v1/reports/disputed-hands?limit=2147483647")) >= 1
    for query, word in (("files?limit=3", "limit"), ("sessions?from_date=2026-02-30", "from_date"),
                        ("sessions?to_date=0000-01-01", "to_date"), ("disputed-hands?limit=1.5", "limit")):
        status, _, body = served.call("north", "GET", f"/api/v1/reports/{query}")
        assert 400 <= status < 500 and word in body.decode(), (query, status, body[:300])


# ---------------------------------------------------------------------------------------------- point 8
def test_a_club_named_local_is_refused_in_any_case(served: Served, tmp_path: Path) -> None:
    for name in ("local", "LoCaL"):
        run = subprocess.run([AUDIT, "token", "add", name, "--db", str(tmp_path / "t.duckdb")], capture_output=True,
                             text=True)
        assert run.returncode == 2 and run.stdout == "", run
        assert len(run.stderr.splitlines()) == 1 and "reserved" in run.stderr
    assert not (tmp_path / "t.duckdb").exists()  # refused before the database is opened
    for club in LOCAL_TOKENS:  # tokens an earlier audit made for such a club get nothing, not the ingested logs
        status, _, body = served.call(club, "GET", "/api/v1/uploads")
        assert status == 401, (club, status, body[:200])
    status, _, _ = served.server.request("GET", "/api/v1/uploads")
    assert status == 401  # tokens are defined: no request is club local
    assert all(u["name"] != str(served.ingested) for u in served.get("north", "/api/v1/uploads"))


# ---------------------------------------------------------------------------------------------- points 10, 11
@pytest.fixture(scope="module")
def store_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of `audit ingest` (one log), to copy."""
    db = tmp_path_factory.mktemp("store") / "store.duckdb"
    run = subprocess.run([AUDIT, "ingest", str(DEMO / "reopen-dispute.txt"), "--db", str(db)], capture_output=True)
    assert run.returncode in (0, 1)
    return db


@pytest.mark.parametrize(("ddl", "command"), [
    ("CREATE VIEW uploads AS SELECT 'north' AS club", ["serve", "--port", "0"]),
    ("CREATE VIEW upload_parts AS SELECT 'north' AS club, 'x' AS sha256, 0 AS seq, ''::BLOB AS part",
     ["serve", "--port", "0"]),
    ("CREATE VIEW tokens AS SELECT 'tok_1' AS token_id, 'north' AS club, 'x' AS token_hash, now() AS created_at",
     ["token", "list"]),
    ("CREATE TABLE tokens (token_id VARCHAR, club VARCHAR, token_hash VARCHAR, created_at TIMESTAMP, extra INTEGER)",
     ["upgrade"]),
    ("CREATE VIEW live_entries AS SELECT 'north' AS club, 't' AS table_id, 0 AS seq, '{}' AS entry",
     ["serve", "--port", "0"]),
    ("CREATE TABLE live_tables (club VARCHAR, table_id VARCHAR, config VARCHAR)", ["token", "list"]),
])
def test_a_database_whose_service_tables_are_not_ours_is_refused(store_db: Path, tmp_path: Path, ddl: str,
                                                                 command: list[str]) -> None:
    db = tmp_path / "hostile.duckdb"
    shutil.copyfile(store_db, db)
    with duckdb.connect(str(db)) as con:
        con.execute(ddl)
    try:
        run = subprocess.run([AUDIT, *command, "--db", str(db)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"audit {' '.join(command)} served a database whose service tables are not its own")
    assert run.returncode == 2, (command, run.stdout, run.stderr)
    assert len(run.stderr.splitlines()) == 1 and "not written by 'audit serve'" in run.stderr, run.stderr


def test_the_tables_the_service_creates_are_the_ones_it_checks(store_db: Path, tmp_path: Path) -> None:
    """One definition (``audit.serve.schema``): the tables made in a database of ``audit ingest`` are, in DuckDB's
    catalogue, exactly the columns a database is checked against, with their keys."""
    from audit.serve.schema import SERVICE_COLUMNS

    db = tmp_path / "made.duckdb"
    shutil.copyfile(store_db, db)
    ServiceDB(str(db)).close()
    with duckdb.connect(str(db), read_only=True) as con:
        made = {name: [(c, t) for c, t in con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index",
            [name]).fetchall()] for name in SERVICE_COLUMNS}
        keys = dict(con.execute("SELECT table_name, constraint_column_names FROM duckdb_constraints() "
                                "WHERE constraint_type = 'PRIMARY KEY' AND table_name IN ('uploads', 'tokens', "
                                "'live_tables', 'live_entries')").fetchall())
        nullable = con.execute("SELECT count(*) FROM duckdb_columns() WHERE is_nullable AND table_name IN "
                               "(SELECT unnest(?))", [list(SERVICE_COLUMNS)]).fetchall()
    assert made == SERVICE_COLUMNS
    assert keys == {"uploads": ["club", "sha256"], "tokens": ["token_id"], "live_tables": ["club", "table_id"],
                    "live_entries": ["club", "table_id", "seq"]}
    assert nullable == [(0,)]


def test_the_database_and_its_wal_are_private_and_an_existing_mode_is_kept(served: Served, store_db: Path,
                                                                           tmp_path: Path) -> None:
    assert stat.S_IMODE(served.db.stat().st_mode) == 0o600  # made by `audit token add`
    wal = Path(f"{served.db}.wal")
    assert wal.exists() and stat.S_IMODE(wal.stat().st_mode) == 0o600  # the uploads above went into it
    existing = tmp_path / "shared.duckdb"
    shutil.copyfile(store_db, existing)
    os.chmod(existing, 0o640)
    assert subprocess.run([AUDIT, "token", "add", "north", "--db", str(existing)], capture_output=True).returncode == 0
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640


# ---------------------------------------------------------------------------------------------- last: the rows
def test_after_the_stop_every_upload_holds_rows_of_its_own(served: Served) -> None:
    assert served.server.stop() == 0
    db = served.db
    check_whole(db)
    uploads = rows(db, "SELECT club, sha256, file_sha, wrote_rows FROM uploads ORDER BY club, sha256")
    # every upload answered "stored", and only those (a text that is no hand history is refused, not stored)
    assert {(club, sha) for club, sha, _, _ in uploads} == served.stored and len(uploads) >= 7
    assert all(key == upload_key(club, sha) and wrote for club, sha, key, wrote in uploads)
    assert rows(db, "SELECT count(*) FROM uploads u JOIN files f USING (file_sha)") == [(len(uploads),)]
    ingested = hashlib.sha256(served.ingested.read_bytes()).hexdigest()
    assert rows(db, "SELECT file_sha FROM files WHERE NOT starts_with(file_sha, 'u')") == [(ingested,)]
    assert "Traceback" not in served.server.log.read_text()


# ---------------------------------------------------------------------------------------------- the migration
def test_upgrade_gives_every_upload_of_an_earlier_audit_rows_of_its_own(tmp_path: Path) -> None:
    """An earlier audit shared rows: south's upload used north's rows, east's (another profile) was keyed by the
    hash of "<sha256> qdan", west's used the rows of a log `audit ingest` stored. `audit upgrade` copies each
    upload's rows under its own key and deletes the rows only uploads held; the ingested log stays club local's."""
    from audit.serve.db import audit_upload
    from audit.store.db import Store
    from audit.store.schema import SCHEMA

    db = tmp_path / "legacy.duckdb"
    log, ingested = without_profile(DEMO / "home-session.txt"), (DEMO / "reopen-dispute.txt").read_bytes()
    sha, sha_ingested = hashlib.sha256(log).hexdigest(), hashlib.sha256(ingested).hexdigest()
    derived = hashlib.sha256(f"{sha} qdan".encode()).hexdigest()
    service_db = ServiceDB(str(db))
    con = service_db.con
    Store(con, str(db), False).write_file(audit_upload(ingested, "/logs/reopen.txt", "home-open", sha_ingested))
    legacy = [("north", log, "home-open", sha, True), ("south", log, "home-open", sha, False),
              ("east", log, "qdan", derived, True), ("west", ingested, "home-open", sha_ingested, False)]
    for club, data, profile, key, wrote in legacy:
        con.execute("BEGIN TRANSACTION")
        if wrote:
            Store(con, str(db), False).append_file(audit_upload(data, f"{club}.txt", profile, key))
        hands = con.execute("SELECT hands FROM files WHERE file_sha = ?", [key]).fetchall()[0][0]
        con.execute("INSERT INTO uploads VALUES (?, ?, ?, ?, now()::TIMESTAMP, ?, ?, ?, ?, 0, 0, 0, ?)",
                    [club, hashlib.sha256(data).hexdigest(), f"{club}.txt", len(data), profile, key, wrote, hands,
                     data])
        con.execute("COMMIT")
    service_db.con.execute("DROP TABLE chain_links")  # an earlier audit kept no chain
    service_db.close()

    run = subprocess.run([AUDIT, "upgrade", "--db", str(db)], capture_output=True, text=True)
    assert run.returncode == 0 and "4 uploads" in run.stdout, (run.stdout, run.stderr)
    check_whole(db)
    keys = rows(db, "SELECT club, sha256, file_sha, wrote_rows FROM uploads ORDER BY club")
    assert [(c, k, w) for c, _, k, w in keys] == [(c, upload_key(c, s), True) for c, s, _, _ in keys]
    assert rows(db, "SELECT file_sha FROM files WHERE NOT starts_with(file_sha, 'u')") == [(sha_ingested,)]
    for club, data, profile, _, _ in legacy:
        key = upload_key(club, hashlib.sha256(data).hexdigest())
        fresh = audit_upload(data, f"{club}.txt", profile, key)
        for table in SCHEMA:
            if table == "files":
                assert rows(db, "SELECT path, default_profile, hands FROM files WHERE file_sha = ?", [key]) == \
                    [(f"{club}.txt", profile, fresh.hands)]
                continue
            keyed = "hand_key" if table != "findings" else "seq"
            assert sorted(r[0] for r in rows(db, f"SELECT {keyed} FROM {table} WHERE file_sha = ?", [key])) == \
                sorted(fresh.tables[table].column(keyed).to_pylist()), (club, table)
    service_db = ServiceDB(str(db))
    try:
        assert service_db.migrated == 0
        assert [(u.sha256, u.uploaded) for u in service_db.uploads("local")] == [(sha_ingested, False)]
    finally:
        service_db.close()
    again = subprocess.run([AUDIT, "upgrade", "--db", str(db)], capture_output=True, text=True)
    assert again.returncode == 0 and "uploads" not in again.stdout
