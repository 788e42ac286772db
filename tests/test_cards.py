"""Tests for audit.cards: cards, decks, hand ranking, descriptions."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.cards import (
    CATEGORY_ORDER,
    JOKER,
    RANKS,
    SUITS,
    Ranking,
    make_deck,
    normalise_card,
    ranking_for,
)
from handshapes import PROFILE_RANKINGS, SHAPES, outside_hands

STANDARD = ranking_for("standard")
STRIPPED = ranking_for("stripped")
STRIPPED_SUITED = ranking_for("stripped", suit_tiebreak=True)
JOKER_STD = ranking_for("standard", joker=True)


def hand(text: str) -> list[str]:
    """``"As Kd 7h"`` -> ``["As", "Kd", "7h"]``."""
    return text.split()


# -- cards and decks ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As", "As"),
        ("Th", "Th"),
        ("10h", "Th"),
        ("10s", "Ts"),
        (" 2c ", "2c"),
        ("Jk", "Jk"),
        ("as", None),
        ("AS", None),
        ("jk", None),
        ("JK", None),
        ("1h", None),
        ("11h", None),
        ("Ax", None),
        ("A", None),
        ("", None),
        ("Ash", None),
    ],
)
def test_normalise_card(text: str, expected: str | None) -> None:
    assert normalise_card(text) == expected


def test_make_deck_52() -> None:
    deck = make_deck(52)
    assert len(deck) == 52 == len(set(deck))
    assert deck[:5] == ("2c", "2d", "2h", "2s", "3c")
    assert deck[-1] == "As"
    assert set(deck) == {r + s for r in RANKS for s in SUITS}
    assert make_deck(52) == deck  # fixed order


def test_make_deck_32_and_joker() -> None:
    deck = make_deck(32)
    assert len(deck) == 32 == len(set(deck))
    assert {card[0] for card in deck} == set("789TJQKA")
    assert deck[0] == "7c"
    assert make_deck(32, joker=True) == deck + (JOKER,)
    assert make_deck(52, joker=True)[-1] == JOKER
    assert len(make_deck(52, joker=True)) == 53


@pytest.mark.parametrize("size", [0, 36, 53, 54])
def test_make_deck_rejects_other_sizes(size: int) -> None:
    with pytest.raises(ValueError):
        make_deck(size)


def test_ranking_for_is_cached() -> None:
    assert ranking_for("standard") is ranking_for("standard", False, False)
    assert ranking_for("standard") is ranking_for("standard", suit_tiebreak=False)
    assert ranking_for("stripped", suit_tiebreak=True) is STRIPPED_SUITED
    assert ranking_for("stripped") is not STRIPPED_SUITED
    assert isinstance(STANDARD, Ranking)


def test_ranking_for_rejects_unknown_kind() -> None:
    with pytest.raises(ValueError):
        ranking_for("lowball")


def test_categories() -> None:
    assert STANDARD.categories == CATEGORY_ORDER["standard"]
    assert STANDARD.categories == (
        "high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
        "four of a kind", "straight flush",
    )
    assert STRIPPED.categories == (
        "high card", "pair", "two pair", "three of a kind", "straight", "full house", "flush",
        "four of a kind", "straight flush",
    )
    assert JOKER_STD.categories == STANDARD.categories + ("five of a kind",)


# -- invalid input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranking", "cards"),
    [
        (STANDARD, "As Kd 7h 7c"),  # four cards
        (STANDARD, "As Kd 7h 7c 2s 3s"),  # six cards
        (STANDARD, "As As 7h 7c 2s"),  # duplicate
        (STANDARD, "As Kd 7h 7c Jk"),  # joker not in play
        (STANDARD, "As Kd 7h 7c xx"),
        (STRIPPED, "As Kd 7h 7c 2s"),  # a deuce is not in the stripped deck
        (JOKER_STD, "As Kd 7h Jk Jk"),  # one joker per deck
    ],
)
def test_invalid_hands_raise(ranking: Ranking, cards: str) -> None:
    with pytest.raises(ValueError):
        ranking.strength(hand(cards))


def test_accepts_any_sequence_and_order() -> None:
    cards = hand("As Kd 7h 7c 2s")
    assert STANDARD.strength(tuple(cards)) == STANDARD.strength(cards) == STANDARD.strength(cards[::-1])


# -- category counts over every hand --------------------------------------------------------------------


@pytest.mark.slow
def test_category_counts_standard_52() -> None:
    counts = Counter(map(STANDARD.category, itertools.combinations(make_deck(52), 5)))
    assert counts == {
        "straight flush": 40,
        "four of a kind": 624,
        "full house": 3744,
        "flush": 5108,
        "straight": 10200,
        "three of a kind": 54912,
        "two pair": 123552,
        "pair": 1098240,
        "high card": 1302540,
    }
    assert sum(counts.values()) == 2598960


def test_category_counts_stripped_32() -> None:
    counts = Counter(map(STRIPPED.category, itertools.combinations(make_deck(32), 5)))
    assert counts == {
        "straight flush": 20,
        "four of a kind": 224,
        "flush": 204,
        "full house": 1344,
        "straight": 5100,
        "three of a kind": 10752,
        "two pair": 24192,
        "pair": 107520,
        "high card": 52020,
    }
    assert sum(counts.values()) == 201376


def test_suit_tiebreak_makes_every_stripped_deal_distinct() -> None:
    """Two different hands from one 32-card deck (disjoint) never tie with suit tie-break."""
    by_strength: dict[tuple[int, ...], list[frozenset[str]]] = {}
    for cards in itertools.combinations(make_deck(32), 5):
        by_strength.setdefault(STRIPPED_SUITED.strength(cards), []).append(frozenset(cards))
    for hands in by_strength.values():
        for first, second in itertools.combinations(hands, 2):
            assert first & second, (sorted(first), sorted(second))
    # without the tie-break there are plenty of disjoint exact ties
    assert STRIPPED.strength(hand("Ah Kh Qh Jh 9h")) == STRIPPED.strength(hand("Ad Kd Qd Jd 9d"))


# -- ordering ---------------------------------------------------------------------------------------------

STANDARD_LADDER = [
    ("Ah Kd Qc Jh 9s", "high card"),
    ("2h 2d 3c 4h 5s", "pair"),  # 2-2-3-4-5 is a pair, not a straight
    ("3h 3d 2c 2h 4s", "two pair"),
    ("2h 2d 2c 3h 4s", "three of a kind"),
    ("Ah 2d 3c 4h 5s", "straight"),
    ("2h 3h 4h 5h 7h", "flush"),
    ("2h 2d 2c 3h 3s", "full house"),
    ("2h 2d 2c 2s 3s", "four of a kind"),
    ("Ah 2h 3h 4h 5h", "straight flush"),
]


def test_standard_each_category_beats_the_one_below() -> None:
    strengths = []
    for cards, category in STANDARD_LADDER:
        assert STANDARD.category(hand(cards)) == category
        strengths.append(STANDARD.strength(hand(cards)))
    assert strengths == sorted(strengths)
    assert len(set(strengths)) == len(strengths)
    # the best hand of each category still loses to the worst of the next
    best_of = {
        "high card": "Ah Kd Qc Jh 9s",
        "pair": "Ah Ad Kc Qh Js",
        "two pair": "Ah Ad Kc Kh Qs",
        "three of a kind": "Ah Ad Ac Kh Qs",
        "straight": "Th Jd Qc Kh As",
        "flush": "Ah Kh Qh Jh 9h",
        "full house": "Ah Ad Ac Kh Ks",
        "four of a kind": "Ah Ad Ac As Ks",
    }
    worst_of = {
        "pair": "2h 2d 3c 4h 5s",
        "two pair": "2h 2d 3c 3h 4s",
        "three of a kind": "2h 2d 2c 3h 4s",
        "straight": "Ah 2d 3c 4h 5s",
        "flush": "2h 3h 4h 5h 7h",
        "full house": "2h 2d 2c 3h 3s",
        "four of a kind": "2h 2d 2c 2s 3s",
        "straight flush": "Ah 2h 3h 4h 5h",
    }
    order = STANDARD.categories
    for lower, upper in zip(order, order[1:]):
        assert STANDARD.strength(hand(best_of[lower])) < STANDARD.strength(hand(worst_of[upper])), (lower, upper)


def test_kickers_compared_in_descending_order() -> None:
    s = STANDARD.strength
    assert s(hand("Ah Kd Qc Jh 9s")) > s(hand("Ah Kd Qc Jh 8s"))
    assert s(hand("Ah Kd Qc Jh 8s")) > s(hand("Ah Kd Qc Th 9s"))
    assert s(hand("Ah Kd 3c 4h 6s")) > s(hand("Ad Qd Jc Th 8s"))
    assert s(hand("Ah Ad Kc 4h 2s")) > s(hand("As Ac Qc Jh Ts"))  # pair kicker
    assert s(hand("Ah Ad Kc 4h 3s")) > s(hand("As Ac Kd 4s 2s"))  # third kicker
    assert s(hand("2h 2d Ac Kh Qs")) < s(hand("3s 3c 4d 5h 7s"))  # pair rank before kickers
    assert s(hand("Kh Kd Kc 2h 3s")) > s(hand("Qs Qc Qd Ah Ks"))  # trips rank before the rest
    assert s(hand("Ah Kh Qh Jh 9h")) > s(hand("Ad Kd Qd Jd 8d"))  # flush kickers
    assert s(hand("7h 7d Ac Kh Qs")) == s(hand("7s 7c Ad Ks Qh"))  # exact tie: suits never count
    assert s(hand("Ah Kd Qc Jh 9s")) == s(hand("As Kc Qd Js 9h"))
    assert s(hand("Ah Kh Qh Jh 9h")) == s(hand("As Ks Qs Js 9s"))


def test_two_pair_comparison() -> None:
    s = STANDARD.strength
    assert s(hand("Ah Ad 2c 2h 3s")) > s(hand("Kh Kd Qc Qh As"))  # high pair first
    assert s(hand("Kh Kd Qc Qh 2s")) > s(hand("Ks Kc Jc Jh As"))  # then low pair
    assert s(hand("Kh Kd Qc Qh 3s")) > s(hand("Ks Kc Qs Qd 2s"))  # then kicker
    assert s(hand("Kh Kd Qc Qh 3s")) == s(hand("Ks Kc Qs Qd 3c"))


def test_wheel_is_the_lowest_straight_and_no_wrap() -> None:
    s = STANDARD.strength
    wheel = s(hand("Ah 2d 3c 4h 5s"))
    assert STANDARD.category(hand("Ah 2d 3c 4h 5s")) == "straight"
    assert wheel < s(hand("2h 3d 4c 5h 6s"))
    assert wheel > s(hand("Ah Ad Ac Kh Qs"))  # still beats trips
    assert s(hand("Th Jd Qc Kh As")) > s(hand("9h Td Jc Qh Ks"))
    assert STANDARD.category(hand("Qh Kd Ac 2h 3s")) == "high card"
    assert STANDARD.category(hand("Kh Ad 2c 3h 4s")) == "high card"
    assert STANDARD.category(hand("Ah 2h 3h 4h 5h")) == "straight flush"
    assert s(hand("Ah 2h 3h 4h 5h")) < s(hand("2s 3s 4s 5s 6s"))
    assert STANDARD.category(hand("Qh Kh Ah 2h 3h")) == "flush"


def test_stripped_ordering() -> None:
    s = STRIPPED.strength
    flush = s(hand("7h 8h 9h Jh Kh"))
    full = s(hand("Ah Ad Ac Kh Ks"))
    assert STRIPPED.category(hand("7h 8h 9h Jh Kh")) == "flush"
    assert flush > full
    assert s(hand("7h 7d 7c 7s 8s")) > s(hand("Ah Kh Qh Jh 9h"))  # quads still beat a flush
    low = s(hand("Ah 7d 8c 9h Ts"))
    assert STRIPPED.category(hand("Ah 7d 8c 9h Ts")) == "straight"
    assert low < s(hand("7h 8d 9c Th Js"))
    assert low > s(hand("Ah Ad Ac Kh Qs"))
    assert s(hand("Th Jd Qc Kh As")) > s(hand("9h Td Jc Qh Ks"))
    assert STRIPPED.category(hand("Ah 7h 8h 9h Th")) == "straight flush"
    assert s(hand("Ah 7h 8h 9h Th")) < s(hand("7s 8s 9s Ts Js"))
    assert STRIPPED.category(hand("Qh Kd Ac 7h 8s")) == "high card"  # no other wrap


def _reference(cards: list[str], kind: str) -> tuple[int, ...]:
    """A slow, obviously-written reference evaluator (no joker, no suit tie-break)."""
    values = sorted((RANKS.index(c[0]) + 2 for c in cards), reverse=True)
    counts = Counter(values)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    ordered = [v for v, _ in groups]
    flush = len({c[1] for c in cards}) == 1
    low_four = [2, 3, 4, 5] if kind == "standard" else [7, 8, 9, 10]
    straight_top = 0
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            straight_top = values[0]
        elif sorted(values) == low_four + [14]:
            straight_top = low_four[-1]
    names = CATEGORY_ORDER[kind]
    if straight_top and flush:
        return (names.index("straight flush"), straight_top)
    if shape == [4, 1]:
        return (names.index("four of a kind"), *ordered)
    if shape == [3, 2]:
        return (names.index("full house"), *ordered)
    if flush:
        return (names.index("flush"), *values)
    if straight_top:
        return (names.index("straight"), straight_top)
    if shape == [3, 1, 1]:
        return (names.index("three of a kind"), *ordered)
    if shape == [2, 2, 1]:
        return (names.index("two pair"), *ordered)
    if shape == [2, 1, 1, 1]:
        return (names.index("pair"), *ordered)
    return (names.index("high card"), *values)


def _two_hands(size: int) -> st.SearchStrategy[tuple[list[str], list[str]]]:
    return st.permutations(list(make_deck(size))).map(lambda deck: (deck[:5], deck[5:10]))


@settings(max_examples=400, deadline=None)
@given(_two_hands(52))
def test_standard_agrees_with_reference(pair: tuple[list[str], list[str]]) -> None:
    first, second = pair
    ref_a, ref_b = _reference(first, "standard"), _reference(second, "standard")
    a, b = STANDARD.strength(first), STANDARD.strength(second)
    assert STANDARD.categories[a[0]] == CATEGORY_ORDER["standard"][ref_a[0]]
    assert (a > b) - (a < b) == (ref_a > ref_b) - (ref_a < ref_b)
    assert STANDARD.compare(first, second) == (ref_a > ref_b) - (ref_a < ref_b)


@settings(max_examples=400, deadline=None)
@given(_two_hands(32))
def test_stripped_agrees_with_reference(pair: tuple[list[str], list[str]]) -> None:
    first, second = pair
    ref_a, ref_b = _reference(first, "stripped"), _reference(second, "stripped")
    a, b = STRIPPED.strength(first), STRIPPED.strength(second)
    assert STRIPPED.categories[a[0]] == CATEGORY_ORDER["stripped"][ref_a[0]]
    assert (a > b) - (a < b) == (ref_a > ref_b) - (ref_a < ref_b)
    # suit tie-break refines the order, never reverses it
    sa, sb = STRIPPED_SUITED.strength(first), STRIPPED_SUITED.strength(second)
    if a != b:
        assert (sa > sb) == (a > b)
    else:
        assert sa != sb


# -- joker ------------------------------------------------------------------------------------------------


def test_joker_five_aces_beats_royal_flush() -> None:
    five_aces = hand("As Ad Ah Ac Jk")
    royal = hand("Ts Js Qs Ks As")
    assert JOKER_STD.category(five_aces) == "five of a kind"
    assert JOKER_STD.category(royal) == "straight flush"
    assert JOKER_STD.strength(five_aces) > JOKER_STD.strength(royal)
    assert JOKER_STD.strength(five_aces) > JOKER_STD.strength(hand("Kd Kc Kh Ks Jk"))
    assert JOKER_STD.strength(hand("2d 2c 2h 2s Jk")) > JOKER_STD.strength(hand("Th Jh Qh Kh Jk"))
    # five aces is the best hand there is
    assert JOKER_STD.strength(five_aces) == max(
        JOKER_STD.strength(list(rest) + [JOKER]) for rest in itertools.combinations(make_deck(52), 4)
        if rest[0][0] in "TJQKA"
    )
    assert JOKER_STD.describe(five_aces) == "five of a kind, Aces"


def test_joker_completes_straight_flush_flush_and_straight() -> None:
    assert JOKER_STD.category(hand("9h Th Jh Qh Jk")) == "straight flush"
    assert JOKER_STD.describe(hand("9h Th Jh Qh Jk")) == "a straight flush, Nine to King"  # plays high end
    assert JOKER_STD.describe(hand("Th Jh Qh Kh Jk")) == "a Royal Flush"
    assert JOKER_STD.describe(hand("9h Th Qh Kh Jk")) == "a straight flush, Nine to King"  # fills the gap
    assert JOKER_STD.category(hand("2h 7h 9h Kh Jk")) == "flush"
    assert JOKER_STD.describe(hand("2h 7h 9h Kh Jk")) == "a flush, Ace high"
    assert JOKER_STD.category(hand("5c 6d 8h 9s Jk")) == "straight"
    assert JOKER_STD.describe(hand("5c 6d 8h 9s Jk")) == "a straight, Five to Nine"
    assert JOKER_STD.describe(hand("5c 6d 7h 8s Jk")) == "a straight, Five to Nine"  # high end, not 4-8
    assert JOKER_STD.describe(hand("Ac 2d 3h 4s Jk")) == "a straight, Ace to Five"
    assert JOKER_STD.resolve(hand("9h Th Jk Jh Qh")) == ("9h", "Th", "Kh", "Jh", "Qh")
    assert JOKER_STD.resolve(hand("As Ad Ah Ac Jk"))[4][0] == "A"
    assert STANDARD.resolve(hand("As Kd 7h 7c 2s")) == ("As", "Kd", "7h", "7c", "2s")


def test_joker_best_choice() -> None:
    # four different unsuited, unconnected cards: the joker pairs the highest
    assert JOKER_STD.category(hand("2c 5d 9h Ks Jk")) == "pair"
    assert JOKER_STD.describe(hand("2c 5d 9h Ks Jk")) == "a pair of Kings"
    assert JOKER_STD.strength(hand("2c 5d 9h Ks Jk")) == STANDARD.strength(hand("2c 5d 9h Ks Kd"))
    # a pair becomes trips, two pair a full house, trips quads
    assert JOKER_STD.describe(hand("7c 7d 9h Ks Jk")) == "three of a kind, Sevens"
    assert JOKER_STD.describe(hand("7c 7d Kh Ks Jk")) == "a full house, Kings full of Sevens"
    assert JOKER_STD.describe(hand("7c 7d 7h Ks Jk")) == "four of a kind, Sevens"
    # a straight is chosen over a pair, a flush over a straight, a straight flush over both
    assert JOKER_STD.category(hand("5h 6h 7h 8h Jk")) == "straight flush"
    assert JOKER_STD.category(hand("5h 6h 7h 9c Jk")) == "straight"
    assert JOKER_STD.category(hand("5h 6h 7h Ah Jk")) == "flush"
    # without the joker the same ranking behaves as standard
    assert JOKER_STD.strength(hand("Ah Kd Qc Jh 9s")) == STANDARD.strength(hand("Ah Kd Qc Jh 9s"))


def test_joker_may_copy_a_held_card() -> None:
    """RULES: the joker is any rank and suit, even a duplicate of a held card."""
    double_ace = JOKER_STD.strength(hand("As Ks 9s 4s Jk"))  # joker = a second As
    assert JOKER_STD.category(hand("As Ks 9s 4s Jk")) == "flush"
    assert double_ace > STANDARD.strength(hand("Ah Kh Qh 9h 4h"))
    assert JOKER_STD.describe(hand("As Ks 9s 4s Jk")) == "a flush, Ace high"


def test_stripped_joker() -> None:
    ranking = ranking_for("stripped", joker=True)
    assert ranking.categories[-1] == "five of a kind"
    assert ranking.category(hand("Ah 7d 8c 9h Jk")) == "straight"
    assert ranking.describe(hand("7d 8c 9h Th Jk")) == "a straight, Seven to Jack"
    assert ranking.describe(hand("7h 8h 9h Kh Jk")) == "a flush, Ace high"
    with pytest.raises(ValueError):
        ranking.strength(hand("2h 8h 9h Kh Jk"))


# -- suit tie-break ---------------------------------------------------------------------------------------


def test_suit_tiebreak_flush_shared_case() -> None:
    hearts, diamonds = hand("Ah Kh Qh Jh 9h"), hand("Ad Kd Qd Jd 9d")
    assert STRIPPED_SUITED.strength(hearts) > STRIPPED_SUITED.strength(diamonds)
    assert STRIPPED.strength(hearts) == STRIPPED.strength(diamonds)
    clubs, spades = hand("Ac Kc Qc Jc 9c"), hand("As Ks Qs Js 9s")
    ordered = [STRIPPED_SUITED.strength(h) for h in (spades, clubs, diamonds, hearts)]
    assert ordered == sorted(ordered) and len(set(ordered)) == 4
    # ranks still come first
    assert STRIPPED_SUITED.strength(hand("As Ks Qs Js Ts")) > STRIPPED_SUITED.strength(hearts)
    assert STRIPPED_SUITED.strength(hand("As Ks Qs Js 9s")) < STRIPPED_SUITED.strength(hand("Ac Kc Qc Jc Tc"))


def test_suit_tiebreak_high_card_and_straight_by_highest_card() -> None:
    s = STRIPPED_SUITED.strength
    assert s(hand("Ah Kc Qc Jc 9c")) > s(hand("Ad Kh Qh Jh 9h"))  # only the top card's suit counts
    assert s(hand("7h 8h 9h Th Js")) < s(hand("7s 8s 9s Ts Jc"))  # Jack of clubs beats Jack of spades
    assert s(hand("Ah Kh Qh Jh 9s")) > s(hand("Ad Kd Qd Jd 9h"))  # hearts Ace beats diamonds Ace
    assert STRIPPED.strength(hand("7h 8h 9h Th Js")) == STRIPPED.strength(hand("7s 8s 9s Ts Jc"))


def test_suit_tiebreak_low_straight_by_the_ten() -> None:
    s = STRIPPED_SUITED.strength
    ten_hearts = hand("As 7c 8c 9c Th")
    ten_diamonds = hand("Ah 7d 8d 9d Td")
    assert s(ten_hearts) > s(ten_diamonds)  # despite the heart Ace on the other side
    assert STRIPPED.strength(ten_hearts) == STRIPPED.strength(ten_diamonds)
    # the low straight flush, too
    assert s(hand("Ah 7h 8h 9h Th")) > s(hand("Ad 7d 8d 9d Td"))


def test_suit_tiebreak_pairs_by_highest_unpaired_card() -> None:
    s = STRIPPED_SUITED.strength
    first = hand("Ks Kc Ah 9s 8s")
    second = hand("Kh Kd As 9h 8h")
    assert s(first) > s(second)  # heart Ace kicker beats spade Ace kicker; the pair's suits do not count
    assert STRIPPED.strength(first) == STRIPPED.strength(second)
    assert s(hand("Ks Kc Ac 9s 8s")) > s(hand("Kh Kd As 9h 8h"))
    # kicker ranks still come before suit
    assert s(hand("Ks Kc Ah 9s 7s")) < s(hand("Kh Kd As 9h 8c"))
    # two pair: the kicker's suit
    assert s(hand("Ks Kc Qs Qc 9d")) > s(hand("Kh Kd Qh Qd 9c"))
    assert STRIPPED.strength(hand("Ks Kc Qs Qc 9d")) == STRIPPED.strength(hand("Kh Kd Qh Qd 9c"))


def test_suit_tiebreak_standard_wheel_by_the_five() -> None:
    ranking = ranking_for("standard", suit_tiebreak=True)
    assert ranking.strength(hand("As 2c 3c 4c 5h")) > ranking.strength(hand("Ah 2d 3d 4d 5d"))
    trips = ranking.strength(hand("Kh Kd Kc 2h 3s"))
    assert trips == ranking.strength(hand("Ks Kd Kc 2s 3d")) == (3, 13, 3, 2)  # trips take no suit


# -- descriptions -----------------------------------------------------------------------------------------

DESCRIPTIONS = [
    (STANDARD, "Ah Kd 7c 4h 2s", "high card Ace"),
    (STANDARD, "2h 2d 7c 4h Ks", "a pair of Deuces"),
    (STANDARD, "Jh Jd 6c 6h 2s", "two pair, Jacks and Sixes"),
    (STANDARD, "Kh Kd Kc 6h 2s", "three of a kind, Kings"),
    (STANDARD, "5h 6d 7c 8h 9s", "a straight, Five to Nine"),
    (STANDARD, "Ah 2d 3c 4h 5s", "a straight, Ace to Five"),
    (STANDARD, "Th Jd Qc Kh As", "a straight, Ten to Ace"),
    (STANDARD, "Ah 9h 7h 4h 2h", "a flush, Ace high"),
    (STANDARD, "Ah Ad Ac Kh Ks", "a full house, Aces full of Kings"),
    (STANDARD, "Th Td Tc Jh Js", "a full house, Tens full of Jacks"),
    (STANDARD, "Ah Ad Ac As Ks", "four of a kind, Aces"),
    (STANDARD, "9h Th Jh Qh Kh", "a straight flush, Nine to King"),
    (STANDARD, "Ah 2h 3h 4h 5h", "a straight flush, Ace to Five"),
    (STANDARD, "Th Jh Qh Kh Ah", "a Royal Flush"),
    (STANDARD, "3h 3d 6c 8h 9s", "a pair of Threes"),
    (STANDARD, "6h 6d 2c 8h 9s", "a pair of Sixes"),
    (STANDARD, "Qh 9d 7c 4h 2s", "high card Queen"),
    (STANDARD, "Qh Qd Qc 4h 2s", "three of a kind, Queens"),
    (STRIPPED, "Ah 7d 8c 9h Ts", "a straight, Ace to Ten"),
    (STRIPPED, "Ah 7h 8h 9h Th", "a straight flush, Ace to Ten"),
    (STRIPPED, "Kh Kd 9c 8h 7s", "a pair of Kings"),
    (JOKER_STD, "As Ad Ah Ac Jk", "five of a kind, Aces"),
]


@pytest.mark.parametrize(("ranking", "cards", "text"), DESCRIPTIONS)
def test_describe_and_round_trip(ranking: Ranking, cards: str, text: str) -> None:
    assert ranking.describe(hand(cards)) == text
    assert ranking.description_matches(text, hand(cards))
    assert ranking.description_matches(text.upper(), hand(cards))


def test_every_category_described_and_matched() -> None:
    seen: set[str] = set()
    for cards, _ in STANDARD_LADDER:
        text = STANDARD.describe(hand(cards))
        assert STANDARD.description_matches(text, hand(cards))
        seen.add(STANDARD.category(hand(cards)))
    assert seen == set(STANDARD.categories)


def test_round_trip_all_stripped_hands() -> None:
    for ranking in (STRIPPED, STRIPPED_SUITED):
        for cards in itertools.islice(itertools.combinations(make_deck(32), 5), 0, None, 7):
            assert ranking.description_matches(ranking.describe(cards), cards)


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        ("Kh Kd 7c 4h 2s", "a pair of Kings"),
        ("Kh Kd 7c 4h 2s", "pair of king"),
        ("Kh Kd 7c 4h 2s", "A PAIR OF KINGS"),
        ("Kh Kd 7c 4h 2s", "a pair of Kings - lower kicker"),
        ("Jh Jd 6c 6h 2s", "two pair, Jack and Six"),
        ("Jh Jd 6c 6h 2s", "two pairs, Jacks and Sixes"),
        ("Qh 9d 7c 4h 2s", "high card Queen"),
        ("Ah 9h 7h 4h 2h", "flush, Ace high"),
        ("Ah 9h 7h 4h 2h", "a flush, Ace high - Nine"),
        ("5h 6d 7c 8h 9s", "straight, five to nine"),
        ("Th Td Tc Jh Js", "a full house, Ten full of Jack"),
        ("Qh Qd Qc 4h 2s", "three of a kind, Queens"),
        ("Ah Ad Ac As Ks", "four of a kind, Aces - Kings"),
        ("Th Jh Qh Kh Ah", "Royal Flush"),
        ("Th Jh Qh Kh Ah", "a royal flush"),
        ("Th Jh Qh Kh Ah", "a straight flush, Ten to Ace"),
        ("2h 2d 7c 4h Ks", "a pair of Twos"),
    ],
)
def test_description_matches_variants(cards: str, text: str) -> None:
    assert STANDARD.description_matches(text, hand(cards))


@pytest.mark.parametrize(
    ("ranking", "cards", "text"),
    [
        (STANDARD, "2h 2d 7c 4h Ks", "high card Ace"),
        (STANDARD, "2h 2d 7c 4h Ks", "high card King"),  # right rank, wrong category
        (STANDARD, "Qh Qd Qc 4h 2s", "three of a kind, Kings"),
        (STANDARD, "Jh Jd 6c 6h 2s", "two pair, Sixes and Jacks"),  # order matters
        (STANDARD, "Jh Jd 6c 6h 2s", "two pair, Jacks and Fives"),
        (STANDARD, "Jh Jd 6c 6h 2s", "a pair of Jacks"),
        (STANDARD, "5h 6d 7c 8h 9s", "a straight, Six to Ten"),
        (STANDARD, "5h 6d 7c 8h 9s", "a straight, Five to Ten"),
        (STANDARD, "Ah 2d 3c 4h 5s", "a straight, Five to Ace"),
        (STANDARD, "Ah 9h 7h 4h 2h", "a flush, King high"),
        (STANDARD, "Ah 9h 7h 4h 2h", "a straight, Ace to Five"),
        (STANDARD, "Th Td Tc Jh Js", "a full house, Jacks full of Tens"),
        (STANDARD, "9h Th Jh Qh Kh", "a Royal Flush"),
        (STANDARD, "Th Jh Qh Kh Ah", "a flush, Ace high"),
        (STANDARD, "Th Jd Qc Kh As", "a Royal Flush"),
        (STANDARD, "Ah Ad Ac As Ks", "four of a kind, Kings"),
        (STANDARD, "Kh Kd 7c 4h 2s", "a pair of Kingz"),  # unknown rank word
        (STANDARD, "Kh Kd 7c 4h 2s", "nothing"),
        (STANDARD, "Kh Kd 7c 4h 2s", ""),
        (STANDARD, "Kh Kd 7c 4h 2s", "Kings"),
        (STRIPPED, "Ah 7h 8h 9h Jh", "a full house, Aces full of Kings"),
        (STRIPPED, "Ah 7d 8c 9h Ts", "a straight, Seven to Ace"),
        (JOKER_STD, "As Ad Ah Ac Jk", "four of a kind, Aces"),
    ],
)
def test_description_mismatches(ranking: Ranking, cards: str, text: str) -> None:
    assert not ranking.description_matches(text, hand(cards))


# -- a card outside the deck ------------------------------------------------------------------------------

def test_every_profile_ranking_is_tried() -> None:
    kinds = {(r.kind, len(r.deck) - r.joker, r.joker, r.suit_tiebreak) for r in PROFILE_RANKINGS.values()}
    assert len(kinds) == len(PROFILE_RANKINGS)
    assert kinds == set(itertools.product(("standard", "stripped"), (52, 32), (False, True), (False, True)))


@pytest.mark.parametrize("name", sorted(PROFILE_RANKINGS))
def test_a_hand_with_a_card_outside_the_deck_has_no_strength(name: str) -> None:
    """Every hand shape holding a card the profile's deck does not have, under every profile's ranking: the
    audit's one door (``rank_hand``) never raises and says ``None``; the strict ``strength`` says why."""
    ranking = PROFILE_RANKINGS[name]
    seen: Counter[str] = Counter()
    for shape, cards in outside_hands(ranking):
        assert ranking.rank_hand(cards) is None, (shape, cards)
        with pytest.raises(ValueError, match="not a card of|joker is not in play"):
            ranking.strength(cards)
        stranger = next(c for c in cards if c not in ranking.deck)
        stand_in = next(c for c in ranking.deck if c not in cards)
        fixed = [stand_in if c == stranger else c for c in cards]
        if all(c in ranking.deck for c in fixed):  # the same hand with the deck's own card: ranked
            assert ranking.rank_hand(fixed) == ranking.strength(fixed)
        seen[shape] += 1
    if ranking.joker and len(ranking.deck) == 53:
        assert not seen  # every card is in this deck
    else:
        wanted = set(SHAPES) if ranking.joker else set(SHAPES) - {"five of a kind"}
        assert set(seen) == wanted


