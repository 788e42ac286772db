"""What the dialects' parsers share: caret errors, cards and amounts, and the LALR loop of the site dialects.

Nothing here knows a dialect: the house parser (``house.py``) and the site dialects (``pokerstars.py``,
``fulltilt.py``, ``ongame.py``) all turn a ``RawBlock`` into model objects or a ``ParseFailure`` whose message
shows the line with a caret under the first character that does not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, Generic, cast

from audit.dialects.contract import B, LineCallback, RuleCallback, Token, Tokens
from audit.model import (
    Action, Collect, Dealt, Discard, Event, Hand, Item, Muck, NoPlay, Parole, ParseFailure, Post, Score, Seat, Show,
    StandPat, Uncalled,
)
from audit.read import RawBlock

if TYPE_CHECKING:  # Lark is imported when a site dialect builds its grammar (a house log never imports it)
    from lark import Lark

# A number longer than this is refused (a PARSE_ERROR) rather than read: Python will not even convert a string
# of 4,300 digits to an int, and sums of such amounts would break every message that prints them.
MAX_NUMBER_DIGITS: Final = 100
LONG_NUMBER: Final = re.compile(r"\d{%d}" % (MAX_NUMBER_DIGITS + 1))
# The largest amount (chips, points, a count) and seat number a hand may hold: the database stores amounts as
# 64-bit integers and seats as 32-bit ones, and the sums of a hand's amounts (a pot, what a player put in, at
# most 2,000 lines of them) must fit as well. A larger number is a PARSE_ERROR of its hand, in `audit check`
# as in `audit ingest`, so that the two always agree and the other hands of the file are stored.
MAX_AMOUNT: Final = 10**15 - 1
MAX_SEAT: Final = 10**9 - 1

CURRENCY_OF_SIGN: Final = {"$": "USD", "€": "EUR", "£": "GBP"}


class LineError(Exception):
    """A line that does not read: where the reading stopped (line within the block, 1-based; column), and why
    in plain words.

    The one rule for which line an error names: ``line`` is always the line's place in its block, and only
    ``failure`` turns it into the file's line (``block.numbers``). A builder's callback is handed the file line
    (for the model objects it makes) and may raise with it; ``TableParser`` puts the line's place back before the
    error leaves the parse."""

    def __init__(self, line: int, column: int, what: str) -> None:
        super().__init__(what)
        self.line = line
        self.column = column
        self.what = what


# ---- model objects and the players' strings ------------------------------------------------------------------
new_model: Final = tuple.__new__
"""``new_model(Action, (line, ...))``: a model tuple with every field given in order. A NamedTuple's own
constructor is a Python function, the slowest part of building an item on the parse's hot path (the fixtures
pin every field, so a field added to a model shows there)."""

PLAYER_ITEMS: Final = frozenset([Post, NoPlay, Dealt, Action, Parole, Discard, StandPat, Show, Muck, Collect,
                                 Uncalled, Event, Score])
"""The body items whose second field (after the line) is a player's name."""


def with_player(item: Item, player: str) -> Item:
    """``item`` (one of ``PLAYER_ITEMS``) with ``player`` as its player."""
    row = cast(tuple[Any, ...], item)
    return new_model(type(item), (row[0], player) + row[2:])


def seats_own_strings(seats: tuple[Seat, ...], body: list[Item] | tuple[Item, ...]) -> tuple[Item, ...]:
    """``body`` with each line's player the very ``str`` of the seat of that name, so that the replay's
    look-ups by player compare it by identity (no hash computed again, no characters compared). A name that no
    seat has stays as it is (the engine judges that line)."""
    # Gain: 20,000 hands replay in 0.431 s CPU, 0.458 with a copy of each name, 6% (compiled): bench/parse.py --players
    own = {seat.player: seat.player for seat in seats}
    items: list[Item] = []
    for item in body:
        if type(item) in PLAYER_ITEMS:
            player = cast(tuple[Any, ...], item)[1]
            mine = own.get(player)
            if mine is not None and mine is not player:
                item = with_player(item, mine)
        items.append(item)
    return tuple(items)


# ---- cards and amounts --------------------------------------------------------------------------------------

def split_cards(token: str) -> tuple[str, ...]:
    """``"[As 10d 5c]"`` → ``("As", "Td", "5c")`` (``10`` read as ``T``); unknown text is kept as written."""
    return cards_inside(token[1:-1])


