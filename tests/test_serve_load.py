"""``audit serve`` under load, as a real process on a free loopback port: idle sockets, one club's heavy requests,
a worker process that dies, large uploads at once; and all of it together, while ``/healthz`` and another club's
``GET /api/v1/uploads`` keep answering within 2 s.

Every loop here is bounded in count and time and talks to 127.0.0.1 only."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from audit.explain import HandExplanation, explain_bytes
from audit.serve.disputes import _profile, hand_json
from conftest import AUDIT, SHARED, children
from servehelp import LiveServer, check_whole, multipart, rows

pytestmark = pytest.mark.slow  # load tests

IDLE = 200
QUICK = 2.0  # seconds: what /healthz and another club's list of uploads may take, whatever else goes on
CLUBS = ("north", "east", "west")


def add_tokens(db: Path) -> dict[str, str]:
    """A token for each club of ``CLUBS``, made with ``audit token add``."""
    out = {}
    for club in CLUBS:
        made = subprocess.run([AUDIT, "token", "add", club, "--db", str(db)], capture_output=True, text=True,
                              check=True)
        out[club] = made.stdout.strip()
    return out


def bearer(token: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **extra}


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """About 2,800 simulated hands in 300 sessions: one log."""
    return subprocess.run([AUDIT, "simulate", "--sessions", "300", "--seed", "3"], capture_output=True,
                          check=True).stdout


@pytest.fixture(scope="module")
def small_logs() -> list[tuple[str, bytes]]:
    """200 distinct sessions of about ten hands, each its own log."""
    out = subprocess.run([AUDIT, "simulate", "--sessions", "200", "--seed", "11"], capture_output=True,
                         check=True).stdout
    parts = [b"Session: " + p for p in out.split(b"Session: ") if p.strip()]
    return [(f"small-{i:03}.txt", p) for i, p in enumerate(parts)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, big_log: bytes) -> Iterator[tuple[LiveServer, dict[str, str],
                                                                                       str]]:
    """One server with three clubs; east has stored the big log (its SHA-256 is the third item)."""
    db = tmp_path_factory.mktemp("load") / "load.duckdb"
    tokens = add_tokens(db)
    server = LiveServer(db)
    try:
        status, _, body = server.request("POST", "/api/v1/uploads?name=big.txt", big_log,
                                         bearer(tokens["east"], **{"Content-Type": "text/plain"}), timeout=300)
        assert status == 200, body[:300]
        answer = json.loads(body)["uploads"][0]
        assert answer["status"] == "stored" and answer["hands"] > 2500
        yield server, tokens, answer["sha256"]
    finally:
        assert server.stop() == 0
    check_whole(db)


class Probe:
    """Asks ``/healthz`` and a club's ``GET /api/v1/uploads`` again and again (in a thread) until stopped, and
    keeps how long each answer took, and any answer that was not 200."""

    def __init__(self, server: LiveServer, token: str) -> None:
        self.server = server
        self.token = token
        self.times: list[float] = []
        self.failures: list[tuple[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)

    def once(self) -> None:
        for path, headers in (("/healthz", {}), ("/api/v1/uploads", bearer(self.token))):
            started = time.monotonic()
            try:
                status, _, body = self.server.request("GET", path, headers=headers, timeout=30)
            except OSError as exc:
                self.failures.append((path, repr(exc)))
                continue
            self.times.append(time.monotonic() - started)
            if status != 200:
                self.failures.append((path, (status, body[:200])))

    def _run(self) -> None:
        while not self._stop.is_set():
            self.once()
            self._stop.wait(0.25)

    def check(self) -> None:
        assert self.times, "no probe answered"
        assert not self.failures, self.failures[:5]
        assert max(self.times) < QUICK, sorted(self.times)[-5:]


def idle_sockets(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that send nothing (half of them) or half a request head (the others)."""
    out = []
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        if i % 2:
            sock.sendall(b"GET /api/v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ")
        out.append(sock)
    return out


