"""``/api/v1/tables`` over a real ``audit serve`` process: simulated sessions of every profile entered through the
API, a restart in the middle of a hand, stale entries refused with 409, tables scoped to their club."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audit.profile import load_profile
from audit.serve.db import ServiceDB
from audit.serve.tokens import add_token
from audit.simulate import simulate_sessions
from livehelp import session_plan
from servehelp import LiveServer

SEATS = [{"seat": 1, "player": "Ana", "chips": 100}, {"seat": 2, "player": "Beto", "chips": 100},
         {"seat": 3, "player": "Carla", "chips": 100}]


@pytest.fixture(scope="module")
def tokens(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    db = tmp_path_factory.mktemp("live-api") / "tables.duckdb"
    service_db = ServiceDB(str(db))
    made = {club: add_token(service_db.con, club)[1] for club in ("north", "south")}
    service_db.close()
    return db, made


@pytest.fixture(scope="module")
def server(tokens: tuple[Path, dict[str, str]]) -> Iterator[LiveServer]:
    live = LiveServer(tokens[0])
    try:
        yield live
    finally:
        live.stop()


class Client:
    def __init__(self, server: LiveServer, token: str) -> None:
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        status, headers, raw = self.server.request(method, path, data, self.headers)
        if headers.get("content-type", "").startswith("application/json"):
            return status, json.loads(raw)
        return status, raw.decode()

    def ok(self, method: str, path: str, body: Any = None, want: int = 200) -> Any:
        status, got = self.call(method, path, body)
        assert status == want, (status, got)
        return got


@pytest.fixture(scope="module")
def north(server: LiveServer, tokens: tuple[Path, dict[str, str]]) -> Client:
    return Client(server, tokens[1]["north"])


@pytest.fixture(scope="module")
def south(server: LiveServer, tokens: tuple[Path, dict[str, str]]) -> Client:
    return Client(server, tokens[1]["south"])


@pytest.mark.parametrize("profile,options,seed", [("home-open", {}, 3), ("qdan", {}, 1), ("stripped32", {}, 3)])
def test_a_simulated_session_entered_through_the_api(north: Client, profile: str, options: dict[str, str],
                                                     seed: int) -> None:
    prof = load_profile(profile).with_options(list(options.items()))
    plan = session_plan(simulate_sessions(profile, 1, seed, list(options.items())), prof, options)
    opened = north.ok("POST", "/api/v1/tables", plan.table, want=201)
    tid, state = opened["id"], opened["state"]
    stored: list[dict[str, Any]] = []
    for hand in plan.hands:
        for planned in hand:
            assert (state["to_act"], state["allowed"]) == (planned.to_act, planned.allowed), planned.entry
            answer = north.ok("POST", f"/api/v1/tables/{tid}/events", {**planned.entry, "version": state["version"]})
            assert [f["rule"] for f in answer["findings"] if f["severity"] != "warning"] == []
            stored += answer["stored"]
            state = answer["state"]
    # a hand is stored once the next one begins (until then the host may still claim who collected what)
    assert len(stored) == len(plan.hands) - 1 and {s["status"] for s in stored} == {"stored"}
    verdict = north.ok("POST", f"/api/v1/tables/{tid}/close")
    assert (verdict["violations"], verdict["errors"]) == (0, 0)
    assert [(s["place"], s["player"], s["chips"]) for s in verdict["standings"]] == plan.standings
    # every hand played is the club's upload, audited clean
    mine = [u for u in north.ok("GET", "/api/v1/uploads") if f" - {tid} - hand " in u["name"]]
    assert len(mine) == len(plan.hands)
    assert all(u["violations"] == 0 and u["errors"] == 0 and u["hands"] == 1 for u in mine)
    log = north.ok("GET", f"/api/v1/tables/{tid}/log")
    assert log.startswith(f"Session: {tid}\nProfile: {profile}\n") and "Cards: shown" in log
    assert "*** SESSION END ***" in log and "Dealt to" not in log


def test_another_club_cannot_see_or_touch_a_table(north: Client, south: Client) -> None:
    tid = north.ok("POST", "/api/v1/tables", {"name": "Norte", "seats": SEATS, "button": 3}, want=201)["id"]
    for method, path, body in (("GET", "", None), ("POST", "/events", {"player": "Ana", "action": "fold"}),
                               ("POST", "/undo", None), ("POST", "/close", None), ("GET", "/log", None)):
        assert south.call(method, f"/api/v1/tables/{tid}{path}", body)[0] == 404
    assert tid not in {t["id"] for t in south.ok("GET", "/api/v1/tables")}
    assert tid in {t["id"] for t in north.ok("GET", "/api/v1/tables")}
    assert north.call("GET", f"/api/v1/tables/{tid}")[0] == 200


def test_entries_that_cannot_be_understood_are_400_and_rule_breaks_are_200(north: Client) -> None:
    tid = north.ok("POST", "/api/v1/tables", {"name": "Casa", "seats": SEATS, "button": 3}, want=201)["id"]
    for body in ({"player": "Zoe", "action": "fold"}, {"player": "Ana", "action": "dance"},
                 {"player": "Ana", "action": "bet"}, {"player": "Ana", "action": "show", "cards": "Xx"}, [1]):
        status, got = north.call("POST", f"/api/v1/tables/{tid}/events", body)
        assert status == 400 and got["detail"], (body, got)
    assert north.call("POST", "/api/v1/tables", {"name": "x", "seats": SEATS[:1]})[0] == 400
    north.ok("POST", f"/api/v1/tables/{tid}/events", {"player": "Ana", "action": "bet", "to": 6})
    answer = north.ok("POST", f"/api/v1/tables/{tid}/events", {"player": "Beto", "action": "raise", "to": 8})
    assert [f["rule"] for f in answer["findings"]] == ["RAISE_BELOW_MIN"]
    assert answer["findings"][0]["message"].startswith("Beto raised to 8")
    state = north.ok("POST", f"/api/v1/tables/{tid}/undo")
    assert state["to_act"] == "Beto" and state["findings"] == [] and state["version"] == 3
    assert north.call("POST", f"/api/v1/tables/{tid}/close")[0] == 409  # a hand is in play


def test_a_seat_off_the_starting_stack_is_flagged_as_the_table_opens(north: Client) -> None:
    short = [dict(s) for s in SEATS]
    short[2]["chips"] = 40  # home-open starts everyone at 100
    state = north.ok("POST", "/api/v1/tables", {"name": "Corto", "seats": short, "button": 3}, 201)["state"]
    assert [(f["rule"], f["player"], f["actual"]) for f in state["findings"]] == [("STACK_CONTINUITY", "Carla", "40")]
    state = north.ok("POST", "/api/v1/tables", {"name": "Justo", "seats": SEATS, "button": 3}, 201)["state"]
    assert state["findings"] == []


def test_a_stale_concurrent_entry_gets_409(north: Client) -> None:
    opened = north.ok("POST", "/api/v1/tables", {"name": "Casa", "seats": SEATS, "button": 3}, want=201)
    tid, version = opened["id"], opened["state"]["version"]
    answers: list[int] = []
    start = threading.Barrier(2)

    def phone(entry: dict[str, Any]) -> None:
        start.wait()
        answers.append(north.call("POST", f"/api/v1/tables/{tid}/events", {**entry, "version": version})[0])

    phones = [threading.Thread(target=phone, args=({"player": "Ana", "action": a},)) for a in ("check", "fold")]
    for p in phones:
        p.start()
    for p in phones:
        p.join()
    assert sorted(answers) == [200, 409]
    state = north.ok("GET", f"/api/v1/tables/{tid}")
    assert state["version"] == version + 1 and state["to_act"] == "Beto"
    assert north.call("POST", f"/api/v1/tables/{tid}/undo", {"version": version})[0] == 409


def open_and_enter(server: LiveServer, entries: list[dict[str, Any]]) -> str:
    """A table opened on ``server`` (no token: the local club) with ``entries`` made; its id."""
    headers = {"Content-Type": "application/json"}
    status, _, raw = server.request("POST", "/api/v1/tables", json.dumps(
        {"name": "Casa", "seats": SEATS, "button": 3}).encode(), headers)
    assert status == 201
    tid: str = json.loads(raw)["id"]
    for e in entries:
        assert server.request("POST", f"/api/v1/tables/{tid}/events", json.dumps(e).encode(), headers)[0] == 200
    return tid


def test_a_restart_in_the_middle_of_a_hand_loses_no_entry(tmp_path: Path) -> None:
    db = tmp_path / "restart.duckdb"
    first = LiveServer(db)
    entries = [{"player": "Ana", "action": "bet", "to": 4}, {"player": "Beto", "action": "call"},
               {"player": "Carla", "action": "raise", "to": 12}]
    try:
        tid = open_and_enter(first, entries)
        before = first.json("GET", f"/api/v1/tables/{tid}")
    finally:
        first.stop(signal.SIGKILL)  # no clean shutdown: what was answered must already be stored
    again = LiveServer(db)
    try:
        after = again.json("GET", f"/api/v1/tables/{tid}")
        assert after == before and after["to_act"] == "Ana" and after["allowed"]["to_call"] == 8
        log = again.request("GET", f"/api/v1/tables/{tid}/log")[2].decode()
        assert log.endswith("Ana: bets 4\nBeto: calls 4\nCarla: raises 8 to 12\n")
    finally:
        assert again.stop() == 0


def test_a_hand_stored_stays_as_stored_after_an_undo_and_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sealed.duckdb"
    first = LiveServer(db)
    hand = [{"player": "Ana", "action": "bet", "to": 4}, {"player": "Beto", "action": "call"},
            {"player": "Carla", "action": "call"}, {"player": "Ana", "action": "draw", "count": 2},
            {"player": "Beto", "action": "stand-pat"}, {"player": "Carla", "action": "draw", "count": 1},
            {"player": "Ana", "action": "check"}, {"player": "Beto", "action": "check"},
            {"player": "Carla", "action": "check"}, {"player": "Ana", "action": "show", "cards": "Kc Kd 7s 7h 2c"},
            {"player": "Beto", "action": "show", "cards": "Ks Kh 7c 7d 2d"}, {"player": "Carla", "action": "muck"}]
    headers = {"Content-Type": "application/json"}
    try:
        tid = open_and_enter(first, hand)
        assert first.json("GET", f"/api/v1/tables/{tid}")["may_collect"]
        status, _, raw = first.request("POST", f"/api/v1/tables/{tid}/events",
                                       json.dumps({"player": "Beto", "action": "check"}).encode(), headers)
        assert status == 200 and len(json.loads(raw)["stored"]) == 1  # hand 1 is the club's upload now
        assert first.request("POST", f"/api/v1/tables/{tid}/undo")[0] == 200
        state = first.json("GET", f"/api/v1/tables/{tid}")
        assert state["hand"] == "2" and state["entries"] == len(hand) and not state["may_collect"]
    finally:
        first.stop(signal.SIGKILL)
    again = LiveServer(db)
    try:
        after = again.json("GET", f"/api/v1/tables/{tid}")
        assert not after["may_collect"] and after["hand"] == "2" and after["entries"] == len(hand)
        claim = {"player": "Beto", "action": "collect", "to": 8}
        assert again.request("POST", f"/api/v1/tables/{tid}/events", json.dumps(claim).encode(), headers)[0] == 400
    finally:
        assert again.stop() == 0


@pytest.mark.parametrize("path", ["", "/{tid}/events", "/{tid}/undo", "/{tid}/close"])
def test_json_nested_thousands_deep_is_400_and_a_large_body_413(north: Client, path: str) -> None:
    tid = north.ok("POST", "/api/v1/tables", {"name": "Casa", "seats": SEATS, "button": 3}, want=201)["id"]
    url = "/api/v1/tables" + path.format(tid=tid)
    nested = b"[" * 30000 + b"]" * 30000  # (under the routes' 64 KB: the parser, not the size, refuses it)
    status, _, raw = north.server.request("POST", url, nested, north.headers)
    assert status == 400 and json.loads(raw)["detail"] == "the body must be JSON"
    status, _, raw = north.server.request("POST", url, b" " * (64 * 1024 + 1), north.headers)
    assert status == 413 and "65,536 bytes" in json.loads(raw)["detail"]
    assert north.server.request("GET", "/healthz")[0] == 200
    assert north.ok("GET", f"/api/v1/tables/{tid}")["version"] == 0  # nothing changed


@pytest.mark.parametrize("name", ["Session", "Profile", "Option", "Cards", "Seat", "Table", "Hand", "Total",
                                  "Uncalled", "Pot", "PokerStars", "1", "12", "0", "¹", "²", "٣"])
def test_a_name_the_log_would_read_as_another_line_is_refused(north: Client, name: str) -> None:
    before = north.ok("GET", "/api/v1/tables")
    seats = [{"seat": 1, "player": name, "chips": 100}, {"seat": 2, "player": "Zed", "chips": 100}]
    status, got = north.call("POST", "/api/v1/tables", {"name": "Casa", "seats": seats, "button": 1})
    assert status == 400 and "would read as another line" in got["detail"], (status, got)
    assert north.ok("GET", "/api/v1/tables") == before  # nothing stored


@pytest.mark.slow  # a load test: 400 hands entered, then another club timed against the undo
def test_a_long_table_does_not_hold_another_clubs_requests(north: Client, south: Client) -> None:
    """Heads-up folds: each entry plays out a hand. North's undo (and entries) run in north's turn, off the event
    loop, so south's requests meanwhile answer as quickly as ever (the undo replayed every entry on the event loop,
    and south waited for all of it)."""
    seats = [{"seat": 1, "player": "A", "chips": 10 ** 8}, {"seat": 2, "player": "B", "chips": 10 ** 8}]
    opened = north.ok("POST", "/api/v1/tables", {"name": "Long", "profile": "stripped32", "seats": seats,
                                                 "button": 1}, want=201)
    tid, state = opened["id"], opened["state"]
    for _ in range(400):
        state = north.ok("POST", f"/api/v1/tables/{tid}/events", {"player": state["to_act"], "action": "fold"})["state"]
    state = north.ok("POST", f"/api/v1/tables/{tid}/events", {"player": state["to_act"], "action": "call"})["state"]
    north_took: list[float] = []
    south_took: list[float] = []
    done = threading.Event()

    def south_asks() -> None:
        while not done.is_set():
            for path in ("/api/v1/uploads", "/healthz"):
                t0 = time.monotonic()
                assert south.call("GET", path)[0] == 200
                south_took.append(time.monotonic() - t0)
            time.sleep(0.02)

    asking = threading.Thread(target=south_asks)
    asking.start()
    try:
        time.sleep(0.2)
        for _ in range(3):
            t0 = time.monotonic()
            state = north.ok("POST", f"/api/v1/tables/{tid}/undo")
            north_took.append(time.monotonic() - t0)
            t0 = time.monotonic()
            state = north.ok("POST", f"/api/v1/tables/{tid}/events", {"player": state["to_act"], "action": "call"})
            north_took.append(time.monotonic() - t0)
        time.sleep(0.2)
    finally:
        done.set()
        asking.join()
    assert state["state"]["hand"] == "401"
    # south never waits for north's table: at most a second (a slow machine), or a third of north's slowest step
    assert max(south_took) < max(1.5, max(north_took) / 3), (max(south_took), north_took)
