"""The deal: the deck line, five cards to each player dealt in, the deck's order, and the card lists' checks
(every card of this deck, none twice) that the draw and the show down use too."""

from __future__ import annotations

from audit.engine.forced import check_forced_bets

from audit.engine.state import (
    HandState, Player, finding, give_cards, gather, gather_all, holder_of, left_of_button, note_all, record,
)
from audit.findings import Finding
from audit.model import Dealt, DeckLine, Hand
from audit.rules import Rule


CHECKS_NEEDING_EVERY_CARD = ("deck", "duplicates", "discards")
"""What a log that shows only some cards (a site's, a live table's ``Cards: shown``) leaves unjudged: the deck's
order and contents, duplicate cards among hands never shown, the discards' cards."""


def checks_not_made(hand: Hand) -> tuple[str, ...]:
    """The checks the log's cards do not allow (none when it shows every player's cards)."""
    return () if hand.shows_all_cards else CHECKS_NEEDING_EVERY_CARD


def same_cards(cards: list[str], other: tuple[str, ...]) -> bool:
    """The same cards in the same order."""
    n = len(cards)
    if n != len(other):
        return False
    for i in range(n):
        if cards[i] != other[i]:
            return False
    return True


def any_used(st: HandState, cards: tuple[str, ...]) -> bool:
    """Whether any of ``cards`` is already out of the stub (dealt or drawn)."""
    used = st.stub.used
    for c in cards:
        if c in used:
            return True
    return False


def cards_clean(st: HandState, cards: tuple[str, ...]) -> bool:
    """Every card of this deck, none twice."""
    deck = st.deck_cards
    n = len(cards)
    if n > 8:  # a deck or a stub: set operations
        return deck.issuperset(cards) and len(set(cards)) == n
    for i in range(n):  # a hand: compare pairs (no set to build)
        c = cards[i]
        if c not in deck:
            return False
        for j in range(i):
            if cards[j] == c:
                return False
    return True


def check_card_list(st: HandState, cards: tuple[str, ...], line: int, what: str,
                    player: str | None = None) -> list[Finding] | None:
    """``CARD_NOT_IN_DECK`` / ``CARD_DUPLICATE``: every card of the deck, none twice. ``what`` names the list:
    ``deck``, ``stub`` (reshuffled), or the player's ``hand``, ``new_cards`` or ``shown`` hand."""
    out: list[Finding] | None = None
    if cards_clean(st, cards):
        return out
    seen: set[str] = set()
    for c in cards:
        params = (("card", c), ("player", player or ""))
        if c not in st.deck_cards:
            out = gather(out, finding(st, Rule.CARD_NOT_IN_DECK, line, what, params, player=player, actual=c))
        if c in seen:
            out = gather(out, finding(st, Rule.CARD_DUPLICATE, line, "twice_" + what, params, player=player, actual=c))
        seen.add(c)
    return out


def note_card_list(st: HandState, cards: tuple[str, ...], line: int, what: str, player: str | None = None) -> bool:
    """Judge a card list (``check_card_list``) and record what is wrong; whether it is clean."""
    if cards_clean(st, cards):
        return True
    note_all(st, check_card_list(st, cards, line, what, player))
    return False


def on_deck(st: HandState, d: DeckLine) -> None:
    """``Deck:``: the whole deck in order, judged as a card list; the deal is then checked against it."""
    note_card_list(st, d.cards, d.line, "deck")
    st.stub.deck_order = list(d.cards)
    if st.steps is not None:
        record(st, d.line, d)


def deal_to(st: HandState, d: Dealt, pl: Player) -> None:
    """A player's first cards: judged (five, from this deck, none held by another), then his."""
    if st.street == "pre":
        check_forced_bets(st, d.line)
        st.street = "deal"
    groups = d.groups
    cards = groups[0] if len(groups) == 1 else tuple([c for g in groups for c in g])
    used = st.stub.used
    if not clean_deal(st, pl, cards, used):
        found = check_deal(st, d, cards)
        if found:
            note_all(st, found)
        used.update(cards)
    give_cards(st, pl, cards)
    if st.profile.openers_jacks and pl.dealt_in:
        note_openers(st, d.player, cards)


