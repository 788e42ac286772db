"""Seeded random *legal* play, written in the house format: a corpus for property tests and benchmarks.

``simulate_sessions("home-open", sessions=5, seed=1)`` returns the text of five whole sessions (preamble, hands,
``*** SESSION END ***`` standings) that the audit must find clean; the same seed always gives the same bytes.
``iter_simulated`` yields the sessions one at a time (with play statistics) for corpora too big to hold.

The simulator is an independent implementation of the rules in ``shared/spec/RULES.md`` -- its own betting state,
pots, odd chips, show order and reshuffle -- so that a disagreement with the replay engine points at a bug in
one of the two. It shares only the hand evaluator (``audit.cards``) and the profile loader with the engine.

Every parameter comes from the :class:`~audit.profile.Profile` (never its name): ante, three blinds (small, big,
over with 4-5 players; heads-up the button posts the small one), starting chips, min bet, bet unit, no-, pot- or
fixed-limit betting (bet sizes, the cap with the largest blind as the first bet, the half-bet all-in rule), the
deck (52, 32, joker), draw limit (``3+ace`` too), where each round starts (button, last blind, opener), redeals
(nobody dealt jacks or better to open, whatever the second round's start; or everyone checked under
``all-check = redeal``: the pot is carried, everyone antes again, the button stays, the hand does not count),
openers, the time limit and raise time limit (think times within them, ``(timed out)`` checks, folds and stands
pat), parole (offered by the second round's first actor, answered in turn by everyone still in even after an
acceptance, every pot split), short forced bets (blinds and antes posted short all-in; the others call the full
blind, the small blind completes), points mode, the reshuffle kind, the ranking and suit tie-break, the show
order without a bet and the session length. What it does not play (two blinds, betting or ante from the log,
big-blind bet sizes) is refused with a :class:`~audit.errors.ProfileError`. Nobody sits out, so missed blinds
never arise: a player who busts leaves the table.

Play is deliberately aggressive and varied: many all-ins (full and short), min raises, multiway pots, side pots,
uncalled bets, draws of 0 to 5 with reshuffles, and -- through a stacked deck -- a share of tied hands that split
pots with odd chips.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from audit.cards import FLUSH, FULL_HOUSE, JOKER, RANKS, STRAIGHT, SUITS, Ranking, make_deck
from audit.errors import ProfileError
from audit.profile import Profile, load_profile

__all__ = [
    "SimulatedSession",
    "Simulator",
    "iter_sessions",
    "iter_simulated",
    "simulate_hands",
    "simulate_sessions",
    "supported_problems",
]

NAMES: tuple[str, ...] = (
    "Ana", "Beto", "Carla", "Dario", "Eva", "Fede", "Gus", "Hilda", "Iñaki", "José", "Lupe", "Mari-Carmen",
    "O'Neil", "Paz", "Quique", "Rocío", "Sol", "Tere", "Tomás_2", "Uxue", "Vero", "Wil", "Xavi", "Yoli", "Zoë",
    "J.R.", "Łukasz", "Маша", "美咲", "Fermín", "Elena", "Nacho",
)
"""Player names the simulator seats (letters of any script, digits, ``_ - . '``)."""

TABLES: tuple[str, ...] = ("Casa Pepe", "La Peña", "Mesa 3", "El Rincón", "Bar Sur")
"""Table names."""

CHAT: tuple[str, ...] = ("nh", "ay ay ay", "vaya mano", "gl", "otra ronda?", "ty")

DECK_LINE_RATE = 0.3
"""Share of hands that print the ``Deck:`` line."""
TIMEOUT_RATE = 0.03
"""With a time limit: share of actions and draws where the clock runs out and the house acts."""
SHORT_STACK_RATE = 0.5
"""With starting chips ``any``: share of sessions where one or two players sit down with a stack shorter than the
forced bets (they post blinds and antes short all-in)."""
COMPLETE_RATE = 0.3
"""Share of players left facing only short all-ins they have matched who complete the full blind anyway."""
PAROLE_RATE = 0.2
"""With parole: share of second rounds where the first to act offers it."""
ACCEPT_RATE = 0.3
"""Share of parole answers that accept."""
TIE_RATE = 0.12
"""Share of hands dealt from a stacked deck that gives two or three players equal pat hands."""
CHAOS_RATE = 0.12
"""Share of draws that throw a random number of cards (0 to the limit), whatever the hand."""
FRENZY_RATE = 0.35
"""Share of full-table hands (six players or more) where everyone stays in and draws deep: reshuffles."""


@dataclass(frozen=True, slots=True)
class _Style:
    """How one player plays this session."""

    aggression: float  # how often he bets and raises
    looseness: float  # how often he calls
    shove: float  # how much he likes all-in sizes


@dataclass(slots=True)
class _Round:
    """One betting round: the same notions as RULES.md (full increment, re-opening per player)."""

    full: int
    bets: dict[str, int] = field(default_factory=dict)
    current: int = 0
    acted: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)
    last_aggressor: str | None = None
    first_actor: str | None = None
    opener: str | None = None
    fixed: bool = False  # fixed limit: ``full`` is the round's bet size
    full_to: int = 0  # fixed limit: the level of the last bet that counts as full (a blind counts)
    counted: int = 0  # fixed limit: bets and raises toward the cap (the largest blind is the first)
    began_with: int = 0  # players able to bet when the round began (a cap 'none heads-up' counts them)
    nobody_to_act: bool = False  # the forced bets left at most one player able to bet: nobody acts, nobody checks

    def to_call(self, p: str) -> int:
        return max(0, self.current - self.bets.get(p, 0))

    def may_raise(self, p: str) -> bool:
        """Open for ``p``: he has not acted, or the bet rose by at least a full increment since his last chips
        (fixed limit: a full bet, or an all-in of at least half a bet, since he acted -- TDA 47-B)."""
        if p not in self.acted:
            return True
        if self.fixed:
            return self.full_to > self.bets.get(p, 0)
        return self.current - self.bets.get(p, 0) >= self.full


