"""Cards, decks and five-card hand ranking.

Cards are two-character strings: a rank from :data:`RANKS` followed by a suit from :data:`SUITS`
(``"As"``, ``"Th"``); the joker is :data:`JOKER` (``"Jk"``).

A :class:`Ranking` (obtain one with :func:`ranking_for`) turns a five-card hand into a *strength*: a tuple of
ints that compares like the hands do (higher is better, equal tuples are an exact tie, i.e. a split). Three
rule sets are supported:

``standard``
    52 cards. Straight flush > four of a kind > full house > flush > straight > three of a kind > two pair >
    pair > high card. Aces are high, A-2-3-4-5 is the lowest straight (the Five is its top card), no
    wrap-around straights, suits never break ties.
``stripped``
    32 cards (7 to A). A flush beats a full house, and A-7-8-9-T is the lowest straight (the ace plays low,
    so the Ten is its top card).
``deck_size``
    The kind fixes the order of the categories; the deck (52 for ``standard``, 32 for ``stripped`` unless a
    profile's ``deck`` says otherwise) fixes which cards the ranking knows and the lowest straight: the ace
    plays low below the deck's four lowest ranks (A-2-3-4-5 with 52 cards, A-7-8-9-T with 32).
``joker=True``
    The joker becomes whichever card of the ranking's deck gives the best hand -- any rank and suit, even a
    duplicate of a card already held -- so five of a kind (which beats a straight flush) becomes possible.

With ``suit_tiebreak=True`` hands equal in category and ranks are further ordered by the suit of one
deciding card, hearts > diamonds > clubs > spades: the highest card for high card, straights, flushes and
straight flushes (for A-7-8-9-T that is the Ten), the highest unpaired card (the kicker) for a pair or two
pair. Trips, full houses and quads are never tied in a single deck and take no suit.

Evaluation is table driven: every card maps to an int holding one count in a per-rank and a per-suit
3-bit field, so the sum of five codes gives the hand's rank multiset (the key of a precomputed table of
strengths) and tells at once whether all five cards share a suit.
"""

from __future__ import annotations

import re
from typing import Final
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "CATEGORY_ORDER",
    "FIVE_OF_A_KIND",
    "FLUSH",
    "FOUR_OF_A_KIND",
    "FULL_HOUSE",
    "HIGH_CARD",
    "JOKER",
    "PAIR",
    "RANKS",
    "RANK_VALUE",
    "Ranking",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "STRIPPED_RANKS",
    "SUITS",
    "SUIT_TIEBREAK_ORDER",
    "THREE_OF_A_KIND",
    "TWO_PAIR",
    "make_deck",
    "normalise_card",
    "ranking_for",
]

RANKS: Final = "23456789TJQKA"
"""Card ranks, low to high (the ace also plays low in the lowest straight)."""

SUITS: Final = "cdhs"
"""Card suits: clubs, diamonds, hearts, spades (also the order cards take in :func:`make_deck`)."""

JOKER: Final = "Jk"
"""The joker's card string."""

STRIPPED_RANKS = "789TJQKA"
"""Ranks of the 32-card stripped deck, low to high."""

SUIT_TIEBREAK_ORDER = "scdh"
"""Suits low to high when ``suit_tiebreak`` is on: spades < clubs < diamonds < hearts."""

RANK_VALUE: dict[str, int] = {rank: value for value, rank in enumerate(RANKS, start=2)}
"""A rank character's numeric value: ``"2"`` -> 2 ... ``"T"`` -> 10, ``"J"`` -> 11 ... ``"A"`` -> 14."""

HIGH_CARD: Final = "high card"
"""Category name."""
PAIR: Final = "pair"
"""Category name."""
TWO_PAIR: Final = "two pair"
"""Category name."""
THREE_OF_A_KIND: Final = "three of a kind"
"""Category name."""
STRAIGHT: Final = "straight"
"""Category name."""
FLUSH: Final = "flush"
"""Category name."""
FULL_HOUSE: Final = "full house"
"""Category name."""
FOUR_OF_A_KIND: Final = "four of a kind"
"""Category name."""
STRAIGHT_FLUSH: Final = "straight flush"
"""Category name."""
FIVE_OF_A_KIND: Final = "five of a kind"
"""Category name (only reachable with a joker)."""

