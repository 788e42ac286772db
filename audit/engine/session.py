"""Session rules across hands: stacks carried over, the button's move, busted players, length, standings, and the
blinds a player missed while sitting out.

A ``SessionTracker`` is fed each hand's ``HandResult`` in file order, then the session end block (if any).
"""

from __future__ import annotations

from audit.findings import Finding, Params, said_finding
from audit.model import Hand, NoPlay, Post, SessionEnd
from audit.profile import Profile
from audit.engine.result import HandResult
from audit.engine.state import STREET_NAMES
from audit.engine.table import BLIND_ORDER, blind_levels, blind_seats, ring_from_button
from audit.rules import Rule


class SessionTracker:
    """The state of one declared session (``Session:`` line) and its checks."""

    def __init__(self, name: str, profile: Profile, file: str) -> None:
        self.name = name
        self.profile = profile
        self.file = file
        self.balances: dict[str, int] = {}
        self.players: dict[str, None] = {}  # everyone who played, in order of appearance
        self.able: set[str] = set()  # players whose balance still lets them play
        self.after_gap = False  # the hand before could not be read: take the next one's stacks as given
        self.last: HandResult | None = None
        self.hands_played = 0
        self.ended = False  # only one player could still play: a further hand is one too many
        self.ended_early = False
        self.blind_debts = BlindDebts(profile)

    def _add(self, out: list[Finding], rule: Rule, hand: Hand | None, line: int, variant: str, params: Params = (),
             *, player: str | None = None, expected: object = None, actual: object = None,
             street: str | None = None) -> None:
        game = hand.game if hand is not None else None
        out.append(said_finding(rule, f"finding.{rule.value}.{variant}", params, self.file,
                                hand.hand_id if hand is not None else None, line, player=player, street=street,
                                expected=expected, actual=actual, session=self.name,
                                unit=game.currency if game is not None else ""))

    def feed(self, result: HandResult) -> list[Finding]:
        """Check one hand against the session so far; returns the session findings for it."""
        out: list[Finding] = []
        hand = result.hand
        prof = self.profile
        ante = prof.ante
        points = prof.points_mode
        seats = {s.player: s for s in hand.seats}
        if self.ended:
            self._add(out, Rule.SESSION_LENGTH, hand, hand.line, "after_end", street="forced bets")
        gap, self.after_gap = self.after_gap, False
        if not gap:  # (after a hand that could not be read there is nothing to compare with)
            self._check_stacks(out, hand)
        prev = self.last
        if not gap and prev is not None:
            self._check_button(out, prev, result)
            carried = prev.pot_total if prev.redeal else 0
            if hand.carried != carried:
                self._add(out, Rule.REDEAL, hand, hand.carried_line or hand.line, "carried",
                          (("due_amount", carried), ("carried_amount", hand.carried)),
                          expected=carried, actual=hand.carried, street="forced bets")
        if not (hand.points_mode or points):
            # any chips will do: an ante (or a blind) posted short all-in plays for a pot of its own level
            for p in result.dealt_in:
                s = seats[p]
                had = s.chips if gap else self.balances.get(p, s.chips)
                if s.chips < 1 or had < 1:
                    self._add(out, Rule.BUSTED_PLAYER, hand, s.line, "ante" if ante else "play",
                              (("player", p), ("had_chips", min(had, s.chips))), player=p,
                              expected="out of the game", actual="dealt in", street="forced bets")
        out.extend(self.blind_debts.feed(result, prof))
        for p in seats:
            self.players.setdefault(p)
        self.balances.update(result.end_stacks)  # (in C: each int taken as it is, not unboxed and boxed again)
        if hand.points_mode or points:
            for s in hand.seats:
                self.balances[s.player] = s.chips + result.points.get(s.player, 0)
        for p in seats:
            if self.balances.get(p, 0) >= 1:
                self.able.add(p)
            else:
                self.able.discard(p)
        if not result.redeal:
            self.hands_played += 1
        limit = prof.session_hands
        if limit is not None and self.hands_played > limit and not self.ended:
            self._add(out, Rule.SESSION_LENGTH, hand, hand.line, "too_long",
                      (("number", self.hands_played), ("n", limit)), expected=limit, actual=self.hands_played,
                      street="forced bets")
        if limit is not None and not (hand.points_mode or points) and not result.redeal:
            if len(self.able) <= 1 and self.hands_played <= (limit or 0):
                self.ended_early = True
        self.last = result
        return out

    def stack_findings(self, hand: Hand) -> list[Finding]:
        """``STACK_CONTINUITY`` of ``hand``'s seats against the session so far, before the hand is played (what a
        live table says as it deals the hand: a seat opened with other than the profile's starting chips)."""
        out: list[Finding] = []
        if not self.after_gap:
            self._check_stacks(out, hand)
        return out

    def _check_stacks(self, out: list[Finding], hand: Hand) -> None:
        """Each seat's stack: the profile's starting chips in the session's first hand and for a player who joins,
        the stack he ended the last hand with otherwise."""
        starting = self.profile.starting_chips
        points = self.profile.points_mode
        if self.last is None:
            if starting is not None and not hand.points_mode and not points:
                for s in hand.seats:
                    if s.chips != starting:
                        self._add(out, Rule.STACK_CONTINUITY, hand, s.line, "first",
                                  (("player", s.player), ("stack_chips", s.chips), ("starting_amount", starting)),
                                  player=s.player, expected=starting, actual=s.chips, street="forced bets")
            return
        balances = self.balances
        for s in hand.seats:
            carried_over = balances.get(s.player)  # one look-up: None for a player new to the session
            if carried_over is not None:
                want = carried_over
                if s.chips != want:
                    # in points mode the points on a seat line are its stack
                    scored = hand.points_mode or points
                    self._add(out, Rule.STACK_CONTINUITY, hand, s.line, "carried_points" if scored else "carried",
                              (("player", s.player), ("stack_amount" if scored else "stack_chips", s.chips),
                               ("ended_amount", want)),
                              player=s.player, expected=want, actual=s.chips, street="forced bets")
            elif starting is not None and s.chips != starting and not hand.points_mode:
                self._add(out, Rule.STACK_CONTINUITY, hand, s.line, "joins",
                          (("player", s.player), ("stack_chips", s.chips), ("starting_amount", starting)),
                          player=s.player, expected=starting, actual=s.chips, street="forced bets")

    def copy(self) -> SessionTracker:
        """The session as it stands, apart from this one (feeding either leaves the other as it was): where a
        caller may take a hand back and judge another in its place (the live table's claims)."""
        other = SessionTracker(self.name, self.profile, self.file)
        other.balances = dict(self.balances)
        other.players = dict(self.players)
        other.able = set(self.able)
        other.after_gap = self.after_gap
        other.last = self.last
        other.hands_played = self.hands_played
        other.ended = self.ended
        other.ended_early = self.ended_early
        other.blind_debts = self.blind_debts.copy()
        return other

    def lost_hand(self) -> None:
        """A hand of the session could not be read: the next hand's stacks and button are taken as given."""
        self.after_gap = True

    def _check_button(self, out: list[Finding], prev: HandResult, result: HandResult) -> None:
        hand = result.hand
        dealt = set(result.dealt_in)
        want = next_button(prev.hand.button, [s.seat for s in hand.seats if s.player in dealt], prev.redeal)
        if want is None:
            return
        if hand.button != want:
            self._add(out, Rule.BUTTON_MOVE, hand, hand.line + 1, "stayed" if prev.redeal else "moved",
                      (("seat", hand.button), ("want", want)), expected=want, actual=hand.button,
                      street="forced bets")

    def after_hand(self, out: list[Finding], result: HandResult) -> None:
        """Mark the session over when only one player can still play (checked on the next hand)."""
        if self.ended_early:
            self.ended = True

    def end(self, block: SessionEnd | None) -> list[Finding]:
        """The session is over: compare the announced standings with the balances."""
        out: list[Finding] = []
        if block is None:
            return out
        balances = {p: self.balances.get(p, 0) for p in self.players}
        ordered = sorted(balances.items(), key=lambda kv: -kv[1])
        places: dict[str, int] = {}
        for i, (p, chips) in enumerate(ordered):
            if i and chips == ordered[i - 1][1]:
                places[p] = places[ordered[i - 1][0]]
            else:
                places[p] = i + 1
        announced = {s.player: s for s in block.standings}
        for s in block.standings:
            if s.player not in balances:
                self._add(out, Rule.STANDINGS, None, s.line, "never_played", (("player", s.player),),
                          player=s.player)
                continue
            if s.amount != balances[s.player] or s.place != places[s.player]:
                self._add(out, Rule.STANDINGS, None, s.line, "wrong",
                          (("player", s.player), ("place", s.place), ("stated_amount", s.amount),
                           ("want_place", places[s.player]), ("balance_amount", balances[s.player])),
                          player=s.player, expected=f"{places[s.player]}: {balances[s.player]}",
                          actual=f"{s.place}: {s.amount}")
        for p in self.players:
            if p not in announced:
                self._add(out, Rule.STANDINGS, None, block.line, "missing", (("player", p),), player=p,
                          expected=f"{places[p]}: {balances[p]}", actual="missing")
        return out


