"""PokerStars (the "site" dialect): a block whose first line is ``PokerStars Game #…`` / ``PokerStars Hand #…`` →
a ``Hand`` (``dialect="site"``, with a ``Game``), or a ``ParseFailure`` with line, column and caret.

``grammar/pokerstars.lark`` has one terminal per kind of line; the lexer below yields one token per line after
matching only the terminal that the line's first words point at (the others only if that fails), and
``common.SiteParser`` plays the grammar's LALR tables over the tokens, calling the builder's method for each
line as it is shifted (no parse tree). The patterns carry named groups, which the builder reads from the
line's match: one regular-expression match per line in all. The builder is made for each hand: two threads may
parse at once.

Decisions (see also the grammar file):

* Amounts are integers: cents when the header's stakes carry a currency sign (``$0.05`` → 5, ``$18.10`` →
  1810, read with integer arithmetic on the digits, never floats), chips as written in play money (``(10/20)``).
  A malformed amount (three decimals, a decimal in play money) fails the hand with a caret on the amount.
* ``Game.small`` / ``Game.big`` are the header's two amounts as written (the blinds in no/pot limit, the small
  and big bets in fixed limit); ``currency`` is the header's code, else the sign's (``$`` → ``USD``), else
  ``""`` (play money).
* No street marker is invented: the site prints none around a single draw; items come in file order.
* Lines that change nothing at the table become ``Event`` s: ``sits out`` / ``is sitting out`` → ``sits-out``,
  ``has timed out`` → ``timed-out``, ``leaves the table`` → ``leaves``, ``joins the table at seat #n`` →
  ``joins``, ``is disconnected`` / ``is connected``, ``has returned`` → ``returns``, chat → ``said`` (text = the
  quoted words); ``doesn't show hand``, ``will be allowed to play after the button``, ``was removed from the
  table for failing to post`` → ``other``. ``text`` holds the phrase after the name. The player need not be
  seated.
* Summary seat lines (``Seat 3: Hero (button) mucked [Qd 4h 6c 6h Td]``) are kept as
  ``Event(kind="summary", player=<the seat's player>, text=<the whole line>)``: no ``Show`` is invented from
  them. ``Total pot … | Rake …`` → ``SummaryTotal`` (the main/side breakdown is not kept).
* ``Dealt to Hero [] [5 new]`` (all five thrown) is read as one group, as the house format writes it.
* Games other than 5 Card Draw are read the same way, with ``game.name`` as written; there, a line that no
  pattern reads becomes ``Event(player="", kind="other", text=<the line>)`` so that the engine can report the
  hand as an unsupported game. In a 5 Card Draw hand such a line is a ``ParseFailure``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from lark import Lark

from audit.dialects.common import (
    CURRENCY_OF_SIGN, LineError, Misplaced, SiteParser, amount_of, diagnose_whole, failure, lines_of,
    split_cards, to_amount, viable_prefix, word_start,
)
from audit.dialects.contract import LineCallback, RuleCallback, Token
from audit.model import (
    Action, Collect, Dealt, Discard, Event, Game, Hand, Item, Marker, Muck, ParseFailure, Post, Seat, Show,
    StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock

__all__ = ["parse_hand", "pokerstars_grammar", "to_amount"]

SUPPORTED_GAME: Final = "5 Card Draw"

_BETTING: Final = {"Limit": "fixed-limit", "Pot Limit": "pot-limit", "No Limit": "no-limit"}
_POST_KIND: Final = {"small blind": "small", "big blind": "big", "small & big blinds": "both", "the ante": "ante"}
_VERBS: Final = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet"}
_MARKERS: Final = {"DEALING HANDS": "deal", "FIRST DRAW": "draw", "DRAW": "draw", "SECOND DRAW": "draw2",
                   "THIRD DRAW": "draw3", "SHOW DOWN": "showdown", "SUMMARY": "summary"}
# The event kind from the phrase's first two words.
_EVENT_KIND: Final = {
    "sits out": "sits-out", "is sitting": "sits-out", "has timed": "timed-out", "leaves the": "leaves",
    "joins the": "joins", "is disconnected": "disconnected", "is connected": "connected",
    "has returned": "returns",
}
_BRACKETS: Final = re.compile(r"\[[^\]]*\]")


class _Builder:
    """Builds one hand's model objects as its lines are shifted. State of this hand only: cents or chips (set
    by the header), the seats' names (for the summary seat lines)."""

    def __init__(self) -> None:
        self.cents = True
        self.seat_names: dict[int, str] = {}

    # ---- the hand and its header ----
    def hand(self, c: list[Any]) -> Hand:
        (line, hand_id, started, game), (table, button), seats = c[0], c[1], c[2]
        body: tuple[Item, ...] = tuple(c[3]) if len(c) > 3 else ()
        return Hand("", line, 0, hand_id, started, table, button, tuple(seats), body, dialect="site", game=game)

    def header(self, m: re.Match[str], line: int) -> tuple[int, str, str, Game]:
        small, code = m.group("small"), m.group("currency")
        sign = small[0] if small[0] in CURRENCY_OF_SIGN else ""
        self.cents = bool(sign or code)
        currency = code or CURRENCY_OF_SIGN.get(sign, "")
        game = Game(m.group("game"), _BETTING[m.group("betting")], amount_of(m, "small", self.cents, line),
                    amount_of(m, "big", self.cents, line), currency, m.group("zone") or "")
        return line, m.group("id"), m.group("date"), game

    def table(self, m: re.Match[str], line: int) -> tuple[str, int]:
        return m.group("table"), int(m.group("button"))

    def seat(self, m: re.Match[str], line: int) -> Seat:
        number, name = int(m.group("seat")), m.group("name")
        self.seat_names[number] = name
        return Seat(line, number, name, amount_of(m, "amount", self.cents, line), m.group("out") is not None)

    # ---- body lines ----
    def post(self, m: re.Match[str], line: int) -> Post:
        return Post(line, m.group("name"), _POST_KIND[m.group("kind")], amount_of(m, "amount", self.cents, line),
                    m.group("all_in") is not None)

    def act(self, m: re.Match[str], line: int) -> Action:
        all_in = m.group("all_in") is not None
        plain = m.group("plain")
        if plain is not None:
            return Action(line, m.group("name"), _VERBS[plain], 0, 0, all_in)
        verb = m.group("verb")
        if verb is not None:
            amount = amount_of(m, "amount", self.cents, line)
            kind = _VERBS[verb]
            return Action(line, m.group("name"), kind, amount, amount if kind == "bet" else 0, all_in)
        return Action(line, m.group("name"), "raise", amount_of(m, "inc", self.cents, line),
                      amount_of(m, "to", self.cents, line), all_in)

    def discards(self, m: re.Match[str], line: int) -> Discard:
        cards = m.group("cards")
        return Discard(line, m.group("name"), int(m.group("count")), split_cards(cards) if cards is not None else None)

    def stands_pat(self, m: re.Match[str], line: int) -> StandPat:
        return StandPat(line, m.group("name"))

    def dealt(self, m: re.Match[str], line: int) -> Dealt:
        groups = tuple(split_cards(g) for g in _BRACKETS.findall(m.group("groups")) if g != "[]")
        return Dealt(line, m.group("name"), groups)

    def shows(self, m: re.Match[str], line: int) -> Show:
        return Show(line, m.group("name"), split_cards(m.group("cards")), m.group("description"))

    def mucks(self, m: re.Match[str], line: int) -> Muck:
        return Muck(line, m.group("name"))

    def collected(self, m: re.Match[str], line: int) -> Collect:
        where = m.group("pot")
        if where == "pot":
            pot = "pot"
        elif where == "main pot":
            pot = "main"
        else:
            side = m.group("side")
            pot = "side" if side is None else "side-" + side
        return Collect(line, m.group("name"), amount_of(m, "amount", self.cents, line), pot)

    def uncalled(self, m: re.Match[str], line: int) -> Uncalled:
        return Uncalled(line, m.group("name"), amount_of(m, "amount", self.cents, line))

    def marker(self, m: re.Match[str], line: int) -> Marker:
        return Marker(line, _MARKERS[m.group("street")])

    def event(self, m: re.Match[str], line: int) -> Event:
        what = m.group("what")
        head = " ".join(what.split(" ", 2)[:2])
        return Event(line, m.group("name"), _EVENT_KIND.get(head, "other"), what)

    def said(self, m: re.Match[str], line: int) -> Event:
        return Event(line, m.group("name"), "said", m.group("text"))

    def total(self, m: re.Match[str], line: int) -> SummaryTotal:
        return SummaryTotal(line, amount_of(m, "total", self.cents, line), amount_of(m, "rake", self.cents, line))

    def summary_seat(self, m: re.Match[str], line: int) -> Event:
        player = self.seat_names.get(int(m.group("seat")), "")
        return Event(line, player, "summary", m.group().rstrip())

    def other(self, m: re.Match[str], line: int) -> Event:
        return Event(line, "", "other", m.group().rstrip())


