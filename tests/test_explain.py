"""Tests for ``audit explain``: pots and awards of the shared edge cases (values worked out by hand from the
cases' comments), corrections in plain words, a session's net corrections, and the HTML page in a real
headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from audit.cli import main
from audit.explain import (
    HOUSE, POT, HandExplanation, Settlement, Transfer, explain_file, render_html, render_text, session_totals,
    settle, settle_result, settlement_notes,
)
from audit.profile import load_profile

from conftest import needs_shared

SHARED = Path(__file__).resolve().parents[2] / "shared"
EDGE = SHARED / "cases" / "edge"
GENERATED = SHARED / "cases" / "generated"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def run_json(path: Path, *args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["explain", str(path), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines() if line.strip()]


def hands_of(path: Path, *args: str) -> dict[str, dict[str, Any]]:
    return {o["hand"]: o for o in run_json(path, *args) if o["kind"] == "hand"}


def pot(name: str, amount: int, eligible: list[str], awards: dict[str, int]) -> dict[str, Any]:
    return {"name": name, "amount": amount, "eligible": eligible, "winners": sorted(awards), "awards": awards}


# Worked out by hand from each case's comment and lines (contributions by level, TDA 21; odd chips left of the
# button; uncalled part back before any pot is built).
EXPECTED_POTS: dict[str, tuple[str, list[dict[str, Any]], dict[str, int]]] = {
    # Ana 1+13, Beto 1+7 all-in, Carla 1+9 all-in, Dario 1+13: 8×4=32 | 2×3=6 | 4×2=8.
    # Beto's flush wins the main, Carla's straight side 1, Dario's queens beat Ana's deuces in side 2.
    "reopen-cumulative-legal": ("E1", [
        pot("main", 32, ["Ana", "Beto", "Carla", "Dario"], {"Beto": 32}),
        pot("side-1", 6, ["Ana", "Carla", "Dario"], {"Carla": 6}),
        pot("side-2", 8, ["Ana", "Dario"], {"Dario": 8}),
    ], {"Beto": 32, "Carla": 6, "Dario": 8}),
    # Ana 1+11, Beto 1+6, Carla 1+7, Dario 1+11: 7×4=28 | 1×3=3 | 4×2=8.
    "reopen-short-not-reopened": ("E1b", [
        pot("main", 28, ["Ana", "Beto", "Carla", "Dario"], {"Beto": 28}),
        pot("side-1", 3, ["Ana", "Carla", "Dario"], {"Carla": 3}),
        pot("side-2", 8, ["Ana", "Dario"], {"Dario": 8}),
    ], {"Beto": 28, "Carla": 3, "Dario": 8}),
    # 5 antes + 3 bets of 2 = 11 among three equal straights: 3 each, the 2 odd chips to Carla then Ana
    # (the button is Beto's seat 2; clockwise from his left: Carla, Dario, Eva, Ana, Beto).
    "odd-chip-three-way": ("E9", [
        pot("pot", 11, ["Ana", "Beto", "Carla"], {"Carla": 4, "Ana": 4, "Beto": 3}),
    ], {"Carla": 4, "Ana": 4, "Beto": 3}),
    # 6 antes + 6 bets of 2 = 18, everyone shows down, Ana's aces full win.
    "reshuffle-merge-stub": ("E14", [
        pot("pot", 18, ["Ana", "Beto", "Carla", "Dario", "Eva", "Fede"], {"Ana": 18}),
    ], {"Ana": 18}),
    # Ana bets 50 into Beto's 20 all-in: 30 back to Ana; the pot 3 + 20 + 20 = 43 goes to Beto's jacks.
    "uncalled-bet-returned": ("E12", [
        pot("pot", 43, ["Ana", "Beto"], {"Beto": 43}),
    ], {"Ana": 30, "Beto": 43}),
}


@needs_shared
def test_every_edge_case_has_expected_values() -> None:
    assert EDGE.is_dir(), f"the shared cases are missing: {EDGE}"
    assert sorted(p.stem for p in EDGE.glob("*.txt")) == sorted(EXPECTED_POTS)


@needs_shared
@pytest.mark.parametrize("case", sorted(EXPECTED_POTS))
def test_json_pots_and_awards_match_the_hand_worked_values(case: str) -> None:
    hand_id, pots, should = EXPECTED_POTS[case]
    objects = run_json(EDGE / f"{case}.txt")
    assert [o["hand"] for o in objects] == [hand_id]
    h = objects[0]
    for key in ("hand", "steps", "pots", "should_receive", "received", "findings", "corrections"):
        assert key in h
    got = [{"name": p["name"], "amount": p["amount"], "eligible": p["eligible"], "winners": sorted(p["winners"]),
            "awards": p["awards"]} for p in h["pots"]]
    assert got == pots
    assert {p: n for p, n in h["should_receive"].items() if n} == should
    # every edge case pays the pots right: what the log says each received is what is due, nothing to correct
    assert {p: n for p, n in h["received"].items() if n} == should
    assert h["corrections"] == []
    assert h["remainder"] is None


@needs_shared
@pytest.mark.parametrize("case", sorted(EXPECTED_POTS))
def test_steps_conserve_chips_between_stacks_and_pot(case: str) -> None:
    h = run_json(EDGE / f"{case}.txt")[0]
    total = sum(h["start_stacks"].values()) + h["carried"]
    assert h["steps"][0]["event"] == {"type": "seats"}
    for step in h["steps"]:
        assert sum(step["stacks"].values()) + step["pot"] == total, step
    assert h["steps"][-1]["pot"] == 0


@needs_shared
def test_steps_show_what_was_legal_and_the_finding_where_it_happened() -> None:
    h = run_json(EDGE / "reopen-short-not-reopened.txt")[0]
    by_text = {s["text"]: s for s in h["steps"]}
    bet = by_text["Ana bets 4"]
    assert bet["legal"]["to_call"] == 0 and bet["legal"]["may_raise"] is True
    assert bet["stacks"]["Ana"] == 95 and bet["pot"] == 8
    reraise = by_text["Ana raises to 11"]
    assert reraise["legal"]["to_call"] == 3 and reraise["legal"]["may_raise"] is False
    assert [f["rule"] for f in reraise["findings"]] == ["RAISE_NOT_REOPENED"]
    assert all(not s["findings"] for s in h["steps"] if s is not reraise)


@needs_shared
def test_the_uncalled_return_is_a_step_with_the_stack_restored() -> None:
    h = run_json(EDGE / "uncalled-bet-returned.txt")[0]
    step = next(s for s in h["steps"] if s["event"]["type"] == "uncalled")
    assert step["event"]["player"] == "Ana" and step["event"]["amount"] == 30
    assert step["stacks"]["Ana"] == 79 and step["pot"] == 43


@needs_shared
def test_draw_steps_say_which_cards_could_go_and_the_limit() -> None:
    h = run_json(EDGE / "reshuffle-merge-stub.txt")[0]
    eva = next(s for s in h["steps"] if s["event"]["type"] == "discard" and s["event"]["player"] == "Eva")
    assert eva["draw"] == {"may_discard": ["3c", "4d", "7h", "8s", "Ts"], "limit": 5, "limit_keeping_ace": None}
    qdan = load_profile("qdan")
    assert qdan.draw_limit_ace
    from audit.explain import draw_allowance
    assert draw_allowance(qdan, ("As", "Kd", "2c", "3h", "4s")).limit_keeping_ace == qdan.draw_limit + 1


# ------------------------------------------------------------------------------------------- corrections
def test_settle_matches_the_largest_debtor_with_the_largest_creditor() -> None:
    assert settle({"Ana": 5, "Beto": -3, "Carla": -2}) == [Transfer("Beto", "Ana", 3), Transfer("Carla", "Ana", 2)]
    assert settle({"Ana": 4, "Beto": 1, "Carla": -5}) == [Transfer("Carla", "Ana", 4), Transfer("Carla", "Beto", 1)]
    assert settle({"Ana": 2, "Beto": 2, "Carla": -2, "Dario": -2}) == [Transfer("Carla", "Ana", 2),
                                                                       Transfer("Dario", "Beto", 2)]
    assert settle({}) == []
    with pytest.raises(ValueError):
        settle({"Ana": 1})


def odd_chip_dispute(tmp_path: Path) -> Path:
    """odd-chip-three-way with the odd chip paid to Beto instead of Ana."""
    text = (EDGE / "odd-chip-three-way.txt").read_text(encoding="utf-8")
    text = text.replace("Ana collected 4 from pot", "Ana collected 3 from pot")
    text = text.replace("Beto collected 3 from pot", "Beto collected 4 from pot")
    path = tmp_path / "odd-chip-dispute.txt"
    path.write_text(text, encoding="utf-8")
    return path


@needs_shared
def test_a_wrong_odd_chip_is_corrected_in_plain_words(tmp_path: Path) -> None:
    path = odd_chip_dispute(tmp_path)
    h = run_json(path)[0]
    assert h["corrections"] == [{"from": "Beto", "to": "Ana", "chips": 1}]
    assert h["difference"] == {"Ana": 1, "Beto": -1, "Carla": 0, "Dario": 0, "Eva": 0}
    collect = next(s for s in h["steps"] if s["line"] == 43)
    assert [f["rule"] for f in collect["findings"]] == ["ODD_CHIP"]
    en = CliRunner().invoke(main, ["explain", str(path)])
    assert en.exit_code == 0 and "Beto owes Ana 1 chip." in en.output
    es = CliRunner().invoke(main, ["explain", str(path), "--lang", "es"])
    assert es.exit_code == 0 and "Beto debe 1 ficha a Ana." in es.output and "Correcciones" in es.output


@needs_shared
def test_chips_lost_by_the_log_are_put_against_the_pot(tmp_path: Path) -> None:
    text = (EDGE / "uncalled-bet-returned.txt").read_text(encoding="utf-8")
    path = tmp_path / "short-paid.txt"
    path.write_text(text.replace("Beto collected 43 from pot", "Beto collected 40 from pot"), encoding="utf-8")
    h = run_json(path)[0]
    assert h["remainder"] == {"chips": 3, "party": POT}
    assert h["corrections"] == [{"from": POT, "to": "Beto", "chips": 3}]
    out = CliRunner().invoke(main, ["explain", str(path)]).output
    assert "The log paid out 3 chips less than the pot held." in out
    assert "The pot owes Beto 3 chips" in out


@needs_shared
def test_chips_created_by_the_log_are_put_against_the_pot(tmp_path: Path) -> None:
    text = (EDGE / "uncalled-bet-returned.txt").read_text(encoding="utf-8")
    path = tmp_path / "over-paid.txt"
    path.write_text(text.replace("Beto collected 43 from pot", "Beto collected 45 from pot"), encoding="utf-8")
    h = run_json(path)[0]
    assert h["remainder"] == {"chips": -2, "party": POT}
    assert h["corrections"] == [{"from": "Beto", "to": POT, "chips": 2}]
    out = CliRunner().invoke(main, ["explain", str(path), "--lang", "es"]).output
    assert "Beto debe devolver 2 fichas al bote" in out


@needs_shared
def test_a_rake_the_game_forbids_is_owed_by_the_house(tmp_path: Path) -> None:
    text = (EDGE / "uncalled-bet-returned.txt").read_text(encoding="utf-8")
    text = text.replace("Beto collected 43 from pot", "Beto collected 41 from pot")
    path = tmp_path / "raked.txt"
    path.write_text(text.replace("Total pot 43 | Rake 0", "Total pot 43 | Rake 2"), encoding="utf-8")
    h = run_json(path)[0]
    assert "RAKE" in {f["rule"] for f in h["findings"]}
    assert h["corrections"] == [{"from": HOUSE, "to": "Beto", "chips": 2}]


# ------------------------------------------------------------------------------------------- sessions
def session_case() -> Path:
    """A generated multi-hand session in which a pot went to the wrong player."""
    candidates = sorted(GENERATED.glob("mut-*POT_WINNER*.txt")) + sorted(GENERATED.glob("mut-*ODD_CHIP*.txt"))
    for path in candidates:
        text = path.read_text(encoding="utf-8")
        if "Session:" in text and text.count("Hand #") > 1:
            return path
    raise AssertionError(f"no multi-hand mut-* session with POT_WINNER or ODD_CHIP under {GENERATED}")


@needs_shared
def test_a_session_nets_its_corrections_to_zero() -> None:
    path = session_case()
    objects = run_json(path)
    hands = [o for o in objects if o["kind"] == "hand"]
    sessions = [o for o in objects if o["kind"] == "session"]
    assert len(hands) > 1 and len(sessions) == 1
    s = sessions[0]
    assert s["hands"] == [h["hand"] for h in hands]
    assert sum(s["difference"].values()) == 0
    # the net is the sum of the hands' differences (and of what was put against the pot)
    net: dict[str, int] = {}
    for h in hands:
        for p, d in h["difference"].items():
            net[p] = net.get(p, 0) + d
        if h["remainder"]:
            party = h["remainder"]["party"]
            net[party] = net.get(party, 0) - h["remainder"]["chips"]
    assert {p: d for p, d in net.items() if d} == s["difference"]
    assert s["difference"], "the mutated session should owe someone something"
    paid = sum(t["chips"] for t in s["corrections"])
    assert paid == sum(d for d in s["difference"].values() if d > 0)
    assert {"POT_WINNER", "ODD_CHIP"} & {f["rule"] for h in hands for f in h["findings"]}
    if path.name == "mut-012-POT_WINNER.txt":
        assert s["corrections"] == [{"from": "Carla", "to": "Iñaki", "chips": 68}]


def settled(balances: dict[str, int]) -> Settlement:
    return Settlement({}, {}, {}, 0, POT, 0, balances, settle(balances))


def test_session_totals_net_hands_that_partly_cancel() -> None:
    one = HandExplanation(hand="1", file="f", session="s", profile="home-open",
                          settlement=settled({"Ana": 3, "Beto": -3}))
    two = HandExplanation(hand="2", file="f", session="s", profile="home-open",
                          settlement=settled({"Beto": 5, "Ana": -2, POT: -3}))
    s = session_totals("s", "f", [one, two])
    assert s.balances == {"Ana": 1, "Beto": 2, POT: -3}
    assert sum(s.balances.values()) == 0
    assert s.transfers == [Transfer(POT, "Beto", 2), Transfer(POT, "Ana", 1)]
    text = "".join(render_text([s]))
    assert "The pot owes Beto 2 chips" in text


# ------------------------------------------------------------------------------------------- CLI
@needs_shared
def test_hand_option_picks_one_hand_and_an_unknown_one_exits_2() -> None:
    path = session_case()
    objects = run_json(path)
    wanted = [o["hand"] for o in objects if o["kind"] == "hand"][1]
    picked = run_json(path, "--hand", wanted)
    assert [o["hand"] for o in picked] == [wanted] and picked[0]["kind"] == "hand"
    bad = CliRunner().invoke(main, ["explain", str(path), "--hand", "no-such-hand"])
    assert bad.exit_code == 2
    assert "no hand 'no-such-hand'" in bad.output


@needs_shared
def test_output_option_writes_the_file(tmp_path: Path) -> None:
    out = tmp_path / "e.html"
    result = CliRunner().invoke(main, ["explain", str(EDGE / "odd-chip-three-way.txt"), "--format", "html",
                                       "--output", str(out)])
    assert result.exit_code == 0 and result.output == ""
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["explain", str(tmp_path / "nope.txt")])
    assert result.exit_code == 2


@needs_shared
def test_html_escapes_the_log_text(tmp_path: Path) -> None:
    text = (EDGE / "odd-chip-three-way.txt").read_text(encoding="utf-8")
    text = text.replace("Table 'Casa Pepe'", "Table '<img src=x onerror=alert(1)>'").replace("Carla", "O'Carla")
    path = tmp_path / "escape.txt"
    path.write_text(text, encoding="utf-8")
    page = render_html(explain_file(str(path)), "en")
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "O&#39;Carla" in page and "O'Carla" not in page
    assert not re.search(r"<(link|iframe|img)\b", page)
    assert page.count("<script") == 1 and not re.search(r"<script[^>]*\bsrc=", page)  # only the stepping code
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


@needs_shared
def test_html_is_self_contained_and_translated() -> None:
    path = EDGE / "reopen-cumulative-legal.txt"
    es = render_html(explain_file(str(path)), "es")
    en = render_html(explain_file(str(path)), "en")
    assert '<html lang="es">' in es and '<meta name="viewport"' in es
    for word in ("Botes ahora", "Botes", "Bote principal", "Bote lateral 1", "Paso a paso", "Jugadores"):
        assert word in es
    for word in ("Pots now", "Pots", "Main pot", "Side pot 1", "Step by step", "Players"):
        assert word in en and word not in es
    assert "http://" not in es and "https://" not in es


# ------------------------------------------------------------------------------------------- the browser
def launch_chromium(p: Any) -> Any:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: the HTML test needs a real headless browser. "
                    "Install it with `bash scripts/install-browser.sh` (apt-get install chromium).")
    return p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@pytest.mark.slow
@needs_shared
def test_html_page_in_headless_chromium_on_a_phone(tmp_path: Path) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("The playwright Python package is missing: install the test extras (pip install -e '.[test]').")
    path = odd_chip_dispute(tmp_path)
    pages: dict[str, Path] = {}
    for lang in ("en", "es"):
        out = tmp_path / f"explain-{lang}.html"
        result = CliRunner().invoke(main, ["explain", str(path), "--format", "html", "--lang", lang,
                                           "--output", str(out)])
        assert result.exit_code == 0, result.output
        pages[lang] = out
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
            requests: list[str] = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto(pages["en"].as_uri())
            body = page.inner_text("body")
            assert "Beto owes Ana 1 chip." in body
            assert ("The odd chip of the pot went to Beto; it belonged to Ana, the first tied winner left of "
                    "the button.") in body
            assert "ODD_CHIP" in body and "Odd chip to the wrong winner" in body
            # the step where it happened is highlighted
            flagged = page.locator("li.step.flagged")
            assert flagged.count() == 1 and flagged.first.get_attribute("data-line") == "43"
            # seats around the table, cards with coloured suits
            assert page.locator(".table-wrap .seat").count() == 5
            red = page.locator(".card.red").first.evaluate("e => getComputedStyle(e).color")
            black = page.locator(".card.black").first.evaluate("e => getComputedStyle(e).color")
            assert red == "rgb(198, 40, 40)" and black == "rgb(17, 17, 17)"
            # readable on a phone: nothing wider than the screen
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            shot = tmp_path / "explain-phone-en.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            assert all(u.startswith("file://") for u in requests), requests

            page.goto(pages["es"].as_uri())
            body = page.inner_text("body")
            assert "Beto debe 1 ficha a Ana." in body
            assert "The odd chip of the pot went to Beto" not in body  # the engine's English stays out
            assert "Ficha impar al ganador equivocado" in body and "Paso a paso" in body
            page.screenshot(path=str(tmp_path / "explain-phone-es.png"), full_page=True)
        finally:
            browser.close()


def synthetic(pots: list[dict[str, Any]], should: dict[str, int], received: dict[str, int],
              contributions: dict[str, int], rake: int) -> Any:
    from audit.model import Hand
    from audit.engine import HandResult, PotResult
    hand = Hand("f.txt", 1, 9, "X1", "", "T", 1, (), ())
    return HandResult(hand=hand, profile="site", session=None, findings=[], pots=[PotResult(p) for p in pots],
                      should_receive=should, received=received, contributions=contributions, start_stacks={},
                      end_stacks={}, dealt_in=list(contributions), rake=rake)


def test_an_allowed_rake_comes_off_gross_awards() -> None:
    pots = [{"name": "pot", "amount": 100, "eligible": ["A", "B"], "winners": ["A"], "awards": {"A": 100},
             "collected": {"A": 95}}]
    s = settle_result(synthetic(pots, {"A": 100}, {"A": 95}, {"A": 50, "B": 50}, rake=5))
    assert s.rake_kept == 5 and s.transfers == [] and s.should_receive == {"A": 95, "B": 0}


def test_short_pay_beyond_the_stated_rake_is_owed_to_the_winner() -> None:
    # the engine took all 7 chips the pot paid short as its rake; the summary says the rake was 5
    pots = [{"name": "pot", "amount": 100, "eligible": ["A", "B"], "winners": ["A"], "awards": {"A": 93},
             "collected": {"A": 93}, "rake": 7}]
    s = settle_result(synthetic(pots, {"A": 93}, {"A": 93}, {"A": 50, "B": 50}, rake=5))
    assert s.rake_kept == 5 and s.remainder == 2
    assert s.transfers == [Transfer(POT, "A", 2)]


def test_a_pot_nobody_showed_down_is_taken_as_paid() -> None:
    pots = [{"name": "pot", "amount": 40, "eligible": ["A", "B"], "winners": [], "awards": {},
             "collected": {"B": 40}}]
    s = settle_result(synthetic(pots, {}, {"B": 40}, {"A": 20, "B": 20}, rake=0))
    assert s.transfers == [] and s.unjudged == ["pot"]
    assert "nobody's cards were shown" in " ".join(settlement_notes(s, "en"))


@needs_shared
def test_site_hands_with_an_allowed_rake_need_no_correction() -> None:
    path = SHARED / "real-hands" / "pokerstars" / "5-Carddraw-NL-USD-0.25-0.50.Sample.txt"
    if not path.is_file():
        pytest.skip("the shared real hands are not here")
    h = run_json(path)[0]
    assert h["rake_kept"] == 5 and h["corrections"] == [] and h["remainder"] is None


# ------------------------------------------------------------------------- short forced bets and parole
PROFILE_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "profiles"


def pots_of(h: dict[str, Any]) -> list[tuple[str, int, list[str], dict[str, int], dict[str, int]]]:
    return [(p["name"], p["amount"], p["eligible"], p["awards"], p["collected"]) for p in h["pots"]]


@pytest.mark.parametrize("case, pots", [
    # Beto's big blind of 2 posted short (1, all-in): 1 from each is his pot, Ana's and Carla's second chips the side
    ("stripped32-short-big-blind", [("main", 3, ["Ana", "Beto", "Carla"], {"Carla": 3}, {"Carla": 3}),
                                    ("side-1", 2, ["Ana", "Carla"], {"Carla": 2}, {"Carla": 2})]),
    # Carla's over blind of 4 posted short (3): 3 from Ana, Carla, Dario and Beto's folded 2; the rest is side pot
    ("stripped32-short-over-blind", [("main", 11, ["Ana", "Carla", "Dario"], {"Carla": 11}, {"Carla": 11}),
                                     ("side-1", 10, ["Ana", "Dario"], {"Dario": 10}, {"Dario": 10})]),
    # Ana's ante of 10 posted short (6): 6 from each of the three; the other antes' 4 and the bets of 20 beyond
    ("qdan-short-ante", [("main", 18, ["Ana", "Beto", "Carla"], {"Ana": 18}, {"Ana": 18}),
                         ("side-1", 48, ["Beto", "Carla"], {"Beto": 48}, {"Beto": 48})]),
])
def test_a_short_forced_bet_plays_for_a_pot_of_its_own_level(
        case: str, pots: list[tuple[str, int, list[str], dict[str, int], dict[str, int]]]) -> None:
    h = run_json(PROFILE_FIXTURES / f"{case}.txt")[0]
    assert pots_of(h) == pots
    assert h["findings"] == [] and h["corrections"] == []
    text = CliRunner().invoke(main, ["explain", str(PROFILE_FIXTURES / f"{case}.txt")]).output
    name, amount, eligible, awards, _ = pots[1]
    assert (f"Side pot 1 {amount}: eligible {', '.join(eligible)}; winners {', '.join(awards)}; awards "
            + ", ".join(f"{p} {n}" for p, n in awards.items())) in text


def test_the_short_blind_does_not_lower_what_the_others_call() -> None:
    h = run_json(PROFILE_FIXTURES / "stripped32-short-big-blind.txt")[0]
    by_text = {s["text"]: s for s in h["steps"]}
    assert by_text["Beto posts big 1"]["stacks"]["Beto"] == 0
    assert by_text["Carla calls 2"]["legal"]["to_call"] == 2  # the full big blind, not Beto's 1
    assert by_text["Ana calls 1"]["legal"]["to_call"] == 1  # the small blind completes to it
    assert by_text["Ana calls 1"]["legal"]["min_raise_to"] == 4  # the full increment stays the min bet


def test_parole_answers_after_an_acceptance_are_steps_without_findings() -> None:
    path = PROFILE_FIXTURES / "stripped32-parole-answer-after-accept.txt"
    h = run_json(path)[0]
    answers = [(s["event"]["player"], s["event"]["kind"]) for s in h["steps"] if s["event"]["type"] == "parole"]
    assert answers == [("Dario", "offer"), ("Ana", "accept"), ("Carla", "decline")]
    assert all(not s["findings"] for s in h["steps"]) and h["findings"] == []
    split = {"Ana": 9, "Carla": 9, "Dario": 8}
    assert pots_of(h) == [("pot", 26, ["Ana", "Carla", "Dario"], split, split)]
    assert h["corrections"] == []
    for lang, words in (("en", ["Dario offers parole", "Ana accepts parole", "Carla declines parole"]),
                        ("es", ["Dario ofrece parole", "Ana acepta la parole", "Carla rechaza la parole"])):
        text = CliRunner().invoke(main, ["explain", str(path), "--lang", lang]).output
        at = [text.index(w) for w in words]
        assert at == sorted(at), lang
        assert "PAROLE" not in text


def test_a_missing_parole_answer_is_shown_where_the_hand_moved_on() -> None:
    h = run_json(PROFILE_FIXTURES / "stripped32-parole-missing-answer.txt")[0]
    flagged = [(s["event"]["type"], s["event"]["player"], [(f["rule"], f["player"]) for f in s["findings"]])
               for s in h["steps"] if s["findings"]]
    assert flagged == [("collect", "Ana", [("PAROLE", "Carla")])]
    assert "declineed" not in json.dumps(h)


def test_the_verdict_gives_its_reasons_and_a_knock_on_finding_names_its_cause(tmp_path: Path) -> None:
    demo = Path(__file__).resolve().parents[1] / "fixtures" / "demo" / "home-session-odd-chip-dispute.txt"
    # the table moved two chips back where one was owed: the stack changes correct nothing, they follow from 387708
    text = demo.read_text(encoding="utf-8")
    head, rest = text.split("Hand #387709", 1)
    rest = rest.replace("Маша (103 in chips)", "Маша (102 in chips)", 1).replace("O'Neil (91 in", "O'Neil (92 in", 1)
    demo = tmp_path / "knock-on.txt"
    demo.write_text(head + "Hand #387709" + rest, encoding="utf-8")
    objects = run_json(demo)
    hands = {o["hand"]: o for o in objects if o["kind"] == "hand"}
    cause, knock_on = hands["387708"], hands["387709"]
    [odd] = cause["reasons"]
    assert (odd["rule"], odd["player"], odd["changes_chips"], odd["follows_from"]) == ("ODD_CHIP", "Маша", True, None)
    assert cause["steps"][odd["step"]]["line"] == odd["line"] == 255  # the step where it happened
    assert {(r["rule"], r["player"], r["follows_from"]) for r in knock_on["reasons"]} == {
        ("STACK_CONTINUITY", "Маша", "387708"), ("STACK_CONTINUITY", "O'Neil", "387708")}
    [session] = [o for o in objects if o["kind"] == "session"]
    assert [(r["hand"], r["rule"]) for r in session["reasons"]][:3] == [
        ("387708", "ODD_CHIP"), ("387709", "STACK_CONTINUITY"), ("387709", "STACK_CONTINUITY")]

    text = CliRunner().invoke(main, ["explain", str(demo), "--format", "text"]).output
    assert "This follows from hand #387708, where O'Neil's chips were paid wrong." in text
    for lang, words in (("en", "This follows from hand #387708"), ("es", "Viene de la mano #387708")):
        page = CliRunner().invoke(main, ["explain", str(demo), "--format", "html", "--lang", lang]).output
        # under the session's verdict and those of 387709 and 387710 (whose stacks carry the two chips moved)
        assert page.count(f'<a href="#hand-387708">{words}') == 8, lang
        assert f'href="#hand-387708-step-{odd["step"]}"' in page and f'id="hand-387708-step-{odd["step"]}"' in page