def cards_inside(inside: str) -> tuple[str, ...]:
    """``split_cards`` of the text between the brackets."""
    if "10" not in inside:
        return tuple(inside.split())
    return tuple([("T" + c[2:]) if c.startswith("10") else c for c in inside.split()])


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
    # (isdecimal, not isdigit: "²" is a digit that int() refuses)
    if not whole.isdecimal() or (dot and not frac.isdecimal()) or "." in frac:
        return None
    if not cents:
        return int(whole) if not dot else None
    if len(frac) > 2:
        return None
    return int(whole) * 100 + (int(frac.ljust(2, "0")) if frac else 0)


def amount_of(m: re.Match[str], group: str, cents: bool, line: int) -> int:
    """The amount in ``group`` of a line's match; a ``LineError`` with the amount's column when it is not one
    (``$1.234``, ``1.5`` chips, ``$15`` in a play-money hand)."""
    text = m.group(group)
    value = to_amount(text, cents)
    if value is None:
        column = m.start(group) - m.start() + 1
        kind = "a currency amount ($1.25)" if cents else "a whole number of chips (a play-money hand)"
        raise LineError(line, column, f"{text!r} is not {kind}")
    return value


# ---- caret errors -------------------------------------------------------------------------------------------

_HAND_ID: Final = re.compile(r"(?:[^#\n]* (?:Game|Hand) #|\*\*\*\*\* History for hand )([\w-]*\d[\w-]*)")


def hand_id_guess(block: RawBlock) -> str | None:
    """The hand's id from the block's first line, when it names one (for the finding of an unreadable hand)."""
    first = block.lines[0] if block.lines else ""
    if first.startswith("Hand #"):
        return first[6:].split(" ", 1)[0] or None
    m = _HAND_ID.match(first)
    return m.group(1) if m else None


def failure(block: RawBlock, index: int, column: int, what: str) -> ParseFailure:
    """A ``ParseFailure`` at the ``index``-th line of the block (1-based), with the line and a caret."""
    index = max(1, min(index, len(block.lines) or 1))
    text_line = block.lines[index - 1] if block.lines else ""
    line_no = block.numbers[index - 1] if block.numbers else 0
    caret = " " * (column - 1) + "^"
    message = f"line {line_no}, column {column}: {what}\n    {text_line}\n    {caret}"
    return ParseFailure(block.file, line_no, column, message, hand_id_guess(block), block.first_line,
                        block.end_line)


def long_number_failure(block: RawBlock, found: re.Match[str]) -> ParseFailure:
    """The failure for a number of more than ``MAX_NUMBER_DIGITS`` digits (``found`` in ``block.text()``)."""
    text = found.string
    index = text.count("\n", 0, found.start()) + 1
    column = found.start() - text.rfind("\n", 0, found.start())
    return failure(block, index, column,
                   f"a number of more than {MAX_NUMBER_DIGITS} digits cannot be read (no amount, seat or count "
                   "is that long)")


class NumberTooLarge(Exception):
    """A number too long to read, or too large to store, met while building (reported as a ``PARSE_ERROR``)."""

    def __init__(self, digits: str, seat: bool = False) -> None:
        super().__init__(digits)
        self.digits = digits
        self.seat = seat

    def what(self) -> str:
        if len(self.digits.strip()) > MAX_NUMBER_DIGITS:
            return (f"a number of more than {MAX_NUMBER_DIGITS} digits cannot be read (no amount, seat or count is "
                    "that long)")
        if self.seat:
            return f"a seat number this large cannot be stored (seats are numbered 1 to 10; at most {MAX_SEAT:,})"
        return (f"the number {self.digits.strip()} is larger than the audit can store "
                f"(at most {MAX_AMOUNT:,}, 15 digits)")


def read_amount(digits: str) -> int:
    """An amount as written (digits only); ``NumberTooLarge`` past ``MAX_AMOUNT``."""
    if len(digits) > 15 and (len(digits) > MAX_NUMBER_DIGITS or int(digits) > MAX_AMOUNT):
        raise NumberTooLarge(digits)
    return int(digits)


def read_seat(digits: str) -> int:
    """A seat or button number as written; ``NumberTooLarge`` past ``MAX_SEAT``."""
    if len(digits) > 9 and (len(digits) > MAX_NUMBER_DIGITS or int(digits) > MAX_SEAT):
        raise NumberTooLarge(digits, seat=True)
    return int(digits)


