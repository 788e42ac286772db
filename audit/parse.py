"""Cached Lark parsers; a block of lines → a model object, or a ``ParseFailure`` with line, column and caret.

The transformers run inside the LALR parser (no parse tree is built), which is what makes the parse fast.
They only build model objects and keep file line numbers; all poker judgement is the replay engine's.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from collections.abc import Iterator

import lark.visitors  # noqa: F401  (the compiled module refers to it for the Transformer base class)
from lark import Lark, Token, Transformer
from lark.common import LexerConf
from lark.lexer import Lexer, LexerState
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken

from mypy_extensions import mypyc_attr

from audit.model import (
    Action, Block, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, OptionLine, Parole,
    ParseFailure, Post, Preamble, ProfileLine, Reshuffle, Score, Seat, SessionEnd, SessionLine, Show, Standing,
    StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock
from audit.resources import data_dir

_CARD_FIX = {"10": "T"}
# A number longer than this is refused (a PARSE_ERROR) rather than read: Python will not even convert a string
# of 4,300 digits to an int, and sums of such amounts would break every message that prints them.
MAX_NUMBER_DIGITS = 100
_LONG_NUMBER = re.compile(r"\d{%d}" % (MAX_NUMBER_DIGITS + 1))


class _LongNumber(Exception):
    """A number of more than ``MAX_NUMBER_DIGITS`` digits met while building (``parse_block`` reports it)."""


def _int(digits: str) -> int:
    if len(digits) > MAX_NUMBER_DIGITS:
        raise _LongNumber
    return int(digits)
_INT = re.compile(r"\d+")


def split_cards(token: str) -> tuple[str, ...]:
    """``"[As 10d 5c]"`` → ``("As", "Td", "5c")`` (``10`` read as ``T``); unknown text is kept as written."""
    body = token[1:-1].split()
    return tuple(("T" + c[2:]) if c.startswith("10") else c for c in body)


@mypyc_attr(native_class=False)
class _Builder(Transformer[Token, Any]):
    """Shared state: the file line of each line of the block being parsed."""

    numbers: list[int]

    def __init__(self) -> None:
        super().__init__(visit_tokens=True)
        self.numbers = []

    def _line(self, tok: Token) -> int:
        return self.numbers[tok.line - 1]  # type: ignore[operator]


_POST_KIND = {"the ante": "ante", "small blind": "small", "big blind": "big", "over blind": "over",
              "live blind": "live", "dead blind": "dead"}
_MARKERS = {"DEALING HANDS": "deal", "FIRST BETTING ROUND": "first", "DRAW": "draw",
            "SECOND BETTING ROUND": "second", "SHOW DOWN": "showdown", "SUMMARY": "summary",
            "REDEAL": "redeal"}
_EVENTS = {"disconnected": "disconnected", "connected": "connected", "played by the house": "house"}
_VERBS = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet", "raises": "raise"}
_PAROLE = {"offers": "offer", "accepts": "accept", "declines": "decline"}

# The grammar's terminals decide what a line is; these read the names, numbers and cards inside a line.
_BRACKETS = re.compile(r"\[[^\]]*\]")


@mypyc_attr(native_class=False)
class HouseBuilder(_Builder):
    """Builds model objects from the house grammar's rules (one method per line rule)."""

    def hand(self, c: list[Any]) -> Hand:
        (hand_line, hand_id, started), (table, button) = c[0], c[1]
        seat_rows: list[tuple[Seat, bool]] = c[2]
        seats = tuple(row[0] for row in seat_rows)
        points = any(row[1] for row in seat_rows)
        carried, carried_line = 0, 0
        i = 3
        if i < len(c) and type(c[i]) is tuple:
            carried_line, carried = c[i]
            i += 1
        body: tuple[Any, ...] = tuple(c[i]) if i < len(c) else ()
        end = body[-1].line if body else (carried_line or (seats[-1].line if seats else hand_line))
        return Hand("", hand_line, end, hand_id, started, table, button, seats, body, carried, carried_line,
                    points)

    def _list(self, c: list[Any]) -> list[Any]:
        """``x: ITEM | x ITEM``: one Python list grows as the lines are read (no tree node per line)."""
        if len(c) == 1:
            return [c[0]]
        c[0].append(c[1])
        return c[0]  # type: ignore[no-any-return]

    # (one method each, not aliases: the compiled module needs real methods on this Lark transformer)
    def seats(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def body(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def items(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def standings(self, c: list[Any]) -> list[Any]:
        return self._list(c)

    def HAND_LINE(self, tok: Any) -> tuple[int, str, str]:
        m = tok.m
        return self._line(tok), m.group("id"), " ".join(m.group("date").split())

    def TABLE_LINE(self, tok: Any) -> tuple[str, int]:
        m = tok.m
        return m.group("table"), _int(m.group("button"))

    def SEAT_LINE(self, tok: Any) -> tuple[Seat, bool]:
        m = tok.m
        seat = Seat(self._line(tok), _int(m.group("seat")), m.group("name"), _int(m.group("n")),
                    m.group("out") is not None)
        return seat, m.group("unit") != "in chips"

    def CARRIED(self, tok: Token) -> tuple[int, int]:
        return self._line(tok), _int(tok.split(":", 1)[1])

    def POST(self, tok: Any) -> Post:
        m = tok.m
        return Post(self._line(tok), m.group("name"), _POST_KIND[m.group("kind")], _int(m.group("n")),
                    m.group("allin") is not None)

    def NOPLAY(self, tok: Any) -> NoPlay:
        m = tok.m
        return NoPlay(self._line(tok), m.group("name"), "waits" if m.group("what").startswith("waits") else "sits-out")

    def MARKER(self, tok: Token) -> Marker:
        t = tok.rstrip()
        return Marker(self._line(tok), _MARKERS[t[4:-4]])

    def DECK(self, tok: Token) -> DeckLine:
        return DeckLine(self._line(tok), split_cards(_BRACKETS.search(tok).group()))  # type: ignore[union-attr]

    def DEALT(self, tok: Any) -> Dealt:
        m = tok.m
        groups = tuple(split_cards(g) for g in _BRACKETS.findall(m.group("cards")))
        return Dealt(self._line(tok), m.group("name"), groups)

    def ACT(self, tok: Any) -> Action:
        m = tok.m
        plain, verb, n, inc, to, all_in, timed_out, took = m.group(
            "plain", "verb", "n", "inc", "to", "allin", "timedout", "took")
        line, player = self._line(tok), m.group("name")
        flags = (all_in is not None, timed_out is not None, float(took) if took else None)
        if plain is not None:
            return Action(line, player, _VERBS[plain], 0, 0, *flags)
        if verb is not None:
            amount = _int(n)
            return Action(line, player, _VERBS[verb], amount, amount if verb == "bets" else 0, *flags)
        return Action(line, player, "raise", _int(inc), _int(to), *flags)

    def PAROLE(self, tok: Any) -> Parole:
        m = tok.m
        took = m.group("took")
        return Parole(self._line(tok), m.group("name"), _PAROLE[m.group("verb")], float(took) if took else None)

    def DISCARDS(self, tok: Any) -> Discard:
        m = tok.m
        cards, took = m.group("cards", "took")
        return Discard(self._line(tok), m.group("name"), _int(m.group("n")), split_cards(cards) if cards else None,
                       float(took) if took else None)

    def STANDS_PAT(self, tok: Any) -> StandPat:
        m = tok.m
        took = m.group("took")
        return StandPat(self._line(tok), m.group("name"), m.group("timedout") is not None,
                        float(took) if took else None)

    def RESHUFFLES(self, tok: Token) -> Reshuffle:
        return Reshuffle(self._line(tok), split_cards(_BRACKETS.search(tok).group()))  # type: ignore[union-attr]

    def SHOWS(self, tok: Any) -> Show:
        m = tok.m
        return Show(self._line(tok), m.group("name"), split_cards(m.group("cards")), m.group("desc"))

    def MUCKS(self, tok: Any) -> Muck:
        return Muck(self._line(tok), tok.m.group("name"))

    def COLLECTED(self, tok: Any) -> Collect:
        m = tok.m
        line, player = self._line(tok), m.group("name")
        where = m.group("pot")
        if where == "pot":
            pot = "pot"
        elif where == "main pot":
            pot = "main"
        elif where == "pot (parole)":
            pot = "parole"
        else:
            pot = "side-" + where.rsplit("-", 1)[1]
        return Collect(line, player, _int(m.group("n")), pot)

    def UNCALLED(self, tok: Any) -> Uncalled:
        m = tok.m
        return Uncalled(self._line(tok), m.group("name"), _int(m.group("n")))

    def EVENT(self, tok: Any) -> Event:
        m = tok.m
        return Event(self._line(tok), m.group("name"), _EVENTS[m.group("what")], "")

    def SAID(self, tok: Any) -> Event:
        m = tok.m
        return Event(self._line(tok), m.group("name"), "said", m.group("text"))

    def SCORES(self, tok: Any) -> Score:
        m = tok.m
        return Score(self._line(tok), m.group("name"), _int(m.group("n")))

    def TOTAL(self, tok: Token) -> SummaryTotal:
        nums = _INT.findall(tok)
        return SummaryTotal(self._line(tok), _int(nums[0]), _int(nums[1]))

    # preamble and session end
    def preamble(self, c: list[Any]) -> Preamble:
        return Preamble(c[0][0].line, tuple(c[0]))

    def SESSION(self, tok: Token) -> SessionLine:
        return SessionLine(self._line(tok), tok.split(":", 1)[1].strip())

    def PROFILE(self, tok: Token) -> ProfileLine:
        return ProfileLine(self._line(tok), tok.split(":", 1)[1].strip())

    def OPTION(self, tok: Token) -> OptionLine:
        text = tok.split(":", 1)[1]
        name, _, value = text.partition("=")
        return OptionLine(self._line(tok), name.strip(), value.strip())

    def session_end(self, c: list[Any]) -> SessionEnd:
        return SessionEnd(self._line(c[0]), tuple(c[1]) if len(c) > 1 else ())

    def STANDING(self, tok: Any) -> Standing:
        m = tok.m
        return Standing(self._line(tok), _int(m.group("place")), m.group("name"), _int(m.group("n")))


_HOUSE_BUILDER = HouseBuilder()

# The lexer picks candidate terminals for a line from its first word (or, for a line that starts with a
# player's name, from the word after the name) and matches only those: one regular expression per line instead
# of an alternation of every terminal, which is what makes the parse fast.
_BY_FIRST_WORD = {
    "Hand": ("HAND_LINE",), "Table": ("TABLE_LINE",), "Seat": ("SEAT_LINE",), "Pot": ("CARRIED",),
    "***": ("MARKER", "SESSION_END"), "Deck:": ("DECK",), "Dealt": ("DEALT",), "Dealer:": ("RESHUFFLES",),
    "Uncalled": ("UNCALLED",), "Total": ("TOTAL",), "Session:": ("SESSION",), "Profile:": ("PROFILE",),
    "Option:": ("OPTION",),
}
_AFTER_COLON = {
    "posts": "POST", "waits": "NOPLAY", "sits": "NOPLAY", "folds": "ACT", "checks": "ACT", "calls": "ACT",
    "bets": "ACT", "raises": "ACT", "offers": "PAROLE", "accepts": "PAROLE", "declines": "PAROLE",
    "discards": "DISCARDS", "stands": "STANDS_PAT", "shows": "SHOWS", "mucks": "MUCKS", "is": "EVENT",
}
_AFTER_NAME = {"collected": "COLLECTED", "said,": "SAID", "scores": "SCORES"}


def _candidates(line: str) -> tuple[str, ...]:
    words = line.split(None, 2)
    if not words:
        return ()
    first = words[0]
    found = _BY_FIRST_WORD.get(first, ())
    second = words[1] if len(words) > 1 else ""
    if first.endswith(":"):
        if first[:-1].isdigit():
            return found + ("STANDING",)
        named = _AFTER_COLON.get(second)
    else:
        named = _AFTER_NAME.get(second)
    return found + (named,) if named else found


def _classify(text: str, pos: int, end: int, line_no: int,
              patterns: dict[str, re.Pattern[str]]) -> tuple[str, str, re.Match[str], int]:
    """The line of ``text`` starting at ``pos``: its terminal, its text, the match, and where the next line
    starts; a ``LineError`` when no terminal reads the whole line. Shared by both ways of parsing."""
    nl = text.find("\n", pos)
    if nl < 0:
        nl = end
    line = text[pos:nl]
    for name in _candidates(line):
        m = patterns[name].match(text, pos)
        if m is not None and m.end() == nl + 1:
            return name, line, m, nl + 1
    column, what = _diagnose(line, [patterns[n] for n in _candidates(line)])
    raise LineError(line_no, column, what)


class LineError(Exception):
    """A line no terminal matches: where the reading stopped, and why in plain words."""

    def __init__(self, line: int, column: int, what: str) -> None:
        super().__init__(what)
        self.line = line
        self.column = column
        self.what = what


_ACTIONS_HINT = "folds, checks, calls, bets, raises, posts, discards, stands pat, shows, mucks …"


def _diagnose(line: str, patterns: list[re.Pattern[str]]) -> tuple[int, str]:
    """Column (1-based) where ``line`` stops fitting any candidate pattern, and a message for the host.

    Only on the error path: uses the ``regex`` module's partial matching to find the longest prefix of the line
    that could still become a valid line.
    """
    import regex
    if not patterns:
        words = line.split(None, 2)
        if words and words[0].endswith(":") and len(words) > 1 and not words[0][:-1].isdigit():
            column = line.index(words[1], len(words[0])) + 1
            return column, f"cannot read this line: {words[1]!r} is not an action ({_ACTIONS_HINT})"
        return 1, "this is not a line of the house format"
    best = 0
    for pattern in patterns:
        compiled = regex.compile(pattern.pattern)
        lo, hi = 0, len(line)
        while lo < hi:  # the longest viable prefix: partial matches are monotone in the prefix length
            mid = (lo + hi + 1) // 2
            if compiled.fullmatch(line[:mid], partial=True) is not None:
                lo = mid
            else:
                hi = mid - 1
        best = max(best, lo)
    rest = line[best:]
    start = best
    if rest[:1].isspace():
        start += len(rest) - len(rest.lstrip())
    else:  # point at the start of the word that does not fit
        while start > 0 and not line[start - 1].isspace():
            start -= 1
    word = line[start:].split(" ", 1)[0] or line[start:]
    return start + 1, f"cannot read this line from {word!r} on"


@mypyc_attr(native_class=False)
class _MatchToken(Token):
    """Lark's token with the match of its pattern (for the callbacks that read named groups)."""

    m: re.Match[str] | None


@mypyc_attr(native_class=False)
class LineLexer(Lexer):
    """One token per line; the terminal's pattern (from the grammar file) must match the whole line."""

    __future_interface__ = 2

    def __init__(self, conf: LexerConf) -> None:
        flags = 0
        self.patterns = {t.name: re.compile(t.pattern.to_regexp(), flags) for t in conf.terminals}

    def lex(self, state: LexerState, parser_state: Any) -> Iterator[Token]:
        text = state.text.text
        patterns = self.patterns
        pos = 0
        line_no = 0
        end = len(text)
        while pos < end:
            line_no += 1
            kind, line, m, pos = _classify(text, pos, end, line_no, patterns)
            token = _MatchToken(kind, line, pos - len(line) - 1, line_no, 1)
            token.m = m
            yield token


@mypyc_attr(native_class=False)
class _Line(str):
    """A line handed to the transformer's terminal callbacks: its text, ``line`` (its index in the block) and
    ``m``, the match of its terminal's pattern, whose named groups the callbacks read."""

    line: int
    m: re.Match[str] | None


class _Misplaced(Exception):
    """A readable line where the grammar allows no such line (``kind``: its terminal, or ``$END``)."""

    def __init__(self, line: int, kind: str) -> None:
        super().__init__(kind)
        self.line = line
        self.kind = kind


class LineParser:
    """Runs Lark's LALR tables for the house grammar over a block, one line per token.

    Lark builds the grammar, the lexer's terminals and the LALR(1) tables; this loop only plays them, as Lark's
    own parser does, without its per-token costs (a ``Token`` object, rule objects hashed on every reduction):
    measured with bench/parse.py, this is where most of the parse time went.
    """

    def __init__(self, lark: Lark) -> None:
        from lark.parsers.lalr_analysis import Shift
        inner = lark.parser.parser.parser
        table = inner.parse_table
        callbacks = inner.callbacks
        self.terminal_callbacks: dict[str, Any] = {k: v for k, v in callbacks.items() if isinstance(k, str)}
        self.states: dict[int, dict[str, tuple[bool, Any]]] = {}
        for state, actions in table.states.items():
            row: dict[str, tuple[bool, Any]] = {}
            for symbol, (action, arg) in actions.items():
                # plain str keys: Lark's are Token objects, whose Python-level __eq__ slows every lookup
                if action is Shift:
                    row[str(symbol)] = (True, arg)
                else:
                    row[str(symbol)] = (False, (len(arg.expansion), str(arg.origin.name), callbacks[arg]))
            self.states[state] = row
        self.start_states: dict[str, int] = dict(table.start_states)
        self.end_states: dict[str, int] = dict(table.end_states)
        lexer_conf = lark.lexer_conf
        self.patterns = {t.name: re.compile(t.pattern.to_regexp()) for t in lexer_conf.terminals}

    def parse(self, text: str, start: str) -> Any:
        """The transformer's result for ``text`` (lines each ending in a newline); raises ``LineError`` for
        an unreadable line and ``_Misplaced`` for a line out of place."""
        states = self.states
        patterns = self.patterns
        tcb = self.terminal_callbacks
        end_state = self.end_states[start]
        stack = [self.start_states[start]]
        values: list[Any] = []
        pos = 0
        line_no = 0
        end = len(text)
        while True:
            if pos < end:
                line_no += 1
                kind, line, match, pos = _classify(text, pos, end, line_no, patterns)
            else:
                kind = "$END"
            while True:
                action = states[stack[-1]].get(kind)
                if action is None:
                    raise _Misplaced(line_no, kind)
                shift, arg = action
                if shift:
                    stack.append(arg)
                    value = _Line(line)
                    value.line = line_no
                    value.m = match
                    callback = tcb.get(kind)
                    values.append(callback(value) if callback is not None else value)
                    break
                size, origin, callback = arg
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                else:
                    children = []
                reduced = callback(children)
                stack.append(states[stack[-1]][origin][1])
                values.append(reduced)
                if kind == "$END" and stack[-1] == end_state:
                    return values[-1]


@lru_cache(maxsize=None)
def house_parser() -> Lark:
    """The house-format LALR parser with its lexer and transformer built in (built once per process)."""
    return Lark.open(str(data_dir("grammar") / "house.lark"), parser="lalr", lexer=LineLexer,
                     start=["hand", "preamble", "session_end"], transformer=_HOUSE_BUILDER,
                     maybe_placeholders=False)


@lru_cache(maxsize=None)
def house_line_parser() -> LineParser:
    """The fast driver over the house grammar's tables (built once per process)."""
    return LineParser(house_parser())


_START = {"house": "hand", "preamble": "preamble", "session_end": "session_end"}


def _hand_id_guess(block: RawBlock) -> str | None:
    first = block.lines[0] if block.lines else ""
    if first.startswith("Hand #"):
        return first[6:].split(" ", 1)[0] or None
    m = re.match(r"\S+ (?:Game|Hand) #(\d+)", first)
    return m.group(1) if m else None


def parse_block(block: RawBlock) -> Block:
    """A block of lines → ``Hand`` / ``Preamble`` / ``SessionEnd``, or a ``ParseFailure``."""
    text = block.text()
    if block.kind in ("site", "preamble"):  # numbers the house builder does not read: site amounts, option values
        long_number = _LONG_NUMBER.search(text)
        if long_number is not None:
            return _long_number_failure(block, long_number)
    if block.kind == "site":
        from audit.site import parse_site_block
        return parse_site_block(block)
    if block.kind == "ongame":
        return failure(block, 1, 1, "OnGame hand histories are not read yet (the house format and PokerStars "
                                    "logs are)")
    start = _START.get(block.kind)
    if start is None:
        return failure(block, 1, 1, "this is not the start of a hand (a hand begins with a 'Hand #' line)")
    if block.too_long:
        return failure(block, len(block.lines), 1,
                       f"the hand is longer than {len(block.lines):,} lines; the rest was not read")
    parser = house_line_parser()
    _HOUSE_BUILDER.numbers = block.numbers
    try:
        result: Any = parser.parse(text, start)
    except LineError as exc:
        return failure(block, exc.line, exc.column, exc.what)
    except _Misplaced as misplaced:
        return _misplaced(block, misplaced)
    except _LongNumber:
        long_number = _LONG_NUMBER.search(text)
        if long_number is None:  # pragma: no cover - every number the builder reads is a run of digits
            return failure(block, 1, 1, f"a number of more than {MAX_NUMBER_DIGITS} digits cannot be read")
        return _long_number_failure(block, long_number)
    if type(result) is Hand:
        return result._replace(file=block.file)
    return result  # type: ignore[no-any-return]


def _long_number_failure(block: RawBlock, found: re.Match[str]) -> ParseFailure:
    text = found.string
    index = text.count("\n", 0, found.start()) + 1
    column = found.start() - text.rfind("\n", 0, found.start())
    return failure(block, index, column,
                   f"a number of more than {MAX_NUMBER_DIGITS} digits cannot be read (no amount, seat or count "
                   "is that long)")


def failure(block: RawBlock, index: int, column: int, what: str) -> ParseFailure:
    """A ``ParseFailure`` at the ``index``-th line of the block (1-based), with the line and a caret."""
    index = max(1, min(index, len(block.lines) or 1))
    text_line = block.lines[index - 1] if block.lines else ""
    line_no = block.numbers[index - 1] if block.numbers else 0
    caret = " " * (column - 1) + "^"
    message = f"line {line_no}, column {column}: {what}\n    {text_line}\n    {caret}"
    return ParseFailure(block.file, line_no, column, message, _hand_id_guess(block), block.first_line,
                        block.end_line)


_LINE_NAMES = {
    "HAND_LINE": "a 'Hand #' line", "TABLE_LINE": "the table line", "SEAT_LINE": "a seat line",
    "CARRIED": "the carried pot line", "MARKER": "this street line", "DECK": "the deck line",
    "SESSION": "a 'Session:' line", "PROFILE": "a 'Profile:' line", "OPTION": "an 'Option:' line",
    "SESSION_END": "the session end line", "STANDING": "a standings line",
}


def _misplaced(block: RawBlock, exc: _Misplaced) -> ParseFailure:
    if exc.kind == "$END":
        last = len(block.lines)
        return failure(block, last, len(block.lines[-1]) + 1 if block.lines else 1,
                       "the hand ends too early: its header, table or seat lines are missing")
    return failure(block, exc.line, 1, f"{_LINE_NAMES.get(exc.kind, 'this line')} cannot stand here")


def _failure_from(block: RawBlock, text: str, exc: UnexpectedInput) -> ParseFailure:
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        last = len(block.lines)
        return failure(block, last, len(block.lines[-1]) + 1 if block.lines else 1,
                       "the hand ends too early: its header, table or seat lines are missing")
    line = exc.line if isinstance(exc.line, int) and exc.line > 0 else len(block.lines)
    if isinstance(exc, UnexpectedToken):
        name = _LINE_NAMES.get(exc.token.type, "this line")
        return failure(block, line, 1, f"{name} cannot stand here")
    return failure(block, line, 1, "cannot read this line")  # pragma: no cover - the lexer raises LineError
