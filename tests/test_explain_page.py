"""The dispute page of ``audit explain`` (issue: the reason next to the verdict, Spanish all the way, money as
money, a hand to step through): in a real headless Chromium on a phone and a laptop, and, for every fixture,
the Spanish page checked against the English catalogue."""

from __future__ import annotations

import html
import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.explain import explain_file, render_html, render_text
from audit.findings import Finding
from audit.words import catalogue

from conftest import at_least, needs_shared

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"
ODD_CHIP = DEMO / "home-session-odd-chip-dispute.txt"
REOPEN = DEMO / "reopen-dispute.txt"
STARS = ROOT.parent / "shared" / "real-hands" / "pokerstars"
VIEWPORTS = [(390, 844), (1280, 800)]


def page_file(tmp: Path, path: Path, lang: str, *args: str) -> Path:
    out = tmp / f"{path.stem}-{lang}{'-'.join(args)}.html"
    result = CliRunner().invoke(main, ["explain", str(path), "--format", "html", "--lang", lang, "--output",
                                       str(out), *args])
    assert result.exit_code == 0, result.output
    return out


def inside_first_screen(page: Any, locator: Any, height: int) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


CASES = [(ODD_CHIP, ("--hand", "387708"), ["ODD_CHIP"]), (ODD_CHIP, (), ["ODD_CHIP", "STACK_CONTINUITY"]),
         (REOPEN, (), ["RAISE_NOT_REOPENED"])]


@pytest.mark.slow
@pytest.mark.parametrize("width,height", VIEWPORTS)
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_verdict_and_its_reasons_are_on_the_first_screen(browser: Any, tmp_path: Path, case: int, lang: str,
                                                             width: int, height: int) -> None:
    path, args, rules = CASES[case]
    page = browser.new_page(viewport={"width": width, "height": height})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_file(tmp_path, path, lang, *args).as_uri())
    first = page.locator(".verdict").first
    assert inside_first_screen(page, first, height), first.bounding_box()
    if path == ODD_CHIP and args:  # the hand the table corrected: its debt in the past, nothing left to pay
        want = "Маша owed O'Neil 1 chip, corrected" if lang == "en" else "Маша debía 1 ficha a O'Neil; se corrigió"
        assert want in first.inner_text() and "owes" not in first.inner_text()
    elif path == ODD_CHIP:  # the session: the table put the odd chip right itself before the next hand
        want = "before hand #387709" if lang == "en" else "antes de la mano #387709"
        assert want in first.inner_text()
    reasons = first.locator("li.reason")
    assert sorted({reasons.nth(i).locator("code").inner_text() for i in range(reasons.count())}) == sorted(rules)
    for i in range(reasons.count()):
        assert inside_first_screen(page, reasons.nth(i), height), reasons.nth(i).inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(tmp_path / f"first-screen-{path.stem}-{case}-{lang}-{width}.png"))
    assert all(u.startswith("file://") for u in requests) and not errors, (requests, errors)
    page.close()