def number_too_large(hand: Hand) -> tuple[int, str] | None:
    """The file line and reason of the first number in ``hand`` beyond ``MAX_AMOUNT`` (a seat: ``MAX_SEAT``),
    or ``None``. The house parser refuses those as it reads them; this checks a hand read another way (a site's)."""
    if hand.button > MAX_SEAT:
        return hand.line, NumberTooLarge(str(hand.button), seat=True).what()
    if hand.carried > MAX_AMOUNT:
        return hand.carried_line, NumberTooLarge(str(hand.carried)).what()
    for st in hand.seats:
        if st.seat > MAX_SEAT:
            return st.line, NumberTooLarge(str(st.seat), seat=True).what()
        if st.chips > MAX_AMOUNT:
            return st.line, NumberTooLarge(str(st.chips)).what()
    for item in hand.body:
        for value in cast(tuple[object, ...], item):
            if type(value) is int and value > MAX_AMOUNT:
                return cast(int, getattr(item, "line")), NumberTooLarge(str(value)).what()
    return None


def too_long_failure(block: RawBlock) -> ParseFailure:
    """The failure for a block the reader cut off at its line limit."""
    return failure(block, len(block.lines), 1,
                   f"the hand is longer than {len(block.lines):,} lines; the rest was not read")


def viable_prefix(pattern: str, text: str) -> int:
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


def word_start(text: str, at: int) -> int:
    """Where the word holding position ``at`` of ``text`` starts."""
    while at > 0 and not text[at - 1].isspace():
        at -= 1
    return at


NAME_PREFIX: Final = "(?P<name>[^\n]+?) "  # how the patterns of lines led by a player's name begin (Lark makes the \n a newline)


def diagnose_tail(pattern: str, line: str, start: int, verb: str) -> tuple[int, str]:
    """Column and words for a line led by a player's name whose verb starts at ``start`` (0-based) and that
    ``pattern`` (beginning with ``NAME_PREFIX``) does not read: the caret goes under the first word after the
    name that cannot fit."""
    tail = line[start:]
    stop = viable_prefix(pattern[len(NAME_PREFIX):], tail)
    if stop >= len(tail):
        return len(line) + 1, f"the {verb!r} line stops short"
    at = word_start(tail, stop)
    word = tail[at:].split(" ", 1)[0]
    return start + at + 1, f"cannot read this {verb!r} line from {word!r} on"


def diagnose_whole(pattern: str, line: str, what: str) -> tuple[int, str]:
    """Column and words for a line that ``pattern`` (a line read from its first word) does not read."""
    stop = viable_prefix(pattern, line)
    if stop < len(line):
        at = word_start(line, stop)
        word = line[at:].split(" ", 1)[0]
        return at + 1, f"cannot read {what} from {word!r} on"
    return 1, f"cannot read {what}"


# ---- the LALR loop of the site dialects ---------------------------------------------------------------------

class Misplaced(Exception):
    """A line that reads but stands where the grammar allows no such line (``kind``: its terminal, or ``$END``;
    ``expected``: the terminals that could have stood there)."""

    def __init__(self, line: int, kind: str, expected: frozenset[str]) -> None:
        super().__init__(kind)
        self.line = line
        self.kind = kind
        self.expected = expected


def load_grammar(name: str, start: str, strict: bool = False) -> Lark:
    """A site dialect's grammar (``grammar/<name>.lark``) as Lark's LALR tables. ``strict=True``: a
    shift/reduce conflict is an error (the tests build every grammar so)."""
    from audit.dialects.sitegrammar import build_grammar
    return build_grammar(name, start, strict)


def terminal_patterns(lark: Lark) -> dict[str, re.Pattern[str]]:
    """Each terminal's pattern (a whole line, newline included), compiled."""
    return {t.name: re.compile(t.pattern.to_regexp()) for t in lark.lexer_conf.terminals}


Shifted = LineCallback[Any]
"""A builder's callback for a line: (builder, the match of its terminal's pattern, its file line) → a value."""
Reduced = RuleCallback[Any]
"""A builder's callback for a rule: (builder, the children's values) → a value."""