CATEGORY_ORDER: dict[str, tuple[str, ...]] = {
    "standard": (
        HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH,
    ),
    "stripped": (
        HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FULL_HOUSE, FLUSH, FOUR_OF_A_KIND, STRAIGHT_FLUSH,
    ),
}
"""Categories low to high for each ranking kind without a joker; a joker ranking appends five of a kind."""

_DEFAULT_DECK: dict[str, int] = {"standard": 52, "stripped": 32}

_RANK_NAMES: dict[int, tuple[str, str]] = {
    2: ("Deuce", "Deuces"),
    3: ("Three", "Threes"),
    4: ("Four", "Fours"),
    5: ("Five", "Fives"),
    6: ("Six", "Sixes"),
    7: ("Seven", "Sevens"),
    8: ("Eight", "Eights"),
    9: ("Nine", "Nines"),
    10: ("Ten", "Tens"),
    11: ("Jack", "Jacks"),
    12: ("Queen", "Queens"),
    13: ("King", "Kings"),
    14: ("Ace", "Aces"),
}

_RANK_WORDS: dict[str, int] = {}
for _value, (_single, _plural) in _RANK_NAMES.items():
    _RANK_WORDS[_single.lower()] = _value
    _RANK_WORDS[_plural.lower()] = _value
_RANK_WORDS.update({"two": 2, "twos": 2, "trey": 3, "treys": 3})

_SUIT_VALUE: dict[str, int] = {suit: value for value, suit in enumerate(SUIT_TIEBREAK_ORDER)}

# Card code layout: bits 3*r .. 3*r+2 count rank index r (0..12); bits _SUIT_SHIFT + 3*s .. count suit s.
_SUIT_SHIFT: Final = 40
_RANK_MASK: Final = (1 << 40) - 1
_FLUSH_SUITS = frozenset(5 << (3 * s) for s in range(len(SUITS)))  # suit field, shifted down


def normalise_card(text: str) -> str | None:
    """Return the canonical two-character form of ``text`` or ``None`` if it is not a card.

    Surrounding whitespace is ignored and ``"10"`` is accepted for the Ten (``"10h"`` -> ``"Th"``). Matching
    is case-sensitive: the rank is upper case, the suit lower case (``"as"`` is not a card), and the joker
    is exactly ``"Jk"``.
    """
    card = text.strip()
    if card == JOKER:
        return JOKER
    if len(card) == 3 and card.startswith("10"):
        card = "T" + card[2]
    if len(card) == 2 and card[0] in RANKS and card[1] in SUITS:
        return card
    return None


def make_deck(size: int, joker: bool = False) -> tuple[str, ...]:
    """Return the cards of a fresh deck in a fixed order: ranks low to high, suits ``c d h s`` within a rank.

    ``size`` is 52 (2 to A) or 32 (7 to A); ``joker`` appends ``"Jk"`` as the last card.
    """
    if size == 52:
        ranks = RANKS
    elif size == 32:
        ranks = STRIPPED_RANKS
    else:
        raise ValueError(f"deck size must be 52 or 32, not {size!r}")
    deck = tuple(rank + suit for rank in ranks for suit in SUITS)
    return deck + (JOKER,) if joker else deck


