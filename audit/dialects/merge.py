"""Merge Network: a block whose first line is ``<description type=…`` → a ``Hand`` (``dialect="merge"``, with a
``Game``), anything else a ``ParseFailure`` with line, column and caret.

Merge writes XML, one element per line (the layout fpdb's ``MergeToFpdb.py`` reads): ``<description>`` (the game,
``5-Draw``, and the stakes, ``Pot Limit ($0.05/$0.10)``) once at the top of a file, which the reader puts before
each of the file's hands (the registry's ``follows``), then a ``<game>`` per hand (its id, its start as
``YYYYMMDDHHMMSS`` Eastern time, the table in ``data``), ``<players dealer=…>`` with a ``<player>`` per seat, and a
``<round id=…>`` per part of the hand: ``BLINDS``, ``PRE_FIRST_DRAW`` (the first betting round), ``FIRST_DRAW``
(the draw), ``POST_FIRST_DRAW`` (the second), and the end (``SHOWDOWN``, ``END_OF_FOLDED_GAME``,
``END_OF_GAME``) with a ``<winner>`` per pot won. A round holds ``<event type=…>`` lines and ``<cards>`` lines. It
is read with the standard library's XML parser (expat), as Boss Media's logs are. What the log does not write,
the builder works out from what it does write, with no judgement of its own (the engine judges):

* seats are numbered from 0 (``player="3"`` in an event is a seat): each is one more here, as the table's seats
  are numbered from 1 (fpdb does the same), the dealer's too;
* ``CALL`` and ``ALL_IN`` say the chips the player adds, ``BET`` the bet, ``RAISE`` and (outside stud)
  ``COMPLETE`` the player's whole bet in the round after it; ``INITIAL_BLIND`` is a new player's live big blind,
  ``RETURN_BLIND`` a returning player's: dead under the big blind, live at it, live and dead above it;
  ``DRAW text="3"`` is a draw of 3 cards;
* the hero's cards are ``<cards type="HOLE">`` at the end of the first round (given here with the deal) and
  ``<cards type="DRAW_DRAWN_CARDS">``, his hand after the draw: his discard is the cards that left his hand;
* ``<winner amount=…>`` includes the bet nobody called: that return is the last round's top bet over the next,
  to the player who made it, and what the winner collected is the rest; no line says the rake or the total pot:
  the total is what was put in less that return, the rake what the winners did not collect of it;
* ``<cards type="SHOWN">`` is a hand shown, in the order of the ``SHOW`` events.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final


from audit.dialects.common import LineError, RoundBets, failure, to_amount, too_long_failure
from audit.dialects.xmlhand import ElementBuilder, read_xml
from audit.model import (
    Action, Collect, Dealt, Discard, Game, Hand, Item, Marker, Muck, NothingHere, ParseFailure, Post, Seat, Show,
    StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock

__all__ = ["parse_hand"]

FIVE_CARD_DRAW: Final = "5 Card Draw"
_GAMES: Final = {"5-Draw": FIVE_CARD_DRAW, "5-Draw w/Joker": "5 Card Draw with a joker", "Holdem": "Hold'em",
                 "2-7 Lowball": "Triple Draw 2-7 Lowball", "A-5 Lowball": "Triple Draw A-5 Lowball"}
_LIMITS: Final = {"No Limit": "no-limit", "Pot Limit": "pot-limit", "Limit": "fixed-limit",
                  "Half Pot Limit": "half-pot-limit"}
_STAKES: Final = re.compile(r"(?P<limit>[A-Za-z ]+?)\s*\(?\$?(?P<small>[\d.]+)/\$?(?P<big>[\d.]+)\)?")
_BLINDS: Final = {"SMALL_BLIND": "small", "BIG_BLIND": "big", "INITIAL_BLIND": "live", "ANTE": "ante"}
_BETTING_ROUNDS: Final = ("PRE_FIRST_DRAW", "POST_FIRST_DRAW")
_ENDS: Final = ("SHOWDOWN", "END_OF_FOLDED_GAME", "END_OF_GAME")
# events that change nothing at the table (a chat line names its player, not a seat)
_NOT_PLAY: Final = ("SHOW", "MUCK", "CHAT", "RECONNECTED", "DISCONNECTED", "LEAVE", "JOIN")
_ROOT: Final = "merge"  # the description and the game are two elements: read inside one root


class _Builder(ElementBuilder):
    """Builds one hand from the elements expat reports, in order. State of this hand only."""

    def __init__(self, block: RawBlock, text: str) -> None:
        super().__init__(block, text)
        self.game: Game | None = None
        self.currency = ""
        self.hand_line = 0
        self.hand_id = ""
        self.started = ""
        self.table = ""
        self.button = 0
        self.seats: list[Seat] = []
        self.names: dict[str, str] = {}  # the log's seat number → the player
        self.body: list[Item] = []
        self.bets = RoundBets()
        self.round = ""
        self.events: list[tuple[dict[str, str], int]] = []  # this round's events and cards, with their lines
        self.winners: list[tuple[str, int, int]] = []  # (player, amount, line)
        self.shown: list[Show | Muck] = []
        self.showing: list[str] = []  # the players of the SHOW events, in order
        self.held: dict[str, tuple[str, ...]] = {}

    # ---- where things are ----
    def amount(self, attrs: dict[str, str], name: str, index: int, tag: str) -> int:
        text = self.need(attrs, name, index, tag).lstrip("$")
        value = to_amount("$" + text, True) if self.currency else to_amount(text, False)
        if value is None:
            raise self.unreadable(index, name, f"{attrs[name]!r} is not an amount (0.50)")
        return value

    def player(self, attrs: dict[str, str], index: int, tag: str) -> str:
        seat = self.need(attrs, "player", index, tag)
        name = self.names.get(seat)
        if name is None:
            raise self.unreadable(index, "player", f"seat {seat!r} has no player in <players>")
        return name

    # ---- expat's callbacks ----
    def start(self, tag: str, attrs: dict[str, str], index: int) -> None:
        if self.done:
            raise LineError(index, 1, f"<{tag}> after the end of the hand")
        if tag == "merge":
            return
        if tag == "description":
            self.description(attrs, index)
        elif self.game is None:
            raise LineError(index, 1, f"<{tag}> before the file's <description> element")
        elif tag == "game":
            self.hand(attrs, index)
        elif tag == "players":
            dealer = self.need(attrs, "dealer", index, tag)
            if not dealer.isdecimal() or len(dealer) > 2:
                raise self.unreadable(index, "dealer", f"{dealer!r} is not a seat number")
            self.button = int(dealer) + 1
        elif tag == "player":
            self.seat(attrs, index)
        elif tag in ("round", "event", "cards", "winner") and self.game.name != FIVE_CARD_DRAW:
            return  # another game's play (hold'em's flop, triple draw's rounds): its hands are said unsupported
        elif tag == "round":
            self.round = self.need(attrs, "id", index, tag)
            self.events = []
        elif tag in ("event", "cards", "winner"):
            self.events.append(({"_tag": tag, **attrs}, index))
        else:
            raise LineError(index, 1, f"<{tag}> is not an element of Merge Network's hand histories")

    def end(self, tag: str) -> None:
        if tag == "round" and self.game is not None and self.game.name == FIVE_CARD_DRAW:
            self.close_round()
        elif tag == "game":
            self.done = True

    # ---- the elements ----
    def description(self, attrs: dict[str, str], index: int) -> None:
        kind = self.need(attrs, "type", index, "description")
        stakes = self.need(attrs, "stakes", index, "description")
        m = _STAKES.fullmatch(stakes)
        betting = _LIMITS.get(m["limit"]) if m else None
        if m is None or betting is None:
            raise self.unreadable(index, "stakes", f"{stakes!r} is not the stakes (Pot Limit ($0.05/$0.10))")
        self.currency = "USD" if "$" in stakes and not kind.endswith(" Tournament") else ""
        small, big = (to_amount("$" + m[k], True) if self.currency else to_amount(m[k], False)
                      for k in ("small", "big"))
        if small is None or big is None:
            raise self.unreadable(index, "stakes", f"{stakes!r} is not the stakes (Pot Limit ($0.05/$0.10))")
        self.game = Game(_GAMES.get(kind, kind), betting, small, big, self.currency, "ET")

    def hand(self, attrs: dict[str, str], index: int) -> None:
        if self.hand_id:
            raise LineError(index, 1, "a second <game> element in one hand")
        self.hand_line = self.file_line(index)
        self.hand_id = self.need(attrs, "id", index, "game")
        when = self.need(attrs, "starttime", index, "game")
        try:
            started = dt.datetime.strptime(when, "%Y%m%d%H%M%S")
        except ValueError:
            raise self.unreadable(index, "starttime", f"{when!r} is not a time (YYYYMMDDHHMMSS)") from None
        self.started = started.strftime("%Y/%m/%d %H:%M:%S")
        data = attrs.get("data", "").split("|")
        self.table = data[1] if len(data) > 1 else ""

    def seat(self, attrs: dict[str, str], index: int) -> None:
        seat = self.need(attrs, "seat", index, "player")
        if not seat.isdecimal() or len(seat) > 2:
            raise self.unreadable(index, "seat", f"{seat!r} is not a seat number")
        name = self.need(attrs, "nickname", index, "player")
        chips = self.amount(attrs, "balance", index, "player")
        self.names[seat] = name
        self.seats.append(Seat(self.file_line(index), int(seat) + 1, name, chips,
                               attrs.get("dealtin", "true") != "true"))

    def close_round(self) -> None:
        events, kind = self.events, self.round
        self.events = []
        if kind == "BLINDS":
            for attrs, index in events:
                self.blind(attrs, index)
        elif kind in _BETTING_ROUNDS:
            self.bets.new_round()
            first = events[0][1] if events else 0
            if kind == _BETTING_ROUNDS[0]:
                self.body.append(Marker(self.file_line(first), "deal"))
                for attrs, index in events:
                    if attrs["_tag"] == "cards" and attrs.get("type") == "HOLE":
                        player = self.player(attrs, index, "cards")
                        self.held[player] = self.cards(attrs, index)
                        self.body.append(Dealt(self.file_line(index), player, (self.held[player],)))
            else:
                self.body.append(Marker(self.file_line(first), "second"))
            for attrs, index in events:
                if attrs["_tag"] == "event":
                    self.action(attrs, index)
        elif kind.endswith("_DRAW"):
            self.body.append(Marker(self.file_line(events[0][1] if events else 0), "draw"))
            drawn = {self.player(a, i, "cards"): (a, i) for a, i in events
                     if a["_tag"] == "cards" and a.get("type") == "DRAW_DRAWN_CARDS"}
            for attrs, index in events:
                if attrs["_tag"] == "event":
                    self.draw(attrs, index, drawn)
        elif kind in _ENDS:
            for attrs, index in events:
                self.ending(attrs, index)
        else:
            raise LineError(events[0][1] if events else 1, 1, f"{kind!r} is not a round of a five-card draw hand")

    def cards(self, attrs: dict[str, str], index: int) -> tuple[str, ...]:
        listed = self.need(attrs, "cards", index, "cards").split(",")
        if not all(re.fullmatch(r"[2-9TJQKA][cdhs]", c) for c in listed):
            raise self.unreadable(index, "cards", f"{attrs['cards']!r} is not a list of cards (4h,7h,Ac)")
        return tuple(listed)

    def spend(self, player: str, amount: int) -> bool:
        """Whether ``amount`` leaves the player's stack empty (all-in)."""
        stack = next((s.chips for s in self.seats if s.player == player), 0)
        return 0 < amount and self.bets.put_in.get(player, 0) >= stack

    def blind(self, attrs: dict[str, str], index: int) -> None:
        kind = self.need(attrs, "type", index, "event")
        post = _BLINDS.get(kind)
        player = self.player(attrs, index, "event")
        amount = self.amount(attrs, "amount", index, "event")
        big = self.game.big if self.game is not None else 0
        if kind == "RETURN_BLIND":  # a returning player's (fpdb: small, big or both by its amount)
            post = "dead" if amount < big else "live" if amount == big else "both"
        if post is None:
            raise self.unreadable(index, "type", f"{kind!r} is not a blind")
        live = amount if post not in ("ante", "dead", "both") else min(amount, big) if post == "both" else 0
        for part, is_live in ((live, True), (amount - live, False)):  # what is the player's bet in the round, the rest
            if part:
                self.bets.post(player, part, is_live)
        self.body.append(Post(self.file_line(index), player, post, amount, self.spend(player, amount)))

    def action(self, attrs: dict[str, str], index: int) -> None:
        kind = self.need(attrs, "type", index, "event")
        if kind in _NOT_PLAY:
            return
        player = self.player(attrs, index, "event")
        line = self.file_line(index)
        if kind in ("FOLD", "SIT_OUT", "CHECK"):
            verb = "check" if kind == "CHECK" else "fold"
            self.bets.act(player, verb)
            self.body.append(Action(line, player, verb))
            return
        if kind not in ("CALL", "BET", "RAISE", "COMPLETE", "ALL_IN"):
            raise self.unreadable(index, "type", f"{kind!r} is not an action of Merge Network's hand histories")
        amount = self.amount(attrs, "amount", index, "event")
        before = self.bets.bets.get(player, 0)
        if kind == "ALL_IN":  # the chips added: a call, a bet or a raise by what they come to
            owed = self.bets.current - before
            kind = "CALL" if amount <= owed else "BET" if self.bets.current == 0 else "RAISE"
            if kind == "RAISE":
                amount += before
        if kind == "CALL":
            self.bets.act(player, "call", amount)
            self.body.append(Action(line, player, "call", amount, 0, self.spend(player, amount)))
        elif kind == "BET" and self.bets.current == 0:
            self.bets.act(player, "bet", amount)
            self.body.append(Action(line, player, "bet", amount, amount, self.spend(player, amount)))
        else:  # a raise to ``amount`` (a bet over a bet: the engine says what it is)
            increment = self.bets.raise_to(player, amount)
            self.body.append(Action(line, player, "raise", increment, amount, self.spend(player, amount - before)))

    def draw(self, attrs: dict[str, str], index: int, drawn: dict[str, tuple[dict[str, str], int]]) -> None:
        kind = self.need(attrs, "type", index, "event")
        if kind != "DRAW":
            self.action(attrs, index)
            return
        player = self.player(attrs, index, "event")
        count = self.need(attrs, "text", index, "event")
        if not count.isdecimal() or len(count) > 2:
            raise self.unreadable(index, "text", f"{count!r} is not a number of cards")
        line = self.file_line(index)
        if int(count) == 0:
            self.body.append(StandPat(line, player))
            return
        old, after = self.held.get(player), drawn.get(player)
        if old is None or after is None:
            self.body.append(Discard(line, player, int(count), None))
            return
        new = self.cards(*after)
        self.body.append(Discard(line, player, int(count), tuple(c for c in old if c not in new)))
        self.body.append(Dealt(self.file_line(after[1]), player, (new,)))
        self.held[player] = new

    def ending(self, attrs: dict[str, str], index: int) -> None:
        tag = attrs["_tag"]
        if tag == "winner":
            player = self.player(attrs, index, "winner")
            self.winners.append((player, self.amount(attrs, "amount", index, "winner"), self.file_line(index)))
        elif tag == "cards" and attrs.get("type") in ("SHOWN", "MUCKED"):
            player = self.player(attrs, index, "cards")
            line = self.file_line(index)
            self.shown.append(Show(line, player, self.cards(attrs, index), None) if attrs["type"] == "SHOWN"
                              else Muck(line, player))
        elif tag == "event" and attrs.get("type") == "SHOW":
            self.showing.append(self.player(attrs, index, "event"))

    # ---- the hand ----
    def build(self) -> Hand:
        assert self.game is not None
        if self.game.name != FIVE_CARD_DRAW:  # its table only: the pipeline says the game is not audited
            return Hand(self.block.file, self.hand_line, self.block.end_line, self.hand_id, self.started, self.table,
                        self.button, tuple(self.seats), (), dialect="merge", game=self.game, shows_all_cards=False)
        line = self.winners[0][2] if self.winners else self.block.end_line
        body = self.body + [Marker(line, "summary")]
        returned = 0
        top = self.bets.uncalled()
        if top is not None:
            returned = top[1]
            body.append(Uncalled(line, top[0], returned))
        order = {p: i for i, p in enumerate(self.showing)}
        shown: list[Show | Muck] = sorted(self.shown, key=lambda s: order.get(s.player, len(order)))
        body.extend(shown)
        collected = 0
        left = returned
        for player, amount, at in self.winners:
            if top is not None and player == top[0] and left:  # the winner's amount holds the return
                back = min(left, amount)
                amount, left = amount - back, left - back
            collected += amount
            if amount:
                body.append(Collect(at, player, amount, "pot"))
        total = sum(self.bets.put_in.values()) - returned
        body.append(SummaryTotal(line, total, max(0, total - collected)))
        return Hand(self.block.file, self.hand_line, self.block.end_line, self.hand_id, self.started, self.table,
                    self.button, tuple(self.seats), tuple(body), dialect="merge", game=self.game,
                    shows_all_cards=False)


def parse_hand(block: RawBlock) -> Hand | ParseFailure | NothingHere:
    """A Merge Network block → ``Hand(dialect="merge")``, ``NothingHere`` (the file's ``<description>`` on its
    own, which the reader puts before each of its hands) or a ``ParseFailure``; never raises on any text."""
    if block.too_long:
        return too_long_failure(block)
    if not block.lines or not block.lines[0].startswith("<description "):
        return failure(block, 1, 1, "a Merge Network hand needs its file's <description> line (the game and the "
                                    "stakes), which is not before it")
    if len(block.lines) == 1:
        return NothingHere(block.first_line, "the file's description of its game")
    text = block.text()
    builder = _Builder(block, text)
    return read_xml(block, builder, text, "game", builder.build, root=_ROOT)