def test_rank_hand_of_no_cards_and_bad_hands() -> None:
    assert STANDARD.rank_hand(None) is None
    assert STANDARD.rank_hand(hand("As Kd 7h 7c")) is None
    assert STANDARD.rank_hand(hand("As As 7h 7c 2s")) is None
    assert STANDARD.rank_hand(hand("As Kd 7h 7c 2s")) == STANDARD.strength(hand("As Kd 7h 7c 2s"))


@pytest.mark.parametrize("ranking", [STANDARD, STRIPPED, STRIPPED_SUITED, JOKER_STD], ids=repr)
def test_jacks_or_better(ranking: Ranking) -> None:
    s = ranking.strength
    assert not ranking.jacks_or_better(s(hand("Ah Kd 9c 8h 7s")))
    assert not ranking.jacks_or_better(s(hand("Th Td 9c 8h Ks")))
    assert ranking.jacks_or_better(s(hand("Jh Jd 9c 8h 7s")))
    assert ranking.jacks_or_better(s(hand("Ah Ad 9c 8h 7s")))
    assert ranking.jacks_or_better(s(hand("8h 8d 7c 7h Ks")))  # two small pairs beat a pair of Jacks


def test_the_deck_decides_the_lowest_straight() -> None:
    """The ace plays low below the deck's four lowest ranks, whatever the ranking kind."""
    stripped_52 = ranking_for("stripped", deck_size=52)
    standard_32 = ranking_for("standard", deck_size=32)
    assert stripped_52.describe(hand("Ah 2d 3c 4h 5s")) == "a straight, Ace to Five"
    assert stripped_52.category(hand("Ah 7d 8c 9h Ts")) == "high card"
    assert stripped_52.strength(hand("2h 5h 8h Jh Kh")) > stripped_52.strength(hand("2c 2d 2s 5c 5d"))
    assert standard_32.describe(hand("Ah 7d 8c 9h Ts")) == "a straight, Ace to Ten"
    assert standard_32.strength(hand("7c 7d 7s 8c 8d")) > standard_32.strength(hand("7h 9h Th Qh Kh"))
    assert standard_32.rank_hand(hand("2h 5h 8h Jh Kh")) is None
    assert ranking_for("standard") is ranking_for("standard", deck_size=52)
    assert ranking_for("stripped") is ranking_for("stripped", deck_size=32)