_ON_LINE: Final[dict[str, LineCallback[_Builder]]] = {
    "HEADER": _Builder.header, "TABLE": _Builder.table, "SEAT": _Builder.seat, "POST": _Builder.post,
    "ACT": _Builder.act, "DISCARDS": _Builder.discards, "STANDS_PAT": _Builder.stands_pat, "DEALT": _Builder.dealt,
    "SHOWS": _Builder.shows, "MUCKS": _Builder.mucks, "COLLECTED": _Builder.collected,
    "UNCALLED": _Builder.uncalled, "MARKER": _Builder.marker, "EVENT": _Builder.event, "SAID": _Builder.said,
    "TOTAL": _Builder.total, "SUMMARY_SEAT": _Builder.summary_seat, "OTHER": _Builder.other,
}
_ON_RULE: Final[dict[str, RuleCallback[_Builder]]] = {"hand": _Builder.hand}

# Candidate terminals from a line's first word; a line that starts with a player's name is dispatched on the
# verb after the first ": " that is followed by a known verb (names may hold spaces, even ": "); a line without
# such a verb is a collect, a chat line or an event. The first guess is right for every line of a real hand;
# only when its pattern fails are the other candidates tried (then the line's error, or OTHER).
_BY_FIRST_WORD: Final[dict[str, str]] = {
    "PokerStars": "HEADER", "Table": "TABLE", "Seat": "SEAT", "***": "MARKER", "Dealt": "DEALT",
    "Uncalled": "UNCALLED", "Total": "TOTAL",
}
_IN_SUMMARY: Final[dict[str, str]] = {**_BY_FIRST_WORD, "Seat": "SUMMARY_SEAT"}
_AFTER_COLON: Final = {
    "posts": "POST", "folds": "ACT", "checks": "ACT", "calls": "ACT", "bets": "ACT", "raises": "ACT",
    "discards": "DISCARDS", "stands": "STANDS_PAT", "shows": "SHOWS", "mucks": "MUCKS", "sits": "EVENT",
    "is": "EVENT", "doesn't": "EVENT",
}


