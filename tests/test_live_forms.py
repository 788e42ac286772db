"""The live table's pages in process (FastAPI's TestClient): the forms of ``/tables/{id}`` as entries (a claim of
who collected what, parole), what a form that cannot be understood gets, another club's table."""

from __future__ import annotations

import html
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
            body[{"bet": "to", "raise": "to", "draw": "count", "show": "cards"}[e[1]]] = e[2]
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


def entry_form(client: TestClient, tid: str, lang: str, **form: str) -> Any:
    version = client.get(f"/api/v1/tables/{tid}").json()["version"]
    return client.post(f"/tables/{tid}?lang={lang}", data={**form, "version": str(version)}, headers=FORM,
                       follow_redirects=False)


@pytest.mark.parametrize("lang,words,not_words", [
    ("es", ["La cantidad: lo que el jugador pone en total", "No hay ninguna anotación que deshacer",
            "El nombre de la mesa"], ["to: the player", "there is no entry", "name: one line"]),
    ("en", ["to: the player's total this round", "there is no entry to take back", "name: one line"], []),
])
def test_refusals_are_said_in_the_pages_language(client: TestClient, lang: str, words: list[str],
                                                 not_words: list[str]) -> None:
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": SEATS, "button": 3}).json()["id"]
    seen = [entry_form(client, tid, lang, player="Ana", act="other", verb="bet", to="x")]
    play(client, tid, ("Ana", "bet", 4), ("Beto", "fold"), ("Carla", "fold"))  # hand 2: nothing to take back
    version = client.get(f"/api/v1/tables/{tid}").json()["version"]
    seen.append(client.post(f"/tables/{tid}/undo?lang={lang}", data={"version": str(version)}, headers=FORM))
    seen.append(client.post(f"/tables?lang={lang}", data={"name": "", "player1": "Ana", "chips1": "5"},
                            headers=FORM))
    assert [r.status_code for r in seen] == [400, 409, 400]
    for r, said in zip(seen, words):
        problem = re.search(r'<p class="problem" role="alert">([^<]*)</p>', r.text)
        assert problem is not None and said in html.unescape(problem.group(1)), r.text[:300]
        assert not any(w in html.unescape(problem.group(1)) for w in not_words)
    assert "there is no entry to take back" in client.post(f"/api/v1/tables/{tid}/undo").text  # the API: English


def test_the_undo_button_sits_under_its_own_entrys_warning_only(client: TestClient) -> None:
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": SEATS, "button": 3}).json()["id"]
    play(client, tid, ("Ana", "bet", 4), ("Beto", "bet", 5))
    page = client.get(f"/tables/{tid}?lang=en").text
    warning = page[page.index('id="warning"'):page.index("</div>", page.index('id="warning"'))]
    assert "Beto raised to 5" in warning and "/undo" in warning
    play(client, tid, ("Carla", "call"))
    page = client.get(f"/tables/{tid}?lang=en").text
    assert 'id="warning"' not in page and 'id="earlier-warnings"' in page and "Beto raised to 5" in page
    assert page.count("/undo?") == 1  # the foot's undo: it takes back Carla's call
    play(client, tid, ("Ana", "fold"), ("Beto", "fold"))  # Carla wins: hand 2, no entry yet
    page = client.get(f"/tables/{tid}?lang=es").text
    assert "/undo?" not in page and 'id="warning"' not in page


def test_the_amount_buttons_keep_all_in_at_the_stack_and_say_half_pot_only_for_half_the_pot(
        client: TestClient) -> None:
    seats = [dict(s) for s in SEATS]
    seats[2]["chips"] = 40  # Carla: 39 after the ante
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": seats, "button": 3}).json()["id"]
    state = play(client, tid, ("Ana", "bet", 10), ("Beto", "raise", 20))
    assert state["allowed"]["all_in_to"] == 39 and state["allowed"]["half_pot_to"] is None
    page = client.get(f"/tables/{tid}?lang=en").text
    labels = re.findall(r'value="raise:(\d+)">[^<]*<small>([^<]*)</small>', page)
    assert labels == [("30", "minimum"), ("39", "all-in")]  # half the pot (46) and the pot (73) are beyond her
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": SEATS, "button": 3}).json()["id"]
    state = play(client, tid, ("Ana", "bet", 10), ("Beto", "raise", 20))
    page = client.get(f"/tables/{tid}?lang=en").text
    labels = re.findall(r'value="raise:(\d+)">[^<]*<small>([^<]*)</small>', page)
    # the pot after Carla's call: 3 + 10 + 20 + 20 = 53; half of it over the bet of 20 is 46, the pot 73
    assert labels == [("30", "minimum"), ("46", "half pot"), ("73", "pot"), ("99", "all-in")]


def test_spanish_pot_bars_and_the_close_saying_who_owes_whom(client: TestClient) -> None:
    seats = [dict(s) for s in SEATS]
    seats[2]["chips"] = 20
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": seats, "button": 3}).json()["id"]
    play(client, tid, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "raise", 19), ("Ana", "raise", 40),
         ("Beto", "call"))
    page = client.get(f"/tables/{tid}?lang=es").text
    bars = re.findall(r'<span class="lbl">([^<]*) · <b>(\d+)</b>', page)
    assert bars == [("bote principal", "60"), ("bote lateral 1", "42")]
    tid = client.post("/api/v1/tables", json={"name": "Casa", "seats": SEATS, "button": 3}).json()["id"]
    play(client, tid, ("Ana", "bet", 4), ("Beto", "call"), ("Carla", "call"), ("Ana", "draw", 2),
         ("Beto", "stand-pat"), ("Carla", "draw", 1), ("Ana", "check"), ("Beto", "check"), ("Carla", "check"),
         ("Ana", "show", "Kc Kd 7s 7h 2c"), ("Beto", "show", "Ks Kh 7c 7d 2d"), ("Carla", "muck"))
    for player, chips in (("Beto", 8), ("Ana", 7)):  # the odd chip to Beto: it was Ana's
        assert client.post(f"/api/v1/tables/{tid}/events", json={"player": player, "action": "collect",
                                                                  "to": chips}).status_code == 200
    version = client.get(f"/api/v1/tables/{tid}").json()["version"]
    r = client.post(f"/tables/{tid}/close?lang=es", data={"version": str(version)}, headers=FORM)
    assert r.status_code == 200 and "Quién debe a quién" in r.text and "Beto debe 1 ficha a Ana." in r.text
    verdict = client.post(f"/api/v1/tables/{tid}/close").json()
    assert verdict["owes"] == [{"from": "Beto", "to": "Ana", "chips": 1}]


def test_under_pot_limit_the_pot_button_is_the_largest_raise(client: TestClient) -> None:
    tid = client.post("/api/v1/tables", json={"name": "Mesa", "profile": "stripped32", "seats": SEATS, "button": 3,
                                              "options": {"betting": "pot-limit", "parole": "no"}}).json()["id"]
    state = client.get(f"/api/v1/tables/{tid}").json()
    allowed = state["allowed"]  # Carla after the blinds of 1 and 2: the pot after her call is 5, to 2 + 5 = 7
    assert (state["to_act"], allowed["pot_to"], allowed["max_to"], allowed["all_in_to"]) == ("Carla", 7, 7, None)
    labels = re.findall(r'value="raise:(\d+)">[^<]*<small>([^<]*)</small>', client.get(f"/tables/{tid}").text)
    assert labels == [("4", "minimum"), ("7", "pot")]  # half the pot, 2 + 2 = 4, is the minimum
