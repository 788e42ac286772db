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


def _fast_line(text: str, pos: int, nl: int, patterns: list[re.Pattern[str]]) -> tuple[int, re.Match[str] | None]:
    """``_classify`` without splitting the line: the line ``text[pos:nl]``'s terminal and match, or ``-1`` when
    this shortcut cannot tell (``_classify`` then decides, and explains an unreadable line).

    The words are cut at single spaces, not at any whitespace as ``_candidates`` does; the answer is the same
    whenever it is not -1: the words it looks up hold no whitespace, and a terminal's pattern only matches a line
    whose first words are separated as the lookup assumed (a name is ``[\\w\\-.']+``, ``name: verb`` has one space).
    The candidates are tried in ``_candidates``'s order; ``fullmatch`` up to the newline is ``_classify``'s match
    that ends at the newline (no terminal's pattern matches a newline but its last character).
    """
    sp = text.find(" ", pos, nl)
    if sp <= pos:
        return -1, None
    c = text[pos]
    if c in _FIRST_CHARS:  # (no slice of the first word when it cannot be one of _BY_FIRST_WORD's)
        found = _FIRST_CODES.get(text[pos:sp])
        if found is not None:
            for code in found:
                m = patterns[code].fullmatch(text, pos, nl + 1)
                if m is not None:
                    return code, m
    colon = text[sp - 1] == ":"
    if colon and c.isdigit() and text[pos:sp - 1].isdigit():
        named = T_STANDING
    else:
        sp2 = text.find(" ", sp + 1, nl)
        second = text[sp + 1:sp2] if sp2 >= 0 else text[sp + 1:nl]
        named = (_COLON_CODES if colon else _NAME_CODES).get(second, -1)
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
# The deals, draws and shows (their cards) hardly ever repeat: their usual shapes are read by slicing
# (``_quick_line``), anything else by their pattern.

_MEMO_SIZE: Final = 4096
"""The most lines (and names) a parser remembers; past that it forgets them all and starts again (a log of any
size takes the same memory)."""

_MEMO_KINDS: Final = frozenset([
    T_TABLE_LINE, T_SEAT_LINE, T_CARRIED, T_MARKER, T_UNCALLED, T_TOTAL, T_POST, T_NOPLAY, T_ACT, T_PAROLE,
    T_STANDS_PAT, T_MUCKS, T_COLLECTED, T_EVENT, T_SAID, T_SCORES])
"""The terminals whose lines are remembered: their value is the line number and what the text says (the seat
line's a seat and whether it counts points; the table line's has no line number)."""

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

    def value(self, line: int) -> object:
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
    "SEAT_LINE": "Seat (?P<seat>\\d+): +(?P<name>[\\w\\-.']+) +\\((?P<n>\\d+) (?P<unit>in chips|points?)\\)"
                 "(?P<out> is sitting out)? *\n",
    "DEALT": "Dealt to +(?P<name>[\\w\\-.']+) *(?P<cards>\\[[^\\]\n]*\\]( *\\[[^\\]\n]*\\])?) *\n",
    "ACT": "(?P<name>[\\w\\-.']+): (?:(?P<plain>folds|checks)|(?P<verb>calls|bets) +(?P<n>\\d+)"
           "|raises +(?P<inc>\\d+) +to +(?P<to>\\d+))(?P<allin> and is all-in)?(?P<timedout> \\(timed out\\))?"
           "(?: \\(took (?P<took>\\d+(?:\\.\\d+)?)s\\))? *\n",
    "DISCARDS": "(?P<name>[\\w\\-.']+): discards +(?P<n>\\d+) cards?(?: +(?P<cards>\\[[^\\]\n]*\\]))?"
                "(?: \\(took (?P<took>\\d+(\\.\\d+)?)s\\))? *\n",
    "SHOWS": "(?P<name>[\\w\\-.']+): shows +(?P<cards>\\[[^\\]\n]*\\])(?: +\\((?P<desc>[^\n]*)\\))? *\n",
    "COLLECTED": "(?P<name>[\\w\\-.']+) +collected +(?P<n>\\d+) +from "
                 "+(?P<pot>pot \\(parole\\)|pot|main pot|side pot-\\d+) *\n",
}


def _plain_name(name: str, names: dict[str, str]) -> str:
    """``name`` when it is a player's name (the patterns' ``[\\w\\-.']+``) that cannot be read as the first word
    of another line (``Session:``, a standings line's ``12:`` …), so that a line led by it is the line its next
    words say; else ``""``. Remembered in ``names``, which gives back the first string read for a name: every
    line of a player then holds the same string, whose hash is computed once and which the engine's look-ups
    compare by identity."""
    known = names.get(name)
    if known is None:
        plain = (_NAME.fullmatch(name) is not None and not name.isdigit() and name not in _BY_FIRST_WORD
                 and name + ":" not in _BY_FIRST_WORD)
        known = name if plain else ""
        if len(names) >= _MEMO_SIZE:
            names.clear()
        names[name] = known
    return known


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
    """Whether ``key`` holds ``word`` at ``at``."""
    return key.find(word, at, at + len(word)) == at