class TableParser:
    """Plays Lark's LALR tables over tokens, one per line, with a builder made for each parse.

    The builder holds the parse's own state (cents or chips, the seats, the bets of the round …), so that two
    threads parsing at once share nothing but the tables. A list rule (``x: ITEM | x ITEM``) grows one Python
    list; every other rule calls the builder's callback named after it; every shifted line calls the callback
    named after its terminal.
    """

    def __init__(self, lark: Lark, start: str, on_line: Mapping[str, Shifted], on_rule: Mapping[str, Reduced]) -> None:
        from lark.parsers.lalr_analysis import Shift
        table = lark.parser.parser.parser.parse_table
        inner = lark.parser.parser.parser
        self.on_line: dict[str, Shifted] = dict(on_line)
        names = {t.name for t in lark.lexer_conf.terminals}
        self.terminals = frozenset(names | {"$END"})
        if names - set(on_line):
            raise ValueError(f"no builder callback for the terminals {sorted(names - set(on_line))}")
        self.rule_index: dict[Any, int] = {}
        self.rules: list[tuple[str, int, int]] = []  # (origin, size, 0 call / 1 list start / 2 list append)
        self.on_rule: list[Reduced | None] = []
        for rule in inner.callbacks:
            if isinstance(rule, str):
                continue
            origin = str(rule.origin.name)
            size = len(rule.expansion)
            left_recursive = size == 2 and str(rule.expansion[0].name) == origin
            is_list = any(str(r.origin.name) == origin and len(r.expansion) == 2
                          and str(r.expansion[0].name) == origin for r in inner.callbacks if not isinstance(r, str))
            self.rule_index[rule] = len(self.rules)
            self.rules.append((origin, size, 2 if left_recursive else 1 if is_list else 0))
            self.on_rule.append(None if is_list else on_rule[origin])
        self.actions: dict[int, dict[str, tuple[bool, int]]] = {}
        for state, actions in table.states.items():
            self.actions[state] = {
                str(symbol): (action is Shift, arg if action is Shift else self.rule_index[arg])
                for symbol, (action, arg) in actions.items()}
        self.start = table.start_states[start]
        self.end = table.end_states[start]

    def parse(self, tokens: Iterator[Token], numbers: list[int], builder: Any) -> object:
        """The start rule's value for the lines ``tokens`` yields (terminal, match, line within the block);
        ``numbers``: the file line of each line of the block. Raises ``Misplaced`` for a line out of place (and
        lets the builder's and the tokens' ``LineError`` through)."""
        actions = self.actions
        stack: list[int] = [self.start]
        values: list[Any] = []
        done = False
        token = iter(tokens)
        while not done:
            item = next(token, None)
            if item is None:
                kind, m, line = "$END", None, 0
            else:
                kind, m, line = item
            while True:
                row = actions[stack[-1]]
                action = row.get(kind)
                if action is None:
                    raise Misplaced(line, kind, frozenset([k for k in row if k in self.terminals]))
                shift, arg = action
                if shift:
                    stack.append(arg)
                    assert m is not None
                    try:
                        values.append(self.on_line[kind](builder, m, numbers[line - 1]))
                    except LineError as unreadable:  # the builder names the file line: an error names the index
                        raise LineError(line, unreadable.column, unreadable.what) from None
                    break
                origin, size, how = self.rules[arg]
                if how == 2:
                    tail = values.pop()
                    values[-1].append(tail)
                elif how == 1:
                    values[-1] = [values[-1]]
                else:
                    children = values[len(values) - size:] if size else []
                    del values[len(values) - size:]
                    callback = self.on_rule[arg]
                    assert callback is not None
                    values.append(callback(builder, children))
                del stack[len(stack) - size:]
                goto = actions[stack[-1]].get(origin)
                assert goto is not None
                stack.append(goto[1])
                if kind == "$END" and stack[-1] == self.end:
                    done = True
                    break
        return values[-1]

    def parse_hand(self, block: RawBlock, tokens: Iterator[Token], builder: Any,
                   out_of_place: Callable[[RawBlock, Misplaced], ParseFailure]) -> Hand | ParseFailure:
        """A site dialect's block → its ``Hand`` (with the block's file and last line) or a ``ParseFailure``: a
        line out of place as ``out_of_place`` words it, an unreadable line at its column."""
        try:
            hand = cast(Hand, self.parse(tokens, block.numbers, builder))
        except Misplaced as misplaced:  # (one name per clause: the compiled code gives a name one type)
            return out_of_place(block, misplaced)
        except LineError as unreadable:
            return failure(block, unreadable.line, unreadable.column, unreadable.what)
        return hand._replace(file=block.file, end_line=block.end_line)


