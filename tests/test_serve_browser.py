"""The service's pages in a real headless Chromium (Debian's, driven by Playwright, as test_explain_page.py does),
against a real ``audit serve`` process: paste a log into ``/``, see the verdict on a phone's first screen, follow
the link to the hand's dispute page; with JavaScript off too; names that look like HTML stay text. (The
``browser`` fixture is conftest's.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, SHARED, needs_shared
from servehelp import LiveServer

pytestmark = pytest.mark.slow  # every test drives the browser

ODD_CHIP = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"
REOPEN = FIXTURES / "demo" / "reopen-dispute.txt"
STARS = SHARED / "real-hands" / "pokerstars" / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("browser") / "pages.duckdb")
    try:
        yield live
    finally:
        live.stop()


class Watched:
    """A phone-sized page that records every request, dialog, script error and console error."""

    def __init__(self, browser: Any, javascript: bool = True) -> None:
        self.context = browser.new_context(viewport=PHONE, java_script_enabled=javascript)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

    def only_to(self, origin: str) -> bool:
        return all(u.startswith(origin + "/") or u.startswith("data:") for u in self.requests)

    def close(self) -> None:
        self.context.close()


def on_first_screen(locator: Any) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


@pytest.mark.parametrize("lang,javascript,sentence", [
    ("en", True, "Маша owed O'Neil 1 chip, corrected at the table before hand #387709"),
    ("es", False, "Маша debía 1 ficha a O'Neil; se corrigió en la mesa antes de la mano #387709"),
])
def test_paste_a_log_see_the_verdict_and_open_the_hand(browser: Any, server: LiveServer, tmp_path: Path, lang: str,
                                                       javascript: bool, sentence: str) -> None:
    w = Watched(browser, javascript)
    page = w.page
    page.goto(f"{server.origin}/?lang={lang}")
    page.fill("#text", ODD_CHIP.read_text(encoding="utf-8"))
    page.select_option("#lang", lang)
    page.click("button[type=submit].primary")
    page.wait_for_url("**/uploads/*")
    session = page.locator("section.verdict").first  # the table put the odd chip right before the next hand
    assert "387709" in session.inner_text() and session.locator("li.correction").count() == 0
    # hand 387708's own verdict: what it got wrong, in the past, and that the table put it right (nothing to pay)
    first = page.locator("section.verdict", has=page.locator("a.button[href*='/hands/387708?']"))
    assert first.locator("p.nothing").first.inner_text().startswith(sentence)
    assert first.locator("li.correction").count() == 0 and "bad" not in (first.get_attribute("class") or "")
    assert on_first_screen(session.locator("p.note").first) and on_first_screen(session.locator("p.nothing"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(tmp_path / f"result-{lang}.png"))
    hand = page.locator("section.verdict a.button[href*='/hands/387708?']")
    hand.click()
    page.wait_for_url("**/hands/387708*")
    verdict = page.locator(".verdict").first
    assert sentence in verdict.inner_text()
    assert on_first_screen(verdict)
    # the verdict's receipt: its short code and the line to copy, wrapped within the phone's width
    assert page.locator("section.receipt pre.receipt-line").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    if javascript:  # the page's own inline script ran under its Content-Security-Policy: the stepper works
        stage = page.locator(".stage").first
        before = stage.locator(".caption").inner_text()
        stage.locator("button.prev").click()
        assert stage.locator(".caption").inner_text() != before
    else:  # the whole hand is listed with JavaScript off
        assert page.locator("li.step").count() > 30
    page.screenshot(path=str(tmp_path / f"hand-{lang}.png"))
    assert w.only_to(server.origin), w.requests
    assert not w.errors and not w.dialogs, (w.errors, w.dialogs)
    w.close()


@needs_shared
def test_names_that_look_like_html_stay_text(browser: Any, server: LiveServer) -> None:
    stars = STARS.read_text(encoding="utf-8-sig").replace("Player4", "<script>alert(1)</script>") \
        .replace("Table VI", "<img src=x onerror=alert(2)>")
    house = REOPEN.read_text(encoding="utf-8").replace("Casa Pepe", "<script>alert(3)</script>") \
        .replace("Seat 2: Beto", "Seat 2: <b>Beto</b>")
    answers = server.upload([("<em onmouseover=alert(4)>stars.txt", stars.encode()), ("house.txt", house.encode())])
    assert [a["status"] for a in answers] == ["stored", "stored"]
    sha = answers[0]["sha256"]
    w = Watched(browser)
    page = w.page
    pages = [f"/uploads/{sha}", f"/uploads/{answers[1]['sha256']}", "/uploads",
             f"/uploads/{sha}/hands/49934100000?lang=es"]
    for path in pages:
        page.goto(server.origin + path)
        text = page.locator("body").inner_text()
        assert page.locator("script:not([src])").evaluate_all(
            "nodes => nodes.every(n => !n.textContent.includes('alert'))")
        injected = page.evaluate("""() => document.querySelectorAll('img[src="x"]').length
            + [...document.querySelectorAll('b')].filter(n => n.textContent === 'Beto').length
            + document.querySelectorAll('em').length""")
        assert injected == 0, path
        if path.startswith(f"/uploads/{sha}/hands"):
            assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(2)>" in text
        elif path == "/uploads":
            assert "<em onmouseover=alert(4)>stars.txt" in text and "<b>Beto</b>" in text
    assert not w.dialogs and not w.errors, (w.dialogs, w.errors)
    assert w.only_to(server.origin), w.requests
    w.close()
