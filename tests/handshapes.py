"""Hands of every shape that hold a card a profile's deck does not have, under every ranking a profile can ask
for: shared by the ranking's tests and the engine's."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from audit.cards import JOKER, RANKS, SUITS, Ranking, make_deck, ranking_for
from audit.profile import Profile, load_profile, profile_names

SHAPES = ("high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house", "four of a kind",
          "straight flush", "five of a kind")
FULL = ranking_for("standard", deck_size=52)  # knows every card but the joker: the control for the shapes
FULL_JOKER = ranking_for("standard", joker=True, deck_size=52)
RANKING_OPTIONS = ("deck", "joker", "ranking", "suit-tiebreak")


def profile_variants() -> dict[str, Profile]:
    """Each shipped profile with each value of ``deck``, ``joker``, ``ranking`` and ``suit-tiebreak``, one per
    ranking it gets (keyed by the ranking)."""
    found: dict[str, Profile] = {}
    for name in profile_names():
        for values in itertools.product(("52", "32"), ("none", "wild"), ("standard", "stripped"), ("no", "hdcs")):
            profile = load_profile(name).with_options(list(zip(RANKING_OPTIONS, values)))
            found.setdefault(repr(profile.hand_ranking()), profile)
    return found


PROFILE_VARIANTS = profile_variants()
PROFILE_RANKINGS = {name: profile.hand_ranking() for name, profile in PROFILE_VARIANTS.items()}


def shaped_hand(shape: str, anchor: str, control: Ranking) -> list[str]:
    """A hand of category ``shape`` (as ``control`` ranks it) that holds ``anchor``; the other cards are from
    ``control``'s deck, five of a kind holds the joker."""
    rank, suit = RANKS.index(anchor[0]), anchor[1]
    ranks = sorted({RANKS.index(c[0]) for c in control.deck if c != JOKER} - {rank})
    other = [s for s in SUITS if s != suit]

    def card(r: int, s: str) -> str:
        return RANKS[r] + s

    same = [card(rank, s) for s in other]
    run = sorted({rank, *ranks})
    at = run.index(rank)
    straight = [RANKS[r] for r in run[max(0, min(at, len(run) - 5)):][:5]]
    for kickers in itertools.combinations(ranks, 4):
        k = list(kickers)
        built = {
            "high card": [anchor] + [card(r, other[i % 3]) for i, r in enumerate(k)],
            "pair": [anchor, same[0]] + [card(r, other[i % 3]) for i, r in enumerate(k[:3])],
            "two pair": [anchor, same[0], card(k[0], other[0]), card(k[0], other[1]), card(k[1], other[2])],
            "three of a kind": [anchor, same[0], same[1], card(k[0], other[0]), card(k[1], other[1])],
            "straight": [r + (suit if RANKS.index(r) == rank else other[i % 3]) for i, r in enumerate(straight)],
            "flush": [anchor] + [card(r, suit) for r in k],
            "full house": [anchor, same[0], same[1], card(k[0], other[0]), card(k[0], other[1])],
            "four of a kind": [anchor, *same, card(k[0], other[0])],
            "straight flush": [r + suit for r in straight],
            "five of a kind": [anchor, *same, JOKER],
        }[shape]
        if len(set(built)) == 5 and anchor in built and control.category(built) == shape:
            return built
    raise AssertionError(f"no {shape} holding {anchor} in {control!r}")


def outside_hands(ranking: Ranking, turns: int = 5) -> Iterator[tuple[str, list[str]]]:
    """(shape, hand) for every shape that holds a card ``ranking``'s deck does not have, that card in each of
    the first ``turns`` positions. A concrete card anchors the shape (a pair of Deuces, a straight Deuce to Six);
    the joker out of play stands in for one card of a shape of the deck's own cards."""
    deck = set(ranking.deck)
    for card in (c for c in make_deck(52, joker=True) if c not in deck):
        for shape in SHAPES:
            if card == JOKER:
                if shape == "five of a kind":
                    continue
                built = shaped_hand(shape, "Ah", ranking)[:4] + [JOKER]
            elif shape == "five of a kind" and not ranking.joker:
                continue
            else:
                built = shaped_hand(shape, card, FULL_JOKER if shape == "five of a kind" else FULL)
            for turn in range(turns):
                yield shape, built[turn:] + built[:turn]