def _quick_line(key: str, line: int, names: dict[str, str]) -> tuple[int, object]:
    """The terminal and value of the line ``key`` (without its newline) when it has one of the usual shapes,
    with single spaces, digits 0-9 and a name that ``_plain_name`` passes: ``Hand #<id> - <yyyy/mm/dd hh:mm:ss>``,
    ``Seat <n>: <name> (<n> in chips|points)`` (sitting out or not), ``Dealt to <name> [..]`` (or ``[..] [..]``),
    ``<name>: folds|checks|calls <n>|bets <n>|raises <n> to <n>`` (all-in or not), ``<name>: discards <n>
    card(s)`` (with or without ``[..]``), ``<name>: shows [..]`` (with or without ``(..)``), ``<name> collected
    <n> from <pot>``; else ``(-1, None)``. Exactly the terminal and value their patterns and builders give such a
    line (a test holds the two ways to it); any other line is read by its pattern."""
    stop = len(key)
    if stop < 2:
        return -1, None
    first = key[0]
    if first == "D" and key.startswith("Dealt to "):
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
        kept = cards_inside(key[b + 2:close])
        groups = (kept,) if close == stop - 1 else (kept, cards_inside(key[close + 3:stop - 1]))
        return T_DEALT, _new(Dealt, (line, name, groups))
    if first == "S" and key.startswith("Seat "):
        return _quick_seat(key, stop, line, names)
    if first == "H" and key.startswith("Hand #"):
        return _quick_hand(key, stop, line)
    sp = key.find(" ")
    if sp <= 0:
        return -1, None
    if key[sp - 1] != ":":
        if not _at(key, " collected ", sp):
            return -1, None
        return _quick_collected(key, sp, stop, line, names)
    verb = sp + 1
    if verb >= stop:
        return -1, None
    c = key[verb]
    if c == "s" and _at(key, "shows [", verb):
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
        return T_SHOWS, _new(Show, (line, name, cards_inside(key[verb + 7:close]), desc))
    if c == "d" and _at(key, "discards ", verb):
        at = verb + 9
        end = key.find(" card", at)
        count = _number(key, at, end, 15)
        if count < 0 or "\n" in key:
            return -1, None
        after = end + 5
        if after < stop and key[after] == "s":
            after += 1
        cards: tuple[str, ...] | None = None
        if after != stop:
            if not _at(key, " [", after) or key.find("]", after + 2) != stop - 1:
                return -1, None
            cards = cards_inside(key[after + 2:stop - 1])
        name = _plain_name(key[:sp - 1], names)
        if not name:
            return -1, None
        return T_DISCARDS, _new(Discard, (line, name, count, cards, None))
    return _quick_act(key, sp, stop, line, names)


def _quick_act(key: str, sp: int, stop: int, line: int, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of ``<name>: <verb> ...`` (``sp``: the space after the colon) when it is a betting line."""
    at = sp + 1
    end = stop
    allin = key.endswith(" and is all-in")
    if allin:
        end = stop - 14
    c = key[at]
    to = 0
    if c == "f" and end - at == 5 and _at(key, "folds", at):
        kind, amount = "fold", 0
    elif c == "c" and end - at == 6 and _at(key, "checks", at):
        kind, amount = "check", 0
    elif c == "c" and _at(key, "calls ", at):
        kind, amount = "call", _number(key, at + 6, end, 15)
    elif c == "b" and _at(key, "bets ", at):
        kind, amount = "bet", _number(key, at + 5, end, 15)
        to = amount
    elif c == "r" and _at(key, "raises ", at):
        middle = key.find(" to ", at + 7, end)
        kind, amount, to = "raise", _number(key, at + 7, middle, 15), _number(key, middle + 4, end, 15)
    else:
        return -1, None
    if amount < 0 or to < 0:
        return -1, None
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_ACT, _new(Action, (line, name, kind, amount, to, allin, False, None))


def _quick_seat(key: str, stop: int, line: int, names: dict[str, str]) -> tuple[int, object]:
    """``_quick_line`` of a line starting ``Seat ``."""
    colon = key.find(": ", 5)
    seat = _number(key, 5, colon, 9)
    if seat < 0:
        return -1, None
    opening = key.find(" (", colon + 2)
    if opening < 0:
        return -1, None
    space = key.find(" ", opening + 2)
    chips = _number(key, opening + 2, space, 15)
    if chips < 0:
        return -1, None
    close = key.find(")", space)
    if close < 0:
        return -1, None
    unit = key[space + 1:close]
    if unit != "in chips" and unit != "points" and unit != "point":
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
    return T_SEAT_LINE, (_new(Seat, (line, seat, name, chips, out)), unit != "in chips")


def _quick_hand(key: str, stop: int, line: int) -> tuple[int, object]:
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


def _quick_collected(key: str, sp: int, stop: int, line: int, names: dict[str, str]) -> tuple[int, object]:
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
    terminal callbacks and the list rules are calls the compiler sees.
    """

    def __init__(self, tables: dict[str, Any]) -> None:
        """``tables``: the grammar's terminals and LALR tables as ``audit.dialects.house_lark.grammar_tables``
        gives them (plain lists and strings)."""
        terminals: list[list[str]] = tables["terminals"]
        unknown = [name for name, _ in terminals if name not in _TERMINAL_CODE]
        if unknown:
            raise ValueError(f"the fast parser does not know the terminals {unknown}")
        # patterns by terminal number (a terminal the grammar lacks never matches: its slot is never read)
        by_name = {name: re.compile(pattern) for name, pattern in terminals}
        _check_groups(by_name)
        never = re.compile(r"(?!)")
        self.patterns_by_name: dict[str, re.Pattern[str]] = by_name
        self.patterns: list[re.Pattern[str]] = [by_name.get(n, never) for n in _TERMINALS]
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
        self.quick: bool = all(name in by_name and by_name[name].pattern == pattern
                               for name, pattern in _QUICK_PATTERNS.items())

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
        actions = self.actions
        gotos = self.gotos
        patterns = self.patterns
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
                        kind, m = _fast_line(text, 0, len(key), patterns)
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
