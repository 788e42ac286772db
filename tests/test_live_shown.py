"""What the shown cards prove, at the live table (FORMAT.md, ``Cards: shown``, "What the shown cards prove"),
over a real ``audit serve`` process: under ``qdan`` (``draw-limit = 3+ace``) a player who draws four says, in the
table's ``unchecked``, that his draw is not judged yet; when he then shows a hand with no ace the hand's
``DRAW_LIMIT`` is flagged at the entry that ends it; one who shows an ace leaves it unjudged, and the table says so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from servehelp import Club, api_call, start_club

SEATS = [{"seat": 1, "player": "Ana", "chips": 2000}, {"seat": 2, "player": "Beto", "chips": 2000}]


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    live = start_club(tmp_path_factory.mktemp("live-shown") / "tables.duckdb")
    try:
        yield live
    finally:
        live[0].stop()


call = api_call


def play(club: Club, shown: str) -> tuple[list[str], list[dict[str, Any]]]:
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


def test_a_draw_of_four_shown_without_an_ace_is_flagged(club: Club) -> None:
    unchecked, found = play(club, "Kc Kd 7s 7h 2c")
    assert "draw_limit" in unchecked  # not judged while his cards are not shown
    [hit] = [f for f in found if f["rule"] == "DRAW_LIMIT"]
    assert (hit["player"], hit["msg_id"]) == ("Ana", "finding.DRAW_LIMIT.shown_no_ace")


def test_a_draw_of_four_shown_with_an_ace_is_not(club: Club) -> None:
    unchecked, found = play(club, "Ac Kd 7s 7h 2c")
    assert "draw_limit" in unchecked
    assert [f["rule"] for f in found if f["severity"] == "violation"] == []