_TEXT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (category, re.compile(pattern))
    for category, pattern in (
        (STRAIGHT_FLUSH, r"straight flush,?\s+([a-z]+)\s+to\s+([a-z]+)\b"),
        (FIVE_OF_A_KIND, r"five of a kind,?\s+([a-z]+)\b"),
        (FOUR_OF_A_KIND, r"four of a kind,?\s+([a-z]+)\b"),
        (FULL_HOUSE, r"full house,?\s+([a-z]+)\s+full of\s+([a-z]+)\b"),
        (FLUSH, r"flush,?\s+([a-z]+)\s+high\b"),
        (STRAIGHT, r"straight,?\s+([a-z]+)\s+to\s+([a-z]+)\b"),
        (THREE_OF_A_KIND, r"three of a kind,?\s+([a-z]+)\b"),
        (TWO_PAIR, r"two pairs?,?\s+([a-z]+)\s+and\s+([a-z]+)\b"),
        (PAIR, r"pair of\s+([a-z]+)\b"),
        (HIGH_CARD, r"high card,?\s+([a-z]+)\b"),
    )
)
_ROYAL = re.compile(r"royal flush\b")
_ARTICLE = re.compile(r"(?:an?\s+)?")


_PARSED: dict[str, tuple[str, tuple[int, ...]] | None] = {}


def _parse_description(text: str) -> tuple[str, tuple[int, ...]] | None:
    """Parse a stated hand description into (category, named rank values), or ``None`` if unparseable.

    Logs repeat a few hundred descriptions: each is parsed once (the cache is emptied when it grows large)."""
    parsed = _PARSED.get(text)
    if parsed is not None or text in _PARSED:
        return parsed
    if len(_PARSED) >= 4096:
        _PARSED.clear()
    parsed = _PARSED[text] = _parse_description_uncached(text)
    return parsed


def _parse_description_uncached(text: str) -> tuple[str, tuple[int, ...]] | None:
    lowered = " ".join(text.lower().split())
    start = _ARTICLE.match(lowered)
    body = lowered[start.end():] if start else lowered
    if _ROYAL.match(body):
        return STRAIGHT_FLUSH, (10, 14)
    for category, pattern in _TEXT_PATTERNS:
        found = pattern.match(body)
        if found is None:
            continue
        values = tuple(_RANK_WORDS.get(word, 0) for word in found.groups())
        if 0 in values:
            return None
        return category, values
    return None


def _layout(combo: tuple[int, ...]) -> tuple[list[int], tuple[int, ...]]:
    """For a sorted multiset of ranks: the place of each distinct rank, ordered by multiplicity, then by rank
    (the order that decides ties), and the multiplicities in that order (the hand's shape: (2, 1, 1, 1) a
    pair …)."""
    groups: list[tuple[int, int, int]] = []  # (multiplicity, rank, place of its first card)
    for place, value in enumerate(combo):
        if groups and groups[-1][1] == value:
            count, rank, first = groups[-1]
            groups[-1] = (count + 1, rank, first)
        else:
            groups.append((1, value, place))
    groups.sort(reverse=True)
    return [first for _, _, first in groups], tuple([count for count, _, _ in groups])


