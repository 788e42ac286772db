"""The house parser's two shortcuts, both giving exactly what a line's pattern and builder give (the tests hold
them to it, on chosen and on mutated lines): the lines a parser has read before, remembered by their text, and
the usual shapes of the lines read by slicing them (``quick_line``), which a parser uses only while the grammar's
patterns are the ones written here (``QUICK_PATTERNS``).
"""

from __future__ import annotations

from typing import Any, Final, cast

from audit.dialects.common import cards_inside, new_model
from audit.dialects.house_lines import (
    MARKERS, PLAYER_NAME, POST_KINDS, POTS, T_ACT, T_CARDS, T_CARRIED, T_COLLECTED, T_DEALT, T_DECK,
    T_DISCARDS, T_EVENT, T_HAND_LINE, T_MARKER, T_MUCKS, T_NOPLAY, T_OPTION, T_PAROLE, T_POST, T_PROFILE,
    T_RESHUFFLES, T_SAID, T_SCORES, T_SEAT_LINE, T_SESSION, T_SESSION_END, T_SHOWS, T_STANDING, T_STANDS_PAT,
    T_TABLE_LINE, T_TOTAL, T_UNCALLED, TERMINALS, is_player_name,
)
from audit.model import (
    Action, CardsLine, Collect, Dealt, DeckLine, Discard, Event, Marker, Muck, OptionLine, Post, ProfileLine,
    Reshuffle, Seat, SessionLine, Show, Standing, StandPat, SummaryTotal, Uncalled,
)

__all__ = ["MEMO_KINDS", "MEMO_SIZE", "PATTERN_ONLY", "QUICK_PATTERNS", "REMEMBERED", "Seen", "own_name",
           "quick_dealt", "quick_line", "reads_grammar", "remember"]


# The model classes the sliced readers build, as Final names: the compiled code reads a Final from a C static, a
# class by its name from the module's dictionary (a look-up for every line).
# Gain: 2% of the parse's instructions, 3.6 k of 180.8 k a hand (compiled): bench/stages.py --instructions, callgrind
_Action: Final = Action
_CardsLine: Final = CardsLine
_Collect: Final = Collect
_Dealt: Final = Dealt
_DeckLine: Final = DeckLine
_Discard: Final = Discard
_Event: Final = Event
_Marker: Final = Marker
_Muck: Final = Muck
_OptionLine: Final = OptionLine
_Post: Final = Post
_ProfileLine: Final = ProfileLine
_Reshuffle: Final = Reshuffle
_Seat: Final = Seat
_SessionLine: Final = SessionLine
_Show: Final = Show
_StandPat: Final = StandPat
_Standing: Final = Standing
_SummaryTotal: Final = SummaryTotal
_Uncalled: Final = Uncalled


# ---- lines read before, and the lines that never repeat --------------------------------------------------------
# Most lines of a log repeat (players fold, check, call and post the same amounts, the street lines are the same
# in every hand): a parser remembers, per line text, the terminal and the value it built, less the line number,
# and a line read before is rebuilt from that with its own line number (no pattern matched, no groups read).
# Only lines whose value follows from their text alone are remembered, and only after their value was built: a
# line that does not read, or holds a number too large, is read afresh every time (its error is made again).
# The deals, draws and shows (their cards) hardly ever repeat. The usual shapes of every kind of line are read by
# slicing (``quick_line``), anything else by its pattern (compiled when a line first needs it).
# Gain: without it 20,000 hands parse in 16% more CPU, 2.89 s against 2.50 (plain Python): bench/parse.py --without memo

MEMO_SIZE: Final = 4096
"""The most lines a parser remembers, and the most names it holds at the start of a block (a block adds at most
its lines' names); past that it forgets them all and starts again (a log of any size takes the same memory)."""

MEMO_KINDS: Final = frozenset([
    T_TABLE_LINE, T_CARRIED, T_MARKER, T_TOTAL, T_POST, T_NOPLAY, T_ACT, T_PAROLE, T_STANDS_PAT, T_MUCKS, T_EVENT,
    T_SAID, T_SCORES])
"""The terminals whose lines are remembered: their value is the line number and what the text says (the table
line's has no line number). Not the seat, collect and uncalled bet lines, whose amounts seldom repeat: of 20,000
simulated hands' 153,866 lines remembered, 87,894 were of these, and 12,504 of them were met again."""
# Gain: parse 163.4 k instructions a hand, 180.8 k before (compiled; class names' 3.6 k in): bench/stages.py --instructions
REMEMBERED: Final = [code in MEMO_KINDS for code in range(len(TERMINALS))]
"""``MEMO_KINDS`` by terminal number."""


class Seen:
    """A line read before: its terminal and its value less the line number: the value's type and its fields after
    the line number (``lined``), or the value itself (the table line's, which holds no line number)."""

    def __init__(self, kind: int, lined: bool, cls: type, tail: tuple[Any, ...]) -> None:
        self.kind = kind
        self.lined = lined
        self.cls = cls
        self.tail = tail

    def value(self, line: object) -> object:
        """The value the line would be built into at file line ``line``."""
        if self.lined:
            return new_model(self.cls, (line,) + self.tail)
        return self.tail