@dataclass(frozen=True, slots=True)
class SimulatedSession:
    """One simulated session: its name, its text (house format, ending in a newline), hands, play statistics."""

    name: str
    text: str
    hands: int
    stats: Counter[str]


def supported_problems(profile: Profile) -> list[str]:
    """What in ``profile`` the simulator cannot play yet (empty: it can)."""
    out: list[str] = []
    if profile.blinds not in ("none", "three"):
        out.append(f"blinds = {profile.blinds}")
    if profile.blinds == "three" and profile.min_bet_rule not in ("blinds", "int"):
        out.append(f"min-bet = {profile.param('min-bet')} with blinds")
    if profile.blinds == "none" and profile.min_bet_rule in ("blinds", "big-blind"):
        out.append(f"min-bet = {profile.min_bet_rule} without blinds")
    if profile.betting not in ("no-limit", "pot-limit", "fixed-limit"):
        out.append(f"betting = {profile.betting}")
    if profile.betting == "fixed-limit" and profile.bet_sizes != "min-bet":
        out.append(f"bet-sizes = {profile.bet_sizes}")
    if profile.ante is None:
        out.append("ante = log")
    if profile.reshuffle not in ("merge-stub", "stub-first"):
        out.append(f"reshuffle = {profile.reshuffle}")
    if profile.first_round_starts == "left-of-last-blind" and profile.blinds == "none":
        out.append("first-round-starts = left-of-last-blind without blinds")
    if profile.second_round_starts == "left-of-last-blind" and profile.blinds == "none":
        out.append("second-round-starts = left-of-last-blind without blinds")
    return out