class SiteParser(Generic[B]):
    """A site dialect read with a grammar, whole: its grammar (``grammar/<grammar>.lark``, built by Lark when its
    first hand is read), its lexer, a builder made for each hand (``new_builder``) with its tables of callbacks,
    and the words for a line out of place. ``parse`` is the dialect's parse function (see ``contract``); the
    dialect's module writes only its builder, its lexer's table and its words."""

    def __init__(self, grammar: str, new_builder: Callable[[], B], on_line: Mapping[str, LineCallback[B]],
                 on_rule: Mapping[str, RuleCallback[B]], tokens: Tokens,
                 out_of_place: Callable[[RawBlock, Misplaced], ParseFailure], start: str = "hand") -> None:
        self.grammar_name = grammar
        self.new_builder = new_builder
        self.on_line = on_line
        self.on_rule = on_rule
        self.tokens = tokens
        self.out_of_place = out_of_place
        self.start = start
        self._grammars: dict[bool, Lark] = {}
        self._tables: tuple[TableParser, dict[str, re.Pattern[str]]] | None = None

    def grammar(self, strict: bool = False) -> Lark:
        """The grammar's LALR tables (built once per process; ``strict=True``: conflicts are errors)."""
        found = self._grammars.get(strict)
        if found is None:
            found = self._grammars[strict] = load_grammar(self.grammar_name, self.start, strict)
        return found

    def tables(self) -> tuple[TableParser, dict[str, re.Pattern[str]]]:
        """The parser of the grammar's tables with the builder's callbacks, and the terminals' patterns."""
        found = self._tables
        if found is None:  # (two threads may both build it: the same tables, one kept)
            lark = self.grammar()
            found = self._tables = (TableParser(lark, self.start, self.on_line, self.on_rule),
                                    terminal_patterns(lark))
        return found

    def parse(self, block: RawBlock) -> Hand | ParseFailure:
        """A block → its ``Hand`` or a ``ParseFailure``; never raises on any text."""
        if block.too_long:
            return too_long_failure(block)
        if not block.lines:
            return failure(block, 1, 1, "empty hand")
        parser, patterns = self.tables()
        return parser.parse_hand(block, self.tokens(block.text(), patterns), self.new_builder(), self.out_of_place)


def lines_of(text: str) -> Iterator[tuple[int, int, str]]:
    """``(line within the block, start offset, line)`` for each line of a block's text."""
    pos = 0
    number = 0
    end = len(text)
    while pos < end:
        number += 1
        nl = text.find("\n", pos)
        if nl < 0:
            nl = end
        yield number, pos, text[pos:nl]
        pos = nl + 1


