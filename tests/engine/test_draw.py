"""The draw: whose turn, the limit, the cards thrown and received, the stub (its order when known), the reshuffle,
and every survivor drawn before the second round."""

from __future__ import annotations

from audit.engine.draw import (
    check_discard, check_draw_complete, check_draw_limit, check_draw_turn, check_received, check_reshuffle,
    check_stub_cards, check_stub_order,
)
from audit.engine.state import next_to_draw, remaining_stub_set
from audit.model import Dealt, Discard, Reshuffle

from enginehands import deal3, house, item_at, profile_of, rules, state_before

ROUND = "*** FIRST BETTING ROUND ***\nAna: checks\nBeto: checks\nCarla: checks\n*** DRAW ***\n"


def draw_hand(draw: str, **cards: str) -> str:
    return house(deal3(**cards) + ROUND + draw)


def test_draws_in_turn_from_the_buttons_left_once_each() -> None:
    text = draw_hand("Beto: stands pat\nAna: stands pat\nAna: stands pat\n")
    st = state_before(text, "Beto: stands pat")
    assert next_to_draw(st) == "Ana"
    found = check_draw_turn(st, "Beto", 20)
    assert rules(found) == [("DRAW_ORDER", "Beto", "finding.DRAW_ORDER.out_of_turn")]
    assert found is not None and found.message == "Beto drew out of turn: it was Ana's turn."
    assert check_draw_turn(st, "Ana", 20) is None
    again = draw_hand("Ana: stands pat\nBeto: stands pat\nAna: discards 1 card [5c]\n")
    twice = state_before(again, "Ana: discards")
    assert rules(check_draw_turn(twice, "Ana", 21)) == [("DRAW_ORDER", "Ana", "finding.DRAW_ORDER.twice")]


def test_the_draw_limit_with_and_without_an_ace_kept() -> None:
    text = draw_hand("Ana: discards 4 cards [Ad 5c 7d 9h]\n")
    d = item_at(text, "Ana: discards")
    assert isinstance(d, Discard)
    qdan = state_before(text, "Ana: discards", profile_of("qdan"))
    assert check_draw_limit(qdan, "Ana", d, 4) is None  # keeps the ace of spades: 4 allowed
    no_ace = draw_hand("Ana: discards 4 cards [As Ad 5c 7d]\n")
    d2 = item_at(no_ace, "Ana: discards")
    assert isinstance(d2, Discard)
    found = check_draw_limit(state_before(no_ace, "Ana: discards", profile_of("qdan")), "Ana", d2, 4)
    assert rules(found) == [("DRAW_LIMIT", "Ana", "finding.DRAW_LIMIT.no_ace")]
    assert found is not None and found.message == \
        "Ana drew 4 cards; the limit is 3 without an ace or the joker kept (4 only when keeping one)."


def test_the_cards_thrown_are_as_many_as_said_and_in_the_hand() -> None:
    text = draw_hand("Ana: discards 2 cards [5c Kd 7d]\n")
    d = item_at(text, "Ana: discards")
    assert isinstance(d, Discard)
    found = check_discard(state_before(text, "Ana: discards"), d)
    assert rules(found) == [("DRAW_COUNT", "Ana", "finding.DRAW_COUNT.says_lists"),
                            ("DRAW_COUNT", "Ana", "finding.DRAW_COUNT.not_in_hand")]
    assert found is not None and found[1].message == "Ana discarded Kd, which is not in their hand."


def test_the_cards_received() -> None:
    text = draw_hand("Ana: discards 2 cards [5c 7d]\nDealt to Ana [As Ad 9c] [2s 3s 4s]\n")
    st = state_before(text, "Dealt to Ana [As Ad 9c]")
    d = item_at(text, "Dealt to Ana [As Ad 9c]")
    assert isinstance(d, Dealt)
    disc = st.stub.waiting["Ana"]
    found = check_received(st, d, disc, st.players["Ana"].cards, d.groups[0], d.groups[1])
    assert [f.msg_id for f in found or []] == ["finding.DRAW_COUNT.received", "finding.DRAW_COUNT.kept",
                                               "finding.DRAW_COUNT.ends_with"]


def test_new_cards_come_off_the_stub() -> None:
    text = draw_hand("Ana: discards 2 cards [5c 7d]\nDealt to Ana [As Ad 9h] [Ks 2s]\n")
    st = state_before(text, "Dealt to Ana [As Ad 9h]")
    found = check_stub_cards(st, "Ana", ("Ks", "2s"), 25)
    assert rules(found) == [("CARD_DUPLICATE", "Ana", "finding.CARD_DUPLICATE.drawn_live")]
    assert found is not None and found[0].message == \
        "Ana drew Ks, but Beto holds that card: it is in two live hands."
    own = check_stub_cards(st, "Ana", ("As", "2s"), 25)
    assert rules(own) == [("STUB_CARD", "Ana", "finding.STUB_CARD.own")]
    assert check_stub_cards(st, "Ana", ("2s", "3s"), 25) is None


def test_with_a_deck_line_the_stub_is_dealt_in_order() -> None:
    deck = ("As Ks 2c Ad Kd 3c 5c Kh 8h 7d 3d 9s 9h 4h Jd Qs Qh")
    body = (f"Deck: [{deck}]\n" + deal3() + ROUND + "Ana: discards 2 cards [5c 7d]\nDealt to Ana [As Ad 9h] [Qh Qs]\n")
    text = house(body)
    st = state_before(text, "Dealt to Ana [As Ad 9h]")
    assert st.stub.cards == ["Qs", "Qh"]
    assert check_stub_order(st, "Ana", ("Qs", "Qh"), 30) is None
    found = check_stub_order(st, "Ana", ("Qh", "Qs"), 30)
    assert found is None  # the same cards from the top, in another order, are the top cards
    wrong = check_stub_order(st, "Ana", ("Qs", "Jc"), 30)
    assert rules(wrong) == [("DEAL_ORDER", "Ana", "finding.DEAL_ORDER.stub")]


def test_a_reshuffle_that_was_not_needed() -> None:
    text = draw_hand("Dealer: reshuffles [5c 7d]\nAna: discards 2 cards [5c 7d]\n")
    st = state_before(text, "Dealer: reshuffles")
    r = next(i for i in st.hand.body if isinstance(i, Reshuffle))  # the hand's own line: what follows it counts
    found = check_reshuffle(st, r, next_to_draw(st), remaining_stub_set(st))
    assert [f.msg_id for f in found or []][0] == "finding.RESHUFFLE.not_needed"
    assert found is not None and found[0].message == \
        "The dealer reshuffled although 37 cards were left for a draw of 2."


def test_every_survivor_draws_before_the_second_round() -> None:
    text = draw_hand("Ana: stands pat\n*** SECOND BETTING ROUND ***\n")
    st = state_before(text, "*** SECOND")
    found = check_draw_complete(st, 30)
    assert rules(found) == [("DRAW_ORDER", "Beto", "finding.DRAW_ORDER.skipped"),
                            ("DRAW_ORDER", "Carla", "finding.DRAW_ORDER.skipped")]
