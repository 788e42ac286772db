"""Issue 41, money said right on the pages, in a real headless Chromium (conftest's ``browser``), in English and
Spanish: the hand the table corrected says its debt in the past, as "nothing to pay"; the summary tables of a
hand's page need no sideways swipe on a 360 px phone; a disabled Previous / Next looks disabled; and, against a
real ``audit serve``, the result page keeps a reason's note on a line of its own and the result and uploads pages
show rule ids as large as the words beside them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from audit.cli import main
from conftest import FIXTURES
from servehelp import LiveServer

CORRECTED = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"
UNCORRECTED = FIXTURES / "demo" / "home-session-odd-chip-uncorrected.txt"
STRIPPED = FIXTURES / "demo" / "stripped32-tiebreak.txt"
PHONE = {"width": 360, "height": 740}
PAST = {"en": "Маша owed O'Neil 1 chip, corrected at the table before hand #387709: nothing is left to pay for it.",
        "es": "Маша debía 1 ficha a O'Neil; se corrigió en la mesa antes de la mano #387709: no queda nada que pagar "
              "por ello."}
OWES = {"en": "Маша owes O'Neil 1 chip.", "es": "Маша debe 1 ficha a O'Neil."}
LANGS = ["en", "es"]


def page_file(tmp: Path, path: Path, lang: str, *args: str) -> Path:
    out = tmp / f"{path.stem}-{lang}.html"
    result = CliRunner().invoke(main, ["explain", str(path), "--format", "html", "--lang", lang, "-o", str(out),
                                       *args])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture()
def phone(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport=PHONE)
    yield page
    page.close()


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_the_corrected_hand_says_its_debt_in_the_past(phone: Any, tmp_path: Path, lang: str) -> None:
    phone.goto(page_file(tmp_path, CORRECTED, lang, "--hand", "387708").as_uri())
    verdict = phone.locator("section.hand .verdict").first
    assert verdict.locator("li.correction").count() == 0 and "bad" not in (verdict.get_attribute("class") or "")
    assert verdict.locator("p.nothing").first.inner_text() == PAST[lang]
    assert OWES[lang] not in verdict.inner_text()
    # the twin nobody corrected still owes the chip, in a red box
    phone.goto(page_file(tmp_path, UNCORRECTED, lang, "--hand", "387708").as_uri())
    twin = phone.locator("section.hand .verdict").first
    assert "bad" in (twin.get_attribute("class") or "")
    assert twin.locator("li.correction").first.inner_text() == OWES[lang]


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_a_hands_summary_tables_fit_a_360_px_phone(phone: Any, tmp_path: Path, lang: str) -> None:
    for path in (CORRECTED, STRIPPED):
        phone.goto(page_file(tmp_path, path, lang).as_uri())
        assert phone.locator("table.players").count() and phone.locator("table.pots").count()
        wide = phone.evaluate("""() => [...document.querySelectorAll('.scroll')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).length""")
        assert wide == 0 and phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # each row is a card that names each value
        cell = phone.locator("table.players tbody tr").first.locator("td").nth(3)
        label = cell.evaluate("e => getComputedStyle(e, '::before').content")
        assert label.strip('"') == {"en": "Should receive", "es": "Debe recibir"}[lang]
    # on a laptop the tables are tables again
    phone.set_viewport_size({"width": 1280, "height": 800})
    assert phone.locator("table.players thead").first.is_visible()


def button_looks(page: Any, which: str) -> tuple[str, str, str]:
    return tuple(page.locator(f".stage button.{which}").first.evaluate(
        "e => { const s = getComputedStyle(e); return [s.color, s.backgroundColor, s.borderStyle]; }"))


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_a_disabled_previous_or_next_looks_disabled(phone: Any, tmp_path: Path, lang: str) -> None:
    phone.goto(page_file(tmp_path, CORRECTED, lang, "--hand", "387708").as_uri())
    stage = phone.locator(".stage").first
    phone.locator("li.step").first.click()  # the first step: no Previous
    assert stage.locator("button.prev").is_disabled() and not stage.locator("button.next").is_disabled()
    disabled, enabled = button_looks(phone, "prev"), button_looks(phone, "next")
    assert disabled[0] != enabled[0] and disabled[1] != enabled[1] and disabled[2] == "dashed"
    stage.locator("button.next").click()  # both enabled now: they look alike
    assert button_looks(phone, "prev") == button_looks(phone, "next")
    phone.locator("li.step").last.click()  # the last step: no Next, and it looks as Previous did
    assert stage.locator("button.next").is_disabled() and button_looks(phone, "next") == disabled


# ---------------------------------------------------------------------------------------------- the service
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("pages-money") / "pages.duckdb")
    try:
        yield live
    finally:
        live.stop()


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_the_result_page_keeps_notes_apart_and_rule_ids_readable(phone: Any, server: LiveServer, lang: str) -> None:
    [answer] = server.upload([("corrected.txt", CORRECTED.read_bytes())])
    phone.goto(f"{server.origin}/uploads/{answer['sha256']}?lang={lang}")
    reason = phone.locator("li.reason", has=phone.locator("small.follows")).first
    note = reason.locator("small.follows")
    line = reason.locator("small").first
    assert line.bounding_box()["y"] + line.bounding_box()["height"] <= note.bounding_box()["y"] + 0.5
    assert " 255\n" in reason.inner_text()  # "… line 255" then the note on its own line, not "255Corrected"
    body = float(phone.locator("li.reason").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
    for path in (f"/uploads/{answer['sha256']}?lang={lang}", f"/uploads?lang={lang}"):
        phone.goto(server.origin + path)
        sizes = phone.locator("code").evaluate_all("ns => ns.map(n => parseFloat(getComputedStyle(n).fontSize))")
        assert sizes and min(sizes) >= 12 and min(sizes) >= 0.8 * body, (path, sizes)
