"""The live table's pages in a real headless Chromium at 390 px against a real ``audit serve``: a hand of three
played to a split pot with one tap per action, in English and in Spanish, a broken rule warned and undone, and the
hand found among the club's uploads with its verdict. (The ``browser`` fixture is conftest's.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from servehelp import LiveServer

pytestmark = pytest.mark.slow  # every test drives the browser

PHONE = {"width": 390, "height": 844}
WORDS = {
    "en": {"turn": "{p} to act", "warn": "Beto raised to 3", "collects": "Ana collects 5 from the pot",
           "counts": "1 hand · 0 violations", "verdict": "1 hand with nothing to correct",
           "clean": "Every rule was kept."},
    "es": {"turn": "Le toca a {p}", "warn": "Beto subió hasta 3", "collects": "Ana se lleva 5 del bote",
           "counts": "1 mano · 0 infracciones", "verdict": "1 mano sin nada que corregir",
           "clean": "Se cumplieron todas las reglas."},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("live-page") / "tables.duckdb")
    try:
        yield live
    finally:
        live.stop()


def tap(page: Any, value: str) -> None:
    page.locator(f'form#act button[value="{value}"]').click()
    page.wait_for_load_state()


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_hand_of_three_to_a_split_pot_on_a_phone(browser: Any, server: LiveServer, lang: str) -> None:
    words = WORDS[lang]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{server.origin}/tables?lang={lang}")
        page.fill("#name", f"Casa {lang}")
        for i, name in enumerate(("Ana", "Beto", "Carla"), start=1):
            page.fill(f'input[name="player{i}"]', name)
            page.fill(f'input[name="chips{i}"]', "100")
        page.fill("#button", "3")
        page.locator("form.open button[type=submit]").click()
        page.wait_for_load_state()
        turn = page.locator("#turn")
        assert turn.inner_text() == words["turn"].format(p="Ana")
        assert float(turn.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 28
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # the amounts are filled in: the minimum bet (half the pot, 1, is below it), the pot, all-in
        assert page.locator('form#act button[value^="bet:"]').evaluate_all("bs => bs.map(b => b.value)") == [
            "bet:2", "bet:3", "bet:99"]
        tap(page, "bet:2")
        assert turn.inner_text() == words["turn"].format(p="Beto")
        # an under-raise: warned at once, then undone
        page.fill('form#act input[name="to"]', "3")
        tap(page, "other")
        assert words["warn"] in page.locator("#warning").inner_text()
        page.locator("#warning form.undo button").click()
        page.wait_for_load_state()
        assert page.locator("#warning").count() == 0 and turn.inner_text() == words["turn"].format(p="Beto")
        for value in ("call", "call", "draw:2", "stand-pat", "draw:1", "check", "check", "check"):
            tap(page, value)
        assert turn.inner_text() == words["turn"].format(p="Ana")
        for cards in ("Kc Kd 7s 7h 2c", "Ks Kh 7c 7d 2d"):
            page.fill('form#act input[name="cards"]', cards)
            tap(page, "show")
        tap(page, "muck")
        done = page.locator("#last-hand").inner_text()
        assert words["collects"] in done
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.locator("form.close button").click()  # the session ends: its verdict, and the hand is stored
        page.wait_for_load_state()
        assert words["clean"] in page.locator("#verdict").inner_text()
        page.locator("#last-hand a").click()
        page.wait_for_load_state()
        item = page.locator("li.upload-item", has_text=f"Casa {lang}")
        assert item.count() == 1 and words["counts"] in item.inner_text()
        item.locator("a").first.click()
        page.wait_for_load_state()
        assert words["verdict"] in page.locator("main").inner_text()
    finally:
        context.close()


BARS = {"en": ("the pot", "main pot", "side pot 1"), "es": ("el bote", "bote principal", "bote lateral 1")}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_pots_are_one_without_an_all_in_and_split_at_one_on_a_phone(browser: Any, server: LiveServer,
                                                                        lang: str) -> None:
    """Issue 39: a bet of 2, a raise to 8 and a raise to 10 with everyone holding 40 or more draw one pot (the
    page drew four); an all-in draws the main pot and a side pot, named as the language says them."""
    the_pot, main, side = BARS[lang]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()

    def bars() -> list[str]:
        return [b.inner_text() for b in page.locator(".potbar .lbl").all()]

    def raise_to(amount: int) -> None:
        page.fill('form#act input[name="to"]', str(amount))
        tap(page, "other")

    try:
        page.goto(f"{server.origin}/tables?lang={lang}")
        page.fill("#name", f"Botes {lang}")
        for i, (name, chips) in enumerate((("Ana", 100), ("Beto", 100), ("Carla", 100), ("Dario", 40)), start=1):
            page.fill(f'input[name="player{i}"]', name)
            page.fill(f'input[name="chips{i}"]', str(chips))
        page.fill("#button", "4")
        page.locator("form.open button[type=submit]").click()
        page.wait_for_load_state()
        tap(page, "bet:2")
        raise_to(8)
        raise_to(10)
        assert bars() == [f"{the_pot} · 22"]  # Carla's 2 nobody has called is still in front of her
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        tap(page, "raise:39")  # Dario all-in (his 40 less the ante)
        for _ in range(3):
            tap(page, "call")
        assert bars() == [f"{the_pot} · 160"]  # everyone in for the same: still one pot
        for _ in range(4):
            tap(page, "stand-pat")
        tap(page, "bet:2")  # Ana bets after the all-in: a side pot Dario cannot win
        tap(page, "call")
        assert bars()[0] == f"{main} · 160" and bars()[1].startswith(f"{side} · ")
    finally:
        context.close()
