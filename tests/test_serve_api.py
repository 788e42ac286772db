"""``audit serve`` in process (FastAPI's TestClient): every route, clubs and tokens, limits and bad input, the
pages' forms and sign-in. The same service against a real server process: ``test_serve_live.py``."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from audit.cli import main
from audit.serve.app import create_app
from audit.serve.db import ServiceDB
from audit.serve.service import Settings
from audit.serve.tokens import add_token, token_hash
from conftest import AUDIT, FIXTURES
from servehelp import multipart

ODD_CHIP = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"
REOPEN = FIXTURES / "demo" / "reopen-dispute.txt"
QDAN = FIXTURES / "demo" / "qdan-redeal.txt"
HOME = "http://127.0.0.1:8000"
LOOPBACK = ("127.0.0.1", 50123)


def client_for(db: Path, client: tuple[str, int] = LOOPBACK, base_url: str = HOME, **settings: Any) -> TestClient:
    return TestClient(create_app(Settings(db=str(db), **settings)), base_url=base_url, client=client)


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "serve.duckdb"


@pytest.fixture()
def local(db: Path) -> Iterator[TestClient]:
    """The service with no token defined, asked from this machine (club local)."""
    with client_for(db) as c:
        yield c


@pytest.fixture()
def clubs(db: Path) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """The service with two clubs' tokens; the tokens by club."""
    service_db = ServiceDB(str(db))
    tokens = {club: add_token(service_db.con, club)[1] for club in ("north", "south")}
    service_db.close()
    with client_for(db) as c:
        yield c, tokens


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def raw(c: TestClient, data: bytes, name: str | None = None, headers: dict[str, str] | None = None,
        path: str = "/api/v1/uploads", **params: str) -> Any:
    query = {**({"name": name} if name else {}), **params}
    return c.post(path, params=query, content=data, headers={"Content-Type": "text/plain", **(headers or {})})


def db_counts(c: TestClient) -> dict[str, int]:
    cur = c.app.state.service.db.cursor()  # type: ignore[attr-defined]
    tables = ["files", "hands", "findings", "uploads"]
    return {t: int(cur.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]) for t in tables}


# ---------------------------------------------------------------------------------------------- uploads
def test_healthz(local: TestClient) -> None:
    r = local.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_an_upload_as_raw_text_then_as_a_form_is_stored_once(local: TestClient) -> None:
    data = ODD_CHIP.read_bytes()
    r = raw(local, data, "odd.txt")
    assert r.status_code == 200
    assert r.json() == {"uploads": [{"name": "odd.txt", "sha256": hashlib.sha256(data).hexdigest(), "status": "stored",
                                     "hands": 10, "violations": 3, "warnings": 0, "errors": 0, "message": None}]}
    before = db_counts(local)
    r = local.post("/api/v1/uploads", files=[("file", ("again.txt", data)), ("file", ("reopen.txt", REOPEN.read_bytes()))])
    assert [(u["name"], u["status"]) for u in r.json()["uploads"]] == [("again.txt", "duplicate"),
                                                                       ("reopen.txt", "stored")]
    after = db_counts(local)
    assert after["files"] == before["files"] + 1 and after["uploads"] == before["uploads"] + 1
    assert after["hands"] == before["hands"] + 1
    listed = local.get("/api/v1/uploads").json()
    assert sorted(u["name"] for u in listed) == ["odd.txt", "reopen.txt"]
    assert {u["profile"] for u in listed} == {"home-open"}


@pytest.mark.parametrize("body,why", [
    (b"\x00\x01\x02" * 100, "not a text file"),
    ("Hand #1 - 2026/01/01\n".encode("utf-16-le"), "UTF-16"),
    (b"Session: x\n\xff\xfe\xfa broken\n", "not valid utf-8"),
    (b"Hand #1 " + b"x" * 200_000 + b"\n", "line"),
    (b"", "empty"),
])
def test_unreadable_logs_are_said_so_and_nothing_is_stored(local: TestClient, body: bytes, why: str) -> None:
    r = raw(local, body, "bad.txt")
    assert r.status_code == 200
    (only,) = r.json()["uploads"]
    assert only["status"] == "unreadable" and why in only["message"], only
    assert only["message"].startswith("bad.txt")
    assert db_counts(local) == {"files": 0, "hands": 0, "findings": 0, "uploads": 0}


