"""``audit watch`` and ``audit upload`` against a real ``audit serve``, with a folder written the way a poker client
writes it: hands appended every few hundred milliseconds, a last hand half written, a file rotated and one
rewritten from the start. Every wait is bounded."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from audit.watch import cut_hands
from conftest import AUDIT, FIXTURES, SHARED, needs_shared
from servehelp import LiveServer

SITE = FIXTURES / "demo"  # the demo logs are house sessions; site-like loose hands are made below
DEADLINE = 60.0


def simulated(seed: int) -> tuple[str, list[str]]:
    """A legal simulated session: its preamble and its hands (the last carries the session end)."""
    out = subprocess.run([AUDIT, "simulate", "--profile", "home-open", "--sessions", "1", "--seed", str(seed)],
                         capture_output=True, text=True, check=True).stdout
    preamble, hands = cut_hands(out)
    assert len(hands) >= 6 and "*** SESSION END ***" in hands[-1]
    return preamble, hands


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str]]:
    db = tmp_path_factory.mktemp("club") / "club.duckdb"
    made = subprocess.run([AUDIT, "token", "add", "north", "--db", str(db)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    server = LiveServer(db)
    try:
        yield server, made.stdout.strip()
    finally:
        assert server.stop() == 0


def uploads(server: LiveServer, token: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = server.json("GET", "/api/v1/uploads", headers={"Authorization": f"Bearer {token}"})
    return listed


def wait_for(what: Any, why: Any = None, deadline: float = DEADLINE) -> None:
    end = time.monotonic() + deadline
    while not what():
        assert time.monotonic() < end, f"timed out: {why() if why else ''}"
        time.sleep(0.1)


def start_watch(args: list[str], log: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([AUDIT, "watch", *args], stdout=subprocess.PIPE, stderr=open(log, "w"), text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, out


def test_watch_sends_each_complete_hand_once_as_a_client_writes_them(club: tuple[LiveServer, str],
                                                                      tmp_path: Path) -> None:
    server, token = club
    folder = tmp_path / "HandHistory"
    folder.mkdir()
    state = tmp_path / "watch.json"
    log = tmp_path / "watch.log"
    before = {u["sha256"] for u in uploads(server, token)}
    preamble, session = simulated(41)
    _, other = simulated(42)
    loose = other[:-1]  # hands outside any session: each audited on its own, sent as they finish
    watch = start_watch([str(folder), "--to", server.origin, "--token", token, "--state", str(state),
                         "--settle", "3"], log)
    try:
        wait_for(lambda: "following" in log.read_text())
        table = folder / "table-1.txt"
        with open(table, "w", encoding="utf-8") as f:  # a session, hand after hand
            f.write(preamble + "\n\n")
            for hand in session:
                f.write(hand + "\n")
                f.flush()
                time.sleep(0.25)
        cash = folder / "cash.txt"
        with open(cash, "w", encoding="utf-8") as f:  # loose hands, the last sent once the file settles
            for hand in loose[:3]:
                f.write(hand + "\n\n")
                f.flush()
                time.sleep(0.25)
        reopen = (SITE / "reopen-dispute.txt").read_text(encoding="utf-8")
        (folder / "dispute.txt").write_text(reopen + "\n", encoding="utf-8")  # a whole hand at once, a finding

        def new() -> list[dict[str, Any]]:
            return [u for u in uploads(server, token) if u["sha256"] not in before]

        def why() -> str:
            return f"{new()}\n{log.read_text()}"
        wait_for(lambda: sum(u["hands"] for u in new()) >= len(session) + 3 + 1, why)
        time.sleep(1.0)
        got = [u for u in uploads(server, token) if u["sha256"] not in before]
        assert sum(u["hands"] for u in got) == len(session) + 3 + 1, got
        assert {u["name"] for u in got} == {"table-1.txt", "cash.txt", "dispute.txt"}
        # Rotation: the client renames the file and starts another; then rewrites it from the start.
        os.rename(cash, folder / "cash-1.txt")
        with open(cash, "w", encoding="utf-8") as f:
            f.write(loose[4] + "\n\n")
        time.sleep(1.0)
        table.write_text(preamble + "\n\n" + "\n".join(session), encoding="utf-8")
        wait_for(lambda: sum(u["hands"] for u in uploads(server, token) if u["sha256"] not in before)
                 >= len(session) + 5)
        time.sleep(1.0)
        got = [u for u in uploads(server, token) if u["sha256"] not in before]
        assert sum(u["hands"] for u in got) == len(session) + 5, got  # nothing twice
        half = loose[3].split("\n")  # a hand half written: it waits while the file is younger than the settle time
        with open(folder / "cash-1.txt", "a", encoding="utf-8") as f:
            f.write("\n".join(half[:len(half) // 2]) + "\n")
        wait_for(lambda: f"waiting: {folder / 'cash-1.txt'} — its last hand" in log.read_text(), log.read_text)
    finally:
        status, out = stop(watch)
    assert status == 130, log.read_text()
    assert "watch stopped: " in log.read_text() and "Traceback" not in log.read_text()
    assert sum(u["hands"] for u in uploads(server, token) if u["sha256"] not in before) == len(session) + 5
    assert out.splitlines() == [f"{folder / 'dispute.txt'}: hand E1b: RAISE_NOT_REOPENED (violation)"]
    # A restart (polling this time) sends only what finished meanwhile: the half-written hand, completed.
    with open(folder / "cash-1.txt", "a", encoding="utf-8") as f:
        f.write("\n".join(half[len(half) // 2:]).rstrip("\n") + "\n\n")
    again = start_watch([str(folder), "--to", server.origin, "--token", token, "--state", str(state),
                         "--settle", "0.3", "--poll", "0.2"], log)
    try:
        wait_for(lambda: sum(u["hands"] for u in uploads(server, token) if u["sha256"] not in before)
                 >= len(session) + 6)
        time.sleep(1.0)
        got = [u for u in uploads(server, token) if u["sha256"] not in before]
        assert sum(u["hands"] for u in got) == len(session) + 6, got
    finally:
        status, out = stop(again)
    assert status == 130 and out == ""


def test_watch_once_into_a_database_keeps_its_state_beside_it(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.txt").write_bytes((SITE / "home-session-odd-chip-dispute.txt").read_bytes())
    db = tmp_path / "club.duckdb"
    first = subprocess.run([AUDIT, "watch", str(folder), "--db", str(db), "--once"], capture_output=True,
                           text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [f"{folder / 'a.txt'}: hand 387708: ODD_CHIP (violation)",
                                         f"{folder / 'a.txt'}: hand 387709: STACK_CONTINUITY (violation)"]
    assert json.loads((tmp_path / "club.duckdb.watch.json").read_text())["sent"]
    with duckdb.connect(str(db), read_only=True) as con:  # the whole file went in as itself, as ingest would
        assert con.execute("SELECT path FROM files").fetchall() == [(str(folder / "a.txt"),)]
    again = subprocess.run([AUDIT, "watch", str(folder), "--db", str(db), "--once"], capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0 and again.stdout == "", again.stderr
    assert again.stderr.splitlines() == [f"audit watch: 0 hands sent to {db}"]  # --once follows nothing
    ingest = subprocess.run([AUDIT, "ingest", str(folder), "--db", str(db)], capture_output=True, text=True)
    assert "1 already in the database" in ingest.stdout, ingest.stdout  # the whole session, byte for byte
    both = subprocess.run([AUDIT, "watch", str(folder), "--db", str(db), "--to", "http://127.0.0.1:1"],
                          capture_output=True, text=True)
    assert both.returncode == 2
    missing = subprocess.run([AUDIT, "watch", str(tmp_path / "nowhere"), "--db", str(db), "--once"],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and missing.stderr.splitlines() == [f"audit: {tmp_path / 'nowhere'}: no such folder"]


def test_upload_stores_says_duplicate_and_unreadable(club: tuple[LiveServer, str], tmp_path: Path) -> None:
    server, token = club
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01 not a log")
    files = [str(SITE / "qdan-redeal.txt"), str(SITE / "stripped32-tiebreak.txt")]
    run = subprocess.run([AUDIT, "upload", *files, "--to", server.origin, "--token", token], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert [line.split(": ")[1].split(" ")[0] for line in run.stdout.splitlines()] == ["stored", "stored"]
    assert f"{files[1]}: stored (1 hand, 0 violations, 0 warnings)" in run.stdout.splitlines(), run.stdout
    assert "audit upload: 2 files: 2 stored, 0 already there, 0 unreadable" in run.stderr
    winamax = FIXTURES / "unread" / "hit-winamax.txt"  # a site audit does not read: refused
    again = subprocess.run([AUDIT, "upload", files[0], str(bad), str(winamax), "--to", server.origin],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "AUDIT_TOKEN": token})
    assert again.returncode == 1, again.stderr
    assert again.stdout.splitlines() == [again.stdout.splitlines()[0]]
    assert again.stdout.splitlines()[0].startswith(f"{files[0]}: duplicate (")
    assert "bad.txt" in again.stderr
    assert (f"audit upload: {winamax.name}: This is a hand history of Winamax, which audit does not read yet, so "
            "none of its hands was checked.") in again.stderr.splitlines(), again.stderr
    refused = subprocess.run([AUDIT, "upload", files[0], "--to", server.origin, "--token", "wrong"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1 and "refused the token" in refused.stderr


class Busy(http.server.BaseHTTPRequestHandler):
    """A service that answers 503, then 429, then stores the log."""

    answers = [503, 429]
    seen: list[int] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        status = Busy.answers[len(Busy.seen)] if len(Busy.seen) < len(Busy.answers) else 200
        Busy.seen.append(status)
        body = json.dumps({"uploads": [{"name": "x", "status": "stored", "hands": 1, "violations": 0,
                                        "warnings": 0}]} if status == 200 else {"detail": "busy"}).encode()
        self.send_response(status)
        if status != 200:
            self.send_header("Retry-After", "0.1")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_upload_retries_a_busy_service_and_gives_up_on_none() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Busy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        run = subprocess.run([AUDIT, "upload", str(SITE / "qdan-redeal.txt"), "--to",
                              f"http://127.0.0.1:{server.server_address[1]}", "--token", "t"],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    assert run.returncode == 0, run.stderr
    assert Busy.seen == [503, 429, 200]
    assert "busy (503); again in 0.1 s" in run.stderr and "busy (429); again in 0.1 s" in run.stderr
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gone = subprocess.run([AUDIT, "upload", str(SITE / "qdan-redeal.txt"), "--to", f"http://127.0.0.1:{port}",
                           "--tries", "2", "-q"], capture_output=True, text=True, timeout=120)
    assert gone.returncode == 2 and gone.stderr.splitlines() == [
        f"audit: cannot reach http://127.0.0.1:{port} (Connection refused); gave up after 2 tries"], gone.stderr


def test_a_session_waits_for_its_end_and_hidden_folders_are_not_read(tmp_path: Path) -> None:
    from audit.watch import Follower

    preamble, session = simulated(43)
    unfinished = preamble + "\n\n" + "\n".join(h for h in session[:-1]) + "\n"  # no SESSION END yet
    (tmp_path / "t.txt").write_text(unfinished, encoding="utf-8")
    (tmp_path / ".spool").mkdir()
    (tmp_path / ".spool" / "copy.txt").write_text(unfinished, encoding="utf-8")
    follower = Follower([str(tmp_path)], str(tmp_path / "state.json"), settle=0, session_idle=3600)
    [preview] = list(follower.scan())
    assert not preview.send and preview.digests == [] and preview.path == tmp_path / "t.txt"
    assert list(follower.scan()) == []  # nothing new to say
    idle = Follower([str(tmp_path)], str(tmp_path / "state.json"), settle=0, session_idle=0)
    [whole] = list(idle.scan())  # unchanged long enough: the session goes, whole
    assert whole.send and len(whole.digests) == len(session) - 1 and whole.data == unfinished.encode()
    idle.mark_sent(whole)
    assert list(Follower([str(tmp_path)], str(tmp_path / "state.json"), settle=0, session_idle=0).scan()) == []


@needs_shared
def test_a_last_hand_without_a_blank_line_waits_said_once_then_goes_when_the_file_settles(
        club: tuple[LiveServer, str], tmp_path: Path) -> None:
    server, token = club
    folder = tmp_path / "HandHistory"
    folder.mkdir()
    log = tmp_path / "watch.log"
    before = {u["sha256"] for u in uploads(server, token)}
    watch = start_watch([str(folder), "--to", server.origin, "--token", token, "--state", str(tmp_path / "w.json"),
                         "--settle", "1.5"], log)
    try:
        wait_for(lambda: "following" in log.read_text())
        stars = folder / "stars.txt"  # as PokerStars leaves a file: the last line's CRLF, no blank line after it
        stars.write_bytes((SHARED / "real-hands" / "pokerstars" / "5-Carddraw-FL-USD-0.10-0.20-201106.sidepot.txt")
                          .read_bytes())
        assert stars.read_bytes().endswith(b")\r\n")
        house = folder / "house.txt"  # a house log whose last line is not followed by a blank line (a hand of its
        house.write_text((SITE / "reopen-dispute.txt").read_text(encoding="utf-8")  # own: the club has E1b)
                         .replace("Hand #E1b ", "Hand #E1w ").rstrip("\n") + "\n", encoding="utf-8")

        def names() -> list[str]:
            return sorted(u["name"] for u in uploads(server, token) if u["sha256"] not in before)
        wait_for(lambda: names() == ["house.txt", "stars.txt"], lambda: f"{names()}\n{log.read_text()}")
        said = log.read_text().splitlines()
        for path in (stars, house):
            assert said.count(f"audit watch: waiting: {path} — its last hand is not complete yet") == 1, said
    finally:
        watch.send_signal(signal.SIGTERM)  # stopped as audit serve stops: said, exit 0
        out, _ = watch.communicate(timeout=60)
    assert watch.returncode == 0, log.read_text()
    assert log.read_text().splitlines()[-1] == (f"audit watch: stopped: 2 hands sent in this run; remembered in "
                                                f"{tmp_path / 'w.json'}")
    assert out.splitlines() == [f"{house}: hand E1w: RAISE_NOT_REOPENED (violation)"]
    once = tmp_path / "once"  # one hand, once: said in the singular, and nothing said about following
    once.mkdir()
    (once / "stars.txt").write_bytes(stars.read_bytes())
    db = tmp_path / "once.duckdb"
    run = subprocess.run([AUDIT, "watch", str(once), "--db", str(db), "--once"], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0 and run.stderr.splitlines() == [f"audit watch: 1 hand sent to {db}"], run.stderr