class Ranking:
    """A hand-ranking rule set: evaluates five-card hands to comparable strengths and describes them.

    Build one with :func:`ranking_for`. Public attributes: ``kind`` (``"standard"`` or ``"stripped"``),
    ``suit_tiebreak``, ``joker``, ``categories`` (category names low to high) and ``deck`` (the cards the
    ranking accepts, as :func:`make_deck` orders them).
    """

    __slots__ = (
        "kind", "suit_tiebreak", "joker", "categories", "deck",
        "_code", "_plain", "_flush", "_plain_decider", "_flush_decider", "_wheel_top", "_concrete", "_best",
    )

    def __init__(self, kind: str, suit_tiebreak: bool = False, joker: bool = False, deck_size: int = 0) -> None:
        if kind not in CATEGORY_ORDER:
            raise ValueError(f"unknown ranking kind {kind!r}; expected 'standard' or 'stripped'")
        self.kind = kind
        self.suit_tiebreak = suit_tiebreak
        self.joker = joker
        self.categories: tuple[str, ...] = CATEGORY_ORDER[kind] + ((FIVE_OF_A_KIND,) if joker else ())
        self.deck: tuple[str, ...] = make_deck(deck_size or _DEFAULT_DECK[kind], joker)
        self._concrete: tuple[str, ...] = tuple(card for card in self.deck if card != JOKER)
        self._code: dict[str, int] = {
            card: (1 << (3 * RANKS.index(card[0]))) + (1 << (_SUIT_SHIFT + 3 * SUITS.index(card[1])))
            for card in self._concrete
        }
        self._plain: dict[int, tuple[int, ...]] = {}
        self._flush: dict[int, tuple[int, ...]] = {}
        self._plain_decider: dict[int, str] = {}
        self._flush_decider: dict[int, str] = {}
        self._build_tables()
        self._best = lru_cache(maxsize=1 << 16)(self._best_uncached)

    def __repr__(self) -> str:
        size = len(self._concrete)
        deck = "" if size == _DEFAULT_DECK[self.kind] else f", deck_size={size}"
        return f"ranking_for({self.kind!r}, suit_tiebreak={self.suit_tiebreak}, joker={self.joker}{deck})"

    # -- table construction -------------------------------------------------------------------------------

    def _build_tables(self) -> None:
        """Precompute, for every rank multiset, the strength as an off-suit hand and as a flush.

        (Built in every process that ranks a hand, so kept cheap: five nested loops over native ints, the
        shape of each multiset told by which neighbours are equal, each strength built as one tuple.)"""
        values = sorted({RANK_VALUE[card[0]] for card in self._concrete})
        nv = len(values)
        shift = [1 << (3 * (value - 2)) if value >= 2 else 0 for value in range(15)]  # the rank part of a code
        rank_char = ["" for _ in range(15)]
        for value in values:
            rank_char[value] = RANKS[value - 2]
        # five ranks in a row, low to high (keyed by their code), and the rank of their top card
        straights: dict[int, int] = {}
        for low in range(nv - 4):
            if values[low + 4] - values[low] == 4:
                straights[sum(shift[v] for v in values[low:low + 5])] = values[low + 4]
        self._wheel_top = values[3]
        straights[sum(shift[v] for v in values[:4]) + shift[values[-1]]] = values[3]

        index = {category: i for i, category in enumerate(self.categories)}
        five = index.get(FIVE_OF_A_KIND, -1)
        four, full_house, three = index[FOUR_OF_A_KIND], index[FULL_HOUSE], index[THREE_OF_A_KIND]
        two_pair, pair, straight_i = index[TWO_PAIR], index[PAIR], index[STRAIGHT]
        high, flush_i, straight_flush = index[HIGH_CARD], index[FLUSH], index[STRAIGHT_FLUSH]
        most = 5 if self.joker else 4
        # which neighbours of a sorted multiset are equal (a bit each) → the places that decide ties (ranks by
        # multiplicity, then by rank) and the shape (the multiplicities in that order)
        layouts: dict[int, tuple[list[int], tuple[int, ...]]] = {}
        plain_table = self._plain
        flush_table = self._flush
        plain_deciders = self._plain_decider
        deciders = self.suit_tiebreak  # the deciding rank's card breaks ties by suit: only read then (``_suited``)
        flush_deciders = self._flush_decider
        for ia in range(nv):
            a = values[ia]
            for ib in range(ia, nv):
                b = values[ib]
                for ic in range(ib, nv):
                    c = values[ic]
                    for id_ in range(ic, nv):
                        d = values[id_]
                        for ie in range(id_, nv):
                            e = values[ie]
                            pattern = (1 if a == b else 0) | (2 if b == c else 0) | (4 if c == d else 0) \
                                | (8 if d == e else 0)
                            layout = layouts.get(pattern)
                            if layout is None:
                                layout = layouts[pattern] = _layout((a, b, c, d, e))
                            places, shape = layout
                            top = shape[0]
                            if top > most:
                                continue
                            combo = (a, b, c, d, e)
                            code = shift[a] + shift[b] + shift[c] + shift[d] + shift[e]
                            decider = 0
                            straight = 0
                            parts = len(places)
                            if parts == 5:
                                straight = straights.get(code, 0)
                            if top == 5:
                                plain: tuple[int, ...] = (five, combo[places[0]])
                            elif top == 4:
                                plain = (four, combo[places[0]], combo[places[1]])
                            elif top == 3 and parts == 2:
                                plain = (full_house, combo[places[0]], combo[places[1]])
                            elif top == 3:
                                plain = (three, combo[places[0]], combo[places[1]], combo[places[2]])
                            elif top == 2 and parts == 3:
                                plain = (two_pair, combo[places[0]], combo[places[1]], combo[places[2]])
                                decider = combo[places[2]]
                            elif top == 2:
                                plain = (pair, combo[places[0]], combo[places[1]], combo[places[2]],
                                         combo[places[3]])
                                decider = combo[places[1]]
                            elif straight:
                                plain = (straight_i, straight)
                                decider = straight
                            else:
                                plain = (high, e, d, c, b, a)
                                decider = e
                            if straight:
                                flush: tuple[int, ...] = (straight_flush, straight)
                                flush_decider = straight
                            else:
                                # five suited cards are a flush; with a joker duplicate they may also hold a
                                # pair, which a flush beats -- but keep the better reading in case a rank shape
                                # outranks the flush (the categories differ: the first element decides)
                                flush = (flush_i, e, d, c, b, a)
                                flush_decider = e
                                if plain[0] > flush_i:
                                    flush, flush_decider = plain, decider
                            plain_table[code] = plain
                            flush_table[code] = flush
                            if deciders:
                                plain_deciders[code] = rank_char[decider] if decider else ""
                                flush_deciders[code] = rank_char[flush_decider] if flush_decider else ""

    # -- evaluation ---------------------------------------------------------------------------------------

    def strength(self, cards: Sequence[str]) -> tuple[int, ...]:
        """Return the comparable strength of a five-card hand: higher is better, equal means an exact tie.

        The first element is the index of the hand's category in :attr:`categories`. Raises ``ValueError``
        for anything but five distinct cards of this ranking's deck.
        """
        code = self._code
        if isinstance(cards, tuple) and len(cards) == 5 and not self.suit_tiebreak:
            # the common case (a hand as the replay holds it): no unpacking of a sequence, no exception
            held = cards
            ca, cb, cc, cd, ce = (code.get(held[0], 0), code.get(held[1], 0), code.get(held[2], 0),
                                  code.get(held[3], 0), code.get(held[4], 0))
            if ca and cb and cc and cd and ce and ca != cb and ca != cc and ca != cd and ca != ce and cb != cc \
                    and cb != cd and cb != ce and cc != cd and cc != ce and cd != ce:
                total = ca + cb + cc + cd + ce
                suits = total >> _SUIT_SHIFT
                if suits == 5 or suits == 40 or suits == 320 or suits == 2560:  # ``_FLUSH_SUITS``
                    return self._flush[total & _RANK_MASK]
                return self._plain[total & _RANK_MASK]
        try:
            a, b, c, d, e = cards
            ca, cb, cc, cd, ce = code[a], code[b], code[c], code[d], code[e]
        except (KeyError, ValueError, TypeError):
            return self._best(self._checked(cards))[0]
        total = ca + cb + cc + cd + ce
        # each card has its own code: equal codes are the same card twice
        if ca == cb or ca == cc or ca == cd or ca == ce or cb == cc or cb == cd or cb == ce or cc == cd \
                or cc == ce or cd == ce:
            raise ValueError(f"duplicate card in hand {list(cards)!r}")
        if not self.suit_tiebreak:
            if total >> _SUIT_SHIFT in _FLUSH_SUITS:
                return self._flush[total & _RANK_MASK]
            return self._plain[total & _RANK_MASK]
        return self._suited(cards, total)

    def rank_hand(self, cards: Sequence[str] | None) -> tuple[int, ...] | None:
        """The strength of a hand as a log gives it, or ``None`` when it is no hand this ranking can rank.

        ``None`` for anything but five distinct cards of this ranking's deck: a card the deck does not have (a
        Deuce in the 32-card deck, the joker when it is not in play), a card twice, not five cards, or no cards
        known (``None``). This is the one door through which the audit ranks a player's hand: such a hand has
        no strength, so it opens nothing, wins and shares no pot, scores no point, and its stated description
        is not judged; the card itself is the finding (``CARD_NOT_IN_DECK``, ``CARD_DUPLICATE``) where it was
        dealt or shown.
        """
        if cards is None:
            return None
        try:
            return self.strength(cards)
        except ValueError:
            return None

    def jacks_or_better(self, strength: tuple[int, ...]) -> bool:
        """Does a hand of this strength open under ``openers = jacks`` (a pair of Jacks or anything better)?"""
        pair = self.categories.index(PAIR)
        return strength[0] > pair or (strength[0] == pair and strength[1] >= RANK_VALUE["J"])

    def _suited(self, cards: Sequence[str], total: int) -> tuple[int, ...]:
        """Strength of concrete (joker-free) cards with the suit tie-break appended where it applies."""
        ranks = total & _RANK_MASK
        if total >> _SUIT_SHIFT in _FLUSH_SUITS:
            key, decider = self._flush[ranks], self._flush_decider[ranks]
        else:
            key, decider = self._plain[ranks], self._plain_decider[ranks]
        if decider:
            for card in cards:
                if card[0] == decider:
                    return key + (_SUIT_VALUE[card[1]],)
        return key

    def _concrete_strength(self, cards: Sequence[str]) -> tuple[int, ...]:
        """Strength of five joker-free cards (duplicates allowed: a joker may copy a held card)."""
        code = self._code
        total = sum(code[card] for card in cards)
        if self.suit_tiebreak:
            return self._suited(cards, total)
        if total >> _SUIT_SHIFT in _FLUSH_SUITS:
            return self._flush[total & _RANK_MASK]
        return self._plain[total & _RANK_MASK]

    def _checked(self, cards: Sequence[str]) -> tuple[str, ...]:
        """Validate a hand and return it as a sorted tuple (the cache key of the joker path)."""
        if isinstance(cards, str):
            raise ValueError(f"expected a sequence of card strings, not the string {cards!r}")
        hand = tuple(cards)
        if len(hand) != 5:
            raise ValueError(f"a hand has five cards, not {len(hand)}: {list(hand)!r}")
        for card in hand:
            if card == JOKER:
                if not self.joker:
                    raise ValueError(f"the joker is not in play in {self!r}")
            elif card not in self._code:
                raise ValueError(f"{card!r} is not a card of the {self.kind} deck")
        if len(set(hand)) != 5:
            raise ValueError(f"duplicate card in hand {list(hand)!r}")
        return tuple(sorted(hand))

    def _best_uncached(self, hand: tuple[str, ...]) -> tuple[tuple[int, ...], str]:
        """Best (strength, card the joker becomes) for a validated hand; ``""`` when there is no joker.

        Every card of the deck is tried in place of the joker (a validated hand holds at most one); the first
        best card in deck order wins, so the choice is deterministic.
        """
        if JOKER not in hand:
            return self._concrete_strength(hand), ""
        rest = tuple(card for card in hand if card != JOKER)
        best: tuple[tuple[int, ...], str] = ((-1,), "")
        for card in self._concrete:
            found = self._concrete_strength(rest + (card,))
            if found > best[0]:
                best = (found, card)
        return best

    def resolve(self, cards: Sequence[str]) -> tuple[str, ...]:
        """Return the hand, in its order, with the joker replaced by the card it becomes."""
        chosen = self._best(self._checked(cards))[1]
        return tuple(chosen if card == JOKER else card for card in cards)

    def compare(self, first: Sequence[str], second: Sequence[str]) -> int:
        """Return 1 if ``first`` beats ``second``, -1 if it loses, 0 for an exact tie."""
        a, b = self.strength(first), self.strength(second)
        return (a > b) - (a < b)

    def category(self, cards: Sequence[str]) -> str:
        """Return the hand's category name (one of :attr:`categories`)."""
        return self.categories[self.strength(cards)[0]]

    # -- descriptions -------------------------------------------------------------------------------------

    def _named(self, key: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
        """The category and the rank values a description names, for a strength key."""
        category = self.categories[key[0]]
        ranks = key[1:]
        if category in (STRAIGHT, STRAIGHT_FLUSH):
            top = ranks[0]
            low = 14 if top == self._wheel_top else top - 4
            return category, (low, top)
        if category in (TWO_PAIR, FULL_HOUSE):
            return category, (ranks[0], ranks[1])
        return category, (ranks[0],)

    def describe(self, cards: Sequence[str]) -> str:
        """Return the site's (PokerStars) wording for the hand, e.g. ``"two pair, Jacks and Sixes"``."""
        return self.describe_strength(self.strength(cards))

    def describe_strength(self, strength: tuple[int, ...]) -> str:
        """:meth:`describe` for a strength already known (from :meth:`rank_hand` or :meth:`strength`)."""
        category, named = self._named(strength)
        one = [_RANK_NAMES[v][0] for v in named]
        many = [_RANK_NAMES[v][1] for v in named]
        if category == HIGH_CARD:
            return f"high card {one[0]}"
        if category == PAIR:
            return f"a pair of {many[0]}"
        if category == TWO_PAIR:
            return f"two pair, {many[0]} and {many[1]}"
        if category == THREE_OF_A_KIND:
            return f"three of a kind, {many[0]}"
        if category == STRAIGHT:
            return f"a straight, {one[0]} to {one[1]}"
        if category == FLUSH:
            return f"a flush, {one[0]} high"
        if category == FULL_HOUSE:
            return f"a full house, {many[0]} full of {many[1]}"
        if category == FOUR_OF_A_KIND:
            return f"four of a kind, {many[0]}"
        if category == STRAIGHT_FLUSH:
            return "a Royal Flush" if named == (10, 14) else f"a straight flush, {one[0]} to {one[1]}"
        return f"five of a kind, {many[0]}"

    def description_matches(self, text: str, cards: Sequence[str]) -> bool:
        """Does a stated description (e.g. from a log's summary) fit the hand?

        The text is parsed case-insensitively into a category and the ranks it names (an optional leading
        ``a``/``an``, singular or plural rank names and trailing extra words are tolerated; ``Royal Flush``
        means a straight flush Ten to Ace). True iff the category is the hand's and every named rank equals
        the hand's corresponding rank; an unparseable description is False.
        """
        return self.fits_description(text, self.strength(cards))

    def fits_description(self, text: str, strength: tuple[int, ...]) -> bool:
        """:meth:`description_matches` for a strength already known."""
        stated = _parse_description(text)
        if stated is None:
            return False
        # ``stated == self._named(strength)``, compared part by part: no slice and no tuples to build, no tuple
        # comparison through the generic protocol (a hand shown with its name is judged by this)
        category = self.categories[strength[0]]
        if stated[0] != category:
            return False
        values = stated[1]
        if category == STRAIGHT or category == STRAIGHT_FLUSH:
            top = strength[1]
            low = 14 if top == self._wheel_top else top - 4
            return len(values) == 2 and values[0] == low and values[1] == top
        if category == TWO_PAIR or category == FULL_HOUSE:
            return len(values) == 2 and values[0] == strength[1] and values[1] == strength[2]
        return len(values) == 1 and values[0] == strength[1]


_RANKINGS: dict[tuple[str, bool, bool, int], Ranking] = {}


def ranking_for(kind: str, suit_tiebreak: bool = False, joker: bool = False, deck_size: int = 0) -> Ranking:
    """Return the (cached, shared) :class:`Ranking` for ``kind`` ``"standard"`` or ``"stripped"``.

    ``deck_size`` (52 or 32; 0: the kind's own deck) is the deck the ranking knows: a profile's ``deck``, so that
    every card the profile deals can be ranked and every card it cannot deal cannot."""
    key = (kind, bool(suit_tiebreak), bool(joker), deck_size or _DEFAULT_DECK.get(kind, 0))
    ranking = _RANKINGS.get(key)
    if ranking is None:
        ranking = _RANKINGS[key] = Ranking(*key)
    return ranking
