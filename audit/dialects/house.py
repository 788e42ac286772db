"""The house format (shared/spec/FORMAT.md): a block of lines → a model object, or a ``ParseFailure`` with line,
column and caret. Also reads the file-level blocks: the preamble (``Session:`` / ``Profile:`` / ``Option:`` / ``Cards:``) and
the session end.

Lark builds the grammar (``grammar/house.lark``) and its LALR tables (``audit.dialects.house_lark``, which
stores them beside the grammar, in ``house.tables.json``); ``LineParser`` plays the tables over a block, one
line per token, calling the builders below (Lark's own parser, with ``HouseBuilder``'s callbacks, gives the same
result: a test checks it). A check loads the stored tables and does not import Lark; tables stored for another
text of the grammar are never used: Lark then builds them again from the grammar as it is. The builders only
make model objects and keep file line numbers; all poker judgement is the replay engine's.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, cast

from audit.dialects.common import (
    LONG_NUMBER, MAX_NUMBER_DIGITS, LineError, NumberTooLarge, cards_inside, failure, long_number_failure,
    read_amount, read_seat, split_cards, too_long_failure,
)
from audit.model import (
    Action, Block, CardsLine, Collect, Dealt, DeckLine, Discard, Event, Hand, Marker, Muck, NoPlay, OptionLine,
    Parole, ParseFailure, Post, Preamble, ProfileLine, Reshuffle, Score, Seat, SessionEnd, SessionLine, Show,
    Standing, StandPat, SummaryTotal, Uncalled,
)
from audit.read import RawBlock
from audit.resources import data_dir

__all__ = ["GRAMMAR", "LineError", "LineParser", "MAX_NUMBER_DIGITS", "TABLES", "TABLES_FORMAT", "grammar_file",
           "house_line_parser", "parse_house_block", "stored_tables"]


_INT: Final = re.compile(r"\d+")


_POST_KIND: Final = {"the ante": "ante", "small blind": "small", "big blind": "big", "over blind": "over",
              "live blind": "live", "dead blind": "dead"}
_MARKERS: Final = {"DEALING HANDS": "deal", "FIRST BETTING ROUND": "first", "DRAW": "draw",
            "SECOND BETTING ROUND": "second", "SHOW DOWN": "showdown", "SUMMARY": "summary",
            "REDEAL": "redeal"}
_EVENTS: Final = {"disconnected": "disconnected", "connected": "connected", "played by the house": "house"}
_VERBS: Final = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet", "raises": "raise"}
_PAROLE: Final = {"offers": "offer", "accepts": "accept", "declines": "decline"}

# The grammar's terminals decide what a line is; these read the names, numbers and cards inside a line.
_BRACKETS: Final = re.compile(r"\[[^\]]*\]")


# ---- building model objects from a matched line -------------------------------------------------------------
# One function per terminal: ``m`` is the match of the terminal's pattern over the whole line (its newline
# included), ``line`` the line's number in the file. Both ways of parsing call these: the fast loop
# (``LineParser``) directly, Lark's own parser through ``HouseBuilder``'s callbacks. The model tuples are made
# with ``tuple.__new__`` and every field given in order: a NamedTuple's own constructor is a Python function,
# the slowest part of building an item (the fixtures pin every field, so a field added to a model shows there).

_new: Final = tuple.__new__

# The groups of each terminal's pattern, in order (``None``: a group without a name): the builders unpack
# ``m.groups()``, cheaper than looking groups up by name. ``_check_groups`` holds the grammar to this.
_GROUPS: Final[dict[str, tuple[str | None, ...]]] = {
    "HAND_LINE": ("id", "date"), "TABLE_LINE": ("table", "button"), "SEAT_LINE": ("seat", "name", "n", "unit", "out"),
    "MARKER": (None,), "DEALT": ("name", "cards", None), "UNCALLED": ("n", "name"), "STANDING": ("place", "name", "n"),
    "POST": ("name", "kind", "n", "allin"), "NOPLAY": ("name", "what"),
    "ACT": ("name", "plain", "verb", "n", "inc", "to", "allin", "timedout", "took"),
    "PAROLE": ("name", "verb", "took"), "DISCARDS": ("name", "n", "cards", "took", None),
    "STANDS_PAT": ("name", "timedout", "took"), "SHOWS": ("name", "cards", "desc"), "MUCKS": ("name",),
    "COLLECTED": ("name", "n", "pot"), "EVENT": ("name", "what"), "SAID": ("name", "text"), "SCORES": ("name", "n"),
    "CARDS": ("cards",),
}


def _check_groups(patterns: dict[str, re.Pattern[str]]) -> None:
    """Raises ``ValueError`` if a terminal's groups are not the ones its builder unpacks (a grammar edit)."""
    for name, pattern in patterns.items():
        by_number = {number: group for group, number in pattern.groupindex.items()}
        found = tuple(by_number.get(i) for i in range(1, pattern.groups + 1))
        if found != _GROUPS.get(name, ()):
            raise ValueError(f"the groups of {name} in the grammar are {found}, the parser reads "
                             f"{_GROUPS.get(name, ())}: update _GROUPS and the builder")


def _line_text(m: re.Match[str]) -> str:
    """The matched line without its newline (for the few callbacks that read the line as a whole)."""
    return m.group()[:-1]


def _took(took: str | None) -> float | None:
    if not took:
        return None
    if len(took) > MAX_NUMBER_DIGITS:
        whole, _, fraction = took.partition(".")
        if len(whole) > MAX_NUMBER_DIGITS or len(fraction) > MAX_NUMBER_DIGITS:
            raise NumberTooLarge(whole if len(whole) > MAX_NUMBER_DIGITS else fraction)
    return float(took)


def _b_hand_line(m: re.Match[str], line: int) -> tuple[int, str, str]:
    hand_id: str
    date: str
    hand_id, date = m.groups()
    return line, hand_id, " ".join(date.split())


def _b_table_line(m: re.Match[str], line: int) -> tuple[str, int]:
    table, button = m.groups()
    return table, read_seat(button)


def _b_seat_line(m: re.Match[str], line: int) -> tuple[Seat, bool]:
    seat: str
    name: str
    n: str
    unit: str
    out: str | None
    seat, name, n, unit, out = m.groups()
    return _new(Seat, (line, read_seat(seat), name, read_amount(n), out is not None)), unit != "in chips"


def _b_carried(m: re.Match[str], line: int) -> tuple[int, int]:
    return line, read_amount(_line_text(m).split(":", 1)[1])


def _b_post(m: re.Match[str], line: int) -> Post:
    name, kind, n, allin = m.groups()
    return _new(Post, (line, name, _POST_KIND[kind], read_amount(n), allin is not None))


def _b_noplay(m: re.Match[str], line: int) -> NoPlay:
    name, what = m.groups()
    return _new(NoPlay, (line, name, "waits" if what.startswith("waits") else "sits-out"))


def _b_marker(m: re.Match[str], line: int) -> Marker:
    return _new(Marker, (line, _MARKERS[m.group(1)]))


def _b_deck(m: re.Match[str], line: int) -> DeckLine:
    return _new(DeckLine, (line, split_cards(_BRACKETS.search(m.group()).group())))  # type: ignore[union-attr]


def _b_dealt(m: re.Match[str], line: int) -> Dealt:
    name: str
    cards: str
    name, cards, _ = m.groups()
    return _dealt(line, name, cards)


def _dealt(line: int, name: str, cards: str) -> Dealt:
    """``Dealt to <name> <cards>``: ``cards`` is one bracket, or two with spaces between (the pattern allows no
    ']' inside a bracket)."""
    close = cards.find("]")
    first = cards_inside(cards[1:close])
    second = cards.find("[", close)
    groups = (first,) if second < 0 else (first, cards_inside(cards[second + 1:-1]))
    return _new(Dealt, (line, name, groups))


def _b_act(m: re.Match[str], line: int) -> Action:
    name, plain, verb, n, inc, to, all_in, timed_out, took = m.groups()
    allin = all_in is not None
    timed = timed_out is not None
    secs = _took(took)
    if plain is not None:
        return _new(Action, (line, name, _VERBS[plain], 0, 0, allin, timed, secs))
    if verb is not None:
        amount = read_amount(n)
        return _new(Action, (line, name, _VERBS[verb], amount, amount if verb == "bets" else 0, allin, timed, secs))
    return _new(Action, (line, name, "raise", read_amount(inc), read_amount(to), allin, timed, secs))


