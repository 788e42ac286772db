"""The site dialect: a block whose first line is ``PokerStars Game #…`` / ``PokerStars Hand #…`` → a ``Hand``
(``dialect="site"``, with a ``Game``), or a ``ParseFailure`` with line, column and caret.

Same design as the house parser (``audit/parse.py``): ``grammar/site.lark`` has one terminal per kind of line,
a custom lexer yields one token per line after matching only the terminal that the line's first words point
at (the others only if that fails), and the transformer runs inside the LALR parser (no parse tree). Three
differences, all for speed (about 1.6 times the hands per second of a rule per line):

* the patterns carry named groups, and the lexer hands each line's match object to the transformer, which
  reads the fields from it: one regular-expression match per line in all;
* the transformer's methods are named after the terminals: Lark calls them as each line is shifted, so the
  grammar needs no rule per line;
* the seat and body lists are left-recursive rules whose callback appends to one Python list.

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
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.common import LexerConf
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer, LexerState

from audit.model import (
    Action, Collect, Dealt, Discard, Event, Game, Hand, Item, Marker, Muck, ParseFailure, Post, Seat, Show,
    StandPat, SummaryTotal, Uncalled,
)
from audit.parse import _failure_from, failure, split_cards
from audit.read import RawBlock
from audit.resources import data_dir

__all__ = ["parse_site_block", "site_parser", "to_amount"]

SUPPORTED_GAME = "5 Card Draw"

_BETTING = {"Limit": "fixed-limit", "Pot Limit": "pot-limit", "No Limit": "no-limit"}
_CURRENCY_OF_SIGN = {"$": "USD", "€": "EUR", "£": "GBP"}
_POST_KIND = {"small blind": "small", "big blind": "big", "small & big blinds": "both", "the ante": "ante"}
_VERBS = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet"}
_MARKERS = {"DEALING HANDS": "deal", "FIRST DRAW": "draw", "DRAW": "draw", "SECOND DRAW": "draw2",
            "THIRD DRAW": "draw3", "SHOW DOWN": "showdown", "SUMMARY": "summary"}
# The event kind from the phrase's first two words.
_EVENT_KIND = {
    "sits out": "sits-out", "is sitting": "sits-out", "has timed": "timed-out", "leaves the": "leaves",
    "joins the": "joins", "is disconnected": "disconnected", "is connected": "connected",
    "has returned": "returns",
}
_BRACKETS = re.compile(r"\[[^\]]*\]")


class _LineError(Exception):
    """A line that does not read (raised by the lexer), or an amount that the line's pattern accepted but that
    is not a valid amount (``$1.234``, ``1.5`` chips; raised by the transformer)."""

    def __init__(self, line: int, column: int, what: str) -> None:
        super().__init__(what)
        self.line = line  # the line within the block (1-based)
        self.column = column
        self.what = what


@lru_cache(maxsize=4096)
def to_amount(text: str, cents: bool) -> int | None:
    """``"$18.10"`` → 1810 (``cents``), ``"1500"`` → 1500 (chips); ``None`` if the text is not an amount.

    Exact: the digits are read as integers, never through a float. A currency amount must carry its sign and
    at most two decimals; a chip amount is a whole number without a sign.
    """
    signed = text[:1] in ("$", "€", "£")
    if signed != cents:
        return None
    digits = (text[1:] if signed else text).replace(",", "")
    whole, dot, frac = digits.partition(".")
    if not whole.isdigit() or (dot and not frac.isdigit()) or "." in frac:
        return None
    if not cents:
        return int(whole) if not dot else None
    if len(frac) > 2:
        return None
    return int(whole) * 100 + (int(frac.ljust(2, "0")) if frac else 0)


class _LineToken(Token):
    """A line's token, carrying the match of its terminal's pattern (the transformer reads the groups)."""

    __slots__ = ("match",)
    match: re.Match[str]

    @classmethod
    def of_line(cls, name: str, line: str, pos: int, line_no: int, match: re.Match[str]) -> _LineToken:
        """The token, with every attribute Lark reads set (faster than ``Token.__new__``'s keyword dance)."""
        tok = str.__new__(cls, line)
        tok.type = name
        tok.value = line
        tok.start_pos = pos
        tok.end_pos = pos + len(line)
        tok.line = tok.end_line = line_no
        tok.column = 1
        tok.end_column = len(line) + 1
        tok.match = match
        return tok


class SiteBuilder(Transformer[Token, Any]):
    """Builds model objects inside the parser: one method per terminal (called as the line is shifted), and
    ``hand`` / ``seats`` / ``body`` for the rules. State per hand: file line numbers, cents or chips, seats."""

    def __init__(self) -> None:
        super().__init__(visit_tokens=True)
        self.numbers: list[int] = []
        self.cents = True  # amounts in cents (a currency game) or chips (play money); set by the header
        self.seat_names: dict[int, str] = {}

    def reset(self, numbers: list[int]) -> None:
        self.numbers = numbers
        self.cents = True
        self.seat_names = {}

    def _at(self, tok: Token) -> int:
        return self.numbers[tok.line - 1]  # type: ignore[operator]

    def _amount(self, tok: _LineToken, group: str) -> int:
        text = tok.match.group(group)
        value = to_amount(text, self.cents)
        if value is None:
            column = tok.match.start(group) - tok.match.start() + 1
            kind = "a currency amount ($1.25)" if self.cents else "a whole number of chips (a play-money hand)"
            raise _LineError(tok.line or 0, column, f"{text!r} is not {kind}")
        return value

    # ---- the hand and its header ----
    def hand(self, c: list[Any]) -> Hand:
        (line, hand_id, started, game), (table, button), seats = c[0], c[1], c[2]
        body: tuple[Item, ...] = tuple(c[3]) if len(c) > 3 else ()
        return Hand("", line, 0, hand_id, started, table, button, tuple(seats), body, dialect="site", game=game)

    def seats(self, c: list[Any]) -> list[Any]:
        """``seats: SEAT | seats SEAT``: one list, appended to (the first reduction's list is fresh)."""
        if len(c) == 1:
            return c
        c[0].append(c[1])
        return c[0]  # type: ignore[no-any-return]

    body = seats

    def HEADER(self, tok: _LineToken) -> tuple[int, str, str, Game]:
        m = tok.match
        small, code = m.group("small"), m.group("currency")
        sign = small[0] if small[0] in _CURRENCY_OF_SIGN else ""
        self.cents = bool(sign or code)
        currency = code or _CURRENCY_OF_SIGN.get(sign, "")
        game = Game(m.group("game"), _BETTING[m.group("betting")], self._amount(tok, "small"),
                    self._amount(tok, "big"), currency)
        return self._at(tok), m.group("id"), m.group("date"), game

    def TABLE(self, tok: _LineToken) -> tuple[str, int]:
        m = tok.match
        return m.group("table"), int(m.group("button"))

    def SEAT(self, tok: _LineToken) -> Seat:
        m = tok.match
        number, name = int(m.group("seat")), m.group("name")
        self.seat_names[number] = name
        return Seat(self._at(tok), number, name, self._amount(tok, "amount"), m.group("out") is not None)

    # ---- body lines ----
    def POST(self, tok: _LineToken) -> Post:
        m = tok.match
        return Post(self._at(tok), m.group("name"), _POST_KIND[m.group("kind")], self._amount(tok, "amount"),
                    m.group("all_in") is not None)

    def ACT(self, tok: _LineToken) -> Action:
        m = tok.match
        all_in = m.group("all_in") is not None
        plain = m.group("plain")
        if plain is not None:
            return Action(self._at(tok), m.group("name"), _VERBS[plain], 0, 0, all_in)
        verb = m.group("verb")
        if verb is not None:
            amount = self._amount(tok, "amount")
            kind = _VERBS[verb]
            return Action(self._at(tok), m.group("name"), kind, amount, amount if kind == "bet" else 0, all_in)
        return Action(self._at(tok), m.group("name"), "raise", self._amount(tok, "inc"), self._amount(tok, "to"),
                      all_in)

    def DISCARDS(self, tok: _LineToken) -> Discard:
        m = tok.match
        cards = m.group("cards")
        return Discard(self._at(tok), m.group("name"), int(m.group("count")),
                       split_cards(cards) if cards is not None else None)

    def STANDS_PAT(self, tok: _LineToken) -> StandPat:
        return StandPat(self._at(tok), tok.match.group("name"))

    def DEALT(self, tok: _LineToken) -> Dealt:
        m = tok.match
        groups = tuple(split_cards(g) for g in _BRACKETS.findall(m.group("groups")) if g != "[]")
        return Dealt(self._at(tok), m.group("name"), groups)

    def SHOWS(self, tok: _LineToken) -> Show:
        m = tok.match
        return Show(self._at(tok), m.group("name"), split_cards(m.group("cards")), m.group("description"))

    def MUCKS(self, tok: _LineToken) -> Muck:
        return Muck(self._at(tok), tok.match.group("name"))

    def COLLECTED(self, tok: _LineToken) -> Collect:
        m = tok.match
        where = m.group("pot")
        if where == "pot":
            pot = "pot"
        elif where == "main pot":
            pot = "main"
        else:
            side = m.group("side")
            pot = "side" if side is None else "side-" + side
        return Collect(self._at(tok), m.group("name"), self._amount(tok, "amount"), pot)

    def UNCALLED(self, tok: _LineToken) -> Uncalled:
        return Uncalled(self._at(tok), tok.match.group("name"), self._amount(tok, "amount"))

    def MARKER(self, tok: _LineToken) -> Marker:
        return Marker(self._at(tok), _MARKERS[tok.match.group("street")])

    def EVENT(self, tok: _LineToken) -> Event:
        m = tok.match
        what = m.group("what")
        head = " ".join(what.split(" ", 2)[:2])
        return Event(self._at(tok), m.group("name"), _EVENT_KIND.get(head, "other"), what)

    def SAID(self, tok: _LineToken) -> Event:
        m = tok.match
        return Event(self._at(tok), m.group("name"), "said", m.group("text"))

    def TOTAL(self, tok: _LineToken) -> SummaryTotal:
        return SummaryTotal(self._at(tok), self._amount(tok, "total"), self._amount(tok, "rake"))

    def SUMMARY_SEAT(self, tok: _LineToken) -> Event:
        player = self.seat_names.get(int(tok.match.group("seat")), "")
        return Event(self._at(tok), player, "summary", str(tok).rstrip())

    def OTHER(self, tok: _LineToken) -> Event:
        return Event(self._at(tok), "", "other", str(tok).rstrip())


_BUILDER = SiteBuilder()

# Candidate terminals from a line's first word; a line that starts with a player's name is dispatched on the
# verb after the first ": " that is followed by a known verb (names may hold spaces, even ": "); a line without
# such a verb is a collect, a chat line or an event. The first guess is right for every line of a real hand;
# only when its pattern fails are the other candidates tried (then the line's error, or OTHER).
_BY_FIRST_WORD: dict[str, str] = {
    "PokerStars": "HEADER", "Table": "TABLE", "Seat": "SEAT", "***": "MARKER", "Dealt": "DEALT",
    "Uncalled": "UNCALLED", "Total": "TOTAL",
}
_IN_SUMMARY: dict[str, str] = {**_BY_FIRST_WORD, "Seat": "SUMMARY_SEAT"}
_AFTER_COLON = {
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


_NAME_PREFIX = "(?P<name>"  # the colon-led patterns start (?P<name>[^\n]+?): (Lark makes the \n a newline)
_LINE_KINDS = {
    "HEADER": "the header line", "TABLE": "the table line", "SEAT": "a seat line", "MARKER": "a street line",
    "DEALT": "a 'Dealt to' line", "UNCALLED": "an 'Uncalled bet' line", "TOTAL": "the 'Total pot' line",
}


def _viable(pattern: str, text: str) -> int:
    """The length of the longest prefix of ``text`` that could still grow into a match of ``pattern``."""
    import regex  # only on the error path
    compiled = regex.compile(pattern)
    lo, hi = 0, len(text)
    while lo < hi:  # partial matches are monotone in the prefix length
        mid = (lo + hi + 1) // 2
        if compiled.fullmatch(text[:mid], partial=True) is not None:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _word_start(text: str, at: int) -> int:
    while at > 0 and not text[at - 1].isspace():
        at -= 1
    return at


def _diagnose(line: str, first_word: dict[str, str], patterns: dict[str, re.Pattern[str]]) -> tuple[int, str]:
    """Column (1-based) and plain words for a line that no pattern reads. Only on the error path.

    The line (for ``<name>: <verb> …`` lines, the part after the name) is matched against the pattern its first
    words point at with the ``regex`` module's partial matching: the caret goes under the first word that
    cannot fit. Patterns whose free text (a table name, a player's name) could absorb anything give column 1.
    """
    space = line.find(" ")
    kind = first_word.get(line[:space] if space >= 0 else line)
    if kind is not None and kind in _LINE_KINDS:
        stop = _viable(patterns[kind].pattern, line)
        if stop < len(line):
            start = _word_start(line, stop)
            word = line[start:].split(" ", 1)[0]
            return start + 1, f"cannot read {_LINE_KINDS[kind]} from {word!r} on"
        return 1, f"cannot read {_LINE_KINDS[kind]}"
    colon = line.find(": ")
    while colon >= 0:
        end = line.find(" ", colon + 2)
        verb = line[colon + 2:end] if end >= 0 else line[colon + 2:]
        name = _AFTER_COLON.get(verb)
        pattern = patterns[name].pattern if name is not None else ""
        if pattern.startswith(_NAME_PREFIX) and "+?): " in pattern:
            tail = line[colon + 2:]
            stop = _viable(pattern[pattern.index("+?): ") + 5:], tail)
            if stop >= len(tail):
                return len(line) + 1, f"the {verb!r} line stops short"
            start = _word_start(tail, stop)
            word = tail[start:].split(" ", 1)[0]
            return colon + 3 + start, f"cannot read this {verb!r} line from {word!r} on"
        colon = line.find(": ", colon + 2)
    return 1, "cannot read this line: it is not a line of the site's hand histories"


class SiteLexer(Lexer):
    """One token per line; the terminal's pattern (from the grammar file) must match the whole line.

    In a hand of another game than 5 Card Draw (read from the header line), a line that no candidate reads is
    an ``OTHER`` token instead of an error.
    """

    __future_interface__ = 2

    def __init__(self, conf: LexerConf) -> None:
        self.patterns = {t.name: re.compile(t.pattern.to_regexp()) for t in conf.terminals}

    def lex(self, state: LexerState, parser_state: Any) -> Iterator[Token]:
        text: str = state.text.text
        patterns = self.patterns
        pos = 0
        line_no = 0
        end = len(text)
        first_word = _BY_FIRST_WORD
        tolerant = False
        while pos < end:
            line_no += 1
            nl = text.find("\n", pos)
            if nl < 0:
                nl = end
            line = text[pos:nl]
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
                        raise _LineError(line_no, column, what)
                    name = "OTHER"
                    m = patterns[name].match(text, pos)
                    assert m is not None
            if name == "MARKER" and m.group("street") == "SUMMARY":
                first_word = _IN_SUMMARY
            yield _LineToken.of_line(name, line, pos, line_no, m)
            pos = nl + 1


@lru_cache(maxsize=None)
def site_parser(strict: bool = False) -> Lark:
    """The site-dialect LALR parser with its lexer and transformer built in (built once per process).

    ``strict=True`` builds it with Lark's strict mode (a shift/reduce conflict is an error): the tests check
    that the grammar passes it.
    """
    return Lark.open(str(data_dir("grammar") / "site.lark"), parser="lalr", lexer=SiteLexer, start="hand",
                     transformer=_BUILDER, maybe_placeholders=False, strict=strict)


_TOKEN_NAMES = {**_LINE_KINDS, "SUMMARY_SEAT": "a summary seat line", "$END": "the end of the hand"}


def _out_of_place(block: RawBlock, exc: UnexpectedToken) -> ParseFailure:
    """A line that reads but stands where the hand's structure does not allow it (header, table, seats, body)."""
    if exc.token.type == "$END":
        return failure(block, len(block.lines), len(block.lines[-1]) + 1,
                       "the hand ends too early: its table or seat lines are missing")
    line = exc.line if isinstance(exc.line, int) and exc.line > 0 else len(block.lines)
    what = _TOKEN_NAMES.get(exc.token.type, "this line")
    if "TABLE" in exc.expected:
        what = "the table line ('Table '…' Seat #n is the button') must come right after the header"
    elif set(exc.expected) == {"SEAT"}:
        what = "a seat line ('Seat 1: <player> ($1.52 in chips)') must come right after the table line"
    else:
        what += " cannot stand here"
    return failure(block, line, 1, what)


def parse_site_block(block: RawBlock) -> Hand | ParseFailure:
    """A site block → ``Hand(dialect="site")`` or a ``ParseFailure``; never raises on any text."""
    if block.too_long:
        return failure(block, len(block.lines), 1,
                       f"the hand is longer than {len(block.lines):,} lines; the rest was not read")
    if not block.lines:
        return failure(block, 1, 1, "empty hand")
    if not block.lines[0].startswith("PokerStars "):
        site = "Full Tilt Poker" if block.lines[0].startswith(("Full Tilt", "FullTilt")) else "this site"
        return failure(block, 1, 1, f"{site} hand histories are not read yet (the site dialect is PokerStars')")
    text = block.text()
    parser = site_parser()
    _BUILDER.reset(block.numbers)
    try:
        result: Any = parser.parse(text)
    except UnexpectedToken as exc:
        return _out_of_place(block, exc)
    except UnexpectedInput as exc:  # pragma: no cover - the lexer raises _LineError, the parser UnexpectedToken
        return _failure_from(block, text, exc)
    except _LineError as exc:
        return failure(block, exc.line, exc.column, exc.what)
    hand: Hand = result
    return hand._replace(file=block.file, end_line=block.end_line)
