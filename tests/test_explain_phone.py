"""The dispute page of a hand on a phone (issue 27, points 3 and 4), in a real headless Chromium at 360, 390 and
430 px, English and Spanish, on a house hand and a site hand of six seats with long names and the longest amounts
(``fixtures/layout``): the document is no wider than the screen, seat boxes never overlap, no text spills out of
its box, no text is under 12 px, folded seats stay legible; at step 1 nobody is folded, starred or owed; the felt's
pot is the panel's at every step; no keyboard hint on a touch screen."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import AUDIT, FIXTURES

pytestmark = pytest.mark.slow  # every test drives the browser

HANDS = {"house": FIXTURES / "layout" / "house-six-seats.txt", "site": FIXTURES / "layout" / "site-six-seats.txt"}
WIDTHS = (360, 390, 430)

MEASURE = """() => {
  const box = e => e.getBoundingClientRect();
  const seats = [...document.querySelectorAll('.stage .seat')];
  const overlaps = [];
  seats.forEach((a, i) => seats.slice(i + 1).forEach(b => {
    const p = box(a), q = box(b);
    const w = Math.min(p.right, q.right) - Math.max(p.left, q.left), h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (w > 1 && h > 1) overlaps.push([a.dataset.player, b.dataset.player]);
  }));
  const spilled = [];
  seats.forEach(seat => {
    const s = box(seat);
    seat.querySelectorAll('*').forEach(e => {
      const r = box(e);
      if (r.width && (r.left < s.left - 1 || r.right > s.right + 1 || r.bottom > s.bottom + 1)) spilled.push(e.textContent);
      if (e.clientWidth && e.scrollWidth > e.clientWidth + 1) spilled.push(e.textContent);
    });
  });
  const wrap = box(document.querySelector('.stage'));
  seats.forEach(s => { const r = box(s); if (r.left < wrap.left - 1 || r.right > wrap.right + 1) spilled.push(s.dataset.player); });
  const small = [];
  for (const e of document.body.querySelectorAll('*')) {
    const text = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!text || !e.getClientRects().length) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < 12) small.push(e.tagName + '.' + e.className + ' ' + size + ' ' + e.textContent.slice(0, 20));
  }
  const faint = [];
  document.querySelectorAll('.stage .seat.folded .name').forEach(n => {
    let o = 1;
    for (let e = n; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    if (o < 0.75) faint.push(n.textContent);
  });
  return {width: document.documentElement.scrollWidth, overlaps, spilled, small, faint};
}"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    out = tmp_path_factory.mktemp("phone")
    made = {}
    for key, path in HANDS.items():
        for lang in ("en", "es"):
            made[key, lang] = out / f"{key}-{lang}.html"
            done = subprocess.run([AUDIT, "explain", str(path), "--format", "html", "--lang", lang,
                                   "-o", str(made[key, lang])], capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
    return made


def phone(browser: Any, width: int) -> Any:
    return browser.new_context(viewport={"width": width, "height": 800}, is_mobile=True, has_touch=True,
                               device_scale_factor=2)


def check_fits(page: Any, width: int, where: str) -> None:
    got = page.evaluate(MEASURE)
    assert got["width"] <= width, (where, got["width"])
    assert not got["overlaps"], (where, got["overlaps"])
    assert not got["spilled"], (where, got["spilled"][:5])
    assert not got["small"], (where, got["small"][:5])
    assert not got["faint"], (where, got["faint"])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("hand", sorted(HANDS))
def test_a_hand_page_fits_a_phone(browser: Any, pages: dict[tuple[str, str], Path], hand: str, lang: str,
                                  width: int) -> None:
    context = phone(browser, width)
    page = context.new_page()
    page.goto(pages[hand, lang].as_uri())
    check_fits(page, width, "opening step")  # the step of the disputed pot: cards shown, due and got
    assert page.locator(".stage .seat.owed").count() == 2
    assert not page.locator(".legend.keys").is_visible()  # no arrow keys on a touch screen
    page.locator("li.step").first.click()
    check_fits(page, width, "step 1")
    assert page.locator(".stage .seat.folded, .stage .seat.winner, .stage .seat.owed").count() == 0
    assert page.locator(".stage .seat .star:visible, .stage .seat .diff:visible").count() == 0
    page.locator("li.step").last.click()  # the end: folded seats, the winner, due and got
    assert page.locator(".stage .seat.folded").count() >= 3 and page.locator(".stage .seat.winner").count() >= 1
    check_fits(page, width, "last step")
    context.close()


def amount(text: str) -> int:
    return int(re.sub(r"\D", "", text) or 0)


@pytest.mark.parametrize("hand,lang", [("house", "en"), ("site", "es")])
def test_the_felts_pot_is_the_panels_at_every_step(browser: Any, pages: dict[tuple[str, str], Path], hand: str,
                                                    lang: str) -> None:
    context = phone(browser, 390)
    page = context.new_page()
    page.goto(pages[hand, lang].as_uri())
    page.locator("li.step").first.click()
    stage = page.locator(".stage")
    steps = page.locator("li.step").count()
    for i in range(steps):
        pot = stage.locator(".pot-now").inner_text()
        panel = [b.inner_text() for b in stage.locator(".pots-now .potbar .lbl b").all()]
        assert amount(pot) == sum(amount(p) for p in panel), (i, pot, panel)
        if i + 1 < steps:
            stage.locator("button.next").click()
    assert stage.locator("button.next").is_disabled()
    context.close()
