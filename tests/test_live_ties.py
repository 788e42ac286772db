"""The live table flags a tied pot claimed by one player at once (RULES.md, "Tied pots are split"), over a real
``audit serve`` process: the host taps a hand in which two players tie at the show down, then claims the whole pot
for one of them (a `collect` entry). The entry's answer carries `POT_WINNER` against the player who took it,
naming the one who was owed and the chips; claiming the split the table offered (odd chip included) flags
nothing; the hand is stored with its finding once the next hand begins."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from servehelp import Club, api_call, start_club

SEATS = [{"seat": 1, "player": "Ana", "chips": 100}, {"seat": 2, "player": "Beto", "chips": 100},
         {"seat": 3, "player": "Carla", "chips": 100}]
# Ana bets 4, both call (15 with the antes); Ana and Beto show the same two pair, Carla mucks: 8 to Ana (the odd
# chip, first left of the button), 7 to Beto
TIED_HAND = [("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2), ("Beto", "stand-pat"),
             ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"),
             ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"), ("Carla", "muck")]


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    live = start_club(tmp_path_factory.mktemp("live-ties") / "tables.duckdb")
    try:
        yield live
    finally:
        live[0].stop()


call = api_call


def play_tied_hand(club: Club) -> str:
    tid: str = call(club, "POST", "/api/v1/tables", {"name": "Casa", "profile": "home-open", "seats": SEATS,
                                                     "button": 3}, want=201)["id"]
    for e in TIED_HAND:
        entry: dict[str, Any] = {"player": e[0], "action": e[1]}
        if len(e) > 2:
            entry[{"bet": "to", "draw": "count", "show": "cards"}[str(e[1])]] = e[2]
        answer = call(club, "POST", f"/api/v1/tables/{tid}/events", entry)
        assert [f["rule"] for f in answer["findings"] if f["severity"] != "warning"] == [], entry
    return tid


def test_a_tied_pot_claimed_by_one_player_is_flagged_at_once(club: Club) -> None:
    tid = play_tied_hand(club)
    answer = call(club, "POST", f"/api/v1/tables/{tid}/events", {"player": "Beto", "action": "collect", "to": 15})
    [found] = [f for f in answer["findings"] if f["severity"] == "violation"]
    assert (found["rule"], found["player"], found["msg_id"]) == ("POT_WINNER", "Beto", "finding.POT_WINNER.tie_taken")
    assert found["message"] == "Ana tied with Beto for the pot and was owed a share of 8, but got 0: Beto took 8 chips of it."
    log = call_text(club, f"/api/v1/tables/{tid}/log")
    assert "Beto collected 15 from pot" in log and "Ana collected" not in log
    # the next hand begins: the claimed hand is stored as the club's upload, with its finding
    call(club, "POST", f"/api/v1/tables/{tid}/events", {"player": "Ana", "action": "check"})
    uploads = [u for u in call(club, "GET", "/api/v1/uploads") if f" - {tid} - hand 1" in u["name"]]
    assert len(uploads) == 1 and uploads[0]["violations"] == 1


def test_the_split_the_table_offers_is_not_flagged(club: Club) -> None:
    """The near miss: the host claims what the table paid (8 and 7), odd chip and all (a first claim alone
    leaves the pot part unpaid: only the claims together are the payout)."""
    tid = play_tied_hand(club)
    call(club, "POST", f"/api/v1/tables/{tid}/events", {"player": "Ana", "action": "collect", "to": 8})
    answer = call(club, "POST", f"/api/v1/tables/{tid}/events", {"player": "Beto", "action": "collect", "to": 7})
    assert [f["rule"] for f in answer["findings"]] == []
    log = call_text(club, f"/api/v1/tables/{tid}/log")
    assert "Ana collected 8 from pot\nBeto collected 7 from pot" in log


def call_text(club: Club, path: str) -> str:
    server, headers = club
    status, _, raw = server.request("GET", path, None, headers)
    assert status == 200
    return raw.decode()
