"""Full Tilt Poker: a block whose first line is ``Full Tilt Poker Game #…`` → a ``Hand`` (``dialect="fulltilt"``,
with a ``Game``), or a ``ParseFailure`` with line, column and caret.

``grammar/fulltilt.lark`` has one terminal per kind of line; ``common.LineKinds`` cuts the lines and
``common.SiteParser`` plays the grammar's tables, calling this module's builder for each line (one builder per
hand). What differs from PokerStars, and how the model gets it:

* the header holds the table's name and no button: the button is the later ``The button is in seat #n`` line;
* no colon after a player's name: a line is told by the verb after the name;
* ``raises to $y`` only: the raise over the bet faced is worked out from the round's earlier lines
  (``common.RoundBets``), as the model writes a raise (``raises <over the bet> to <total>``);
* ``Player3 is dealt 1 card`` (an opponent's draw, cards hidden) is an ``Event`` of kind ``drawn``;
* ``wins the pot ($1.90) with …`` is a ``Collect``; summary seat lines are kept as ``Event(kind="summary")``.
"""

from __future__ import annotations

import re
from typing import Any, Final

from lark import Lark

from audit.dialects.common import (
    CURRENCY_OF_SIGN, LineKinds, Misplaced, RoundBets, SiteParser, amount_of, failure, split_cards,
)
from audit.dialects.contract import LineCallback, RuleCallback
from audit.model import (
    Action, Collect, Dealt, Discard, Event, Game, Hand, Item, Marker, Muck, ParseFailure, Post, Seat, Show,
    StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock

__all__ = ["fulltilt_grammar", "parse_hand"]

SUPPORTED_GAME: Final = "5 Card Draw"

_BETTING: Final = {"Limit": "fixed-limit", "Pot Limit": "pot-limit", "No Limit": "no-limit"}
_POST_KIND: Final = {"posts the small blind of": "small", "posts the big blind of": "big", "posts": "big",
                     "posts a dead small blind of": "dead", "antes": "ante"}
_VERBS: Final = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet"}
_MARKERS: Final = {"HOLE CARDS": "deal", "DRAW": "draw", "FIRST DRAW": "draw", "SECOND DRAW": "draw2",
                   "THIRD DRAW": "draw3", "SHOW DOWN": "showdown", "SUMMARY": "summary"}
_EVENT_KIND: Final = {"has": "other", "sits": "sits-out", "is sitting": "sits-out", "has timed": "timed-out",
                      "has returned": "returns", "is disconnected": "disconnected", "has reconnected": "connected",
                      "leaves": "leaves"}
_BRACKETS: Final = re.compile(r"\[[^\]]*\]")


class _Builder:
    """Builds one hand's model objects as its lines are shifted. State of this hand only: cents or chips, the
    seats' names, the bets of the round."""

    def __init__(self) -> None:
        self.cents = True
        self.seat_names: dict[int, str] = {}
        self.round = RoundBets()

    def hand(self, c: list[Any]) -> Hand:
        line, hand_id, started, game, table = c[0]
        seats: list[Seat] = c[1]
        early: list[Item] = c[2] if len(c) > 2 and isinstance(c[2], list) else []
        at = 3 if early else 2
        button: int = c[at]
        body: list[Item] = c[at + 1] if len(c) > at + 1 else []
        return Hand("", line, 0, hand_id, started, table, button, tuple(seats), tuple(early + body),
                    dialect="fulltilt", game=game)

    def header(self, m: re.Match[str], line: int) -> tuple[int, str, str, Game, str]:
        small = m.group("small")
        sign = small[0] if small[0] in CURRENCY_OF_SIGN else ""
        self.cents = bool(sign)
        game = Game(m.group("game"), _BETTING[m.group("betting")], amount_of(m, "small", self.cents, line),
                    amount_of(m, "big", self.cents, line), CURRENCY_OF_SIGN.get(sign, ""), m.group("zone"))
        return line, m.group("id"), f"{m.group('date')} {m.group('time')}", game, m.group("table")

    def seat(self, m: re.Match[str], line: int) -> Seat:
        number, name = int(m.group("seat")), m.group("name")
        self.seat_names[number] = name
        return Seat(line, number, name, amount_of(m, "amount", self.cents, line), m.group("out") is not None)

    def button(self, m: re.Match[str], line: int) -> int:
        return int(m.group("button"))

    def post(self, m: re.Match[str], line: int) -> Post:
        kind = _POST_KIND[m.group("kind")]
        amount = amount_of(m, "amount", self.cents, line)
        self.round.post(m.group("name"), amount, kind in ("small", "big"))
        return Post(line, m.group("name"), kind, amount, m.group("all_in") is not None)

    def act(self, m: re.Match[str], line: int) -> Action:
        name = m.group("name")
        all_in = m.group("all_in") is not None
        plain = m.group("plain")
        if plain is not None:
            self.round.act(name, _VERBS[plain])
            return Action(line, name, _VERBS[plain], 0, 0, all_in)
        verb = m.group("verb")
        if verb is not None:
            amount = amount_of(m, "amount", self.cents, line)
            kind = _VERBS[verb]
            self.round.act(name, kind, amount)
            return Action(line, name, kind, amount, amount if kind == "bet" else 0, all_in)
        to = amount_of(m, "to", self.cents, line)
        return Action(line, name, "raise", self.round.raise_to(name, to), to, all_in)

    def discards(self, m: re.Match[str], line: int) -> Discard:
        cards = m.group("cards")
        return Discard(line, m.group("name"), int(m.group("count")), split_cards(cards) if cards is not None else None)

    def stands_pat(self, m: re.Match[str], line: int) -> StandPat:
        return StandPat(line, m.group("name"))

    def drawn(self, m: re.Match[str], line: int) -> Event:
        return Event(line, m.group("name"), "drawn", m.group().rstrip()[len(m.group("name")) + 1:])

    def dealt(self, m: re.Match[str], line: int) -> Dealt:
        groups = tuple(split_cards(g) for g in _BRACKETS.findall(m.group("groups")) if g != "[]")
        return Dealt(line, m.group("name"), groups)

    def shows(self, m: re.Match[str], line: int) -> Show:
        return Show(line, m.group("name"), split_cards(m.group("cards")), m.group("description") or None)

    def mucks(self, m: re.Match[str], line: int) -> Muck:
        return Muck(line, m.group("name"))

    def collected(self, m: re.Match[str], line: int) -> Collect:
        where = m.group("pot")
        side = m.group("side")
        pot = ("pot" if where == "the pot" else "main" if where == "the main pot" else "side" if side is None
               else "side-" + side)
        return Collect(line, m.group("name"), amount_of(m, "amount", self.cents, line), pot)

    def uncalled(self, m: re.Match[str], line: int) -> Uncalled:
        return Uncalled(line, m.group("name"), amount_of(m, "amount", self.cents, line))

    def marker(self, m: re.Match[str], line: int) -> Marker:
        street = _MARKERS[m.group("street")]
        if street.startswith("draw"):
            self.round.new_round()
        return Marker(line, street)

    def event(self, m: re.Match[str], line: int) -> Event:
        what = m.group("what")
        words = what.split(" ", 2)
        kind = _EVENT_KIND.get(" ".join(words[:2]), _EVENT_KIND.get(words[0], "other"))
        return Event(line, m.group("name"), kind, what)

    def total(self, m: re.Match[str], line: int) -> SummaryTotal:
        return SummaryTotal(line, amount_of(m, "total", self.cents, line), amount_of(m, "rake", self.cents, line))

    def summary_seat(self, m: re.Match[str], line: int) -> Event:
        return Event(line, self.seat_names.get(int(m.group("seat")), ""), "summary", m.group().rstrip())

    def other(self, m: re.Match[str], line: int) -> Event:
        return Event(line, "", "other", m.group().rstrip())


_ON_LINE: Final[dict[str, LineCallback[_Builder]]] = {
    "HEADER": _Builder.header, "SEAT": _Builder.seat, "BUTTON": _Builder.button, "POST": _Builder.post,
    "ACT": _Builder.act, "DISCARDS": _Builder.discards, "STANDS_PAT": _Builder.stands_pat,
    "DRAWN": _Builder.drawn, "DEALT": _Builder.dealt, "SHOWS": _Builder.shows, "MUCKS": _Builder.mucks,
    "COLLECTED": _Builder.collected, "UNCALLED": _Builder.uncalled, "MARKER": _Builder.marker,
    "EVENT": _Builder.event, "TOTAL": _Builder.total, "SUMMARY_SEAT": _Builder.summary_seat,
    "OTHER": _Builder.other,
}
_ON_RULE: Final[dict[str, RuleCallback[_Builder]]] = {"hand": _Builder.hand}


def _game_of(kind: str, m: re.Match[str]) -> str | None:
    return m.group("game") if kind == "HEADER" else None


_LINE_KINDS: Final = LineKinds(
    "Full Tilt Poker",
    first_word={"Full": ("HEADER",), "FullTiltPoker": ("HEADER",), "Seat": ("SEAT",), "The": ("BUTTON",),
                "***": ("MARKER",), "Dealt": ("DEALT",), "Uncalled": ("UNCALLED",), "Total": ("TOTAL",)},
    in_summary={"Seat": ("SUMMARY_SEAT",)},
    verbs={"posts": ("POST",), "antes": ("POST",), "folds": ("ACT",), "checks": ("ACT",), "calls": ("ACT",),
           "bets": ("ACT",), "raises": ("ACT",), "discards": ("DISCARDS",), "stands": ("STANDS_PAT",),
           "is": ("DRAWN", "EVENT"), "shows": ("SHOWS",), "mucks": ("MUCKS",), "wins": ("COLLECTED",),
           "ties": ("COLLECTED",), "has": ("EVENT",), "sits": ("EVENT",), "leaves": ("EVENT",)},
    describe={"HEADER": "the header line", "SEAT": "a seat line", "BUTTON": "the button line",
              "MARKER": "a street line", "DEALT": "a 'Dealt to' line", "UNCALLED": "an 'Uncalled bet' line",
              "TOTAL": "the 'Total pot' line"},
    opens_summary=frozenset(["TOTAL"]), game_of=_game_of, supported=SUPPORTED_GAME,
)


def _out_of_place(block: RawBlock, exc: Misplaced) -> ParseFailure:
    if exc.kind == "$END":
        return failure(block, len(block.lines), len(block.lines[-1]) + 1,
                       "the hand ends too early: its seat lines or the button line ('The button is in seat #n') "
                       "are missing")
    if "BUTTON" in exc.expected and exc.kind != "SEAT":
        what = "the button line ('The button is in seat #n') must come after the seats and the blinds"
    elif exc.expected == {"SEAT"}:
        what = "a seat line ('Seat 1: <player> ($2.73)') must come right after the header"
    else:
        what = f"{_LINE_KINDS.describe.get(exc.kind, 'this line')} cannot stand here"
    return failure(block, exc.line, 1, what)


_SITE: Final = SiteParser("fulltilt", _Builder, _ON_LINE, _ON_RULE, _LINE_KINDS.tokens, _out_of_place)


def fulltilt_grammar(strict: bool = False) -> Lark:
    """The grammar's LALR tables (built once per process; ``strict=True``: conflicts are errors)."""
    return _SITE.grammar(strict)


def parse_hand(block: RawBlock) -> Hand | ParseFailure:
    """A Full Tilt Poker block → ``Hand(dialect="fulltilt")`` or a ``ParseFailure``; never raises on any text."""
    return _SITE.parse(block)