def wait_closed(sockets: list[socket.socket], limit: float) -> list[socket.socket]:
    """Wait up to ``limit`` seconds for the server to close each socket; the ones still open."""
    deadline = time.monotonic() + limit
    open_ = list(sockets)
    while open_ and time.monotonic() < deadline:
        still = []
        for sock in open_:
            sock.settimeout(max(0.01, min(0.5, deadline - time.monotonic())))
            try:
                closed = sock.recv(4096) == b""
            except socket.timeout:
                closed = False
            except OSError:
                closed = True
            if not closed:
                still.append(sock)
        open_ = still
    return open_


def test_one_clubs_explanations_wait_their_turn_and_starve_nobody(
        served: tuple[LiveServer, dict[str, str], str], big_log: bytes) -> None:
    server, tokens, sha = served
    hands = re.findall(rb"^Hand #(\S+)", big_log, re.M)
    late = hands[-3].decode()  # in the last session: the ones before it are not replayed
    asked = [hand for i in range(16) for hand in (f"missing-{i}", late)]
    answers: list[tuple[int, dict[str, str], bytes]] = []
    lock = threading.Lock()

    def explain(hand: str) -> None:
        got = server.request("GET", f"/api/v1/uploads/{sha}/hands/{hand}/explain?format=json",
                             headers=bearer(tokens["east"]), timeout=60)
        with lock:
            answers.append(got)

    with Probe(server, tokens["west"]) as probe, ThreadPoolExecutor(len(asked)) as pool:
        list(pool.map(explain, asked))
    probe.check()
    statuses = sorted(status for status, _, _ in answers)
    assert set(statuses) <= {200, 404, 503}, statuses
    busy = [(h, b) for s, h, b in answers if s == 503]
    assert busy, "32 explanations at once: some should have been asked to come back later"
    assert all(h.get("retry-after", "").isdigit() for h, _ in busy) and b"retry later" in busy[0][1]
    found = [json.loads(b) for s, _, b in answers if s == 200]
    assert found and all(f["hand"] == late for f in found)
    assert all(b"no hand" in b for s, _, b in answers if s == 404)
    # once the club's turn is free again, each answers
    status, _, body = server.request("GET", f"/api/v1/uploads/{sha}/hands/missing/explain",
                                     headers=bearer(tokens["east"]))
    assert status == 404 and b"no hand 'missing'" in body
    assert server.json("GET", f"/api/v1/uploads/{sha}/hands/{late}/explain?format=json",
                       headers=bearer(tokens["east"])) == found[0]
    # another club never sees east's log, busy or not
    status, _, _ = server.request("GET", f"/api/v1/uploads/{sha}/hands/{late}/explain",
                                  headers=bearer(tokens["west"]))
    assert status == 404


