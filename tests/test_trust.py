"""A record nobody can quietly change, through the real CLI and a real ``audit serve``: each club's chain, the
service's signed head and key, ``audit verify`` finding every change made through SQL (a stored byte, a finding,
a live-table entry, a link's time) and nothing on an untouched database, receipts ``audit verify-receipt``
accepts for the untouched log and refuses for a changed byte, another profile and another key, and verdicts
without names."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from audit.trust.chain import GENESIS
from audit.trust.keys import signature_holds
from conftest import AUDIT
from servehelp import LiveServer

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WRONG_WINNER = FIXTURES / "rules" / "POT_WINNER-hit.txt"  # Ana takes the pot Beto's kicker wins: one finding
JSON = {"Content-Type": "application/json"}
SEATS = [{"seat": 1, "player": "Ana", "chips": 100}, {"seat": 2, "player": "Beto", "chips": 100},
         {"seat": 3, "player": "Carla", "chips": 100}]


def run(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([AUDIT, *map(str, args)], capture_output=True, text=True, timeout=300,
                          input=stdin.decode() if stdin else None)


def sql(db: Path, statement: str, params: list[Any] | None = None) -> None:
    con = duckdb.connect(str(db))
    try:
        con.execute(statement, params or [])
    finally:
        con.close()


def tampered(db: Path, tmp: Path, name: str, statement: str) -> Path:
    """A copy of ``db`` with ``statement`` run on it."""
    copy = tmp / f"{name}.duckdb"
    shutil.copy(db, copy)
    sql(copy, statement)
    return copy


# ------------------------------------------------------------------------------------------ a plain database
@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("trust-ingest")
    logs = []
    for seed in (1, 2):
        out = tmp / f"sim{seed}.txt"
        assert run("simulate", "--sessions", "2", "--seed", seed, "-o", out).returncode == 0
        logs.append(out)
    shutil.copy(WRONG_WINNER, tmp / "wrong.txt")
    db = tmp / "plain.duckdb"
    done = run("ingest", *logs, tmp / "wrong.txt", "--db", db)
    assert done.returncode == 0, done.stderr
    return db


def test_audit_ingest_keeps_club_locals_chain_and_verify_holds(ingested: Path) -> None:
    con = duckdb.connect(str(ingested), read_only=True)
    links = con.execute("SELECT position, prev_hash, hash, subject FROM chain_links WHERE club = 'local' "
                        "ORDER BY position").fetchall()
    files = {r[0] for r in con.execute("SELECT file_sha FROM files").fetchall()}
    con.close()
    assert [p for p, *_ in links] == [1, 2, 3] and {s for *_, s in links} == files
    assert links[0][1] == GENESIS and all(links[i][1] == links[i - 1][2] for i in (1, 2))
    done = run("verify", "--db", ingested)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 links hold; 3 logs audited again" in done.stdout


@pytest.mark.parametrize("name,statement,said", [
    ("link-time", "UPDATE chain_links SET received_at = received_at + INTERVAL 1 MINUTE WHERE position = 2",
     "link 2: its contents were changed after it was written"),
    ("finding", "UPDATE findings SET player = 'Beto' WHERE rule = 'POT_WINNER'", "its stored findings were changed"),
    ("finding-gone", "DELETE FROM findings WHERE rule = 'POT_WINNER'", "its stored findings were changed"),
    ("link-gone", "DELETE FROM chain_links WHERE position = 3", "is stored without a link"),
    ("file-time", "UPDATE files SET ingested_at = ingested_at - INTERVAL 1 DAY WHERE path LIKE '%wrong.txt'",
     "by its link"),
])
def test_verify_finds_each_change_made_through_sql(ingested: Path, tmp_path: Path, name: str, statement: str,
                                                   said: str) -> None:
    done = run("verify", "--db", tampered(ingested, tmp_path, name, statement))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "BROKEN: the first broken link" in done.stdout and said in done.stdout


def test_verify_cannot_run_is_exit_2(tmp_path: Path) -> None:
    done = run("verify", "--db", tmp_path / "none.duckdb")
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_findings_of_an_older_audit_version_are_listed_as_such(ingested: Path, tmp_path: Path) -> None:
    from audit.trust.chain import Link

    copy = tmp_path / "older.duckdb"
    shutil.copy(ingested, copy)
    con = duckdb.connect(str(copy))
    # as an older audit would have stored it: another version, another finding, every link's hash made again
    con.execute("UPDATE findings SET message = 'older words' WHERE rule = 'POT_WINNER'")
    con.execute("UPDATE files SET audit_version = '0.0.9'")
    prev = GENESIS
    for row in con.execute("SELECT * FROM chain_links ORDER BY position").fetchall():
        draft = Link(*row[:8], "0.0.9", prev, "")  # type: ignore[arg-type]
        link = Link(*row[:8], "0.0.9", prev, draft.computed_hash())  # type: ignore[arg-type]
        con.execute("UPDATE chain_links SET audit_version = ?, prev_hash = ?, hash = ? WHERE position = ?",
                    [link.audit_version, link.prev_hash, link.hash, link.position])
        prev = link.hash
    con.close()
    done = run("verify", "--db", copy)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "newer audit: club local, link " in done.stderr and "older words" in done.stderr


# ------------------------------------------------------------------------------------------ receipts offline
def test_explain_json_carries_a_receipt_that_verify_receipt_checks(tmp_path: Path) -> None:
    out = run("explain", WRONG_WINNER, "--format", "json")
    assert out.returncode == 0, out.stderr
    hand = json.loads(out.stdout.splitlines()[0])
    receipt = hand["receipt"]
    assert set(receipt) == {"log_sha256", "hand", "profile", "options", "version", "verdict_sha256"}
    (tmp_path / "r.json").write_text(json.dumps(receipt))
    assert run("verify-receipt", tmp_path / "r.json", WRONG_WINNER).returncode == 0
    changed = tmp_path / "changed.txt"
    changed.write_bytes(WRONG_WINNER.read_bytes().replace(b"Ana collected 7", b"Ana collected 6"))
    refused = run("verify-receipt", tmp_path / "r.json", changed)
    assert refused.returncode == 1 and "a byte was changed" in refused.stdout
    other = dict(receipt, profile="qdan")
    (tmp_path / "q.json").write_text(json.dumps(other))
    refused = run("verify-receipt", tmp_path / "q.json", WRONG_WINNER)
    assert refused.returncode == 1 and "is not the receipt's" in refused.stdout
    unsigned = run("verify-receipt", tmp_path / "r.json", WRONG_WINNER, "--key", tmp_path / "r.json")
    assert unsigned.returncode == 2  # not a key


def test_anonymize_renames_players_and_changes_nothing_else(tmp_path: Path) -> None:
    plain = json.loads(run("explain", WRONG_WINNER, "--format", "json").stdout.splitlines()[0])
    hidden = json.loads(run("explain", WRONG_WINNER, "--format", "json", "--anonymize").stdout.splitlines()[0])
    assert [s["player"] for s in hidden["seats"]] == ["Player A", "Player B", "Player C"]
    assert "Ana" not in json.dumps(hidden) and "Beto" not in json.dumps(hidden)
    assert [(s["chips"], s["cards"], s["end"]) for s in hidden["seats"]] == \
        [(s["chips"], s["cards"], s["end"]) for s in plain["seats"]]
    names = {"Ana": "Player A", "Beto": "Player B", "Carla": "Player C"}
    assert [(f["rule"], f["line"], f["player"]) for f in hidden["findings"]] == \
        [(f["rule"], f["line"], names[f["player"]]) for f in plain["findings"]] and plain["findings"]
    assert hidden["verdict"]["sentences"] == ["Player A owes Player B 7 chips."]
    assert hidden["receipt"] == dict(plain["receipt"], anonymized=True)
    (tmp_path / "r.json").write_text(json.dumps(hidden))  # the whole object: its receipt is read
    assert run("verify-receipt", tmp_path / "r.json", WRONG_WINNER).returncode == 0
    page = run("explain", WRONG_WINNER, "--anonymize", "--format", "html", "--lang", "es").stdout
    assert "Jugador A" in page and "Ana" not in page and "Código del recibo" not in page  # a page of every hand
    page = run("explain", WRONG_WINNER, "--hand", "1", "--anonymize", "--format", "html", "--lang", "es").stdout
    assert "Jugador A" in page and "Ana" not in page and "Código del recibo" in page


# ------------------------------------------------------------------------------------------ the service
@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, Any]]]:
    """A service with one upload and one live table (entries, an undo, a hand played out), stopped at the end."""
    db = tmp_path_factory.mktemp("trust-serve") / "club.duckdb"
    live = LiveServer(db)
    try:
        upload = live.upload([("friday.txt", WRONG_WINNER.read_bytes())])[0]
        status, _, raw = live.request("POST", "/api/v1/tables", json.dumps(
            {"name": "Casa", "seats": SEATS, "button": 3}).encode(), JSON)
        assert status == 201
        tid = json.loads(raw)["id"]
        for entry in ({"player": "Ana", "action": "bet", "to": 4}, {"player": "Beto", "action": "fold"}):
            assert live.request("POST", f"/api/v1/tables/{tid}/events", json.dumps(entry).encode(), JSON)[0] == 200
        assert live.request("POST", f"/api/v1/tables/{tid}/undo")[0] == 200
        for entry in ({"player": "Beto", "action": "call"}, {"player": "Carla", "action": "fold"}):
            assert live.request("POST", f"/api/v1/tables/{tid}/events", json.dumps(entry).encode(), JSON)[0] == 200
        yield live, {"upload": upload, "table": tid, "db": db}
    finally:
        live.stop()


def test_the_service_prints_and_serves_its_key_and_signs_its_head(served: tuple[LiveServer, dict[str, Any]]) -> None:
    live, made = served
    key = live.json("GET", "/api/v1/key")
    assert key["algorithm"] == "Ed25519" and len(key["key"]) == 64 and "PRIVATE" not in json.dumps(key)
    assert key["key"] in live.out.read_text()
    head = live.json("GET", "/api/v1/chain/head")
    assert set(head) == {"club", "position", "hash", "at", "signature"} and head["club"] == "local"
    assert head["position"] == 7  # the upload, the table opened, 2 entries, the undo, 2 entries
    fields = {k: v for k, v in head.items() if k != "signature"}
    assert signature_holds(key["key"], fields, head["signature"])
    assert not signature_holds(key["key"], dict(fields, position=5), head["signature"])
    path = Path(str(made["db"]) + ".key")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "PRIVATE" not in live.log.read_text() and "PRIVATE" not in live.out.read_text()


def test_a_receipt_of_the_service_is_signed_and_verified_offline(served: tuple[LiveServer, dict[str, Any]],
                                                                tmp_path: Path) -> None:
    live, made = served
    sha = made["upload"]["sha256"]
    obj = live.json("GET", f"/api/v1/uploads/{sha}/hands/1/explain?format=json")
    receipt = obj["receipt"]
    assert receipt["chain"]["club"] == "local" and receipt["chain"]["position"] == 1 and receipt["signature"]
    (tmp_path / "key.json").write_bytes(live.request("GET", "/api/v1/key")[2])
    (tmp_path / "r.json").write_text(json.dumps(receipt))
    log = tmp_path / "friday.txt"
    log.write_bytes(WRONG_WINNER.read_bytes())
    ok = run("verify-receipt", tmp_path / "r.json", log, "--key", tmp_path / "key.json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    changed = tmp_path / "changed.txt"
    changed.write_bytes(log.read_bytes().replace(b"Beto: calls 2", b"Beto: calls 3", 1))
    assert run("verify-receipt", tmp_path / "r.json", changed, "--key", tmp_path / "key.json").returncode == 1
    (tmp_path / "q.json").write_text(json.dumps(dict(receipt, profile="qdan")))
    refused = run("verify-receipt", tmp_path / "q.json", log, "--key", tmp_path / "key.json")
    assert refused.returncode == 1 and "signature is not this key's" in refused.stdout
    from audit.trust.keys import load_or_create

    other = load_or_create(tmp_path / "other.key")
    (tmp_path / "other.json").write_text(json.dumps(other.public()))
    refused = run("verify-receipt", tmp_path / "r.json", log, "--key", tmp_path / "other.json")
    assert refused.returncode == 1 and "signed by another key" in refused.stdout
    forged = other.signed({k: v for k, v in receipt.items() if k != "signature"})
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    refused = run("verify-receipt", tmp_path / "forged.json", log, "--key", tmp_path / "key.json")
    assert refused.returncode == 1


def test_the_dispute_page_shows_the_receipt_with_and_without_names(served: tuple[LiveServer, dict[str, Any]]) -> None:
    live, made = served
    sha = made["upload"]["sha256"]
    status, _, raw = live.request("GET", f"/uploads/{sha}/hands/1?lang=en")
    page = raw.decode()
    assert status == 200 and "Receipt code:" in page and '"verdict_sha256"' in page.replace("&#34;", '"')
    assert "anonymize=1" in page and "Ana" in page
    status, _, raw = live.request("GET", f"/uploads/{sha}/hands/1?lang=es&anonymize=1")
    hidden = raw.decode()
    assert status == 200 and "Jugador A" in hidden and "Ana" not in hidden and "Beto" not in hidden
    assert "Código del recibo" in hidden and "&#34;anonymized&#34;:true" in hidden


def test_verify_holds_on_the_services_database_and_finds_each_change(served: tuple[LiveServer, dict[str, Any]],
                                                                     tmp_path: Path) -> None:
    live, made = served
    copy = tmp_path / "backup.duckdb"
    assert run("backup", "--db", made["db"], copy).returncode == 0
    done = run("verify", "--db", copy)
    assert done.returncode == 0, done.stdout + done.stderr
    tid = made["table"]
    for name, statement, said in [
        ("byte", "UPDATE upload_parts SET part = replace(part::VARCHAR, 'Ana collected 7', 'Ana collected 6')::BLOB",
         "its stored bytes were changed"),
        ("finding", "UPDATE findings SET expected = 'Ana' WHERE rule = 'POT_WINNER'", "stored findings were changed"),
        ("entry", f"UPDATE live_entries SET entry = replace(entry, 'Carla', 'Ana') WHERE table_id = '{tid}' "
                  "AND seq = 2", f"table {tid}: entry 2 was changed"),
        ("entry-gone", f"DELETE FROM live_entries WHERE table_id = '{tid}' AND seq = 1", "entry 1 is gone"),
        ("time", "UPDATE chain_links SET received_at = received_at - INTERVAL 1 HOUR WHERE position = 1",
         "link 1: its contents were changed"),
        ("upload-time", "UPDATE uploads SET received_at = received_at - INTERVAL 1 HOUR", "by its row"),
    ]:
        broken = run("verify", "--db", tampered(copy, tmp_path, name, statement), "--club", "local")
        assert broken.returncode == 1 and said in broken.stdout, (name, broken.stdout, broken.stderr)


HAND = [{"player": "Ana", "action": "bet", "to": 4}, {"player": "Beto", "action": "fold"},
        {"player": "Carla", "action": "fold"}]  # Ana takes the pot: the hand is over


def test_the_live_tables_close_carries_the_sessions_receipt_and_head(tmp_path: Path) -> None:
    live = LiveServer(tmp_path / "close.duckdb")
    try:
        status, _, raw = live.request("POST", "/api/v1/tables", json.dumps(
            {"name": "Casa", "seats": SEATS, "button": 3}).encode(), JSON)
        tid = json.loads(raw)["id"]
        for entry in HAND:
            assert live.request("POST", f"/api/v1/tables/{tid}/events", json.dumps(entry).encode(), JSON)[0] == 200
        status, _, raw = live.request("POST", f"/api/v1/tables/{tid}/close")
        assert status == 200, raw
        receipt = json.loads(raw)["receipt"]
        head = live.json("GET", "/api/v1/chain/head")
        assert receipt["session"] and 1 < receipt["chain"]["position"] <= head["position"]
        (tmp_path / "key.json").write_bytes(live.request("GET", "/api/v1/key")[2])
        (tmp_path / "r.json").write_text(json.dumps(receipt))
        (tmp_path / "session.txt").write_bytes(live.request("GET", f"/api/v1/tables/{tid}/log")[2])
        ok = run("verify-receipt", tmp_path / "r.json", tmp_path / "session.txt", "--key", tmp_path / "key.json")
        assert ok.returncode == 0, ok.stdout + ok.stderr
        page = live.request("GET", f"/tables/{tid}?lang=es")[2].decode()
        assert "Código del recibo" in page and f"eslabón {receipt['chain']['position']}" in page
    finally:
        assert live.stop() == 0
    done = run("verify", "--db", tmp_path / "close.duckdb")
    assert done.returncode == 0, done.stdout + done.stderr
    con = duckdb.connect(str(tmp_path / "close.duckdb"), read_only=True)
    kinds = con.execute("SELECT kind, position, hash FROM chain_links ORDER BY position").fetchall()
    con.close()
    assert [k for k, *_ in kinds] == ["table"] + ["entry"] * len(HAND) + ["close", "upload"]  # the hand, stored at the close
    close = next((p, h) for k, p, h in kinds if k == "close")
    assert (receipt["chain"]["position"], receipt["chain"]["hash"]) == close


def test_a_database_written_before_chains_links_its_logs_when_opened_for_writing(ingested: Path,
                                                                                  tmp_path: Path) -> None:
    old = tampered(ingested, tmp_path, "before-chains", "DROP TABLE chain_links")
    cannot = run("verify", "--db", old)
    assert cannot.returncode == 2 and "no chain yet" in cannot.stderr
    assert run("upgrade", "--db", old).returncode == 0
    done = run("verify", "--db", old)
    assert done.returncode == 0 and "3 links hold" in done.stdout, done.stdout + done.stderr


def test_the_service_refuses_a_key_others_may_read(tmp_path: Path) -> None:
    from audit.trust.keys import load_or_create

    db = tmp_path / "open.duckdb"
    load_or_create(Path(str(db) + ".key"))
    Path(str(db) + ".key").chmod(0o644)
    done = subprocess.run([AUDIT, "serve", "--db", str(db), "--port", "0"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "may be read by others" in done.stderr and "PRIVATE" not in done.stderr


def test_a_link_rolled_back_in_the_writer_leaves_the_next_link_chained_to_the_last_committed(tmp_path: Path) -> None:
    """The service's writer remembers each club's head between its transactions: a transaction that appended a
    link and was rolled back must not move it (the next upload's link follows the last committed one)."""
    import datetime as dt
    import hashlib

    from audit.serve.db import ServiceDB, UploadWrite, audit_upload, transaction, upload_key, write_upload
    from audit.serve.writer import Writer
    from audit.simulate import iter_simulated
    from audit.trust.chain import append_link

    db = tmp_path / "service.duckdb"
    sessions = iter_simulated("home-open", 7)
    logs = [next(sessions).text.encode() for _ in range(2)]

    def upload(i: int) -> Any:
        sha = hashlib.sha256(logs[i]).hexdigest()
        key = upload_key("north", sha)
        job = UploadWrite("north", f"log-{i}.txt", sha, logs[i], "home-open", key,
                          audit_upload(logs[i], f"log-{i}.txt", "home-open", key))
        return lambda cur: write_upload(cur, job)

    def undone(cur: duckdb.DuckDBPyConnection) -> None:
        with transaction(cur):
            append_link(cur, "north", "upload", "u" + "0" * 64, dt.datetime.now().replace(microsecond=0),
                        "home-open", content_sha256="0" * 64)
            raise RuntimeError("the upload failed after its link")

    service = ServiceDB(str(db))
    writer = Writer(service.new_cursor())
    try:
        assert writer.submit(upload(0)).result(60).status == "stored"
        with pytest.raises(RuntimeError):
            writer.submit(undone).result(60)
        assert writer.submit(upload(1)).result(60).status == "stored"
    finally:
        writer.stop(60)
        service.close()
    con = duckdb.connect(str(db), read_only=True)
    links = con.execute("SELECT position, prev_hash, hash FROM chain_links WHERE club = 'north' "
                        "ORDER BY position").fetchall()
    con.close()
    assert [(p, prev) for p, prev, _ in links] == [(1, GENESIS), (2, links[0][2])]
    done = run("verify", "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
