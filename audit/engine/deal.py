"""The deal: the deck line, five cards to each player dealt in, the deck's order, and the card lists' checks
(every card of this deck, none twice) that the draw and the show down use too."""

from __future__ import annotations

from audit.engine.forced import check_forced_bets
from audit.engine.state import HandState, add, left_of_button, record
from audit.model import Dealt, DeckLine
from audit.rules import Rule


def same_cards(cards: list[str], other: tuple[str, ...]) -> bool:
    """The same cards in the same order."""
    n = len(cards)
    if n != len(other):
        return False
    for i in range(n):
        if cards[i] != other[i]:
            return False
    return True


def check_card_list(st: HandState, cards: tuple[str, ...], line: int, what: str, player: str | None = None) -> bool:
    """``CARD_NOT_IN_DECK`` / ``CARD_DUPLICATE``: every card of the deck, none twice. ``what`` names the list
    (after the player's name when given). Whether the list is clean."""
    deck = st.deck_cards
    n = len(cards)
    clean = True
    if n <= 8:  # a hand: compare pairs (no set to build)
        for i in range(n):
            c = cards[i]
            if c not in deck:
                clean = False
                break
            for j in range(i):
                if cards[j] == c:
                    clean = False
                    break
            if not clean:
                break
    else:  # a deck or a stub: set operations
        clean = deck.issuperset(cards) and len(set(cards)) == n
    if clean:
        return True
    if player is not None:
        what = player + what
    ok = True
    seen: set[str] = set()
    for c in cards:
        if c not in st.deck_cards:
            add(st, Rule.CARD_NOT_IN_DECK, line, f"{c} in {what} is not a card of this deck.",
                player=player, actual=c)
            ok = False
        if c in seen:
            add(st, Rule.CARD_DUPLICATE, line, f"{c} appears twice in {what}.", player=player, actual=c)
            ok = False
        seen.add(c)
    return ok


def on_deck(st: HandState, d: DeckLine) -> None:
    """``Deck:``: the whole deck in order, judged as a card list; the deal is then checked against it."""
    check_card_list(st, d.cards, d.line, "the deck")
    st.deck_order = list(d.cards)
    if st.steps is not None:
        record(st, d.line, "Deck")


def deal_to(st: HandState, d: Dealt) -> None:
    """A player's first cards: five, from this deck, none held by another."""
    p = d.player
    if st.street == "pre":
        check_forced_bets(st, d.line)
        st.street = "deal"
    groups = d.groups
    cards = groups[0] if len(groups) == 1 else tuple([c for g in groups for c in g])
    if p in st.sitting_out:
        add(st, Rule.DEAL_COUNT, d.line, f"{p} was dealt cards while sitting out.", player=p)
    if len(cards) != 5:
        add(st, Rule.DEAL_COUNT, d.line, f"{p} was dealt {len(cards)} cards instead of 5.", player=p,
            expected=5, actual=len(cards))
    check_card_list(st, cards, d.line, "'s hand", p)
    for c in cards:
        if c in st.used:
            holder = next((q for q, cs in st.cards.items() if c in cs), None)
            add(st, Rule.CARD_DUPLICATE, d.line,
                f"{c} was dealt to {p} but {holder or 'another player'} already holds it.", player=p,
                actual=c)
    st.used.update(cards)
    st.cards[p] = cards


def check_deal_order(st: HandState, line: int) -> None:
    """With a ``Deck:`` line: the cards dealt one at a time clockwise from the dealer's left."""
    deck = st.deck_order
    if deck is None:
        return
    seats = [p for p in left_of_button(st) if p in st.cards]
    n = len(seats)
    for i, p in enumerate(seats):
        expected = [deck[i + k * n] for k in range(5) if i + k * n < len(deck)]
        held = st.cards[p]
        if not same_cards(expected, held) and sorted(expected) != sorted(held):
            add(st, Rule.DEAL_ORDER, line,
                f"{p} should have been dealt {' '.join(expected)} from the top of the deck.",
                player=p, expected=" ".join(expected), actual=" ".join(st.cards[p]), street="deal")
    st.stub = list(deck[5 * n:])