def test_load_idle_sockets_and_a_heavy_club_at_once(served: tuple[LiveServer, dict[str, str], str],
                                                    big_log: bytes, small_logs: list[tuple[str, bytes]]) -> None:
    """The issue's whole load: 20 clients uploading (two logs each), 200 idle sockets (sending nothing, or half a
    request head), one club explaining hands of a big log; and the idle sockets are closed."""
    server, tokens, sha = served
    logs = small_logs[:40]
    hands = [h.decode() for h in re.findall(rb"^Hand #(\S+)", big_log, re.M)]
    stop = threading.Event()
    explained: list[int] = []
    uploaded: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + 90

    def uploader(index: int) -> None:
        for name, data in logs[index::20]:
            if time.monotonic() > deadline:
                return
            status, _, body = server.request("POST", f"/api/v1/uploads?name={name}", data,
                                             bearer(tokens["north"], **{"Content-Type": "text/plain"}))
            uploaded.append((status, body))

    def explainer(index: int) -> None:
        i = index
        while not stop.is_set() and time.monotonic() < deadline:
            hand = hands[(i * 397) % len(hands)] if i % 3 else f"absent-{i}"
            status, _, _ = server.request("GET", f"/api/v1/uploads/{sha}/hands/{hand}/explain",
                                          headers=bearer(tokens["east"]), timeout=60)
            explained.append(status)
            i += 4

    sockets = idle_sockets(server.port, IDLE)
    try:
        with Probe(server, tokens["west"]) as probe, ThreadPoolExecutor(24) as pool:
            heavy = [pool.submit(explainer, i) for i in range(4)]
            list(pool.map(uploader, range(20)))
            stop.set()
            for f in heavy:
                f.result()
        probe.check()
        still = wait_closed(sockets, 30)
        assert not still, f"{len(still)} of {IDLE} idle connections still open"
    finally:
        for sock in sockets:
            sock.close()
    assert len(uploaded) == len(logs)
    assert all(status == 200 and b'"stored"' in body for status, body in uploaded), uploaded[:3]
    assert explained and set(explained) <= {200, 404, 503} and 200 in explained and 404 in explained


def answers_of(sockets: list[socket.socket], limit: float) -> list[bytes]:
    """What the server answered on each socket until it closed it, waiting up to ``limit`` seconds in all (b"": no
    answer in time)."""
    import selectors

    deadline = time.monotonic() + limit
    got = {sock: b"" for sock in sockets}
    with selectors.DefaultSelector() as waiting:
        for sock in sockets:
            sock.setblocking(False)
            waiting.register(sock, selectors.EVENT_READ)
        while waiting.get_map() and time.monotonic() < deadline:
            for key, _ in waiting.select(max(0.01, deadline - time.monotonic())):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    part = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    part = b""
                got[sock] += part
                if not part:
                    waiting.unregister(sock)
    return [got[sock] for sock in sockets]


def stalled(port: int, count: int, head: bytes) -> list[socket.socket]:
    """``count`` connections that send ``head`` (a request head and the start of its body), then nothing."""
    out = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(head)
        out.append(sock)
    return out


def test_slow_sign_in_forms_from_one_client_turn_no_club_away(served: tuple[LiveServer, dict[str, str], str]) -> None:
    """The review's lock-out: 200 sign-in forms from one client whose bodies stall (no token needed). A stranger
    has 8 requests in progress per address: those get 408 when the strangers' 10 s for a body are up, the others
    503 at once; meanwhile another club at the same address is answered. A sign-in form that announces more than
    4 KB is refused with 413 before a byte of it is sent."""
    server, tokens, _ = served
    head = (b"POST /signin HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: 200\r\n\r\ntoken=" % server.port)
    started = time.monotonic()
    sockets = stalled(server.port, IDLE, head)
    try:
        time.sleep(1)
        status, _, body = server.request("GET", "/api/v1/uploads", headers=bearer(tokens["west"]), timeout=30)
        assert status == 200, body[:200]
        assert server.request("GET", "/healthz", timeout=30)[0] == 200
        answers = answers_of(sockets, 20)
    finally:
        for sock in sockets:
            sock.close()
    took = time.monotonic() - started
    statuses = [a[9:12] for a in answers]
    assert set(statuses) <= {b"408", b"503"}, [a[:80] for a in answers if a[9:12] not in (b"408", b"503")][:3]
    assert 1 <= statuses.count(b"408") <= 8 and took < 20, (statuses.count(b"408"), took)
    assert all(b"did not arrive in time" in a for a in answers if a[9:12] == b"408")

    oversized = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    try:
        oversized.sendall(head.replace(b"Content-Length: 200", b"Content-Length: 100000"))
        answer = answers_of([oversized], 5)[0]
    finally:
        oversized.close()
    assert answer.startswith(b"HTTP/1.1 413") and b"4,096 bytes" in answer, answer[:300]


