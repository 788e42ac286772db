"""The house format's lines (shared/spec/FORMAT.md): their kinds, the grammar's terminals, by name and by number; the
groups each terminal's pattern holds; the words the lines are written with and what they stand for; and which
kinds a line may be, from its first words (every reader of the house format asks this module, never the grammar's
text)."""

from __future__ import annotations

import re
from typing import Final

from audit.dialects.common import LineError

__all__ = ["AFTER_COLON", "AFTER_NAME", "BY_FIRST_WORD", "EVENTS", "GROUPS", "MARKERS", "PAROLE_VERBS",
           "PLAYER_NAME", "POST_KINDS", "POTS", "TERMINALS", "TERMINAL_CODE", "VERBS", "check_groups", "classify",
           "fast_codes", "fast_line", "is_player_name"]

# ---- the kinds of line, by number -------------------------------------------------------------------
# Terminals by number (the grammar's names, checked against it when the tables are built), then ``$END``.
TERMINALS: Final = (
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
TERMINAL_CODE: Final = {name: code for code, name in enumerate(TERMINALS)}


# ---- the words inside a line --------------------------------------------------------------------------
# What the words of a line stand for in the model (the builders and the sliced readers take the post kinds, the
# streets and the pots from here).
POST_KINDS: Final = {"the ante": "ante", "small blind": "small", "big blind": "big", "over blind": "over",
                     "live blind": "live", "dead blind": "dead"}
MARKERS: Final = {"DEALING HANDS": "deal", "FIRST BETTING ROUND": "first", "DRAW": "draw",
                  "SECOND BETTING ROUND": "second", "SHOW DOWN": "showdown", "SUMMARY": "summary",
                  "REDEAL": "redeal"}
EVENTS: Final = {"disconnected": "disconnected", "connected": "connected", "played by the house": "house"}
VERBS: Final = {"folds": "fold", "checks": "check", "calls": "call", "bets": "bet", "raises": "raise"}
PAROLE_VERBS: Final = {"offers": "offer", "accepts": "accept", "declines": "decline"}
POTS: Final = {"pot": "pot", "main pot": "main", "pot (parole)": "parole"}
"""A collect line's pot as written → its key (a side pot, ``side pot-N``, is ``side-N``)."""


# The groups of each terminal's pattern, in order (``None``: a group without a name): the builders unpack
# ``m.groups()``, cheaper than looking groups up by name. ``check_groups`` holds the grammar to this.
GROUPS: Final[dict[str, tuple[str | None, ...]]] = {
    "HAND_LINE": ("id", "date"), "TABLE_LINE": ("table", "button"), "SEAT_LINE": ("seat", "name", "n", "unit", "out"),
    "MARKER": (None,), "DEALT": ("name", "cards", None), "UNCALLED": ("n", "name"), "STANDING": ("place", "name", "n"),
    "POST": ("name", "kind", "n", "allin"), "NOPLAY": ("name", "what"),
    "ACT": ("name", "plain", "verb", "n", "inc", "to", "allin", "timedout", "took"),
    "PAROLE": ("name", "verb", "took"), "DISCARDS": ("name", "n", "cards", "took", None),
    "STANDS_PAT": ("name", "timedout", "took"), "SHOWS": ("name", "cards", "desc"), "MUCKS": ("name",),
    "COLLECTED": ("name", "n", "pot"), "EVENT": ("name", "what"), "SAID": ("name", "text"), "SCORES": ("name", "n"),
    "CARDS": ("cards",),
}


def check_groups(patterns: dict[str, re.Pattern[str]]) -> None:
    """Raises ``ValueError`` if a terminal's groups are not the ones its builder unpacks (a grammar edit)."""
    for name, pattern in patterns.items():
        by_number = {number: group for group, number in pattern.groupindex.items()}
        found = tuple(by_number.get(i) for i in range(1, pattern.groups + 1))
        if found != GROUPS.get(name, ()):
            raise ValueError(f"the groups of {name} in the grammar are {found}, the parser reads "
                             f"{GROUPS.get(name, ())}: update GROUPS and the builder")


# ---- which kinds a line may be -------------------------------------------------------------------------
# The lexer picks candidate terminals for a line from its first word (or, for a line that starts with a
# player's name, from the word after the name) and matches only those: one regular expression per line instead
# of an alternation of every terminal, which is what makes the parse fast.
BY_FIRST_WORD = {
    "Hand": ("HAND_LINE",), "Table": ("TABLE_LINE",), "Seat": ("SEAT_LINE",), "Pot": ("CARRIED",),
    "***": ("MARKER", "SESSION_END"), "Deck:": ("DECK",), "Dealt": ("DEALT",), "Dealer:": ("RESHUFFLES",),
    "Uncalled": ("UNCALLED",), "Total": ("TOTAL",), "Session:": ("SESSION",), "Profile:": ("PROFILE",),
    "Option:": ("OPTION",), "Cards:": ("CARDS",),
}
AFTER_COLON = {
    "posts": "POST", "waits": "NOPLAY", "sits": "NOPLAY", "folds": "ACT", "checks": "ACT", "calls": "ACT",
    "bets": "ACT", "raises": "ACT", "offers": "PAROLE", "accepts": "PAROLE", "declines": "PAROLE",
    "discards": "DISCARDS", "stands": "STANDS_PAT", "shows": "SHOWS", "mucks": "MUCKS", "is": "EVENT",
}
AFTER_NAME = {"collected": "COLLECTED", "said,": "SAID", "scores": "SCORES"}


def _candidates(line: str) -> tuple[str, ...]:
    words = line.split(None, 2)
    if not words:
        return ()
    first = words[0]
    found = BY_FIRST_WORD.get(first, ())
    second = words[1] if len(words) > 1 else ""
    if first.endswith(":"):
        if first[:-1].isdigit():
            return found + ("STANDING",)
        named = AFTER_COLON.get(second)
    else:
        named = AFTER_NAME.get(second)
    return found + (named,) if named else found


def classify(text: str, pos: int, end: int, line_no: int,
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


# ``_candidates``'s tables by terminal number.
_FIRST_CODES: Final = {word: tuple([TERMINAL_CODE[n] for n in names]) for word, names in BY_FIRST_WORD.items()}
_COLON_CODES: Final = {word: TERMINAL_CODE[name] for word, name in AFTER_COLON.items()}
_NAME_CODES: Final = {word: TERMINAL_CODE[name] for word, name in AFTER_NAME.items()}
_FIRST_CHARS: Final = frozenset(word[0] for word in BY_FIRST_WORD)


def fast_codes(text: str, pos: int, nl: int) -> tuple[tuple[int, ...], int]:
    """The terminals ``fast_line`` tries for the line ``text[pos:nl]``, in order: those its first word may start
    (``BY_FIRST_WORD``), then the one its next word names (-1: none)."""
    sp = text.find(" ", pos, nl)
    if sp <= pos:
        return (), -1
    c = text[pos]
    found: tuple[int, ...] = ()
    if c in _FIRST_CHARS:  # (no slice of the first word when it cannot be one of BY_FIRST_WORD's)
        found = _FIRST_CODES.get(text[pos:sp], ())
    colon = text[sp - 1] == ":"
    if colon and c.isdigit() and text[pos:sp - 1].isdigit():
        return found, T_STANDING
    sp2 = text.find(" ", sp + 1, nl)
    second = text[sp + 1:sp2] if sp2 >= 0 else text[sp + 1:nl]
    return found, (_COLON_CODES if colon else _NAME_CODES).get(second, -1)


def fast_line(text: str, pos: int, nl: int, patterns: list[re.Pattern[str]]) -> tuple[int, re.Match[str] | None]:
    """``classify`` without splitting the line: the line ``text[pos:nl]``'s terminal and match, or ``-1`` when
    this shortcut cannot tell (``classify`` then decides, and explains an unreadable line).

    The words are cut at single spaces, not at any whitespace as ``_candidates`` does; the answer is the same
    whenever it is not -1: the words it looks up hold no whitespace, and a terminal's pattern only matches a line
    whose first words are separated as the lookup assumed (a name is ``[\\w\\-.']+``, ``name: verb`` has one space).
    The candidates are tried in ``_candidates``'s order; ``fullmatch`` up to the newline is ``classify``'s match
    that ends at the newline (no terminal's pattern matches a newline but its last character).
    """
    found, named = fast_codes(text, pos, nl)
    for code in found:
        m = patterns[code].fullmatch(text, pos, nl + 1)
        if m is not None:
            return code, m
    if named >= 0:
        m = patterns[named].fullmatch(text, pos, nl + 1)
        if m is not None:
            return named, m
    return -1, None


PLAYER_NAME: Final = re.compile(r"[\w\-.']+")
"""What the patterns read as a player's name."""


def is_player_name(name: str) -> bool:
    """Whether a line led by ``name`` reads as that player's line (``name: folds``, ``name collected 2 from
    pot``): one word the patterns read as a name (``[\\w\\-.']+``) that is not the first word of another kind of
    line (``Seat``, ``Session:``, a standings line's place ``12:``; any word of digits, ``²`` and ``٣`` too)."""
    return (PLAYER_NAME.fullmatch(name) is not None and not name.isdigit() and name not in BY_FIRST_WORD
            and name + ":" not in BY_FIRST_WORD)