def _roundup(value: int, unit: int) -> int:
    return -(-value // unit) * unit


class _Hand:
    """One hand being played: the table state, the lines written so far, the statistics."""

    def __init__(self, sim: Simulator, seats: list[tuple[int, str]], stacks: dict[str, int], button_seat: int,
                 hand_id: str, when: datetime, table: str, carried: int = 0, small_blind: int = 1) -> None:
        self.sim = sim
        self.prof = sim.profile
        self.rng = sim.rng
        self.ranking = sim.ranking
        self.stats = sim.stats
        self.seats = seats
        self.order = [name for _, name in seats]  # seat order
        self.seat_of = {name: seat for seat, name in seats}
        self.start = {p: stacks[p] for p in self.order}
        self.stack = dict(self.start)
        self.button_seat = button_seat
        # a dead button (its player left after a redeal): count from the last seat before it
        self.button_index = max((i for i, (seat, _) in enumerate(seats) if seat <= button_seat),
                                default=len(seats) - 1)
        self.hand_id = hand_id
        self.when = when
        self.table = table
        self.lines: list[str] = []
        self.folded: set[str] = set()
        self.all_in: set[str] = set()
        self.contrib = {p: 0 for p in self.order}
        self.returned = {p: 0 for p in self.order}
        self.cards: dict[str, list[str]] = {}
        self.stub: list[str] = []
        self.pool: list[str] = []  # cards that may go back in a reshuffle: earlier discards, folded hands
        self.rounds: dict[str, _Round] = {}
        self.carried = carried  # a redealt hand's pot, dead money in the main pot
        self.points = self.prof.points_mode
        self.blind_levels = {"small": small_blind, "big": 2 * small_blind, "over": 4 * small_blind}
        self.blind_bets: dict[str, int] = {}  # live blinds: each poster's first-round bet
        self.blind_full = 0  # the largest blind's full size: the bet to call, even if it was posted short
        self.last_blind: str | None = None
        if self.prof.blinds == "three" and self.prof.min_bet_rule == "blinds":
            self.min_bet = self.blind_levels["over" if len(seats) >= 4 else "big"]
        else:
            self.min_bet = self.prof.min_bet_value
        self.unit = max(1, self.prof.bet_unit)
        self.fixed = self.prof.betting == "fixed-limit"
        self.redeal = False
        self.paroled = False
        self.scores: list[str] = []
        self.winner_by_fold: str | None = None
        self.frenzy = len(seats) >= 6 and self.rng.random() < FRENZY_RATE

    # ------------------------------------------------------------------ helpers
    def left_of_button(self) -> list[str]:
        n = len(self.order)
        start = self.button_index + 1
        return [self.order[(start + i) % n] for i in range(n)]

    def clockwise_from(self, index: int) -> list[str]:
        n = len(self.order)
        return [self.order[(index + i) % n] for i in range(n)]

    def live(self) -> list[str]:
        return [p for p in self.order if p not in self.folded]

    def can_act(self, p: str) -> bool:
        return p not in self.folded and p not in self.all_in

    def pot_now(self) -> int:
        return self.carried + sum(self.contrib.values()) - sum(self.returned.values())

    def emit(self, line: str, took: bool = False, raising: bool = False) -> None:
        """One line; ``took``: it may carry a think time, within the time limit (and the raise time limit)."""
        if took and self.rng.random() < (0.15 if self.prof.time_limit or self.prof.raise_time_limit else 0.04):
            limits = [x for x in (self.prof.time_limit, self.prof.raise_time_limit if raising else None) if x]
            top = min(limits) if limits else 40
            secs = self.rng.choice([s for s in (1, 2, 3, 5, 8, 9, 12, 20, 25, 29, 40, 55) if s < top] or [1])
            line += f" (took {secs}s)" if self.rng.random() < 0.7 else f" (took {secs}.5s)"
        self.lines.append(line)

    def timed_out(self) -> bool:
        return bool(self.prof.time_limit) and self.rng.random() < TIMEOUT_RATE

    def put_in(self, p: str, amount: int) -> str:
        """Chips from ``p``'s stack to the pot; returns the all-in suffix when the stack is empty."""
        assert 0 <= amount <= self.stack[p], (p, amount, self.stack[p])
        self.stack[p] -= amount
        self.contrib[p] += amount
        if self.stack[p] == 0:
            self.all_in.add(p)
            return " and is all-in"
        return ""

    def value(self, p: str) -> float:
        """A rough 0..1 worth of ``p``'s hand, for the playing style."""
        strength = self.ranking.strength(self.cards[p])
        cats = self.ranking.categories
        cat = cats[strength[0]]
        top = strength[1] if len(strength) > 1 else 14
        base = {"high card": 0.05, "pair": 0.3, "two pair": 0.55, "three of a kind": 0.7, STRAIGHT: 0.8,
                FLUSH: 0.85, FULL_HOUSE: 0.92}.get(cat, 1.0)
        if cat == "high card":
            base += (top - 9) / 40
        elif cat == "pair":
            base += (top - 2) / 60
        return base

    # ------------------------------------------------------------------ the hand
    def play(self) -> list[str]:
        prof = self.prof
        self.emit(f"Hand #{self.hand_id} - {self.when:%Y/%m/%d %H:%M:%S}")
        self.emit(f"Table '{self.table}' Seat #{self.button_seat} is the button")
        for seat, p in self.seats:
            if self.points:
                n = self.start[p]
                self.emit(f"Seat {seat}: {p} ({n} point{'' if n == 1 else 's'})")
            else:
                self.emit(f"Seat {seat}: {p} ({self.start[p]} in chips)")
        if self.points:
            # no-bet mode: no forced bets, no betting rounds; every best hand scores a point
            self.deal()
            self.emit("*** DRAW ***")
            self.draw()
            self.showdown_points()
            self.stats["hands"] += 1
            return self.lines
        if self.carried:
            self.emit(f"Pot carried over: {self.carried}")
        ante = prof.ante or 0
        if ante:
            for p in self.order:
                amount = min(ante, self.stack[p])
                suffix = self.put_in(p, amount)
                self.emit(f"{p}: posts the ante {amount}{suffix}")
                if suffix:
                    self.stats["ante_all_in"] += 1
                    if amount < ante:
                        self.stats["short_ante"] += 1
        if prof.blinds == "three":
            self.post_blinds()
        self.deal()
        self.betting("first")
        first = self.rounds["first"]
        all_checked = first.current == 0 and not self.folded and not first.nobody_to_act  # (someone could act)
        # jacks or better to open: nobody dealt openers means a redeal whatever the second round's start; when
        # someone held them and everyone checked, the all-check rule decides, as without openers
        nobody_could_open = prof.openers_jacks and not any(self.has_openers(p) for p in self.order)
        if nobody_could_open or (prof.all_check_redeal and all_checked):
            # the pot stays for the next deal, everyone antes again, the button stays
            self.emit("*** REDEAL ***")
            self.redeal = True
            self.stats["redeal"] += 1
            if nobody_could_open:
                self.stats["redeal_no_openers"] += 1
            return self.lines
        if prof.openers_jacks and all_checked:
            self.stats["openers_held_all_checked"] += 1
        if self.winner_by_fold is None:
            self.emit("*** DRAW ***")
            self.draw()
            self.betting("second")
        if self.paroled:
            pass
        elif self.winner_by_fold is not None:
            self.award_by_fold()
        else:
            self.showdown()
        self.emit("*** SUMMARY ***")
        self.emit(f"Total pot {self.pot_now()} | Rake 0")
        self.stats["hands"] += 1
        return self.lines

    def post_blinds(self) -> None:
        """``blinds = three``: small, big, and the over blind with 4-5 players, clockwise from the button's left;
        heads-up the button posts the small blind. A short stack posts what it has, all-in."""
        ring = self.left_of_button()
        if len(ring) == 2:
            kinds = [("small", ring[1]), ("big", ring[0])]
        else:
            kinds = [("small", ring[0]), ("big", ring[1])] + ([("over", ring[2])] if len(ring) >= 4 else [])
        for kind, p in kinds:
            amount = min(self.blind_levels[kind], self.stack[p])
            suffix = self.put_in(p, amount)
            self.blind_bets[p] = amount
            self.blind_full = max(self.blind_full, self.blind_levels[kind])
            self.emit(f"{p}: posts {kind} blind {amount}{suffix}")
            if suffix:
                self.stats["blind_all_in"] += 1
                if amount < self.blind_levels[kind]:
                    self.stats[f"short_{kind}_blind"] += 1
        self.last_blind = kinds[-1][1]
        self.stats[f"blinds_{len(kinds)}"] += 1

    def deal(self) -> None:
        self.emit("*** DEALING HANDS ***")
        deal_order = self.left_of_button()
        n = len(deal_order)
        deck = list(make_deck(self.prof.deck_size, self.prof.joker))
        self.rng.shuffle(deck)
        if self.rng.random() < TIE_RATE:
            deck = self.stacked_deck(deck, n)
        if self.rng.random() < DECK_LINE_RATE:
            self.emit(f"Deck: [{' '.join(deck)}]")
            self.stats["deck_lines"] += 1
        for i, p in enumerate(deal_order):
            self.cards[p] = [deck[i + k * n] for k in range(5)]
        self.stub = deck[5 * n:]
        for p in deal_order:
            self.emit(f"Dealt to {p} [{' '.join(self.cards[p])}]")

    def stacked_deck(self, deck: list[str], n: int) -> list[str]:
        """The deck rearranged so that two or three players are dealt equal straights or flushes (pat hands)."""
        rng = self.rng
        k = 3 if n >= 3 and rng.random() < 0.3 else 2
        k = min(k, n)
        ranks = [r for r in RANKS if any(r + s in deck for s in SUITS)]
        hands: list[list[str]] | None = None
        for _ in range(20):
            candidate: list[list[str]] = [[] for _ in range(k)]
            if rng.random() < 0.75:
                # equal straights: the same five consecutive ranks, suits spread so that none is a flush
                top = rng.randrange(4, len(ranks))
                for r in ranks[top - 4:top + 1]:
                    suits = rng.sample(SUITS, k)
                    for j in range(k):
                        candidate[j].append(r + suits[j])
            else:
                # equal flushes: the same five ranks in k suits
                chosen = rng.sample(ranks, 5)
                candidate = [[r + s for r in chosen] for s in rng.sample(SUITS, k)]
            if all(len(h) == 5 and all(c in deck for c in h) for h in candidate) \
                    and len({self.ranking.strength(h) for h in candidate}) == 1 \
                    and self.ranking.category(candidate[0]) in (STRAIGHT, FLUSH):
                hands = candidate
                break
        if hands is None:
            return deck
        who = rng.sample(range(n), k)
        slots: dict[int, str] = {}
        for j, pos in enumerate(who):
            cards = hands[j][:]
            rng.shuffle(cards)
            for m, card in enumerate(cards):
                slots[pos + m * n] = card
        taken = set(slots.values())
        rest = [c for c in deck if c not in taken]
        out: list[str] = []
        it = iter(rest)
        for i in range(len(deck)):
            out.append(slots[i] if i in slots else next(it))
        self.stats["stacked_deck"] += 1
        return out

    # ------------------------------------------------------------------ betting
    def round_start(self, street: str) -> int:
        rule = self.prof.first_round_starts if street == "first" else self.prof.second_round_starts
        if rule == "left-of-last-blind" and self.last_blind is not None:
            return self.order.index(self.last_blind) + 1
        if rule == "opener":
            first = self.rounds.get("first")
            if first is not None and first.opener is not None:
                return self.order.index(first.opener)
        return self.button_index + 1

    def betting(self, street: str) -> None:
        self.emit("*** FIRST BETTING ROUND ***" if street == "first" else "*** SECOND BETTING ROUND ***")
        size = self.min_bet if street == "first" or not self.fixed else 2 * self.min_bet
        rnd = _Round(full=size, fixed=self.fixed)
        if street == "first" and self.blind_bets:
            rnd.bets = dict(self.blind_bets)
            # a blind posted short all-in does not lower the bet: the others call the full blind
            rnd.current = rnd.full_to = self.blind_full
            rnd.counted = 1 if rnd.current > 0 else 0
        self.rounds[street] = rnd
        able = [p for p in self.order if self.can_act(p)]
        if len(able) <= 1 and (all(rnd.to_call(p) == 0 for p in able) or self.only_all_ins_left(rnd, able)):
            rnd.nobody_to_act = True
            self.maybe_complete(rnd, able)
            self.settle_uncalled(rnd)
            return
        rnd.pending = set(able)
        rnd.began_with = len(able)
        actor: str | None = next(p for p in self.clockwise_from(self.round_start(street)) if p in rnd.pending)
        if street == "second" and self.prof.parole and len(able) >= 2 and self.rng.random() < PAROLE_RATE:
            if actor is not None and self.parole(actor):
                return
        while actor is not None:
            self.act(actor, rnd)
            if rnd.first_actor is None:
                rnd.first_actor = actor
            live = self.live()
            if len(live) == 1:
                self.winner_by_fold = live[0]
                rnd.pending.clear()
            else:
                able = [q for q in live if q not in self.all_in]
                if len(able) <= 1 and (all(rnd.to_call(q) == 0 for q in able) or self.only_all_ins_left(rnd, able)):
                    rnd.pending.clear()
                    self.maybe_complete(rnd, able)
            idx = self.order.index(actor)
            actor = next((q for q in self.clockwise_from(idx + 1) if q in rnd.pending), None)
        self.settle_uncalled(rnd)

    def only_all_ins_left(self, rnd: _Round, able: list[str]) -> bool:
        """The one player able to act has matched every all-in player still in: nothing he adds can be called
        (after a blind posted short all-in he may still face the full blind)."""
        if len(able) != 1:
            return not able
        mine = rnd.bets.get(able[0], 0)
        return all(rnd.bets.get(q, 0) <= mine for q in self.live())

    def maybe_complete(self, rnd: _Round, able: list[str]) -> None:
        """Facing only all-ins he has matched, a player owes nothing more; now and then he completes the full
        blind anyway, and the chips come back as an uncalled bet."""
        if len(able) != 1 or self.winner_by_fold is not None:
            return
        p = able[0]
        owed = min(rnd.to_call(p), self.stack[p])
        if owed > 0 and p not in rnd.acted and self.rng.random() < COMPLETE_RATE:
            suffix = self.put_in(p, owed)
            rnd.bets[p] = rnd.bets.get(p, 0) + owed
            rnd.acted.add(p)
            self.emit(f"{p}: calls {owed}{suffix}", took=True)
            self.stats["completed_short_blind"] += 1

    def parole(self, offerer: str) -> bool:
        """``parole = yes``: the second round's first actor offers before chips go in; every other player still in
        answers once, in turn, even after an acceptance. Accepted by one: every pot is split among its players and
        the hand ends (True)."""
        rng = self.rng
        self.emit(f"{offerer}: offers parole", took=True)
        self.stats["parole_offered"] += 1
        ring = self.clockwise_from(self.order.index(offerer) + 1)
        accepted = False
        for q in [q for q in ring if q != offerer and q not in self.folded]:
            if accepted:
                self.stats["parole_answer_after_accept"] += 1
            if rng.random() < ACCEPT_RATE:
                self.emit(f"{q}: accepts parole", took=True)
                accepted = True
            else:
                self.emit(f"{q}: declines parole", took=True)
        if accepted:
            self.split_by_parole()
            return True
        self.stats["parole_declined"] += 1
        return False

    def split_by_parole(self) -> None:
        got = {p: 0 for p in self.order}
        odd_order = self.left_of_button()
        for amount, eligible in self.pots():
            ranked = [p for p in odd_order if p in eligible]
            share, odd = divmod(amount, len(ranked))
            for j, p in enumerate(ranked):
                got[p] += share + (1 if j < odd else 0)
            if odd:
                self.stats["parole_odd_chips"] += 1
        for p in odd_order:
            if got[p]:
                self.stack[p] += got[p]
                self.emit(f"{p} collected {got[p]} from pot (parole)")
        self.paroled = True
        self.stats["parole_accepted"] += 1

    def settle_uncalled(self, rnd: _Round) -> None:
        ranked = sorted(rnd.bets.items(), key=lambda kv: -kv[1])
        if not ranked:
            return
        top, first = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0
        if first > second:
            excess = first - second
            rnd.bets[top] = second
            self.returned[top] += excess
            self.stack[top] += excess
            self.emit(f"Uncalled bet ({excess}) returned to {top}")
            self.stats["uncalled"] += 1

    def max_to(self, p: str, rnd: _Round) -> int:
        """The most ``p`` may make his bet this round (his stack; under pot limit also the pot)."""
        total = rnd.bets.get(p, 0) + self.stack[p]
        if self.prof.betting == "pot-limit":
            return min(total, rnd.current + self.pot_now() + rnd.to_call(p))
        return total

    def all_in_match(self, p: str, rnd: _Round) -> int:
        """When everyone else still in is all-in below the bet (after a short all-in blind): what ``p`` adds to
        match the largest of them; else 0."""
        others = [q for q in self.live() if q != p]
        if not others or any(q not in self.all_in for q in others):
            return 0
        top = max(rnd.bets.get(q, 0) for q in others)
        return top - rnd.bets.get(p, 0) if top < rnd.current else 0

    def act(self, p: str, rnd: _Round) -> None:
        late = ""
        if self.timed_out():
            # the clock ran out: the house folds him facing a bet, else checks (TDA 29)
            kind, to = ("fold" if rnd.to_call(p) > 0 else "check"), 0
            late = " (timed out)"
            self.stats["timed_out"] += 1
        else:
            kind, to = self.decide(p, rnd)
        before = rnd.bets.get(p, 0)
        if kind == "fold":
            self.folded.add(p)
            self.pool.extend(self.cards[p])
            rnd.pending.discard(p)
            rnd.acted.add(p)
            self.emit(f"{p}: folds{late}", took=not late)
            return
        if kind == "check":
            rnd.pending.discard(p)
            rnd.acted.add(p)
            self.emit(f"{p}: checks{late}", took=not late)
            return
        if kind == "call":
            amount = min(rnd.to_call(p), self.stack[p])
            match = self.all_in_match(p, rnd)
            if 0 < match < amount and self.rng.random() < 0.5:
                amount = match  # just what the all-ins can win: the rest of the full blind would come back
                self.stats["call_matching_all_ins"] += 1
            suffix = self.put_in(p, amount)
            rnd.bets[p] = before + amount
            rnd.pending.discard(p)
            rnd.acted.add(p)
            if suffix and rnd.bets[p] < rnd.current:
                self.stats["short_call_all_in"] += 1
            self.emit(f"{p}: calls {amount}{suffix}", took=True)
            return
        # a bet or a raise to ``to``
        faced = rnd.current
        least = faced + rnd.full
        reopened_for_acted = p in rnd.acted
        increment = to - faced
        suffix = self.put_in(p, to - before)
        rnd.bets[p] = to
        rnd.current = to
        if rnd.fixed:
            full = 2 * increment >= rnd.full  # an all-in of at least half a bet counts as a full one
            if full:
                rnd.full_to = to
                rnd.counted += 1
                if increment < rnd.full:
                    self.stats["half_bet_all_in"] += 1
                if rnd.counted == self.prof.raise_cap:
                    self.stats["capped"] += 1
                    if rnd.began_with > 2 and sum(1 for q in self.order if self.can_act(q)) <= 2:
                        self.stats["capped_after_folds"] += 1
                elif self.prof.raise_cap is not None and rnd.counted > self.prof.raise_cap:
                    self.stats["past_cap_heads_up"] += 1
        else:
            full = increment >= rnd.full
            if full:
                rnd.full = increment
        if not full and suffix:
            self.stats["short_all_in"] += 1
        if suffix:
            self.stats["all_in"] += 1
        if reopened_for_acted:
            self.stats["raise_after_acting"] += 1
        if kind == "bet":
            rnd.opener = rnd.opener or p
            self.emit(f"{p}: bets {to}{suffix}", took=True, raising=True)
        else:
            if to == least and not suffix:
                self.stats["min_raise"] += 1
            self.emit(f"{p}: raises {increment} to {to}{suffix}", took=True, raising=True)
        rnd.acted.add(p)
        rnd.last_aggressor = p
        rnd.pending = {q for q in self.order if q != p and self.can_act(q) and rnd.to_call(q) > 0}

    def decide(self, p: str, rnd: _Round) -> tuple[str, int]:
        """A legal action for ``p`` now: (kind, raise-to or bet total)."""
        rng = self.rng
        style = self.sim.styles[p]
        v = self.value(p)
        owed = rnd.to_call(p)
        stack = self.stack[p]
        if owed == 0:
            if rnd.current == 0 and self.prof.openers_jacks and "second" not in self.rounds:
                # jacks or better to open: who has them opens most of the time, nobody else may
                if self.has_openers(p) and rng.random() < 0.8:
                    to = self.size(p, rnd, v, style)
                    if to is not None:
                        return "bet", to
                return "check", 0
            if rnd.current == 0 and (rng.random() < style.aggression * (0.25 + v) or rng.random() < 0.06):
                to = self.size(p, rnd, v, style)
                if to is not None:
                    return "bet", to
            if rnd.current > 0 and stack > 0 and self.may_raise(p, rnd) and rng.random() < style.aggression * v:
                to = self.size(p, rnd, v, style)
                if to is not None:
                    return "raise", to
            return "check", 0
        pot = self.pot_now()
        price = owed / (pot + owed)
        # a raise only when someone else could put in more than the bet (never a raise nobody can call)
        contested = any(q != p and self.can_act(q) and rnd.bets.get(q, 0) + self.stack[q] > rnd.current
                        for q in self.order)
        if contested and stack > owed and self.may_raise(p, rnd) and self.max_to(p, rnd) > rnd.current \
                and rng.random() < style.aggression * v * 1.1 + 0.04:
            to = self.size(p, rnd, v, style)
            if to is not None:
                return "raise", to
        share = owed / stack
        keep = 1.2 * v + style.looseness * 0.45 - price * 0.6 - share * 0.3 + rng.uniform(-0.25, 0.25)
        if self.frenzy and "second" not in self.rounds:
            keep += 0.5
        if keep > 0.3 or (owed <= 2 * self.min_bet and rng.random() < 0.6):
            return "call", 0
        return "fold", 0

    def has_openers(self, p: str) -> bool:
        """A pair of jacks or better (the joker plays as whatever helps)."""
        return self.ranking.jacks_or_better(self.ranking.strength(self.cards[p]))

    def may_raise(self, p: str, rnd: _Round) -> bool:
        """Re-opened for ``p``, and (fixed limit) the cap not reached."""
        if not rnd.may_raise(p):
            return False
        cap = self.prof.raise_cap
        # "none heads-up" (RULES.md, site logs): only a round that began with two players able to bet is uncapped;
        # one that began with more stays capped when folds leave two
        if rnd.fixed and cap is not None and (self.prof.raise_cap_heads_up or rnd.began_with > 2):
            return rnd.counted < cap
        return True

    def size(self, p: str, rnd: _Round, v: float, style: _Style) -> int | None:
        """A legal bet total or raise-to for ``p``: min, small, pot-sized or all-in (full or short)."""
        rng = self.rng
        before = rnd.bets.get(p, 0)
        most = self.max_to(p, rnd)
        everything = before + self.stack[p]
        if rnd.fixed:
            # one bet over the last full level (completing after a short all-in), or all he has
            to = min(rnd.full_to + rnd.full, everything)
            return to if to > rnd.current else None
        unit = self.unit
        if rnd.current == 0:
            least = self.min_bet
        else:
            least = rnd.current + _roundup(rnd.full, unit)
        if most < least:
            # short of a full raise: only all-in, when the stack (not a pot cap) is what limits it
            return everything if everything <= most else None
        pot = self.pot_now()
        weights = (
            ("min", 0.30),
            ("small", 0.25),
            ("pot", 0.20),
            ("all", 0.08 + 0.35 * style.shove * v + (0.35 if self.stack[p] < 12 * self.min_bet else 0.0)),
        )
        total_w = sum(w for _, w in weights)
        r = rng.random() * total_w
        choice = "min"
        for name, w in weights:
            if r < w:
                choice = name
                break
            r -= w
        if choice == "min":
            to = least
        elif choice == "small":
            to = rng.randint(least, max(least, least + pot // 2))
        elif choice == "pot":
            to = rnd.current + rnd.to_call(p) + pot + rng.randint(-pot // 4, pot // 4)
        else:
            to = most
        to = max(least, min(to, most))
        if to != everything:
            base = rnd.current
            to = base + max(_roundup(least - base, unit), (to - base) // unit * unit)
            if to > most:
                to = most
        if to >= everything:
            to = everything
        return to

    # ------------------------------------------------------------------ the draw
    def draw(self) -> None:
        for p in [q for q in self.left_of_button() if q not in self.folded]:
            if self.timed_out():
                self.emit(f"{p}: stands pat (timed out)")  # the clock ran out: the house stands pat for him
                self.stats["timed_out_draw"] += 1
                continue
            discards = self.choose_discards(p)
            k = len(discards)
            if k == 0:
                self.emit(f"{p}: stands pat", took=True)
                self.stats["stand_pat"] += 1
                continue
            if len(self.stub) < k:
                self.reshuffle()
            kept = [c for c in self.cards[p] if c not in discards]
            new = self.stub[:k]
            del self.stub[:k]
            self.emit(f"{p}: discards {k} card{'s' if k != 1 else ''} [{' '.join(discards)}]", took=True)
            if kept:
                self.emit(f"Dealt to {p} [{' '.join(kept)}] [{' '.join(new)}]")
            else:
                self.emit(f"Dealt to {p} [{' '.join(new)}]")
            self.cards[p] = kept + new
            self.pool.extend(discards)
            self.stats[f"draw_{k}"] += 1

    def reshuffle(self) -> None:
        """The stub is short for the next player: shuffle in the earlier discards and folded hands."""
        rng = self.rng
        pool = self.pool[:]
        rng.shuffle(pool)
        self.pool.clear()
        if self.prof.reshuffle == "stub-first":
            self.emit(f"Dealer: reshuffles [{' '.join(pool)}]")
            self.stub = self.stub + pool
        else:
            new = self.stub + pool
            rng.shuffle(new)
            self.emit(f"Dealer: reshuffles [{' '.join(new)}]")
            self.stub = new
        self.stats["reshuffle"] += 1

    def draw_limit(self, kept: Sequence[str]) -> int:
        prof = self.prof
        if prof.draw_limit_ace and any(c[0] == "A" or c == JOKER for c in kept):
            return prof.draw_limit + 1
        return prof.draw_limit

    def choose_discards(self, p: str) -> list[str]:
        """Which cards ``p`` throws: by the shape of his hand, sometimes at random; within the limits."""
        rng = self.rng
        hand = self.cards[p]
        room = len(self.stub) + len(self.pool)
        cat = self.ranking.category(hand)
        values = {c: (RANKS.index(c[0]) if c != JOKER else 99) for c in hand}
        counts = Counter(c[0] for c in hand if c != JOKER)
        if cat in (STRAIGHT, FLUSH, FULL_HOUSE, "straight flush", "five of a kind"):
            discards: list[str] = []
        elif self.frenzy:
            ordered = sorted(hand, key=values.__getitem__)
            discards = ordered if rng.random() < 0.5 else ordered[:4]
        elif rng.random() < CHAOS_RATE:
            k = rng.randint(0, 5)
            discards = rng.sample(hand, k)
        elif cat == "four of a kind":
            discards = [c for c in hand if counts.get(c[0], 0) == 1 and c != JOKER] if rng.random() < 0.5 else []
        elif cat == "three of a kind":
            singles = sorted((c for c in hand if counts.get(c[0], 0) == 1 and c != JOKER), key=values.__getitem__)
            discards = singles[:1] if rng.random() < 0.3 else singles
        elif cat == "two pair":
            discards = [c for c in hand if counts.get(c[0], 0) == 1 and c != JOKER]
        elif cat == "pair":
            singles = sorted((c for c in hand if counts.get(c[0], 0) == 1 and c != JOKER), key=values.__getitem__)
            discards = singles[:2] if singles and singles[-1][0] == "A" and rng.random() < 0.5 else singles
        else:
            suits = Counter(c[1] for c in hand if c != JOKER)
            suit, most = suits.most_common(1)[0]
            ordered = sorted(hand, key=values.__getitem__)
            r = rng.random()
            if most == 4 and r < 0.8:
                discards = [c for c in hand if c[1] != suit and c != JOKER]
            elif r < 0.25:
                discards = list(hand)
            elif r < 0.6:
                discards = ordered[:4]
            else:
                discards = ordered[:3]
        # within the draw limit and the cards there are to draw
        discards = sorted(discards, key=values.__getitem__)
        while discards and (len(discards) > self.draw_limit([c for c in hand if c not in discards])
                            or len(discards) > room):
            discards.pop()  # keep the highest of the thrown cards instead
        return [c for c in hand if c in discards]

    # ------------------------------------------------------------------ the end
    def award_by_fold(self) -> None:
        winner = self.winner_by_fold
        assert winner is not None
        amount = self.pot_now()
        self.stack[winner] += amount
        self.emit(f"{winner} collected {amount} from pot")
        self.stats["won_by_fold"] += 1

    def showdown_points(self) -> None:
        """No-bet mode: everyone shows, left of the button first; each best hand scores a point."""
        self.emit("*** SHOW DOWN ***")
        ring = self.left_of_button()
        strength = {p: self.ranking.strength(self.cards[p]) for p in ring}
        best = max(strength.values())
        for p in ring:
            desc = f" ({self.ranking.describe(self.cards[p])})" if self.rng.random() < 0.9 else ""
            self.emit(f"{p}: shows [{' '.join(self.cards[p])}]{desc}")
        winners = [p for p in ring if strength[p] == best]
        for p in winners:
            self.stack[p] += 1
            self.emit(f"{p} scores 1 point")
        self.stats["points_showdown"] += 1
        if len(winners) > 1:
            self.stats[f"points_tie_{len(winners)}way"] += 1

    def pots(self) -> list[tuple[int, list[str]]]:
        """Main and side pots by contribution level: (amount, eligible players in seat order)."""
        paid = {p: self.contrib[p] - self.returned[p] for p in self.order}
        live = self.live()
        levels = sorted({paid[p] for p in live if paid[p] > 0})
        out: list[tuple[int, list[str]]] = []
        previous = 0
        for level in levels:
            amount = sum(min(c, level) - previous for c in paid.values() if c > previous)
            out.append((amount, [p for p in live if paid[p] >= level]))
            previous = level
        if self.carried:
            if out:
                out[0] = (out[0][0] + self.carried, out[0][1])
            else:
                out.append((self.carried, live))
        assert sum(a for a, _ in out) == self.pot_now(), "chips above the last live level"
        return out

    def show_order(self) -> list[str]:
        live = self.live()
        second = self.rounds.get("second")
        first: str | None = None
        if second is not None and second.last_aggressor is not None:
            first = second.last_aggressor
        elif self.prof.show_first_no_bet == "first-to-act" and second is not None and second.first_actor:
            first = second.first_actor
        if first is None or first not in live:
            first = next(p for p in self.left_of_button() if p in live)
        return [p for p in self.clockwise_from(self.order.index(first)) if p in live]

    def showdown(self) -> None:
        rng = self.rng
        self.emit("*** SHOW DOWN ***")
        pots = self.pots()
        strength = {p: self.ranking.strength(self.cards[p]) for p in self.live()}
        winners: list[list[str]] = []
        for _, eligible in pots:
            best = max(strength[p] for p in eligible)
            winners.append([p for p in eligible if strength[p] == best])
        winning = {p for ws in winners for p in ws}
        for i, p in enumerate(self.show_order()):
            if i > 0 and p not in winning and rng.random() < 0.12:
                self.emit(f"{p}: mucks hand")
                self.stats["muck"] += 1
                continue
            desc = f" ({self.ranking.describe(self.cards[p])})" if rng.random() < 0.9 else ""
            self.emit(f"{p}: shows [{' '.join(self.cards[p])}]{desc}")
        odd_order = self.left_of_button()
        named = ["pot"] if len(pots) == 1 else ["main pot"] + [f"side pot-{i}" for i in range(1, len(pots))]
        if len(pots) > 1:
            self.stats["side_pots"] += 1
        lines: list[str] = []
        for (amount, eligible), ws, name in zip(pots, winners, named):
            ranked = [p for p in odd_order if p in ws]
            share, odd = divmod(amount, len(ranked))
            if len(ranked) > 1:
                self.stats[f"tied_pot_{len(ranked)}way"] += 1
                if odd:
                    self.stats["odd_chips"] += 1
            for j, p in enumerate(ranked):
                got = share + (1 if j < odd else 0)
                self.stack[p] += got
                lines.append(f"{p} collected {got} from {name}")
        # side pots first, as they are awarded (TDA 21); within a pot, left of the button first
        per_pot: list[list[str]] = []
        k = 0
        for ws in winners:
            per_pot.append(lines[k:k + len(ws)])
            k += len(ws)
        for chunk in reversed(per_pot):
            for line in chunk:
                self.emit(line)
        self.stats["showdown"] += 1
        if len(self.live()) >= 3:
            self.stats["multiway_showdown"] += 1


class Simulator:
    """Plays sessions of one profile from one seed. ``stats`` counts what happened (all-ins, side pots …)."""

    def __init__(self, profile: Profile | str = "home-open", seed: int = 0,
                 options: Sequence[tuple[str, str]] = ()) -> None:
        base = load_profile(profile) if isinstance(profile, str) else profile
        self.profile = base.with_options(list(options))
        self.options = list(options)
        problems = supported_problems(self.profile)
        if problems:
            raise ProfileError(f"the simulator cannot play profile {self.profile.name!r} yet: "
                               f"{', '.join(problems)}")
        self.seed = seed
        self.ranking: Ranking = self.profile.hand_ranking()
        self.rng = random.Random(0)
        self.styles: dict[str, _Style] = {}
        self.stats: Counter[str] = Counter()

    def session(self, index: int) -> SimulatedSession:
        """Session number ``index`` of this seed (each session has its own random stream)."""
        prof = self.profile
        self.rng = rng = random.Random(f"{prof.name}/{self.seed}/{index}")
        before = Counter(self.stats)
        counts = list(range(prof.min_players, min(prof.max_players, 10) + 1))
        n = rng.choices(counts, weights=[1 + i for i in range(len(counts))])[0]
        names = rng.sample(NAMES, n)
        seat_numbers = sorted(rng.sample(range(1, 11), n))
        seats = list(zip(seat_numbers, names))
        chips = prof.starting_chips if prof.starting_chips is not None else rng.randrange(50, 501, 10)
        if prof.points_mode:
            chips = 0  # points, not chips
        stacks = {p: chips for p in names}
        self.styles = {p: _Style(rng.uniform(0.15, 0.95), rng.uniform(0.1, 0.9), rng.uniform(0.0, 1.0))
                       for p in names}
        floor = 0 if prof.points_mode else 1  # an ante or blind posted short all-in still plays
        small_blind = rng.choice((1, 1, 2, 5)) if prof.blinds == "three" else 0
        if prof.starting_chips is None and not prof.points_mode and rng.random() < SHORT_STACK_RATE:
            # stacks of any size: one or two players sit down short, to post blinds and antes short all-in
            forced = 4 * small_blind if small_blind else max(prof.ante or 0, 2)
            for p in rng.sample(names, min(n - 1, rng.choice((1, 1, 2)))):
                stacks[p] = rng.randint(1, 2 * forced)
        total_chips = sum(stacks.values())
        length = prof.session_hands if prof.session_hands is not None else rng.randint(5, 15)
        name = f"{prof.name}-{self.seed}-{index:03d}"
        table = rng.choice(TABLES)
        hand_no = rng.randrange(1, 900_000)
        when = datetime(2026, 1, 1, 18, 0, 0) + timedelta(days=rng.randrange(365), minutes=rng.randrange(240))
        head = [f"Session: {name}", f"Profile: {prof.name}"]
        head += [f"Option: {k} = {v}" for k, v in self.options]
        blocks = ["\n".join(head)]
        button: int | None = None
        hands = 0
        deals = 0
        carried = 0
        while hands < length and deals < 10 * length + 50:
            playing = [(s, p) for s, p in seats if stacks[p] >= floor and (floor or prof.points_mode)]
            if len(playing) < max(2, prof.min_players):
                break
            if button is None:
                button = rng.choice([s for s, _ in playing])
            elif not carried:  # a redeal keeps the button (dead, if its player could not ante again)
                later = [s for s, _ in playing if s > button]
                button = later[0] if later else playing[0][0]
            hand = _Hand(self, playing, stacks, button, str(hand_no + deals), when, table, carried, small_blind)
            lines = hand.play()
            if rng.random() < 0.03 and "*** SUMMARY ***" in lines:
                p = rng.choice([q for _, q in playing])
                at = rng.randrange(len(playing) + 3, lines.index("*** SUMMARY ***") + 1)
                lines.insert(at, f'{p} said, "{rng.choice(CHAT)}"')
            blocks.append("\n".join(lines))
            for p in hand.order:
                stacks[p] = hand.stack[p]
            carried = hand.pot_now() if hand.redeal else 0
            if not prof.points_mode:
                assert sum(stacks.values()) + carried == total_chips, "chips not conserved"
            deals += 1
            hands += 0 if hand.redeal else 1  # redeals do not count toward the session's hands
            when += timedelta(seconds=rng.randrange(40, 320))
        ranked = sorted(names, key=lambda p: (-stacks[p], seat_numbers[names.index(p)]))
        standings = ["*** SESSION END ***"]
        place = 0
        for i, p in enumerate(ranked):
            if i == 0 or stacks[p] != stacks[ranked[i - 1]]:
                place = i + 1
            standings.append(f"{place}: {p} ({stacks[p]})")
        blocks.append("\n".join(standings))
        self.stats["sessions"] += 1
        if hands < length:
            self.stats["sessions_ended_early"] += 1
        return SimulatedSession(name, "\n\n".join(blocks) + "\n", hands, self.stats - before)


def iter_simulated(profile_name: str | Profile, seed: int, sessions: int | None = None,
                   options: Sequence[tuple[str, str]] = ()) -> Iterator[SimulatedSession]:
    """Sessions ``0, 1, 2 …`` of ``seed`` (endless when ``sessions`` is None), one at a time."""
    sim = Simulator(profile_name, seed, options)
    index = 0
    while sessions is None or index < sessions:
        yield sim.session(index)
        index += 1


def iter_sessions(profile_name: str, sessions: int, seed: int,
                  options: Sequence[tuple[str, str]] = ()) -> Iterator[str]:
    """The text of each of ``sessions`` sessions, one at a time (for corpora too big to hold)."""
    for s in iter_simulated(profile_name, seed, sessions, options):
        yield s.text


def simulate_sessions(profile_name: str, sessions: int, seed: int,
                      options: Sequence[tuple[str, str]] = ()) -> str:
    """House-format text of ``sessions`` whole sessions played from ``seed`` (byte-identical for a seed)."""
    return "\n".join(iter_sessions(profile_name, sessions, seed, options))


def simulate_hands(profile_name: str, hands: int, seed: int,
                   options: Sequence[tuple[str, str]] = ()) -> tuple[str, int]:
    """Whole sessions until at least ``hands`` hands (redeals not counted): (text, number of hands)."""
    parts: list[str] = []
    total = 0
    for s in iter_simulated(profile_name, seed, options=options):
        parts.append(s.text)
        total += s.hands
        if total >= hands:
            break
    return "\n".join(parts), total