def test_one_clubs_stalled_uploads_turn_no_other_club_away(served: tuple[LiveServer, dict[str, str], str]) -> None:
    """200 uploads of one club whose bodies stall (a club's token lets a body take 15 minutes): 50 are in progress
    at once, the others are answered 503 at once, and another club (at the same address) is answered meanwhile."""
    server, tokens, _ = served
    head = (b"POST /api/v1/uploads?name=slow.txt HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: text/plain\r\n"
            b"Authorization: Bearer %s\r\nContent-Length: 1000\r\n\r\nSession: " % (server.port,
                                                                                 tokens["north"].encode()))
    sockets = stalled(server.port, IDLE, head)
    try:
        time.sleep(1)
        status, _, body = server.request("GET", "/api/v1/uploads", headers=bearer(tokens["west"]), timeout=30)
        assert status == 200, body[:200]
        answers = answers_of(sockets, 3)
        refused = [a for a in answers if a]
        assert all(a.startswith(b"HTTP/1.1 503") and b"of this club" in a for a in refused), refused[:1]
        assert len(refused) == IDLE - 50, len(refused)
    finally:
        for sock in sockets:
            sock.close()
    deadline = time.monotonic() + 10  # the closed uploads end as the server notices
    while server.request("GET", "/api/v1/uploads", headers=bearer(tokens["north"]))[0] != 200:
        assert time.monotonic() < deadline, "the club's closed uploads still count"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def verdicts_log() -> bytes:
    """1,861 simulated hands: under ``LARGE_LOG_HANDS``, so its page replays every hand for its verdicts (slow)."""
    return subprocess.run([AUDIT, "simulate", "--profile", "home-open", "--sessions", "200", "--seed", "7"],
                          capture_output=True, check=True).stdout