def _first_guess(line: str, first_word: dict[str, str]) -> str:
    found = first_word.get(line[:line.find(" ")])
    if found is not None:
        return found
    colon = line.find(": ")
    if colon >= 0:
        end = line.find(" ", colon + 2)
        verb = _AFTER_COLON.get(line[colon + 2:end] if end >= 0 else line[colon + 2:])
        if verb is not None:
            return verb
    if " collected " in line:
        return "COLLECTED"
    if ' said, "' in line:
        return "SAID"
    return "EVENT"


def _candidates(line: str, first_word: dict[str, str]) -> list[str]:
    """Every terminal that might read the line, most likely first."""
    found = []
    space = line.find(" ")
    first = first_word.get(line[:space] if space >= 0 else line)
    if first is not None:
        found.append(first)
    colon = line.find(": ")
    while colon >= 0:
        end = line.find(" ", colon + 2)
        verb = _AFTER_COLON.get(line[colon + 2:end] if end >= 0 else line[colon + 2:])
        if verb is not None:
            found.append(verb)
            break
        colon = line.find(": ", colon + 2)
    if " collected " in line:
        found.append("COLLECTED")
    if ' said, "' in line:
        found.append("SAID")
    found.append("EVENT")
    return found


_NAME_PREFIX: Final = "(?P<name>"  # the colon-led patterns start (?P<name>[^\n]+?): (Lark makes the \n a newline)
_LINE_KINDS: Final = {
    "HEADER": "the header line", "TABLE": "the table line", "SEAT": "a seat line", "MARKER": "a street line",
    "DEALT": "a 'Dealt to' line", "UNCALLED": "an 'Uncalled bet' line", "TOTAL": "the 'Total pot' line",
}


