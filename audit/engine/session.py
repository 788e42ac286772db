"""Session rules across hands: stacks carried over, the button's move, busted players, length, standings, and the
blinds a player missed while sitting out.

A ``SessionTracker`` is fed each hand's ``HandResult`` in file order, then the session end block (if any).
"""

from __future__ import annotations

from audit.findings import Finding, make_finding
from audit.model import NoPlay, Post, SessionEnd
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

    def _add(self, out: list[Finding], rule: Rule, hand: str | None, line: int, message: str, **kw: object) -> None:
        out.append(make_finding(rule, self.file, hand, line, message, session=self.name, **kw))  # type: ignore[arg-type]

    def feed(self, result: HandResult) -> list[Finding]:
        """Check one hand against the session so far; returns the session findings for it."""
        out: list[Finding] = []
        hand = result.hand
        prof = self.profile
        starting = prof.starting_chips  # (a Profile's fields are looked up by name: once each)
        ante = prof.ante
        points = prof.points_mode
        hid = hand.hand_id
        seats = {s.player: s for s in hand.seats}
        if self.ended:
            self._add(out, Rule.SESSION_LENGTH, hid, hand.line,
                      "This hand was played after the session was over.", street="forced bets")
        gap, self.after_gap = self.after_gap, False
        if gap:
            pass  # nothing to compare with: the hand in between could not be read
        elif self.last is None:
            if starting is not None and not hand.points_mode and not points:
                for s in hand.seats:
                    if s.chips != starting:
                        self._add(out, Rule.STACK_CONTINUITY, hid, s.line,
                                  f"{s.player} starts the session with {s.chips} chips; everyone starts with "
                                  f"{starting}.", player=s.player, expected=starting,
                                  actual=s.chips, street="forced bets")
        else:
            prev = self.last
            for s in hand.seats:
                if s.player in self.balances:
                    want = self.balances[s.player]
                    if s.chips != want:
                        self._add(out, Rule.STACK_CONTINUITY, hid, s.line,
                                  f"{s.player} starts this hand with {s.chips} chips but ended the previous hand "
                                  f"with {want}.", player=s.player, expected=want, actual=s.chips,
                                  street="forced bets")
                elif starting is not None and s.chips != starting and not hand.points_mode:
                    self._add(out, Rule.STACK_CONTINUITY, hid, s.line,
                              f"{s.player} joins with {s.chips} chips; everyone starts with {starting}.",
                              player=s.player, expected=starting, actual=s.chips, street="forced bets")
            self._check_button(out, prev, result)
            carried = prev.pot_total if prev.redeal else 0
            if hand.carried != carried:
                self._add(out, Rule.REDEAL, hid, hand.carried_line or hand.line,
                          f"The pot carried over should be {carried}, not {hand.carried}.",
                          expected=carried, actual=hand.carried, street="forced bets")
        if not (hand.points_mode or points):
            # any chips will do: an ante (or a blind) posted short all-in plays for a pot of its own level
            for p in result.dealt_in:
                s = seats[p]
                had = s.chips if gap else self.balances.get(p, s.chips)
                if s.chips < 1 or had < 1:
                    self._add(out, Rule.BUSTED_PLAYER, hid, s.line,
                              f"{p} had {min(had, s.chips)} chips and could not {'ante' if ante else 'play'}, "
                              "but was dealt in (no rebuys).", player=p, expected="out of the game",
                              actual="dealt in", street="forced bets")
        out.extend(self.blind_debts.feed(result, prof))
        for p in seats:
            self.players.setdefault(p)
        for p, chips in result.end_stacks.items():
            self.balances[p] = chips
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
            self._add(out, Rule.SESSION_LENGTH, hid, hand.line,
                      f"This is hand {self.hands_played} of a session of {limit} hands.", expected=limit,
                      actual=self.hands_played, street="forced bets")
        if limit is not None and not (hand.points_mode or points) and not result.redeal:
            if len(self.able) <= 1 and self.hands_played <= (limit or 0):
                self.ended_early = True
        self.last = result
        return out

    def lost_hand(self) -> None:
        """A hand of the session could not be read: the next hand's stacks and button are taken as given."""
        self.after_gap = True

    def _check_button(self, out: list[Finding], prev: HandResult, result: HandResult) -> None:
        hand = result.hand
        prev_button = prev.hand.button
        dealt = set(result.dealt_in)
        lowest: int | None = None  # the lowest dealt-in seat, and the lowest after the previous button
        after: int | None = None
        for s in hand.seats:
            if s.player in dealt:
                seat = s.seat
                if lowest is None or seat < lowest:
                    lowest = seat
                if seat > prev_button and (after is None or seat < after):
                    after = seat
        if lowest is None:
            return
        if prev.redeal:
            want = prev_button
        else:
            want = after if after is not None else lowest
        if hand.button != want:
            self._add(out, Rule.BUTTON_MOVE, hand.hand_id, hand.line + 1,
                      f"The button is on seat {hand.button}; it should have "
                      f"{'stayed on' if prev.redeal else 'moved to'} seat {want}.", expected=want,
                      actual=hand.button, street="forced bets")

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
                self._add(out, Rule.STANDINGS, None, s.line, f"{s.player} is in the standings but never played.",
                          player=s.player)
                continue
            if s.amount != balances[s.player] or s.place != places[s.player]:
                self._add(out, Rule.STANDINGS, None, s.line,
                          f"The standings give {s.player} place {s.place} with {s.amount}; the hands give "
                          f"place {places[s.player]} with {balances[s.player]}.", player=s.player,
                          expected=f"{places[s.player]}: {balances[s.player]}", actual=f"{s.place}: {s.amount}")
        for p in self.players:
            if p not in announced:
                self._add(out, Rule.STANDINGS, None, block.line, f"{p} is missing from the standings.", player=p,
                          expected=f"{places[p]}: {balances[p]}", actual="missing")
        return out


_BLIND_WORDS = {"small": "small blind", "big": "big blind", "over": "over blind"}


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
                words = [_BLIND_WORDS[k] for k in sorted(owed, key=BLIND_ORDER.__getitem__)]
                why = f"{p} missed the {' and the '.join(words) if len(words) < 3 else 'small, big and over blinds'}"
            elif new:
                want = (levels[largest], 0)
                why = f"{p} is new to the game (and did not wait for the over blind)"
            else:
                if (live or dead) and self.hands > 0:
                    out.append(self._finding(result, line, p, f"{p} posted {live} live and {dead} dead, but had missed "
                                             "no blind and is not new.", "no entry post", f"live {live} + dead {dead}"))
                continue
            if (live, dead) != want and not all_in:
                text = f"a live {want[0]}" + (f" and {want[1]} dead" if want[1] else "")
                out.append(self._finding(result, line, p, f"{why}, so owes {text}; {p} posted {live} live and "
                                         f"{dead} dead.", f"live {want[0]} + dead {want[1]}",
                                         f"live {live} + dead {dead}"))
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

    def _finding(self, result: HandResult, line: int, player: str, message: str, expected: str,
                 actual: str) -> Finding:
        return make_finding(Rule.MISSED_BLINDS, result.hand.file, result.hand.hand_id, line, message, player=player,
                            street=STREET_NAMES["pre"], expected=expected, actual=actual, session=result.session)
