"""The step-through of the dispute page shows each step's state (issue 27, point 2): who is in, the cards held
then, the bets and pots then; winners and what each was due and got only once the pots are settled; the felt's
pot equals the panel's at every step; it opens on the step of the first finding that moves chips (else step 1);
Previous / Next are disabled at the ends. In a real headless Chromium (conftest's ``browser``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import AUDIT, FIXTURES

pytestmark = pytest.mark.slow  # every test drives the browser

ODD_CHIP = FIXTURES / "demo" / "home-session-odd-chip-dispute.txt"
REOPEN = FIXTURES / "demo" / "reopen-dispute.txt"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("steps")
    made = {}
    for key, path, args in (("reopen", REOPEN, ()), ("odd", ODD_CHIP, ("--hand", "387708"))):
        made[key] = out / f"{key}.html"
        done = subprocess.run([AUDIT, "explain", str(path), "--format", "html", "-o", str(made[key]), *args],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    return made


def digits(text: str) -> int:
    return int(re.sub(r"\D", "", text) or 0)


def picture(page: Any) -> dict[str, Any]:
    """What the stage shows now."""
    return page.evaluate("""() => {
      const stage = document.querySelector('.stage');
      const seats = [...stage.querySelectorAll('.seat')].map(s => ({
        player: s.dataset.player, folded: s.classList.contains('folded'), winner: s.classList.contains('winner'),
        owed: s.classList.contains('owed'), star: !s.querySelector('.star').hidden,
        due: s.querySelector('.diff').hidden ? '' : s.querySelector('.diff').textContent,
        cards: [...s.querySelectorAll('.card')].map(c => c.textContent)}));
      return {seats, pot: stage.querySelector('.pot-now').textContent,
              panel: [...stage.querySelectorAll('.pots-now .potbar .lbl b')].map(b => b.textContent),
              count: stage.querySelector('.count').textContent,
              prev: stage.querySelector('.prev').disabled, next: stage.querySelector('.next').disabled,
              caption: stage.querySelector('.caption').textContent,
              line: document.querySelector('li.step.current').dataset.line};
    }""")


def test_each_step_shows_that_steps_state_and_the_felts_pot_is_the_panels(browser: Any, pages: dict[str, Path]) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(pages["reopen"].as_uri())
    now = picture(page)
    total = page.locator("li.step").count()
    assert now["count"] == f"Step 1 of {total}" and now["prev"] and not now["next"]
    assert not any(s["folded"] or s["winner"] or s["owed"] or s["star"] or s["due"] or s["cards"]
                   for s in now["seats"]), now["seats"]
    seen_cards = seen_winner = False
    for i in range(1, total):
        page.locator(".stage button.next").click()
        now = picture(page)
        assert now["count"] == f"Step {i + 1} of {total}"
        assert digits(now["pot"]) == sum(digits(p) for p in now["panel"]), (i, now["pot"], now["panel"])
        seen_cards = seen_cards or any(s["cards"] for s in now["seats"])
        if any(s["winner"] for s in now["seats"]):
            seen_winner = True
        else:
            assert not seen_winner, "a winner is starred from the collection on"
    assert now["next"] and not now["prev"] and seen_cards and seen_winner
    assert sorted(s["player"] for s in now["seats"] if s["star"]) == ["Beto", "Carla", "Dario"]
    page.keyboard.press("ArrowRight")  # at the end: nothing happens
    assert picture(page)["count"] == f"Step {total} of {total}"
    page.close()


def test_the_page_opens_on_the_first_finding_that_moves_chips_and_cards_follow_the_draw(
        browser: Any, pages: dict[str, Path]) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(pages["odd"].as_uri())
    now = picture(page)
    assert now["line"] == "255" and not now["prev"]  # the odd chip paid to Маша
    masha = next(s for s in now["seats"] if s["player"] == "Маша")
    assert masha["star"] and masha["owed"] and "104" not in masha["due"] and masha["due"]

    def at_line(line: int) -> dict[str, Any]:
        page.locator(f"li.step[data-line='{line}']").click()
        return {s["player"]: s for s in picture(page)["seats"]}

    before, after = at_line(238), at_line(239)  # Carla's cards before and after her draw
    assert "".join(before["Carla"]["cards"]).startswith("5") and len(before["Carla"]["cards"]) == 5
    assert before["Carla"]["cards"] != after["Carla"]["cards"] and len(after["Carla"]["cards"]) == 5
    assert [c[0] for c in after["Carla"]["cards"]] == ["5", "9", "Q", "Q", "8"]
    assert not at_line(244)["Carla"]["folded"] and at_line(245)["Carla"]["folded"]  # she folds at line 245
    assert at_line(223)["O'Neil"]["cards"] and not at_line(223)["Nico"]["cards"]  # dealt one by one
    page.locator("li.step").first.click()
    first = {s["player"]: s for s in picture(page)["seats"]}
    assert not any(s["star"] or s["owed"] or s["due"] or s["folded"] or s["cards"] for s in first.values())
    assert picture(page)["prev"]
    page.close()


def test_without_javascript_the_picture_is_the_opening_step_and_every_step_is_listed(
        browser: Any, pages: dict[str, Path]) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(pages["reopen"].as_uri())
    assert page.locator("li.step").count() == page.locator("li.step .what").count() > 20
    assert page.locator(".seat.winner").count() == 0 and page.locator(".seat.folded").count() == 0
    context.close()