def test_a_log_cut_off_mid_hand_is_stored_whole_with_its_finding(local: TestClient) -> None:
    text = ODD_CHIP.read_text(encoding="utf-8")
    cut = text[: text.index("Маша collected 14")] + "Маша coll"
    (only,) = raw(local, cut.encode(), "cut.txt").json()["uploads"]
    assert only["status"] == "stored" and only["errors"] == 1
    rules = [f["rule"] for f in local.get(f"/api/v1/uploads/{only['sha256']}/findings").json()]
    assert rules == ["PARSE_ERROR"]


def test_a_utf16_log_with_a_byte_order_mark_is_read(local: TestClient) -> None:
    data = "\ufeff".encode("utf-16-le") + REOPEN.read_text(encoding="utf-8").encode("utf-16-le")
    (only,) = raw(local, data, "utf16.txt").json()["uploads"]
    assert only["status"] == "stored" and only["hands"] == 1 and only["violations"] == 1


def test_requests_that_are_not_uploads_get_400_or_415_with_a_detail(local: TestClient) -> None:
    r = local.post("/api/v1/uploads", content=b"{}", headers={"Content-Type": "application/json"})
    assert r.status_code == 415 and "text/plain" in r.json()["detail"]
    r = local.post("/api/v1/uploads", content=b"x")
    assert r.status_code == 415
    body, ctype = multipart([], {"profile": "qdan"})
    r = local.post("/api/v1/uploads", content=body, headers={"Content-Type": ctype})
    assert r.status_code == 400 and "'file'" in r.json()["detail"]
    r = local.post("/api/v1/uploads", content=b"--x\r\nbroken", headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert r.status_code == 400 and "detail" in r.json()
    r = local.post("/api/v1/uploads", content=b"--x--", headers={"Content-Type": "multipart/form-data"})
    assert r.status_code == 400
    r = raw(local, REOPEN.read_bytes(), profile="../../etc/passwd")
    assert r.status_code == 400 and "unknown profile" in r.json()["detail"]
    assert db_counts(local)["uploads"] == 0


def test_a_body_over_the_limit_is_413_before_or_while_it_is_read(db: Path) -> None:
    with client_for(db, max_upload=4096) as c:
        r = raw(c, b"x" * 5000)
        assert r.status_code == 413 and "4,096 bytes" in r.json()["detail"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: the guard counts what arrives
            for _ in range(10):
                yield b"y" * 1000
        r = c.post("/api/v1/uploads", content=chunks(), headers={"Content-Type": "text/plain"})
        assert r.status_code == 413
        body, ctype = multipart([("big.txt", b"z" * 5000)])
        r = c.post("/api/v1/uploads", content=body, headers={"Content-Type": ctype})
        assert r.status_code == 413
        page = c.post("/", content=body, headers={"Content-Type": ctype, "Accept": "text/html"})
        assert page.status_code == 413 and "4,096 bytes" in page.text
        assert raw(c, REOPEN.read_bytes()[:4000]).status_code == 200
        assert db_counts(c)["uploads"] == 1


def test_a_profile_for_logs_without_one(local: TestClient) -> None:
    body, ctype = multipart([("q.txt", b"".join(QDAN.read_bytes().split(b"Profile: qdan\n")))], {"profile": "qdan"})
    (only,) = local.post("/api/v1/uploads", content=body, headers={"Content-Type": ctype}).json()["uploads"]
    assert only["status"] == "stored"
    assert local.get("/api/v1/uploads").json()[0]["profile"] == "qdan"


def test_the_same_bytes_under_another_profile_get_rows_of_their_own(db: Path) -> None:
    service_db = ServiceDB(str(db))
    tokens = {club: add_token(service_db.con, club)[1] for club in ("a", "b")}
    service_db.close()
    data = REOPEN.read_bytes()
    with client_for(db) as c:
        assert raw(c, data, "r.txt", bearer(tokens["a"])).json()["uploads"][0]["status"] == "stored"
        assert raw(c, data, "r.txt", bearer(tokens["b"]), profile="site").status_code == 200
        cur = c.app.state.service.db.cursor()  # type: ignore[attr-defined]
        stored = cur.execute("SELECT default_profile FROM files ORDER BY 1").fetchall()
        assert stored == [("home-open",), ("site",)]


def test_two_uploads_of_the_same_new_bytes_planned_at_once(db: Path) -> None:
    """Both audited as new (the plans ran before either was written): each club's upload gets rows of its own;
    the same club's second is a duplicate; nothing is stored twice for one club."""
    from audit.serve.db import UploadWrite, audit_upload, upload_key, write_upload

    service_db = ServiceDB(str(db))
    cur = service_db.new_cursor()
    data = ODD_CHIP.read_bytes()
    sha = hashlib.sha256(data).hexdigest()

    def job(club: str) -> UploadWrite:
        key = upload_key(club, sha)
        rows = audit_upload(data, "x.txt", "home-open", key)
        return UploadWrite(club, f"{club}.txt", sha, data, "home-open", key, rows)

    outcomes = [write_upload(cur, job(club)) for club in ("north", "south", "north")]
    assert [o.status for o in outcomes] == ["stored", "stored", "duplicate"]
    assert {(o.hands, o.violations) for o in outcomes} == {(10, 3)}
    assert cur.execute("SELECT club, file_sha, wrote_rows FROM uploads ORDER BY club").fetchall() == [
        ("north", upload_key("north", sha), True), ("south", upload_key("south", sha), True)]
    assert cur.execute("SELECT count(*) FROM files").fetchall() == [(2,)]
    assert cur.execute("SELECT count(*) FROM hands").fetchall() == [(20,)]
    service_db.close()


def test_reads_never_wait_for_a_write(local: TestClient) -> None:
    import threading
    import time

    (only,) = raw(local, ODD_CHIP.read_bytes(), "odd.txt").json()["uploads"]
    service = local.app.state.service  # type: ignore[attr-defined]
    in_transaction = threading.Event()

    def long_write(cur: Any) -> None:  # the writer holds a transaction open for a second
        cur.execute("BEGIN TRANSACTION")
        cur.execute("UPDATE uploads SET name = 'renamed.txt'")
        in_transaction.set()
        time.sleep(1.0)
        cur.execute("ROLLBACK")

    pending = service._writer.submit(long_write)
    assert in_transaction.wait(10)
    started = time.monotonic()
    listed = local.get("/api/v1/uploads").json()
    found = local.get(f"/api/v1/uploads/{only['sha256']}/findings").json()
    assert time.monotonic() - started < 0.5 and not pending.done()
    assert [u["name"] for u in listed] == ["odd.txt"] and len(found) == 3
    pending.result(10)


# ---------------------------------------------------------------------------------------------- reads
def check_json(path: Path) -> list[dict[str, Any]]:
    out = subprocess.run([AUDIT, "check", str(path), "--format", "json"], capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_findings_are_those_of_audit_check(local: TestClient) -> None:
    (only,) = raw(local, ODD_CHIP.read_bytes(), "odd.txt").json()["uploads"]
    got = local.get(f"/api/v1/uploads/{only['sha256']}/findings").json()
    want = [{**f, "file": "odd.txt"} for f in check_json(ODD_CHIP)]
    assert got == want and len(got) == 3


def test_check_answers_the_findings_and_stores_nothing(local: TestClient) -> None:
    before = db_counts(local)
    r = raw(local, ODD_CHIP.read_bytes(), "odd.txt", path="/api/v1/check")
    assert r.json() == {"findings": [{**f, "file": "odd.txt"} for f in check_json(ODD_CHIP)], "unreadable": []}
    body, ctype = multipart([("a.txt", REOPEN.read_bytes()), ("b.txt", b"\x00\x00")])
    r = local.post("/api/v1/check", content=body, headers={"Content-Type": ctype})
    assert [f["rule"] for f in r.json()["findings"]] == ["RAISE_NOT_REOPENED"]
    assert r.json()["unreadable"] == [{"name": "b.txt", "message": "b.txt: this is not a text file (it holds binary data)"}]
    assert db_counts(local) == before


def test_explain_gives_what_audit_explain_gives(local: TestClient, tmp_path: Path) -> None:
    (only,) = raw(local, ODD_CHIP.read_bytes(), "odd.txt").json()["uploads"]
    base = f"/api/v1/uploads/{only['sha256']}/hands"
    obj = local.get(f"{base}/387708/explain?format=json").json()
    (tmp_path / "odd.txt").write_bytes(ODD_CHIP.read_bytes())
    cli = subprocess.run([AUDIT, "explain", "odd.txt", "--hand", "387708", "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path)
    sealed = obj.pop("receipt")
    given = json.loads(cli.stdout)
    assert obj == {k: v for k, v in given.items() if k != "receipt"}
    # the service's receipt is the command's, sealed: the upload's link in the club's chain, and its signature
    assert {k: v for k, v in sealed.items() if k not in ("chain", "signature")} == given["receipt"]
    assert sealed["chain"]["club"] == "local" and sealed["signature"]
    assert obj["verdict"]["sentences"] == ["Маша owes O'Neil 1 chip."]
    page = local.get(f"{base}/387708/explain?format=html&lang=es")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Маша debía 1 ficha a O&#39;Neil; se corrigió en la mesa" in page.text  # the table corrected it
    policy = page.headers["content-security-policy"]
    assert "script-src 'sha256-" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "default-src 'none'" in policy
    assert local.get(f"{base}/999/explain").status_code == 404
    assert local.get(f"{base}/387708/explain?lang=fr").status_code == 422
    assert local.get(f"/api/v1/uploads/{'0' * 64}/hands/387708/explain").status_code == 404
    assert local.get("/api/v1/uploads/not-a-hash/findings").status_code == 404


def test_reports_run_over_the_clubs_own_logs(clubs: tuple[TestClient, dict[str, str]]) -> None:
    c, tokens = clubs
    raw(c, ODD_CHIP.read_bytes(), "north-odd.txt", bearer(tokens["north"]))
    raw(c, REOPEN.read_bytes(), "south-reopen.txt", bearer(tokens["south"]))
    raw(c, ODD_CHIP.read_bytes(), "south-odd.txt", bearer(tokens["south"]))
    listed = c.get("/api/v1/reports", headers=bearer(tokens["north"])).json()
    assert {"files", "violations-by-rule"} <= {r["name"] for r in listed}
    north = c.get("/api/v1/reports/files", headers=bearer(tokens["north"])).json()
    assert [r["path"] for r in north] == ["north-odd.txt"]
    south = c.get("/api/v1/reports/files?format=csv", headers=bearer(tokens["south"]))
    assert south.headers["content-type"].startswith("text/csv")
    lines = south.text.splitlines()
    assert lines[0].startswith("path,") and sorted(line.split(",")[0] for line in lines[1:]) == ["south-odd.txt",
                                                                                                 "south-reopen.txt"]
    rules = {r["rule"] for r in c.get("/api/v1/reports/violations-by-rule", headers=bearer(tokens["north"])).json()}
    assert rules == {"ODD_CHIP", "STACK_CONTINUITY"}
    disputed = c.get("/api/v1/reports/disputed-hands", headers=bearer(tokens["north"])).json()
    assert {r["file"] for r in disputed} == {"north-odd.txt"}
    assert c.get("/api/v1/reports/nope", headers=bearer(tokens["north"])).status_code == 404
    # the analyst views a report reads hold the club's rows only, and reports take audit report's parameters
    south_hands = c.get("/api/v1/reports/disputed-hands?limit=1", headers=bearer(tokens["south"])).json()
    assert len(south_hands) == 1 and south_hands[0]["file"] in ("south-odd.txt", "south-reopen.txt")
    assert c.get("/api/v1/reports/disputed-hands?from_date=2999-01-01", headers=bearer(tokens["south"])).json() == []
    listed_params = {r["name"]: [p["name"] for p in r["params"]] for r in listed}
    assert "limit" in listed_params["disputed-hands"] and "from_date" in listed_params["violations-by-rule"]
    bad = c.get("/api/v1/reports/disputed-hands?from_date=yesterday", headers=bearer(tokens["north"]))
    assert bad.status_code == 400 and "YYYY-MM-DD" in bad.json()["detail"]
    assert c.get("/api/v1/reports/files?limit=3", headers=bearer(tokens["north"])).status_code == 400


def test_every_analyst_view_holds_the_clubs_rows_only(clubs: tuple[TestClient, dict[str, str]]) -> None:
    from audit.store.schema import VIEWS

    c, tokens = clubs
    raw(c, ODD_CHIP.read_bytes(), "north-odd.txt", bearer(tokens["north"]))
    raw(c, REOPEN.read_bytes(), "south-reopen.txt", bearer(tokens["south"]))
    db = c.app.state.service.db  # type: ignore[attr-defined]
    seen: dict[str, set[str]] = {"north": set(), "south": set()}
    for view in VIEWS:
        columns = {n for (n,) in db.cursor().execute(f"SELECT column_name FROM duckdb_columns() WHERE table_name = "
                                                     f"'{view}'").fetchall()}
        if "file_sha" not in columns:
            continue  # streets: the vocabulary, nobody's rows
        for club in seen:
            shas = {r.as_py() for r in db.report(club, f"SELECT DISTINCT file_sha FROM {view}", {})["file_sha"]}
            files = {u.sha256 for u in db.uploads(club)}  # a club sees its logs keyed by their bytes
            assert shas and shas <= files, (club, view)
            seen[club] |= shas
    assert seen["north"].isdisjoint(seen["south"])


# ---------------------------------------------------------------------------------------------- clubs and tokens
def test_with_a_token_defined_every_api_request_needs_one(clubs: tuple[TestClient, dict[str, str]]) -> None:
    c, tokens = clubs
    for method, path in [("GET", "/api/v1/uploads"), ("POST", "/api/v1/uploads"), ("POST", "/api/v1/check"),
                         ("GET", "/api/v1/reports"), ("GET", f"/api/v1/uploads/{'a' * 64}/findings")]:
        r = c.request(method, path, content=b"x", headers={"Content-Type": "text/plain"})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", path
        r = c.request(method, path, content=b"x", headers={"Content-Type": "text/plain", **bearer("audit_wrong")})
        assert r.status_code == 401, path
    assert c.get("/healthz").status_code == 200
    assert db_counts(c)["uploads"] == 0


def test_a_club_never_sees_another_clubs_upload(clubs: tuple[TestClient, dict[str, str]]) -> None:
    c, tokens = clubs
    north, south = bearer(tokens["north"]), bearer(tokens["south"])
    (mine,) = raw(c, ODD_CHIP.read_bytes(), "odd.txt", north).json()["uploads"]
    sha = mine["sha256"]
    assert c.get(f"/api/v1/uploads/{sha}/findings", headers=north).status_code == 200
    for path in [f"/api/v1/uploads/{sha}/findings", f"/api/v1/uploads/{sha}/hands/387708/explain",
                 f"/api/v1/uploads/{sha}/hands/387708/explain?format=json"]:
        r = c.get(path, headers=south)
        assert r.status_code == 404 and r.json() == {"detail": "no such upload"}, path
    assert c.get("/api/v1/uploads", headers=south).json() == []
    assert c.get("/api/v1/reports/files", headers=south).json() == []
    assert c.get("/api/v1/reports/violations-by-player", headers=south).json() == []
    # the same bytes uploaded by the other club are stored for it, under its own name
    (theirs,) = raw(c, ODD_CHIP.read_bytes(), "theirs.txt", south).json()["uploads"]
    assert theirs["status"] == "stored" and theirs["sha256"] == sha
    assert c.get(f"/api/v1/uploads/{sha}/findings", headers=south).json()[0]["file"] == "theirs.txt"
    assert c.get(f"/api/v1/uploads/{sha}/findings", headers=north).json()[0]["file"] == "odd.txt"
    assert [r["path"] for r in c.get("/api/v1/reports/files", headers=south).json()] == ["theirs.txt"]


def test_the_token_hash_never_leaves_the_database(clubs: tuple[TestClient, dict[str, str]]) -> None:
    c, tokens = clubs
    hashes = [token_hash(t) for t in tokens.values()]
    north = bearer(tokens["north"])
    (up,) = raw(c, ODD_CHIP.read_bytes(), "odd.txt", north).json()["uploads"]
    seen = [raw(c, REOPEN.read_bytes(), "r.txt", north).text, c.get("/api/v1/uploads", headers=north).text,
            c.get("/openapi.json").text, c.get(f"/api/v1/uploads/{up['sha256']}/findings", headers=north).text]
    seen += [c.get(f"/api/v1/reports/{r['name']}", headers=north).text
             for r in c.get("/api/v1/reports", headers=north).json()]
    c.cookies.set("audit_token", tokens["north"])
    seen += [c.get("/uploads").text]
    for text in seen:
        assert not any(h in text for h in hashes)
        assert tokens["south"] not in text
    cur = c.app.state.service.db.cursor()  # type: ignore[attr-defined]
    assert sorted(r[0] for r in cur.execute("SELECT token_hash FROM tokens").fetchall()) == sorted(hashes)
    everything = json.dumps(cur.execute("SELECT * FROM tokens").fetchall(), default=str)
    assert not any(t in everything for t in tokens.values())


def test_with_no_token_only_this_machine_is_answered(db: Path) -> None:
    with client_for(db, client=("192.0.2.7", 40000)) as stranger:
        assert stranger.get("/api/v1/uploads").status_code == 403
        assert raw(stranger, REOPEN.read_bytes()).status_code == 403
        page = stranger.get("/", headers={"Accept": "text/html"})
        assert page.status_code == 403 and "audit token add" in page.text
    with client_for(db, base_url="http://rebound.example:8000") as rebound:  # a DNS name pointing at 127.0.0.1
        assert rebound.get("/api/v1/uploads").status_code == 403
    with client_for(db) as here:
        assert raw(here, REOPEN.read_bytes()).json()["uploads"][0]["status"] == "stored"
        assert here.get("/api/v1/uploads").status_code == 200


def test_club_local_sees_the_logs_audit_ingest_stored(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "reopen.txt"
    copy.write_bytes(REOPEN.read_bytes())
    assert CliRunner().invoke(main, ["ingest", str(copy), "--db", str(db)]).exit_code == 0
    with client_for(db) as c:
        (listed,) = c.get("/api/v1/uploads").json()
        assert listed["name"] == str(copy) and listed["violations"] == 1
        sha = listed["sha256"]
        assert c.get(f"/api/v1/uploads/{sha}/findings").json()[0]["rule"] == "RAISE_NOT_REOPENED"
        assert "Ana" in c.get(f"/api/v1/uploads/{sha}/hands/E1b/explain").text
        assert raw(c, REOPEN.read_bytes()).json()["uploads"][0]["status"] == "duplicate"
        copy.write_text("changed")  # the file it came from changed: its hands cannot be shown any more
        assert c.get(f"/api/v1/uploads/{sha}/hands/E1b/explain").status_code == 404


def test_token_commands_print_the_token_once_and_keep_its_hash(db: Path) -> None:
    runner = CliRunner()
    added = runner.invoke(main, ["token", "add", "north", "--db", str(db)])
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()
    assert re.fullmatch(r"audit_[A-Za-z0-9_-]{43}", token)
    listed = runner.invoke(main, ["token", "list", "--db", str(db)])
    token_id = listed.output.split()[0]
    assert token_id.startswith("tok_") and "north" in listed.output
    assert token not in listed.output and token_hash(token) not in listed.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT club, token_hash FROM tokens").fetchall() == [("north", token_hash(token))]
    assert runner.invoke(main, ["token", "add", "bad name!", "--db", str(db)]).exit_code == 2
    assert runner.invoke(main, ["token", "revoke", "tok_nope", "--db", str(db)]).exit_code == 2
    revoked = runner.invoke(main, ["token", "revoke", token_id, "--db", str(db)])
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert "no tokens" in runner.invoke(main, ["token", "list", "--db", str(db)]).output


def test_serve_without_the_extra_says_how_to_install_it(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)
    result = CliRunner().invoke(main, ["serve", "--db", str(db)])
    assert result.exit_code == 2 and "pip install 'audit[serve]'" in result.output


def test_ingest_on_a_database_the_service_holds_says_so(local: TestClient, db: Path) -> None:
    out = subprocess.run([AUDIT, "ingest", str(REOPEN), "--db", str(db)], capture_output=True, text=True)
    assert out.returncode == 2
    assert "in use by another program" in out.stderr and "audit serve" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------------- pages
def test_the_pages_for_people(local: TestClient) -> None:
    home = local.get("/")
    assert home.status_code == 200 and '<form method="post" action="/?lang=en"' in home.text
    assert "<script" not in home.text and "http" not in home.text.split("<body>")[1]
    assert home.headers["content-security-policy"].startswith("default-src 'none'; style-src 'self'")
    assert home.headers["x-frame-options"] == "DENY" and home.headers["x-content-type-options"] == "nosniff"
    assert local.get("/?lang=es").text.count("Revisar y guardar") == 1
    assert local.get("/", headers={"Accept-Language": "es-ES,es;q=0.9"}).text.count("Revisar y guardar") == 1
    css = local.get("/static/serve.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    body, ctype = multipart([], {"text": ODD_CHIP.read_text(encoding="utf-8"), "profile": "home-open", "lang": "en"})
    posted = local.post("/", content=body, headers={"Content-Type": ctype, "Origin": HOME}, follow_redirects=False)
    assert posted.status_code == 303
    result = local.get(posted.headers["location"])
    assert "Маша owed O&#39;Neil 1 chip, corrected at the table" in result.text
    sha = posted.headers["location"].split("/")[2].split("?")[0]
    assert f'href="/uploads/{sha}/hands/387708?lang=en"' in result.text
    hand = local.get(f"/uploads/{sha}/hands/387708")
    assert hand.status_code == 200 and "script-src 'sha256-" in hand.headers["content-security-policy"]
    listing = local.get("/uploads?lang=es")
    assert "pasted-" in listing.text and "Ficha impar al ganador equivocado" in listing.text
    assert local.get(f"/uploads/{'0' * 64}").status_code == 404
    big, ctype = multipart([], {"text": ODD_CHIP.read_text(encoding="utf-8") * 80})  # a paste over 1 MB
    assert local.post("/", content=big, headers={"Content-Type": ctype}, follow_redirects=False).status_code == 303
    empty, ctype = multipart([], {"text": "", "profile": "home-open"})
    again = local.post("/", content=empty, headers={"Content-Type": ctype})
    assert again.status_code == 400 and "Paste a log or choose a file first." in again.text


def test_forms_from_another_site_are_refused(local: TestClient) -> None:
    body, ctype = multipart([], {"text": REOPEN.read_text(encoding="utf-8")})
    for headers in [{"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Referer": "http://evil.example/page.html"}]:
        r = local.post("/", content=body, headers={"Content-Type": ctype, "Accept": "text/html", **headers})
        assert r.status_code == 403 and "another site" in r.text
        r = raw(local, REOPEN.read_bytes(), headers=headers)
        assert r.status_code == 403
    assert db_counts(local)["uploads"] == 0
    ok = local.post("/", content=body, headers={"Content-Type": ctype, "Referer": f"{HOME}/"}, follow_redirects=False)
    assert ok.status_code == 303


def test_sign_in_sets_an_http_only_same_site_cookie(clubs: tuple[TestClient, dict[str, str]]) -> None:
    c, tokens = clubs
    first = c.get("/", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"].startswith("/signin")
    assert c.get("/uploads", follow_redirects=False).status_code == 303
    assert "password" in c.get("/signin").text
    bad = c.post("/signin", data={"token": "audit_nope"}, headers={"Origin": HOME})
    assert bad.status_code == 401 and "not known" in bad.text
    good = c.post("/signin", data={"token": tokens["north"]}, headers={"Origin": HOME}, follow_redirects=False)
    assert good.status_code == 303
    cookie = good.headers["set-cookie"]
    assert cookie.startswith(f"audit_token={tokens['north']};")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    c.cookies.set("audit_token", tokens["north"])
    page = c.get("/")
    assert page.status_code == 200 and "Signed in for club north" in page.text
    out = c.post("/signout", headers={"Origin": HOME}, follow_redirects=False)
    assert out.status_code == 303 and 'audit_token=""' in out.headers["set-cookie"]


def test_openapi_describes_every_route_and_docs_fetch_nothing(local: TestClient) -> None:
    spec = local.get("/openapi.json").json()
    assert set(spec["paths"]) == {
        "/healthz", "/api/v1/uploads", "/api/v1/check", "/api/v1/uploads/{sha256}/findings",
        "/api/v1/uploads/{sha256}/hands/{hand}/explain", "/api/v1/reports", "/api/v1/reports/{name}",
        "/api/v1/tables", "/api/v1/tables/{table_id}", "/api/v1/tables/{table_id}/events",
        "/api/v1/tables/{table_id}/undo", "/api/v1/tables/{table_id}/close", "/api/v1/tables/{table_id}/log",
        "/api/v1/chain/head", "/api/v1/key"}
    body = spec["paths"]["/api/v1/uploads"]["post"]["requestBody"]["content"]
    assert set(body) == {"multipart/form-data", "text/plain"}
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert local.get("/docs").status_code == 404 and local.get("/redoc").status_code == 404
