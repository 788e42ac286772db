"""Boss Media: a block whose first line is ``<HISTORY ID=…`` → a ``Hand`` (``dialect="boss"``, with a ``Game``),
a file's XML prologue (``<?xml …?>``, ``<ROOT>``) → ``NothingHere``, anything else a ``ParseFailure`` with line,
column and caret.

Boss writes XML, one element per line: ``<HISTORY>`` (the hand: id, table, game, limit, stakes, currency, the
time as seconds since 1970 UTC), ``<PLAYER>`` (seat, name, stack, state, the dealer), ``<ACTION TYPE=…>`` (blinds,
the deal, bets, the draw), ``<SHOWDOWN>`` with a ``<RESULT>`` per player (what each won, the cards shown). It is
read with the standard library's XML parser (expat), not a grammar: expat checks the XML (a tag left open, an
attribute without quotes) and says on which line and column it stopped; this module reads the elements it
reports, each with its line. What the log does not write, the builder works out from what it does write, with
no judgement of its own (the engine judges):

* a card is a number, 0-51: ``n % 13`` is the rank (0 an ace, 1 a deuce … 12 a king), ``n // 13`` the suit
  (diamonds, clubs, hearts, spades); ``b`` is a card the log hides (another player's);
* ``VALUE`` of a call, a bet or a raise is the player's whole bet in the round after it (``ACTION_RAISE
  VALUE="4.00"``: raises to 4); the raise over the bet faced and the chips a call adds come from the round's
  earlier lines (``common.RoundBets``); a player whose stack the action empties is all-in;
* ``HAND_BOARD`` ends the first betting round (the draw follows); ``CHANGECARD COUNT="3"`` is a player's draw,
  with the hand after it: the hero's discard is the cards that left his hand (another player's are hidden);
* no uncalled-bet line: the show down's ``POT`` and ``RAKE`` are after the return; chips put in beyond them went
  back to the player whose bet in the last round nobody matched;
* the show down's results: a hand shown when two or more players were still in (written in the order the rules
  ask for, since the log does not tell it: the last round's last bettor first, else its first player to act,
  then clockwise), ``$(STR_G_MUCK)`` a muck, ``WIN`` a ``Collect`` of the pot; ``POT`` plus ``RAKE`` is the total.
  ``HAND`` names the hand with the client's message keys (``$(STR_G_WIN_PAIR) $(STR_G_CARDS_KINGS)``), not in
  words: no description is kept (the engine names the hand from its cards).

Side pots (``LEFTPOT``, ``RIGHTPOT``) are not in the logs at hand: every win is a ``Collect`` of ``pot``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final, NamedTuple

from audit.dialects.common import LineError, RoundBets, failure, to_amount, too_long_failure
from audit.dialects.xmlhand import ElementBuilder, read_xml
from audit.model import (
    Action, Collect, Dealt, Discard, Game, Hand, Item, Marker, Muck, NothingHere, ParseFailure, Post, Seat, Show,
    StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock

__all__ = ["card_of", "parse_hand"]

SUPPORTED_GAME: Final = "5 Card Draw"

_GAMES: Final = {"GAME_FCD": SUPPORTED_GAME, "GAME_THM": "Hold'em", "GAME_OMA": "Omaha", "GAME_OMAHL": "Omaha Hi/Lo",
                 "GAME_OMATU": "Omaha"}
_BETTING: Final = {"FL": "fixed-limit", "PL": "pot-limit", "NL": "no-limit"}
_BLINDS: Final = {"HAND_SB": "small", "HAND_BB": "big", "HAND_AB": "both", "HAND_ANTE": "ante"}
_VERBS: Final = {"ACTION_FOLD": "fold", "ACTION_CHECK": "check", "ACTION_CALL": "call", "ACTION_BET": "bet",
                 "ACTION_RAISE": "raise", "ACTION_ALLIN": "all-in"}
_RANKS: Final = "A23456789TJQK"
_SUITS: Final = "dchs"
_MUCK: Final = "$(STR_G_MUCK)"
_PROLOGUE: Final = re.compile(r"\s*(?:<\?xml[^>]*\?>\s*)?(?:<ROOT>\s*)?(?:</ROOT>\s*)?")


def card_of(link: str) -> str | None:
    """``"25"`` → ``"Kc"``; ``None`` for a hidden card (``b``) or a number that is not a card."""
    # (isdecimal, not isdigit: "²" is a digit that int() refuses; every number read here is checked the same way)
    if not link.isdecimal() or len(link) > 2 or int(link) > 51:
        return None
    n = int(link)
    return _RANKS[n % 13] + _SUITS[n // 13]


class _Result(NamedTuple):
    line: int
    player: str
    win: int
    muck: bool
    cards: tuple[str, ...]
    description: str


class _Builder(ElementBuilder):
    """Builds one hand from the elements expat reports, in order. State of this hand only."""

    def __init__(self, block: RawBlock, text: str) -> None:
        super().__init__(block, text)
        self.hand_line = 0
        self.hand_id = ""
        self.started = ""
        self.table = ""
        self.game: Game | None = None
        self.button = 0
        self.seats: list[Seat] = []
        self.stacks: dict[str, int] = {}
        self.body: list[Item] = []
        self.round = RoundBets()
        self.held: dict[str, tuple[str, ...]] = {}
        self.dealt = False
        # the element whose <CARD> children are being read: (tag, its attributes, its line within the block)
        self.open: tuple[str, dict[str, str], int] | None = None
        self.cards: list[str] = []
        self.results: list[_Result] = []
        self.showdown: tuple[int, dict[str, str]] | None = None

    # ---- where things are ----
    def amount(self, attrs: dict[str, str], name: str, index: int, tag: str) -> int:
        text = self.need(attrs, name, index, tag)
        value = to_amount(text, False) if self.game is not None and not self.game.currency else None
        if value is None:
            value = to_amount("€" + text, True)
        if value is None:
            raise self.unreadable(index, name, f"{text!r} is not an amount (12.50)")
        return value

    # ---- expat's callbacks ----
    def start(self, tag: str, attrs: dict[str, str], index: int) -> None:
        if self.done:
            raise LineError(index, 1, f"<{tag}> after the end of the hand")
        if tag == "HISTORY":
            self.history(attrs, index)
        elif self.game is None:
            raise LineError(index, 1, f"<{tag}> before the hand's <HISTORY> element")
        elif tag == "PLAYER":
            self.player(attrs, index)
        elif tag == "ACTION":
            self.action(attrs, index)
        elif tag == "CARD":
            if self.open is None:
                raise LineError(index, 1, "a <CARD> outside a deal, a draw or a result")
            link = self.need(attrs, "LINK", index, tag)
            if link != "b" and card_of(link) is None:
                raise self.unreadable(index, "LINK", f"{link!r} is not a card (0 to 51, or b for a hidden card)")
            self.cards.append(link)
        elif tag == "SHOWDOWN":
            self.showdown = index, attrs
        elif tag == "RESULT":
            self.open = ("RESULT", attrs, index)
            self.cards = []
        else:
            raise LineError(index, 1, f"<{tag}> is not an element of Boss Media's hand histories")

    def end(self, tag: str) -> None:
        if tag == "HISTORY":
            self.done = True
        elif tag in ("ACTION", "RESULT") and self.open is not None and self.open[0] in ("HAND_DEAL", "CHANGECARD",
                                                                                        "RESULT"):
            kind, attrs, index = self.open
            self.open = None
            self.with_cards(kind, attrs, index)

    # ---- the elements ----
    def history(self, attrs: dict[str, str], index: int) -> None:
        if self.game is not None:
            raise LineError(index, 1, "a second <HISTORY> element in one hand")
        self.hand_line = self.file_line(index)
        self.hand_id = self.need(attrs, "ID", index, "HISTORY")
        self.table = attrs.get("TABLE", "")
        game = self.need(attrs, "GAME", index, "HISTORY")
        betting = _BETTING.get(self.need(attrs, "LIMIT", index, "HISTORY"))
        if betting is None:
            raise self.unreadable(index, "LIMIT", f"{attrs['LIMIT']!r} is not a limit (FL, PL or NL)")
        currency = attrs.get("TABLECURRENCY", "")
        stakes = self.need(attrs, "STAKES", index, "HISTORY")
        small, slash, big = stakes.partition("/")
        low, high = to_amount("€" + small, True), to_amount("€" + big, True)
        if not slash or low is None or high is None:
            raise self.unreadable(index, "STAKES", f"{stakes!r} is not the stakes (0.50/1.00)")
        when = self.need(attrs, "DATE", index, "HISTORY")
        if not when.isdecimal() or len(when) > 11:
            raise self.unreadable(index, "DATE", f"{when!r} is not a time (seconds since 1970)")
        self.started = dt.datetime.fromtimestamp(int(when), dt.timezone.utc).strftime("%Y/%m/%d %H:%M:%S")
        self.game = Game(_GAMES.get(game, game), betting, low, high, currency, "UTC")

    def player(self, attrs: dict[str, str], index: int) -> None:
        state = attrs.get("STATE", "STATE_PLAYING")
        if state == "STATE_EMPTY":
            return
        seat_text = self.need(attrs, "SEAT", index, "PLAYER")
        if not seat_text.isdecimal() or len(seat_text) > 9:
            raise self.unreadable(index, "SEAT", f"{seat_text!r} is not a seat number")
        name = self.need(attrs, "NAME", index, "PLAYER")
        chips = self.amount(attrs, "AMOUNT", index, "PLAYER")
        self.seats.append(Seat(self.file_line(index), int(seat_text), name, chips, state == "STATE_SITOUT"))
        self.stacks[name] = chips
        if attrs.get("DEALER") == "Y":
            self.button = int(seat_text)

    def spend(self, player: str, amount: int) -> bool:
        """Take ``amount`` from the player's stack; whether that leaves it empty (all-in)."""
        left = self.stacks.get(player, 0) - amount
        self.stacks[player] = left
        return left <= 0 and amount > 0

    def action(self, attrs: dict[str, str], index: int) -> None:
        kind = self.need(attrs, "TYPE", index, "ACTION")
        line = self.file_line(index)
        if kind in ("HAND_DEAL", "CHANGECARD"):
            self.open = (kind, attrs, index)
            self.cards = []
            return
        if kind == "HAND_BOARD":
            self.round.new_round()
            self.body.append(Marker(line, "draw"))
            return
        player = self.need(attrs, "PLAYER", index, "ACTION")
        if kind == "HAND_BLINDS":
            blind = _BLINDS.get(self.need(attrs, "KIND", index, "ACTION"))
            if blind is None:
                raise self.unreadable(index, "KIND", f"{attrs['KIND']!r} is not a blind")
            amount = self.amount(attrs, "VALUE", index, "ACTION")
            self.round.post(player, amount, blind != "ante")
            self.body.append(Post(line, player, blind, amount, self.spend(player, amount)))
            return
        verb = _VERBS.get(kind)
        if verb is None:
            raise self.unreadable(index, "TYPE", f"{kind!r} is not an action of Boss Media's hand histories")
        if verb in ("fold", "check"):
            self.round.act(player, verb)
            self.body.append(Action(line, player, verb))
            return
        to = self.amount(attrs, "VALUE", index, "ACTION")
        before = self.round.bets.get(player, 0)
        if verb == "all-in":
            verb = "call" if to <= self.round.current else "bet" if self.round.current == 0 else "raise"
        if verb == "call":
            added = max(0, to - before)
            self.round.act(player, "call", added)
            self.body.append(Action(line, player, "call", added, 0, self.spend(player, added)))
        elif verb == "bet" and self.round.current == 0:
            self.round.act(player, "bet", to - before)
            self.body.append(Action(line, player, "bet", to - before, to - before, self.spend(player, to - before)))
        else:  # a raise (or a bet made over a bet: the engine says what it is)
            increment = self.round.raise_to(player, to)
            self.body.append(Action(line, player, "raise", increment, to, self.spend(player, to - before)))

    def with_cards(self, kind: str, attrs: dict[str, str], index: int) -> None:
        line = self.file_line(index)
        cards = tuple([card_of(c) or "" for c in self.cards])
        seen = all(cards)
        if kind == "RESULT":
            player = self.need(attrs, "PLAYER", index, "RESULT")
            win = self.amount(attrs, "WIN", index, "RESULT") if attrs.get("WIN") else 0
            described = attrs.get("HAND", "")
            self.results.append(_Result(line, player, win, described == _MUCK, cards if seen else (), described))
            return
        player = self.need(attrs, "PLAYER", index, "ACTION")
        if kind == "HAND_DEAL":
            if not self.dealt:
                self.dealt = True
                self.body.append(Marker(line, "deal"))
            if seen and cards:
                self.held[player] = cards
                self.body.append(Dealt(line, player, (cards,)))
            return
        count_text = self.need(attrs, "COUNT", index, "ACTION")
        if not count_text.isdecimal() or len(count_text) > 2:
            raise self.unreadable(index, "COUNT", f"{count_text!r} is not a number of cards")
        count = int(count_text)
        if count == 0:
            self.body.append(StandPat(line, player))
            return
        old = self.held.get(player)
        if seen and cards and old is not None:
            gone = tuple([c for c in old if c not in cards])
            self.body.append(Discard(line, player, count, gone))
            self.body.append(Dealt(line, player, (cards,)))
            self.held[player] = cards
        else:
            self.body.append(Discard(line, player, count, None))

    # ---- the hand ----
    def hand(self) -> Hand:
        if self.game is None:  # pragma: no cover - parse_hand checks that the block opens with <HISTORY
            raise LineError(1, 1, "no <HISTORY> element")
        body = self.body
        if self.showdown is not None:
            body.extend(self.settlement(*self.showdown))
        return Hand(self.block.file, self.hand_line, self.block.end_line, self.hand_id, self.started, self.table,
                    self.button, tuple(self.seats), tuple(body), dialect="boss", game=self.game,
                    shows_all_cards=False)

    def settlement(self, index: int, attrs: dict[str, str]) -> list[Item]:
        """The model's lines for the show down: the uncalled bet's return, the hands shown, the pots, the total."""
        line = self.file_line(index)
        out: list[Item] = [Marker(line, "summary")]
        pot = self.amount(attrs, "POT", index, "SHOWDOWN")
        rake = self.amount(attrs, "RAKE", index, "SHOWDOWN") if attrs.get("RAKE") else 0
        returned = sum(self.round.put_in.values()) - pot - rake
        top = self.round.uncalled()
        if returned > 0 and top is not None:
            out.append(Uncalled(line, top[0], returned))
        ring = sorted(self.seats, key=lambda s: s.seat)
        live = [s.player for s in ring if not s.sitting_out and s.player not in self.round.folded]
        if len(live) >= 2:
            by_player = {r.player: r for r in self.results}
            lead = self.round.last_aggressor or self.round.first_actor
            names = [s.player for s in ring]
            first = names.index(lead) if lead in names else next(
                (i for i, s in enumerate(ring) if s.seat > self.button), 0)
            for p in names[first:] + names[:first]:
                r = by_player.get(p)
                if p not in live or r is None:
                    continue
                if r.muck or not r.cards:
                    out.append(Muck(r.line, p))
                else:
                    out.append(Show(r.line, p, r.cards, None))
        for r in self.results:
            if r.win > 0:
                out.append(Collect(r.line, r.player, r.win, "pot"))
        out.append(SummaryTotal(line, pot + rake, rake))
        return out


def _is_prologue(block: RawBlock) -> bool:
    return _PROLOGUE.fullmatch(block.text()) is not None


def parse_hand(block: RawBlock) -> Hand | ParseFailure | NothingHere:
    """A Boss Media block → ``Hand(dialect="boss")``, ``NothingHere`` (the XML prologue) or a ``ParseFailure``;
    never raises on any text."""
    if block.too_long:
        return too_long_failure(block)
    if not block.lines:
        return failure(block, 1, 1, "empty hand")
    if not block.lines[0].startswith("<HISTORY "):
        if _is_prologue(block):
            return NothingHere(block.first_line, "the XML prologue")
        return failure(block, 1, 1, "a Boss Media file holds <HISTORY> elements (hands) after its prologue "
                                    "(<?xml …?>, <ROOT>)")
    text = block.text()
    closing = text.rfind("</ROOT>")
    if closing >= 0 and not text[closing + 7:].strip():
        text = text[:closing] + "\n"  # the root's end, after the file's last hand
    builder = _Builder(block, text)
    return read_xml(block, builder, text, "HISTORY", builder.hand)