class BlindDebts:
    """``missed-blinds = seed-004`` across the hands of one session (RULES.md "Missed blinds").

    Feed it every ``HandResult`` of the session in order; it returns the ``MISSED_BLINDS`` findings. A seated
    player who is not dealt in (sitting out) misses each blind that would have fallen on him had he been dealt
    in; when he plays again he posts a live amount equal to the largest blind he missed (at least the big blind)
    and the other missed blinds dead (seed 004: missed the small blind only, a live big blind; small and big, a
    live big blind and a dead small one; all three, a live over blind and a dead small and big one). A player
    new to the session (after its first hand) posts a live over blind (the big blind with 2-3 players) or waits
    for the over blind. A player back in a blind's seat posts that blind in turn and owes nothing more (so a
    player who missed only the over blind, or the over and the big blind, is back in the big or the small
    blind's seat and settles there: the seed's three cases are the ones left).
    """

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.owed: dict[str, set[str]] = {}  # player → the blinds he missed and has not made up
        self.new: set[str] = set()  # joined after the first hand and not yet come in
        self.seen: set[str] = set()
        self.hands = 0

    def copy(self) -> BlindDebts:
        """What is owed as it stands, apart from this one."""
        other = BlindDebts(self.profile)
        other.owed = {p: set(kinds) for p, kinds in self.owed.items()}
        other.new = set(self.new)
        other.seen = set(self.seen)
        other.hands = self.hands
        return other

    def feed(self, result: HandResult, profile: Profile | None = None) -> list[Finding]:
        """Judge one hand's entry posts against what each player owed; then record what this hand's absentees
        missed. ``profile``: the one in force now, if a preamble changed it."""
        hand = result.hand
        if profile is not None:
            self.profile = profile
        prof = self.profile
        if prof.missed_blinds != "seed-004" or prof.blinds != "three" or not hand.shows_all_cards or result.redeal:
            return []
        out: list[Finding] = []
        seat_of = {s.player: s.seat for s in hand.seats}
        dealt = sorted(result.dealt_in, key=lambda q: seat_of[q])
        posts = [i for i in hand.body if type(i) is Post]
        levels = blind_levels(posts)
        largest = "over" if len(dealt) >= 4 else "big"  # a new player's live amount
        for p in dealt:
            mine = [x for x in posts if x.player == p]
            positional = {x.kind for x in mine if x.kind in BLIND_ORDER}
            live = sum(x.amount for x in mine if x.kind == "live")
            dead = sum(x.amount for x in mine if x.kind == "dead")
            all_in = any(x.all_in for x in mine)
            line = next((x.line for x in mine if x.kind in ("live", "dead")), hand.line)
            owed = self.owed.pop(p, set())
            new = p in self.new or (self.hands > 0 and p not in self.seen)
            self.new.discard(p)
            self.seen.add(p)
            if positional:
                continue  # back in a blind's seat: posting that blind in turn settles what he missed
            if owed:
                top = max(owed, key=BLIND_ORDER.__getitem__)
                live_kind = top if BLIND_ORDER[top] >= BLIND_ORDER["big"] else "big"
                want = (levels[live_kind], sum(levels[k] for k in owed if k != top))
                kinds = sorted(owed, key=BLIND_ORDER.__getitem__)
                variant = ("missed_one", "missed_two", "missed_three")[len(kinds) - 1]
            elif new:
                want = (levels[largest], 0)
                kinds = []
                variant = "new"
            else:
                if (live or dead) and self.hands > 0:
                    out.append(self._finding(result, line, p, "not_owed", live, dead, (0, 0), [], "no entry post"))
                continue
            if (live, dead) != want and not all_in:
                out.append(self._finding(result, line, p, variant, live, dead, want, kinds,
                                         f"live {want[0]} + dead {want[1]}"))
        waiting = {i.player for i in hand.body if type(i) is NoPlay and i.kind == "waits"}
        for s in sorted(hand.seats, key=lambda x: x.seat):
            p = s.player
            if p in result.dealt_in:
                continue
            if p in waiting or p in self.new or (self.hands > 0 and p not in self.seen):
                self.new.add(p)  # a new player waiting to come in owes nothing
                continue
            self.seen.add(p)
            players = sorted(dealt + [p], key=lambda q: seat_of[q])
            for kind, who in blind_seats(ring_from_button(players, seat_of, hand.button)).items():
                if who == p:
                    self.owed.setdefault(p, set()).add(kind)
        self.hands += 1
        return out

    def _finding(self, result: HandResult, line: int, player: str, variant: str, live: int, dead: int,
                 want: tuple[int, int], kinds: list[str], expected: str) -> Finding:
        """``MISSED_BLINDS``: what ``player`` posted (``live``, ``dead``) against what he owed (``want``, for the
        blinds ``kinds`` he missed)."""
        words = tuple((f"blind{i}_word", "post." + k) for i, k in enumerate(kinds, 1))
        game = result.hand.game
        return said_finding(Rule.MISSED_BLINDS, f"finding.MISSED_BLINDS.{variant}",
                            (("player", player), ("live_amount", live), ("dead_amount", dead),
                             ("live_want_amount", want[0]), ("dead_want_amount", want[1])) + words,
                            result.hand.file, result.hand.hand_id, line, player=player, street=STREET_NAMES["pre"],
                            expected=expected, actual=f"live {live} + dead {dead}", session=result.session,
                            unit=game.currency if game is not None else "")


def next_button(prev_button: int, dealt_seats: list[int], redeal: bool) -> int | None:
    """Where the button is in the next hand: the first seat dealt in after the previous button, clockwise (the
    same seat after a redeal); ``None`` when nobody is dealt in."""
    if not dealt_seats:
        return None
    if redeal:
        return prev_button
    lowest = dealt_seats[0]
    after = -1  # the lowest seat after the previous button (-1: none)
    for seat in dealt_seats:
        if seat < lowest:
            lowest = seat
        if seat > prev_button and (after < 0 or seat < after):
            after = seat
    return after if after >= 0 else lowest
