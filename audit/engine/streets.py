"""Replay one hand under a profile: apply what the log says happened, judge every step, settle the pots.

Three layers, as in the style guide: what is legal now (``BettingRound`` queries: ``to_call``, ``min_raise_to``,
``max_raise_to``, ``may_raise``), what happened (``apply_*``, which never refuse), and the judgement (checks that
append findings). The engine reads profile parameters only; it never asks which profile is in force.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, cast

from audit.cards import Ranking, make_deck, ranking_for
from audit.findings import Finding, make_finding
from audit.model import (
    Action, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, Parole, Post, Reshuffle, Score,
    Seat, Show, StandPat, SummaryTotal, Uncalled,
)
from audit.pots import Pot, build_pots, odd_chip_order, split, uncalled
from audit.profile import Profile
from audit.rules import Rule

STREET_NAMES = {"pre": "forced bets", "deal": "dealing", "first": "first betting round", "draw": "draw",
                "second": "second betting round", "showdown": "show down", "summary": "summary"}


class PotResult(dict[str, Any]):
    """A pot as built and settled: ``name``, ``amount``, ``eligible``, ``winners``, ``awards`` (player → chips),
    and ``collected`` (player → chips, from the log)."""


@dataclass
class HandResult:
    """Everything the replay learnt about one hand."""

    hand: Hand
    profile: str
    session: str | None
    findings: list[Finding]
    pots: list[PotResult]
    should_receive: dict[str, int]  # pots won + uncalled bets due back
    received: dict[str, int]  # from the log: collected + returned
    contributions: dict[str, int]  # chips each player put in (antes, blinds, bets), before any return
    start_stacks: dict[str, int]
    end_stacks: dict[str, int]  # what the log implies each player holds after the hand
    dealt_in: list[str]
    redeal: bool = False
    pot_total: int = 0
    rake: int = 0
    steps: list[dict[str, Any]] | None = None
    points: dict[str, int] = field(default_factory=dict)

    # Written out (the dataclass keeps it): the generated one runs as interpreted code, once per hand.
    def __init__(self, hand: Hand, profile: str, session: str | None, findings: list[Finding],
                 pots: list[PotResult], should_receive: dict[str, int], received: dict[str, int],
                 contributions: dict[str, int], start_stacks: dict[str, int], end_stacks: dict[str, int],
                 dealt_in: list[str], redeal: bool = False, pot_total: int = 0, rake: int = 0,
                 steps: list[dict[str, Any]] | None = None, points: dict[str, int] | None = None) -> None:
        self.hand = hand
        self.profile = profile
        self.session = session
        self.findings = findings
        self.pots = pots
        self.should_receive = should_receive
        self.received = received
        self.contributions = contributions
        self.start_stacks = start_stacks
        self.end_stacks = end_stacks
        self.dealt_in = dealt_in
        self.redeal = redeal
        self.pot_total = pot_total
        self.rake = rake
        self.steps = steps
        self.points = {} if points is None else points


class BettingRound:
    """The state of one betting round and what is legal in it."""

    __slots__ = ("bets", "current", "full", "acted", "pending", "last_aggressor", "opener", "raises",
                 "any_bet", "first_actor", "end_line", "fixed", "full_to", "capped_with")

    def __init__(self, bets: dict[str, int], current: int, full: int, fixed: bool = False) -> None:
        self.bets = bets  # chips each player has in this round
        self.current = current  # the bet to match
        self.full = full  # the last full increment (starts at the min bet); fixed limit: the bet size
        self.fixed = fixed  # fixed limit: every bet and raise is one bet size
        self.full_to = current  # fixed limit: the level of the last bet that counts as full (a blind counts)
        self.acted: set[str] = set()
        self.pending: set[str] = set()
        self.last_aggressor: str | None = None
        self.opener: str | None = None
        self.raises = 1 if fixed and current > 0 else 0  # full bets and raises (the cap); a blind is the first
        self.any_bet = current > 0
        self.first_actor: str | None = None
        self.end_line = 0  # the line that closed the round
        self.capped_with = 0  # players able to bet (not folded, not all-in) when the cap was reached; 0: not yet

    def to_call(self, player: str) -> int:
        """Chips the player must add to call."""
        owed = self.current - self.bets.get(player, 0)
        return owed if owed > 0 else 0

    def min_raise_to(self) -> int:
        """The smallest legal raise-to (or opening bet) that is not all-in (fixed limit: the only one)."""
        if self.fixed:
            return self.full_to + self.full
        return self.current + self.full if self.current else self.full

    def may_raise(self, player: str) -> bool:
        """Whether the betting is open for ``player``: he has not acted, or faces a full increment since (fixed
        limit: a full bet or an all-in of at least half a bet since he acted, TDA 47-B)."""
        if player not in self.acted:
            return True
        if self.fixed:
            return self.full_to > self.bets.get(player, 0)
        return self.current - self.bets.get(player, 0) >= self.full


def _seat_number(seat: Seat) -> int:
    return seat.seat


class _Setup:
    """What a profile fixes for every hand it audits, built once rather than per hand: the ranking and the deck.
    (The profile's parameters are read from the ``Profile`` itself, a compiled class too.)"""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.ranking: Ranking = ranking_for(profile.ranking, profile.suit_tiebreak, profile.joker)
        self.deck_cards: frozenset[str] = frozenset(make_deck(profile.deck_size, profile.joker))


_SETUPS: Final[dict[int, _Setup]] = {}


def _setup_for(profile: Profile) -> _Setup:
    """The (cached) setup of a profile; keyed by identity, the profile kept alive with it."""
    setup = _SETUPS.get(id(profile))
    if setup is None or setup.profile is not profile:
        if len(_SETUPS) >= 64:  # preambles with options make new profiles: keep the cache small
            _SETUPS.clear()
        setup = _SETUPS[id(profile)] = _Setup(profile)
    return setup


_NO_CARDS: Final[frozenset[str]] = frozenset()
# the body's line types, numbered for ``Replay.run``'s dispatch
_KIND: Final[dict[type, int]] = {
    Action: 0, Dealt: 1, Post: 2, Marker: 3, Discard: 4, Show: 5, Collect: 6, StandPat: 7, SummaryTotal: 8,
    Uncalled: 9, DeckLine: 10, Muck: 11, Event: 12, Reshuffle: 13, Parole: 14, NoPlay: 15, Score: 16,
}
# the kinds of line whose player must have a seat (UNKNOWN_PLAYER, and the line is skipped)
_SEATED: Final[frozenset[int]] = frozenset({0, 1, 2, 4, 5, 6, 7, 9, 11, 14, 15, 16})


def _same_cards(cards: list[str], other: tuple[str, ...]) -> bool:
    """The same cards in the same order."""
    n = len(cards)
    if n != len(other):
        return False
    for i in range(n):
        if cards[i] != other[i]:
            return False
    return True


def _is_prefix(cards: tuple[str, ...], stub: list[str]) -> bool:
    """``cards`` are the first cards of ``stub``, in order."""
    n = len(cards)
    if n > len(stub):
        return False
    for i in range(n):
        if cards[i] != stub[i]:
            return False
    return True


def _nothing_to_call(rnd: BettingRound, players: set[str] | list[str]) -> bool:
    """Whether none of ``players`` has chips to call in the round."""
    for p in players:
        if rnd.to_call(p) != 0:
            return False
    return True


class Replay:
    """One hand being replayed. Build it, call ``run()``, read ``result``."""

    def __init__(self, hand: Hand, profile: Profile, session: str | None = None, steps: bool = False) -> None:
        setup = _setup_for(profile)
        self.hand = hand
        self.profile = profile
        self.rules = profile
        self.session = session
        self.findings: list[Finding] = []
        self.want_steps = steps
        self.steps: list[dict[str, Any]] | None = [] if steps else None
        seats = hand.seats
        previous = -1
        for st in seats:
            if st.seat < previous:
                seats = tuple(sorted(hand.seats, key=_seat_number))
                break
            previous = st.seat
        seat_of: dict[str, int] = {}
        start: dict[str, int] = {}
        for st in seats:
            seat_of[st.player] = st.seat
            start[st.player] = st.chips
        self.seat_of = seat_of
        self.start = start
        self.stack = dict(start)
        not_playing: set[str] | None = None
        noplay = NoPlay  # one look-up of the global, not one per line
        for i in hand.body:
            if type(i) is noplay:
                if not_playing is None:
                    not_playing = set()
                not_playing.add(i.player)
        order: list[str] = []
        sitting_out: set[str] = set()
        contrib: dict[str, int] = {}
        for st in seats:
            p = st.player
            if st.sitting_out:
                sitting_out.add(p)
            elif not_playing is None or p not in not_playing:
                order.append(p)
                contrib[p] = 0
        if not_playing is not None:
            sitting_out |= not_playing
        self.order = order
        self.sitting_out = sitting_out
        self.button_index = self._button_index()
        self.in_hand = set(order)
        self.folded: set[str] = set()
        self.all_in: set[str] = set()
        self.contrib = contrib
        self.dead = hand.carried
        self.street = "pre"
        self.round: BettingRound | None = None
        self.rounds: dict[str, BettingRound] = {}
        self.cards: dict[str, tuple[str, ...]] = {}
        self.known_cards = hand.shows_all_cards
        self.ranking = setup.ranking
        self.deck_cards = setup.deck_cards
        self.deck_order: list[str] | None = None
        self.stub: list[str] | None = None  # remaining stub in order (when a Deck line or a reshuffle says)
        self.used: set[str] = set()  # cards dealt or drawn so far (out of the stub)
        self.discarded: dict[str, list[str]] = {}  # each player's discards so far
        self.back_in_stub: set[str] = set()  # discards a reshuffle let back
        self.draw_pending: dict[str, Discard] = {}
        self.drew: set[str] = set()
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
        self.parole_state: str | None = None  # None, "offered", "accepted", "declined", "not-allowed"
        self.parole_offerer: str | None = None
        self.parole_answers: list[str] = []
        self.parole_accepted = False  # someone accepted the open offer (the others still answer)
        self.parole_open = False  # an offer waits for answers (parole_state "offered")
        self.blind_all_in = False  # a blind was posted all-in (perhaps short of its full size)
        self.min_bet = self._min_bet()
        self.big_blind_posted = 0
        self.posted: dict[str, list[Post]] = {}
        self.last_line = hand.line
        self.pre_bets: dict[str, int] = {}  # live blinds: each player's first-round bet before the action
        self.last_actor: str | None = None
        self.next_to_act: str | None = None
        self.all_checked_first = False
        self.round_uncalled_settled = False
        self.uncalled_lines: list[Uncalled] = []
        self.back_in_stub_drawn: set[str] = set()  # reshuffled cards already drawn again
        self.stub_is_known_order = False
        self.stub_unordered = 0  # stub-first: how many cards at the top of the stub are in an unknown order
        self.drawn_after_reshuffle: set[str] = set()
        self.shown_cards_all: set[str] = set()  # cards shown so far (site logs: hidden hands)
        self._draw_closed = False
        self.loose_cards = False  # some hand in ``cards`` holds a card that is not in ``used``
        self.points_mode = profile.points_mode or hand.points_mode  # no-bet mode: no forced bets, no betting

    # ------------------------------------------------------------------ helpers
    def _button_index(self) -> int:
        """Index in ``self.order`` of the button, or of the last dealt-in seat before it (dead button)."""
        best = -1
        button = self.hand.button
        seat_of = self.seat_of
        order = self.order
        for i in range(len(order)):
            if seat_of[order[i]] <= button:
                best = i
        return best if best >= 0 else len(order) - 1

    def _min_bet(self) -> int:
        prof = self.rules
        if prof.min_bet_rule in ("int", "2xante"):
            return prof.min_bet_value
        if prof.min_bet_rule == "big-blind" and self.hand.game is not None:
            return self.hand.game.big
        if prof.blinds == "three" and any(type(i) is Post and i.kind in ("small", "big", "over")
                                          for i in self.hand.body):
            levels = blind_levels([i for i in self.hand.body if type(i) is Post])
            return levels["over"] if len(self.order) >= 4 else levels["big"]
        blinds = sorted((i.amount for i in self.hand.body if type(i) is Post and i.kind in ("big", "over")),
                        reverse=True)
        return blinds[0] if blinds else 1

    def add(self, rule: Rule, line: int, message: str, *, player: str | None = None, expected: object = None,
            actual: object = None, street: str | None = None) -> None:
        """Record a finding."""
        self.findings.append(make_finding(
            rule, self.hand.file, self.hand.hand_id, line, message, player=player,
            street=STREET_NAMES.get(street or self.street, street or self.street), expected=expected,
            actual=actual, session=self.session))

    def clockwise_from(self, index: int) -> list[str]:
        """Dealt-in players clockwise starting at ``order[index]``."""
        order = self.order
        n = len(order)
        if not n:
            return []
        index %= n
        return order[index:] + order[:index]

    def left_of_button(self) -> list[str]:
        return self.clockwise_from(self.button_index + 1)

    def active(self) -> list[str]:
        """Players still in the hand, seat order."""
        folded = self.folded
        if not folded:
            return list(self.order)
        return [p for p in self.order if p not in folded]

    def can_act(self, p: str) -> bool:
        return p in self.in_hand and p not in self.folded and p not in self.all_in

    def first_able_from(self, index: int) -> str | None:
        """The first player clockwise from ``order[index]`` who can still act (``round_start``'s walk)."""
        order = self.order
        n = len(order)
        for i in range(n):
            p = order[(index + i) % n]
            if p in self.in_hand and p not in self.folded and p not in self.all_in:
                return p
        return None

    def pot_now(self) -> int:
        return sum(self.contrib.values()) + self.dead - sum(self.returned_log.values())

    def put_in(self, player: str, amount: int, line: int, all_in_flag: bool, what: str,
               forced: bool = False) -> None:
        """Move chips from a stack to the pot (never refused); judge the stack and the all-in flag. ``what``:
        "a call", "a bet", "a raise", or a forced bet's kind (``forced``)."""
        stack = self.stack
        if player not in stack:
            return
        before = stack[player]
        if amount > before:
            said = f"the {what}" if forced else what
            self.add(Rule.BET_OVER_STACK, line,
                     f"{player} put in {amount} ({said}) but had only {before} chips left; there are no loans.",
                     player=player, expected=f"at most {before}", actual=amount)
        left = before - amount
        stack[player] = left
        contrib = self.contrib
        contrib[player] = contrib.get(player, 0) + amount
        if all_in_flag and left > 0:
            self.add(Rule.ALL_IN_FLAG, line, f"{player} is marked all-in but still has {left} chips.",
                     player=player, expected="not all-in", actual="and is all-in")
        elif not all_in_flag and left == 0 and amount > 0:
            self.add(Rule.ALL_IN_FLAG, line, f"{player} has no chips left but the line does not say all-in.",
                     player=player, expected="and is all-in", actual="no all-in mark")
        if left <= 0 or all_in_flag:
            self.all_in.add(player)

    def record(self, line: int, item: Any, legal: dict[str, Any] | None = None) -> None:
        """A step for ``explain``: the stacks and pot after it, and what was legal before it (``item``: the
        model object, or a text). Nothing is built when no steps are wanted: this is on the hot path (callers
        test ``self.steps`` first)."""
        steps = self.steps
        if steps is None:
            return
        text = item if isinstance(item, str) else _describe_item(item)
        steps.append({"line": line, "street": STREET_NAMES.get(self.street, self.street), "text": text,
                      "stacks": dict(self.stack), "pot": self.pot_now(), "legal": legal or None, "findings": []})

    # ------------------------------------------------------------------ the walk
    def run(self) -> HandResult:
        self.check_seats()
        seat_of = self.seat_of
        findings = self.findings
        kinds = _KIND
        seated = _SEATED
        for item in self.hand.body:
            before = len(findings)
            # one dict look-up by type (the classes are module globals: comparing with each costs a look-up
            # too); a line naming a player without a seat is judged, then skipped
            kind = kinds.get(type(item), -1)
            row: tuple[Any, ...] = item  # every line's first field is its line number, the second its player
            if kind in seated and row[1] not in seat_of:
                self._unknown_player(row[1], row[0])
                continue
            if kind == 0:
                self.on_action(cast(Action, item))
            elif kind == 1:
                self.on_dealt(cast(Dealt, item))
            elif kind == 2:
                self.on_post(cast(Post, item))
            elif kind == 3:
                self.on_marker(cast(Marker, item))
            elif kind == 4:
                self.on_discard(cast(Discard, item))
            elif kind == 5:
                self.on_show(cast(Show, item))
            elif kind == 6:
                self.on_collect(cast(Collect, item))
            elif kind == 7:
                self.on_stand_pat(cast(StandPat, item))
            elif kind == 8:
                self.on_summary(cast(SummaryTotal, item))
            elif kind == 9:
                self.on_uncalled(cast(Uncalled, item))
            elif kind == 10:
                self.on_deck(cast(DeckLine, item))
            elif kind == 11:
                self.on_muck(cast(Muck, item))
            elif kind == 12:
                self.on_event(cast(Event, item))
            elif kind == 13:
                self.on_reshuffle(cast(Reshuffle, item))
            elif kind == 14:
                self.on_parole(cast(Parole, item))
            elif kind == 15:
                self.on_noplay(cast(NoPlay, item))
            elif kind == 16:
                self.on_score(cast(Score, item))
            else:
                raise KeyError(type(item))
            line: int = row[0]
            self.last_line = line
            steps = self.steps
            if steps is not None and len(findings) > before:
                if not steps or steps[-1]["line"] != line:
                    self.record(line, item)
                steps[-1]["findings"].extend(f.as_dict() for f in findings[before:])
        return self.finish()

    def _unknown_player(self, player: str, line: int) -> None:
        self.add(Rule.UNKNOWN_PLAYER, line, f"{player} has no seat at this table.", player=player)

    # ------------------------------------------------------------------ seats, forced bets, dealing
    def check_seats(self) -> None:
        n = len(self.order)
        prof = self.rules
        if not (prof.min_players <= n <= prof.max_players):
            self.add(Rule.SEAT_COUNT, self.hand.line,
                     f"{n} players were dealt in; this game is for {prof.min_players} to {prof.max_players}.",
                     expected=f"{prof.min_players}-{prof.max_players}", actual=n, street="pre")
        if prof.points_mode != self.hand.points_mode and self.hand.shows_all_cards:
            line = self.hand.seats[0].line if self.hand.seats else self.hand.line
            if prof.points_mode:
                msg = "This game is played without bets ('mode = points'), but the seat lines count chips."
            else:
                msg = "The seat lines count points, but this game is played for chips (no 'mode = points')."
            self.add(Rule.POINTS, line, msg, expected="points" if prof.points_mode else "chips",
                     actual="points" if self.hand.points_mode else "chips", street="pre")

    def on_post(self, post: Post) -> None:
        p = post.player
        if self.points_mode:
            rule = Rule.ANTE_WRONG if post.kind == "ante" else Rule.BLIND_WRONG
            self.add(rule, post.line, f"{p} posted {post.amount}, but a game without bets has no forced bets.",
                     player=p, expected="no forced bet", actual=post.amount)
            if self.steps is not None:
                self.record(post.line, post)
            return
        if p in self.sitting_out or p not in self.in_hand:
            rule = Rule.ANTE_WRONG if post.kind == "ante" else Rule.BLIND_WRONG
            self.add(rule, post.line, f"{p} posted but is not dealt in this hand.", player=p)
        if self.street not in ("pre",):
            self.add(Rule.ACTION_NOT_ALLOWED, post.line, f"{p} posted after the cards were dealt.", player=p)
        mine = self.posted.get(p)
        if mine is None:
            self.posted[p] = [post]
        else:
            mine.append(post)
        self.put_in(p, post.amount, post.line, post.all_in, post.kind, True)
        if post.kind in ("small", "big", "over", "live"):  # live: a bet of the first round
            self.pre_bets[p] = self.pre_bets.get(p, 0) + post.amount
            if post.all_in:
                self.blind_all_in = True
        elif post.kind == "both":
            self.pre_bets[p] = self.pre_bets.get(p, 0) + post.amount - self.site_dead_small_blind(post)
            if post.all_in:
                self.blind_all_in = True
        if self.steps is not None:
            self.record(post.line, post)

    def on_noplay(self, item: NoPlay) -> None:
        if self.steps is not None:
            self.record(item.line, item)

    def check_forced_bets(self, line: int) -> None:
        """At the deal: antes and blinds as the profile requires."""
        prof = self.rules
        if self.points_mode:
            return
        ante = prof.ante
        if ante:
            posted = self.posted
            for p in self.order:
                total = 0
                count = 0
                first_line = 0
                last_all_in = False
                mine = posted.get(p)
                if mine is not None:
                    for x in mine:
                        if x.kind == "ante":
                            if not count:
                                first_line = x.line
                            count += 1
                            total += x.amount
                            last_all_in = x.all_in
                short_all_in = count > 0 and last_all_in and total < ante
                if total != ante and not short_all_in:
                    if not count:
                        msg = f"{p} did not post the ante of {ante}."
                    else:
                        msg = f"{p} posted an ante of {total}; the ante is {ante}."
                    self.add(Rule.ANTE_WRONG, first_line if count else line, msg, player=p, expected=ante,
                             actual=total, street="pre")
        elif ante == 0:
            for p, posts in self.posted.items():
                for x in posts:
                    if x.kind == "ante":
                        self.add(Rule.ANTE_WRONG, x.line, f"{p} posted an ante but this game has none.",
                                 player=p, expected=0, actual=x.amount, street="pre")
        if prof.blinds == "none":
            for p, posts in self.posted.items():
                for x in posts:
                    if x.kind != "ante":
                        self.add(Rule.BLIND_WRONG, x.line, f"{p} posted a blind but this game has no blinds.",
                                 player=p, expected="no blind", actual=x.amount, street="pre")
        elif prof.blinds == "three":
            self.check_blinds(line)
            if prof.missed_blinds == "seed-004":
                self.check_entry_posts(line)
        if not self.hand.shows_all_cards:  # a site's log (RULES.md, "Site logs")
            self.check_site_big_blind()

    _BLIND_NAMES = {"small": "small blind", "big": "big blind", "over": "over blind"}

    def site_big_blind(self) -> int | None:
        """Site logs: the big blind the header's stakes call for: the second amount in no and pot limit, the small
        bet (the first amount) in fixed limit."""
        game = self.hand.game
        if game is None:
            return None
        return game.small if game.betting == "fixed-limit" else game.big

    def site_dead_small_blind(self, post: Post) -> int:
        """Site logs: the dead part of a ``posts small & big blinds`` post: the big blind plays live, the rest
        goes to the pot as dead money."""
        stake = self.site_big_blind()
        if stake is None or post.amount <= stake:
            return 0
        return post.amount - stake

    def check_site_big_blind(self) -> None:
        """Site logs (``BLIND_WRONG``): every big blind posted equals the header's stake unless its poster is
        all-in for less; a small and big blind posted together hold at least the big blind. The small blind's
        size and the blinds' seats are not audited (dead-button rules vary between sites)."""
        stake = self.site_big_blind()
        game = self.hand.game
        if stake is None or game is None:
            return
        for p, posts in self.posted.items():
            all_in = self.stack.get(p, 0) <= 0
            for x in posts:
                short_all_in = (x.all_in or all_in) and x.amount < stake
                if x.kind == "big" and x.amount != stake and not short_all_in:
                    which = "the small bet, " if game.betting == "fixed-limit" else ""
                    self.add(Rule.BLIND_WRONG, x.line, f"{p} posted a big blind of {x.amount}; at stakes of "
                             f"{game.small}/{game.big} ({game.betting.replace('-', ' ')}) the big blind is "
                             f"{which}{stake}.",
                             player=p, expected=stake, actual=x.amount, street="pre")
                elif x.kind == "both" and x.amount < stake and not short_all_in:
                    self.add(Rule.BLIND_WRONG, x.line, f"{p} posted {x.amount} for the small and big blinds "
                             f"together, less than the big blind of {stake} alone.", player=p,
                             expected=f"at least {stake}", actual=x.amount, street="pre")

    def blind_seats(self) -> dict[str, str]:
        """``blinds = three``: which player owes which blind. Left of the button the small, then the big, then the
        over blind with 4-5 players dealt in; heads-up the button posts the small blind."""
        return blind_seats(self.left_of_button())

    def blind_levels(self) -> dict[str, int]:
        """The blinds' sizes: the small blind sets the scale (big = 2 × small, over = 2 × big); without a full
        small blind, the big or the over blind does."""
        return blind_levels([x for xs in self.posted.values() for x in xs])

    def check_blinds(self, line: int) -> None:
        """``BLIND_WRONG``: each blind posted by the right player, in the right amount; no over blind with fewer
        than 4 players."""
        seats = self.blind_seats()
        levels = self.blind_levels()
        n = len(self.order)
        posted_kinds = {x.kind for p in self.order for x in self.posted.get(p, [])}
        for kind, who in seats.items():
            if kind in posted_kinds:
                continue  # posted, perhaps by the wrong player: judged below
            where = "the button posts it heads-up" if n == 2 and kind == "small" else (
                "it falls left of the button" if kind == "small" else
                f"it falls next after the {'small' if kind == 'big' else 'big'} blind")
            self.add(Rule.BLIND_WRONG, line, f"{who} did not post the {self._BLIND_NAMES[kind]} of "
                     f"{levels[kind]}; {where}.", player=who, expected=levels[kind], actual=0, street="pre")
        for p in self.order:
            for x in self.posted.get(p, []):
                if x.kind not in levels:
                    continue
                name = self._BLIND_NAMES[x.kind]
                if x.kind == "over" and n < 4:
                    self.add(Rule.BLIND_WRONG, x.line, f"{p} posted an over blind with only {n} players; the over "
                             "blind is posted only with 4 or 5.", player=p, expected="no over blind",
                             actual=x.amount, street="pre")
                    continue
                if seats.get(x.kind) != p:
                    self.add(Rule.BLIND_WRONG, x.line, f"{p} posted the {name}, but it was "
                             f"{seats.get(x.kind)}'s to post.", player=p, expected=seats.get(x.kind), actual=p,
                             street="pre")
                    continue
                want = levels[x.kind]
                if x.amount != want and not (x.all_in and x.amount < want):
                    rel = {"small": "", "big": " (2 × the small blind)", "over": " (2 × the big blind)"}[x.kind]
                    article = "an" if x.kind == "over" else "a"
                    self.add(Rule.BLIND_WRONG, x.line, f"{p} posted {article} {name} of {x.amount}; it is {want}{rel}.",
                             player=p, expected=want, actual=x.amount, street="pre")

    def check_entry_posts(self, line: int) -> None:
        """``missed-blinds = seed-004``, within the hand: a live or dead post must be one of the policy's
        combinations (new player: a live over blind; missed the small blind: a live big blind; missed small and
        big: a live big blind and a dead small blind; missed all three: a live over blind and a dead small and big
        blind). Dead chips are pot, not a bet. Which blinds a player really missed is a session matter."""
        levels = self.blind_levels()
        sb, bb, ob = levels["small"], levels["big"], levels["over"]
        over_in_play = len(self.order) >= 4
        allowed = {(bb, 0): "a player who missed the small blind",
                   (bb, sb): "a player who missed the small and the big blind",
                   (ob, sb + bb): "a player who missed all three blinds"}
        if over_in_play:
            allowed[(ob, 0)] = "a new player"
        for p in self.order:
            posts = [x for x in self.posted.get(p, []) if x.kind in ("live", "dead")]
            if not posts:
                continue
            live = sum(x.amount for x in posts if x.kind == "live")
            dead = sum(x.amount for x in posts if x.kind == "dead")
            if (live, dead) in allowed or any(x.all_in for x in posts):
                continue
            options = "; ".join(f"{'live ' + str(lv)}{' + dead ' + str(dd) if dd else ''} ({who})"
                                for (lv, dd), who in allowed.items())
            self.add(Rule.MISSED_BLINDS, posts[0].line,
                     f"{p} posted live {live} and dead {dead}; the missed-blind policy allows: {options}.",
                     player=p, expected=options, actual=f"live {live} + dead {dead}", street="pre")

    def on_marker(self, m: Marker) -> None:
        street = m.street
        if self.parole_open:
            self.end_parole_answers(m.line)
        if street == "deal":
            self.check_forced_bets(m.line)
            self.street = "deal"
        elif street in ("first", "second") and self.points_mode:
            self.add(Rule.ACTION_NOT_ALLOWED, m.line, "A game without bets has no betting rounds.",
                     expected="the draw", actual=f"the {STREET_NAMES[street]}", street=street)
            self.street = "deal" if street == "first" else "draw"
        elif street in ("first", "second"):
            self.close_round(m.line)
            if street == "second" and self.street in ("first", "deal", "draw"):
                self.end_draw_phase(m.line)
            self.open_round(street, m.line)
        elif street == "draw":
            self.close_round(m.line)
            self.street = "draw"
        elif street == "showdown":
            self.close_round(m.line)
            self.street = "showdown"
        elif street == "summary":
            self.close_round(m.line)
            self.street = "summary"
        elif street == "redeal":
            self.close_round(m.line)
            self.redeal_line = m.line
            self.street = "summary"
        if self.steps is not None:
            self.record(m.line, m)

    def on_deck(self, d: DeckLine) -> None:
        self.check_card_list(d.cards, d.line, "the deck")
        self.deck_order = list(d.cards)
        if self.steps is not None:
            self.record(d.line, "Deck")

    def check_card_list(self, cards: tuple[str, ...], line: int, what: str, player: str | None = None) -> bool:
        """Every card of the deck, none twice. ``what`` names the list (after the player's name when given)."""
        deck = self.deck_cards
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
            if c not in self.deck_cards:
                self.add(Rule.CARD_NOT_IN_DECK, line, f"{c} in {what} is not a card of this deck.",
                         player=player, actual=c)
                ok = False
            if c in seen:
                self.add(Rule.CARD_DUPLICATE, line, f"{c} appears twice in {what}.", player=player, actual=c)
                ok = False
            seen.add(c)
        return ok

    def on_dealt(self, d: Dealt) -> None:
        p = d.player
        if self.street in ("pre", "deal") and p not in self.cards:
            self.deal_to(d)
        elif self.street in ("draw", "first", "deal", "second") and p in self.draw_pending:
            self.draw_received(d)
        else:
            self.add(Rule.DRAW_ORDER, d.line, f"{p} received cards without discarding first.", player=p)
        if self.steps is not None:
            self.record(d.line, d)

    def deal_to(self, d: Dealt) -> None:
        p = d.player
        if self.street == "pre":
            self.check_forced_bets(d.line)
            self.street = "deal"
        groups = d.groups
        cards = groups[0] if len(groups) == 1 else tuple([c for g in groups for c in g])
        if p in self.sitting_out:
            self.add(Rule.DEAL_COUNT, d.line, f"{p} was dealt cards while sitting out.", player=p)
        if len(cards) != 5:
            self.add(Rule.DEAL_COUNT, d.line, f"{p} was dealt {len(cards)} cards instead of 5.", player=p,
                     expected=5, actual=len(cards))
        self.check_card_list(cards, d.line, "'s hand", p)
        for c in cards:
            if c in self.used:
                holder = next((q for q, cs in self.cards.items() if c in cs), None)
                self.add(Rule.CARD_DUPLICATE, d.line,
                         f"{c} was dealt to {p} but {holder or 'another player'} already holds it.", player=p,
                         actual=c)
        self.used.update(cards)
        self.cards[p] = cards

    def check_deal_order(self, line: int) -> None:
        """With a ``Deck:`` line: the cards dealt one at a time clockwise from the dealer's left."""
        deck = self.deck_order
        if deck is None:
            return
        seats = [p for p in self.left_of_button() if p in self.cards]
        n = len(seats)
        for i, p in enumerate(seats):
            expected = [deck[i + k * n] for k in range(5) if i + k * n < len(deck)]
            held = self.cards[p]
            if not _same_cards(expected, held) and sorted(expected) != sorted(held):
                self.add(Rule.DEAL_ORDER, line,
                         f"{p} should have been dealt {' '.join(expected)} from the top of the deck.",
                         player=p, expected=" ".join(expected), actual=" ".join(self.cards[p]), street="deal")
        self.stub = list(deck[5 * n:])

    # ------------------------------------------------------------------ betting
    def open_round(self, street: str, line: int) -> None:
        if street == "first" and self.street in ("pre", "deal"):
            if self.street == "pre":
                self.check_forced_bets(line)
            self.check_deal_order(line)
        self.street = street
        bets: dict[str, int] = {}
        current = 0
        if street == "first":
            bets = dict(self.pre_bets)
            first = True
            for amount in bets.values():
                if first or amount > current:
                    current = amount
                    first = False
            if self.blind_all_in:
                short = self.short_blind_level()
                if short > current:
                    current = short  # a blind posted short all-in does not lower the bet (RULES.md)
        rnd = BettingRound(bets, current, self.round_min_bet(street), fixed=self.betting() == "fixed-limit")
        self.round = rnd
        self.rounds[street] = rnd
        pending: set[str] = set()
        for p in self.order:
            if p in self.in_hand and p not in self.folded and p not in self.all_in:
                pending.add(p)
        rnd.pending = pending
        if street == "second" and len(pending) <= 1 and _nothing_to_call(rnd, pending):
            rnd.pending = pending = set()
        if self._count_able() <= 1 and (_nothing_to_call(rnd, pending) or self.only_all_ins_left(rnd)):
            rnd.pending = set()
        self.next_to_act = self.round_start(street)

    def short_blind_level(self) -> int:
        """The full size of the largest blind posted short all-in (0 when none was): the bet the others call."""
        level = 0
        for posts in self.posted.values():
            for x in posts:
                if x.all_in and x.kind in ("small", "big", "over"):
                    full = self.full_blind(x.kind)
                    if full > x.amount and full > level:
                        level = full
        return level

    def full_blind(self, kind: str) -> int:
        """The full size of a blind (0 when the log does not tell): three blinds from their scale, a site's big
        blind from the header's stake (fixed limit: the small bet)."""
        if self.rules.blinds == "three":
            return self.blind_levels().get(kind, 0)
        game = self.hand.game
        if game is not None and kind == "big":
            return game.small if self.betting() == "fixed-limit" else game.big
        return 0

    def only_all_ins_left(self, rnd: BettingRound) -> bool:
        """Whether the one player still able to act faces only all-in players whose bets he has matched: what he
        added could not be called (a blind posted short all-in can leave him facing a bet nobody made)."""
        able: str | None = None
        folded = self.folded
        all_in = self.all_in
        for q in self.order:
            if q not in folded and q not in all_in:
                if able is not None:
                    return False
                able = q
        if able is None:
            return True
        mine = rnd.bets.get(able, 0)
        for q in self.order:
            if q != able and q not in folded and rnd.bets.get(q, 0) > mine:
                return False
        return True

    def _count_able(self) -> int:
        """Players still in the hand and not all-in."""
        n = 0
        folded = self.folded
        all_in = self.all_in
        for p in self.order:
            if p not in folded and p not in all_in:
                n += 1
        return n

    def round_min_bet(self, street: str) -> int:
        if self.rules.betting == "fixed-limit" or (self.rules.betting == "log" and self.hand.game is not None
                                                     and self.hand.game.betting == "fixed-limit"):
            return self.fixed_bet_size(street)
        return self.min_bet

    def fixed_bet_size(self, street: str) -> int:
        game = self.hand.game
        if game is not None and self.rules.bet_sizes == "big-blind":
            return game.small if street == "first" else game.big
        return self.min_bet if street == "first" else 2 * self.min_bet

    def betting(self) -> str:
        if self.rules.betting == "log":
            return self.hand.game.betting if self.hand.game is not None else "no-limit"
        return self.rules.betting

    def round_start(self, street: str) -> str | None:
        """Who acts first in the round, per the profile."""
        prof = self.rules
        rule = prof.first_round_starts if street == "first" else prof.second_round_starts
        if rule == "left-of-last-blind":
            last = self.last_blind()
            if last is not None:
                start = self.order.index(last) + 1
            else:
                start = self.button_index + 1
        elif rule == "opener":
            first = self.rounds.get("first")
            opener = first.opener if first is not None else None
            start = self.order.index(opener) if opener in self.order else self.button_index + 1
        else:
            start = self.button_index + 1
        return self.first_able_from(start)

    _BLIND_RANK = {"small": 1, "both": 2, "big": 2, "over": 3}

    def last_blind(self) -> str | None:
        """The player who posted the largest positional blind (over > big > small); among several posts of that
        kind (a newcomer's entry post), the first clockwise from the button."""
        ring = self.left_of_button()
        best: tuple[int, int] | None = None
        who: str | None = None
        for p in ring:
            rank = max((self._BLIND_RANK.get(x.kind, 0) for x in self.posted.get(p, [])), default=0)
            if rank and (best is None or rank > best[0]):
                best, who = (rank, ring.index(p)), p
        return who

    def expected_actor(self, after: str | None) -> str | None:
        rnd = self.round
        if rnd is None or not rnd.pending:
            return None
        if after is None:
            return self.next_to_act if self.next_to_act in rnd.pending else None
        order = self.order
        if after not in order:  # the last to act was not dealt in (judged on that line): no turn to expect
            return None
        idx = order.index(after) + 1
        n = len(order)
        pending = rnd.pending
        for i in range(n):
            p = order[(idx + i) % n]
            if p in pending:
                return p
        return None

    def on_action(self, a: Action) -> None:
        p = a.player
        if self.points_mode:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} {_describe_item(a).split(' ', 1)[1]}, but a game without "
                     "bets has no betting.", player=p, expected="no betting", actual=a.kind)
            if self.steps is not None:
                self.record(a.line, a)
            return
        if self.street in ("pre", "deal"):
            self.open_round("first", a.line)
        elif self.street == "draw":
            self.end_draw_phase(a.line)
            self.open_round("second", a.line)
        rnd = self.round
        if rnd is None or self.street not in ("first", "second"):
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted ({a.kind}) when there was no betting round.",
                     player=p)
            return
        legal: dict[str, Any] | None = None
        if self.steps is not None:
            legal = {"to_call": rnd.to_call(p), "min_raise_to": rnd.min_raise_to(),
                     "max_raise_to": self.max_raise_to(p), "may_raise": rnd.may_raise(p)}
        self.judge_turn(a)
        self.check_time(a)
        if self.parole_open and a.kind != "fold":
            self.end_parole_answers(a.line)
        if self.parole_state == "accepted":
            self.add(Rule.PAROLE, a.line, f"{p} acted after the parole was accepted; the hand ends with the split.",
                     player=p, expected="the split", actual=a.kind)
        kind = a.kind
        if kind == "fold":
            self.folded.add(p)
            rnd.pending.discard(p)
            rnd.acted.add(p)
            if self.parole_open and all(q in self.parole_answers for q in self.parole_answerers()):
                self.settle_parole()
        elif kind == "check":
            if rnd.to_call(p) > 0:
                self.add(Rule.ACTION_NOT_ALLOWED, a.line,
                         f"{p} checked while facing a bet of {rnd.current}; he had to call {rnd.to_call(p)}, "
                         "raise or fold.", player=p, expected=f"call {rnd.to_call(p)}", actual="check")
            rnd.pending.discard(p)
            rnd.acted.add(p)
        elif kind == "call":
            self.apply_call(a, rnd)
        elif kind == "bet":
            self.apply_bet(a, rnd)
        else:
            self.apply_raise(a, rnd)
        if rnd.first_actor is None:
            rnd.first_actor = p
        self.last_actor = p
        if self.steps is not None:
            self.record(a.line, a, legal)
        self.after_action(a.line)


    def judge_turn(self, a: Action) -> None:
        p = a.player
        rnd = self.round
        assert rnd is not None
        if p in self.folded:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted after folding.", player=p)
            return
        if p in self.all_in:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted after going all-in.", player=p)
            return
        if self.won_by_fold is not None:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} acted after the hand was already won.", player=p)
            return
        if not rnd.pending:
            if a.kind == "call" and p not in rnd.acted and rnd.to_call(p) > 0 and self.only_all_ins_left(rnd):
                return  # completing a short all-in blind: allowed, though the chips come back uncalled
            self.add(Rule.ACTION_NOT_ALLOWED, a.line,
                     f"{p} acted after the betting round was already complete.", player=p)
            return
        expected = self.expected_actor(self.last_actor if rnd.acted else None)
        if expected is not None and expected != p:
            self.add(Rule.ACTION_OUT_OF_TURN, a.line, f"{p} acted out of turn: it was {expected}'s turn.",
                     player=p, expected=expected, actual=p)

    def check_time(self, a: Action) -> None:
        prof = self.rules
        if prof.time_limit is not None and a.took is not None and a.took > prof.time_limit and not a.timed_out:
            self.add(Rule.TIME_LIMIT, a.line, f"{a.player} took {a.took:g}s; the limit is {prof.time_limit}s.",
                     player=a.player, expected=f"at most {prof.time_limit}s", actual=f"{a.took:g}s")
        if (prof.raise_time_limit is not None and a.kind in ("bet", "raise") and a.took is not None
                and a.took > prof.raise_time_limit):
            self.add(Rule.TIME_LIMIT, a.line,
                     f"{a.player} {'bet' if a.kind == 'bet' else 'raised'} after {a.took:g}s; betting and raising "
                     f"are allowed only within {prof.raise_time_limit}s (after that only check, call or fold).",
                     player=a.player,
                     expected=f"at most {prof.raise_time_limit}s", actual=f"{a.took:g}s")
        if a.timed_out:
            rnd = self.round
            facing = rnd is not None and rnd.to_call(a.player) > 0
            right = "fold" if facing else "check"
            if a.kind != right:
                self.add(Rule.TIME_LIMIT, a.line,
                         f"{a.player} timed out; the house should have made him {right}, not {a.kind}.",
                         player=a.player, expected=right, actual=a.kind)

    def max_raise_to(self, p: str) -> int:
        rnd = self.round
        assert rnd is not None
        stack_total = rnd.bets.get(p, 0) + max(0, self.stack.get(p, 0))
        betting = self.betting()
        if betting == "pot-limit":
            call = rnd.to_call(p)
            pot_after_call = self.pot_now() + call
            return min(stack_total, rnd.current + pot_after_call)
        if betting == "fixed-limit":
            return min(stack_total, rnd.full_to + rnd.full)
        return stack_total

    def apply_call(self, a: Action, rnd: BettingRound) -> None:
        p = a.player
        owed = rnd.to_call(p)
        have = max(0, self.stack.get(p, 0))
        if owed == 0:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} called but there was no bet to call; that is a check.",
                     player=p, expected="check", actual=f"call {a.amount}")
        elif a.amount != min(owed, have) and not (a.amount > have) and not self.matches_all_ins(a.amount, p, rnd):
            self.add(Rule.CALL_AMOUNT, a.line,
                     f"{p} called {a.amount}, but the call was {min(owed, have)}"
                     f"{' (all his chips)' if have < owed else ''}.", player=p, expected=min(owed, have),
                     actual=a.amount)
        elif a.amount > owed:
            self.add(Rule.CALL_AMOUNT, a.line, f"{p} called {a.amount}, but the call was {owed}.", player=p,
                     expected=owed, actual=a.amount)
        self.put_in(p, a.amount, a.line, a.all_in, "a call")
        rnd.bets[p] = rnd.bets.get(p, 0) + a.amount
        rnd.pending.discard(p)
        rnd.acted.add(p)

    def matches_all_ins(self, amount: int, p: str, rnd: BettingRound) -> bool:
        """When everyone else still in is all-in below the bet (after a blind posted short all-in), a call that
        matches the largest of them is as right as the full call, whose rest would come back uncalled."""
        top = 0
        for q in self.order:
            if q != p and q not in self.folded:
                if q not in self.all_in:
                    return False
                bet = rnd.bets.get(q, 0)
                if bet > top:
                    top = bet
        return top < rnd.current and 0 < amount == top - rnd.bets.get(p, 0)

    def apply_bet(self, a: Action, rnd: BettingRound) -> None:
        p = a.player
        if rnd.current > 0:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line,
                     f"{p} bet {a.amount}, but a bet of {rnd.current} already stood; that would be a raise.",
                     player=p, expected="call, raise or fold", actual=f"bet {a.amount}")
            self.apply_raise(a._replace(kind="raise", amount=a.amount, to=rnd.bets.get(p, 0) + a.amount), rnd,
                             judged=True)
            return
        have = max(0, self.stack.get(p, 0))
        all_in = a.all_in or a.amount >= have
        self.check_open(a, rnd, all_in)
        below = a.amount < rnd.full and not all_in and not rnd.fixed  # fixed limit: judged as a size
        if below:
            self.add(Rule.BET_BELOW_MIN, a.line,
                     f"{p} opened with {a.amount}; the minimum bet is {rnd.full}.", player=p,
                     expected=f"at least {rnd.full}", actual=a.amount)
        elif a.amount >= rnd.full and not rnd.fixed:
            rnd.full = a.amount
        self.check_size(a, rnd, a.amount, all_in, rnd.bets.get(p, 0) + a.amount, unit=not below)
        self.put_in(p, a.amount, a.line, a.all_in, "a bet")
        rnd.bets[p] = rnd.bets.get(p, 0) + a.amount
        rnd.current = rnd.bets[p]
        full = a.amount * 2 >= rnd.full if rnd.fixed else a.amount >= rnd.full
        if rnd.fixed and full:
            rnd.full_to = rnd.current
        self.after_raise(p, rnd, full)
        rnd.opener = rnd.opener or p

    def check_open(self, a: Action, rnd: BettingRound, all_in: bool) -> None:
        """Openers (jacks or better) when the profile requires them."""
        if self.street != "first" or not self.rules.openers_jacks or rnd.opener is not None:
            return
        cards = self.cards.get(a.player)
        if cards is None or len(cards) != 5:
            return
        try:
            strength = self.ranking.strength(cards)
        except ValueError:  # a card this deck does not have, or one twice: reported where it was dealt
            return
        jacks = self.ranking.strength(("Jc", "Jd", "2h", "3s", "4c"))
        if strength[0] < jacks[0] or (strength[0] == jacks[0] and strength[1:2] < jacks[1:2]):
            self.add(Rule.OPENERS, a.line, f"{a.player} opened without a pair of Jacks or better.",
                     player=a.player, expected="a pair of Jacks or better", actual=self.ranking.describe(cards))

    def check_size(self, a: Action, rnd: BettingRound, increment: int, all_in: bool, to: int,
                   unit: bool = True) -> None:
        """Bet units (qdan), pot limit and fixed-limit sizes and cap; ``to``: the player's total after it."""
        p = a.player
        bet_unit = self.rules.bet_unit
        if unit and bet_unit > 1 and not all_in and increment % bet_unit:
            self.add(Rule.BET_UNIT, a.line, f"{p}'s {a.kind} of {increment} is not a multiple of {bet_unit}.",
                     player=p, expected=f"a multiple of {bet_unit}", actual=increment)
        betting = self.betting()
        if betting == "pot-limit":
            limit = self.max_raise_to(p)
            if to > limit and not (all_in and to <= limit):
                self.add(Rule.BET_OVER_POT, a.line, f"{p} made it {to}; pot limit allowed at most {limit}.",
                         player=p, expected=f"at most {limit}", actual=to)
        elif betting == "fixed-limit":
            size = rnd.full
            target = rnd.full_to + size
            if (to != target and not all_in) or to > target:
                if a.kind == "bet":
                    msg = f"{p} bet {to}; in this round every bet is {size}."
                else:
                    completing = ("" if rnd.full_to == rnd.current
                                  else f" (completing the last full bet of {rnd.full_to})")
                    msg = f"{p} raised to {to}; in this round a raise is one bet of {size}, so to {target}{completing}."
                self.add(Rule.BET_FIXED_SIZE, a.line, msg, player=p, expected=target, actual=to)
            cap = self.rules.raise_cap
            if cap is not None and rnd.raises >= cap and not self.cap_lifted_heads_up(rnd):
                why = ""
                if not self.rules.raise_cap_heads_up and self._count_able() <= 2:
                    why = (f" The cap was reached with {rnd.capped_with} players able to bet, so folds since then "
                           "do not lift it.")
                self.add(Rule.RAISE_CAP, a.line, f"{p} raised after the cap of {cap} bets was reached.{why}",
                         player=p, expected=f"at most {cap} bets", actual=rnd.raises + 1)

    def cap_lifted_heads_up(self, rnd: BettingRound) -> bool:
        """``raise-cap = 4-not-heads-up`` (site), as Robert's Rules say: raising is unlimited when the action is
        heads-up (two players able to bet: an all-in player bets no more) before the cap is reached; a cap
        reached with three or more stays in force after folds leave two."""
        return not self.rules.raise_cap_heads_up and rnd.capped_with <= 2 and self._count_able() <= 2

    def apply_raise(self, a: Action, rnd: BettingRound, judged: bool = False) -> None:
        p = a.player
        before = rnd.bets.get(p, 0)
        faced = rnd.current
        if not judged and rnd.current == 0:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} raised but there was no bet to raise; that is a bet.",
                     player=p, expected=f"bet {a.to}", actual=f"raise to {a.to}")
        if not judged and a.amount != a.to - faced:
            self.add(Rule.AMOUNT_NOTATION, a.line,
                     f"{p} 'raises {a.amount} to {a.to}', but {a.to} is {a.to - faced} above the bet of {faced}.",
                     player=p, expected=f"raises {a.to - faced} to {a.to}", actual=f"raises {a.amount} to {a.to}")
        to = a.to
        added = to - before
        have = max(0, self.stack.get(p, 0))
        all_in = a.all_in or added >= have
        increment = to - faced
        if not judged and not rnd.may_raise(p) and increment > 0:
            since = rnd.current - before
            if rnd.fixed:
                why = (f"since {p} acted nobody made a full raise or went all-in for at least half a bet "
                       f"({rnd.full // 2 + rnd.full % 2})")
            else:
                why = (f"the bet went up only {since} since {p}'s bet of {before}, less than the full raise of "
                       f"{rnd.full}")
            self.add(Rule.RAISE_NOT_REOPENED, a.line,
                     f"{p} raised to {to}, but the betting was not re-opened for {p}: {why}.",
                     player=p, expected=f"call {rnd.to_call(p)} or fold", actual=f"raise to {to}")
        elif increment < rnd.full and not all_in and increment > 0 and self.betting() != "fixed-limit":
            self.add(Rule.RAISE_BELOW_MIN, a.line,
                     f"{p} raised to {to}, {increment} more than the bet of {faced}; the smallest raise was "
                     f"{rnd.full} (to {faced + rnd.full}).", player=p, expected=f"to at least {faced + rnd.full}",
                     actual=f"to {to}")
        if increment <= 0:
            self.add(Rule.ACTION_NOT_ALLOWED, a.line, f"{p} 'raised' to {to}, which is not above the bet of {faced}.",
                     player=p, expected=f"more than {faced}", actual=to)
        self.check_size(a, rnd, increment, all_in, to)
        self.put_in(p, added, a.line, a.all_in, "a raise")
        rnd.bets[p] = to
        if to > rnd.current:
            rnd.current = to
        if rnd.fixed:
            full = increment * 2 >= rnd.full  # TDA 47-B: an all-in of at least half a bet counts as full
            if full:
                rnd.full_to = to
        else:
            full = increment >= rnd.full
            if full:
                rnd.full = increment
        self.after_raise(p, rnd, full)

    def after_raise(self, p: str, rnd: BettingRound, full: bool) -> None:
        rnd.acted.add(p)
        rnd.last_aggressor = p
        if full:
            rnd.raises += 1
            if rnd.raises == self.rules.raise_cap and not rnd.capped_with:
                rnd.capped_with = self._count_able()
        rnd.any_bet = True
        pending: set[str] = set()
        in_hand = self.in_hand
        folded = self.folded
        all_in = self.all_in
        for q in self.order:
            if q != p and q in in_hand and q not in folded and q not in all_in and rnd.to_call(q) > 0:
                pending.add(q)
        rnd.pending = pending

    def after_action(self, line: int) -> None:
        rnd = self.round
        assert rnd is not None
        folded = self.folded
        all_in = self.all_in
        live = 0
        only: str | None = None
        able = 0
        owes = False
        for q in self.order:
            if q in folded:
                continue
            live += 1
            only = q
            if q not in all_in:
                able += 1
                if not owes and rnd.to_call(q) != 0:
                    owes = True
        if live == 1:
            self.won_by_fold = only
            rnd.pending = set()
            return
        if able <= 1 and (not owes or self.only_all_ins_left(rnd)):
            rnd.pending = set()

    def close_round(self, line: int) -> None:
        """The round ends here: every active player must have answered the last bet; settle the uncalled."""
        rnd = self.round
        if rnd is None:
            return
        if rnd.pending and self.won_by_fold is None:
            waiting = [p for p in self.order if p in rnd.pending]
            who = waiting[0]
            self.add(Rule.ROUND_INCOMPLETE, line,
                     f"The {STREET_NAMES[self.street]} ended before {', '.join(waiting)} answered the last bet "
                     f"of {rnd.current}.", player=who, expected=f"{who} to act", actual="the round ended")
        self.settle_uncalled(rnd, line)
        rnd.end_line = line
        if self.street == "first" and not rnd.any_bet:
            self.all_checked_first = True
        self.round = None
        self.last_actor = None


    def settle_uncalled(self, rnd: BettingRound, line: int) -> None:
        top, excess = uncalled(rnd.bets)
        if top is None or excess <= 0:
            return
        self.returned_due[top] = self.returned_due.get(top, 0) + excess
        rnd.bets[top] -= excess

    def on_uncalled(self, u: Uncalled) -> None:
        # the return may be printed before the round is closed by the next marker
        rnd = self.round
        if rnd is not None and not rnd.pending:
            self.settle_uncalled(rnd, u.line)
            self.round_uncalled_settled = True
        self.returned_log[u.player] = self.returned_log.get(u.player, 0) + u.amount
        if u.player in self.stack:
            self.stack[u.player] += u.amount
        self.uncalled_lines.append(u)
        if self.steps is not None:
            self.record(u.line, u)


    # ------------------------------------------------------------------ parole
    def on_parole(self, item: Parole) -> None:
        """``parole = yes``: only the first player to act in the second round may offer, before any chips go in;
        the others still in answer in turn; one acceptance splits every pot, all declining lets play go on."""
        p = item.player
        if not self.rules.parole:
            if self.parole_state is None:
                self.add(Rule.PAROLE, item.line, "Parole is not part of this game.", player=p,
                         expected="no parole", actual=f"{p} {item.kind}s parole")
            self.parole_state = "not-allowed"
            return
        if item.kind == "offer":
            if self.street == "draw":
                self.end_draw_phase(item.line)
                self.open_round("second", item.line)
            rnd = self.round
            first = self.round_start("second") if rnd is not None and self.street == "second" else None
            if self.parole_state is not None:
                self.add(Rule.PAROLE, item.line, f"{p} offered parole, but parole was already offered this hand.",
                         player=p, expected="one offer", actual="a second offer")
            elif self.street != "second" or rnd is None or rnd.acted or rnd.current > 0 or p != first:
                when = ("in the first betting round" if self.street in ("pre", "deal", "first")
                        else "after chips went in" if rnd is not None and rnd.current > 0
                        else "after the round's first action" if rnd is not None and rnd.acted
                        else "out of turn")
                self.add(Rule.PAROLE, item.line,
                         f"{p} offered parole {when}; only the first player to act in the second betting round"
                         f"{f' ({first})' if first else ''} may, before any chips go in.", player=p,
                         expected=f"{first} in the second round" if first else "no offer", actual=p)
            self.parole_state = "offered"
            self.parole_open = True
            self.parole_offerer = p
            self.parole_answers = []
            self.parole_accepted = False
        elif self.parole_state != "offered":
            verb = "accepted" if item.kind == "accept" else "declined"
            if self.parole_state is None:
                self.add(Rule.PAROLE, item.line, f"{p} {verb} a parole nobody offered.", player=p,
                         expected="no answer", actual=f"{p} {item.kind}s parole")
                if item.kind == "accept":
                    self.parole_state = "accepted"
            else:
                self.add(Rule.PAROLE, item.line, f"{p} {verb} the parole after everyone had answered it.",
                         player=p, expected="no answer", actual=f"{p} {item.kind}s parole")
        else:
            self.answer_parole(item)
        if self.steps is not None:
            self.record(item.line, item)

    def parole_answerers(self) -> list[str]:
        """Who answers the offer, in turn: every other player still in, from the offerer's left."""
        offerer = self.parole_offerer
        ring = self.clockwise_from(self.order.index(offerer) + 1) if offerer in self.order else self.order
        return [q for q in ring if q != offerer and q not in self.folded]

    def answer_parole(self, item: Parole) -> None:
        """One answer to the offer: each player still in answers once, in turn, even after an acceptance."""
        p = item.player
        answerers = self.parole_answerers()
        answers = self.parole_answers
        if p == self.parole_offerer:
            self.add(Rule.PAROLE, item.line, f"{p} answered his own offer of parole.", player=p,
                     expected="an answer from another player", actual=p)
            return
        if p in answers:
            self.add(Rule.PAROLE, item.line, f"{p} answered the parole twice; each player answers once.",
                     player=p, expected="one answer", actual="a second answer")
            return
        if p not in answerers:
            self.add(Rule.PAROLE, item.line, f"{p} answered the parole but is no longer in the hand.", player=p,
                     expected="an answer from a player still in", actual=p)
            return
        waiting = [q for q in answerers if q not in answers]
        if p != waiting[0]:
            self.add(Rule.PAROLE, item.line, f"{p} answered the parole out of turn: it was {waiting[0]}'s "
                     "answer.", player=p, expected=waiting[0], actual=p)
        answers.append(p)
        if item.kind == "accept":
            self.parole_accepted = True
        if len(waiting) == 1:
            self.settle_parole()

    def settle_parole(self) -> None:
        """Everyone has answered: one acceptance splits every pot and ends the hand; otherwise play goes on."""
        self.parole_open = False
        if self.parole_accepted:
            self.parole_state = "accepted"
            if self.round is not None:
                self.round.pending = set()  # the hand ends with the split
        else:
            self.parole_state = "declined"

    def end_parole_answers(self, line: int) -> None:
        """The hand moved on while the offer was open: whoever still in has not answered missed his turn."""
        answers = self.parole_answers
        why = "even after someone has accepted" if self.parole_accepted else "before play goes on"
        for q in self.parole_answerers():
            if q not in answers:
                self.add(Rule.PAROLE, line, f"{q} did not answer the parole; every player still in answers it, "
                         f"in turn, {why}.", player=q, expected=f"{q} answers", actual="no answer")
        self.settle_parole()

    # ------------------------------------------------------------------ the draw
    def end_draw_phase(self, line: int) -> None:
        """Every survivor must have drawn (or stood pat) before the second round."""
        if self._draw_closed:
            return
        self._draw_closed = True
        if self.won_by_fold is not None or self.street not in ("draw",):
            if self.street in ("first",):
                self.close_round(line)
            return
        for p, d in self.draw_pending.items():
            if d.cards is None:
                continue  # a site log shows only the hero's new cards
            self.add(Rule.DRAW_COUNT, d.line, f"{p} discarded but received no cards.", player=p, street="draw")
        self.draw_pending.clear()
        if self.known_cards:
            missed = [p for p in self.draw_order() if p not in self.drew]
            for p in missed:
                self.add(Rule.DRAW_ORDER, line, f"{p} was skipped in the draw (neither drew nor stood pat).",
                         player=p, street="draw")

    def draw_order(self) -> list[str]:
        return [p for p in self.left_of_button() if p not in self.folded]

    def begin_draw_item(self, p: str, line: int) -> None:
        if self.street in ("first", "deal", "pre"):
            self.close_round(line)
            self.street = "draw"
        if self.street != "draw":
            self.add(Rule.DRAW_ORDER, line, f"{p} drew outside the draw.", player=p, street="draw")
            return
        if self.won_by_fold is not None:
            self.add(Rule.DRAW_ORDER, line, f"{p} drew after the hand was already won.", player=p)
            return
        if p in self.folded:
            self.add(Rule.DRAW_ORDER, line, f"{p} drew after folding.", player=p)
            return
        if p in self.drew:
            self.add(Rule.DRAW_ORDER, line, f"{p} drew twice.", player=p)
            return
        turn = self.next_to_draw()
        if turn is not None and turn != p:
            self.add(Rule.DRAW_ORDER, line, f"{p} drew out of turn: it was {turn}'s turn.", player=p,
                     expected=turn, actual=p)

    def next_to_draw(self) -> str | None:
        """The first player in the draw order (left of the button, not folded) who has not drawn yet."""
        order = self.order
        n = len(order)
        start = self.button_index + 1
        folded = self.folded
        drew = self.drew
        for i in range(n):
            q = order[(start + i) % n]
            if q not in folded and q not in drew:
                return q
        return None

    def on_stand_pat(self, s: StandPat) -> None:
        self.begin_draw_item(s.player, s.line)
        self.drew.add(s.player)
        if s.took is not None and self.rules.time_limit is not None and s.took > self.rules.time_limit \
                and not s.timed_out:
            self.add(Rule.TIME_LIMIT, s.line, f"{s.player} took {s.took:g}s to draw; the limit is "
                     f"{self.rules.time_limit}s.", player=s.player)
        if self.steps is not None:
            self.record(s.line, s)

    def on_discard(self, d: Discard) -> None:
        p = d.player
        self.begin_draw_item(p, d.line)
        self.drew.add(p)
        if d.took is not None and self.rules.time_limit is not None and d.took > self.rules.time_limit:
            self.add(Rule.TIME_LIMIT, d.line, f"{p} took {d.took:g}s to draw; the limit is "
                     f"{self.rules.time_limit}s.", player=p)
        hand = self.cards.get(p)
        if d.cards is not None:
            if len(d.cards) != d.count:
                self.add(Rule.DRAW_COUNT, d.line, f"{p} says {d.count} cards but lists {len(d.cards)}.",
                         player=p, expected=d.count, actual=len(d.cards))
            if hand is not None:
                missing = [c for c in d.cards if c not in hand]
                if missing:
                    self.add(Rule.DRAW_COUNT, d.line,
                             f"{p} discarded {' '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
                             "not in his hand.", player=p, expected=" ".join(hand), actual=" ".join(d.cards))
        count = len(d.cards) if d.cards is not None else d.count
        self.check_draw_limit(p, d, count)
        self.draw_pending[p] = d
        if self.steps is not None:
            self.record(d.line, d)


    def check_draw_limit(self, p: str, d: Discard, count: int) -> None:
        """``draw-limit``: at most N cards; under ``3+ace`` one more when the kept cards hold an ace or the joker."""
        prof = self.rules
        limit = prof.draw_limit
        if prof.draw_limit_ace:
            hand = self.cards.get(p)
            kept = [c for c in hand if d.cards is None or c not in d.cards] if hand else []
            if hand is None or any(c[0] == "A" or c == "Jk" for c in kept):
                limit += 1
        if count <= limit:
            return
        why = ""
        if prof.draw_limit_ace:
            why = (" (an ace or the joker is kept)" if limit > prof.draw_limit
                   else f" without an ace or the joker kept ({prof.draw_limit + 1} only when keeping one)")
        self.add(Rule.DRAW_LIMIT, d.line, f"{p} drew {count} cards; the limit is {limit}{why}.", player=p,
                 expected=f"at most {limit}", actual=count)

    def stub_size(self) -> int:
        if self.stub is not None:
            return len(self.stub)
        return len(self.deck_cards) - len(self.used) + len(self.back_in_stub)

    def on_reshuffle(self, r: Reshuffle) -> None:
        # the reshuffle is for the next player to draw
        p = self.next_to_draw()
        if self.street in ("first",):
            self.close_round(r.line)
            self.street = "draw"
        self.check_card_list(r.cards, r.line, "the reshuffled stub")
        need = 0
        nxt = self._next_discard_count(r)
        if nxt is not None:
            need = nxt
        if self.rules.reshuffle == "not-audited":
            return
        remaining = self.remaining_stub_set()
        if need and self.stub_size() >= need:
            self.add(Rule.RESHUFFLE, r.line,
                     f"The dealer reshuffled although {self.stub_size()} cards were left for a draw of {need}.",
                     expected="no reshuffle", actual="reshuffle")
        others = set()
        for q, cs in self.discarded.items():
            if q != p:
                others.update(cs)
        for q in self.folded:
            others.update(self.cards.get(q, ()))
        others -= self.back_in_stub_drawn
        listed = set(r.cards)
        if self.rules.reshuffle == "merge-stub":
            allowed = remaining | others
            must = remaining
        else:
            allowed = others - remaining  # the old stub is dealt first and is not listed
            must = set()
        bad = sorted(listed - allowed)
        lacking = sorted(must - listed)
        if bad or lacking or (self.known_cards and listed != allowed):
            parts = []
            stub_left = sorted(set(bad) & remaining) if self.rules.reshuffle == "stub-first" else []
            if stub_left:
                parts.append(f"it holds the stub's last {' '.join(stub_left)}, which are dealt first, not shuffled")
            if sorted(set(bad) - set(stub_left)):
                parts.append(f"it holds {' '.join(sorted(set(bad) - set(stub_left)))}, which may not go back in")
            if lacking:
                parts.append(f"it lacks the stub's {' '.join(lacking)}")
            missing_discards = sorted(allowed - listed - set(lacking))
            if missing_discards and self.known_cards and not bad:
                parts.append(f"it leaves out {' '.join(missing_discards)}")
            self.add(Rule.RESHUFFLE, r.line, "The reshuffled stub is wrong: " + "; ".join(parts) + ".",
                     player=p, expected=" ".join(sorted(allowed)), actual=" ".join(r.cards))
        if self.rules.reshuffle == "stub-first":
            if self.stub is not None:
                old = self.stub
            else:  # the old stub's cards are known, their order is not
                old = sorted(remaining)
                self.stub_unordered = len(old)
            self.stub = list(old) + [c for c in r.cards if c not in old]
        else:
            self.stub = list(r.cards)
        self.stub_is_known_order = True
        self.back_in_stub |= listed & self.used
        if self.steps is not None:
            self.record(r.line, "Dealer reshuffles")


    def _next_discard_count(self, r: Reshuffle) -> int | None:
        after = False
        for item in self.hand.body:
            if item is r:
                after = True
                continue
            if after and type(item) is Discard:
                return len(item.cards) if item.cards is not None else item.count
        return None

    def remaining_stub_set(self) -> set[str]:
        if self.stub is not None:
            return set(self.stub)
        return set(self.deck_cards - self.used) | self.back_in_stub

    def draw_received(self, d: Dealt) -> None:
        p = d.player
        disc = self.draw_pending.pop(p)
        hand = self.cards.get(p, ())
        if len(d.groups) == 1:
            kept: tuple[str, ...] = ()
            new = d.groups[0]
            if disc.cards is not None and len(disc.cards) != 5 and hand:
                # one bracket: the whole new hand as some sites print it
                kept = tuple(c for c in hand if c not in disc.cards)
                new = tuple(c for c in d.groups[0] if c not in kept)
        else:
            kept, new = d.groups[0], d.groups[1]
        ndisc = len(disc.cards) if disc.cards is not None else disc.count
        if len(new) != ndisc:
            self.add(Rule.DRAW_COUNT, d.line, f"{p} discarded {ndisc} but received {len(new)} cards.", player=p,
                     expected=ndisc, actual=len(new))
        discarded = disc.cards
        if hand and discarded is not None and len(d.groups) > 1:
            kept_in_order = [c for c in hand if c not in discarded]
            if not _same_cards(kept_in_order, kept):
                expected_kept = sorted(kept_in_order)
                if sorted(kept) != expected_kept:
                    self.add(Rule.DRAW_COUNT, d.line,
                             f"{p} should have kept {' '.join(expected_kept)} but the line shows {' '.join(kept)}.",
                             player=p, expected=" ".join(expected_kept), actual=" ".join(kept))
        final = kept + new
        if len(final) != 5:
            self.add(Rule.DRAW_COUNT, d.line, f"{p} ends the draw with {len(final)} cards instead of 5.",
                     player=p, expected=5, actual=len(final))
        self.check_card_list(new, d.line, "'s new cards", p)
        self.take_from_stub(p, new, d.line)
        if discarded is not None:
            gone = self.discarded.get(p)
            if gone is None:
                self.discarded[p] = list(discarded)
            else:
                gone.extend(discarded)
        if not self.loose_cards:
            used = self.used
            for c in kept:
                if c not in used:
                    self.loose_cards = True
                    break
        self.cards[p] = final

    def take_from_stub(self, p: str, new: tuple[str, ...], line: int) -> None:
        """The new cards must come off the stub: never a live card, never a discard without a reshuffle."""
        used = self.used
        check = self.loose_cards  # a live hand may hold a card outside ``used``
        if not check:
            for c in new:
                if c in used:
                    check = True
                    break
        # every live card is in ``used`` unless ``loose_cards``: new cards outside it are not live
        live = {c for q, cs in self.cards.items() if q not in self.folded for c in cs} if check else _NO_CARDS
        for c in new:
            if c in live and c not in self.back_in_stub:
                holder = next((q for q, cs in self.cards.items() if c in cs and q not in self.folded), None)
                if holder == p:
                    self.add(Rule.STUB_CARD, line, f"{p} drew {c}, a card already in his own hand.", player=p,
                             actual=c, street="draw")
                else:
                    self.add(Rule.CARD_DUPLICATE, line,
                             f"{p} drew {c}, but {holder} holds that card: it is in two live hands.", player=p,
                             actual=c, street="draw")
            elif c in self.used and c not in self.back_in_stub:
                self.add(Rule.STUB_CARD, line,
                         f"{p} drew {c}, which was not in the stub: it was already dealt or discarded and no "
                         "reshuffle brought it back.", player=p, actual=c, street="draw")
            elif c in self.drawn_after_reshuffle:
                self.add(Rule.STUB_CARD, line, f"{p} drew {c}, which had already been drawn.", player=p, actual=c,
                         street="draw")
        stub = self.stub
        if stub is not None and self.stub_unordered == 0 and _is_prefix(new, stub):
            self.stub = stub[len(new):]  # drawn in order off the top (what the slow path below finds too)
        elif stub is not None:
            top = stub[:len(new)]
            head = stub[:self.stub_unordered]  # stub-first: the old stub's cards, order unknown
            if head and len(new) <= len(head):
                in_order = set(new) <= set(head)
            elif head:
                in_order = set(head) <= set(new) and sorted(set(new) - set(head)) == sorted(top[len(head):])
            else:
                in_order = sorted(top) == sorted(new)
            if not in_order and (self.deck_order is not None or self.stub_is_known_order):
                want = (f"the old stub's {' '.join(head)} first, then {' '.join(top[len(head):])}"
                        if head and len(new) > len(head) else
                        f"{len(new)} of the old stub's {' '.join(head)}" if head else " ".join(top))
                self.add(Rule.DEAL_ORDER, line,
                         f"{p} should have drawn {want} from the top of the stub.", player=p,
                         expected=" ".join(top), actual=" ".join(new), street="draw")
            self.stub_unordered = max(0, len(head) - len(set(new) & set(head)))
            remaining = list(stub)
            for c in new:
                if c in remaining:
                    remaining.remove(c)
                elif remaining:
                    remaining.pop(0)
            self.stub = remaining
        for c in new:
            self.used.add(c)
            if c in self.back_in_stub:
                self.drawn_after_reshuffle.add(c)
                self.back_in_stub.discard(c)
                self.back_in_stub_drawn.add(c)


    # ------------------------------------------------------------------ show down and awards
    def on_show(self, s: Show) -> None:
        p = s.player
        if self.parole_open:
            self.end_parole_answers(s.line)
        if self.parole_state == "accepted" and not self.show_order:
            self.add(Rule.PAROLE, s.line, "The parole was accepted, so the pots are split without a show down.",
                     player=p, expected="no show down", actual="show down")
        if self.street in ("second", "first", "draw"):
            self.close_round(s.line)
            self.street = "showdown"
        if p in self.folded:
            self.add(Rule.SHOWN_CARDS, s.line, f"{p} showed cards after folding.", player=p)
        cards = s.cards
        clean = self.check_card_list(cards, s.line, "'s shown hand", p)
        final = self.cards.get(p)
        if final is not None and self.known_cards and final != cards and sorted(final) != sorted(cards):
            self.add(Rule.SHOWN_CARDS, s.line,
                     f"{p} showed {' '.join(cards)}, but his hand after the draw was {' '.join(final)}.",
                     player=p, expected=" ".join(final), actual=" ".join(cards))
        elif final is not None and not self.known_cards:
            known = set(final)
            if not known <= set(cards):
                self.add(Rule.SHOWN_CARDS, s.line, f"{p} showed {' '.join(cards)}, which does not hold the cards "
                         f"he was dealt ({' '.join(final)}).", player=p)
        if final is None or not self.known_cards:
            self.cards[p] = cards
            if not self.loose_cards:
                for c in cards:
                    if c not in self.used:
                        self.loose_cards = True
                        break
            if not self.known_cards:
                for c in cards:
                    if c in self.shown_cards_all:
                        self.add(Rule.CARD_DUPLICATE, s.line, f"{c} is shown in two hands.", player=p, actual=c)
                    self.shown_cards_all.add(c)
        if s.description is not None and len(cards) == 5 and clean:
            try:
                ok = self.ranking.description_matches(s.description, cards)
            except ValueError:
                ok = True
            if not ok:
                self.add(Rule.HAND_DESCRIPTION, s.line,
                         f"{p}'s hand {' '.join(cards)} is {self.ranking.describe(cards)}, not "
                         f"'{s.description}'.", player=p, expected=self.ranking.describe(cards),
                         actual=s.description)
        if p not in self.shown:
            self.show_order.append(p)
        self.shown[p] = s
        if self.steps is not None:
            self.record(s.line, s)


    def on_muck(self, m: Muck) -> None:
        if self.parole_open:
            self.end_parole_answers(m.line)
        if self.street in ("second", "first", "draw"):
            self.close_round(m.line)
            self.street = "showdown"
        self.mucked.add(m.player)
        if self.steps is not None:
            self.record(m.line, m)

    def on_collect(self, c: Collect) -> None:
        if self.parole_open:
            self.end_parole_answers(c.line)
        if self.round is not None:
            self.close_round(c.line)
        self.collected.append(c)
        if c.player in self.stack:
            self.stack[c.player] += c.amount
        if self.steps is not None:
            self.record(c.line, c)

    def on_event(self, e: Event) -> None:
        if e.player not in self.seat_of and self.hand.shows_all_cards:
            self.add(Rule.UNKNOWN_PLAYER, e.line, f"{e.player} has no seat at this table.", player=e.player)

    def on_score(self, s: Score) -> None:
        self.scores[s.player] = self.scores.get(s.player, 0) + s.points
        if self.steps is not None:
            self.record(s.line, s)

    def on_summary(self, s: SummaryTotal) -> None:
        if self.round is not None:
            self.close_round(s.line)
        self.summary = s

    # ------------------------------------------------------------------ settlement
    def finish(self) -> HandResult:
        if self.parole_open:
            self.end_parole_answers(self.last_line)
        if self.round is not None:
            self.close_round(self.last_line)
        hand = self.hand
        prof = self.rules
        redeal = bool(self.redeal_line)
        self.check_redeal(redeal)
        contrib = self.contrib
        total_in = self.dead
        for amount in contrib.values():
            total_in += amount
        due = dict(self.returned_due)
        if due or self.returned_log:
            self.check_uncalled(due)
        # dead blinds are pot, not a bet: they belong to no player's contribution level (main pot)
        dead_posts: dict[str, int] = {}
        dead_total = 0
        for p, xs in self.posted.items():
            for x in xs:
                dead = x.amount if x.kind == "dead" else self.site_dead_small_blind(x) if x.kind == "both" else 0
                if dead:
                    dead_posts[p] = dead_posts.get(p, 0) + dead
                    dead_total += dead
        contributions_after: dict[str, int] = {}
        for p, amount in contrib.items():
            contributions_after[p] = amount - due.get(p, 0) - dead_posts.get(p, 0)
        folded = self.folded
        live = [p for p in self.order if p not in folded]
        pots_built = build_pots(contributions_after, live, self.order, self.dead + dead_total) if not redeal else []
        results: list[PotResult] = []
        should: dict[str, int] = dict(due)
        if pots_built:
            odd_order = odd_chip_order(self.order, self.button_index)
            parole = self.parole_state == "accepted"
            mucked = self.mucked
            showdown_players = [p for p in live if p not in mucked]
            for pot in pots_built:
                winners = self.pot_winners(pot, showdown_players, parole)
                awards = split(pot.amount, winners, odd_order) if winners else {}
                results.append(PotResult(name=pot.name, amount=pot.amount, eligible=list(pot.eligible),
                                         winners=winners, awards=awards, collected={}))
        else:
            parole = self.parole_state == "accepted"
        self.check_awards(results, parole)
        for r in results:
            awarded: dict[str, int] = r["awards"]
            for w, amt in awarded.items():
                should[w] = should.get(w, 0) + amt
        received: dict[str, int] = {}
        collected_total = 0
        for c in self.collected:
            received[c.player] = received.get(c.player, 0) + c.amount
            collected_total += c.amount
        returned_total = 0
        for p, amt in self.returned_log.items():
            received[p] = received.get(p, 0) + amt
            returned_total += amt
        rake = self.summary.rake if self.summary is not None else 0
        if prof.rake_allowed and self.summary is not None:
            rake = self.summary.rake
        if not redeal:
            self.check_conservation(total_in, collected_total, returned_total, rake)
        if not prof.rake_allowed and rake:
            self.add(Rule.RAKE, self.summary.line if self.summary else hand.end_line,
                     f"A rake of {rake} was taken, but this game has no rake.", expected=0, actual=rake,
                     street="summary")
        pot_total = total_in
        for amount in due.values():
            pot_total -= amount
        if self.summary is not None and not redeal:
            if self.summary.total != pot_total:
                self.add(Rule.SUMMARY_TOTAL, self.summary.line,
                         f"The summary says the pot was {self.summary.total}, but it was {pot_total}.",
                         expected=pot_total, actual=self.summary.total, street="summary")
            elif self.summary.total != collected_total + rake and not self.findings_of(Rule.POT_AMOUNT):
                self.add(Rule.SUMMARY_TOTAL, self.summary.line,
                         f"The summary's pot {self.summary.total} and rake {rake} do not add up to the "
                         f"{collected_total} collected.", expected=self.summary.total - rake,
                         actual=collected_total, street="summary")
        self.check_show_order(live)
        if not self.hand.shows_all_cards:
            self.check_site_known_cards()
        if self.points_mode:
            self.check_points(live)
        end = {p: self.start[p] - self.contrib.get(p, 0) for p in self.start}
        for c in self.collected:
            if c.player in end:
                end[c.player] += c.amount
        for p, amt in self.returned_log.items():
            if p in end:
                end[p] += amt
        if redeal:
            for p in end:
                end[p] = self.start[p] - self.contrib.get(p, 0)
        return HandResult(
            hand=hand, profile=prof.name, session=self.session, findings=self.findings, pots=results,
            should_receive=should, received=received, contributions=contrib,
            start_stacks=self.start, end_stacks=end, dealt_in=self.order, redeal=redeal,
            pot_total=pot_total, rake=rake, steps=self.steps, points=self.scores)

    def check_site_known_cards(self) -> None:
        """Site logs: the hero's known cards against every other player's shown hand (RULES.md, "Site logs").

        A card the hero still held after the draw is live: shown by another player it is ``CARD_DUPLICATE`` (when
        the hero showed too, the shown hands' own comparison reports it). A player who stood pat shows the hand he
        was dealt, so a card the hero was dealt is ``CARD_DUPLICATE`` there too. When the cards dealt in the hand,
        draws included, number 52 or fewer, no reshuffle can have happened: a card the hero threw away (a discard,
        or his hand folded before the draw) that another player shows is ``STUB_CARD``."""
        if not self.shown:
            return
        dealt: dict[str, set[str]] = {}  # the hero's (a player whose cards the log shows) first hand
        held: dict[str, set[str]] = {}  # every card he held
        thrown: dict[str, set[str]] = {}  # his discards
        stood_pat: set[str] = set()
        cards_dealt = 5 * len(self.order)
        for item in self.hand.body:
            if type(item) is Dealt:
                cards = {c for group in item.groups for c in group}
                if item.player not in dealt:
                    dealt[item.player] = cards
                    held[item.player] = set(cards)
                else:
                    held[item.player] |= cards
            elif type(item) is Discard:
                cards_dealt += len(item.cards) if item.cards is not None else item.count
                if item.cards is not None:
                    thrown.setdefault(item.player, set()).update(item.cards)
            elif type(item) is StandPat:
                stood_pat.add(item.player)
        no_reshuffle = cards_dealt <= len(self.deck_cards)
        for hero, first in dealt.items():
            folded_before_draw = hero in self.folded and hero not in self.drew
            discards = thrown.get(hero, set())
            live = set() if folded_before_draw else held[hero] - discards
            gone = held[hero] if folded_before_draw else discards
            hero_shown = set(self.shown[hero].cards) if hero in self.shown else set()
            for q in self.show_order:
                if q == hero or q in dealt:
                    continue
                show = self.shown[q]
                for c in show.cards:
                    if c in hero_shown:
                        continue  # two shown hands: reported when the second was shown
                    if c in live:
                        self.add(Rule.CARD_DUPLICATE, show.line, f"{q} showed {c}, but {hero} still held {c} after "
                                 "the draw: the same card in two live hands.", player=q, actual=c,
                                 street="showdown")
                    elif c in first and q in stood_pat:
                        self.add(Rule.CARD_DUPLICATE, show.line, f"{q} stood pat, so he showed the hand he was "
                                 f"dealt, but {c} was dealt to {hero}: the same card dealt twice.", player=q,
                                 actual=c, street="showdown")
                    elif c in gone and no_reshuffle:
                        how = "folded before the draw" if folded_before_draw else "discarded"
                        self.add(Rule.STUB_CARD, show.line, f"{q} showed {c}, which {hero} had {how}; with only "
                                 f"{cards_dealt} cards dealt in this hand, draws included, no reshuffle can have "
                                 "brought it back.", player=q, actual=c, street="showdown")

    def findings_of(self, rule: Rule) -> bool:
        return any(f.rule == rule.value for f in self.findings)

    def check_redeal(self, redeal: bool) -> None:
        """``all-check = redeal`` (with ``second-round-starts = opener``) and ``openers = jacks``: a first round in
        which nobody bet ends in a redeal; any other hand must not."""
        prof = self.rules
        first = self.rounds.get("first")
        everyone_checked = first is not None and not first.any_bet and not self.folded
        required = everyone_checked and (prof.all_check_redeal or prof.openers_jacks) and not self.points_mode
        line = first.end_line if first is not None and first.end_line else self.hand.end_line
        if redeal and not required:
            self.add(Rule.REDEAL, self.redeal_line, "The hand was redealt although the rules did not call for it.",
                     expected="play on", actual="redeal", street="first")
        elif required and not redeal:
            why = "Nobody opened" if prof.openers_jacks else "Everyone checked the first round"
            self.add(Rule.REDEAL, line, f"{why}: the hand should have been redealt with the pot kept.",
                     expected="redeal", actual="play went on", street="first")

    def check_uncalled(self, due: dict[str, int]) -> None:
        line = self.uncalled_lines[0].line if self.uncalled_lines else self.hand.end_line
        players = set(due) | set(self.returned_log)
        for p in sorted(players, key=lambda q: self.order.index(q) if q in self.order else 99):
            want, got = due.get(p, 0), self.returned_log.get(p, 0)
            if want != got:
                if want and not got:
                    msg = f"{p}'s uncalled bet of {want} should have been returned to {p}, but stayed in the pot."
                elif got and not want:
                    msg = f"{got} was returned to {p}, but {p} had no uncalled bet."
                else:
                    msg = f"{got} was returned to {p}; the uncalled part of the bet was {want}."
                self.add(Rule.UNCALLED_BET, line, msg, player=p, expected=want, actual=got,
                         street="summary")

    def pot_winners(self, pot: Pot, showdown_players: list[str], parole: bool) -> list[str]:
        if parole:
            return list(pot.eligible)
        eligible = [p for p in pot.eligible if p in showdown_players]
        if len(pot.eligible) == 1:
            return list(pot.eligible)
        if not eligible:
            return []
        best: tuple[int, ...] | None = None
        winners: list[str] = []
        for p in eligible:
            cards = self.cards.get(p)
            if cards is None or len(cards) != 5 or len(set(cards)) != 5:
                continue
            try:
                s = self.ranking.strength(cards)
            except ValueError:
                continue
            if best is None or s > best:
                best, winners = s, [p]
            elif s == best:
                winners.append(p)
        return winners

    def check_awards(self, results: list[PotResult], parole: bool) -> None:
        """Compare what each pot paid in the log with what it should have paid."""
        if parole and results:
            self.check_parole_split(results)
            return
        split_line: Collect | None = None
        for c in self.collected:
            if c.pot == "parole":
                split_line = c
                break
        if split_line is not None and self.parole_state != "not-allowed":  # (no parole in the game: flagged once)
            c = split_line
            self.add(Rule.PAROLE, c.line, f"The pot was paid as a parole split ({c.player} collected {c.amount}), "
                     "but no parole was accepted.", player=c.player, expected="from pot",
                     actual="from pot (parole)", street="summary")
        if not results:
            for c in self.collected:
                self.add(Rule.POT_AMOUNT, c.line, f"{c.player} collected {c.amount}, but there was no pot to win.",
                         player=c.player, expected=0, actual=c.amount, street="summary")
            return
        if not self.collected and sum(r["amount"] for r in results) > 0:
            first = results[0]
            self.add(Rule.POT_AMOUNT, self.hand.end_line,
                     f"Nobody collected the {sum(r['amount'] for r in results)} chips in the pot: the hand ends "
                     "before it was settled (is the log cut off?).",
                     player=(first["winners"] or [None])[0], expected=sum(r["amount"] for r in results),
                     actual=0, street="summary")
            return
        by_name = {r["name"]: r for r in results}
        for c in self.collected:
            name = c.pot
            if name == "parole":
                name = "pot"
            if name == "side" and "side-1" in by_name and len(results) == 2:
                name = "side-1"
            if name == "pot" and "pot" not in by_name and "main" in by_name:
                name = "main"
            if name == "main" and "main" not in by_name and "pot" in by_name:
                name = "pot"
            target = by_name.get(name) if name else None
            if target is None:
                self.add(Rule.POT_AMOUNT, c.line, f"{c.player} collected {c.amount} from a {c.pot.replace('-', ' ')}"
                         " that does not exist.", player=c.player, actual=c.amount, street="summary")
                continue
            target["collected"][c.player] = target["collected"].get(c.player, 0) + c.amount
            lines = target.get("lines")
            if lines is None:
                lines = target["lines"] = {}
            lines[c.player] = c.line
        if self.rules.rake_allowed:
            self.take_rake(results)
        for r in results:
            self.judge_pot(r)

    def check_parole_split(self, results: list[PotResult]) -> None:
        """After an accepted parole every pot is split among its eligible players (odd chips from the button's
        left): each player's collected total must match his shares."""
        want: dict[str, int] = {}
        for r in results:
            for q, amt in r["awards"].items():
                want[q] = want.get(q, 0) + amt
        got: dict[str, int] = {}
        lines: dict[str, int] = {}
        for c in self.collected:
            got[c.player] = got.get(c.player, 0) + c.amount
            lines.setdefault(c.player, c.line)
        line = min(lines.values()) if lines else self.hand.end_line
        self.attribute_parole_collects(results, got)
        shares = "; ".join(f"{r['amount']} among {', '.join(r['eligible'])}" for r in results)
        for q in [x for x in self.order if x in want or x in got]:
            if got.get(q, 0) != want.get(q, 0):
                self.add(Rule.PAROLE, lines.get(q, line),
                         f"After the parole {q} should have received {want.get(q, 0)}, not {got.get(q, 0)} (every "
                         f"pot is split among its players, odd chips from the button's left: {shares}).",
                         player=q, expected=want.get(q, 0), actual=got.get(q, 0), street="summary")

    @staticmethod
    def attribute_parole_collects(results: list[PotResult], got: dict[str, int]) -> None:
        """The log says only what each player took from the split: put it against the pots he shares, up to his
        share of each (any excess against the first), so each pot shows what was collected from it."""
        left = dict(got)
        for r in results:
            awards: dict[str, int] = r["awards"]
            for q in r["eligible"]:
                take = min(left.get(q, 0), awards.get(q, 0))
                if take > 0:
                    r["collected"][q] = take
                    left[q] -= take
        for q, extra in left.items():
            if extra > 0:
                home = next((r for r in results if q in r["eligible"]), results[0])
                home["collected"][q] = home["collected"].get(q, 0) + extra

    def take_rake(self, results: list[PotResult]) -> None:
        """Where the house may rake, what a pot paid short of its amount is its rake: the winners share the
        rest. Whether the rakes add up to the summary's rake is the conservation check's business."""
        order = odd_chip_order(self.order, self.button_index)
        for r in results:
            taken = r["amount"] - sum(r["collected"].values())
            if 0 < taken <= r["amount"]:
                r["rake"] = taken
                if r["winners"]:
                    r["awards"] = split(r["amount"] - taken, r["winners"], order)

    def judge_pot(self, r: PotResult) -> None:
        name = "the pot" if r["name"] == "pot" else ("the main pot" if r["name"] == "main"
                                                     else f"side pot {r['name'][5:]}")
        got: dict[str, int] = r["collected"]
        awards: dict[str, int] = r["awards"]
        lines: dict[str, int] = r.get("lines", {})
        line = self.hand.end_line
        first = True
        for at in lines.values():
            if first or at < line:
                line = at
                first = False
        total = 0
        for amount in got.values():
            total += amount
        payable = r["amount"] - r.get("rake", 0)
        paid_wrong = [p for p in got if got[p] > 0 and p not in awards]
        if len(r["eligible"]) >= 2 and self.won_by_fold is None:
            self.check_winner_showed(r, name, lines, line, paid_wrong)
        if not r["winners"] and r["eligible"]:
            return  # cards unknown (site logs): nothing to judge
        for p in paid_wrong:
            winners = " and ".join(r["winners"]) or "nobody"
            self.add(Rule.POT_WINNER, lines.get(p, line),
                     f"{p} collected {got[p]} from {name}, but {p} did not win it: {winners} had the best hand"
                     f" among {', '.join(r['eligible'])}.", player=p, expected=winners, actual=p,
                     street="showdown")
        missing = [w for w in awards if awards[w] > 0 and got.get(w, 0) == 0]
        if paid_wrong:
            return
        for w in missing:
            if total != payable or len(awards) == 1:
                self.add(Rule.POT_WINNER if total == payable else Rule.POT_AMOUNT, line,
                         f"{w} won {name} ({awards[w]}) but collected nothing from it.", player=w,
                         expected=awards[w], actual=0, street="showdown")
        if total != payable:
            self.add(Rule.POT_AMOUNT, line,
                     f"{name[0].upper() + name[1:]} was {r['amount']}, but {total} was collected from it.",
                     player=None if len(got) != 1 else next(iter(got)), expected=r["amount"], actual=total,
                     street="showdown")
            return
        if missing:
            return
        diffs = {p: got.get(p, 0) - awards.get(p, 0) for p in awards}
        if any(diffs.values()):
            if len(awards) > 1 and all(abs(d) <= 1 for d in diffs.values()):
                wrong = [p for p, d in diffs.items() if d > 0]
                short = [p for p, d in diffs.items() if d < 0]
                self.add(Rule.ODD_CHIP, lines.get(wrong[0], line) if wrong else line,
                         f"The odd chip of {name} went to {', '.join(wrong)}; it belonged to {', '.join(short)}, "
                         "the first tied winner left of the button.", player=wrong[0] if wrong else None,
                         expected=", ".join(short), actual=", ".join(wrong), street="showdown")
            else:
                for p, d in diffs.items():
                    if d:
                        self.add(Rule.POT_AMOUNT, lines.get(p, line),
                                 f"{p} collected {got.get(p, 0)} from {name}; the share was {awards[p]}.",
                                 player=p, expected=awards[p], actual=got.get(p, 0), street="showdown")

    def check_winner_showed(self, r: PotResult, name: str, lines: dict[str, int], line: int,
                            paid_wrong: list[str]) -> None:
        """``POT_WINNER``: when two or more of a pot's players reach the show down, it goes only to a hand that
        was shown (a hand won because everyone else folded needs no show, nor a pot only one player could win)."""
        got: dict[str, int] = r["collected"]
        for p in got:
            if got[p] > 0 and p not in self.shown and p not in self.mucked and p not in paid_wrong:
                self.add(Rule.POT_WINNER, lines.get(p, line),
                         f"{p} collected {got[p]} from {name} but never showed a hand; at a show down a pot goes "
                         "only to a hand that is shown.", player=p, expected=f"{p} shows", actual="no show",
                         street="showdown")

    def check_conservation(self, total_in: int, collected: int, returned: int, rake: int) -> None:
        if collected + returned + rake != total_in:
            self.add(Rule.CHIPS_NOT_CONSERVED, self.hand.end_line,
                     f"{total_in} chips went in, but {collected} were collected, {returned} returned"
                     f"{f' and {rake} raked' if rake else ''}: {total_in - collected - returned - rake:+d} "
                     "unaccounted.", expected=total_in, actual=collected + returned + rake, street="summary")

    def check_show_order(self, live: list[str]) -> None:
        if not self.show_order or len(live) < 2 or self.parole_state == "accepted":
            return
        second = self.rounds.get("second")
        first_shower: str | None = None
        if second is not None and second.last_aggressor is not None:
            first_shower = second.last_aggressor
        elif self.rules.show_first_no_bet == "first-to-act" and second is not None and second.first_actor:
            first_shower = second.first_actor
        else:
            order = self.order
            n = len(order)
            start = self.button_index + 1
            for i in range(n):
                q = order[(start + i) % n]
                if q in live:
                    first_shower = q
                    break
        if first_shower is None or first_shower not in live:
            return
        if self.show_order[0] != first_shower and first_shower in self.shown:
            line = self.shown[self.show_order[0]].line
            self.add(Rule.SHOW_ORDER, line, f"{self.show_order[0]} showed first; {first_shower} should have shown "
                     "first.", player=self.show_order[0], expected=first_shower, actual=self.show_order[0],
                     street="showdown")

    def check_points(self, live: list[str]) -> None:
        best: tuple[int, ...] | None = None
        winners: list[str] = []
        for p in live:
            cards = self.cards.get(p)
            if not cards or len(cards) != 5:
                continue
            try:
                s = self.ranking.strength(cards)
            except ValueError:  # a card this deck does not have, or one twice: reported where it was dealt
                continue
            if best is None or s > best:
                best, winners = s, [p]
            elif s == best:
                winners.append(p)
        for p in winners:
            if self.scores.get(p, 0) != 1:
                self.add(Rule.POINTS, self.hand.end_line, f"{p} had the best hand and should score 1 point.",
                         player=p, expected=1, actual=self.scores.get(p, 0), street="showdown")
        for p, n in self.scores.items():
            if p not in winners:
                self.add(Rule.POINTS, self.hand.end_line, f"{p} scored {n} but did not have the best hand.",
                         player=p, expected=0, actual=n, street="showdown")