def _b_parole(m: re.Match[str], line: int) -> Parole:
    name, verb, took = m.groups()
    return _new(Parole, (line, name, _PAROLE[verb], _took(took)))


def _b_discards(m: re.Match[str], line: int) -> Discard:
    name: str
    n: str
    cards: str | None
    took: str | None
    name, n, cards, took, _ = m.groups()
    return _new(Discard, (line, name, read_amount(n), split_cards(cards) if cards else None, _took(took)))


def _b_stands_pat(m: re.Match[str], line: int) -> StandPat:
    name, timed_out, took = m.groups()
    return _new(StandPat, (line, name, timed_out is not None, _took(took)))


def _b_reshuffles(m: re.Match[str], line: int) -> Reshuffle:
    return _new(Reshuffle, (line, split_cards(_BRACKETS.search(m.group()).group())))  # type: ignore[union-attr]


def _b_shows(m: re.Match[str], line: int) -> Show:
    name: str
    cards: str
    desc: str | None
    name, cards, desc = m.groups()
    return _new(Show, (line, name, split_cards(cards), desc))


def _b_mucks(m: re.Match[str], line: int) -> Muck:
    return _new(Muck, (line, m.group(1)))


_POTS: Final = {"pot": "pot", "main pot": "main", "pot (parole)": "parole"}
"""A collect line's pot as written → its key (a side pot, ``side pot-N``, is ``side-N``)."""


def _b_collected(m: re.Match[str], line: int) -> Collect:
    name, n, where = m.groups()
    pot = _POTS.get(where)
    if pot is None:
        pot = "side-" + where.rsplit("-", 1)[1]
    return _new(Collect, (line, name, read_amount(n), pot))


def _b_uncalled(m: re.Match[str], line: int) -> Uncalled:
    n, name = m.groups()
    return _new(Uncalled, (line, name, read_amount(n)))


def _b_event(m: re.Match[str], line: int) -> Event:
    name, what = m.groups()
    return _new(Event, (line, name, _EVENTS[what], ""))


def _b_said(m: re.Match[str], line: int) -> Event:
    name, text = m.groups()
    return _new(Event, (line, name, "said", text))


def _b_scores(m: re.Match[str], line: int) -> Score:
    name, n = m.groups()
    return _new(Score, (line, name, read_amount(n)))


def _b_total(m: re.Match[str], line: int) -> SummaryTotal:
    nums = _INT.findall(m.group())
    return _new(SummaryTotal, (line, read_amount(nums[0]), read_amount(nums[1])))


def _b_session(m: re.Match[str], line: int) -> SessionLine:
    return _new(SessionLine, (line, _line_text(m).split(":", 1)[1].strip()))


def _b_profile(m: re.Match[str], line: int) -> ProfileLine:
    return _new(ProfileLine, (line, _line_text(m).split(":", 1)[1].strip()))


def _b_option(m: re.Match[str], line: int) -> OptionLine:
    name, _, value = _line_text(m).split(":", 1)[1].partition("=")
    return _new(OptionLine, (line, name.strip(), value.strip()))


def _b_cards(m: re.Match[str], line: int) -> CardsLine:
    return _new(CardsLine, (line, m.group(1) == "shown"))


def _b_standing(m: re.Match[str], line: int) -> Standing:
    place, name, n = m.groups()
    return _new(Standing, (line, read_amount(place), name, read_amount(n)))


def _build_hand(c: list[Any], file: str) -> Hand:
    """``hand: HAND_LINE TABLE_LINE seats CARRIED? body?`` from its children's values."""
    (hand_line, hand_id, started), (table, button) = c[0], c[1]
    seat_rows: list[tuple[Seat, bool]] = c[2]
    seats = tuple([row[0] for row in seat_rows])
    points = False
    for row in seat_rows:
        if row[1]:
            points = True
    carried, carried_line = 0, 0
    i = 3
    if i < len(c) and type(c[i]) is tuple:
        carried_line, carried = c[i]
        i += 1
    body: tuple[Any, ...] = tuple(c[i]) if i < len(c) else ()
    end = body[-1].line if body else (carried_line or (seats[-1].line if seats else hand_line))
    return _new(Hand, (file, hand_line, end, hand_id, started, table, button, seats, body, carried, carried_line,
                       points, "house", None, True))