class LineKinds:
    """How a site dialect whose lines start with a player's name (no colon after it) tells its lines apart.

    A line's candidate terminals come from its first word (``first_word``; once the summary has begun,
    ``in_summary`` words first), then from each later word that is a known verb (``verbs``: a name may hold
    spaces, so every space is a possible end of the name), most likely first. The first candidate whose pattern
    matches the whole line is the line's terminal. ``describe`` names the lines read from their first word, for
    messages; ``writer`` names the site.
    """

    def __init__(self, writer: str, first_word: dict[str, tuple[str, ...]], in_summary: dict[str, tuple[str, ...]],
                 verbs: dict[str, tuple[str, ...]], describe: dict[str, str], opens_summary: frozenset[str],
                 game_of: Callable[[str, re.Match[str]], str | None], supported: str) -> None:
        self.writer = writer
        self.first_word = first_word
        self.in_summary = {**first_word, **in_summary}
        self.verbs = verbs
        self.describe = describe
        self.opens_summary = opens_summary
        self.game_of = game_of
        self.supported = supported

    def candidates(self, line: str, summary: bool) -> list[tuple[str, int]]:
        """``(terminal, where the verb starts or -1)`` for every terminal that might read ``line``."""
        found: list[tuple[str, int]] = []
        space = line.find(" ")
        words = self.in_summary if summary else self.first_word
        for kind in words.get(line[:space] if space >= 0 else line, ()):
            found.append((kind, -1))
        while space >= 0:
            end = line.find(" ", space + 1)
            for kind in self.verbs.get(line[space + 1:end] if end >= 0 else line[space + 1:], ()):
                found.append((kind, space + 1))
            space = end
        return found

    def tokens(self, text: str, patterns: dict[str, re.Pattern[str]]) -> Iterator[Token]:
        """One token per line (terminal, match, line within the block); ``LineError`` for a line no terminal
        reads, except in a hand of another game than ``supported`` (as ``game_of`` reads it from the line that
        names the game), where such a line is an ``OTHER`` token. A line of a terminal in ``opens_summary``
        starts the summary."""
        opens_summary, game_of, supported = self.opens_summary, self.game_of, self.supported
        summary = False
        tolerant = False
        for line_no, pos, line in lines_of(text):
            stop = pos + len(line) + 1
            found: tuple[str, re.Match[str]] | None = None
            for kind, _ in self.candidates(line, summary):
                m = patterns[kind].match(text, pos)
                if m is not None and m.end() == stop:
                    found = kind, m
                    break
            if found is None:
                if not tolerant:
                    column, what = self.diagnose(line, summary, patterns)
                    raise LineError(line_no, column, what)
                m = patterns["OTHER"].match(text, pos)
                assert m is not None
                found = "OTHER", m
            kind, m = found
            game = game_of(kind, m)
            if game is not None:
                tolerant = game != supported
            if kind in opens_summary:
                summary = True
            yield kind, m, line_no

    def diagnose(self, line: str, summary: bool, patterns: dict[str, re.Pattern[str]]) -> tuple[int, str]:
        """Column (1-based) and plain words for a line that no pattern reads. Only on the error path."""
        for kind, verb_at in self.candidates(line, summary):
            pattern = patterns[kind].pattern
            if verb_at < 0 and kind in self.describe:
                return diagnose_whole(pattern, line, self.describe[kind])
            if verb_at >= 0 and pattern.startswith(NAME_PREFIX):
                end = line.find(" ", verb_at)
                return diagnose_tail(pattern, line, verb_at, line[verb_at:end] if end >= 0 else line[verb_at:])
        return 1, f"cannot read this line: it is not a line of {self.writer}'s hand histories"


class RoundBets:
    """The chips of one hand as its betting lines go, for the site logs that do not write what the model
    needs: the raise over the bet faced (Full Tilt writes only "raises to", OnGame the chips added and the
    total), the chips each player put in and who bet last (OnGame prints no uncalled-bet line and no show down).
    Bookkeeping of what the log says, not a judgement: the engine judges."""

    def __init__(self) -> None:
        self.bets: dict[str, int] = {}  # this round
        self.current = 0  # the bet to call in this round
        self.put_in: dict[str, int] = {}  # the whole hand, dead money included
        self.folded: set[str] = set()
        self.first_actor: str | None = None  # of this round
        self.last_aggressor: str | None = None  # of this round

    def new_round(self) -> None:
        """A draw ends the round."""
        self.bets = {}
        self.current = 0
        self.first_actor = self.last_aggressor = None

    def _add(self, player: str, amount: int, live: bool) -> None:
        self.put_in[player] = self.put_in.get(player, 0) + amount
        if live:
            self.bets[player] = self.bets.get(player, 0) + amount
            self.current = max(self.current, self.bets[player])

    def post(self, player: str, amount: int, live: bool) -> None:
        """A blind (``live``: it counts toward the player's bet in the round) or dead money, an ante."""
        self._add(player, amount, live)

    def act(self, player: str, kind: str, amount: int = 0) -> None:
        """A fold, check, call or bet of ``amount``."""
        if self.first_actor is None:
            self.first_actor = player
        if kind == "fold":
            self.folded.add(player)
        elif kind in ("call", "bet"):
            self._add(player, amount, True)
            if kind == "bet":
                self.last_aggressor = player

    def raise_to(self, player: str, to: int, added: int | None = None) -> int:
        """A raise to ``to`` (``added``: the chips the log says went in, when it says so); returns the raise as
        the model writes it: the increment over the bet faced, off by as much as ``added`` is wrong."""
        if self.first_actor is None:
            self.first_actor = player
        before = self.bets.get(player, 0)
        increment = to - self.current
        if added is not None:
            increment += added - (to - before)
        self._add(player, to - before, True)
        self.last_aggressor = player
        return increment

    def uncalled(self) -> tuple[str, int] | None:
        """The bettor of this round whose bet nobody matched, and by how much, if any."""
        if not self.bets:
            return None
        top = max(self.bets, key=lambda p: self.bets[p])
        second = max([v for p, v in self.bets.items() if p != top], default=0)
        return (top, self.bets[top] - second) if self.bets[top] > second else None