def remember(kind: int, value: object) -> Seen:
    """What to remember of a line of terminal ``kind`` (one of ``MEMO_KINDS``) built into ``value``."""
    row = cast(tuple[Any, ...], value)
    if kind == T_TABLE_LINE:
        return Seen(kind, False, tuple, row)
    # (the fields copied into a plain tuple first: the compiled code slices a plain tuple directly, a model
    # tuple through a slice object)
    return Seen(kind, True, type(row), tuple(row)[1:])


# ---- the usual shapes of the lines, read by slicing ------------------------------------------------------------
# The patterns whose usual shapes ``quick_line`` reads (a grammar whose patterns differ: every line is matched).
# Gain: 13% of the CPU of parsing 20,000 hands, with the one-pass hand it allows: bench/parse.py --without slicing
QUICK_PATTERNS: Final = {
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

PATTERN_ONLY: Final = frozenset(["CARRIED", "NOPLAY", "PAROLE", "EVENT", "SCORES"])
"""The kinds of line ``quick_line`` leaves to their pattern (rare lines). Every kind of the grammar is here or in
``QUICK_PATTERNS`` (``tests/test_parse_memo.py`` holds the two to the grammar and to the lines of the fixtures)."""


def reads_grammar(sources: dict[str, str]) -> bool:
    """Whether ``quick_line`` reads the lines of the grammar whose terminals' patterns are ``sources``: its
    patterns are those the quick readers were written for, and it has no kind of line they do not know (a new
    kind's lines could otherwise be taken for another kind's)."""
    return (all(sources.get(name) == pattern for name, pattern in QUICK_PATTERNS.items())
            and all(name in QUICK_PATTERNS or name in PATTERN_ONLY for name in sources))


# The street lines as written (single spaces, no trailing space) → their street.
_MARKER_LINES: Final = {f"*** {words} ***": street for words, street in MARKERS.items()}


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



def _plain_name(name: str, names: dict[str, str]) -> str:
    """``name`` when it is a player's name (the patterns' ``[\\w\\-.']+``) that cannot be read as the first word
    of another line (``Session:``, a standings line's ``12:`` …), so that a line led by it is the line its next
    words say; else ``""``. Remembered in ``names``, which gives back the first string read for a name: every
    line of a player then holds the same string, his seat's, whose hash is computed once and which the engine's
    look-ups compare by identity (the parser empties ``names`` only between blocks, with the lines it
    remembers, which hold its strings)."""
    known = names.get(name)
    if known is None:
        known = name if is_player_name(name) else ""
        names[name] = known
    return known


def own_name(name: str, names: dict[str, str], others: dict[str, str]) -> str:
    """The string a parser holds for the player ``name`` of a line read by its pattern: the one its sliced and
    remembered lines hold (``_plain_name``'s), or, for a name they never read (``Seat``, ``12``, ``A na``), the
    first string read for it (kept in ``others``)."""
    known = _plain_name(name, names)
    if known:
        return known
    found = others.get(name)
    if found is None:
        others[name] = found = name
    return found


def _any_name(name: str, names: dict[str, str]) -> str:
    """``name`` when the patterns' ``[\\w\\-.']+`` reads it (``_plain_name``'s string when it gives one), else
    ``""``: for the lines whose first words are fixed (``Uncalled bet``), where any name reads."""
    known = _plain_name(name, names)
    if known:
        return known
    return name if PLAYER_NAME.fullmatch(name) is not None else ""


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
    side of the point (the builders read them as ``float`` does); else -1.0."""
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


def quick_line(key: str, line: object, names: dict[str, str]) -> tuple[int, object]:
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
        return T_MARKER, new_model(_Marker, (line, street))
    if first == 68:  # 'D'
        if _at(key, "Dealt to ", 0):
            return quick_dealt(key, stop, line, names)
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
            return T_CARDS, new_model(_CardsLine, (line, stop == 12))
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
            return T_MUCKS, new_model(_Muck, (line, name))
        return -1, None
    return _quick_act(key, sp, stop, line, names)


def _quick_file_line(key: str, stop: int, line: object, kind: int) -> tuple[int, object]:
    """``quick_line`` of a ``Session: ``, ``Profile: `` or ``Option: `` line: what their builders read from it."""
    if "\n" in key:
        return -1, None
    text = key.split(":", 1)[1]
    if kind == T_SESSION:
        return T_SESSION, new_model(_SessionLine, (line, text.strip()))
    if kind == T_PROFILE:
        return T_PROFILE, new_model(_ProfileLine, (line, text.strip()))
    name, _, value = text.partition("=")
    return T_OPTION, new_model(_OptionLine, (line, name.strip(), value.strip()))


def _quick_standing(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<place>: <name> (<n>)``."""
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
    return T_STANDING, new_model(_Standing, (line, place, name, amount))


def quick_dealt(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of a line starting ``Dealt to ``."""
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
    # (what the deal's builder reads from the brackets ``key[b + 1:stop]``)
    kept = _cards(key, b + 2, close)
    groups = (kept,) if close == stop - 1 else (kept, _cards(key, close + 3, stop - 1))
    return T_DEALT, new_model(_Dealt, (line, name, groups))


def _quick_cards_line(key: str, stop: int, at: int, line: object, kind: int) -> tuple[int, object]:
    """``quick_line`` of ``Deck: [..]`` or ``Dealer: reshuffles [..]`` (``at``: after the ``[``)."""
    if key[stop - 1] != "]" or key.find("]", at) != stop - 1 or "\n" in key:
        return -1, None
    cards = _cards(key, at, stop - 1)
    if kind == T_DECK:
        return T_DECK, new_model(_DeckLine, (line, cards))
    return T_RESHUFFLES, new_model(_Reshuffle, (line, cards))


def _quick_shows(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name>: shows [..]`` (``sp``: the space after the colon)."""
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
    return T_SHOWS, new_model(_Show, (line, name, _cards(key, verb + 7, close), desc))


def _quick_discards(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name>: discards ...`` (``sp``: the space after the colon)."""
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
    return T_DISCARDS, new_model(_Discard, (line, name, count, cards, secs if secs >= 0 else None))


def _quick_stands_pat(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name>: stands pat ...`` (``sp``: the space after the colon)."""
    end, secs = _took_at(key, stop)
    if end < 0:
        return -1, None
    timed = end - sp - 1 == 22 and _at(key, " (timed out)", end - 12)
    if end - sp - 1 != (22 if timed else 10):
        return -1, None
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_STANDS_PAT, new_model(_StandPat, (line, name, timed, secs if secs >= 0 else None))


def _quick_post(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name>: posts ...`` (``sp``: the space after the colon)."""
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
    kind = POST_KINDS.get(key[at:space])
    amount = _number(key, space + 1, end, 15)
    if kind is None or amount < 0:
        return -1, None
    name = _plain_name(key[:sp - 1], names)
    if not name:
        return -1, None
    return T_POST, new_model(_Post, (line, name, kind, amount, allin))


def _quick_act(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name>: <verb> ...`` (``sp``: the space after the colon) when it is a betting line."""
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
    return T_ACT, new_model(_Action, (line, name, kind, amount, to, allin, timed, secs if secs >= 0 else None))


def _quick_seat(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of a line starting ``Seat ``."""
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
    return T_SEAT_LINE, (new_model(_Seat, (line, seat, name, chips, out)), points)


def _quick_hand(key: str, stop: int, line: object) -> tuple[int, object]:
    """``quick_line`` of a line starting ``Hand #``: ``Hand #<id> - yyyy/mm/dd hh:mm:ss`` only."""
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
    """``quick_line`` of ``Table '<t>' Seat #<n> is the button``: the pattern's greedy table ends at the last
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
    """``quick_line`` of ``Total pot <n> | Rake <n>``."""
    bar = _space(key, 10, stop)
    total = _number(key, 10, bar, 15)
    if total < 0 or not _at(key, " | Rake ", bar):
        return -1, None
    rake = _number(key, bar + 8, stop, 15)
    if rake < 0:
        return -1, None
    return T_TOTAL, new_model(_SummaryTotal, (line, total, rake))


def _quick_uncalled(key: str, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``Uncalled bet (<n>) returned to <name>``."""
    close = key.find(")", 14)
    amount = _number(key, 14, close, 15)
    if amount < 0 or not _at(key, ") returned to ", close) or close + 14 >= stop:
        return -1, None
    name = _any_name(key[close + 14:stop], names)
    if not name:
        return -1, None
    return T_UNCALLED, new_model(_Uncalled, (line, name, amount))


def _quick_said(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name> said, "<text>"`` (``sp``: the space after the name); the pattern's greedy text
    ends at the line's last quote."""
    if stop < sp + 9 or key[stop - 1] != "\"" or "\n" in key:
        return -1, None
    name = _plain_name(key[:sp], names)
    if not name:
        return -1, None
    return T_SAID, new_model(_Event, (line, name, "said", key[sp + 8:stop - 1]))


def _quick_collected(key: str, sp: int, stop: int, line: object, names: dict[str, str]) -> tuple[int, object]:
    """``quick_line`` of ``<name> collected <n> from <pot>`` (``sp``: the space after the name)."""
    at = sp + 11
    end = key.find(" from ", at)
    amount = _number(key, at, end, 15)
    if amount < 0:
        return -1, None
    where = key[end + 6:stop]
    pot = POTS.get(where)
    if pot is None:
        if not where.startswith("side pot-") or _number(where, 9, len(where), 15) < 0:
            return -1, None
        pot = "side-" + where[9:]
    name = _plain_name(key[:sp], names)
    if not name:
        return -1, None
    return T_COLLECTED, new_model(_Collect, (line, name, amount, pot))