# The lexer picks candidate terminals for a line from its first word (or, for a line that starts with a
# player's name, from the word after the name) and matches only those: one regular expression per line instead
# of an alternation of every terminal, which is what makes the parse fast.
_BY_FIRST_WORD = {
    "Hand": ("HAND_LINE",), "Table": ("TABLE_LINE",), "Seat": ("SEAT_LINE",), "Pot": ("CARRIED",),
    "***": ("MARKER", "SESSION_END"), "Deck:": ("DECK",), "Dealt": ("DEALT",), "Dealer:": ("RESHUFFLES",),
    "Uncalled": ("UNCALLED",), "Total": ("TOTAL",), "Session:": ("SESSION",), "Profile:": ("PROFILE",),
    "Option:": ("OPTION",), "Cards:": ("CARDS",),
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


class _Split(Exception):
    """A block's line holding a newline (lines not cut by the reader): the block is read from its text."""


class _Misplaced(Exception):
    """A readable line where the grammar allows no such line (``kind``: its terminal, or ``$END``)."""

    def __init__(self, line: int, kind: str) -> None:
        super().__init__(kind)
        self.line = line
        self.kind = kind


# ---- the fast loop ---------------------------------------------------------------------------------------------
# Terminals by number (the grammar's names, checked against it when the tables are built), then ``$END``.
_TERMINALS: Final = (
    "HAND_LINE", "TABLE_LINE", "SEAT_LINE", "CARRIED", "MARKER", "DECK", "DEALT", "RESHUFFLES", "UNCALLED", "TOTAL",
    "SESSION_END", "SESSION", "PROFILE", "OPTION", "STANDING", "POST", "NOPLAY", "ACT", "PAROLE", "DISCARDS",
    "STANDS_PAT", "SHOWS", "MUCKS", "COLLECTED", "EVENT", "SAID", "SCORES", "CARDS", "$END")
T_HAND_LINE: Final = 0
T_TABLE_LINE: Final = 1
T_SEAT_LINE: Final = 2
T_CARRIED: Final = 3
T_MARKER: Final = 4
T_DECK: Final = 5
T_DEALT: Final = 6
T_RESHUFFLES: Final = 7
T_UNCALLED: Final = 8
T_TOTAL: Final = 9
T_SESSION_END: Final = 10
T_SESSION: Final = 11
T_PROFILE: Final = 12
T_OPTION: Final = 13
T_STANDING: Final = 14
T_POST: Final = 15
T_NOPLAY: Final = 16
T_ACT: Final = 17
T_PAROLE: Final = 18
T_DISCARDS: Final = 19
T_STANDS_PAT: Final = 20
T_SHOWS: Final = 21
T_MUCKS: Final = 22
T_COLLECTED: Final = 23
T_EVENT: Final = 24
T_SAID: Final = 25
T_SCORES: Final = 26
T_CARDS: Final = 27
T_END: Final = 28
_TERMINAL_CODE: Final = {name: code for code, name in enumerate(_TERMINALS)}

# ``_candidates``'s tables by terminal number.
_FIRST_CODES: Final = {word: tuple([_TERMINAL_CODE[n] for n in names]) for word, names in _BY_FIRST_WORD.items()}
_COLON_CODES: Final = {word: _TERMINAL_CODE[name] for word, name in _AFTER_COLON.items()}
_NAME_CODES: Final = {word: _TERMINAL_CODE[name] for word, name in _AFTER_NAME.items()}
_FIRST_CHARS: Final = frozenset(word[0] for word in _BY_FIRST_WORD)


def _fast_codes(text: str, pos: int, nl: int) -> tuple[tuple[int, ...], int]:
    """The terminals ``_fast_line`` tries for the line ``text[pos:nl]``, in order: those its first word may start
    (``_BY_FIRST_WORD``), then the one its next word names (-1: none)."""
    sp = text.find(" ", pos, nl)
    if sp <= pos:
        return (), -1
    c = text[pos]
    found: tuple[int, ...] = ()
    if c in _FIRST_CHARS:  # (no slice of the first word when it cannot be one of _BY_FIRST_WORD's)
        found = _FIRST_CODES.get(text[pos:sp], ())
    colon = text[sp - 1] == ":"
    if colon and c.isdigit() and text[pos:sp - 1].isdigit():
        return found, T_STANDING
    sp2 = text.find(" ", sp + 1, nl)
    second = text[sp + 1:sp2] if sp2 >= 0 else text[sp + 1:nl]
    return found, (_COLON_CODES if colon else _NAME_CODES).get(second, -1)


def _fast_line(text: str, pos: int, nl: int, patterns: list[re.Pattern[str]]) -> tuple[int, re.Match[str] | None]:
    """``_classify`` without splitting the line: the line ``text[pos:nl]``'s terminal and match, or ``-1`` when
    this shortcut cannot tell (``_classify`` then decides, and explains an unreadable line).

    The words are cut at single spaces, not at any whitespace as ``_candidates`` does; the answer is the same
    whenever it is not -1: the words it looks up hold no whitespace, and a terminal's pattern only matches a line
    whose first words are separated as the lookup assumed (a name is ``[\\w\\-.']+``, ``name: verb`` has one space).
    The candidates are tried in ``_candidates``'s order; ``fullmatch`` up to the newline is ``_classify``'s match
    that ends at the newline (no terminal's pattern matches a newline but its last character).
    """
    found, named = _fast_codes(text, pos, nl)
    for code in found:
        m = patterns[code].fullmatch(text, pos, nl + 1)
        if m is not None:
            return code, m
    if named >= 0:
        m = patterns[named].fullmatch(text, pos, nl + 1)
        if m is not None:
            return named, m
    return -1, None


# ---- lines read before, and the lines that never repeat --------------------------------------------------------
# Most lines of a log repeat (players fold, check, call and post the same amounts, the street lines are the same
# in every hand): a parser remembers, per line text, the terminal and the value it built, less the line number,
# and a line read before is rebuilt from that with its own line number (no pattern matched, no groups read).
# Only lines whose value follows from their text alone are remembered, and only after their value was built: a
# line that does not read, or holds a number too large, is read afresh every time (its error is made again).
# The deals, draws and shows (their cards) hardly ever repeat. The usual shapes of every kind of line are read by
# slicing (``_quick_line``), anything else by its pattern (compiled when a line first needs it).

_MEMO_SIZE: Final = 4096
"""The most lines (and names) a parser remembers; past that it forgets them all and starts again (a log of any
size takes the same memory)."""

_MEMO_KINDS: Final = frozenset([
    T_TABLE_LINE, T_SEAT_LINE, T_CARRIED, T_MARKER, T_UNCALLED, T_TOTAL, T_POST, T_NOPLAY, T_ACT, T_PAROLE,
    T_STANDS_PAT, T_MUCKS, T_COLLECTED, T_EVENT, T_SAID, T_SCORES])
"""The terminals whose lines are remembered: their value is the line number and what the text says (the seat
line's a seat and whether it counts points; the table line's has no line number)."""
_REMEMBERED: Final = [code in _MEMO_KINDS for code in range(len(_TERMINALS))]
"""``_MEMO_KINDS`` by terminal number."""
_IN_BODY: Final = [code in (T_POST, T_NOPLAY, T_MARKER, T_DECK, T_DEALT, T_ACT, T_PAROLE, T_DISCARDS, T_STANDS_PAT,
                            T_RESHUFFLES, T_SHOWS, T_MUCKS, T_COLLECTED, T_UNCALLED, T_EVENT, T_SAID, T_SCORES,
                            T_TOTAL) for code in range(len(_TERMINALS))]
"""The terminals a hand's body takes (``body`` in the grammar), by terminal number."""
_NEVER: Final = re.compile(r"(?!)")

M_TUPLE: Final = 0  # a model tuple (or the carried pot's pair) whose first field is the line
M_SAME: Final = 1  # the value as it is (the table line's: no line number)
M_SEAT: Final = 2  # a seat line's (Seat, counts points)


class _Seen:
    """A line read before: its terminal, how its value is rebuilt, the value's type and its fields after the line
    number (``M_SAME``: the value itself)."""

    def __init__(self, kind: int, how: int, cls: type, tail: tuple[Any, ...], points: bool) -> None:
        self.kind = kind
        self.how = how
        self.cls = cls
        self.tail = tail
        self.points = points

    def value(self, line: object) -> object:
        """The value the line would be built into at file line ``line``."""
        if self.how == M_TUPLE:
            return _new(self.cls, (line,) + self.tail)
        if self.how == M_SEAT:
            return _new(Seat, (line,) + self.tail), self.points
        return self.tail


def _seen(kind: int, value: object) -> _Seen:
    """What to remember of a line of terminal ``kind`` (one of ``_MEMO_KINDS``) built into ``value``."""
    if kind == T_TABLE_LINE:
        return _Seen(kind, M_SAME, tuple, cast(tuple[Any, ...], value), False)
    if kind == T_SEAT_LINE:
        seat, points = cast(tuple[Seat, bool], value)
        return _Seen(kind, M_SEAT, Seat, seat[1:], points)
    row = cast(tuple[Any, ...], value)
    return _Seen(kind, M_TUPLE, type(row), row[1:], False)


_NAME: Final = re.compile(r"[\w\-.']+")

# The patterns whose usual shapes ``_quick_line`` reads (a grammar whose patterns differ: every line is matched).
_QUICK_PATTERNS: Final = {
    "HAND_LINE": "Hand #(?P<id>\\S+) +- +(?P<date>\\d{4}\\/\\d{1,2}\\/\\d{1,2} +\\d{1,2}:\\d\\d(?::\\d\\d)?) *\n",
    "TABLE_LINE": "Table '(?P<table>[^\n]*)' +Seat #(?P<button>\\d+) is the button *\n",
    "SEAT_LINE": "Seat (?P<seat>\\d+): +(?P<name>[\\w\\-.']+) +\\((?P<n>\\d+) (?P<unit>in chips|points?)\\)"
                 "(?P<out> is sitting out)? *\n",
    "MARKER": "\\*\\*\\* (DEALING HANDS|FIRST BETTING ROUND|DRAW|SECOND BETTING ROUND|SHOW DOWN|SUMMARY|REDEAL) "
              "\\*\\*\\* *\n",
    "DECK": "Deck: *\\[[^\\]\n]*\\] *\n",
    "RESHUFFLES": "Dealer: +reshuffles +\\[[^\\]\n]*\\] *\n",
    "DEALT": "Dealt to +(?P<name>[\\w\\-.']+) *(?P<cards>\\[[^\\]\n]*\\]( *\\[[^\\]\n]*\\])?) *\n",
    "UNCALLED": "Uncalled bet \\((?P<n>\\d+)\\) returned to +(?P<name>[\\w\\-.']+) *\n",
    "TOTAL": "Total pot \\d+ \\| Rake \\d+ *\n",
    "POST": "(?P<name>[\\w\\-.']+): posts (?P<kind>the ante|small blind|big blind|over blind|live blind|dead blind)"
            " +(?P<n>\\d+)(?P<allin> and is all-in)? *\n",
    "ACT": "(?P<name>[\\w\\-.']+): (?:(?P<plain>folds|checks)|(?P<verb>calls|bets) +(?P<n>\\d+)"
           "|raises +(?P<inc>\\d+) +to +(?P<to>\\d+))(?P<allin> and is all-in)?(?P<timedout> \\(timed out\\))?"
           "(?: \\(took (?P<took>\\d+(?:\\.\\d+)?)s\\))? *\n",
    "DISCARDS": "(?P<name>[\\w\\-.']+): discards +(?P<n>\\d+) cards?(?: +(?P<cards>\\[[^\\]\n]*\\]))?"
                "(?: \\(took (?P<took>\\d+(\\.\\d+)?)s\\))? *\n",
    "STANDS_PAT": "(?P<name>[\\w\\-.']+): stands pat(?P<timedout> \\(timed out\\))?"
                  "(?: \\(took (?P<took>\\d+(?:\\.\\d+)?)s\\))? *\n",
    "SHOWS": "(?P<name>[\\w\\-.']+): shows +(?P<cards>\\[[^\\]\n]*\\])(?: +\\((?P<desc>[^\n]*)\\))? *\n",
    "MUCKS": "(?P<name>[\\w\\-.']+): mucks hand *\n",
    "COLLECTED": "(?P<name>[\\w\\-.']+) +collected +(?P<n>\\d+) +from "
                 "+(?P<pot>pot \\(parole\\)|pot|main pot|side pot-\\d+) *\n",
    "SAID": "(?P<name>[\\w\\-.']+) +said, \"(?P<text>[^\n]*)\" *\n",
    "SESSION_END": "\\*\\*\\* SESSION END \\*\\*\\* *\n",
    "SESSION": "Session: *[^\n]+\n",
    "PROFILE": "Profile: *[^\n]+\n",
    "OPTION": "Option: *[^\n]+\n",
    "CARDS": "Cards: *(?P<cards>shown|all) *\n",
    "STANDING": "(?P<place>\\d+): +(?P<name>[\\w\\-.']+) +\\((?P<n>\\d+)\\) *\n",
}

# The street lines as written (single spaces, no trailing space) → their street.
_MARKER_LINES: Final = {f"*** {words} ***": street for words, street in _MARKERS.items()}
_POST_WORDS: Final = {"the ante": "ante", "small blind": "small", "big blind": "big", "over blind": "over",
                      "live blind": "live", "dead blind": "dead"}


def _card_table() -> list[str]:
    """A card of the deck (or the joker) by its two characters' code points (``rank * 128 + suit``), else ""."""
    table = [""] * (128 * 128)
    for rank in "23456789TJQKA":
        for suit in "cdhs":
            table[ord(rank) * 128 + ord(suit)] = rank + suit
    table[ord("J") * 128 + ord("k")] = "Jk"
    return table


_CARD_OF: Final = _card_table()
"""One string per card: a line's cards are these strings, not slices of the line (no string made per card, and
each card's hash is computed once for the whole run)."""


def _cards_at(key: str, start: int, end: int) -> tuple[str, ...] | None:
    """``cards_inside(key[start:end])`` when those characters are cards of the deck (or the joker) one space apart;
    else ``None`` (the caller reads them with ``cards_inside``). A card is two ASCII letters or digits, never
    ``10``, so the split and the ``10`` → ``T`` of ``cards_inside`` would give the same strings."""
    size = end - start
    if size <= 0:
        return () if size == 0 else None
    if (size + 1) % 3 != 0:
        return None
    count = (size + 1) // 3
    for at in range(start + 2, end, 3):
        if key[at] != " ":
            return None
    if count == 5:  # (a deal, a show: the tuple made at once, no list)
        one, two, three, four, five = (_card(key, start), _card(key, start + 3), _card(key, start + 6),
                                       _card(key, start + 9), _card(key, start + 12))
        return (one, two, three, four, five) if one and two and three and four and five else None
    if count == 4:  # (the cards kept at a draw of one)
        one, two, three, four = _card(key, start), _card(key, start + 3), _card(key, start + 6), _card(key, start + 9)
        return (one, two, three, four) if one and two and three and four else None
    if count == 3:
        one, two, three = _card(key, start), _card(key, start + 3), _card(key, start + 6)
        return (one, two, three) if one and two and three else None
    if count == 2:
        one, two = _card(key, start), _card(key, start + 3)
        return (one, two) if one and two else None
    if count == 1:
        one = _card(key, start)
        return (one,) if one else None
    cards: list[str] = []
    for at in range(start, end, 3):
        card = _card(key, at)
        if not card:
            return None
        cards.append(card)
    return tuple(cards)


def _card(key: str, at: int) -> str:
    """The card ``key[at:at + 2]`` when it is one of the deck (or the joker), else ""."""
    rank = ord(key[at])
    suit = ord(key[at + 1])
    if rank >= 128 or suit >= 128:
        return ""
    return _CARD_OF[rank * 128 + suit]


def _cards(key: str, start: int, end: int) -> tuple[str, ...]:
    """``cards_inside(key[start:end])``."""
    found = _cards_at(key, start, end)
    return found if found is not None else cards_inside(key[start:end])


def is_player_name(name: str) -> bool:
    """Whether a line led by ``name`` reads as that player's line (``name: folds``, ``name collected 2 from
    pot``): one word the patterns read as a name (``[\\w\\-.']+``) that is not the first word of another kind of
    line (``Seat``, ``Session:``, a standings line's place ``12:``; any word of digits, ``²`` and ``٣`` too)."""
    return (_NAME.fullmatch(name) is not None and not name.isdigit() and name not in _BY_FIRST_WORD
            and name + ":" not in _BY_FIRST_WORD)


def _plain_name(name: str, names: dict[str, str]) -> str:
    """``name`` when it is a player's name (the patterns' ``[\\w\\-.']+``) that cannot be read as the first word
    of another line (``Session:``, a standings line's ``12:`` …), so that a line led by it is the line its next
    words say; else ``""``. Remembered in ``names``, which gives back the first string read for a name: every
    line of a player then holds the same string, whose hash is computed once and which the engine's look-ups
    compare by identity."""
    known = names.get(name)
    if known is None:
        known = name if is_player_name(name) else ""
        if len(names) >= _MEMO_SIZE:
            names.clear()
        names[name] = known
    return known


def _any_name(name: str, names: dict[str, str]) -> str:
    """``name`` when the patterns' ``[\\w\\-.']+`` reads it (``_plain_name``'s string when it gives one), else
    ``""``: for the lines whose first words are fixed (``Uncalled bet``), where any name reads."""
    known = _plain_name(name, names)
    if known:
        return known
    return name if _NAME.fullmatch(name) is not None else ""


def _number(key: str, start: int, end: int, most: int) -> int:
    """The number ``key[start:end]`` when it is 1 to ``most`` ASCII digits, else -1 (what ``read_amount`` and
    ``read_seat`` read from such digits: ``most`` is at most 15, the digits of ``MAX_AMOUNT``)."""
    if end <= start or end - start > most:
        return -1
    value = 0
    for i in range(start, end):
        code = ord(key[i])
        if code < 48 or code > 57:
            return -1
        value = value * 10 + code - 48
    return value


def _at(key: str, word: str, at: int) -> bool:
    """Whether ``key`` holds ``word`` at ``at`` (its first character compared first: most tests fail there, without
    a call; reading a character costs the compiled code about as much as a tenth of a ``find``)."""
    if at < 0 or at >= len(key) or ord(key[at]) != ord(word[0]):
        return False
    return key.find(word, at, at + len(word)) == at


def _space(key: str, start: int, stop: int) -> int:
    """The first space in ``key[start:stop]``, or -1."""
    for i in range(start, stop):
        if ord(key[i]) == 32:
            return i
    return -1


def _seconds(key: str, start: int, end: int) -> float:
    """The seconds ``key[start:end]`` when they are ``\\d+(\\.\\d+)?`` in ASCII digits, at most 15 of them on each
    side of the point (``_took`` reads them as ``float`` does); else -1.0."""
    dot = -1
    for i in range(start, end):
        code = ord(key[i])
        if code == 46 and dot < 0:
            dot = i
        elif code < 48 or code > 57:
            return -1.0
    whole = (dot if dot >= 0 else end) - start
    if whole < 1 or whole > 15 or (dot >= 0 and (end - dot - 1 < 1 or end - dot - 1 > 15)):
        return -1.0
    return float(key[start:end])


def _took_at(key: str, end: int) -> tuple[int, float]:
    """A line ``key[:end]`` that may end in `` (took <n>s)``: where that starts and the seconds; ``(end, -1.0)``
    when it does not end so; ``(-1, -1.0)`` when it ends so but not in the usual shape."""
    if end < 10 or key[end - 1] != ")" or key[end - 2] != "s":
        return end, -1.0
    start = key.rfind(" (took ", 0, end)
    if start < 0:
        return end, -1.0
    secs = _seconds(key, start + 7, end - 2)
    if secs < 0:
        return -1, -1.0
    return start, secs


def _quick_line(key: str, line: object, names: dict[str, str]) -> tuple[int, object]:
    """The terminal and value of the line ``key`` (without its newline) when it has one of the usual shapes,
    with single spaces, digits 0-9, cards of the deck or none, and a name that ``_plain_name`` passes (``_any_name``
    after fixed words): ``Hand #<id> - <yyyy/mm/dd hh:mm:ss>``, ``Table '<t>' Seat #<n> is the button``,
    ``Seat <n>: <name> (<n> in chips|points)`` (sitting out or not), the street lines, ``Deck: [..]``,
    ``Dealer: reshuffles [..]``, ``Dealt to <name> [..]`` (or ``[..] [..]``), ``<name>: posts <kind> <n>``,
    ``<name>: folds|checks|calls <n>|bets <n>|raises <n> to <n>`` (all-in, timed out, took <n>s or not),
    ``<name>: discards <n> card(s)`` (with or without ``[..]`` and the seconds), ``<name>: stands pat`` (timed out,
    took or not), ``<name>: shows [..]`` (with or without ``(..)``), ``<name>: mucks hand``, ``<name> collected
    <n> from <pot>``, ``<name> said, "<text>"``, ``Uncalled bet (<n>) returned to <name>``, ``Total pot <n> | Rake
    <n>``; else ``(-1, None)``. Exactly the terminal and value their patterns and builders give such a line (the
    tests hold the two ways to it, on chosen and on mutated lines); any other line is read by its pattern."""
    stop = len(key)
    if stop < 2:
        return -1, None
    first = ord(key[0])
    if first == 42:  # '*' (no name starts with it)
        street = _MARKER_LINES.get(key)
        if street is None:
            return (T_SESSION_END, line) if key == "*** SESSION END ***" else (-1, None)
        return T_MARKER, _new(Marker, (line, street))
    if first == 68:  # 'D'
        if _at(key, "Dealt to ", 0):
            return _quick_dealt(key, stop, line, names)
        if _at(key, "Deck: [", 0):
            return _quick_cards_line(key, stop, 7, line, T_DECK)
        if _at(key, "Dealer: reshuffles [", 0):
            return _quick_cards_line(key, stop, 20, line, T_RESHUFFLES)
    elif first == 83:  # 'S'
        if _at(key, "Seat ", 0):
            return _quick_seat(key, stop, line, names)
        if _at(key, "Session: ", 0):
            return _quick_file_line(key, stop, line, T_SESSION)
    elif first == 80:  # 'P'
        if _at(key, "Profile: ", 0):
            return _quick_file_line(key, stop, line, T_PROFILE)
    elif first == 79:  # 'O'
        if _at(key, "Option: ", 0):
            return _quick_file_line(key, stop, line, T_OPTION)
    elif first == 67:  # 'C'
        if key == "Cards: shown" or key == "Cards: all":
            return T_CARDS, _new(CardsLine, (line, stop == 12))
    elif 48 <= first <= 57:  # a digit: a standings line, or a name led by digits
        kind, value = _quick_standing(key, stop, line, names)
        if kind >= 0:
            return kind, value
    elif first == 72:  # 'H'
        if _at(key, "Hand #", 0):
            return _quick_hand(key, stop, line)
    elif first == 84:  # 'T'
        if _at(key, "Total pot ", 0):
            return _quick_total(key, stop, line)
        if _at(key, "Table '", 0):
            return _quick_table(key, stop)
    elif first == 85:  # 'U'
        if _at(key, "Uncalled bet (", 0):
            return _quick_uncalled(key, stop, line, names)
    sp = _space(key, 0, stop)
    if sp <= 0:
        return -1, None
    if key[sp - 1] != ":":
        if _at(key, " collected ", sp):
            return _quick_collected(key, sp, stop, line, names)
        if _at(key, " said, \"", sp):
            return _quick_said(key, sp, stop, line, names)
        return -1, None
    verb = sp + 1
    if verb >= stop:
        return -1, None
    c = ord(key[verb])
    if c == 115:  # 's'
        if _at(key, "shows [", verb):
            return _quick_shows(key, sp, stop, line, names)
        if _at(key, "stands pat", verb):
            return _quick_stands_pat(key, sp, stop, line, names)
        return -1, None
    if c == 100:  # 'd'
        if _at(key, "discards ", verb):
            return _quick_discards(key, sp, stop, line, names)
        return -1, None
    if c == 112:  # 'p'
        if _at(key, "posts ", verb):
            return _quick_post(key, sp, stop, line, names)
        return -1, None
    if c == 109:  # 'm'
        if stop - verb == 10 and _at(key, "mucks hand", verb):
            name = _plain_name(key[:sp - 1], names)
            if not name:
                return -1, None
            return T_MUCKS, _new(Muck, (line, name))
        return -1, None
    return _quick_act(key, sp, stop, line, names)


def _quick_file_line(key: str, stop: int, line: object, kind: int) -> tuple[int, object]:
    """``_quick_line`` of a ``Session: ``, ``Profile: `` or ``Option: `` line: what their builders read from it."""
    if "\n" in key:
        return -1, None
    text = key.split(":", 1)[1]
    if kind == T_SESSION:
        return T_SESSION, _new(SessionLine, (line, text.strip()))
    if kind == T_PROFILE:
        return T_PROFILE, _new(ProfileLine, (line, text.strip()))
    name, _, value = text.partition("=")
    return T_OPTION, _new(OptionLine, (line, name.strip(), value.strip()))


def _quick_standing(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<place>: <name> (<n>)``."""
    colon = key.find(": ")
    place = _number(key, 0, colon, 15)
    if place < 0 or key[stop - 1] != ")":
        return -1, None
    opening = key.find(" (", colon + 2)
    amount = _number(key, opening + 2, stop - 1, 15)
    if opening < 0 or amount < 0:
        return -1, None
    name = _any_name(key[colon + 2:opening], names)
    if not name:
        return -1, None
    return T_STANDING, _new(Standing, (line, place, name, amount))


def _quick_dealt(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of a line starting ``Dealt to ``."""
    b = key.find(" [", 9)
    if b <= 9 or "\n" in key:
        return -1, None
    close = key.find("]", b + 2)
    if close < 0:
        return -1, None
    if close != stop - 1 and (not _at(key, " [", close + 1) or key.find("]", close + 3) != stop - 1):
        return -1, None
    name = _plain_name(key[9:b], names)
    if not name:
        return -1, None
    # (what ``_dealt`` reads from the brackets ``key[b + 1:stop]``)
    kept = _cards(key, b + 2, close)
    groups = (kept,) if close == stop - 1 else (kept, _cards(key, close + 3, stop - 1))
    return T_DEALT, _new(Dealt, (line, name, groups))


def _quick_cards_line(key: str, stop: int, at: int, line: object, kind: int) -> tuple[int, object]:
    """``_quick_line`` of ``Deck: [..]`` or ``Dealer: reshuffles [..]`` (``at``: after the ``[``)."""
    if key[stop - 1] != "]" or key.find("]", at) != stop - 1 or "\n" in key:
        return -1, None
    cards = _cards(key, at, stop - 1)
    if kind == T_DECK:
        return T_DECK, _new(DeckLine, (line, cards))
    return T_RESHUFFLES, _new(Reshuffle, (line, cards))


def _quick_shows(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name>: shows [..]`` (``sp``: the space after the colon)."""
    verb = sp + 1
    close = key.find("]", verb + 7)
    if close < 0 or "\n" in key:
        return -1, None
    after = close + 1
    desc: str | None = None
    if after != stop:
        if after + 3 > stop or not _at(key, " (", after) or key[stop - 1] != ")":
            return -1, None
        desc = key[after + 2:stop - 1]
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_SHOWS, _new(Show, (line, name, _cards(key, verb + 7, close), desc))


def _quick_discards(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name>: discards ...`` (``sp``: the space after the colon)."""
    end, secs = _took_at(key, stop)
    if end < 0:
        return -1, None
    at = sp + 10
    word = key.find(" card", at, end)
    count = _number(key, at, word, 15)
    if count < 0 or "\n" in key:
        return -1, None
    after = word + 5
    if after < end and key[after] == "s":
        after += 1
    cards: tuple[str, ...] | None = None
    if after != end:
        if not _at(key, " [", after) or key.find("]", after + 2) != end - 1:
            return -1, None
        cards = _cards(key, after + 2, end - 1)
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_DISCARDS, _new(Discard, (line, name, count, cards, secs if secs >= 0 else None))


def _quick_stands_pat(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name>: stands pat ...`` (``sp``: the space after the colon)."""
    end, secs = _took_at(key, stop)
    if end < 0:
        return -1, None
    timed = end - sp - 1 == 22 and _at(key, " (timed out)", end - 12)
    if end - sp - 1 != (22 if timed else 10):
        return -1, None
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_STANDS_PAT, _new(StandPat, (line, name, timed, secs if secs >= 0 else None))


def _quick_post(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name>: posts ...`` (``sp``: the space after the colon)."""
    end = stop
    allin = _at(key, " and is all-in", stop - 14)
    if allin:
        end = stop - 14
    at = sp + 7
    space = _space(key, at, end)  # after "the" or "small": the kind is two words
    if space < 0:
        return -1, None
    space = _space(key, space + 1, end)
    if space < 0:
        return -1, None
    kind = _POST_WORDS.get(key[at:space])
    amount = _number(key, space + 1, end, 15)
    if kind is None or amount < 0:
        return -1, None
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_POST, _new(Post, (line, name, kind, amount, allin))


def _quick_act(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name>: <verb> ...`` (``sp``: the space after the colon) when it is a betting line."""
    at = sp + 1
    end, secs = _took_at(key, stop)
    if end < 0:
        return -1, None
    timed = _at(key, " (timed out)", end - 12)
    if timed:
        end -= 12
    allin = _at(key, " and is all-in", end - 14)
    if allin:
        end -= 14
    c = ord(key[at])
    to = 0
    if c == 102 and end - at == 5 and _at(key, "folds", at):  # 'f'
        kind, amount = "fold", 0
    elif c == 99 and end - at == 6 and _at(key, "checks", at):  # 'c'
        kind, amount = "check", 0
    elif c == 99 and _at(key, "calls ", at):
        kind, amount = "call", _number(key, at + 6, end, 15)
    elif c == 98 and _at(key, "bets ", at):  # 'b'
        kind, amount = "bet", _number(key, at + 5, end, 15)
        to = amount
    elif c == 114 and _at(key, "raises ", at):  # 'r'

        middle = key.find(" to ", at + 7, end)
        kind, amount, to = "raise", _number(key, at + 7, middle, 15), _number(key, middle + 4, end, 15)
    else:
        return -1, None
    if amount < 0 or to < 0:
        return -1, None
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_ACT, _new(Action, (line, name, kind, amount, to, allin, timed, secs if secs >= 0 else None))


def _quick_seat(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of a line starting ``Seat ``."""
    colon = key.find(": ", 5)
    seat = _number(key, 5, colon, 9)
    if seat < 0:
        return -1, None
    opening = key.find(" (", colon + 2)
    if opening < 0:
        return -1, None
    space = _space(key, opening + 2, stop)
    chips = _number(key, opening + 2, space, 15)
    if chips < 0:
        return -1, None
    close = key.find(")", space)
    if close < 0:
        return -1, None
    if close - space == 9 and _at(key, "in chips", space + 1):
        points = False
    elif (close - space == 7 and _at(key, "points", space + 1)) or (close - space == 6 and _at(key, "point", space + 1)):
        points = True
    else:
        return -1, None
    if close + 1 == stop:
        out = False
    elif close + 16 == stop and _at(key, " is sitting out", close + 1):
        out = True
    else:
        return -1, None
    name = _plain_name(key[colon + 2:opening], names)
    if not name:
        return -1, None
    return T_SEAT_LINE, (_new(Seat, (line, seat, name, chips, out)), points)


def _quick_hand(key: str, stop: int, line: object) -> tuple[int, object]:
    """``_quick_line`` of a line starting ``Hand #``: ``Hand #<id> - yyyy/mm/dd hh:mm:ss`` only."""
    dash = key.find(" - ", 6)
    if dash <= 6 or stop - dash != 22:
        return -1, None
    d = dash + 3  # the date: 19 characters
    if (key[d + 4] != "/" or key[d + 7] != "/" or key[d + 10] != " " or key[d + 13] != ":" or key[d + 16] != ":"
            or _number(key, d, d + 4, 4) < 0 or _number(key, d + 5, d + 7, 2) < 0
            or _number(key, d + 8, d + 10, 2) < 0 or _number(key, d + 11, d + 13, 2) < 0
            or _number(key, d + 14, d + 16, 2) < 0 or _number(key, d + 17, d + 19, 2) < 0):
        return -1, None
    hand_id = key[6:dash]
    words = hand_id.split()
    if len(words) != 1 or words[0] != hand_id:  # (no whitespace of any kind)
        return -1, None
    return T_HAND_LINE, (line, hand_id, key[d:stop])


def _quick_table(key: str, stop: int) -> tuple[int, object]:
    """``_quick_line`` of ``Table '<t>' Seat #<n> is the button``: the pattern's greedy table ends at the last
    ``' Seat #`` that the number and the words end the line after."""
    end = stop - 14
    if not _at(key, " is the button", end):
        return -1, None
    start = end
    while start > 0 and 48 <= ord(key[start - 1]) <= 57:
        start -= 1
    button = _number(key, start, end, 9)
    if button < 0 or start < 15 or not _at(key, "' Seat #", start - 8) or "\n" in key:
        return -1, None
    return T_TABLE_LINE, (key[7:start - 8], button)


def _quick_total(key: str, stop: int, line: object) -> tuple[int, object]:
    """``_quick_line`` of ``Total pot <n> | Rake <n>``."""
    bar = _space(key, 10, stop)
    total = _number(key, 10, bar, 15)
    if total < 0 or not _at(key, " | Rake ", bar):
        return -1, None
    rake = _number(key, bar + 8, stop, 15)
    if rake < 0:
        return -1, None
    return T_TOTAL, _new(SummaryTotal, (line, total, rake))


def _quick_uncalled(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``Uncalled bet (<n>) returned to <name>``."""
    close = key.find(")", 14)
    amount = _number(key, 14, close, 15)
    if amount < 0 or not _at(key, ") returned to ", close) or close + 14 >= stop:
        return -1, None
    name = _any_name(key[close + 14:stop], names)
    if not name:
        return -1, None
    return T_UNCALLED, _new(Uncalled, (line, name, amount))


def _quick_said(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name> said, "<text>"`` (``sp``: the space after the name); the pattern's greedy text
    ends at the line's last quote."""
    if stop < sp + 9 or key[stop - 1] != "\"" or "\n" in key:
        return -1, None
    name = _plain_name(key[:sp], names)
    if not name:
        return -1, None
    return T_SAID, _new(Event, (line, name, "said", key[sp + 8:stop - 1]))


def _quick_collected(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name> collected <n> from <pot>`` (``sp``: the space after the name)."""
    at = sp + 11
    end = key.find(" from ", at)
    amount = _number(key, at, end, 15)
    if amount < 0:
        return -1, None
    where = key[end + 6:stop]
    pot = _POTS.get(where)
    if pot is None:
        if not where.startswith("side pot-") or _number(where, 9, len(where), 15) < 0:
            return -1, None
        pot = "side-" + where[9:]
    name = _plain_name(key[:sp], names)
    if not name:
        return -1, None
    return T_COLLECTED, _new(Collect, (line, name, amount, pot))


def _token_value(kind: int, m: re.Match[str], line: int) -> object:
    """The value a shifted line leaves on the stack: its model object (most frequent lines first)."""
    if kind == T_DEALT:
        return _b_dealt(m, line)
    if kind == T_MARKER:
        return _b_marker(m, line)
    if kind == T_ACT:
        return _b_act(m, line)
    if kind == T_POST:
        return _b_post(m, line)
    if kind == T_SEAT_LINE:
        return _b_seat_line(m, line)
    if kind == T_DISCARDS:
        return _b_discards(m, line)
    if kind == T_SHOWS:
        return _b_shows(m, line)
    if kind == T_COLLECTED:
        return _b_collected(m, line)
    if kind == T_TOTAL:
        return _b_total(m, line)
    if kind == T_HAND_LINE:
        return _b_hand_line(m, line)
    if kind == T_TABLE_LINE:
        return _b_table_line(m, line)
    if kind == T_UNCALLED:
        return _b_uncalled(m, line)
    if kind == T_STANDS_PAT:
        return _b_stands_pat(m, line)
    if kind == T_MUCKS:
        return _b_mucks(m, line)
    if kind == T_CARRIED:
        return _b_carried(m, line)
    if kind == T_DECK:
        return _b_deck(m, line)
    if kind == T_RESHUFFLES:
        return _b_reshuffles(m, line)
    if kind == T_NOPLAY:
        return _b_noplay(m, line)
    if kind == T_PAROLE:
        return _b_parole(m, line)
    if kind == T_EVENT:
        return _b_event(m, line)
    if kind == T_SAID:
        return _b_said(m, line)
    if kind == T_SCORES:
        return _b_scores(m, line)
    if kind == T_SESSION:
        return _b_session(m, line)
    if kind == T_PROFILE:
        return _b_profile(m, line)
    if kind == T_OPTION:
        return _b_option(m, line)
    if kind == T_STANDING:
        return _b_standing(m, line)
    if kind == T_CARDS:
        return _b_cards(m, line)
    return line  # SESSION_END: its line, for session_end


# What a reduction builds: a left-recursive list (one Python list grows), or one of the blocks.
R_LIST: Final = 0
R_HAND: Final = 1
R_PREAMBLE: Final = 2
R_SESSION_END: Final = 3
_RULE_KINDS: Final = {"seats": R_LIST, "body": R_LIST, "items": R_LIST, "standings": R_LIST, "hand": R_HAND,
                      "preamble": R_PREAMBLE, "session_end": R_SESSION_END}


def _reduce(kind: int, c: list[Any], file: str) -> object:
    """A block rule's value from its children's (``R_LIST`` is done in place by the loop)."""
    if kind == R_HAND:
        return _build_hand(c, file)
    if kind == R_PREAMBLE:
        items: list[Any] = c[0]
        return _new(Preamble, (items[0].line, tuple(items)))
    return _new(SessionEnd, (c[0], tuple(c[1]) if len(c) > 1 else ()))


class LineParser:
    """Runs Lark's LALR tables for the house grammar over a block, one line per token.

    Lark builds the grammar, the lexer's terminals and the LALR(1) tables; this loop only plays them, as Lark's
    own parser does, without its per-token costs (a ``Token`` object, rule objects hashed on every reduction,
    a Python call per callback): terminals and rules are numbers, the tables flat lists of ints, and the
    terminal callbacks and the list rules are calls the compiler sees. A usual hand is not even played through
    the tables: ``read_hand`` builds it in one pass when its lines stand where the grammar puts them.
    """

    def __init__(self, tables: dict[str, Any]) -> None:
        """``tables``: the grammar's terminals and LALR tables as ``audit.dialects.house_lark.grammar_tables``
        gives them (plain lists and strings)."""
        terminals: list[list[str]] = tables["terminals"]
        unknown = [name for name, _ in terminals if name not in _TERMINAL_CODE]
        if unknown:
            raise ValueError(f"the fast parser does not know the terminals {unknown}")
        # the terminals' patterns, compiled when first needed (compiling the 28 of them took about a tenth of a
        # second, and most logs need few of them: the usual lines are read by ``_quick_line``); a terminal the
        # grammar lacks never matches
        self.sources: dict[str, str] = {name: pattern for name, pattern in terminals}
        self.compiled: list[re.Pattern[str] | None] = [None] * len(_TERMINALS)
        nonterminals: list[str] = tables["nonterminals"]
        rules: list[list[int]] = tables["rules"]  # [nonterminal it makes, symbols it takes]
        self.rule_size: list[int] = [size for _, size in rules]
        self.rule_origin: list[int] = [origin for origin, _ in rules]
        self.rule_kind: list[int] = [_RULE_KINDS[nonterminals[origin]] for origin, _ in rules]
        self.nt = nt = len(_TERMINALS)
        self.nn = nn = len(nonterminals)
        count: int = tables["states"]
        # actions[state * nt + terminal]: 0 none (the line cannot stand here), s + 1 shift to state s,
        # -(r + 1) reduce by rule r; gotos[state * nn + nonterminal]: the state after a reduction
        self.actions: list[int] = [0] * (count * nt)
        self.gotos: list[int] = [-1] * (count * nn)
        for state, name, action in tables["actions"]:
            self.actions[state * nt + _TERMINAL_CODE[name]] = action
        for state, nonterminal, target in tables["gotos"]:
            self.gotos[state * nn + nonterminal] = target
        self.start_states: dict[str, int] = dict(tables["start_states"])
        self.end_states: dict[str, int] = dict(tables["end_states"])
        # the lines read before (a line's text without its newline → what was read), the names checked (each
        # name → the string first read for it, or "" when it is not a plain name), and whether the
        # grammar's patterns are the ones ``_quick_line`` reads the usual shapes of
        self.memo: dict[str, _Seen] = {}
        self.names: dict[str, str] = {}
        self.quick: bool = all(self.sources.get(name) == pattern for name, pattern in _QUICK_PATTERNS.items())

    def pattern(self, code: int) -> re.Pattern[str]:
        """The pattern of terminal ``code``, compiled on first use (``ValueError`` if its groups are not the ones its
        builder reads: a grammar edit)."""
        found = self.compiled[code]
        if found is None:
            source = self.sources.get(_TERMINALS[code])
            if source is None:
                found = _NEVER
            else:
                found = re.compile(source)
                _check_groups({_TERMINALS[code]: found})
            self.compiled[code] = found
        return found

    @property
    def patterns(self) -> list[re.Pattern[str]]:
        """Every terminal's pattern by number (``$END``'s and those the grammar lacks never match)."""
        return [self.pattern(code) for code in range(len(_TERMINALS))]

    @property
    def patterns_by_name(self) -> dict[str, re.Pattern[str]]:
        """The grammar's terminals' patterns by name."""
        return {name: self.pattern(_TERMINAL_CODE[name]) for name in self.sources}

    def match_line(self, text: str, nl: int) -> tuple[int, re.Match[str] | None]:
        """``_fast_line(text, 0, nl, self.patterns)``, compiling only the patterns it tries."""
        found, named = _fast_codes(text, 0, nl)
        for code in found:
            m = self.pattern(code).fullmatch(text, 0, nl + 1)
            if m is not None:
                return code, m
        if named >= 0:
            m = self.pattern(named).fullmatch(text, 0, nl + 1)
            if m is not None:
                return named, m
        return -1, None

    def line_by_pattern(self, key: str, line: int) -> tuple[int, object]:
        """The terminal and value of the line ``key`` (followed by a newline) read by its pattern, when
        ``match_line`` tells its terminal and its numbers are not too large; else ``(-1, None)``."""
        if "\n" in key:
            return -1, None
        text = key + "\n"
        kind, m = self.match_line(text, len(key))
        if kind < 0 or m is None:
            return -1, None
        try:
            return kind, _token_value(kind, m, line)
        except NumberTooLarge:
            return -1, None

    def read_hand(self, lines: list[str], numbers: list[int], file: str) -> Hand | None:
        """The ``Hand`` of a block's lines (each followed by a newline; ``numbers``: their file lines) when every
        line reads (by ``_quick_line``, from memory or by its pattern) and stands where the grammar puts it,
        ``HAND_LINE TABLE_LINE SEAT_LINE+ CARRIED? body*``: the value ``parse_lines``'s loop over the tables gives
        such a block, without its stack and reductions. Else ``None``, and the loop reads the block and says what
        is wrong. A line is remembered as the loop remembers it: once it is read and stands where it may.
        """
        total = len(lines)
        if total < 3 or len(numbers) < total or not self.quick:
            return None
        # (the line numbers as the reader boxed them go into the model tuples as they are, not made again)
        boxed = cast(list[object], numbers)
        memo = self.memo
        names = self.names
        hand_line = 0
        hand_id = ""
        started = ""
        table = ""
        button = 0
        seats: list[Seat] = []
        points = False
        carried = 0
        carried_line = 0
        body: list[object] = []
        place = 0  # what the line may be: 0 the hand line, 1 the table line, 2 a seat, 3 a seat or what follows
        # them, 4 a body line
        for i in range(total):
            key = lines[i]
            line = boxed[i]
            fresh = False
            if key and key[0] == "D" and key.startswith("Dealt to "):  # (never remembered: their cards hardly repeat)
                kind, value = _quick_dealt(key, len(key), line, names)
            else:
                seen = memo.get(key)
                if seen is not None:
                    kind = seen.kind
                    value = seen.value(line)
                else:
                    kind, value = _quick_line(key, line, names)
                    fresh = True
            if kind < 0:
                kind, value = self.line_by_pattern(key, numbers[i])
                if kind < 0:
                    return None
            if place == 4:
                if not _IN_BODY[kind]:
                    return None
                body.append(value)
            elif place == 3:
                if kind == T_SEAT_LINE:
                    row = cast(tuple[Seat, bool], value)
                    seats.append(row[0])
                    if row[1]:
                        points = True
                elif kind == T_CARRIED:
                    carried_line, carried = cast(tuple[int, int], value)
                    place = 4
                elif _IN_BODY[kind]:
                    body.append(value)
                    place = 4
                else:
                    return None
            elif place == 0:
                if kind != T_HAND_LINE:
                    return None
                hand_line, hand_id, started = cast(tuple[int, str, str], value)
                place = 1
            elif place == 1:
                if kind != T_TABLE_LINE:
                    return None
                table, button = cast(tuple[str, int], value)
                place = 2
            else:
                if kind != T_SEAT_LINE:
                    return None
                row = cast(tuple[Seat, bool], value)
                seats.append(row[0])
                if row[1]:
                    points = True
                place = 3
            if fresh and _REMEMBERED[kind]:
                if len(memo) >= _MEMO_SIZE:
                    memo.clear()
                memo[key] = _seen(kind, value)
        if place < 3:
            return None
        # (the hand ends at its last line, whichever it is: a body line, the pot carried over or a seat)
        return _new(Hand, (file, hand_line, numbers[total - 1], hand_id, started, table, button, tuple(seats),
                           tuple(body), carried, carried_line, points, "house", None, True))

    def parse(self, text: str, start: str, numbers: list[int], file: str) -> object:
        """The model object for ``text`` (lines each ending in a newline; ``numbers``: their file lines);
        raises ``LineError`` for an unreadable line and ``_Misplaced`` for a line out of place. A last line
        without its newline reads as no line does."""
        lines = text.split("\n")
        ended = lines[-1] == ""  # (the text ends with a newline, or is empty)
        if ended:
            lines.pop()
        return self.parse_lines(lines, ended, start, numbers, file)

    def parse_lines(self, lines: list[str], ended: bool, start: str, numbers: list[int], file: str) -> object:
        """``parse`` of the text whose lines (without their newlines) are ``lines``, each followed by a newline
        (``ended``) or all but the last. Raises ``_Split`` for a line holding a newline (the lines are not a
        text's: ``parse`` reads the text they make)."""
        if start == "hand" and ended:
            hand = self.read_hand(lines, numbers, file)
            if hand is not None:
                return hand
        actions = self.actions
        gotos = self.gotos
        rule_size = self.rule_size
        rule_kind = self.rule_kind
        rule_origin = self.rule_origin
        nt = self.nt
        nn = self.nn
        memo = self.memo
        names = self.names
        quick = self.quick
        end_state = self.end_states[start]
        stack: list[int] = [self.start_states[start]]
        values: list[object] = []
        line_no = 0
        total = len(lines)
        whole = total if ended else total - 1  # the lines followed by a newline
        # (a line past ``numbers`` has no number: read by its pattern, it fails as it always did)
        known = min(whole, len(numbers))
        m: re.Match[str] | None = None
        key = ""
        fresh = False  # the line was not remembered
        ready: object = None  # the line's value when it was made before the line is shifted (remembered, quick)
        while True:
            if line_no < total:
                key = lines[line_no]
                line_no += 1
                seen = memo.get(key) if line_no <= known else None
                fresh = seen is None
                if seen is not None:
                    kind = seen.kind
                    ready = seen.value(numbers[line_no - 1])
                else:
                    kind = -1
                    if quick and line_no <= known:
                        kind, ready = _quick_line(key, numbers[line_no - 1], names)
                    if kind < 0:
                        ready = None
                        if line_no <= whole:
                            if "\n" in key:
                                raise _Split()
                            text = key + "\n"
                        else:
                            text = key
                        kind, m = self.match_line(text, len(key))
                        if kind < 0:
                            name, _, m, _ = _classify(text, 0, len(text), line_no, self.patterns_by_name)
                            kind = _TERMINAL_CODE[name]
            else:
                kind = T_END
                ready = None
            while True:
                action = actions[stack[-1] * nt + kind]
                if action > 0:
                    stack.append(action - 1)
                    if ready is not None:
                        value = ready
                    else:
                        assert m is not None
                        try:
                            value = _token_value(kind, m, numbers[line_no - 1])
                        except NumberTooLarge as big:
                            raise LineError(line_no, _column_of(m, big.digits), big.what()) from None
                    values.append(value)
                    if fresh and kind in _MEMO_KINDS:
                        if len(memo) >= _MEMO_SIZE:
                            memo.clear()
                        memo[key] = _seen(kind, value)
                    break
                if action == 0:
                    raise _Misplaced(line_no, _TERMINALS[kind])
                rule = -action - 1
                size = rule_size[rule]
                what = rule_kind[rule]
                if what == R_LIST and size == 2:  # x: x ITEM
                    item = values.pop()
                    cast(list[object], values[-1]).append(item)
                    stack.pop()
                    stack.pop()
                elif what == R_LIST and size == 1:  # x: ITEM
                    values[-1] = [values[-1]]
                    stack.pop()
                else:
                    if size:
                        children = values[-size:]
                        del stack[-size:]
                        del values[-size:]
                    else:
                        children = []
                    values.append(_reduce(what, children, file))
                stack.append(gotos[stack[-1] * nn + rule_origin[rule]])
                if kind == T_END and stack[-1] == end_state:
                    return values[-1]


GRAMMAR: Final = "house.lark"
TABLES: Final = "house.tables.json"
"""The grammar's tables as Lark builds them, stored beside it (``make tables`` writes them again)."""
TABLES_FORMAT: Final = 1


def grammar_file() -> Path:
    """The house grammar's file (``grammar/house.lark``); its tables are stored beside it."""
    return data_dir("grammar") / GRAMMAR


def stored_tables() -> dict[str, Any] | None:
    """The stored tables when they were built from ``house.lark`` as it is now (else ``None``)."""
    path = grammar_file()
    try:
        grammar = path.read_text(encoding="utf-8")
        tables = json.loads(path.with_name(TABLES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(tables, dict) and tables.get("format") == TABLES_FORMAT and tables.get("grammar") == grammar:
        return tables
    return None


@lru_cache(maxsize=None)
def house_line_parser() -> LineParser:
    """The fast driver over the house grammar's tables (built once per process): the stored tables, or Lark's
    when they were stored for another text of the grammar."""
    tables = stored_tables()
    if tables is None:
        from audit.dialects.house_lark import grammar_tables, house_parser
        tables = grammar_tables(house_parser())
    return LineParser(tables)


_START: Final = {"house": "hand", "preamble": "preamble", "session_end": "session_end"}


def parse_house_block(block: RawBlock) -> Block:
    """A house-format block → ``Hand`` / ``Preamble`` / ``SessionEnd``, or a ``ParseFailure``; never raises."""
    if block.kind == "preamble":  # numbers the builder does not read: option values
        long_number = LONG_NUMBER.search(block.text())
        if long_number is not None:
            return long_number_failure(block, long_number)
    start = _START.get(block.kind)
    if start is None:
        return failure(block, 1, 1, "this is not the start of a hand (a hand begins with a 'Hand #' line)")
    if block.too_long:
        return too_long_failure(block)
    parser = house_line_parser()
    try:
        # the block's lines as the reader cut them (its text, ``block.text()``, read line by line: the same
        # lines, unless a block made otherwise has none or one holding a newline)
        try:
            if not block.lines:
                raise _Split()
            result = parser.parse_lines(block.lines, True, start, block.numbers, block.file)
        except _Split:
            result = parser.parse(block.text(), start, block.numbers, block.file)
    except LineError as exc:
        return failure(block, exc.line, exc.column, exc.what)
    except _Misplaced as misplaced:
        return _misplaced(block, misplaced)
    except NumberTooLarge as big:  # pragma: no cover - the parse loop turns it into a LineError with its line
        return failure(block, 1, 1, big.what())
    return cast(Block, result)


def _column_of(m: re.Match[str], digits: str) -> int:
    """The column (1-based) of the number ``digits`` in the line ``m`` matched (1 if it is not one group)."""
    for i in range(1, (m.lastindex or 0) + 1):
        if m.group(i) == digits:
            return m.start(i) - m.start() + 1
    return 1


_LINE_NAMES = {
    "HAND_LINE": "a 'Hand #' line", "TABLE_LINE": "the table line", "SEAT_LINE": "a seat line",
    "CARRIED": "the carried pot line", "MARKER": "this street line", "DECK": "the deck line",
    "SESSION": "a 'Session:' line", "PROFILE": "a 'Profile:' line", "OPTION": "an 'Option:' line", "CARDS": "a 'Cards:' line",
    "SESSION_END": "the session end line", "STANDING": "a standings line",
}


def _misplaced(block: RawBlock, exc: _Misplaced) -> ParseFailure:
    if exc.kind == "$END":
        last = len(block.lines)
        return failure(block, last, len(block.lines[-1]) + 1 if block.lines else 1,
                       "the hand ends too early: its header, table or seat lines are missing")
    return failure(block, exc.line, 1, f"{_LINE_NAMES.get(exc.kind, 'this line')} cannot stand here")
