"""The state of one hand being replayed, and what is legal now.

``HandState`` holds everything the replay knows at a line of the log: stacks, contributions, who folded or is
all-in, the betting round, the cards, the stub, the parole. The queries (``to_call``, ``min_raise_to``,
``max_raise_to``, ``may_raise``, ``may_draw``, ``draw_limit``, whose turn it is) read it and change nothing;
the phase modules (``forced``, ``deal``, ``rounds``, ``betting``, ``draw``, ``parole``, ``showdown``,
``settle``) apply what the log says (never refusing it) and judge it.
"""

from __future__ import annotations

from typing import Final

from audit.cards import Ranking
from audit.findings import Finding, Params, said_finding
from audit.engine.steps import BetLegal, DrawLegal, Step
from audit.model import Collect, Discard, Hand, Item, NoPlay, Post, Seat, Show, StandPat, SummaryTotal, Uncalled
from audit.pots import Pot, uncalled_bet
from audit.profile import Profile
from audit.rules import Rule

STREET_NAMES: Final = {"pre": "forced bets", "deal": "dealing", "first": "first betting round", "draw": "draw",
                       "second": "second betting round", "showdown": "show down", "summary": "summary"}
"""A street's key → its name in findings (``Finding.street``)."""


class BettingRound:
    """The state of one betting round and what is legal in it."""

    def __init__(self, bets: dict[str, int], current: int, full: int, fixed: bool = False,
                 pending: set[str] | None = None, unit: int = 1) -> None:
        self.bets = bets  # chips each player has in this round
        self.current = current  # the bet to match
        self.full = full  # the last full increment (starts at the min bet); fixed limit: the bet size
        self.fixed = fixed  # fixed limit: every bet and raise is one bet size
        self.unit = unit if unit > 1 else 1  # bets and raises by whole units of this many chips (qdan: 20)
        self.full_to = current  # fixed limit: the level of the last bet that counts as full (a blind counts)
        self.acted: set[str] = set()
        self.pending: set[str] = set() if pending is None else pending  # who must still act
        self.last_aggressor: str | None = None
        self.opener: str | None = None
        self.raises = 1 if fixed and current > 0 else 0  # full bets and raises (the cap); a blind is the first
        self.any_bet = current > 0
        self.any_fold = False  # someone folded in this round
        self.first_actor: str | None = None
        self.end_line = 0  # the line that closed the round
        self.began_with = len(self.pending)  # players able to bet (not folded, not all-in) when it began
        self.nobody_to_act = False  # nobody could act when it began (the forced bets left at most one able to bet)

    def to_call(self, player: str) -> int:
        """Chips the player must add to call."""
        owed = self.current - self.bets.get(player, 0)
        return owed if owed > 0 else 0

    def min_increment(self) -> int:
        """The smallest full raise: the last full increment, up to a whole bet unit (RULES.md, "Bet units": an
        all-in raise of 50 over a bet of 40, unit 20, makes the next full raise 60)."""
        unit = self.unit
        full = self.full
        return full if unit == 1 else -(-full // unit) * unit

    def min_raise_to(self) -> int:
        """The smallest legal raise-to (or opening bet) that is not all-in (fixed limit: the only one)."""
        if self.fixed:
            return self.full_to + self.full
        return self.current + self.min_increment() if self.current else self.full

    def may_raise(self, player: str) -> bool:
        """Whether the betting is open for ``player``: he has not acted, or faces a full increment since (fixed
        limit: a full bet or an all-in of at least half a bet since he acted, TDA 47-B)."""
        if player not in self.acted:
            return True
        if self.fixed:
            return self.full_to > self.bets.get(player, 0)
        return self.current - self.bets.get(player, 0) >= self.full


class Setup:
    """What a profile fixes for every hand it audits, built once rather than per hand: the ranking and the deck.
    (The profile's parameters are read from the ``Profile`` itself, a compiled class too.)"""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.ranking: Ranking = profile.hand_ranking()
        self.deck_cards: frozenset[str] = frozenset(self.ranking.deck)


_SETUPS: Final[dict[int, Setup]] = {}


def setup_for(profile: Profile) -> Setup:
    """The (cached) setup of a profile; keyed by identity, the profile kept alive with it."""
    setup = _SETUPS.get(id(profile))
    if setup is None or setup.profile is not profile:
        if len(_SETUPS) >= 64:  # preambles with options make new profiles: keep the cache small
            _SETUPS.clear()
        setup = _SETUPS[id(profile)] = Setup(profile)
    return setup


class Stub:
    """The deck, the stub and the draw as the replay has followed them (one record, ``HandState.stub``).

    ``deck_order``: the ``Deck:`` line's cards in order (``None``: the log gives none); ``cards``: the stub left,
    in order, once a deck line (at the end of the deal) or a reshuffle says what it is (``None`` before);
    ``known_order``: a reshuffle said the stub's order; ``unordered``: after a ``stub-first`` reshuffle, how many
    cards at the top of ``cards`` are the old stub's, in an order the log does not give; ``used``: every card
    dealt or drawn so far (out of the stub); ``loose_cards``: some hand held holds a card that is not in
    ``used`` (a shown hand the log never dealt), so ``used`` no longer tells the live cards; ``discarded``: each
    player's discards so far; ``waiting``: each discard still waiting for its new cards; ``draw_closed``: the
    draw is over (judged complete once).

    A reshuffle's two sets are made by the first reshuffle (``None`` before: most hands have none): ``back``, the
    used cards a reshuffle let back into the stub and not drawn again yet; ``drawn_again``, those drawn again
    since (a card is let back once: drawn after a later reshuffle again, it is ``STUB_CARD``).
    """

    def __init__(self) -> None:
        self.deck_order: list[str] | None = None
        self.cards: list[str] | None = None
        self.known_order = False
        self.unordered = 0
        self.used: set[str] = set()
        self.loose_cards = False
        self.discarded: dict[str, list[str]] = {}
        self.waiting: dict[str, Discard] = {}
        self.draw_closed = False
        self.back: set[str] | None = None
        self.drawn_again: set[str] | None = None


class ParoleOffer:
    """The parole as the replay has followed it (one record, ``HandState.parole``; ``parole = yes``).

    ``state``: ``None`` (nobody offered), ``offered``, ``accepted``, ``declined``, or ``not-allowed`` (a parole
    line in a game without parole); ``offerer``: who offered; ``answers``: who has answered the offer, in the
    order they did; ``accepted``: someone accepted it (the others still answer before the split); ``open``: the
    offer waits for answers (``state`` is ``offered``).
    """

    def __init__(self) -> None:
        self.state: str | None = None
        self.offerer: str | None = None
        self.answers: list[str] = []
        self.accepted = False
        self.open = False


def _seat_number(seat: Seat) -> int:
    return seat.seat


class Player:
    """One seated player as the replay has followed him (``HandState.players``): everything the phases know of
    him in one record, read and changed in place, so that a line's player is looked up once.

    ``name`` and ``seat`` as the seat line says; ``start``: his chips at the start of the hand; ``stack``: his
    chips now (it may go below zero: the replay never refuses what the log says); ``contributed``: every chip he
    has put in (antes, blinds, bets), before anything comes back; ``paid``: he is one of the hand's
    contributions (dealt in, or seated and put chips in all the same); ``cards``: the cards he holds as far as
    the log shows them (``None``: none yet); ``folded``, ``all_in``, ``drew`` (he discarded or stood pat);
    ``dealt_in``: dealt into this hand, at ``index`` in ``HandState.dealt`` (-1: not dealt in);
    ``sitting_out``: his seat line or a line of the body says he does not play; ``ranked`` and ``strength``: his
    hand as last ranked and its strength (``hand_strength``).
    """

    def __init__(self, name: str, seat: int, chips: int) -> None:
        self.name = name
        self.seat = seat
        self.start = chips
        self.stack = chips
        self.contributed = 0
        self.paid = False
        self.cards: tuple[str, ...] | None = None
        self.folded = False
        self.all_in = False
        self.drew = False
        self.dealt_in = False
        self.index = -1
        self.sitting_out = False
        self.ranked: tuple[str, ...] | None = None
        self.strength: tuple[int, ...] | None = None


class HandState:
    """One hand as far as the replay has followed it (see the module's docstring).

    ``players``: every seated player's record by name, in seat order; ``dealt``: the records of the players dealt
    in, in seat order, and ``order`` their names; ``holders``: the records of the players whose cards the log has
    shown, in the order it first did; ``paid_not_dealt``: seated players not dealt in who put chips in all the
    same, in the order they first did (with ``dealt``, the order of the hand's contributions).
    """

    def __init__(self, hand: Hand, profile: Profile, session: str | None = None, steps: bool = False) -> None:
        setup = setup_for(profile)
        self.hand = hand
        self.profile = profile
        self.session = session
        self.findings: list[Finding] = []
        self.steps: list[Step] | None = [] if steps else None  # recorded for ``explain`` only
        seats = hand.seats
        previous = -1
        for st in seats:
            if st.seat < previous:
                seats = tuple(sorted(hand.seats, key=_seat_number))
                break
            previous = st.seat
        players: dict[str, Player] = {}
        for st in seats:
            players[st.player] = Player(st.player, st.seat, st.chips)
        self.players = players
        not_playing: set[str] | None = None
        noplay = NoPlay  # one look-up of the global, not one per line
        for i in hand.body:
            if type(i) is noplay:
                if not_playing is None:
                    not_playing = set()
                not_playing.add(i.player)
        order: list[str] = []
        dealt: list[Player] = []
        for st in seats:
            p = st.player
            pl = players[p]  # (a name seated twice has one record: the last seat's)
            if st.sitting_out:
                pl.sitting_out = True
            elif not_playing is None or p not in not_playing:
                if pl.index < 0:
                    pl.index = len(order)
                order.append(p)
                dealt.append(pl)
                pl.dealt_in = True
                pl.paid = True
        if not_playing is not None:
            for p in not_playing:
                out = players.get(p)
                if out is not None:
                    out.sitting_out = True
        self.order = order  # the players dealt in, seat order
        self.dealt = dealt
        self.button_index = button_index(dealt, hand.button)
        self.holders: list[Player] = []
        self.paid_not_dealt: list[Player] | None = None
        self.dead = hand.carried
        self.street = "pre"
        self.round: BettingRound | None = None
        self.rounds: dict[str, BettingRound] = {}
        self.known_cards = hand.shows_all_cards  # the log shows every hand (a site's: only the hero's)
        self.ranking = setup.ranking
        self.deck_cards = setup.deck_cards
        self.stub = Stub()
        self.returned_log: dict[str, int] = {}
        self.returned_due: dict[str, int] = {}
        self.collected: list[Collect] = []
        self.shown: dict[str, Show] = {}
        self.show_order: list[str] = []
        self.mucked: set[str] = set()
        self.scores: dict[str, int] = {}
        self.summary: SummaryTotal | None = None
        self.redeal_line = 0
        self.won_by_fold: str | None = None
        self.parole = ParoleOffer()
        self.blind_all_in = False  # a blind was posted all-in (perhaps short of its full size)
        self.min_bet = 1
        self.posted: dict[str, list[Post]] = {}
        self.dead_posted = False  # a post of kind ``dead`` or ``both`` was made: ``dead_money`` may find some
        self.last_line = hand.line
        self.pre_bets: dict[str, int] = {}  # live blinds: each player's first-round bet before the action
        self.last_actor: str | None = None
        self.next_to_act: str | None = None
        self.openers_holder: str | None = None  # openers = jacks: the first player dealt openers (Jacks or better)
        self.openers_ranked = 0  # openers = jacks: players dealt in whose dealt hand the ranking could rank
        self.uncalled_lines: list[Uncalled] = []
        self.shown_cards_all: set[str] | None = None  # cards shown so far (site logs: hidden hands; made at the first)
        self.points_mode = profile.points_mode or hand.points_mode  # no-bet mode: no forced bets, no betting


# ------------------------------------------------------------------ the players' records, read
def cards_of(st: HandState, player: str) -> tuple[str, ...] | None:
    """The cards ``player`` holds as far as the log shows them (``None``: none, or he has no seat)."""
    pl = st.players.get(player)
    return pl.cards if pl is not None else None


def stack_of(st: HandState, player: str) -> int:
    """The chips ``player`` has now (0 without a seat)."""
    pl = st.players.get(player)
    return pl.stack if pl is not None else 0


def stacks(st: HandState) -> dict[str, int]:
    """Each seated player's chips now, in seat order."""
    return {pl.name: pl.stack for pl in st.players.values()}


def chips_put_in(st: HandState) -> dict[str, int]:
    """The chips each player put in (antes, blinds, bets), before any return: every player dealt in, in seat
    order, then any other who put chips in, in the order he first did."""
    out: dict[str, int] = {}
    for pl in st.dealt:
        out[pl.name] = pl.contributed
    others = st.paid_not_dealt
    if others is not None:
        for pl in others:
            out[pl.name] = pl.contributed
    return out


def folded_players(st: HandState) -> set[str]:
    """The players who folded."""
    return {pl.name for pl in st.players.values() if pl.folded}


def all_in_players(st: HandState) -> set[str]:
    """The players all-in."""
    return {pl.name for pl in st.players.values() if pl.all_in}


def is_folded(st: HandState, player: str) -> bool:
    """Whether ``player`` folded."""
    pl = st.players.get(player)
    return pl is not None and pl.folded


def is_all_in(st: HandState, player: str) -> bool:
    """Whether ``player`` is all-in."""
    pl = st.players.get(player)
    return pl is not None and pl.all_in


def give_cards(st: HandState, pl: Player, cards: tuple[str, ...]) -> None:
    """``pl`` holds ``cards`` from now on (his first cards make him one of the ``holders``)."""
    if pl.cards is None:
        st.holders.append(pl)
    pl.cards = cards


def holder_of(st: HandState, card: str, live_only: bool = False) -> str | None:
    """The first player (in the order the log showed their cards) who holds ``card``; ``live_only``: among those
    who have not folded."""
    for pl in st.holders:
        cards = pl.cards
        if cards is not None and card in cards and not (live_only and pl.folded):
            return pl.name
    return None


def hand_strength(st: HandState, player: str, cards: tuple[str, ...] | None) -> tuple[int, ...] | None:
    """``st.ranking.rank_hand(cards)``, kept for the player's hand as last ranked: a hand shown with its name is
    ranked again at the show down (the same cards in the same order: the same strength)."""
    if cards is None:
        return None
    pl = st.players.get(player)
    if pl is not None:
        ranked = pl.ranked
        if ranked is not None and same_hand(ranked, cards):
            return pl.strength
    strength = st.ranking.rank_hand(cards)
    if pl is not None:
        pl.ranked = cards
        pl.strength = strength
    return strength


def same_hand(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """``a == b`` for two hands: the same cards in the same order. A loop over the strings (each compared by
    identity, then by its bytes) costs a fraction of the tuples' own comparison, which goes through the generic
    protocol for each card (a hand shown and the hand held are equal tuples of distinct strings)."""
    if a is b:
        return True
    n = len(a)
    if n != len(b):
        return False
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


def button_index(dealt: list[Player], button: int) -> int:
    """Index in ``dealt`` of the button, or of the last dealt-in seat before it (dead button)."""
    best = -1
    for i in range(len(dealt)):
        if dealt[i].seat <= button:
            best = i
    return best if best >= 0 else len(dealt) - 1


# ------------------------------------------------------------------ findings
def finding(st: HandState, rule: Rule, line: int, variant: str, params: Params = (), *, player: str | None = None,
            expected: object = None, actual: object = None, street: str | None = None) -> Finding:
    """A finding of this hand at ``line``: its message is ``finding.<RULE>.<variant>`` with ``params`` (see
    ``audit.words``); ``street``: a street's key, else the current street."""
    key = street or st.street
    game = st.hand.game  # amounts in cents of its currency, or chips
    return said_finding(rule, f"finding.{rule.value}.{variant}", params, st.hand.file, st.hand.hand_id, line,
                        player=player, street=STREET_NAMES.get(key, key), expected=expected, actual=actual,
                        session=st.session, unit=game.currency if game is not None else "")


def note(st: HandState, found: Finding | None) -> None:
    """Record what a judgement found (nothing when it found nothing)."""
    if found is not None:
        st.findings.append(found)


def record(st: HandState, line: int, item: Item, legal: BetLegal | None = None) -> None:
    """A step for ``explain``: the table after ``item`` (and ``legal``: what the betting rules allowed before
    it). Nothing is built when no steps are wanted: this is on the hot path (callers test ``st.steps`` first)."""
    steps = st.steps
    if steps is None:
        return
    bets, contributions, dead = table_now(st)
    collected = 0
    for c in st.collected:
        collected += c.amount
    pots = pots_in_progress(contributions, in_front(st, bets), st.order, folded_players(st), all_in_players(st),
                            dead)
    draw: DrawLegal | None = None
    if type(item) is Discard or type(item) is StandPat:
        prof = st.profile
        draw = DrawLegal(cards_of(st, item.player), prof.draw_limit,
                         prof.draw_limit + 1 if prof.draw_limit_ace else None)
    steps.append(Step(line, st.street, item, stacks(st), bets, contributions, dead,
                      tuple([pl.name for pl in st.dealt if pl.folded]), pot_now(st) - collected, legal, draw, pots))


def table_now(st: HandState) -> tuple[dict[str, int], dict[str, int], int]:
    """The chips on the table now: each player's bet in front of him (the round's bets; the blinds before the
    first round), each player's contribution (less what came back uncalled and less dead blinds) and the dead
    money (a carried pot, dead blinds)."""
    rnd = st.round
    if rnd is not None:
        bets = {p: b for p, b in rnd.bets.items() if b}
    elif st.street in ("pre", "deal"):
        bets = {p: b for p, b in st.pre_bets.items() if b}
    else:
        bets = {}
    dead_of, dead = dead_money(st)
    contributions: dict[str, int] = {}
    for p, chips in chips_put_in(st).items():
        chips -= st.returned_log.get(p, 0) + dead_of.get(p, 0)
        if chips:
            contributions[p] = chips
    return bets, contributions, dead + st.dead


def in_front(st: HandState, bets: dict[str, int]) -> dict[str, int]:
    """The chips in front of a player that are in no pot yet: the part of the round's top bet nobody has
    called (``bets``: the round's), and the uncalled chips due back and not yet returned."""
    top, excess = uncalled_bet(bets)
    out = {top: excess} if top is not None and excess > 0 else {}
    for p, amount in st.returned_due.items():
        pending = amount - st.returned_log.get(p, 0)
        if pending > 0:
            out[p] = out.get(p, 0) + pending
    return out


def pots_in_progress(contributions: dict[str, int], uncalled: dict[str, int], order: list[str],
                     folded: set[str] | tuple[str, ...], all_in: set[str] | frozenset[str],
                     dead: int) -> list[Pot]:
    """The pots as they stand (what the dispute page's felt and step list and the live table draw): every chip
    put in but those nobody has called yet (``uncalled``, ``in_front``: they stay a bet in front of their player
    until called or returned), in a main pot and a side pot above each level a player still in went all-in at.
    Nobody all-in: one pot, however unequal the bets (TDA 21: side pots come from all-ins only)."""
    middle: dict[str, int] = {}
    for p, c in contributions.items():
        rest = c - uncalled.get(p, 0)
        if rest > 0:
            middle[p] = rest
    live = [p for p in order if p not in folded]
    out: list[tuple[int, tuple[str, ...]]] = []
    below = 0
    for level in sorted({middle[p] for p in live if p in all_in and p in middle}):
        amount = sum((c if c < level else level) - below for c in middle.values() if c > below)
        # (a player still able to bet may yet call up to any level; one all-in only up to his own)
        out.append((amount, tuple(p for p in live if p not in all_in or middle.get(p, 0) >= level)))
        below = level
    rest = sum(c - below for c in middle.values() if c > below)
    if rest or not out:
        out.append((rest, tuple(p for p in live if p not in all_in or middle.get(p, 0) > below)))
    merged: list[tuple[int, tuple[str, ...]]] = []
    for amount, eligible in out:  # (levels no player still in stops at make no pot of their own)
        if merged and merged[-1][1] == eligible:
            merged[-1] = (merged[-1][0] + amount, eligible)
        else:
            merged.append((amount, eligible))
    merged[0] = (merged[0][0] + dead, merged[0][1])
    if len(merged) == 1:
        return [Pot("pot", merged[0][0], merged[0][1])] if merged[0][0] or live else []
    return [Pot("main" if i == 0 else f"side-{i}", a, e) for i, (a, e) in enumerate(merged)]


# ------------------------------------------------------------------ who is where
def clockwise_from(st: HandState, index: int) -> list[str]:
    """Dealt-in players clockwise starting at ``order[index]``."""
    order = st.order
    n = len(order)
    if not n:
        return []
    index %= n
    return order[index:] + order[:index]


def left_of_button(st: HandState) -> list[str]:
    """Dealt-in players clockwise from the button's left."""
    return clockwise_from(st, st.button_index + 1)


def first_able_from(st: HandState, index: int) -> str | None:
    """The first player clockwise from ``order[index]`` who can still act."""
    dealt = st.dealt
    n = len(dealt)
    for i in range(n):
        pl = dealt[(index + i) % n]
        if not pl.folded and not pl.all_in:
            return pl.name
    return None


def count_able(st: HandState) -> int:
    """Players still in the hand and not all-in."""
    n = 0
    for pl in st.dealt:
        if not pl.folded and not pl.all_in:
            n += 1
    return n


def pot_now(st: HandState) -> int:
    """Chips in the middle: everything put in, the carried pot, less what came back uncalled."""
    total = st.dead
    for pl in st.players.values():
        total += pl.contributed  # (0 for a player who put nothing in)
    for amount in st.returned_log.values():
        total -= amount
    return total


# ------------------------------------------------------------------ forced bets
def site_big_blind(st: HandState) -> int | None:
    """Site logs: the big blind the header's stakes call for: the second amount in no and pot limit, the small
    bet (the first amount) in fixed limit."""
    game = st.hand.game
    if game is None:
        return None
    return game.small if game.betting == "fixed-limit" else game.big


def dead_part(st: HandState, post: Post) -> int:
    """The part of a post that is dead money (pot, not a bet): a dead blind; of a site's ``posts small & big
    blinds``, what is over the big blind (which plays live)."""
    if post.kind == "dead":
        return post.amount
    if post.kind != "both":
        return 0
    stake = site_big_blind(st)
    if stake is None or post.amount <= stake:
        return 0
    return post.amount - stake


def dead_money(st: HandState) -> tuple[dict[str, int], int]:
    """The dead blinds posted so far: each player's (they belong to no player's contribution level: they go to
    the main pot), and their total."""
    of: dict[str, int] = {}
    total = 0
    for p, posts in st.posted.items():
        for x in posts:
            part = dead_part(st, x)
            if part:
                of[p] = of.get(p, 0) + part
                total += part
    return of, total


# ------------------------------------------------------------------ what is legal now: betting
def betting(st: HandState) -> str:
    """The betting structure in force: the profile's, or the log's header when the profile defers to it."""
    if st.profile.betting == "log":
        return st.hand.game.betting if st.hand.game is not None else "no-limit"
    return st.profile.betting


def to_call(st: HandState, player: str) -> int:
    """Chips ``player`` must add to call now (0 outside a betting round)."""
    rnd = st.round
    return rnd.to_call(player) if rnd is not None else 0


def min_raise_to(st: HandState) -> int:
    """The smallest raise-to (or opening bet) that is not all-in now; fixed limit: the only one."""
    rnd = st.round
    return rnd.min_raise_to() if rnd is not None else 0


def may_raise(st: HandState, player: str) -> bool:
    """Whether the betting is open for ``player`` (see ``BettingRound.may_raise``)."""
    rnd = st.round
    return rnd is not None and rnd.may_raise(player)


def max_raise_to(st: HandState, player: str) -> int:
    """The largest raise-to ``player`` may make now: his stack, the pot (pot limit) or one bet (fixed limit)."""
    rnd = st.round
    assert rnd is not None
    stack_total = rnd.bets.get(player, 0) + max(0, stack_of(st, player))
    structure = betting(st)
    if structure == "pot-limit":
        call = rnd.to_call(player)
        pot_after_call = pot_now(st) + call
        return min(stack_total, rnd.current + pot_after_call)
    if structure == "fixed-limit":
        return min(stack_total, rnd.full_to + rnd.full)
    return stack_total


def only_all_ins_left(st: HandState, rnd: BettingRound) -> bool:
    """Whether the one player still able to act faces only all-in players whose bets he has matched: what he
    added could not be called (a blind posted short all-in can leave him facing a bet nobody made)."""
    able: Player | None = None
    dealt = st.dealt
    for pl in dealt:
        if not pl.folded and not pl.all_in:
            if able is not None:
                return False
            able = pl
    if able is None:
        return True
    bets = rnd.bets
    mine = bets.get(able.name, 0)
    for pl in dealt:
        if pl is not able and not pl.folded and bets.get(pl.name, 0) > mine:
            return False
    return True


def expected_actor(st: HandState, after: str | None) -> str | None:
    """Whose turn it is in the betting round: the next pending player after ``after`` (``None``: the round's
    first to act)."""
    rnd = st.round
    if rnd is None or not rnd.pending:
        return None
    if after is None:
        return st.next_to_act if st.next_to_act in rnd.pending else None
    last = st.players.get(after)
    if last is None or last.index < 0:  # the last to act was not dealt in (judged on that line): no turn to expect
        return None
    idx = last.index + 1
    order = st.order
    n = len(order)
    pending = rnd.pending
    for i in range(n):
        p = order[(idx + i) % n]
        if p in pending:
            return p
    return None


# ------------------------------------------------------------------ what is legal now: the draw
def next_to_draw(st: HandState) -> str | None:
    """The first player in the draw order (left of the button, not folded) who has not drawn yet."""
    dealt = st.dealt
    n = len(dealt)
    start = st.button_index + 1
    for i in range(n):
        pl = dealt[(start + i) % n]
        if not pl.folded and not pl.drew:
            return pl.name
    return None


def may_draw(st: HandState, player: str) -> bool:
    """Whether ``player`` may draw now: in the draw, the hand not yet won, not folded, not drawn yet, his turn."""
    pl = st.players.get(player)
    return (st.street == "draw" and st.won_by_fold is None and not (pl is not None and (pl.folded or pl.drew))
            and next_to_draw(st) in (None, player))


def draw_limit(st: HandState, player: str, thrown: tuple[str, ...] | None) -> int:
    """How many cards ``player`` may draw when throwing ``thrown`` (``None``: not shown); under ``3+ace`` one
    more when the kept cards hold an ace or the joker (or his cards are not known)."""
    prof = st.profile
    limit = prof.draw_limit
    if prof.draw_limit_ace:
        hand = cards_of(st, player)
        kept = [c for c in hand if thrown is None or c not in thrown] if hand else []
        if hand is None or any(c[0] == "A" or c == "Jk" for c in kept):
            limit += 1
    return limit


def stub_size(st: HandState) -> int:
    """Cards left in the stub."""
    if st.stub.cards is not None:
        return len(st.stub.cards)
    back = st.stub.back
    return len(st.deck_cards) - len(st.stub.used) + (len(back) if back is not None else 0)


def remaining_stub_set(st: HandState) -> set[str]:
    """The cards in the stub (order unknown unless ``st.stub.cards`` is set)."""
    if st.stub.cards is not None:
        return set(st.stub.cards)
    left = set(st.deck_cards - st.stub.used)
    back = st.stub.back
    return left | back if back is not None else left


def gather(out: list[Finding] | None, found: Finding) -> list[Finding]:
    """``out`` with ``found`` added (a judgement makes its list only when it finds something)."""
    if out is None:
        return [found]
    out.append(found)
    return out


def gather_all(out: list[Finding] | None, found: list[Finding] | None) -> list[Finding] | None:
    """``out`` with everything in ``found`` added."""
    if not found:
        return out
    if out is None:
        return found
    out.extend(found)
    return out


def note_all(st: HandState, found: list[Finding] | None) -> None:
    """Record everything a judgement found (``None``: nothing)."""
    if found:
        st.findings.extend(found)
