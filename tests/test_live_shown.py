"""What the shown cards prove, at the live table (FORMAT.md, ``Cards: shown``, "What the shown cards prove"),
over a real ``audit serve`` process: under ``qdan`` (``draw-limit = 3+ace``) a player who draws four says, in the
table's ``unchecked``, that his draw is not judged yet; when he then shows a hand with no ace the hand's
``DRAW_LIMIT`` is flagged at the entry that ends it; one who shows an ace leaves it unjudged, and the table says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from audit.serve.db import ServiceDB
from audit.serve.tokens import add_token
from servehelp import LiveServer

SEATS = [{"seat": 1, "player": "Ana", "chips": 2000}, {"seat": 2, "player": "Beto", "chips": 2000}]


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    db = tmp_path_factory.mktemp("live-shown") / "tables.duckdb"
    service_db = ServiceDB(str(db))
    token = add_token(service_db.con, "north")[1]
    service_db.close()
    live = LiveServer(db)
    try:
        yield live, {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    finally:
        live.stop()


def call(club: tuple[LiveServer, dict[str, str]], method: str, path: str, body: Any = None,
         want: int = 200) -> Any:
    server, headers = club
    status, _, raw = server.request(method, path, None if body is None else json.dumps(body).encode(), headers)
    assert status == want, (status, raw[:300])
    return json.loads(raw)


def play(club: tuple[LiveServer, dict[str, str]], shown: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Ana bets 20, Beto calls, Ana draws four, Beto stands pat, both check, Ana shows ``shown`` and Beto
    mucks: the table's ``unchecked`` after Ana's draw, and the findings of every entry."""
    tid = call(club, "POST", "/api/v1/tables", {"name": "Qdan", "profile": "qdan", "seats": SEATS, "button": 2},
               want=201)["id"]
    found: list[dict[str, Any]] = []
    unchecked: list[str] = []
    for entry in ({"player": "Ana", "action": "bet", "to": 20}, {"player": "Beto", "action": "call"},
                  {"player": "Ana", "action": "draw", "count": 4}, {"player": "Beto", "action": "stand-pat"},
                  {"player": "Ana", "action": "check"}, {"player": "Beto", "action": "check"},
                  {"player": "Ana", "action": "show", "cards": shown}, {"player": "Beto", "action": "muck"}):
        answer = call(club, "POST", f"/api/v1/tables/{tid}/events", entry)
        found += answer["findings"]
        if entry["action"] == "draw":
            unchecked = answer["state"]["unchecked"] if "state" in answer else \
                call(club, "GET", f"/api/v1/tables/{tid}")["unchecked"]
    return unchecked, found


def test_a_draw_of_four_shown_without_an_ace_is_flagged(club: tuple[LiveServer, dict[str, str]]) -> None:
    unchecked, found = play(club, "Kc Kd 7s 7h 2c")
    assert "draw_limit" in unchecked  # not judged while his cards are not shown
    [hit] = [f for f in found if f["rule"] == "DRAW_LIMIT"]
    assert (hit["player"], hit["msg_id"]) == ("Ana", "finding.DRAW_LIMIT.shown_no_ace")


def test_a_draw_of_four_shown_with_an_ace_is_not(club: tuple[LiveServer, dict[str, str]]) -> None:
    unchecked, found = play(club, "Ac Kd 7s 7h 2c")
    assert "draw_limit" in unchecked
    assert [f["rule"] for f in found if f["severity"] == "violation"] == []