def note_openers(st: HandState, player: str, cards: tuple[str, ...]) -> None:
    """``openers = jacks``: a dealt-in player's first five cards, counted toward whether anyone could open (a
    hand the ranking cannot rank stays unknown)."""
    strength = st.ranking.rank_hand(cards)
    if strength is None:
        return
    st.openers_ranked += 1
    if st.openers_holder is None and st.ranking.jacks_or_better(strength):
        st.openers_holder = player


def could_open(st: HandState) -> bool | None:
    """``openers = jacks``: whether a player dealt in was dealt openers (Jacks or better); ``None`` when no known
    hand holds them and some dealt hand is not known."""
    if st.openers_holder is not None:
        return True
    return False if st.openers_ranked == len(st.order) else None


def clean_deal(st: HandState, pl: Player, cards: tuple[str, ...], used: set[str]) -> bool:
    """The common case of a deal, judged and applied at once: five cards of this deck to a player sitting in,
    none already out of the stub, none twice (then they are in ``used``). ``False``: ``used`` is as it was,
    for ``check_deal`` to judge."""
    # The length is compared through a variable and the cards read by index: ``len(cards) != 5`` narrows the
    # type to a 5-tuple, which the compiled code unpacked, packed again into a new tuple and iterated through
    # the generic protocol (so did ``used.update(cards)``): a third of the deal's cost.
    n = len(cards)
    if n != 5 or pl.sitting_out:
        return False
    deck = st.deck_cards
    for i in range(n):
        if cards[i] not in deck:
            return False
    # each card added, the set's size telling whether it was out already (or twice in the hand): two set
    # operations a card, where a look-up in ``used`` before the ``add`` made three
    size = len(used)
    for i in range(n):
        used.add(cards[i])
        if len(used) == size:  # out already: the cards added before it (new, distinct) are taken back
            for j in range(i):
                used.discard(cards[j])
            return False
        size += 1
    return True


def check_deal(st: HandState, d: Dealt, cards: tuple[str, ...]) -> list[Finding] | None:
    """``DEAL_COUNT``: five cards, to a player dealt in; the card lists' checks; ``CARD_DUPLICATE``: no card
    another player holds. ``None`` when all is well. Called for the deals ``clean_deal`` did not pass."""
    p = d.player
    out: list[Finding] | None = None
    if st.players[p].sitting_out:
        out = gather(out, finding(st, Rule.DEAL_COUNT, d.line, "sitting_out", (("player", p),), player=p))
    if len(cards) != 5:
        out = gather(out, finding(st, Rule.DEAL_COUNT, d.line, "count", (("player", p), ("n", len(cards))), player=p,
                           expected=5, actual=len(cards)))
    if not cards_clean(st, cards):
        out = gather_all(out, check_card_list(st, cards, d.line, "hand", p))
    for c in cards:
        if c in st.stub.used:
            holder = holder_of(st, c)
            out = gather(out, finding(st, Rule.CARD_DUPLICATE, d.line, "dealt_held" if holder else "dealt_held_unknown",
                               (("card", c), ("player", p), ("holder", holder or "")), player=p, actual=c))
    return out


def end_deal(st: HandState, line: int) -> None:
    """The deal is over (the first betting round opens at ``line``): judged against the deck line, if any, whose
    rest is then the stub."""
    deck = st.stub.deck_order
    if deck is None:
        return
    note_all(st, check_deal_order(st, deck, line))
    st.stub.cards = list(deck[5 * len([pl for pl in st.dealt if pl.cards is not None]):])


def check_deal_order(st: HandState, deck: list[str], line: int) -> list[Finding] | None:
    """``DEAL_ORDER``: with a ``Deck:`` line, the cards dealt one at a time clockwise from the dealer's left."""
    seats = [p for p in left_of_button(st) if st.players[p].cards is not None]
    n = len(seats)
    out: list[Finding] | None = None
    for i, p in enumerate(seats):
        expected = [deck[i + k * n] for k in range(5) if i + k * n < len(deck)]
        held = st.players[p].cards
        assert held is not None
        if not same_cards(expected, held) and sorted(expected) != sorted(held):
            cards = " ".join(expected)
            out = gather(out, finding(st, Rule.DEAL_ORDER, line, "deal", (("player", p), ("cards", cards)), player=p,
                               expected=cards, actual=" ".join(held), street="deal"))
    return out
