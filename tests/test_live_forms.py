"""The live table's pages in process (FastAPI's TestClient): the forms of ``/tables/{id}`` as entries (a claim of
who collected what, parole), what a form that cannot be understood gets, another club's table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from audit.serve.app import create_app
from audit.serve.service import Settings

HOME = "http://127.0.0.1:8000"
FORM = {"Origin": HOME}
SEATS = [{"seat": 1, "player": "Ana", "chips": 100}, {"seat": 2, "player": "Beto", "chips": 100},
         {"seat": 3, "player": "Carla", "chips": 100}]


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db=str(tmp_path / "forms.duckdb"))), base_url=HOME,
                    client=("127.0.0.1", 50123)) as c:
        yield c


def play(c: TestClient, tid: str, *entries: tuple[Any, ...]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for e in entries:
        body: dict[str, Any] = {"player": e[0], "action": e[1]}
        if len(e) > 2:
            body[{"bet": "to", "draw": "count", "show": "cards"}[e[1]]] = e[2]
        r = c.post(f"/api/v1/tables/{tid}/events", json=body)
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    return state


def buttons(page: str) -> list[str]:
    return re.findall(r'<button type="submit" name="act" value="([^"]+)"', page)


def test_a_claim_made_on_the_page_is_judged_at_once(client: TestClient) -> None:
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": SEATS, "button": 3}).json()["id"]
    state = play(client, tid, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2),
                 ("Beto", "stand-pat"), ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"),
                 ("Carla", "check"), ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"),
                 ("Carla", "muck"))
    page = client.get(f"/tables/{tid}?lang=en").text
    assert 'id="claim"' in page and "Ana collects 8 from the pot" in page
    version = state["version"]
    for player, chips in (("Beto", "8"), ("Ana", "7")):
        r = client.post(f"/tables/{tid}?lang=en", data={"player": player, "act": "collect", "collect_to": chips,
                                                         "version": str(version)}, headers=FORM,
                        follow_redirects=False)
        assert r.status_code == 303
        version += 1
    page = client.get(f"/tables/{tid}?lang=es").text
    assert "Beto se lleva 8 del bote" in page
    assert "La ficha sobrante del bote fue para Beto; era para Ana" in page
    r = client.post(f"/tables/{tid}?lang=en", data={"player": "Ana", "act": "collect", "collect_to": "x",
                                                     "version": str(version)}, headers=FORM)
    assert r.status_code == 400 and "whole number" in r.text
    stale = client.post(f"/tables/{tid}?lang=en", data={"player": "Ana", "act": "check", "version": "1"},
                        headers=FORM)
    assert stale.status_code == 409 and "Someone else made an entry first" in stale.text


def test_parole_buttons_for_the_offer_then_the_answers(client: TestClient) -> None:
    tid = client.post("/api/v1/tables", json={"name": "Mesa", "profile": "stripped32", "seats": SEATS,
                                              "button": 3}).json()["id"]
    state = play(client, tid, ("Carla", "call"), ("Ana", "call"), ("Beto", "check"), ("Ana", "stand-pat"),
                 ("Beto", "stand-pat"), ("Carla", "stand-pat"))
    assert state["to_act"] == "Carla" and "offer-parole" in buttons(client.get(f"/tables/{tid}").text)
    r = client.post(f"/tables/{tid}?lang=en", data={"player": "Carla", "act": "offer-parole",
                                                     "version": str(state["version"])}, headers=FORM,
                    follow_redirects=False)
    assert r.status_code == 303
    page = client.get(f"/tables/{tid}?lang=en").text
    assert "Ana to act" in page and buttons(page) == ["accept-parole", "decline-parole"]
    play(client, tid, ("Ana", "accept-parole"), ("Beto", "decline-parole"))
    log = client.get(f"/api/v1/tables/{tid}/log").text
    assert "Carla: offers parole\nAna: accepts parole\nBeto: declines parole\n" in log
    assert log.count("from pot (parole)") == 3  # 6 chips split three ways


def test_another_clubs_or_no_table_is_not_found(client: TestClient) -> None:
    assert client.get("/tables/nope").status_code == 404
    assert client.post("/tables/nope", data={"act": "fold"}, headers=FORM).status_code == 404
    r = client.post("/tables?lang=es", data={"name": "", "player1": "Ana", "chips1": "5"}, headers=FORM)
    assert r.status_code == 400 and 'class="problem"' in r.text


@pytest.mark.parametrize("digit", ["²", "٣", "1²"])
def test_a_number_in_other_digits_is_refused_as_any_other_bad_number(client: TestClient, digit: str) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` fails: the forms take ASCII digits only."""
    seats = {"name": "Casa", "profile": "home-open", "player1": "Ana", "chips1": "50", "player2": "Beto",
             "chips2": "50"}
    for form in ({**seats, "chips1": digit}, {**seats, "button": digit}, {**seats, "small_blind": digit}):
        r = client.post("/tables?lang=en", data=form, headers=FORM, follow_redirects=False)
        assert r.status_code == 400 and 'class="problem"' in r.text, form
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": SEATS, "button": 3}).json()["id"]
    for form in ({"player": "Ana", "act": f"bet:{digit}"}, {"player": "Ana", "act": "other", "verb": "bet",
                                                              "to": digit}):
        r = client.post(f"/tables/{tid}?lang=en", data=form, headers=FORM)
        assert r.status_code == 400 and "whole number" in r.text, form
    r = client.post(f"/tables/{tid}?lang=en", data={"player": "Ana", "act": "check", "version": digit},
                    headers=FORM, follow_redirects=False)
    assert r.status_code == 303  # a version that is no number is no version: the entry applies as the table is
    for path in ("undo", "close"):
        assert client.post(f"/tables/{tid}/{path}?lang=en", data={"version": digit}, headers=FORM).status_code < 500
    state = client.get(f"/api/v1/tables/{tid}").json()
    assert (state["entries"], state["version"], state["closed"]) == (0, 3, True)  # checked, taken back, closed