def blind_seats(ring: list[str]) -> dict[str, str]:
    """Three blinds' seats from the players dealt in, clockwise from the button's left: small, big, and the over
    blind with 4-5 players; heads-up the button (the ring's last) posts the small blind."""
    if len(ring) == 2:
        return {"small": ring[1], "big": ring[0]}
    kinds = ("small", "big", "over") if len(ring) >= 4 else ("small", "big")
    return {k: ring[i] for i, k in enumerate(kinds) if i < len(ring)}


def ring_from_button(players: list[str], seat_of: dict[str, int], button: int) -> list[str]:
    """``players`` (in seat order) clockwise from the button's left; a dead button counts from the last seat
    before it."""
    if not players:
        return []
    at = max((i for i, p in enumerate(players) if seat_of[p] <= button), default=len(players) - 1)
    return players[at + 1:] + players[:at + 1]


BLIND_ORDER = {"small": 1, "big": 2, "over": 3}
def blind_levels(posts: list[Post]) -> dict[str, int]:
    """Three blinds' sizes from the posts: the small blind sets the scale (big = 2 × small, over = 2 × big);
    without a full small blind, the big or the over blind does."""
    scale = 0
    for kind, factor in (("small", 1), ("big", 2), ("over", 4)):
        full = [x.amount for x in posts if x.kind == kind and not x.all_in and x.amount % factor == 0]
        if full:
            scale = full[0] // factor
            break
    if not scale:
        sizes = [x.amount // f for x in posts for k, f in (("small", 1), ("big", 2), ("over", 4))
                 if x.kind == k and x.amount // f > 0]
        scale = max(sizes, default=1)
    return {"small": scale, "big": 2 * scale, "over": 4 * scale}


def _describe_item(item: Any) -> str:
    """A short plain-words line for ``explain`` steps."""
    t = type(item)
    if t is Action:
        if item.kind in ("fold", "check"):
            return f"{item.player} {item.kind}s"
        if item.kind == "raise":
            return f"{item.player} raises to {item.to}" + (" (all-in)" if item.all_in else "")
        return f"{item.player} {item.kind}s {item.amount}" + (" (all-in)" if item.all_in else "")
    if t is Post:
        return f"{item.player} posts {item.kind} {item.amount}"
    if t is Marker:
        return str(STREET_NAMES.get(item.street, item.street)).capitalize()
    if t is Dealt:
        return f"{item.player} receives {' '.join(c for g in item.groups for c in g)}"
    if t is Discard:
        return f"{item.player} discards {item.count}"
    if t is StandPat:
        return f"{item.player} stands pat"
    if t is Show:
        return f"{item.player} shows {' '.join(item.cards)}"
    if t is Muck:
        return f"{item.player} mucks"
    if t is Collect:
        return f"{item.player} collects {item.amount} from {item.pot}"
    if t is Uncalled:
        return f"{item.amount} returned to {item.player} (uncalled)"
    if t is Parole:
        return f"{item.player} {item.kind}s parole"
    if t is Score:
        return f"{item.player} scores {item.points}"
    if t is NoPlay:
        return f"{item.player} does not play"
    return t.__name__


def replay(hand: Hand, profile: Profile, session: str | None = None, steps: bool = False) -> HandResult:
    """Replay one hand under ``profile``; ``steps=True`` also records every step for ``explain``."""
    return Replay(hand, profile, session, steps).run()