def _diagnose(line: str, first_word: dict[str, str], patterns: dict[str, re.Pattern[str]]) -> tuple[int, str]:
    """Column (1-based) and plain words for a line that no pattern reads. Only on the error path.

    The line (for ``<name>: <verb> …`` lines, the part after the name) is matched against the pattern its first
    words point at with the ``regex`` module's partial matching: the caret goes under the first word that
    cannot fit. Patterns whose free text (a table name, a player's name) could absorb anything give column 1.
    """
    space = line.find(" ")
    kind = first_word.get(line[:space] if space >= 0 else line)
    if kind is not None and kind in _LINE_KINDS:
        return diagnose_whole(patterns[kind].pattern, line, _LINE_KINDS[kind])
    colon = line.find(": ")
    while colon >= 0:
        end = line.find(" ", colon + 2)
        verb = line[colon + 2:end] if end >= 0 else line[colon + 2:]
        name = _AFTER_COLON.get(verb)
        pattern = patterns[name].pattern if name is not None else ""
        if pattern.startswith(_NAME_PREFIX) and "+?): " in pattern:
            tail = line[colon + 2:]
            stop = viable_prefix(pattern[pattern.index("+?): ") + 5:], tail)
            if stop >= len(tail):
                return len(line) + 1, f"the {verb!r} line stops short"
            start = word_start(tail, stop)
            word = tail[start:].split(" ", 1)[0]
            return colon + 3 + start, f"cannot read this {verb!r} line from {word!r} on"
        colon = line.find(": ", colon + 2)
    return 1, "cannot read this line: it is not a line of the site's hand histories"


def _tokens(text: str, patterns: dict[str, re.Pattern[str]]) -> Iterator[Token]:
    """One token per line; the terminal's pattern (from the grammar file) must match the whole line.

    In a hand of another game than 5 Card Draw (read from the header line), a line that no candidate reads is
    an ``OTHER`` token instead of an error.
    """
    first_word = _BY_FIRST_WORD
    tolerant = False
    for line_no, pos, line in lines_of(text):
        nl = pos + len(line)
        if line_no == 1:
            tolerant = line.startswith("PokerStars ") and f" {SUPPORTED_GAME} " not in line
        name = _first_guess(line, first_word)
        m = patterns[name].match(text, pos)
        if m is None or m.end() != nl + 1:
            for name in _candidates(line, first_word):
                m = patterns[name].match(text, pos)
                if m is not None and m.end() == nl + 1:
                    break
            else:
                if not tolerant or line_no == 1:
                    column, what = _diagnose(line, first_word, patterns)
                    raise LineError(line_no, column, what)
                name = "OTHER"
                m = patterns[name].match(text, pos)
                assert m is not None
        if name == "MARKER" and m.group("street") == "SUMMARY":
            first_word = _IN_SUMMARY
        yield name, m, line_no


_TOKEN_NAMES: Final = {**_LINE_KINDS, "SUMMARY_SEAT": "a summary seat line", "$END": "the end of the hand"}


def _out_of_place(block: RawBlock, exc: Misplaced) -> ParseFailure:
    """A line that reads but stands where the hand's structure does not allow it (header, table, seats, body)."""
    if exc.kind == "$END":
        return failure(block, len(block.lines), len(block.lines[-1]) + 1,
                       "the hand ends too early: its table or seat lines are missing")
    what = _TOKEN_NAMES.get(exc.kind, "this line")
    if "TABLE" in exc.expected:
        what = "the table line ('Table '…' Seat #n is the button') must come right after the header"
    elif exc.expected == {"SEAT"}:
        what = "a seat line ('Seat 1: <player> ($1.52 in chips)') must come right after the table line"
    else:
        what += " cannot stand here"
    return failure(block, exc.line, 1, what)


_SITE: Final = SiteParser("pokerstars", _Builder, _ON_LINE, _ON_RULE, _tokens, _out_of_place)


def pokerstars_grammar(strict: bool = False) -> Lark:
    """The grammar's LALR tables (built once per process; ``strict=True``: conflicts are errors)."""
    return _SITE.grammar(strict)


def parse_hand(block: RawBlock) -> Hand | ParseFailure:
    """A PokerStars block → ``Hand(dialect="site")`` or a ``ParseFailure``; never raises on any text."""
    return _SITE.parse(block)