def test_one_clubs_slow_pages_never_make_another_clubs_explanation_wait(
        served: tuple[LiveServer, dict[str, str], str], verdicts_log: bytes,
        small_logs: list[tuple[str, bytes]]) -> None:
    """North keeps its two turns at the slow pool busy (its log's verdict page, again and again); west's hand
    explained meanwhile starts at once, not when one of north's pages ends: a small part of north's page's time
    (before, the pool had two threads and west waited for one of north's pages to end)."""
    server, tokens, _ = served
    north = server.upload([("verdicts.txt", verdicts_log)], tokens["north"])[0]
    assert north["status"] in ("stored", "duplicate") and north["hands"] < 2000
    west = server.upload([small_logs[-1]], tokens["west"])[0]
    hand = re.findall(rb"^Hand #(\S+)", small_logs[-1][1], re.M)[-1].decode()
    explain = f"/api/v1/uploads/{west['sha256']}/hands/{hand}/explain?format=json"
    assert server.request("GET", explain, headers=bearer(tokens["west"]))[0] == 200
    stop = threading.Event()
    pages: list[float] = []

    def north_reads() -> None:
        while not stop.is_set():
            started = time.monotonic()
            status, _, _ = server.request("GET", f"/uploads/{north['sha256']}",
                                          headers={"Cookie": f"audit_token={tokens['north']}"}, timeout=60)
            assert status == 200
            pages.append(time.monotonic() - started)

    readers = [threading.Thread(target=north_reads, daemon=True) for _ in range(2)]
    for reader in readers:
        reader.start()
    waits: list[float] = []
    try:
        time.sleep(1)
        for _ in range(6):
            started = time.monotonic()
            status, _, body = server.request("GET", explain, headers=bearer(tokens["west"]), timeout=60)
            waits.append(time.monotonic() - started)
            assert status == 200, body[:200]
            time.sleep(0.2)
    finally:
        stop.set()
        for reader in readers:
            reader.join(60)
    assert pages, "north's pages never ended"
    page = sorted(pages)[len(pages) // 2]
    # waiting for a thread meant about a whole page of north's (3.4-4.7 s against 4.5 s pages); now only a
    # share of the cores with north's two pages (0.2-0.5 s against 2.2-2.5 s on a busy 2-core machine)
    assert sum(waits) / len(waits) < page / 3, (waits, pages)


def test_a_dead_worker_is_replaced_and_the_upload_stored(tmp_path: Path,
                                                         small_logs: list[tuple[str, bytes]]) -> None:
    server = LiveServer(tmp_path / "workers.duckdb", "--workers", "2")
    try:
        assert {a["status"] for a in server.upload(small_logs[:4])} == {"stored"}
        workers = [pid for pid in children(server.proc.pid)
                   if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert workers, "no worker process"
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            status, _, body = server.request("GET", "/healthz")
            if status != 200:
                break
            time.sleep(0.1)
        assert status == 503 and json.loads(body)["status"] == "unavailable" and "worker" in json.loads(body)[
            "reason"], (status, body)
        answers = server.upload(small_logs[4:8])
        assert [a["status"] for a in answers] == ["stored"] * 4, answers
        assert server.json("GET", "/healthz") == {"status": "ok"}
        assert {a["status"] for a in server.upload(small_logs[8:10])} == {"stored"}
    finally:
        assert server.stop() == 0
    check_whole(tmp_path / "workers.duckdb")


def memory(pid: int, field: str = "VmHWM") -> int:
    """The process's resident memory now (``VmRSS``) or at its peak (``VmHWM``), in bytes."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1)) * 1024  # type: ignore[union-attr]


MEMORY_BOUND = 450 * 2**20
GROWTH_BOUND = 100 * 2**20
ARRIVING_BOUND = 40 * 2**20


def test_large_uploads_are_spooled_as_they_arrive_and_audited_within_a_memory_bound(
        tmp_path: Path, small_logs: list[tuple[str, bytes]]) -> None:
    """4 × 30 MB uploads at once (three raw bodies, one form). While their bodies arrive, the server's memory
    grows by less than 40 MB (they go to temporary files); once they are stored, its peak stayed under 450 MB
    (measured: 334 MB; 497 MB when each upload's bytes were one cell of ``uploads``)."""
    line = b"# a comment line, which the reader drops: the logs are large but quick to audit\n"
    pad = line * (30 * 2**20 // len(line) + 1)
    logs = [small_logs[i][1] + pad + small_logs[i + 4][1] for i in range(4)]
    server = LiveServer(tmp_path / "memory.duckdb")
    sockets = []
    try:
        heads = []
        for i, log in enumerate(logs):
            if i == 3:
                body, ctype = multipart([(f"large-{i}.txt", log)])
                target = "/api/v1/uploads"
            else:
                body, ctype = log, "text/plain"
                target = f"/api/v1/uploads?name=large-{i}.txt"
            head = (f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: {ctype}\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
            heads.append((head.encode(), body))
        before = memory(server.proc.pid, "VmRSS")
        for head, body in heads:  # all but the last kilobyte of each body, one after the other
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)
            sock.sendall(head + body[:-1024])
            sockets.append(sock)
        time.sleep(0.5)  # the server reads what is left in the sockets' buffers
        arriving = memory(server.proc.pid, "VmRSS") - before
        for sock, (_, body) in zip(sockets, heads):
            sock.sendall(body[-1024:])
        answers = []
        for sock in sockets:
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            answers.append(answer)
        peak = memory(server.proc.pid)
    finally:
        for sock in sockets:
            sock.close()
        assert server.stop() == 0
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 200") and b'"stored"' in answer, answer[:300]
    print(f"memory: +{arriving / 2**20:.0f} MB while the bodies arrived, peak {peak / 2**20:.0f} MB")
    assert arriving < ARRIVING_BOUND, f"+{arriving / 2**20:.0f} MB while 120 MB of bodies arrived"
    assert peak < MEMORY_BOUND, f"peak memory {peak / 2**20:.0f} MB"
    stored = rows(tmp_path / "memory.duckdb", "SELECT sha256, size FROM uploads")
    assert sorted(stored) == sorted((hashlib.sha256(b).hexdigest(), len(b)) for b in logs)


def test_the_memory_peak_does_not_grow_with_the_logs_the_service_holds(
        tmp_path: Path, small_logs: list[tuple[str, bytes]]) -> None:
    """Ten 30 MB uploads in a row, each stored and checkpointed: the server's peak after the last is within 100 MB
    of its peak after the fifth, under a DuckDB memory limit (measured: 317 MB, then 362 MB from the fourth on; it
    grew from 498 to 830 MB when each upload's bytes were one cell, which DuckDB rewrote whole at each checkpoint), and
    every log's bytes read back whole."""
    line = b"# a comment line, which the reader drops: the logs are large but quick to audit\n"
    pad = line * (30 * 2**20 // len(line) + 1)
    logs = [small_logs[i][1] + pad + small_logs[i + 10][1] for i in range(10)]
    db = tmp_path / "grow.duckdb"
    server = LiveServer(db)
    peaks = []
    try:
        for i, log in enumerate(logs):
            answer = server.json("POST", f"/api/v1/uploads?name=large-{i}.txt", log, {"Content-Type": "text/plain"})
            assert answer["uploads"][0]["status"] == "stored", answer
            peaks.append(memory(server.proc.pid))
    finally:
        assert server.stop() == 0
    print("memory peaks (MB):", [p // 2**20 for p in peaks])
    assert peaks[-1] - peaks[4] < GROWTH_BOUND, [p // 2**20 for p in peaks]
    assert peaks[-1] < MEMORY_BOUND, [p // 2**20 for p in peaks]
    assert rows(db, "SELECT octet_length(content) FROM uploads") == [(0,)] * len(logs)
    check_whole(db)


def test_a_hands_page_is_the_one_the_whole_log_gives(shared: Path) -> None:
    """The page of each hand, found without replaying the others, is what explaining the whole log gives (the
    first hand of each id), over the shared cases, real site logs and simulated sessions; an absent hand: none."""
    logs = sorted((shared / "cases").rglob("*.txt"))[::4] + sorted((shared / "real-hands").rglob("*.txt"))[:2]
    simulated = subprocess.run([AUDIT, "simulate", "--sessions", "6", "--seed", "5"], capture_output=True,
                               check=True).stdout
    checked = 0
    for name, data in [(p.name, p.read_bytes()) for p in logs] + [("simulated.txt", simulated)]:
        try:
            whole = [i for i in explain_bytes(data, _profile("home-open"), None, name)
                     if isinstance(i, HandExplanation)]
        except Exception:
            continue  # a log that cannot be read at all has no hand page either
        first: dict[str, dict[str, Any]] = {}
        for item in whole:
            if item.hand:
                first.setdefault(item.hand, item.as_dict())
        for hand, expected in first.items():
            page = hand_json(data, name, "home-open", hand)
            assert page is not None
            receipt = page.pop("receipt")  # what the page adds: the receipt of this hand of this log
            assert page == expected, (name, hand)
            assert (receipt["hand"], receipt["log_sha256"]) == (hand, hashlib.sha256(data).hexdigest()), (name, hand)
            checked += 1
        assert hand_json(data, name, "home-open", "no-such-hand") is None
    assert checked > 50




def test_a_clubs_turns_keep_its_slow_work_in_line() -> None:
    """Two jobs of a club run, two wait; a fifth is refused at once, a waiting one past the time limit too; a job
    whose client was answered still holds its turn until it ends; another club is never held up."""
    import asyncio

    from audit.serve.service import Busy, ClubTurns

    release = threading.Event()
    pool = ThreadPoolExecutor(8)

    def blocked(value: int) -> int:
        release.wait(10)
        return value

    async def scenario() -> None:
        turns = ClubTurns(running=2, waiting=2, limit=0.5)
        jobs = [asyncio.create_task(turns.run("east", pool, blocked, i)) for i in range(4)]
        await asyncio.sleep(0.05)
        with pytest.raises(Busy) as refused:
            await turns.run("east", pool, blocked, 9)
        assert refused.value.retry_after >= 1
        assert await turns.run("west", pool, lambda: "west answered") == "west answered"
        done = await asyncio.gather(*jobs, return_exceptions=True)
        assert all(isinstance(d, Busy) for d in done)  # two ran past the limit, two waited past it
        with pytest.raises(Busy):  # the two abandoned jobs still run: the club's turns are taken
            await turns.run("east", pool, lambda: "late")
        release.set()
        await asyncio.sleep(0.2)
        assert await turns.run("east", pool, lambda: "free again") == "free again"

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        pool.shutdown()


def test_audits_wait_for_memory_in_order() -> None:
    """At most the budget's bytes at once, first come first served; a log larger than the budget goes alone."""
    import asyncio

    from audit.serve.service import MemoryTurns

    async def scenario() -> list[tuple[str, int]]:
        budget = MemoryTurns(100)
        seen: list[tuple[str, int]] = []

        async def job(name: str, size: int) -> None:
            async with budget.hold(size):
                seen.append((name, budget.used))
                await asyncio.sleep(0.05)

        await asyncio.gather(job("a", 60), job("b", 30), job("big", 250), job("c", 10), job("d", 90))
        assert budget.used == 0
        return seen

    assert asyncio.run(scenario()) == [("a", 60), ("b", 90), ("big", 250), ("c", 100), ("d", 100)]


def test_the_guard_counts_requests_by_club_by_address_and_for_strangers() -> None:
    """Each limit refuses with 503 only the requests it counts: a club's, an address's, the strangers' of an
    address and of all addresses; ``/healthz`` is always answered; and every count is given back at the end."""
    import asyncio

    from audit.serve.guard import Guard

    async def scenario() -> None:
        release = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        guard = Guard(app, max_body=1000, read_timeout=1, body_deadline=5, max_requests=20,
                      identify=lambda scope: dict(scope["headers"]).get(b"x-club", b"").decode() or None,
                      club_requests=3, client_requests=5, stranger_requests=4, client_strangers=2)

        async def call(address: str, club: str | None = None, path: str = "/x") -> int:
            sent: list[int] = []

            async def send(message: Any) -> None:
                if message["type"] == "http.response.start":
                    sent.append(message["status"])

            async def receive() -> Any:
                return {"type": "http.request", "body": b"", "more_body": False}

            scope = {"type": "http", "method": "GET", "path": path, "client": (address, 1),
                     "headers": [(b"x-club", club.encode())] if club else []}
            await guard(scope, receive, send)
            return sent[0]

        held = [asyncio.create_task(call("10.0.0.1", "north")) for _ in range(3)]
        held += [asyncio.create_task(call("10.0.0.1")) for _ in range(2)]
        await asyncio.sleep(0.01)
        assert await call("10.0.0.2", "north") == 503  # the club's 3
        assert await call("10.0.0.1") == 503  # the address's strangers: 2
        assert await call("10.0.0.1", "east") == 503  # the address's 5
        held += [asyncio.create_task(call("10.0.0.2", "east")), asyncio.create_task(call("10.0.0.2")),
                 asyncio.create_task(call("10.0.0.3"))]
        await asyncio.sleep(0.01)
        assert await call("10.0.0.4") == 503  # the strangers' 4, from every address
        release_later = asyncio.get_running_loop().call_later(0.05, release.set)
        assert await call("10.0.0.1", path="/healthz") == 200
        release_later.cancel()
        release.set()
        assert await asyncio.gather(*held) == [200] * len(held)
        assert guard.counts == {} and guard.in_progress == 0

    asyncio.run(scenario())