@pytest.mark.slow
@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_a_finding_links_to_its_step_and_the_buttons_step_through_the_pots(browser: Any, tmp_path: Path,
                                                                           width: int, height: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(page_file(tmp_path, REOPEN, "en").as_uri())
    link = page.locator(".verdict li.reason a.to-step").first
    target = link.get_attribute("href")
    assert target and target.startswith("#")
    link.click()
    step = page.locator(f"li.step{target}")
    page.wait_for_function("id => document.getElementById(id).classList.contains('current')", arg=target[1:])
    assert step.get_attribute("data-line") == "24"
    assert inside_first_screen(page, step, height), step.bounding_box()
    assert page.evaluate("window.scrollY") > 0
    page.screenshot(path=str(tmp_path / f"at-the-step-{width}.png"))
    stage = page.locator(".stage").first
    # the picture shows that step: Ana's raise, with bets in front of the seats
    assert "Ana raises 4 to 11" in stage.locator(".caption").inner_text()
    bets = [b.inner_text() for b in stage.locator(".seat .bet").all() if b.is_visible()]
    assert sorted(bets) == ["11", "6", "7", "7"]
    at_raise = stage.locator(".potbars").inner_text()
    for _ in range(4):
        stage.locator("button.prev").click()
    assert "Ana bets 4" in stage.locator(".caption").inner_text()
    before = stage.locator(".potbars").inner_text()
    assert before != at_raise and "Main pot" not in before and "Pot · 4" in before  # Ana's bet is not called yet
    assert "Main pot · 28" in at_raise and "Side pot 1 · 3" in at_raise  # the all-ins made a side pot
    page.keyboard.press("ArrowRight")
    assert "Beto raises 2 to 6" in stage.locator(".caption").inner_text()
    stage.locator("button.next").click()
    assert stage.locator(".potbars").inner_text() != before
    page.screenshot(path=str(tmp_path / f"stepped-{width}.png"), full_page=True)
    page.close()


@pytest.mark.slow
def test_without_javascript_every_step_is_listed(browser: Any, tmp_path: Path) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(page_file(tmp_path, REOPEN, "en").as_uri())
    assert not page.locator(".controls").is_visible()
    steps = page.locator("li.step")
    assert steps.count() > 20
    assert all(s.locator(".potbars").is_visible() for s in steps.all()[1:])
    page.screenshot(path=str(tmp_path / "no-js.png"), full_page=True)
    context.close()


@pytest.mark.slow
def test_winners_are_marked(browser: Any, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(page_file(tmp_path, REOPEN, "es").as_uri())
    assert page.locator(".seat.winner").count() == 0  # the page opens at the first step: nobody has won yet
    page.locator("li.step").last.click()  # the pots settled: the winners are marked
    winners = sorted(s.get_attribute("data-player") for s in page.locator(".seat.winner").all())
    assert winners == ["Beto", "Carla", "Dario"]
    page.close()


# ------------------------------------------------------------------------------------------- no English in Spanish
def english_phrases() -> set[str]:
    """The literal pieces of the English catalogue with two words or more that the Spanish one does not share."""
    es_text = " ".join(str(v) for v in catalogue("es").values())
    out: set[str] = set()
    for entry in catalogue("en").values():
        for text in (entry.values() if isinstance(entry, dict) else [entry]):
            for literal, _, _, _ in string.Formatter().parse(text):
                for piece in re.split(r"[:;.,()]", literal):
                    piece = piece.strip()
                    if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 2 and piece not in es_text:
                        out.add(piece)
    return out


def visible_text(page: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    body = re.sub(r"\s(title|data-s|data-step-of)=\"[^\"]*\"", " ", body)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def fixture_paths() -> list[Path]:
    # (fixtures/unread: logs of sites audit does not read, which explain refuses in one line by design)
    paths = at_least(300, sorted(p for p in (ROOT / "fixtures").rglob("*.txt") if p.parent.name != "unread"))
    return paths + (at_least(8, sorted(STARS.glob("*.txt"))) if STARS.is_dir() else [])


def test_the_english_catalogue_check_catches_english() -> None:
    phrases = english_phrases()
    assert "owes the pot" in phrases and "Step by step" in phrases and "and is all-in" in phrases
    english = render_html(explain_file(str(REOPEN)), "en")
    assert any(p in visible_text(english) for p in phrases)


@needs_shared
def test_no_spanish_page_of_any_fixture_has_english_words() -> None:
    phrases = english_phrases()
    bad: dict[str, list[str]] = {}
    for path in fixture_paths():
        items = list(explain_file(str(path)))
        text = visible_text(render_html(items, "es")) + "\n".join(render_text(items, "es"))
        found = [p for p in phrases if p in text]
        messages: list[Finding] = [f for h in items for f in h.findings]
        found += [f.message for f in messages if f.message in text]
        if found:
            bad[str(path.relative_to(ROOT.parent))] = found[:5]
    assert not bad, json.dumps(bad, ensure_ascii=False, indent=1)


# ------------------------------------------------------------------------------------------- money
@needs_shared
@pytest.mark.skipif(not STARS.is_dir(), reason="the shared real hands are not here")
def test_a_pokerstars_hand_shows_dollars_and_cents_in_both_languages() -> None:
    path = STARS / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt"
    items = list(explain_file(str(path)))
    h = items[0].as_dict()
    assert h["currency"] == "USD" and h["rake_kept"] == 5
    for lang, rake, some in (("en", "The house kept a rake of $0.05", "$"), ("es", "0,05 US$ de comisión", "US$")):
        for out in (visible_text(render_html(items, lang)), "\n".join(render_text(items, lang))):
            out = out.replace("\u00a0", " ")
            assert rake in out
            assert re.search(r"chip|ficha", out) is None, "a currency hand never speaks of chips"
            assert len(re.findall(r"\$\d+\.\d\d" if lang == "en" else r"\d+,\d\d US\$", out)) > 10
            assert some in out
