"""The show down: hands shown against the cards held and their names, who shows first, the best hand of a pot,
points, and a site's hero's cards against the hands shown."""

from __future__ import annotations

from audit.engine.showdown import (
    best_hands, check_description, check_points, check_points_mode, check_show_order, check_shown,
    check_site_known_cards, pot_winners,
)
from audit.model import Show
from audit.pots import Pot

from conftest import FIXTURES
from enginehands import deal3, house, item_at, profile_of, rules, state_before

PLAY = ("*** FIRST BETTING ROUND ***\nAna: bets 4\nBeto: calls 4\nCarla: folds\n*** DRAW ***\nAna: stands pat\n"
        "Beto: stands pat\n*** SECOND BETTING ROUND ***\nAna: bets 4\nBeto: calls 4\n*** SHOW DOWN ***\n")
SHOWN = "Ana: shows [As Ad 5c 7d 9h] (a pair of Aces)\nBeto: shows [Ks Kd Kh 3d 4h] (three of a kind, Kings)\n"


def test_shown_cards_are_the_hand_held() -> None:
    text = house(deal3() + PLAY + "Ana: shows [As Ad 5c 7d 8h]\n")
    st = state_before(text, "Ana: shows")
    s = item_at(text, "Ana: shows")
    assert isinstance(s, Show)
    found = check_shown(st, s, st.players["Ana"].cards)
    assert rules(found) == [("SHOWN_CARDS", "Ana", "finding.SHOWN_CARDS.differ")]
    assert found is not None and found.message == \
        "Ana showed As Ad 5c 7d 8h, but their hand after the draw was As Ad 5c 7d 9h."
    held = st.players["Ana"].cards
    assert check_shown(st, s._replace(cards=("9h", "7d", "5c", "Ad", "As")), held) is None  # any order


def test_a_hands_stated_name_is_what_its_cards_make() -> None:
    text = house(deal3() + PLAY + "Ana: shows [As Ad 5c 7d 9h] (two pair, Aces and Nines)\n")
    st = state_before(text, "Ana: shows")
    s = item_at(text, "Ana: shows")
    assert isinstance(s, Show)
    found = check_description(st, s)
    assert rules(found) == [("HAND_DESCRIPTION", "Ana", "finding.HAND_DESCRIPTION.wrong")]
    assert found is not None and found.expected == "a pair of Aces"
    assert check_description(st, s._replace(description="a pair of Aces")) is None


def test_the_best_hand_wins_the_pot_among_those_who_showed() -> None:
    text = house(deal3() + PLAY + SHOWN)
    st = state_before(text)
    assert best_hands(st, ["Ana", "Beto"]) == ["Beto"]
    pot = Pot("pot", 19, ("Ana", "Beto"))
    assert pot_winners(st, pot, ["Ana", "Beto"], False) == ["Beto"]
    assert pot_winners(st, pot, ["Ana"], False) == ["Ana"]  # Beto mucked
    assert pot_winners(st, pot, ["Ana", "Beto"], True) == ["Ana", "Beto"]  # an accepted parole splits it


def test_the_last_aggressor_shows_first() -> None:
    wrong = house(deal3() + PLAY + "Beto: shows [Ks Kd Kh 3d 4h]\nAna: shows [As Ad 5c 7d 9h]\n")
    st = state_before(wrong)
    found = check_show_order(st, ["Ana", "Beto"], "Ana")
    assert rules(found) == [("SHOW_ORDER", "Beto", "finding.SHOW_ORDER.first")]
    assert found is not None and found.expected == "Ana"
    assert check_show_order(st, ["Ana", "Beto"], "Beto") is None  # judged when Ana, who shows first, shows
    assert check_show_order(state_before(house(deal3() + PLAY + SHOWN)), ["Ana", "Beto"], "Ana") is None


def test_points_go_to_the_best_hand_only() -> None:
    points = profile_of("qdan", ("mode", "points"))
    text = ("Hand #1 - 2026/11/28 23:10:00\nTable 'Qdan 7' Seat #3 is the button\nSeat 1: Ana (0 points)\n"
            "Seat 2: Beto (0 points)\nSeat 3: Carla (0 points)\n*** DEALING HANDS ***\n"
            "Dealt to Ana [As Ad 5c 7d 9h]\nDealt to Beto [Ks Kd Kh 3d 4h]\nDealt to Carla [2c 3c 8h 9s Jd]\n"
            "*** DRAW ***\nAna: stands pat\nBeto: stands pat\nCarla: stands pat\n*** SHOW DOWN ***\n"
            "Ana: shows [As Ad 5c 7d 9h]\nBeto: shows [Ks Kd Kh 3d 4h]\nCarla: shows [2c 3c 8h 9s Jd]\n"
            "Ana scores 1 point\n")
    st = state_before(text, None, points)
    found = check_points(st, ["Ana", "Beto", "Carla"])
    assert rules(found) == [("POINTS", "Beto", "finding.POINTS.best_no_point"),
                            ("POINTS", "Ana", "finding.POINTS.not_best")]
    chips = state_before(house(deal3()), None, points)
    assert rules(check_points_mode(chips)) == [("POINTS", None, "finding.POINTS.seats_chips")]


def test_a_site_hero_s_discard_shown_by_another_is_a_stub_card() -> None:
    text = (FIXTURES / "site" / "STUB_CARD-hit-52-cards-fl.txt").read_text(encoding="utf-8")
    st = state_before(text, None, profile_of("site"))
    assert not st.known_cards
    found = check_site_known_cards(st)
    assert rules(found) == [("STUB_CARD", "dantho", "finding.STUB_CARD.site_discarded")]
    assert found is not None and found[0].message.startswith(
        "dantho showed 4h, which Hero had discarded; with only 52 cards dealt in this hand")
